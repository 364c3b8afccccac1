#!/usr/bin/env bash
# Announcements (seed 004) over HTTP, end to end: a real bitmapd against the real
# PostgreSQL in BITMAPD_DSN, driven with curl, checked also through psql.
#
# Covers every notice route and its errors, the seed's scenario (three platforms,
# several notices, read/unread toggles, counts per (audience, user)), moving a
# notice between audiences, preread, If-Match, delete then reuse of the id, a
# delete interrupted half way (state left as step 1 leaves it, made through RESP)
# and resumed, concurrency (parallel read marks, creates, PUTs + reads + DELETE),
# a listing over 1,000 notices, clients that leave, 503, and storage figures at
# 100,000 users.
#
# Ids come from per-run blocks (notice ids, audience ids and user ids), so reruns
# on the same database do not collide.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
PSQL=(psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1)

# Notice ids: a block of 10^6 inside 0 … 2^32-1. Audience ids: a block of 100
# inside 0 … 65535. User ids: a block of 10^6 inside 0 … 2^32-1.
NB=$(((RANDOM * 32768 + RANDOM) % 4000 * 1000000 + 100000))
AB=$((RANDOM % 300 * 200 + 1000))
UB=$(((RANDOM * 32768 + RANDOM) % 4000 * 1000000 + 100000))
nid() { echo $((NB + $1)); }
aud() { echo $((AB + $1)); }
usr() { echo $((UB + $1)); }
echo "# notice ids $NB + n, audience ids $AB + n, user ids $UB + n"

expect_error() { # NAME STATUS CODE
  check "$1: status" "$2" "$HTTP_STATUS"
  check "$1: error body" "$3 message" \
    "$(jq -r '[.error.code, (.error.message | if type == "string" and length > 0 then "message" else "none" end)] | join(" ")' \
      <<<"$HTTP_BODY" 2>/dev/null || echo "not JSON: ${HTTP_BODY:0:120}")"
}

# counts AUD USER — "read unread" of the listing for (audience, user).
counts() {
  http GET "/v1/audiences/$1/users/$2/notices?state=all&limit=1000"
  echo "$(jget .read) $(jget .unread)"
}
# listed AUD USER STATE — the ids of the listing, newest first, as a JSON array.
listed() {
  http GET "/v1/audiences/$1/users/$2/notices?state=$3&limit=1000"
  jget .notices
}
# is_read NOTICE USER — GET …/reads/USER: "true", "false" or the status.
is_read() {
  http GET "/v1/notices/$1/reads/$2"
  if [[ $HTTP_STATUS == 200 ]]; then jget .read; else echo "$HTTP_STATUS"; fi
}
mark() { # NOTICE USER true|false
  http PUT "/v1/notices/$1/reads/$2" "{\"read\": $3}"
}
# user_has NOTICE USER — "yes" if the user's read bitmap holds the notice (psql).
user_has() {
  "${PSQL[@]}" -c "SELECT CASE WHEN EXISTS (SELECT 1 FROM bitmapd.bitmaps b, bitmapd.members(b.bits) m
                    WHERE b.key = bitmapd.notice_key('user_read', $2) AND m = $1) THEN 'yes' ELSE 'no' END"
}
# pending_of NOTICE — members of notice:{id}:preread (preread users whose read bits are not written yet)
pending_of() {
  "${PSQL[@]}" -c "SELECT coalesce((SELECT cardinality FROM bitmapd.bitmaps WHERE key = convert_to('notice:' || $1 || ':preread', 'UTF8')), 0)"
}
view_row() { # NOTICE — "audiences|state|readers|version" from bitmapd.notices
  "${PSQL[@]}" -c "SELECT audiences::text || '|' || state || '|' || readers || '|' || version
                     FROM bitmapd.notices WHERE id = $1"
}

if ! start_service; then
  finish
fi
MAIN_PORT=$PORT MAIN_URL=$BASE_URL MAIN_PID=$SERVICE_PID MAIN_RPORT=$RPORT
use_main() { PORT=$MAIN_PORT BASE_URL=$MAIN_URL SERVICE_PID=$MAIN_PID RPORT=$MAIN_RPORT; }


# --- the seed: three platforms, several notices, read/unread, counts --------------------------
OPS=$(aud 1) USERS=$(aud 2) CUST=$(aud 3)
N1=$(nid 1) N2=$(nid 2) N3=$(nid 3) N4=$(nid 4)
U1=$(usr 1) U2=$(usr 2)
http POST /v1/notices "{\"id\": $N1, \"audiences\": [$OPS, $USERS, $CUST]}"
check "seed: notice 1 to all three platforms → 201" 201 "$HTTP_STATUS"
check "seed: create answers id, audiences, created" "$N1 [$OPS,$USERS,$CUST] true 0" \
  "$(jget '"\(.id) \(.audiences) \(.created) \(.readers)"')"
check_match "seed: create answers a version" '^[0-9]+$' "$(jget .version)"
check "seed: create ETag is the version" "\"$(jget .version)\"" "$HTTP_ETAG"
http POST /v1/notices "{\"id\": $N2, \"audiences\": [$USERS, $CUST]}"
check "seed: notice 2 to users and customers → 201" 201 "$HTTP_STATUS"
http POST /v1/notices "{\"id\": $N3, \"audiences\": [$OPS]}"
check "seed: notice 3 to operators → 201" 201 "$HTTP_STATUS"
http POST /v1/notices "{\"id\": $N4, \"audiences\": [$USERS]}"
check "seed: notice 4 to users → 201" 201 "$HTTP_STATUS"

check "seed: users/U1 lists 4,2,1 newest first" "[$N4,$N2,$N1]" "$(listed "$USERS" "$U1" all)"
check "seed: users/U1 counts 0 read 3 unread" "0 3" "$(counts "$USERS" "$U1")"
check "seed: operators/U1 lists 3,1" "[$N3,$N1]" "$(listed "$OPS" "$U1" all)"
check "seed: customers/U1 lists 2,1" "[$N2,$N1]" "$(listed "$CUST" "$U1" all)"

mark "$N1" "$U1" true
check "seed: U1 reads notice 1 → 200 changed" "200 $N1 $U1 true true" \
  "$HTTP_STATUS $(jget '"\(.notice) \(.user) \(.read) \(.changed)"')"
mark "$N1" "$U1" true
check "seed: marking read again changes nothing" "200 false" "$HTTP_STATUS $(jget .changed)"
mark "$N4" "$U1" true
check "seed: U1 reads notice 4 → 200" 200 "$HTTP_STATUS"
mark "$N2" "$U2" true
check "seed: U2 reads notice 2 → 200" 200 "$HTTP_STATUS"
check "seed: is-read N1/U1 true" true "$(is_read "$N1" "$U1")"
check "seed: is-read N1/U2 false" false "$(is_read "$N1" "$U2")"
http GET "/v1/notices/$N1/reads/$U2"
check "seed: is-read answers notice and user" "$N1 $U2" "$(jget '"\(.notice) \(.user)"')"
check "seed: users/U1 counts 2 read 1 unread" "2 1" "$(counts "$USERS" "$U1")"
check "seed: operators/U1 counts 1 read 1 unread" "1 1" "$(counts "$OPS" "$U1")"
check "seed: customers/U1 counts 1 read 1 unread" "1 1" "$(counts "$CUST" "$U1")"
check "seed: users/U2 counts 1 read 2 unread" "1 2" "$(counts "$USERS" "$U2")"
check "seed: operators/U2 counts 0 read 2 unread" "0 2" "$(counts "$OPS" "$U2")"
check "seed: users/U1 unread list is [2]" "[$N2]" "$(listed "$USERS" "$U1" unread)"
check "seed: users/U1 read list is [4,1]" "[$N4,$N1]" "$(listed "$USERS" "$U1" read)"
http GET "/v1/audiences/$USERS/users/$U1/notices?state=read"
check "seed: the listing names audience, user and state" "$USERS $U1 read null" \
  "$(jget '"\(.audience) \(.user) \(.state) \(.next_before)"')"
http GET "/v1/audiences/$USERS/users/$U1/notices"
check "seed: state defaults to all" "all [$N4,$N2,$N1]" "$(jget .state) $(jget .notices)"

