#!/usr/bin/env bash
# The two database roles (scripts/roles.sql, README.md "Database roles"):
#  - the service's role (BITMAPD_DSN) is not the owner (BITMAPD_OWNER_DSN), owns
#    nothing, and every kind of DDL it tries is refused with SQLSTATE 42501, while
#    the owner can still read every view of sql/;
#  - it holds exactly SELECT, INSERT, UPDATE, DELETE on the tables and views, USAGE
#    on the sequences, EXECUTE on the functions, nothing on schema_migrations, and
#    objects the owner creates later are covered by default privileges;
#  - a bitmapd connected as it works through every domain (message box, check-ins,
#    notices, group receipts, broadcasts, red dots, feed, RESP) with its cache on;
#  - scripts/roles.sh on a new database, run by a CREATEROLE administrator, creates
#    both roles, `bitmapd --migrate` as the new owner and a bitmapd as the new app
#    role work, and running it again (also after extra grants were added by hand)
#    leaves exactly the same privileges; roles.sql run twice by a superuser on the
#    suite's database changes nothing;
#  - scripts/pg.sh start converts a directory of the one-role layout (role bitmapd
#    owning everything, its DSN in DIR/dsn), stopped or running.
# The administrator steps need the superuser of the test cluster (BITMAPD_PGDIR, a
# pg.sh directory); without it they are skipped and say so.
#
# Ports: ROLES_PG_PORT for the upgrade scenario's own cluster, START_PORT /
# START_RESP_PORT for bitmapd (lib.sh); each defaults to a free port.
# shellcheck disable=SC2119,SC2016  # start_service gets no script arguments; wait_for evaluates later
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
PG_SH=$BITMAPD_ROOT/scripts/pg.sh
ROLES_SH=$BITMAPD_ROOT/scripts/roles.sh
ROLES_SQL=$BITMAPD_ROOT/scripts/roles.sql
APP_DSN=$BITMAPD_DSN
OWNER_DSN=${BITMAPD_OWNER_DSN:?BITMAPD_OWNER_DSN is set by scripts/test_integration.sh}
RUN=$$$RANDOM
OWN_PG="" # the cluster of the upgrade scenario
RT_DB="" RT_ADMIN="" RT_OWNER="" RT_APP=""

# psql_as DSN SQL — rows unaligned, errors included
psql_as() { psql "$1" -XAtq -v ON_ERROR_STOP=1 -c "$2" 2>&1; }
app_sql() { psql_as "$APP_DSN" "$1"; }
owner_sql() { psql_as "$OWNER_DSN" "$1"; }
# sqlstate DSN SQL — the SQLSTATE the statement ends with ("00000" if it succeeds)
sqlstate() {
  psql "$1" -XAtq -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$2" 2>&1 |
    sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -n 1 | grep . || echo 00000
}

# A libpq single-quoted value.
conn_quote() {
  local v=${1//\\/\\\\}
  printf "'%s'" "${v//\'/\\\'}"
}

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local p
  for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
  if [[ -n $RT_DB && -n ${BITMAPD_PGDIR:-} ]]; then
    super_psql "$BITMAPD_PGDIR" postgres >/dev/null 2>&1 <<SQL
DROP DATABASE IF EXISTS "$RT_DB" WITH (FORCE);
DROP ROLE IF EXISTS "$RT_APP";
DROP ROLE IF EXISTS "$RT_OWNER";
DROP ROLE IF EXISTS "$RT_ADMIN";
SQL
  fi
  if [[ -n $OWN_PG && -d $OWN_PG ]]; then bash "$PG_SH" destroy "$OWN_PG" >/dev/null 2>&1; fi
  return 0
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# ---- who is who ------------------------------------------------------------------------------
APP=$(app_sql "SELECT current_user")
OWNER=$(owner_sql "SELECT current_user")
echo "# service role: $APP, owner role: $OWNER"
check "the service's role is not the owner's" yes "$([[ -n $APP && -n $OWNER && $APP != "$OWNER" ]] && echo yes || echo "no: '$APP' '$OWNER'")"
check "the owner owns schema bitmapd and every object in it" "$OWNER 0" \
  "$(owner_sql "SELECT nspowner::regrole::text || ' ' || (
            (SELECT count(*) FROM pg_class WHERE relnamespace = n.oid AND relkind IN ('r','p','v','m','S','f') AND relowner <> n.nspowner)
          + (SELECT count(*) FROM pg_proc WHERE pronamespace = n.oid AND proowner <> n.nspowner))
          FROM pg_namespace n WHERE nspname = 'bitmapd'")"
check "the service's role: no superuser, createdb, createrole, replication, bypassrls" "f f f f f" \
  "$(app_sql "SELECT concat_ws(' ', rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls) FROM pg_roles WHERE rolname = current_user")"
check "the service's role owns nothing (relations, functions, schemas, types, databases)" 0 \
  "$(app_sql "SELECT (SELECT count(*) FROM pg_class WHERE relowner = r.oid) + (SELECT count(*) FROM pg_proc WHERE proowner = r.oid)
               + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid) + (SELECT count(*) FROM pg_type WHERE typowner = r.oid)
               + (SELECT count(*) FROM pg_database WHERE datdba = r.oid)
          FROM pg_roles r WHERE rolname = current_user")"
