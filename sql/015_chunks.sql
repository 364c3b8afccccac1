-- 015_chunks: a bitmap stored in chunks (migration 0008) read back whole, so that every
-- view and psql query reads big and small bitmaps alike. Re-applied by every
-- `bitmapd --migrate` (CREATE OR REPLACE only).
--
--     SELECT bitmapd.members(bitmapd.value(key, bits)) FROM bitmapd.bitmaps WHERE ...
--
-- bitmapd.value(key, bits) is bits itself for a one-row bitmap (an inlined CASE: no
-- cost), and for a chunked one (bits is empty) the Roaring portable serialization of
-- all its chunks (each in the smallest of bitmapd's encodings: portable, dense or gaps): their containers in key order, with one header, runs kept (cookie
-- 12347 when a container is a run). It checks that every container lies inside its
-- chunk's range and that chunks do not overlap, and raises 22P03 otherwise.
--
-- A chunked bitmap's head row may also carry flips (migration 0010): the members in
-- which the bitmap differs from its chunks. bitmapd.value() applies them: each
-- container they touch is rebuilt (an array up to 4096 members, else a bitset).

-- (bitmapd._bitset, a bitset container's bytes, is in 010_codec.sql.)

CREATE OR REPLACE FUNCTION bitmapd._assemble(k bytea) RETURNS bytea
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    ks integer[];
    cards integer[];
    kinds text[];
    payloads bytea[];
    outside text;
    overlap text;
    n integer;
    runs boolean;
    head_size bigint;
    out bytea;
    fl bytea;
BEGIN
    SELECT array_agg(x.key ORDER BY ch.lo, x.idx), array_agg(x.cardinality ORDER BY ch.lo, x.idx),
           array_agg(x.kind ORDER BY ch.lo, x.idx),
           array_agg(substring(ch.b FROM x.byte_offset + 1 FOR x.byte_size) ORDER BY ch.lo, x.idx),
           -- (to_roaring leaves no dense container: kind 'd' would be a bug of its own)
           min(CASE WHEN x.key < ch.lo OR x.key >= ch.hi OR x.kind = 'd'
                    THEN format('chunk %s..%s holds container %s', ch.lo, ch.hi, x.key) END)
      INTO ks, cards, kinds, payloads, outside
      -- OFFSET 0 keeps the subquery whole: flattened, ch.b was computed again for every
      -- container of the chunk (the substring above), which took a 150,000-member key
      -- of 48 gaps chunks 18 s instead of 0.6 s
      FROM (SELECT c.lo, c.hi, bitmapd.to_roaring(c.bits) AS b FROM bitmapd.chunks c WHERE c.key = k OFFSET 0) ch
     CROSS JOIN LATERAL bitmapd.containers(ch.b) x;
    SELECT min(format('chunks %s and %s overlap', prev_lo, lo)) INTO overlap
      FROM (SELECT lo, lag(lo) OVER w AS prev_lo, lag(hi) OVER w AS prev_hi
              FROM bitmapd.chunks WHERE key = k WINDOW w AS (ORDER BY lo)) s
     WHERE prev_hi > lo;
    IF coalesce(outside, overlap) IS NOT NULL THEN
        PERFORM bitmapd._malformed(coalesce(outside, overlap));
    END IF;
    SELECT b.flips INTO fl FROM bitmapd.bitmaps b WHERE b.key = k;
    IF fl IS NOT NULL THEN
        -- the containers the flips touch, rebuilt: a value is a member when it is in
        -- the chunk or in the flips, not both
        WITH f AS (SELECT m >> 16 AS key, (m & 65535)::integer AS v FROM bitmapd.members(fl) AS m),
             cur AS (SELECT * FROM unnest(ks, cards, kinds, payloads) AS t(key, card, kind, payload)),
             after AS (SELECT x.key, x.v FROM (SELECT c.key, (m & 65535)::integer AS v
                                               FROM cur c
                                              CROSS JOIN LATERAL bitmapd._container_members(c.payload, 0, c.kind,
                                                                                             c.card, 0) AS m
                                              WHERE c.key IN (SELECT key FROM f)
                                             UNION ALL
                                             SELECT key, v FROM f) x
                      GROUP BY x.key, x.v HAVING count(*) % 2 = 1),
             rebuilt AS (SELECT key, count(*)::integer AS card,
                                CASE WHEN count(*) <= 4096 THEN 'a' ELSE 'b' END AS kind,
                                CASE WHEN count(*) <= 4096 THEN string_agg(bitmapd._le16(v), ''::bytea ORDER BY v)
                                     ELSE bitmapd._bitset(array_agg(v)) END AS payload
                           FROM after GROUP BY key),
             merged AS (SELECT * FROM cur WHERE key NOT IN (SELECT key FROM f)
                        UNION ALL
                        SELECT * FROM rebuilt)
        SELECT array_agg(key ORDER BY key), array_agg(card ORDER BY key), array_agg(kind ORDER BY key),
               array_agg(payload ORDER BY key)
          INTO ks, cards, kinds, payloads
          FROM merged;
    END IF;
    n := coalesce(array_length(ks, 1), 0);
    runs := coalesce('r' = ANY (kinds), false);
    head_size := CASE WHEN runs THEN 4 + (n + 7) / 8 + 4 * n + CASE WHEN n >= 4 THEN 4 * n ELSE 0 END
                      ELSE 8 + 8 * n END;
    WITH c AS (
        SELECT t.*, head_size + coalesce(sum(octet_length(t.payload)) OVER (ORDER BY t.i ROWS BETWEEN UNBOUNDED
                                                                          PRECEDING AND 1 PRECEDING), 0) AS pos
          FROM unnest(ks, cards, kinds, payloads) WITH ORDINALITY AS t(key, card, kind, payload, i)
    )
    SELECT CASE WHEN runs THEN bitmapd._le32(12347 + ((n - 1)::bigint << 16))
                            || (SELECT string_agg(set_byte('\x00'::bytea, 0, f), ''::bytea ORDER BY j)
                                  FROM (SELECT (t.i - 1) / 8 AS j,
                                               sum(CASE WHEN t.kind = 'r' THEN 1 << ((t.i - 1) % 8)::integer
                                                        ELSE 0 END)::integer AS f
                                          FROM unnest(kinds) WITH ORDINALITY AS t(kind, i)
                                         GROUP BY 1) fl)
                ELSE '\x3a300000'::bytea || bitmapd._le32(n) END
        || coalesce(string_agg(bitmapd._le16(c.key) || bitmapd._le16(c.card - 1), ''::bytea ORDER BY c.i), '')
        || CASE WHEN runs AND n < 4 THEN ''::bytea
                ELSE coalesce(string_agg(bitmapd._le32(c.pos), ''::bytea ORDER BY c.i), '') END
        || coalesce(string_agg(c.payload, ''::bytea ORDER BY c.i), '')
      INTO out
      FROM c;
    RETURN out;
END $$;

COMMENT ON COLUMN bitmapd.chunks.bits IS
  'The members of the chunk''s range [lo, hi) of container keys, in the smallest of bitmapd''s encodings: CRoaring portable, dense raw bits, or gaps (Rice-coded gaps); bitmapd.to_roaring(bits) reads any of them';

CREATE OR REPLACE FUNCTION bitmapd.value(k bytea, bits bytea) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN octet_length(bits) = 0 THEN bitmapd._assemble(k) ELSE bits END $$;

COMMENT ON FUNCTION bitmapd.value(bytea, bytea) IS
  'The whole bitmap of a row of bitmapd.bitmaps (key, bits): bits itself, or for a chunked bitmap (empty bits) its chunks as one Roaring portable serialization';

-- Bytes a bitmap takes in its encoding(s): the row's bits, or the sum of its chunks and
-- its head's flips.
CREATE OR REPLACE FUNCTION bitmapd.value_bytes(k bytea, bits bytea) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN octet_length(bits) = 0
                  THEN (SELECT coalesce(sum(octet_length(c.bits)), 0) FROM bitmapd.chunks c WHERE c.key = k)
                       + coalesce((SELECT octet_length(b.flips) FROM bitmapd.bitmaps b WHERE b.key = k), 0)
                  ELSE octet_length(bits) END $$;

-- The part of a bitmap that holds its highest member: bits itself, or its last chunk
-- (chunks keep members at their absolute values), for bitmapd.max_member without
-- reading a big bitmap whole. With flips in its head: the flips when their highest
-- member is above the last chunk's (a member the flips add), the last chunk when its
-- highest member is above theirs, and the whole value only when the two are the same
-- member (the flips remove it).
CREATE OR REPLACE FUNCTION bitmapd._tail_flipped(k bytea) RETURNS bytea
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    fl bytea;
    tail bytea;
    fmax bigint;
    cmax bigint;
BEGIN
    SELECT b.flips INTO fl FROM bitmapd.bitmaps b WHERE b.key = k;
    SELECT c.bits INTO tail FROM bitmapd.chunks c WHERE c.key = k ORDER BY c.lo DESC LIMIT 1;
    IF fl IS NULL THEN
        RETURN tail;
    END IF;
    fmax := bitmapd.max_member(fl);
    cmax := bitmapd.max_member(tail);
    IF cmax IS NULL OR fmax > cmax THEN
        RETURN fl;
    ELSIF fmax < cmax THEN
        RETURN tail;
    END IF;
    RETURN bitmapd._assemble(k);
END $$;

CREATE OR REPLACE FUNCTION bitmapd.value_tail(k bytea, bits bytea) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN octet_length(bits) = 0 THEN bitmapd._tail_flipped(k) ELSE bits END $$;
