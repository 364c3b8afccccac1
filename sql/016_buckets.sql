-- Bucket rows in SQL (re-applied by every `bitmapd --migrate`): the names of the two
-- families and the reader of a bucket's bits, as src/store/bucket.h defines them, so
-- that psql sees the keys a bucket holds (tests/integration/test_sql_buckets.sh
-- checks that C and SQL agree on every name and every value). migrations/0015 says
-- what a bucket is, 0016 how a family's keys move in and out (bitmapd --buckets).
--
-- The reader checks a bucket's structure, as bitmapd.members() checks a bitmap's,
-- but not the members' CRC-32C checksums (SQL has no CRC-32C; bitmapd checks them
-- on every load).

-- (family, bucket name, slot) of a member key: checkin:{user} (family 1) or
-- group:{g}:msg:{m} (family 2), every id a canonical decimal 0 … 2^63-1; NULLs for
-- any other key, which keeps a row of its own.
CREATE OR REPLACE FUNCTION bitmapd.bucket_of(key bytea, OUT family smallint, OUT bucket_key bytea, OUT slot integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    u bigint;
    g bigint;
BEGIN
    u := bitmapd.checkin_user_of(key);
    IF u IS NOT NULL THEN
        family := 1;
        bucket_key := convert_to('checkin:~' || (u >> 4), 'UTF8');
        slot := (u & 15)::integer;
        RETURN;
    END IF;
    SELECT i.group_id, i.message_id INTO g, u FROM bitmapd._group_receipt_ids(key) i;
    IF u IS NOT NULL THEN
        family := 2;
        bucket_key := convert_to(format('group:%s:msg:~%s', g, u >> 4), 'UTF8');
        slot := (u & 15)::integer;
    END IF;
END $$;

-- (family, the members' name prefix, bucket number) of a bucket name; NULLs for any
-- other key. Bucket names are reserved: RESP refuses them as keys.
CREATE OR REPLACE FUNCTION bitmapd._bucket_name(key bytea, OUT family smallint, OUT prefix text, OUT num bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    p text[];
BEGIN
    -- 2^63-1 >> 4 = 576460752303423487: 18 digits at most
    p := regexp_match(encode(key, 'escape'), '^(checkin:)~(0|[1-9][0-9]{0,17})$');
    IF p IS NULL THEN
        p := regexp_match(encode(key, 'escape'), '^(group:(?:0|[1-9][0-9]{0,18}):msg:)~(0|[1-9][0-9]{0,17})$');
        IF p IS NULL OR substr(p[1], 7, length(p[1]) - 11)::numeric > 9223372036854775807 THEN
            RETURN;
        END IF;
        family := 2;
    ELSE
        family := 1;
    END IF;
    IF p[2]::numeric > 576460752303423487 THEN
        family := NULL;
        RETURN;
    END IF;
    prefix := p[1];
    num := p[2]::bigint;
END $$;

-- The family whose bucket name key is, or NULL.
CREATE OR REPLACE FUNCTION bitmapd.bucket_family_of(key bytea) RETURNS smallint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (bitmapd._bucket_name(key)).family
$$;

-- The member key of slot (0 … 15) in bucket bucket_key, or NULL.
CREATE OR REPLACE FUNCTION bitmapd.bucket_member_key(bucket_key bytea, slot integer) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT convert_to(n.prefix || ((n.num << 4) | slot), 'UTF8')
      FROM bitmapd._bucket_name(bucket_key) n
     WHERE n.family IS NOT NULL AND slot BETWEEN 0 AND 15
$$;

-- A bucket that breaks its layout: 22P03, or (quiet) true, so that the reader returns
-- no row at all (it has returned none yet: it checks everything first).
CREATE OR REPLACE FUNCTION bitmapd._bucket_bad(quiet boolean, msg text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF NOT quiet THEN
        PERFORM bitmapd._malformed(msg);
    END IF;
    RETURN true;
END $$;

-- The reader of _bucket_entries and _bucket_entries_safe (below).
CREATE OR REPLACE FUNCTION bitmapd._bucket_read(bits bytea, quiet boolean)
RETURNS TABLE (family smallint, slot integer, stub boolean, version bigint, cardinality bigint, nbytes bigint,
               expire_ms bigint, value bytea)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    total integer;
    pos integer;
    n integer;
    i integer;
    f integer;
    k integer;
    b integer;
    v bigint;
    flags integer;
    prev integer := -1;
    fields bigint[];
    limits numeric[] := ARRAY[9223372036854775807, 4294967296, 4294967295, 536870912];
    names text[] := ARRAY['version', 'cardinality', 'length', 'string length'];
    widths integer[] := ARRAY[9, 5, 5, 5];
    slots integer[] := '{}';
    stubs boolean[] := '{}';
    vers bigint[] := '{}';
    cards bigint[] := '{}';
    lens bigint[] := '{}';
    nbs bigint[] := '{}';
    exps bigint[] := '{}';
    vals bigint := 0;
    x numeric;
BEGIN
    bits := bits || ''::bytea;  -- detoast once
    total := length(bits);
    IF total < 3 OR get_byte(bits, 0) <> 179 THEN
        IF bitmapd._bucket_bad(quiet, 'not a bucket (first byte 0xB3, family, count)') THEN RETURN; END IF;
    END IF;
    family := get_byte(bits, 1);
    IF family NOT IN (1, 2) THEN
        IF bitmapd._bucket_bad(quiet, format('bucket of unknown family %s', family)) THEN RETURN; END IF;
    END IF;
    n := get_byte(bits, 2);
    IF n > 16 THEN
        IF bitmapd._bucket_bad(quiet, format('bucket count %s above 16', n)) THEN RETURN; END IF;
    END IF;
    pos := 3;
    FOR i IN 0 .. n - 1 LOOP
        IF pos + 2 > total THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: truncated', i)) THEN RETURN; END IF;
        END IF;
        slot := get_byte(bits, pos);
        flags := get_byte(bits, pos + 1);
        pos := pos + 2;
        IF slot > 15 OR slot <= prev THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: slot %s out of order or above 15', i, slot)) THEN RETURN; END IF;
        END IF;
        prev := slot;
        IF flags & ~7 <> 0 OR (flags & 4 <> 0 AND flags <> 4) THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: flags %s', i, flags)) THEN RETURN; END IF;
        END IF;
        fields := ARRAY[0, 0, 0, -1]::bigint[];
        FOR f IN 1 .. 4 LOOP
            CONTINUE WHEN (f IN (2, 3) AND flags = 4) OR (f = 4 AND flags & 2 = 0);
            v := 0;
            k := 0;
            LOOP
                IF pos >= total THEN
                    IF bitmapd._bucket_bad(quiet, format('bucket entry %s: truncated in its %s', i, names[f])) THEN RETURN; END IF;
                END IF;
                b := get_byte(bits, pos);
                pos := pos + 1;
                v := v | ((b & 127)::bigint << (7 * k));
                k := k + 1;
                EXIT WHEN b < 128;
                IF k = widths[f] THEN
                    IF bitmapd._bucket_bad(quiet, format('bucket entry %s: %s varint too long', i, names[f])) THEN RETURN; END IF;
                END IF;
            END LOOP;
            IF k > 1 AND b = 0 THEN
                IF bitmapd._bucket_bad(quiet, format('bucket entry %s: %s not a minimal varint', i, names[f])) THEN RETURN; END IF;
            END IF;
            IF v > limits[f] THEN
                IF bitmapd._bucket_bad(quiet, format('bucket entry %s: %s %s out of range', i, names[f], v)) THEN RETURN; END IF;
            END IF;
            fields[f] := v;
        END LOOP;
        IF (fields[2] = 0) <> (fields[3] = 0) THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: cardinality and length disagree on emptiness', i)) THEN RETURN; END IF;
        END IF;
        exps := exps || NULL::bigint;
        IF flags & 1 <> 0 THEN
            IF pos + 8 > total THEN
                IF bitmapd._bucket_bad(quiet, format('bucket entry %s: truncated in its deadline', i)) THEN RETURN; END IF;
            END IF;
            x := 0;
            FOR k IN REVERSE 7 .. 0 LOOP
                x := x * 256 + get_byte(bits, pos + k);
            END LOOP;
            IF x = 0 OR x > 9223372036854775807 THEN
                IF bitmapd._bucket_bad(quiet, format('bucket entry %s: deadline %s out of range', i, x)) THEN RETURN; END IF;
            END IF;
            exps[i + 1] := x::bigint;
            pos := pos + 8;
        END IF;
        IF pos + 4 > total THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: truncated in its checksum', i)) THEN RETURN; END IF;
        END IF;
        pos := pos + 4;
        slots := slots || slot;
        stubs := stubs || (flags = 4);
        vers := vers || fields[1];
        cards := cards || fields[2];
        lens := lens || fields[3];
        nbs := nbs || CASE WHEN fields[4] >= 0 THEN fields[4] END;
        vals := vals + fields[3];
        IF vals > total - pos THEN
            IF bitmapd._bucket_bad(quiet, format('bucket entry %s: values past the end of the bucket', i)) THEN RETURN; END IF;
        END IF;
    END LOOP;
    IF total - pos <> vals THEN
        IF bitmapd._bucket_bad(quiet, format('bucket of %s entries: %s bytes after the directory, where its entries have %s',
                                          n, total - pos, vals)) THEN RETURN; END IF;
    END IF;
    FOR i IN 1 .. n LOOP
        slot := slots[i];
        stub := stubs[i];
        version := vers[i];
        cardinality := cards[i];
        nbytes := nbs[i];
        expire_ms := exps[i];
        value := substr(bits, pos + 1, lens[i]::integer);
        pos := pos + lens[i]::integer;
        RETURN NEXT;
    END LOOP;
END $$;

-- The entries of a bucket's bits (src/store/bucket.h), slots ascending: each member's
-- version, cardinality, Redis string length (NULL: none), deadline (NULL: none) and
-- value (a codec encoding; empty bytes for the empty bitmap). A stub is a member that
-- lives in a row of its own (bucket = -family): version only. Raises 22P03 on bits
-- that break the layout.
CREATE OR REPLACE FUNCTION bitmapd._bucket_entries(bits bytea)
RETURNS TABLE (family smallint, slot integer, stub boolean, version bigint, cardinality bigint, nbytes bigint,
               expire_ms bigint, value bytea)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT * FROM bitmapd._bucket_read(bits, false)
$$;

-- The same, or nothing for bits that break the layout: for the statements that list
-- or count keys (SCAN, KEYS, DBSIZE, bitmapd.keys), which a damaged bucket must not
-- stop (reading one of its keys answers the error).
CREATE OR REPLACE FUNCTION bitmapd._bucket_entries_safe(bits bytea)
RETURNS TABLE (family smallint, slot integer, stub boolean, version bigint, cardinality bigint, nbytes bigint,
               expire_ms bigint, value bytea)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT * FROM bitmapd._bucket_read(bits, true)
$$;

COMMENT ON FUNCTION bitmapd._bucket_entries(bytea) IS
  'The members of a bucket row''s bits (src/store/bucket.h): slot, stub, version, cardinality, string length, deadline, value; raises 22P03 on malformed bits';


-- A bucket row's cardinality and nbytes summarise its members (src/store/bucket.h,
-- bucket_counts): how many are keys (expired ones too, until a write sheds them), and
-- how many of those have a deadline; NULL nbytes: not known (a row written before
-- bitmapd kept it). DBSIZE counts a row whose nbytes is 0 from its cardinality alone.
COMMENT ON TABLE bitmapd.bucket_state IS
  'Per family of keys (1 checkin:{user}, 2 group:{g}:msg:{m}): whether its keys live in bucket rows (off, moving_in, on, moving_out; bitmapd --buckets in|out FAMILY moves them), and a generation counted up at every change (their sum is the bucket epoch, migration 0016)';

COMMENT ON COLUMN bitmapd.bitmaps.cardinality IS
  'Members of the bitmap; in a bucket row (bucket > 0): how many of its members are keys (expired ones included until a write sheds them)';
COMMENT ON COLUMN bitmapd.bitmaps.nbytes IS
  'Length in bytes as a Redis string (0 .. 512 MB), NULL = as long as the highest member needs; in a bucket row (bucket > 0): how many of its keys have a deadline, NULL = not known';

-- Of the members of a bucket's bits that are keys at now_ms (not stubs, not deleted,
-- not past their deadline): how many, how many have a deadline, and the sum of their
-- deadlines minus now_ms (DBSIZE and INFO keyspace); then how many stubs (members in rows
-- of their own, counted there).
CREATE OR REPLACE FUNCTION bitmapd._bucket_live(bits bytea, now_ms bigint) RETURNS bigint[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ARRAY[count(*) FILTER (WHERE l), count(e.expire_ms) FILTER (WHERE l),
                 coalesce(sum(e.expire_ms - now_ms) FILTER (WHERE l), 0), count(*) FILTER (WHERE e.stub)]::bigint[]
      FROM bitmapd._bucket_entries_safe(bits) e
     CROSS JOIN LATERAL (SELECT NOT e.stub AND (e.cardinality > 0 OR e.nbytes IS NOT NULL)
                                AND (e.expire_ms IS NULL OR e.expire_ms > now_ms) AS l) x
$$;

-- Every key's value, wherever it is stored: the rows of single keys as they are, and
-- each member of a bucket row under its own key (with the bucket's updated_at, and the
-- empty bitmap's encoding for an empty member). Read keys here, not in
-- bitmapd.bitmaps, when a family may be in buckets; for one key use bitmapd.value_of().
CREATE OR REPLACE VIEW bitmapd.values AS
SELECT b.key, b.version, b.bits, b.cardinality, b.updated_at, b.nbytes, b.expire_ms, NULL::bytea AS bucket_key
  FROM bitmapd.bitmaps b
 WHERE b.bucket IS NULL OR b.bucket < 0
UNION ALL
SELECT bitmapd.bucket_member_key(b.key, e.slot), e.version, CASE WHEN e.value = '' THEN '\xb100'::bytea ELSE e.value END,
       e.cardinality, b.updated_at, e.nbytes, e.expire_ms, b.key
  FROM bitmapd.bitmaps b
 CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e
 WHERE b.bucket > 0 AND NOT e.stub
   AND e.family = b.bucket AND bitmapd.bucket_family_of(b.key) = b.bucket;  -- name, column and bits agree

COMMENT ON VIEW bitmapd.values IS
  'One row per stored key (deleted and expired ones included, as in bitmapd.bitmaps): its own row, or its entry in a bucket row (bucket_key); bits as bitmapd.value() reads them';

-- Key k's entry in its bucket row, as a row of bitmapd.values (none when k is not a
-- member of a family, or its bucket does not hold it).
CREATE OR REPLACE FUNCTION bitmapd._bucket_value_of(k bytea) RETURNS SETOF bitmapd.values
LANGUAGE sql STABLE STRICT AS $$
    SELECT k, e.version, CASE WHEN e.value = '' THEN '\xb100'::bytea ELSE e.value END, e.cardinality, b.updated_at,
           e.nbytes, e.expire_ms, b.key
      FROM bitmapd.bucket_of(k) r
     -- LATERAL (kept a subquery by its LIMIT): the bucket row is probed by its key
     -- whatever the statistics say. As a join, with bucket rows counted as none (an
     -- analyze before the family moved in), every bucket row was read and decoded
     -- once per key: 0.4 s a key at 2,500 buckets.
     CROSS JOIN LATERAL (SELECT x.key, x.bits, x.bucket, x.updated_at FROM bitmapd.bitmaps x
                          WHERE x.key = r.bucket_key AND x.bucket = r.family
                            AND x.bucket > 0 -- a scan-level condition: only bucket rows are parsed
                          LIMIT 1) b
     CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e
     WHERE e.slot = r.slot AND NOT e.stub AND e.family = b.bucket
$$;

-- The row of bitmapd.values for one key: one probe of its own row, one of its bucket.
-- While its family moves (migration 0016) a key may have both: its own row wins when it
-- holds a value, else its bucket entry, else its own row (one that says "no key"), as
-- bitmapd reads them.
CREATE OR REPLACE FUNCTION bitmapd.value_of(k bytea) RETURNS SETOF bitmapd.values
LANGUAGE sql STABLE STRICT AS $$
    SELECT key, version, bits, cardinality, updated_at, nbytes, expire_ms, bucket_key
      FROM (SELECT b.key, b.version, b.bits, b.cardinality, b.updated_at, b.nbytes, b.expire_ms, NULL::bytea AS bucket_key,
                   CASE WHEN b.cardinality = 0 AND b.nbytes IS NULL THEN 2 ELSE 0 END AS pref
              FROM bitmapd.bitmaps b
             WHERE b.key = k AND (b.bucket IS NULL OR b.bucket < 0)
            UNION ALL
            SELECT *, 1 FROM bitmapd._bucket_value_of(k)) v
     ORDER BY pref
     LIMIT 1
$$;

-- The rows of bitmapd.values whose keys lie in [lo, hi): the rows of single keys in
-- that range, and the members of the bucket rows in it. For the ranges the views
-- read: a family's whole prefix (checkin:, group:{g}:msg:), whose buckets lie inside
-- it, or one key ([k, k || 0x00)), whose bucket is found by its name.
CREATE OR REPLACE FUNCTION bitmapd._values_in(lo bytea, hi bytea) RETURNS SETOF bitmapd.values
LANGUAGE sql STABLE STRICT AS $$
    SELECT b.key, b.version, b.bits, b.cardinality, b.updated_at, b.nbytes, b.expire_ms, NULL::bytea
      FROM bitmapd.bitmaps b
     WHERE b.key >= lo AND b.key < hi AND (b.bucket IS NULL OR b.bucket < 0)
    UNION ALL
    SELECT m.key, e.version, CASE WHEN e.value = '' THEN '\xb100'::bytea ELSE e.value END, e.cardinality,
           b.updated_at, e.nbytes, e.expire_ms, b.key
      FROM bitmapd.bitmaps b
     CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e
     CROSS JOIN LATERAL (SELECT bitmapd.bucket_member_key(b.key, e.slot) AS key) m
     WHERE b.key >= lo AND b.key < hi AND b.bucket > 0 AND NOT e.stub AND m.key >= lo AND m.key < hi
       AND e.family = b.bucket AND bitmapd.bucket_family_of(b.key) = b.bucket
    UNION ALL
    SELECT * FROM bitmapd._bucket_value_of(lo) WHERE hi = lo || '\x00'::bytea
$$;
