#!/usr/bin/env bash
# The hot-bitmap cache and group commit, end to end: two bitmapd instances on one
# PostgreSQL. Covers reads served from memory (no load statement), invalidation by
# every kind of writer (the other instance, an administrator's UPDATE that keeps
# the version, DELETE, TRUNCATE, one statement changing many long keys), the
# `consistent` read, the cache switched off while its listener is down (and back on
# when it reconnects), no lost update with both instances writing one key, and
# concurrent writers sharing compare-and-swap statements.
# Needs BITMAPD_DSN, curl, jq, psql, redis-cli, redis-benchmark.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

# psql as the administrator (the owner role); ending the service's sessions needs its own role
PSQL=(psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1)
P="cache:$$:" # every key of this run
U=$((($(date +%s) % 100000) * 1000000 + 900000))

info() { # PORT FIELD — one field of INFO bitmapd
  redis-cli -p "$1" info bitmapd | tr -d '\r' | sed -n "s/^$2://p"
}
getbit() { redis-cli -p "$1" getbit "$2" "$3"; }
in_place() { [[ ${BITMAPD_TEST_ARGS:-} != *wlog.enabled=1* ]]; } # writes go to rows, not to a log

start_service || finish
A=$PORT A_R=$RPORT A_URL=$BASE_URL
start_service || finish
B=$PORT B_R=$RPORT B_URL=$BASE_URL
wait_for "instance A listens for changes" '[[ $(info $A_R cache_enabled) == 1 ]]'
wait_for "instance B listens for changes" '[[ $(info $B_R cache_enabled) == 1 ]]'

# ---- reads from memory ------------------------------------------------------------------
redis-cli -p "$A_R" setbit "${P}k1" 5 1 >/dev/null
check "A reads its own write" 1 "$(getbit "$A_R" "${P}k1" 5)"
before=$(info "$A_R" load_statements)
hits=$(info "$A_R" cache_hits)
for _ in 1 2 3 4 5; do getbit "$A_R" "${P}k1" 5 >/dev/null; done
check "five GETBITs of a hot key: no load statement" "$before" "$(info "$A_R" load_statements)"
check "five GETBITs of a hot key: five cache hits" $((hits + 5)) "$(info "$A_R" cache_hits)"
getbit "$A_R" "${P}never" 3 >/dev/null
before=$(info "$A_R" load_statements)
check "a missing key reads 0" 0 "$(getbit "$A_R" "${P}never" 3)"
check "a missing key is remembered as missing (no load statement)" "$before" "$(info "$A_R" load_statements)"

# ---- another instance's write --------------------------------------------------------------
check "B reads 0 (and caches it)" 0 "$(getbit "$B_R" "${P}k1" 9)"
redis-cli -p "$A_R" setbit "${P}k1" 9 1 >/dev/null
t0=$(date +%s%N)
wait_for "B sees A's write" '[[ $(getbit $B_R ${P}k1 9) == 1 ]]'
echo "# B saw A's write $((($(date +%s%N) - t0) / 1000)) us after A's answer (bound: notification delivery)"
redis-cli -p "$B_R" setbit "${P}never" 3 1 >/dev/null
wait_for "A's remembered-missing key is dropped when B creates it" '[[ $(getbit $A_R ${P}never 3) == 1 ]]'

# ---- the consistent read: no waiting at all ---------------------------------------------------
http POST "/v1/users/$U/pushes" '{"messages": [7]}'
check "push on A" 200 "$HTTP_STATUS"
BASE_URL=$B_URL http GET "/v1/users/$U/messages/8"
check "B: message 8 not pushed yet (cached)" false "$(jget .readable)"
BASE_URL=$A_URL http POST "/v1/users/$U/pushes" '{"messages": [8]}'
BASE_URL=$B_URL http GET "/v1/users/$U/messages/8?consistent=true"
check "B with consistent=true sees A's push at once" "200 true" "$HTTP_STATUS $(jget .readable)"
BASE_URL=$B_URL http GET "/v1/users/$U/messages/8?consistent=maybe"
check "consistent=maybe → 400" "400 invalid_parameter" "$HTTP_STATUS $(jget .error.code)"
BASE_URL=$B_URL http GET "/v1/users/$U/messages?consistent=1&limit=5"
check "consistent=1 with other parameters" "200 [8,7]" "$HTTP_STATUS $(jget '[.messages[].id]')"

# ---- writers that are not bitmapd ------------------------------------------------------------
redis-cli -p "$A_R" setbit "${P}adm" 1 1 >/dev/null
getbit "$B_R" "${P}adm" 1 >/dev/null
# an administrator copies another row's bits and checksum over it, keeping the version
"${PSQL[@]}" -c "UPDATE bitmapd.bitmaps t SET bits = s.bits, checksum = s.checksum, cardinality = s.cardinality
                   FROM bitmapd.bitmaps s WHERE t.key = '${P}adm'::bytea AND s.key = '${P}k1'::bytea"
