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
# user_has NOTICE USER — "yes" if the user is among the notice's readers (psql, bitmapd.notice_read).
user_has() {
  "${PSQL[@]}" -c "SELECT CASE WHEN bitmapd.notice_read($1, $2) THEN 'yes' ELSE 'no' END"
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
check "preread: U1 is among its readers (psql notice_read)" yes "$(user_has "$P" "$U1")"
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
check "delete: U1 is no reader any more (psql)" no "$(user_has "$D" "$U1")"
check "delete: U2 neither (psql)" no "$(user_has "$D" "$U2")"
check "delete: no row in bitmapd.notices" "" "$(view_row "$D")"
http POST /v1/notices "{\"id\": $D, \"audiences\": [$OPS]}"
check "reuse: the id is created again → 201 with no reader" "201 true 0" \
  "$HTTP_STATUS $(jget .created) $(jget .readers)"
check "reuse: U1 has not read the new notice" false "$(is_read "$D" "$U1")"
check "reuse: operators/U2 lists it unread" true \
  "$(listed "$OPS" "$U2" unread | jq --argjson d "$D" 'index($d) != null')"

# --- is-read and the listing read the readers, and nothing per user --------------------------------
# A reader added through RESP is read in both; a row of the per-user layout before
# migration 0011 (notice:user:{u}:read) is not read by either.
IR=$(nid 14) IU1=$(usr 610) IU2=$(usr 611)
http POST /v1/notices "{\"id\": $IR, \"audiences\": [$OPS]}"
rcli SETBIT "notice:$IR:readers" "$IU1" 1 >/dev/null        # a reader written by hand
rcli SETBIT "notice:user:$IU2:read" "$IR" 1 >/dev/null      # a read row of the old layout
in_read_list() { listed "$OPS" "$1" read | jq --argjson n "$IR" 'index($n) != null'; }
check "is-read: a reader written through RESP is read, in the listing too" "true true" \
  "$(is_read "$IR" "$IU1") $(in_read_list "$IU1")"
check "is-read: an old per-user read row is not read, nor in the listing" "false false" \
  "$(is_read "$IR" "$IU2") $(in_read_list "$IU2")"
rcli DEL "notice:user:$IU2:read" >/dev/null
http DELETE "/v1/notices/$IR"
check "is-read: the notice of that scenario deleted" 200 "$HTTP_STATUS"

# --- a delete that an older version left half way, finished -------------------------------------------
# Before migration 0011 a delete took three steps, the first leaving
# notice:{id}:audiences = {4294967295} and the id out of the index. That state is
# made here through RESP (the same rows) to stand for such a delete cut short.
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
check "interrupted: U1 is still a reader before the resume" yes "$(user_has "$R" "$U1")"
http DELETE "/v1/notices/$R"
check "interrupted: DELETE finishes it → 200, 2 read records" "200 2" "$HTTP_STATUS $(jget .read_records)"
check "interrupted: U1 is no reader any more" no "$(user_has "$R" "$U1")"
check "interrupted: U2 neither" no "$(user_has "$R" "$U2")"
check "interrupted: no row in the view" "" "$(view_row "$R")"

# --- deletes racing: one wins, the others find it gone; the id is free at once -----------------------
# A delete is one compare-and-swap of {audiences, readers, index keys}: of parallel
# deletes of one notice exactly one answers 200 with the readers it removed; the
# others answer 404 (no notice at their read, or deleted under their write), from
# both instances. The id created again has only its new preread readers.
SR=$(nid 15) SU1=$(usr 620) SU2=$(usr 621)
http POST /v1/notices "{\"id\": $SR, \"audiences\": [$OPS, $USERS], \"preread\": [$SU1, $SU2]}"
if start_service; then
  SECOND_URL=$BASE_URL
  use_main
  pids=()
  for i in 1 2 3 4 5 6 7 8 9 10; do
    url=$MAIN_URL; ((i % 2)) && url=$SECOND_URL
    curl -s -o "$T/race.$i.json" -w '%{http_code}' --max-time 60 -X DELETE "$url/v1/notices/$SR" \
      >"$T/race.$i.status" 2>/dev/null &
    pids+=($!)
  done
  wait "${pids[@]}"
  wins=0 lost=0 other=""
  for i in 1 2 3 4 5 6 7 8 9 10; do
    st=$(cat "$T/race.$i.status")
    if [[ $st == 200 ]]; then
      wins=$((wins + 1)) won=$(jq -r .read_records "$T/race.$i.json")
    elif [[ $st == 404 && $(jq -r .error.code "$T/race.$i.json") == not_found ]]; then
      lost=$((lost + 1))
    else other+=" $st"; fi
  done
  check "delete race: one 200, nine 404 not_found, nothing else" "1 9" "$wins $lost${other:+ other:$other}"
  check "delete race: the winner removed 2 read records" 2 "${won:-none}"
  check "delete race: gone from the view and both indexes" "|false|false" \
    "$(view_row "$SR")|$(listed "$OPS" "$SU1" all | jq --argjson n "$SR" 'index($n) != null')|$(listed "$USERS" "$SU1" all | jq --argjson n "$SR" 'index($n) != null')"
  http POST /v1/notices "{\"id\": $SR, \"audiences\": [$OPS], \"preread\": [$SU1]}"
  check "delete race: the id created again with SU1 preread → 201, 1 reader" "201 1" "$HTTP_STATUS $(jget .readers)"
  check "delete race: SU1 has read the new notice, SU2 has not" "true false" \
    "$(is_read "$SR" "$SU1") $(is_read "$SR" "$SU2")"
  stop_service "$(sed -n 's|.*:\([0-9]*\)$|\1|p' <<<"$SECOND_URL")"
fi
use_main

# --- migration 0011: the per-user rows of the old layout go, restartable after kill -9 ----------------
# Rows as a version before 0011 left them (made through RESP): read rows of two
# users, an unfinished preread's pending set; and keys of the same prefixes that are
# not of that shape, which must stay (one with an id past 2^32 - 1, which the
# service never wrote). The migration is recorded as not applied, a psql session
# holds one of the rows, and the first --migrate, its statement waiting on that
# row, is killed with -9: its transaction never commits, so nothing is lost or
# half done. The second one deletes exactly the old rows; the notices' readers are
# untouched.
OWNER_DSN=${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}
osql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
MU1=$(usr 640) MU2=$(usr 641) MN=$(nid 18)
http POST /v1/notices "{\"id\": $MN, \"audiences\": [$OPS], \"preread\": [$MU1, $MU2]}"
for k in "notice:user:$MU1:read" "notice:user:$MU2:read" "notice:$MN:preread" \
  "notice:user:x$MU1:read" "notice:user:$MU1:read:x" "notice:user:0$MU1:read" "notice:x$MN:preread" \
  "notice:user:4294967296:read"; do
  rcli SETBIT "$k" "$MN" 1 >/dev/null
done
old_rows() { # the rows of the old layout made above, and the look-alikes
  osql "SELECT count(*) FILTER (WHERE encode(key, 'escape') IN ('notice:user:$MU1:read', 'notice:user:$MU2:read', 'notice:$MN:preread'))
            || '|' || count(*) FILTER (WHERE encode(key, 'escape') NOT IN ('notice:user:$MU1:read', 'notice:user:$MU2:read', 'notice:$MN:preread'))
          FROM bitmapd.bitmaps
         WHERE encode(key, 'escape') IN ('notice:user:$MU1:read', 'notice:user:$MU2:read', 'notice:$MN:preread',
               'notice:user:x$MU1:read', 'notice:user:$MU1:read:x', 'notice:user:0$MU1:read', 'notice:x$MN:preread',
               'notice:user:4294967296:read')"
}
check "0011: three rows of the old layout and five look-alikes" "3|5" "$(old_rows)"
osql "DELETE FROM bitmapd.schema_migrations WHERE version = 11" >/dev/null
lock_open "SELECT 1 FROM bitmapd.bitmaps WHERE key = convert_to('notice:user:$MU2:read', 'UTF8') FOR UPDATE;"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN exec "$BITMAPD_BIN" --migrate >"$T/m0011.1.log" 2>&1) &
mpid=$!
wait_for "the first --migrate waits on the held row" waiting_on_lock
kill -KILL "$mpid" 2>/dev/null
wait "$mpid" 2>/dev/null
lock_close
check "0011, after kill -9: every row still there, the migration not recorded" "3|5|0" \
  "$(old_rows)|$(osql "SELECT count(*) FROM bitmapd.schema_migrations WHERE version = 11")"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/m0011.2.log" 2>&1)
