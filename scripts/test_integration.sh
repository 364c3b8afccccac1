#!/usr/bin/env bash
# Integration test runner: starts a throwaway PostgreSQL cluster, migrates it
# with build/bitmapd --migrate as the owner role, runs every
# tests/integration/test_*.sh (each under `timeout 300`, each with a fresh
# BITMAPD_TEST_TMP), counts their "ok - ..." / "not ok - ..." lines, and always
# removes the cluster and any bitmapd a test left running. Ends with
# "integration: N passed, N failed".
#
# Tests get BITMAPD_DSN, the service's least-privilege app role (every bitmapd
# they start connects as it), and BITMAPD_OWNER_DSN, the owner role, for psql
# steps an administrator would take (DDL, disabling triggers, damaging rows).
#
# Environment: TESTS=REGEX runs only test files whose name matches (grep -E).
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
TEST_TIMEOUT=300

BIN=${BITMAPD_BIN:-$ROOT/build/bitmapd}
[[ -x $BIN ]] || {
  echo "integration: $BIN not built (make all)" >&2
  exit 1
}

WORK=$(mktemp -d /tmp/bitmapd-it-run.XXXXXX)
PGDIR=""
passed=0
failed=0

# Stops every process whose pid a test recorded in DIR/*.pid.
kill_leftovers() { # DIR
  local f pid i
  for f in "$1"/*.pid; do
    [[ -f $f ]] || continue
    pid=$(<"$f")
    [[ $pid =~ ^[0-9]+$ ]] || continue
    kill -0 "$pid" 2>/dev/null || continue
    echo "# killing leftover process $pid ($(basename -- "$f"))"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local d
  for d in "$WORK"/*/; do
    [[ -d $d ]] && kill_leftovers "$d"
  done
  if [[ -n $PGDIR ]]; then
    bash scripts/pg.sh destroy "$PGDIR" >/dev/null 2>&1 || echo "# could not remove the cluster in $PGDIR" >&2
  fi
  rm -rf -- "$WORK"
}
# On INT/TERM, stop the running test (timeout passes the signal on to its
# process group) before the EXIT trap removes the cluster under it.
current=""
# shellcheck disable=SC2317  # invoked by trap
on_signal() {
  if [[ -n $current ]]; then kill -TERM "$current" 2>/dev/null || true; fi
  exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

record() { # "ok"|"not ok" MESSAGE
  echo "$1 - $2"
  if [[ $1 == ok ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

summary_and_exit() {
  echo "integration: $passed passed, $failed failed"
  if ((failed > 0 || passed == 0)); then
    exit 1
  fi
  exit 0
}

# --- the throwaway cluster, migrated ----------------------------------------

PGDIR=$(mktemp -d /tmp/bitmapd-it.XXXXXX)
bash scripts/pg.sh start "$PGDIR"
BITMAPD_DSN=$(<"$PGDIR/dsn")
BITMAPD_OWNER_DSN=$(<"$PGDIR/owner_dsn")
export BITMAPD_DSN BITMAPD_OWNER_DSN BITMAPD_BIN=$BIN BITMAPD_PGDIR=$PGDIR BITMAPD_ROOT=$ROOT

# Not counted as a passed check: a run with no test must not look green.
if BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BIN" --migrate >"$WORK/migrate.log" 2>&1; then
  echo "# bitmapd --migrate: ok"
else
  record "not ok" "bitmapd --migrate on a fresh database"
  sed 's/^/#   /' "$WORK/migrate.log"
  summary_and_exit
fi

# A new database keeps every family's keys in bucket rows (bitmapd --migrate moves the
# families of a database without their keys in: docs/design.md, "Bucket rows by
# default"). BITMAPD_TEST_BUCKETS=0 runs the suite with them in rows of their own
# instead (bitmapd --buckets out). psql sessions of the tests act on the bucket epoch
# (migration 0016), as a bitmapd instance does, so that tests that write or damage
# rows of those keys by hand still may.
if [[ ${BITMAPD_TEST_BUCKETS:-1} == 0 ]]; then
  if ! { BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BIN" --buckets out checkin >"$WORK/buckets.log" 2>&1 &&
    BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BIN" --buckets out receipt >>"$WORK/buckets.log" 2>&1; }; then
    record "not ok" "move the families out of bucket rows: $(tail -n 2 "$WORK/buckets.log" | tr '\n' ' ')"
    summary_and_exit
  fi
  want="checkin=off receipt=off"
else
  want="checkin=on receipt=on"
fi
states=$(psql "$BITMAPD_OWNER_DSN" -XAtq -c "SELECT string_agg(name || '=' || state, ' ' ORDER BY family) FROM bitmapd.bucket_state")
if [[ $states != "$want" ]]; then
  record "not ok" "the families' layout: expected '$want', found '$states'"
  summary_and_exit
fi
PGOPTIONS="-c bitmapd.bucket_epoch=$(psql "$BITMAPD_OWNER_DSN" -XAtq -c "SELECT bitmapd.bucket_epoch()")"
export PGOPTIONS
echo "# families: $states ($PGOPTIONS for psql)"

# --- the tests ----------------------------------------------------------------

mapfile -t tests < <(LC_ALL=C compgen -G 'tests/integration/test_*.sh' | LC_ALL=C sort)
if [[ -n ${TESTS:-} ]]; then
  mapfile -t tests < <(printf '%s\n' "${tests[@]}" | grep -E -- "$TESTS" || true)
  echo "# TESTS=$TESTS selects ${#tests[@]} test file(s)"
fi

n=0
for t in "${tests[@]}"; do
  [[ -n $t ]] || continue
  n=$((n + 1))
  name=$(basename -- "$t")
  tmp=$WORK/$n
  mkdir -p -- "$tmp"
  # A previous test may have stopped the cluster to simulate an outage.
  if ! bash scripts/pg.sh status "$PGDIR" >/dev/null 2>&1; then
    echo "# restarting the cluster left stopped by the previous test"
    bash scripts/pg.sh start "$PGDIR" >/dev/null
  fi
  echo "# $name"
  start=$SECONDS
  rc=0
  # In the background so that a signal to this runner is handled at once.
  BITMAPD_TEST_TMP=$tmp timeout -k 10 "$TEST_TIMEOUT" bash "$t" </dev/null >"$tmp/output" 2>&1 &
  current=$!
  wait "$current" || rc=$?
  current=""
  kill_leftovers "$tmp"
  cat -- "$tmp/output"

  ok_count=$(grep -cE '^ok( |$)' "$tmp/output" || true)
  notok_count=$(grep -cE '^not ok( |$)' "$tmp/output" || true)
  passed=$((passed + ok_count))
  failed=$((failed + notok_count))
  if ((rc == 124 || rc == 137)); then
    record "not ok" "$name timed out after ${TEST_TIMEOUT}s"
  elif ((rc != 0 && notok_count == 0)); then
    record "not ok" "$name exited with status $rc"
  elif ((ok_count + notok_count == 0)); then
    record "not ok" "$name ran no check"
  fi
  if ((rc != 0)); then
    for log in "$tmp"/bitmapd.*.log; do
      [[ -f $log ]] || continue
      echo "# last lines of $(basename -- "$log"):"
      tail -n 20 -- "$log" | sed 's/^/#   /'
    done
  fi
  echo "# $name: $((SECONDS - start))s, exit $rc"
done

if ((n == 0)); then
  echo "# no test file ran"
fi
summary_and_exit