mark "$N1" "$U1" false
check "seed: U1 marks notice 1 unread → changed" "200 false true" "$HTTP_STATUS $(jget .read) $(jget .changed)"
mark "$N1" "$U1" false
check "seed: marking unread again changes nothing" "200 false" "$HTTP_STATUS $(jget .changed)"
check "seed: is-read N1/U1 false after the toggle" false "$(is_read "$N1" "$U1")"
check "seed: users/U1 counts 1 read 2 unread after the toggle" "1 2" "$(counts "$USERS" "$U1")"
check "seed: operators/U1 counts 0 read 2 unread after the toggle" "0 2" "$(counts "$OPS" "$U1")"
check "seed: an audience with no notice counts 0 0" "0 0" "$(counts "$(aud 99)" "$U1")"
check "psql: bitmapd.notice_unread(users, U1) agrees" 2 "$("${PSQL[@]}" -c "SELECT bitmapd.notice_unread($USERS, $U1)")"
check "psql: bitmapd.notice_list(users, U1) agrees" "$N4|true,$N2|false,$N1|false" \
  "$("${PSQL[@]}" -c "SELECT string_agg(notice_id || '|' || read, ',') FROM bitmapd.notice_list($USERS, $U1)")"

# paging: limit and the before cursor
http GET "/v1/audiences/$USERS/users/$U2/notices?limit=2"
check "paging: limit=2 → [4,2], next_before 2" "[$N4,$N2] $N2" "$(jget .notices) $(jget .next_before)"
check "paging: counts cover the whole audience" "1 2" "$(jget '"\(.read) \(.unread)"')"
http GET "/v1/audiences/$USERS/users/$U2/notices?limit=2&before=$N2"
check "paging: before=2 → [1], next_before null" "[$N1] null" "$(jget .notices) $(jget .next_before)"
http GET "/v1/audiences/$USERS/users/$U2/notices?state=unread&before=4294967296"
check "paging: before=2^32 starts at the newest" "[$N4,$N1]" "$(jget .notices)"
http GET "/v1/audiences/$USERS/users/$U2/notices?before=0"
check "paging: before=0 is empty" "[] null" "$(jget .notices) $(jget .next_before)"

# stats and the view
http GET "/v1/notices/$N2/stats"
check "stats: notice 2 has 1 reader, sizes unknown" "200 $N2 [$USERS,$CUST] 1 null null" \
  "$HTTP_STATUS $(jget '"\(.id) \(.audiences) \(.readers) \(.audience_size) \(.unread)"')"
v2=$(jget .version)
check "stats: ETag is the version" "\"$v2\"" "$HTTP_ETAG"
check "psql: bitmapd.notices row of notice 2" "{$USERS,$CUST}|live|1|$v2" "$(view_row "$N2")"

# --- audience users: sizes "where known" --------------------------------------------------------
http PUT "/v1/audiences/$USERS/users" "{\"users\": [$U1, $U2, $(usr 3), $(usr 4)]}"
check "audience users: PUT 4 users → 200" "200 $USERS 4 true" "$HTTP_STATUS $(jget '"\(.audience) \(.users) \(.changed)"')"
http GET "/v1/notices/$N2/stats"
check "stats: one of two audiences unknown → null size" "null null" "$(jget .audience_size) $(jget .unread)"
http POST "/v1/audiences/$CUST/users" "{\"users\": [$U2, $(usr 5)]}"
check "audience users: POST adds 2 → 200" "200 2 true" "$HTTP_STATUS $(jget .users) $(jget .changed)"
http GET "/v1/notices/$N2/stats"
check "stats: union of users 5, 4 unread (U2 read)" "5 4 1" "$(jget .audience_size) $(jget .unread) $(jget .readers)"
http POST "/v1/audiences/$CUST/users" "{\"users\": [$(usr 5), $(usr 6)]}"
check "audience users: POST adds 1 new of 2" "3 true" "$(jget .users) $(jget .changed)"
http POST "/v1/audiences/$CUST/users" "{\"users\": [$(usr 5)]}"
check "audience users: POST of a member changes nothing" "3 false" "$(jget .users) $(jget .changed)"
http PUT "/v1/audiences/$CUST/users" "{\"users\": [$(usr 7)]}"
check "audience users: PUT replaces" "1 true" "$(jget .users) $(jget .changed)"
http PUT "/v1/audiences/$CUST/users" "{\"users\": [$(usr 7)]}"
check "audience users: PUT of the same set changes nothing" "1 false" "$(jget .users) $(jget .changed)"
http GET "/v1/notices/$N2/stats"
check "stats: union after the replace is 5, all unread but U2" "5 4" "$(jget .audience_size) $(jget .unread)"
A0=$(aud 50)
http PUT "/v1/audiences/$A0/users" '{"users": []}'
check "audience users: PUT [] makes a known empty audience" "200 0" "$HTTP_STATUS $(jget .users)"
http POST /v1/notices "{\"id\": $(nid 50), \"audiences\": [$A0]}"
http GET "/v1/notices/$(nid 50)/stats"
check "stats: a known empty audience has size 0, not null" "0 0" "$(jget .audience_size) $(jget .unread)"

# --- create: idempotency, conflicts, preread ----------------------------------------------------
P=$(nid 5)
http POST /v1/notices "{\"id\": $P, \"audiences\": [$USERS, $OPS], \"preread\": [$U1, $U2, $U1]}"
check "preread: create with 2 preread users → 201" "201 true 2 2" \
  "$HTTP_STATUS $(jget .created) $(jget .readers) $(jget .preread)"
check "preread: U1 has read it" true "$(is_read "$P" "$U1")"
check "preread: U2 has read it" true "$(is_read "$P" "$U2")"
check "preread: U3 has not" false "$(is_read "$P" "$(usr 3)")"
http GET "/v1/audiences/$USERS/users/$U2/notices"
check "preread: users/U2 listing counts it read" "[$P,$N4,$N2,$N1] 2 2" \
  "$(jget .notices) $(jget .read) $(jget .unread)"
check "preread: U1's read bitmap holds it (psql)" yes "$(user_has "$P" "$U1")"
http POST /v1/notices "{\"id\": $P, \"audiences\": [$OPS, $USERS]}"
check "create again, same audiences (any order) → 200 created false" "200 false 2" \
  "$HTTP_STATUS $(jget .created) $(jget .readers)"
http POST /v1/notices "{\"id\": $P, \"audiences\": [$OPS, $USERS], \"preread\": [$(usr 3)]}"
check "create again with a new preread user adds the reader" "200 false 3" \
  "$HTTP_STATUS $(jget .created) $(jget .readers)"
check "preread on retry: U3 has read it" true "$(is_read "$P" "$(usr 3)")"
http POST /v1/notices "{\"id\": $P, \"audiences\": [$OPS]}"
expect_error "create an existing id with other audiences" 409 notice_exists
http GET "/v1/notices/$P/stats"
check "the refused create changed nothing" "[$OPS,$USERS] 3" "$(jget .audiences) $(jget .readers)"

# 64 audiences is the most; duplicates count once
many=$(seq -s, "$(aud 120)" "$(aud 183)")
http POST /v1/notices "{\"id\": $(nid 6), \"audiences\": [$many]}"
check "64 distinct audiences → 201" "201 64" "$HTTP_STATUS $(jget '.audiences | length')"
http POST /v1/notices "{\"id\": $(nid 7), \"audiences\": [$(aud 9), $(aud 9)]}"
check "a duplicated audience counts once → 201" "201 [$(aud 9)]" "$HTTP_STATUS $(jget .audiences)"
http POST /v1/notices "{\"id\": 4294967295, \"audiences\": [$(aud 9)]}"
check "notice id 4294967295 is valid" "201 4294967295" "$HTTP_STATUS $(jget .id)"
check "the listing shows notice 4294967295 first" "[4294967295,$(nid 7)]" "$(listed "$(aud 9)" 0 all)"
mark 4294967295 4294967295 true
check "user id 4294967295 is valid" "200 true" "$HTTP_STATUS $(jget .read)"
http POST /v1/notices '{"id": 0, "audiences": [0, 65535]}'
check "notice 0 with audiences 0 and 65535 → 201" "201 [0,65535]" "$HTTP_STATUS $(jget .audiences)"
http DELETE /v1/notices/4294967295
check "notice 4294967295 deleted (its id is shared by every run)" "200 1" "$HTTP_STATUS $(jget .read_records)"
http DELETE /v1/notices/0
check "notice 0 deleted (its id is shared by every run)" 200 "$HTTP_STATUS"

