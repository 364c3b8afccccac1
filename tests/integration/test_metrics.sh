#!/usr/bin/env bash
# GET /metrics: a page a Prometheus server accepts (every sample under a HELP and
# TYPE of its family, histogram buckets cumulative and ending at +Inf = _count),
# whose figures move with the traffic that caused them: HTTP requests by route
# and status, RESP commands by result, batch sizes against statements, cache hits,
# and a corrupt row read. Also checks the structured log lines.
# Needs BITMAPD_DSN, curl, redis-cli, psql, python3.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

P="metrics:$$:"
U=$((($(date +%s) % 100000) * 1000000 + 600000))
sql() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

scrape() { curl -s --max-time 5 "$BASE_URL/metrics" >"$BITMAPD_TEST_TMP/m.txt"; }
val() { # SERIES — its value in the last scrape (0 when absent)
  awk -v n="$1" '$1 == n {print $2; f = 1} END {if (!f) print 0}' "$BITMAPD_TEST_TMP/m.txt"
}

start_service || finish
LOG=$BITMAPD_TEST_TMP/bitmapd.$PORT.log

scrape
before_push=$(val 'bitmapd_http_requests_total{route="push",status="200"}')
before_400=$(val 'bitmapd_http_requests_total{route="push",status="400"}')
for i in 1 2 3 4 5; do http POST "/v1/users/$U/pushes" "{\"messages\":[$i]}"; done
http POST "/v1/users/$U/pushes" '{"messages":"x"}'
http GET "/no/such/route"
for i in 1 2 3; do rcli setbit "${P}k" "$i" 1 >/dev/null; done
rcli getbit "${P}k" 1 >/dev/null
rcli getbit "${P}k" 2 >/dev/null
rcli bitcount "${P}k" x y z >/dev/null
scrape

check "HTTP 200s of push counted" $((before_push + 5)) "$(val 'bitmapd_http_requests_total{route="push",status="200"}')"
check "HTTP 400 of push counted" $((before_400 + 1)) "$(val 'bitmapd_http_requests_total{route="push",status="400"}')"
check "a request matching no route is counted under route=none" 1 \
  "$(val 'bitmapd_http_requests_total{route="none",status="404"}')"
check "the push latency histogram counts every push" \
  "$(($(val 'bitmapd_http_requests_total{route="push",status="200"}') + $(val 'bitmapd_http_requests_total{route="push",status="400"}')))" \
  "$(val 'bitmapd_http_request_duration_seconds_count{route="push"}')"
check "RESP setbit counted as ok" 3 "$(val 'bitmapd_resp_commands_total{command="setbit",result="ok"}')"
check "RESP getbit counted as ok" 2 "$(val 'bitmapd_resp_commands_total{command="getbit",result="ok"}')"
check "RESP bitcount with bad arguments counted as an error" 1 \
  "$(val 'bitmapd_resp_commands_total{command="bitcount",result="error"}')"
check "the write batch histogram counts every write statement" "$(val bitmapd_write_statements_total)" \
  "$(val bitmapd_write_batch_keys_count)"
check "the load batch histogram counts every load statement" "$(val bitmapd_load_statements_total)" \
  "$(val bitmapd_load_batch_keys_count)"
check_match "cache hits are counted (GETBIT of a key just written)" '^[1-9]' "$(val bitmapd_cache_hits_total)"
check "the pool is up" 4 "$(val bitmapd_db_connections_up)"

# the whole page parses as the text format, and histograms are consistent
out=$(python3 - "$BITMAPD_TEST_TMP/m.txt" <<'PY'
import re, sys
typ, seen_help, errors, hist = {}, set(), [], {}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+]+|\+Inf|NaN)$')
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# HELP "):
        seen_help.add(line.split()[2]); continue
    if line.startswith("# TYPE "):
        _, _, name, t = line.split()
        if name in typ: errors.append("family twice: " + name)
        if name not in seen_help: errors.append("TYPE before HELP: " + name)
        typ[name] = t; continue
    m = sample.match(line)
    if not m:
        errors.append("bad line: " + line); continue
    name = m.group(1)
    fam = re.sub(r'_(bucket|sum|count)$', '', name) if re.sub(r'_(bucket|sum|count)$', '', name) in typ and typ[re.sub(r'_(bucket|sum|count)$', '', name)] == "histogram" else name
    if fam not in typ: errors.append("sample without TYPE: " + name); continue
    if typ[fam] == "histogram":
        labels = re.sub(r',?le="[^"]*"', '', m.group(2) or "").replace("{,", "{")
        labels = "" if labels == "{}" else labels
        h = hist.setdefault((fam, labels), {"b": [], "count": None})
        if name.endswith("_bucket"): h["b"].append((re.search(r'le="([^"]*)"', line).group(1), float(m.group(4))))
        if name.endswith("_count"): h["count"] = float(m.group(4))
for (fam, labels), h in hist.items():
    vals = [v for _, v in h["b"]]
    if vals != sorted(vals): errors.append("buckets not cumulative: %s%s" % (fam, labels))
    if not h["b"] or h["b"][-1][0] != "+Inf" or h["b"][-1][1] != h["count"]:
        errors.append("+Inf bucket != _count: %s%s" % (fam, labels))
print("families=%d histograms=%d errors=%d" % (len(typ), len(hist), len(errors)))
for e in errors[:10]: print(e)
PY
)
check_match "the page is valid text format with consistent histograms" '^families=[0-9]+ histograms=[1-9][0-9]* errors=0$' "$out"
check "Content-Type is the text format" "text/plain; version=0.0.4; charset=utf-8" \
  "$(curl -s -o /dev/null -w '%{content_type}' "$BASE_URL/metrics")"
http GET "/metrics?x=1"
check "/metrics refuses unknown parameters like every route" 400 "$HTTP_STATUS"

# a corrupt row: counted, and the log line names the key
http POST "/v1/users/$((U + 1))/pushes" '{"messages":[1,2,3]}'
sql "UPDATE bitmapd.bitmaps SET bits = '\\xdeadbeef' WHERE key = convert_to('message:push:$((U + 1))', 'UTF8')"
scrape
before=$(val bitmapd_corrupt_rows_total)
wait_for "the corrupt row is seen" "curl -s '$BASE_URL/v1/users/$((U + 1))/unread' | grep -q corrupt_bitmap"
scrape
check_match "a corrupt row read is counted" "^$((before + 1))$|^$((before + 2))$" "$(val bitmapd_corrupt_rows_total)"
check_match "the log line names the corrupt key" \
  "level=error msg=\"corrupt bitmap\" key=\"message:push:$((U + 1))\" reason=\"checksum mismatch\"" "$(cat "$LOG")"
sql "DELETE FROM bitmapd.bitmaps WHERE key = convert_to('message:push:$((U + 1))', 'UTF8')"

# every log line is one event: ts=… level=… msg="…" [key=value …]
bad=$(grep -Ev '^ts=[0-9T:.-]+Z level=(error|warn|info|debug) msg="[^"]*"( [a-z_]+=("([^"\\]|\\.)*"|[^ "]*))*$' "$LOG" | head -n 3)
check "every log line is ts=… level=… msg=\"…\" key=value…" "" "$bad"

finish
