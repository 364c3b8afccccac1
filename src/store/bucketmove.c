/* bucketmove.c — `bitmapd --buckets in|out FAMILY`: moves the keys of a family into
 * bucket rows (bucket.h) or out of them, while instances serve (migration 0016,
 * docs/design.md "Moving keys between layouts").
 *
 * 1. The family's state goes to moving_in (moving_out), its generation +1, under a
 *    lock that waits for the writes in flight, and only with the write-behind log
 *    empty (its images are rows of single keys). Running instances are told
 *    ('!buckets' on bitmapd_changed) and read the state within a second anyway.
 * 2. The mover waits until every bitmapd session shows the new epoch in its
 *    application_name ('bitmapd e=N'): from then on every instance reads a member
 *    from both homes and writes it to the new one, and the database's guard refuses
 *    writes from any session that does not act on the epoch.
 * 3. One bucket a transaction, its rows locked in key order (as the compare-and-swap
 *    locks them): the members' own rows go into the bucket (or the bucket's entries
 *    into own rows), with their versions, values, string lengths and deadlines.
 * 4. With nothing left in the old home, the state goes to on (off), generation +1.
 * A run stopped at any point, even by kill -9, leaves each key whole in one home; a
 * new run goes on from the state it finds. Nothing is guessed: a row that fails its
 * checksum, a value too big for a bucket, or a key in both homes with a value stops
 * the run with an error naming it, nothing of that bucket moved. */
#include "store/bucketmove.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "store/bucket.h"
#include "store/codec.h"
#include "store/db.h"
#include "store/pgbin.h"
#include "core/log.h"

#define PAGE 500
#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_TRIES 50 /* a bucket's transaction, again after a deadlock, a lock timeout, the log */

struct mover {
    PGconn *pg;
    int family;
    bool in;
    int wait_s;
    size_t chunk_bytes;
    int64_t epoch;
    uint8_t *empty;    /* the empty bitmap's encoding: an own row of an empty member */
    size_t empty_len;
    long buckets, keys, dropped;
    bool remaining; /* set_state found a row of the old home under the lock */
    bool probe;     /* a pass only looks for a key to move: it stops at the first */
    char err[512];
};

static int64_t now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool run(struct mover *m, const char *sql)
{
    PGresult *r = PQexec(m->pg, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok) snprintf(m->err, sizeof(m->err), "%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    return ok;
}

/* A statement with parameters (text, unless fmts says binary with lens), binary
 * results; NULL (m->err, prefixed with what when given, and *sqlstate) on failure. */
static PGresult *query_as(struct mover *m, const char *what, const char *sql, int n, const char *const *vals,
                          const int *lens, const int *fmts, char *sqlstate)
{
    PGresult *r = PQexecParams(m->pg, sql, n, NULL, vals, lens, fmts, 1);
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
    const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (sqlstate) snprintf(sqlstate, 6, "%s", code ? code : "");
    snprintf(m->err, sizeof(m->err), "%s%s%s", what ? what : "", what ? ": " : "", PQresultErrorMessage(r));
    m->err[strcspn(m->err, "\n")] = '\0';
    PQclear(r);
    return NULL;
}

static PGresult *query(struct mover *m, const char *sql, int n, const char *const *vals, char *sqlstate)
{
    return query_as(m, NULL, sql, n, vals, NULL, NULL, sqlstate);
}

static int64_t int8_at(const PGresult *r, int row, int col, int64_t if_null)
{
    return PQgetisnull(r, row, col) ? if_null : db_value_int8(r, row, col);
}

/* What a failed bucket transaction may do: go again (a deadlock, a lock timeout, the
 * log in the way, after asking for a fold) or stop. */
static bool again(struct mover *m, const char *sqlstate, int tries)
{
    PQclear(PQexec(m->pg, "ROLLBACK"));
    if (tries >= MAX_TRIES) return false;
    if (strcmp(sqlstate, "BMW01") == 0 || strcmp(sqlstate, "BMW02") == 0) {
        PQclear(PQexec(m->pg, "SELECT bitmapd.wlog_fold()"));
        pause_ms(200);
        return true;
    }
    /* 23505: an instance wrote the bucket's first member after the lock found no row */
    if (strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "55P03") == 0 || strcmp(sqlstate, "40001") == 0 ||
        strcmp(sqlstate, "23505") == 0) {
        pause_ms(20 * tries);
        return true;
    }
    return false;
}

/* ---- the state ---------------------------------------------------------------------- */

static const char *state_after(bool in, bool moving) { return in ? (moving ? "moving_in" : "on") : (moving ? "moving_out" : "off"); }

/* Sets the family's state to `to` unless it is `to` already (or, with `from` given, it
 * is not one of from): under a lock that waits for the writes in flight, with the
 * log empty. *was gets the state found. */
