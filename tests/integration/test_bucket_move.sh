#!/usr/bin/env bash
# test_bucket_move.sh — `bitmapd --buckets in|out FAMILY` (migration 0016,
# src/store/bucketmove.c) on a database of its own (the suite's is shared, and a move
# turns the guard on for good), with two instances serving while keys move:
#  1. 20,000 check-in keys (consecutive users) and 2,000 receipts with values, string lengths, deadlines,
#     deleted and expired keys, written with the families off; the move in, killed
#     with -9 part way, leaves the family moving_in with keys in both homes and every
#     key readable; a second run finishes; then the move out, killed and run again;
#     after each step every key's version, value, string length and deadline (SQL,
#     bitmapd.values) are what they were, DBSIZE and a SCAN walk agree, and the
#     storage shrinks going in;
#  2. while the moves run, eight clients on the two instances SETBIT random keys of
#     both families: every acknowledged bit is there at the end;
#  3. a session that does not act on the bucket epoch (psql, an older bitmapd) cannot
#     write a key of a family (BMB01); one that does still cannot put a value in a
#     member's own row while its family is in buckets, nor a bucket row in a family
#     that is off (BMB02); other keys are not guarded;
#  4. the mover waits for every bitmapd session to act on the new state, and gives up
#     with an error naming a session that does not (moving nothing), then goes on.
# Needs the superuser of the suite's cluster (BITMAPD_PGDIR) to make the database.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/integration/lib.sh

T=$BITMAPD_TEST_TMP
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  [[ -n ${HOLD_PID:-} ]] && kill "$HOLD_PID" 2>/dev/null
  own_database_cleanup
}
trap cleanup EXIT
# a database whose families never moved (epoch 0), as one made before migration 0016
own_database bucket_move --set postgres.migrate_buckets=0 || finish
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
# the SQLSTATE a statement ends with (00000 when it succeeds), from a session given options
sqlstate() { # OPTIONS SQL — the write-behind log's guard comes first: while an instance
  # holds the log ([wlog] enabled), it is asked to fold and let go, and the statement
  # runs again (at most 50 times, 0.2 s apart)
  local i code
  for ((i = 0; i < 50; i++)); do
    code=$(PGOPTIONS=$1 psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$2" 2>&1 |
      sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -n 1 | grep . || echo 00000)
    [[ $code == BMW0? ]] || break
    psql "$OWNER_DSN" -XAtq -c "SELECT bitmapd.wlog_fold()" >/dev/null 2>&1
    sleep 0.2
  done
  echo "$code"
}
mover() { # in|out FAMILY — output in $T/mover.out
  BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --buckets "$@" >"$T/mover.out" 2>&1
}

start_service || finish
RPORT_A=$RPORT
start_service || finish
RPORT_B=$RPORT
RPORT=$RPORT_A

# ---- the keys, with the families off ------------------------------------------------------
{
  for ((i = 0; i < 20000; i++)); do
    u=$((100000 + i))
    echo "SETBIT checkin:$u $((i % 366)) 1"
    echo "SETBIT checkin:$u $(((i * 13) % 366)) 1"
  done
  for ((i = 0; i < 2000; i++)); do echo "SETBIT group:$((i / 400 + 1)):msg:$((500000 + i)) $((i % 200)) 1"; done
} | rcli --pipe >"$T/load.out" 2>&1
check_match "20,000 check-in keys and 2,000 receipts written with the families off" "errors: 0, replies: 42000" \
  "$(tr '\n' ' ' <"$T/load.out")"
