-- 0016: moving a family's keys into bucket rows and out again while instances serve
-- (`bitmapd --buckets in|out FAMILY`; docs/design.md, "Moving keys between layouts").
--
-- A family's state (bitmapd.bucket_state) goes off -> moving_in -> on, or on ->
-- moving_out -> off, each step adding 1 to its generation. In a moving state a key of
-- the family may be in its own row or in its bucket; bitmapd reads both and writes the
-- new home, and the mover takes the rest over one bucket a transaction. That is only
-- safe when every writer acts on the same state, so from the first move on (the sum
-- of the generations, the *epoch*, above 0) a statement that writes rows of the
-- families' key ranges must come from a session whose setting bitmapd.bucket_epoch is
-- the epoch (bitmapd sets it on each of its sessions when it reads the state, and
-- shows it in application_name as 'bitmapd e=N', where the mover waits for it). A
-- session that does not know the epoch (an older bitmapd, an instance that missed
-- the change, psql) fails with BMB01. Even with the epoch, two kinds of row are
-- refused (BMB02), which no bitmapd writes: a bucket row of a family that is off,
-- and an own row holding a value for a member of a family that is on or moving in
-- (there the own row may only say "no key": cardinality 0, nbytes NULL).
--
-- The write-behind log's appends (migration 0009) pass the same epoch check, and an
-- append may not hold the image of a member's own row while its family is on or
-- moving in (bitmapd._wlog_keys_ok, called by the append itself, which alone knows
-- the keys): such an image would be folded into a home the key has left, and the
-- fold, refused by the guard above, would hold every write of the log back.

CREATE FUNCTION bitmapd.bucket_epoch() RETURNS bigint
LANGUAGE sql STABLE AS $$ SELECT coalesce(sum(gen), 0)::bigint FROM bitmapd.bucket_state $$;

COMMENT ON FUNCTION bitmapd.bucket_epoch() IS
  'The sum of the families'' generations: a session that writes keys of a family must have bitmapd.bucket_epoch set to it once it is above 0 (migration 0016)';

CREATE FUNCTION bitmapd._bucket_epoch_check() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    epoch bigint := bitmapd.bucket_epoch();
BEGIN
    IF epoch > 0 AND current_setting('bitmapd.bucket_epoch', true) IS DISTINCT FROM epoch::text THEN
        RAISE EXCEPTION 'bitmapd: keys of a family are moving between row layouts (bucket epoch %), and this session acts on epoch %',
                        epoch, coalesce(nullif(current_setting('bitmapd.bucket_epoch', true), ''), 'none')
            USING ERRCODE = 'BMB01',
                  HINT = 'bitmapd instances follow within a second; write keys of checkin: and group:…:msg: through bitmapd';
    END IF;
END
$$;

CREATE FUNCTION bitmapd._wlog_epoch_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bitmapd._bucket_epoch_check();
    RETURN NULL;
END
$$;

CREATE TRIGGER wlog_bucket_epoch BEFORE INSERT ON bitmapd.wlog
    FOR EACH STATEMENT EXECUTE FUNCTION bitmapd._wlog_epoch_guard();

-- 0009's change trigger, with the bucket guard after the log's: one look at the state
-- (a table of two rows) per statement that writes, and at epoch > 0 one pass over the
-- rows written.
CREATE OR REPLACE FUNCTION bitmapd._bitmaps_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    epoch bigint;
    off_f smallint[];
    in_f smallint[];
    fam boolean;
    bad_bucket boolean;
    bad_own boolean;
BEGIN
    PERFORM bitmapd._wlog_guard();
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT coalesce(sum(gen), 0), array_agg(family) FILTER (WHERE state = 'off'),
               array_agg(family) FILTER (WHERE state IN ('moving_in', 'on'))
          INTO epoch, off_f, in_f
          FROM bitmapd.bucket_state;
    END IF;
    IF epoch > 0 THEN
        SELECT bool_or(c.fam), bool_or(c.bucket > 0 AND c.bucket = ANY (off_f)),
               bool_or(c.fam AND in_f IS NOT NULL AND c.bucket IS NULL AND NOT (c.cardinality = 0 AND c.nbytes IS NULL)
                       AND (bitmapd.bucket_of(c.key)).family = ANY (in_f))
          INTO fam, bad_bucket, bad_own
          FROM (SELECT x.key, x.bucket, x.cardinality, x.nbytes,
                       (x.key >= '\x636865636b696e3a'::bytea AND x.key < '\x636865636b696e3b'::bytea)  -- checkin:
                       OR (x.key >= '\x67726f75703a'::bytea AND x.key < '\x67726f75703b'::bytea) AS fam -- group:
                  FROM changed x) c;
        IF fam AND current_setting('bitmapd.bucket_epoch', true) IS DISTINCT FROM epoch::text THEN
            PERFORM bitmapd._bucket_epoch_check();
        END IF;
        IF fam AND bad_bucket THEN
            RAISE EXCEPTION 'bitmapd: a bucket row of a family that is off'
                USING ERRCODE = 'BMB02', HINT = 'bitmapd --buckets in FAMILY moves a family into buckets';
        END IF;
        IF fam AND bad_own THEN
            RAISE EXCEPTION 'bitmapd: a row of its own for a key whose family is in buckets'
                USING ERRCODE = 'BMB02', HINT = 'bitmapd --buckets out FAMILY moves a family out of buckets';
        END IF;
    END IF;
    -- a fold writes versions the log's append already announced (with their keys):
    -- nothing new to tell, and it is most of the rows written while a log is in use
    IF current_setting('bitmapd.folding', true) = 'on' AND TG_OP IN ('INSERT', 'UPDATE') THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('bitmapd_changed', '*');
        RETURN NULL;
    END IF;
    PERFORM pg_notify('bitmapd_changed', string_agg(item, ',' ORDER BY ord))
       FROM (SELECT item, ord, sum(length(item) + 1) OVER (ORDER BY ord) / 3500 AS chunk
               FROM (SELECT encode(key, 'hex') ||
                            CASE WHEN TG_OP = 'DELETE' THEN ':d'
                                 ELSE ':' || version || ':' || txid_current() % 4294967296 END AS item,
                            row_number() OVER () AS ord
                       FROM changed) s) t
      GROUP BY chunk;
    RETURN NULL;
END
$$;

-- Whether the keys of an append to the write-behind log may go there: none of them a
-- member of a family that is on or moving in (BMB02 otherwise). VOLATILE: it reads the
-- state after the append's lock on bitmapd.wlog, which the mover's change of state
-- waits for.
CREATE FUNCTION bitmapd._wlog_keys_ok(keys bytea[]) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    in_f smallint[];
BEGIN
    SELECT array_agg(family) FILTER (WHERE state IN ('moving_in', 'on')) INTO in_f FROM bitmapd.bucket_state;
    IF in_f IS NOT NULL AND EXISTS (
           SELECT 1 FROM unnest(keys) k
            WHERE ((k >= '\x636865636b696e3a'::bytea AND k < '\x636865636b696e3b'::bytea)
                   OR (k >= '\x67726f75703a'::bytea AND k < '\x67726f75703b'::bytea))
              AND (bitmapd.bucket_of(k)).family = ANY (in_f)) THEN
        RAISE EXCEPTION 'bitmapd: a key whose family is in buckets cannot go to the write-behind log'
            USING ERRCODE = 'BMB02';
    END IF;
    RETURN true;
END
$$;
