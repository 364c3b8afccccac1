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

-- The bucket rows, for the statements that list their members (bitmapd.keys): without
-- it a look-up of one key in that view would scan the table for them. Empty until a
-- family is on; its build reads the table once (0.8 s for 7.5 million rows here).
CREATE INDEX bitmaps_buckets ON bitmapd.bitmaps (key) WHERE bucket > 0;

-- Bucket names are reserved from now on (RESP refuses them). A key that already has
-- one would be stuck (no command could read or delete it) and would collide with its
-- bucket's row once its family is on: the migration stops and names such keys, to be
-- renamed (RENAME over RESP with the previous version) before upgrading.
-- bitmapd._reserved_keys(n) lists up to n of them (the family ranges only: an index
-- range for checkin:, the group: range with a cheap test first).
CREATE FUNCTION bitmapd._reserved_keys(n integer) RETURNS SETOF bytea
LANGUAGE sql STABLE AS $f$
    SELECT key FROM bitmapd.bitmaps
     WHERE (bucket IS NULL OR bucket < 0)
       AND ((key >= convert_to('checkin:~', 'UTF8') AND key < convert_to('checkin:' || chr(127), 'UTF8')
             AND encode(key, 'escape') ~ '^checkin:~(0|[1-9][0-9]{0,17})$')
            OR (key >= convert_to('group:', 'UTF8') AND key < convert_to('group;', 'UTF8')
                AND position(convert_to(':msg:~', 'UTF8') IN key) > 0
                AND encode(key, 'escape') ~ '^group:(0|[1-9][0-9]{0,18}):msg:~(0|[1-9][0-9]{0,17})$'
                AND substring(encode(key, 'escape') FROM '^group:([0-9]+):')::numeric <= 9223372036854775807))
       AND substring(encode(key, 'escape') FROM '~([0-9]+)$')::numeric <= 576460752303423487
     LIMIT n
$f$;

DO $$
DECLARE
    bad text;
BEGIN
    SELECT string_agg(quote_literal(encode(k, 'escape')), ', ') INTO bad FROM bitmapd._reserved_keys(10) k;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'keys with names now reserved for bucket rows: %', bad
            USING HINT = 'rename them (RENAME over RESP, with the bitmapd version before this one), then migrate again';
    END IF;
END $$;
