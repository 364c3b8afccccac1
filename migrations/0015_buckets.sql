-- 0015: bucket rows, inert (issue 14; docs/design.md, "A plan for bucket rows").
-- A row of about 200 bytes around 49 bytes of check-in bits is what keeps check-ins
-- and receipts over their byte targets; the way out is up to 16 keys of one family
-- in one row, a *bucket* (checkin:~{user >> 4}), whose bits are a directory and the
-- members' values (src/store/bucket.h). This migration only makes room for them:
--  - bucket marks a row: NULL for every key's own row (a catalog-only change: the
--    rows already have a null bitmap, so the NULL costs them no byte), f > 0 for a
--    bucket of family f, -f for a member of family f that lives in its own row;
--  - bitmapd.bucket_state says, per family, whether its keys go to buckets. Every
--    family starts 'off', and nothing in this version turns one on: no bucket row
--    is written by bitmapd yet. The statements that take "a row is a key" (the sweep
--    of expired keys, the cut into chunks, SCAN, KEYS, DBSIZE, bitmapd.keys) already
--    leave bucket rows alone, so that one made by hand is never swept, cut, listed as
--    a key or read as a bitmap; bucket names are refused as Redis keys.
ALTER TABLE bitmapd.bitmaps ADD COLUMN bucket smallint;
ALTER TABLE bitmapd.bitmaps ADD CONSTRAINT bitmaps_bucket_nonzero CHECK (bucket <> 0);

COMMENT ON COLUMN bitmapd.bitmaps.bucket IS
  'NULL: the row of one key; f > 0: a bucket of family f holding up to 16 keys (bitmapd.values lists them); -f: a key of family f in a row of its own';

CREATE TABLE bitmapd.bucket_state (
    family smallint PRIMARY KEY CHECK (family > 0),
    name   text     NOT NULL UNIQUE,
    state  text     NOT NULL DEFAULT 'off' CHECK (state IN ('off', 'moving_in', 'on', 'moving_out')),
    gen    bigint   NOT NULL DEFAULT 0      -- +1 on every change of state
);

COMMENT ON TABLE bitmapd.bucket_state IS
  'Per family of keys (1 checkin:{user}, 2 group:{g}:msg:{m}): whether its keys live in bucket rows; all off in this version';

INSERT INTO bitmapd.bucket_state (family, name) VALUES (1, 'checkin'), (2, 'receipt');
