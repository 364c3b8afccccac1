#!/usr/bin/env bash
# Corrupt rows: bytes damaged in the database by hand give an error naming the key,
# are never overwritten by a write, and affect no other key.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sql() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1"; } # as the administrator (owner role)

base=$(( (RANDOM << 15 | RANDOM) * 1000 + 7000000000 ))
U=$((base + 1)) V=$((base + 2)) W=$((base + 3)) X=$((base + 4))
start_service || { finish; exit 1; }

for u in $U $V $W $X; do http POST "/v1/users/$u/pushes" '{"messages": [1, 2, 3, 70000]}'; done
check "setup pushes answered 200" 200 "$HTTP_STATUS"

# 1. bits replaced by garbage, checksum left as it was → checksum mismatch
sql "UPDATE bitmapd.bitmaps SET bits = '\\xdeadbeef' WHERE key = convert_to('message:push:$U', 'UTF8')"
# 2. checksum made to match damaged bits → structural validation must still refuse
#    (a run container declaring more members than its runs hold)
sql "UPDATE bitmapd.bitmaps SET bits = '\\x3b3001000000000100000000' WHERE key = convert_to('message:push:$V', 'UTF8')"
crc=$(python3 -c "
import sys
def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c ^ 0xFFFFFFFF
print(crc32c(bytes.fromhex('3b3001000000000100000000')))")
sql "UPDATE bitmapd.bitmaps SET checksum = $crc WHERE key = convert_to('message:push:$V', 'UTF8')"
# 3. cardinality column disagreeing with the bits
sql "UPDATE bitmapd.bitmaps SET cardinality = 5 WHERE key = convert_to('message:push:$W', 'UTF8')"

for pair in "$U:checksum mismatch" "$V:" "$W:cardinality"; do
  u=${pair%%:*} why=${pair#*:}
  http GET "/v1/users/$u/unread"
  check "corrupt push row of $u: GET → 500 corrupt_bitmap" "500 corrupt_bitmap" "$HTTP_STATUS $(jget .error.code)"
  check_match "corrupt push row of $u: the message names the key" "message:push:$u.*corrupt.*$why" "$(jget .error.message)"
  before=$(sql "SELECT encode(bits, 'hex') || '/' || version FROM bitmapd.bitmaps WHERE key = convert_to('message:push:$u', 'UTF8')")
  http POST "/v1/users/$u/pushes" '{"messages": [9]}'
  check "corrupt push row of $u: a push → 500 corrupt_bitmap" "500 corrupt_bitmap" "$HTTP_STATUS $(jget .error.code)"
  http POST "/v1/users/$u/reads" '{"all": true}'
  check "corrupt push row of $u: read all → 500" 500 "$HTTP_STATUS"
  after=$(sql "SELECT encode(bits, 'hex') || '/' || version FROM bitmapd.bitmaps WHERE key = convert_to('message:push:$u', 'UTF8')")
  check "corrupt push row of $u: never overwritten by a write" "$before" "$after"
done

# A fan-out that includes a corrupt user still reaches everyone else, and says who failed.
http POST "/v1/pushes" "{\"message\": 42, \"users\": [$U, $X]}"
check "fan-out with one corrupt user → 500, users 1, failed 1" "500 1 1" "$HTTP_STATUS $(jget .users) $(jget .failed)"
check_match "fan-out names the corrupt key" "message:push:$U" "$(jget '.errors[0].key')"
http GET "/v1/users/$X/messages/42"
check "the healthy user of that fan-out got the message" true "$(jget .readable)"

# Other keys are unaffected, and the service keeps serving.
http GET "/v1/users/$X/messages?limit=10"
check "healthy user still pages [70000,42,3,2,1]" "[70000,42,3,2,1]" "$(jget '[.messages[].id]')"
http GET /healthz
check "healthz 200 after corrupt rows" 200 "$HTTP_STATUS"

# Dropping history for everyone goes past the corrupt users and names them.
http POST "/v1/history/drop" '{"before": 2}' --max-time 120
check "drop for everyone with corrupt rows present → 500" 500 "$HTTP_STATUS"
check "drop for everyone counts the 3 corrupt users as failed" 3 \
  "$(jget "[.errors[].key | select(test(\"message:push:($U|$V|$W)\$\"))] | length")"
http GET "/v1/users/$X/messages?limit=10"
check "drop for everyone still dropped the healthy user's id 1" "[70000,42,3,2]" "$(jget '[.messages[].id]')"

# Leave the shared test database without corrupt rows for the tests after this one.
sql "DELETE FROM bitmapd.bitmaps WHERE key IN (convert_to('message:push:$U', 'UTF8'),
     convert_to('message:push:$V', 'UTF8'), convert_to('message:push:$W', 'UTF8'))" >/dev/null
finish
