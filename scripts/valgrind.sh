#!/usr/bin/env bash
# A short run of bitmapd under valgrind (memcheck): starts a throwaway PostgreSQL
# cluster, applies the migrations with `bitmapd --migrate` under valgrind, starts
# the service under valgrind, drives a few hundred requests over HTTP and RESP
# through every domain (message box, check-ins, notices, group receipts, unread
# counters, generic RESP bitmaps, cache hits, error paths, clients that hang up,
# a SIGHUP reload), stops it with SIGTERM and fails on any definite or indirect
# leak, invalid read or write, use of uninitialised memory or bad free. Each
# request's status or reply is checked too, so that the run cannot pass by
# failing every request early. Run by `make valgrind` (and `make test`), which
# builds build-vg/bitmapd with -O1 -g and no sanitizers.
#
# Environment: BITMAPD_BIN (default build-vg/bitmapd); VALGRIND_PORTS=LOW-HIGH,
# the ports it may use (default 31200-31299, below Linux's ephemeral range so no
# outgoing connection holds one; PostgreSQL, HTTP and RESP each take the first
# free one); VALGRIND_KEEP=1 keeps the work directory (logs) at the end.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
BIN=${BITMAPD_BIN:-$ROOT/build-vg/bitmapd}
PORTS=${VALGRIND_PORTS:-31200-31299}
VG_EXIT=99 # valgrind's exit status when it found an error

die() {
  echo "valgrind.sh: $*" >&2
  exit 1
}
[[ -x $BIN ]] || die "$BIN not built (make valgrind builds it)"
command -v valgrind >/dev/null || die "valgrind is not installed (scripts/deps.sh installs it)"
[[ $PORTS =~ ^([0-9]+)-([0-9]+)$ ]] || die "VALGRIND_PORTS must be LOW-HIGH: $PORTS"
PORT_LOW=${BASH_REMATCH[1]}
PORT_HIGH=${BASH_REMATCH[2]}

WORK=$(mktemp -d /tmp/bitmapd-vg.XXXXXX)
PGDIR=$WORK/pg
SVC_PID=
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  if [[ -n $SVC_PID ]] && kill -0 "$SVC_PID" 2>/dev/null; then
    kill -KILL "$SVC_PID" 2>/dev/null || true
    wait "$SVC_PID" 2>/dev/null || true
  fi
  if [[ -d $PGDIR ]]; then
    bash scripts/pg.sh destroy "$PGDIR" >/dev/null 2>&1 || echo "valgrind.sh: could not remove the cluster in $PGDIR" >&2
  fi
  if [[ ${VALGRIND_KEEP:-} == 1 ]]; then
    echo "valgrind.sh: logs kept in $WORK"
  else
    rm -rf -- "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_in_use() {
  # any socket on it but one in TIME-WAIT (PostgreSQL binds over those): a listener,
  # or a connection whose local end it is
  [[ -n $(ss -Htan exclude time-wait "sport = :$1" 2>/dev/null) ]]
}
TAKEN=" "
pick_port() { # VAR — sets VAR to the first free port of the range not handed out yet
  local p
  for ((p = PORT_LOW; p <= PORT_HIGH; p++)); do
    [[ $TAKEN == *" $p "* ]] && continue
    if ! port_in_use "$p"; then
      TAKEN+="$p "
      printf -v "$1" '%s' "$p"
      return 0
    fi
  done
  die "no free port in $PORTS"
}

VALGRIND=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
  --errors-for-leak-kinds=definite,indirect --error-exitcode=$VG_EXIT --num-callers=30
  --track-origins=yes)

# Prints the error and leak summaries of a valgrind log, and on errors the log.
report() { # LOG STATUS
  grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable' "$1" |
    sed 's/^==[0-9]*== */#   /' || true
  if [[ $2 != 0 ]]; then
    echo "# valgrind log ($1), errors and leaks first:"
    sed 's/^==[0-9]*== \{0,1\}//' "$1" | awk '/^(Invalid|Conditional|Use of|Syscall param|Mismatched|Source and destination|Argument)|(definitely|indirectly) lost in/ {p=1} p && /^$/ {p=0; print ""} p' | head -n 300
  fi
}

