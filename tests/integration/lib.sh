#!/usr/bin/env bash
# shellcheck disable=SC2034  # HTTP_*, SERVICE_* are results for the sourcing test
# Helpers sourced by every tests/integration/test_*.sh: TAP-style checks,
# starting/stopping a bitmapd instance on a free port, and an HTTP client
# that exposes status, body and ETag. Run by scripts/test_integration.sh,
# which sets BITMAPD_DSN, BITMAPD_BIN, BITMAPD_PGDIR, BITMAPD_ROOT and a fresh
# BITMAPD_TEST_TMP for each test script.
#
#   check NAME EXPECTED ACTUAL        ok/not ok on string equality
#   check_match NAME REGEX ACTUAL     ok/not ok on a bash =~ (ERE) match
#   finish                            stops services, exits 1 if any check failed
#   free_port                         prints a free TCP port on 127.0.0.1
#   start_service [bitmapd args...]   starts bitmapd on a free port (or
#                                     $START_PORT), sets PORT, SERVICE_PID,
#                                     BASE_URL; returns 1 if it never got healthy
#                                     RPORT (its RESP port),
#   rcli [redis-cli args...]          redis-cli against RPORT (raw output)
#   rc NAME EXPECTED [redis-cli args...]
#                                     check of one command's reply, errors included
#   stop_service [PORT]               SIGTERM (then SIGKILL) the service on PORT
#                                     (default: the last started); sets
#                                     SERVICE_EXIT to its exit status
#   http METHOD PATH [BODY] [curl args...]
#                                     sets HTTP_STATUS (000 if no answer),
#                                     HTTP_BODY, HTTP_ETAG (quotes included),
#                                     HTTP_HEADERS; BODY is sent as JSON
#   jget FILTER                       jq -c -r FILTER on HTTP_BODY
#
# Checks never return non-zero, so a test may use `set -e` safely.
#
# Under `make integration-sanitize` (BITMAPD_SANITIZER_LOGS set, BITMAPD_BIN built
# with ASan + UBSan), every process this test starts writes its sanitizer reports
# to $BITMAPD_SANITIZER_LOGS/<test name>.<pid>, and stop_service checks the
# instance it stopped: "ok - ... no sanitizer report" or "not ok" with the report.

BITMAPD_ROOT=${BITMAPD_ROOT:-$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)}
BITMAPD_BIN=${BITMAPD_BIN:-$BITMAPD_ROOT/build/bitmapd}
if [[ -z ${BITMAPD_TEST_TMP:-} ]]; then
  BITMAPD_TEST_TMP=$(mktemp -d /tmp/bitmapd-test.XXXXXX)
fi
export BITMAPD_ROOT BITMAPD_BIN BITMAPD_TEST_TMP

# ASan/LSan/UBSan: the last log_path in the options wins, so the Makefile's
# (runner.<pid>) becomes <test name>.<pid> for everything started from here on.
_SANITIZER_PREFIX=
if [[ -n ${BITMAPD_SANITIZER_LOGS:-} ]]; then
  _SANITIZER_PREFIX=$BITMAPD_SANITIZER_LOGS/$(basename -- "$0" .sh)
  ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}log_path=$_SANITIZER_PREFIX"
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}log_path=$_SANITIZER_PREFIX"
  export ASAN_OPTIONS UBSAN_OPTIONS
fi

CHECKS_FAILED=0
CHECKS_RUN=0
PORT=
SERVICE_PID=
BASE_URL=
SERVICE_EXIT=
HTTP_STATUS=
HTTP_BODY=
HTTP_ETAG=
HTTP_HEADERS=
declare -gA _SERVICE_PIDS=()

# Prints each line of stdin as a TAP diagnostic.
_diag() {
  sed 's/^/#   /'
}

check() { # NAME EXPECTED ACTUAL
  CHECKS_RUN=$((CHECKS_RUN + 1))
  if [[ $2 == "$3" ]]; then
    echo "ok - $1"
  else
    CHECKS_FAILED=$((CHECKS_FAILED + 1))
    echo "not ok - $1"
    printf 'expected: %s\n' "$2" | _diag
    printf 'actual:   %s\n' "$3" | _diag
  fi
  return 0
}

check_match() { # NAME REGEX ACTUAL
  CHECKS_RUN=$((CHECKS_RUN + 1))
  if [[ $3 =~ $2 ]]; then
    echo "ok - $1"
  else
    CHECKS_FAILED=$((CHECKS_FAILED + 1))
    echo "not ok - $1"
    printf 'expected to match: %s\n' "$2" | _diag
    printf 'actual:            %s\n' "$3" | _diag
  fi
  return 0
}

