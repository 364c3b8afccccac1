#!/usr/bin/env bash
# Seed 001's unread counts over HTTP, end to end: a real bitmapd against the real
# PostgreSQL in BITMAPD_DSN, driven with curl (and psql for the views and for
# ageing cursors).
#
# Covers system notices (never-seen users count 0, seen then new broadcasts,
# out-of-order ids, the cursor never moving back, clearing idle cursors by the
# operator endpoint, the SQL function and a service's own timer at start-up),
# red dots (across two service instances on one database), feed unread (the
# seed's worked example, following without flooding, missing snapshots),
# every error status, concurrency (parallel broadcasts, posts, dot settings,
# PUT following with feed/seen), clients that leave, corrupt rows, a database
# outage, and the psql views.
#
# The test owns the global `broadcasts` key (it empties it over RESP first);
# users, authors and dot names come from a per-run block. Needs BITMAPD_DSN,
# BITMAPD_PGDIR, curl, jq, psql, redis-cli.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
PG_SH=$BITMAPD_ROOT/scripts/pg.sh

# Users: a block of 10^6 ids (kept below 2^53 for jq). Authors are 32-bit: a block
# of 10^4. Red dots: names with a run suffix.
RUN=$(($(date +%s) % 400000))
RUN_BASE=$(((RUN * 1000 + RANDOM % 1000) * 1000000))
AUTHOR_BASE=$((RUN * 10000))
uid() { echo $((RUN_BASE + $1)); }
aid() { echo $((AUTHOR_BASE + $1)); }
DOT_SUFFIX="r$RUN.$RANDOM"
echo "# users $RUN_BASE + n, authors $AUTHOR_BASE + n, dots *.$DOT_SUFFIX"

sql() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1"; } # as the administrator (owner role)

# expect_error NAME STATUS CODE — the last answer is STATUS with a JSON error
# body {"error": {"code": CODE, "message": non-empty string}}.
expect_error() {
  check "$1: status" "$2" "$HTTP_STATUS"
  check "$1: error body" "$3 string" \
    "$(jq -r '[.error.code, (.error.message | if type == "string" and length > 0 then "string" else "missing" end)] | join(" ")' \
      <<<"$HTTP_BODY" 2>/dev/null || echo "not JSON: ${HTTP_BODY:0:120}")"
}

# Background jobs of the test itself; a bare `wait` would also wait for the services.
JOBS=()
wait_jobs() {
  local p
  for p in "${JOBS[@]}"; do wait "$p" 2>/dev/null || true; done
  JOBS=()
}

