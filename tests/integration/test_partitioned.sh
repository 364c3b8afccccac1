#!/usr/bin/env bash
# bitmapd.partition_bitmaps (sql/080_partition.sql) end to end, on a cluster of its own
# (so that the other tests keep their plain table): data written over HTTP and RESP,
# the conversion run while the service is up and while an HTTP check-in and a RESP SETBIT
# wait on its lock, then: every value reads back the same over both protocols and in
# psql (versions and update times included), the waiting writes and new writes commit,
# the views and functions of sql/ answer as before, the table's columns, defaults,
# constraints, indexes, triggers, comments, owner, grants and storage parameters are
# kept, rows lie in all 8 partitions, change notifications still fire once per
# statement (through the parent and on a partition), `bitmapd --migrate` still runs,
# and bad calls are refused without changing anything.
#
# Ports: PARTITIONED_PG_PORT for PostgreSQL, START_PORT / START_RESP_PORT for bitmapd
# (lib.sh); each defaults to a free port from lib.sh's free_port.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
PG_SH=$BITMAPD_ROOT/scripts/pg.sh
PGDIR=$T/pg

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
  if [[ -n ${LISTEN_PID:-} ]]; then kill "$LISTEN_PID" 2>/dev/null || true; fi
  if [[ -n ${LOCK_PID:-} ]]; then kill "$LOCK_PID" 2>/dev/null || true; fi
  [[ -d $PGDIR ]] && bash "$PG_SH" destroy "$PGDIR" >/dev/null 2>&1
  return 0
}
trap cleanup EXIT
trap 'exit 143' TERM INT

PG_PORT=${PARTITIONED_PG_PORT:-$(free_port)} || exit 1
if ! bash "$PG_SH" start "$PGDIR" "$PG_PORT" >"$T/pg-start.log" 2>&1; then
  check "own PostgreSQL cluster started on port $PG_PORT" ok "$(tail -n 5 "$T/pg-start.log")"
  finish
