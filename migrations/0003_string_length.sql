-- 0003: the length in bytes of a key seen as a Redis string.
-- A Roaring bitmap has no length, but Redis answers depend on it (STRLEN, negative
-- ranges, BITPOS … 0, the reply of BITOP, SETBIT k off 0 growing the value).
-- NULL means "no explicit length": the value is as long as its highest member needs
-- (rows written only by the HTTP message box). The effective length is always
-- greatest(nbytes, highest member / 8 + 1).
-- A row with no member and a NULL length is a deleted (or never written) key: RESP
-- DEL empties a row instead of removing it, so that a version never repeats for a key
-- (a removed and recreated row would restart at version 0 and let a stale
-- compare-and-swap through).
-- Adding a nullable column without a default only changes the catalog: no rewrite.
ALTER TABLE bitmapd.bitmaps ADD COLUMN nbytes bigint;
ALTER TABLE bitmapd.bitmaps ADD CONSTRAINT bitmaps_nbytes_range CHECK (nbytes BETWEEN 0 AND 536870912);

COMMENT ON COLUMN bitmapd.bitmaps.nbytes IS
  'Length in bytes as a Redis string (0 .. 512 MB); NULL = as long as the highest member needs';
