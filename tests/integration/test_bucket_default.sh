#!/usr/bin/env bash
# test_bucket_default.sh — the layout `bitmapd --migrate` gives a database's key
# families (src/store/bucketmove.c, bucketmove_defaults; docs/design.md, "Bucket rows by
# default"), on databases of its own (a move turns the guard on for good):
#  1. a new database: both families in bucket rows, each moved once (generation 2); a
#     check-in and a receipt written through the service land in bucket rows and read
#     back; a second --migrate changes nothing; bitmapd.value_of finds 200 check-ins
#     in their buckets by key, with the statistics made before there were any;
#     bitmapd --fold-flips, run without the suite's PGOPTIONS, folds the flips of a
#     chunked key in a family's key range (it acts on the bucket epoch as --migrate does);
#  2. a family an operator moved out stays out through the next --migrate;
#  3. a database whose families were left alone ([postgres] migrate_buckets = 0) and
#     that then holds a check-in key: --migrate while an instance is connected moves
#     nothing and says why; once it stopped, a receipt family that a default move left
#     moving in (generation 1) is finished, and the check-ins (a key in a row of its
#     own) stay, said with the command that moves them; the key still reads as written;
#  4. a new epoch reaches every session of a quiet instance, also the sessions busy
#     when it came (three state reads held on a lock while it changes).
# Needs the superuser of the suite's cluster (BITMAPD_PGDIR) to make the databases.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/integration/lib.sh

T=$BITMAPD_TEST_TMP
trap own_database_cleanup EXIT
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
states() { sql "SELECT string_agg(name || '=' || state || '/' || gen, ' ' ORDER BY family) FROM bitmapd.bucket_state"; }
migrate() { # bitmapd --migrate as the owner; output in $T/migrate.out
  local rc=0
  BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate.out" 2>&1 || rc=$?
  check "bitmapd --migrate exits 0" 0 "$rc"
}
# stop_and_wait — stops the instance and waits until its sessions have left the database
# (--migrate moves nothing while a bitmapd session is connected)
stop_and_wait() {
  stop_service
  wait_for "no bitmapd session is connected" \
    "[[ \$(sql \"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'bitmapd%' AND pid <> pg_backend_pid()\") == 0 ]]"
}
SAVED_DSN=$BITMAPD_DSN

# ---- 1. a new database ----------------------------------------------------------------------
own_database bucket_default || finish
check "a new database: both families in bucket rows, moved once" "checkin=on/2 receipt=on/2" "$(states)"
check_match "its migration said so" 'family in bucket rows.*family=checkin' "$(cat "$T/migrate.log")"
migrate
check "a second --migrate changes nothing" "checkin=on/2 receipt=on/2" "$(states)"

start_service || finish
# bitmapd.value_of probes a key's bucket row by its key, whatever the statistics say:
# as a join, with the bucket rows counted as (nearly) none, it read and decoded every
# bucket row for each key (0.4 s a key in make bench's storage pass). Counted by the
# index entries read: at most a few per key.
for u in $(seq 1 20000); do printf 'SET plain:%d x\r\n' "$u"; done >"$T/plain"
check "20,000 keys of their own over RESP" 1 \
  "$(redis-cli -h 127.0.0.1 -p "$RPORT" --pipe <"$T/plain" 2>&1 | grep -c 'errors: 0, replies: 20000')"
wlog_fold
sql "ALTER TABLE bitmapd.bitmaps SET (autovacuum_enabled = off); ANALYZE bitmapd.bitmaps" >/dev/null
check "a check-in over RESP" 0 "$(redis-cli -h 127.0.0.1 -p "$RPORT" SETBIT checkin:4242 300 1)"
check "a receipt over RESP" 0 "$(redis-cli -h 127.0.0.1 -p "$RPORT" SETBIT group:77:msg:5 3 1)"
check "both read back" "1 1" \
  "$(redis-cli -h 127.0.0.1 -p "$RPORT" GETBIT checkin:4242 300) $(redis-cli -h 127.0.0.1 -p "$RPORT" GETBIT group:77:msg:5 3)"
wlog_fold
check "they are members of bucket rows, no row of their own" "2|0" \
  "$(sql "SELECT (SELECT count(*) FROM bitmapd.bitmaps WHERE bucket > 0),
                 (SELECT count(*) FROM bitmapd.bitmaps WHERE key IN ('checkin:4242', 'group:77:msg:5'))")"
check "bitmapd.values lists both" "checkin:4242 group:77:msg:5" \
  "$(sql "SELECT string_agg(convert_from(key, 'UTF8'), ' ' ORDER BY key) FROM bitmapd.values WHERE key NOT LIKE 'plain:%'")"
for u in $(seq 5000 8999); do printf 'SETBIT checkin:%d 7 1\r\n' "$u"; done >"$T/checkins"
check "4,000 check-ins over RESP (250 bucket rows)" 1 \
  "$(redis-cli -h 127.0.0.1 -p "$RPORT" --pipe <"$T/checkins" 2>&1 | grep -c 'errors: 0, replies: 4000')"
wlog_fold
index_reads() { sql "SELECT sum(idx_tup_read) FROM pg_stat_user_indexes WHERE relid = 'bitmapd.bitmaps'::regclass"; }
r0=$(index_reads)
check "bitmapd.value_of reads 200 of them" "200|200" \
  "$(sql "SELECT count(*), sum(v.cardinality) FROM generate_series(5000, 5199) u
           CROSS JOIN LATERAL bitmapd.value_of(convert_to('checkin:' || u, 'UTF8')) v")"