wait_for "an UPDATE that keeps the version still reaches A" '[[ $(getbit $A_R ${P}adm 1) == 0 ]]'
wait_for "... and B" '[[ $(getbit $B_R ${P}adm 9) == 1 ]]'
"${PSQL[@]}" -c "DELETE FROM bitmapd.bitmaps WHERE key = '${P}adm'::bytea"
wait_for "a DELETE reaches A" '[[ $(getbit $A_R ${P}adm 9) == 0 ]]'
# many long keys in one statement: the notification is cut into chunks under 8,000 bytes
LONG=$(printf 'L%.0s' $(seq 1 1000))
for i in $(seq 1 12); do redis-cli -p "$A_R" setbit "${P}${LONG}$i" 4 1 >/dev/null; done
for i in $(seq 1 12); do getbit "$B_R" "${P}${LONG}$i" 4 >/dev/null; done
"${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET bits = (SELECT bits FROM bitmapd.bitmaps WHERE key = '${P}never'::bytea),
                   checksum = (SELECT checksum FROM bitmapd.bitmaps WHERE key = '${P}never'::bytea),
                   version = version + 1 WHERE key LIKE '${P}${LONG}%'::bytea"
wait_for "one UPDATE of 12 keys of 1,000 bytes reaches B for every key" \
  '[[ $(for i in $(seq 1 12); do getbit $B_R ${P}${LONG}$i 3; done | sort -u) == 1 ]]'
check "the service logged no unreadable notification" "" \
  "$(grep -h 'unreadable change notification' "$BITMAPD_TEST_TMP"/bitmapd.*.log | head -n 1)"

# ---- a commit that fails after the statement's rows --------------------------------------------
# A deferred constraint trigger refuses the commit, which comes after the statement's
# answer (the implicit transaction commits at Sync): the write must be answered an
# error and leave nothing in the cache (db.c once kept the rows and dropped the error).
"${PSQL[@]}" -c "CREATE FUNCTION bitmapd.test_refuse_commit() RETURNS trigger LANGUAGE plpgsql
                   AS \$\$ BEGIN RAISE EXCEPTION 'test: refused at commit'; END \$\$" \
  -c "CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT OR UPDATE ON bitmapd.bitmaps
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.key = '${P}refused'::bytea)
        EXECUTE FUNCTION bitmapd.test_refuse_commit()" >/dev/null
check_match "a SETBIT whose commit is refused answers an error" 'refused at commit' \
  "$(redis-cli -p "$A_R" setbit "${P}refused" 3 1 2>&1)"
check "... and A reads nothing of it" "0 0" "$(getbit "$A_R" "${P}refused" 3) $("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps WHERE key = '${P}refused'::bytea")"
"${PSQL[@]}" -c "DROP TRIGGER test_refuse_commit ON bitmapd.bitmaps" -c "DROP FUNCTION bitmapd.test_refuse_commit()" >/dev/null

# ---- the listener goes away -------------------------------------------------------------------
redis-cli -p "$B_R" setbit "${P}lst" 1 1 >/dev/null
getbit "$A_R" "${P}lst" 1 >/dev/null
psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1 -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN bitmapd_changed'" >/dev/null
# both instances lose their listener; whichever has not reconnected yet serves from the database
redis-cli -p "$B_R" setbit "${P}lst" 2 1 >/dev/null
check "A reads B's write made while listeners were cut" 1 "$(getbit "$A_R" "${P}lst" 2)"
wait_for "A listens again" '[[ $(info $A_R cache_enabled) == 1 ]]'
wait_for "B listens again" '[[ $(info $B_R cache_enabled) == 1 ]]'
check_match "the lost listener was logged" 'change listener down' "$(cat "$BITMAPD_TEST_TMP"/bitmapd.*.log)"
redis-cli -p "$B_R" setbit "${P}lst" 3 1 >/dev/null
wait_for "after reconnecting, A sees B's writes again" '[[ $(getbit $A_R ${P}lst 3) == 1 ]]'

# ---- the cache stays off while the change triggers are disabled ------------------------------
"${PSQL[@]}" -c "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER bitmaps_changed_update"
psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1 -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN bitmapd_changed'" >/dev/null
wait_for "A refuses its cache while a change trigger is disabled (logged)" \
  "grep -q 'cache stays off' $BITMAPD_TEST_TMP/bitmapd.$A.log"
check "A's cache is off" 0 "$(info "$A_R" cache_enabled)"
redis-cli -p "$A_R" setbit "${P}trg" 1 1 >/dev/null
getbit "$A_R" "${P}trg" 1 >/dev/null
"${PSQL[@]}" -c "UPDATE bitmapd.bitmaps SET bits = (SELECT bits FROM bitmapd.bitmaps WHERE key = '${P}never'::bytea),
                   checksum = (SELECT checksum FROM bitmapd.bitmaps WHERE key = '${P}never'::bytea),
                   version = version + 1 WHERE key = '${P}trg'::bytea"
check "with no notification, A still reads the database's value" "0 1" \
  "$(getbit "$A_R" "${P}trg" 1) $(getbit "$A_R" "${P}trg" 3)"
"${PSQL[@]}" -c "ALTER TABLE bitmapd.bitmaps ENABLE TRIGGER bitmaps_changed_update"
psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1 -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN bitmapd_changed'" >/dev/null
wait_for "A's cache is back once the trigger is" '[[ $(info $A_R cache_enabled) == 1 ]]'
wait_for "B's too" '[[ $(info $B_R cache_enabled) == 1 ]]'