finish() {
  local p
  for p in "${!_SERVICE_PIDS[@]}"; do
    stop_service "$p"
  done
  if [[ -n ${LISTEN_PID:-} ]]; then kill "$LISTEN_PID" 2>/dev/null || true; fi
  if ((CHECKS_FAILED > 0)); then
    echo "# $CHECKS_FAILED of $CHECKS_RUN check(s) failed"
    exit 1
  fi
  exit 0
}

_port_in_use() {
  if command -v ss >/dev/null 2>&1; then
    [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]
  else
    (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

# A free port in 20000-29999: below the kernel's ephemeral range, so outgoing
# connections do not take it between this check and the bind.
free_port() {
  local i port
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 10000))
    if ! _port_in_use "$port"; then
      echo "$port"
      return 0
    fi
  done
  echo "free_port: no free port found" >&2
  return 1
}

start_service() { # [extra bitmapd args...]
  local port rport code="" i log
  port=${START_PORT:-$(free_port)} || return 1
  rport=${START_RESP_PORT:-$(free_port)} || return 1
  # nothing listens on either yet, so two draws can give the same port (1 in 10,000)
  i=0
  while [[ -z ${START_RESP_PORT:-} && $rport == "$port" ]] && ((i++ < 20)); do rport=$(free_port) || return 1; done
  log=$BITMAPD_TEST_TMP/bitmapd.$port.log
  # BITMAPD_TEST_ARGS: settings every instance of the run gets (make integration-wlog)
  # shellcheck disable=SC2086 # split on purpose: several --set options
  "$BITMAPD_BIN" --set "http.port=$port" --set http.address=127.0.0.1 \
    --set "resp.port=$rport" --set resp.address=127.0.0.1 ${BITMAPD_TEST_ARGS:-} "$@" \
    >>"$log" 2>&1 </dev/null &
  SERVICE_PID=$!
  PORT=$port
  RPORT=$rport
  BASE_URL=http://127.0.0.1:$port
  _SERVICE_PIDS[$port]=$SERVICE_PID
  echo "$SERVICE_PID" >"$BITMAPD_TEST_TMP/bitmapd.$port.pid"
  for ((i = 0; i < 100; i++)); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$BASE_URL/healthz" || true)
    [[ $code == 200 ]] && return 0
    kill -0 "$SERVICE_PID" 2>/dev/null || break
    sleep 0.1
  done
  check "bitmapd started on port $port (GET /healthz)" 200 "$code"
  echo "# last lines of $log:"
  tail -n 30 "$log" | _diag
  return 1
}

stop_service() { # [PORT]
  # 15 s: past the service's own 10 s shutdown deadline ([service]
  # shutdown_timeout_s), so that an instance that waits it out still exits by
  # itself (and, sanitized, is checked for leaks) instead of being killed
  local port=${1:-$PORT} pid i wait_tenths=150
  pid=${_SERVICE_PIDS[$port]:-}
  [[ -n $pid ]] || return 0
  unset "_SERVICE_PIDS[$port]"
  rm -f "$BITMAPD_TEST_TMP/bitmapd.$port.pid"
  SERVICE_EXIT=
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < wait_tenths; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "# bitmapd (pid $pid, port $port) ignored SIGTERM for $((wait_tenths / 10)) s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  SERVICE_EXIT=0
  wait "$pid" 2>/dev/null || SERVICE_EXIT=$?
  _sanitizer_check "$pid" "$port"
  return 0
}

# _sanitizer_check PID PORT — under make integration-sanitize: a check that the
# stopped instance wrote no sanitizer report (an error while it ran, or a leak
# found at exit; the sanitizers exit 86 after a report). Nothing otherwise.
_sanitizer_check() {
  [[ -n $_SANITIZER_PREFIX ]] || return 0
  local report=$_SANITIZER_PREFIX.$1 first=none
  if [[ -e $report ]]; then
    first=$(grep -m 1 -E 'ERROR: |runtime error' -- "$report" || head -n 1 -- "$report")
    [[ -n $first ]] || first="(a report without an ERROR line; below)"
  fi
  check "bitmapd pid $1 (port $2): no sanitizer report, exit $SERVICE_EXIT" none "$first"
  if [[ -e $report ]]; then
    echo "# $report:"
    head -n 60 -- "$report" | _diag
  fi
}

