-- Keys as the RESP front end sees them (re-applied by every `bitmapd --migrate`).
-- Every row of bitmapd.bitmaps but a bucket (migrations/0015) is a Redis string key
-- whose bits are the bitmap;
-- rows with no member and no explicit length are deleted (or never written) keys
-- and are not listed.

-- Length in bytes as a Redis string: the stored length, or what the highest member needs.
CREATE OR REPLACE FUNCTION bitmapd.string_length(bits bytea, nbytes bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT greatest(coalesce(nbytes, 0), coalesce(bitmapd.max_member(bits) / 8 + 1, 0))
$$;

-- The clock of expiry in SQL: ms since the Unix epoch at the start of the transaction.
CREATE OR REPLACE FUNCTION bitmapd.now_ms() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (extract(epoch FROM now()) * 1000)::bigint
$$;

-- A key whose deadline has passed does not exist, though its row may wait a moment
-- for the sweep (migrations/0012, docs/design.md "Expiry").
CREATE OR REPLACE FUNCTION bitmapd.live(expire_ms bigint) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT expire_ms IS NULL OR expire_ms > bitmapd.now_ms()
$$;

CREATE OR REPLACE VIEW bitmapd.keys AS
SELECT encode(key, 'escape')                             AS key,       -- printable; bytes in key_bytes
       key                                                 AS key_bytes,
       bitmapd.value_bytes(key, bits)                      AS bytes_stored,
       bitmapd.string_length(bitmapd.value_tail(key, bits), nbytes) AS length,
       cardinality,
       version,
       updated_at,
       to_timestamp(expire_ms / 1000.0)                    AS expires_at  -- NULL: never
  FROM bitmapd.bitmaps
 WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms)
   AND (bucket IS NULL OR bucket < 0)  -- a key's own row; the members of bucket rows (migrations/0015):
UNION ALL
SELECT encode(m.key, 'escape'), m.key, octet_length(e.value), bitmapd.string_length(nullif(e.value, ''::bytea), e.nbytes),
       e.cardinality, e.version, b.updated_at, to_timestamp(e.expire_ms / 1000.0)
  FROM bitmapd.bitmaps b
 CROSS JOIN LATERAL bitmapd._bucket_entries_safe(b.bits) e
 CROSS JOIN LATERAL (SELECT bitmapd.bucket_member_key(b.key, e.slot) AS key) m
 WHERE b.bucket > 0 AND NOT e.stub AND (e.cardinality > 0 OR e.nbytes IS NOT NULL) AND bitmapd.live(e.expire_ms);

COMMENT ON VIEW bitmapd.keys IS
  'One row per key that exists for RESP: stored (compressed) bytes, logical length in bytes as a Redis string, set bits, version, deadline';

-- Keys with a deadline, soonest first (through the partial index bitmaps_expire),
-- including those expired whose rows the sweep has not removed yet.
CREATE OR REPLACE VIEW bitmapd.key_expiry AS
SELECT encode(key, 'escape')            AS key,
       key                              AS key_bytes,
       to_timestamp(expire_ms / 1000.0) AS expires_at,
       expire_ms,
       expire_ms - bitmapd.now_ms()     AS ttl_ms,      -- negative: expired, row not removed yet
       NOT bitmapd.live(expire_ms)      AS expired
  FROM bitmapd.bitmaps
 WHERE expire_ms IS NOT NULL AND (bucket IS NULL OR bucket < 0)
 ORDER BY expire_ms;

COMMENT ON VIEW bitmapd.key_expiry IS
  'Keys with a deadline (EXPIRE, SET … EX), soonest first; expired = true until the background sweep removes the row';

-- 16 bits of a hash of a fence's key, the low bits of a SCAN cursor (scan_page).
CREATE OR REPLACE FUNCTION bitmapd._fence_tag(k bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || substr(md5(k), 1, 4))::bit(16)::bigint
$$;