check "0011: the second --migrate exits 0" 0 "$?"
check "0011: the old rows are gone, the look-alikes stay, the migration is recorded" "0|5|1" \
  "$(old_rows)|$(osql "SELECT count(*) FROM bitmapd.schema_migrations WHERE version = 11")"
check "0011: the notice keeps its two readers" "live|2|true true" \
  "$("${PSQL[@]}" -c "SELECT state || '|' || readers FROM bitmapd.notices WHERE id = $MN")|$(is_read "$MN" "$MU1") $(is_read "$MN" "$MU2")"
for k in "notice:user:x$MU1:read" "notice:user:$MU1:read:x" "notice:user:0$MU1:read" "notice:x$MN:preread" \
  "notice:user:4294967296:read"; do
  rcli DEL "$k" >/dev/null
done

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
# notice:{id}: … notice:{id};) and no row for the new user.
check "requests on a missing notice created no row" 0 \
  "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps
     WHERE (key >= convert_to('notice:$(nid 12):', 'UTF8') AND key < convert_to('notice:$(nid 12);', 'UTF8'))
        OR key = convert_to('notice:user:$FRESH:read', 'UTF8')")"

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

# consistency of a notice: the view, the stats, the listings, is-read and psql's notice_read agree.
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
  check "$name: psql notice_read agrees with stats readers" "$stats_readers" "$bits"
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
check "PUTs + reads + DELETE: no user is a reader (psql notice_read)" 0 "$bits"
check "PUTs + reads + DELETE: the readers row is empty" 0 \
  "$("${PSQL[@]}" -c "SELECT coalesce(max(cardinality), 0) FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $X)")"

