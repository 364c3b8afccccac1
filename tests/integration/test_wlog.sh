#!/usr/bin/env bash
# The write-behind log ([wlog] enabled; docs/design.md, "Write-behind log"): writes
# acknowledged after one append and folded later; reads through the service exact
# before the fold; psql exact after bitmapd.wlog_fold(); an administrator's write
# refused with a clear error while an instance holds the log; a holder killed with
# kill -9 before folding loses nothing (another instance, its log off, recovers the
# log on its first read); a second instance reads and writes keys pending in the
# first one's log; a damaged log row blocks writes with an error naming it; a fold
# that meets a row of a key it took as new retries as an upsert; a write in place
# whose answer was lost is not overtaken by an append of the same key.
# Needs BITMAPD_DSN, curl, jq, psql, redis-cli; ss (iproute2) for the cut connection.
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
check "alone, A's appends are lean, and none was sent again" "yes 0" \
  "$([[ $(metric bitmapd_wlog_lean_appends_total) -gt 0 ]] && echo yes || echo no) $(metric bitmapd_wlog_lean_redone_total)"
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
# plain INSERT. Here a row of it appears behind the log's back (psql with the
# holder's token, which the guard lets through): the fold fails with a unique
# violation, and the next one upserts the key instead, over the older row.
holder_sql="SELECT set_config('bitmapd.instance', (SELECT holder FROM bitmapd.wlog_lease), false)"
redis-cli -p "$A_R" setbit "${P}donor" 9 1 >/dev/null
check "a donor key is folded (KEYS folds first)" 1 "$(redis-cli -p "$A_R" keys "${P}donor" | wc -l)"
check "a new key's SETBIT goes to the log" 0 "$(redis-cli -p "$A_R" setbit "${P}ghost" 5 1)"
"${PSQL[@]}" -c "$holder_sql" \
  -c "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes, expire_ms)
      SELECT '${P}ghost'::bytea, 0, bits, cardinality, checksum, nbytes, expire_ms
        FROM bitmapd.bitmaps WHERE key = '${P}donor'::bytea" >/dev/null
failed0=$(grep -c 'write-behind fold failed' "$BITMAPD_TEST_TMP/bitmapd.$A.log")
check "KEYS folds the key all the same" 1 "$(redis-cli -p "$A_R" keys "${P}ghost" | wc -l)"
check "... after one fold failed on the row" 1 \
  "$(($(grep -c 'write-behind fold failed.*duplicate key' "$BITMAPD_TEST_TMP/bitmapd.$A.log") - failed0))"
check "... and the log is empty" 0 "$(logrows)"
check "the key reads its bit through the service" "1 1" \
  "$(redis-cli -p "$A_R" getbit "${P}ghost" 5) $(redis-cli -p "$A_R" bitcount "${P}ghost")"
check "... and in SQL the image replaced the row (version|members)" "1|{5}" \
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
# a statement of inserts alone (SQL_CAS_NEW) could deadlock with A's fold: not for 10 s
# after B saw A use the log
i0=$(metric bitmapd_write_insert_statements_total "$B_URL")
for i in 1 2 3 4 5; do redis-cli -p "$B_R" setbit "${P}bnew:$i" 2 1 >/dev/null; done
check "B's SETBITs of new keys, just after the guard held B back, take the lock step" \
  "$i0 1" "$(metric bitmapd_write_insert_statements_total "$B_URL") $(redis-cli -p "$A_R" getbit "${P}bnew:5" 2)"
check "B's cached copy follows A's next append (A announces to a watcher)" 1 \
  "$(redis-cli -p "$B_R" getbit "${P}shared" 12 >/dev/null; redis-cli -p "$A_R" setbit "${P}shared" 12 1 >/dev/null
     for _ in $(seq 100); do [[ $(redis-cli -p "$B_R" getbit "${P}shared" 12) == 1 ]] && break; sleep 0.05; done
     redis-cli -p "$B_R" getbit "${P}shared" 12)"
