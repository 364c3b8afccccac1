#!/usr/bin/env bash
# test_bucket_spill.sh — members too big to share a bucket row (issue 14; docs/design.md,
# "Spills"), on a database of its own with both families in buckets:
#  1. a receipt read by 5,000 members (a value past [postgres] chunk_bytes) spills to
#     a row of its own (bucket -2, cut into chunks) and leaves a stub; its 11 small
#     neighbours stay in the bucket; both instances read it, before and after one
#     restarts (its cache cold);
#  2. eight clients on two instances SETBIT random offsets of the 16 members of one
#     bucket until most of them spill, one instance killed with -9 part way: no write
#     is refused, every acknowledged bit is there, and the bucket row stays within a
#     chunk;
#  3. a check-in key with a long history spills the same way (bucket -1);
#  4. DEL, SET, PEXPIRE of a spilled key, and a write after its row expired;
#  5. DBSIZE, KEYS, SCAN, bitmapd.keys and bitmapd.values list a spilled key once; a
#     key that spills while a SCAN walk is between its own row and its bucket is
#     still returned (it is listed at its bucket's place);
#  6. bitmapd --buckets out and in again keep every key's version and value; going in,
#     the mover spills what does not fit (a chunked row stays where it is); a row whose
#     mark was lost is marked again by a write of it and by the mover;
#  7. an expired member's entry says "no key" at its version, without its bytes, once
#     its bucket is written;
#  8. a mover whose chunk_bytes is lower spills a member that instances wrote into its
#     bucket during the move in;
#  9. a bucket row's columns count its keys and their deadlines (bucket.h
#     bucket_counts), from which DBSIZE counts a bucket without deadlines; with a
#     deadline set, passed or dropped, and a member deleted, DBSIZE stays what
#     bitmapd.values holds.
# Needs the superuser of the suite's cluster (BITMAPD_PGDIR) to make the database.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/integration/lib.sh

T=$BITMAPD_TEST_TMP
trap own_database_cleanup EXIT
own_database bucket_spill || finish
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
mover() { # in|out FAMILY — output in $T/mover.out
  BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --buckets "$@" >"$T/mover.out" 2>&1
}
mover in checkin && mover in receipt
check "both families on" "checkin=on receipt=on" \
  "$(sql "SELECT string_agg(name || '=' || state, ' ' ORDER BY family) FROM bitmapd.bucket_state")"

start_service || finish
RPORT_A=$RPORT
start_service || finish
RPORT_B=$RPORT
PORT_B=$PORT
RPORT=$RPORT_A
rb() { redis-cli -h 127.0.0.1 -p "$RPORT_B" "$@"; }
# the row of a key: bucket column, and whether it is cut into chunks
row_of() { sql "SELECT bucket, octet_length(bits) = 0 FROM bitmapd.bitmaps WHERE key = convert_to('$1', 'UTF8')"; }
# the entry of member SLOT in bucket row BKEY: stub?
stub_of() {
  sql "SELECT e.stub FROM bitmapd.bitmaps b CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e
        WHERE b.key = convert_to('$1', 'UTF8') AND e.slot = $2"
}

# ---- 1. one big receipt among small ones ---------------------------------------------------
/usr/bin/python3 - >"$T/big.txt" <<'PY'
import random
rnd = random.Random(7)
for m in range(96, 112):  # the bucket group:7:msg:~6
    if m != 100: print("SETBIT group:7:msg:%d %d 1" % (m, m))
for u in rnd.sample(range(1, 1 << 22), 5000): print("SETBIT group:7:msg:100 %d 1" % u)
PY
rcli --pipe <"$T/big.txt" >"$T/big.out" 2>&1
check_match "15 small receipts and one read by 5,000 members, pipelined" "errors: 0, replies: 5015" \
  "$(tr '\n' ' ' <"$T/big.out")"
check "BITCOUNT of the big one on both instances" "5000 5000" \
  "$(rcli BITCOUNT group:7:msg:100) $(rb BITCOUNT group:7:msg:100)"
check "... it spilled to a row of its own (bucket -2), cut into chunks" "-2|t" "$(row_of group:7:msg:100)"
check "... its bucket holds a stub for it" "t" "$(stub_of 'group:7:msg:~6' 4)"
check "... and the 15 others, within a chunk" "15|t" \
  "$(sql "SELECT count(*) FILTER (WHERE NOT e.stub), octet_length(b.bits) <= 8192 FROM bitmapd.bitmaps b
           CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e WHERE b.key = 'group:7:msg:~6' GROUP BY b.bits")"