# --- PUT audiences: moving a notice ---------------------------------------------------------------
M=$(nid 8)
http POST /v1/notices "{\"id\": $M, \"audiences\": [$USERS]}"
mark "$M" "$U1" true
http PUT "/v1/notices/$M" "{\"audiences\": [$CUST]}"
check "move: users → customers → 200 changed" "200 [$CUST] [$USERS] true" \
  "$HTTP_STATUS $(jget .audiences) $(jget .previous) $(jget .changed)"
vm=$(jget .version)
check "move: ETag is the version" "\"$vm\"" "$HTTP_ETAG"
check "move: gone from the users listing" false \
  "$(listed "$USERS" "$U1" all | jq --argjson m "$M" 'index($m) != null')"
check "move: in the customers listing" true \
  "$(listed "$CUST" "$U1" all | jq --argjson m "$M" 'index($m) != null')"
check "move: U1's read mark follows the notice" true \
  "$(listed "$CUST" "$U1" read | jq --argjson m "$M" 'index($m) != null')"
http PUT "/v1/notices/$M" "{\"audiences\": [$CUST]}"
check "move: the same audiences again → changed false, same version" "200 false $vm" \
  "$HTTP_STATUS $(jget .changed) $(jget .version)"
http PUT "/v1/notices/$M" "{\"audiences\": [$OPS, $CUST]}" -H "If-Match: \"$((vm + 5))\""
expect_error "move with a stale If-Match" 412 precondition_failed
http PUT "/v1/notices/$M" "{\"audiences\": [$OPS, $CUST]}" -H "If-Match: \"$vm\""
check "move with the current If-Match → 200" "200 [$OPS,$CUST]" "$HTTP_STATUS $(jget .audiences)"
http PUT "/v1/notices/$M" "{\"audiences\": [$OPS]}" -H "If-Match: nonsense"
expect_error "a malformed If-Match" 400 invalid_header
check "psql: the view shows the moved notice" "{$OPS,$CUST}|live|1|$((vm + 1))" "$(view_row "$M")"

# --- delete, then reuse of the id ----------------------------------------------------------------
D=$(nid 9)
http POST /v1/notices "{\"id\": $D, \"audiences\": [$USERS, $CUST], \"preread\": [$U1]}"
mark "$D" "$U2" true
http DELETE "/v1/notices/$D"
check "delete: 200 with 2 read records" "200 $D true 2" "$HTTP_STATUS $(jget '"\(.id) \(.deleted) \(.read_records)"')"
http DELETE "/v1/notices/$D"
expect_error "delete again" 404 not_found
check "delete: not listed for users" false "$(listed "$USERS" "$U1" all | jq --argjson d "$D" 'index($d) != null')"
check "delete: not listed for customers" false "$(listed "$CUST" "$U2" all | jq --argjson d "$D" 'index($d) != null')"
check "delete: is-read → 404" 404 "$(is_read "$D" "$U1")"
http GET "/v1/notices/$D/stats"
expect_error "delete: stats" 404 not_found
mark "$D" "$U1" true
expect_error "delete: a read mark on a deleted notice" 404 not_found
http PUT "/v1/notices/$D" "{\"audiences\": [$OPS]}"
expect_error "delete: PUT audiences of a deleted notice" 404 not_found
check "delete: U1's read bitmap lost the id (psql)" no "$(user_has "$D" "$U1")"
check "delete: U2's read bitmap lost the id (psql)" no "$(user_has "$D" "$U2")"
check "delete: no row in bitmapd.notices" "" "$(view_row "$D")"
http POST /v1/notices "{\"id\": $D, \"audiences\": [$OPS]}"
check "reuse: the id is created again → 201 with no reader" "201 true 0" \
  "$HTTP_STATUS $(jget .created) $(jget .readers)"
check "reuse: U1 has not read the new notice" false "$(is_read "$D" "$U1")"
check "reuse: operators/U2 lists it unread" true \
  "$(listed "$OPS" "$U2" unread | jq --argjson d "$D" 'index($d) != null')"

# --- is-read answers what the listing answers: from the user's read bitmap ------------------------
# The two rows can disagree while a preread is unfinished (readers first, read
# bits after) or after a repair by hand; the state is made here through RESP.
IR=$(nid 14) IU1=$(usr 610) IU2=$(usr 611)
http POST /v1/notices "{\"id\": $IR, \"audiences\": [$OPS]}"
rcli SETBIT "notice:$IR:readers" "$IU1" 1 >/dev/null        # a reader without the read bit
rcli SETBIT "notice:user:$IU2:read" "$IR" 1 >/dev/null      # a read bit without the reader
in_read_list() { listed "$OPS" "$1" read | jq --argjson n "$IR" 'index($n) != null'; }
check "is-read: a reader without the read bit is unread, like the listing" "false false" \
  "$(is_read "$IR" "$IU1") $(in_read_list "$IU1")"
check "is-read: a read bit without the reader is read, like the listing" "true true" \
  "$(is_read "$IR" "$IU2") $(in_read_list "$IU2")"
rcli SETBIT "notice:user:$IU2:read" "$IR" 0 >/dev/null
http DELETE "/v1/notices/$IR"
check "is-read: the notice of that scenario deleted" 200 "$HTTP_STATUS"

# --- a delete interrupted after step 1, resumed ---------------------------------------------------
# Step 1 leaves notice:{id}:audiences = {4294967295} and the id out of the index.
# That state is made here through RESP (the same rows) to stand for a crash.
R=$(nid 10)
http POST /v1/notices "{\"id\": $R, \"audiences\": [$USERS], \"preread\": [$U1, $U2]}"
rcli R.SETINTARRAY "notice:$R:audiences" 4294967295 >/dev/null
rcli SETBIT "notice:audience:$USERS" "$R" 0 >/dev/null
check "interrupted: the view says deleting" "{}|deleting|2" "$("${PSQL[@]}" -c "SELECT audiences::text || '|' || state || '|' || readers FROM bitmapd.notices WHERE id = $R")"
http POST /v1/notices "{\"id\": $R, \"audiences\": [$USERS]}"
expect_error "interrupted: create while deleting" 409 notice_deleting
http PUT "/v1/notices/$R" "{\"audiences\": [$OPS]}"
expect_error "interrupted: PUT audiences while deleting" 409 notice_deleting
mark "$R" "$U1" false
expect_error "interrupted: a read mark while deleting" 404 not_found
check "interrupted: is-read while deleting → 404" 404 "$(is_read "$R" "$U1")"
http GET "/v1/notices/$R/stats"
expect_error "interrupted: stats while deleting" 404 not_found
check "interrupted: U1's bit is still there before the resume" yes "$(user_has "$R" "$U1")"
http DELETE "/v1/notices/$R"
check "interrupted: DELETE resumes and finishes → 200, 2 read records" "200 2" "$HTTP_STATUS $(jget .read_records)"
check "interrupted: U1's bit is gone" no "$(user_has "$R" "$U1")"
check "interrupted: U2's bit is gone" no "$(user_has "$R" "$U2")"
check "interrupted: no row in the view" "" "$(view_row "$R")"