check "the service's role is a member of no role" 0 \
  "$(app_sql "SELECT count(*) FROM pg_auth_members WHERE member = (SELECT oid FROM pg_roles WHERE rolname = current_user)")"

# ---- DDL as the service's role: refused ------------------------------------------------------
refused=(
  "CREATE TABLE bitmapd.t_roles (x int)"
  "CREATE TABLE public.t_roles (x int)"
  "CREATE TEMP TABLE t_roles (x int)"
  "CREATE SCHEMA t_roles"
  "CREATE VIEW bitmapd.t_roles AS SELECT 1 AS x"
  "CREATE FUNCTION bitmapd.t_roles() RETURNS int LANGUAGE sql AS 'SELECT 1'"
  "CREATE OR REPLACE FUNCTION bitmapd.key_hash(k bytea) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 0::bigint'"
  "CREATE INDEX t_roles ON bitmapd.bitmaps (updated_at)"
  "CREATE TRIGGER t_roles AFTER INSERT ON bitmapd.bitmaps FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._bitmaps_changed()"
  "ALTER TABLE bitmapd.bitmaps ADD COLUMN t_roles int"
  "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER bitmaps_changed_update"
  "ALTER TABLE bitmapd.bitmaps DROP CONSTRAINT bitmaps_checksum_range"
  "ALTER FUNCTION bitmapd.key_hash(bytea) RENAME TO t_roles"
  "ALTER SEQUENCE bitmapd.reddot_seq RESTART"
  "ALTER VIEW bitmapd.keys RENAME TO t_roles"
  "COMMENT ON TABLE bitmapd.bitmaps IS 't_roles'"
  "REINDEX TABLE bitmapd.bitmaps"
  "TRUNCATE bitmapd.bitmaps"
  "TRUNCATE bitmapd.inbox_periods"
  "DROP TABLE bitmapd.inbox_periods"
  "DROP VIEW bitmapd.keys"
  "DROP FUNCTION bitmapd.group_join(bigint, bigint, integer)"
  "DROP SCHEMA bitmapd CASCADE"
  "SELECT version FROM bitmapd.schema_migrations"
  "INSERT INTO bitmapd.schema_migrations (version, name) VALUES (9999, 't_roles')"
  "SET ROLE \"$OWNER\""
  "ALTER DATABASE $(app_sql "SELECT quote_ident(current_database())") SET work_mem = '1MB'"
)
for stmt in "${refused[@]}"; do
  check "as the service's role: $stmt → 42501" 42501 "$(sqlstate "$APP_DSN" "$stmt")"
done
check "nothing of those statements exists or changed (owner's view)" "0 0 4 bitmaps_checksum_range 5" \
  "$(owner_sql "SELECT (SELECT count(*) FROM pg_class WHERE relname = 't_roles') || ' '
               || (SELECT count(*) FROM pg_attribute WHERE attrelid = 'bitmapd.bitmaps'::regclass AND attname = 't_roles') || ' '
               || (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'bitmapd.bitmaps'::regclass AND tgname LIKE 'bitmaps_changed_%' AND tgenabled = 'O') || ' '
               || (SELECT conname FROM pg_constraint WHERE conname = 'bitmaps_checksum_range') || ' '
               || (SELECT count(*) FROM pg_proc WHERE proname IN ('key_hash', 'group_join', 'partition_bitmaps', 'members', 'feed_sync'))")"
