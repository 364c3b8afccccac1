/* store_sql.c — the statements of group commit (store_cas.c): the general
 * compare-and-swap with chunk rows, the one for plain rows, the one-row forms, and
 * the write-behind log's append. */
#include <stdio.h>

#include "store/store_internal.h"

/* ---- compare-and-swap, committed in groups ------------------------------------- */

/* The part both compare-and-swap statements share: `cur` locks every named row in key
 * order (one index probe per key: concurrent batches cannot deadlock, and a partitioned
 * table is not scanned whole) and, under READ COMMITTED, sees the latest committed
 * versions, whether the head is chunked and its xmin; `bad` lists the groups with any
 * moved version (an absent key is version -1 here); `upd` and `ins` write the rest
 * (`upd` never probes for a row the group means to insert: no row has version -1). An
 * insert that finds the key created in the meantime aborts the statement with a
 * unique violation (23505), which is retried as a conflict of every group, so a group
 * still commits all or nothing. A plain INSERT, not `ON CONFLICT DO NOTHING`: the
 * speculative insertion probes the index once more and writes one more WAL record
 * per row, a fifth of PostgreSQL's time for a row of a fan-out to new users. An
 * inserted row's `bucket` column comes from its bits: a bucket's value starts with
 * 0xB3 and its family (bucket.h), which no codec encoding does (store_buckets.c); `sp`
 * f marks a member of family f that spilled from its bucket to a row of its own
 * (bucket -f, inserted or updated; NULL leaves the column as it is).
 * Data-modifying CTEs always run to completion. SQL_CAS then writes the chunk rows (`done`, `c`, `cput`, `cdel`:
 * docs/design.md, "Chunked rows"), and gives every head it writes its flips
 * (set_flips: NULL but for a write that is the flips alone); a one-row head never has
 * flips, so SQL_CAS_ROWS, which writes only those, leaves the column alone. */
/* The `bucket` column of an inserted row (see above), from its `bits` and `sp`. */
#define SQL_NEW_ROW_BUCKET \
    "coalesce(-sp::int2, CASE WHEN octet_length(bits) > 2 AND get_byte(bits, 0) = 179" \
    "                    THEN get_byte(bits, 1)::int2 END)"

/* What an update of a head row from the values v sets (but its flips). */
#define SQL_ROW_SET \
    "bits = v.bits, cardinality = v.card, checksum = v.crc, nbytes = v.nbytes, expire_ms = v.exp," \
    " version = b.version + v.inc, updated_at = now(), bucket = coalesce(-v.sp::int2, b.bucket)"

#define SQL_CAS_HEADS(set_flips) \
    " cur AS (SELECT b.key, b.version, b.chunked, b.xid" \
    "           FROM (SELECT DISTINCT key FROM unnest($1::bytea[]) AS u(key) ORDER BY key) k" \
    "          CROSS JOIN LATERAL (SELECT x.key, x.version, octet_length(x.bits) = 0 AS chunked, x.xmin::text::int8 AS xid" \
    "                                FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1 FOR UPDATE) b)," \
    " bad AS (SELECT DISTINCT v.grp FROM v LEFT JOIN cur ON cur.key = v.key" \
    "          WHERE coalesce(cur.version, -1) <> v.ver)," \
    " upd AS (UPDATE bitmapd.bitmaps b" \
    "            SET " SQL_ROW_SET set_flips \
    "           FROM v" \
    "          WHERE b.key = v.key AND b.version = v.ver AND v.ver >= 0 AND v.bits IS NOT NULL" \
    "            AND v.grp NOT IN (SELECT grp FROM bad)" \
    "      RETURNING b.key)," \
    " want AS (SELECT * FROM v WHERE v.ver = -1 AND v.bits IS NOT NULL" \
    "             AND v.grp NOT IN (SELECT grp FROM bad))," \
    " ins AS (INSERT INTO bitmapd.bitmaps AS b (key, version, bits, cardinality, checksum, nbytes, expire_ms, bucket)" \
    "         SELECT key, inc, bits, card, crc, nbytes, exp, " SQL_NEW_ROW_BUCKET \
    "           FROM want ORDER BY key)"

/* What both statements answer: the groups that did not commit, the transaction's id,
 * and an abort (a conflict of every group) when a written key's head row is in a state
 * the statement cannot write over. */