echo "# ${SECONDS}s: before the 1,000-notice listing"
# --- 1,000 notices in one audience: the listing over them --------------------------------------------
# The listing loads the audience's index, then the index again with the readers of
# each of its notices in one load; the answers are checked over 1,000 notices, and an
# instance with a cold cache counts its load statements for one listing.
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
if start_service; then
  # the cache turns on once LISTEN and the trigger check are done, which /healthz does
  # not wait for: a request before that is answered but not kept (CI met it once)
  wait_for "the new instance's cache is on" '[[ $(metric bitmapd_cache_enabled) == 1 ]]'
  l0=$(metric bitmapd_load_statements_total)
  http GET "/v1/audiences/$BIG/users/$BU/notices?state=unread&limit=5"
  l1=$(metric bitmapd_load_statements_total)
  check "1,000 notices, cold cache: the same answer" "$n_read $((1000 - n_read)) $(head -n 5 <<<"$want" | jq -s -c .)" \
    "$(jget '"\(.read) \(.unread) \(.notices | tostring)"')"
  check "1,000 notices, cold cache: two load statements (the index; the index and 1,000 readers rows)" 2 "$((l1 - l0))"
  # warm: answered from the cache alone (no load at all)
  l0=$(metric bitmapd_load_statements_total)
  http GET "/v1/audiences/$BIG/users/$BU/notices?state=read&limit=1000"
  check "1,000 notices, warm cache: the read ones, with no statement" "$n_read 0" \
    "$(jget '.notices | length') $(($(metric bitmapd_load_statements_total) - l0))"
  stop_service "$PORT"
fi
use_main

