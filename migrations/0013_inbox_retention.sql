-- 0013: the retention of the message box ([inbox] keep_months; docs/design.md,
-- "History by period"). One row: the bound below
-- which every box's ids have been dropped, and the claim of the instance dropping now
-- (so that several instances do the walk once). An instance claims the row by setting
-- running_until in the future, walks every box, then records the bound; a claim left
-- by an instance that stopped lapses at running_until.
CREATE TABLE bitmapd.inbox_retention (
    one            boolean     PRIMARY KEY DEFAULT true CHECK (one),
    applied_before bigint      NOT NULL DEFAULT 0,  -- ids below this are gone from every box
    applied_period text,                            -- the period whose first message that is
    finished_at    timestamptz,                     -- when that walk ended
    running_until  timestamptz,                     -- an instance walks until then (its claim)
    running_before bigint                           -- the bound it walks to
);
INSERT INTO bitmapd.inbox_retention DEFAULT VALUES;

COMMENT ON TABLE bitmapd.inbox_retention IS
  'Retention of message-box history ([inbox] keep_months): the bound applied to every box, and the claim of a walk in progress';