check "GETBIT of a small neighbour on both instances" "1 1" \
  "$(rcli GETBIT group:7:msg:105 105) $(rb GETBIT group:7:msg:105 105)"
check "bitmapd.value_of reads the big one's own row" "5000|" \
  "$(sql "SELECT cardinality, bucket_key FROM bitmapd.value_of('group:7:msg:100')")"
stop_service "$PORT_B"
START_PORT=$PORT_B START_RESP_PORT=$RPORT_B start_service || finish
RPORT=$RPORT_A
check "... and after a restart of the second instance (cold cache): BITCOUNT, GETBIT" "5000 1" \
  "$(rb BITCOUNT group:7:msg:100) $(rb GETBIT group:7:msg:101 101)"

# ---- 2. writers filling one bucket until its members spill; one instance killed ---------
cat >"$T/writers.py" <<'EOF'
import random, sys, threading, time, redis
ports = [int(p) for p in sys.argv[1].split(",")]; n = int(sys.argv[2]); out = sys.argv[3]
acked = []; errors = []; lock = threading.Lock(); stop = time.time() + 60
def worker(seed):
    rnd = random.Random(seed); port = ports[seed % len(ports)]; r = redis.Redis(port=port, socket_timeout=15)
    for i in range(n):
        if time.time() > stop: break
        k = "group:9:msg:%d" % (160 + rnd.randrange(16)); off = rnd.randrange(1 << 21)
        try:
            r.setbit(k, off, 1)
            with lock: acked.append((k, off))
        except redis.exceptions.ConnectionError:
            break  # the instance killed
        except Exception as e:
            with lock: errors.append("%d: %s" % (port, str(e)[:120]))
ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
with open(out, "w") as f:
    for k, o in acked: f.write("%s %d\n" % (k, o))
print("acked=%d errors=%d" % (len(acked), len(errors)))
for e in sorted(set(errors))[:5]: print(e)
EOF
/usr/bin/python3 "$T/writers.py" "$RPORT_A,$RPORT_B" 1500 "$T/acked" >"$T/writers.out" 2>&1 &
WRITERS=$!
wait_for "the writers' first members spill" \
  "[[ \$(sql \"SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = -2 AND key LIKE 'group:9:%'\") -ge 1 ]]"
kill -9 "${_SERVICE_PIDS[$PORT_B]}" 2>/dev/null
wait "$WRITERS"
acked=$(sed -n 's/^acked=\([0-9]*\).*/\1/p' "$T/writers.out")
echo "# writers: $(head -n 1 "$T/writers.out"), $(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = -2 AND key LIKE 'group:9:msg:1__'") members spilled"
check_match "the writers: acknowledged writes (those to the killed instance stop with it)" '^[0-9]{4,}$' "$acked"
check "... none refused" "" "$(grep -v "^acked=" "$T/writers.out" | head -n 3)"
spilled=$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = -2 AND key LIKE 'group:9:msg:1__'")
check_match "... most of the 16 members spilled" '^([4-9]|1[0-6])$' "$spilled"
check "... the bucket row stays within a chunk" "t" \
  "$(sql "SELECT octet_length(bits) <= 8192 FROM bitmapd.bitmaps WHERE key = 'group:9:msg:~10'")"
missing=$(/usr/bin/python3 - "$RPORT_A" "$T/acked" <<'PY'
import sys, redis
r = redis.Redis(port=int(sys.argv[1])); pairs = [l.split() for l in open(sys.argv[2])]
p = r.pipeline(transaction=False)
for k, o in pairs: p.getbit(k, int(o))
print(sum(1 for v in p.execute() if v != 1))
PY
)
check "every acknowledged bit is there (GETBIT on the instance that kept running)" 0 "$missing"
check "BITCOUNT of each member matches bitmapd.values" "" \
  "$(for m in $(seq 160 175); do
       a=$(rcli BITCOUNT "group:9:msg:$m")
       b=$(sql "SELECT coalesce((SELECT cardinality FROM bitmapd.value_of('group:9:msg:$m')), 0)")
       [[ $a == "$b" ]] || echo "group:9:msg:$m: $a against $b"
     done)"
START_PORT=$PORT_B START_RESP_PORT=$RPORT_B start_service || finish
RPORT=$RPORT_A