# parallel N OUTDIR METHOD PATH BODY — request i (1..N) goes to PATH with body
# BODY (the string @i replaced by i in both); each answer is written to OUTDIR/i
# as "status body". Waits for all of them.
parallel() {
  local n=$1 dir=$2 method=$3 path=$4 body=$5 i b
  mkdir -p "$dir"
  for ((i = 1; i <= n; i++)); do
    b=${body//@i/$i}
    (
      code=$(printf '%s' "$b" | curl -s -o "$dir/b$i" -w '%{http_code}' --max-time 60 -X "$method" \
        -H 'Content-Type: application/json' --data-binary @- "$BASE_URL${path//@i/$i}" || true)
      echo "$code $(cat "$dir/b$i" 2>/dev/null)" >"$dir/$i"
    ) &
    JOBS+=($!)
  done
  wait_jobs
}

if ! start_service; then
  finish
fi
MAIN_PORT=$PORT MAIN_URL=$BASE_URL MAIN_PID=$SERVICE_PID MAIN_RPORT=$RPORT
use_main() { PORT=$MAIN_PORT BASE_URL=$MAIN_URL SERVICE_PID=$MAIN_PID RPORT=$MAIN_RPORT; }


# ================================================================================================
# System notices
# ================================================================================================

# The list starts empty (the row stays, so its version keeps growing).
rcli DEL broadcasts >/dev/null
http GET /v1/broadcasts
check "broadcasts: the emptied list has count 0 and no newest" "200 0 null" \
  "$HTTP_STATUS $(jget .count) $(jget .newest)"

U0=$(uid 1)
http GET "/v1/users/$U0/broadcasts/unread"
check "never-seen user, no broadcast: unread 0, seen false" "200 0 false null null" \
  "$HTTP_STATUS $(jget .unread) $(jget .seen) $(jget .last_seen) $(jget .newest)"
http POST "/v1/users/$U0/broadcasts/seen"
check "seen with no broadcast at all: recorded, last_seen null, unread 0" "200 null 0" \
  "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
check "seen with no broadcast: stored as -1" "-1" "$(sql "SELECT last_seen FROM bitmapd.broadcast_seen WHERE user_id = $U0")"

B=1000
http POST /v1/broadcasts "{\"id\": $B}"
check "POST broadcast $B: 200 created, count 1" "200 $B true 1" \
  "$HTTP_STATUS $(jget .id) $(jget .created) $(jget .count)"
v1=$(jget .version)
check "POST broadcast: ETag is the version" "\"$v1\"" "$HTTP_ETAG"
http POST /v1/broadcasts "{\"id\": $B}"
check "POST broadcast $B again: idempotent (created false, same count and version)" "200 false 1 $v1" \
  "$HTTP_STATUS $(jget .created) $(jget .count) $(jget .version)"

http GET "/v1/users/$U0/broadcasts/unread"
check "user recorded before any broadcast counts the first one" "1 true null $B" \
  "$(jget .unread) $(jget .seen) $(jget .last_seen) $(jget .newest)"

U1=$(uid 2)
http GET "/v1/users/$U1/broadcasts/unread"
check "never-seen user: unread 0 (the seed's rule), seen false" "200 0 false null $B" \
  "$HTTP_STATUS $(jget .unread) $(jget .seen) $(jget .last_seen) $(jget .newest)"
http POST "/v1/users/$U1/broadcasts/seen"
check "seen: last_seen is the newest, unread 0" "200 $B 0" "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
for i in 1 2 3; do http POST /v1/broadcasts "{\"id\": $((B + i))}"; done
check "three more broadcasts: count 4" "200 4" "$HTTP_STATUS $(jget .count)"
http GET "/v1/users/$U1/broadcasts/unread"
check "seen, then 3 new → unread 3" "200 3 true $B $((B + 3))" \
  "$HTTP_STATUS $(jget .unread) $(jget .seen) $(jget .last_seen) $(jget .newest)"
http GET "/v1/users/$U0/broadcasts/unread"
check "the user recorded before any broadcast now counts all 4" 4 "$(jget .unread)"
http POST "/v1/users/$U1/broadcasts/seen"
check "seen again → last_seen newest, unread 0" "200 $((B + 3)) 0" "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
http GET "/v1/users/$U1/broadcasts/unread"
check "after seen again: unread 0" "0 $((B + 3))" "$(jget .unread) $(jget .last_seen)"

# Out of order: an id below the newest is accepted; cursors already past it never count it.
http POST /v1/broadcasts "{\"id\": $((B - 5))}"
check "out-of-order broadcast (below the newest) is accepted" "200 true 5" \
  "$HTTP_STATUS $(jget .created) $(jget .count)"
http GET "/v1/users/$U1/broadcasts/unread"
check "a cursor past the out-of-order id does not count it" "0 $((B + 3))" "$(jget .unread) $(jget .newest)"
U2=$(uid 3)
http POST "/v1/users/$U2/broadcasts/seen" "{\"id\": $((B - 10))}"
check "seen with an explicit id: last_seen is that id, unread counts the 5 above" "200 $((B - 10)) 5" \
  "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
http POST "/v1/users/$U2/broadcasts/seen" "{\"id\": $((B - 20))}"
check "seen with an older id: the cursor never moves back" "200 $((B - 10)) 5" \
  "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
http POST "/v1/users/$U2/broadcasts/seen" "{\"id\": $((B + 1))}"
check "seen with an id between broadcasts: unread counts those above it" "200 $((B + 1)) 2" \
  "$HTTP_STATUS $(jget .last_seen) $(jget .unread)"
http GET "/v1/users/$U2/broadcasts/unread"
check "GET agrees: unread 2 after id $((B + 1))" "2 $((B + 1))" "$(jget .unread) $(jget .last_seen)"

check "psql: bitmapd.broadcast_cursors agrees (last_seen|unread)" "$((B + 1))|2" \
  "$(sql "SELECT last_seen || '|' || unread FROM bitmapd.broadcast_cursors WHERE user_id = $U2")"
check "psql: broadcast_cursors shows -1 as NULL, counting every broadcast" "null|5" \
  "$(sql "SELECT coalesce(last_seen::text, 'null') || '|' || unread FROM bitmapd.broadcast_cursors WHERE user_id = $U0")"

http GET /v1/broadcasts
check "GET /v1/broadcasts: count 5, newest $((B + 3)), ETag" "200 5 $((B + 3)) \"$(jget .version)\"" \
  "$HTTP_STATUS $(jget .count) $(jget .newest) $HTTP_ETAG"

# --- concurrency: 20 parallel broadcasts, 10 parallel posts of one id ------------------------------
parallel 20 "$T/bc" POST /v1/broadcasts "{\"id\": $((B + 100))@i}"
check "20 parallel broadcasts: all 200 created" "20" \
  "$(cat "$T"/bc/[0-9]* | grep -c '^200 .*"created":true')"
http GET /v1/broadcasts
check "20 parallel broadcasts: count 5 + 20" 25 "$(jget .count)"
parallel 10 "$T/bc_same" POST /v1/broadcasts "{\"id\": $((B + 500))}"
check "10 parallel posts of one id: all 200" 10 "$(cat "$T"/bc_same/[0-9]* | grep -c '^200 ')"
check "10 parallel posts of one id: exactly one created" 1 "$(cat "$T"/bc_same/[0-9]* | grep -c '"created":true')"
http GET /v1/broadcasts
check "one more broadcast in all" 26 "$(jget .count)"

# --- errors ----------------------------------------------------------------------------------------
http POST /v1/broadcasts
expect_error "POST broadcast without a body" 400 invalid_json
http POST /v1/broadcasts '{}'
expect_error "POST broadcast without id" 400 invalid_body
http POST /v1/broadcasts '{"id": -1}'
expect_error "POST broadcast id -1" 400 invalid_id
http POST /v1/broadcasts '{"id": 4294967296}'
expect_error "POST broadcast id 2^32" 400 invalid_id
http POST /v1/broadcasts '{"id": "7"}'
expect_error "POST broadcast id as a string" 400 invalid_id
http POST /v1/broadcasts '{"id": 7, "title": "x"}'
expect_error "POST broadcast with an unknown field" 400 invalid_body
http POST /v1/broadcasts '{"id": 7'
expect_error "POST broadcast with malformed JSON" 400 invalid_json
http POST /v1/broadcasts '[7]'
expect_error "POST broadcast with a JSON array body" 400 invalid_json
http POST "/v1/broadcasts?x=1" '{"id": 7}'
expect_error "POST broadcast with an unknown query parameter" 400 invalid_parameter
http DELETE /v1/broadcasts
expect_error "DELETE /v1/broadcasts" 405 method_not_allowed
check_match "405 lists the allowed methods" '[Aa]llow: (POST, GET|GET, POST)' "$HTTP_HEADERS"
http GET "/v1/broadcasts?limit=1"
expect_error "GET /v1/broadcasts with an unknown query parameter" 400 invalid_parameter
http GET /v1/users/abc/broadcasts/unread
expect_error "unread of user abc" 400 invalid_id
http GET /v1/users/9223372036854775808/broadcasts/unread
expect_error "unread of user 2^63" 400 invalid_id
http GET /v1/users/-1/broadcasts/unread
expect_error "unread of user -1" 400 invalid_id
http GET "/v1/users/$U1/broadcasts/unread?all=1"
expect_error "unread with an unknown query parameter" 400 invalid_parameter
http POST "/v1/users/$U1/broadcasts/seen" '{"id": -1}'
expect_error "seen with id -1" 400 invalid_id
http POST "/v1/users/$U1/broadcasts/seen" '{"id": 4294967296}'
expect_error "seen with id 2^32" 400 invalid_id
http POST "/v1/users/$U1/broadcasts/seen" '{"last": 1}'
expect_error "seen with an unknown field" 400 invalid_body
http POST "/v1/users/x1/broadcasts/seen"
expect_error "seen of user x1" 400 invalid_id
http GET "/v1/users/$U1/broadcasts/seen"
expect_error "GET on seen" 405 method_not_allowed
http GET "/v1/users/$U1/broadcasts"
expect_error "no such path under a user" 404 not_found
http POST /v1/broadcasts/cursors/expire
expect_error "expire without a body" 400 invalid_json
http POST /v1/broadcasts/cursors/expire '{}'
expect_error "expire without inactive_days" 400 invalid_body
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 0}'
expect_error "expire with inactive_days 0" 400 invalid_body
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 36501}'
expect_error "expire with inactive_days 36501" 400 invalid_body
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 30, "dry_run": true}'
expect_error "expire with an unknown field" 400 invalid_body