check "key_hash is still the migration's (three keys, three hashes)" 3 \
  "$(app_sql "SELECT count(DISTINCT bitmapd.key_hash(convert_to(g::text, 'UTF8'))) FROM generate_series(1, 3) g")"

# ---- what the service's role holds --------------------------------------------------------------
check "tables and views: SELECT, INSERT, UPDATE, DELETE, and no TRUNCATE, REFERENCES or TRIGGER" "" \
  "$(owner_sql "SELECT string_agg(c.relname, ', ') FROM pg_class c
                 WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v') AND c.relname <> 'schema_migrations'
                   AND NOT (has_table_privilege('$APP', c.oid, 'SELECT') AND has_table_privilege('$APP', c.oid, 'INSERT')
                            AND has_table_privilege('$APP', c.oid, 'UPDATE') AND has_table_privilege('$APP', c.oid, 'DELETE')
                            AND NOT has_table_privilege('$APP', c.oid, 'TRUNCATE') AND NOT has_table_privilege('$APP', c.oid, 'REFERENCES')
                            AND NOT has_table_privilege('$APP', c.oid, 'TRIGGER'))")"
check "tables checked above (the migrations' tables and sql/'s views)" yes \
  "$(n=$(owner_sql "SELECT count(*) FROM pg_class WHERE relnamespace = 'bitmapd'::regnamespace AND relkind IN ('r', 'p', 'v')"); [[ $n -ge 20 ]] && echo yes || echo "no: $n")"
check "schema_migrations: no privilege at all" "f f f f" \
  "$(owner_sql "SELECT concat_ws(' ', has_table_privilege('$APP', 'bitmapd.schema_migrations', 'SELECT'),
                   has_table_privilege('$APP', 'bitmapd.schema_migrations', 'INSERT'), has_table_privilege('$APP', 'bitmapd.schema_migrations', 'UPDATE'),
                   has_table_privilege('$APP', 'bitmapd.schema_migrations', 'DELETE'))")"
check "schema bitmapd: USAGE, not CREATE; database: CONNECT, not CREATE" "t f t f" \
  "$(owner_sql "SELECT concat_ws(' ', has_schema_privilege('$APP', 'bitmapd', 'USAGE'), has_schema_privilege('$APP', 'bitmapd', 'CREATE'),
                   has_database_privilege('$APP', current_database(), 'CONNECT'), has_database_privilege('$APP', current_database(), 'CREATE'))")"
check "sequences: USAGE; functions: EXECUTE (every one of the schema)" "0 0" \
  "$(owner_sql "SELECT (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'bitmapd'::regnamespace
                          AND CASE WHEN c.relkind = 'S' THEN NOT has_sequence_privilege('$APP', c.oid, 'USAGE') END) || ' ' ||
                       (SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'bitmapd'::regnamespace
                          AND NOT has_function_privilege('$APP', p.oid, 'EXECUTE'))")"
# what a later migration creates is covered by the owner's default privileges
owner_sql "CREATE TABLE bitmapd.t_roles_later (x int); CREATE SEQUENCE bitmapd.t_roles_seq;
           CREATE FUNCTION bitmapd.t_roles_fn(int) RETURNS int LANGUAGE sql AS 'SELECT \$1 + 1'" >/dev/null
check "a table, sequence and function created later by the owner: usable by the service's role" "1|2|1" \
  "$(app_sql "INSERT INTO bitmapd.t_roles_later VALUES (1); UPDATE bitmapd.t_roles_later SET x = x;
              SELECT (SELECT x FROM bitmapd.t_roles_later) || '|' || bitmapd.t_roles_fn(1) || '|' || nextval('bitmapd.t_roles_seq')")"
check "... and still not droppable or alterable by it" "42501 42501 42501" \
  "$(sqlstate "$APP_DSN" "DROP TABLE bitmapd.t_roles_later") $(sqlstate "$APP_DSN" "TRUNCATE bitmapd.t_roles_later") $(sqlstate "$APP_DSN" "ALTER TABLE bitmapd.t_roles_later ADD COLUMN y int")"