# ---- 3. a check-in key with a long history -------------------------------------------------
/usr/bin/python3 -c "
import random
rnd = random.Random(3)
for d in rnd.sample(range(200000), 6000): print('SETBIT checkin:4242 %d 1' % d)
print('SETBIT checkin:4243 5 1')" >"$T/ck.txt"
rcli --pipe <"$T/ck.txt" >"$T/ck.out" 2>&1
check "a check-in key of 6,000 scattered days: BITCOUNT on both instances" "6000 6000" \
  "$(rcli BITCOUNT checkin:4242) $(rb BITCOUNT checkin:4242)"
check "... it spilled (bucket -1); its neighbour stays in the bucket" "-1| t f" \
  "$(row_of checkin:4242 | cut -d'|' -f1)| $(stub_of 'checkin:~265' 2) $(stub_of 'checkin:~265' 3)"

# ---- 4. DEL, SET, PEXPIRE of spilled keys ------------------------------------------------
check "DEL of a spilled key; gone on both instances" "1 0 0" \
  "$(rcli DEL group:7:msg:100) $(rcli EXISTS group:7:msg:100) $(rb EXISTS group:7:msg:100)"
check "... a SETBIT makes it again, still in its own row" "0 1 -2" \
  "$(rcli SETBIT group:7:msg:100 9 1) $(rb BITCOUNT group:7:msg:100) $(row_of group:7:msg:100 | cut -d'|' -f1)"
check "SET and GET of a spilled key" "OK hello 5" \
  "$(rcli SET checkin:4242 hello) $(rb GET checkin:4242) $(rb STRLEN checkin:4242)"
v_before=$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = 'group:7:msg:100'")
check "PEXPIRE of a spilled key: gone on both instances" "1 0 0" \
  "$(rcli PEXPIRE group:7:msg:100 1) $(sleep 0.1; rcli EXISTS group:7:msg:100) $(rb EXISTS group:7:msg:100)"
check "... a write after it expired starts a new key, at a later version" "0 1 t" \
  "$(rcli SETBIT group:7:msg:100 4 1) $(rb BITCOUNT group:7:msg:100) $(sql "SELECT version > ${v_before:-0} FROM bitmapd.bitmaps WHERE key = 'group:7:msg:100' AND bucket = -2")"

# ---- 5. listings ---------------------------------------------------------------------------
wlog_fold # the keys of no family went through the write-behind log, with [wlog] enabled
live=$(sql "SELECT count(*) FROM bitmapd.values WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms)")
check "DBSIZE counts each key once" "$live" "$(rcli DBSIZE)"
check "KEYS lists each key once" "$live $live" "$(rcli KEYS '*' | wc -l) $(rcli KEYS '*' | sort -u | wc -l)"
scan_walk '*' 3
check "a SCAN walk (COUNT 3) lists every key, each once" "$(rcli KEYS '*' | sort | paste -sd' ')" \
  "$(grep . <<<"$SCAN_SEEN" | sort | paste -sd' ')"
check "bitmapd.keys and bitmapd.values list a spilled key once" "1 1" \
  "$(sql "SELECT count(*) FROM bitmapd.keys WHERE key = 'group:9:msg:160'") $(sql "SELECT count(*) FROM bitmapd.values WHERE key = 'group:9:msg:160'")"
# a SCAN walk whose cursor lies between a key's own row and its bucket when it spills
rcli SETBIT group:5:msg:20 1 1 >/dev/null # in bucket group:5:msg:~1
rcli SET group:5:msg:5x between >/dev/null # sorts after group:5:msg:20, before group:5:msg:~1
walked=$(/usr/bin/python3 - "$RPORT_A" <<'PY'
import random, sys, redis
r = redis.Redis(port=int(sys.argv[1])); seen = []; cur = 0; spilled = False
for _ in range(10000):
    cur, keys = r.scan(cur, match="group:5:*", count=1)
    seen += [k.decode() for k in keys]
    if "group:5:msg:5x" in seen and not spilled:
        rnd = random.Random(5); p = r.pipeline(transaction=False)
        for u in rnd.sample(range(1 << 22), 5000): p.setbit("group:5:msg:20", u, 1)
        p.execute(); spilled = True
    if cur == 0: break
print(spilled, "group:5:msg:20" in seen)
PY
)
check "a key that spills while a SCAN walk is past its own row's place is still returned" "True True|-2" \
  "$walked|$(row_of group:5:msg:20 | cut -d'|' -f1)"