rcli() { # [redis-cli args...]
  redis-cli -h 127.0.0.1 -p "$RPORT" "$@"
}

# scan_walk PATTERN [COUNT [CALLS]] — one whole SCAN walk with MATCH PATTERN (COUNT 5000,
# at most 1000 calls by default, so that a cursor that never ends cannot hang a test):
# SCAN_SEEN gets the keys, one per line, SCAN_CURSOR the last cursor (0 when the walk
# ended; an error reply stops the walk and is left there).
scan_walk() {
  local out round
  SCAN_CURSOR=0 SCAN_SEEN=""
  for ((round = 0; round < ${3:-1000}; round++)); do
    out=$(rcli SCAN "$SCAN_CURSOR" MATCH "$1" COUNT "${2:-5000}")
    SCAN_CURSOR=$(head -1 <<<"$out")
    [[ $SCAN_CURSOR =~ ^[0-9]+$ ]] || break
    SCAN_SEEN+=$(tail -n +2 <<<"$out")$'\n'
    [[ $SCAN_CURSOR == 0 ]] && break
  done
}

# rc NAME EXPECTED redis-cli-args... — a check of one command's raw reply (errors included)
rc() {
  local name=$1 want=$2
  shift 2
  check "$name" "$want" "$(rcli "$@" 2>&1)"
}

metric() { # NAME [BASE_URL] — a figure of /metrics (of the last instance started)
  curl -s --max-time 5 "${2:-$BASE_URL}/metrics" | awk -v n="$1" '$1 == n {print $2}'
}

