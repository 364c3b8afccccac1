#!/usr/bin/env bash
# The write-behind log ([wlog] enabled; docs/design.md, "Write-behind log"): writes
# acknowledged after one append and folded later; reads through the service exact
# before the fold; psql exact after bitmapd.wlog_fold(); an administrator's write
# refused with a clear error while an instance holds the log; a holder killed with
# kill -9 before folding loses nothing (another instance, its log off, recovers the
# log on its first read); a second instance reads and writes keys pending in the
# first one's log; a damaged log row blocks writes with an error naming it; a fold
# that meets a row of a key it took as new retries as an upsert.
# Needs BITMAPD_DSN, curl, jq, psql, redis-cli.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
BITMAPD_TEST_ARGS= # each instance here says whether its log is on

PSQL=(psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1)
P="wlog:$$:" # every key of this run

logrows() { "${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.wlog"; }
rowcount() { "${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps WHERE key LIKE '${P}%'"; }

# A holds the log and folds only when asked (or at 100,000 keys)
start_service --set wlog.enabled=1 --set wlog.fold_ms=60000 --set wlog.cooldown_s=1 || finish
A=$PORT A_R=$RPORT A_URL=$BASE_URL
wait_for "A takes the lease" "redis-cli -p $A_R setbit ${P}warm 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder) == 1 ]]"

echo "# acknowledged through the log, read back through the service"
before=$(metric bitmapd_wlog_append_keys_total)
for i in $(seq 0 199); do printf 'SETBIT %sk%d %d 1\n' "$P" "$((i % 50))" "$i"; done | redis-cli -p "$A_R" >/dev/null
check "200 SETBITs of 50 keys went through the log" yes \
  "$([[ $(metric bitmapd_wlog_append_keys_total) -gt $before ]] && echo yes || echo no)"
check "the log has rows, not folded yet" yes "$([[ $(logrows) -gt 0 ]] && echo yes || echo no)"
check "no row of those keys in the table yet" 0 "$(rowcount)"
check "GETBIT of a pending key" 1 "$(redis-cli -p "$A_R" getbit "${P}k7" 57)"
check "BITCOUNT of a pending key (4 bits)" 4 "$(redis-cli -p "$A_R" bitcount "${P}k7")"
check "KEYS sees the pending keys (folded first)" 50 "$(redis-cli -p "$A_R" keys "${P}k*" | wc -l)"
check "after KEYS, the rows are there" 51 "$(rowcount)"
check "and the log is empty" 0 "$(logrows)"
rr=$("${PSQL[@]}" -c "SELECT length, cardinality FROM bitmapd.keys WHERE key = '${P}k7'")
check "psql sees the folded key (length|cardinality: bits 7, 57, 107, 157)" "20|4" "$rr"

echo "# a fold meets a row of a key it took as new (as after a fold whose answer was lost)"
# A key whose first image was written after a probe found no row is folded with a
# plain INSERT. Here its row appears behind the log's back (triggers off, so the
# guard does not refuse it), holding what the fold would write: the fold fails with
# a unique violation, and the next one upserts the key instead.
redis-cli -p "$A_R" setbit "${P}donor" 5 1 >/dev/null
check "a donor key is folded (KEYS folds first)" 1 "$(redis-cli -p "$A_R" keys "${P}donor" | wc -l)"
check "a new key's SETBIT goes to the log" 0 "$(redis-cli -p "$A_R" setbit "${P}ghost" 5 1)"
"${PSQL[@]}" -c "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER USER" \
  -c "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes, expire_ms)
      SELECT '${P}ghost'::bytea, version, bits, cardinality, checksum, nbytes, expire_ms
        FROM bitmapd.bitmaps WHERE key = '${P}donor'::bytea" \
  -c "ALTER TABLE bitmapd.bitmaps ENABLE TRIGGER USER" >/dev/null
