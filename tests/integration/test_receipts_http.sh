#!/usr/bin/env bash
# Group read receipts over HTTP, end to end (seed 001, the {maxid, readbit,
# quitbit} design): a real bitmapd (lib.sh start_service) against the real
# PostgreSQL in BITMAPD_DSN, driven with curl, jq, psql and python3.
#
# Covers the seed scenario (members A..E, C leaves, A sends, B and D read, the
# lists exclude A and C, C rejoins with the old id, a later member gets 409),
# every endpoint and error (400 404 405 409 412), the member map in SQL,
# cursor paging through 250 members, group_full on a second service, concurrent
# read marks (different members, the same member, two instances), 20 concurrent
# first joins of a new group, the psql views against the API, and the storage
# of 1,000 messages in a 200-member group from pg_total_relation_size.
#
# Every scenario uses ids from a per-run block, so reruns on the same database
# do not collide.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP

# A block of 10^6 ids of our own (groups, users, messages). Below 2^53: jq reads doubles.
RUN_BASE=$((($(date +%s) % 1000000 * 1000 + RANDOM % 1000) * 1000000))
id() { echo $((RUN_BASE + $1)); }
echo "# ids of this run: $RUN_BASE + n"

psql_q() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; } # as the administrator (owner role)

# expect_error NAME STATUS CODE — the last answer is STATUS with a JSON error
# body {"error": {"code": CODE, "message": non-empty string}}.
expect_error() {
  check "$1: status" "$2" "$HTTP_STATUS"
  check "$1: error body" "$3 string" \
    "$(jq -r '[.error.code, (.error.message | if type == "string" and length > 0 then "string" else "missing" end)] | join(" ")' \
      <<<"$HTTP_BODY" 2>/dev/null || echo "not JSON: ${HTTP_BODY:0:120}")"
}

join() { # GROUP USER — prints the member id (or the status on failure)
  http POST "/v1/groups/$1/members" "{\"user\": $2}"
  if [[ $HTTP_STATUS == 201 || $HTTP_STATUS == 200 ]]; then jget .member_id; else echo "status $HTTP_STATUS"; fi
}

# every user of one list, walking the cursor with pages of LIMIT; one line per page: "n users…"
walk_list() { # GROUP MSG LIST LIMIT
  local cursor="" q guard=0
  while ((guard++ < 1000)); do
    q="list=$3&limit=$4"
    [[ -z $cursor ]] || q="$q&cursor=$cursor"
    http GET "/v1/groups/$1/messages/$2/receipts?$q"
    if [[ $HTTP_STATUS != 200 ]]; then
      echo "ERROR $HTTP_STATUS"
      return
    fi
    jget '.users | "\(length) \(join(" "))"'
    cursor=$(jget .next_cursor)
    [[ $cursor != null ]] || break
  done
}

if ! start_service; then
  finish
fi
MAIN_PORT=$PORT
MAIN_URL=$BASE_URL
use_main() { PORT=$MAIN_PORT BASE_URL=$MAIN_URL; }

# --- seed 001: members A..E, C leaves, A sends, B and D read -------------------------------------
G=$(id 1)
A=$(id 11) B=$(id 12) C=$(id 13) D=$(id 14) E=$(id 15) F=$(id 16)
M=$(id 100)
http POST "/v1/groups/$G/members" "{\"user\": $A}"
check "seed: A joins a new group → 201, member id 0" "201 0 joined true" \
  "$HTTP_STATUS $(jget .member_id) $(jget .result) $(jget .member)"
check "seed: join answer names group and user" "$G $A" "$(jget '"\(.group) \(.user)"')"
check "seed: B, C, D, E get the next dense ids 1..4" "1 2 3 4" \
  "$(join "$G" "$B") $(join "$G" "$C") $(join "$G" "$D") $(join "$G" "$E")"
http POST "/v1/groups/$G/members" "{\"user\": $B}"
check "seed: joining twice → 200, same id, nothing changed" "200 1 member" \
  "$HTTP_STATUS $(jget .member_id) $(jget .result)"

