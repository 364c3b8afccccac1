/* relayout.c — the last step of `bitmapd --migrate`: every bitmap still stored as one
 * row longer than CHUNK_BYTES (written before migration 0008, or by an older
 * bitmapd during a rolling upgrade) is cut into chunk rows (chunks.h). One key per
 * transaction, its head row locked meanwhile: a running service keeps answering
 * (a write of that key waits for one short transaction), and a run stopped at any
 * point (even by kill -9) leaves every key whole, in one layout or the other; the
 * next run goes on with the keys still to do. The value, version and updated_at
 * of a key do not change; the update of its head row tells the caches of running
 * instances to drop their copy (migration 0007). */
#include "store/relayout.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bucket.h"
#include "store/chunks.h"
#include "store/codec.h"
#include "store/db.h"
#include "core/log.h"
#include "store/store_chunks.h"

#define BATCH 100
#define STR_(x) #x
#define STR(x) STR_(x)

static PGresult *exec_params(PGconn *pg, const char *sql, int n, const char *const *vals, const int *lens,
                             const int *fmts, ExecStatusType want, const char *what)
{
    PGresult *r = PQexecParams(pg, sql, n, NULL, vals, lens, fmts, 1);
    if (PQresultStatus(r) != want) {
        log_error("msg=\"relayout step failed\" step=\"%s\" error=\"%s\"", what, PQresultErrorMessage(r));
        PQclear(r);
        return NULL;
    }
    return r;
}

static bool exec_simple(PGconn *pg, const char *sql)
{
    PGresult *r = PQexec(pg, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) log_error("msg=\"relayout step failed\" step=\"%s\" error=\"%s\"", sql, PQresultErrorMessage(r));
    PQclear(r);
    return ok;
}

/* Writes key as cut into chunk rows, in the caller's transaction (its head row locked):
 * every other chunk row of the key goes, and the head gets empty bits, no flips and
 * the checksum naming the new chunks. */
static bool write_cut(PGconn *pg, const uint8_t *key, int keylen, const struct chunk_cut *cut)
{
    const char *kv[1] = {(const char *)key};
    int kl[1] = {keylen}, kf[1] = {1};
    PGresult *r;
    if (!(r = exec_params(pg, "DELETE FROM bitmapd.chunks WHERE key = $1", 1, kv, kl, kf, PGRES_COMMAND_OK,
                          "delete stray chunks")))
        return false;
    for (size_t i = 0; i < cut->n; i++) {
        const struct chunk_part *cp = &cut->parts[i];
        uint32_t lo = htonl(cp->lo), hi = htonl(cp->hi);
        char card[24], crc[24];
        snprintf(card, sizeof(card), "%lld", (long long)cp->cardinality);
        snprintf(crc, sizeof(crc), "%lu", (unsigned long)cp->checksum);
        const char *v[6] = {(const char *)key, (const char *)&lo, (const char *)&hi, (const char *)cp->bits, card, crc};
        int l[6] = {keylen, 4, 4, (int)cp->len, 0, 0}, f[6] = {1, 1, 1, 1, 0, 0};
        PQclear(r);
        if (!(r = exec_params(pg,
                              "INSERT INTO bitmapd.chunks (key, lo, hi, bits, cardinality, checksum)"
                              " VALUES ($1, $2::int4, $3::int4, $4, $5::int8, $6::int8)",
                              6, v, l, f, PGRES_COMMAND_OK, "insert chunk")))
            return false;
    }
    PQclear(r);
    char crc[24];
    snprintf(crc, sizeof(crc), "%lu", (unsigned long)chunks_head_crc(cut->parts, cut->n, NULL, 0));
    const char *v[2] = {(const char *)key, crc};
    int l[2] = {keylen, 0}, f[2] = {1, 0};
    if (!(r = exec_params(pg, "UPDATE bitmapd.bitmaps SET bits = ''::bytea, flips = NULL, checksum = $2::int8 WHERE key = $1",
                          2, v, l, f, PGRES_COMMAND_OK, "head")))
        return false;
    PQclear(r);
    return true;
}

