-- Administration views of the message box (re-applied by every `bitmapd --migrate`).
-- A user's push and read bitmaps are the rows message:push:{user} and
-- message:read:{user} of bitmapd.bitmaps (the seed's Redis key names).

CREATE OR REPLACE FUNCTION bitmapd.inbox_key(kind text, user_id bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to('message:' || kind || ':' || user_id::text, 'UTF8')
$$;

-- Members of both bitmaps (decodes both: for administration, not hot paths).
CREATE OR REPLACE FUNCTION bitmapd.and_count(a bytea, b bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT count(*) FROM (SELECT bitmapd.members(a) INTERSECT ALL SELECT bitmapd.members(b)) both_sets
$$;

-- Users that have a push or read row, with the numeric user id recovered from the key.
CREATE OR REPLACE VIEW bitmapd.inbox_user_ids AS
SELECT DISTINCT substr(encode(key, 'escape'), 14)::bigint AS user_id
  FROM bitmapd.bitmaps
 WHERE key >= convert_to('message:push:', 'UTF8') AND key < convert_to('message:read;', 'UTF8')
   AND (key < convert_to('message:push;', 'UTF8') OR key >= convert_to('message:read:', 'UTF8'))
   AND substr(encode(key, 'escape'), 14) ~ '^[0-9]{1,19}$';

-- One row per user. read counts read marks of pushed messages, so unread is
-- always pushed minus read (a forced mark of a never-pushed message is not counted).
-- The key range repeated in each join to bitmapd.bitmaps (and in the two below) is for
-- the planner: it may compute the decoding expressions in the scan of the table, before
-- the join (a hash join over a partitioned table, bitmapd.partition_bitmaps, did), and
-- then only rows of the range are decoded, never a bucket row or another family's key.
CREATE OR REPLACE VIEW bitmapd.inbox_users AS
SELECT u.user_id,
       coalesce(p.cardinality, 0)                                        AS pushed,
       rd.read,
       coalesce(p.cardinality, 0) - rd.read                              AS unread,
       bitmapd.max_member(bitmapd.value_tail(p.key, p.bits))                                        AS last_message,
       coalesce(p.version, 0) + coalesce(r.version, 0)                   AS version,
       coalesce(bitmapd.value_bytes(p.key, p.bits), 0) + coalesce(bitmapd.value_bytes(r.key, r.bits), 0) AS bytes,
       greatest(p.updated_at, r.updated_at)                              AS updated_at
  FROM bitmapd.inbox_user_ids u
  LEFT JOIN bitmapd.bitmaps p ON p.key = bitmapd.inbox_key('push', u.user_id)
                         AND p.key >= convert_to('message:push:', 'UTF8') AND p.key < convert_to('message:push;', 'UTF8')
  LEFT JOIN bitmapd.bitmaps r ON r.key = bitmapd.inbox_key('read', u.user_id)
                         AND r.key >= convert_to('message:read:', 'UTF8') AND r.key < convert_to('message:read;', 'UTF8')
  CROSS JOIN LATERAL (
      SELECT CASE WHEN coalesce(r.cardinality, 0) = 0 OR coalesce(p.cardinality, 0) = 0 THEN 0
                  ELSE bitmapd.and_count(bitmapd.value(p.key, p.bits), bitmapd.value(r.key, r.bits)) END AS read) rd;

COMMENT ON VIEW bitmapd.inbox_users IS
  'Message box per user; filter by user_id for one user (the view scans all message:* keys)';

-- Periods with their id ranges: period P holds ids in [first_message, next_first_message).
CREATE OR REPLACE VIEW bitmapd.inbox_period_ranges AS
SELECT period, first_message,
       coalesce(lead(first_message) OVER (ORDER BY period), 4294967296) AS next_first_message
  FROM bitmapd.inbox_periods;

-- Per-user, per-period counts (push records and read marks with ids in the period).
CREATE OR REPLACE FUNCTION bitmapd.inbox_user_periods(p_user bigint)
RETURNS TABLE (period text, first_message bigint, pushed bigint, read bigint)
LANGUAGE sql STABLE AS $$
    SELECT pr.period, pr.first_message,
           coalesce(bitmapd.count_range(bitmapd.value(p.key, p.bits), pr.first_message, pr.next_first_message), 0),
           coalesce(bitmapd.count_range(bitmapd.value(r.key, r.bits), pr.first_message, pr.next_first_message), 0)
      FROM bitmapd.inbox_period_ranges pr
      LEFT JOIN bitmapd.bitmaps p ON p.key = bitmapd.inbox_key('push', p_user)
                         AND p.key >= convert_to('message:push:', 'UTF8') AND p.key < convert_to('message:push;', 'UTF8')
      LEFT JOIN bitmapd.bitmaps r ON r.key = bitmapd.inbox_key('read', p_user)
                         AND r.key >= convert_to('message:read:', 'UTF8') AND r.key < convert_to('message:read;', 'UTF8')
     ORDER BY pr.period
$$;

-- Per-period totals over all users: users with pushes in the period, push records, read marks.
CREATE OR REPLACE VIEW bitmapd.inbox_period_stats AS
SELECT pr.period, pr.first_message, pr.next_first_message,
       count(*) FILTER (WHERE c.pushed > 0) AS users,
       coalesce(sum(c.pushed), 0)::bigint   AS pushed,
       coalesce(sum(c.read), 0)::bigint     AS read
  FROM bitmapd.inbox_period_ranges pr
  LEFT JOIN LATERAL (
      SELECT bitmapd.count_range(bitmapd.value(p.key, p.bits), pr.first_message, pr.next_first_message) AS pushed,
             coalesce(bitmapd.count_range(bitmapd.value(r.key, r.bits), pr.first_message, pr.next_first_message), 0) AS read
        FROM bitmapd.inbox_user_ids u
        JOIN bitmapd.bitmaps p ON p.key = bitmapd.inbox_key('push', u.user_id)
                         AND p.key >= convert_to('message:push:', 'UTF8') AND p.key < convert_to('message:push;', 'UTF8')
        LEFT JOIN bitmapd.bitmaps r ON r.key = bitmapd.inbox_key('read', u.user_id)
                         AND r.key >= convert_to('message:read:', 'UTF8') AND r.key < convert_to('message:read;', 'UTF8')) c ON true
 GROUP BY pr.period, pr.first_message, pr.next_first_message
 ORDER BY pr.period;