static bool set_state(struct mover *m, const char *to, const char *const *from, char *was, size_t wascap)
{
    char fam[8], sqlstate[6] = "";
    snprintf(fam, sizeof(fam), "%d", m->family);
    const char *v[2] = {fam, to};
    for (int tries = 1;; tries++) {
        PGresult *r = NULL;
        if (!run(m, "BEGIN") || !run(m, "SET LOCAL lock_timeout = '5s'")) return false;
        if (!(r = query(m, "LOCK TABLE bitmapd.bitmaps, bitmapd.wlog IN SHARE ROW EXCLUSIVE MODE", 0, NULL, sqlstate)))
            goto retry;
        PQclear(r);
        if (!(r = query(m,
                        "SELECT state, (SELECT count(*) FROM (SELECT 1 FROM bitmapd.wlog LIMIT 1) l)::int8,"
                        "       (SELECT count(*) FROM (SELECT 1 FROM bitmapd.bitmaps"
                        "                               WHERE bucket > 0 AND bucket = $1::int2 AND $2 = 'off' LIMIT 1) b)::int8"
                        "  FROM bitmapd.bucket_state WHERE family = $1::int2 FOR UPDATE",
                        2, v, sqlstate)))
            goto retry;
        if (PQntuples(r) != 1) {
            snprintf(m->err, sizeof(m->err), "no family %d in bitmapd.bucket_state", m->family);
            PQclear(r);
            PQclear(PQexec(m->pg, "ROLLBACK"));
            return false;
        }
        snprintf(was, wascap, "%.*s", PQgetlength(r, 0, 0), PQgetvalue(r, 0, 0));
        bool logged = db_value_int8(r, 0, 1) > 0;
        m->remaining = db_value_int8(r, 0, 2) > 0; /* off, with a bucket row left: another pass */
        PQclear(r);
        if (m->remaining) {
            PQclear(PQexec(m->pg, "ROLLBACK"));
            snprintf(m->err, sizeof(m->err), "bucket rows of the family appeared after the last pass");
            return false;
        }
        bool allowed = !from;
        for (int i = 0; from && from[i]; i++) allowed |= strcmp(was, from[i]) == 0;
        if (strcmp(was, to) == 0 || !allowed) return run(m, "COMMIT");
        if (logged) { /* its images were made for the old state: folded first */
            PQclear(PQexec(m->pg, "ROLLBACK"));
            PQclear(PQexec(m->pg, "SELECT bitmapd.wlog_fold()"));
            if (tries >= MAX_TRIES) {
                snprintf(m->err, sizeof(m->err), "the write-behind log (bitmapd.wlog) did not empty");
                return false;
            }
            pause_ms(200);
            continue;
        }
        if (!(r = query(m, "UPDATE bitmapd.bucket_state SET state = $2, gen = gen + 1 WHERE family = $1::int2", 2, v,
                        sqlstate)))
            goto retry;
        PQclear(r);
        if (!run(m, "SELECT pg_notify('bitmapd_changed', '!buckets')")) goto fail;
        if (!run(m, "COMMIT")) return false;
        log_info("msg=\"bucket state changed\" family=%d from=%s to=%s", m->family, was, to);
        return true;
    retry:
        if (again(m, sqlstate, tries)) continue;
        return false;
    fail:
        PQclear(PQexec(m->pg, "ROLLBACK"));
        return false;
    }
}

/* This session acts on the epoch now in the table (the guard of migration 0016). */
static bool take_epoch(struct mover *m)
{
    PGresult *r = query(m,
                        "SELECT bitmapd.bucket_epoch(),"
                        " set_config('bitmapd.bucket_epoch', bitmapd.bucket_epoch()::text, false)",
                        0, NULL, NULL);
    if (!r) return false;
    m->epoch = db_value_int8(r, 0, 0);
    PQclear(r);
    return true;
}

/* The sessions of bitmapd instances in pg_stat_activity (not this mover's): named
 * 'bitmapd', and 'bitmapd e=N' once they act on a bucket epoch. */
#define INSTANCE_SESSIONS                                                                                   \
    " datname = current_database() AND pid <> pg_backend_pid()"                                           \
    " AND (application_name = 'bitmapd' OR application_name LIKE 'bitmapd e=%')"

/* Waits until every bitmapd session shows the epoch (bitmapd sets 'bitmapd e=N' in
 * its application_name when it acts on state N). */
static bool wait_instances(struct mover *m)
{
    char want[40];
    snprintf(want, sizeof(want), "bitmapd e=%lld", (long long)m->epoch);
    const char *v[1] = {want};
    int64_t deadline = now_ms() + (int64_t)m->wait_s * 1000;
    for (;;) {
        PGresult *r = query(m,
                            "SELECT string_agg(format('pid %s (%s)', pid, application_name), ', '), count(*)::int8"
                            "  FROM pg_stat_activity WHERE" INSTANCE_SESSIONS " AND application_name <> $1",
                            1, v, NULL);
        if (!r) return false;
        int64_t behind = db_value_int8(r, 0, 1);
        if (behind == 0) {
            PQclear(r);
            return true;
        }
        if (now_ms() > deadline) {
            snprintf(m->err, sizeof(m->err),
                     "after %d s, %lld bitmapd session(s) do not act on bucket epoch %lld yet: %.300s "
                     "(an older bitmapd, or one that cannot read bitmapd.bucket_state: upgrade or stop it, then run "
                     "this again; nothing was moved meanwhile)",
                     m->wait_s, (long long)behind, (long long)m->epoch,
                     PQgetisnull(r, 0, 0) ? "" : PQgetvalue(r, 0, 0));
            PQclear(r);
            return false;
        }
        PQclear(r);
        pause_ms(100);
    }
}

/* ---- one bucket --------------------------------------------------------------------- */

/* The bucket's name and its members' names as a text[] literal ({"b","m0",...}). */
static bool names_literal(const char *bkey, char *out, size_t cap)
{
    size_t at = (size_t)snprintf(out, cap, "{\"%s\"", bkey);
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) {
        char mk[BUCKET_KEY_MAX];
        if (!bucket_member_key((const uint8_t *)bkey, strlen(bkey), s, mk, sizeof(mk))) return false;
        at += (size_t)snprintf(out + at, cap - at, ",\"%s\"", mk);
        if (at >= cap) return false;
    }
    return (size_t)snprintf(out + at, cap - at, "}") < cap - at;
}

static const char SQL_LOCK_BUCKET[] =
    "SELECT key, version, bits, cardinality::int8, checksum, nbytes, expire_ms, bucket::int8,"
    "       octet_length(bits)::int8"
    "  FROM bitmapd.bitmaps"
    " WHERE key = ANY (ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest($1::text[]) x))"
    " ORDER BY key FOR UPDATE";

