-- 070_unread: administration views and functions of seed 001's unread counts
-- (system-notice cursors, red dots, feed unread). Re-applied by every
-- `bitmapd --migrate` (CREATE OR REPLACE only). Tables: migrations/0006_unread.sql.
-- The global broadcast list is the bitmap row `broadcasts`; a user's followees are
-- the row `feed:following:{user}` (author ids as members).

-- The numeric id at the end of a key "prefix{id}", or NULL when the rest is not a
-- canonical decimal in 0 .. 2^63-1 (RESP clients may write any key).
CREATE OR REPLACE FUNCTION bitmapd._unread_key_id(k bytea, prefix text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN t ~ '^(0|[1-9][0-9]{0,18})$'
                 AND (length(t) < 19 OR t COLLATE "C" <= '9223372036854775807')
                THEN t::bigint END
      FROM (SELECT substr(encode(k, 'escape'), length(prefix) + 1) AS t) s
$$;

CREATE OR REPLACE FUNCTION bitmapd.feed_following_key(user_id bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to('feed:following:' || user_id::text, 'UTF8')
$$;

-- ---- system notices ------------------------------------------------------------

-- One row per user with a cursor. unread counts the broadcasts above last_seen
-- (header-only count_range); last_seen is NULL for a user recorded before any
-- broadcast existed (stored as -1), who counts every broadcast.
CREATE OR REPLACE VIEW bitmapd.broadcast_cursors AS
SELECT s.user_id,
       nullif(s.last_seen, -1)                                                   AS last_seen,
       coalesce(bitmapd.count_range(bitmapd.value(b.key, b.bits), s.last_seen + 1, 4294967296), 0)    AS unread,
       s.seen_at
  FROM bitmapd.broadcast_seen s
  LEFT JOIN bitmapd.bitmaps b ON b.key = convert_to('broadcasts', 'UTF8');

COMMENT ON VIEW bitmapd.broadcast_cursors IS
  'System-notice cursor and unread count per user that has one (users without a row count 0); filter by user_id';

-- Deletes at most max_rows cursors idle longer than `inactive` (oldest first) and
-- returns how many. Rows locked by a concurrent "seen" are skipped, and a cursor
-- refreshed meanwhile is kept: the age is checked again on the row being deleted.
-- The service calls this once per statement until it returns less than max_rows.
CREATE OR REPLACE FUNCTION bitmapd.broadcast_clear_batch(inactive interval, max_rows integer)
RETURNS bigint
LANGUAGE sql VOLATILE STRICT AS $$
    WITH victims AS (
        SELECT user_id FROM bitmapd.broadcast_seen
         WHERE seen_at < now() - inactive
         ORDER BY seen_at
         LIMIT max_rows
           FOR UPDATE SKIP LOCKED),
    gone AS (
        DELETE FROM bitmapd.broadcast_seen s USING victims v
         WHERE s.user_id = v.user_id AND s.seen_at < now() - inactive
        RETURNING 1)
    SELECT count(*) FROM gone
$$;

-- Clears every cursor idle longer than `inactive`, 10,000 rows per step, in the
-- caller's transaction; returns how many. For psql; the service commits each step.
CREATE OR REPLACE FUNCTION bitmapd.broadcast_clear_cursors(inactive interval)
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT AS $$
DECLARE
    n bigint;
    total bigint := 0;
BEGIN
    LOOP
        n := bitmapd.broadcast_clear_batch(inactive, 10000);
        total := total + n;
        EXIT WHEN n < 10000;
    END LOOP;
    RETURN total;
END $$;

COMMENT ON FUNCTION bitmapd.broadcast_clear_cursors(interval) IS
  'Deletes system-notice cursors whose seen_at is older than now() - inactive; those users count 0 unread again';

-- ---- red dots -------------------------------------------------------------------

-- One row per (user, dot) the user has clicked. A user without a row sees every
-- dot that is set.
CREATE OR REPLACE VIEW bitmapd.reddot_state AS
SELECT c.user_id, d.name, c.seq < d.seq AS show, c.clicked_at, d.set_at
  FROM bitmapd.reddot_clicks c
  JOIN bitmapd.reddots d ON d.name = c.name;

COMMENT ON VIEW bitmapd.reddot_state IS
  'Red dot per user that clicked it: show is true when the dot was set again after the click';

-- ---- feed unread ----------------------------------------------------------------

-- Users with a followee bitmap, and their unread count: the sum over followees of
-- (posts - snapshot), a followee without snapshot counting 0. Decodes each bitmap
-- (bitmapd.members): for administration; filter by user_id.
CREATE OR REPLACE VIEW bitmapd.feed_unread AS
SELECT f.user_id, f.following, coalesce(x.unread, 0) AS unread
  FROM (SELECT bitmapd._unread_key_id(b.key, 'feed:following:') AS user_id, b.cardinality AS following, bitmapd.value(b.key, b.bits) AS bits
          FROM bitmapd.bitmaps b
         WHERE b.key >= convert_to('feed:following:', 'UTF8')
           AND b.key < convert_to('feed:following;', 'UTF8')) f
  LEFT JOIN LATERAL (
      SELECT sum(greatest(coalesce(p.posts, 0) - s.posts, 0))::bigint AS unread
        FROM bitmapd.members(f.bits) m(author_id)
        JOIN bitmapd.feed_snapshots s ON s.user_id = f.user_id AND s.author_id = m.author_id
        LEFT JOIN bitmapd.author_posts p ON p.author_id = m.author_id) x ON true
 WHERE f.user_id IS NOT NULL;

COMMENT ON VIEW bitmapd.feed_unread IS
  'Feed unread per user: sum of greatest(posts - snapshot, 0) over followees; filter by user_id';

-- Makes a user's snapshots match a followee set: deletes the snapshots of authors
-- not in p_authors, and gives every author in it a snapshot at the current post
-- count -- only to those without one (p_refresh false: after a change of the
-- followees, so that following someone does not flood the count), or to all
-- (p_refresh true: "feed seen"). Applies only if the followee bitmap p_key is still
-- at p_version (returns false otherwise: the caller's set is stale; the service
-- loads it again and calls again, a bounded number of times -- no later write is
-- trusted to sync, since a RESP SETBIT never does). Writers of one user are serialised by an
-- advisory lock, and each statement below sees what the previous holder committed.
CREATE OR REPLACE FUNCTION bitmapd.feed_sync(p_user bigint, p_key bytea, p_version bigint,
                                             p_authors bigint[], p_refresh boolean)
RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT AS $$
DECLARE
    current_version bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1717920100, hashint8(p_user)); -- 1717920100 = 'feed'
    SELECT version INTO current_version FROM bitmapd.bitmaps WHERE key = p_key;
    IF coalesce(current_version, 0) <> p_version THEN
        RETURN false;
    END IF;
    DELETE FROM bitmapd.feed_snapshots s
     WHERE s.user_id = p_user
       AND s.author_id NOT IN (SELECT unnest(p_authors));
    IF p_refresh THEN
        INSERT INTO bitmapd.feed_snapshots AS s (user_id, author_id, posts)
        SELECT p_user, a.author_id, coalesce(p.posts, 0)
          FROM unnest(p_authors) a(author_id)
          LEFT JOIN bitmapd.author_posts p ON p.author_id = a.author_id
        ON CONFLICT (user_id, author_id) DO UPDATE SET posts = EXCLUDED.posts
         WHERE s.posts IS DISTINCT FROM EXCLUDED.posts;
    ELSE
        INSERT INTO bitmapd.feed_snapshots (user_id, author_id, posts)
        SELECT p_user, a.author_id, coalesce(p.posts, 0)
          FROM unnest(p_authors) a(author_id)
          LEFT JOIN bitmapd.author_posts p ON p.author_id = a.author_id
        ON CONFLICT (user_id, author_id) DO NOTHING;
    END IF;
    RETURN true;
END $$;

COMMENT ON FUNCTION bitmapd.feed_sync(bigint, bytea, bigint, bigint[], boolean) IS
  'Snapshots of a user''s followees at the current post counts (all, or missing ones only), if the followee bitmap is at p_version';