sleep 1 # the counts of the statements reach the statistics
r1=$(index_reads)
echo "# index entries of bitmapd.bitmaps read by the 200 value_of: $((r1 - r0))"
check "... reading fewer than 5 index entries a key (< 1,000)" yes "$( ((r1 - r0 < 1000)) && echo yes || echo no)"
sql "ALTER TABLE bitmapd.bitmaps RESET (autovacuum_enabled)" >/dev/null
# a chunked key in the group: range (not a receipt) with flips in its head
head -c 100000 /dev/urandom >"$T/big"
redis-cli -h 127.0.0.1 -p "$RPORT" -x SET group:42:big <"$T/big" >/dev/null
for o in 5 70001 500000; do # each bit flipped, so that each write changes it
  b=$(redis-cli -h 127.0.0.1 -p "$RPORT" GETBIT group:42:big "$o")
  redis-cli -h 127.0.0.1 -p "$RPORT" SETBIT group:42:big "$o" $((1 - b)) >/dev/null
done
wlog_fold
check "group:42:big is chunked, with flips" "t|t" \
  "$(sql "SELECT octet_length(bits) = 0, flips IS NOT NULL FROM bitmapd.bitmaps WHERE key = 'group:42:big'")"
stop_and_wait
rc=0
(env -u PGOPTIONS BITMAPD_DSN="$OWNER_DSN" "$BITMAPD_BIN" --fold-flips >"$T/fold.out" 2>&1) || rc=$?
check "bitmapd --fold-flips, on its own epoch, folds a family range's key: exit 0, no flips left" "0|f" \
  "$rc|$(sql "SELECT flips IS NOT NULL FROM bitmapd.bitmaps WHERE key = 'group:42:big'")"

# ---- 2. an operator's choice stays --------------------------------------------------------
rc=0
BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --buckets out checkin >"$T/mover.out" 2>&1 || rc=$?
check "the check-ins move out" 0 "$rc"
migrate
check "--migrate leaves a family an operator moved out where it is" "checkin=off/4 receipt=on/2" "$(states)"
drop_own_database
BITMAPD_DSN=$SAVED_DSN

# ---- 3. a database whose families hold keys -------------------------------------------------
own_database bucket_default_keys --set postgres.migrate_buckets=0 || finish
check "migrate_buckets = 0: the families stay as they are" "checkin=off/0 receipt=off/0" "$(states)"
start_service || finish
check "a check-in over RESP, in a row of its own" "0 " \
  "$(redis-cli -h 127.0.0.1 -p "$RPORT" SETBIT checkin:9 5 1) $(sql "SELECT bucket FROM bitmapd.bitmaps WHERE key = 'checkin:9'")"
migrate
check "with an instance connected, --migrate moves nothing" "checkin=off/0 receipt=off/0" "$(states)"
check_match "... and says why" 'family=receipt reason="bitmapd instances are connected"' "$(cat "$T/migrate.out")"
stop_and_wait
# as a default move stopped part way leaves a family
sql "UPDATE bitmapd.bucket_state SET state = 'moving_in', gen = 1 WHERE name = 'receipt'" >/dev/null
migrate
check "stopped: the receipts' move is finished, the check-ins (a key) stay" "checkin=off/0 receipt=on/2" "$(states)"
check_match "... said with the command that moves them" \
  'family=checkin reason="it has keys in rows of their own" hint="bitmapd --buckets in checkin moves it"' \
  "$(cat "$T/migrate.out")"
start_service || finish
check "the check-in still reads as written" "1 1" \
  "$(redis-cli -h 127.0.0.1 -p "$RPORT" GETBIT checkin:9 5) $(redis-cli -h 127.0.0.1 -p "$RPORT" BITCOUNT checkin:9)"

# ---- 4. a new epoch reaches every session of a quiet instance ---------------------------------
# Three reads of the family states held on a lock, one per pooled session; the epoch
# changes under them. The first read to answer sets the idle sessions, the others
# answer "no change" on busy ones: each must still take the new epoch once it is idle,
# with no other statement to carry it (the mover waits for every session to show it).
# (what the sessions wait on is for the superuser's eyes: the owner sees only their names)
reads_waiting() { super_psql "$BITMAPD_PGDIR" "$DB" <<<"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                    AND application_name LIKE 'bitmapd e=%' AND wait_event_type = 'Lock' AND query LIKE '%bucket_state%'"; }
BITMAPD_OWNER_DSN=$OWNER_DSN lock_open "LOCK TABLE bitmapd.bucket_state IN ACCESS EXCLUSIVE MODE;"
for _ in 1 2 3; do sql "SELECT pg_notify('bitmapd_changed', '!buckets')" >/dev/null; done
wait_for "three of the instance's state reads wait on the lock" '[[ $(reads_waiting) -ge 3 ]]' 8
printf '%s\n' "UPDATE bitmapd.bucket_state SET gen = gen + 1 WHERE name = 'receipt';" "COMMIT;" >&8
exec 8>&-
wait "$LOCK_PID" 2>/dev/null
LOCK_PID=
epoch=$(sql "SELECT bitmapd.bucket_epoch()")
behind() { sql "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                 AND application_name LIKE 'bitmapd e=%' AND application_name <> 'bitmapd e=$epoch'"; }
wait_for "every session shows epoch $epoch" '[[ $(behind) == 0 ]]' 5
check "every session of the instance acts on the new epoch $epoch within 5 s" "0|t" \
  "$(behind)|$(sql "SELECT count(*) >= 4 FROM pg_stat_activity WHERE datname = current_database()
                     AND application_name = 'bitmapd e=$epoch'")"
stop_service

finish