/* The slot of member key k (a row of the lock's result) in bucket bkey, or -1. */
static int slot_of(const PGresult *r, int row, const char *bkey)
{
    struct bucket_ref ref;
    const uint8_t *k = (const uint8_t *)PQgetvalue(r, row, 0);
    if (!bucket_of(k, (size_t)PQgetlength(r, row, 0), &ref) || strcmp(ref.bkey, bkey) != 0) return -1;
    return ref.slot;
}

static bool row_intact(const PGresult *r, int row)
{
    return (uint32_t)db_value_int8(r, row, 4) ==
           codec_crc32c((const uint8_t *)PQgetvalue(r, row, 2), (size_t)PQgetlength(r, row, 2));
}

/* The bucket row among a lock's rows, parsed into *d: its row, -1 when there is none
 * (d is then an empty bucket of the family), -2 when it is corrupt (m->err says so). */
static int bucket_row(struct mover *m, const PGresult *r, const char *bkey, struct bucket_dir *d)
{
    char why[128];
    int brow = -1;
    bucket_init(d, (enum bucket_family)m->family);
    for (int i = 0; i < PQntuples(r); i++)
        if (strlen(bkey) == (size_t)PQgetlength(r, i, 0) && memcmp(PQgetvalue(r, i, 0), bkey, strlen(bkey)) == 0)
            brow = i;
    if (brow >= 0 && (int8_at(r, brow, 7, 0) != m->family || !row_intact(r, brow) ||
                      !bucket_parse((const uint8_t *)PQgetvalue(r, brow, 2), (size_t)PQgetlength(r, brow, 2), d,
                                    why, sizeof(why)) ||
                      d->family != (enum bucket_family)m->family)) {
        snprintf(m->err, sizeof(m->err), "bucket row '%.64s' is corrupt (nothing of it moved)", bkey);
        return -2;
    }
    return brow;
}

/* Entries e[0..n) of bucket bkey (at the versions they carry) to new rows of their own
 * (their "no key" rows, if any, deleted before): binary arrays, as the compare-and-swap
 * sends them; an empty member as the empty bitmap. spilled: the rows are marked as
 * spilled members of the family (bucket -f), else as keys of a family that is off. */
static bool insert_members(struct mover *m, const char *bkey, const struct bucket_entry *e, unsigned n, bool spilled,
                           char *sqlstate)
{
    struct pgarr keys = {0}, vers = {0}, bits = {0}, cards = {0}, crcs = {0}, nbs = {0}, exps = {0};
    bool ok = false;
    pa_begin(&keys, OID_BYTEA, n, false);
    pa_begin(&vers, OID_INT8, n, false);
    pa_begin(&bits, OID_BYTEA, n, false);
    pa_begin(&cards, OID_INT8, n, false);
    pa_begin(&crcs, OID_INT8, n, false);
    pa_begin(&nbs, OID_INT8, n, true);
    pa_begin(&exps, OID_INT8, n, true);
    for (unsigned i = 0; i < n; i++) {
        char mk[BUCKET_KEY_MAX];
        size_t mkl = bucket_member_key((const uint8_t *)bkey, strlen(bkey), e[i].slot, mk, sizeof(mk));
        const uint8_t *b = e[i].len ? e[i].val : m->empty;
        size_t len = e[i].len ? e[i].len : m->empty_len;
        pa_elem(&keys, mk, mkl);
        pa_int8(&vers, e[i].version);
        pa_elem(&bits, b, len);
        pa_int8(&cards, (int64_t)e[i].cardinality);
        pa_int8(&crcs, codec_crc32c(b, len));
        pa_int8_or_null(&nbs, e[i].nbytes);
        pa_int8_or_null(&exps, e[i].expire_ms > 0 ? e[i].expire_ms : -1);
    }
    if (keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || nbs.oom || exps.oom) {
        snprintf(m->err, sizeof(m->err), "out of memory");
        goto out;
    }
    struct db_param p[7] = {pa_param(&keys), pa_param(&vers), pa_param(&bits), pa_param(&cards),
                            pa_param(&crcs), pa_param(&nbs),  pa_param(&exps)};
    char fam[8], what[BUCKET_KEY_MAX + 16];
    snprintf(fam, sizeof(fam), "%d", spilled ? m->family : 0);
    snprintf(what, sizeof(what), "bucket '%.64s'", bkey);
    const char *wv[8];
    int wl[8], wf[8];
    for (int i = 0; i < 7; i++) {
        wv[i] = p[i].value;
        wl[i] = p[i].length;
        wf[i] = 1;
    }
    wv[7] = fam;
    wl[7] = 0;
    wf[7] = 0;
    PGresult *w = query_as(m, what,
                           "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes, expire_ms, bucket)"
                           " SELECT *, -nullif($8::int2, 0) FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[],"
                           "                                            $5::int8[],"
                           "                                $6::int8[], $7::int8[]) ORDER BY 1",
                           8, wv, wl, wf, sqlstate);
    ok = w != NULL;
    PQclear(w);
out:
    free(keys.buf);
    free(vers.buf);
    free(bits.buf);
    free(cards.buf);
    free(crcs.buf);
    free(nbs.buf);
    free(exps.buf);
    return ok;
}

/* The members' own rows of bucket bkey go into it. 1: done; 0: failed (m->err); the
 * transaction is over either way. */