owner_sql "DROP TABLE bitmapd.t_roles_later; DROP SEQUENCE bitmapd.t_roles_seq; DROP FUNCTION bitmapd.t_roles_fn(int)" >/dev/null
# (LIMIT 0: privileges on every relation and function a view uses are checked when
# the executor starts, and nothing is computed; with LIMIT 5 an aggregate view such as
# bitmapd.inbox_period_stats computes every group first, over the 250,000 message
# boxes the suite leaves in the shared database, in a time that depends on the plan:
# a run took over 300 s there)
check "the owner reads every view of sql/" "" \
  "$(for v in $(owner_sql "SELECT c.oid::regclass FROM pg_class c WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind = 'v'"); do
       psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "SELECT count(*) FROM (SELECT * FROM $v LIMIT 0) s" >/dev/null 2>"$T/view.err" ||
         echo "$v: $(head -n 1 "$T/view.err")"
     done)"

# ---- a bitmapd connected as the service's role, through every domain -------------------------------
start_service || finish
wait_for "the cache is on (LISTEN and the trigger check passed as the service's role)" \
  '[[ $(rcli info bitmapd | tr -d "\r" | sed -n "s/^cache_enabled://p") == 1 ]]'
check "its change listener is a session of the service's role" yes \
  "$(n=$(app_sql "SELECT count(*) FROM pg_stat_activity WHERE usename = current_user AND query = 'LISTEN bitmapd_changed'"); [[ $n -ge 1 ]] && echo yes || echo "no: $n")"
U=$(((RANDOM * 32768 + RANDOM) % 1000000 * 1000 + 7000000000)) # users below 2^53 (jq)
S=$(((RANDOM * 32768 + RANDOM) % 4000 * 1000000 + 123457))     # 32-bit ids: notices and their users, authors, messages
AUD=$((RANDOM % 30000 + 30000))
TODAY=$(date -u +%F)
expect() { # NAME EXPECTED-STATUS
  check "$1 → $2" "$2" "$HTTP_STATUS$([[ $HTTP_STATUS == "$2" ]] || echo " $HTTP_BODY")"
}
# message box
http POST "/v1/users/$U/pushes" '{"messages": [3, 5, 8]}'
expect "inbox: push" 200
http POST "/v1/users/$U/reads" '{"messages": [5]}'
expect "inbox: read" 200
http GET "/v1/users/$U/messages?limit=2"
check "inbox: newest-first page" "200 [8,5]" "$HTTP_STATUS $(jget '[.messages[].id]')"
http GET "/v1/users/$U/unread"
check "inbox: unread" "200 3 1 2" "$HTTP_STATUS $(jget .pushed) $(jget .read) $(jget .unread)"
http DELETE "/v1/users/$U/messages/3"
expect "inbox: retract" 200
http GET /v1/periods
expect "inbox: periods" 200
http GET "/v1/users/$U/periods"
expect "inbox: a user's periods" 200
http POST "/v1/users/$U/history/drop" '{"before": 6}'
expect "inbox: drop history" 200
# check-ins
http POST "/v1/users/$U/checkins" "{\"date\": \"$TODAY\"}"
check "check-in: sign today" "200 1" "$HTTP_STATUS $(jget .month_count)"
http GET "/v1/users/$U/checkins?month=${TODAY:0:7}"
expect "check-in: calendar" 200
# notices
http PUT "/v1/audiences/$AUD/users" "{\"users\": [$S]}"
expect "notices: audience members" 200
http POST /v1/notices "{\"id\": $S, \"audiences\": [$AUD]}"
expect "notices: create" 201
http PUT "/v1/notices/$S/reads/$S" '{"read": true}'
expect "notices: mark read" 200
http GET "/v1/audiences/$AUD/users/$S/notices"
check "notices: the user's list" "200 1 0" "$HTTP_STATUS $(jget .read) $(jget .unread)"
http GET "/v1/notices/$S/stats"
expect "notices: stats" 200
http DELETE "/v1/notices/$S"
expect "notices: delete" 200
# group receipts (bitmapd.group_join / group_leave, group_members, group_counters)
G=$U
http POST "/v1/groups/$G/members" "{\"user\": $U}"
check "receipts: join" "201 0" "$HTTP_STATUS $(jget .member_id)"
http POST "/v1/groups/$G/members" "{\"user\": $((U + 1))}"
check "receipts: second member" "201 1" "$HTTP_STATUS $(jget .member_id)"
http POST "/v1/groups/$G/messages" "{\"message\": $S, \"sender\": $U}"
expect "receipts: send" 201
http POST "/v1/groups/$G/messages/$S/reads" "{\"user\": $((U + 1))}"
expect "receipts: read" 200
http GET "/v1/groups/$G/messages/$S/receipts?list=read"
expect "receipts: list" 200
http DELETE "/v1/groups/$G/members/$((U + 1))"
expect "receipts: leave" 200
# broadcasts (broadcast_seen; the expiry calls bitmapd.broadcast_clear_batch, which deletes)
http POST /v1/broadcasts "{\"id\": $S}"
expect "broadcasts: post" 200
http POST "/v1/users/$U/broadcasts/seen"
expect "broadcasts: seen" 200
http GET "/v1/users/$U/broadcasts/unread"
check "broadcasts: unread" "200 0" "$HTTP_STATUS $(jget .unread)"
http POST /v1/broadcasts/cursors/expire '{"inactive_days": 36500}'
expect "broadcasts: expire idle cursors" 200
# red dots (nextval of bitmapd.reddot_seq)
DOT="roles.$RUN"
http POST "/v1/reddots/$DOT"
expect "red dots: set" 200
http POST "/v1/users/$U/reddots/$DOT/click"
expect "red dots: click" 200
http GET "/v1/users/$U/reddots/$DOT"
check "red dots: hidden after the click" "200 false" "$HTTP_STATUS $(jget .show)"
# feed (author_posts, feed_snapshots, bitmapd.feed_sync deleting a dropped followee's snapshot)
http POST "/v1/authors/$S/posts" '{"count": 3}'
expect "feed: author posts" 200
http POST "/v1/authors/$((S + 1))/posts" '{"count": 2}'
http PUT "/v1/users/$U/following" "{\"authors\": [$S, $((S + 1))]}"
expect "feed: follow two authors" 200
http PUT "/v1/users/$U/following" "{\"authors\": [$S]}"
expect "feed: unfollow one" 200
check "feed: the dropped followee's snapshot is gone (deleted as the service's role)" "1" \
  "$(owner_sql "SELECT count(*) FROM bitmapd.feed_snapshots WHERE user_id = $U")"