failed0=$(grep -c 'write-behind fold failed' "$BITMAPD_TEST_TMP/bitmapd.$A.log")
check "KEYS folds the key all the same" 1 "$(redis-cli -p "$A_R" keys "${P}ghost" | wc -l)"
check "... after one fold failed on the row" 1 \
  "$(($(grep -c 'write-behind fold failed.*duplicate key' "$BITMAPD_TEST_TMP/bitmapd.$A.log") - failed0))"
check "... and the log is empty" 0 "$(logrows)"
check "the key reads its bit through the service" "1 1" \
  "$(redis-cli -p "$A_R" getbit "${P}ghost" 5) $(redis-cli -p "$A_R" bitcount "${P}ghost")"
check "... and in SQL (version|members)" "1|{5}" \
  "$("${PSQL[@]}" -c "SELECT b.version || '|' || (SELECT array_agg(m) FROM bitmapd.members(b.bits) m)::text
                      FROM bitmapd.bitmaps b WHERE key = '${P}ghost'::bytea")"
check "a next SETBIT of it goes through" 0 "$(redis-cli -p "$A_R" setbit "${P}ghost" 6 1)"

echo "# an administrator's write while the log is held"
redis-cli -p "$A_R" setbit "${P}adm" 3 1 >/dev/null
out=$("${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = '${P}k7'" 2>&1)
check_match "psql UPDATE is refused while A holds the log" "a bitmapd instance holds the write-behind log" "$out"
wlog_fold
out=$("${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = '${P}adm' RETURNING version" 2>&1)
check "after bitmapd.wlog_fold(), the administrator's UPDATE goes through" 1 "$out"
check "GETBIT after the administrator's write" 1 "$(redis-cli -p "$A_R" getbit "${P}adm" 3)"

echo "# kill -9 of the holder with acknowledged writes in the log"
wait_for "A holds the lease again (cooldown 1 s)" \
  "redis-cli -p $A_R setbit ${P}again 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder) == 1 ]]"
for i in $(seq 0 299); do printf 'SETBIT %sd%d %d 1\n' "$P" "$((i % 100))" "$((i * 7))"; done |
  redis-cli -p "$A_R" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}' >"$BITMAPD_TEST_TMP/wlog.replies"
check "300 SETBITs answered 0 (new bits)" "0:300 " "$(cat "$BITMAPD_TEST_TMP/wlog.replies")"
kill -9 "${_SERVICE_PIDS[$A]}"
unset "_SERVICE_PIDS[$A]"
check "the killed holder left its log" yes "$([[ $(logrows) -gt 0 ]] && echo yes || echo no)"
out=$("${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = '${P}adm'" 2>&1)
check_match "psql UPDATE is refused while a log with no holder is unfolded" "not folded yet" "$out"

start_service || finish # B: the log off
B=$PORT B_R=$RPORT B_URL=$BASE_URL
wait_for "B is up and listening" "[[ \$(metric bitmapd_db_listener_up) == 1 ]]"
ok=0
for i in $(seq 0 99); do
  n=$(redis-cli -p "$B_R" bitcount "${P}d$i")
  [[ $n == 3 ]] && ok=$((ok + 1))
done
check "B reads all 100 keys whole (3 bits each) after recovering the log" 100 "$ok"
check "B recovered the log: it is empty" 0 "$(logrows)"
check "B does not hold the lease (its log is off)" 0 "$(metric bitmapd_wlog_holder)"
check "the rows are in the table" yes "$([[ $(rowcount) -ge 151 ]] && echo yes || echo no)"
check "B writes in place again" 1 "$(redis-cli -p "$B_R" setbit "${P}d5" 0 1 >/dev/null; redis-cli -p "$B_R" getbit "${P}d5" 0)"

