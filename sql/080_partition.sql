-- 080_partition: bitmapd.partition_bitmaps(partitions), an admin function that turns
-- bitmapd.bitmaps into a table PARTITION BY HASH (key), in place and in the caller's
-- transaction. Re-applied by every `bitmapd --migrate` (CREATE OR REPLACE only); it is
-- never called by the service. docs/scaling.md says when and how to use it.
--
--     SET lock_timeout = '5s';
--     SELECT bitmapd.partition_bitmaps(16);
--
-- Run it as the owner of bitmapd.bitmaps (the role that runs the migrations): no
-- superuser, no extension. It holds an ACCESS EXCLUSIVE lock on bitmapd.bitmaps from
-- its first statement to the end of the transaction, so every read and write of the
-- service waits (and bitmapd's statements give up after [postgres] query_timeout_ms)
-- while the rows are copied. A running service needs no restart: its statements name
-- the table, and PostgreSQL plans them again against the new one.
--
-- How: the table is renamed to bitmaps_unpartitioned; a partitioned bitmapd.bitmaps is
-- created with the same columns, defaults, CHECK constraints, storage and column
-- comments (CREATE TABLE ... LIKE), plus `partitions` partitions bitmaps_p0 ..
-- bitmaps_p{n-1}; every row is copied; every view that read the old table is defined
-- again from its own stored text (pg_get_viewdef) with CREATE OR REPLACE VIEW, which
-- keeps the view's OID, grants, comment and whatever depends on it (functions that
-- return SETOF the view, views over views); the old table is dropped; then the primary
-- key, the other indexes, the triggers (with their enabled state), the table comment,
-- the owner, the grants (table and column) and the storage parameters are put back
-- from what the old table had. Statement-level triggers are also created on every
-- partition: an INSERT, UPDATE or DELETE on the parent fires only the parent's
-- statement triggers and one naming a partition only that partition's, so the change
-- notifications of migration 0007 fire once either way (a TRUNCATE of the parent fires
-- both, and PostgreSQL merges the identical '*' notifications of one transaction). The
-- rows keep their contents, versions and update times, so what running instances have
-- cached stays true, and the copy announces nothing (the triggers are created after
-- it). Only the rows' xmin changes: a load that compares it sends the bits once more.
--
-- It refuses (and changes nothing) when the table is already partitioned, when
-- partitions is not between 2 and 1024, when the caller does not own the table, or
-- when something it cannot carry over depends on the table: a materialized view, a
-- foreign key, row-level security, a publication, a rule, inheritance, or any other
-- object that would block the drop.

CREATE OR REPLACE FUNCTION bitmapd.partition_bitmaps(partitions integer)
RETURNS text
LANGUAGE plpgsql VOLATILE
-- Every name printed by pg_get_viewdef/triggerdef/indexdef comes out schema-qualified.
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    old_oid       oid;
    old_rel       pg_class%ROWTYPE;
    toast_opts    text[];
    nrows         bigint;
    cols          text;
    table_comment text;
    owner_name    name;
    view_sql      text[] := '{}';
    func_sql      text[] := '{}';
    index_sql     text[] := '{}';
    trigger_sql   text[] := '{}';
    part_trigger_sql text[] := '{}';
    enable_sql    text[] := '{}';
    comment_sql   text[] := '{}';
    acl_sql       text[] := '{}';
    blockers      text;
    s             text;
    r             record;
    i             integer;
    part_opts     text := '';
    part_space    text := '';