http POST "/v1/authors/$S/posts" '{"count": 4}'
http GET "/v1/users/$U/feed/unread"
check "feed: unread" "200 4" "$HTTP_STATUS $(jget .unread)"
http POST "/v1/users/$U/feed/seen"
expect "feed: seen" 200
# RESP (SCAN records its fences in bitmapd.scan_fences)
K="roles:$RUN"
check "RESP: SETBIT, GETBIT, BITCOUNT, EXISTS" "0 1 1 1" \
  "$(rcli SETBIT "$K" 9 1) $(rcli GETBIT "$K" 9) $(rcli BITCOUNT "$K") $(rcli EXISTS "$K")"
check "RESP: KEYS and SCAN find the key" "$K $K" \
  "$(rcli KEYS "roles:$RUN*") $(rcli --scan --pattern "roles:$RUN*" | sort -u)"
check "RESP: DEL" "1 0" "$(rcli DEL "$K") $(rcli EXISTS "$K")"
check_match "RESP: DBSIZE" '^[0-9]+$' "$(rcli DBSIZE)"
stop_service
check "the service logged no permission error" "" \
  "$(grep -h -i -E 'permission denied|must be owner' "$T"/bitmapd.*.log | head -n 3)"

# ---- scripts/roles.sh on a new database, by a CREATEROLE administrator ------------------------------
if [[ -z ${BITMAPD_PGDIR:-} ]] || ! super_psql "$BITMAPD_PGDIR" postgres <<<"SELECT 1" >/dev/null 2>&1; then
  echo "# skipped: roles.sh and the upgrade need the superuser of a pg.sh cluster (BITMAPD_PGDIR)"
  check_logs_clean
  finish
