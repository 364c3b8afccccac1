#!/usr/bin/env bash
# [inbox] keep_months: the message box keeps the last N calendar months of history
# and drops what is older from every box, once per new bound, one instance walking
# (the claim in bitmapd.inbox_retention); an instance with it off, or a bound already
# applied, changes nothing. Periods are set far in the past (1990) so that N can be
# chosen to put the bound exactly there; the periods table is restored at the end.
# Needs BITMAPD_DSN, curl, jq, psql.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

PSQL=(psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }
T=$BITMAPD_TEST_TMP
U=$((($(date +%s) % 100000) * 1000 + 770)) # users U .. U+2 of this run

# the periods other tests recorded, put back at the end
sql "CREATE TABLE IF NOT EXISTS public.retention_test_saved AS SELECT * FROM bitmapd.inbox_periods WITH NO DATA" >/dev/null
sql "INSERT INTO public.retention_test_saved SELECT * FROM bitmapd.inbox_periods; DELETE FROM bitmapd.inbox_periods" >/dev/null
sql "UPDATE bitmapd.inbox_retention SET applied_before = 0, applied_period = NULL, finished_at = NULL,
       running_until = NULL, running_before = NULL" >/dev/null
restore() {
  sql "DELETE FROM bitmapd.inbox_periods; INSERT INTO bitmapd.inbox_periods SELECT * FROM public.retention_test_saved;
       DROP TABLE public.retention_test_saved;
       UPDATE bitmapd.inbox_retention SET applied_before = 0, applied_period = NULL, finished_at = NULL,
              running_until = NULL, running_before = NULL" >/dev/null
}

# keep_months that makes 1990-02 the oldest month kept
now_months=$((10#$(date +%Y) * 12 + 10#$(date +%m) - 1))
KEEP=$((now_months - (1990 * 12 + 1) + 1))

echo "# an instance with keep_months off: boxes keep everything"
start_service --set inbox.retention_check_s=1 || {
  restore
  finish
}
http PUT /v1/periods/1990-01 '{"first_message": 100}'
check "PUT 1990-01" 200 "$HTTP_STATUS"
http PUT /v1/periods/1990-02 '{"first_message": 200}'
check "PUT 1990-02" 200 "$HTTP_STATUS"
for u in $U $((U + 1)); do
  http POST "/v1/users/$u/pushes" '{"messages": [50, 150, 250, 350]}'
  check "push to $u" 200 "$HTTP_STATUS"
done
http POST "/v1/users/$U/reads" '{"messages": [150, 250]}'
check "read marks of $U" 200 "$HTTP_STATUS"
sleep 1.5 # a check of the instance with retention off would have come by now
http GET "/v1/users/$U/messages?limit=10"
check "off: every message kept" "[350,250,150,50]" "$(jget '[.messages[].id]')"
check "off: nothing recorded" 0 "$(sql "SELECT applied_before FROM bitmapd.inbox_retention")"
stop_service

echo "# keep_months on two instances: one walks, every box loses what is older"
start_service --set inbox.retention_check_s=1 --set "inbox.keep_months=$KEEP" || {
  restore
  finish
}
A=$PORT
start_service --set inbox.retention_check_s=1 --set "inbox.keep_months=$KEEP" || {
  restore
  finish
}
wait_for "the bound of 1990-02 is recorded" \
  "[[ \$(sql \"SELECT applied_before || ' ' || applied_period FROM bitmapd.inbox_retention\") == '200 1990-02' ]]"
check "the claim is let go" "" "$(sql "SELECT running_until FROM bitmapd.inbox_retention")"
http GET "/v1/users/$U/messages?limit=10"
check "$U keeps 1990-02 onwards" "[350,250]" "$(jget '[.messages[].id]')"
http GET "/v1/users/$((U + 1))/messages?limit=10"
check "$((U + 1)) too" "[350,250]" "$(jget '[.messages[].id]')"
http GET "/v1/users/$U/messages/150"
check "a dropped message is unknown" false "$(jget .readable)"
http GET "/v1/users/$U/messages/250"
check "a kept read mark stays" true "$(jget .read)"
walks=$(cat "$T"/bitmapd.*.log | grep -c 'inbox retention: dropping older history')
check "one instance walked" 1 "$walks"

echo "# a later push below the bound stays until the bound moves"
http POST "/v1/users/$((U + 2))/pushes" '{"messages": [60, 260]}'
sleep 2.5 # two checks of each instance: the bound is already applied
http GET "/v1/users/$((U + 2))/messages?limit=10"
check "an applied bound is not walked again" "[260,60]" "$(jget '[.messages[].id]')"
http PUT /v1/periods/1990-03 '{"first_message": 300}'
check "PUT 1990-03" 200 "$HTTP_STATUS"
stop_service "$PORT"
stop_service "$A"

echo "# a stop in the middle of a walk: the walk ends after its page, records nothing, lets go"
V=$((U + 1000)) # 50,000 more boxes, each with message 260, below the next bound
python3 -c "import json; print(json.dumps({'message': 260, 'users': list(range($V, $V + 50000))}))" >"$T/fan.json"
start_service || {
  restore
  finish
}
out=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$T/fan.json" \
  "$BASE_URL/v1/pushes")
check "fan-out of 260 to 50,000 boxes" 200 "$out"
stop_service
start_service --set inbox.retention_check_s=1 --set "inbox.keep_months=$((KEEP - 1))" || {
  restore
  finish
}
wait_for "the walk to 300 starts" "grep -q 'dropping older history.*before=300' '$T/bitmapd.$PORT.log'"
stop_service
check "the service stopped cleanly in the middle of the walk" 0 "$SERVICE_EXIT"
check "no claim is left behind" "" "$(sql "SELECT running_until FROM bitmapd.inbox_retention")"
if grep -q 'walk incomplete.*the service is stopping' "$T/bitmapd.$PORT.log"; then
  check "a walk cut short records no bound" 200 "$(sql "SELECT applied_before FROM bitmapd.inbox_retention")"
else # the walk was quicker than the stop: it ended, and its bound stands
  echo "# the walk ended before the stop reached it"
  check "a walk that ended records its bound" 300 "$(sql "SELECT applied_before FROM bitmapd.inbox_retention")"
fi

start_service --set inbox.retention_check_s=1 --set "inbox.keep_months=$((KEEP - 1))" || {
  restore
  finish
}
wait_for "a month later (keep one month less) the bound moves to 1990-03" \
  "[[ \$(sql \"SELECT applied_before FROM bitmapd.inbox_retention\") == 300 ]]"
http GET "/v1/users/$((U + 2))/messages?limit=10"
check "the new bound drops what the old one left" "[]" "$(jget '[.messages[].id]')"
http GET "/v1/users/$U/messages?limit=10"
check "and older history of every box" "[350]" "$(jget '[.messages[].id]')"
http GET "/v1/users/$((V + 49999))/messages?limit=10"
check "the boxes of the cut walk too, once walked again" "[]" "$(jget '[.messages[].id]')"
stop_service

restore
finish
