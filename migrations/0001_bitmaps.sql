-- 0001: the one table of bitmaps. One row per bitmap, addressed by key.
-- Applied once, inside a transaction, by `bitmapd --migrate` as the owner role.
CREATE SCHEMA IF NOT EXISTS bitmapd;

CREATE TABLE bitmapd.bitmaps (
    key         bytea       PRIMARY KEY,          -- binary-safe (RESP keys may hold any byte)
    version     bigint      NOT NULL DEFAULT 0,   -- +1 on every committed write; 0 = created empty
    bits        bytea       NOT NULL,             -- CRoaring portable serialization
    cardinality bigint      NOT NULL,             -- number of members, so views need not decode
    checksum    bigint      NOT NULL,             -- CRC-32C of bits, checked on every load
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT bitmaps_version_nonneg CHECK (version >= 0),
    CONSTRAINT bitmaps_cardinality_range CHECK (cardinality BETWEEN 0 AND 4294967296),
    CONSTRAINT bitmaps_checksum_range CHECK (checksum BETWEEN 0 AND 4294967295)
);

COMMENT ON TABLE bitmapd.bitmaps IS
  'Compressed Roaring bitmaps (portable format), one per key; written only through the bitmapd compare-and-swap path';