static bool move_in(struct mover *m, const char *bkey, const char *names, char *sqlstate)
{
    const char *v[1] = {names};
    PGresult *r = query(m, SQL_LOCK_BUCKET, 1, v, sqlstate);
    struct bucket_dir d;
    int brow = -1;
    char drop[64 * 17 + 8], spill[64 * 17 + 8];
    enum { KEEP, DROP, SPILL } fate[BUCKET_SLOTS + 1] = {KEEP};
    int rowof[BUCKET_SLOTS]; /* per slot: the own row whose value this transaction moves in, or -1 */
    int ownrow[BUCKET_SLOTS]; /* per slot: its own row (unmarked), or -1 */
    struct bucket_entry old[BUCKET_SLOTS]; /* entries of the bucket that spill to new rows */
    unsigned nold = 0;
    long moved = 0, dropped = 0, marked = 0;
    int64_t now = now_ms();
    uint8_t *buf = NULL;
    bool ok = false;

    if (!r) return false;
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) rowof[s] = ownrow[s] = -1;
    if ((brow = bucket_row(m, r, bkey, &d)) == -2) goto out;
    for (int i = 0; i < PQntuples(r) && i <= (int)BUCKET_SLOTS; i++) {
        if (i == brow || !PQgetisnull(r, i, 7)) continue; /* the bucket; a member that spilled already */
        int slot = slot_of(r, i, bkey);
        const char *key = PQgetvalue(r, i, 0);
        int keylen = PQgetlength(r, i, 0);
        if (slot < 0) continue;
        ownrow[slot] = i;
        int64_t exp = int8_at(r, i, 6, 0);
        bool empty = (int8_at(r, i, 3, 0) == 0 && PQgetisnull(r, i, 5)) || (exp > 0 && exp <= now);
        int k = bucket_find(&d, (unsigned)slot);
        if (k >= 0 && d.e[k].stub) { /* spilled already, its mark lost (a write during a move out
                                      * that was then turned back): marked again */
            fate[i] = SPILL;
            marked++;
            continue;
        }
        if (k >= 0 && !empty) {
            snprintf(m->err, sizeof(m->err),
                     "key '%.*s' holds a value in its own row and in bucket '%.64s' (nothing of it moved)", keylen, key,
                     bkey);
            goto out;
        }
        if (int8_at(r, i, 8, 0) == 0 && k < 0) { /* cut into chunks: it stays where it is, spilled */
            struct bucket_entry stub = {.slot = (uint8_t)slot, .stub = true, .version = db_value_int8(r, i, 1), .nbytes = -1};
            if (!bucket_put(&d, &stub)) {
                snprintf(m->err, sizeof(m->err), "key '%.*s': a version a bucket cannot hold", keylen, key);
                goto out;
            }
            fate[i] = SPILL;
            moved++;
            continue;
        }
        if (!row_intact(r, i)) {
            snprintf(m->err, sizeof(m->err), "key '%.*s' fails its checksum (nothing of '%.64s' moved; repair or delete it)",
                     keylen, key, bkey);
            goto out;
        }
        if (k < 0) { /* its value, string length and deadline; or "no key" at its version (a version
                      * is never given twice: a writer's compare-and-swap relies on it) */
            struct bucket_entry e = {.slot = (uint8_t)slot, .version = db_value_int8(r, i, 1),
                                     .cardinality = (uint64_t)int8_at(r, i, 3, 0), .nbytes = int8_at(r, i, 5, -1),
                                     .expire_ms = exp};
            if (e.cardinality > 0) {
                e.val = (const uint8_t *)PQgetvalue(r, i, 2);
                e.len = (size_t)PQgetlength(r, i, 2);
            }
            if (!bucket_put(&d, &e)) {
                snprintf(m->err, sizeof(m->err), "key '%.*s': a value a bucket cannot hold", keylen, key);
                goto out;
            }
            rowof[slot] = i;
            moved++;
        } else {
            dropped++; /* "no key" or expired, and the bucket holds a later version */
        }
        fate[i] = DROP;
    }
    if (moved + dropped + marked == 0) {
        ok = run(m, "COMMIT");
        goto out;
    }
    if (moved > 0) {
        size_t size = bucket_size(&d);
        /* too big: the biggest value moved in stays in its row, spilled; then (entries
         * instances wrote during the move, with the stubs added) the biggest entry goes
         * to a new row of its own, its version above its "no key" row's, if any */
        while (size > m->chunk_bytes) {
            int best = -1, best_old = -1;
            for (unsigned k = 0; k < d.n; k++) {
                const struct bucket_entry *e = &d.e[k];
                if (e->stub || !e->len) continue;
                if (rowof[e->slot] >= 0 && (best < 0 || e->len > d.e[best].len)) best = (int)k;
                if (rowof[e->slot] < 0 && e->intact && (best_old < 0 || e->len > d.e[best_old].len)) best_old = (int)k;
            }
            if (best < 0 && best_old < 0) break;
            struct bucket_entry stub = {.stub = true, .nbytes = -1};
            if (best >= 0) {
                stub.slot = d.e[best].slot;
                stub.version = d.e[best].version;
                fate[rowof[stub.slot]] = SPILL;
            } else {
                old[nold] = d.e[best_old];
                int o = ownrow[old[nold].slot];
                if (o >= 0 && db_value_int8(r, o, 1) + 1 > old[nold].version) old[nold].version = db_value_int8(r, o, 1) + 1;
                stub.slot = old[nold].slot;
                stub.version = old[nold++].version;
            }
            if (!bucket_put(&d, &stub)) break;
            size = bucket_size(&d);
        }
        if (size > m->chunk_bytes) {
            snprintf(m->err, sizeof(m->err),
                     "bucket '%.64s' would hold %zu bytes, over [postgres] chunk_bytes (%zu), with every member in a "
                     "row of its own (nothing of it moved)",
                     bkey, size, m->chunk_bytes);
            goto out;
        }
        uint64_t live, deadlines;
        bucket_counts(&d, &live, &deadlines);
        if (!(buf = malloc(size)) || bucket_write(&d, buf, size) != size) {
            snprintf(m->err, sizeof(m->err), "out of memory");
            goto out;
        }
        char card[24], crc[24], fam[8], ndl[24];
        snprintf(card, sizeof(card), "%llu", (unsigned long long)live);
        snprintf(ndl, sizeof(ndl), "%llu", (unsigned long long)deadlines);
        snprintf(crc, sizeof(crc), "%lu", (unsigned long)codec_crc32c(buf, size));
        snprintf(fam, sizeof(fam), "%d", m->family);
        const char *wv[6] = {bkey, (const char *)buf, card, crc, fam, ndl};
        int wl[6] = {0, (int)size, 0, 0, 0, 0}, wf[6] = {0, 1, 0, 0, 0, 0};
        char what[BUCKET_KEY_MAX + 16];
        snprintf(what, sizeof(what), "bucket '%.64s'", bkey);
        PGresult *w = query_as(
            m, what,
            brow >= 0 ? "UPDATE bitmapd.bitmaps SET bits = $2, cardinality = $3::int8, checksum = $4::int8,"
                        " nbytes = $6::int8, version = version + 1, updated_at = now()"
                        " WHERE key = convert_to($1, 'UTF8') AND $5 <> ''"
                      : "INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, bucket, nbytes)"
                        " VALUES (convert_to($1, 'UTF8'), 1, $2, $3::int8, $4::int8, $5::int2, $6::int8)",
            6, wv, wl, wf, sqlstate);
        if (!w) goto out;
        PQclear(w);
    }
    size_t dl = (size_t)snprintf(drop, sizeof(drop), "{"), sl = (size_t)snprintf(spill, sizeof(spill), "{");
    for (int i = 0; i < PQntuples(r) && i <= (int)BUCKET_SLOTS; i++) {
        if (fate[i] == KEEP) continue;
        char *to = fate[i] == DROP ? drop : spill;
        size_t *at = fate[i] == DROP ? &dl : &sl;
        *at += (size_t)snprintf(to + *at, sizeof(drop) - *at, "%s\"%.*s\"", *at > 1 ? "," : "", PQgetlength(r, i, 0),
                                PQgetvalue(r, i, 0));
    }
    snprintf(drop + dl, sizeof(drop) - dl, "}");
    snprintf(spill + sl, sizeof(spill) - sl, "}");
    char fam[8];
    snprintf(fam, sizeof(fam), "%d", m->family);
    /* the rows moved in go; those of members too big to share stay theirs, marked spilled */
    const char *dv[3] = {drop, spill, fam};
    PGresult *dr = query(m,
                         "WITH d AS (DELETE FROM bitmapd.bitmaps"
                         "            WHERE key = ANY (ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest($1::text[]) x))"
                         "              AND bucket IS NULL)"
                         " UPDATE bitmapd.bitmaps SET bucket = -$3::int2"
                         "  WHERE key = ANY (ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest($2::text[]) x))"
                         "    AND bucket IS NULL",
                         3, dv, sqlstate);
    if (!dr) goto out;
    PQclear(dr);
    if (nold > 0 && !insert_members(m, bkey, old, nold, true, sqlstate)) goto out;
    if (!run(m, "COMMIT")) goto out;
    m->keys += moved;
    m->dropped += dropped;
    m->buckets++;
    ok = true;
