-- 0014: SCAN in key order, between fences; the key_hash index goes.
-- The index of 0004 kept every key twice more (about 30 bytes a row) and cost
-- every insert, and every update that moves a row, a write into a random page of
-- it: measured on this machine, 10,000 inserts of new keys into a table of 2.1
-- million rows took 81-100 ms with it and 33-36 ms without (docs/design.md,
-- "What a row costs"). SCAN now walks the primary key. Its cursor must still be a
-- number (go-redis parses it as uint64, node-redis 4 as a double) that any instance
-- can continue, and a key can be longer than a number, so the cursor names a fence:
-- a key position recorded here the first time a walk stops there, and never
-- removed, so that a cursor stays good however long a client keeps it. A page runs
-- from its fence to the next fence the walk chose; a key present for the whole walk
-- is returned, as Redis promises (bitmapd.scan_page in sql/030_keys.sql).
CREATE TABLE bitmapd.scan_fences (
    id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- the cursor SCAN answers
    key bytea  NOT NULL UNIQUE                            -- the page starts at this key
);

COMMENT ON TABLE bitmapd.scan_fences IS
  'Positions in key order where a RESP SCAN page ended; a SCAN cursor is an id here (bitmapd.scan_page)';

DROP INDEX IF EXISTS bitmapd.bitmaps_key_hash;