fi
BITMAPD_DSN=$(<"$PGDIR/dsn")                 # the service's role
BITMAPD_OWNER_DSN=$(<"$PGDIR/owner_dsn")     # migrations, partitioning and psql
BITMAPD_PGDIR=$PGDIR
export BITMAPD_DSN BITMAPD_OWNER_DSN BITMAPD_PGDIR
PSQL=(psql "$BITMAPD_OWNER_DSN" -XAtq -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1" 2>&1; }

if ! BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate.log" 2>&1; then
  check "bitmapd --migrate on the test's own cluster" ok "$(tail -n 5 "$T/migrate.log")"
  finish
fi
# shellcheck disable=SC2119  # no extra bitmapd arguments
if ! start_service; then finish; fi

# --- data over HTTP and RESP ----------------------------------------------------------
TODAY=$(date -u +%F)
for u in $(seq 1 40); do
  http POST "/v1/users/$u/pushes" "{\"messages\": [$u, $((u + 100)), $((u * 1000)), 4000000000]}"
  [[ $HTTP_STATUS == 200 ]] || echo "# push $u: $HTTP_STATUS $HTTP_BODY"
  if ((u % 3 == 0)); then http POST "/v1/users/$u/reads" "{\"messages\": [$u]}"; fi
done
for u in 1 2 3; do
  for d in 0 1 3; do http POST "/v1/users/$u/checkins" "{\"date\": \"$(date -u -d "$TODAY -$d day" +%F)\"}"; done
done
http POST /v1/notices '{"id": 7, "audiences": [1, 2]}'
http POST /v1/notices '{"id": 8, "audiences": [2]}'
http PUT /v1/notices/7/reads/5 '{"read": true}'
http PUT /v1/notices/8/reads/6 '{"read": true}'
http POST /v1/groups/5/members '{"user": 11}'
http POST /v1/groups/5/members '{"user": 12}'
http POST /v1/groups/5/messages '{"message": 900, "sender": 11}'
http POST /v1/groups/5/messages/900/reads '{"user": 12}'
http POST /v1/broadcasts '{"id": 3}'
http POST /v1/users/1/broadcasts/seen
http POST /v1/authors/77/posts
http PUT /v1/users/1/following '{"authors": [77]}'
http POST /v1/authors/77/posts
for i in $(seq 1 60); do
  printf 'SETBIT resp:%s %s 1\nSETBIT resp:%s %s 1\n' "$i" "$i" "$i" $((i * 65536 + 7))
done | rcli >/dev/null
rcli SET resp:string hello >/dev/null
rcli R.SETINTARRAY resp:roaring 5 70000 4000000000 >/dev/null
check "rows written before the conversion" "ok" \
  "$(sql "SELECT CASE WHEN count(*) >= 100 THEN 'ok' ELSE count(*)::text END FROM bitmapd.bitmaps")"

# Extras the conversion must carry over: a grant (table and column), an index comment,
# a storage parameter, a function whose SQL-standard body is bound to the table.
sql "GRANT SELECT ON bitmapd.bitmaps TO PUBLIC;
     GRANT UPDATE (updated_at) ON bitmapd.bitmaps TO PUBLIC;
     COMMENT ON INDEX bitmapd.bitmaps_expire IS 'expiry order (test comment)';
     ALTER TABLE bitmapd.bitmaps SET (fillfactor = 90);
     CREATE FUNCTION bitmapd.test_atomic_rows() RETURNS bigint LANGUAGE sql
       BEGIN ATOMIC SELECT count(*) FROM bitmapd.bitmaps; END;" >/dev/null

# --- what must not change -----------------------------------------------------------------
# Every answer over HTTP (status, ETag, body).
http_snapshot() {
  local u
  for u in $(seq 1 40); do
    for p in "/v1/users/$u/unread?limit=10" "/v1/users/$u/messages?limit=3&page=1" "/v1/users/$u/messages/$u" \
      "/v1/users/$u/periods"; do
      http GET "$p"
      printf '%s %s %s %s\n' "$p" "$HTTP_STATUS" "$HTTP_ETAG" "$HTTP_BODY"
    done
  done
  for p in "/v1/users/1/checkins?month=${TODAY:0:7}" "/v1/users/2/checkins/streak?date=$TODAY" \
    "/v1/audiences/2/users/5/notices?state=all" "/v1/audiences/2/users/6/notices?state=unread" \
    /v1/notices/7/stats /v1/notices/7/reads/5 "/v1/groups/5/messages/900/receipts?list=unread" \
    /v1/users/1/broadcasts/unread /v1/users/1/feed/unread /v1/periods; do
    http GET "$p"
    printf '%s %s %s %s\n' "$p" "$HTTP_STATUS" "$HTTP_ETAG" "$HTTP_BODY"
  done
}
# Every answer over RESP.
resp_snapshot() {
  local i
  rcli SCAN 0 COUNT 1000 | grep -vx -e during:1 -e checkin:9001
  rcli KEYS 'resp:*' | sort
  for i in $(seq 1 60); do
    rcli BITCOUNT "resp:$i"
    rcli BITPOS "resp:$i" 1
    rcli STRLEN "resp:$i"
    rcli GETBIT "resp:$i" "$i"
    rcli GETBIT "resp:$i" $((i + 1))
  done
  rcli GET resp:string
  rcli R.GETINTARRAY resp:roaring
  rcli R.REVRANGEINTARRAY message:push:7 0 -1
  rcli BITCOUNT checkin:1
}
# Every row as stored (rows written during the test's waits are left out), and the
# answers of the views and functions of sql/.
# checkin:9001 lives in a bucket row when its family is in buckets (a new database's
# layout, docs/design.md "Bucket rows by default"); that row is new too.
OLD_KEYS="key NOT IN ('checkin:9001'::bytea, 'during:1'::bytea, (bitmapd.bucket_of('checkin:9001'::bytea)).bucket_key)"
rows_snapshot() {
  sql "SELECT count(*) || ' ' || md5(string_agg(encode(key, 'hex') || ':' || version || ':' || md5(bits) || ':' ||
              cardinality || ':' || checksum || ':' || coalesce(nbytes::text, '-') || ':' || updated_at, ','
              ORDER BY key)) FROM bitmapd.bitmaps WHERE $OLD_KEYS"
}
views_snapshot() {
  local q
  for q in "SELECT * FROM bitmapd.keys WHERE key_bytes NOT IN ('checkin:9001'::bytea, 'during:1'::bytea)" \
    "SELECT * FROM bitmapd.inbox_users" "SELECT * FROM bitmapd.inbox_user_ids" \
    "SELECT * FROM bitmapd.inbox_period_stats" "SELECT * FROM bitmapd.inbox_user_periods(7)" \
    "SELECT * FROM bitmapd.checkins WHERE user_id <> 9001" "SELECT * FROM bitmapd.checkins_of(2)" "SELECT * FROM bitmapd.checkin_days(1)" \
    "SELECT * FROM bitmapd.notices" "SELECT * FROM bitmapd.notice_audiences" "SELECT * FROM bitmapd.notice_list(2, 5)" \
    "SELECT * FROM bitmapd.group_receipts" "SELECT * FROM bitmapd.group_receipts_of(5)" \
    "SELECT * FROM bitmapd.broadcast_cursors" "SELECT * FROM bitmapd.feed_unread"; do
    printf '%s => %s\n' "$q" "$(sql "SELECT count(*) || ' ' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ($q) t")"
  done
}
# The table's definition, in a form that does not depend on the table's OID or kind.
schema_snapshot() {
  sql "SELECT string_agg(x, E'\n' ORDER BY x) FROM (
    SELECT 'col ' || a.attnum || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull
           || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '-') || ' storage=' || a.attstorage::text
           || ' comment=' || coalesce(col_description(a.attrelid, a.attnum), '-')
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = 'bitmapd.bitmaps'::regclass AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid)
                     || ' comment=' || coalesce(obj_description(oid, 'pg_constraint'), '-')
      FROM pg_constraint WHERE conrelid = 'bitmapd.bitmaps'::regclass
    UNION ALL SELECT 'idx ' || replace(pg_get_indexdef(indexrelid), ' ON ONLY ', ' ON ')
                     || ' comment=' || coalesce(obj_description(indexrelid, 'pg_class'), '-')
      FROM pg_index WHERE indrelid = 'bitmapd.bitmaps'::regclass
    UNION ALL SELECT 'trg ' || pg_get_triggerdef(oid) || ' enabled=' || tgenabled::text
      FROM pg_trigger WHERE tgrelid = 'bitmapd.bitmaps'::regclass AND NOT tgisinternal
    UNION ALL SELECT 'table comment=' || coalesce(obj_description('bitmapd.bitmaps'::regclass, 'pg_class'), '-')
                     || ' owner=' || pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'bitmapd.bitmaps'::regclass
    UNION ALL SELECT 'acl ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END || ' '
                     || a.privilege_type || ' grantable=' || a.is_grantable || ' by ' || pg_get_userbyid(a.grantor)
      FROM pg_class c, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
     WHERE c.oid = 'bitmapd.bitmaps'::regclass
    UNION ALL SELECT 'colacl ' || t.attname || ' ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END
                     || ' ' || a.privilege_type
      FROM pg_attribute t, aclexplode(t.attacl) a WHERE t.attrelid = 'bitmapd.bitmaps'::regclass
    UNION ALL SELECT 'views reading the table: ' || count(DISTINCT w.ev_class)
      FROM pg_depend d JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND w.oid = d.objid
     WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = 'bitmapd.bitmaps'::regclass
  ) s(x)"
}