echo "# ${SECONDS}s: before the clients that leave"
# --- clients that leave during a large preread --------------------------------------------------------
# A create is one commit, preread included: whenever the client leaves, the notice
# is there whole (all 30,000 readers) or not at all — not at all when the request
# never arrived whole, or the client left before its load began. (libevent 2.1
# reports a closed connection only when the answer is sent, so once the request
# has arrived, it commits.)
LV=$(nid 30)
python3 - "$LV" "$(aud 61)" "$(usr 100000)" >"$T/leave.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 30000))}))
PY
curl -s -o /dev/null --max-time 0.05 -X POST -H 'Content-Type: application/json' \
  --data-binary "@$T/leave.json" "$MAIN_URL/v1/notices"
echo "# curl exit status of the client that left: $?"
http GET /healthz "" --max-time 30
check "after a client left mid-create the service answers" 200 "$HTTP_STATUS"
for ((i = 0; i < 40; i++)); do # a create that arrived is done within moments
  [[ $("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.notices WHERE id = $LV") == 1 ]] && break
  sleep 0.1
done
left=$("${PSQL[@]}" -c "SELECT state || '|' || readers FROM bitmapd.notices WHERE id = $LV")
echo "# the create of the client that left: ${left:-not made (the request did not arrive whole)}"
check_match "a client that left: the notice is whole (all 30,000 readers) or absent" '^(live\|30000)?$' "$left"
http POST /v1/notices "" -H 'Content-Type: application/json' --data-binary "@$T/leave.json" --max-time 120
if [[ -n $left ]]; then
  check "retrying that create changes nothing (200, created false)" "200 false 30000" \
    "$HTTP_STATUS $(jget .created) $(jget .readers)"
else
  check "retrying that create makes it (201)" "201 true 30000" "$HTTP_STATUS $(jget .created) $(jget .readers)"
fi
check "a client that left: the last preread user's listing has it read" "[$LV]" \
  "$(listed "$(aud 61)" "$(usr 129999)" read)"
# a client that leaves half way through sending its body: no notice at all
LH=$(nid 33)
sed "s/\"id\": $LV/\"id\": $LH/" "$T/leave.json" >"$T/leave2.json"
check "the half-sent body is a create of notice $LH" 1 "$(grep -c "\"id\": $LH," "$T/leave2.json")"
curl -s -o /dev/null --limit-rate 50K --max-time 1 -X POST -H 'Content-Type: application/json' \
  --data-binary "@$T/leave2.json" "$MAIN_URL/v1/notices"
echo "# curl exit status of the client that left half way through its body: $? (28: timed out)"
http GET /healthz "" --max-time 30
check "a client that left half way through its body: no notice, no row" "0 0" \
  "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.notices WHERE id = $LH") $("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps
     WHERE key >= convert_to('notice:$LH:', 'UTF8') AND key < convert_to('notice:$LH;', 'UTF8')")"

# --- prereads and read marks of one notice from two instances -----------------------------------------
# Repeated POSTs adding 5,000 preread users each through a second instance, while
# 300 other users mark the notice read through the main one: both write the
# notice's readers row, so they conflict across instances and retry; every write lands.
if start_service; then
  NR_URL=$BASE_URL NR_PORT=$PORT
  use_main
  PM=$(nid 32)
  http POST /v1/notices "{\"id\": $PM, \"audiences\": [$(aud 64)], \"preread\": [$(usr 699999)]}"
  check "two instances: the notice created with one reader" "201 1" "$HTTP_STATUS $(jget .readers)"
  for part in 0 1 2 3; do
    python3 - "$PM" "$(aud 64)" "$(usr $((700000 + part * 5000)))" >"$T/pm.$part.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 5000))}))
PY
  done
  for part in 1 2; do
    : >"$T/pm.marks$part.cfg"
    for i in $(seq 1 150); do
      printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": true}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
        "$MAIN_URL" "$PM" "$(usr $((800000 + part * 1000 + i)))" >>"$T/pm.marks$part.cfg"
    done
  done
  (for part in 0 1 2 3; do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 120 -X POST -H 'Content-Type: application/json' \
      --data-binary "@$T/pm.$part.json" "$NR_URL/v1/notices"
  done) >"$T/pm.status" 2>/dev/null &
  pm_pid=$!
  curl -s --max-time 120 -K "$T/pm.marks1.cfg" >"$T/pm.marks1" 2>/dev/null &
  m1_pid=$!
  curl -s --max-time 120 -K "$T/pm.marks2.cfg" >"$T/pm.marks2" 2>/dev/null
  wait "$m1_pid" "$pm_pid" 2>/dev/null
  check "two instances: the four preread POSTs → 200 each" "200 200 200 200" "$(tr '\n' ' ' <"$T/pm.status" | sed 's/ $//')"
  check "two instances: the 300 read marks → 200" 300 "$(cat "$T"/pm.marks1 "$T"/pm.marks2 | grep -c '^200$')"
  check "two instances: readers = 1 + 20,000 + 300, every one of them" "20301 20301" \
    "$("${PSQL[@]}" -c "SELECT readers FROM bitmapd.notices WHERE id = $PM") $("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.members(bitmapd.value(bitmapd.notice_key('readers', $PM), (SELECT bits FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $PM)))) m
         WHERE m = $(usr 699999) OR m BETWEEN $(usr 700000) AND $(usr 719999) OR m BETWEEN $(usr 801001) AND $(usr 801150) OR m BETWEEN $(usr 802001) AND $(usr 802150)")"
  stop_service "$NR_PORT"