check "A's lean appends met B watching and went out again in full" yes \
  "$([[ $(metric bitmapd_wlog_lean_redone_total "$A_URL") -gt 0 ]] && echo yes || echo no)"
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

echo "# a holder asked to let go while its one append is in flight, which then conflicts"
# E holds the lease with nothing pending (folds every 200 ms). Its append of K waits
# behind psql's update of K's row; bitmapd.wlog_fold() asks E to let go meanwhile;
# psql commits a new version of K, so the append puts nothing in. E must still let
# go: it once stayed "letting go" with the lease held, and every write of another
# instance was refused after 10 s, for as long as E ran (a two-instance run under
# make integration-wlog met it).
start_service --set wlog.enabled=1 --set wlog.fold_ms=200 --set wlog.cooldown_s=2 || finish
E_R=$RPORT
K="${P}yield"
wait_for "E takes the lease" "redis-cli -p $E_R setbit ${P}warme 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder) == 1 ]]"
redis-cli -p "$E_R" setbit "$K" 1 1 >/dev/null
wait_for "E folded everything and still holds the lease" \
  "[[ \$(logrows) == 0 && \$(metric bitmapd_wlog_pending_keys) == 0 && \$(metric bitmapd_wlog_holder) == 1 ]]"
lock_open "$holder_sql; UPDATE bitmapd.bitmaps SET version = version + 1 WHERE key = '$K'::bytea;"
redis-cli -p "$E_R" setbit "$K" 2 1 >"$BITMAPD_TEST_TMP/yield.setbit" 2>&1 &
setbit_pid=$!
wait_for "E's append of K waits behind psql's row" waiting_on_lock
yields=$(metric bitmapd_wlog_yields_total)
"${PSQL[@]}" -c "SELECT bitmapd.wlog_fold()" >/dev/null
wait_for "E is asked to fold and let go" "[[ \$(metric bitmapd_wlog_yields_total) -gt $yields ]]"
lock_close COMMIT
wait "$setbit_pid"
check "the SETBIT whose append conflicted answers 0 (applied again)" 0 "$(cat "$BITMAPD_TEST_TMP/yield.setbit")"
wait_for "E lets go of the lease" "[[ \$(metric bitmapd_wlog_holder) == 0 ]]" 10
check "the lease row names nobody" "" "$("${PSQL[@]}" -c "SELECT holder FROM bitmapd.wlog_lease")"
out=$("${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = '$K'::bytea RETURNING version" 2>&1)
check "an administrator's write goes through (the version psql gave, then E's SETBIT)" 3 "$out"
check "K holds bits 1 and 2, through the service and in SQL" "1 1 {1,2}" \
  "$(redis-cli -p "$E_R" getbit "$K" 1) $(redis-cli -p "$E_R" getbit "$K" 2) $("${PSQL[@]}" -c \
    "SELECT array_agg(m ORDER BY m) FROM bitmapd.bitmaps b, bitmapd.members(b.bits) m WHERE b.key = '$K'::bytea")"
stop_service

echo "# an append of which one group fails its probe: the other groups' images go in, and only theirs"
# F holds the lease and folds only when asked. K has a row; psql holds it while one
# pipeline writes K and a new key L (one append, or two: either way). psql commits a
# new version of K, so K's group fails the probe. The log may then hold L's image and,
# once, K's written again over psql's version, never K's image made from the version
# before (SQL_APPEND inserts the images array as it came only when no group failed).
start_service --set wlog.enabled=1 --set wlog.fold_ms=60000 || finish
F_R=$RPORT
K="${P}hk" L="${P}hl"
wait_for "F takes the lease" "redis-cli -p $F_R setbit ${P}warmf 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder) == 1 ]]"
redis-cli -p "$F_R" setbit "$K" 1 1 >/dev/null
check "K is folded (KEYS folds first)" 1 "$(redis-cli -p "$F_R" keys "$K" | wc -l)"
check "... and the log is empty" 0 "$(logrows)"
kver=$("${PSQL[@]}" -c "SELECT version FROM bitmapd.bitmaps WHERE key = '$K'::bytea")
lock_open "$holder_sql; UPDATE bitmapd.bitmaps SET version = version + 1 WHERE key = '$K'::bytea;"
resp_pipeline "$F_R" "SETBIT $K 3 1" "SETBIT $L 3 1" >"$BITMAPD_TEST_TMP/half.out" 2>&1 &
pipe_pid=$!
wait_for "F's append of K waits behind psql's row" waiting_on_lock
lock_close COMMIT
wait "$pipe_pid"
check "both SETBITs answer 0 (K's applied again over psql's version)" "0 0" "$(cat "$BITMAPD_TEST_TMP/half.out")"
check "the lean append whose group failed went out again in full" yes \
  "$([[ $(metric bitmapd_wlog_lean_redone_total) -gt 0 ]] && echo yes || echo no)"