http DELETE "/v1/groups/$G/members/$C"
check "seed: C leaves → 200, member false, first leave" "200 2 false false" \
  "$HTTP_STATUS $(jget .member_id) $(jget .member) $(jget .already_left)"
http DELETE "/v1/groups/$G/members/$C"
check "seed: C leaves again → 200 already_left (idempotent)" "200 2 true" \
  "$HTTP_STATUS $(jget .member_id) $(jget .already_left)"
http GET "/v1/groups/$G/members/$C"
check "seed: GET member C → id 2, not a member, left_at set" "200 2 false true" \
  "$HTTP_STATUS $(jget .member_id) $(jget .member) $(jget '.left_at | type == "string"')"
http GET "/v1/groups/$G/members/$B"
check "seed: GET member B → id 1, member, left_at null" "200 1 true null" \
  "$HTTP_STATUS $(jget .member_id) $(jget .member) $(jget .left_at)"
check_match "seed: joined_at is an ISO-8601 UTC time" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "$(jget .joined_at)"

http POST "/v1/groups/$G/messages" "{\"message\": $M, \"sender\": $A}"
check "seed: A sends → 201 created, eligible 3 (B D E), read 0, unread 3" "201 true 3 0 3" \
  "$HTTP_STATUS $(jget .created) $(jget .eligible) $(jget .read) $(jget .unread)"
check "seed: send answer names group, message, sender" "$G $M $A" "$(jget '"\(.group) \(.message) \(.sender)"')"
check "seed: send ETag is the body version" "\"$(jget .version)\"" "$HTTP_ETAG"
v_sent=$(jget .version)
http POST "/v1/groups/$G/messages" "{\"message\": $M, \"sender\": $A}"
check "seed: sending the same message again → 200 created false, same version" "200 false 3 $v_sent" \
  "$HTTP_STATUS $(jget .created) $(jget .eligible) $(jget .version)"

http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $B}"
check "seed: B reads → 200 already false, read 1 unread 2" "200 false 1 2 1" \
  "$HTTP_STATUS $(jget .already) $(jget .read) $(jget .unread) $(jget .member_id)"
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $D}"
check "seed: D reads → read 2 unread 1" "200 false 2 1" "$HTTP_STATUS $(jget .already) $(jget .read) $(jget .unread)"
v_read=$(jget .version)
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $D}"
check "seed: D reads again → 200 already true, counts and version unchanged" "200 true 2 1 $v_read" \
  "$HTTP_STATUS $(jget .already) $(jget .read) $(jget .unread) $(jget .version)"

http GET "/v1/groups/$G/messages/$M/receipts"
check "seed: receipts default to the unread list: [E]" "200 unread 2 1 3 [$E] null" \
  "$HTTP_STATUS $(jget .list) $(jget .read) $(jget .unread) $(jget .eligible) $(jget .users) $(jget .next_cursor)"
check "seed: receipts ETag is the row version" "\"$v_read\" $v_read" "$HTTP_ETAG $(jget .version)"
http GET "/v1/groups/$G/messages/$M/receipts?list=read"
check "seed: read list [B,D] (neither A the sender nor C who had left)" "200 [$B,$D]" "$HTTP_STATUS $(jget .users)"
http GET "/v1/groups/$G/messages/$M/receipts?list=unread&limit=5"
check "seed: unread list [E]" "[$E]" "$(jget .users)"

http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $C}"
expect_error "seed: C (had left when sent) marks read" 409 not_member_at_send
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $A}"
expect_error "seed: A (the sender) marks read" 409 not_member_at_send

http POST "/v1/groups/$G/members" "{\"user\": $C}"
check "seed: C rejoins → 200, the old id 2 back" "200 2 rejoined" "$HTTP_STATUS $(jget .member_id) $(jget .result)"
http GET "/v1/groups/$G/members/$C"
check "seed: C is a member again, left_at cleared" "true null" "$(jget .member) $(jget .left_at)"
http POST "/v1/groups/$G/members" "{\"user\": $F}"
check "seed: F joins after the message → 201, id 5 (ids are never reused)" "201 5" "$HTTP_STATUS $(jget .member_id)"
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $F}"
expect_error "seed: F (joined after the message) marks read" 409 not_member_at_send
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $C}"
expect_error "seed: C after rejoining still was not a member at send time" 409 not_member_at_send
http GET "/v1/groups/$G/messages/$M/receipts"
check "seed: the rejected marks changed nothing" "2 1 $v_read" "$(jget .read) $(jget .unread) $(jget .version)"