http_snapshot >"$T/http.before"
resp_snapshot >"$T/resp.before" 2>&1
ROWS_BEFORE=$(rows_snapshot)
views_snapshot >"$T/views.before"
schema_snapshot >"$T/schema.before"
ATOMIC_BEFORE=$(sql "SELECT bitmapd.test_atomic_rows()")
echo "# before: rows $ROWS_BEFORE"
# (counts, not exact numbers: later migrations may add columns, indexes or views)
check_match "schema snapshot lists columns, constraints, indexes, triggers, grants, a column grant and views" \
  '^([1-9][0-9]* ){6}[1-9][0-9]*$' \
  "$(for k in col con idx trg acl colacl; do grep -c "^$k " "$T/schema.before"; done | tr '\n' ' ')$(sed -n 's/^views reading the table: //p' "$T/schema.before")"
check "schema snapshot has the test's grants and index comment" "3" \
  "$(grep -c -e '^acl PUBLIC SELECT ' -e '^colacl updated_at PUBLIC UPDATE' -e "comment=expiry order (test comment)" "$T/schema.before")"

# --- bad calls change nothing ---------------------------------------------------------------
# sqlstate CALL — the SQLSTATE a call ends with ("00000" if it succeeds)
sqlstate() {
  psql "$BITMAPD_OWNER_DSN" -XAtq -v VERBOSITY=verbose -c "$1" 2>&1 | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p;' | head -n 1 |
    grep . || echo 00000
}
for n in 1 0 -3 1025 NULL; do
  check "partition_bitmaps($n) is refused (22023)" 22023 "$(sqlstate "SELECT bitmapd.partition_bitmaps($n)")"