out:
    free(buf);
    PQclear(r);
    return ok;
}

/* Bucket bkey's entries go to their own rows, and the bucket row goes: one DELETE
 * (the bucket row, and own rows that say "no key" for an entry), one INSERT of every
 * member (binary arrays, as the compare-and-swap sends them). */
static bool move_out(struct mover *m, const char *bkey, const char *names, char *sqlstate)
{
    const char *v[1] = {names};
    PGresult *r = query(m, SQL_LOCK_BUCKET, 1, v, sqlstate);
    struct bucket_dir d;
    int brow = -1, own[BUCKET_SLOTS];
    long moved = 0;
    bool ok = false;
    struct pgarr gone = {0}, spilled = {0};
    struct bucket_entry take[BUCKET_SLOTS]; /* the entries that go, at their new versions */

    if (!r) return false;
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) own[s] = -1;
    for (int i = 0; i < PQntuples(r); i++)
        if (PQgetisnull(r, i, 7) && slot_of(r, i, bkey) >= 0) own[slot_of(r, i, bkey)] = i;
    if ((brow = bucket_row(m, r, bkey, &d)) == -2) goto out;
    if (brow < 0) { /* gone meanwhile */
        ok = run(m, "COMMIT");
        goto out;
    }
    /* which entries go, which own rows they replace (the arrays are sized first) */
    int64_t now = now_ms();
    unsigned ntake = 0, nown = 0, stubs[BUCKET_SLOTS], nstubs = 0, takek[BUCKET_SLOTS];
    char mk[BUCKET_SLOTS][BUCKET_KEY_MAX];
    size_t mkl[BUCKET_SLOTS];
    for (unsigned k = 0; k < d.n; k++) {
        const struct bucket_entry *e = &d.e[k];
        mkl[k] = bucket_member_key((const uint8_t *)bkey, strlen(bkey), e->slot, mk[k], sizeof(mk[k]));
        if (mkl[k] && e->stub) stubs[nstubs++] = k; /* spilled: its own row is its home already */
        if (!mkl[k] || e->stub) continue;
        if (!e->intact) {
            snprintf(m->err, sizeof(m->err), "key '%.64s' fails its checksum in bucket '%.64s' (nothing of it moved)", mk[k],
                     bkey);
            goto out;
        }
        int o = own[e->slot];
        int64_t oexp = o >= 0 ? int8_at(r, o, 6, 0) : 0;
        if (o >= 0 && !(int8_at(r, o, 3, 0) == 0 && PQgetisnull(r, o, 5)) && !(oexp > 0 && oexp <= now)) {
            snprintf(m->err, sizeof(m->err),
                     "key '%.64s' holds a value in its own row and in bucket '%.64s' (nothing of it moved)", mk[k], bkey);
            goto out;
        }
        takek[ntake] = k;
        take[ntake] = *e; /* a deleted one too: "no key" at its version */
        if (o >= 0 && db_value_int8(r, o, 1) + 1 > e->version) /* versions only go up */
            take[ntake].version = db_value_int8(r, o, 1) + 1;
        ntake++;
        nown += o >= 0;
    }
    pa_begin(&gone, OID_BYTEA, nown + 1, false);
    pa_begin(&spilled, OID_BYTEA, nstubs, false);
    for (unsigned t = 0; t < nstubs; t++) pa_elem(&spilled, mk[stubs[t]], mkl[stubs[t]]);
    pa_elem(&gone, bkey, strlen(bkey));
    for (unsigned t = 0; t < ntake; t++) /* "no key" or expired own rows: the entries replace them */
        if (own[take[t].slot] >= 0) pa_elem(&gone, mk[takek[t]], mkl[takek[t]]);
    moved = ntake;
    if (gone.oom || spilled.oom) {
        snprintf(m->err, sizeof(m->err), "out of memory");
        goto out;
    }
    struct db_param g = pa_param(&gone);
    const char *gv[1] = {g.value};
    int gl[1] = {g.length}, gf[1] = {1};
    char what[BUCKET_KEY_MAX + 16];
    snprintf(what, sizeof(what), "bucket '%.64s'", bkey);
    PGresult *dr = query_as(m, what, "DELETE FROM bitmapd.bitmaps WHERE key = ANY ($1::bytea[])", 1, gv, gl, gf,
                            sqlstate);
    if (!dr) goto out;
    PQclear(dr);
    if (nstubs > 0) { /* rows of keys of a family that is off: no spill mark */
        struct db_param sp = pa_param(&spilled);
        const char *sv[1] = {sp.value};
        int sl[1] = {sp.length}, sf[1] = {1};
        PGresult *sr = query_as(m, what, "UPDATE bitmapd.bitmaps SET bucket = NULL WHERE key = ANY ($1::bytea[]) AND bucket < 0",
                                1, sv, sl, sf, sqlstate);
        if (!sr) goto out;
        PQclear(sr);
    }
    if (moved > 0 && !insert_members(m, bkey, take, ntake, false, sqlstate)) goto out;
    if (!run(m, "COMMIT")) goto out;
    m->keys += moved;
    m->buckets++;
    ok = true;