M2=$(id 101)
http POST "/v1/groups/$G/messages" "{\"message\": $M2, \"sender\": $B}"
check "seed: a message after the rejoin counts A C D E F (not B, the sender)" "201 5" "$HTTP_STATUS $(jget .eligible)"
http GET "/v1/groups/$G/messages/$M2/receipts?limit=10"
check "seed: its unread list in member-id order" "[$A,$C,$D,$E,$F]" "$(jget .users)"
http DELETE "/v1/groups/$G/members/$E"
http POST "/v1/groups/$G/messages/$M2/reads" "{\"user\": $E}"
check "seed: E left after the message was sent and may still mark it" "200 false 1" \
  "$HTTP_STATUS $(jget .already) $(jget .read)"

# --- the psql views agree with the API -------------------------------------------------------------
http GET "/v1/groups/$G/messages/$M/receipts"
api="$(jget '"\(.eligible)|\(.read)|\(.unread)"')|$A|$(jget .version)"
check "psql: bitmapd.group_receipts matches the API (eligible|read|unread|sender|version)" "$api" \
  "$(psql_q "SELECT eligible, read, unread, sender_user_id, version FROM bitmapd.group_receipts WHERE group_id = $G AND message_id = $M")"
check "psql: bitmapd.group_receipts_of(g) lists the group's two messages" "$M|3|2
$M2|5|1" \
  "$(psql_q "SELECT message_id, eligible, read FROM bitmapd.group_receipts_of($G) ORDER BY message_id")"
check "psql: the view's types (bigint ids and counts)" "bigint bigint bigint bigint bigint" \
  "$(psql_q "SELECT pg_typeof(group_id) || ' ' || pg_typeof(message_id) || ' ' || pg_typeof(eligible) || ' ' || pg_typeof(read) || ' ' || pg_typeof(unread) FROM bitmapd.group_receipts WHERE group_id = $G AND message_id = $M")"
check "psql: bitmapd.group_member_map (member ids, active flags)" "$A|0|t
$B|1|t
$C|2|t
$D|3|t
$E|4|f
$F|5|t" \
  "$(psql_q "SELECT user_id, member_id, active FROM bitmapd.group_member_map WHERE group_id = $G ORDER BY member_id")"
check "psql: the value of group:{g}:msg:{m}, bits 2k eligible, 2k+1 read, 2s+1 the sender" "1,2,3,6,7,8" \
  "$(psql_q "SELECT string_agg(m::text, ',' ORDER BY m) FROM bitmapd.value_of(bitmapd.group_receipt_key($G, $M)) v, bitmapd.members(v.bits) m")"