rcli SET checkin:100007 "a string" >/dev/null                 # a string length
rcli PEXPIREAT checkin:100014 4102444800000 >/dev/null         # a deadline (2100)
rcli DEL checkin:100021 >/dev/null                             # a deleted key
rcli SETBIT checkin:100028 3 1 >/dev/null
rcli PEXPIRE checkin:100028 1 >/dev/null                       # expired by the time it moves
rcli SETBIT checkin:007 1 1 >/dev/null                         # not canonical: stays a row of its own
rcli SETBIT other:1 1 1 >/dev/null
# keys of the family's range that are not members, with bytes no text cursor survives
/usr/bin/python3 -c "import redis, sys; r = redis.Redis(port=int(sys.argv[1])); r.set(b'checkin:zzz\x00q', b'nul'); r.set(b'checkin:zzz\xff', b'ff')" "$RPORT"
sleep 0.05
deleted_version() { sql "SELECT version FROM bitmapd.value_of('checkin:100021')"; }
snapshot() { # the keys of the families outside the writers' range: every field that must not change
  wlog_fold # the load went through the write-behind log, with [wlog] enabled
  sql "SELECT key, version, md5(bits), cardinality, nbytes, expire_ms FROM bitmapd.values
        WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND (expire_ms IS NULL OR expire_ms > 1700000000000 * 2)
          AND (key >= 'checkin:1' AND key < 'checkin:3' AND length(key) = 14
               OR key >= 'group:' AND key < 'group;' AND key LIKE '%:msg:5_____')
        ORDER BY key"
}
snapshot >"$T/snap0"
check "the snapshot holds the 19,998 live check-ins and 2,000 receipts" 21998 "$(wc -l <"$T/snap0")"
wlog_fold
v_deleted=$(deleted_version)
check_match "a deleted key keeps a row at its version" "^[0-9]+$" "$v_deleted"
dbsize0=$(rcli DBSIZE)
resp_before="$(rcli STRLEN checkin:100070)|$(rcli GET checkin:100007)|$(rcli PEXPIRETIME checkin:100014)|$(rcli EXISTS checkin:100021)|$(rcli EXISTS checkin:100028)|$(rcli EXISTS checkin:007)"
check "the keys over RESP before any move (STRLEN, GET, PEXPIRETIME, EXISTS x3)" "23|a string|4102444800000|0|0|1" "$resp_before"
sql "VACUUM FULL bitmapd.bitmaps" >/dev/null
size0=$(sql "SELECT pg_total_relation_size('bitmapd.bitmaps')")

# ---- 3. the guard, before any move: nothing is guarded yet ------------------------------
check "epoch 0: psql writes a key of a family" 00000 \
  "$(sqlstate "" "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = 'checkin:100000'")"

# ---- 2. writers on both instances for the whole run ------------------------------------
cat >"$T/writers.py" <<'EOF'
import random, sys, threading, time, redis
ports = [int(p) for p in sys.argv[1].split(",")]; secs = float(sys.argv[2]); out = sys.argv[3]
acked = []; errors = []; lock = threading.Lock(); stop = time.time() + secs
def worker(seed):
    r = redis.Redis(port=ports[seed % len(ports)], socket_timeout=15); rnd = random.Random(seed); n = 0
    while time.time() < stop and n < 30000:
        k = ("checkin:%d" % rnd.randrange(3000)) if rnd.random() < 0.8 else ("group:9:msg:%d" % rnd.randrange(800))
        off = rnd.randrange(400)
        try:
            r.setbit(k, off, 1)
            with lock: acked.append((k, off))
        except Exception as e:
            with lock: errors.append(str(e)[:200])
        n += 1
ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
with open(out, "w") as f:
    for k, o in acked: f.write("%s %d\n" % (k, o))
print("acked=%d errors=%d %s" % (len(acked), len(errors), sorted(set(errors))[:3]))
EOF
/usr/bin/python3 "$T/writers.py" "$RPORT_A,$RPORT_B" 40 "$T/acked" >"$T/writers.out" 2>&1 &
WRITERS=$!
sleep 1

