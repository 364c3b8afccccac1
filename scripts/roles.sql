-- roles.sql: the two database roles of bitmapd, for an existing cluster.
--
--   owner  owns schema bitmapd and everything in it; `bitmapd --migrate` connects as it.
--          An ordinary login role: no superuser, no extension needed.
--   app    the role the service connects as. It can read and write the rows of the
--          tables in schema bitmapd and call its functions, and nothing else: no DDL,
--          no CREATE in the schema or the database, not the owner of anything, not a
--          member of the owner.
--
-- Run it connected to bitmapd's database, as a superuser or as a CREATEROLE role
-- that owns that database (or holds CONNECT and CREATE on it WITH GRANT OPTION):
--
--   psql "dbname=bitmapd user=postgres" -v owner=bitmapd -v app=bitmapd_app \
--        -v app_password=... [-v owner_password=...] -f scripts/roles.sql
--
-- scripts/roles.sh does the same without putting passwords on a command line.
-- Variables (all optional): owner (default bitmapd), app (default bitmapd_app),
-- owner_password, app_password (a role's password is set only when given; a role
-- this script creates without one cannot log in over TCP with SCRAM).
--
-- It is idempotent: every run leaves the same privileges, whatever was granted to
-- the app role before. It creates the roles if they are missing, the schema bitmapd
-- (owned by the owner) if it is missing, and bitmapd.schema_migrations (see below).
-- It runs in one transaction, under the advisory lock `bitmapd --migrate` takes, so
-- it never interleaves with a migration.
--
-- What the app role gets, in the database it runs in:
--   CONNECT on the database; USAGE on schema bitmapd;
--   SELECT, INSERT, UPDATE, DELETE on every table and view of the schema, except
--     bitmapd.schema_migrations (nothing); no TRUNCATE, REFERENCES or TRIGGER;
--   USAGE on the schema's sequences (nextval); EXECUTE on its functions;
--   the same, through default privileges of the owner in schema bitmapd, on every
--     table, view, sequence and function a later migration (or sql/ file) creates.
-- LISTEN/NOTIFY (the cache invalidation channel bitmapd_changed) needs no privilege.
\set ON_ERROR_STOP 1

\if :{?owner}
\else
  \set owner bitmapd
\endif
\if :{?app}
\else
  \set app bitmapd_app
\endif

BEGIN;
-- the lock of src/store/migrate.c: no migration runs while privileges change
SELECT pg_advisory_xact_lock(7355608) \g /dev/null
-- Role names reach the DO blocks below through transaction-local settings (psql does
-- not interpolate variables inside dollar quotes); every use quotes them with %I.
SET LOCAL bitmapd_roles.owner = :'owner';
SET LOCAL bitmapd_roles.app = :'app';

-- ---- the roles ---------------------------------------------------------------------
DO $roles$
DECLARE
    owner text := current_setting('bitmapd_roles.owner');
    app text := current_setting('bitmapd_roles.app');
    a pg_roles;
    others text;