echo "# two instances: A holds the log, B reads and writes A's pending keys"
start_service --set wlog.enabled=1 --set wlog.fold_ms=60000 --set wlog.cooldown_s=1 || finish
A=$PORT A_R=$RPORT A_URL=$BASE_URL
wait_for "A takes the lease" "redis-cli -p $A_R setbit ${P}warm2 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder $A_URL) == 1 ]]"
redis-cli -p "$A_R" setbit "${P}shared" 10 1 >/dev/null
check "A's write is pending" yes "$([[ $(logrows) -gt 0 ]] && echo yes || echo no)"
check "B reads A's pending write" 1 "$(redis-cli -p "$B_R" getbit "${P}shared" 10)"
check "B's SETBIT of a key A wrote through the log" 0 "$(redis-cli -p "$B_R" setbit "${P}shared" 11 1)"
check "A reads B's write" 1 "$(redis-cli -p "$A_R" getbit "${P}shared" 11)"
check "A's bit survived B's write" 2 "$(redis-cli -p "$A_R" bitcount "${P}shared")"
check "B counted the statements the log held back" yes \
  "$([[ $(metric bitmapd_wlog_blocked_total "$B_URL") -gt 0 ]] && echo yes || echo no)"
check "A was asked to let go" yes "$([[ $(metric bitmapd_wlog_yields_total "$A_URL") -gt 0 ]] && echo yes || echo no)"
check "B's cached copy follows A's next append (A announces to a watcher)" 1 \
  "$(redis-cli -p "$B_R" getbit "${P}shared" 12 >/dev/null; redis-cli -p "$A_R" setbit "${P}shared" 12 1 >/dev/null
     for _ in $(seq 100); do [[ $(redis-cli -p "$B_R" getbit "${P}shared" 12) == 1 ]] && break; sleep 0.05; done
     redis-cli -p "$B_R" getbit "${P}shared" 12)"
stop_service "$B"

echo "# a watcher that starts while the holder appends unannounced"
watchers() { "${PSQL[@]}" -c "SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7355610 AND granted"; }
wait_for "A holds the lease alone" \
  "redis-cli -p $A_R setbit ${P}alone 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder $A_URL) == 1 && \$(watchers) == 0 ]]"
redis-cli -p "$A_R" setbit "${P}late" 1 1 >/dev/null
check "with no other instance, nobody watches A's appends" 0 "$(watchers)"
start_service || finish # C: the log off
C=$PORT C_R=$RPORT C_URL=$BASE_URL
wait_for "C is up and listening" "[[ \$(metric bitmapd_db_listener_up $C_URL) == 1 ]]"
check "C watches" 1 "$(watchers)"
check "C reads A's unannounced write" 1 "$(redis-cli -p "$C_R" getbit "${P}late" 1)"
check "C reads it again (from its cache)" 1 "$(redis-cli -p "$C_R" getbit "${P}late" 1)"
redis-cli -p "$A_R" setbit "${P}late" 2 1 >/dev/null
wait_for "C's copy follows A's announced append" "[[ \$(redis-cli -p $C_R getbit ${P}late 2) == 1 ]]"
check "C counts both bits" 2 "$(redis-cli -p "$C_R" bitcount "${P}late")"
stop_service "$C"

echo "# a damaged log row"
wait_for "A holds the lease again" \
  "redis-cli -p $A_R setbit ${P}again2 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder $A_URL) == 1 ]]"
stop_service "$A"
"${PSQL[@]}" -c "INSERT INTO bitmapd.wlog (images) VALUES (ARRAY['\\x00'::bytea])" >/dev/null
start_service || finish
out=$(redis-cli -p "$RPORT" setbit "${P}after" 1 1 2>&1)
check_match "a write meets the damaged row with a clear error" "write-behind log" "$out"
wait_for "the log names the damaged row" "grep -q 'write-behind log row is damaged' '$BITMAPD_TEST_TMP/bitmapd.$PORT.log'"
"${PSQL[@]}" -c "DELETE FROM bitmapd.wlog" >/dev/null
check "with the row removed, writes go through" 0 "$(redis-cli -p "$RPORT" setbit "${P}after" 2 1)"
stop_service

finish
