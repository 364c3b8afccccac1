-- bench/rowcost.sql — what each part of a row of bitmapd.bitmaps costs (issue 14).
-- 20,000 rows shaped like a user's check-ins (key 'checkin:1xxxxxxx', 49 bytes of
-- dense bits) in tables that each drop one more part of today's row; prints the
-- bytes per row of heap, indexes and TOAST (main forks, after VACUUM), and of the
-- heap alone. Run as the owner in a database bitmapd has migrated (it reads the
-- definition of bitmapd.bitmaps); it leaves schema rowcost behind:
--   psql "$OWNER_DSN" -f bench/rowcost.sql
DROP SCHEMA IF EXISTS rowcost CASCADE;
CREATE SCHEMA rowcost;
CREATE FUNCTION rowcost.size(t regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT pg_relation_size(t, 'main') + coalesce((SELECT sum(pg_relation_size(i.indexrelid, 'main')) FROM pg_index i WHERE i.indrelid = t), 0)
       + coalesce((SELECT pg_relation_size(c.reltoastrelid, 'main') FROM pg_class c WHERE c.oid = t AND c.reltoastrelid <> 0), 0) $$;
CREATE TABLE rowcost.src AS
  SELECT convert_to('checkin:' || (10000000 + g), 'UTF8') AS key, 1::bigint AS version,
         '\xb1'::bytea || '\x80f0'::bytea || decode(substr(md5(g::text) || md5((g + 1)::text) || md5((g + 2)::text), 1, 92), 'hex') AS bits, 183::bigint AS cardinality,
         (random() * 4294967295)::bigint AS checksum, now() AS updated_at
    FROM generate_series(1, 20000) g;
-- A: today's table (LIKE bitmapd.bitmaps INCLUDING ALL: its indexes, nbytes/flips NULL;
-- until migration 0014 that included the key_hash index, which B leaves out)
CREATE TABLE rowcost.a (LIKE bitmapd.bitmaps INCLUDING ALL);
INSERT INTO rowcost.a (key, version, bits, cardinality, checksum, updated_at) SELECT * FROM rowcost.src ORDER BY key;
-- B: A with the primary key alone (without the key_hash index, before 0014)
CREATE TABLE rowcost.b (LIKE bitmapd.bitmaps INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE rowcost.b ADD PRIMARY KEY (key);
INSERT INTO rowcost.b (key, version, bits, cardinality, checksum, updated_at) SELECT * FROM rowcost.src ORDER BY key;
-- C: B with columns reordered (8-byte ones first, then key and bits)
CREATE TABLE rowcost.c (version bigint, cardinality bigint, checksum bigint, updated_at timestamptz, nbytes bigint, key bytea PRIMARY KEY, bits bytea, flips bytea);
INSERT INTO rowcost.c (version, cardinality, checksum, updated_at, key, bits) SELECT version, cardinality, checksum, updated_at, key, bits FROM rowcost.src ORDER BY key;
-- D: C without updated_at, checksum and cardinality as int4 (cardinality - 1 fits; here plain int)
CREATE TABLE rowcost.d (version bigint, cardinality integer, checksum integer, nbytes bigint, key bytea PRIMARY KEY, bits bytea, flips bytea);
INSERT INTO rowcost.d (version, cardinality, checksum, key, bits) SELECT version, cardinality, checksum::bit(32)::integer, key, bits FROM rowcost.src ORDER BY key;
-- E: key and bits only (version, cardinality, checksum in a 16-byte header of the value)
CREATE TABLE rowcost.e (key bytea PRIMARY KEY, v bytea);
INSERT INTO rowcost.e SELECT key, decode(md5(key::text), 'hex') || bits FROM rowcost.src ORDER BY key;
-- F: E with the key's prefix gone from the index (a per-domain table: user id as bigint key)
CREATE TABLE rowcost.f (id bigint PRIMARY KEY, v bytea);
INSERT INTO rowcost.f SELECT 10000000 + row_number() OVER (), decode(md5(key::text), 'hex') || bits FROM rowcost.src ORDER BY key;
VACUUM ANALYZE rowcost.a, rowcost.b, rowcost.c, rowcost.d, rowcost.e, rowcost.f;
SELECT t AS "table", d AS "what it drops", round(rowcost.size(('rowcost.' || t)::regclass) / 20000.0, 1) AS "bytes per row",
       round(pg_relation_size(('rowcost.' || t)::regclass, 'main') / 20000.0, 1) AS "of which heap"
  FROM (VALUES ('a', 'nothing: today''s row, both indexes'),
               ('b', 'the key_hash index'),
               ('c', '… and the padding (8-byte columns first)'),
               ('d', '… and updated_at; checksum and cardinality as int4'),
               ('e', '… and every column but key and value (a 16-byte header in the value)'),
               ('f', '… and the key''s text: a bigint id per domain table')) v(t, d)
 ORDER BY t;
-- Buckets (docs/design.md, "A plan for bucket rows"): 20,000 values of 49 bytes like
-- those above but unrelated to each other (src's neighbours share two thirds of their
-- bytes, which a compressed bucket would exploit), N to a row of today's table, each
-- with a 12-byte directory entry (slot, version, offset,
-- length; mostly zero bytes here), under a bucket key like 'checkin:~{user >> 6}'. A
-- row over about 2 KB is compressed first (pglz: the directory and the values' shared
-- first bytes squeeze; the bits hardly do) and stays in the heap when that brings it
-- under; with toast_tuple_target = 8160 it is neither compressed nor moved. Bytes
-- per value, not per row.
CREATE FUNCTION rowcost.bucket(t text, per int, target int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE rowcost.%I (LIKE bitmapd.bitmaps INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', t);
  EXECUTE format('ALTER TABLE rowcost.%I ADD PRIMARY KEY (key)', t);
  IF target IS NOT NULL THEN
    EXECUTE format('ALTER TABLE rowcost.%I SET (toast_tuple_target = %s)', t, target);
  END IF;
  EXECUTE format($q$INSERT INTO rowcost.%I (key, version, bits, cardinality, checksum)
    SELECT convert_to('checkin:~' || b, 'UTF8'), 1,
           string_agg(decode(lpad(to_hex(n), 24, '0'), 'hex'), ''::bytea ORDER BY n)
             || string_agg(bits, ''::bytea ORDER BY n), count(*), 0
      FROM (SELECT g - 1 AS n, '\xb180f0'::bytea || decode(md5(g::text) || md5((g + 1000000)::text)
                                                         || substr(md5((g + 2000000)::text), 1, 28), 'hex') AS bits
              FROM generate_series(1, 20000) g) s,
           LATERAL (SELECT s.n / %s AS b) x
     GROUP BY b ORDER BY 1$q$, t, per);
END $$;
DO $$ BEGIN
  PERFORM rowcost.bucket('k16', 16, NULL), rowcost.bucket('k32', 32, NULL), rowcost.bucket('k64', 64, NULL),
          rowcost.bucket('k64h', 64, 8160);
END $$;
VACUUM ANALYZE rowcost.k16, rowcost.k32, rowcost.k64, rowcost.k64h;
SELECT t AS "bucket table", d AS "values to a row", round(rowcost.size(('rowcost.' || t)::regclass) / 20000.0, 1) AS "bytes per value",
       round(pg_relation_size(('rowcost.' || t)::regclass, 'main') / 20000.0, 1) AS "of which heap"
  FROM (VALUES ('k16', '16 (about 1 KB)'), ('k32', '32 (about 2 KB: TOASTed)'), ('k64', '64 (about 4 KB: TOASTed)'),
               ('k64h', '64, toast_tuple_target = 8160 (kept in the heap)')) v(t, d)
 ORDER BY t;