# --- clearing idle cursors: the operator endpoint (in batches), the SQL function ---------------------
U3=$(uid 4) U4=$(uid 5)
http GET /v1/broadcasts
NEWEST=$(jget .newest)
http POST "/v1/users/$U3/broadcasts/seen"
http POST "/v1/users/$U4/broadcasts/seen"
check "seen moves the cursor to the newest of all ($NEWEST)" "200 $NEWEST" "$HTTP_STATUS $(jget .last_seen)"
sql "UPDATE bitmapd.broadcast_seen SET seen_at = now() - interval '40 days' WHERE user_id = $U3"
# 25,000 idle cursors more (more than two batches of 10,000), all older than 30 days
sql "INSERT INTO bitmapd.broadcast_seen (user_id, last_seen, seen_at)
     SELECT $(uid 100000) + g, $B, now() - interval '35 days' FROM generate_series(1, 25000) g"
before=$(sql "SELECT count(*) FROM bitmapd.broadcast_seen WHERE seen_at < now() - interval '30 days'")
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 30}'
check "expire 30 days: 200, cleared every idle cursor (25,001 and those of earlier runs)" "200 $before 30" \
  "$HTTP_STATUS $(jget .cleared) $(jget .inactive_days)"
check "expire: at least the 25,001 of this run" yes "$( ((before >= 25001)) && echo yes || echo no)"
check "expire: no cursor idle for 30 days is left" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.broadcast_seen WHERE seen_at < now() - interval '30 days'")"
http GET "/v1/users/$U3/broadcasts/unread"
check "a cleared user counts 0 again (seen false)" "0 false null" "$(jget .unread) $(jget .seen) $(jget .last_seen)"
http GET "/v1/users/$U4/broadcasts/unread"
check "an active user keeps the cursor" "0 true $NEWEST" "$(jget .unread) $(jget .seen) $(jget .last_seen)"
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 30}'
check "expire again: nothing left to clear" "200 0" "$HTTP_STATUS $(jget .cleared)"

sql "UPDATE bitmapd.broadcast_seen SET seen_at = now() - interval '10 days' WHERE user_id = $U4"
check "SQL: bitmapd.broadcast_clear_cursors('5 days') clears the one idle cursor" 1 \
  "$(sql "SELECT bitmapd.broadcast_clear_cursors('5 days')")"
check "SQL: the cursor is gone" 0 "$(sql "SELECT count(*) FROM bitmapd.broadcast_seen WHERE user_id = $U4")"

# --- clearing at start-up: a second service with [broadcasts] cursor_ttl_days = 1 ---------------------
U5=$(uid 6) U6=$(uid 7)
http POST "/v1/users/$U5/broadcasts/seen"
http POST "/v1/users/$U6/broadcasts/seen"
sql "UPDATE bitmapd.broadcast_seen SET seen_at = now() - interval '2 days' WHERE user_id = $U5"
if start_service --set broadcasts.cursor_ttl_days=1; then
  TTL_PORT=$PORT
  left=1
  for ((i = 0; i < 100; i++)); do
    left=$(sql "SELECT count(*) FROM bitmapd.broadcast_seen WHERE user_id = $U5")
    [[ $left == 0 ]] && break
    sleep 0.1
  done
  check "service with cursor_ttl_days=1 clears a 2-day-idle cursor at start-up" 0 "$left"
  check "... and keeps a fresh one" 1 "$(sql "SELECT count(*) FROM bitmapd.broadcast_seen WHERE user_id = $U6")"
  check_match "... and logs it" 'idle broadcast cursors cleared.*ttl_days=1' \
    "$(cat "$T/bitmapd.$TTL_PORT.log")"
  http GET "/v1/users/$U5/broadcasts/unread"
  check "the cleared user counts 0 on that instance too" "0 false" "$(jget .unread) $(jget .seen)"
  stop_service "$TTL_PORT"
  check "ttl service: SIGTERM exit status 0" 0 "$SERVICE_EXIT"
fi
use_main
check_match "the main service (ttl 0) clears nothing by itself" '^$' \
  "$(grep 'idle broadcast cursors' "$T/bitmapd.$MAIN_PORT.log" || true)"

# ================================================================================================
# Red dots
# ================================================================================================
D1="promo.$DOT_SUFFIX"
R1=$(uid 20) R2=$(uid 21)
http GET "/v1/users/$R1/reddots/$D1"
check "a dot never set: show false" "200 false $R1 $D1" "$HTTP_STATUS $(jget .show) $(jget .user) $(jget .name)"
http GET "/v1/reddots/$D1"
expect_error "GET a dot never set" 404 not_found
http POST "/v1/users/$R1/reddots/$D1/click"
expect_error "click a dot never set" 404 not_found

http POST "/v1/reddots/$D1"
check "set a dot: 200 with its name" "200 $D1" "$HTTP_STATUS $(jget .name)"
s1=$(jget .seq)
check_match "set a dot: seq is a number" '^[0-9]+$' "$s1"
check_match "set a dot: set_at is an RFC 3339 UTC time" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$' \
  "$(jget .set_at)"