fi
use_main

# --- unread marks racing a large preread --------------------------------------------------------------
# An unread mark answers 404 before the create commits and 200 after it; so the
# readers must be exactly the preread users but those whose unread mark was 200.
PR=$(nid 31)
python3 - "$PR" "$(aud 63)" "$(usr 140000)" >"$T/race.json" <<'PY'
import json, sys
nid, aud, base = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps({"id": nid, "audiences": [aud], "preread": list(range(base, base + 20000))}))
PY
: >"$T/race.cfg"
: >"$T/race.users"
for i in $(seq 0 400 19999); do
  printf 'url = "%s/v1/notices/%s/reads/%s"\nrequest = "PUT"\nheader = "Content-Type: application/json"\ndata = "{\\"read\\": false}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
    "$MAIN_URL" "$PR" "$(usr $((159999 - i)))" >>"$T/race.cfg"
  usr $((159999 - i)) >>"$T/race.users"
done
curl -s -o "$T/race.out" -w '%{http_code}' --max-time 120 -X POST -H 'Content-Type: application/json' \
  --data-binary "@$T/race.json" "$MAIN_URL/v1/notices" >"$T/race.status" 2>/dev/null &
race_pid=$!
# rounds of the 50 marks until one round after the create answered (at most 100 rounds)
: >"$T/race.marks"
: >"$T/race.who"
for ((round = 0; round < 100; round++)); do
  done_before=0
  kill -0 "$race_pid" 2>/dev/null || done_before=1
  curl -s --max-time 120 -K "$T/race.cfg" >>"$T/race.marks" 2>/dev/null
  cat "$T/race.users" >>"$T/race.who"
  ((done_before)) && break
done
wait "$race_pid" 2>/dev/null
check "race: the create → 201" 201 "$(cat "$T/race.status")"
check_match "race: the unread marks answer 200 (or 404 before the notice existed)" '^((200|404) )*(200|404)$' \
  "$(tr '\n' ' ' <"$T/race.marks" | sed 's/ $//')"
check "race: the last round came after the create: all 50 marks 200" 50 "$(tail -n 50 "$T/race.marks" | grep -c '^200$')"
unmarked=$(paste -d' ' "$T/race.who" "$T/race.marks" | awk '$2 == 200 {print $1}' | sort -u | paste -sd, -)
check "race: readers = the preread users but those unmarked after the create" "$((20000 - $(tr ',' '\n' <<<"$unmarked" | grep -c .))) 0" \
  "$("${PSQL[@]}" -c "SELECT readers FROM bitmapd.notices WHERE id = $PR") $("${PSQL[@]}" -c "SELECT count(*) FROM unnest('{${unmarked}}'::bigint[]) u WHERE bitmapd.notice_read($PR, u)")"
echo "# race: $((round + 1)) rounds of 50 unread marks; $(grep -c '^404$' "$T/race.marks") came before the create, $(grep -c '^200$' "$T/race.marks") after"

