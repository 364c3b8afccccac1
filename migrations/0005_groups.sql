-- 0005: the member map of group read receipts (seed 001).
-- Every member of a group gets a dense member id (0, 1, 2, … in join order) that
-- indexes the two planes of the group's message receipts (bit 2k eligible, bit
-- 2k+1 read; see docs/receipts.md). Leaving is a tombstone (left_at), never a
-- deleted row: stored receipts must still map member ids to users, and a user who
-- rejoins gets the old id back. Ids are never reused.
-- Written only through bitmapd.group_join (sql/060_groups.sql) and the leave
-- statement of the service.
CREATE TABLE bitmapd.group_members (
    group_id  bigint      NOT NULL CHECK (group_id >= 0),
    user_id   bigint      NOT NULL CHECK (user_id >= 0),
    member_id integer     NOT NULL CHECK (member_id >= 0),
    joined_at timestamptz NOT NULL DEFAULT now(), -- start of the current (or last) membership
    left_at   timestamptz NULL,                   -- NULL: a member now
    PRIMARY KEY (group_id, user_id),
    UNIQUE (group_id, member_id)
);

-- The next member id of each group. Its row is also the lock that serialises the
-- joins of one group (bitmapd.group_join locks it before looking at members).
CREATE TABLE bitmapd.group_counters (
    group_id       bigint  PRIMARY KEY CHECK (group_id >= 0),
    next_member_id integer NOT NULL CHECK (next_member_id >= 0)
);

COMMENT ON TABLE bitmapd.group_members IS
  'Group member map: user -> dense member id per group; left_at is a tombstone, rows are never deleted';
COMMENT ON TABLE bitmapd.group_counters IS
  'Next dense member id per group; locked by bitmapd.group_join';