out:
    free(gone.buf);
    free(spilled.buf);
    PQclear(r);
    return ok;
}

static bool move_bucket(struct mover *m, const char *bkey)
{
    char names[BUCKET_KEY_MAX * (BUCKET_SLOTS + 1) * 2];
    if (!names_literal(bkey, names, sizeof(names))) {
        snprintf(m->err, sizeof(m->err), "'%.64s' is not a bucket name", bkey);
        return false;
    }
    for (int tries = 1;; tries++) {
        char sqlstate[6] = "";
        m->err[0] = '\0';
        if (!run(m, "BEGIN")) return false;
        if (m->in ? move_in(m, bkey, names, sqlstate) : move_out(m, bkey, names, sqlstate)) return true;
        if (!again(m, sqlstate, tries)) return false;
    }
}

/* ---- the pass ----------------------------------------------------------------------- */

/* The buckets a pass has done, by a 64-bit hash of the name: a bucket whose members
 * lie far apart in key order is moved once. A collision skips a bucket in this pass;
 * the next pass, which runs until one finds nothing, takes it. */
struct seen {
    uint64_t *h;
    size_t cap, n;
};

static uint64_t name_hash(const char *s)
{
    return bytes_hash(s, strlen(s)) | 1; /* 0 marks a free cell */
}

/* Adds name; false when it was there (or memory ran out: then it is moved again). */
static bool seen_add(struct seen *t, const char *name)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        uint64_t *h = calloc(cap, sizeof(*h));
        if (!h) return true;
        for (size_t i = 0; i < t->cap; i++)
            if (t->h[i]) {
                size_t j = t->h[i] & (cap - 1);
                while (h[j]) j = (j + 1) & (cap - 1);
                h[j] = t->h[i];
            }
        free(t->h);
        t->h = h;
        t->cap = cap;
    }
    uint64_t x = name_hash(name);
    size_t j = x & (t->cap - 1);
    while (t->h[j]) {
        if (t->h[j] == x) return false;
        j = (j + 1) & (t->cap - 1);
    }
    t->h[j] = x;
    t->n++;
    return true;
}

/* Every bucket with something to move, in key order: for in, the buckets of the
 * family's own rows (its key range: checkin:, group:); for out, the bucket rows. */
