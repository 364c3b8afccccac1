-- 0012: key expiry (docs/design.md, "Expiry").
-- A key may carry a deadline, in milliseconds since the Unix epoch as Redis keeps it
-- (EXPIRE, SET … EX, GETEX …; PERSIST and a plain SET clear it). From its deadline on,
-- bitmapd answers for the key as if it did not exist, on every instance at once (each
-- compares the deadline with its own clock); the row itself is removed in the
-- background, in bounded batches, through the partial index below, which holds only
-- keys that have a deadline. The cost for a key without one: a ninth column makes the
-- row's null bitmap two bytes, which rounds its header from 24 to 32 bytes (rows are
-- rewritten in the new layout as they are written). Existing rows are not rewritten.
ALTER TABLE bitmapd.bitmaps ADD COLUMN expire_ms bigint;
ALTER TABLE bitmapd.bitmaps ADD CONSTRAINT bitmaps_expire_positive CHECK (expire_ms > 0);

COMMENT ON COLUMN bitmapd.bitmaps.expire_ms IS
  'Deadline of the key in ms since the Unix epoch (NULL: none); past it the key reads as absent and its row is removed in the background';

CREATE INDEX bitmaps_expire ON bitmapd.bitmaps (expire_ms) WHERE expire_ms IS NOT NULL;