http GET "/v1/reddots/$D1"
check "GET the dot: same seq" "200 $s1" "$HTTP_STATUS $(jget .seq)"
http GET "/v1/users/$R1/reddots/$D1"
check "set, never clicked: show true" "200 true" "$HTTP_STATUS $(jget .show)"
http POST "/v1/users/$R1/reddots/$D1/click"
check "click: 200 show false" "200 false" "$HTTP_STATUS $(jget .show)"
http GET "/v1/users/$R1/reddots/$D1"
check "after the click: show false" false "$(jget .show)"
http GET "/v1/users/$R2/reddots/$D1"
check "another user still sees it" true "$(jget .show)"
http POST "/v1/reddots/$D1"
s2=$(jget .seq)
check "set again: seq grows" yes "$( ((s2 > s1)) && echo yes || echo no)"
http GET "/v1/users/$R1/reddots/$D1"
check "set after the click: show true again" true "$(jget .show)"
http POST "/v1/users/$R1/reddots/$D1/click"
http POST "/v1/users/$R1/reddots/$D1/click"
check "click twice: still 200 false" "200 false" "$HTTP_STATUS $(jget .show)"
check "psql: bitmapd.reddot_state for the user (show false)" "f" \
  "$(sql "SELECT show FROM bitmapd.reddot_state WHERE user_id = $R1 AND name = '$D1'")"
http POST "/v1/reddots/$D1"
check "psql: reddot_state shows true after a new setting" "t" \
  "$(sql "SELECT show FROM bitmapd.reddot_state WHERE user_id = $R1 AND name = '$D1'")"

# Names: 64 characters of the allowed set; anything else is 400 invalid_id.
LONG="$(printf 'a%.0s' {1..60}).:_-"
http POST "/v1/reddots/$LONG"
check "a 64-character name with . : _ - is accepted" "200 $LONG" "$HTTP_STATUS $(jget .name)"
http POST "/v1/users/$R1/reddots/$LONG/click"
check "click a 64-character name" "200 false $LONG" "$HTTP_STATUS $(jget .show) $(jget .name)"
http GET "/v1/users/$R1/reddots/$LONG"
check "show for a 64-character name" "200 false" "$HTTP_STATUS $(jget .show)"
http POST "/v1/reddots/${LONG}b"
expect_error "a 65-character name" 400 invalid_id
http GET "/v1/users/$R1/reddots/${LONG}b"
expect_error "show with a 65-character name" 400 invalid_id
http POST "/v1/reddots/a%20b"
expect_error "a name with an encoded space" 400 invalid_id
http POST "/v1/reddots/a!b"
expect_error "a name with '!'" 400 invalid_id
http POST "/v1/reddots/$D1" '{"color": "red"}'
expect_error "set with an unknown field" 400 invalid_body
http POST "/v1/reddots/$D1" '{}'
check "set with an empty object body" 200 "$HTTP_STATUS"
http POST "/v1/reddots/$D1?x=1"
expect_error "set with an unknown query parameter" 400 invalid_parameter
http GET "/v1/users/$R1/reddots/$D1?x=1"
expect_error "show with an unknown query parameter" 400 invalid_parameter
http POST "/v1/users/$R1/reddots/$D1/click" '{"at": 1}'
expect_error "click with an unknown field" 400 invalid_body
http POST "/v1/users/u1/reddots/$D1/click"
expect_error "click for user u1" 400 invalid_id
http GET "/v1/users/9223372036854775808/reddots/$D1"
expect_error "show for user 2^63" 400 invalid_id
http DELETE "/v1/reddots/$D1"
expect_error "DELETE a dot" 405 method_not_allowed
http GET "/v1/users/$R1/reddots/$D1/click"
expect_error "GET on click" 405 method_not_allowed
http GET "/v1/reddots"
expect_error "GET /v1/reddots (no name)" 404 not_found

# Concurrent settings of one dot: every answer has its own seq, and the dot keeps the largest.
D2="launch.$DOT_SUFFIX"
parallel 20 "$T/dots" POST "/v1/reddots/$D2" ""
check "20 parallel settings: all 200" 20 "$(cat "$T"/dots/[0-9]* | grep -c '^200 ')"
seqs=$(for f in "$T"/dots/[0-9]*; do cut -d' ' -f2- "$f" | jq -r .seq; done | sort -n)
check "20 parallel settings: 20 distinct seqs" 20 "$(uniq <<<"$seqs" | wc -l | tr -d ' ')"
http GET "/v1/reddots/$D2"
check "the dot keeps the largest seq (it never goes back)" "$(tail -n 1 <<<"$seqs")" "$(jget .seq)"

# Two service instances on one database, with their own clocks, agree.
if start_service; then
  SECOND_PORT=$PORT SECOND_URL=$BASE_URL
  D3="ab.$DOT_SUFFIX"
  R3=$(uid 22)
  http POST "/v1/reddots/$D3"
  check "instance 2 sets a dot" 200 "$HTTP_STATUS"
  use_main
  http GET "/v1/users/$R3/reddots/$D3"
  check "instance 1 shows it" true "$(jget .show)"
  http POST "/v1/users/$R3/reddots/$D3/click"
  check "instance 1 records the click" "200 false" "$HTTP_STATUS $(jget .show)"
  PORT=$SECOND_PORT BASE_URL=$SECOND_URL
  http GET "/v1/users/$R3/reddots/$D3"
  check "instance 2 sees the click" false "$(jget .show)"
  use_main
  http POST "/v1/reddots/$D3"
  PORT=$SECOND_PORT BASE_URL=$SECOND_URL
  http GET "/v1/users/$R3/reddots/$D3"
  check "instance 1 sets it again, instance 2 shows it" true "$(jget .show)"
  # the two instances set and click alternately: the dot always follows the last action
  ok=yes
  for ((i = 0; i < 10; i++)); do
    if ((i % 2)); then use_main; else PORT=$SECOND_PORT BASE_URL=$SECOND_URL; fi
    http POST "/v1/users/$R3/reddots/$D3/click"
    [[ $(jget .show) == false ]] || ok="click $i: $HTTP_BODY"
    if ((i % 2)); then PORT=$SECOND_PORT BASE_URL=$SECOND_URL; else use_main; fi
    http GET "/v1/users/$R3/reddots/$D3"
    [[ $(jget .show) == false ]] || ok="show after click $i: $HTTP_BODY"
    http POST "/v1/reddots/$D3"
    if ((i % 2)); then use_main; else PORT=$SECOND_PORT BASE_URL=$SECOND_URL; fi
    http GET "/v1/users/$R3/reddots/$D3"
    [[ $(jget .show) == true ]] || ok="show after set $i: $HTTP_BODY"
  done
  check "10 rounds of set/click alternating between the instances" yes "$ok"
  stop_service "$SECOND_PORT"
  check "second instance: SIGTERM exit status 0" 0 "$SERVICE_EXIT"