start=$SECONDS
# A port free when checked can be bound by someone else before PostgreSQL binds
# it: then the next one, a few times.
for attempt in 1 2 3 4; do
  pick_port PGPORT
  bash scripts/pg.sh start "$PGDIR" "$PGPORT" >"$WORK/pg.log" 2>&1 && break
  if ((attempt == 4)) || ! grep -q 'Address already in use' "$WORK/pg.log" "$PGDIR"/*.log 2>/dev/null; then
    cat "$WORK/pg.log" >&2
    die "could not start PostgreSQL on port $PGPORT"
  fi
  echo "# valgrind: port $PGPORT was taken meanwhile; trying another"
done
APP_DSN=$(<"$PGDIR/dsn")
OWNER_DSN=$APP_DSN
[[ -f $PGDIR/owner_dsn ]] && OWNER_DSN=$(<"$PGDIR/owner_dsn")
unset BITMAPD_DSN

echo "# valgrind: bitmapd --migrate"
rc=0
BITMAPD_DSN=$OWNER_DSN "${VALGRIND[@]}" --log-file="$WORK/valgrind-migrate.log" "$BIN" --migrate \
  >"$WORK/migrate.log" 2>&1 || rc=$?
report "$WORK/valgrind-migrate.log" "$rc"
if ((rc != 0)); then
  tail -n 20 "$WORK/migrate.log" | sed 's/^/#   /'
  die "bitmapd --migrate under valgrind exited $rc"
fi

pick_port HTTP_PORT
pick_port RESP_PORT
BASE=http://127.0.0.1:$HTTP_PORT
VGLOG=$WORK/valgrind.log
echo "# valgrind: bitmapd on HTTP $HTTP_PORT, RESP $RESP_PORT, PostgreSQL $PGPORT"
BITMAPD_DSN=$APP_DSN "${VALGRIND[@]}" --log-file="$VGLOG" "$BIN" \
  --set "http.port=$HTTP_PORT" --set http.address=127.0.0.1 \
  --set "resp.port=$RESP_PORT" --set resp.address=127.0.0.1 \
  >"$WORK/bitmapd.log" 2>&1 </dev/null &
SVC_PID=$!
code=000
for ((i = 0; i < 600; i++)); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$BASE/healthz" || true)
  [[ $code == 200 ]] && break
  kill -0 "$SVC_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ $code != 200 ]]; then
  tail -n 30 "$WORK/bitmapd.log" | sed 's/^/#   /'
  die "bitmapd under valgrind never answered GET /healthz (last: $code)"
fi
echo "# up after $((SECONDS - start)) s"

# ---- the requests -------------------------------------------------------------

SENT=0
BAD=0
# req EXPECTED METHOD PATH [BODY [curl args...]] — one HTTP request; counts a wrong status.
req() {
  local want=$1 method=$2 path=$3 body=${4:-} got
  shift 3
  (($# > 0)) && shift
  local args=(-s -o "$WORK/body" -w '%{http_code}' --max-time 60 -X "$method")
  [[ -n $body ]] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  got=$(curl "${args[@]}" "$@" "$BASE$path" || true)
  SENT=$((SENT + 1))
  if [[ $got != "$want" ]]; then
    BAD=$((BAD + 1))
    echo "# $method $path: expected $want, got $got: $(head -c 200 "$WORK/body")"
  fi
}
# resp EXPECTED_OUTPUT < commands — redis-cli over one connection; compares its output.
resp() {
  local want=$1 got n
  # (redis-cli prints an empty line after an error reply)
  got=$(redis-cli -h 127.0.0.1 -p "$RESP_PORT" 2>&1 | tr -d '\r' | grep -v '^$') || true
  n=$(wc -l <<<"$want")
  SENT=$((SENT + n))
  if [[ $got != "$want" ]]; then
    BAD=$((BAD + 1))
    echo "# RESP: expected"
    sed 's/^/#   /' <<<"$want"
    echo "# got"
    sed 's/^/#   /' <<<"$got"
  fi
}

U=7000000 # user ids of this run

# message box: pushes, fan-out, reads, pages, unread, retract, history, periods
for ((k = 1; k <= 20; k++)); do
  req 200 POST "/v1/users/$((U + k))/pushes" "{\"messages\": [$k, $((k + 1)), $((k + 100)), 4000000000]}"
done
users=$(seq -s, $((U + 1)) $((U + 300)))
req 200 POST /v1/pushes "{\"message\": 500, \"users\": [$users]}"
for ((k = 1; k <= 20; k++)); do
  req 200 POST "/v1/users/$((U + k))/reads" "{\"messages\": [$k]}"
  req 200 GET "/v1/users/$((U + k))/messages/$k"
  req 200 GET "/v1/users/$((U + k))/messages?limit=2&page=2"
  req 200 GET "/v1/users/$((U + k))/unread?limit=5"
done
req 200 GET "/v1/users/$((U + 1))/messages?limit=2&before=500"
req 409 POST "/v1/users/$((U + 1))/reads" '{"messages": [999]}'
req 200 POST "/v1/users/$((U + 1))/reads" '{"all": true}'
req 200 DELETE "/v1/users/$((U + 2))/messages/102"
req 200 POST "/v1/users/$((U + 3))/history/drop" '{"before": 100}'
req 200 GET "/v1/users/$((U + 3))/periods"
req 200 GET /v1/periods
req 412 POST "/v1/users/$((U + 4))/pushes" '{"messages": [9]}' -H 'If-Match: "424242"'

# check-ins
for ((k = 1; k <= 15; k++)); do
  req 200 POST "/v1/users/$((U + k))/checkins" '{}'
  req 200 GET "/v1/users/$((U + k))/checkins"
  req 200 GET "/v1/users/$((U + k))/checkins/streak"
done
today=$(TZ=UTC date +%F)
req 200 POST "/v1/users/$((U + 1))/checkins" "{\"date\": \"$(TZ=UTC date -d "$today -1 day" +%F)\"}"
req 200 GET "/v1/users/$((U + 1))/checkins?month=${today:0:7}"
req 200 GET "/v1/users/$((U + 1))/checkins?year=${today:0:4}"

# notices: audiences, notices, read marks, lists, stats, delete
A=901
req 200 PUT "/v1/audiences/$A/users" "{\"users\": [$(seq -s, $((U + 1)) $((U + 30)))]}"
req 200 POST "/v1/audiences/$A/users" "{\"users\": [$((U + 31)), $((U + 32))]}"
for ((n = 1; n <= 5; n++)); do
  req 201 POST /v1/notices "{\"id\": $((800 + n)), \"audiences\": [$A]}"
done
for ((k = 1; k <= 10; k++)); do
  req 200 PUT "/v1/notices/$((800 + k % 5 + 1))/reads/$((U + k))" '{"read": true}'
  req 200 GET "/v1/notices/$((800 + k % 5 + 1))/reads/$((U + k))"
  req 200 GET "/v1/audiences/$A/users/$((U + k))/notices?state=unread&limit=10"
done
req 200 PUT "/v1/notices/801/reads/$((U + 1))" '{"read": false}'
req 200 GET /v1/notices/801/stats
req 200 PUT /v1/notices/802 "{\"audiences\": [$A, 902]}"
req 200 DELETE /v1/notices/805
req 404 GET /v1/notices/805/stats

# group read receipts: members, messages, reads, receipts, leave
G=92001
for ((k = 1; k <= 12; k++)); do
  req 201 POST "/v1/groups/$G/members" "{\"user\": $((U + k))}"
done
for ((m = 1; m <= 3; m++)); do
  req 201 POST "/v1/groups/$G/messages" "{\"message\": $((600 + m)), \"sender\": $((U + 1))}"
  for ((k = 2; k <= 6; k++)); do
    req 200 POST "/v1/groups/$G/messages/$((600 + m))/reads" "{\"user\": $((U + k))}"
  done
  req 200 GET "/v1/groups/$G/messages/$((600 + m))/receipts?list=unread&limit=5"
done
req 200 GET "/v1/groups/$G/members/$((U + 3))"
req 200 DELETE "/v1/groups/$G/members/$((U + 12))"
req 200 GET "/v1/groups/$G/members/$((U + 12))"

# unread counters: broadcasts, red dots, feed
for ((b = 1; b <= 5; b++)); do
  req 200 POST /v1/broadcasts "{\"id\": $((700 + b))}"
done
req 200 GET /v1/broadcasts
for ((k = 1; k <= 5; k++)); do
  req 200 POST "/v1/users/$((U + k))/broadcasts/seen"
  req 200 GET "/v1/users/$((U + k))/broadcasts/unread"
done
req 200 POST /v1/reddots/vgdot
req 200 GET /v1/reddots/vgdot
req 200 GET "/v1/users/$((U + 1))/reddots/vgdot"
req 200 POST "/v1/users/$((U + 1))/reddots/vgdot/click"
for ((a = 1; a <= 3; a++)); do
  req 200 POST "/v1/authors/$((U + 500 + a))/posts" "{\"count\": $((a * 3))}"
done
req 200 PUT "/v1/users/$((U + 1))/following" "{\"authors\": [$((U + 501)), $((U + 502)), $((U + 503))]}"
req 200 POST "/v1/authors/$((U + 501))/posts"
req 200 GET "/v1/users/$((U + 1))/feed/unread"
req 200 POST "/v1/users/$((U + 1))/feed/seen"
req 200 GET "/v1/users/$((U + 1))/following"

# HTTP error paths: bad ids, bad JSON, unknown route, wrong method, too big
req 400 GET /v1/users/abc/unread
req 400 GET /v1/users/-1/messages/1
req 400 POST "/v1/users/$((U + 1))/pushes" '{"messages": [1,'
req 400 POST "/v1/users/$((U + 1))/pushes" '{"messages": "x"}'
req 400 POST "/v1/users/$((U + 1))/pushes" '{"messages": [4294967296]}'
req 404 GET /v1/nothing/here
req 405 DELETE /v1/periods
head -c 17000000 /dev/zero | tr '\0' ' ' >"$WORK/big.json"
req 413 POST "/v1/users/$((U + 1))/pushes" "" --data-binary @"$WORK/big.json" -H 'Content-Type: application/json'
# several requests on one kept-alive connection
got=$(curl -s -o /dev/null -o /dev/null -o /dev/null -w '%{http_code} ' --max-time 60 "$BASE/healthz" "$BASE/v1/periods" "$BASE/v1/users/$((U + 1))/unread" || true)
SENT=$((SENT + 3))
[[ $got == "200 200 200 " ]] || {
  BAD=$((BAD + 1))
  echo "# three requests on one connection: $got"
}

# RESP: generic bitmaps, reads twice (the second from the cache), errors
{
  for ((k = 0; k < 40; k++)); do echo "SETBIT vg:bits $((k * 1000)) 1"; done
  for ((k = 0; k < 40; k++)); do echo "GETBIT vg:bits $((k * 1000))"; done
  echo "BITCOUNT vg:bits"
  echo "BITCOUNT vg:bits 0 -1 BIT"
  echo "BITPOS vg:bits 1"
  echo "BITFIELD vg:bf SET u8 0 200 GET u8 0 INCRBY i5 100 1"
  echo "SET vg:str hello"
  echo "GET vg:str"
  echo "R.SETINTARRAY vg:r 5 1 9"
  echo "R.RANGEINTARRAY vg:r 0 2"
  echo "BITOP OR vg:or vg:bits vg:str"
  echo "DEL vg:or"
  echo "SETBIT vg:bits -1 1"
  echo "NOSUCHCOMMAND x"
  echo "GETBIT vg:bits"
} | resp "$(
  for ((k = 0; k < 40; k++)); do echo 0; done
  for ((k = 0; k < 40; k++)); do echo 1; done
  echo 40
  echo 40
  echo 0
  printf '%s\n' 0 200 1
  echo OK
  echo hello
  echo OK
  printf '%s\n' 1 5 9
  echo 4876
  echo 1
  echo 'ERR bit offset is not an integer or out of range'
  echo "ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'x' "
  echo "ERR wrong number of arguments for 'getbit' command"
)"
for ((r = 0; r < 3; r++)); do
  resp "$(printf '%s\n' 1 1 40)" <<<$'GETBIT vg:bits 0\nGETBIT vg:bits 39000\nBITCOUNT vg:bits'
done

# clients that hang up: mid-command, right after a write, in a pipeline
for ((k = 0; k < 5; k++)); do
  { exec 3<>"/dev/tcp/127.0.0.1/$RESP_PORT" && printf '*3\r\n$6\r\nSETBIT\r\n$7\r\nvg:gone\r\n' >&3 && exec 3>&-; } 2>/dev/null || true
  { exec 3<>"/dev/tcp/127.0.0.1/$RESP_PORT" && printf 'SETBIT vg:gone %d 1\r\nGETBIT vg:gone 1\r\n' "$k" >&3 && exec 3>&-; } 2>/dev/null || true
  { exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" && printf 'POST /v1/users/%d/pushes HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n{"messa' "$((U + k))" >&3 && exec 3>&-; } 2>/dev/null || true
done
SENT=$((SENT + 15))
resp "$(printf '%s\n' PONG)" <<<'PING'

# the cache answered some reads (bitmapd_cache_hits_total in /metrics)
hits=$(curl -s --max-time 30 "$BASE/metrics" | awk '$1 == "bitmapd_cache_hits_total" {print $2}')
SENT=$((SENT + 1))
echo "# cache hits: ${hits:-none}"
if ! [[ ${hits:-0} =~ ^[0-9]+$ && $hits -gt 0 ]]; then
  BAD=$((BAD + 1))
  echo "# expected cache hits > 0 in /metrics"
fi

# a configuration reload, then one more write and read
kill -HUP "$SVC_PID"
sleep 1
resp "$(printf '%s\n' 0 1)" <<<$'SETBIT vg:after-hup 3 1\nGETBIT vg:after-hup 3'
req 200 GET "/v1/users/$((U + 1))/unread"

echo "# $SENT requests in $((SECONDS - start)) s, $BAD unexpected answer(s)"

# ---- stop, and read valgrind's verdict --------------------------------------------

kill -TERM "$SVC_PID"
rc=0
for ((i = 0; i < 1200; i++)); do
  kill -0 "$SVC_PID" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$SVC_PID" 2>/dev/null; then
  echo "# bitmapd did not exit within 120 s of SIGTERM; SIGKILL"
  kill -KILL "$SVC_PID" 2>/dev/null || true
fi
wait "$SVC_PID" || rc=$?
SVC_PID=
echo "# bitmapd under valgrind exited $rc after SIGTERM; total $((SECONDS - start)) s"
report "$VGLOG" "$rc"

fail=0
if ((rc == VG_EXIT)); then
  echo "valgrind: FAILED: memcheck found errors or definite/indirect leaks (log above)"
  fail=1
elif ((rc != 0)); then
  echo "valgrind: FAILED: bitmapd exited $rc"
  tail -n 20 "$WORK/bitmapd.log" | sed 's/^/#   /'
  fail=1
fi
if ((BAD > 0)); then
  echo "valgrind: FAILED: $BAD unexpected answer(s) (above)"
  fail=1
fi
((fail == 0)) && echo "valgrind: ok ($SENT requests, no error, no definite or indirect leak, $((SECONDS - start)) s)"
exit "$fail"