# ---- 1. in, killed part way, then again ----------------------------------------------------
# kill_part_way DIRECTION COUNT_SQL MIN — a move of the check-ins, killed with -9 once
# COUNT_SQL counts MIN rows moved (or when it ended by itself)
kill_part_way() {
  local mover i n
  BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --buckets "$1" checkin >"$T/mover-killed-$1.out" 2>&1 &
  mover=$!
  for ((i = 0; i < 200; i++)); do
    n=$(sql "$2")
    ((n >= $3)) && break
    kill -0 "$mover" 2>/dev/null || break
    sleep 0.02
  done
  kill -9 "$mover" 2>/dev/null
  wait "$mover" 2>/dev/null
}
kill_part_way in "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = 1 AND length(key) >= 13" 100 # not the writers' buckets
homes=$(sql "SELECT count(*) FILTER (WHERE bucket = 1 AND length(key) >= 13) > 0,
                    count(*) FILTER (WHERE bucket IS NULL AND key >= 'checkin:1' AND key < 'checkin:3' AND length(key) = 14) > 0
               FROM bitmapd.bitmaps")
check "killed part way: checkin is moving_in, with keys in buckets and in rows of their own" "moving_in|t|t" \
  "$(sql "SELECT state FROM bitmapd.bucket_state WHERE name = 'checkin'")|$homes"
check "... every key reads as before meanwhile (bitmapd.values)" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"
check "... and over RESP on both instances (STRLEN, GET, PEXPIRETIME, EXISTS x3)" "$resp_before" \
  "$(rcli STRLEN checkin:100070)|$(redis-cli -p "$RPORT_B" GET checkin:100007)|$(rcli PEXPIRETIME checkin:100014)|$(rcli EXISTS checkin:100021)|$(redis-cli -p "$RPORT_B" EXISTS checkin:100028)|$(rcli EXISTS checkin:007)"
rc=0
mover in checkin || rc=$?
check_match "a second run finishes the move in" "^0 family checkin is on \(bucket epoch 2\)" "$rc $(tail -n 1 "$T/mover.out")"
check "... no check-in key is left in a row of its own but the non-canonical ones" 'checkin:007,checkin:zzz\000q,checkin:zzz\377' \
  "$(sql "SELECT string_agg(encode(key, 'escape'), ',' ORDER BY key) FROM bitmapd.bitmaps
          WHERE bucket IS NULL AND key >= 'checkin:' AND key < 'checkin;'")"
rc=0
mover in receipt || rc=$?
check_match "the receipts move in" "^0 family receipt is on \(bucket epoch 4\)" "$rc $(tail -n 1 "$T/mover.out")"
check "... every key is what it was: version, value, string length, deadline" "" \
  "$(snapshot | diff "$T/snap0" - | head -n 4)"
check "... a deleted key keeps its version in the bucket (never given twice)" "$v_deleted" "$(deleted_version)"
rc=0
mover in receipt || rc=$?
check "a family on already: nothing to do" "0 family receipt is on already" "$rc $(tail -n 1 "$T/mover.out")"

# ---- 3. the guard, with the families on ---------------------------------------------------
check "psql without the epoch cannot write a key of a family (BMB01)" BMB01 \
  "$(sqlstate "" "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = 'checkin:~6250'")"
check "... nor make one" BMB01 \
  "$(sqlstate "" "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum) VALUES ('checkin:5', 1, '\\xb100', 0, 0)")"
check "... a session with an older epoch neither" BMB01 \
  "$(sqlstate "-c bitmapd.bucket_epoch=2" "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = 'checkin:~6250'")"
check "... while other keys are not guarded" 00000 \
  "$(sqlstate "" "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = 'other:1'")"
check "with the epoch, a value in a member's own row is refused while its family is on (BMB02)" BMB02 \
  "$(sqlstate "-c bitmapd.bucket_epoch=4" "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum) SELECT 'checkin:5', 1, bits, cardinality, checksum FROM bitmapd.bitmaps WHERE key = 'checkin:007'")"
check "... but a non-canonical name is a key of its own" 00000 \
  "$(sqlstate "-c bitmapd.bucket_epoch=4" "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = 'checkin:007'")"

sql "VACUUM FULL bitmapd.bitmaps" >/dev/null
size1=$(sql "SELECT pg_total_relation_size('bitmapd.bitmaps')")
check "storage shrank going in, the writers' new keys included (bitmapd.bitmaps vacuumed: $size0 -> $size1 bytes)" 1 \
  "$((size1 * 10 < size0 * 6))"

# ---- 4. an old bitmapd's session holds the move back ---------------------------------------
PGAPPNAME=bitmapd psql "$OWNER_DSN" -XAtq -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
HOLD_PID=$!
sleep 0.5
rc=0
BITMAPD_BUCKETS_WAIT_S=2 mover out checkin || rc=$?
check_match "a session named bitmapd without an epoch holds the move out back: exit 1, named" \
  "^1 .*do not act on bucket epoch 5 yet: pid [0-9]+ \(bitmapd\)" "$rc $(tail -n 1 "$T/mover.out")"