# resp_pipeline PORT 'CMD ARG…' …: the commands in one write on one connection (so
# that the service reads them in one turn and writes them in one statement), then
# their replies on one line, each without its type byte. For commands whose replies
# are one line (integers, simple strings, errors); the arguments contain no spaces.
resp_pipeline() {
  python3 - "$@" <<'PY'
import socket, sys
port, cmds = int(sys.argv[1]), sys.argv[2:]
def resp(cmd):
    args = cmd.split()
    return ("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a.encode()), a) for a in args)).encode()
conn = socket.create_connection(("127.0.0.1", port), timeout=30)
conn.sendall(b"".join(resp(c) for c in cmds))
buf, out = b"", []
while len(out) < len(cmds):
    data = conn.recv(65536)
    if not data:
        break
    buf += data
    while b"\r\n" in buf and len(out) < len(cmds):
        line, buf = buf.split(b"\r\n", 1)
        out.append(line[1:].decode())
print(" ".join(out))
PY
}

http() { # METHOD PATH [BODY] [extra curl args...]
  local method=$1 path=$2 body="" has_body=0
  shift 2
  if (($# > 0)); then
    body=$1
    has_body=1
    shift
  fi
  local out=$BITMAPD_TEST_TMP/http.body hdr=$BITMAPD_TEST_TMP/http.headers
  local args=(-s -X "$method" -o "$out" -D "$hdr" -w '%{http_code}' --max-time 30)
  if ((has_body)) && [[ -n $body ]]; then
    # Via stdin: no size limit of a single argument, no special meaning of "@".
    args+=(-H 'Content-Type: application/json' --data-binary @-)
  fi
  : >"$out"
  : >"$hdr"
  HTTP_STATUS=$(printf '%s' "$body" | curl "${args[@]}" "$@" "$BASE_URL$path" || true)
  [[ -n $HTTP_STATUS ]] || HTTP_STATUS=000
  HTTP_BODY=$(<"$out")
  HTTP_HEADERS=$(tr -d '\r' <"$hdr")
  HTTP_ETAG=$(sed -n 's/^[Ee][Tt][Aa][Gg]:[[:space:]]*//p' <<<"$HTTP_HEADERS" | tail -n 1)
  return 0
}

jget() { # FILTER
  jq -c -r "$1" <<<"$HTTP_BODY" 2>/dev/null || echo "<jq: not JSON or bad filter>"
}

# ---- ordering a scenario and holding locks ------------------------------------------

# wait_for NAME COMMAND — runs COMMAND until it succeeds (at most 600 times, 0.05 s
# apart). It orders the steps of a scenario; the checks that follow assert states.
wait_for() { # DESCRIPTION CONDITION [SECONDS, 30]
  local i
  for ((i = 0; i < ${3:-30} * 20; i++)); do
    eval "$2" && return 0
    sleep 0.05
  done
  check "wait_for: $1" "happened" "did not happen in ${3:-30} s" # a failure, not just a note
  return 1
}

# super_psql PGDIR DATABASE — psql as the cluster's superuser over its Unix socket (SQL
# on stdin), as the server's OS user when run as root (pg.sh: peer authentication).
super_psql() {
  bash "$BITMAPD_ROOT/scripts/pg.sh" psql "$1" "$2"
}

# own_database PREFIX [OPTION…] — a database of the test's own (PREFIX_$$) on the suite's cluster,
# made by its superuser (BITMAPD_PGDIR), with the roles and migrations (`bitmapd OPTION… --migrate`): sets DB,
# OWNER_DSN and APP_DSN and exports BITMAPD_DSN=APP_DSN. For tests that change what
# every other test would see (a move of keys turns a guard on for good). Returns 1
# after a failed check when it cannot be made; drop_own_database drops it. Without the
# cluster's superuser the test is skipped (finish).
own_database() {
  local t=$BITMAPD_TEST_TMP owner_role app_role rc=0
  if [[ -z ${BITMAPD_PGDIR:-} || -z ${BITMAPD_OWNER_DSN:-} ]]; then
    echo "# skipped: needs the superuser of a pg.sh cluster (BITMAPD_PGDIR) and BITMAPD_OWNER_DSN"
    finish
  fi
  owner_role=$(sed -n 's/.* user=\([^ ]*\).*/\1/p' <<<"$BITMAPD_OWNER_DSN")
  app_role=$(sed -n 's/.* user=\([^ ]*\).*/\1/p' <<<"$BITMAPD_DSN")
  DB="$1_$$"
  if ! super_psql "$BITMAPD_PGDIR" postgres >/dev/null 2>"$t/createdb.err" <<<"CREATE DATABASE \"$DB\" OWNER \"$owner_role\""; then
    check "create a database for this test" "" "$(cat "$t/createdb.err")"
    return 1
  fi
  {
    printf 'SET client_min_messages = warning;\n\\set owner %s\n\\set app %s\n' "$owner_role" "$app_role"
    cat scripts/roles.sql
  } | super_psql "$BITMAPD_PGDIR" "$DB" >/dev/null 2>"$t/roles.err"
  check "roles.sql on the test's database" "" "$(grep -v '^NOTICE' "$t/roles.err" | head -n 3)"
  OWNER_DSN=${BITMAPD_OWNER_DSN/dbname=bitmapd/dbname=$DB}
  APP_DSN=${BITMAPD_DSN/dbname=bitmapd/dbname=$DB}
  export BITMAPD_DSN=$APP_DSN
  BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" "${@:2}" --migrate >"$t/migrate.log" 2>&1 || rc=$?
  check "bitmapd --migrate on the test's database" 0 "$rc"
}

# own_database_cleanup — the EXIT trap of a test of own_database: stops the instances
# it started and drops its database.
own_database_cleanup() {
  local p
  for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
  drop_own_database
}

drop_own_database() {
  [[ -n ${DB:-} ]] && super_psql "$BITMAPD_PGDIR" postgres >/dev/null 2>&1 <<<"DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)"
}

# wlog_fold — psql is about to read rows that the service wrote, or to write rows: with
# a write-behind log in use ([wlog] enabled), ask its holder to fold it and let go, and
# wait until it has (the views lag the log otherwise, and the guard refuses psql's
# writes while an instance holds it; docs/design.md, "Write-behind log"). The holder
# takes the lease again at its next write after [wlog] cooldown_s. Instant without one.
# ---- a psql session that listens to bitmapd_changed --------------------------------------
# listen_open DSN [SQL] — psql on DSN runs SQL (if given), then LISTEN; notifications
# then gives what it heard, and listen_close ends it (finish kills it if still running).
listen_open() {
  local d=$BITMAPD_TEST_TMP
  rm -f "$d/listen.fifo" "$d/listen.out"
  mkfifo "$d/listen.fifo"
  # appending (O_APPEND), so that emptying the file between rounds leaves no hole
  psql "$1" -XAt <"$d/listen.fifo" >>"$d/listen.out" 2>&1 &
  LISTEN_PID=$!
  exec 9>"$d/listen.fifo"
  [[ -z ${2:-} ]] || printf '%s;\n' "$2" >&9
  printf "LISTEN bitmapd_changed;\nSELECT 'listening';\n" >&9
  LISTEN_SYNC=0
  wait_for "psql listens" "grep -q '^listening\$' '$d/listen.out'"
}
# notifications — the payloads psql printed since the last call, one a line. psql prints
# them after the result of the command during which they arrived, so commands are sent
# until two rounds in a row bring nothing new (at most 20 rounds).
notifications() {
  local seen=-1 now round d=$BITMAPD_TEST_TMP
  for ((round = 0; round < 20; round++)); do
    sleep 0.1
    LISTEN_SYNC=$((LISTEN_SYNC + 1))
    printf "SELECT 'sync %s';\n" "$LISTEN_SYNC" >&9
    wait_for "psql answered sync $LISTEN_SYNC" "grep -q '^sync $LISTEN_SYNC\$' '$d/listen.out'" || break
    now=$(grep -c '^Asynchronous notification' "$d/listen.out")
    ((now == seen)) && break
    seen=$now
  done
  grep '^Asynchronous notification' "$d/listen.out" | sed 's/.*with payload "\(.*\)" received from.*/\1/'
  : >"$d/listen.out"
}
listen_close() {
  printf '\\q\n' >&9
  exec 9>&-
  wait "$LISTEN_PID" 2>/dev/null
  LISTEN_PID=
}

wlog_fold() { # [SECONDS, 30]
  local q="SELECT count(*) || '|' || (SELECT holder FROM bitmapd.wlog_lease) FROM bitmapd.wlog"
  [[ $(psql "$BITMAPD_DSN" -XAtq -c "$q" 2>/dev/null) == "0|" ]] && return 0
  psql "$BITMAPD_DSN" -XAtq -c "SELECT bitmapd.wlog_fold()" >/dev/null
  wait_for "the write-behind log is folded and let go" "[[ \$(psql \"\$BITMAPD_DSN\" -XAtq -c \"$q\") == '0|' ]]" "${1:-30}"
}

# lock_open SQL — a psql session that runs SQL in a transaction it keeps open (with
# the locks SQL took) until lock_close rolls it back (or commits it: lock_close
# COMMIT); LOCK_BACKEND is its server pid.
lock_open() {
  local t=$BITMAPD_TEST_TMP
  rm -f "$t/lock.fifo" "$t/lock.out"
  mkfifo "$t/lock.fifo"
  psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 <"$t/lock.fifo" >"$t/lock.out" 2>&1 &
  LOCK_PID=$!
  echo "$LOCK_PID" >"$t/lock.pid"
  exec 8>"$t/lock.fifo"
  printf '%s\n' "BEGIN;" "$1" "SELECT 'held ' || pg_backend_pid();" >&8
  wait_for "psql took its locks" "grep -q '^held ' '$t/lock.out'"
  LOCK_BACKEND=$(sed -n 's/^held //p' "$t/lock.out")
}
lock_close() { # [COMMIT]: ends lock_open's transaction (ROLLBACK unless told)
  # \q, not only EOF: a service started meanwhile holds the write end too (inherited)
  printf '%s;\n\\q\n' "${1:-ROLLBACK}" >&8
  exec 8>&-
  wait "$LOCK_PID" 2>/dev/null
  rm -f "$BITMAPD_TEST_TMP/lock.pid" "$BITMAPD_TEST_TMP/lock.fifo"
}
# waiting_on_lock — true when some statement waits for a lock of the psql session
waiting_on_lock() {
  [[ $(psql "$BITMAPD_DSN" -XAtq -c "SELECT count(*) FROM pg_stat_activity WHERE $LOCK_BACKEND = ANY (pg_blocking_pids(pid))") -gt 0 ]]
}

# db_start_and_wait URL — starts the test cluster again (after a test stopped it) and
# waits up to 10 s for URL/healthz to answer 200; sets DB_HEALTH to the last code.
db_start_and_wait() {
  local i
  if ! bash "$BITMAPD_ROOT/scripts/pg.sh" start "$BITMAPD_PGDIR" >"$BITMAPD_TEST_TMP/pg-start.log" 2>&1; then
    echo "# pg.sh start failed:"
    _diag <"$BITMAPD_TEST_TMP/pg-start.log"
  fi
  DB_HEALTH=000
  for ((i = 0; i < 100; i++)); do
    DB_HEALTH=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1/healthz" || true)
    [[ $DB_HEALTH == 200 ]] && break
    sleep 0.1
  done
}

# check_logs_clean — no service this test started logged a sanitizer report, a
# runtime error or a segfault (run after stopping the services).
check_logs_clean() {
  check "service logs have no sanitizer report or segfault" "" \
    "$(cat "$BITMAPD_TEST_TMP"/bitmapd.*.log 2>/dev/null |
      grep -E 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error|Segmentation' | head -n 3)"
}