# ---- 6. out and in again --------------------------------------------------------------------
snapshot() {
  wlog_fold
  sql "SELECT key, version, md5(bits), cardinality, nbytes, expire_ms FROM bitmapd.values
        WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms) ORDER BY key"
}
snapshot >"$T/snap0"
rc=0
mover out receipt || rc=$?
check_match "the receipts move out" "^0 family receipt is off" "$rc $(tail -n 1 "$T/mover.out")"
check "... spilled keys are plain rows now; no bucket row is left" "0|0" \
  "$(sql "SELECT count(*) FILTER (WHERE bucket = -2), count(*) FILTER (WHERE bucket = 2) FROM bitmapd.bitmaps")"
check "... every key is what it was" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"
rc=0
mover in receipt || rc=$?
check_match "the receipts move in again" "^0 family receipt is on" "$rc $(tail -n 1 "$T/mover.out")"
check "... the big ones spilled again (the chunked one stays where it was)" "-2|t" "$(row_of group:5:msg:20)"
check_match "... as do the writers' members that do not fit together" '^([4-9]|1[0-6])$' \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket = -2 AND key LIKE 'group:9:msg:1__'")"
check "... every bucket row within a chunk" "0" \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE bucket > 0 AND octet_length(bits) > 8192")"
check "... every key is what it was" "" "$(snapshot | diff "$T/snap0" - | head -n 4)"
check "... and reads so over RESP" \
  "$(sql "SELECT (SELECT cardinality FROM bitmapd.value_of('group:5:msg:20')) || ' ' || (SELECT cardinality FROM bitmapd.value_of('group:9:msg:170'))")" \
  "$(rcli BITCOUNT group:5:msg:20) $(rb BITCOUNT group:9:msg:170)"
# a spilled key's row that lost its mark (a write of it during a move out that was then
# turned back to a move in): its next write marks it again, and so does the mover
X=$(sql "SELECT convert_from(key, 'UTF8') FROM bitmapd.bitmaps WHERE bucket = -2 AND key LIKE 'group:9:msg:1__' ORDER BY key LIMIT 1")
unmark() { # (the superuser, without triggers)
  super_psql "$BITMAPD_PGDIR" "$DB" >/dev/null <<<"SET session_replication_role = replica;
    UPDATE bitmapd.bitmaps SET bucket = NULL WHERE key = convert_to('$X', 'UTF8')"
}
unmark
check "a write of a spilled key whose row lost its mark ($X) marks it again" "0 -2" \
  "$(rcli SETBIT "$X" 2097153 1) $(row_of "$X" | cut -d'|' -f1)"
unmark
wlog_fold # (the state changes by hand, not as the mover changes it: only with the log empty)
super_psql "$BITMAPD_PGDIR" "$DB" >/dev/null <<<"UPDATE bitmapd.bucket_state SET state = 'moving_in', gen = gen + 1 WHERE family = 2"
rc=0
mover in receipt || rc=$?
check_match "... so does the mover, going in over its bucket" "^0 family receipt is on.*\|-2$" \
  "$rc $(tail -n 1 "$T/mover.out")|$(row_of "$X" | cut -d'|' -f1)"
# ---- 7. expired members give their bytes back when their bucket is written -------------
entry() { # KEY — version|cardinality|nbytes|expire_ms|value bytes of its entry in its bucket
  sql "SELECT e.version || '|' || e.cardinality || '|' || coalesce(e.nbytes::text, '') || '|' ||
              coalesce(e.expire_ms::text, '') || '|' || octet_length(e.value)
         FROM bitmapd.bucket_of(convert_to('$1', 'UTF8')) r
         JOIN bitmapd.bitmaps b ON b.key = r.bucket_key CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e
        WHERE e.slot = r.slot"
}
start_service --set expire.sweep_grace_ms=0 || finish # (its sweep removes expired rows at once)
RPORT_C=$RPORT
RPORT=$RPORT_A
rcli SETBIT checkin:4243 100 1 >/dev/null
rcli PEXPIRE checkin:4243 1 >/dev/null
v=$(entry checkin:4243 | cut -d'|' -f1)
sleep 0.1
check "an expired member reads as absent" "0 0" "$(rcli EXISTS checkin:4243) $(redis-cli -p "$RPORT_C" EXISTS checkin:4243)"
redis-cli -p "$RPORT_C" SETBIT checkin:4245 1 1 >/dev/null # another member of its bucket
check "... once its bucket is written, its entry says \"no key\" at its version, without its bytes" "$v|0|||0" \
  "$(entry checkin:4243)"
check "... and a write of it starts from nothing" "0 1" \
  "$(rcli SETBIT checkin:4243 7 1) $(redis-cli -p "$RPORT_C" BITCOUNT checkin:4243)"
