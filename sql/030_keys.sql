-- Keys as the RESP front end sees them (re-applied by every `bitmapd --migrate`).
-- Every row of bitmapd.bitmaps is a Redis string key whose bits are the bitmap;
-- rows with no member and no explicit length are deleted (or never written) keys
-- and are not listed.

-- Length in bytes as a Redis string: the stored length, or what the highest member needs.
CREATE OR REPLACE FUNCTION bitmapd.string_length(bits bytea, nbytes bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT greatest(coalesce(nbytes, 0), coalesce(bitmapd.max_member(bits) / 8 + 1, 0))
$$;

CREATE OR REPLACE VIEW bitmapd.keys AS
SELECT encode(key, 'escape')                             AS key,       -- printable; bytes in key_bytes
       key                                                 AS key_bytes,
       bitmapd.value_bytes(key, bits)                      AS bytes_stored,
       bitmapd.string_length(bitmapd.value_tail(key, bits), nbytes) AS length,
       cardinality,
       version,
       updated_at
  FROM bitmapd.bitmaps
 WHERE cardinality > 0 OR nbytes IS NOT NULL;

COMMENT ON VIEW bitmapd.keys IS
  'One row per key that exists for RESP: stored (compressed) bytes, logical length in bytes as a Redis string, set bits, version';