fi
PGPORT_SUITE=$(sed -n 's/.* port=\([0-9]*\) .*/\1/p' <<<"$APP_DSN")
RT_DB="roles_test_$RUN" RT_ADMIN="roles_admin_$RUN" RT_OWNER="roles_owner_$RUN" RT_APP="roles app $RUN"
ADMIN_PW=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
super_psql "$BITMAPD_PGDIR" postgres >/dev/null <<SQL
CREATE ROLE "$RT_ADMIN" LOGIN CREATEROLE PASSWORD '$ADMIN_PW';
CREATE DATABASE "$RT_DB" OWNER "$RT_ADMIN";
SQL
# a password with quotes, a backslash and a percent sign: it must reach PostgreSQL intact
printf '%s\n' "it's a \\\"pass\" %s" >"$T/app_pw"
ADMIN_CONN="host=127.0.0.1 port=$PGPORT_SUITE dbname=$RT_DB user=$RT_ADMIN"
roles_sh() { PGPASSWORD=$ADMIN_PW bash "$ROLES_SH" --owner "$RT_OWNER" --app "$RT_APP" \
  --owner-password-file "$T/owner_pw" --app-password-file "$T/app_pw" "$ADMIN_CONN"; }
rc=0
roles_sh >"$T/roles1.out" 2>&1 || rc=$?
check "roles.sh on a new database (CREATEROLE administrator): exit 0" 0 "$rc$( ((rc)) && tail -n 5 "$T/roles1.out")"
check_match "... it created both roles and the schema" \
  "created role $RT_OWNER.*created role \"$RT_APP\".*created schema bitmapd" "$(tr '\n' ' ' <"$T/roles1.out")"
check "... and wrote the owner's new password to a 0600 file" "600" "$(stat -c %a "$T/owner_pw" 2>&1)"
RT_OWNER_DSN="host=127.0.0.1 port=$PGPORT_SUITE dbname=$RT_DB user=$RT_OWNER password=$(conn_quote "$(head -n 1 "$T/owner_pw")")"
RT_APP_DSN="host=127.0.0.1 port=$PGPORT_SUITE dbname=$RT_DB user=$(conn_quote "$RT_APP") password=$(conn_quote "$(head -n 1 "$T/app_pw")")"
rc=0
BITMAPD_DSN=$RT_OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/rt-migrate.log" 2>&1 || rc=$?
check "bitmapd --migrate as the new owner role" 0 "$rc$( ((rc)) && tail -n 3 "$T/rt-migrate.log")"
# snapshot of every privilege, role attribute and membership involved
snapshot() {
  super_psql "$BITMAPD_PGDIR" "$RT_DB" <<SQL
SELECT 'rel ' || c.oid::regclass || ' ' || coalesce(c.relacl::text, '-') FROM pg_class c
 WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
UNION ALL SELECT 'fn ' || p.oid::regprocedure || ' ' || coalesce(p.proacl::text, '-') FROM pg_proc p
 WHERE p.pronamespace = 'bitmapd'::regnamespace
UNION ALL SELECT 'schema ' || nspowner::regrole || ' ' || coalesce(nspacl::text, '-') FROM pg_namespace WHERE nspname = 'bitmapd'
UNION ALL SELECT 'db ' || coalesce(datacl::text, '-') FROM pg_database WHERE datname = current_database()
UNION ALL SELECT 'default ' || defaclrole::regrole || ' ' || defaclobjtype::text || ' ' || coalesce(defaclnamespace::regnamespace::text, '-') || ' ' || defaclacl::text
  FROM pg_default_acl
UNION ALL SELECT 'role ' || rolname || ' ' || concat_ws(',', rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls)
  FROM pg_roles WHERE rolname IN ('$RT_OWNER', '$RT_APP', '$RT_ADMIN')
UNION ALL SELECT 'member ' || m.member::regrole || ' of ' || m.roleid::regrole FROM pg_auth_members m
 WHERE m.member::regrole::text IN ('$RT_OWNER', '"$RT_APP"', '$RT_ADMIN') OR m.roleid::regrole::text IN ('$RT_OWNER', '"$RT_APP"')
ORDER BY 1;
SQL
}
snapshot >"$T/snap1"
check_match "the snapshot holds the app role's grants" "rel bitmapd\\.bitmaps .*${RT_APP}[^=]*=arwd/$RT_OWNER" "$(cat "$T/snap1")"
rc=0
roles_sh >"$T/roles2.out" 2>&1 || rc=$?
check "roles.sh a second time: exit 0" 0 "$rc$( ((rc)) && tail -n 5 "$T/roles2.out")"
snapshot >"$T/snap2"
check "... and every privilege, attribute and membership is the same" "" "$(diff "$T/snap1" "$T/snap2")"
# extra rights given by hand are taken back by the next run
super_psql "$BITMAPD_PGDIR" "$RT_DB" >/dev/null <<SQL
GRANT TRUNCATE, TRIGGER ON bitmapd.bitmaps TO "$RT_APP";
GRANT CREATE ON SCHEMA bitmapd TO "$RT_APP";
GRANT ALL ON bitmapd.schema_migrations TO "$RT_APP";
ALTER ROLE "$RT_APP" CREATEDB;
GRANT "$RT_OWNER" TO "$RT_APP";
SQL
check "(extra grants by hand took effect)" "t" \
  "$(super_psql "$BITMAPD_PGDIR" "$RT_DB" <<<"SELECT has_table_privilege('$RT_APP', 'bitmapd.bitmaps', 'TRUNCATE')")"
