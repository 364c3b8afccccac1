#!/usr/bin/env bash
# bitmapd driven by a Node client library, node-redis (npm package `redis`, the
# version pinned in tests/clients/node/package-lock.json), over RESP2 and RESP3:
# tests/clients/node/seeds.mjs prints each check as NAME<TAB>EXPECTED<TAB>ACTUAL,
# checked here. The package is installed from the npm registry on first use
# (`npm ci` into tests/clients/node/node_modules, not committed).
set -uo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

DIR=$BITMAPD_ROOT/tests/clients/node
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  check "Node.js and npm are installed" yes no
  finish
fi
if [[ ! -d $DIR/node_modules/redis ]] &&
  ! (cd "$DIR" && timeout 300 npm ci --no-audit --no-fund >"$BITMAPD_TEST_TMP/npm.log" 2>&1); then
  check "npm ci installed node-redis" ok "failed: $(tail -n 5 "$BITMAPD_TEST_TMP/npm.log")"
  finish
fi
start_service || finish

out=$(cd "$DIR" && timeout 120 node seeds.mjs "$RPORT" "nodec$$:" 2>&1)
rc=$?
check "node-redis script ran to its end" 0 "$rc"
n=0
while IFS=$'\t' read -r name expected actual; do
  [[ -n $name ]] || continue
  if [[ -z ${actual+x} ]]; then
    check "node-redis: output line" "NAME<TAB>EXPECTED<TAB>ACTUAL" "$name"
    continue
  fi
  check "node-redis: $name" "$expected" "$actual"
  n=$((n + 1))
done <<<"$out"
check "node-redis: every check of both protocols ran" yes "$([[ $n -ge 74 ]] && echo yes || echo "only $n")"
finish