fi
use_main

# ================================================================================================
# Feed unread
# ================================================================================================
FA=$(uid 40)
FB=$(aid 1) FC=$(aid 2) FD=$(aid 3) FE=$(aid 4)

# The seed's worked example: A follows B, C, D with snapshots 6, 7, 12 and posts 10, 8, 14 → 7.
http POST "/v1/authors/$FB/posts" '{"count": 6}'
check "B posts 6 (count in one call)" "200 $FB 6" "$HTTP_STATUS $(jget .author) $(jget .posts)"
http POST "/v1/authors/$FC/posts" '{"count": 7}'
http POST "/v1/authors/$FD/posts" '{"count": 12}'
http PUT "/v1/users/$FA/following" "{\"authors\": [$FD, $FB, $FC, $FB]}"
check "A follows B, C, D (a duplicate counts once)" "200 3 3 0" \
  "$HTTP_STATUS $(jget .following) $(jget .added) $(jget .removed)"
fv=$(jget .version)
check "PUT following: ETag is the version" "\"$fv\"" "$HTTP_ETAG"
http GET "/v1/users/$FA/feed/unread"
check "just followed: unread 0 (following does not flood)" "200 0 3 []" \
  "$HTTP_STATUS $(jget .unread) $(jget .following) $(jget .authors)"
check "snapshots taken at follow time: 6, 7, 12" "$FB:6 $FC:7 $FD:12" \
  "$(sql "SELECT string_agg(author_id || ':' || posts, ' ' ORDER BY author_id) FROM bitmapd.feed_snapshots WHERE user_id = $FA")"
http POST "/v1/authors/$FB/posts" '{"count": 4}'
check "B now has 10 posts" 10 "$(jget .posts)"
http POST "/v1/authors/$FC/posts"
check "C now has 8 posts (one by default)" 8 "$(jget .posts)"
http POST "/v1/authors/$FD/posts"
http POST "/v1/authors/$FD/posts"
check "D now has 14 posts" 14 "$(jget .posts)"
http GET "/v1/users/$FA/feed/unread"
check "seed example: (10-6)+(8-7)+(14-12) = 7" "200 7" "$HTTP_STATUS $(jget .unread)"
check "authors most unread first" "[{\"author\":$FB,\"unread\":4},{\"author\":$FD,\"unread\":2},{\"author\":$FC,\"unread\":1}]" \
  "$(jget .authors)"
check "feed unread: ETag is the following version" "\"$fv\"" "$HTTP_ETAG"
check "psql: bitmapd.feed_unread agrees (following|unread)" "3|7" \
  "$(sql "SELECT following || '|' || unread FROM bitmapd.feed_unread WHERE user_id = $FA")"
http GET "/v1/authors/$FB/posts"
check "GET posts of B" "200 $FB 10" "$HTTP_STATUS $(jget .author) $(jget .posts)"
http GET "/v1/authors/$(aid 9999)/posts"
check "GET posts of an author who never posted: 0" "200 0" "$HTTP_STATUS $(jget .posts)"

http POST "/v1/users/$FA/feed/seen"
check "feed seen: unread 0" "200 0 3" "$HTTP_STATUS $(jget .unread) $(jget .following)"
http GET "/v1/users/$FA/feed/unread"
check "after seen: unread 0" "0 []" "$(jget .unread) $(jget .authors)"
check "snapshots refreshed to 10, 8, 14" "$FB:10 $FC:8 $FD:14" \
  "$(sql "SELECT string_agg(author_id || ':' || posts, ' ' ORDER BY author_id) FROM bitmapd.feed_snapshots WHERE user_id = $FA")"

# Following an author with many posts adds none of them; unfollowing drops the snapshot.
http POST "/v1/authors/$FE/posts" '{"count": 100}'
http POST "/v1/authors/$FB/posts"
http PUT "/v1/users/$FA/following" "{\"authors\": [$FB, $FC, $FD, $FE]}"
check "follow E (100 posts): added 1, removed 0" "200 4 1 0" \
  "$HTTP_STATUS $(jget .following) $(jget .added) $(jget .removed)"
http GET "/v1/users/$FA/feed/unread"
check "E's 100 earlier posts are not unread; B's new one is" "1 [{\"author\":$FB,\"unread\":1}]" \
  "$(jget .unread) $(jget .authors)"
http PUT "/v1/users/$FA/following" "{\"authors\": [$FC, $FD, $FE]}"
check "unfollow B: removed 1" "200 3 0 1" "$HTTP_STATUS $(jget .following) $(jget .added) $(jget .removed)"
http GET "/v1/users/$FA/feed/unread"
check "unfollowed B no longer counts" 0 "$(jget .unread)"
check "B's snapshot is gone" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.feed_snapshots WHERE user_id = $FA AND author_id = $FB")"
http POST "/v1/authors/$FB/posts" '{"count": 5}'
http PUT "/v1/users/$FA/following" "{\"authors\": [$FB, $FC, $FD, $FE]}"
http GET "/v1/users/$FA/feed/unread"
check "refollow B: snapshot at the current count, posts made meanwhile are not unread" 0 "$(jget .unread)"
v_before=$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = bitmapd.feed_following_key($FA)")
http PUT "/v1/users/$FA/following" "{\"authors\": [$FE, $FD, $FC, $FB]}"
check "PUT of the same set: added 0, removed 0, version unchanged" "200 0 0 $v_before" \
  "$HTTP_STATUS $(jget .added) $(jget .removed) $(jget .version)"

