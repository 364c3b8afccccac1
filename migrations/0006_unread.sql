-- 0006: the scalars of seed 001's unread counts. Bitmaps (the global broadcast list
-- `broadcasts`, each user's followees `feed:following:{user}`) live in
-- bitmapd.bitmaps like every other bitmap; cursors, times, counters and snapshots
-- are plain numbers and live here, each changed by one atomic statement.

-- System notices: where each user stopped reading the global list. last_seen is a
-- broadcast id (0 .. 4294967295), or -1 for "recorded before any broadcast existed",
-- so that every later broadcast counts. A user with no row has never looked and
-- counts 0 unread (the seed's rule for new and long-inactive users).
CREATE TABLE bitmapd.broadcast_seen (
    user_id   bigint      PRIMARY KEY CHECK (user_id >= 0),
    last_seen bigint      NOT NULL CHECK (last_seen BETWEEN -1 AND 4294967295),
    seen_at   timestamptz NOT NULL DEFAULT now()
);
-- Clearing idle cursors walks the oldest first.
CREATE INDEX broadcast_seen_seen_at ON bitmapd.broadcast_seen (seen_at);

COMMENT ON TABLE bitmapd.broadcast_seen IS
  'Last-seen broadcast id per user (-1: none yet); rows idle past [broadcasts] cursor_ttl_days are cleared';

-- Red dots: a dot is "set" for everybody by one row; a user's click records which
-- setting they saw. Settings are numbered by a sequence, not by clocks, so service
-- instances with skewed clocks agree on what is newer than a click.
CREATE SEQUENCE bitmapd.reddot_seq AS bigint;

CREATE TABLE bitmapd.reddots (
    name   text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.:-]{1,64}$'),
    seq    bigint      NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bitmapd.reddot_clicks (
    user_id    bigint      NOT NULL CHECK (user_id >= 0),
    name       text        NOT NULL REFERENCES bitmapd.reddots (name) ON DELETE CASCADE,
    seq        bigint      NOT NULL,
    clicked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, name)
);
-- Deleting a dot cascades to its clicks.
CREATE INDEX reddot_clicks_name ON bitmapd.reddot_clicks (name);

COMMENT ON TABLE bitmapd.reddot_clicks IS
  'The reddots.seq each user last clicked; the dot shows while reddots.seq is greater';

-- Feed unread: posts per author, and per (user, followee) the author's post count
-- when the user last looked (or started following).
CREATE TABLE bitmapd.author_posts (
    author_id bigint PRIMARY KEY CHECK (author_id BETWEEN 0 AND 4294967295),
    posts     bigint NOT NULL CHECK (posts >= 0)
);

CREATE TABLE bitmapd.feed_snapshots (
    user_id   bigint NOT NULL CHECK (user_id >= 0),
    author_id bigint NOT NULL CHECK (author_id BETWEEN 0 AND 4294967295),
    posts     bigint NOT NULL CHECK (posts >= 0),
    PRIMARY KEY (user_id, author_id)
);

COMMENT ON TABLE bitmapd.feed_snapshots IS
  'Post count of each followee when the user last marked the feed seen (or followed); unread = posts - snapshot';
