-- 090_stats: table statistics that keep up with a table growing from nothing.
-- Re-applied by every `bitmapd --migrate` (CREATE OR REPLACE only).
--
-- bitmapd's sessions plan each prepared statement once (plan_cache_mode =
-- force_generic_plan) and keep the plan until PostgreSQL's statistics of a table it
-- reads change. Planned while bitmapd.bitmaps was (or was counted as) nearly empty —
-- a new database, or one just emptied and analyzed — the compare-and-swap's UPDATE
-- walks the whole primary key once per statement instead of probing it once per
-- key, and goes on doing so while the table grows, until autovacuum analyzes it
-- (up to autovacuum_naptime, a minute by default, and then only at 10% growth):
-- random new keys went from 20,000 to under 1,000 writes a second within seconds
-- (docs/design.md, "Statistics of a growing table").
--
-- bitmapd._refresh_stats() analyzes each leaf table of bitmapd.bitmaps and
-- bitmapd.chunks whose live rows (n_live_tup, kept by the statistics system as rows
-- come and go) number at least twice, and 1,000 more than, the rows PostgreSQL last
-- counted (reltuples, set by VACUUM and ANALYZE). Not pages: a table emptied and
-- vacuumed keeps its pages, counted with no rows in them, and fills them again. So a
-- table is analyzed about log2(its rows / 1,000) times in its life (again after it
-- was emptied), never while it shrinks or stays the same, and every analyze makes the
-- sessions plan again from the table as it is. The instances call it every [postgres]
-- analyze_check_ms while they write. It does not wait for locks: one caller at a
-- time (an advisory lock), a table that a VACUUM (autovacuum's too) or DDL holds is
-- left for the next call, and a partition that DDL holds fails the call after 200 ms
-- (lock_timeout; the instance says so once and calls again later); ANALYZE's own lock
-- does not conflict with reads or writes.
-- It answers the tables it analyzed, or NULL.
--
-- SECURITY DEFINER: ANALYZE needs the table's owner, and the service's role is not
-- (scripts/roles.sql); the function does nothing else, with a fixed search_path.

CREATE OR REPLACE FUNCTION bitmapd._refresh_stats() RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '200ms' -- a partition under DDL: pg_partition_tree locks the leaves
AS $$
DECLARE
    r record;
    done text[] := '{}';
BEGIN
    IF NOT pg_try_advisory_xact_lock(7355612) THEN
        RETURN NULL; -- another instance is at it
    END IF;
    FOR r IN SELECT c.oid::regclass AS rel, greatest(c.reltuples, 0)::int8 AS counted, s.n_live_tup AS live
               FROM unnest(ARRAY['bitmapd.bitmaps'::regclass, 'bitmapd.chunks'::regclass]) AS b(top)
              CROSS JOIN LATERAL (SELECT b.top::oid AS relid -- a plain table: no tree
                                  UNION
                                  SELECT relid FROM pg_partition_tree(b.top) WHERE isleaf) t
               JOIN pg_class c ON c.oid = t.relid AND c.relkind = 'r'
               JOIN pg_stat_user_tables s ON s.relid = t.relid
              ORDER BY c.oid LOOP
        IF r.live >= greatest(2 * r.counted, r.counted + 1000) THEN
            -- never wait: a VACUUM (autovacuum's too) or DDL holding the table is let
            -- be, and the next call tries again
            BEGIN
                EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE NOWAIT', r.rel);
            EXCEPTION WHEN lock_not_available THEN
                CONTINUE;
            END;
            EXECUTE format('ANALYZE %s', r.rel);
            done := done || r.rel::text;
        END IF;
    END LOOP;
    RETURN CASE WHEN cardinality(done) > 0 THEN array_to_string(done, ',') END;
END
$$;