# ---- 8. the mover spills members already in their bucket when it must ------------------
# (instances wrote them there during the move; here the mover's chunk_bytes is lower)
rc=0
mover out receipt || rc=$?
check_match "the receipts move out again" "^0 family receipt is off" "$rc $(tail -n 1 "$T/mover.out")"
rcli SETBIT group:21:msg:321 5 1 >/dev/null # a row of its own while the family is off
wlog_fold # (the state changes by hand below, not as the mover changes it: only with the log empty)
super_psql "$BITMAPD_PGDIR" "$DB" >/dev/null <<<"UPDATE bitmapd.bucket_state SET state = 'moving_in', gen = gen + 1 WHERE family = 2"
epoch=$(sql "SELECT sum(gen) FROM bitmapd.bucket_state")
wait_for "every instance acts on the move in" \
  "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'bitmapd e=%' AND application_name <> 'bitmapd e=$epoch'\") == 0 ]]"
/usr/bin/python3 -c "
import random
rnd = random.Random(21)
for u in rnd.sample(range(1 << 22), 3000): print('SETBIT group:21:msg:320 %d 1' % u)" | rcli --pipe >"$T/g21.out" 2>&1
check "during the move in, a new member goes to its bucket (6 KB or so)" "|t" \
  "$(row_of group:21:msg:320)|$(sql "SELECT octet_length(bits) > 4096 FROM bitmapd.bitmaps WHERE key = 'group:21:msg:~20'")"
before="$(rcli BITCOUNT group:21:msg:320) $(rcli BITCOUNT group:21:msg:321)"
rc=0
BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --set postgres.chunk_bytes=4096 --buckets in receipt >"$T/mover.out" 2>&1 || rc=$?
check_match "a mover with chunk_bytes 4096 finishes the move in" "^0 family receipt is on" "$rc $(tail -n 1 "$T/mover.out")"
check "... the member it found in the bucket got a row of its own (bucket -2); the bucket fits" "-2|f t" \
  "$(row_of group:21:msg:320) $(sql "SELECT octet_length(bits) <= 4096 FROM bitmapd.bitmaps WHERE key = 'group:21:msg:~20'")"
check "... both members read as before on both instances" "$before $before" \
  "$(rcli BITCOUNT group:21:msg:320) $(rcli BITCOUNT group:21:msg:321) $(rb BITCOUNT group:21:msg:320) $(rb BITCOUNT group:21:msg:321)"
# ---- 9. DBSIZE from the bucket rows' columns ----------------------------------------------
counts() { sql "SELECT cardinality || '|' || coalesce(nbytes::text, 'null') FROM bitmapd.bitmaps WHERE key = 'checkin:~562'"; }
truth() { sql "SELECT count(*) FROM bitmapd.values WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms)"; }
for u in $(seq 8992 9007); do echo "SETBIT checkin:$u 1 1"; done | rcli --pipe >"$T/c562.out" 2>&1
check "16 check-in keys of one bucket: its row says 16 keys, none with a deadline" "16|0" "$(counts)"
check "... DBSIZE counts them as bitmapd.values does" "$(truth)" "$(rcli DBSIZE)"
check "PEXPIRE of two of them, PERSIST of one again: one deadline in the row" "1 1 1 16|1" \
  "$(rcli PEXPIRE checkin:8993 400) $(rb PEXPIRE checkin:8994 100000) $(rcli PERSIST checkin:8994) $(counts)"
n_before=$(rcli DBSIZE)
check "... DBSIZE as bitmapd.values, before the deadline" "$(truth)" "$n_before"
sleep 0.6
check "... and one fewer after it, on both instances (the row is not written meanwhile)" \
  "$((n_before - 1)) $((n_before - 1)) $(truth) 16|1" "$(rcli DBSIZE) $(rb DBSIZE) $(rcli DBSIZE) $(counts)"
check "DEL of another" "1" "$(rb DEL checkin:8995)"
check_match "... the row says 15 keys, one with a deadline, or 14 without once the write shed the expired one" \
  '^(15\|1|14\|0)$' "$(counts)"
check "... DBSIZE as bitmapd.values" "$(truth)" "$(rcli DBSIZE)"
check "INFO keyspace agrees with DBSIZE" "keys=$(rcli DBSIZE)" \
  "$(rcli INFO keyspace | tr -d '\r' | grep -o 'keys=[0-9]*')"

check_logs_clean
finish