rc=0
roles_sh >"$T/roles3.out" 2>&1 || rc=$?
check "roles.sh after extra grants: exit 0" 0 "$rc$( ((rc)) && tail -n 5 "$T/roles3.out")"
snapshot >"$T/snap3"
check "... and the privileges are the first run's again" "" "$(diff "$T/snap1" "$T/snap3")"
check "the new app role logs in with the password from the file, and may not create tables" "$RT_APP 42501" \
  "$(psql_as "$RT_APP_DSN" "SELECT current_user") $(sqlstate "$RT_APP_DSN" "CREATE TABLE bitmapd.t_roles (x int)")"
# a bitmapd on the new database, as the new app role
if BITMAPD_DSN=$RT_APP_DSN start_service; then
  http POST "/v1/users/42/pushes" '{"messages": [1, 2]}'
  check "a bitmapd as the new app role: push" "200 2" "$HTTP_STATUS $(jget .pushed)"
  check "... and SETBIT over RESP" "0 1" "$(rcli SETBIT "roles:rt" 3 1) $(rcli GETBIT "roles:rt" 3)"
  stop_service
fi

# ---- roles.sql run twice by a superuser on the suite's database: no change --------------------------
suite_db=$(app_sql "SELECT current_database()")
suite_snapshot() {
  super_psql "$BITMAPD_PGDIR" "$suite_db" <<SQL
SELECT c.oid::regclass || ' ' || coalesce(c.relacl::text, '-') FROM pg_class c
 WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
UNION ALL SELECT p.oid::regprocedure || ' ' || coalesce(p.proacl::text, '-') FROM pg_proc p WHERE p.pronamespace = 'bitmapd'::regnamespace
UNION ALL SELECT 'schema ' || coalesce(nspacl::text, '-') FROM pg_namespace WHERE nspname = 'bitmapd'
UNION ALL SELECT 'db ' || coalesce(datacl::text, '-') FROM pg_database WHERE datname = current_database()
UNION ALL SELECT 'default ' || defaclobjtype::text || ' ' || defaclacl::text FROM pg_default_acl
ORDER BY 1;
SQL
}
suite_snapshot >"$T/suite1"
for i in 1 2; do
  rc=0
  { printf '\\set owner %s\n\\set app %s\n' "$OWNER" "$APP"; cat "$ROLES_SQL"; } |
    super_psql "$BITMAPD_PGDIR" "$suite_db" >"$T/suite-roles$i.out" 2>&1 || rc=$?
  check "roles.sql by the superuser on the suite's database, run $i: exit 0" 0 "$rc$( ((rc)) && tail -n 3 "$T/suite-roles$i.out")"
done
suite_snapshot >"$T/suite2"
check "roles.sql twice by the superuser on the suite's database: privileges unchanged" "" "$(diff "$T/suite1" "$T/suite2")"
check "... and the service's role still reads and writes" "1" \
  "$(app_sql "UPDATE bitmapd.bitmaps SET updated_at = updated_at WHERE key = 'nothing:$RUN'::bytea; SELECT 1")"

# ---- pg.sh converts a directory of the one-role layout ------------------------------------------------
OWN_PG=$T/pg
PG_PORT=${ROLES_PG_PORT:-$(free_port)} || finish
if ! bash "$PG_SH" start "$OWN_PG" "$PG_PORT" >"$T/pg-start.log" 2>&1; then
  check "own PostgreSQL cluster started on port $PG_PORT" ok "$(tail -n 5 "$T/pg-start.log")"
  finish