# --- a resumed delete whose reader list went stale: two deletes, then a re-create ------------------
# The id is left "deleting" (through RESP, as above) with readers {SU1, SU2}. DELETE
# Y, on a second instance, reads those readers and then waits to unmark them;
# meanwhile DELETE X, on the main instance, finishes the delete, and the id is
# created again with SU1 preread. When Y goes on, it must not take the new notice's
# read mark from SU1, nor answer that it deleted anything.
# No timing: Y's unmarking waits on the second instance's in-process lock of SU1's
# read key, held by Z, a read mark of another notice SO by SU1 on that instance,
# whose commit waits on a row lock of SO's readers that a psql session holds.
# (SO starts with a reader, SU3, so that its readers row exists to be locked: rows
# are only written when they hold something.)
SR=$(nid 15) SO=$(nid 16) SU1=$(usr 620) SU2=$(usr 621) SU3=$(usr 622)
http POST /v1/notices "{\"id\": $SR, \"audiences\": [$OPS], \"preread\": [$SU1, $SU2]}"
http POST /v1/notices "{\"id\": $SO, \"audiences\": [$OPS], \"preread\": [$SU3]}"
rcli R.SETINTARRAY "notice:$SR:audiences" 4294967295 >/dev/null
rcli SETBIT "notice:audience:$OPS" "$SR" 0 >/dev/null
check "stale delete: the notice is left deleting with 2 readers" "deleting|2" \
  "$("${PSQL[@]}" -c "SELECT state || '|' || readers FROM bitmapd.notices WHERE id = $SR")"
if start_service --set service.log_level=debug --set postgres.query_timeout_ms=120000; then
  SECOND_URL=$BASE_URL SECOND_LOG=$T/bitmapd.$PORT.log
  lock_open "SELECT 1 FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $SO) FOR UPDATE;"
  curl -s -o "$T/stale.z.json" -w '%{http_code}' --max-time 120 -X PUT -H 'Content-Type: application/json' \
    --data '{"read": true}' "$SECOND_URL/v1/notices/$SO/reads/$SU1" >"$T/stale.z.status" 2>/dev/null &
  z_pid=$!
  wait_for "Z's commit waits on the psql session" waiting_on_lock
  curl -s -o "$T/stale.y.json" -w '%{http_code}' --max-time 120 -X DELETE "$SECOND_URL/v1/notices/$SR" \
    >"$T/stale.y.status" 2>/dev/null &
  y_pid=$!
  wait_for "Y read the readers and waits to unmark them" \
    "grep -q 'msg=\"notice step\" notice=$SR from=readers to=unread' '$SECOND_LOG'"
  use_main
  http DELETE "/v1/notices/$SR"
  check "stale delete: X finishes the delete → 200, 2 read records" "200 2" "$HTTP_STATUS $(jget .read_records)"
  http POST /v1/notices "{\"id\": $SR, \"audiences\": [$OPS], \"preread\": [$SU1]}"
  check "stale delete: the id created again with SU1 preread → 201" "201 1" "$HTTP_STATUS $(jget .readers)"
  lock_close
  wait "$z_pid" "$y_pid" 2>/dev/null
  check "stale delete: Z, the mark that held SU1's key, → 200" 200 "$(cat "$T/stale.z.status")"
  check "stale delete: Y, the stale delete, → 404 not_found" "404 not_found" \
    "$(cat "$T/stale.y.status") $(jq -r .error.code "$T/stale.y.json" 2>/dev/null)"
  check "stale delete: SU1's read bitmap still holds the new notice (psql)" yes "$(user_has "$SR" "$SU1")"
  check "stale delete: SU1 has read the new notice" true "$(is_read "$SR" "$SU1")"
  check "stale delete: SU2 has not" false "$(is_read "$SR" "$SU2")"
  check "stale delete: the new notice is live with its 1 reader" "live|1" \
    "$("${PSQL[@]}" -c "SELECT state || '|' || readers FROM bitmapd.notices WHERE id = $SR")"
  stop_service "$(sed -n 's|.*:\([0-9]*\)$|\1|p' <<<"$SECOND_URL")"
fi
use_main

# --- a preread left unfinished: recorded, shown, finished by a repeated POST or a DELETE -------------
# A preread that stops (database connection lost, retries exhausted) leaves users
# among the readers, and in notice:{id}:preread, without their read bit. That
# state is made here through RESP for PU2, PU3, PU4.
PP=$(nid 17) PU1=$(usr 630) PU2=$(usr 631) PU3=$(usr 632) PU4=$(usr 633) PU5=$(usr 634)
http POST /v1/notices "{\"id\": $PP, \"audiences\": [$OPS], \"preread\": [$PU1]}"
check "pending preread: created with 1 preread user, nothing pending" "201 0" "$HTTP_STATUS $(pending_of "$PP")"
for u in "$PU2" "$PU3" "$PU4"; do
  rcli SETBIT "notice:$PP:readers" "$u" 1 >/dev/null
  rcli SETBIT "notice:$PP:preread" "$u" 1 >/dev/null
done
http GET "/v1/notices/$PP/stats"
check "pending preread: stats show 4 readers, 3 pending" "4 3" "$(jget .readers) $(jget .preread_pending)"
check "pending preread: the view shows them" "4|3" \
  "$("${PSQL[@]}" -c "SELECT readers || '|' || preread_pending FROM bitmapd.notices WHERE id = $PP")"
check "pending preread: a pending user has not read it yet (is-read, as the listing)" false "$(is_read "$PP" "$PU2")"
mark "$PP" "$PU3" false
check "pending preread: PU3 marks it unread → 200" 200 "$HTTP_STATUS"
mark "$PP" "$PU4" true
check "pending preread: PU4 marks it read → 200 changed" "200 true" "$HTTP_STATUS $(jget .changed)"
check "pending preread: both marks took their user out of the pending set" 1 "$(pending_of "$PP")"
http POST /v1/notices "{\"id\": $PP, \"audiences\": [$OPS]}"
check "pending preread: a repeated POST → 200 created false" "200 false" "$HTTP_STATUS $(jget .created)"
check "pending preread: the repeated POST finished it (pending, PU2 PU3 PU4 bits)" "0 yes no yes" \
  "$(pending_of "$PP") $(user_has "$PP" "$PU2") $(user_has "$PP" "$PU3") $(user_has "$PP" "$PU4")"
http GET "/v1/notices/$PP/stats"
check "pending preread: stats after: 3 readers, 0 pending" "3 0" "$(jget .readers) $(jget .preread_pending)"
rcli SETBIT "notice:$PP:readers" "$PU5" 1 >/dev/null
rcli SETBIT "notice:$PP:preread" "$PU5" 1 >/dev/null
http DELETE "/v1/notices/$PP"
check "pending preread: DELETE of a notice with a pending user → 200, 4 read records" "200 4" \
  "$HTTP_STATUS $(jget .read_records)"
check "pending preread: the DELETE emptied the pending set" 0 "$(pending_of "$PP")"
check "pending preread: no read bit left" "no no no" \
  "$(user_has "$PP" "$PU1") $(user_has "$PP" "$PU2") $(user_has "$PP" "$PU4")"
http POST /v1/notices "{\"id\": $PP, \"audiences\": [$OPS]}"
http GET "/v1/notices/$PP/stats"
check "pending preread: the id created again has no reader and nothing pending" "0 0" \
  "$(jget .readers) $(jget .preread_pending)"

# --- errors ---------------------------------------------------------------------------------------
http POST /v1/notices
expect_error "create without a body" 400 invalid_json
http POST /v1/notices '{"id": 1, "audiences": [1],}'
expect_error "create with malformed JSON" 400 invalid_json
http POST /v1/notices '[1]'
expect_error "create with a non-object body" 400 invalid_json
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [1], \"colour\": 1}"
expect_error "create with an unknown field" 400 invalid_body
http POST /v1/notices '{"audiences": [1]}'
expect_error "create without id" 400 invalid_body
http POST /v1/notices '{"id": -1, "audiences": [1]}'
expect_error "create with id -1" 400 invalid_id
http POST /v1/notices '{"id": 4294967296, "audiences": [1]}'
expect_error "create with id 2^32" 400 invalid_id
http POST /v1/notices '{"id": "5", "audiences": [1]}'
expect_error "create with id as a string" 400 invalid_id
http POST /v1/notices '{"id": 1.5, "audiences": [1]}'
expect_error "create with a fractional id" 400 invalid_id
http POST /v1/notices "{\"id\": $(nid 11)}"
expect_error "create without audiences" 400 invalid_body
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": []}"
expect_error "create with 0 audiences" 400 invalid_body
too_many=$(seq -s, "$(aud 110)" "$(aud 174)")
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [$too_many]}"
expect_error "create with 65 audiences" 400 invalid_body
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [65536]}"
expect_error "create with audience 65536" 400 invalid_id
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [-1]}"
expect_error "create with audience -1" 400 invalid_id
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": 1}"
expect_error "create with audiences not an array" 400 invalid_body
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [1], \"preread\": [4294967296]}"
expect_error "create with preread user 2^32" 400 invalid_id
http POST /v1/notices "{\"id\": $(nid 11), \"audiences\": [1], \"preread\": {}}"
expect_error "create with preread not an array" 400 invalid_body
http POST "/v1/notices?x=1" "{\"id\": $(nid 11), \"audiences\": [1]}"
expect_error "create with a query parameter" 400 invalid_parameter
http GET "/v1/notices/$(nid 11)/stats"
expect_error "no refused create left a notice" 404 not_found