BEGIN
    IF owner = '' OR app = '' OR owner = app THEN
        RAISE EXCEPTION 'roles.sql: owner and app must be two different role names (got "%" and "%")', owner, app;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = owner) THEN
        EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', owner);
        RAISE NOTICE 'roles.sql: created role % (owner of schema bitmapd, runs the migrations)', quote_ident(owner);
    ELSIF (SELECT rolsuper FROM pg_roles WHERE rolname = owner) THEN
        RAISE NOTICE 'roles.sql: role % is a superuser; an ordinary role is enough to run the migrations', quote_ident(owner);
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = app) THEN
        EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT', app);
        RAISE NOTICE 'roles.sql: created role % (the service''s role)', quote_ident(app);
    END IF;

    -- The app role must hold nothing beyond what is granted below.
    SELECT * INTO a FROM pg_roles WHERE rolname = app;
    IF a.rolsuper OR a.rolreplication OR a.rolbypassrls THEN
        RAISE EXCEPTION 'roles.sql: role % has SUPERUSER, REPLICATION or BYPASSRLS', quote_ident(app)
              USING HINT = format('As a superuser: ALTER ROLE %I NOSUPERUSER NOREPLICATION NOBYPASSRLS', app);
    END IF;
    IF a.rolcreatedb OR a.rolcreaterole OR NOT a.rolcanlogin THEN
        EXECUTE format('ALTER ROLE %I LOGIN NOCREATEDB NOCREATEROLE', app);
    END IF;
    IF EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles o ON o.oid = m.roleid
                WHERE m.member = a.oid AND o.rolname = owner) THEN
        EXECUTE format('REVOKE %I FROM %I', owner, app);
        RAISE NOTICE 'roles.sql: role % is no longer a member of %', quote_ident(app), quote_ident(owner);
    END IF;
    IF pg_has_role(app, owner, 'MEMBER') THEN
        RAISE EXCEPTION 'roles.sql: role % is a member of % through another role', quote_ident(app), quote_ident(owner)
              USING HINT = 'REVOKE the intermediate role from the app role';
    END IF;
    SELECT string_agg(quote_ident(r.rolname), ', ') INTO others
      FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE m.member = a.oid;
    IF others IS NOT NULL THEN
        RAISE WARNING 'roles.sql: role % is a member of %; it gets their privileges too', quote_ident(app), others;
    END IF;
    IF EXISTS (SELECT FROM pg_database WHERE datname = current_database() AND datdba = a.oid) THEN
        RAISE EXCEPTION 'roles.sql: role % owns database %', quote_ident(app), quote_ident(current_database())
              USING HINT = format('ALTER DATABASE %I OWNER TO %I', current_database(), owner);
    END IF;

    -- Acting as the owner below (SET ROLE) needs membership, which a superuser has
    -- implicitly and a CREATEROLE administrator can give itself.
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
       AND NOT pg_has_role(current_user, owner, 'MEMBER') THEN
        EXECUTE format('GRANT %I TO %I', owner, current_user);
        RAISE NOTICE 'roles.sql: % is now a member of % (needed to act as it)', quote_ident(current_user), quote_ident(owner);
    END IF;
END
$roles$;

-- Passwords, when given (outside the DO blocks, so that they are never in a setting).
\if :{?owner_password}
  ALTER ROLE :"owner" WITH LOGIN PASSWORD :'owner_password';
\endif
\if :{?app_password}
  ALTER ROLE :"app" WITH PASSWORD :'app_password';
\endif

-- ---- database and schema ------------------------------------------------------------
DO $db$
DECLARE
    owner text := current_setting('bitmapd_roles.owner');
    app text := current_setting('bitmapd_roles.app');
    db text := current_database();
    strangers text;
BEGIN
    -- CREATE on the database: `bitmapd --migrate` runs CREATE SCHEMA IF NOT EXISTS,
    -- which PostgreSQL checks even when the schema exists.
    EXECUTE format('GRANT CONNECT, CREATE ON DATABASE %I TO %I', db, owner);
    EXECUTE format('REVOKE CREATE ON DATABASE %I FROM %I', db, app);
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', db, app);

    IF to_regnamespace('bitmapd') IS NULL THEN
        EXECUTE format('CREATE SCHEMA bitmapd AUTHORIZATION %I', owner);
        RAISE NOTICE 'roles.sql: created schema bitmapd, owned by %', quote_ident(owner);
    END IF;
    -- The migrations replace functions and alter tables: everything must be the owner's.
    SELECT string_agg(what, ', ') INTO strangers FROM (
        SELECT format('schema bitmapd (%s)', pg_get_userbyid(nspowner)) AS what
          FROM pg_namespace WHERE nspname = 'bitmapd' AND pg_get_userbyid(nspowner) <> owner
        UNION ALL
        SELECT format('%s (%s)', c.oid::regclass, pg_get_userbyid(c.relowner))
          FROM pg_class c WHERE c.relnamespace = 'bitmapd'::regnamespace
           AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND pg_get_userbyid(c.relowner) <> owner
        UNION ALL
        SELECT format('%s (%s)', p.oid::regprocedure, pg_get_userbyid(p.proowner))
          FROM pg_proc p WHERE p.pronamespace = 'bitmapd'::regnamespace AND pg_get_userbyid(p.proowner) <> owner
        LIMIT 10) s;
    IF strangers IS NOT NULL THEN
        RAISE EXCEPTION 'roles.sql: objects of schema bitmapd not owned by %: %', quote_ident(owner), strangers
              USING HINT = format('As a superuser: REASSIGN OWNED BY <their owner> TO %I (in this database)', owner);
    END IF;
