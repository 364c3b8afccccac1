-- 0007: every committed change of bitmapd.bitmaps is announced on the channel
-- `bitmapd_changed`, whoever made it (any bitmapd instance, psql, a migration).
-- Each bitmapd instance LISTENs and drops the cached copies those changes made stale
-- (docs/design.md, "Cache and invalidation"). PostgreSQL delivers a notification only
-- after its transaction commits, and in commit order.
--
-- Payload: comma-separated items, at most ~7,600 bytes per notification (the limit is
-- 8,000), one item per changed row:
--   <key as hex>:<version>:<xid>        for an inserted or updated row; xid is the
--                                       writing transaction (txid_current() mod 2^32,
--                                       the new row's xmin), so any write, even one that
--                                       keeps version and checksum, is told apart
--   <key as hex>:d                      for a deleted row
--   *                                   TRUNCATE: everything changed
-- Chunks are cut where the running length passes a multiple of 3,500 bytes, so a
-- chunk holds less than 3,500 bytes plus one item (a key is at most 2,048 bytes,
-- 4,096 as hex).
CREATE FUNCTION bitmapd._bitmaps_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('bitmapd_changed', '*');
        RETURN NULL;
    END IF;
    PERFORM pg_notify('bitmapd_changed', string_agg(item, ',' ORDER BY ord))
       FROM (SELECT item, ord, sum(length(item) + 1) OVER (ORDER BY ord) / 3500 AS chunk
               FROM (SELECT encode(key, 'hex') ||
                            CASE WHEN TG_OP = 'DELETE' THEN ':d'
                                 ELSE ':' || version || ':' || txid_current() % 4294967296 END AS item,
                            row_number() OVER () AS ord
                       FROM changed) s) t
      GROUP BY chunk;
    RETURN NULL;
END
$$;

CREATE TRIGGER bitmaps_changed_insert AFTER INSERT ON bitmapd.bitmaps
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._bitmaps_changed();
CREATE TRIGGER bitmaps_changed_update AFTER UPDATE ON bitmapd.bitmaps
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._bitmaps_changed();
CREATE TRIGGER bitmaps_changed_delete AFTER DELETE ON bitmapd.bitmaps
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._bitmaps_changed();
CREATE TRIGGER bitmaps_changed_truncate AFTER TRUNCATE ON bitmapd.bitmaps
    FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._bitmaps_changed();

-- A write that finds a key created by someone else between its check and its insert
-- aborts the whole statement with a serialization failure, which bitmapd retries like
-- any other conflict (so a unit of keys still commits all or nothing).
CREATE FUNCTION bitmapd._cas_conflict() RETURNS int
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a key was created concurrently' USING ERRCODE = 'serialization_failure';
END
$$;
