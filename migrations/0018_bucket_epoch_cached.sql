-- 0018: bitmapd.bucket_epoch() without a plan made per transaction.
--
-- 0016's bitmapd._bucket_epoch_check(), which the statement trigger of bitmapd.wlog
-- runs before each append, reads the epoch through bitmapd.bucket_epoch(). In
-- LANGUAGE sql, with an aggregate, PostgreSQL cannot inline that body, so it parsed
-- and planned it again in every transaction (a plan of a SQL function lives only as
-- long as the expression that called it, and PL/pgSQL builds those anew per
-- transaction). A profile of the appending session (perf, 50 clients writing random
-- new keys) put 13% of its time in fmgr_sql under that trigger. In PL/pgSQL the
-- function keeps the plan of its query for the session, for every caller. Same
-- answer, same snapshot (STABLE: the caller's).

CREATE OR REPLACE FUNCTION bitmapd.bucket_epoch() RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT coalesce(sum(gen), 0)::bigint FROM bitmapd.bucket_state);
END
$$;