#define SQL_CAS_ANSWER(xid_from, abort_when) \
    " SELECT grp, NULL::int8 FROM bad" \
    " UNION ALL" \
    " SELECT NULL, txid_current() % 4294967296" xid_from \
    " UNION ALL" \
    " SELECT bitmapd._cas_conflict(), NULL" \
    "  WHERE EXISTS (SELECT 1 FROM v JOIN cur ON cur.key = v.key" \
    "                 WHERE v.grp NOT IN (SELECT grp FROM bad) AND " abort_when ")"

/* The upsert of the chunk rows in CTE c (key, lo, hi, bits, card, crc) that carry bits,
 * leaving the rows that `unchanged` says are equal unwritten. */
#define SQL_CHUNKS_UPSERT(unchanged) \
    " cput AS (INSERT INTO bitmapd.chunks AS x (key, lo, hi, bits, cardinality, checksum)" \
    "          SELECT key, lo, hi, bits, card, crc FROM c WHERE bits IS NOT NULL ORDER BY key, lo" \
    "          ON CONFLICT (key, lo) DO UPDATE" \
    "                SET hi = excluded.hi, bits = excluded.bits, cardinality = excluded.cardinality," \
    "                    checksum = excluded.checksum" \
    "              " unchanged "),"
/* SQL_CAS may send every chunk of a key (its directory unknown): an unchanged row is
 * compared byte for byte and not rewritten. */
#define SQL_CHUNKS_PUT SQL_CHUNKS_UPSERT("WHERE x.hi <> excluded.hi OR x.bits <> excluded.bits")

const char SQL_CAS[] =
    "WITH v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[],"
    "                                $5::int8[], $6::int4[], $7::int8[], $8::int8[], $9::int8[], $10::int4[],"
    "                                $17::int8[], $18::bytea[], $19::int4[])"
    "                         AS t(key, ver, bits, card, crc, grp, nbytes, inc, exp, whole, dirxid, flips, sp)),"
    SQL_CAS_HEADS(", flips = v.flips") ","
    " done AS (SELECT v.key, v.whole, octet_length(v.bits) = 0 AS chunked"
    "            FROM v LEFT JOIN cur ON cur.key = v.key"
    "           WHERE v.bits IS NOT NULL AND v.grp NOT IN (SELECT grp FROM bad)"
    "             AND (octet_length(v.bits) = 0 OR cur.chunked)),"
    " c AS (SELECT * FROM unnest($11::bytea[], $12::int4[], $13::int4[], $14::bytea[], $15::int8[], $16::int8[])"
    "                  AS t(key, lo, hi, bits, card, crc)"
    "        WHERE t.key IN (SELECT key FROM done)),"
    SQL_CHUNKS_PUT
    " cdel AS (DELETE FROM bitmapd.chunks x USING done d"
    "           WHERE x.key = d.key"
    "             AND (NOT d.chunked"
    "                  OR (d.whole = 1 AND NOT EXISTS (SELECT 1 FROM c WHERE c.key = x.key AND c.lo = x.lo))"
    "                  OR EXISTS (SELECT 1 FROM c WHERE c.key = x.key AND c.lo = x.lo AND c.bits IS NULL)))"
    SQL_CAS_ANSWER("", "v.dirxid >= 0 AND cur.xid <> v.dirxid");

/* The statements below that write plain rows may ask the change trigger to leave their
 * keys out of the notification ($11: the backend pid of this instance's listener, or 0
 * for no): with no other session holding a watcher lock, it sends '!q:' and this
 * instance's token instead (migration 0019). Only for a batch of many keys, since the
 * trigger's look at pg_locks costs about 60 us; this instance's cache follows its own
 * writes from their answer (cas_call_cache), not from their notification. A CTE that
 * the answer reads, so that it is evaluated before the trigger fires at the end. */
#define SQL_QUIET " quiet AS MATERIALIZED (SELECT set_config('bitmapd.quiet_pid', $11::text, true))"

/* The writes of a batch of plain rows, one row each, from the parameters $1-$10 that
 * SQL_CAS_ROWS, SQL_CAS_NEW and SQL_CAS_UPD share. */