http PUT /v1/notices/abc '{"audiences": [1]}'
expect_error "PUT /v1/notices/abc" 400 invalid_id
http PUT /v1/notices/4294967296 '{"audiences": [1]}'
expect_error "PUT /v1/notices/2^32" 400 invalid_id
http PUT /v1/notices/+1 '{"audiences": [1]}'
expect_error "PUT /v1/notices/+1" 400 invalid_id
http PUT "/v1/notices/$N1" '{"audiences": [1], "id": 3}'
expect_error "PUT audiences with an unknown field" 400 invalid_body
http PUT "/v1/notices/$N1" '{"audiences": []}'
expect_error "PUT 0 audiences" 400 invalid_body
http PUT "/v1/notices/$N1" "{\"audiences\": [$too_many]}"
expect_error "PUT 65 audiences" 400 invalid_body
http PUT "/v1/notices/$N1" '{"audiences": [65536]}'
expect_error "PUT audience 65536" 400 invalid_id
http PUT "/v1/notices/$N1"
expect_error "PUT without a body" 400 invalid_json
http PUT "/v1/notices/$(nid 12)" '{"audiences": [1]}'
expect_error "PUT audiences of a missing notice" 404 not_found
http DELETE "/v1/notices/$(nid 12)"
expect_error "DELETE a missing notice" 404 not_found
http DELETE /v1/notices/-1
expect_error "DELETE /v1/notices/-1" 400 invalid_id
http DELETE "/v1/notices/$N1?force=1"
expect_error "DELETE with a query parameter" 400 invalid_parameter

mark "$N1" 4294967296 true
expect_error "read mark for user 2^32" 400 invalid_id
mark x "$U1" true
expect_error "read mark for notice x" 400 invalid_id
http PUT "/v1/notices/$N1/reads/$U1" '{}'
expect_error "read mark without read" 400 invalid_body
http PUT "/v1/notices/$N1/reads/$U1" '{"read": "yes"}'
expect_error "read mark with read a string" 400 invalid_body
http PUT "/v1/notices/$N1/reads/$U1" '{"read": true, "at": 1}'
expect_error "read mark with an unknown field" 400 invalid_body
http PUT "/v1/notices/$N1/reads/$U1"
expect_error "read mark without a body" 400 invalid_json
mark "$(nid 12)" "$U1" true
expect_error "read mark on a missing notice" 404 not_found
check "the refused read mark left no bit (psql)" no "$(user_has "$(nid 12)" "$U1")"
FRESH=$(usr 600) # a user with no read row yet
mark "$(nid 12)" "$FRESH" true
expect_error "read mark of a new user on a missing notice" 404 not_found
mark "$(nid 12)" "$FRESH" false
expect_error "unread mark of a new user on a missing notice" 404 not_found
http GET "/v1/notices/$(nid 12)/reads/$U1"
expect_error "is-read of a missing notice" 404 not_found
http GET "/v1/notices/$N1/reads/4294967296"
expect_error "is-read of user 2^32" 400 invalid_id
http GET "/v1/notices/$N1/reads/$U1?x=1"
expect_error "is-read with a query parameter" 400 invalid_parameter

http GET "/v1/audiences/65536/users/$U1/notices"
expect_error "listing of audience 65536" 400 invalid_id
http GET "/v1/audiences/$USERS/users/4294967296/notices"
expect_error "listing of user 2^32" 400 invalid_id
http GET "/v1/audiences/$USERS/users/$U1/notices?state=bogus"
expect_error "listing state=bogus" 400 invalid_parameter
http GET "/v1/audiences/$USERS/users/$U1/notices?limit=0"
expect_error "listing limit=0" 400 invalid_parameter
http GET "/v1/audiences/$USERS/users/$U1/notices?limit=1001"
expect_error "listing limit=1001" 400 invalid_parameter
http GET "/v1/audiences/$USERS/users/$U1/notices?before=4294967297"
expect_error "listing before=2^32+1" 400 invalid_parameter
http GET "/v1/audiences/$USERS/users/$U1/notices?page=2"
expect_error "listing with an unknown parameter" 400 invalid_parameter
http GET "/v1/audiences/$USERS/users/$U1/notices?state=read&state=unread"
expect_error "listing with state twice" 400 invalid_parameter
http GET "/v1/notices/$N1/stats?verbose=1"
expect_error "stats with a query parameter" 400 invalid_parameter
http GET "/v1/notices/4294967296/stats"
expect_error "stats of notice 2^32" 400 invalid_id
http GET "/v1/notices/$(nid 12)/stats"
expect_error "stats of a missing notice" 404 not_found
# Answers about a missing notice write nothing: no row of the notice (key range
# notice:{id}: … notice:{id};) and no read row for the new user.
check "requests on a missing notice created no row" 0 \
  "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps
     WHERE (key >= convert_to('notice:$(nid 12):', 'UTF8') AND key < convert_to('notice:$(nid 12);', 'UTF8'))
        OR key = bitmapd.notice_key('user_read', $FRESH)")"

http PUT /v1/audiences/65536/users '{"users": [1]}'
expect_error "audience users of audience 65536" 400 invalid_id
http PUT "/v1/audiences/$USERS/users" '{}'
expect_error "audience users without users" 400 invalid_body
http POST "/v1/audiences/$USERS/users" '{"users": [4294967296]}'
expect_error "audience users with user 2^32" 400 invalid_id
http POST "/v1/audiences/$USERS/users" '{"users": [1], "more": true}'
expect_error "audience users with an unknown field" 400 invalid_body

http GET "/v1/notices/$N1"
expect_error "GET /v1/notices/{id}" 405 method_not_allowed
check "405 Allow lists PUT and DELETE" "PUT, DELETE" "$(sed -n 's/^[Aa]llow:[[:space:]]*//p' <<<"$HTTP_HEADERS")"
http GET /v1/notices
expect_error "GET /v1/notices" 405 method_not_allowed
http DELETE "/v1/notices/$N1/reads/$U1"
expect_error "DELETE a read mark (use read: false)" 405 method_not_allowed
http GET "/v1/notices/$N1/nothing"
expect_error "unknown notice path" 404 not_found

# 413: a separate instance with a small id limit
if start_service --set http.max_ids_per_request=3; then
  http POST /v1/notices "{\"id\": $(nid 13), \"audiences\": [1], \"preread\": [1, 2, 3, 4]}"
  expect_error "4 preread users > max_ids_per_request=3" 413 too_many_ids
  http PUT "/v1/audiences/$USERS/users" '{"users": [1, 2, 3, 4]}'
  expect_error "4 audience users > max_ids_per_request=3" 413 too_many_ids
  stop_service "$PORT"
fi
use_main

# 503: an instance whose database is out of reach
DEAD_PORT=$(free_port)
DEAD_LOG=$T/bitmapd.dead.log
BITMAPD_DSN="host=127.0.0.1 port=1 dbname=x user=x connect_timeout=1" "$BITMAPD_BIN" \
  --set "http.port=$DEAD_PORT" --set http.address=127.0.0.1 --set resp.port=0 >"$DEAD_LOG" 2>&1 </dev/null &
DEAD_PID=$!
echo "$DEAD_PID" >"$T/bitmapd.dead.pid"
for ((i = 0; i < 100; i++)); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$DEAD_PORT/healthz" || true)
  [[ $code == 503 ]] && break
  sleep 0.1