# A PUT whose snapshot step finds the followees changed since its commit (here by
# RESP SETBIT, which never snapshots) snapshots the set as it is now, so the new
# followee gets a snapshot too. No timing: a psql session holds the user's
# feed_sync advisory lock, so the PUT's snapshot step waits after its commit
# while the RESP write commits.
FS=$(uid 47) FX1=$(aid 21) FX2=$(aid 22)
http POST "/v1/authors/$FX1/posts" '{"count": 4}'
http POST "/v1/authors/$FX2/posts" '{"count": 9}'
lock_open "SELECT pg_advisory_xact_lock(1717920100, hashint8($FS::int8));"
curl -s -o "$T/fs.json" -w '%{http_code}' --max-time 60 -X PUT -H 'Content-Type: application/json' \
  --data "{\"authors\": [$FX1]}" "$BASE_URL/v1/users/$FS/following" >"$T/fs.status" 2>/dev/null &
fs_pid=$!
wait_for "the PUT's snapshot step waits on the psql session" waiting_on_lock
rcli SETBIT "feed:following:$FS" "$FX2" 1 >/dev/null
lock_close
wait "$fs_pid" 2>/dev/null
check "PUT racing RESP SETBIT: 200 with its own commit (1 followee, version 1)" "200 1 1" \
  "$(cat "$T/fs.status") $(jq -r '"\(.following) \(.version)"' "$T/fs.json" 2>/dev/null)"
check "PUT racing RESP SETBIT: both followees have a snapshot at the current count" "$FX1:4 $FX2:9" \
  "$(sql "SELECT string_agg(author_id || ':' || posts, ' ' ORDER BY author_id) FROM bitmapd.feed_snapshots WHERE user_id = $FS")"
http POST "/v1/authors/$FX2/posts"
http GET "/v1/users/$FS/feed/unread"
check "PUT racing RESP SETBIT: a new post of the RESP followee counts" "2 1" "$(jget .following) $(jget .unread)"

# A followee without a snapshot (evicted, as the seed allows) counts 0.
http POST "/v1/authors/$FC/posts" '{"count": 3}'
http POST "/v1/authors/$FD/posts" '{"count": 2}'
http GET "/v1/users/$FA/feed/unread"
check "C 3 + D 2 unread" 5 "$(jget .unread)"
sql "DELETE FROM bitmapd.feed_snapshots WHERE user_id = $FA AND author_id = $FC"
http GET "/v1/users/$FA/feed/unread"
check "C's snapshot evicted: C counts 0" "2 [{\"author\":$FD,\"unread\":2}]" "$(jget .unread) $(jget .authors)"
http POST "/v1/users/$FA/feed/seen"
check "seen snapshots C again" 1 \
  "$(sql "SELECT count(*) FROM bitmapd.feed_snapshots WHERE user_id = $FA AND author_id = $FC")"

http GET "/v1/users/$FA/following"
check "GET following lists the authors ascending" "200 4 [$FB,$FC,$FD,$FE]" \
  "$HTTP_STATUS $(jget .following) $(jget .authors)"
check "GET following: ETag is the version" "\"$(jget .version)\"" "$HTTP_ETAG"
FN=$(uid 41)
http GET "/v1/users/$FN/following"
check "a user who never followed anyone: 0, version 0" "200 0 [] 0" \
  "$HTTP_STATUS $(jget .following) $(jget .authors) $(jget .version)"
http GET "/v1/users/$FN/feed/unread"
check "feed unread of a user who follows nobody: 0" "200 0 0 []" \
  "$HTTP_STATUS $(jget .unread) $(jget .following) $(jget .authors)"
http POST "/v1/users/$FN/feed/seen"
check "feed seen of a user who follows nobody: 200" "200 0" "$HTTP_STATUS $(jget .unread)"

# More than 100 followees with unread posts: the top 100 are listed, the total counts all.
FM=$(uid 42)
list=$(seq -s, "$(aid 1001)" "$(aid 1150)")
http PUT "/v1/users/$FM/following" "{\"authors\": [$list]}"
check "follow 150 authors" "200 150" "$HTTP_STATUS $(jget .following)"
{
  echo 'request = "POST"'
  for a in $(seq "$(aid 1001)" "$(aid 1150)"); do
    printf 'url = "%s/v1/authors/%s/posts"\noutput = "/dev/null"\n' "$BASE_URL" "$a"
  done
} >"$T/posts.curl"
curl -s -K "$T/posts.curl"
http POST "/v1/authors/$(aid 1150)/posts" '{"count": 9}'
http GET "/v1/users/$FM/feed/unread"
check "150 followees with unread: total 159, 100 listed, the top one first" "159 100 $(aid 1150) 10" \
  "$(jget .unread) $(jget '.authors | length') $(jget '.authors[0].author') $(jget '.authors[0].unread')"

# If-Match on PUT following
http PUT "/v1/users/$FA/following" "{\"authors\": [$FB]}" -H 'If-Match: "999999"'
expect_error "PUT following with a stale If-Match" 412 precondition_failed
http GET "/v1/users/$FA/following"
check "the refused PUT changed nothing" 4 "$(jget .following)"
cur=$(jget .version)
http PUT "/v1/users/$FA/following" "{\"authors\": [$FB, $FC, $FD, $FE]}" -H "If-Match: \"$cur\""
check "PUT following with the current If-Match" 200 "$HTTP_STATUS"
http PUT "/v1/users/$FA/following" "{\"authors\": [$FB]}" -H 'If-Match: abc'
expect_error "PUT following with a malformed If-Match" 400 invalid_header