# both_write NAME GENERATOR [redis-cli options...]: A and B at once, each running what
# GENERATOR OFF prints (OFF 0 for A, 1 for B) through redis-cli into $BITMAPD_TEST_TMP/NAME.A|B
both_write() {
  local name=$1 gen=$2 side port off pids=()
  shift 2
  for side in A B; do
    port=$A_R off=0
    [[ $side == B ]] && port=$B_R off=1
    "$gen" "$off" | timeout 60 redis-cli -p "$port" "$@" >"$BITMAPD_TEST_TMP/$name.$side" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
}

# ---- no lost update: both instances write one key at once ------------------------------------
gen_both() { for i in $(seq 0 199); do echo "SETBIT ${P}both $((i * 2 + $1)) 1"; done; }
both_write both gen_both
check "200 + 200 SETBITs of one key from two instances: BITCOUNT 400 on A" 400 \
  "$(redis-cli -p "$A_R" bitcount "${P}both")"
wlog_fold # (with [wlog] enabled, SQL sees the rows once the log is folded)
check "... and the row in SQL" 400 \
  "$("${PSQL[@]}" -c "SELECT cardinality FROM bitmapd.bitmaps WHERE key = '${P}both'::bytea")"
check "no SETBIT answered an error" "" "$(cat "$BITMAPD_TEST_TMP"/both.* | grep -v '^0$' | head -n 3)"

# ---- no lost update: both instances write the same 100 keys at once, pipelined ---------------
# Many one-key writes per statement from both sides: a key the other instance wrote
# meanwhile is a conflict, retried.
ca=$(metric bitmapd_write_conflicts_total "$A_URL") cb=$(metric bitmapd_write_conflicts_total "$B_URL")
gen_many() { for i in $(seq 0 1999); do printf 'SETBIT %smany:%d %d 1\r\n' "$P" $((i % 100)) $(((i / 100) * 2 + $1)); done; }
both_write many gen_many --pipe
echo "# conflicts met (writes retried): A $(($(metric bitmapd_write_conflicts_total "$A_URL") - ca)), B $(($(metric bitmapd_write_conflicts_total "$B_URL") - cb))"
check "2 x 2,000 pipelined SETBITs of 100 keys from two instances answered without an error" 2 \
  "$(grep -l 'errors: 0, replies: 2000' "$BITMAPD_TEST_TMP"/many.? | wc -l)"
wlog_fold
check "... every key holds both instances' 40 bits (rows in SQL)" "100|40|40" \
  "$("${PSQL[@]}" -c "SELECT count(*) || '|' || min(cardinality) || '|' || max(cardinality)
                        FROM bitmapd.bitmaps WHERE key LIKE '${P}many:%'::bytea")"
check "... and A counts them all" 4000 \
  "$(for i in $(seq 0 99); do redis-cli -p "$A_R" BITCOUNT "${P}many:$i"; done | awk '{s += $1} END {print s}')"

# ---- the lock step: a batch cannot deadlock with another writer's insert ---------------------
# The write statement locks every row it names, in key order, before it updates or
# inserts any. Without that step (tried twice: docs/design.md, "no lock step for
# groups of one key") the batch below updates ${P}dla and waits for ${P}dlb, which a
# psql session holds and then tries to insert ${P}dla: a deadlock, found after
# deadlock_timeout (1 s) and retried.
# With it, the lock on ${P}dla leaves psql's insert a plain conflict.
redis-cli -p "$A_R" SETBIT "${P}dla" 1 1 >/dev/null
redis-cli -p "$A_R" SETBIT "${P}dlb" 1 1 >/dev/null
deadlocks() { "${PSQL[@]}" -c "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"; }
d0=$(deadlocks)
r0=$(metric bitmapd_write_updates_redone_total "$A_URL")
"${PSQL[@]}" >"$BITMAPD_TEST_TMP/dl.psql" 2>&1 <<SQL &
BEGIN;
UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = '${P}dlb'::bytea;
SELECT pg_sleep(1);
INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes)
     VALUES ('${P}dla'::bytea, 1, '\xb100', 0, 0, 0) ON CONFLICT DO NOTHING;
COMMIT;
SQL
dlpid=$!
sleep 0.3
check "one pipeline of SETBITs of both keys (one statement) answers both" "0 0" \
  "$(resp_pipeline "$A_R" "SETBIT ${P}dla 2 1" "SETBIT ${P}dlb 2 1")"
wait "$dlpid"
check "... and PostgreSQL found no deadlock" 0 $(($(deadlocks) - d0))
if in_place; then
  # both keys exist: the pipeline goes as a statement of updates alone (SQL_CAS_UPD),
  # which waits for psql's row at most lock_timeout (10 ms), gives up and goes out
  # again with the lock step
  check "... (the statement without the lock step gave up its wait and went out again with it)" \
    "$((r0 + 1))" "$(metric bitmapd_write_updates_redone_total "$A_URL")"
fi
check "... and both keys hold both bits" "1 1 1 1" \
  "$(for k in dla dlb; do for b in 1 2; do redis-cli -p "$A_R" GETBIT "${P}$k" $b; done; done | tr '\n' ' ' | sed 's/ $//')"