#define SQL_ROW_VALUES \
    "unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[], $5::int8[], $6::int4[]," \
    "       $7::int8[], $8::int8[], $9::int8[], $10::int4[])" \
    " AS t(key, ver, bits, card, crc, grp, nbytes, inc, exp, sp)"

/* The same compare-and-swap for batches in which no key is, or was last seen,
 * chunked: no chunk rows to write, so it leaves out the CTEs that would write them
 * (their start-up cost is paid by every statement). Should a head row turn out to be
 * chunked after all (another instance cut it), the statement aborts as a conflict
 * instead of leaving its chunk rows behind, and the store sends those keys' writes
 * through SQL_CAS from then on. */
const char SQL_CAS_ROWS[] =
    "WITH v AS (SELECT * FROM " SQL_ROW_VALUES "),"
    SQL_QUIET ","
    SQL_CAS_HEADS("")
    SQL_CAS_ANSWER(" FROM quiet", "cur.chunked AND v.bits IS NOT NULL");

/* SQL_CAS_ROWS for a batch that only inserts: every write puts the first value of a key
 * found or guessed absent (a fan-out to new users, SETBITs of new keys). No lock step:
 * no row is read or locked, only new ones inserted, in key order. Its inserts and
 * another compare-and-swap's, both in key order, cannot wait on each other in a cycle,
 * and a lock step waits only for visible rows, never for an uncommitted insert. What
 * could (a fold of the write-behind log updating a row this batch guessed absent, then
 * inserting a key this batch inserted first) is kept away by not sending it for a while
 * after another instance was seen using the log (store_cas.c, wlog_used_elsewhere). A
 * key that exists after all fails the statement with a unique violation (23505); the
 * store then sends the same calls through SQL_CAS_ROWS, which sorts them by group.
 * Measured in psql on a table of 3 million rows, 1,000 new keys of a fan-out: 6.1-6.4
 * ms of execution against 9.5-10.3 for SQL_CAS_ROWS. Parameters and answer as
 * SQL_CAS_ROWS's ($2 all -1: not read; $6 no group fails; $11 as above). */
const char SQL_CAS_NEW[] =
    "WITH" SQL_QUIET ","
    " ins AS (INSERT INTO bitmapd.bitmaps AS b (key, version, bits, cardinality, checksum, nbytes, expire_ms, bucket)"
    "             SELECT key, inc, bits, card, crc, nbytes, exp, " SQL_NEW_ROW_BUCKET
    "               FROM " SQL_ROW_VALUES
    "              ORDER BY key)"
    " SELECT NULL::int4, txid_current() % 4294967296 FROM quiet";

/* SQL_CAS_ROWS for a batch that only rewrites rows it found: every write puts a new
 * value of an existing one-row key at the version it read (a fan-out to users who have
 * boxes, SETBITs of many existing keys). No lock step: the UPDATE itself takes the row
 * locks, in key order in the plan seen (a nested loop over the sorted values, each
 * row found by the primary key; another order costs only redos, see below), and
 * checks each version; a row that moved (or went, or was found chunked) matches
 * nothing, and then the count of rows written falls short and the statement aborts
 * through bitmapd._cas_conflict() (40001) with nothing written.
 * Without the lock step an update can be part of a deadlock the lock step rules out
 * (docs/design.md, "no lock step for groups of one key": it has updated a row that
 * another transaction's INSERT ... ON CONFLICT waits for, while it waits for a row that
 * transaction holds). So its UPDATE waits for no row longer than 10 ms (lock_timeout,
 * set before its first row: `lt`, and set back once every row is written, so that the
 * trigger and the commit, which waits for other notifying commits, wait as usual), far
 * below deadlock_timeout: a statement that waited that long gives up (55P03),
 * releasing what it held before anyone deadlocks. Either way the store sends the same
 * calls again through SQL_CAS_ROWS, whose lock step fails only the groups whose keys
 * moved. Measured in psql, 1,000 existing keys of a fan-out
 * (EXPLAIN ANALYZE, eight alternating runs): 6.3-8.5 ms of execution against 8.1-12.9
 * for SQL_CAS_ROWS. Parameters and answer as SQL_CAS_ROWS's ($11 as above). */
