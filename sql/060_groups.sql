-- 060_groups: group read receipts (seed 001): joining and leaving the member map,
-- and the views of members and of message receipts. Re-applied by every
-- `bitmapd --migrate` (CREATE OR REPLACE only). Tables: migrations/0005_groups.sql.
--
-- A group message's receipts are the row group:{g}:msg:{m} of bitmapd.bitmaps, one
-- bitmap with two planes over the member ids k: bit 2k = k was a member (not left,
-- not the sender) when the message was sent, bit 2k+1 = k has read it. The sender s
-- is marked by bit 2s+1 alone (the only odd bit without its even partner), so a
-- recorded message is never empty. See docs/receipts.md.

-- Joins user u to group g, race-free under any number of concurrent joins:
--   'joined'   a new dense member id (the group's next one);
--   'rejoined' the user had left: the old id back, left_at cleared;
--   'member'   already a member: the id, nothing changed;
--   'full'     the group already gave out `max` ids (member_id NULL).
-- Every join of a group first locks the group's counter row (creating it on the
-- first join: two first joins at once serialise on the INSERT, and the second then
-- finds the row committed), so no two joins of one group look at the members at once.
CREATE OR REPLACE FUNCTION bitmapd.group_join(g bigint, u bigint, max integer)
RETURNS TABLE (member_id integer, result text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    next_id integer;
    old_id integer;
    old_left timestamptz;
BEGIN
    INSERT INTO bitmapd.group_counters AS c (group_id, next_member_id) VALUES (g, 0)
        ON CONFLICT (group_id) DO NOTHING;
    SELECT c.next_member_id INTO STRICT next_id
      FROM bitmapd.group_counters c WHERE c.group_id = g FOR UPDATE;
    SELECT m.member_id, m.left_at INTO old_id, old_left
      FROM bitmapd.group_members m WHERE m.group_id = g AND m.user_id = u;
    IF FOUND THEN
        IF old_left IS NULL THEN
            RETURN QUERY SELECT old_id, 'member'::text;
        ELSE
            UPDATE bitmapd.group_members m SET left_at = NULL, joined_at = now()
             WHERE m.group_id = g AND m.user_id = u;
            RETURN QUERY SELECT old_id, 'rejoined'::text;
        END IF;
        RETURN;
    END IF;
    IF next_id >= max THEN
        RETURN QUERY SELECT NULL::integer, 'full'::text;
        RETURN;
    END IF;
    INSERT INTO bitmapd.group_members (group_id, user_id, member_id) VALUES (g, u, next_id);
    UPDATE bitmapd.group_counters c SET next_member_id = next_id + 1 WHERE c.group_id = g;
    RETURN QUERY SELECT next_id, 'joined'::text;
END $$;

COMMENT ON FUNCTION bitmapd.group_join(bigint, bigint, integer) IS
  'Joins a user to a group: (member_id, joined|rejoined|member), or (NULL, full) past max ids';

-- Marks user u as having left group g (a tombstone: the row and its id stay).
-- No row: u was never a member. left_now is false when u had already left
-- (leaving twice keeps the first left_at).
CREATE OR REPLACE FUNCTION bitmapd.group_leave(g bigint, u bigint)
RETURNS TABLE (member_id integer, left_now boolean)
LANGUAGE sql VOLATILE AS $$
    WITH upd AS (
        UPDATE bitmapd.group_members m SET left_at = now()
         WHERE m.group_id = g AND m.user_id = u AND m.left_at IS NULL
        RETURNING m.member_id)
    SELECT upd.member_id, true FROM upd
    UNION ALL
    SELECT m.member_id, false FROM bitmapd.group_members m
     WHERE m.group_id = g AND m.user_id = u AND NOT EXISTS (SELECT 1 FROM upd)
$$;

COMMENT ON FUNCTION bitmapd.group_leave(bigint, bigint) IS
  'Marks a member as left (tombstone); no row when the user was never a member';

-- The key of a group message's receipts row.
CREATE OR REPLACE FUNCTION bitmapd.group_receipt_key(g bigint, m bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to('group:' || g::text || ':msg:' || m::text, 'UTF8')
$$;

-- (group_id, message_id) of a key group:{g}:msg:{m} as the service writes it
-- (plain decimal, no leading zero, within bigint); NULLs for any other key.
CREATE OR REPLACE FUNCTION bitmapd._group_receipt_ids(k bytea, OUT group_id bigint, OUT message_id bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    p text[];
BEGIN
    p := regexp_match(encode(k, 'escape'), '^group:(0|[1-9][0-9]{0,18}):msg:(0|[1-9][0-9]{0,18})$');
    IF p IS NULL OR p[1]::numeric > 9223372036854775807 OR p[2]::numeric > 9223372036854775807 THEN
        RETURN;
    END IF;
    group_id := p[1]::bigint;
    message_id := p[2]::bigint;
END $$;

-- Counts of one receipts bitmap: eligible = even members, read = odd members whose
-- even partner is set, and the sender's member id (the first odd member alone).
CREATE OR REPLACE FUNCTION bitmapd.group_receipt_counts(bits bytea,
    OUT eligible bigint, OUT read bigint, OUT sender_member_id integer)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT count(*) FILTER (WHERE s.m % 2 = 0),
           count(*) FILTER (WHERE s.m % 2 = 1 AND s.prev = s.m - 1),
           (min(s.m) FILTER (WHERE s.m % 2 = 1 AND s.prev IS DISTINCT FROM s.m - 1) / 2)::integer
      FROM (SELECT t.m, lag(t.m) OVER (ORDER BY t.m) AS prev FROM bitmapd.members(bits) AS t(m)) s
$$;

COMMENT ON FUNCTION bitmapd.group_receipt_counts(bytea) IS
  'Eligible and read counts and the sender member id of a group message receipts bitmap';

-- Receipts of the group messages whose keys lie in [lo, hi). An inlinable SQL
-- function: filters on the view below are applied before anything is decoded.
CREATE OR REPLACE FUNCTION bitmapd._group_receipts(lo bytea, hi bytea)
RETURNS TABLE (group_id bigint, message_id bigint, eligible bigint, read bigint, unread bigint,
               sender_member_id integer, sender_user_id bigint, bytes bigint, version bigint,
               updated_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT r.group_id, r.message_id, c.eligible, c.read, c.eligible - c.read,
           c.sender_member_id, s.user_id, r.bytes, r.version, r.updated_at
      FROM (SELECT ids.group_id, ids.message_id, bitmapd.value(b.key, b.bits) AS bits, bitmapd.value_bytes(b.key, b.bits)::bigint AS bytes,
                   b.version, b.updated_at
              FROM bitmapd._values_in(lo, hi) b
             CROSS JOIN LATERAL bitmapd._group_receipt_ids(b.key) ids
             WHERE b.cardinality > 0 AND ids.group_id IS NOT NULL) r
     CROSS JOIN LATERAL bitmapd.group_receipt_counts(r.bits) c
      LEFT JOIN bitmapd.group_members s ON s.group_id = r.group_id AND s.member_id = c.sender_member_id
$$;

-- One row per recorded group message. bytes is the stored bitmap alone; for the
-- whole cost of a row (header, key, index entries) see docs/receipts.md.
CREATE OR REPLACE VIEW bitmapd.group_receipts AS
SELECT * FROM bitmapd._group_receipts(convert_to('group:', 'UTF8'), convert_to('group;', 'UTF8'));

COMMENT ON VIEW bitmapd.group_receipts IS
  'Read receipts per group message: eligible (members at send time minus the sender), read, unread; decodes every message of every group; for one group use bitmapd.group_receipts_of(g), which reads only that group''s keys (a WHERE group_id = … on the view still scans them all)';

-- The receipts of one group, reading only that group's key range.
CREATE OR REPLACE FUNCTION bitmapd.group_receipts_of(g bigint) RETURNS SETOF bitmapd.group_receipts
LANGUAGE sql STABLE AS $$
    SELECT * FROM bitmapd._group_receipts(convert_to('group:' || g::text || ':msg:', 'UTF8'),
                                          convert_to('group:' || g::text || ':msg;', 'UTF8'))
$$;

CREATE OR REPLACE VIEW bitmapd.group_member_map AS
SELECT group_id, user_id, member_id, left_at IS NULL AS active, joined_at, left_at
  FROM bitmapd.group_members;

COMMENT ON VIEW bitmapd.group_member_map IS
  'Group member map: dense member id per (group, user); active = not left';