BEGIN
    IF partitions IS NULL OR partitions < 2 OR partitions > 1024 THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: partitions must be between 2 and 1024, not %',
                        coalesce(partitions::text, 'NULL')
              USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF to_regclass('bitmapd.bitmaps') IS NULL THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: there is no table bitmapd.bitmaps (run bitmapd --migrate first)'
              USING ERRCODE = 'undefined_table';
    END IF;
    IF NOT pg_has_role(current_user,
                       (SELECT relowner FROM pg_class WHERE oid = to_regclass('bitmapd.bitmaps')), 'USAGE') THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: only the owner of bitmapd.bitmaps (%) may convert it',
                        (SELECT relowner::regrole FROM pg_class WHERE oid = to_regclass('bitmapd.bitmaps'))
              USING ERRCODE = 'insufficient_privilege';
    END IF;

    -- From here to the end of the transaction nobody else reads or writes the table.
    -- The name is looked up again after the lock: a conversion that committed while we
    -- waited has replaced the table.
    LOCK TABLE bitmapd.bitmaps IN ACCESS EXCLUSIVE MODE;
    old_oid := 'bitmapd.bitmaps'::regclass;
    SELECT * INTO old_rel FROM pg_class WHERE oid = old_oid;

    IF old_rel.relkind = 'p' THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps is already partitioned (% partitions); nothing was changed',
                        (SELECT count(*) FROM pg_inherits WHERE inhparent = old_oid)
              USING ERRCODE = 'object_not_in_prerequisite_state',
                    HINT = 'To change the number of partitions, create a new table and copy the rows; see docs/scaling.md.';
    END IF;
    IF old_rel.relkind <> 'r' THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps is not a table (relkind %)', old_rel.relkind
              USING ERRCODE = 'wrong_object_type';
    END IF;

    -- ---- what cannot be carried over: refuse before changing anything --------------
    IF EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = old_oid OR inhparent = old_oid) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps takes part in table inheritance'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF old_rel.relrowsecurity OR old_rel.relforcerowsecurity
       OR EXISTS (SELECT 1 FROM pg_policy WHERE polrelid = old_oid) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps has row-level security; it would not be carried over'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE contype = 'f' AND (conrelid = old_oid OR confrelid = old_oid)) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: a foreign key references or leaves bitmapd.bitmaps; it would not be carried over'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_publication_rel WHERE prrelid = old_oid) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps is in a publication; remove it, convert, and add it again'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_rewrite WHERE ev_class = old_oid) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps has rules; they would not be carried over'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF old_rel.relreplident = 'i' THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps has REPLICA IDENTITY USING INDEX; set it back to DEFAULT first'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_index WHERE indrelid = old_oid AND NOT indisvalid) THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: bitmapd.bitmaps has an invalid index (a failed CREATE INDEX CONCURRENTLY?); drop it first'
              USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = old_oid AND contype = 'x') THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: exclusion constraints cannot be put on a partitioned table'
              USING ERRCODE = 'feature_not_supported';
    END IF;
    -- Objects that depend on the table or its row type and would block DROP TABLE: only
    -- views and functions with SQL-standard bodies are redefined here.
    SELECT string_agg(DISTINCT pg_describe_object(d.classid, d.objid, d.objsubid), ', ')
      INTO blockers
      FROM pg_depend d
     WHERE d.deptype = 'n'
       AND ((d.refclassid = 'pg_class'::regclass AND d.refobjid = old_oid)
            OR (d.refclassid = 'pg_type'::regclass AND d.refobjid = old_rel.reltype))
       AND NOT (d.classid = 'pg_constraint'::regclass
                AND EXISTS (SELECT 1 FROM pg_constraint c WHERE c.oid = d.objid AND c.conrelid = old_oid))
       AND NOT (d.classid = 'pg_rewrite'::regclass
                AND EXISTS (SELECT 1 FROM pg_rewrite w JOIN pg_class v ON v.oid = w.ev_class
                             WHERE w.oid = d.objid AND v.relkind = 'v'))
       AND NOT (d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_class'::regclass
                AND EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = d.objid AND p.prosqlbody IS NOT NULL));
    IF blockers IS NOT NULL THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: these objects depend on bitmapd.bitmaps and cannot be carried over: %', blockers
              USING ERRCODE = 'dependent_objects_still_exist';
    END IF;
    IF to_regclass('bitmapd.bitmaps_unpartitioned') IS NOT NULL THEN
        RAISE EXCEPTION 'bitmapd.partition_bitmaps: a relation bitmapd.bitmaps_unpartitioned exists already'
              USING ERRCODE = 'duplicate_table';
    END IF;
    FOR i IN 0 .. partitions - 1 LOOP
        IF to_regclass(format('bitmapd.%I', 'bitmaps_p' || i)) IS NOT NULL THEN
            RAISE EXCEPTION 'bitmapd.partition_bitmaps: a relation bitmapd.bitmaps_p% exists already', i
                  USING ERRCODE = 'duplicate_table';
        END IF;
    END LOOP;

    -- ---- remember everything, while it still names bitmapd.bitmaps ---------------------
    -- Views that read the table (each once; a view's _RETURN rule depends on every
    -- column it uses).
    FOR r IN SELECT DISTINCT v.oid, v.oid::regclass::text AS name, v.reloptions
               FROM pg_depend d
               JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND w.oid = d.objid
               JOIN pg_class v ON v.oid = w.ev_class AND v.relkind = 'v'
              WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = old_oid
              ORDER BY v.oid LOOP
        view_sql := view_sql || format('CREATE OR REPLACE VIEW %s%s AS %s', r.name,
                         CASE WHEN r.reloptions IS NOT NULL
                              THEN ' WITH (' || array_to_string(r.reloptions, ', ') || ')' ELSE '' END,
                         rtrim(pg_get_viewdef(r.oid), E'; \n'));
    END LOOP;
    -- Functions whose SQL-standard body (BEGIN ATOMIC) is bound to the table.
    FOR r IN SELECT DISTINCT d.objid FROM pg_depend d
              WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_class'::regclass
                AND d.refobjid = old_oid LOOP
        func_sql := func_sql || pg_get_functiondef(r.objid);
    END LOOP;
    -- The primary key and unique constraints, then the other indexes.
    FOR r IN SELECT c.oid, c.conname, c.conindid FROM pg_constraint c
              WHERE c.conrelid = old_oid AND c.contype IN ('p', 'u') ORDER BY c.contype, c.conname LOOP
        index_sql := index_sql || format('ALTER TABLE bitmapd.bitmaps ADD CONSTRAINT %I %s',
                                         r.conname, pg_get_constraintdef(r.oid));
        IF obj_description(r.oid, 'pg_constraint') IS NOT NULL THEN
            comment_sql := comment_sql || format('COMMENT ON CONSTRAINT %I ON bitmapd.bitmaps IS %L',
                                                 r.conname, obj_description(r.oid, 'pg_constraint'));
        END IF;
        IF obj_description(r.conindid, 'pg_class') IS NOT NULL THEN
            comment_sql := comment_sql || format('COMMENT ON INDEX bitmapd.%I IS %L',
                                                 r.conname, obj_description(r.conindid, 'pg_class'));
        END IF;
    END LOOP;
    FOR r IN SELECT x.indexrelid, c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
              WHERE x.indrelid = old_oid
                AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = old_oid)
              ORDER BY c.relname LOOP
        index_sql := index_sql || pg_get_indexdef(r.indexrelid);
        IF obj_description(r.indexrelid, 'pg_class') IS NOT NULL THEN
            comment_sql := comment_sql || format('COMMENT ON INDEX bitmapd.%I IS %L',
                                                 r.relname, obj_description(r.indexrelid, 'pg_class'));
        END IF;
    END LOOP;
    -- Triggers (not the internal ones of constraints), their enabled state and comments.
    -- A statement-level trigger is also created on every partition (see the top).
    FOR r IN SELECT t.oid, t.tgname, t.tgenabled, t.tgtype, pg_get_triggerdef(t.oid) AS def
               FROM pg_trigger t WHERE t.tgrelid = old_oid AND NOT t.tgisinternal ORDER BY t.tgname LOOP
        trigger_sql := trigger_sql || r.def;
        IF r.tgtype & 1 = 0 THEN -- TRIGGER_TYPE_ROW is bit 0: a statement-level trigger
            s := 'CREATE TRIGGER ' || quote_ident(r.tgname) || ' ';
            IF left(r.def, length(s)) <> s OR position(' ON bitmapd.bitmaps ' IN r.def) = 0 THEN
                RAISE EXCEPTION 'bitmapd.partition_bitmaps: cannot read the definition of trigger %: %', r.tgname, r.def;
            END IF;
            part_trigger_sql := part_trigger_sql || r.def;
        END IF;
        IF r.tgenabled <> 'O' THEN
            enable_sql := enable_sql || format('%s TRIGGER %I',
                              CASE r.tgenabled WHEN 'D' THEN 'DISABLE' WHEN 'R' THEN 'ENABLE REPLICA'
                                               ELSE 'ENABLE ALWAYS' END, r.tgname);
        END IF;
        IF obj_description(r.oid, 'pg_trigger') IS NOT NULL THEN
            comment_sql := comment_sql || format('COMMENT ON TRIGGER %I ON bitmapd.bitmaps IS %L',
                                                 r.tgname, obj_description(r.oid, 'pg_trigger'));
        END IF;
    END LOOP;
    table_comment := obj_description(old_oid, 'pg_class');
    owner_name := (SELECT rolname FROM pg_roles WHERE oid = old_rel.relowner);
    -- Grants: the old ACL exactly (the owner's own entry included), table and columns.
    FOR r IN SELECT a.privilege_type, a.is_grantable,
                    CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.rolname) END AS grantee
               FROM aclexplode(coalesce(old_rel.relacl, acldefault('r', old_rel.relowner))) a
               LEFT JOIN pg_roles g ON g.oid = a.grantee LOOP
        acl_sql := acl_sql || format('GRANT %s ON TABLE bitmapd.bitmaps TO %s%s', r.privilege_type, r.grantee,
                                     CASE WHEN r.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
    FOR r IN SELECT t.attname, a.privilege_type, a.is_grantable,
                    CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.rolname) END AS grantee
               FROM pg_attribute t
              CROSS JOIN LATERAL aclexplode(t.attacl) a
               LEFT JOIN pg_roles g ON g.oid = a.grantee
              WHERE t.attrelid = old_oid AND t.attnum > 0 AND NOT t.attisdropped AND t.attacl IS NOT NULL LOOP
        acl_sql := acl_sql || format('GRANT %s (%I) ON TABLE bitmapd.bitmaps TO %s%s', r.privilege_type,
                                     r.attname, r.grantee,
                                     CASE WHEN r.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
    -- Storage parameters (fillfactor, autovacuum_*, toast.*) belong on the partitions:
    -- a partitioned table holds no rows and takes none of them.
    SELECT reloptions INTO toast_opts FROM pg_class WHERE oid = old_rel.reltoastrelid;
    IF old_rel.reloptions IS NOT NULL OR toast_opts IS NOT NULL THEN
        SELECT ' WITH (' || string_agg(o, ', ') || ')' INTO part_opts
          FROM (SELECT unnest(old_rel.reloptions) AS o
                UNION ALL SELECT 'toast.' || unnest(toast_opts)) x;
    END IF;
    IF old_rel.reltablespace <> 0 THEN
        part_space := ' TABLESPACE ' || quote_ident((SELECT spcname FROM pg_tablespace WHERE oid = old_rel.reltablespace));
    END IF;
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols
      FROM pg_attribute
     WHERE attrelid = old_oid AND attnum > 0 AND NOT attisdropped AND attgenerated = '';

    -- ---- the new table ------------------------------------------------------------------
    ALTER TABLE bitmapd.bitmaps RENAME TO bitmaps_unpartitioned;
    -- INCLUDING ALL minus indexes: defaults, CHECK constraints (with their names),
    -- NOT NULL, storage, compression, generated and identity columns, extended
    -- statistics, and the comments of columns and constraints. Indexes come after the
    -- copy, under their old names.
    CREATE TABLE bitmapd.bitmaps (LIKE bitmapd.bitmaps_unpartitioned INCLUDING ALL EXCLUDING INDEXES)
        PARTITION BY HASH (key);
    FOR i IN 0 .. partitions - 1 LOOP
        EXECUTE format('CREATE TABLE bitmapd.%I PARTITION OF bitmapd.bitmaps FOR VALUES WITH (MODULUS %s, REMAINDER %s)%s%s',
                       'bitmaps_p' || i, partitions, i, part_opts, part_space);
        EXECUTE format('COMMENT ON TABLE bitmapd.%I IS %L', 'bitmaps_p' || i,
                       format('Partition %s of %s of bitmapd.bitmaps (hash of key); read and write through bitmapd.bitmaps',
                              i, partitions));
    END LOOP;
    EXECUTE format('INSERT INTO bitmapd.bitmaps (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM bitmapd.bitmaps_unpartitioned',
                   cols, cols);
    GET DIAGNOSTICS nrows = ROW_COUNT;

    -- Views (and BEGIN ATOMIC functions) now read the new table; then the old one can go.
    FOREACH s IN ARRAY view_sql LOOP EXECUTE s; END LOOP;
    FOREACH s IN ARRAY func_sql LOOP EXECUTE s; END LOOP;
    DROP TABLE bitmapd.bitmaps_unpartitioned;

    FOREACH s IN ARRAY index_sql LOOP EXECUTE s; END LOOP;
    FOREACH s IN ARRAY trigger_sql LOOP EXECUTE s; END LOOP;
    FOR i IN 0 .. partitions - 1 LOOP
        FOREACH s IN ARRAY part_trigger_sql LOOP
            EXECUTE overlay(s PLACING format(' ON bitmapd.%I ', 'bitmaps_p' || i)
                            FROM position(' ON bitmapd.bitmaps ' IN s) FOR length(' ON bitmapd.bitmaps '));
        END LOOP;
    END LOOP;
    FOREACH s IN ARRAY enable_sql LOOP
        EXECUTE 'ALTER TABLE bitmapd.bitmaps ' || s;
        FOR i IN 0 .. partitions - 1 LOOP
            -- a row-level trigger was cloned to the partitions under its name, a
            -- statement-level one created there above; anything else is skipped
            BEGIN
                EXECUTE format('ALTER TABLE bitmapd.%I ', 'bitmaps_p' || i) || s;
            EXCEPTION WHEN undefined_object THEN NULL;
            END;
        END LOOP;
    END LOOP;
    IF table_comment IS NOT NULL THEN
        EXECUTE format('COMMENT ON TABLE bitmapd.bitmaps IS %L', table_comment);
    END IF;
    FOREACH s IN ARRAY comment_sql LOOP EXECUTE s; END LOOP;
    IF old_rel.relreplident = 'f' THEN
        ALTER TABLE bitmapd.bitmaps REPLICA IDENTITY FULL;
    ELSIF old_rel.relreplident = 'n' THEN
        ALTER TABLE bitmapd.bitmaps REPLICA IDENTITY NOTHING;
    END IF;

    -- Owner and grants last: the caller may be a member of the owning role rather than
    -- the role itself.
    EXECUTE format('ALTER TABLE bitmapd.bitmaps OWNER TO %I', owner_name);
    FOR i IN 0 .. partitions - 1 LOOP
        EXECUTE format('ALTER TABLE bitmapd.%I OWNER TO %I', 'bitmaps_p' || i, owner_name);
        IF old_rel.relreplident IN ('f', 'n') THEN
            EXECUTE format('ALTER TABLE bitmapd.%I REPLICA IDENTITY %s', 'bitmaps_p' || i,
                           CASE old_rel.relreplident WHEN 'f' THEN 'FULL' ELSE 'NOTHING' END);
        END IF;
    END LOOP;
    -- Start from nothing (default privileges may have granted something), then grant
    -- exactly the old entries.
    FOR r IN SELECT DISTINCT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.rolname) END AS grantee
               FROM pg_class c
              CROSS JOIN LATERAL aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
               LEFT JOIN pg_roles g ON g.oid = a.grantee
              WHERE c.oid = 'bitmapd.bitmaps'::regclass LOOP
        EXECUTE format('REVOKE ALL ON TABLE bitmapd.bitmaps FROM %s', r.grantee);
    END LOOP;
    FOREACH s IN ARRAY acl_sql LOOP EXECUTE s; END LOOP;

    ANALYZE bitmapd.bitmaps;
    s := format('bitmapd.bitmaps: %s rows in %s hash partitions (bitmaps_p0 .. bitmaps_p%s); %s views redefined, %s indexes, %s triggers',
                nrows, partitions, partitions - 1, cardinality(view_sql), cardinality(index_sql),
                cardinality(trigger_sql));
    RAISE NOTICE '%', s;
    RETURN s;
END
$fn$;

COMMENT ON FUNCTION bitmapd.partition_bitmaps(integer) IS
  'Converts bitmapd.bitmaps in place, in the caller''s transaction, into a table PARTITION BY HASH (key) with 2..1024 partitions, keeping rows, columns, constraints, indexes, triggers, comments, grants and the views that read it; takes an ACCESS EXCLUSIVE lock for the duration; see docs/scaling.md';