const char SQL_CAS_UPD[] =
    "WITH" SQL_QUIET ","
    " lt0 AS MATERIALIZED (SELECT current_setting('lock_timeout') AS was),"
    " lt AS MATERIALIZED (SELECT set_config('lock_timeout', '10ms', true) FROM lt0),"
    " upd AS (UPDATE bitmapd.bitmaps b SET " SQL_ROW_SET
    "           FROM (SELECT * FROM " SQL_ROW_VALUES " ORDER BY key) v"
    "          WHERE b.key = v.key AND b.version = v.ver AND octet_length(b.bits) > 0"
    "            AND (SELECT count(*) FROM lt) = 1"
    "      RETURNING 1)"
    " SELECT NULL::int4, txid_current() % 4294967296 FROM quiet"
    " UNION ALL"
    " SELECT bitmapd._cas_conflict(), NULL WHERE (SELECT count(*) FROM upd) <> cardinality($1::bytea[])"
    " UNION ALL" /* after upd ran whole (counted above): the trigger and the commit wait as usual */
    " SELECT NULL, NULL FROM lt0 WHERE set_config('lock_timeout', lt0.was, true) IS NULL";

/* The answer of the one-key statements, as SQL_CAS_ANSWER gives it: the key's group
 * when the head update (CTE cte) matched no row, and the transaction's id. */
#define SQL_CAS_ONE_ANSWER(cte) \
    " SELECT ($6::int4[])[1], NULL::int8 WHERE NOT EXISTS (SELECT 1 FROM " cte ")" \
    " UNION ALL" \
    " SELECT NULL, txid_current() % 4294967296"

/* SQL_CAS_ROWS's answer for the commonest batch, one existing row written (a hot key
 * between commits): a plain UPDATE of the row at its version, with the same
 * parameters and answer. The general statement's lock step, joins and sorts cost
 * PostgreSQL more to start than the row costs to write. A row found chunked (by
 * another instance) matches nothing, so the write is a conflict: the reload that
 * follows sees the head and sends the key through SQL_CAS. */
const char SQL_CAS_ONE[] =
    "WITH upd AS (UPDATE bitmapd.bitmaps b"
    "                SET bits = ($3::bytea[])[1], cardinality = ($4::int8[])[1], checksum = ($5::int8[])[1],"
    "                    nbytes = ($7::int8[])[1], version = b.version + ($8::int8[])[1], updated_at = now(),"
    "                    expire_ms = ($9::int8[])[1], bucket = coalesce(-($10::int4[])[1]::int2, b.bucket)"
    "              WHERE b.key = ($1::bytea[])[1] AND b.version = ($2::int8[])[1] AND octet_length(b.bits) > 0"
    "          RETURNING 1)"
    SQL_CAS_ONE_ANSWER("upd");

/* The head update of the one-key statements of a chunked row whose chunk directory is
 * known, as CTE h: at its version and at the transaction that wrote the directory
 * (dirxid; the check SQL_CAS makes by aborting), with its new flips (NULL once the
 * chunks are written whole); extra: more conditions. The parameters that differ
 * between the two statements are named by the caller. */
#define SQL_CAS_HEAD_UPDATE(flips, sp, dirxid, extra) \
    "WITH h AS (UPDATE bitmapd.bitmaps b" \
    "              SET cardinality = ($4::int8[])[1], checksum = ($5::int8[])[1], nbytes = ($7::int8[])[1]," \
    "                  version = b.version + ($8::int8[])[1], updated_at = now(), flips = (" flips "::bytea[])[1]," \
    "                  expire_ms = ($9::int8[])[1], bucket = coalesce(-(" sp "::int4[])[1]::int2, b.bucket)" \
    "            WHERE b.key = ($1::bytea[])[1] AND b.version = ($2::int8[])[1] AND octet_length(b.bits) = 0" \
    "              AND b.xmin::text::int8 = (" dirxid "::int8[])[1]" extra \
    "              AND octet_length(($3::bytea[])[1]) = 0" \
    "        RETURNING 1)"

/* The same for one chunked row whose chunk directory is known (a hot big key): the
 * head (SQL_CAS_HEAD_UPDATE, whole = 0), and only if it matched, the changed chunks
 * written and the vanished ones deleted. A head that does not match writes nothing: a
 * conflict. */
