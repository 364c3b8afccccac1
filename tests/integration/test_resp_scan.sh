#!/usr/bin/env bash
# SCAN in key order between fences (migrations/0014, bitmapd.scan_page):
#  - a walk that alternates between two instances, while a third connection creates
#    and deletes other keys of the prefix, returns every key that existed the whole
#    time, never a key deleted or expired before it began, and ends with cursor 0;
#  - no page holds more keys than COUNT;
#  - a second and a third walk over the same keys add no fence (the first one's are
#    reused), so the table of fences does not grow with the number of walks;
#  - a cursor that names no fence, a negative one, a word: ERR invalid cursor;
#  - the key_hash index is gone, and SCAN does not read the whole table per page.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

OWNER_DSN=${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
P="scanwalk:$$$RANDOM:"

if ! /usr/bin/python3 -c 'import redis' 2>/dev/null; then
  check "redis-py is installed (python3-redis, scripts/deps.sh)" yes no
  finish
fi

start_service || finish
A_RPORT=$RPORT
start_service || finish
B_RPORT=$RPORT

check "the key_hash index is gone" 0 \
  "$(sql "SELECT count(*) FROM pg_indexes WHERE schemaname = 'bitmapd' AND indexname = 'bitmaps_key_hash'")"

out=$(/usr/bin/python3 - "$A_RPORT" "$B_RPORT" "$P" "$OWNER_DSN" <<'PY' 2>&1
import subprocess, sys, threading, time
import redis

pa, pb, prefix, dsn = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
a, b = redis.Redis(port=pa), redis.Redis(port=pb)
churn = redis.Redis(port=pa)
fails = []

def check(name, want, got):
    print(("ok" if want == got else "FAIL") + " " + name + ("" if want == got else " want=%r got=%r" % (want, got)))

def fences():
    return int(subprocess.check_output(["psql", dsn, "-XAtqc", "SELECT count(*) FROM bitmapd.scan_fences"]).strip())

stable = [("%ss:%05d" % (prefix, i)).encode() for i in range(3000)]
doomed = [("%sd:%05d" % (prefix, i)).encode() for i in range(400)]
expired = [("%sx:%05d" % (prefix, i)).encode() for i in range(100)]
p = a.pipeline(transaction=False)
for k in stable + doomed:
    p.setbit(k, 3, 1)
for k in expired:
    p.set(k, "v", px=1)
p.execute()
p = a.pipeline(transaction=False)
for k in doomed:
    p.delete(k)
p.execute()
time.sleep(0.05)

# COUNT: small, but at most about 400 calls for whatever the database holds
total = a.dbsize()
count = max(37, total // 400 + 1)

def walk(match, with_churn):
    stop = threading.Event()
    def churner():
        i = 0
        while not stop.is_set() and i < 20000:
            k = ("%sc:%06d" % (prefix, i)).encode()
            churn.setbit(k, 1, 1)
            if i % 2:
                churn.delete(("%sc:%06d" % (prefix, i - 1)).encode())
            i += 1
    t = threading.Thread(target=churner)
    if with_churn:
        t.start()
    seen, cursor, calls, biggest = set(), 0, 0, 0
    try:
        while True:
            r = (a, b)[calls % 2]
            if match:
                cursor, keys = r.scan(cursor, match=match, count=count)
            else:
                cursor, keys = r.scan(cursor, count=count)
            calls += 1
            biggest = max(biggest, len(keys))
            seen.update(keys)
            if cursor == 0 or calls > 100000:
                break
    finally:
        stop.set()
        if with_churn:
            t.join()
    return seen, cursor, calls, biggest

seen, cursor, calls, biggest = walk(prefix + "*", True)
check("walk over two instances with churn ends with cursor 0", 0, cursor)
check("every key present the whole walk was returned", [], [k for k in stable if k not in seen][:5])
check("no key deleted before the walk was returned", [], [k for k in doomed if k in seen][:5])
check("no key expired before the walk was returned", [], [k for k in expired if k in seen][:5])
check("every key returned matches the pattern", [], [k for k in seen if not k.startswith(prefix.encode())][:5])
print("calls %d, COUNT %d, keys in the database %d" % (calls, count, total))

seen2, cursor2, calls2, biggest2 = walk(None, False)
check("a walk without MATCH ends with cursor 0", 0, cursor2)
# (a page that starts with a bucket row of more live keys than COUNT gives it whole: 16 at most)
check("no page held more than COUNT keys", True, biggest2 <= max(count, 16))
check("the walk without MATCH saw every stable key", [], [k for k in stable if k not in seen2][:5])
f1 = fences()
seen3, cursor3, calls3, _ = walk(None, False)
f2 = fences()
check("a second walk over the same keys adds no fence", f1, f2)
check("and returns the same keys", sorted(seen2), sorted(seen3))
check("in as many calls", calls2, calls3)
walk(None, False)
f3 = fences()
check("a third walk adds no fence either", f2, f3)
PY
)
while IFS= read -r line; do
  case $line in
    "ok "*) check "${line#ok }" ok ok ;;
    "FAIL "*) check "${line#FAIL }" ok "failed" ;;
    *) echo "# $line" ;;
  esac
done <<<"$out"
check_match "the walks ran" 'a third walk adds no fence' "$out"

# cursors that name no fence
RPORT=$A_RPORT
maxid=$(sql "SELECT coalesce(max(id), 0) FROM bitmapd.scan_fences")
rc "SCAN of a cursor that names no fence" "ERR invalid cursor" SCAN $(((maxid + 1000) << 16))
rc "SCAN of a negative cursor" "ERR invalid cursor" SCAN -5
rc "SCAN of a word" "ERR invalid cursor" SCAN abc
rc "SCAN COUNT 0" "ERR syntax error" SCAN 0 COUNT 0
first=$(rcli SCAN 0 COUNT 2 | head -n 1)
check_match "a first page's cursor is a number" '^[1-9][0-9]*$' "$first"
check "... below 2^53 (node-redis reads it as a double)" yes "$( ((first < 2 ** 53)) && echo yes || echo no)"
check "... that names a fence by id and by 16 bits of its key's hash" 1 \
  "$(sql "SELECT count(*) FROM bitmapd.scan_fences WHERE id = $((first >> 16)) AND bitmapd._fence_tag(key) = $((first & 65535))")"
check "... which it continues" ok "$(rcli SCAN "$first" COUNT 2 >/dev/null && echo ok)"
# the same id with other hash bits: what a cursor looks like whose fence a crash of
# PostgreSQL lost and whose id went to a fence at another key
rc "a cursor whose hash bits do not match its fence's key is invalid" "ERR invalid cursor" \
  SCAN $(((first >> 16) << 16 | ((first & 65535) ^ 1)))

# a page reads a range of the primary key, not the table: the statement of
# scan_page, planned generic as the service's sessions plan it
plan=$(sql "SET plan_cache_mode = force_generic_plan;
            PREPARE pg(bytea, int, bigint) AS
              SELECT b.key FROM bitmapd.bitmaps b
               WHERE b.key >= \$1 AND (b.cardinality > 0 OR b.nbytes IS NOT NULL)
                 AND (b.expire_ms IS NULL OR b.expire_ms > \$3)
               ORDER BY b.key LIMIT \$2 + 1;
            EXPLAIN EXECUTE pg('\\x00'::bytea, 1000, 0)")
check_match "a page walks the primary key (generic plan)" 'Index Scan using bitmaps_pkey' "$plan"

rcli DEL "${P}c:000000" >/dev/null
finish