# ---- group commit: concurrent writers share statements ----------------------------------------
# SETBITs sent to compare-and-swap statements: two SETBITs of one key that arrive
# together are merged into one write of the statement (docs/design.md, "Merged
# writes"), so they are counted by the merged units, not by the writes
merged_units() {
  BASE_URL=$A_URL http GET /metrics
  awk '$1 == "bitmapd_write_merged_units_sum" {print $2 + 0}' <<<"$HTTP_BODY"
}
fresh_units() { # changed nothing, decided on rows just read from the database: no statement needed
  BASE_URL=$A_URL http GET /metrics
  awk '$1 == "bitmapd_write_unchanged_fresh_units_total" {print $2 + 0}' <<<"$HTTP_BODY"
}
units=$(merged_units)
fresh=$(fresh_units)
calls=$(info "$A_R" cas_calls)
stmts=$(info "$A_R" cas_statements)
timeout 120 redis-benchmark -p "$A_R" -c 50 -n 3000 -r 100000 -q "SETBIT" "${P}gc:__rand_int__" 7 1 >/dev/null 2>&1
units=$(($(merged_units) - units))
fresh=$(($(fresh_units) - fresh))
calls=$(($(info "$A_R" cas_calls) - calls))
stmts=$(($(info "$A_R" cas_statements) - stmts))
wlog_fold
keys=$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps WHERE key LIKE '${P}gc:%'::bytea")
echo "# 3,000 SETBITs of random keys from 50 clients: $keys keys, $units SETBITs in $calls writes in $stmts statements, $fresh decided on rows just loaded that changed nothing"
# a SETBIT that changes nothing, decided on a cached row, still goes into a statement as
# a version check, so a stale cache cannot turn it into a lost write; one decided on a
# row just read from the database needs none (a repeated key whose cached copy was
# dropped in between, e.g. by a notification sharing its slot of recent changes)
check "3,000 SETBITs from 50 clients: each went through a compare-and-swap (write or check), or changed nothing on a row just loaded" 3000 "$((units + fresh))"
check "... and at most the repeated keys were decided without a statement" yes \
  "$([[ $fresh -le $((3000 - keys)) ]] && echo yes || echo "no: $fresh of $((3000 - keys)) repeats")"
