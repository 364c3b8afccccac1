-- Administration of daily check-ins (re-applied by every `bitmapd --migrate`).
-- A user's check-ins are the row checkin:{user} of bitmapd.bitmaps, one row for all
-- time. Its members are day numbers: days since 1970-01-01, of the dates in the
-- check-in time zone ([checkin] time_zone), so member 0 is 1970-01-01 and
-- 2932896 is 9999-12-31. Members outside that range can only come from RESP
-- writes (SETBIT checkin:42 4000000000 1); they are not dates and are skipped here.

CREATE OR REPLACE FUNCTION bitmapd.checkin_key(user_id bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to('checkin:' || user_id::text, 'UTF8')
$$;

-- The date of a day number; NULL when it is not one of 1970-01-01 … 9999-12-31.
CREATE OR REPLACE FUNCTION bitmapd.checkin_date(day bigint) RETURNS date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN day BETWEEN 0 AND 2932896 THEN date '1970-01-01' + day::integer END
$$;

-- The day number of a date (what GETBIT checkin:{user} <day> takes over RESP).
CREATE OR REPLACE FUNCTION bitmapd.checkin_day(d date) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (d - date '1970-01-01')::bigint
$$;

-- Every date user_id checked in, ascending (an index look-up of one row).
CREATE OR REPLACE FUNCTION bitmapd.checkin_days(user_id bigint) RETURNS SETOF date
LANGUAGE sql STABLE STRICT AS $$
    SELECT bitmapd.checkin_date(m)
      FROM bitmapd.value_of(bitmapd.checkin_key(user_id)) b
     CROSS JOIN LATERAL bitmapd.members(bitmapd.value(b.key, b.bits)) AS m
     WHERE m BETWEEN 0 AND 2932896
     ORDER BY m
$$;

-- The user id of a check-in key, or NULL when the key is not checkin:{canonical
-- decimal 0 … 2^63-1} (RESP may create any key name, such as checkin:007).
CREATE OR REPLACE FUNCTION bitmapd.checkin_user_of(key bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    digits text;
BEGIN
    IF length(key) < 9 OR length(key) > 27 OR substr(key, 1, 8) <> convert_to('checkin:', 'UTF8') THEN
        RETURN NULL;
    END IF;
    digits := encode(substr(key, 9), 'escape');
    IF digits !~ '^(0|[1-9][0-9]{0,18})$' OR digits::numeric > 9223372036854775807 THEN
        RETURN NULL;
    END IF;
    RETURN digits::bigint;
END $$;

-- One row per check-in row whose key lies in [lo, hi): the body of the view below
-- and of checkins_of(), so that a look-up of one user reads one row.
CREATE OR REPLACE FUNCTION bitmapd._checkins(lo bytea, hi bytea)
RETURNS TABLE (user_id bigint, days bigint, first_day date, last_day date, bytes bigint,
               version bigint, updated_at timestamptz)
LANGUAGE sql STABLE STRICT AS $$
SELECT u.user_id,
       coalesce(r.days, 0),
       bitmapd.checkin_date(r.first_member),
       bitmapd.checkin_date(r.last_member),
       bitmapd.value_bytes(b.key, b.bits)::bigint,
       b.version,
       b.updated_at
  FROM bitmapd._values_in(lo, hi) b
 CROSS JOIN LATERAL (SELECT bitmapd.checkin_user_of(b.key) AS user_id) u
  LEFT JOIN LATERAL (SELECT count(*) AS days, min(m) AS first_member, max(m) AS last_member
                       FROM bitmapd.members(bitmapd.value(b.key, b.bits)) AS m
                      WHERE m BETWEEN 0 AND 2932896) r ON true
 WHERE u.user_id IS NOT NULL
$$;

-- One row per user with a check-in row. Without a filter it decodes every check-in
-- row (about 50 bytes a user-year); for one user use bitmapd.checkins_of(user_id),
-- which reads one row (a WHERE user_id = … on the view still scans every key).
DROP VIEW IF EXISTS bitmapd.checkins CASCADE;
CREATE VIEW bitmapd.checkins AS
SELECT * FROM bitmapd._checkins(convert_to('checkin:', 'UTF8'), convert_to('checkin;', 'UTF8'));

-- The row of bitmapd.checkins for one user (an index look-up).
CREATE OR REPLACE FUNCTION bitmapd.checkins_of(user_id bigint) RETURNS SETOF bitmapd.checkins
LANGUAGE sql STABLE STRICT AS $$
    SELECT * FROM bitmapd._checkins(bitmapd.checkin_key(user_id),
                                    bitmapd.checkin_key(user_id) || '\x00'::bytea)
$$;

COMMENT ON VIEW bitmapd.checkins IS
  'Daily check-ins per user (row checkin:{user}): days checked in, first and last date, stored bytes, version';
COMMENT ON FUNCTION bitmapd.checkin_days(bigint) IS
  'Dates a user checked in, ascending (day numbers of row checkin:{user} as dates)';
