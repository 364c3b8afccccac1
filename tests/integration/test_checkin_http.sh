#!/usr/bin/env bash
# Daily check-ins (seed 002) over HTTP, end to end: real bitmapd instances against
# the real PostgreSQL in BITMAPD_DSN, driven with curl.
#
# Covers every route and error (bad ids, unreal dates, future and too-old dates,
# unknown fields and parameters, month+year, If-Match, 404/405/413, corrupt rows,
# the database stopped), leap-year calendars, the seed's points 10,20,30,50,50,
# back-fill joining two runs, month-reset against unbounded streaks (a second
# instance with other settings, on the same rows), "today" in zones 26 hours
# apart, concurrent check-ins (one instance and two), RESP reading the same rows,
# the psql view and bitmapd.checkin_days, and the storage cost of a user-year
# (pg_total_relation_size, next to a private redis-server holding the seed's keys).
#
# Every date is computed from today (UTC, the process zone of the instances), so the
# test passes on any day, the 1st of a month and Feb 29 included. Within 3 minutes
# of midnight UTC it first waits for the new day, so one "today" holds throughout.
# CHECKIN_MEASURE_USERS (default 200) sets the users of the storage measurement.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
PG_SH=$BITMAPD_ROOT/scripts/pg.sh
MEASURE_USERS=${CHECKIN_MEASURE_USERS:-200}

# A block of 10^6 user ids of our own. Kept below 2^53: jq reads numbers as doubles.
RUN_BASE=$((($(date +%s) % 1000000 * 1000 + RANDOM % 1000) * 1000000 + 500000))
uid() { echo $((RUN_BASE + $1)); }
echo "# user ids of this run: $RUN_BASE + n"

sql() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; } # as the administrator (owner role)

# expect_error NAME STATUS CODE — the last answer is STATUS with {"error": {"code": CODE, "message": "…"}}.
expect_error() {
  check "$1: status" "$2" "$HTTP_STATUS"
  check "$1: error body" "$3 string" \
    "$(jq -r '[.error.code, (.error.message | if type == "string" and length > 0 then "string" else "missing" end)] | join(" ")' \
      <<<"$HTTP_BODY" 2>/dev/null || echo "not JSON: ${HTTP_BODY:0:120}")"
}

# dplus DATE N — DATE plus N days (N may be negative), YYYY-MM-DD.
dplus() { date -u -d "$1 $(printf '%+d' "$2") day" +%F; }
# daynum DATE — days since 1970-01-01 (the bitmap member, the RESP bit offset).
daynum() { echo $(($(date -u -d "$1" +%s) / 86400)); }
first_of_month() { echo "${1:0:7}-01"; }

secs_left=$((86400 - $(date -u +%s) % 86400))
if ((secs_left < 180)); then
  echo "# $secs_left s before midnight UTC: waiting for the new day"
  sleep $((secs_left + 2))
fi
TODAY=$(date -u +%F)
echo "# today (UTC): $TODAY"

if ! start_service; then
  finish
fi
MAIN_URL=$BASE_URL MAIN_PORT=$PORT MAIN_PID=$SERVICE_PID MAIN_RPORT=$RPORT
use_main() { BASE_URL=$MAIN_URL PORT=$MAIN_PORT SERVICE_PID=$MAIN_PID RPORT=$MAIN_RPORT; }

# --- today, default date, reads that create nothing --------------------------------------------
U=$(uid 1)
http POST "/v1/users/$U/checkins"
check "no body: checks in today → 200" "200 $TODAY" "$HTTP_STATUS $(jget .date)"
check "first check-in: not already, streak 1, month_count 1, points 10" "false 1 1 10" \
  "$(jget '"\(.already) \(.streak) \(.month_count) \(.points)"')"
check "answer names the user and version 1" "$U 1" "$(jget '"\(.user) \(.version)"')"
check "ETag is the version" '"1"' "$HTTP_ETAG"
http POST "/v1/users/$U/checkins" '{}'
check "{}: today again → already, points 0, streak 1, same version" "200 true 0 1 1" \
  "$HTTP_STATUS $(jget '"\(.already) \(.points) \(.streak) \(.version)"')"
http GET "/v1/users/$U/checkins"
check "GET with no parameter: the current month" "200 ${TODAY:0:7}" "$HTTP_STATUS $(jget .month)"
check "current month: today is checked in" "true $((10#${TODAY:8:2}))" \
  "$(jget ".calendar[\"$TODAY\"]") $(jget '.days | join(",")')"
http GET "/v1/users/$U/checkins/streak"
check "streak with no date: today, checked in, 1, before 0" "200 $TODAY true 1 0" \
  "$HTTP_STATUS $(jget '"\(.date) \(.checked_in) \(.streak) \(.streak_before)"')"

F=$(uid 2)
http GET "/v1/users/$F/checkins?month=2024-02"
check "a user with no check-ins: 200, count 0, no days, ETag 0" '200 0 [] "0"' \
  "$HTTP_STATUS $(jget .count) $(jget .days) $HTTP_ETAG"
