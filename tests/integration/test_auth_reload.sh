#!/usr/bin/env bash
# Shared-secret authentication on both doors and SIGHUP reloads: Bearer tokens on
# HTTP (every route but /healthz), AUTH on RESP, secrets from the environment, a
# reload that changes secrets, limits and the log level at once, a setting that
# needs a restart (logged, kept), and a broken file (nothing changes).
# Needs BITMAPD_DSN, curl, jq, redis-cli.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

U=$((($(date +%s) % 100000) * 1000000 + 800000))
INI=$BITMAPD_TEST_TMP/auth.ini
cat >"$INI" <<'EOF'
[http]
bearer_token = first-token
max_ids_per_request = 3
[resp]
password = first-pass
[service]
log_level = info
EOF

metric() { # NAME [TOKEN]
  curl -s --max-time 5 -H "Authorization: Bearer ${2:-first-token}" "$BASE_URL/metrics" |
    awk -v n="$1" '$1 == n {print $2}'
}
rauth() { # PASSWORD redis-cli args... — one connection: AUTH, then the command
  local pw=$1
  shift
  printf 'AUTH %s\n%s\n' "$pw" "$*" | redis-cli -h 127.0.0.1 -p "$RPORT" 2>&1 | tr '\n' ' ' | sed 's/ $//'
}

start_service -c "$INI" || finish
LOG=$BITMAPD_TEST_TMP/bitmapd.$PORT.log

# ---- HTTP Bearer ------------------------------------------------------------------------------
http GET /healthz
check "/healthz needs no token (load balancers)" 200 "$HTTP_STATUS"
http GET "/v1/users/$U/messages"
check "no Authorization header → 401 unauthorized" "401 unauthorized" "$HTTP_STATUS $(jget .error.code)"
check_match "401 carries WWW-Authenticate: Bearer" '(^|
)[Ww][Ww][Ww]-[Aa]uthenticate: Bearer realm="bitmapd"' "$HTTP_HEADERS"
for bad in "Bearer wrong-token" "Bearer first-toke" "Bearer first-tokenX" "Basic Zmlyc3QtdG9rZW4=" "Bearer"; do
  http GET "/v1/users/$U/messages" "" -H "Authorization: $bad"
  check "Authorization: '$bad' → 401" 401 "$HTTP_STATUS"
done
http POST "/v1/users/$U/pushes" '{"messages":[1,2]}'
check "a write without the token → 401, nothing written" 401 "$HTTP_STATUS"
http GET "/metrics"
check "/metrics needs the token too" 401 "$HTTP_STATUS"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer first-token"
check "the right token → 200, and the refused write left nothing" "200 0" "$HTTP_STATUS $(jget '.messages | length')"
http POST "/v1/users/$U/pushes" '{"messages":[1,2]}' -H "Authorization: bearer   first-token"
check "scheme in any case, spaces around the token → 200" 200 "$HTTP_STATUS"
check "metrics count the refused requests" 8 "$(metric bitmapd_http_auth_failures_total)"

# ---- RESP AUTH ----------------------------------------------------------------------------------
check_match "RESP without AUTH → NOAUTH" '^NOAUTH' "$(rcli getbit k 1)"
check_match "RESP with a wrong password → WRONGPASS" 'WRONGPASS' "$(rauth nope getbit k 1)"
check "RESP with the password → served" "OK 0" "$(rauth first-pass getbit "auth:$$:k" 1)"
check "metrics count the wrong RESP password" 1 "$(metric bitmapd_resp_auth_failures_total)"

# ---- SIGHUP -----------------------------------------------------------------------------------
cat >"$INI" <<'EOF'
[http]
bearer_token = second-token
max_ids_per_request = 5
[resp]
password = second-pass
[postgres]
; a change that needs a restart: logged, kept
pool_size = 7
[service]
log_level = debug
EOF
kill -HUP "$SERVICE_PID"
wait_for "the reload is logged" "grep -q 'msg=\"configuration reloaded\"' '$LOG'"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer first-token"
check "after SIGHUP the old token → 401" 401 "$HTTP_STATUS"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer second-token"
check "after SIGHUP the new token → 200" 200 "$HTTP_STATUS"
http POST "/v1/users/$U/pushes" '{"messages":[1,2,3,4,5]}' -H "Authorization: Bearer second-token"
check "after SIGHUP max_ids_per_request 5 applies" 200 "$HTTP_STATUS"
check_match "after SIGHUP the old RESP password → WRONGPASS" 'WRONGPASS' "$(rauth first-pass getbit k 1)"
check "after SIGHUP the new RESP password → served" "OK 0" "$(rauth second-pass getbit "auth:$$:k" 1)"
check_match "the restart-only change is logged" \
  'setting changed; it takes effect at the next restart" setting=postgres.pool_size' "$(cat "$LOG")"
check_match "reloaded settings are logged by name" 'setting reloaded" setting=http.bearer_token' "$(cat "$LOG")"
check "secrets are never logged" "" "$(grep -E 'second-token|second-pass|first-pass' "$LOG")"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer second-token"
check_match "log_level debug took effect" 'level=debug msg="http reply"' "$(cat "$LOG")"

printf '[http]\nbearer_token = third-token\nthis line is not ini\n' >"$INI"
kill -HUP "$SERVICE_PID"
wait_for "the failed reload is logged" "grep -q 'reload failed; settings unchanged' '$LOG'"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer second-token"
check "a broken file changes nothing: the current token still works" 200 "$HTTP_STATUS"
printf '[http]\nmax_ids_per_request = -4\n' >"$INI"
kill -HUP "$SERVICE_PID"
wait_for "the out-of-range reload is logged" "[[ \$(grep -c 'reload failed; settings unchanged' '$LOG') -ge 2 ]]"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer second-token"
check "an out-of-range value changes nothing" 200 "$HTTP_STATUS"
stop_service
check "exit status after the reloads" 0 "$SERVICE_EXIT"

# ---- secrets from the environment --------------------------------------------------------------
printf '[http]\nbearer_token = file-token\n[resp]\npassword = file-pass\n' >"$INI"
BITMAPD_HTTP_TOKEN=env-token BITMAPD_RESP_PASSWORD=env-pass start_service -c "$INI" || finish
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer env-token"
check "BITMAPD_HTTP_TOKEN overrides the file" 200 "$HTTP_STATUS"
http GET "/v1/users/$U/messages" "" -H "Authorization: Bearer file-token"
check "the file's token no longer works" 401 "$HTTP_STATUS"
check "BITMAPD_RESP_PASSWORD overrides the file" "OK 0" "$(rauth env-pass getbit "auth:$$:k" 1)"

finish