# errors
http PUT "/v1/users/$FA/following"
expect_error "PUT following without a body" 400 invalid_json
http PUT "/v1/users/$FA/following" '{}'
expect_error "PUT following without authors" 400 invalid_body
http PUT "/v1/users/$FA/following" '{"authors": 5}'
expect_error "PUT following with authors not an array" 400 invalid_body
http PUT "/v1/users/$FA/following" '{"authors": [1, -2]}'
expect_error "PUT following with author -2" 400 invalid_id
http PUT "/v1/users/$FA/following" '{"authors": [4294967296]}'
expect_error "PUT following with author 2^32" 400 invalid_id
http PUT "/v1/users/$FA/following" '{"authors": [1], "mode": "add"}'
expect_error "PUT following with an unknown field" 400 invalid_body
http PUT "/v1/users/abc/following" '{"authors": [1]}'
expect_error "PUT following of user abc" 400 invalid_id
http PUT "/v1/users/$FA/following?x=1" '{"authors": [1]}'
expect_error "PUT following with an unknown query parameter" 400 invalid_parameter
http POST "/v1/users/$FA/following" '{"authors": [1]}'
expect_error "POST on following" 405 method_not_allowed
http GET "/v1/users/$FA/feed/unread?limit=5"
expect_error "feed unread with an unknown query parameter" 400 invalid_parameter
http GET "/v1/users/-5/feed/unread"
expect_error "feed unread of user -5" 400 invalid_id
http POST "/v1/users/$FA/feed/seen" '{"all": true}'
expect_error "feed seen with an unknown field" 400 invalid_body
http POST "/v1/users/$FA/feed/seen" '{"x"'
expect_error "feed seen with malformed JSON" 400 invalid_json
http POST "/v1/authors/4294967296/posts"
expect_error "posts of author 2^32" 400 invalid_id
http POST "/v1/authors/x/posts"
expect_error "posts of author x" 400 invalid_id
http POST "/v1/authors/$FB/posts" '{"count": 0}'
expect_error "posts count 0" 400 invalid_body
http POST "/v1/authors/$FB/posts" '{"count": 1000001}'
expect_error "posts count 1000001" 400 invalid_body
http POST "/v1/authors/$FB/posts" '{"count": 1.5}'
expect_error "posts count 1.5" 400 invalid_body
http POST "/v1/authors/$FB/posts" '{"title": "x"}'
expect_error "posts with an unknown field" 400 invalid_body
http DELETE "/v1/authors/$FB/posts"
expect_error "DELETE posts" 405 method_not_allowed
http GET "/v1/authors/$FB/posts?since=1"
expect_error "GET posts with an unknown query parameter" 400 invalid_parameter

# --- concurrency: 50 parallel posts on one author ---------------------------------------------------
FP=$(aid 50)
parallel 50 "$T/posts" POST "/v1/authors/$FP/posts" ""
check "50 parallel posts: all 200" 50 "$(cat "$T"/posts/[0-9]* | grep -c '^200 ')"
check "50 parallel posts: the answers are 1 … 50, each once" "$(seq -s' ' 1 50)" \
  "$(for f in "$T"/posts/[0-9]*; do cut -d' ' -f2- "$f" | jq -r .posts; done | sort -n | tr '\n' ' ' | sed 's/ $//')"
http GET "/v1/authors/$FP/posts"
check "50 parallel posts: posts = 50" 50 "$(jget .posts)"

# --- concurrency: parallel PUT following and feed/seen on one user ------------------------------------
FQ=$(uid 43)
for i in $(seq 1 12); do http POST "/v1/authors/$(aid $((100 + i)))/posts" "{\"count\": $i}"; done
sets=()
for i in $(seq 1 10); do
  # set i: authors 101 … 100+i+2 without 100+i (overlapping, all different)
  s=""
  for j in $(seq 1 $((i + 2))); do ((j == i)) || s="$s${s:+,}$(aid $((100 + j)))"; done
  sets[i]=$s
  printf '%s\n' "$s" >"$T/set.$i"
done
mkdir -p "$T/mix"
for i in $(seq 1 10); do
  (
    code=$(curl -s -o "$T/mix/put.$i" -w '%{http_code}' --max-time 60 -X PUT -H 'Content-Type: application/json' \
      --data-binary "{\"authors\": [${sets[i]}]}" "$BASE_URL/v1/users/$FQ/following" || true)
    echo "$code" >"$T/mix/put.$i.code"
  ) &
  JOBS+=($!)
  (
    code=$(curl -s -o "$T/mix/seen.$i" -w '%{http_code}' --max-time 60 -X POST "$BASE_URL/v1/users/$FQ/feed/seen" || true)
    echo "$code" >"$T/mix/seen.$i.code"
  ) &
  JOBS+=($!)
done
wait_jobs
check "parallel PUT following: all 200" 10 "$(cat "$T"/mix/put.*.code | grep -c '^200$')"
check "parallel feed/seen: all 200" 10 "$(cat "$T"/mix/seen.*.code | grep -c '^200$')"
http GET "/v1/users/$FQ/following"
final=$(jget '.authors | map(tostring) | join(",")')
match=none
for i in $(seq 1 10); do [[ ${sets[i]} == "$final" ]] && match=$i; done
check_match "the followees are exactly one of the PUT sets" '^[0-9]+$' "$match"
check "version 10: each of the 10 different sets committed once, none lost" 10 "$(jget .version)"
check "snapshots are exactly the followees" "$final" \
  "$(sql "SELECT string_agg(author_id::text, ',' ORDER BY author_id) FROM bitmapd.feed_snapshots WHERE user_id = $FQ")"
