-- Keys as the RESP front end sees them (re-applied by every `bitmapd --migrate`).
-- Every row of bitmapd.bitmaps is a Redis string key whose bits are the bitmap;
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
 WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms);

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
 WHERE expire_ms IS NOT NULL
 ORDER BY expire_ms;

COMMENT ON VIEW bitmapd.key_expiry IS
  'Keys with a deadline (EXPIRE, SET … EX), soonest first; expired = true until the background sweep removes the row';
