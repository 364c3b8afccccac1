-- 0018: the bucket epoch check of every append to the write-behind log without a
-- plan made per transaction.
--
-- 0016's bitmapd._bucket_epoch_check(), which the statement trigger of bitmapd.wlog
-- runs before each append, read the epoch through bitmapd.bucket_epoch(): a function
-- in LANGUAGE sql whose body (an aggregate) PostgreSQL cannot inline, so it parsed
-- and planned that body again in every transaction (a plan of a SQL function lives
-- only as long as the expression that called it, and PL/pgSQL builds those anew per
-- transaction). A profile of the appending session (perf, 50 clients writing random
-- new keys) put 13% of its time in fmgr_sql under that trigger. PL/pgSQL keeps the plan
-- of its own queries for the session, so the check reads bitmapd.bucket_state itself.
-- Same outcome, same error. bitmapd.bucket_epoch() stays, for psql and bitmapd's own
-- reads of the state, which are rare.

CREATE OR REPLACE FUNCTION bitmapd._bucket_epoch_check() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    epoch bigint;
BEGIN
    SELECT coalesce(sum(gen), 0)::bigint INTO epoch FROM bitmapd.bucket_state;
    IF epoch > 0 AND current_setting('bitmapd.bucket_epoch', true) IS DISTINCT FROM epoch::text THEN
        RAISE EXCEPTION 'bitmapd: keys of a family are moving between row layouts (bucket epoch %), and this session acts on epoch %',
                        epoch, coalesce(nullif(current_setting('bitmapd.bucket_epoch', true), ''), 'none')
            USING ERRCODE = 'BMB01',
                  HINT = 'bitmapd instances follow within a second; write keys of checkin: and group:…:msg: through bitmapd';
    END IF;
END
$$;