/* What a pass reads of one key, its head row locked: LOAD_DONE (nothing to do: gone,
 * or done meanwhile), LOAD_CORRUPT (logged, left as it is: the service reports it on
 * use), LOAD_FAILED (a statement or memory failed) or LOAD_OK with *bm its value. */
enum load { LOAD_OK, LOAD_DONE, LOAD_CORRUPT, LOAD_FAILED };
typedef enum load (*load_fn)(PGconn *pg, void *arg, const uint8_t *key, int keylen, roaring_bitmap_t **bm);

/* One key in its own transaction: load locks and reads it, and its value is cut and
 * written whole (write_cut). *done counts keys written, *skipped corrupt ones. */
static bool rewrite_key(PGconn *pg, load_fn load, void *arg, const uint8_t *key, int keylen, long *done,
                        long *skipped)
{
    roaring_bitmap_t *bm = NULL;
    struct chunk_cut cut = {0};
    bool ok;

    if (!exec_simple(pg, "BEGIN")) return false;
    switch (load(pg, arg, key, keylen, &bm)) {
    case LOAD_OK:
        if (!(ok = chunks_cut(bm, CHUNK_BYTES, &cut))) log_error("msg=\"relayout: out of memory\"");
        ok = ok && write_cut(pg, key, keylen, &cut);
        *done += ok;
        break;
    case LOAD_CORRUPT: (*skipped)++; /* fall through */
    case LOAD_DONE: ok = true; break;
    default: ok = false; break;
    }
    if (bm) roaring_bitmap_free(bm);
    chunks_cut_free(&cut);
    return exec_simple(pg, ok ? "COMMIT" : "ROLLBACK") && ok;
}

/* A one-row key longer than CHUNK_BYTES, checked as the service reads it. */
static enum load load_one_row(PGconn *pg, void *arg, const uint8_t *key, int keylen, roaring_bitmap_t **bm)
{
    const char *kv[1] = {(const char *)key};
    int kl[1] = {keylen}, kf[1] = {1};
    char why[160] = "";
    PGresult *r;

    (void)arg;
    if (!(r = exec_params(pg, "SELECT bits, cardinality, checksum FROM bitmapd.bitmaps WHERE key = $1 FOR UPDATE",
                          1, kv, kl, kf, PGRES_TUPLES_OK, "lock")))
        return LOAD_FAILED;
    if (PQntuples(r) != 1 || (size_t)PQgetlength(r, 0, 0) <= CHUNK_BYTES) { /* gone, or cut meanwhile */
        PQclear(r);
        return LOAD_DONE;
    }
    const uint8_t *bits = (const uint8_t *)PQgetvalue(r, 0, 0);
    size_t len = (size_t)PQgetlength(r, 0, 0);
    if (codec_crc32c(bits, len) != (uint32_t)db_value_int8(r, 0, 2))
        snprintf(why, sizeof(why), "checksum mismatch");
    else if (!(*bm = codec_decode(bits, len, why, sizeof(why))))
        ;
    else if ((int64_t)roaring_bitmap_get_cardinality(*bm) != db_value_int8(r, 0, 1))
        snprintf(why, sizeof(why), "cardinality column disagrees");
    PQclear(r);
    if (!why[0]) return LOAD_OK;
    char quoted[4 * 2048 + 1];
    log_error("msg=\"relayout: corrupt bitmap left as it is\" key=\"%s\" reason=\"%s\"",
              log_quote(quoted, sizeof(quoted), key, (size_t)keylen), why);
    return LOAD_CORRUPT;
}

/* rewrite_key(load) for every key that find ($1: the last key done; in key order,
 * BATCH at a time) names. */
static bool each_key(PGconn *pg, const char *find, load_fn load, void *arg, long *done, long *skipped)
{
    uint8_t *after = calloc(1, 1);
    int afterlen = 0;
    bool ok = after != NULL;

    while (ok) {
        const char *v[1] = {(const char *)after};
        int l[1] = {afterlen}, f[1] = {1};
        PGresult *r = exec_params(pg, find, 1, v, l, f, PGRES_TUPLES_OK, "find");
        if (!r) {
            ok = false;
            break;
        }
        int n = PQntuples(r);
        for (int i = 0; ok && i < n; i++)
            ok = rewrite_key(pg, load, arg, (const uint8_t *)PQgetvalue(r, i, 0), PQgetlength(r, i, 0), done, skipped);
        if (ok && n > 0) {
            uint8_t *last = realloc(after, (size_t)PQgetlength(r, n - 1, 0) + 1);
            if (!last) {
                ok = false;
            } else {
                after = last;
                afterlen = PQgetlength(r, n - 1, 0);
                memcpy(after, PQgetvalue(r, n - 1, 0), (size_t)afterlen);
            }
        }
        PQclear(r);
        if (n < BATCH) break;
    }
    free(after);
    return ok;
}