static bool pass(struct mover *m, long *found)
{
    struct seen done = {0};
    *found = 0;
    char lo[16], hi[16], fam[8];
    uint8_t *last = NULL; /* the page's last key, as it is (any bytes) */
    int lastlen = 0;
    snprintf(lo, sizeof(lo), "%s", m->family == BUCKET_CHECKIN ? "checkin:" : "group:");
    snprintf(hi, sizeof(hi), "%s", m->family == BUCKET_CHECKIN ? "checkin;" : "group;");
    snprintf(fam, sizeof(fam), "%d", m->family);
    int64_t t0 = now_ms(), shown = t0;
    for (;;) {
        const char *v[4] = {last ? (const char *)last : "", lo, hi, fam};
        int l[4] = {lastlen, 0, 0, 0}, f[4] = {1, 0, 0, 0};
        PGresult *r = query_as(m, NULL,
                               m->in ? "SELECT key FROM bitmapd.bitmaps"
                                       " WHERE key > $1::bytea AND key >= convert_to($2, 'UTF8')"
                                       "   AND key < convert_to($3, 'UTF8') AND bucket IS NULL AND $4 <> ''"
                                       " ORDER BY key LIMIT " STR(PAGE)
                                     : "SELECT key FROM bitmapd.bitmaps"
                                       " WHERE key > $1::bytea AND bucket > 0 AND bucket = $4::int2"
                                       "   AND $2 <> $3 ORDER BY key LIMIT " STR(PAGE),
                               4, v, l, f, NULL);
        if (!r) {
            free(done.h);
            free(last);
            return false;
        }
        int n = PQntuples(r);
        if (n == 0) {
            PQclear(r);
            break;
        }
        for (int i = 0; i < n; i++) {
            const uint8_t *k = (const uint8_t *)PQgetvalue(r, i, 0);
            size_t kl = (size_t)PQgetlength(r, i, 0);
            struct bucket_ref ref;
            const char *bkey = NULL;
            if (m->in) {
                if (bucket_of(k, kl, &ref) && ref.family == (enum bucket_family)m->family) bkey = ref.bkey;
            } else if (kl < BUCKET_KEY_MAX && bucket_name_family(k, kl) == (enum bucket_family)m->family) {
                memcpy(ref.bkey, k, kl);
                ref.bkey[kl] = '\0';
                bkey = ref.bkey;
            }
            *found += bkey != NULL;
            if (bkey && m->probe) {
                PQclear(r);
                free(done.h);
                free(last);
                return true;
            }
            if (bkey && seen_add(&done, bkey) && !move_bucket(m, bkey)) {
                PQclear(r);
                free(done.h);
                free(last);
                return false;
            }
        }
        free(last);
        lastlen = PQgetlength(r, n - 1, 0);
        if (!(last = malloc((size_t)lastlen + 1))) {
            snprintf(m->err, sizeof(m->err), "out of memory");
            PQclear(r);
            free(done.h);
            return false;
        }
        memcpy(last, PQgetvalue(r, n - 1, 0), (size_t)lastlen);
        PQclear(r);
        if (now_ms() - shown >= 5000) {
            shown = now_ms();
            log_info("msg=\"moving keys\" family=%d direction=%s buckets=%ld keys=%ld dropped=%ld", m->family,
                     m->in ? "in" : "out", m->buckets, m->keys, m->dropped);
        }
    }
    if (!m->probe)
        log_info("msg=\"pass done\" family=%d direction=%s rows=%ld buckets=%ld keys=%ld dropped=%ld ms=%lld", m->family,
                 m->in ? "in" : "out", *found, m->buckets, m->keys, m->dropped, (long long)(now_ms() - t0));
    free(done.h);
    free(last);
    return true;
}

/* Passes until one finds nothing to move: in a moving state no writer makes a row of
 * the old home (the guard refuses it), so the last pass proves the old home empty. */
static bool passes(struct mover *m)
{
    long found = 1;
    for (int i = 0; found > 0; i++)
        if (i >= 10 || !pass(m, &found)) {
            if (i >= 10) snprintf(m->err, sizeof(m->err), "ten passes did not empty the old home");
            return false;
        }
    return true;
}

/* Connects and takes the movers' lock (one at a time); m->err says why not. */
static bool mover_open(struct mover *m, const char *dsn)
{
    const char *kw[] = {"dbname", "application_name", NULL}, *val[] = {dsn, "bitmapd-buckets", NULL};
    m->pg = PQconnectdbParams(kw, val, 1);
    roaring_bitmap_t *e = roaring_bitmap_create();
    bool ok = e && codec_encode(e, &m->empty, &m->empty_len);
    if (e) roaring_bitmap_free(e);
    if (!ok) {
        snprintf(m->err, sizeof(m->err), "out of memory");
        return false;
    }
    if (PQstatus(m->pg) != CONNECTION_OK) {
        snprintf(m->err, sizeof(m->err), "cannot connect: %s", PQerrorMessage(m->pg));
        for (char *c = m->err; (c = strchr(c, '\n'));) *c = ' '; /* libpq's lines, on one */
        return false;
    }
    /* A bucket's commit does not wait for its WAL to reach the disk: a crash may lose
     * the last moves, never a write acknowledged to a client, whose own commit (a
     * later record of the same WAL) flushes them first. It saves a flush a bucket. */
    PQclear(PQexec(m->pg, "SET client_min_messages = warning"));
    PQclear(PQexec(m->pg, "SET synchronous_commit = off"));
    PQclear(PQexec(m->pg, "SET lock_timeout = '5s'"));
    PGresult *lk = query(m, "SELECT pg_try_advisory_lock(7355611)", 0, NULL, NULL); /* one mover at a time */
    ok = lk && PQgetvalue(lk, 0, 0)[0] == 1;
    PQclear(lk);
    if (!ok && !m->err[0]) snprintf(m->err, sizeof(m->err), "another bitmapd --buckets is running");
    return ok;
}

static void mover_close(struct mover *m)
{
    free(m->empty);
    PQfinish(m->pg);
}

/* Moves m->family in (or out) from whatever state it is in; *already says it was
 * there before. */
static bool move_family(struct mover *m, bool *already)
{
    const char *moving = state_after(m->in, true), *done = state_after(m->in, false);
    const char *from_start[] = {state_after(!m->in, false), state_after(!m->in, true), NULL};
    char was[32] = "";
    *already = false;
    if (!set_state(m, moving, from_start, was, sizeof(was))) return false;
    if (strcmp(was, done) == 0) {
        *already = true;
        return true;
    }
    const char *from_moving[] = {moving, NULL};
    bool ok = take_epoch(m) && wait_instances(m) && passes(m);
    bool flipped = false;
    for (int i = 0; ok && !flipped && i < 3; i++) {
        flipped = set_state(m, done, from_moving, was, sizeof(was));
        if (!flipped) ok = m->remaining && passes(m);
    }
    ok = ok && flipped && strcmp(was, moving) == 0 && take_epoch(m);
    if (ok && !wait_instances(m)) /* done; an instance behind only sees it later */
        log_warn("msg=\"%s\"", m->err);
    if (!ok && !m->err[0])
        snprintf(m->err, sizeof(m->err), "the state of family %s changed to '%s' meanwhile",
                 bucket_family_name((enum bucket_family)m->family), was);
    return ok;
}