# --- the member map in SQL ---------------------------------------------------------------------------
GS=$(id 2)
check "sql: group_join gives 0, 1, then the same id to a member, then full at max 2" "0|joined
1|joined
0|member
|full" \
  "$(psql_q "SELECT * FROM bitmapd.group_join($GS, 1, 2); SELECT * FROM bitmapd.group_join($GS, 2, 2);
             SELECT * FROM bitmapd.group_join($GS, 1, 2); SELECT * FROM bitmapd.group_join($GS, 3, 2)")"
check "sql: group_leave marks once, then reports already left; a rejoin at max gets the old id" "1|t
1|f
1|rejoined" \
  "$(psql_q "SELECT * FROM bitmapd.group_leave($GS, 2); SELECT * FROM bitmapd.group_leave($GS, 2);
             SELECT * FROM bitmapd.group_join($GS, 2, 2)")"
check "sql: group_leave of a never-member returns no row" "0" \
  "$(psql_q "SELECT count(*) FROM bitmapd.group_leave($GS, 99)")"
check "sql: the counter is the next free id" "2" \
  "$(psql_q "SELECT next_member_id FROM bitmapd.group_counters WHERE group_id = $GS")"

# --- errors: ids, bodies, query parameters ---------------------------------------------------------------
for bad in abc -1 1.5 9223372036854775808 0x10 "%201"; do
  http POST "/v1/groups/$bad/members" "{\"user\": 1}"
  expect_error "group id '$bad'" 400 invalid_id
done
http GET "/v1/groups/9223372036854775807/members/$(id 99)"
expect_error "the largest group id is valid (user never a member)" 404 member_not_found
http GET "/v1/groups/$G/members/9223372036854775807"
expect_error "the largest user id is valid (never a member)" 404 member_not_found
http GET "/v1/groups/$G/members/x1"
expect_error "GET member: bad user id" 400 invalid_id
http DELETE "/v1/groups/$G/members/-5"
expect_error "DELETE member: bad user id" 400 invalid_id
for body in '{"user": "1"}' '{"user": -1}' '{"user": 1.5}' '{"user": null}' '{"user": [1]}'; do
  http POST "/v1/groups/$G/members" "$body"
  expect_error "join with $body" 400 invalid_id
done
# jansson refuses integers past 2^63-1 while parsing, before any field is looked at
http POST "/v1/groups/$G/members" '{"user": 9223372036854775808}'
expect_error "join with user 2^63" 400 invalid_json
http POST "/v1/groups/$G/members" '{}'
expect_error "join without user" 400 invalid_body
http POST "/v1/groups/$G/members" '{"user": 1, "role": "admin"}'
expect_error "join with an unknown field" 400 invalid_body
http POST "/v1/groups/$G/members" ''
expect_error "join without a body" 400 invalid_json
http POST "/v1/groups/$G/members" '{"user": 1'
expect_error "join with malformed JSON" 400 invalid_json
http POST "/v1/groups/$G/members" '[1]'
expect_error "join with a non-object body" 400 invalid_json
http GET "/v1/groups/$G/members/$A?verbose=1"
expect_error "GET member with an unknown query parameter" 400 invalid_parameter
http DELETE "/v1/groups/$G/members/$A?force=1"
expect_error "DELETE member with an unknown query parameter" 400 invalid_parameter
http PUT "/v1/groups/$G/members" '{"user": 1}'
expect_error "PUT on members" 405 method_not_allowed
check_match "405 names the allowed method" 'Allow: POST' "$HTTP_HEADERS"
http GET "/v1/groups/$G/messages"
expect_error "GET on messages" 405 method_not_allowed
http GET "/v1/groups/$G/messages/$M/reads"
expect_error "GET on reads" 405 method_not_allowed
http GET "/v1/groups/$G/nothing"
expect_error "an unknown group path" 404 not_found

http POST "/v1/groups/$G/messages" "{\"message\": $M}"
expect_error "send without sender" 400 invalid_body
http POST "/v1/groups/$G/messages" "{\"sender\": $A}"
expect_error "send without message" 400 invalid_body
http POST "/v1/groups/$G/messages" "{\"message\": -1, \"sender\": $A}"
expect_error "send with a negative message id" 400 invalid_id
http POST "/v1/groups/$G/messages" "{\"message\": \"7\", \"sender\": $A}"
expect_error "send with a string message id" 400 invalid_id
http POST "/v1/groups/$G/messages" "{\"message\": 7, \"sender\": $A, \"text\": \"hi\"}"
expect_error "send with an unknown field" 400 invalid_body
http POST "/v1/groups/$(id 3)/messages" "{\"message\": 7, \"sender\": $A}"
expect_error "send to a group nobody ever joined" 404 group_not_found
http POST "/v1/groups/$G/messages" "{\"message\": $(id 102), \"sender\": $(id 99)}"
expect_error "send by a user who was never a member" 409 not_member
http POST "/v1/groups/$G/messages" "{\"message\": $(id 102), \"sender\": $E}"
expect_error "send by a member who has left" 409 not_member
http POST "/v1/groups/$G/messages" "{\"message\": $M, \"sender\": $D}"
expect_error "send of a recorded message with another sender" 409 message_exists
http GET "/v1/groups/$G/messages/$(id 102)/receipts"
expect_error "a rejected send records nothing" 404 message_not_found

http POST "/v1/groups/$G/messages/1x/reads" "{\"user\": $B}"
expect_error "read: bad message id" 400 invalid_id
http POST "/v1/groups/$G/messages/9223372036854775808/reads" "{\"user\": $B}"
expect_error "read: message id past 2^63-1" 400 invalid_id
http POST "/v1/groups/$G/messages/$M/reads" '{}'
expect_error "read without user" 400 invalid_body
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $B, \"at\": 1}"
expect_error "read with an unknown field" 400 invalid_body
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": true}"
expect_error "read with a boolean user" 400 invalid_id
http POST "/v1/groups/$G/messages/$(id 103)/reads" "{\"user\": $B}"
expect_error "read of a message never recorded" 404 message_not_found
http POST "/v1/groups/$(id 4)/messages/$M/reads" "{\"user\": $B}"
expect_error "read in a group that does not exist" 404 message_not_found
http POST "/v1/groups/$G/messages/$M/reads" "{\"user\": $(id 99)}"
expect_error "read by a user who was never a member" 409 not_member_at_send
check "a read of an unknown message creates no row" "0" \
  "$(psql_q "SELECT count(*) FROM bitmapd.value_of(bitmapd.group_receipt_key($G, $(id 103)))")"

http GET "/v1/groups/$G/messages/$M/receipts?list=bogus"
expect_error "receipts: list=bogus" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?limit=0"
expect_error "receipts: limit 0" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?limit=1001"
expect_error "receipts: limit above max_page_limit" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?limit=x"
expect_error "receipts: limit not a number" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?cursor=-1"
expect_error "receipts: negative cursor" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?cursor=2147483648"
expect_error "receipts: cursor past the largest member id" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?page=2"
expect_error "receipts: unknown query parameter" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$M/receipts?list=read&list=unread"
expect_error "receipts: list given twice" 400 invalid_parameter
http GET "/v1/groups/$G/messages/$(id 103)/receipts"
expect_error "receipts of a message never recorded" 404 message_not_found
http GET "/v1/groups/$(id 4)/messages/$M/receipts"
expect_error "receipts in a group that does not exist" 404 message_not_found
http GET "/v1/groups/$G/messages/$M/receipts?cursor=2147483647"
check "receipts: a cursor at the end → an empty page, counts still there" "200 [] null 2" \
  "$HTTP_STATUS $(jget .users) $(jget .next_cursor) $(jget .read)"

# the largest ids: group, user and message 2^63-1
http POST "/v1/groups/9223372036854775807/members" '{"user": 9223372036854775807}'
check "largest ids: join group 2^63-1 as user 2^63-1" 1 \
  "$(grep -c '"group":9223372036854775807,"user":9223372036854775807' <<<"$HTTP_BODY")"
http POST "/v1/groups/9223372036854775807/messages" '{"message": 9223372036854775807, "sender": 9223372036854775807}'
check "largest ids: message 2^63-1 recorded (sender alone: eligible 0)" "1 0" \
  "$(grep -c '"message":9223372036854775807' <<<"$HTTP_BODY") $(jget .eligible)"
http GET "/v1/groups/9223372036854775807/messages/9223372036854775807/receipts"
check "largest ids: its receipts are 0 read, 0 unread" "200 0 0 []" \
  "$HTTP_STATUS $(jget .read) $(jget .unread) $(jget .users)"

# --- If-Match on the receipts row ----------------------------------------------------------------------
http GET "/v1/groups/$G/messages/$M2/receipts"
etag=$HTTP_ETAG
v=$(jget .version)
http POST "/v1/groups/$G/messages/$M2/reads" "{\"user\": $D}" -H "If-Match: \"$((v + 7))\""
expect_error "read with a stale If-Match" 412 precondition_failed
http GET "/v1/groups/$G/messages/$M2/receipts"
check "a 412 changed nothing" "$etag 1" "$HTTP_ETAG $(jget .read)"
http POST "/v1/groups/$G/messages/$M2/reads" "{\"user\": $D}" -H "If-Match: $etag"
check "read with the current If-Match → 200, version + 1" "200 2 \"$((v + 1))\"" \
  "$HTTP_STATUS $(jget .read) $HTTP_ETAG"
http POST "/v1/groups/$G/messages/$M2/reads" "{\"user\": $D}" -H 'If-Match: nonsense'
expect_error "a malformed If-Match" 400 invalid_header
http POST "/v1/groups/$G/messages" "{\"message\": $(id 104), \"sender\": $A}" -H 'If-Match: "5"'
expect_error "send of a new message with If-Match other than 0" 412 precondition_failed
http POST "/v1/groups/$G/messages" "{\"message\": $(id 104), \"sender\": $A}" -H 'If-Match: "0"'
check "send of a new message with If-Match 0 → 201" "201 true" "$HTTP_STATUS $(jget .created)"

# --- 250 members: cursor paging in pages of 100 --------------------------------------------------------
GP=$(id 5)
SENDER=$(id 1000)
join "$GP" "$SENDER" >/dev/null
for i in $(seq 1 250); do join "$GP" "$(id $((1000 + i)))"; done >"$T/joins250"
check "paging: 250 more members get ids 1..250" "$(seq 1 250 | tr '\n' ' ')" "$(tr '\n' ' ' <"$T/joins250")"
MP=$(id 200)
http POST "/v1/groups/$GP/messages" "{\"message\": $MP, \"sender\": $SENDER}"
check "paging: the message counts 250 eligible" "201 250" "$HTTP_STATUS $(jget .eligible)"
walk_list "$GP" "$MP" unread 100 >"$T/pages"
check "paging: unread pages of 100, 100, 50" "100 100 50" "$(cut -d' ' -f1 "$T/pages" | tr '\n' ' ' | sed 's/ $//')"
check "paging: the pages list every member once, in join order" "$(for i in $(seq 1 250); do id $((1000 + i)); done | tr '\n' ' ')" \
  "$(cut -d' ' -f2- "$T/pages" | tr '\n' ' ')"
http GET "/v1/groups/$GP/messages/$MP/receipts?limit=100"
check "paging: the first page's next_cursor is its last member id" "100" "$(jget .next_cursor)"
http GET "/v1/groups/$GP/messages/$MP/receipts?limit=100&cursor=200"
check "paging: cursor=200 → the last 50, next_cursor null" "50 null" "$(jget '.users | length') $(jget .next_cursor)"
http GET "/v1/groups/$GP/messages/$MP/receipts?limit=50&cursor=200"
check "paging: a page that ends exactly at the last member says null" "50 null" "$(jget '.users | length') $(jget .next_cursor)"

# --- concurrency: 50 members mark one message at once ------------------------------------------------------
pids=()
for i in $(seq 1 50); do
  curl -s -o "$T/par.$i" -w '%{http_code}\n' --max-time 60 -X POST -H 'Content-Type: application/json' \
    --data "{\"user\": $(id $((1000 + i)))}" "$MAIN_URL/v1/groups/$GP/messages/$MP/reads" >"$T/par.code.$i" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
check "concurrency: 50 parallel marks by different members all 200" 50 "$(cat "$T"/par.code.* | grep -c '^200$')"
check "concurrency: each of them was new (already false)" 50 "$(cat "$T"/par.[0-9]* | jq -r .already | grep -c '^false$')"
http GET "/v1/groups/$GP/messages/$MP/receipts?list=read&limit=1000"
check "concurrency: read = 50, unread = 200" "50 200" "$(jget .read) $(jget .unread)"
check "concurrency: the read list is exactly those 50" "$(for i in $(seq 1 50); do id $((1000 + i)); done | tr '\n' ' ')" \
  "$(jget '.users[]' | tr '\n' ' ')"

U100=$(id 1100)
pids=()
for i in $(seq 1 10); do
  curl -s -o "$T/same.$i" --max-time 60 -X POST -H 'Content-Type: application/json' \
    --data "{\"user\": $U100}" "$MAIN_URL/v1/groups/$GP/messages/$MP/reads" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
check "concurrency: 10 parallel marks by one member → exactly one already=false" "1 9" \
  "$(cat "$T"/same.* | jq -r .already | grep -c '^false$') $(cat "$T"/same.* | jq -r .already | grep -c '^true$')"
http GET "/v1/groups/$GP/messages/$MP/receipts"
check "concurrency: read = 51 after the same-member marks" 51 "$(jget .read)"

GJ=$(id 6)
pids=()
for i in $(seq 1 20); do
  curl -s -o "$T/join.$i" --max-time 60 -X POST -H 'Content-Type: application/json' \
    --data "{\"user\": $(id $((2000 + i)))}" "$MAIN_URL/v1/groups/$GJ/members" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
check "concurrency: 20 parallel first joins of a new group → ids 0..19, each once" "$(seq 0 19 | tr '\n' ' ')" \
  "$(cat "$T"/join.* | jq -r .member_id | sort -n | tr '\n' ' ')"
check "concurrency: all 20 were new members (201 results 'joined')" 20 "$(cat "$T"/join.* | jq -r .result | grep -c '^joined$')"
check "concurrency: the map and the counter agree" "20|20|0|19" \
  "$(psql_q "SELECT count(*), (SELECT next_member_id FROM bitmapd.group_counters WHERE group_id = $GJ), min(member_id), max(member_id) FROM bitmapd.group_members WHERE group_id = $GJ")"

# --- a second service: group_full, and marks from two instances on one message --------------------------------
if start_service --set groups.max_members=3; then
  SECOND_URL=$BASE_URL
  SECOND_PORT=$PORT
  GF=$(id 7)
  check "group_full: max_members=3 gives ids 0, 1, 2" "0 1 2" \
    "$(join "$GF" "$(id 3001)") $(join "$GF" "$(id 3002)") $(join "$GF" "$(id 3003)")"
  http POST "/v1/groups/$GF/members" "{\"user\": $(id 3004)}"
  expect_error "group_full: a fourth member" 409 group_full
  http DELETE "/v1/groups/$GF/members/$(id 3002)"
  http POST "/v1/groups/$GF/members" "{\"user\": $(id 3004)}"
  expect_error "group_full: a leave does not free an id" 409 group_full
  http POST "/v1/groups/$GF/members" "{\"user\": $(id 3002)}"
  check "group_full: a rejoin still gets its old id" "200 1 rejoined" "$HTTP_STATUS $(jget .member_id) $(jget .result)"

  pids=()
  for i in $(seq 51 90); do
    url=$MAIN_URL
    ((i % 2)) && url=$SECOND_URL
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X POST -H 'Content-Type: application/json' \
      --data "{\"user\": $(id $((1000 + i)))}" "$url/v1/groups/$GP/messages/$MP/reads" >"$T/two.$i" 2>/dev/null &
    pids+=($!)
  done
  wait "${pids[@]}" 2>/dev/null
  check "two instances: 40 parallel marks all 200" 40 "$(cat "$T"/two.* | grep -c '^200$')"
  http GET "/v1/groups/$GP/messages/$MP/receipts"
  check "two instances: the second sees read = 91" 91 "$(jget .read)"
  stop_service "$SECOND_PORT"
  use_main
fi
http GET "/v1/groups/$GP/messages/$MP/receipts?list=read&limit=1000"
check "two instances: read 91, unread 159, and the read list has 91 distinct users" "91 159 91" \
  "$(jget .read) $(jget .unread) $(jget '.users | unique | length')"

# --- clients that leave mid-request -------------------------------------------------------------------------
pids=()
for i in $(seq 1 20); do
  curl -s -o /dev/null --max-time 0.00$((i % 9 + 1)) -X POST -H 'Content-Type: application/json' \
    --data "{\"user\": $(id $((1100 + i)))}" "$MAIN_URL/v1/groups/$GP/messages/$MP/reads" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
http GET "/healthz"
check "clients that left: the service still answers" 200 "$HTTP_STATUS"
http GET "/v1/groups/$GP/messages/$MP/receipts"
check_match "clients that left: read is 91 … 111 and read + unread is still 250" '^(9[1-9]|10[0-9]|11[01]) 250$' \
  "$(jget '"\(.read) \(.read + .unread)"')"

# --- storage: 1,000 messages in a 200-member group ------------------------------------------------------------
GST=$(id 8)
for i in $(seq 0 199); do join "$GST" "$(id $((4000 + i)))"; done >/dev/null
check "storage: a 200-member group" 200 \
  "$(psql_q "SELECT count(*) FROM bitmapd.group_members WHERE group_id = $GST AND left_at IS NULL")"
psql_q "VACUUM bitmapd.bitmaps" >/dev/null
size0=$(psql_q "SELECT pg_total_relation_size('bitmapd.bitmaps')")
sent=$(python3 - "$PORT" "$GST" "$(id 4000)" "$(id 10000)" 1000 <<'PY'
import http.client, json, sys
port, group, sender, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
created = 0
for i in range(n):
    conn.request("POST", f"/v1/groups/{group}/messages", json.dumps({"message": base + i, "sender": sender}),
                 {"Content-Type": "application/json"})
    r = conn.getresponse()
    body = json.loads(r.read())
    created += r.status == 201 and body.get("eligible") == 199
print(created)
PY
)
check "storage: 1,000 messages recorded, 199 eligible each" 1000 "$sent"
psql_q "VACUUM bitmapd.bitmaps" >/dev/null
size1=$(psql_q "SELECT pg_total_relation_size('bitmapd.bitmaps')")
# The same 1,000 rows packed into a fresh table with the same columns and indexes:
# the steady-state cost of a message (heap tuple, TOAST, both index entries).
packed=$(psql_q "CREATE TEMP TABLE receipts_probe (LIKE bitmapd.bitmaps INCLUDING ALL);
  INSERT INTO receipts_probe SELECT * FROM bitmapd.bitmaps
   WHERE key >= bitmapd.group_receipt_key($GST, 0) AND key < convert_to('group:$GST:msg;', 'UTF8');
  SELECT (SELECT count(*) FROM bitmapd.group_receipts_of($GST)) || ' ' || pg_total_relation_size('receipts_probe') || ' ' || pg_relation_size('receipts_probe')
         || ' ' || (SELECT sum(pg_relation_size(indexrelid)) FROM pg_index WHERE indrelid = 'receipts_probe'::regclass)
    FROM receipts_probe" | tail -n 1)
bits=$(psql_q "SELECT min(bytes) || ' ' || max(bytes) || ' ' || round(avg(octet_length(bitmapd.group_receipt_key(group_id, message_id))), 1) FROM bitmapd.group_receipts_of($GST)")
read -r bits_min bits_max keylen <<<"$bits"
read -r packed_rows packed_size packed_heap packed_idx <<<"$packed"
delta=$((size1 - size0))
echo "# storage of one 200-member message: bits ${bits_min}..${bits_max} bytes (seed: 54), key $keylen bytes;"
echo "#   pg_total_relation_size delta on the live table after 1,000 sends and VACUUM: $delta bytes = $((delta / 1000)) per message"
echo "#   the same rows packed in a fresh table with the same indexes: $packed_size bytes = $((packed_size / 1000)) per message"
echo "#     of which heap $packed_heap and indexes $packed_idx (main forks), the rest free-space map and empty TOAST"
check "storage: every message's bitmap is at most the seed's 54 bytes" yes \
  "$([[ $bits_max =~ ^[0-9]+$ && $bits_max -le 54 ]] && echo yes || echo "no ($bits)")"
check "storage: the probe holds the 1,000 messages" 1000 "$packed_rows"
check "storage: a stored message, row and indexes included, costs less than the seed's naive 1,600 bytes" yes \
  "$([[ $packed_size =~ ^[0-9]+$ ]] && ((packed_size / 1000 < 1600 && packed_size / 1000 > bits_max)) && echo yes || echo "no ($packed_size)")"
check "storage: the live table grew by less than 1,600 bytes per message" yes \
  "$([[ $delta =~ ^-?[0-9]+$ ]] && ((delta / 1000 < 1600)) && echo yes || echo "no ($delta)")"
http GET "/v1/groups/$GST/messages/$(id 10999)/receipts?limit=200"
check "storage: the last message lists its 199 unread members" "199 199" "$(jget .unread) $(jget '.users | length')"

finish