bool relayout_run(PGconn *pg)
{
    long done = 0, skipped = 0;
    bool ok = each_key(pg,
                       "SELECT key FROM bitmapd.bitmaps WHERE key > $1 AND octet_length(bits) > " STR(CHUNK_BYTES)
                       " AND " SQL_KEY_ROW("") " ORDER BY key LIMIT " STR(BATCH),
                       load_one_row, NULL, &done, &skipped);
    if (ok && (done || skipped)) log_info("msg=\"big bitmaps cut into chunks\" keys=%ld corrupt_left=%ld", done, skipped);
    return ok;
}

/* A chunked key with flips: its chunks and flips read with its head row locked,
 * checked and joined as the service loads them (store_chunks_join). */
static enum load load_flipped(PGconn *pg, void *arg, const uint8_t *key, int keylen, roaring_bitmap_t **bm)
{
    struct store_chunks *sc = arg;
    const char *kv[1] = {(const char *)key};
    int kl[1] = {keylen}, kf[1] = {1};
    char why[160] = "";
    PGresult *r;

    /* the columns as SQL_LOAD gives them to store_chunks_join: chunk bits (3), their
     * lo, hi, cardinality and checksum (4), the head's flips (5) */
    if (!(r = exec_params(pg,
                          "SELECT b.cardinality, b.checksum, b.version,"
                          "       (SELECT array_agg(c.bits ORDER BY c.lo) FROM bitmapd.chunks c WHERE c.key = b.key),"
                          "       (SELECT array_agg(u.x ORDER BY c.lo, u.o) FROM bitmapd.chunks c"
                          "         CROSS JOIN LATERAL unnest(ARRAY[c.lo::int8, c.hi::int8, c.cardinality, c.checksum])"
                          "                            WITH ORDINALITY AS u(x, o)"
                          "         WHERE c.key = b.key),"
                          "       b.flips"
                          "  FROM (SELECT * FROM bitmapd.bitmaps WHERE key = $1 FOR UPDATE) b"
                          " WHERE octet_length(b.bits) = 0 AND b.flips IS NOT NULL",
                          1, kv, kl, kf, PGRES_TUPLES_OK, "lock")))
        return LOAD_FAILED;
    if (PQntuples(r) != 1) { /* gone, or folded meanwhile */
        PQclear(r);
        return LOAD_DONE;
    }
    struct cache_blob *blob = store_chunks_join(sc, r, 0, 3, 4, key, (size_t)keylen, db_value_int8(r, 0, 2), 0,
                                                (uint32_t)db_value_int8(r, 0, 1), db_value_int8(r, 0, 0));
    PQclear(r);
    if (!blob) return LOAD_CORRUPT; /* logged, naming the key */
    *bm = codec_decode(blob->data, blob->len, why, sizeof(why));
    cache_blob_unref(blob);
    if (!*bm) log_error("msg=\"fold flips: could not decode the joined value\" reason=\"%s\"", why);
    return *bm ? LOAD_OK : LOAD_FAILED;
}

bool relayout_fold_flips(PGconn *pg)
{
    long done = 0, skipped = 0;
    struct store_chunks *sc = store_chunks_new();
    bool ok = sc && each_key(pg,
                             "SELECT key FROM bitmapd.bitmaps WHERE key > $1 AND octet_length(bits) = 0"
                             " AND flips IS NOT NULL AND " SQL_KEY_ROW("") " ORDER BY key LIMIT " STR(BATCH),
                             load_flipped, sc, &done, &skipped);
    store_chunks_free(sc);
    if (ok) log_info("msg=\"flips written into chunks\" keys=%ld corrupt_left=%ld", done, skipped);
    return ok;
}