done
DEAD=http://127.0.0.1:$DEAD_PORT
st=$(curl -s -o "$T/dead.json" -w '%{http_code}' -X POST --data '{"id": 1, "audiences": [1]}' "$DEAD/v1/notices")
check "503: create without a database" "503 db_unavailable" "$st $(jq -r .error.code "$T/dead.json" 2>/dev/null)"
st=$(curl -s -o "$T/dead.json" -w '%{http_code}' "$DEAD/v1/audiences/1/users/1/notices")
check "503: listing without a database" "503 db_unavailable" "$st $(jq -r .error.code "$T/dead.json" 2>/dev/null)"
st=$(curl -s -o "$T/dead.json" -w '%{http_code}' -X DELETE "$DEAD/v1/notices/1")
check "503: delete without a database" "503 db_unavailable" "$st $(jq -r .error.code "$T/dead.json" 2>/dev/null)"
kill -TERM "$DEAD_PID" 2>/dev/null
wait "$DEAD_PID" 2>/dev/null
rm -f "$T/bitmapd.dead.pid"

echo "# ${SECONDS}s: before the concurrency scenarios"
# --- concurrency ------------------------------------------------------------------------------------
# 30 parallel read marks of different users on one notice
C=$(nid 20)
http POST /v1/notices "{\"id\": $C, \"audiences\": [$USERS]}"
pids=()
for i in $(seq 1 30); do
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X PUT -H 'Content-Type: application/json' \
    --data '{"read": true}' "$MAIN_URL/v1/notices/$C/reads/$(usr $((100 + i)))" >"$T/par.$i" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
pids=()
check "30 parallel read marks: all 200" "30" "$(cat "$T"/par.* | grep -c '^200$')"
http GET "/v1/notices/$C/stats"
check "30 parallel read marks: readers = 30" 30 "$(jget .readers)"
n_listed=0
for i in $(seq 1 30); do
  [[ $(listed "$USERS" "$(usr $((100 + i)))" read | jq --argjson c "$C" 'index($c) != null') == true ]] && n_listed=$((n_listed + 1))
done
check "30 parallel read marks: each user's listing has it read" 30 "$n_listed"

# parallel creates of one id: same audiences → one 201, the rest 200
PC=$(nid 21)
for i in $(seq 1 8); do
  curl -s -o "$T/pc.$i" -w '%{http_code}\n' --max-time 60 -X POST -H 'Content-Type: application/json' \
    --data "{\"id\": $PC, \"audiences\": [$USERS, $OPS], \"preread\": [$(usr $((200 + i)))]}" \
    "$MAIN_URL/v1/notices" >"$T/pcs.$i" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
pids=()
check "8 parallel identical creates: one 201" 1 "$(cat "$T"/pcs.* | grep -c '^201$')"
check "8 parallel identical creates: seven 200" 7 "$(cat "$T"/pcs.* | grep -c '^200$')"
http GET "/v1/notices/$PC/stats"
check "8 parallel identical creates: every preread user is a reader" 8 "$(jget .readers)"
# same id, different audiences → one 201, the rest 409
PD=$(nid 22)
for i in $(seq 1 6); do
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X POST -H 'Content-Type: application/json' \
    --data "{\"id\": $PD, \"audiences\": [$(aud $((30 + i)))]}" "$MAIN_URL/v1/notices" >"$T/pd.$i" 2>/dev/null &
  pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
pids=()
check "6 parallel conflicting creates: one 201" 1 "$(cat "$T"/pd.* | grep -c '^201$')"
check "6 parallel conflicting creates: five 409" 5 "$(cat "$T"/pd.* | grep -c '^409$')"

# consistency of a notice: the view, the stats, the listings and the read bitmaps agree.
# CAND_AUDS are the audiences it may be in, CAND_USERS the users that may have read it.
consistent_live() { # NOTICE NAME
  local id=$1 name=$2 a u in_list=() readers=0 bits=0 stats_auds stats_readers
  http GET "/v1/notices/$id/stats"
  stats_auds=$(jget .audiences)
  stats_readers=$(jget .readers)
  for a in "${CAND_AUDS[@]}"; do
    [[ $(listed "$a" 0 all | jq --argjson n "$id" 'index($n) != null') == true ]] && in_list+=("$a")
  done
  check "$name: listings show it in exactly the stats' audiences" "$stats_auds" \
    "$(printf '%s\n' "${in_list[@]}" | jq -s -c .)"
  for u in "${CAND_USERS[@]}"; do
    [[ $(is_read "$id" "$u") == true ]] && readers=$((readers + 1))
    [[ $(user_has "$id" "$u") == yes ]] && bits=$((bits + 1))
  done
  check "$name: is-read agrees with stats readers" "$stats_readers" "$readers"
  check "$name: users' read bitmaps agree with stats readers" "$stats_readers" "$bits"
  check "$name: bitmapd.notices agrees with stats" "$(jq -r 'join(",")' <<<"$stats_auds")|live|$stats_readers" \
    "$("${PSQL[@]}" -c "SELECT array_to_string(audiences, ',') || '|' || state || '|' || readers FROM bitmapd.notices WHERE id = $id")"
}

# parallel PUT audiences + read marks (true and false), then the same with a DELETE
CAND_AUDS=("$(aud 40)" "$(aud 41)" "$(aud 42)" "$(aud 43)")
CAND_USERS=()
for i in $(seq 1 12); do CAND_USERS+=("$(usr $((300 + i)))"); done
X=$(nid 23)
http POST /v1/notices "{\"id\": $X, \"audiences\": [${CAND_AUDS[0]}]}"
for round in 1 2; do
  for i in 1 2 3 4; do
    body="{\"audiences\": [${CAND_AUDS[$(((i + round) % 4))]}, ${CAND_AUDS[$(((i + 2 * round) % 4))]}]}"
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X PUT -H 'Content-Type: application/json' \
      --data "$body" "$MAIN_URL/v1/notices/$X" >"$T/mv.$round.$i" 2>/dev/null &
    pids+=($!)
  done
  for u in "${CAND_USERS[@]}"; do
    r=true
    ((u % 3 == round)) && r=false
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X PUT -H 'Content-Type: application/json' \
      --data "{\"read\": $r}" "$MAIN_URL/v1/notices/$X/reads/$u" >"$T/rd.$round.$u" 2>/dev/null &
    pids+=($!)
  done
  wait "${pids[@]}" 2>/dev/null
  pids=()
done
check "parallel PUTs: all 200" 8 "$(cat "$T"/mv.* | grep -c '^200$')"
check "parallel read marks: all 200" 24 "$(cat "$T"/rd.* | grep -c '^200$')"
consistent_live "$X" "parallel PUTs + reads"

for i in 1 2 3 4; do
  body="{\"audiences\": [${CAND_AUDS[$((i % 4))]}, ${CAND_AUDS[$(((i + 1) % 4))]}]}"
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X PUT -H 'Content-Type: application/json' \
    --data "$body" "$MAIN_URL/v1/notices/$X" >"$T/mv2.$i" 2>/dev/null &
  pids+=($!)
done
for u in "${CAND_USERS[@]}"; do
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X PUT -H 'Content-Type: application/json' \
    --data '{"read": true}' "$MAIN_URL/v1/notices/$X/reads/$u" >"$T/rd2.$u" 2>/dev/null &
  pids+=($!)
done
curl -s -o "$T/del.json" -w '%{http_code}\n' --max-time 60 -X DELETE "$MAIN_URL/v1/notices/$X" >"$T/del.status" 2>/dev/null &
pids+=($!)
wait "${pids[@]}" 2>/dev/null
pids=()
check "PUTs + reads + DELETE: the DELETE → 200" 200 "$(cat "$T/del.status")"
check_match "PUTs + reads + DELETE: PUTs answer 200, 404 or 409" '^(200|404|409)( (200|404|409))*$' \
  "$(cat "$T"/mv2.* | tr '\n' ' ' | sed 's/ $//')"
check_match "PUTs + reads + DELETE: reads answer 200 or 404" '^(200|404)( (200|404))*$' \
  "$(cat "$T"/rd2.* | tr '\n' ' ' | sed 's/ $//')"
