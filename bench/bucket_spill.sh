#!/usr/bin/env bash
# bench/bucket_spill.sh [MEMBERS] [MESSAGES] — receipts of a big group with the receipt
# family off and in buckets (spills: docs/design.md), on a fresh private cluster
# (scripts/pg.sh, port BENCH_SPILL_PG_PORT or 55472), one instance (ports 18232/16232).
# MESSAGES (default 64) messages of a group of MEMBERS (default 5000) members, each
# read by a random half (the receipts layout, docs/receipts.md: member i is bit 2i,
# its read mark bit 2i+1), loaded over RESP with the family off; then the table's size
# a message (vacuumed), and redis-benchmark rates (50 clients) of SETBIT and GETBIT on
# one message's key; then `bitmapd --buckets in receipt` (time, keys spilled) and the
# same figures; then the same with a group of 200 members for comparison.
# BITMAPD_BIN: the binary (build/bitmapd). Stops the instance and the cluster at the
# end; loopback only.
set -u
MEMBERS=${1:-5000}
MSGS=${2:-64}
cd "$(dirname "$0")/.." || exit 1
BIN=${BITMAPD_BIN:-$PWD/build/bitmapd}; PG=$(mktemp -d /tmp/bitmapd-spill-bench.XXXXXX)
trap 'pkill -f "http.port=18232"; bash scripts/pg.sh stop "$PG" >/dev/null 2>&1; rm -rf "$PG"' EXIT
bash scripts/pg.sh start "$PG" "${BENCH_SPILL_PG_PORT:-55472}" >/dev/null 2>&1 || { echo pg failed; exit 1; }
# the families left in rows of their own (a new database would have them in buckets)
O="$(cat "$PG"/owner_dsn)"; BITMAPD_DSN="$O" $BIN --set postgres.migrate_buckets=0 --migrate >/dev/null 2>&1
BITMAPD_DSN="$(cat "$PG"/dsn)" $BIN -c service.ini --set http.port=18232 --set resp.port=16232 > "$PG/bitmapd.log" 2>&1 &
sleep 1.5
load() { # GROUP MEMBERS — MSGS messages, each read by a random half
  /usr/bin/python3 - "$1" "$2" "$MSGS" <<'PY' | redis-cli -p 16232 --pipe | tail -n 1
import random, sys
g, members, msgs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(g)
for m in range(msgs):
    key = "group:%d:msg:%d" % (g, 1000 + m)
    for i in range(members):
        print("SETBIT %s %d 1" % (key, 2 * i))
        if rnd.random() < 0.5: print("SETBIT %s %d 1" % (key, 2 * i + 1))
PY
}
per_msg() { # GROUP — bytes of the table a message, vacuumed (the group's rows and the buckets holding them)
  psql "$O" -XAtq -c "VACUUM FULL bitmapd.bitmaps" -c "VACUUM FULL bitmapd.chunks" -c "
    SELECT (sum(pg_column_size(b.*)) + coalesce((SELECT sum(pg_column_size(c.*)) FROM bitmapd.chunks c
                                                 WHERE c.key >= convert_to('group:$1:', 'UTF8')
                                                   AND c.key < convert_to('group:$1;', 'UTF8')), 0)) / $MSGS
      FROM bitmapd.bitmaps b WHERE b.key >= convert_to('group:$1:', 'UTF8') AND b.key < convert_to('group:$1;', 'UTF8')"
}
setbits() { # KEY RANGE — SETBIT at random offsets below RANGE from 32 redis-py clients, 300 each: writes a second
  /usr/bin/python3 - "$1" "$2" <<'PY'
import random, sys, threading, time, redis
key, rng = sys.argv[1], int(sys.argv[2])
def work(seed):
    r = redis.Redis(port=16232); rnd = random.Random(seed)
    for _ in range(300): r.setbit(key, rnd.randrange(rng), 1)
ts = [threading.Thread(target=work, args=(i,)) for i in range(32)]
t0 = time.time(); [t.start() for t in ts]; [t.join() for t in ts]
print("%.0f/s" % (32 * 300 / (time.time() - t0)))
PY
}
getbits() { # KEY — redis-benchmark GETBIT, 50 clients
  redis-benchmark -p 16232 -c 50 -n 100000 -q GETBIT "$1" 5 | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1
}
report() { # GROUP MEMBERS LABEL
  echo "$3: $(per_msg "$1") B a message (row, chunks, its share of a bucket); SETBIT on one message $(setbits "group:$1:msg:1005" $((2 * $2))), GETBIT $(getbits "group:$1:msg:1005")"
}
echo "load, $MSGS messages of $MEMBERS members: $(load 1 "$MEMBERS")"
echo "load, $MSGS messages of 200 members: $(load 2 200)"
report 1 "$MEMBERS" "$MEMBERS members, family off"
report 2 200 "200 members, family off"
t0=$(date +%s.%N)
BITMAPD_DSN="$O" $BIN --buckets in receipt 2>/dev/null | tail -n 1
t1=$(date +%s.%N)
echo "move in: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; rows spilled (bucket -2): $(psql "$O" -XAtq -c "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = -2")"
report 1 "$MEMBERS" "$MEMBERS members, family on"
report 2 200 "200 members, family on"
