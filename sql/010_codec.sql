-- 010_codec: reads the stored bitmap encodings in plain SQL and PL/pgSQL, so that
-- operators and views can look inside bitmapd.bitmaps.bits from psql with no
-- extension installed. Re-applied idempotently (CREATE OR REPLACE only).
--
-- Three encodings, told apart by the first byte (bitmapd.encoding(bits) names it):
--
-- roaring, the CRoaring portable format (RoaringFormatSpec, little endian): cookie
-- 12346 + uint32 container count, or cookie 12347 with (count - 1) in the high 16
-- bits + a run-flag bitset; then per container (uint16 key, uint16 cardinality - 1);
-- then a uint32 offset per container unless the cookie is 12347 and there are fewer
-- than 4 containers; then payloads: array = cardinality x uint16, bitset = 8192 bytes
-- (cardinality > 4096, not run), run = uint16 nruns + nruns x (uint16 start, uint16
-- length - 1).
--
-- dense, written by the service when it is smaller: byte 0xB1, base / 8 as a minimal
-- unsigned LEB128 varint (<= 5 bytes, < 2^29), then raw bytes: bit i (LSB first) of
-- byte j set <=> member base + 8j + i. The first and last raw bytes are non-zero and
-- base + 8 * nbytes <= 2^32; the empty bitmap is B1 00.
--
-- gaps, written by the service for chunk rows where it is smaller still: byte 0xB2,
-- then Golomb-Rice coded gaps between members (or non-members); described with its
-- functions below.
--
-- These functions check the structure (roaring: cookie, count, lengths, offsets, no
-- trailing bytes; dense: every rule above) and raise SQLSTATE 22P03 otherwise. The
-- contents of Roaring containers (sorted arrays, bitset popcounts, ...) are checked by
-- the service's C validator before any row is written, and are not re-checked here.
-- Helpers whose names start with "_" are internal; their signatures may change.
--
-- Public functions first make one plain copy of their argument: a stored bitmap
-- arrives TOASTed (compressed or out of line), and every get_byte on it would
-- decompress the whole value again. Functions that run queries on the bitmap force
-- generic plans: a custom plan folds the (possibly megabyte-sized) bytea parameter
-- into a constant, copying it on every call. Without these two measures members()
-- of a 65536-container bitmap took minutes instead of under two seconds. The dense
-- helpers receive the public function's copy and follow the same rule.

-- ---- byte access -----------------------------------------------------------------

CREATE OR REPLACE FUNCTION bitmapd._u16(b bytea, p integer) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT get_byte(b, p) | (get_byte(b, p + 1) << 8) $$;

CREATE OR REPLACE FUNCTION bitmapd._u32(b bytea, p integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT get_byte(b, p)::bigint | (get_byte(b, p + 1)::bigint << 8)
           | (get_byte(b, p + 2)::bigint << 16) | (get_byte(b, p + 3)::bigint << 24) $$;

-- Number of set bits in one byte; a single expression, so the planner inlines it.
CREATE OR REPLACE FUNCTION bitmapd._popcount8(x integer) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1)
           + ((x >> 4) & 1) + ((x >> 5) & 1) + ((x >> 6) & 1) + ((x >> 7) & 1) $$;

