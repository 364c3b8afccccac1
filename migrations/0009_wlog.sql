-- 0009: the write-behind log (docs/design.md, "Write-behind log").
-- An instance with `[write] log = on` that holds the lease acknowledges a batch of small
-- writes after one INSERT into bitmapd.wlog (the rows' new images, packed), and folds
-- them into bitmapd.bitmaps in the background, deleting the log rows it folded in the
-- same transaction. Until then the log is the truth for those keys.
--
-- The lease is the session-level advisory lock 7355609, taken by the holder on its
-- LISTEN connection, and the row of bitmapd.wlog_lease naming the holder's instance
-- token (every connection of an instance carries it as the setting bitmapd.instance).
-- Every statement that changes bitmapd.bitmaps passes bitmapd._wlog_guard() (from the
-- change trigger of 0007): it fails while another instance holds the lease, or while
-- no one does and the log still has rows (its holder stopped before folding them), so
-- no write can be based on rows that the log has overtaken.
CREATE TABLE bitmapd.wlog (
    seq    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    images bytea[] NOT NULL -- the batch's new rows, one packed image each (src/store_wlog.c)
);

COMMENT ON TABLE bitmapd.wlog IS
  'Write-behind log: acknowledged writes not yet folded into bitmapd.bitmaps; written only by bitmapd. SELECT bitmapd.wlog_fold() asks the holder to fold it.';

CREATE TABLE bitmapd.wlog_lease (
    one    boolean PRIMARY KEY DEFAULT true CHECK (one),
    holder text    NOT NULL DEFAULT ''
);
INSERT INTO bitmapd.wlog_lease DEFAULT VALUES;

CREATE FUNCTION bitmapd._wlog_guard() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF pg_try_advisory_xact_lock_shared(7355609) THEN
        IF EXISTS (SELECT 1 FROM bitmapd.wlog) THEN
            RAISE EXCEPTION 'bitmapd: the write-behind log holds writes not folded yet'
                USING ERRCODE = 'BMW02',
                      HINT = 'a bitmapd instance folds it when it next writes; or SELECT bitmapd.wlog_fold() and retry';
        END IF;
    ELSIF current_setting('bitmapd.instance', true) IS DISTINCT FROM
          (SELECT holder FROM bitmapd.wlog_lease) THEN
        RAISE EXCEPTION 'bitmapd: a bitmapd instance holds the write-behind log'
            USING ERRCODE = 'BMW01',
                  HINT = 'SELECT bitmapd.wlog_fold() asks it to fold and let go; then retry';
    END IF;
END
$$;

-- Asks the holder of the lease (if any) to fold everything and let go for a while
-- ([write] log_cooldown_s); without a holder, the next bitmapd write folds the log.
CREATE FUNCTION bitmapd.wlog_fold() RETURNS void
LANGUAGE sql AS $$ SELECT pg_notify('bitmapd_changed', '!fold') $$;

-- 0007's change trigger, with the guard first.
CREATE OR REPLACE FUNCTION bitmapd._bitmaps_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bitmapd._wlog_guard();
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
