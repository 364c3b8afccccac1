#!/usr/bin/env bash
# bench/bucket_move.sh [USERS] — `bitmapd --buckets in|out checkin` on a fresh private
# cluster (scripts/pg.sh, port BENCH_MOVE_PG_PORT or 55471): USERS check-in users
# (default 200000, 46 random bytes each, bench/bucket_move_gen.py), one instance
# (ports 18231/16231); prints the time and WAL of each move, the table's size before
# and after (vacuumed), and redis-benchmark SETBIT rates idle and during a move, for
# keys of no family and for check-in keys; then N pipelined SETBITs of keys of no family
# and of the users in their buckets, and the time of DBSIZE. BITMAPD_BIN: the binary.
# Stops the instance and the cluster at the end; loopback only.
set -u
N=${1:-200000}
cd "$(dirname "$0")/.." || exit 1
BIN=${BITMAPD_BIN:-$PWD/build/bitmapd}; PG=$(mktemp -d /tmp/bitmapd-move-bench.XXXXXX)
trap 'pkill -f "http.port=18231"; bash scripts/pg.sh stop "$PG" >/dev/null 2>&1; rm -rf "$PG"' EXIT
bash scripts/pg.sh start "$PG" "${BENCH_MOVE_PG_PORT:-55471}" >/dev/null 2>&1 || { echo pg failed; exit 1; }
# the families left in rows of their own (a new database would have them in buckets)
O="$(cat "$PG"/owner_dsn)"; BITMAPD_DSN="$O" $BIN --set postgres.migrate_buckets=0 --migrate >/dev/null 2>&1
BITMAPD_DSN="$(cat "$PG"/dsn)" $BIN -c service.ini --set http.port=18231 --set resp.port=16231 > "$PG/bitmapd.log" 2>&1 &
sleep 1.5
t0=$(date +%s.%N); /usr/bin/python3 bench/bucket_move_gen.py "$N" 1000000 | redis-cli -p 16231 --pipe | tail -1; t1=$(date +%s.%N)
echo "load: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
sz() { psql "$O" -XAtq -c "VACUUM FULL bitmapd.bitmaps" -c "SELECT pg_total_relation_size('bitmapd.bitmaps')"; }
lsn() { psql "$O" -XAtq -c "SELECT pg_current_wal_lsn()"; }
walsince() { psql "$O" -XAtq -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$1')"; }
s0=$(sz); echo "storage, own rows: $s0 bytes, $((s0 / N)) B a user"
bench() { redis-benchmark -p 16231 -c 50 -n ${2:-40000} -r 100000 -q SETBIT "$1" 19000 1 | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1; }
echo "idle: other keys $(bench 'other:__rand_int__'); check-in keys $(bench 'checkin:1__rand_int__')"
for dir in in out in; do
  l=$(lsn); t0=$(date +%s.%N)
  BITMAPD_DSN="$O" $BIN --buckets $dir checkin 2>/dev/null
  t1=$(date +%s.%N)
  echo "move $dir alone: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, WAL $(walsince $l) bytes"
  [[ $dir == in ]] && { s1=$(sz); echo "storage, buckets: $s1 bytes, $((s1 / N)) B a user"; }
done
BITMAPD_DSN="$O" $BIN --buckets out checkin >/dev/null 2>&1 &
MP=$!; sleep 0.5
echo "during a move out: other keys $(bench 'other:__rand_int__' 20000); check-in keys $(bench 'checkin:1__rand_int__' 20000)"
wait $MP
BITMAPD_DSN="$O" $BIN --buckets in checkin >/dev/null 2>&1 &
MP=$!; sleep 0.5
echo "during a move in: other keys $(bench 'other:__rand_int__' 20000); check-in keys $(bench 'checkin:1__rand_int__' 20000)"
wait $MP
echo "idle again: other keys $(bench 'other:__rand_int__' 20000); check-in keys $(bench 'checkin:1__rand_int__' 20000)"
# one client pipelining a SETBIT for each of N keys (redis-cli --pipe): keys of no
# family (rows of their own) against the loaded users (in their buckets now)
piped() { # PREFIX BASE — seconds for N pipelined SETBIT PREFIX{BASE+i} 400 1
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/python3 -c "
import sys
out = sys.stdout.buffer
for i in range($N):
    k = b'$1%d' % ($2 + i)
    out.write(b'*4\r\n\$6\r\nSETBIT\r\n\$%d\r\n%s\r\n\$3\r\n400\r\n\$1\r\n1\r\n' % (len(k), k))
" | redis-cli -p 16231 --pipe >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }'
}
echo "pipelined SETBIT of $N keys: of no family $(piped pipe: 0); check-in users in buckets $(piped checkin: 1000000)"
t0=$(date +%s.%N); n=$(redis-cli -p 16231 dbsize); t1=$(date +%s.%N)
echo "DBSIZE: $n keys in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