-- One place for the "malformed input" error, so every caller raises the same SQLSTATE.
CREATE OR REPLACE FUNCTION bitmapd._malformed(msg text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION 'bitmapd: malformed bitmap: %', msg
        USING ERRCODE = 'invalid_binary_representation';
END $$;

CREATE OR REPLACE FUNCTION bitmapd._need(bits bytea, upto bigint, what text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF upto > length(bits) THEN
        PERFORM bitmapd._malformed(format('truncated %s: needs %s bytes, has %s',
                                          what, upto, length(bits)));
    END IF;
END $$;

-- ---- header and container layout ----------------------------------------------------

-- Where the parts of the header are. run_flags_at and offsets_at are NULL when the
-- serialization has no run-flag bitset / no offset header.
CREATE OR REPLACE FUNCTION bitmapd._header(bits bytea,
    OUT n_containers integer, OUT run_flags_at integer, OUT keys_at integer,
    OUT offsets_at integer, OUT body_at integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    cookie bigint;
    n bigint;
BEGIN
    PERFORM bitmapd._need(bits, 4, 'cookie');
    cookie := bitmapd._u32(bits, 0);
    IF cookie & 65535 = 12347 THEN
        n := (cookie >> 16) + 1;
        run_flags_at := 4;
        keys_at := 4 + (n + 7) / 8;
    ELSIF cookie = 12346 THEN
        PERFORM bitmapd._need(bits, 8, 'container count');
        n := bitmapd._u32(bits, 4);
        IF n > 65536 THEN
            PERFORM bitmapd._malformed(format('container count %s > 65536', n));
        END IF;
        keys_at := 8;
    ELSIF get_byte(bits, 0) = 179 THEN
        PERFORM bitmapd._malformed('the bits of a bucket of several keys (0xB3), not one bitmap: read them in bitmapd.values');
    ELSE
        PERFORM bitmapd._malformed(format('bad cookie %s', cookie));
    END IF;
    n_containers := n;
    body_at := keys_at + 4 * n;
    IF run_flags_at IS NULL OR n >= 4 THEN
        offsets_at := body_at;
        body_at := body_at + 4 * n;
    END IF;
    PERFORM bitmapd._need(bits, body_at, 'header');
END $$;

-- 'r' run, 'b' bitset or 'a' array, as the format decides it.
CREATE OR REPLACE FUNCTION bitmapd._kind(bits bytea, run_flags_at integer, k integer,
                                         card integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE
         WHEN run_flags_at IS NOT NULL AND (get_byte(bits, run_flags_at + k / 8) >> (k % 8)) & 1 = 1
             THEN 'r'
         WHEN card > 4096 THEN 'b'
         ELSE 'a' END $$;

-- Payload size in bytes of a container starting at pos.
CREATE OR REPLACE FUNCTION bitmapd._size(bits bytea, pos integer, kind text, card integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF kind = 'b' THEN
        RETURN 8192;
    ELSIF kind = 'a' THEN
        RETURN 2 * card;
    END IF;
    PERFORM bitmapd._need(bits, pos + 2::bigint, 'run count');
    RETURN 2 + 4 * bitmapd._u16(bits, pos);
END $$;

-- Byte position of container k. With an offset header it is read directly (and
-- bounds-checked); without one there are at most 3 containers, so walking is cheap.
CREATE OR REPLACE FUNCTION bitmapd._position(bits bytea, h record, k integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    pos bigint := h.body_at;
    card integer;
BEGIN
    IF h.offsets_at IS NOT NULL THEN
        pos := bitmapd._u32(bits, h.offsets_at + 4 * k);
        IF pos < h.body_at OR pos > length(bits) THEN
            PERFORM bitmapd._malformed(format('container %s: offset %s out of range', k, pos));
        END IF;
        RETURN pos;
    END IF;
    FOR i IN 0 .. k - 1 LOOP
        card := bitmapd._u16(bits, h.keys_at + 4 * i + 2) + 1;
        pos := pos + bitmapd._size(bits, pos::integer, bitmapd._kind(bits, h.run_flags_at, i, card), card);
        PERFORM bitmapd._need(bits, pos, format('container %s', i));
    END LOOP;
    RETURN pos;
END $$;

-- Checks that the last container ends exactly where the value ends (and returns its
-- position), which catches truncation and trailing bytes without a full walk.
CREATE OR REPLACE FUNCTION bitmapd._last_position(bits bytea, h record) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    k integer := h.n_containers - 1;
    card integer;
    pos integer := h.body_at;
    size integer := 0;
BEGIN
    IF k >= 0 THEN
        card := bitmapd._u16(bits, h.keys_at + 4 * k + 2) + 1;
        pos := bitmapd._position(bits, h, k);
        size := bitmapd._size(bits, pos, bitmapd._kind(bits, h.run_flags_at, k, card), card);
        PERFORM bitmapd._need(bits, pos + size::bigint, format('container %s', k));
    END IF;
    IF pos + size <> length(bits) THEN
        PERFORM bitmapd._malformed(format('%s trailing bytes', length(bits) - pos - size));
    END IF;
    RETURN pos;
END $$;

-- Every container, in key order, after checking that the containers tile the value
-- exactly: offsets (when present) where the containers are, nothing truncated, no
-- trailing bytes. Also useful on its own: SELECT * FROM bitmapd.containers(bits).
-- A dense value has no containers; it is shown as one row of kind 'd' per 16-bit
-- key with members, pointing at that key's raw bytes (see _dense_containers below).
CREATE OR REPLACE FUNCTION bitmapd.containers(bits bytea)
RETURNS TABLE (idx integer, key integer, cardinality integer, kind text,
               byte_offset integer, byte_size integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    h record;
    pos integer;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_dense(bits) THEN
        SELECT * INTO h FROM bitmapd._dense_header(bits);
        RETURN QUERY SELECT * FROM bitmapd._dense_containers(bits, h);
        RETURN;
    END IF;
    IF bitmapd._is_gaps(bits) THEN
        RETURN QUERY SELECT * FROM bitmapd._gaps_containers(bits);
        RETURN;
    END IF;
    SELECT * INTO h FROM bitmapd._header(bits);
    pos := h.body_at;
    FOR k IN 0 .. h.n_containers - 1 LOOP
        IF h.offsets_at IS NOT NULL AND bitmapd._u32(bits, h.offsets_at + 4 * k) <> pos THEN
            PERFORM bitmapd._malformed(format('container %s: offset %s should be %s', k,
                                              bitmapd._u32(bits, h.offsets_at + 4 * k), pos));
        END IF;
        idx := k;
        key := bitmapd._u16(bits, h.keys_at + 4 * k);
        cardinality := bitmapd._u16(bits, h.keys_at + 4 * k + 2) + 1;
        kind := bitmapd._kind(bits, h.run_flags_at, k, cardinality);
        byte_offset := pos;
        byte_size := bitmapd._size(bits, pos, kind, cardinality);
        PERFORM bitmapd._need(bits, pos + byte_size::bigint, format('container %s', k));
        RETURN NEXT;
        pos := pos + byte_size;
    END LOOP;
    IF pos <> length(bits) THEN
        PERFORM bitmapd._malformed(format('%s trailing bytes', length(bits) - pos));
    END IF;
END $$;

-- ---- one container at a time --------------------------------------------------------

-- Members of one container, ascending, as 32-bit values (base = key << 16).
CREATE OR REPLACE FUNCTION bitmapd._container_members(bits bytea, pos integer, kind text,
                                                      card integer, base bigint)
RETURNS SETOF bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    b integer;
    s integer;
BEGIN
    IF kind = 'a' THEN
        RETURN QUERY SELECT base + bitmapd._u16(bits, pos + 2 * i)
                     FROM generate_series(0, card - 1) AS i;
    ELSIF kind = 'r' THEN
        FOR i IN 0 .. bitmapd._u16(bits, pos) - 1 LOOP
            s := bitmapd._u16(bits, pos + 2 + 4 * i);
            RETURN QUERY SELECT base + v
                         FROM generate_series(s, s + bitmapd._u16(bits, pos + 4 + 4 * i)) AS v;
        END LOOP;
    ELSE
        -- Bit v of the bitset is bit (v % 8) of byte (v / 8); most bytes of a sparse
        -- bitset are zero, so skip them before looking at bits.
        FOR i IN 0 .. 8191 LOOP
            b := get_byte(bits, pos + i);
            CONTINUE WHEN b = 0;
            FOR j IN 0 .. 7 LOOP
                IF (b >> j) & 1 = 1 THEN
                    RETURN NEXT base + 8 * i + j;
                END IF;
            END LOOP;
        END LOOP;
    END IF;
END $$;

-- Number of values < v in a sorted array container (binary search).
CREATE OR REPLACE FUNCTION bitmapd._array_rank(bits bytea, pos integer, card integer,
                                               v integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    lo integer := 0;
    hi integer := card;
    mid integer;
BEGIN
    WHILE lo < hi LOOP
        mid := (lo + hi) / 2;
        IF bitmapd._u16(bits, pos + 2 * mid) < v THEN
            lo := mid + 1;
        ELSE
            hi := mid;
        END IF;
    END LOOP;
    RETURN lo;
END $$;

-- Number of values x of one container with a <= x < b (0 <= a < b <= 65536).
CREATE OR REPLACE FUNCTION bitmapd._container_count(bits bytea, pos integer, kind text,
                                                    card integer, a integer, b integer)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    n bigint := 0;
    full_lo integer := (a + 7) / 8;  -- first byte wholly inside [a, b)
    full_hi integer := b / 8;        -- first byte past it
    head_end integer;
BEGIN
    IF kind = 'a' THEN
        RETURN bitmapd._array_rank(bits, pos, card, b) - bitmapd._array_rank(bits, pos, card, a);
    ELSIF kind = 'r' THEN
        SELECT coalesce(sum(greatest(0, least(s + l + 1, b) - greatest(s, a))), 0) INTO n
        FROM (SELECT bitmapd._u16(bits, pos + 2 + 4 * i) AS s,
                     bitmapd._u16(bits, pos + 4 + 4 * i) AS l
              FROM generate_series(0, bitmapd._u16(bits, pos) - 1) AS i) AS runs;
        RETURN n;
    END IF;
    IF full_lo >= full_hi THEN  -- no whole byte inside [a, b): only single bits
        full_lo := b / 8;
        full_hi := b / 8;
        head_end := b;
    ELSE
        head_end := 8 * full_lo;
    END IF;
    SELECT coalesce(sum(bitmapd._popcount8(get_byte(bits, pos + i))), 0) INTO n
    FROM generate_series(full_lo, full_hi - 1) AS i;
    -- the single bits before the first whole byte and after the last one
    SELECT n + count(*) INTO n
    FROM (SELECT generate_series(a, head_end - 1)
          UNION ALL
          SELECT generate_series(greatest(8 * full_hi, head_end), b - 1)) AS e(v)
    WHERE (get_byte(bits, pos + v / 8) >> (v % 8)) & 1 = 1;
    RETURN n;
END $$;

-- Largest value of one container (containers are never empty).
CREATE OR REPLACE FUNCTION bitmapd._container_max(bits bytea, pos integer, kind text,
                                                  card integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    b integer;
BEGIN
    IF kind = 'a' THEN
        RETURN bitmapd._u16(bits, pos + 2 * (card - 1));
    ELSIF kind = 'r' THEN
        IF bitmapd._u16(bits, pos) = 0 THEN
            PERFORM bitmapd._malformed('empty run container');
        END IF;
        b := pos + 2 + 4 * (bitmapd._u16(bits, pos) - 1);
        RETURN bitmapd._u16(bits, b) + bitmapd._u16(bits, b + 2);
    END IF;
    FOR i IN REVERSE 8191 .. 0 LOOP
        b := get_byte(bits, pos + i);
        CONTINUE WHEN b = 0;
        FOR j IN REVERSE 7 .. 0 LOOP
            IF (b >> j) & 1 = 1 THEN
                RETURN 8 * i + j;
            END IF;
        END LOOP;
    END LOOP;
    PERFORM bitmapd._malformed('empty bitset container');
    RETURN NULL;
END $$;

-- ---- the dense encoding ------------------------------------------------------------

-- The first byte (the tag of the dense and gaps encodings), -1 for an empty value.
-- Two statements because SQL does not promise to evaluate AND's operands in order,
-- and get_byte raises on an empty value.
CREATE OR REPLACE FUNCTION bitmapd._first_byte(bits bytea) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF length(bits) = 0 THEN
        RETURN -1;
    END IF;
    RETURN get_byte(bits, 0);
END $$;

-- True when bits are in the dense encoding (first byte 0xB1).
CREATE OR REPLACE FUNCTION bitmapd._is_dense(bits bytea) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT bitmapd._first_byte(bits) = 177 $$;

-- A minimal unsigned LEB128 varint of at most 5 bytes at byte pos: its value and the
-- byte after. enc and what name it in the errors ("dense: base varint ...").
CREATE OR REPLACE FUNCTION bitmapd._varint(bits bytea, pos integer, enc text, what text,
    OUT v bigint, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    b integer;
    i integer := 0;
BEGIN
    v := 0;
    LOOP
        IF i = 5 THEN
            PERFORM bitmapd._malformed(format('%s: %s varint longer than 5 bytes', enc, what));
        END IF;
        PERFORM bitmapd._need(bits, pos + i + 1, format('%s %s varint', enc, what));
        b := get_byte(bits, pos + i);
        v := v | ((b & 127)::bigint << (7 * i));
        i := i + 1;
        EXIT WHEN b < 128;
    END LOOP;
    IF i > 1 AND b = 0 THEN
        PERFORM bitmapd._malformed(format('%s: non-minimal %s varint (%s bytes)', enc, what, i));
    END IF;
    next := pos + i;
END $$;

-- Where the raw bytes of a dense value start (raw_at), how many there are (nraw),
-- and the member that bit 0 of the first one stands for (base), after checking
-- every canonical rule the C validator checks: a minimal varint of at most 5 bytes
-- below 2^29, B1 00 for the empty bitmap, non-zero first and last raw bytes, and
-- nothing past 2^32 - 1. O(1): the raw bytes themselves are not read.
CREATE OR REPLACE FUNCTION bitmapd._dense_header(bits bytea,
    OUT base bigint, OUT raw_at integer, OUT nraw integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    v bigint;
BEGIN
    SELECT r.v, r.next INTO v, raw_at FROM bitmapd._varint(bits, 1, 'dense', 'base') r;
    IF v >= 536870912 THEN
        PERFORM bitmapd._malformed(format('dense: base %s past 2^32', v * 8));
    END IF;
    base := v * 8;
    nraw := length(bits) - raw_at;
    IF nraw = 0 THEN
        IF base <> 0 THEN
            PERFORM bitmapd._malformed(format('dense: no raw bytes but base %s (empty is B1 00)', base));
        END IF;
        RETURN;
    END IF;
    IF get_byte(bits, raw_at) = 0 THEN
        PERFORM bitmapd._malformed('dense: first raw byte is zero');
    END IF;
    IF get_byte(bits, raw_at + nraw - 1) = 0 THEN
        PERFORM bitmapd._malformed('dense: last raw byte is zero');
    END IF;
    IF base + 8::bigint * nraw > 4294967296 THEN
        PERFORM bitmapd._malformed(format('dense: %s raw bytes from base %s pass 2^32', nraw, base));
    END IF;
END $$;

-- Number of members x of a dense value with lo <= x < hi, for base <= lo < hi <=
-- base + 8 * nraw. Whole bytes are counted by bit_count on one substring (C speed);
-- only the at most 7 + 7 bits at the two ends are looked at one by one (get_bit
-- numbers bits LSB first within each byte, as the encoding does).
CREATE OR REPLACE FUNCTION bitmapd._dense_count(bits bytea, h record, lo bigint, hi bigint)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    first_byte bigint := (lo - h.base + 7) / 8;  -- first raw byte wholly inside [lo, hi)
    past_byte bigint := (hi - h.base) / 8;       -- first raw byte past it
    n bigint := 0;
BEGIN
    IF first_byte < past_byte THEN
        n := bit_count(substring(bits from h.raw_at + first_byte::integer + 1
                                      for (past_byte - first_byte)::integer));
    ELSE
        first_byte := past_byte;  -- no whole byte inside: only single bits below
    END IF;
    SELECT n + count(*) INTO n
    FROM (SELECT generate_series(lo, least(hi, h.base + 8 * first_byte) - 1)
          UNION ALL
          SELECT generate_series(greatest(h.base + 8 * past_byte, lo), hi - 1)) AS e(v)
    WHERE get_bit(bits, 8::bigint * h.raw_at + (v - h.base)) = 1;
    RETURN n;
END $$;

-- The dense value as containers would hold it: one row per 16-bit key with members,
-- kind 'd', pointing at the raw bytes of that key. Same columns as for Roaring.
CREATE OR REPLACE FUNCTION bitmapd._dense_containers(bits bytea, h record)
RETURNS TABLE (idx integer, key integer, cardinality integer, kind text,
               byte_offset integer, byte_size integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    lo bigint;
    hi bigint;
BEGIN
    idx := 0;
    kind := 'd';
    IF h.nraw = 0 THEN
        RETURN;
    END IF;
    FOR k IN (h.base >> 16)::integer .. ((h.base + 8::bigint * h.nraw - 1) >> 16)::integer LOOP
        lo := greatest(k::bigint << 16, h.base);
        hi := least((k::bigint + 1) << 16, h.base + 8::bigint * h.nraw);
        key := k;
        byte_offset := h.raw_at + ((lo - h.base) / 8)::integer;
        byte_size := ((hi - lo) / 8)::integer;
        cardinality := bit_count(substring(bits from byte_offset + 1 for byte_size));
        CONTINUE WHEN cardinality = 0;
        RETURN NEXT;
        idx := idx + 1;
    END LOOP;
END $$;

-- Every member of a dense value, ascending. Zero bytes are skipped before their bits
-- are looked at. The inner generate_series depends on the outer row, so it can only
-- be the inner side of a nested loop, which keeps the outer (ascending) order.
CREATE OR REPLACE FUNCTION bitmapd._dense_members(bits bytea, h record)
RETURNS SETOF bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
    RETURN QUERY
        SELECT h.base + v
        FROM generate_series(0, h.nraw - 1) AS i,
             LATERAL generate_series(8::bigint * i, 8::bigint * i + 7) AS v
        WHERE get_byte(bits, h.raw_at + i) <> 0
          AND get_bit(bits, 8::bigint * h.raw_at + v) = 1;
END $$;

-- ---- the gaps encoding ---------------------------------------------------------------

-- gaps (0xB2), written by the service for chunk rows (bitmapd.chunks) where it is the
-- smallest: varints base and span (minimal, < 2^32, base + span <= 2^32 - 1), a mode
-- byte (bits 0..4: k; bit 7: complement; bits 5 and 6 zero), a varint count n >= 1,
-- then per listed value v (ascending; prev the one before, base - 1 for the first;
-- d = v - prev - 1): d >> k zero bits, a one bit, the k low bits of d, least
-- significant first, bits numbered LSB first in each byte (as get_bit does); zero
-- padding to the byte, nothing after. Direct: the listed values are the members, the
-- first base and the last base + span. Complement: the members are [base, base + span]
-- minus the listed values, which lie strictly inside, and span < 2^20.

CREATE OR REPLACE FUNCTION bitmapd._is_gaps(bits bytea) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT bitmapd._first_byte(bits) = 178 $$;

-- bitmapd._varint, below 2^32.
CREATE OR REPLACE FUNCTION bitmapd._gaps_varint(bits bytea, pos integer, what text,
    OUT v bigint, OUT next integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    SELECT r.v, r.next INTO v, next FROM bitmapd._varint(bits, pos, 'gaps', what) r;
    IF v > 4294967295 THEN
        PERFORM bitmapd._malformed(format('gaps: %s %s past 2^32 - 1', what, v));
    END IF;
END $$;

-- Every member of a gaps value, ascending, after checking every rule above (22P03
-- otherwise: PL/pgSQL hands the rows over only when the function has returned). One
-- get_bit per bit of the stream: 10-20 ms for a chunk of a notice's readers.
CREATE OR REPLACE FUNCTION bitmapd._gaps_members(bits bytea) RETURNS SETOF bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    r record;
    base bigint;
    span bigint;
    last bigint;
    mode integer;
    k integer;
    comp boolean;
    n bigint;
    pos bigint;
    nbits bigint;
    prev bigint;
    room bigint;
    q bigint;
    low bigint;
    v bigint;
BEGIN
    SELECT * INTO r FROM bitmapd._gaps_varint(bits, 1, 'base');
    base := r.v;
    SELECT * INTO r FROM bitmapd._gaps_varint(bits, r.next, 'span');
    span := r.v;
    last := base + span;
    IF last > 4294967295 THEN
        PERFORM bitmapd._malformed(format('gaps: base %s + span %s past 2^32 - 1', base, span));
    END IF;
    PERFORM bitmapd._need(bits, r.next + 1, 'gaps mode');
    mode := get_byte(bits, r.next);
    IF mode & 96 <> 0 THEN
        PERFORM bitmapd._malformed(format('gaps: mode %s has reserved bits set', mode));
    END IF;
    k := mode & 31;
    comp := mode & 128 <> 0;
    IF comp AND span >= 1048576 THEN
        PERFORM bitmapd._malformed(format('gaps: complement over a span of %s', span));
    END IF;
    SELECT * INTO r FROM bitmapd._gaps_varint(bits, r.next + 1, 'count');
    n := r.v;
    IF n = 0 THEN
        PERFORM bitmapd._malformed('gaps: no listed value');
    END IF;
    IF n > 8::bigint * (length(bits) - r.next) THEN
        PERFORM bitmapd._malformed(format('gaps: %s values in %s bytes', n, length(bits) - r.next));
    END IF;
    pos := 8::bigint * r.next;
    nbits := 8::bigint * length(bits);
    prev := base - 1;
    FOR i IN 0 .. n - 1 LOOP
        room := last - prev - 1;
        IF room < 0 THEN
            PERFORM bitmapd._malformed(format('gaps: value %s past the span', i));
        END IF;
        q := 0;
        LOOP
            IF pos >= nbits OR q > room >> k THEN
                PERFORM bitmapd._malformed(format('gaps: value %s is truncated or past the span', i));
            END IF;
            IF pos % 8 = 0 AND pos + 8 <= nbits AND get_byte(bits, (pos / 8)::integer) = 0 THEN
                q := q + 8;  -- a whole zero byte
                pos := pos + 8;
                CONTINUE;
            END IF;
            pos := pos + 1;
            EXIT WHEN get_bit(bits, pos - 1) = 1;
            q := q + 1;
        END LOOP;
        IF q > room >> k OR pos + k > nbits THEN
            PERFORM bitmapd._malformed(format('gaps: value %s is truncated or past the span', i));
        END IF;
        low := 0;
        FOR j IN 0 .. k - 1 LOOP
            low := low | (get_bit(bits, pos + j)::bigint << j);
        END LOOP;
        pos := pos + k;
        v := prev + 1 + ((q << k) | low);
        IF v > last THEN
            PERFORM bitmapd._malformed(format('gaps: value %s past the span', i));
        END IF;
        IF (comp AND (v = base OR v = last)) OR (NOT comp AND i = 0 AND v <> base) THEN
            PERFORM bitmapd._malformed(format('gaps: value %s at %s is not where its mode allows', i, v));
        END IF;
        IF comp THEN
            IF v > prev + 1 THEN
                RETURN QUERY SELECT generate_series(greatest(prev + 1, base), v - 1);
            END IF;
        ELSE
            RETURN NEXT v;
        END IF;
        prev := v;
    END LOOP;
    IF comp THEN
        RETURN QUERY SELECT generate_series(prev + 1, last);
    ELSIF prev <> last THEN
        PERFORM bitmapd._malformed(format('gaps: the last member is %s, not base + span', prev));
    END IF;
    IF (pos + 7) / 8 <> length(bits) THEN
        PERFORM bitmapd._malformed(format('gaps: %s trailing bytes', length(bits) - (pos + 7) / 8));
    END IF;
    IF pos % 8 <> 0 AND get_byte(bits, length(bits) - 1) >> (pos % 8)::integer <> 0 THEN
        PERFORM bitmapd._malformed('gaps: padding bits set');
    END IF;
END $$;

-- A bitset container's 8192 bytes holding the values vals (0 .. 65535, distinct).
CREATE OR REPLACE FUNCTION bitmapd._bitset(vals integer[]) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT string_agg(set_byte('\x00'::bytea, 0, coalesce(b.x, 0)), ''::bytea ORDER BY i.i)
        FROM generate_series(0, 8191) AS i(i)
        LEFT JOIN (SELECT v >> 3 AS i, sum(1 << (v & 7))::integer AS x FROM unnest(vals) AS v GROUP BY 1) b
               ON b.i = i.i $$;

-- The members of a gaps value as containers: one row per 16-bit key, kind 'g', with
-- no bytes of its own to point at (the stream is one for all keys).
CREATE OR REPLACE FUNCTION bitmapd._gaps_containers(bits bytea)
RETURNS TABLE (idx integer, key integer, cardinality integer, kind text,
               byte_offset integer, byte_size integer)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (row_number() OVER (ORDER BY m.key) - 1)::integer, m.key, m.card, 'g'::text, NULL::integer,
             NULL::integer
        FROM (SELECT (v >> 16)::integer AS key, count(*)::integer AS card
                FROM bitmapd._gaps_members(bits) AS v GROUP BY 1) m
       ORDER BY m.key $$;

-- ---- public functions ----------------------------------------------------------------

-- Every member, in ascending order.
CREATE OR REPLACE FUNCTION bitmapd.members(bits bytea) RETURNS SETOF bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    c record;
    h record;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_dense(bits) THEN
        SELECT * INTO h FROM bitmapd._dense_header(bits);
        RETURN QUERY SELECT * FROM bitmapd._dense_members(bits, h);
        RETURN;
    END IF;
    IF bitmapd._is_gaps(bits) THEN
        RETURN QUERY SELECT * FROM bitmapd._gaps_members(bits);
        RETURN;
    END IF;
    -- containers() checks the whole layout before the first member is returned
    FOR c IN SELECT * FROM bitmapd.containers(bits) LOOP
        RETURN QUERY SELECT * FROM bitmapd._container_members(bits, c.byte_offset, c.kind,
                                                              c.cardinality, c.key::bigint << 16);
    END LOOP;
END $$;

COMMENT ON FUNCTION bitmapd.containers(bytea) IS
  'Layout of a stored bitmap, one row per container (Roaring) or per 16-bit key of raw bits (dense, kind d); raises 22P03 on malformed input';

COMMENT ON FUNCTION bitmapd.members(bytea) IS
  'Members of a stored bitmap (Roaring, dense or gaps), ascending; raises 22P03 on malformed input';

-- First container index whose key is >= key (binary search over the sorted keys).
CREATE OR REPLACE FUNCTION bitmapd._first_key_at_least(bits bytea, h record, key integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    lo integer := 0;
    hi integer := h.n_containers;
    mid integer;
BEGIN
    WHILE lo < hi LOOP
        mid := (lo + hi) / 2;
        IF bitmapd._u16(bits, h.keys_at + 4 * mid) < key THEN
            lo := mid + 1;
        ELSE
            hi := mid;
        END IF;
    END LOOP;
    RETURN lo;
END $$;

-- Number of members in [lo, hi). Containers wholly inside the range count by their
-- header cardinality; only the (at most two) containers cut by lo or hi are decoded.
CREATE OR REPLACE FUNCTION bitmapd.count_range(bits bytea, lo bigint, hi bigint)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    h record;
    total bigint := 0;
    key integer;
    card integer;
    base bigint;
    pos integer;
    kind text;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_dense(bits) THEN
        SELECT * INTO h FROM bitmapd._dense_header(bits);
        lo := greatest(lo, h.base);
        hi := least(hi, h.base + 8::bigint * h.nraw);
        RETURN CASE WHEN lo < hi THEN bitmapd._dense_count(bits, h, lo, hi) ELSE 0 END;
    END IF;
    IF bitmapd._is_gaps(bits) THEN
        RETURN (SELECT count(*) FROM bitmapd._gaps_members(bits) AS m WHERE m >= lo AND m < hi);
    END IF;
    SELECT * INTO h FROM bitmapd._header(bits);
    PERFORM bitmapd._last_position(bits, h);  -- not truncated, nothing trailing
    lo := greatest(lo, 0);
    hi := least(hi, 4294967296);
    IF lo >= hi THEN
        RETURN 0;
    END IF;
    FOR k IN bitmapd._first_key_at_least(bits, h, (lo >> 16)::integer) .. h.n_containers - 1 LOOP
        key := bitmapd._u16(bits, h.keys_at + 4 * k);
        base := key::bigint << 16;
        EXIT WHEN base >= hi;
        card := bitmapd._u16(bits, h.keys_at + 4 * k + 2) + 1;
        IF base >= lo AND base + 65536 <= hi THEN
            total := total + card;
        ELSE
            pos := bitmapd._position(bits, h, k);
            kind := bitmapd._kind(bits, h.run_flags_at, k, card);
            PERFORM bitmapd._need(bits, pos + bitmapd._size(bits, pos, kind, card)::bigint,
                                  format('container %s', k));
            total := total + bitmapd._container_count(bits, pos, kind, card,
                                                      greatest(lo - base, 0)::integer,
                                                      least(hi - base, 65536)::integer);
        END IF;
    END LOOP;
    RETURN total;
END $$;

COMMENT ON FUNCTION bitmapd.count_range(bytea, bigint, bigint) IS
  'Number of members in [lo, hi) of a stored bitmap (Roaring: decoding only boundary containers; dense: bit_count of the range)';

-- Largest member, or NULL for the empty bitmap. Only the last container is decoded.
CREATE OR REPLACE FUNCTION bitmapd.max_member(bits bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    h record;
    k integer;
    card integer;
    pos integer;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_dense(bits) THEN
        -- the last raw byte is never zero, so its highest set bit is the maximum
        SELECT * INTO h FROM bitmapd._dense_header(bits);
        IF h.nraw = 0 THEN
            RETURN NULL;
        END IF;
        RETURN h.base + 8::bigint * (h.nraw - 1)
             + (SELECT max(j) FROM generate_series(0, 7) AS j
                WHERE (get_byte(bits, h.raw_at + h.nraw - 1) >> j) & 1 = 1);
    END IF;
    IF bitmapd._is_gaps(bits) THEN
        RETURN (SELECT max(m) FROM bitmapd._gaps_members(bits) AS m);
    END IF;
    SELECT * INTO h FROM bitmapd._header(bits);
    pos := bitmapd._last_position(bits, h);
    IF h.n_containers = 0 THEN
        RETURN NULL;
    END IF;
    k := h.n_containers - 1;
    card := bitmapd._u16(bits, h.keys_at + 4 * k + 2) + 1;
    RETURN (bitmapd._u16(bits, h.keys_at + 4 * k)::bigint << 16)
         + bitmapd._container_max(bits, pos, bitmapd._kind(bits, h.run_flags_at, k, card), card);
END $$;

COMMENT ON FUNCTION bitmapd.max_member(bytea) IS
  'Largest member of a stored bitmap (Roaring, dense or gaps), NULL when empty';

-- 'dense' or 'roaring', after the same header-level checks as count_range and
-- max_member (so a malformed value raises 22P03 rather than getting a name).
CREATE OR REPLACE FUNCTION bitmapd.encoding(bits bytea) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    h record;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_dense(bits) THEN
        PERFORM bitmapd._dense_header(bits);
        RETURN 'dense';
    END IF;
    IF bitmapd._is_gaps(bits) THEN
        PERFORM count(*) FROM bitmapd._gaps_members(bits);
        RETURN 'gaps';
    END IF;
    IF length(bits) > 0 AND get_byte(bits, 0) = 179 THEN
        PERFORM count(*) FROM bitmapd._bucket_entries(bits);
        RETURN 'bucket';
    END IF;
    SELECT * INTO h FROM bitmapd._header(bits);
    PERFORM bitmapd._last_position(bits, h);
    RETURN 'roaring';
END $$;

COMMENT ON FUNCTION bitmapd.encoding(bytea) IS
  'Encoding of a stored bitmap: roaring (CRoaring portable), dense (raw bits) or gaps (Rice-coded gaps, chunk rows), or bucket (the bits of a bucket row, src/store/bucket.h); raises 22P03 on malformed input';

-- ---- export: bitmapd.to_roaring -------------------------------------------------------

-- Little-endian integers as bytes, for writing the portable format. Single
-- expressions, so the planner inlines them. int8send is big endian: the bytes are
-- swapped first, and the last 2 or 4 of the 8 bytes taken.
CREATE OR REPLACE FUNCTION bitmapd._le16(v integer) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT substring(int8send((((v & 255) << 8) | ((v >> 8) & 255))::bigint) from 7 for 2) $$;

CREATE OR REPLACE FUNCTION bitmapd._le32(v bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT substring(int8send(((v & 255) << 24) | (((v >> 8) & 255) << 16)
                               | (((v >> 16) & 255) << 8) | ((v >> 24) & 255)) from 5 for 4) $$;

-- The payload of one container of a dense value as the portable format has it: the
-- key's byte_size raw bytes start at byte_offset and stand for bytes at .. at +
-- byte_size - 1 of the key's 65536 bits. Above 4096 members a bitset (the raw bytes,
-- zero-padded to 8192: raw bits and bitsets number bits the same way), otherwise an
-- array of the members' low 16 bits, ascending, 2 bytes each.
CREATE OR REPLACE FUNCTION bitmapd._dense_payload(bits bytea, byte_offset integer,
                                                  byte_size integer, at integer,
                                                  cardinality integer) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    out bytea;
BEGIN
    IF cardinality > 4096 THEN
        RETURN decode(repeat('00', at), 'hex')
            || substring(bits from byte_offset + 1 for byte_size)
            || decode(repeat('00', 8192 - at - byte_size), 'hex');
    END IF;
    SELECT string_agg(bitmapd._le16(8 * (at + i) + j), ''::bytea ORDER BY i, j) INTO out
    FROM generate_series(0, byte_size - 1) AS i,
         LATERAL generate_series(0, 7) AS j
    WHERE get_byte(bits, byte_offset + i) <> 0
      AND get_bit(bits, 8::bigint * (byte_offset + i) + j) = 1;
    RETURN out;
END $$;

-- A gaps value as to_roaring writes it (below): the same layout as for a dense row,
-- its containers built from the members.
CREATE OR REPLACE FUNCTION bitmapd._gaps_to_roaring(bits bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    WITH c AS (
        SELECT (v >> 16)::integer AS key, count(*)::integer AS cardinality,
               CASE WHEN count(*) > 4096 THEN bitmapd._bitset(array_agg((v & 65535)::integer))
                    ELSE string_agg(bitmapd._le16((v & 65535)::integer), ''::bytea ORDER BY v) END AS payload
        FROM bitmapd._gaps_members(bits) AS v
        GROUP BY 1
    ), p AS (
        SELECT c.*,
               8 + 8 * count(*) OVER ()
                 + coalesce(sum(octet_length(payload)) OVER (ORDER BY key ROWS BETWEEN UNBOUNDED PRECEDING
                                                                                 AND 1 PRECEDING), 0) AS pos
        FROM c
    )
    SELECT '\x3a300000'::bytea || bitmapd._le32(count(*))
        || string_agg(bitmapd._le16(key) || bitmapd._le16(cardinality - 1), ''::bytea ORDER BY key)
        || string_agg(bitmapd._le32(pos), ''::bytea ORDER BY key)
        || string_agg(payload, ''::bytea ORDER BY key)
    FROM p
$$;

-- A stored bitmap as bytes every Roaring implementation reads (CRoaring, Java, Go,
-- Python, pg_roaringbitmap). Roaring rows are returned as they are, after the
-- header-level checks of encoding(). A dense row is rewritten as the portable format
-- with cookie 12346: uint32 container count, (key, cardinality - 1) pairs, a uint32
-- offset per container, then the payloads, arrays up to 4096 members and 8192-byte
-- bitsets above, no run containers. These are exactly the bytes CRoaring's
-- roaring_bitmap_portable_serialize writes for the same bitmap without run
-- optimization. The empty bitmap (B1 00) becomes the 8 bytes 3A 30 00 00 00 00 00 00.
-- One statement builds the whole value (string_agg), so the cost is linear: a stored
-- 512 KiB dense value takes a few milliseconds when its keys become bitsets (copies of
-- the raw bytes) and 0.3 s when they are all arrays of 4096 members, its worst case
-- (docs/design.md).
CREATE OR REPLACE FUNCTION bitmapd.to_roaring(bits bytea) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    h record;
    out bytea;
BEGIN
    bits := bits || ''::bytea;  -- detoast once (see the note at the top)
    IF bitmapd._is_gaps(bits) THEN
        RETURN bitmapd._gaps_to_roaring(bits);
    END IF;
    IF NOT bitmapd._is_dense(bits) THEN
        SELECT * INTO h FROM bitmapd._header(bits);
        PERFORM bitmapd._last_position(bits, h);
        RETURN bits;
    END IF;
    SELECT * INTO h FROM bitmapd._dense_header(bits);
    WITH c AS (
        SELECT key, cardinality, byte_offset, byte_size,
               -- where the key's raw bytes start inside its 8192 bitset bytes
               ((h.base + 8::bigint * (byte_offset - h.raw_at) - (key::bigint << 16)) / 8)::integer AS at,
               CASE WHEN cardinality > 4096 THEN 8192 ELSE 2 * cardinality END AS size
        FROM bitmapd._dense_containers(bits, h)
    ), p AS (
        SELECT c.*,
               8 + 8 * count(*) OVER ()
                 + coalesce(sum(size) OVER (ORDER BY key ROWS BETWEEN UNBOUNDED PRECEDING
                                                              AND 1 PRECEDING), 0) AS pos
        FROM c
    )
    SELECT '\x3a300000'::bytea || bitmapd._le32(count(*))
        || coalesce(string_agg(bitmapd._le16(key) || bitmapd._le16(cardinality - 1), ''::bytea
                               ORDER BY key), '')
        || coalesce(string_agg(bitmapd._le32(pos), ''::bytea ORDER BY key), '')
        || coalesce(string_agg(bitmapd._dense_payload(bits, byte_offset, byte_size, at, cardinality),
                               ''::bytea ORDER BY key), '')
    INTO out
    FROM p;
    RETURN out;
END $$;

COMMENT ON FUNCTION bitmapd.to_roaring(bytea) IS
  'A stored bitmap as Roaring portable bytes any Roaring implementation reads: Roaring rows unchanged, dense and gaps rows rewritten (cookie 12346, arrays and bitsets, no runs); raises 22P03 on malformed input';

COMMENT ON COLUMN bitmapd.bitmaps.bits IS
  'The bitmap in one of two encodings, told apart by the first byte: CRoaring portable serialization (0x3A/0x3B) or dense raw bits (0xB1). bitmapd.encoding(bits) names it; bitmapd.to_roaring(bits) gives Roaring portable bytes for any Roaring reader; bitmapd.members(bits) lists the members';
