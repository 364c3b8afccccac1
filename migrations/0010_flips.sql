-- 0010: a chunked bitmap's recent changes in its head row (docs/design.md, "Flips").
-- A write of a few bits into a big bitmap used to rewrite the chunk rows it touched
-- (about 8 KiB each, kept in TOAST). Now, while they stay small, the head row records
-- the members in which the bitmap differs from its chunk rows (their symmetric
-- difference, in bitmapd's own encoding: CRoaring portable or dense), and the chunk
-- rows are rewritten only when those flips grow past [postgres] flip_bytes. The
-- head's checksum covers its chunks and its flips. NULL for every other row: the
-- column adds no byte to them (a row without NULLs gains a one-byte null bitmap
-- that fits in the tuple header's alignment padding; the others have one already).
ALTER TABLE bitmapd.bitmaps ADD COLUMN flips bytea;

COMMENT ON COLUMN bitmapd.bitmaps.flips IS
  'Chunked bitmaps only (empty bits): members in which the bitmap differs from its chunk rows; bitmapd.value(key, bits) applies them';