END
$db$;

-- ---- as the owner: its objects and their privileges -----------------------------------
SET LOCAL ROLE :"owner";

-- The migration ledger, exactly as src/store/migrate.c creates it (CREATE TABLE IF NOT
-- EXISTS there too). Created here, before the default privileges below exist, so
-- that the app role never gets rights on it.
DO $ledger$
BEGIN
    IF to_regclass('bitmapd.schema_migrations') IS NULL THEN
        CREATE TABLE bitmapd.schema_migrations (
            version int PRIMARY KEY, name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now());
    END IF;
END
$ledger$;

DO $grants$
DECLARE
    owner text := current_setting('bitmapd_roles.owner');
    app text := current_setting('bitmapd_roles.app');
    r record;
BEGIN
    -- start from nothing, so that a re-run also takes back what was granted by hand
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA bitmapd FROM %I', app);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA bitmapd FROM %I', app);
    EXECUTE format('REVOKE ALL ON SCHEMA bitmapd FROM %I', app);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd REVOKE ALL ON TABLES FROM %I', owner, app);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd REVOKE ALL ON SEQUENCES FROM %I', owner, app);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd REVOKE ALL ON FUNCTIONS FROM %I', owner, app);

    EXECUTE format('GRANT USAGE ON SCHEMA bitmapd TO %I', app);
    FOR r IN SELECT c.oid::regclass AS rel, c.relkind FROM pg_class c
              WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                AND c.oid <> 'bitmapd.schema_migrations'::regclass LOOP
        EXECUTE format('GRANT %s ON TABLE %s TO %I',
                       CASE WHEN r.relkind = 'm' THEN 'SELECT' ELSE 'SELECT, INSERT, UPDATE, DELETE' END, r.rel, app);
    END LOOP;
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA bitmapd TO %I', app);
    EXECUTE format('GRANT EXECUTE ON ALL ROUTINES IN SCHEMA bitmapd TO %I', app);

    -- what the owner creates in the schema later: migrations, sql/ files, partitions
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', owner, app);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd GRANT USAGE ON SEQUENCES TO %I', owner, app);
    EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA bitmapd GRANT EXECUTE ON FUNCTIONS TO %I', owner, app);
END
$grants$;

RESET ROLE;

-- ---- what is left to the cluster's administrator ----------------------------------------
DO $check$
DECLARE
    app text := current_setting('bitmapd_roles.app');
    s text;
BEGIN
    SELECT string_agg(quote_ident(nspname), ', ') INTO s FROM pg_namespace
     WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
       AND has_schema_privilege(app, oid, 'CREATE');
    IF s IS NOT NULL THEN
        RAISE WARNING 'roles.sql: role % can still CREATE in schema %, through PUBLIC (PostgreSQL 14 and older grant it on public)', quote_ident(app), s
              USING HINT = 'REVOKE CREATE ON SCHEMA public FROM PUBLIC';
    END IF;
    IF has_database_privilege(app, current_database(), 'TEMPORARY') THEN
        RAISE NOTICE 'roles.sql: role % can create temporary tables (PUBLIC holds TEMPORARY on database %); bitmapd needs none: REVOKE TEMPORARY ON DATABASE % FROM PUBLIC if no other user of the database does',
                     quote_ident(app), quote_ident(current_database()), quote_ident(current_database());
    END IF;
END
$check$;

COMMIT;

-- One line for the log of whoever ran it.
SELECT format('roles.sql: %s owns schema bitmapd; %s has USAGE on it, DML on %s tables and views, USAGE on %s sequence(s), EXECUTE on %s functions, and default privileges for what %s creates there later',
              quote_ident(:'owner'), quote_ident(:'app'),
              -- CASE: the privilege functions must only see relations of the right kind
              (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'bitmapd'::regnamespace
                  AND CASE WHEN c.relkind IN ('r', 'p', 'v', 'f') THEN has_table_privilege(:'app', c.oid, 'INSERT') END),
              (SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'bitmapd'::regnamespace
                  AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(:'app', c.oid, 'USAGE') END),
              (SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'bitmapd'::regnamespace
                  AND has_function_privilege(:'app', p.oid, 'EXECUTE')),
              quote_ident(:'owner')) AS summary \gset
\echo :summary
