-- 0004: an order of keys for the RESP SCAN command.
-- Redis clients expect SCAN's cursor to be a number (go-redis parses it as uint64),
-- and the server must keep no state between calls (several bitmapd instances may
-- serve one iteration). Keys are walked in the order of a 60-bit hash of their
-- name; the cursor is the next hash to visit. A key present for the whole
-- iteration is returned, as Redis promises.
CREATE FUNCTION bitmapd.key_hash(k bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || substr(md5(k), 1, 15))::bit(60)::bigint
$$;

CREATE INDEX bitmaps_key_hash ON bitmapd.bitmaps (bitmapd.key_hash(key));
