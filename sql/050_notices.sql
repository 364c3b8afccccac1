-- Announcements (seed 004), re-applied by every `bitmapd --migrate`.
-- A notice is the rows notice:{id}:audiences (its audience ids; the single member
-- 4294967295 while a delete of a version before 0011 was unfinished) and
-- notice:{id}:readers (user ids that read it); notice:audience:{aud} lists the live
-- notices of an audience, notice:audience:{aud}:users the audience's users when the
-- service was told them. Nothing is kept per user (migration 0011 removed the
-- notice:user:{u}:read and notice:{id}:preread rows). docs/notices.md describes the
-- protocol.

CREATE OR REPLACE FUNCTION bitmapd.notice_key(part text, n bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to(CASE part
                          WHEN 'audiences' THEN 'notice:' || n || ':audiences'
                          WHEN 'readers' THEN 'notice:' || n || ':readers'
                          WHEN 'audience' THEN 'notice:audience:' || n
                          WHEN 'audience_users' THEN 'notice:audience:' || n || ':users'
                      END, 'UTF8')
$$;

-- One row per notice, live or being deleted. The key range 'notice:0' … 'notice::'
-- holds exactly the keys notice:{digits}…, so this is an index range scan, never a
-- scan of the table; the pattern then keeps the canonical audiences keys.
DROP VIEW IF EXISTS bitmapd.notices;
CREATE VIEW bitmapd.notices AS
SELECT k.id,
       m.audiences,
       CASE WHEN m.deleting THEN 'deleting' ELSE 'live' END AS state,
       coalesce(r.cardinality, 0)                            AS readers,
       bitmapd.value_bytes(a.key, a.bits) + coalesce(bitmapd.value_bytes(r.key, r.bits), 0) AS bytes,
       a.version,
       greatest(a.updated_at, r.updated_at)                  AS updated_at
  FROM bitmapd.bitmaps a
 CROSS JOIN LATERAL (
       SELECT substring(encode(a.key, 'escape') FROM '^notice:(0|[1-9][0-9]{0,9}):audiences$')::bigint AS id) k
 CROSS JOIN LATERAL (
       SELECT coalesce(array_agg(x::integer ORDER BY x) FILTER (WHERE x < 65536), '{}') AS audiences,
              bool_or(x = 4294967295) AS deleting
         FROM bitmapd.members(bitmapd.value(a.key, a.bits)) AS x) m
  LEFT JOIN bitmapd.bitmaps r ON r.key = bitmapd.notice_key('readers', k.id)
 WHERE a.key >= convert_to('notice:0', 'UTF8') AND a.key < convert_to('notice::', 'UTF8')
   AND k.id <= 4294967295
   AND a.cardinality > 0;

COMMENT ON VIEW bitmapd.notices IS
  'Notices (seed 004): audiences, state live|deleting, readers, bytes of its two rows, version of the audiences row';

-- Members of the row stored under key (none if there is no such row).
CREATE OR REPLACE FUNCTION bitmapd._notice_members(k bytea) RETURNS SETOF bigint
LANGUAGE sql STABLE STRICT AS $$
    SELECT bitmapd.members(bitmapd.value(b.key, b.bits)) FROM bitmapd.bitmaps b WHERE b.key = k
$$;

-- Is user_id among the readers of notice n? Reads only the chunk that can hold the
-- user when the readers are chunked and have no flips pending.
CREATE OR REPLACE FUNCTION bitmapd.notice_read(n bigint, user_id bigint) RETURNS boolean
LANGUAGE sql STABLE STRICT AS $$
    SELECT coalesce((SELECT bitmapd.count_range(CASE WHEN octet_length(b.bits) > 0 THEN b.bits
                                                     WHEN b.flips IS NULL THEN c.bits
                                                     ELSE bitmapd.value(b.key, b.bits) END,
                                                user_id, user_id + 1) > 0
                       FROM bitmapd.bitmaps b
                       LEFT JOIN bitmapd.chunks c
                              ON octet_length(b.bits) = 0 AND b.flips IS NULL AND c.key = b.key
                             AND c.lo <= (user_id >> 16) AND (user_id >> 16) < c.hi
                      WHERE b.key = bitmapd.notice_key('readers', n)), false)
$$;

-- Ids of the live notices of an audience, newest first, with the user's read flag:
-- the listing of GET /v1/audiences/{aud}/users/{user}/notices?state=all. One look
-- into the readers of each notice.
CREATE OR REPLACE FUNCTION bitmapd.notice_list(audience integer, user_id bigint)
RETURNS TABLE (notice_id bigint, read boolean)
LANGUAGE sql STABLE STRICT AS $$
    SELECT a.id, bitmapd.notice_read(a.id, user_id)
      FROM bitmapd._notice_members(bitmapd.notice_key('audience', audience)) AS a(id)
     ORDER BY a.id DESC
$$;

-- How many live notices of the audience the user has not read (the seed's Lua
-- script, without scanning keys).
CREATE OR REPLACE FUNCTION bitmapd.notice_unread(audience integer, user_id bigint) RETURNS bigint
LANGUAGE sql STABLE STRICT AS $$
    SELECT count(*) FROM bitmapd.notice_list(audience, user_id) WHERE NOT read
$$;

-- One row per audience that has a notice index or known users.
CREATE OR REPLACE VIEW bitmapd.notice_audiences AS
SELECT p.audience,
       coalesce(i.cardinality, 0)                                AS live_notices,
       u.cardinality                                             AS users,
       coalesce(bitmapd.value_bytes(i.key, i.bits), 0) + coalesce(bitmapd.value_bytes(u.key, u.bits), 0) AS bytes
  FROM (SELECT DISTINCT substring(encode(key, 'escape')
                                  FROM '^notice:audience:(0|[1-9][0-9]{0,4})(?::users)?$')::integer AS audience
          FROM bitmapd.bitmaps
         WHERE key >= convert_to('notice:audience:', 'UTF8') AND key < convert_to('notice:audience;', 'UTF8')) p
  LEFT JOIN bitmapd.bitmaps i ON i.key = bitmapd.notice_key('audience', p.audience)
  LEFT JOIN bitmapd.bitmaps u ON u.key = bitmapd.notice_key('audience_users', p.audience)
 WHERE p.audience <= 65535;

COMMENT ON VIEW bitmapd.notice_audiences IS
  'Per audience: live notices in its index, its known users (NULL: never set), bytes of both rows';