http GET "/v1/users/$FQ/feed/unread"
before_unread=$(jget .unread)
for a in ${final//,/ }; do http POST "/v1/authors/$a/posts"; done
http GET "/v1/users/$FQ/feed/unread"
n_final=$(tr ',' '\n' <<<"$final" | wc -l | tr -d ' ')
check "one new post by each followee adds exactly one unread each" $((before_unread + n_final)) "$(jget .unread)"
http POST "/v1/users/$FQ/feed/seen"
http GET "/v1/users/$FQ/feed/unread"
check "seen after the storm: unread 0" 0 "$(jget .unread)"

# --- clients that leave mid-request -------------------------------------------------------------------
FR=$(uid 44)
for i in $(seq 1 10); do
  curl -s -o /dev/null --max-time 0.01 -X PUT -H 'Content-Type: application/json' \
    --data-binary "{\"authors\": [$(aid 101),$(aid $((101 + i)))]}" "$BASE_URL/v1/users/$FR/following" &
  JOBS+=($!)
  curl -s -o /dev/null --max-time 0.01 -X POST "$BASE_URL/v1/users/$FR/feed/seen" &
  JOBS+=($!)
  curl -s -o /dev/null --max-time 0.01 -X POST -H 'Content-Type: application/json' \
    --data-binary '{"inactive_days": 36500}' "$BASE_URL/v1/broadcasts/cursors/expire" &
  JOBS+=($!)
done
wait_jobs
http GET /healthz
check "clients that left: the service still answers" 200 "$HTTP_STATUS"
http PUT "/v1/users/$FR/following" "{\"authors\": [$(aid 101), $(aid 102)]}"
check "after clients left: PUT following works" "200 2" "$HTTP_STATUS $(jget .following)"
check "after clients left: snapshots are the followees" "$(aid 101),$(aid 102)" \
  "$(sql "SELECT string_agg(author_id::text, ',' ORDER BY author_id) FROM bitmapd.feed_snapshots WHERE user_id = $FR")"

# --- corrupt rows: 500 corrupt_bitmap naming the key, never overwritten ---------------------------------
FX=$(uid 45)
http PUT "/v1/users/$FX/following" "{\"authors\": [$FB]}"
sql "UPDATE bitmapd.bitmaps SET bits = '\\xdeadbeef' WHERE key = bitmapd.feed_following_key($FX)"
http GET "/v1/users/$FX/feed/unread"
expect_error "corrupt followees: feed unread" 500 corrupt_bitmap
check_match "corrupt followees: the message names the key" "feed:following:$FX" "$(jget .error.message)"
http GET "/v1/users/$FX/following"
expect_error "corrupt followees: GET following" 500 corrupt_bitmap
http POST "/v1/users/$FX/feed/seen"
expect_error "corrupt followees: feed seen" 500 corrupt_bitmap
http PUT "/v1/users/$FX/following" "{\"authors\": [$FC]}"
expect_error "corrupt followees: PUT following" 500 corrupt_bitmap
check "corrupt followees: never overwritten" "deadbeef" \
  "$(sql "SELECT encode(bits, 'hex') FROM bitmapd.bitmaps WHERE key = bitmapd.feed_following_key($FX)")"

saved=$(sql "SELECT encode(bits, 'hex') || ' ' || checksum FROM bitmapd.bitmaps WHERE key = convert_to('broadcasts', 'UTF8')")
sql "UPDATE bitmapd.bitmaps SET bits = '\\xdeadbeef', version = version + 1 WHERE key = convert_to('broadcasts', 'UTF8')"
http GET "/v1/users/$U1/broadcasts/unread"
expect_error "corrupt broadcast list: unread" 500 corrupt_bitmap
check_match "corrupt broadcast list: the message names the key" 'broadcasts' "$(jget .error.message)"
http POST /v1/broadcasts '{"id": 1}'
expect_error "corrupt broadcast list: POST broadcast" 500 corrupt_bitmap
http POST "/v1/users/$U1/broadcasts/seen"
expect_error "corrupt broadcast list: seen" 500 corrupt_bitmap
sql "UPDATE bitmapd.bitmaps SET bits = decode('${saved% *}', 'hex'), checksum = ${saved#* }, version = version + 1
     WHERE key = convert_to('broadcasts', 'UTF8')"
http GET "/v1/users/$U1/broadcasts/unread"
check "broadcast list restored: unread answers again" 200 "$HTTP_STATUS"

# --- 503: the database stops, then comes back ---------------------------------------------------------
if [[ -n ${BITMAPD_PGDIR:-} ]] && bash "$PG_SH" stop "$BITMAPD_PGDIR" >"$T/pg-stop.log" 2>&1; then
  http POST /v1/broadcasts '{"id": 1}' --max-time 5
  expect_error "database stopped: POST broadcast" 503 db_unavailable
  http GET "/v1/users/$U1/broadcasts/unread" "" --max-time 5
  expect_error "database stopped: broadcast unread" 503 db_unavailable
  http POST "/v1/users/$U1/broadcasts/seen" "" --max-time 5
  expect_error "database stopped: broadcast seen" 503 db_unavailable
  http POST /v1/broadcasts/cursors/expire '{"inactive_days": 30}' --max-time 5
  expect_error "database stopped: expire" 503 db_unavailable
  http POST "/v1/reddots/$D1" "" --max-time 5
  expect_error "database stopped: set a dot" 503 db_unavailable
  http GET "/v1/users/$R1/reddots/$D1" "" --max-time 5
  expect_error "database stopped: show a dot" 503 db_unavailable
  http POST "/v1/users/$R1/reddots/$D1/click" "" --max-time 5
  expect_error "database stopped: click a dot" 503 db_unavailable
  http POST "/v1/authors/$FB/posts" "" --max-time 5
  expect_error "database stopped: count a post" 503 db_unavailable
  http PUT "/v1/users/$FA/following" "{\"authors\": [$FB]}" --max-time 5
  expect_error "database stopped: PUT following" 503 db_unavailable
  http GET "/v1/users/$FA/feed/unread" "" --max-time 5
  expect_error "database stopped: feed unread" 503 db_unavailable
  http POST "/v1/users/$FA/feed/seen" "" --max-time 5
  expect_error "database stopped: feed seen" 503 db_unavailable
  db_start_and_wait "$MAIN_URL"
  code=$DB_HEALTH
  check "database back: healthz 200 (same process)" 200 "$code"
  http GET "/v1/users/$FA/feed/unread"
  check "database back: feed unread answers" 200 "$HTTP_STATUS"
else
  check "pg.sh stop \$BITMAPD_PGDIR (needed for the 503 scenario)" ok "failed: $(tail -n 3 "$T/pg-stop.log" 2>/dev/null)"
  bash "$PG_SH" start "$BITMAPD_PGDIR" >/dev/null 2>&1 || true
fi

# --- clean shutdown and clean logs ------------------------------------------------------------------------
stop_service "$MAIN_PORT"
check "SIGTERM: exit status 0" 0 "$SERVICE_EXIT"
check_logs_clean

finish