http GET "/v1/users/$F/checkins?year=2024"
check "a user with no check-ins: year count 0, longest 0" "200 0 0" "$HTTP_STATUS $(jget .count) $(jget .longest_streak)"
http GET "/v1/users/$F/checkins/streak?date=2024-02-29"
check "a user with no check-ins: streak 0" "200 false 0 0" \
  "$HTTP_STATUS $(jget '"\(.checked_in) \(.streak) \(.streak_before)"')"
check "reads create no row" 0 "$(sql "SELECT count(*) FROM bitmapd.value_of(bitmapd.checkin_key($F))")"

# --- leap-year calendars ---------------------------------------------------------------------------
for spec in 2024-02:29 2023-02:28 2100-02:28 2000-02:29 2024-04:30 2024-12:31 1970-01:31 9999-12:31; do
  m=${spec%:*} n=${spec#*:}
  http GET "/v1/users/$F/checkins?month=$m"
  check "calendar $m has $n days, $m-01 … $m-$n, all false" "200 $m $n $m-01 $m-$n 0" \
    "$HTTP_STATUS $(jget .month) $(jget '.calendar | length') $(jget '.calendar | keys_unsorted | first') $(jget '.calendar | keys_unsorted | last') $(jget '[.calendar[] | select(.)] | length')"
done

# --- the seed's points: 10, 20, 30, 50, 50 over five days of one month -----------------------------
# Five consecutive days inside one month and inside the 30-day back-fill window:
# the 1st … 5th of this month, or the last five days of the previous month.
if ((10#${TODAY:8:2} >= 5)); then B1=$(first_of_month "$TODAY"); else B1=$(dplus "$(first_of_month "$TODAY")" -5); fi
B=("$B1" "$(dplus "$B1" 1)" "$(dplus "$B1" 2)" "$(dplus "$B1" 3)" "$(dplus "$B1" 4)")
echo "# five days of one month: ${B[*]}"
P=$(uid 3)
got=""
for i in 0 1 2 3 4; do
  http POST "/v1/users/$P/checkins" "{\"date\": \"${B[$i]}\"}"
  got+="$HTTP_STATUS:$(jget '"\(.streak)/\(.points)/\(.month_count)/\(.already)"') "
done
check "five days in a row: streak/points/month_count 1/10 2/20 3/30 4/50 5/50" \
  "200:1/10/1/false 200:2/20/2/false 200:3/30/3/false 200:4/50/4/false 200:5/50/5/false " "$got"
v_p=$(jget .version)
http POST "/v1/users/$P/checkins" "{\"date\": \"${B[4]}\"}"
check "the fifth day again: already, 0 points, streak 5, version unchanged" "200 true 0 5 $v_p \"$v_p\"" \
  "$HTTP_STATUS $(jget '"\(.already) \(.points) \(.streak) \(.version)"') $HTTP_ETAG"
http GET "/v1/users/$P/checkins/streak?date=${B[4]}"
check "streak on the fifth day: 5, before 4" "200 true 5 4" \
  "$HTTP_STATUS $(jget '"\(.checked_in) \(.streak) \(.streak_before)"')"
next=$(dplus "${B[4]}" 1)
want_before=5
[[ ${next:8:2} == 01 ]] && want_before=0 # month scope: a new month starts over
http GET "/v1/users/$P/checkins/streak?date=$next"
check "streak the day after ($next): not checked in, 0, before $want_before" "200 false 0 $want_before" \
  "$HTTP_STATUS $(jget '"\(.checked_in) \(.streak) \(.streak_before)"')"
http GET "/v1/users/$P/checkins?month=${B1:0:7}"
check "month ${B1:0:7}: count 5, the five days, five true entries" \
  "200 5 $((10#${B[0]:8:2})),$((10#${B[1]:8:2})),$((10#${B[2]:8:2})),$((10#${B[3]:8:2})),$((10#${B[4]:8:2})) 5" \
  "$HTTP_STATUS $(jget .count) $(jget '.days | join(",")') $(jget '[.calendar[] | select(.)] | length')"
check "month answer ETag is the version" "\"$v_p\"" "$HTTP_ETAG"
check "month calendar: true exactly on the five days" \
  "${B[0]} ${B[1]} ${B[2]} ${B[3]} ${B[4]}" "$(jget '[.calendar | to_entries[] | select(.value) | .key] | join(" ")')"
http GET "/v1/users/$P/checkins?year=${B1:0:4}"
check "year ${B1:0:4}: count 5, 12 months, ${B1:0:7} has 5, sum 5, longest 5" \
  "200 ${B1:0:4} 5 12 5 5 5" \
  "$HTTP_STATUS $(jget .year) $(jget .count) $(jget '.months | length') $(jget ".months[\"${B1:0:7}\"]") $(jget '[.months[]] | add') $(jget .longest_streak)"
check "year months are YYYY-01 … YYYY-12 in order" "${B1:0:4}-01 ${B1:0:4}-12" \
  "$(jget '.months | keys_unsorted | first') $(jget '.months | keys_unsorted | last')"

# --- the view, checkin_days and RESP agree with the API ------------------------------------------
check "bitmapd.checkins: days, first_day, last_day, version" "5|${B[0]}|${B[4]}|$v_p" \
  "$(sql "SELECT days, first_day, last_day, version FROM bitmapd.checkins WHERE user_id = $P")"
check "bitmapd.checkins_of(user) is the view's row for that user" "5|${B[0]}|${B[4]}|$v_p" \
  "$(sql "SELECT days, first_day, last_day, version FROM bitmapd.checkins_of($P)")"
check "bitmapd.checkins_of(a user without check-ins) is empty" "0" \
  "$(sql "SELECT count(*) FROM bitmapd.checkins_of(9223372036854775807)")"
check "bitmapd.checkins: bytes is the stored size" "t" \
  "$(sql "SELECT c.bytes = octet_length(b.bits) FROM bitmapd.checkins c, bitmapd.value_of(bitmapd.checkin_key(c.user_id)) b WHERE c.user_id = $P")"
check "bitmapd.checkin_days(user): the five dates" "${B[*]}" \
  "$(sql "SELECT string_agg(d::text, ' ') FROM bitmapd.checkin_days($P) d")"
check "bitmapd.checkin_days types: date" "date" "$(sql "SELECT pg_typeof(d) FROM bitmapd.checkin_days($P) d LIMIT 1")"
check "view column types" "bigint bigint date date bigint bigint timestamp with time zone" \
  "$(sql "SELECT string_agg(format_type(atttypid, atttypmod), ' ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'bitmapd.checkins'::regclass AND attnum > 0")"
check "bitmapd.checkin_day(date) is the member" "$(daynum "${B[2]}")" "$(sql "SELECT bitmapd.checkin_day('${B[2]}')")"
check "RESP: GETBIT checkin:$P <day of ${B[2]}> is 1" 1 "$(rcli GETBIT "checkin:$P" "$(daynum "${B[2]}")")"
check "RESP: GETBIT checkin:$P <day after> is 0" 0 "$(rcli GETBIT "checkin:$P" "$(daynum "$next")")"
check "RESP: BITCOUNT checkin:$P is 5" 5 "$(rcli BITCOUNT "checkin:$P")"
R1=$(uid 4)
rcli SETBIT "checkin:$R1" "$(daynum "$(dplus "$TODAY" -2)")" 1 >/dev/null
http GET "/v1/users/$R1/checkins/streak?date=$(dplus "$TODAY" -2)"
check "a SETBIT over RESP is a check-in over HTTP" "200 true 1" "$HTTP_STATUS $(jget '"\(.checked_in) \(.streak)"')"
rcli SETBIT "checkin:0$R1" 5 1 >/dev/null
rcli SETBIT "checkin:$R1" 4000000000 1 >/dev/null
check "the view skips non-canonical keys (checkin:0…) and bits that are not dates" "1|1" \
  "$(sql "SELECT count(*), max(days) FROM bitmapd.checkins WHERE user_id = $R1")"
http GET "/v1/users/$R1/checkins?year=$(dplus "$TODAY" -2 | cut -c1-4)"
check "a bit past 9999-12-31 does not disturb the year" "200 1" "$HTTP_STATUS $(jget .count)"

# --- back-fill joining two runs -------------------------------------------------------------------
J=$(uid 5)
for i in 0 1 3 4; do http POST "/v1/users/$J/checkins" "{\"date\": \"${B[$i]}\"}"; done
check "days 1,2,4,5: streak on day 5 is 2" "200 2 20" "$HTTP_STATUS $(jget .streak) $(jget .points)"
http POST "/v1/users/$J/checkins" "{\"date\": \"${B[2]}\"}"
check "back-fill day 3: the run ending on it is 3, points 30, month_count 5" "200 false 3 30 5" \
  "$HTTP_STATUS $(jget '"\(.already) \(.streak) \(.points) \(.month_count)"')"
http GET "/v1/users/$J/checkins/streak?date=${B[4]}"
check "after the back-fill, the streak on day 5 is 5" "5 4" "$(jget .streak) $(jget .streak_before)"
http GET "/v1/users/$J/checkins?year=${B1:0:4}"
check "after the back-fill, the year's longest streak is 5" 5 "$(jget .longest_streak)"

# --- If-Match -----------------------------------------------------------------------------------------
http POST "/v1/users/$J/checkins" "{\"date\": \"$TODAY\"}" -H 'If-Match: "999"'
expect_error "If-Match not the version" 412 precondition_failed
http GET "/v1/users/$J/checkins/streak?date=$TODAY"
check "412 changed nothing" "false \"5\"" "$(jget .checked_in) $HTTP_ETAG"
http POST "/v1/users/$J/checkins" "{\"date\": \"$TODAY\"}" -H 'If-Match: "5"'
check "If-Match equal to the version → 200, version 6" "200 6" "$HTTP_STATUS $(jget .version)"
http POST "/v1/users/$J/checkins" "{\"date\": \"$TODAY\"}" -H 'If-Match: nonsense'
expect_error "malformed If-Match" 400 invalid_header

# --- errors -------------------------------------------------------------------------------------------
E=$(uid 6)
for bad in abc -1 9223372036854775808 1.5 "%201"; do
  http POST "/v1/users/$bad/checkins" '{}'
  expect_error "POST user '$bad'" 400 invalid_id
  http GET "/v1/users/$bad/checkins?month=2024-02"
  expect_error "GET month, user '$bad'" 400 invalid_id
  http GET "/v1/users/$bad/checkins/streak"
  expect_error "GET streak, user '$bad'" 400 invalid_id
done
http POST "/v1/users/9223372036854775807/checkins/streak" ''
expect_error "POST on the streak route" 405 method_not_allowed
http DELETE "/v1/users/$E/checkins"
expect_error "DELETE check-ins" 405 method_not_allowed
check_match "405 lists the allowed methods" '^(GET, POST|POST, GET)$' "$(sed -n 's/^Allow: //p' <<<"$HTTP_HEADERS")"
http GET "/v1/users/$E/checkins/longest"
expect_error "an unknown check-in path" 404 not_found

for bad in '"2023-02-29"' '"2024-02-30"' '"2024-13-01"' '"2024-1-01"' '"2024-01-1"' '"2024-00-10"' \
  '"24-01-01"' '" 2024-01-01"' '"2024-01-01T00:00:00Z"' '"2024/01/01"' '""' 20240101 null true '["2024-01-01"]'; do
  http POST "/v1/users/$E/checkins" "{\"date\": $bad}"
  expect_error "POST date $bad" 400 invalid_body
done
http POST "/v1/users/$E/checkins" "{\"date\": \"$TODAY\", \"points\": 100}"
expect_error "POST unknown field" 400 invalid_body
http POST "/v1/users/$E/checkins" '{"date": '
expect_error "POST malformed JSON" 400 invalid_json
http POST "/v1/users/$E/checkins" '["2024-01-01"]'
expect_error "POST a JSON array" 400 invalid_json
http POST "/v1/users/$E/checkins" "{\"date\": \"$TODAY\", \"date\": \"$TODAY\"}"
expect_error "POST a duplicate key" 400 invalid_json
http POST "/v1/users/$E/checkins?date=$TODAY" '{}'
expect_error "POST unknown query parameter" 400 invalid_parameter
check "no row was written by a rejected request" 0 "$(sql "SELECT count(*) FROM bitmapd.value_of(bitmapd.checkin_key($E))")"

# future and too old, each against "today" read just before and after the request
future_or_old() { # NAME DATE STATUS_IF_TODAY_IS... — checks the answer against the dates around it
  local name=$1 date=$2 t0 t1 want0 want1
  t0=$(date -u +%F)
  http POST "/v1/users/$E/checkins" "{\"date\": \"$date\"}"
  t1=$(date -u +%F)
  want0=$(expected_for "$date" "$t0") want1=$(expected_for "$date" "$t1")
  got="$HTTP_STATUS $(jget '.error.code // "ok"')"
  if [[ $got == "$want1" ]]; then check "$name" "$want1" "$got"; else check "$name" "$want0" "$got"; fi
}
expected_for() { # DATE TODAY → "200 ok" | "400 date_in_future" | "400 date_too_old" (backfill 30)
  local d t
  d=$(daynum "$1") t=$(daynum "$2")
  if ((d > t)); then echo "400 date_in_future"; elif ((t - d > 30)); then echo "400 date_too_old"; else echo "200 ok"; fi
}
future_or_old "tomorrow is in the future" "$(dplus "$TODAY" 1)"
future_or_old "9999-12-31 is in the future" 9999-12-31
future_or_old "31 days ago is too old" "$(dplus "$TODAY" -31)"
future_or_old "1970-01-01 is too old" 1970-01-01
future_or_old "30 days ago may be back-filled" "$(dplus "$TODAY" -30)"
http POST "/v1/users/$E/checkins" "{\"date\": \"$(dplus "$TODAY" -45)\"}"
check_match "too old: the message names the limit and the earliest date" \
  "30 day.*$(dplus "$(date -u +%F)" -30)|30 day.*$(dplus "$TODAY" -30)" "$(jget .error.message)"
http POST "/v1/users/$E/checkins" "{\"date\": \"$(dplus "$TODAY" 3)\"}"
check_match "future: the message names today and the zone" "after today.*UTC" "$(jget .error.message)"

for q in "month=2024-02&year=2024" "month=2024-13" "month=2024-2" "month=1969-12" "month=2024-02-01" \
  "month=" "year=24" "year=1969" "year=10000" "year=2024-02" "month=2024-01&month=2024-02" "date=2024-01-01" "x=1"; do
  http GET "/v1/users/$E/checkins?$q"
  expect_error "GET checkins?$q" 400 invalid_parameter
done
for q in "date=2023-02-29" "date=2024-02-30" "date=2024-13-01" "date=2024-1-01" "date=" "month=2024-02" \
  "date=2024-01-01&date=2024-01-02"; do
  http GET "/v1/users/$E/checkins/streak?$q"
  expect_error "GET streak?$q" 400 invalid_parameter
done
http GET "/v1/users/$E/checkins/streak?date=2100-03-01"
check "streak of a far future date is a plain 0" "200 2100-03-01 false 0 0" \
  "$HTTP_STATUS $(jget '"\(.date) \(.checked_in) \(.streak) \(.streak_before)"')"

# --- concurrent check-ins ---------------------------------------------------------------------------
# wait_all — waits for the curls in pids (a plain `wait` would wait for the services too).
pids=()
wait_all() {
  local p
  for p in "${pids[@]}"; do wait "$p"; done
  pids=()
}
C1=$(uid 7)
expect20=()
for i in $(seq 0 19); do
  d=$(dplus "$TODAY" "-$i")
  expect20+=("$d")
  curl -s --max-time 30 -o "$T/c1.$i.json" -w '%{http_code}\n' -XPOST "$MAIN_URL/v1/users/$C1/checkins" -d "{\"date\": \"$d\"}" >"$T/c1.$i.code" &
  pids+=($!)
done
wait_all
codes=$(cat "$T"/c1.*.code | sort | uniq -c | awk '{print $2 "x" $1}' | xargs)
check "20 parallel POSTs of different dates: all 200" "200x20" "$codes"
check "20 parallel POSTs: none answered already" 0 "$(cat "$T"/c1.*.json | jq -s '[.[] | select(.already)] | length')"
check "20 parallel POSTs: all 20 dates are stored" "$(printf '%s\n' "${expect20[@]}" | sort | xargs)" \
  "$(sql "SELECT string_agg(d::text, ' ' ORDER BY d) FROM bitmapd.checkin_days($C1) d")"
check "20 parallel POSTs: version 20, 20 days in the view" "20|20" \
  "$(sql "SELECT version, days FROM bitmapd.checkins WHERE user_id = $C1")"
sum=0
for m in $(printf '%s\n' "${expect20[@]}" | cut -c1-7 | sort -u); do
  http GET "/v1/users/$C1/checkins?month=$m"
  sum=$((sum + $(jget .count)))
done
check "20 parallel POSTs: the month calendars count 20" 20 "$sum"

C2=$(uid 8)
for i in $(seq 0 9); do
  curl -s --max-time 30 -o "$T/c2.$i.json" -XPOST "$MAIN_URL/v1/users/$C2/checkins" -d "{\"date\": \"$TODAY\"}" &
  pids+=($!)
done
wait_all
check "10 parallel POSTs of one date: exactly one already=false" "1 9" \
  "$(cat "$T"/c2.*.json | jq -s '"\([.[] | select(.already == false)] | length) \([.[] | select(.already == true)] | length)"' -r)"
check "10 parallel POSTs of one date: points only once" 10 "$(cat "$T"/c2.*.json | jq -s '[.[].points] | add')"
check "10 parallel POSTs of one date: version 1" "1" "$(sql "SELECT version FROM bitmapd.checkins WHERE user_id = $C2")"

# --- a second instance: unbounded streaks, other points, long back-fill, small bodies -----------------
if ! start_service --set checkin.streak_scope=unbounded --set checkin.points=5,15 \
  --set checkin.backfill_days=400 --set http.max_body_bytes=1024; then
  finish
fi
UNB_URL=$BASE_URL UNB_PORT=$PORT
use_main

C3=$(uid 9)
for i in $(seq 0 9); do
  url=$MAIN_URL
  ((i % 2)) && url=$UNB_URL
  curl -s --max-time 30 -o "$T/c3.$i.json" -XPOST "$url/v1/users/$C3/checkins" -d "{\"date\": \"$(dplus "$TODAY" "-$i")\"}" &
  pids+=($!)
done
wait_all
check "two instances, 10 parallel POSTs: all 10 dates stored, version 10" "10|10" \
  "$(sql "SELECT days, version FROM bitmapd.checkins WHERE user_id = $C3")"
check "two instances: all answered" 10 "$(cat "$T"/c3.*.json | jq -s '[.[] | select(.already == false)] | length')"

# Four days across the start of this month, written through the unbounded instance.
M1=$(first_of_month "$TODAY")
S=$(uid 10)
got=""
BASE_URL=$UNB_URL
for k in -3 -2 -1 0; do
  http POST "/v1/users/$S/checkins" "{\"date\": \"$(dplus "$M1" "$k")\"}"
  got+="$HTTP_STATUS:$(jget '"\(.streak)/\(.points)"') "
done
check "unbounded, points 5,15: across $M1 the streak runs on, 1/5 2/15 3/15 4/15" \
  "200:1/5 200:2/15 200:3/15 200:4/15 " "$got"
http GET "/v1/users/$S/checkins/streak?date=$M1"
check "unbounded: streak on $M1 is 4, before 3" "4 3" "$(jget .streak) $(jget .streak_before)"
use_main
http GET "/v1/users/$S/checkins/streak?date=$M1"
check "month scope, same rows: streak on $M1 is 1, before 0 (reset on the 1st)" "1 0" \
  "$(jget .streak) $(jget .streak_before)"
http POST "/v1/users/$S/checkins" "{\"date\": \"$M1\"}"
check "month scope: checking in $M1 again → already, streak 1, points 0" "true 1 0" \
  "$(jget '"\(.already) \(.streak) \(.points)"')"
http GET "/v1/users/$S/checkins?year=${M1:0:4}"
if [[ ${M1:5:2} == 01 ]]; then want_month=1 want_unb=1; else want_month=3 want_unb=4; fi
check "month scope: longest streak of ${M1:0:4} is $want_month" "$want_month" "$(jget .longest_streak)"
BASE_URL=$UNB_URL
http GET "/v1/users/$S/checkins?year=${M1:0:4}"
check "unbounded: longest streak of ${M1:0:4} is $want_unb" "$want_unb" "$(jget .longest_streak)"

# Three days across New Year, through the unbounded instance (back-fill 400 days).
Y1="${TODAY:0:4}-01-01"
Y0=$((${TODAY:0:4} - 1))
Y=$(uid 11)
for k in -2 -1 0; do http POST "/v1/users/$Y/checkins" "{\"date\": \"$(dplus "$Y1" "$k")\"}"; done
check "unbounded: across New Year the streak is 3" "200 3 15" "$HTTP_STATUS $(jget .streak) $(jget .points)"
http GET "/v1/users/$Y/checkins?year=${Y1:0:4}"
check "unbounded: year ${Y1:0:4} clips the run: count 1, longest 1" "1 1" "$(jget .count) $(jget .longest_streak)"
http GET "/v1/users/$Y/checkins?year=$Y0"
check "unbounded: year $Y0: count 2, December 2, longest 2" "2 2 2" \
  "$(jget .count) $(jget ".months[\"$Y0-12\"]") $(jget .longest_streak)"
use_main
http GET "/v1/users/$Y/checkins/streak?date=$Y1"
check "month scope: streak on $Y1 is 1" "1 0" "$(jget .streak) $(jget .streak_before)"

BASE_URL=$UNB_URL
http POST "/v1/users/$Y/checkins" "{\"date\": \"$TODAY\"$(printf '%*s' 1100 '')}"
expect_error "a body over [http] max_body_bytes" 413 payload_too_large
use_main
stop_service "$UNB_PORT"
use_main

# --- "today" in zones 26 hours apart -----------------------------------------------------------------
if start_service --set checkin.time_zone=Pacific/Kiritimati; then
  K_PORT=$PORT
  Z=$(uid 12)
  k0=$(TZ=Pacific/Kiritimati date +%F)
  http POST "/v1/users/$Z/checkins"
  k1=$(TZ=Pacific/Kiritimati date +%F)
  d=$(jget .date)
  check_match "UTC+14: no date means today in Kiritimati ($k0)" "^($k0|$k1)\$" "$d"
  http POST "/v1/users/$Z/checkins" "{\"date\": \"$d\"}"
  check "UTC+14: its today is not in the future" "200 true" "$HTTP_STATUS $(jget .already)"
  http POST "/v1/users/$Z/checkins" "{\"date\": \"$(dplus "$k1" 1)\"}"
  expect_error "UTC+14: tomorrow there is in the future" 400 date_in_future
  http GET "/v1/users/$Z/checkins"
  check "UTC+14: the default month is Kiritimati's" "${d:0:7}" "$(jget .month)"
  stop_service "$K_PORT"
fi
if start_service --set checkin.time_zone=Etc/GMT+12; then
  W_PORT=$PORT
  Z=$(uid 13)
  w0=$(TZ=Etc/GMT+12 date +%F)
  http POST "/v1/users/$Z/checkins"
  w1=$(TZ=Etc/GMT+12 date +%F)
  check_match "UTC-12: no date means today at UTC-12 ($w0)" "^($w0|$w1)\$" "$(jget .date)"
  kd=$(TZ=Pacific/Kiritimati date +%F)
  http POST "/v1/users/$Z/checkins" "{\"date\": \"$kd\"}"
  expect_error "UTC-12: Kiritimati's today ($kd) is in the future" 400 date_in_future
  check_match "UTC-12: the message names the zone" "Etc/GMT\\+12" "$(jget .error.message)"
  http POST "/v1/users/$Z/checkins" "{\"date\": \"$(dplus "$(TZ=Etc/GMT+12 date +%F)" -1)\"}"
  check "UTC-12: yesterday there may be back-filled" 200 "$HTTP_STATUS"
  stop_service "$W_PORT"
fi
# glibc silently treats an unknown zone name as UTC: the service refuses to start instead
rc=0
out=$("$BITMAPD_BIN" --set checkin.time_zone=Mars/Olympus_Mons --routes 2>&1 >/dev/null) || rc=$?
check "an unknown check-in time zone: the service refuses to start (exit 2)" 2 "$rc"
check_match "an unknown check-in time zone is named" "Mars/Olympus_Mons" "$out"
rc=0
out=$("$BITMAPD_BIN" --set inbox.period_time_zone=Mars/Olympus_Mons --routes 2>&1 >/dev/null) || rc=$?
check "an unknown period time zone: the service refuses to start (exit 2)" 2 "$rc"
rc=0
"$BITMAPD_BIN" --set checkin.time_zone=UTC0 --routes >/dev/null 2>&1 || rc=$?
check "a POSIX zone rule is accepted" 0 "$rc"
use_main

# --- a corrupt row ---------------------------------------------------------------------------------------
# The key's own row (make integration-own-rows): its checksum column made wrong. In a bucket row (migrations/0015,
# the default layout): one byte of the key's value flipped, which its entry's
# checksum catches; a neighbour in the same bucket must stay readable.
K=$(uid 15)
KN=$((K ^ 1)) # the same bucket (16 keys: user >> 4)
http POST "/v1/users/$K/checkins"
http POST "/v1/users/$KN/checkins"
if [[ -n $(sql "SELECT bucket_key FROM bitmapd.value_of(bitmapd.checkin_key($K))") ]]; then
  # values lie back to back at the end of the bucket, in slot order: the second byte of K's
  sql "UPDATE bitmapd.bitmaps b SET bits = set_byte(b.bits, x.p + 1, get_byte(b.bits, x.p + 1) # 16)
         FROM (SELECT bb.key, length(bb.bits) - (SELECT sum(length(e.value)) FROM bitmapd._bucket_entries(bb.bits) e
                                                  WHERE e.slot >= r.slot)::int AS p
                 FROM bitmapd.bucket_of(bitmapd.checkin_key($K)) r JOIN bitmapd.bitmaps bb ON bb.key = r.bucket_key) x
        WHERE b.key = x.key" >/dev/null
  http GET "/v1/users/$KN/checkins"
  check "a corrupt member of a bucket: its neighbour still reads (200, one day)" "200 1" "$HTTP_STATUS $(jget .count)"
else
  sql "UPDATE bitmapd.bitmaps SET checksum = (checksum + 1) % 4294967296 WHERE key = bitmapd.checkin_key($K)" >/dev/null
fi
http GET "/v1/users/$K/checkins"
expect_error "a corrupt row: GET month" 500 corrupt_bitmap
check_match "a corrupt row: the message names the key" "checkin:$K" "$(jget .error.message)"
http GET "/v1/users/$K/checkins/streak"
expect_error "a corrupt row: GET streak" 500 corrupt_bitmap
http POST "/v1/users/$K/checkins" "{\"date\": \"$(dplus "$TODAY" -1)\"}"
expect_error "a corrupt row: POST" 500 corrupt_bitmap
check "a corrupt row is never overwritten" 1 "$(sql "SELECT version FROM bitmapd.value_of(bitmapd.checkin_key($K))")"

# --- storage: bytes per user-year ------------------------------------------------------------------------
# MEASURE_USERS users with one or three years of check-ins each, written through the
# write path with one R.SETINTARRAY per user (the same bitmap the HTTP POSTs build),
# then copied into an empty table of the same definition (indexes included) so that
# pg_total_relation_size counts exactly these rows, with no dead tuples.
# The same users in the seed's Redis layout (user:sign:{user}:{yyyyMM}, one SETBIT
# per day) in a private redis-server give Redis's real cost.
YEAR=$((${TODAY:0:4} - 1))
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$T/redis.pid" --dir "$T" --logfile "$T/redis.log" >/dev/null 2>&1
for ((i = 0; i < 50; i++)); do
  [[ $(redis-cli -p "$REDIS_PORT" PING 2>/dev/null) == PONG ]] && break
  sleep 0.1
done
check "private redis-server for the comparison answers PING" PONG "$(redis-cli -p "$REDIS_PORT" PING 2>&1)"
used_memory() { redis-cli -p "$REDIS_PORT" INFO memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p'; }

measure() { # NAME MODEL YEARS BASE — MODEL: half (each day with p=1/2) | ten (10 days a month)
  local name=$1 model=$2 years=$3 base=$4 lo hi out r0 r1
  lo=$(uid "$base") hi=$(uid $((base + MEASURE_USERS - 1)))
  python3 - "$model" "$lo" "$MEASURE_USERS" "$((YEAR - years + 1))" "$years" "$T/load.bitmapd" "$T/load.redis" <<'PY'
import datetime, random, sys
model, lo, n, year0, years, out_b, out_r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
rnd = random.Random(lo)
epoch = datetime.date(1970, 1, 1)
def resp(*args):
    return "*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a), a) for a in map(str, args))
def month_days(y, m):
    start = datetime.date(y, m, 1)
    return [(start - epoch).days + i for i in range(((datetime.date(y + m // 12, m % 12 + 1, 1)) - start).days)]
with open(out_b, "w") as fb, open(out_r, "w") as fr:
    for u in range(lo, lo + n):
        days = []
        for y in range(year0, year0 + years):
            for m in range(1, 13):
                md = month_days(y, m)
                days += [d for d in md if rnd.random() < 0.5] if model == "half" else sorted(rnd.sample(md, 10))
        fb.write(resp("R.SETINTARRAY", "checkin:%d" % u, *days))
        for d in days:
            date = epoch + datetime.timedelta(days=d)
            fr.write(resp("SETBIT", "user:sign:%d:%04d%02d" % (u, date.year, date.month), date.day - 1, 1))
PY
  redis-cli -p "$RPORT" --pipe <"$T/load.bitmapd" >"$T/pipe.bitmapd" 2>&1
  check_match "$name: the pipe loaded every user with no error" "errors: 0, replies: $MEASURE_USERS" "$(tail -n 1 "$T/pipe.bitmapd")"
  r0=$(used_memory)
  redis-cli -p "$REDIS_PORT" --pipe <"$T/load.redis" >/dev/null 2>&1
  r1=$(used_memory)
  out=$(psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 <<SQL 2>&1
CREATE TEMP TABLE m (LIKE bitmapd.bitmaps INCLUDING ALL);
SELECT pg_total_relation_size('m');
-- the users' bucket rows (the default layout), or their own rows (make integration-own-rows)
INSERT INTO m SELECT * FROM bitmapd.bitmaps
 WHERE key >= convert_to('checkin:', 'UTF8') AND key < convert_to('checkin;', 'UTF8')
   AND (bitmapd.checkin_user_of(key) BETWEEN $lo AND $hi
        OR (bucket > 0 AND key IN (SELECT convert_to('checkin:~' || n, 'UTF8') FROM generate_series($lo >> 4, $hi >> 4) n)));
SELECT pg_total_relation_size('m'), count(*), round(avg(v.cardinality), 1), round(avg(octet_length(v.bits)), 1),
       (SELECT round(avg(pg_column_size(m.*)), 1) FROM m),
       string_agg(DISTINCT CASE WHEN get_byte(v.bits, 0) = 177 THEN 'dense' ELSE 'roaring' END, ',')
  FROM bitmapd._values_in(convert_to('checkin:', 'UTF8'), convert_to('checkin;', 'UTF8')) v
 WHERE bitmapd.checkin_user_of(v.key) BETWEEN $lo AND $hi;
SQL
  )
  local before after rows card bits tuple enc per redis_per
  before=$(sed -n 1p <<<"$out")
  IFS='|' read -r after rows card bits tuple enc <<<"$(sed -n 2p <<<"$out")"
  check "$name: $MEASURE_USERS rows measured" "$MEASURE_USERS" "$rows"
  per=$(((after - before) / (MEASURE_USERS * years)))
  redis_per=$(((r1 - r0) / (MEASURE_USERS * years)))
  echo "# storage, $name: $MEASURE_USERS users x $years year(s) to $YEAR, $card days a user on average"
  echo "#   bitmapd row: $bits bytes of bits ($enc), $tuple bytes a tuple"
  echo "#   bitmapd: $per bytes a user-year in pg_total_relation_size (heap + TOAST + both indexes)"
  echo "#   the seed's estimate: 12 x 3 bytes = 36 bytes a user-year of raw bits (4-byte values: 48)"
  echo "#   redis-server: $redis_per bytes a user-year (12 keys a year, used_memory)"
  echo "#   a row per check-in (the seed's SQL table, 47 bytes a row): $((47 * ${card%.*} / years)) bytes a user-year"
  check "$name: a user-year costs less than a row per check-in (47 bytes each)" yes \
    "$( ((per > 0 && per < 47 * ${card%.*} / years)) && echo yes || echo no)"
  check "$name: the view reports the stored bytes" "$bits" \
    "$(sql "SELECT round(avg(bytes), 1) FROM bitmapd.checkins WHERE user_id BETWEEN $lo AND $hi")"
}
measure "50% of days" half 1 100000
measure "10 days a month" ten 1 200000
measure "50% of days, three years" half 3 300000
one_key=$(redis-cli -p "$REDIS_PORT" MEMORY USAGE "user:sign:$(uid 100000):${YEAR}01")
echo "#   redis-server MEMORY USAGE of one month key (a 4-byte string): $one_key bytes"
kill "$(cat "$T/redis.pid")" 2>/dev/null
rm -f "$T/redis.pid"

# --- the database stopped ---------------------------------------------------------------------------------
if [[ -n ${BITMAPD_PGDIR:-} ]] && bash "$PG_SH" stop "$BITMAPD_PGDIR" >"$T/pg-stop.log" 2>&1; then
  http POST "/v1/users/$U/checkins" '{}' --max-time 5
  expect_error "database stopped: POST" 503 db_unavailable
  http GET "/v1/users/$U/checkins?year=2024" "" --max-time 5
  expect_error "database stopped: GET year" 503 db_unavailable
  http GET "/v1/users/$U/checkins/streak" "" --max-time 5
  expect_error "database stopped: GET streak" 503 db_unavailable
  db_start_and_wait "$MAIN_URL"
  code=$DB_HEALTH
  check "database back: healthz 200" 200 "$code"
  http GET "/v1/users/$U/checkins/streak?date=$TODAY"
  check "database back: the check-in is there" "200 true" "$HTTP_STATUS $(jget .checked_in)"
else
  check "pg.sh stop \$BITMAPD_PGDIR (needed for the 503 scenario)" ok "failed: $(tail -n 3 "$T/pg-stop.log" 2>/dev/null)"
  bash "$PG_SH" start "$BITMAPD_PGDIR" >/dev/null 2>&1 || true
fi

stop_service "$MAIN_PORT"
check "SIGTERM: exit status 0" 0 "$SERVICE_EXIT"
check_logs_clean

finish