-- One page of the RESP SCAN command (migrations/0014): up to n live keys in key order
-- from the fence the cursor names (0: the first key), then a row with a NULL key and
-- the next cursor (0: the walk is over). The page ends at a fence: the last one
-- already recorded at or before the (n+1)-th key, so that later walks reuse the
-- fences of earlier ones, or a new one at that key. Pages cover the key space
-- without gaps whatever is written between them, and fences are never removed, so a
-- key present for the whole walk is returned.
-- A cursor is id * 65536 + 16 bits of a hash of the fence's key (below 2^53 for ids
-- below 2^37, so that node-redis's doubles keep it exact). Fences are committed
-- without waiting for the disk; a crash of PostgreSQL can lose one, and the identity
-- can then hand its id out again for another key: the hash bits make the old cursor
-- invalid instead of sending it somewhere else. A cursor that names no fence raises
-- 22023 (ERR invalid cursor).
-- The keys of a page of rows ks (in key order; bs: each bucket row's bits, NULL for a
-- key's own row) before row key fence (NULL: all): a row's key, or the live members of
-- a bucket row (bitmapd._bucket_entries of NULL bits yields nothing) at its place. A
-- member that spilled to a row of its own (a stub in its bucket, its row marked
-- bucket < 0) is listed at its bucket's place too, when its row holds a live key: the
-- spill moves it only forward in key order, so a walk in progress cannot miss it.
CREATE OR REPLACE FUNCTION bitmapd._scan_keys(ks bytea[], bs bytea[], fence bytea, now_ms bigint)
RETURNS TABLE (k bytea)
LANGUAGE sql STABLE AS $$
    SELECT x.k FROM (
        SELECT u.k, u.o, -1 AS s FROM unnest(ks, bs) WITH ORDINALITY AS u(k, bb, o) WHERE u.bb IS NULL
        UNION ALL
        SELECT bitmapd.bucket_member_key(u.k, e.slot), u.o, e.slot
          FROM unnest(ks, bs) WITH ORDINALITY AS u(k, bb, o)
         CROSS JOIN LATERAL bitmapd._bucket_entries_safe(u.bb) e
         WHERE CASE WHEN e.stub
                    THEN EXISTS (SELECT 1 FROM bitmapd.bitmaps o
                                  WHERE o.key = bitmapd.bucket_member_key(u.k, e.slot) AND o.bucket < 0
                                    AND (o.cardinality > 0 OR o.nbytes IS NOT NULL)
                                    AND (o.expire_ms IS NULL OR o.expire_ms > now_ms))
                    ELSE (e.cardinality > 0 OR e.nbytes IS NOT NULL) AND (e.expire_ms IS NULL OR e.expire_ms > now_ms)
               END) x
     WHERE fence IS NULL OR ks[x.o::integer] < fence
     ORDER BY x.o, x.s
$$;

CREATE OR REPLACE FUNCTION bitmapd.scan_page(cursor bigint, n integer, now_ms bigint)
RETURNS TABLE (scan_key bytea, scan_next bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    from_key  bytea := ''::bytea;
    ks        bytea[];
    bs        bytea[];
    fence_id  bigint;
    fence_key bytea;
    len       integer;
    cnt       bigint := 0;
    cut       integer;
BEGIN
    IF cursor IS NULL OR cursor < 0 OR n IS NULL OR n < 1 OR now_ms IS NULL THEN
        RAISE EXCEPTION 'bitmapd.scan_page: invalid cursor or count' USING ERRCODE = '22023';
    END IF;
    IF cursor <> 0 THEN
        SELECT f.key INTO from_key FROM bitmapd.scan_fences f
         WHERE f.id = (cursor >> 16) AND bitmapd._fence_tag(f.key) = (cursor & 65535);
        IF NOT FOUND THEN
            RAISE EXCEPTION 'bitmapd.scan_page: cursor % names no fence', cursor USING ERRCODE = '22023';
        END IF;
    END IF;
    -- rows of live keys, and bucket rows (migrations/0015), whose live members are
    -- listed at the bucket's place (spilled ones too, _scan_keys); bs holds a bucket's
    -- bits, NULL for a key's own row
    SELECT array_agg(s.key ORDER BY s.key), array_agg(s.bbits ORDER BY s.key) INTO ks, bs
      FROM (SELECT b.key, CASE WHEN b.bucket > 0 THEN b.bits END AS bbits FROM bitmapd.bitmaps b
             WHERE b.key >= from_key
               AND (((b.cardinality > 0 OR b.nbytes IS NOT NULL) AND (b.expire_ms IS NULL OR b.expire_ms > now_ms)
                     AND b.bucket IS NULL)
                    OR b.bucket > 0)
             ORDER BY b.key LIMIT n + 1) s;
    -- the page ends before the row whose keys would take it past n (the (n+1)-th row
    -- when every row is one key); a first bucket row with more than n keys is given whole
    len := coalesce(array_length(ks, 1), 0);
    FOR i IN 1 .. len LOOP
        -- (a stub counts as a key: its row is not looked up here)
        cnt := cnt + CASE WHEN bs[i] IS NULL THEN 1
                          ELSE (SELECT l[1] + l[4] FROM (SELECT bitmapd._bucket_live(bs[i], now_ms) AS l) x) END;
        IF cnt > n THEN
            cut := greatest(i, 2);
            EXIT;
        END IF;
    END LOOP;
    IF cut IS NULL AND len > n THEN
        cut := len;  -- n + 1 rows of at most n keys (buckets without a live key): as before
    END IF;
    IF cut IS NULL OR cut > len THEN
        RETURN QUERY SELECT x.k, NULL::bigint FROM bitmapd._scan_keys(ks, bs, NULL, now_ms) x;
        RETURN QUERY SELECT NULL::bytea, 0::bigint;
        RETURN;
    END IF;
    SELECT f.id, f.key INTO fence_id, fence_key
      FROM bitmapd.scan_fences f
     WHERE f.key > from_key AND f.key <= ks[cut]
     ORDER BY f.key DESC LIMIT 1;
    IF NOT FOUND THEN
        -- not waiting for the disk: a walk with a small COUNT would wait for a flush
        -- per page (the cursor's hash bits cover a fence lost in a crash)
        PERFORM set_config('synchronous_commit', 'off', true);
        INSERT INTO bitmapd.scan_fences AS f (key) VALUES (ks[cut])
            ON CONFLICT (key) DO UPDATE SET key = excluded.key  -- another walk put it there meanwhile
            RETURNING f.id, f.key INTO fence_id, fence_key;
    END IF;
    RETURN QUERY SELECT x.k, NULL::bigint FROM bitmapd._scan_keys(ks, bs, fence_key, now_ms) x;
    RETURN QUERY SELECT NULL::bytea, (fence_id << 16) | bitmapd._fence_tag(fence_key);
END
$$;

COMMENT ON FUNCTION bitmapd.scan_page(bigint, integer, bigint) IS
  'One page of RESP SCAN: up to n live keys from the fence `cursor` in key order, then (NULL, next cursor); see migrations/0014';