const char SQL_CAS_ONE_CHUNKED[] =
    SQL_CAS_HEAD_UPDATE("$18", "$19", "$17", " AND ($10::int4[])[1] = 0") ","
    " c AS (SELECT * FROM unnest($11::bytea[], $12::int4[], $13::int4[], $14::bytea[], $15::int8[], $16::int8[])"
    "                  AS t(key, lo, hi, bits, card, crc)"
    "        WHERE EXISTS (SELECT 1 FROM h)),"
    /* only chunks whose bytes changed are sent: no comparison (it would read the old
     * chunk back from TOAST) */
    SQL_CHUNKS_UPSERT("")
    " cdel AS (DELETE FROM bitmapd.chunks x USING c"
    "           WHERE x.key = c.key AND x.lo = c.lo AND c.bits IS NULL)"
    SQL_CAS_ONE_ANSWER("h");

/* SQL_CAS_ONE_CHUNKED's commonest case, a hot big key between chunk writes: the write
 * is its flips alone (no chunk row sent), so only the head is updated, with the same
 * checks. The chunk CTEs cost PostgreSQL their start-up (two more tables to open for
 * writing) in every statement even when they write nothing. Parameters: $1-$9 and
 * $10 (spill marks) as SQL_CAS_ONE, $11 the directory's transaction, $12 the flips. */
const char SQL_CAS_ONE_FLIPS[] = SQL_CAS_HEAD_UPDATE("$12", "$10", "$11", "") SQL_CAS_ONE_ANSWER("h");

/* The write-behind log's append (docs/design.md, "Write-behind log"): the new images
 * ($5, one packed image each, of group $8) as one row of bitmapd.wlog, leaving out the
 * groups that failed: a key not pending in the log whose row no longer has the version
 * (or absence) its write was computed from ($1-$3, probed with a share lock in key
 * order, so that a write in place of the same key still in flight — one whose answer
 * was lost — is waited for and seen), or a group that failed its check against a
 * pending image ($4). The probe is one index scan of all the keys (`= ANY`), locked
 * after its ORDER BY, so in key order whatever the plan: a probe per key (a lateral
 * subquery) and a rebuilt array of the images cost 1.5 ms of a 360-key append where
 * this costs 0.63 (psql, median of 180 executions each); when no group failed, $5 goes
 * in as it came. Nothing goes in unless this instance still holds the lease, and
 * no image of a member of a family in buckets (migration 0016: BMB02). The change
 * notification names the images written ("!w," first, so that other instances know
 * the log is in use); it is sent only while another instance watches (`watched`).
 * Answer: the groups that failed, then the transaction's id, the
 * log row (NULL: nothing was written) and whether the lease held. */
/* What both appends check, in one text so that they cannot drift apart: the rows of
 * the probed keys ($1), locked in key order (`found`); the probed groups whose row
 * moved (`SQL_APPEND_PROBED_BAD`, a SELECT of grp); and whether this instance holds the
 * lease (`SQL_APPEND_LEASE_OK`, a boolean expression). */
#define SQL_APPEND_FOUND \
    "WITH found AS MATERIALIZED (SELECT x.key, x.version, octet_length(x.bits) = 0 AS chunked" \
    "                              FROM bitmapd.bitmaps x WHERE x.key = ANY ($1::bytea[])" \
    "                             ORDER BY x.key FOR SHARE),"
#define SQL_APPEND_PROBED_BAD \
    "SELECT p.grp FROM unnest($1::bytea[], $2::int8[], $3::int4[]) AS p(key, ver, grp)" \
    "  LEFT JOIN found f ON f.key = p.key" \
    " WHERE coalesce(f.version, -1) <> p.ver OR f.chunked"
#define SQL_APPEND_LEASE_OK \
    "NOT pg_try_advisory_xact_lock_shared(" WLOG_LEASE_LOCK ")" \
    " AND current_setting('bitmapd.instance', true) = (SELECT holder FROM bitmapd.wlog_lease)"