# an image's pack (src/store/store_wlog.c): magic and count (8 bytes), the key's length
# (2), the key, its version (8, big-endian; the low 4 read here), ...
images_of() { # KEY: the versions of KEY's images in the log, in order
  "${PSQL[@]}" -c "SELECT coalesce(string_agg(((get_byte(i, 14 + n)::int8 << 24) + (get_byte(i, 15 + n) << 16)
                                                + (get_byte(i, 16 + n) << 8) + get_byte(i, 17 + n))::text, ' '
                                               ORDER BY w.seq, o), 'none')
                     FROM bitmapd.wlog w, unnest(w.images) WITH ORDINALITY AS u(i, o),
                          LATERAL (SELECT get_byte(i, 8) * 256 + get_byte(i, 9) AS n) l
                    WHERE substring(i FROM 11 FOR n) = '$1'::bytea"
}
check "the log holds L's image once (version 1)" "1" "$(images_of "$L")"
check "... and K's once, over psql's version" "$((kver + 2))" "$(images_of "$K")"
check "K holds bits 1 and 3, L bit 3, through the service" "1 1 1" \
  "$(redis-cli -p "$F_R" getbit "$K" 1) $(redis-cli -p "$F_R" getbit "$K" 3) $(redis-cli -p "$F_R" getbit "$L" 3)"
check "after a fold, in SQL too (K's version is psql's and one)" "$((kver + 2)) {1,3} {3}" \
  "$(redis-cli -p "$F_R" keys "${P}h*" >/dev/null
     "${PSQL[@]}" -c "SELECT (SELECT version FROM bitmapd.bitmaps WHERE key = '$K'::bytea) || ' ' ||
                             string_agg((SELECT array_agg(m ORDER BY m) FROM bitmapd.members(b.bits) m)::text, ' ' ORDER BY b.key)
                        FROM bitmapd.bitmaps b WHERE b.key IN ('$K'::bytea, '$L'::bytea)")"
stop_service

