-- 0019: a big statement of bitmapd's own that nobody else listens to goes unannounced.
--
-- A fan-out to 1,000,000 new users made 60 MB of payload (a key, a version and a
-- transaction id per row, cut into some 17,000 notifications of 3,500 bytes), which
-- PostgreSQL built and queued and the instance's own listener read back, only for the
-- writer to learn what it had just written itself: with the payload left out by hand,
-- the fan-out ran at 177-186k users/s against 129-135k (docs/design.md, "The
-- notification is what is left of a fan-out to new users").
--
-- bitmapd's compare-and-swap of many keys now sets bitmapd.quiet_pid to the backend
-- pid of its instance's listener (the statement's own transaction only). The trigger
-- then looks for any other session holding or waiting for one of the watcher locks
-- (7355610, 0..15), which every instance's listener holds from before its LISTEN
-- (store_wlog.h) and an outside listener must hold (docs/scaling.md). With none, the
-- statement is announced by one short notification, '!q:' and the writer's instance
-- token, instead of its keys: a listener that registered after the look (it took its
-- locks later) and before the commit hears it and empties its cache, an older binary
-- as well (it cannot read it, and empties its cache on that); the writer ignores its
-- own. The look comes after the guard's shared lock on the lease (7355609): a holder
-- of the write-behind log, which stops watching while it holds the lease, watches
-- again before it lets go. A statement without the setting (every other writer,
-- every delete) is announced as before.

CREATE OR REPLACE FUNCTION bitmapd._bitmaps_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    quiet boolean;
    guard int;
    payload text;
    fam boolean;
    epoch bigint;
    off_f smallint[];
    in_f smallint[];
    bad_bucket boolean;
    bad_own boolean;
    qpid int;
    alone boolean := false;
    nrows bigint;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM bitmapd._wlog_guard();
        PERFORM pg_notify('bitmapd_changed', '*');
        RETURN NULL;
    END IF;
    -- a fold writes versions the log's append already announced (with their keys):
    -- nothing new to tell, and it is most of the rows written while a log is in use
    quiet := TG_OP <> 'DELETE' AND current_setting('bitmapd.folding', true) IS NOT DISTINCT FROM 'on';
    -- bitmapd's own statement of many keys, with no other listener to tell (above)
    qpid := nullif(current_setting('bitmapd.quiet_pid', true), '')::int;
    IF qpid > 0 AND TG_OP <> 'DELETE' AND NOT quiet THEN
        PERFORM pg_try_advisory_xact_lock_shared(7355609); -- before the look: see above
        alone := NOT EXISTS (SELECT 1 FROM pg_locks l
                              WHERE l.locktype = 'advisory' AND l.classid = 7355610 AND l.objsubid = 2
                                AND l.pid <> qpid
                                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()));
    END IF;
    -- One query for what every statement needs: the write-behind log's guard (as
    -- bitmapd._wlog_guard), the notification, and whether a row is in a family's key
    -- range (checkin:, group:), which alone makes the bucket checks below necessary.
    SELECT CASE WHEN pg_try_advisory_xact_lock_shared(7355609)
                THEN CASE WHEN EXISTS (SELECT 1 FROM bitmapd.wlog) THEN 2 ELSE 0 END
                WHEN current_setting('bitmapd.instance', true) IS DISTINCT FROM
                     (SELECT holder FROM bitmapd.wlog_lease) THEN 1
                ELSE 0 END,
           string_agg(encode(x.key, 'hex') ||
                      CASE WHEN TG_OP = 'DELETE' THEN ':d'
                           ELSE ':' || x.version || ':' || txid_current() % 4294967296 END, ',')
             FILTER (WHERE NOT quiet AND NOT alone),
           count(*),
           bool_or((x.key >= '\x636865636b696e3a'::bytea AND x.key < '\x636865636b696e3b'::bytea)  -- checkin:
                   OR (x.key >= '\x67726f75703a'::bytea AND x.key < '\x67726f75703b'::bytea))       -- group:
      INTO guard, payload, nrows, fam
      FROM changed x;
    IF guard = 2 THEN
        RAISE EXCEPTION 'bitmapd: the write-behind log holds writes not folded yet'
            USING ERRCODE = 'BMW02',
                  HINT = 'a bitmapd instance folds it when it next writes; or SELECT bitmapd.wlog_fold() and retry';
    ELSIF guard = 1 THEN
        RAISE EXCEPTION 'bitmapd: a bitmapd instance holds the write-behind log'
            USING ERRCODE = 'BMW01',
                  HINT = 'SELECT bitmapd.wlog_fold() asks it to fold and let go; then retry';
    END IF;
    IF TG_OP <> 'DELETE' AND fam THEN
        SELECT coalesce(sum(gen), 0), array_agg(family) FILTER (WHERE state = 'off'),
               array_agg(family) FILTER (WHERE state IN ('moving_in', 'on'))
          INTO epoch, off_f, in_f
          FROM bitmapd.bucket_state;
        IF epoch > 0 THEN
            IF current_setting('bitmapd.bucket_epoch', true) IS DISTINCT FROM epoch::text THEN
                PERFORM bitmapd._bucket_epoch_check();
            END IF;
            SELECT bool_or(c.bucket > 0 AND c.bucket = ANY (off_f)),
                   bool_or(c.fam AND in_f IS NOT NULL AND c.bucket IS NULL AND NOT (c.cardinality = 0 AND c.nbytes IS NULL)
                           AND (bitmapd.bucket_of(c.key)).family = ANY (in_f))
              INTO bad_bucket, bad_own
              FROM (SELECT x.key, x.bucket, x.cardinality, x.nbytes,
                           (x.key >= '\x636865636b696e3a'::bytea AND x.key < '\x636865636b696e3b'::bytea)  -- checkin:
                           OR (x.key >= '\x67726f75703a'::bytea AND x.key < '\x67726f75703b'::bytea) AS fam -- group:
                      FROM changed x) c;
            IF bad_bucket THEN
                RAISE EXCEPTION 'bitmapd: a bucket row of a family that is off'
                    USING ERRCODE = 'BMB02', HINT = 'bitmapd --buckets in FAMILY moves a family into buckets';
            END IF;
            IF bad_own THEN
                RAISE EXCEPTION 'bitmapd: a row of its own for a key whose family is in buckets'
                    USING ERRCODE = 'BMB02', HINT = 'bitmapd --buckets out FAMILY moves a family out of buckets';
            END IF;
        END IF;
    END IF;
    IF alone AND nrows > 0 THEN
        PERFORM pg_notify('bitmapd_changed', '!q:' || coalesce(current_setting('bitmapd.instance', true), ''));
        RETURN NULL;
    END IF;
    IF payload IS NULL THEN -- no row, or a fold's
        RETURN NULL;
    END IF;
    IF octet_length(payload) <= 3500 THEN
        PERFORM pg_notify('bitmapd_changed', payload);
        RETURN NULL;
    END IF;
    -- longer: the payload's items (no comma in one) cut into notifications of about
    -- 3,500 bytes, as 0007 cut them
    PERFORM pg_notify('bitmapd_changed', string_agg(item, ',' ORDER BY ord))
       FROM (SELECT item, ord, sum(length(item) + 1) OVER (ORDER BY ord) / 3500 AS chunk
               FROM unnest(string_to_array(payload, ',')) WITH ORDINALITY AS s(item, ord)) t
      GROUP BY chunk;
    RETURN NULL;
END
$$;