http GET "/v1/notices/$X/stats"
check "PUTs + reads + DELETE: stats → 404" 404 "$HTTP_STATUS"
check "PUTs + reads + DELETE: no row in the view" "" "$(view_row "$X")"
left=0
for a in "${CAND_AUDS[@]}"; do
  [[ $(listed "$a" 0 all | jq --argjson n "$X" 'index($n) != null') == true ]] && left=$((left + 1))
done
check "PUTs + reads + DELETE: in no listing" 0 "$left"
bits=0
for u in "${CAND_USERS[@]}"; do [[ $(user_has "$X" "$u") == yes ]] && bits=$((bits + 1)); done
check "PUTs + reads + DELETE: in no user's read bitmap" 0 "$bits"
check "PUTs + reads + DELETE: the readers row is empty" 0 \
  "$("${PSQL[@]}" -c "SELECT coalesce(max(cardinality), 0) FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $X)")"

echo "# ${SECONDS}s: before the 1,000-notice listing"
# --- 1,000 notices in one audience: one listing statement --------------------------------------------
# The listing loads two bitmaps (the audience's index and the user's reads) in one
# statement whatever the number of notices; pg_stat_statements is not available
# here, so the test checks that the answer is right over 1,000 notices.
BIG=$(aud 60)
BU=$(usr 500)
: >"$T/create1000.cfg"
: >"$T/read1000.cfg"
for i in $(seq 1 1000); do
  id=$((NB + 10000 + i))
  printf 'url = "%s/v1/notices"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata = "{\\"id\\": %s, \\"audiences\\": [%s]}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
    "$MAIN_URL" "$id" "$BIG" >>"$T/create1000.cfg"
  if ((i % 7 == 0)); then
    printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": true}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
      "$MAIN_URL" "$id" "$BU" >>"$T/read1000.cfg"
  fi
done
curl -s --max-time 280 -K "$T/create1000.cfg" >"$T/create1000.out" 2>/dev/null
check "1,000 notices created (201 each)" 1000 "$(grep -c '^201$' "$T/create1000.out")"
curl -s --max-time 120 -K "$T/read1000.cfg" >"$T/read1000.out" 2>/dev/null
n_read=$((1000 / 7))
check "every 7th of them read by one user (200 each)" "$n_read" "$(grep -c '^200$' "$T/read1000.out")"
want=$(for i in $(seq 1000 -1 1); do ((i % 7 == 0)) || echo $((NB + 10000 + i)); done)
http GET "/v1/audiences/$BIG/users/$BU/notices?state=unread&limit=5"
check "1,000 notices: counts $n_read read, $((1000 - n_read)) unread" "$n_read $((1000 - n_read))" \
  "$(jget '"\(.read) \(.unread)"')"
check "1,000 notices: newest unread first" "$(head -n 5 <<<"$want" | jq -s -c .)" "$(jget .notices)"
# walk every unread page with the cursor and compare with the expected set
got=""
before=""
for ((guard = 0; guard < 100; guard++)); do
  q="state=unread&limit=100"
  [[ -z $before ]] || q="$q&before=$before"
  http GET "/v1/audiences/$BIG/users/$BU/notices?$q"
  got="$got$(jq -r '.notices[]' <<<"$HTTP_BODY")"$'\n'
  before=$(jget .next_before)
  [[ $before != null ]] || break
done
check "1,000 notices: the unread pages hold exactly the unread ids, newest first" "$want" "$(sed '/^$/d' <<<"$got")"
check "psql: bitmapd.notice_unread agrees over 1,000 notices" $((1000 - n_read)) "$("${PSQL[@]}" -c "SELECT bitmapd.notice_unread($BIG, $BU)")"

echo "# ${SECONDS}s: before the clients that leave"
# --- clients that leave during a large preread --------------------------------------------------------
LV=$(nid 30)
python3 - "$LV" "$(aud 61)" "$(usr 100000)" >"$T/leave.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 30000))}))
PY
curl -s -o /dev/null --max-time 0.3 -X POST -H 'Content-Type: application/json' \
  --data-binary "@$T/leave.json" "$MAIN_URL/v1/notices"
echo "# curl exit status of the client that left: $?"
http GET /healthz "" --max-time 30
check "after a client left mid-preread the service answers" 200 "$HTTP_STATUS"
check "the create committed before its client left" live \
  "$("${PSQL[@]}" -c "SELECT state FROM bitmapd.notices WHERE id = $LV")"
# The preread of a client that left runs to its end without a retry (the answer
# goes nowhere), and its pending set empties with the last batch. (libevent 2.1
# reports a closed connection only when the answer is sent, so the service does
# not notice the client leave before that; were it told, it would still finish.)
wait_for "the preread pending set of the client that left empties" "[[ \$(pending_of $LV) == 0 ]]"
check "a client that left: the last preread user's listing has it read, without a retry" "[$LV]" \
  "$(listed "$(aud 61)" "$(usr 129999)" read)"
check "a client that left: every preread user's read bitmap has it, without a retry (psql)" 30000 \
  "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps b, LATERAL bitmapd.members(b.bits) m
       WHERE b.key IN (SELECT bitmapd.notice_key('user_read', u) FROM generate_series($(usr 100000)::bigint, $(usr 129999)) u)
         AND m = $LV")"
check "a client that left: the view shows no preread pending" "30000|0" \
  "$("${PSQL[@]}" -c "SELECT readers || '|' || preread_pending FROM bitmapd.notices WHERE id = $LV")"
http POST /v1/notices "" -H 'Content-Type: application/json' --data-binary "@$T/leave.json" --max-time 120
check "retrying that create changes nothing (200, created false)" "200 false 30000" \
  "$HTTP_STATUS $(jget .created) $(jget .readers)"

# --- a preread is not undone by read marks of other users on another instance ------------------------
# Preread batches check the notice's audiences and its pending set, not its readers,
# which every read mark rewrites: an instance that allows no retry at all
# (max_retries=0) still finishes a 20,000-user preread while other users mark the
# notice read through the main instance.
if start_service --set postgres.max_retries=0; then
  NR_URL=$BASE_URL NR_PORT=$PORT
  use_main
  PM=$(nid 32)
  python3 - "$PM" "$(aud 64)" "$(usr 700000)" >"$T/pm.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 20000))}))
PY
  for part in 1 2; do
    : >"$T/pm.marks$part.cfg"
    for i in $(seq 1 150); do
      printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": true}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
        "$MAIN_URL" "$PM" "$(usr $((800000 + part * 1000 + i)))" >>"$T/pm.marks$part.cfg"
    done
  done
  curl -s -o "$T/pm.out" -w '%{http_code}' --max-time 120 -X POST -H 'Content-Type: application/json' \
    --data-binary "@$T/pm.json" "$NR_URL/v1/notices" >"$T/pm.status" 2>/dev/null &
  pm_pid=$!
  wait_for "the notice exists" "[[ \$(\"\${PSQL[@]}\" -c \"SELECT count(*) FROM bitmapd.notices WHERE id = $PM\") == 1 ]]"
  curl -s --max-time 120 -K "$T/pm.marks1.cfg" >"$T/pm.marks1" 2>/dev/null &
  m1_pid=$!
  curl -s --max-time 120 -K "$T/pm.marks2.cfg" >"$T/pm.marks2" 2>/dev/null
  wait "$m1_pid" "$pm_pid" 2>/dev/null
  echo "# preread vs marks: the preread's pending set held $(pending_of "$PM") users when the marks ended"
  check "preread with max_retries=0 while others mark the notice read → 201" 201 "$(cat "$T/pm.status")"
  check "the 300 read marks of other users → 200" 300 "$(cat "$T"/pm.marks1 "$T"/pm.marks2 | grep -c '^200$')"
  check "every preread user's read bitmap has it, and readers = 20,300" "20000 20300" \
    "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps b, LATERAL bitmapd.members(b.bits) m
         WHERE b.key IN (SELECT bitmapd.notice_key('user_read', u) FROM generate_series($(usr 700000)::bigint, $(usr 719999)) u)
           AND m = $PM") $("${PSQL[@]}" -c "SELECT readers FROM bitmapd.notices WHERE id = $PM")"
  stop_service "$NR_PORT"
fi
use_main

