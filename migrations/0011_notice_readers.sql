-- 0011: announcements without a row per reader (docs/notices.md).
-- Until now a read was recorded twice: in the notice's readers and in a row per user,
-- notice:user:{u}:read, so that a listing read two rows; a preread wrote those rows in
-- batches after the notice, recording the users still to write in notice:{id}:preread.
-- A listing now looks the user up in the readers of each live notice of the
-- audience, and a preread commits with its notice, so both kinds of rows go. The
-- readers were always a superset of what they recorded (a preread user pending or
-- not is a reader), so nothing is lost; an unfinished preread is finished by this.
--
-- All in the migration's transaction: an interrupted run leaves every row in place
-- and the next --migrate deletes them. Only the exact key shapes
-- the service wrote are matched (an index range scan, then the pattern), so keys
-- a RESP client made under the same prefix stay. Instances of an older version
-- read these rows for their listings: upgrade them all before migrating (README).
-- The DELETE runs only when such a row exists: the statement-level change trigger
-- refuses writes while an instance holds the write-behind log's lease (0009), so a
-- database without old rows migrates even then; one with old rows needs SELECT
-- bitmapd.wlog_fold() first, as any psql write does (docs/design.md).
DO $$
DECLARE
    old bytea[];
BEGIN
    SELECT array_agg(key) INTO old FROM bitmapd.bitmaps
     WHERE (key >= convert_to('notice:user:', 'UTF8') AND key < convert_to('notice:user;', 'UTF8')
            AND substring(encode(key, 'escape') FROM '^notice:user:(0|[1-9][0-9]{0,9}):read$')::bigint <= 4294967295)
        OR (key >= convert_to('notice:0', 'UTF8') AND key < convert_to('notice::', 'UTF8')
            AND substring(encode(key, 'escape') FROM '^notice:(0|[1-9][0-9]{0,9}):preread$')::bigint <= 4294967295);
    IF old IS NOT NULL THEN
        DELETE FROM bitmapd.chunks WHERE key = ANY (old); -- a big key's chunk rows go with its head
        DELETE FROM bitmapd.bitmaps WHERE key = ANY (old);
    END IF;
END
$$;