done
check "the refusal names the range" "1" \
  "$(sql "SELECT bitmapd.partition_bitmaps(1)" | grep -c 'partitions must be between 2 and 1024, not 1$')"
sql "CREATE MATERIALIZED VIEW bitmapd.test_mv AS SELECT count(*) AS n FROM bitmapd.bitmaps" >/dev/null
check "a materialized view over the table: refused (2BP01)" 2BP01 "$(sqlstate "SELECT bitmapd.partition_bitmaps(8)")"
check "the refusal names the materialized view" 1 \
  "$(sql "SELECT bitmapd.partition_bitmaps(8)" | grep -c 'materialized view bitmapd.test_mv')"
sql "DROP MATERIALIZED VIEW bitmapd.test_mv" >/dev/null
check "after the refusals: still a plain table, no leftovers" "r 0" \
  "$(sql "SELECT relkind::text || ' ' || (SELECT count(*) FROM pg_class WHERE relname ~ '^bitmaps_(p[0-9]+|unpartitioned)$')
            FROM pg_class WHERE oid = 'bitmapd.bitmaps'::regclass")"
check "after the refusals: the schema is unchanged" "$(cat "$T/schema.before")" "$(schema_snapshot)"

# --- listening for changes from psql ----------------------------------------------------------
listen_open "$BITMAPD_OWNER_DSN"
# items — the items of notification payloads (stdin), one a line, as key-hex:version
# (or key-hex:d, or *): the third field of migration 0007's items is left out.
items() { tr ',' '\n' | grep . | cut -d: -f1,2; }
# item KEY — key-hex:version of KEY's row, as a notification names it
item() { sql "SELECT encode(key, 'hex') || ':' || version FROM bitmapd.bitmaps WHERE key = '$1'"; }
# home KEY — the row that holds KEY: its own, or its bucket row when its family is in buckets
home() {
  sql "SELECT coalesce((SELECT convert_from(r.bucket_key, 'UTF8') FROM bitmapd.bucket_of('$1'::bytea) r
                         JOIN bitmapd.bucket_state s ON s.family = r.family WHERE s.state IN ('on', 'moving_in')), '$1')"
}
notifications >/dev/null
rcli SETBIT resp:1 99 1 >/dev/null
NOTES=$(notifications)
check "before the conversion: a RESP write notifies its key and version" "1 $(item resp:1)" \
  "$(wc -l <<<"$NOTES") $(items <<<"$NOTES")"
rcli SETBIT resp:1 99 0 >/dev/null
notifications >/dev/null
ROWS_BEFORE=$(rows_snapshot)
resp_snapshot >"$T/resp.before" 2>&1
views_snapshot >"$T/views.before"
DBSIZE_BEFORE=$(rcli DBSIZE)

# --- the conversion, while the service runs and two writes wait on its lock -------------------
# lock_open's psql session (lib.sh) uses BITMAPD_DSN: here the owner's, who may convert
BITMAPD_DSN=$BITMAPD_OWNER_DSN lock_open "SELECT bitmapd.partition_bitmaps(8);"
check "partition_bitmaps(8) ran in the open transaction" 1 \
  "$(grep -c '^bitmapd.bitmaps: .* rows in 8 hash partitions' "$T/lock.out")"
(
  http POST /v1/users/9001/checkins "{\"date\": \"$TODAY\"}"
  echo "$HTTP_STATUS $HTTP_BODY" >"$T/during.http"
) &
DURING_HTTP=$!
(rcli SETBIT during:1 5 1 >"$T/during.resp" 2>&1) &
DURING_RESP=$!
waiters() { sql "SELECT count(*) FROM pg_stat_activity WHERE $LOCK_BACKEND = ANY (pg_blocking_pids(pid))"; }
# shellcheck disable=SC2016  # evaluated by wait_for
# Both may wait in one statement: keys missing from the cache, once most misses had no
# row, are written without a load first, and writes of one loop turn share a statement.
wait_for "the writes wait on the conversion's lock" '[[ $(waiters) -ge 1 ]]'
check_match "an HTTP check-in and a RESP SETBIT wait on the conversion's lock (statements waiting)" '^[1-9][0-9]*$' "$(waiters)"
sleep 0.5 # the second write, if it was not in the first statement, is queued behind it
printf 'COMMIT;\n' >&8
exec 8>&-
wait "$LOCK_PID" 2>/dev/null
LOCK_PID=
wait "$DURING_HTTP" "$DURING_RESP"
check "the waiting HTTP check-in committed after the conversion" "200 false 1" \
  "$(read -r s b <"$T/during.http"; echo "$s $(jq -r '"\(.already) \(.streak)"' <<<"$b" 2>/dev/null)")"
