-- 0008: big bitmaps in chunks (docs/design.md, "Chunked rows").
-- A bitmap whose encoding is longer than 8 KiB keeps its row in bitmapd.bitmaps (key,
-- version, cardinality, checksum, nbytes: everything the views, SCAN and the
-- compare-and-swap see) with an empty `bits`, and its members here, cut at 16-bit
-- container keys into rows of about 8 KiB. A write rewrites the chunks it changes and
-- the head row, so its WAL is what changed, not the bitmap's size. A small bitmap stays
-- one row, byte for byte as before.
--
-- A chunk covers the container keys lo .. hi-1 (members lo * 65536 .. hi * 65536 - 1);
-- the chunks of a key never overlap, and a key's head names no chunk: its set of chunks
-- is whatever rows carry its key. bitmapd writes the chunks and the head in one
-- statement, after locking the head, so a reader of one committed snapshot sees a head
-- and chunks that belong together. bitmapd.value(key, bits) gives back the whole
-- bitmap as Roaring portable bytes for psql (sql/015_chunks.sql).
CREATE TABLE bitmapd.chunks (
    key         bytea   NOT NULL,
    lo          integer NOT NULL,   -- first container key covered
    hi          integer NOT NULL,   -- one past the last
    bits        bytea   NOT NULL,   -- CRoaring portable serialization of the members in range
    cardinality bigint  NOT NULL,
    checksum    bigint  NOT NULL,   -- CRC-32C of bits
    PRIMARY KEY (key, lo),
    CONSTRAINT chunks_range CHECK (lo >= 0 AND lo < hi AND hi <= 65536),
    CONSTRAINT chunks_cardinality_range CHECK (cardinality BETWEEN 1 AND 4294967296),
    CONSTRAINT chunks_checksum_range CHECK (checksum BETWEEN 0 AND 4294967295)
);

COMMENT ON TABLE bitmapd.chunks IS
  'Members of the big bitmaps (head row in bitmapd.bitmaps with an empty bits), about 8 KiB per row; written only by bitmapd';