check "... the state is moving_out, nothing moved" "moving_out|0" \
  "$(sql "SELECT state FROM bitmapd.bucket_state WHERE name = 'checkin'")|$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket IS NULL AND key >= 'checkin:1' AND key < 'checkin:3' AND length(key) = 14")"
check "... and a command that only checks a key's version works meanwhile (BITOP from a key still in its bucket)" \
  "23|23" "$(rcli BITOP OR bitop:dest checkin:100070)|$(rcli STRLEN bitop:dest)"
kill "$HOLD_PID" 2>/dev/null
wait "$HOLD_PID" 2>/dev/null
HOLD_PID=
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bitmapd'" >/dev/null

# ---- 1. out, killed part way, then again ---------------------------------------------------
kill_part_way out "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket IS NULL AND key >= 'checkin:1' AND key < 'checkin:3' AND length(key) = 14" 1000
check "killed part way out: every key reads as before" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"
rc=0
mover out checkin || rc=$?
check_match "a second run finishes the move out" "^0 family checkin is off \(bucket epoch 6\)" \
  "$rc $(tail -n 1 "$T/mover.out")"
rc=0
mover out receipt || rc=$?
check_match "the receipts move out" "^0 family receipt is off" "$rc $(tail -n 1 "$T/mover.out")"
check "... no bucket row is left" 0 "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket > 0")"
check "... every key is what it was" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"
check "... the deleted key is back in a row of its own at its version" "$v_deleted" "$(deleted_version)"
check "with the epoch, a bucket row is refused in a family that is off (BMB02)" BMB02 \
  "$(sqlstate "-c bitmapd.bucket_epoch=8" "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, bucket) VALUES ('checkin:~1', 1, '\\xb30100', 0, 0, 1)")"

# ---- and in once more, while the writers still write ---------------------------------------
rc=0
mover in checkin || rc=$?
check_match "in again" "^0 family checkin is on \(bucket epoch 10\)" "$rc $(tail -n 1 "$T/mover.out")"
check "... every key is what it was" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"

wait "$WRITERS"
check_match "the writers ran through the moves (acknowledged, failed)" "^acked=[0-9]{4,} errors=0 " \
  "$(cat "$T/writers.out")"
cat >"$T/verify.py" <<'EOF'
import sys, redis
for port in sys.argv[1].split(","):
    r = redis.Redis(port=int(port)); pairs = [l.split() for l in open(sys.argv[2])]
    p = r.pipeline(transaction=False)
    for k, o in pairs: p.getbit(k, int(o))
    miss = [(k, o) for (k, o), v in zip(pairs, p.execute()) if v != 1]
    print(port, len(pairs), len(miss), miss[:3])
EOF
check "every acknowledged bit is set, read on both instances" \
  "$(awk -v a="$RPORT_A" -v b="$RPORT_B" -v n="$(wc -l <"$T/acked")" 'BEGIN { print a, n, 0, "[]"; print b, n, 0, "[]" }')" \
  "$(/usr/bin/python3 "$T/verify.py" "$RPORT_A,$RPORT_B" "$T/acked" 2>&1)"
check "the keys with a NUL and a 0xFF byte in the family's range are still there" "nul|ff" \
  "$(/usr/bin/python3 -c "import redis, sys; r = redis.Redis(port=int(sys.argv[1])); print(r.get(b'checkin:zzz\x00q').decode() + '|' + r.get(b'checkin:zzz\xff').decode())" "$RPORT" 2>&1)"
scan_walk 'checkin:*' 1000
check "a SCAN walk lists every check-in key of the snapshot once or more" 19998 \
  "$(sort -u <<<"$SCAN_SEEN" | grep -c '^checkin:[12].....$')"
check "DBSIZE: the keys before the moves, the writers' new ones and BITOP's" \
  "$((dbsize0 + $(cut -d' ' -f1 "$T/acked" | sort -u | wc -l) + 1))" "$(rcli DBSIZE)"

for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
check_logs_clean
finish
