-- Announcements (seed 004), re-applied by every `bitmapd --migrate`.
-- A notice is the rows notice:{id}:audiences (its audience ids; the single member
-- 4294967295 while a delete runs), notice:{id}:readers (user ids that read it) and
-- notice:{id}:preread (preread users whose read bits are not written yet: empty
-- unless a create's preread is unfinished);
-- notice:audience:{aud} lists the live notices of an audience, notice:user:{u}:read
-- the notices user u read, notice:audience:{aud}:users the audience's users when the
-- service was told them. docs/notices.md describes the protocol.

CREATE OR REPLACE FUNCTION bitmapd.notice_key(part text, n bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to(CASE part
                          WHEN 'audiences' THEN 'notice:' || n || ':audiences'
                          WHEN 'readers' THEN 'notice:' || n || ':readers'
                          WHEN 'preread' THEN 'notice:' || n || ':preread'
                          WHEN 'audience' THEN 'notice:audience:' || n
                          WHEN 'user_read' THEN 'notice:user:' || n || ':read'
                          WHEN 'audience_users' THEN 'notice:audience:' || n || ':users'
                      END, 'UTF8')
$$;

-- One row per notice, live or being deleted. The key range 'notice:0' … 'notice::'
-- holds exactly the keys notice:{digits}…, so this is an index range scan, never a
-- scan of the table; the pattern then keeps the canonical audiences keys.
-- preread_pending > 0: a create's preread is unfinished (a repeated POST finishes it).
DROP VIEW IF EXISTS bitmapd.notices;
CREATE VIEW bitmapd.notices AS
SELECT k.id,
       m.audiences,
       CASE WHEN m.deleting THEN 'deleting' ELSE 'live' END AS state,
       coalesce(r.cardinality, 0)                            AS readers,
       coalesce(p.cardinality, 0)                            AS preread_pending,
       bitmapd.value_bytes(a.key, a.bits) + coalesce(bitmapd.value_bytes(r.key, r.bits), 0) + coalesce(bitmapd.value_bytes(p.key, p.bits), 0) AS bytes,
       a.version,
       greatest(a.updated_at, r.updated_at, p.updated_at)    AS updated_at
  FROM bitmapd.bitmaps a
 CROSS JOIN LATERAL (
       SELECT substring(encode(a.key, 'escape') FROM '^notice:(0|[1-9][0-9]{0,9}):audiences$')::bigint AS id) k
 CROSS JOIN LATERAL (
       SELECT coalesce(array_agg(x::integer ORDER BY x) FILTER (WHERE x < 65536), '{}') AS audiences,
              bool_or(x = 4294967295) AS deleting
         FROM bitmapd.members(bitmapd.value(a.key, a.bits)) AS x) m
  LEFT JOIN bitmapd.bitmaps r ON r.key = bitmapd.notice_key('readers', k.id)
  LEFT JOIN bitmapd.bitmaps p ON p.key = bitmapd.notice_key('preread', k.id)
 WHERE a.key >= convert_to('notice:0', 'UTF8') AND a.key < convert_to('notice::', 'UTF8')
   AND k.id <= 4294967295
   AND a.cardinality > 0;

COMMENT ON VIEW bitmapd.notices IS
  'Notices (seed 004): audiences, state live|deleting, readers, preread users still pending, bytes of the three rows, version of the audiences row';

-- Members of the row stored under key (none if there is no such row).
CREATE OR REPLACE FUNCTION bitmapd._notice_members(k bytea) RETURNS SETOF bigint
LANGUAGE sql STABLE STRICT AS $$
    SELECT bitmapd.members(bitmapd.value(b.key, b.bits)) FROM bitmapd.bitmaps b WHERE b.key = k
$$;

-- Ids of the live notices of an audience, newest first, with the user's read flag:
-- the listing of GET /v1/audiences/{aud}/users/{user}/notices?state=all.
CREATE OR REPLACE FUNCTION bitmapd.notice_list(audience integer, user_id bigint)
RETURNS TABLE (notice_id bigint, read boolean)
LANGUAGE sql STABLE STRICT AS $$
    SELECT a.id, r.id IS NOT NULL
      FROM bitmapd._notice_members(bitmapd.notice_key('audience', audience)) AS a(id)
      LEFT JOIN bitmapd._notice_members(bitmapd.notice_key('user_read', user_id)) AS r(id) ON r.id = a.id
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