/* SQL_APPEND's commonest case, sent while no image of the batch is known to fail
 * against a pending one and no other instance was found watching the appends
 * (store_cas.c): the same probe, lease and key checks, and the images ($4) go in as
 * one row only if every group passed, no other instance watches (the exclusive lock
 * on this session's slot of WLOG_WATCH_LOCK, kept until the commit, as SQL_APPEND
 * takes it) and the lease holds. It leaves out what those cases need: rebuilding
 * the images array without the failed groups and the notification with its window
 * and sort, whose start-up PostgreSQL pays in every statement even when they do
 * nothing: 85 µs of PostgreSQL CPU of a 23-key append (445 against 361, medians of
 * five alternating runs of 1,500 appends, docs/design.md, "The lean append"). A
 * batch that fails a group or finds a watcher puts nothing in; its calls go out
 * again through SQL_APPEND. Answer: the failed groups, then the transaction's id,
 * the log row (NULL: nothing was written) and 1 if the lease held plus 2 if another
 * instance watches. Parameters: SQL_APPEND's $1-$3, the images ($5 there) and their
 * keys ($6 there). */
const char SQL_APPEND_LEAN[] =
    SQL_APPEND_FOUND
    " bad AS MATERIALIZED (" SQL_APPEND_PROBED_BAD "),"
    " held AS MATERIALIZED (SELECT " SQL_APPEND_LEASE_OK " AS ok,"
    "                              NOT pg_try_advisory_xact_lock(" WLOG_WATCH_LOCK ","
    "                                    pg_backend_pid() % " WLOG_WATCH_SLOTS ") AS watched),"
    " ins AS (INSERT INTO bitmapd.wlog (images)"
    "         SELECT $4::bytea[] FROM held"
    "          WHERE ok AND NOT watched AND NOT EXISTS (SELECT 1 FROM bad) AND cardinality($4::bytea[]) > 0"
    "            AND bitmapd._wlog_keys_ok($5::bytea[])"
    "         RETURNING seq)"
    " SELECT DISTINCT grp, NULL::int8, NULL::int8, NULL::int4 FROM bad"
    " UNION ALL"
    " SELECT NULL, txid_current() % 4294967296, (SELECT seq FROM ins), ok::int4 + 2 * watched::int4 FROM held";

const char SQL_APPEND[] =
    SQL_APPEND_FOUND
    " bad AS (" SQL_APPEND_PROBED_BAD
    "         UNION SELECT unnest($4::int4[])),"
    " held AS MATERIALIZED (SELECT " SQL_APPEND_LEASE_OK
    "                              AND bitmapd._wlog_keys_ok($6::bytea[]) AS ok),"
    " good AS (SELECT * FROM unnest($5::bytea[], $6::bytea[], $7::int8[], $8::int4[]) WITH ORDINALITY"
    "                          AS i(img, k, v, grp, ord)"
    "           WHERE i.grp NOT IN (SELECT grp FROM bad)),"
    " ins AS (INSERT INTO bitmapd.wlog (images)"
    "         SELECT a FROM (SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM bad) THEN $5::bytea[]"
    "                                    ELSE (SELECT array_agg(img ORDER BY ord) FROM good) END AS a) x"
    "          WHERE cardinality(a) > 0 AND (SELECT ok FROM held)"
    "         RETURNING seq),"
    /* announced only to other instances' listeners (WLOG_WATCH_LOCK): with none, the
     * exclusive lock keeps any from registering until this commits */
    " watched AS MATERIALIZED (SELECT NOT pg_try_advisory_xact_lock(" WLOG_WATCH_LOCK ","
    "                                    pg_backend_pid() % " WLOG_WATCH_SLOTS ") AS yes),"
    " n AS (SELECT pg_notify('bitmapd_changed', '!w,' || string_agg(item, ',' ORDER BY ord))"
    "         FROM (SELECT item, ord, sum(length(item) + 1) OVER (ORDER BY ord) / 3500 AS chunk"
    "                 FROM (SELECT encode(k, 'hex') || ':' || v || ':' || txid_current() % 4294967296 AS item, ord"
    "                         FROM good) s) t"
    "        WHERE EXISTS (SELECT 1 FROM ins) AND (SELECT yes FROM watched)"
    "        GROUP BY chunk)"
    " SELECT grp, NULL::int8, NULL::int8, NULL::int4 FROM (SELECT DISTINCT grp FROM bad) d"
    " UNION ALL"
    " SELECT NULL, txid_current() % 4294967296, (SELECT seq FROM ins), (SELECT ok FROM held)::int4"
    "   FROM (SELECT count(*) FROM n) c";