check "the waiting RESP SETBIT committed after the conversion" "0" "$(cat "$T/during.resp")"
check "the waiting writes are in the new table" "2" \
  "$(sql "SELECT count(*) FROM bitmapd.values WHERE key IN ('checkin:9001', 'during:1') AND cardinality > 0")"

# --- the result -------------------------------------------------------------------------------
check "bitmapd.bitmaps is partitioned by hash of key into 8 partitions" "p hash(key) 8" \
  "$(sql "SELECT c.relkind::text || ' ' || lower(replace(pg_get_partkeydef(c.oid), ' ', '')) || ' ' ||
                 (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid)
            FROM pg_class c WHERE c.oid = 'bitmapd.bitmaps'::regclass")"
check "rows lie in all 8 partitions, none outside them" "8 0" \
  "$(sql "SELECT count(DISTINCT tableoid) || ' ' || (SELECT count(*) FROM ONLY bitmapd.bitmaps) FROM bitmapd.bitmaps")"
check "no partition holds more than half the rows" "t" \
  "$(sql "SELECT max(n) * 2 <= sum(n) FROM (SELECT count(*) AS n FROM bitmapd.bitmaps GROUP BY tableoid) s")"
check "every row as before: key, version, bits, counts, checksum, length, updated_at" "$ROWS_BEFORE" "$(rows_snapshot)"
check "columns, defaults, constraints, indexes, triggers, comments, owner, grants as before" \
  "$(cat "$T/schema.before")" "$(schema_snapshot)"
check "the storage parameter is on every partition" "8" \
  "$(sql "SELECT count(*) FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
           WHERE i.inhparent = 'bitmapd.bitmaps'::regclass AND 'fillfactor=90' = ANY (c.reloptions)")"
check "every partition has the four statement triggers" "8" \
  "$(sql "SELECT count(*) FROM (SELECT tgrelid FROM pg_trigger t JOIN pg_inherits i ON i.inhrelid = t.tgrelid
           WHERE i.inhparent = 'bitmapd.bitmaps'::regclass AND t.tgname LIKE 'bitmaps_changed_%'
           GROUP BY tgrelid HAVING count(*) = 4) s")"
check "the old table is gone" "" "$(sql "SELECT to_regclass('bitmapd.bitmaps_unpartitioned')")"
check "the views and functions of sql/ answer as before" "$(cat "$T/views.before")" "$(views_snapshot)"
check "a function with a BEGIN ATOMIC body reads the new table" "$(sql "SELECT count(*) FROM bitmapd.bitmaps")" \
  "$(sql "SELECT bitmapd.test_atomic_rows()")"
check "(and it counted the rows before as well)" "t" "$([[ $ATOMIC_BEFORE -gt 100 ]] && echo t || echo f)"
check "every HTTP answer as before (status, ETag, body)" "$(cat "$T/http.before")" "$(http_snapshot)"
check "every RESP answer as before" "$(cat "$T/resp.before")" "$(resp_snapshot 2>&1)"
check "RESP DBSIZE counts the two keys written during the conversion" "$((DBSIZE_BEFORE + 2))" "$(rcli DBSIZE)"
# The conversion itself announces nothing; the two writes that waited for it do.
check "after the conversion: only the two writes that waited are announced" \
  "$( (item "$(home checkin:9001)"; item during:1) | sort)" "$(notifications | items | sort)"

# --- writes after the conversion ------------------------------------------------------------------
http POST /v1/users/7/pushes '{"messages": [5000]}'
check "HTTP push to an existing user" "200" "$HTTP_STATUS"
NOTES=$(notifications)
check "the push notified its key and new version, once" "1 $(item message:push:7)" \
  "$(wc -l <<<"$NOTES") $(items <<<"$NOTES")"