# --- unread marks racing a large preread: readers and read bitmaps still agree -----------------------
# Whatever the interleaving, a user is among the readers exactly when the user's
# read bitmap holds the id (no timing is asserted, only that invariant).
PR=$(nid 31)
python3 - "$PR" "$(aud 63)" "$(usr 140000)" >"$T/race.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 20000))}))
PY
: >"$T/race.cfg"
for i in $(seq 0 400 19999); do
  printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": false}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
    "$MAIN_URL" "$PR" "$(usr $((159999 - i)))" >>"$T/race.cfg"
done
curl -s -o "$T/race.out" -w '%{http_code}' --max-time 120 -X POST -H 'Content-Type: application/json' \
  --data-binary "@$T/race.json" "$MAIN_URL/v1/notices" >"$T/race.status" 2>/dev/null &
race_pid=$!
curl -s --max-time 120 -K "$T/race.cfg" >"$T/race.marks" 2>/dev/null
wait "$race_pid" 2>/dev/null
check "race: the create → 201" 201 "$(cat "$T/race.status")"
check_match "race: the unread marks answer 200 (or 404 before the notice existed)" '^((200|404) )*(200|404)$' \
  "$(tr '\n' ' ' <"$T/race.marks" | sed 's/ $//')"
check "race: readers and users' read bitmaps agree (readers-only, bits-only)" "0 0" \
  "$("${PSQL[@]}" -c "WITH r AS (SELECT m AS u FROM bitmapd.bitmaps b, bitmapd.members(b.bits) m
                                   WHERE b.key = bitmapd.notice_key('readers', $PR)),
                           h AS (SELECT g AS u FROM generate_series($(usr 140000)::bigint, $(usr 159999)) g
                                   JOIN bitmapd.bitmaps b ON b.key = bitmapd.notice_key('user_read', g)
                                  WHERE $PR IN (SELECT bitmapd.members(b.bits)))
                      SELECT (SELECT count(*) FROM (SELECT u FROM r EXCEPT SELECT u FROM h) x) || ' ' ||
                             (SELECT count(*) FROM (SELECT u FROM h EXCEPT SELECT u FROM r) y)")"
http GET "/v1/notices/$PR/stats"
echo "# race: $(grep -c '^200$' "$T/race.marks") unread marks landed; readers now $(jget .readers)"

echo "# ${SECONDS}s: before the storage figures"
# --- storage at 100,000 users ---------------------------------------------------------------------------
# One audience of 100,000 users; a notice preread by 10% of them, one by 90%, and
# a second 10% notice (the users' read rows exist by then). pg_total_relation_size
# deltas include the dead row versions of the write path (a row is inserted empty,
# then updated) and the primary key index; the rows' own bytes are given too.
SA=$(aud 62)
S0=$(usr 200000)
python3 - "$S0" >"$T/aud100k.json" <<'PY'
import json, sys
base = int(sys.argv[1])
print(json.dumps({"users": list(range(base, base + 100000))}))
PY
http PUT "/v1/audiences/$SA/users" "" -H 'Content-Type: application/json' --data-binary "@$T/aud100k.json" --max-time 120
check "storage: an audience of 100,000 users" "200 100000" "$HTTP_STATUS $(jget .users)"
total() { "${PSQL[@]}" -c "SELECT pg_total_relation_size('bitmapd.bitmaps')"; }
sample() { # NOTICE PERCENT SEED → body file
  python3 - "$1" "$SA" "$S0" "$2" "$3" >"$T/s.$1.json" <<'PY'
import json, random, sys
nid, aud, base, pct, seed = (int(a) for a in sys.argv[1:])
random.seed(seed)
users = sorted(random.sample(range(base, base + 100000), 100000 * pct // 100))
print(json.dumps({"id": nid, "audiences": [aud], "preread": users}))
PY
}
# live bytes and count of the 100,000 users' read rows
users_live() {
  "${PSQL[@]}" -c "SELECT coalesce(sum(pg_column_size(b.*)), 0) || ' ' || count(*) FROM bitmapd.bitmaps b
    WHERE key IN (SELECT bitmapd.notice_key('user_read', u) FROM generate_series($S0::bigint, $S0 + 99999) u)"
}
store_notice() { # NOTICE PERCENT SEED LABEL
  local before after live0 live1 rows0 rows1 bytes
  sample "$1" "$2" "$3"
  read -r live0 rows0 <<<"$(users_live)"
  before=$(total)
  http POST /v1/notices "" -H 'Content-Type: application/json' --data-binary "@$T/s.$1.json" --max-time 280
  after=$(total)
  check "storage: $4: created with $(($2 * 1000)) preread users" "201 $(($2 * 1000))" "$HTTP_STATUS $(jget .readers)"
  http GET "/v1/notices/$1/stats"
  check "storage: $4: stats size 100000, unread $((100000 - $2 * 1000))" "100000 $((100000 - $2 * 1000))" \
    "$(jget .audience_size) $(jget .unread)"
  bytes=$("${PSQL[@]}" -c "SELECT bytes FROM bitmapd.notices WHERE id = $1")
  check_match "storage: $4: the view has its bytes" '^[0-9]+$' "$bytes"
  read -r live1 rows1 <<<"$(users_live)"
  check "storage: $4: every preread user's read row has it" "$(($2 * 1000))" \
    "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps b, bitmapd.members(b.bits) m
         WHERE key IN (SELECT bitmapd.notice_key('user_read', u) FROM generate_series($S0::bigint, $S0 + 99999) u) AND m = $1")"
  echo "# storage: $4: the notice's rows hold $bytes B of bitmaps; users' read rows +$((rows1 - rows0)) (now $rows1), +$((live1 - live0)) B live; pg_total_relation_size +$((after - before)) B"
}
store_notice "$(nid 40)" 10 1 "10% notice"
store_notice "$(nid 41)" 90 2 "90% notice"
store_notice "$(nid 42)" 10 3 "second 10% notice"
echo "# storage: Redis (seed): 100,000 bits = 12,500 B per notice per audience"

# Write amplification of a read mark: the mark rewrites the notice's whole readers
# row (docs/notices.md, "Known cost"). WAL written per mark, over 50 marks by users
# of the audience, on the 10% notice (10,000 readers of 100,000) and on a notice
# with none. The users already have read rows (from the 90% notice, mostly).
wal_lsn() { "${PSQL[@]}" -c "SELECT pg_current_wal_lsn()"; }
wal_per_mark() { # NOTICE — sets WAL_PER_MARK: WAL bytes per mark, over 50 audience users not yet readers
  local a b u cfg=$T/wal.$1.cfg
  : >"$cfg"
  for u in $("${PSQL[@]}" -c "SELECT g FROM generate_series($S0::bigint, $S0 + 99999) g
                              WHERE g NOT IN (SELECT bitmapd._notice_members(bitmapd.notice_key('readers', $1)))
                              ORDER BY g LIMIT 50"); do
    printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": true}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
      "$MAIN_URL" "$1" "$u" >>"$cfg"
  done
  a=$(wal_lsn)
  curl -s --max-time 120 -K "$cfg" >"$cfg.out" 2>/dev/null
  b=$(wal_lsn)
  check "storage: 50 read marks on notice $1 → 200 each" 50 "$(grep -c '^200$' "$cfg.out")"
  WAL_PER_MARK=$("${PSQL[@]}" -c "SELECT pg_wal_lsn_diff('$b', '$a')::bigint / 50")
}
http POST /v1/notices "{\"id\": $(nid 43), \"audiences\": [$SA]}"
wal_per_mark "$(nid 40)"
per_big=$WAL_PER_MARK
wal_per_mark "$(nid 43)"
per_small=$WAL_PER_MARK
readers_row=$("${PSQL[@]}" -c "SELECT octet_length(bits) FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $(nid 40))")
echo "# storage: a read mark writes $per_big B of WAL on the 10% notice (its readers row: $readers_row B), $per_small B on a notice without readers"

# --- clean shutdown and clean logs (also of the instances stopped earlier) ---------------------------
stop_service "$MAIN_PORT"
check "SIGTERM: exit status 0" 0 "$SERVICE_EXIT"
check_logs_clean

finish