echo "# ${SECONDS}s: before the storage figures"
# --- storage at 100,000 users ---------------------------------------------------------------------------
# One audience of 100,000 users; a notice preread by 10% of them, one by 90%, and
# a second 10% notice. Nothing is written per user: a notice's bytes are its rows
# (audiences, readers in chunk rows) and its bit in the index.
# pg_total_relation_size deltas of bitmaps and chunks include dead row versions and
# index pages; the rows' own bytes are given too.
SA=$(aud 62)
S0=$(usr 200000)
python3 - "$S0" >"$T/aud100k.json" <<'PY'
import json, sys
base = int(sys.argv[1])
print(json.dumps({"users": list(range(base, base + 100000))}))
PY
http PUT "/v1/audiences/$SA/users" "" -H 'Content-Type: application/json' --data-binary "@$T/aud100k.json" --max-time 120
check "storage: an audience of 100,000 users" "200 100000" "$HTTP_STATUS $(jget .users)"
total() { "${PSQL[@]}" -c "SELECT pg_total_relation_size('bitmapd.bitmaps') + pg_total_relation_size('bitmapd.chunks')"; }
sample() { # NOTICE PERCENT SEED → body file
  python3 - "$1" "$SA" "$S0" "$2" "$3" >"$T/s.$1.json" <<'PY'
import json, random, sys
nid, aud, base, pct, seed = (int(a) for a in sys.argv[1:])
random.seed(seed)
users = sorted(random.sample(range(base, base + 100000), 100000 * pct // 100))
print(json.dumps({"id": nid, "audiences": [aud], "preread": users}))
PY
}
# rows under the users' keys of the layout before migration 0011 (none is written now)
user_rows() {
  "${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps
    WHERE key >= convert_to('notice:user:', 'UTF8') AND key < convert_to('notice:user;', 'UTF8')"
}
store_notice() { # NOTICE PERCENT SEED LABEL
  local before after rows0 bytes
  sample "$1" "$2" "$3"
  rows0=$(user_rows)
  before=$(total)
  http POST /v1/notices "" -H 'Content-Type: application/json' --data-binary "@$T/s.$1.json" --max-time 280
  after=$(total)
  check "storage: $4: created with $(($2 * 1000)) preread users" "201 $(($2 * 1000))" "$HTTP_STATUS $(jget .readers)"
  http GET "/v1/notices/$1/stats"
  check "storage: $4: stats size 100000, unread $((100000 - $2 * 1000))" "100000 $((100000 - $2 * 1000))" \
    "$(jget .audience_size) $(jget .unread)"
  bytes=$("${PSQL[@]}" -c "SELECT bytes FROM bitmapd.notices WHERE id = $1")
  check_match "storage: $4: the view has its bytes" '^[0-9]+$' "$bytes"
  check "storage: $4: no row per user was written" "$rows0" "$(user_rows)"
  echo "# storage: $4: the notice's rows hold $bytes B of bitmaps; pg_total_relation_size of bitmaps and chunks +$((after - before)) B"
}
store_notice "$(nid 40)" 10 1 "10% notice"
store_notice "$(nid 41)" 90 2 "90% notice"
store_notice "$(nid 42)" 10 3 "second 10% notice"
echo "# storage: Redis (seed): 100,000 bits = 12,500 B per notice per audience"

# Write amplification of a read mark (docs/notices.md): WAL written per mark, over
# 50 marks by users of the audience, on the 10% notice (10,000 readers of 100,000,
# a chunked readers row: a mark writes its head's flips) and on a notice with none.
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
readers_row=$("${PSQL[@]}" -c "SELECT bitmapd.value_bytes(key, bits) FROM bitmapd.bitmaps WHERE key = bitmapd.notice_key('readers', $(nid 40))")
echo "# storage: a read mark writes $per_big B of WAL on the 10% notice (its readers row: $readers_row B), $per_small B on a notice without readers"

# --- clean shutdown and clean logs (also of the instances stopped earlier) ---------------------------
stop_service "$MAIN_PORT"
check "SIGTERM: exit status 0" 0 "$SERVICE_EXIT"
check_logs_clean

finish