echo "# a write in place whose answer was lost, then a SETBIT of the same new key"
# D's SETRANGE of a new key (5,000 bytes: too long for the log, so written in place)
# waits behind psql's uncommitted row of that key; its connection is cut from D's
# side (ss -K), so D answers "may or may not", while its statement runs on in its
# server session. D's next SETBIT of the key must not take it as absent through the
# log (an append's probe does not wait for an insert still running): for
# query_timeout_ms + 2 s (6 s here) D writes new keys in place, where the SETBIT
# waits too and then meets whichever insert won.
# can_cut: whether ss -K can destroy one TCP socket here (the kernel's sock_diag
# destroy); prints "yes" if a socket it cut then fails to send
can_cut() {
  /usr/bin/python3 - <<'PY' 2>/dev/null
import socket, subprocess
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(("127.0.0.1", s.getsockname()[1])); a, _ = s.accept()
subprocess.run(["ss", "-K", "sport", "=", ":%d" % c.getsockname()[1]], capture_output=True)
try:
    c.send(b"x")
except OSError:
    print("yes")
PY
}
orphan_psql_waits() {
  [[ $("${PSQL[@]}" -c "SELECT count(*) FROM pg_stat_activity
                         WHERE query = 'SELECT pg_sleep(2)' AND pid <> pg_backend_pid()") == 1 ]]
}
orphan_insert_port() { # the client port of D's connection whose insert waits for psql's row
  # (as the service's role: another role's sessions show no query and no port; the
  # text is cut at 1 kB, so its head: a compare-and-swap, or the statement of inserts alone)
  psql "$BITMAPD_DSN" -XAtq -c "SELECT client_port FROM pg_stat_activity
                    WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                      AND (query LIKE 'WITH v AS (SELECT * FROM unnest(%' OR query LIKE 'WITH quiet AS MATERIALIZED (%')
                    LIMIT 1"
}
if [[ $(can_cut) == yes ]]; then
  start_service --set wlog.enabled=1 --set wlog.fold_ms=60000 --set wlog.cooldown_s=1 \
    --set postgres.query_timeout_ms=4000 || finish
  D_R=$RPORT
  wait_for "D takes the lease" "redis-cli -p $D_R setbit ${P}warmd 1 1 >/dev/null; [[ \$(metric bitmapd_wlog_holder) == 1 ]]"
  "${PSQL[@]}" -c "$holder_sql" -c "BEGIN" \
    -c "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes)
        VALUES ('${P}orphan'::bytea, 1, '\\x00', 0, 0, 1)" \
    -c "SELECT pg_sleep(2)" -c "ROLLBACK" >/dev/null 2>"$BITMAPD_TEST_TMP/orphan.psql" &
  psql_pid=$!
  wait_for "psql holds an uncommitted row of the key" orphan_psql_waits
  redis-cli -p "$D_R" setrange "${P}orphan" 0 "$(head -c 5000 /dev/zero | tr '\0' x)" \
    >"$BITMAPD_TEST_TMP/orphan.setrange" 2>&1 &
  setrange_pid=$!
  wait_for "D's SETRANGE waits behind psql's row" '[[ -n $(orphan_insert_port) ]]'
  cport=$(orphan_insert_port)
  [[ $cport =~ ^[0-9]+$ ]] && ss -K "sport = :$cport" >/dev/null 2>&1
  wait "$setrange_pid"
  check_match "the cut SETRANGE is answered: may or may not have been applied" "may or may not" \
    "$(cat "$BITMAPD_TEST_TMP/orphan.setrange")"
  appended=$(metric bitmapd_wlog_append_keys_total)
  # bit 7 of 'x' (0x78) is 0, so the SETBIT answers 0 whichever insert wins: its own
  # (it waited behind psql's row too; the cut one then fails) or the cut one (then it
  # conflicts, reloads and sets the bit in the SETRANGE's bytes). Through the log it
  # would answer at once, and the cut insert, committing later at the same version,
  # would leave the row without bit 7 and the service's copy unlike the row.
  check "SETBIT of the key answers 0" 0 "$(redis-cli -p "$D_R" setbit "${P}orphan" 7 1)"
  wait "$psql_pid"
  check "... written in place, not through the log" "$appended" "$(metric bitmapd_wlog_append_keys_total)"
  len=$(redis-cli -p "$D_R" strlen "${P}orphan")
  check "... the service has bit 7 set, in whichever value won (length 1 or 5,000)" "1 yes" \
    "$(redis-cli -p "$D_R" getbit "${P}orphan" 7) $([[ $len == 1 || $len == 5000 ]] && echo yes || echo "no: $len")"
  check "... and so has the row in SQL, of the same length" "$len|true" \
    "$("${PSQL[@]}" -c "SELECT (SELECT length FROM bitmapd.keys WHERE key = '${P}orphan') || '|' ||
                               (7 IN (SELECT bitmapd.members(b.bits)))
                          FROM bitmapd.bitmaps b WHERE b.key = '${P}orphan'::bytea")"
  sleep 6
  redis-cli -p "$D_R" setbit "${P}fresh" 1 1 >/dev/null
  check "6 s after the cut, new keys go through the log again" yes \
    "$([[ $(metric bitmapd_wlog_append_keys_total) -gt $appended ]] && echo yes || echo no)"
  stop_service
else
  echo "# skipped: ss -K cannot destroy a socket here (kernel without sock_diag destroy)"
fi

finish