fi
BITMAPD_DSN=$(<"$OWN_PG/owner_dsn") "$BITMAPD_BIN" --migrate >"$T/own-migrate.log" 2>&1 ||
  check "migrate the upgrade scenario's cluster" ok "$(tail -n 3 "$T/own-migrate.log")"
# make it what the older pg.sh left: one role owning everything, its DSN in DIR/dsn
to_old_layout() {
  super_psql "$OWN_PG" bitmapd >/dev/null <<SQL
REVOKE CONNECT ON DATABASE bitmapd FROM bitmapd_app;
DROP OWNED BY bitmapd_app;
DROP ROLE bitmapd_app;
GRANT CONNECT, TEMPORARY ON DATABASE bitmapd TO PUBLIC;
SQL
  mv -f -- "$OWN_PG/owner_dsn" "$OWN_PG/dsn"
  rm -f -- "$OWN_PG/app_password"
}
old_dsn=$(<"$OWN_PG/owner_dsn")
to_old_layout
check "(old layout: DIR/dsn is the owner's, no app role)" "bitmapd 0" \
  "$(psql_as "$(<"$OWN_PG/dsn")" "SELECT current_user || ' ' || (SELECT count(*) FROM pg_roles WHERE rolname = 'bitmapd_app')")"
BITMAPD_DSN=$old_dsn start_service || finish
http POST "/v1/users/77/pushes" '{"messages": [7, 70]}'
check "(a bitmapd of the old layout writes)" 200 "$HTTP_STATUS"
stop_service
upgraded() { # NAME MESSAGES-BEFORE NEW-MESSAGE
  check "$1: DIR/dsn names the app role, DIR/owner_dsn the old DSN" "bitmapd_app|yes" \
    "$(sed -n 's/.* user=\([^ ]*\) .*/\1/p' "$OWN_PG/dsn" 2>&1)|$([[ -f $OWN_PG/owner_dsn && $(<"$OWN_PG/owner_dsn") == "$old_dsn" ]] && echo yes || echo no)"
  check "$1: the app role's password file is private" 600 "$(stat -c %a "$OWN_PG/app_password" 2>&1)"
  check "$1: the app role may not create a table" 42501 "$(sqlstate "$(<"$OWN_PG/dsn")" "CREATE TABLE bitmapd.t_roles (x int)")"
  check "$1: PUBLIC lost CONNECT and TEMPORARY on the database" "f f" \
    "$(psql_as "$(<"$OWN_PG/owner_dsn")" "SELECT concat_ws(' ', has_database_privilege('public', 'bitmapd', 'CONNECT'), has_database_privilege('public', 'bitmapd', 'TEMPORARY'))")"
  local rc=0
  BITMAPD_DSN=$(<"$OWN_PG/owner_dsn") "$BITMAPD_BIN" --migrate >"$T/own-migrate2.log" 2>&1 || rc=$?
  check "$1: bitmapd --migrate with owner_dsn" 0 "$rc"
  if BITMAPD_DSN=$(<"$OWN_PG/dsn") start_service; then
    http GET "/v1/users/77/messages?limit=5"
    check "$1: a bitmapd as the app role reads the old data" "200 $2" "$HTTP_STATUS $(jget '[.messages[].id]')"
    http POST "/v1/users/77/pushes" "{\"messages\": [$3]}"
    http GET "/v1/users/77/messages/$3"
    check "$1: ... and writes" "200 true" "$HTTP_STATUS $(jget .readable)"
    stop_service
  fi
}
bash "$PG_SH" stop "$OWN_PG" >/dev/null
rc=0
bash "$PG_SH" start "$OWN_PG" >"$T/pg-upgrade.log" 2>&1 || rc=$?
check "pg.sh start on a stopped one-role directory: exit 0" 0 "$rc$( ((rc)) && tail -n 3 "$T/pg-upgrade.log")"
upgraded "upgrade of a stopped cluster" "[70,7]" 700
to_old_layout
rc=0
bash "$PG_SH" start "$OWN_PG" >"$T/pg-upgrade2.log" 2>&1 || rc=$?
check "pg.sh start on a running one-role directory: exit 0" 0 "$rc$( ((rc)) && tail -n 3 "$T/pg-upgrade2.log")"
upgraded "upgrade of a running cluster" "[700,70,7]" 7000

check_logs_clean
finish
