#!/usr/bin/env bash
# The README's examples, as a new user runs them: every `curl` and `redis-cli` line
# of its ```sh blocks, in order, against a service on a cluster of its own that
# starts empty (as after `make run` on a fresh machine), with localhost:8080 and
# -p 6380 pointed at this instance. Each must succeed (HTTP 2xx, no Redis error),
# and the answers the README states in its comments must be what comes back.
# Lines that are not curl or redis-cli (make, the import from a Redis server) are
# listed and not run.
set -uo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

README=$BITMAPD_ROOT/README.md
PG=$(mktemp -d /tmp/bitmapd-readme.XXXXXX)
cleanup_pg() {
  bash "$BITMAPD_ROOT/scripts/pg.sh" stop "$PG" >/dev/null 2>&1 || true
  rm -rf -- "$PG"
}
trap cleanup_pg EXIT

pgport=$(free_port) || finish
if ! bash "$BITMAPD_ROOT/scripts/pg.sh" start "$PG" "$pgport" >"$BITMAPD_TEST_TMP/pg.log" 2>&1; then
  check "a cluster of its own started" ok "failed: $(tail -n 5 "$BITMAPD_TEST_TMP/pg.log")"
  finish
fi
if ! BITMAPD_DSN=$(<"$PG/owner_dsn") "$BITMAPD_BIN" --migrate >"$BITMAPD_TEST_TMP/migrate.log" 2>&1; then
  check "the new cluster migrated" ok "failed: $(tail -n 5 "$BITMAPD_TEST_TMP/migrate.log")"
  finish
fi
BITMAPD_DSN=$(<"$PG/dsn")
export BITMAPD_DSN
start_service || finish

# The example lines, in order: inside ```sh blocks, starting with curl or redis-cli.
mapfile -t lines < <(awk '/^```sh$/ {in_block = 1; next} /^```$/ {in_block = 0; next} in_block' "$README")
ran=0
skipped=()
for line in "${lines[@]}"; do
  cmd=$(sed -E 's/[[:space:]]+#[^'\''"]*$//' <<<"$line") # the trailing comment
  case $cmd in
  curl\ *)
    cmd=${cmd//localhost:8080/127.0.0.1:$PORT}
    out=$(eval "$cmd -o '$BITMAPD_TEST_TMP/body' -w '%{http_code}'" 2>&1)
    check_match "README: $line" '^2[0-9][0-9] ' "$out $(head -c 300 "$BITMAPD_TEST_TMP/body" 2>/dev/null)"
    cp "$BITMAPD_TEST_TMP/body" "$BITMAPD_TEST_TMP/body.$ran" 2>/dev/null
    ;;
  redis-cli\ *)
    cmd=${cmd//-p 6380/-h 127.0.0.1 -p $RPORT}
    out=$(eval "$cmd" 2>&1)
    check_match "README: $line" '^[^E(]' "${out:-<empty>}"
    printf '%s' "$out" >"$BITMAPD_TEST_TMP/body.$ran"
    ;;
  *)
    skipped+=("$line")
    continue
    ;;
  esac
  ran=$((ran + 1))
done
check "README: every curl and redis-cli example found and run" yes "$([[ $ran -ge 12 ]] && echo yes || echo "only $ran")"
for line in "${skipped[@]}"; do echo "# not run (not curl or redis-cli): $line"; done

# What the README's comments promise, from the answers above (body.N: the N-th run line).
body() { jq -c "$2" "$BITMAPD_TEST_TMP/body.$1" 2>/dev/null; }
check "README: page 2 of 3 is [6,4,3], next_before 3" '[6,4,3] 3' \
  "$(body 1 '[.messages[].id]') $(body 1 '.next_before')"
check "README: pushed 7, read 1, unread 6" '7 1 6' "$(body 3 '.pushed') $(body 3 '.read') $(body 3 '.unread')"
check_match "README: a check-in answers its streak and points" '^[0-9]+ [0-9]+$' \
  "$(body 4 '.streak') $(body 4 '.points')"
check "README: a month's calendar of check-ins" 'true' "$(body 5 '.calendar["2026-11-20"]')"
check "README: the notice is unread by user 42 of audience 2" '[7]' "$(body 7 '.notices')"
check "README: the group's members get ids 0 and 1" '0 1' "$(body 8 '.member_id') $(body 9 '.member_id')"
check "README: the message is unread by the member who did not send it" '[12] 1 0' \
  "$(body 11 '.users') $(body 11 '.unread') $(body 11 '.read')"
check "README: SETBIT then BITFIELD GET u30 0 reads bit 9 set" "$(((1 << 20)))" \
  "$(tr -d '\r' <"$BITMAPD_TEST_TMP/body.$((ran - 2))")"

finish