int bucketmove_main(const char *dsn, size_t chunk_bytes, const char *dir, const char *family, int wait_s)
{
    struct mover m = {.in = dir && strcmp(dir, "in") == 0, .wait_s = wait_s > 0 ? wait_s : 60,
                      .chunk_bytes = chunk_bytes};
    if (!dir || (strcmp(dir, "in") != 0 && strcmp(dir, "out") != 0) || !family) {
        fprintf(stderr, "usage: bitmapd --buckets in|out FAMILY   (FAMILY: checkin or receipt)\n");
        return 2;
    }
    for (int f = 1; f < BUCKET_FAMILIES; f++)
        if (strcmp(family, bucket_family_name((enum bucket_family)f)) == 0) m.family = f;
    if (!m.family) {
        fprintf(stderr, "bitmapd: no family '%s' (checkin or receipt)\n", family);
        return 2;
    }
    bool already = false, ok = mover_open(&m, dsn) && move_family(&m, &already);
    if (ok && already)
        printf("family %s is %s already\n", family, state_after(m.in, false));
    else if (ok)
        printf("family %s is %s (bucket epoch %lld): %ld buckets %s, %ld keys moved, %ld rows without a "
               "key dropped\n",
               family, state_after(m.in, false), (long long)m.epoch, m.buckets, m.in ? "written" : "emptied", m.keys,
               m.dropped);
    else
        fprintf(stderr, "bitmapd: --buckets %s %s: %s\n", dir, family, m.err);
    mover_close(&m);
    return ok ? 0 : 1;
}

/* A family that has never moved (generation 0), is off, and has no key yet (no own
 * row of a member, nothing in the write-behind log), in a database no bitmapd
 * instance is connected to, goes into buckets: the layout a new database starts with
 * (docs/design.md, "Bucket rows by default"). So does one that such a move left
 * moving in (generation 1: stopped part way), under the same conditions. Anything else
 * is left as it is, and said; a family found moving is said at every run. Never fails
 * the migration: a move that fails is said, and `bitmapd --buckets in FAMILY`
 * finishes it. */
void bucketmove_defaults(const char *dsn, size_t chunk_bytes)
{
    struct mover m = {.in = true, .wait_s = 10, .chunk_bytes = chunk_bytes};
    if (!mover_open(&m, dsn)) {
        log_warn("msg=\"families keep their layout\" reason=\"%s\"", m.err);
        mover_close(&m);
        return;
    }
    for (int f = 1; f < BUCKET_FAMILIES; f++) {
        const char *name = bucket_family_name((enum bucket_family)f);
        char fam[8];
        snprintf(fam, sizeof(fam), "%d", f);
        const char *v[1] = {fam};
        m.err[0] = '\0';
        PGresult *r = query(&m,
                            "SELECT state, gen::int8,"
                            "       (SELECT count(*) FROM pg_stat_activity WHERE" INSTANCE_SESSIONS ")::int8,"
                            "       (SELECT count(*) FROM (SELECT 1 FROM bitmapd.wlog LIMIT 1) l)::int8"
                            "  FROM bitmapd.bucket_state WHERE family = $1::int2",
                            1, v, NULL);
        if (!r || PQntuples(r) != 1) {
            log_warn("msg=\"family keeps its layout\" family=%s reason=\"%s\"", name,
                     r ? "not in bitmapd.bucket_state" : m.err);
            PQclear(r);
            continue;
        }
        char state[16];
        snprintf(state, sizeof(state), "%s", PQgetvalue(r, 0, 0));
        int64_t gen = db_value_int8(r, 0, 1), sessions = db_value_int8(r, 0, 2), logged = db_value_int8(r, 0, 3);
        PQclear(r);
        bool fresh = strcmp(state, "off") == 0 && gen == 0, stopped = strcmp(state, "moving_in") == 0 && gen == 1;
        if (!fresh && !stopped) {
            if (strncmp(state, "moving", 6) == 0)
                log_warn("msg=\"family is between layouts\" family=%s state=%s "
                         "hint=\"bitmapd --buckets %s %s finishes the move\"",
                         name, state, strcmp(state, "moving_in") == 0 ? "in" : "out", name);
            continue; /* on already, or an operator's choice */
        }
        long found = 0;
        const char *why = sessions ? "bitmapd instances are connected"
                          : logged ? "the write-behind log holds writes"
                                   : NULL;
        if (!why) {
            m.family = f;
            m.probe = true;
            bool probed = pass(&m, &found);
            m.probe = false;
            why = !probed ? m.err : found ? "it has keys in rows of their own" : NULL;
        }
        if (why) {
            if (stopped)
                log_warn("msg=\"family is between layouts\" family=%s state=%s reason=\"%s\" "
                         "hint=\"bitmapd --buckets in %s finishes the move\"",
                         name, state, why, name);
            else
                log_info("msg=\"family stays in rows of their own\" family=%s reason=\"%s\" "
                         "hint=\"bitmapd --buckets in %s moves it\"",
                         name, why, name);
            continue;
        }
        bool already;
        m.buckets = m.keys = m.dropped = 0;
        if (move_family(&m, &already))
            log_info("msg=\"family in bucket rows\" family=%s epoch=%lld", name, (long long)m.epoch);
        else
            log_warn("msg=\"family not moved into bucket rows\" family=%s reason=\"%s\" "
                     "hint=\"bitmapd --buckets in %s finishes it\"",
                     name, m.err, name);
    }
    mover_close(&m);
}