http GET "/v1/users/7/messages?limit=10"
check "the push reads back over HTTP" "200 [4000000000,7000,5000,107,7]" "$HTTP_STATUS $(jget '[.messages[].id]')"
check "the push reads back over RESP" "4000000000 7000 5000 107 7" "$(rcli R.REVRANGEINTARRAY message:push:7 0 4 | tr '\n' ' ' | sed 's/ $//')"
http POST /v1/users/500/pushes '{"messages": [9, 10]}'
check "HTTP push to a new user" "200 2" "$HTTP_STATUS $(jget .pushed)"
check "RESP SETBIT on a new key" "0 1 1" \
  "$(rcli SETBIT after:1 12345 1) $(rcli GETBIT after:1 12345) $(rcli BITCOUNT after:1)"
check "the new key is announced" "$(item after:1)" "$(notifications | items | grep "^$(item after:1 | cut -d: -f1):")"
http PUT /v1/notices/8/reads/9 '{"read": true}'
check "a notice read mark after the conversion" "200" "$HTTP_STATUS"
check "bitmapd.notices sees it" "2" "$(sql "SELECT readers FROM bitmapd.notices WHERE id = 8")"
check "bitmapd.inbox_users sees the new user" "2 2" \
  "$(sql "SELECT pushed || ' ' || unread FROM bitmapd.inbox_users WHERE user_id = 500")"
check "bitmapd.keys sees the new key" "1" "$(sql "SELECT cardinality FROM bitmapd.keys WHERE key = 'after:1'")"
notifications >/dev/null

# One statement through the parent over keys of several partitions: one notification.
sql "UPDATE bitmapd.bitmaps SET updated_at = updated_at WHERE key IN ('resp:1', 'resp:2', 'resp:3', 'resp:4', 'resp:5')" >/dev/null
NOTES=$(notifications)
check "the five keys lie in more than one partition" t \
  "$(sql "SELECT count(DISTINCT tableoid) > 1 FROM bitmapd.bitmaps WHERE key IN ('resp:1', 'resp:2', 'resp:3', 'resp:4', 'resp:5')")"
check "an UPDATE of keys in several partitions notifies once, with all five keys" \
  "1 $(for k in 1 2 3 4 5; do item "resp:$k"; done | sort | tr '\n' ' ')" \
  "$(wc -l <<<"$NOTES") $(items <<<"$NOTES" | sort | tr '\n' ' ')"
# One statement on a partition directly: one notification, from the partition's trigger.
P=$(sql "SELECT tableoid::regclass FROM bitmapd.bitmaps WHERE key = 'resp:9'")
sql "UPDATE $P SET updated_at = updated_at WHERE key = 'resp:9'" >/dev/null
NOTES=$(notifications)
check "an UPDATE naming a partition ($P) notifies once" "1 $(item resp:9)" "$(wc -l <<<"$NOTES") $(items <<<"$NOTES")"
sql "DELETE FROM bitmapd.bitmaps WHERE key = 'after:1'" >/dev/null
check "a DELETE notifies the key as deleted" "$(printf 'after:1' | od -An -tx1 | tr -d ' \n'):d" "$(notifications)"

# --- again, and the migrations ------------------------------------------------------------------
check "a second conversion is refused (55000)" 55000 "$(sqlstate "SELECT bitmapd.partition_bitmaps(8)")"
check "the refusal says why" 1 "$(sql "SELECT bitmapd.partition_bitmaps(16)" | grep -c 'already partitioned (8 partitions)')"
check "out of range is still refused first (22023)" 22023 "$(sqlstate "SELECT bitmapd.partition_bitmaps(2000)")"
if BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate2.log" 2>&1; then MIG=ok; else MIG="failed: $(tail -n 3 "$T/migrate2.log")"; fi
check "bitmapd --migrate on the partitioned table" ok "$MIG"
check "after --migrate: still 8 partitions, views answer" "8 true" \
  "$(sql "SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'bitmapd.bitmaps'::regclass) || ' ' ||
                 ((SELECT count(*) FROM bitmapd.inbox_users) = 41)")"
http GET /v1/users/40/unread
check "the service still answers after --migrate" "200 4" "$HTTP_STATUS $(jget .pushed)"

# TRUNCATE through the parent: one "*" (last: it empties the table).
sql "TRUNCATE bitmapd.bitmaps" >/dev/null
check "TRUNCATE notifies '*' once" "*" "$(notifications)"

listen_close
stop_service
check "bitmapd stopped cleanly" 0 "$SERVICE_EXIT"
check_logs_clean
finish