check "... and wrote one row per distinct key" yes "$([[ $keys -gt 2800 && $keys -le 3000 ]] && echo yes || echo "no: $keys")"
check "... in fewer statements than writes (grouped)" yes "$([[ $stmts -lt $calls ]] && echo yes || echo "no: $stmts")"
check "every key written by the benchmark holds its bit" 0 \
  "$("${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps WHERE key LIKE '${P}gc:%'::bytea AND cardinality <> 1")"

# ---- keys missing from the cache, guessed absent -------------------------------------------------
# Once most recent misses found no row, a train writes a missing key on the guess that
# it has none (no load first); the compare-and-swap checks the guess, and a key that
# had a row after all is loaded and written again, answering from its real bits.
a_metric() { # NAME — a counter of instance A
  BASE_URL=$A_URL http GET /metrics
  awk -v n="$1" '$1 == n {print $2 + 0}' <<<"$HTTP_BODY"
}
for i in $(seq 30); do redis-cli -p "$A_R" setbit "${P}fresh:$i" 3 1 >/dev/null; done # misses with no row
g0=$(a_metric bitmapd_write_guessed_absent_keys_total)
w0=$(a_metric bitmapd_write_guesses_wrong_total)
c0=$(a_metric bitmapd_write_conflicts_total)
check "after 30 new keys, a SETBIT of one more is written without a load (guessed absent)" "0|$((g0 + 1))" \
  "$(redis-cli -p "$A_R" setbit "${P}fresh:31" 3 1)|$(a_metric bitmapd_write_guessed_absent_keys_total)"
wlog_fold # (with [wlog] enabled) fresh:1's row, and psql may write
"${PSQL[@]}" -c "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes)
                 SELECT convert_to('${P}guess', 'UTF8'), 5, bits, cardinality, checksum, nbytes
                   FROM bitmapd.bitmaps WHERE key = convert_to('${P}fresh:1', 'UTF8')"
check "SETBIT of a key A never saw, inserted by hand with bit 3 set, answers the old bit 1" 1 \
  "$(redis-cli -p "$A_R" setbit "${P}guess" 3 0)"
check "... its guess was wrong once, and that is not a conflict" "$((w0 + 1))|$c0" \
  "$(a_metric bitmapd_write_guesses_wrong_total)|$(a_metric bitmapd_write_conflicts_total)"
wlog_fold # (with [wlog] enabled, A may hold the lease again and have logged the SETBIT)
check "... and it wrote over the row: version 6, no member" "6|0" \
  "$("${PSQL[@]}" -c "SELECT version || '|' || cardinality FROM bitmapd.bitmaps WHERE key = convert_to('${P}guess', 'UTF8')")"
check "B reads the bit cleared" 0 "$(getbit "$B_R" "${P}guess" 3)"

# The other writes guess too (a fan-out to users new to the service loads nothing):
# a user whose box B created, which A never saw, is guessed absent by A's fan-out,
# found, loaded and written again; the box keeps B's message.
F=$((U + 500))
users() { seq -s, "$1" "$2"; }
i0=$(a_metric bitmapd_write_insert_statements_total)
BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 7, \"users\": [$(users $((F + 1)) $((F + 40)))]}"
check "fan-out on A to 40 new users" "200 40" "$HTTP_STATUS $(jget .users)"
# a statement of nothing but inserts of keys guessed absent goes out without the lock step
if in_place; then
  check "... in a statement of inserts alone (SQL_CAS_NEW)" yes \
    "$([[ $(a_metric bitmapd_write_insert_statements_total) -gt $i0 ]] && echo yes || echo no)"
fi
BASE_URL=$B_URL http POST "/v1/users/$F/pushes" '{"messages": [3]}'
check "B pushes message 3 to a user A never saw" 200 "$HTTP_STATUS"
g0=$(a_metric bitmapd_write_guessed_absent_keys_total)
w0=$(a_metric bitmapd_write_guesses_wrong_total)
c0=$(a_metric bitmapd_write_conflicts_total)
r0=$(a_metric bitmapd_write_inserts_redone_total)
BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 9, \"users\": [$F,$(users $((F + 41)) $((F + 60)))]}"
check "fan-out on A of message 9 to that user and 20 new ones" "200 21" "$HTTP_STATUS $(jget .users)"
check "... guessed the 21 absent, wrongly for one, which is not a conflict" "yes|$((w0 + 1))|$c0" \
  "$([[ $(a_metric bitmapd_write_guessed_absent_keys_total) -ge $((g0 + 21)) ]] && echo yes || echo no)|$(a_metric bitmapd_write_guesses_wrong_total)|$(a_metric bitmapd_write_conflicts_total)"
if in_place; then
  # the statement of inserts met the user's row (a unique violation): its calls went out
  # again through the statement with the lock step, which failed only that user's group
  check "... the statement of inserts met the row and went out again with the lock step" "$((r0 + 1))" \
    "$(a_metric bitmapd_write_inserts_redone_total)"
fi
BASE_URL=$A_URL http GET "/v1/users/$F/messages?limit=20&consistent=true"
check "... and the user's box holds both messages" "[9,3]" "$(jget '[.messages[].id]')"
wlog_fold # the fan-outs' images may still be in the write-behind log ([wlog] enabled)
check "the 60 new users hold one message each (7, then 9)" "60|60" \
  "$("${PSQL[@]}" -c "SELECT count(*) || '|' || sum(cardinality) FROM bitmapd.bitmaps
                       WHERE key IN (SELECT convert_to('message:push:' || u, 'UTF8') FROM generate_series($F, $((F + 60))) u)
                         AND key <> convert_to('message:push:' || $F, 'UTF8')")"

# A fan-out to users whose boxes A holds rewrites rows it found: a statement of updates
# alone (SQL_CAS_UPD), no lock step. Here psql bumps one user's version while holding
# its row: the UPDATE waits for it no longer than its lock_timeout (10 ms), gives up
# with nothing written, and its calls go out again with the lock step, which waits for
# psql's commit and then fails only that user's group.
if in_place; then
  holding() { # MESSAGE — how many of users F+1 … F+40 hold it (rows in SQL)
    "${PSQL[@]}" -c "SELECT count(*) FROM bitmapd.bitmaps b
                      WHERE key IN (SELECT convert_to('message:push:' || u, 'UTF8') FROM generate_series($((F + 1)), $((F + 40))) u)
                        AND $1 IN (SELECT bitmapd.members(b.bits))"
  }
  u0=$(a_metric bitmapd_write_update_statements_total)
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 10, \"users\": [$(users $((F + 1)) $((F + 40)))]}"
  check "fan-out on A to 40 users whose boxes it wrote" "200 40" "$HTTP_STATUS $(jget .users)"
  check "... in a statement of updates alone (SQL_CAS_UPD)" yes \
    "$([[ $(a_metric bitmapd_write_update_statements_total) -gt $u0 ]] && echo yes || echo no)"
  d0=$(a_metric bitmapd_write_updates_redone_total)
  c0=$(a_metric bitmapd_write_conflicts_total)
  lock_open "UPDATE bitmapd.bitmaps SET version = version + 1 WHERE key = convert_to('message:push:$((F + 20))', 'UTF8');"
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 15, \"users\": [$(users $((F + 1)) $((F + 40)))]}" &
  fan_pid=$!
  wait_for "A's fan-out waits for psql's row" waiting_on_lock
  lock_close COMMIT
  wait "$fan_pid"
  check "... the fan-out that met the moved row went out again with the lock step" "$((d0 + 1))" \
    "$(a_metric bitmapd_write_updates_redone_total)"
  check "... where only that user's group was a conflict" "$((c0 + 1))" "$(a_metric bitmapd_write_conflicts_total)"
  check "... and all 40 users hold message 15, the moved one too" "40" \
    "$(holding 15)"
  # A row changed behind A's back (a superuser session with the triggers off, so no
  # notification: A's copy stays a version behind): the UPDATE finds it at another
  # version without waiting, writes fewer rows than it names and aborts (40001); again
  # the calls go out with the lock step, and only that user's group is a conflict.
  d0=$(a_metric bitmapd_write_updates_redone_total)
  c0=$(a_metric bitmapd_write_conflicts_total)
  super_psql "$BITMAPD_PGDIR" "$("${PSQL[@]}" -c "SELECT current_database()")" >/dev/null \
    <<<"SET session_replication_role = replica;
        UPDATE bitmapd.bitmaps SET version = version + 1 WHERE key = convert_to('message:push:$((F + 25))', 'UTF8')"
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 16, \"users\": [$(users $((F + 1)) $((F + 40)))]}"
  check "a fan-out over a row moved unannounced" "200 40" "$HTTP_STATUS $(jget .users)"
  check "... found it short of a row, went out again with the lock step, one conflict" "$((d0 + 1))|$((c0 + 1))" \
    "$(a_metric bitmapd_write_updates_redone_total)|$(a_metric bitmapd_write_conflicts_total)"
  check "... and all 40 users hold message 16" "40" \
    "$(holding 16)"
fi

# ---- statements of many keys that nobody else hears of (migration 0019) -------------------------
# A compare-and-swap of 64 keys or more asks the change trigger to leave its keys out of
# the notification when no other session holds a watcher lock. With B listening it is
# announced key by key, and B, which cached a box before, sees the fan-out.
Q=$((U + 700))
BASE_URL=$B_URL http GET "/v1/users/$((Q + 5))/messages/11"
check "B reads message 11 unpushed to a user (and caches the box)" "200 false" "$HTTP_STATUS $(jget .readable)"
q0=$(a_metric bitmapd_write_quiet_asked_total)
BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 11, \"users\": [$(users $((Q + 1)) $((Q + 100)))]}"
check "fan-out on A to 100 users" "200 100" "$HTTP_STATUS $(jget .users)"
if in_place; then
  check "... asked to go unannounced" yes "$([[ $(a_metric bitmapd_write_quiet_asked_total) -gt $q0 ]] && echo yes || echo no)"
fi
wait_for "B, listening, sees the fan-out to the user whose box it had cached" \
  '[[ $(BASE_URL=$B_URL http GET "/v1/users/$((Q + 5))/messages/11" && jget .readable) == true ]]'

# ---- TRUNCATE empties every cache ----------------------------------------------------------------
getbit "$B_R" "${P}k1" 5 >/dev/null
"${PSQL[@]}" -c "CREATE TEMP TABLE keep AS SELECT * FROM bitmapd.bitmaps; TRUNCATE bitmapd.bitmaps;
                 INSERT INTO bitmapd.bitmaps SELECT * FROM keep WHERE key NOT LIKE '${P}%'::bytea"
wait_for "a TRUNCATE reaches B" '[[ $(getbit $B_R ${P}k1 5) == 0 ]]'

stop_service "$B"

# A alone: no other instance listens. A psql session that LISTENs without the watcher
# locks (it breaks docs/scaling.md's rule, as a listener that registers while such a
# statement runs does) hears '!q:' and A's token instead of the keys of a fan-out, and
# the keys of one of fewer than 64 users. A hears its own and keeps its cache; another
# instance's, or the note of an older one, empties it.
if in_place; then
  listen_open "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}"
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 12, \"users\": [$(users $((Q + 1)) $((Q + 100)))]}"
  check "A alone: fan-out to 100 users" "200 100" "$HTTP_STATUS $(jget .users)"
  NOTES=$(notifications)
  check_match "... is announced by one '!q:' note with A's token" '^!q:[0-9a-f]{16}$' "$NOTES"
  TOKEN=${NOTES#!q:}
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 12, \"users\": [$(users $((Q + 201)) $((Q + 300)))]}"
  check "... so is one to 100 new users (a statement of inserts alone)" "200 100 !q:$TOKEN" \
    "$HTTP_STATUS $(jget .users) $(notifications)"
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 13, \"users\": [$(users $((Q + 1)) $((Q + 10)))]}"
  check "... a fan-out to 10 users is announced key by key" "10" "$(notifications | tr ',' '\n' | grep -c ':')"
  l0=$(info "$A_R" load_statements)
  check "A's cache holds its own fan-outs: GETBIT of the box answers without a load" "1 1 1 $l0" \
    "$(for m in 11 12 13; do getbit "$A_R" "message:push:$((Q + 5))" $m; done | tr '\n' ' ')$(info "$A_R" load_statements)"
  listen_close
  # a listener that holds the locks (every instance's, docs/scaling.md) is told the keys
  listen_open "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" \
    "SELECT count(pg_advisory_lock_shared(7355610, s)) FROM generate_series(0, 15) s"
  BASE_URL=$A_URL http POST "/v1/pushes" "{\"message\": 14, \"users\": [$(users $((Q + 1)) $((Q + 100)))]}"
  check "with a watcher: the fan-out to 100 users is announced key by key" "100" \
    "$(notifications | tr ',' '\n' | grep -c ':')"
  listen_close
  f0=$(info "$A_R" cache_flushes)
  BASE_URL=$A_URL http GET "/v1/users/$((Q + 5))/messages?limit=5" >/dev/null
  "${PSQL[@]}" -c "SELECT pg_notify('bitmapd_changed', '!q:$TOKEN')" >/dev/null
  sleep 0.3
  check "A's own '!q:' note leaves its cache as it is" "$f0" "$(info "$A_R" cache_flushes)"
  "${PSQL[@]}" -c "SELECT pg_notify('bitmapd_changed', '!q:0123456789abcdef')" >/dev/null
  wait_for "another instance's '!q:' note empties A's cache" '[[ $(info $A_R cache_flushes) -gt $f0 ]]'
  BASE_URL=$A_URL http GET "/v1/users/$((Q + 5))/messages?limit=5"
  check "... which reads the box again from the database" "200 [14,13,12,11]" "$HTTP_STATUS $(jget '[.messages[].id]')"
  check "no unreadable notification was logged" "" \
    "$(grep -h 'unreadable change notification' "$BITMAPD_TEST_TMP"/bitmapd.*.log | head -n 1)"
  # The window: an instance that starts listening after such a statement looked for
  # watchers and before it commits reads the old state, and is told by the '!q:' note.
  # Here the statement is a psql transaction that asks as A would (A's listener is the
  # one watcher, so it goes unannounced), kept open while B starts and caches the
  # key's absence; after the commit B reads the key.
  redis-cli -p "$A_R" setbit "${P}src" 3 1 >/dev/null
  APID=$("${PSQL[@]}" -c "SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 7355610 AND objsubid = 2")
  check_match "A's listener is the one session holding the watcher locks" '^[0-9]+$' "$APID"
  lock_open "SELECT set_config('bitmapd.quiet_pid', '$APID', true), set_config('bitmapd.instance', 'feedfacefeedface', true);
             INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes)
             SELECT '${P}win'::bytea, 1, bits, cardinality, checksum, nbytes FROM bitmapd.bitmaps WHERE key = '${P}src'::bytea;"
  start_service || finish
  B=$PORT B_R=$RPORT
  wait_for "instance B listens for changes" '[[ $(info $B_R cache_enabled) == 1 ]]'
  check "B, started while the statement is open, reads the key absent (and caches that)" 0 "$(getbit "$B_R" "${P}win" 3)"
  lock_close COMMIT
  wait_for "after the commit, B reads the key" '[[ $(getbit $B_R ${P}win 3) == 1 ]]'
  stop_service "$B"
fi
stop_service "$A"

# ---- plans made while the table was empty ------------------------------------------------------
# A connection plans each prepared statement once (plan_cache_mode=force_generic_plan),
# from the table's size at its first run. Made on an empty table, a key probe was a
# sequential scan, rescanned once per key, and stayed one after the table had grown:
# a fan-out into it took seconds per statement, then statement timeouts (seen under
# make integration-wlog). PostgreSQL counts every (re)scan in seq_scan; a backend
# reports its counts at the latest when it exits.
seq_scans() { "${PSQL[@]}" -c "SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'bitmapd.bitmaps'::regclass"; }
# The same plans, once the statement planned its UPDATE with the table counted empty,
# walked the whole primary key once per statement (an index scan with no condition,
# seq scans being off), and went on doing so as the table grew until an analyze:
# random new keys fell from 20,000 to 400 a second. The instance analyzes a table
# that has doubled since it was counted (sql/090_stats.sql), so the plans are made
# again. PostgreSQL counts the index entries a scan reads in idx_tup_read.
analyzes() { "${PSQL[@]}" -c "SELECT analyze_count FROM pg_stat_user_tables WHERE relid = 'bitmapd.bitmaps'::regclass"; }
# in_log TEXT FILE — "yes" once FILE holds TEXT (waiting up to 5 s: PostgreSQL counts an
# analyze before the function that ran it has returned and the instance has logged it)
in_log() {
  for _ in $(seq 50); do
    grep -qF -- "$1" "$2" && { echo yes; return; }
    sleep 0.1
  done
  echo no
}
pkey_reads() { "${PSQL[@]}" -c "SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelid = 'bitmapd.bitmaps_pkey'::regclass"; }
"${PSQL[@]}" -c "CREATE TABLE bitmapd.cache_test_keep AS SELECT * FROM bitmapd.bitmaps; TRUNCATE bitmapd.bitmaps;
                 ALTER TABLE bitmapd.bitmaps SET (autovacuum_enabled = off)" # no analyze to re-plan meanwhile
"${PSQL[@]}" -c "VACUUM ANALYZE bitmapd.bitmaps"
# shellcheck disable=SC2034 # read by wait_for's eval
a0=$(analyzes)
if start_service; then
  C=$PORT C_R=$RPORT
  for i in $(seq 1 300); do printf 'SETBIT %sempty:%d 1 1\r\n' "$P" "$i"; done >"$BITMAPD_TEST_TMP/warm"
  redis-cli -p "$C_R" --pipe <"$BITMAPD_TEST_TMP/warm" >"$BITMAPD_TEST_TMP/warm.out" 2>&1
  check "300 SETBITs into an empty table" 1 "$(grep -c 'errors: 0, replies: 300' "$BITMAPD_TEST_TMP/warm.out")"
  redis-cli -p "$C_R" setbit "${P}empty:one" 1 1 >/dev/null
  redis-cli -p "$C_R" get "${P}empty:one" >/dev/null
  wlog_fold # psql's INSERT next
  "${PSQL[@]}" -c "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum)
                   SELECT convert_to('${P}fill:' || g, 'UTF8'), 1, '', 0, 0 FROM generate_series(1, 30000) g"
  # The check never waits: while a VACUUM holds the table (its lock, taken here by
  # hand), it leaves the table for a later call, and writes go on.
  lock_open "LOCK TABLE bitmapd.bitmaps IN SHARE UPDATE EXCLUSIVE MODE;"
  check "a write while the table is held as a VACUUM holds it" 0 "$(redis-cli -p "$C_R" setbit "${P}empty:two" 1 1)"
  check "bitmapd._refresh_stats() meanwhile answers at once, analyzing nothing" "none" \
    "$(timeout 5 psql "$BITMAPD_DSN" -XAtq -c "SELECT coalesce(bitmapd._refresh_stats(), 'none')" 2>&1)"
  sleep 1.5 # the instance's own check (every second while it writes) comes and goes
  check "... nor does the instance's check, and its write was answered" "0 1" \
    "$(($(analyzes) - a0)) $(redis-cli -p "$C_R" getbit "${P}empty:two" 1)"
  lock_close
  redis-cli -p "$C_R" setbit "${P}empty:three" 1 1 >/dev/null # the instance writes: it checks again
  wait_for "the instance analyzes the table grown from 300 to 30,000 rows" '(( $(analyzes) > a0 ))' 20
  check "... and says so in its log" yes \
    "$(in_log 'msg="tables analyzed: grown to twice their counted size" tables="bitmapd.bitmaps"' \
      "$BITMAPD_TEST_TMP/bitmapd.$C.log")"
  sleep 2 # the counts of the statements so far reach the statistics (at most 1 s apart)
  s0=$(seq_scans) r0=$(pkey_reads)
  for i in $(seq 1 2000); do printf 'SETBIT %sgrown:%d 1 1\r\n' "$P" "$i"; done >"$BITMAPD_TEST_TMP/grown"
  redis-cli -p "$C_R" --pipe <"$BITMAPD_TEST_TMP/grown" >"$BITMAPD_TEST_TMP/grown.out" 2>&1
  check "2,000 SETBITs once the table has 30,000 rows" 1 "$(grep -c 'errors: 0, replies: 2000' "$BITMAPD_TEST_TMP/grown.out")"
  check "... of which GETBIT reads one back" 1 "$(getbit "$C_R" "${P}grown:1999" 1)"
  stop_service "$C"
  wait_for "instance C's sessions have ended" \
    "[[ \$(\"\${PSQL[@]}\" -c \"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()\") == 0 ]]"
  s1=$(seq_scans) r1=$(pkey_reads)
  echo "# sequential scans of bitmapd.bitmaps during the 2,000 SETBITs: $((s1 - s0)); primary key entries read: $((r1 - r0))"
  check "a statement planned on the empty table probes keys by the index (< 100 sequential scans for 2,000 keys)" \
    yes "$( ((s1 - s0 < 100)) && echo yes || echo no)"
  check "... and reads fewer primary key entries than one walk of the 30,000 rows (< 15,000 for 2,000 keys)" \
    yes "$( ((r1 - r0 < 15000)) && echo yes || echo no)"
fi

# ---- the statistics check of a database without bitmapd._refresh_stats() ------------------------
# (migrated by an older version): said once, and looked for again every 60 checks, so
# that a `bitmapd --migrate` run meanwhile is found without a restart. Here the checks
# run every 50 ms, so every 3 s while the function is missing.
"${PSQL[@]}" -c "ALTER FUNCTION bitmapd._refresh_stats() RENAME TO _refresh_stats_away"
if start_service --set postgres.analyze_check_ms=50; then
  D=$PORT D_R=$RPORT
  dlog=$BITMAPD_TEST_TMP/bitmapd.$D.log
  missing() { grep -c '_refresh_stats() is missing' "$dlog"; }
  # shellcheck disable=SC2016 # expanded by wait_for's eval
  wait_for "an instance that writes finds bitmapd._refresh_stats() missing" \
    '{ redis-cli -p $D_R setbit ${P}nostats 1 1 >/dev/null; (( $(missing) > 0 )); }' 20
  for i in $(seq 1 40); do
    redis-cli -p "$D_R" setbit "${P}nostats" $((i % 2)) 1 >/dev/null
    sleep 0.2
  done # 8 s of writes: at least two more checks, each finding it missing
  check "... says so once in 8 s of writes, and writes go on" "1 1" "$(missing) $(getbit "$D_R" "${P}nostats" 0)"
  # the function back (as a --migrate would bring it), and the table doubled: the
  # instance's next look finds it and analyzes the table (autovacuum is off for it)
  # shellcheck disable=SC2034 # read by wait_for's eval
  a1=$(analyzes)
  wlog_fold # (with [wlog] enabled) psql's INSERT next
  "${PSQL[@]}" -c "ALTER FUNCTION bitmapd._refresh_stats_away() RENAME TO _refresh_stats;
                   INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum)
                   SELECT convert_to('${P}fill2:' || g, 'UTF8'), 1, '', 0, 0 FROM generate_series(1, 40000) g"
  # shellcheck disable=SC2016 # expanded by wait_for's eval
  wait_for "once the function is back, the instance analyzes the doubled table without a restart" \
    '{ redis-cli -p $D_R setbit ${P}nostats 2 1 >/dev/null; (( $(analyzes) > a1 )); }' 20
  check "... says in its log that the checks resume, and said it was missing only once" "yes 1" \
    "$(in_log '_refresh_stats() found: statistics checks resume' "$dlog") $(missing)"
  stop_service "$D"
else
  "${PSQL[@]}" -c "ALTER FUNCTION bitmapd._refresh_stats_away() RENAME TO _refresh_stats"
fi
"${PSQL[@]}" -c "ALTER TABLE bitmapd.bitmaps RESET (autovacuum_enabled);
                 DELETE FROM bitmapd.bitmaps WHERE key >= convert_to('${P}', 'UTF8') AND key < convert_to('${P};', 'UTF8');
                 INSERT INTO bitmapd.bitmaps SELECT * FROM bitmapd.cache_test_keep ON CONFLICT (key) DO NOTHING;
                 DROP TABLE bitmapd.cache_test_keep"
check_logs_clean
finish
