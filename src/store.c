/* store.c — the SQL of the bitmap table. Parameters and results travel in
 * PostgreSQL's binary format (bytea[] and int8[] arrays built here), so bitmaps are
 * never hex-encoded on the way. */
#include "store.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT4 23

struct store {
    struct db *db;
    uint8_t *empty;      /* serialization of the empty bitmap */
    size_t empty_len;
    uint32_t empty_crc;
};

/* ---- binary array builder -------------------------------------------------- */

struct pgarr {
    uint8_t *buf;
    size_t len, cap;
    bool oom;
};

static void pa_reserve(struct pgarr *a, size_t more)
{
    if (a->oom || a->len + more <= a->cap) return;
    size_t cap = a->cap ? a->cap : 256;
    while (cap < a->len + more) cap *= 2;
    uint8_t *nb = realloc(a->buf, cap);
    if (!nb) {
        a->oom = true;
        return;
    }
    a->buf = nb;
    a->cap = cap;
}

static void pa_put32(struct pgarr *a, uint32_t v)
{
    pa_reserve(a, 4);
    if (a->oom) return;
    v = htonl(v);
    memcpy(a->buf + a->len, &v, 4);
    a->len += 4;
}

static void pa_bytes(struct pgarr *a, const void *p, size_t n)
{
    pa_reserve(a, n);
    if (a->oom) return;
    memcpy(a->buf + a->len, p, n);
    a->len += n;
}

/* one-dimensional array header: ndim, has-null flag, element type, length, lower bound */
static void pa_begin(struct pgarr *a, uint32_t oid, size_t n, bool has_null)
{
    memset(a, 0, sizeof(*a));
    pa_put32(a, 1);
    pa_put32(a, has_null ? 1 : 0);
    pa_put32(a, oid);
    pa_put32(a, (uint32_t)n);
    pa_put32(a, 1);
}

static void pa_elem(struct pgarr *a, const void *p, size_t n)
{
    if (!p) {
        pa_put32(a, 0xFFFFFFFFu); /* NULL */
        return;
    }
    pa_put32(a, (uint32_t)n);
    pa_bytes(a, p, n);
}

static void pa_int8(struct pgarr *a, int64_t v)
{
    uint32_t hi = htonl((uint32_t)((uint64_t)v >> 32)), lo = htonl((uint32_t)v);
    pa_put32(a, 8);
    pa_bytes(a, &hi, 4);
    pa_bytes(a, &lo, 4);
}

static void pa_int8_or_null(struct pgarr *a, int64_t v)
{
    if (v < 0)
        pa_put32(a, 0xFFFFFFFFu);
    else
        pa_int8(a, v);
}

static void pa_int4(struct pgarr *a, int32_t v)
{
    pa_put32(a, 4);
    pa_put32(a, (uint32_t)v);
}

static struct db_param pa_param(const struct pgarr *a)
{
    struct db_param p = {a->buf, (int)a->len, 1};
    return p;
}

/* ---- result readers -------------------------------------------------------- */

static int32_t get_int4(const PGresult *res, int row, int col)
{
    const uint8_t *p = (const uint8_t *)PQgetvalue(res, row, col);
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

static enum store_status status_of(const struct db_result *r)
{
    if (r->status == DB_OK) return STORE_OK;
    /* a deadlock or serialization failure is a conflict like any other: retry */
    return r->status == DB_UNAVAILABLE ? STORE_UNAVAILABLE : STORE_ERROR;
}

/* ---- load ------------------------------------------------------------------- */

static const char SQL_LOAD[] =
    "SELECT k.ord, b.version, b.bits, b.cardinality, b.checksum, b.nbytes"
    "  FROM unnest($1::bytea[]) WITH ORDINALITY AS k(key, ord)"
    "  JOIN bitmapd.bitmaps b ON b.key = k.key";

static const char SQL_LOAD_CREATE[] =
    "WITH k AS (SELECT key, ord FROM unnest($1::bytea[]) WITH ORDINALITY AS t(key, ord)),"
    " ins AS (INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum)"
    "         SELECT key, 0, $2::bytea, 0, $3::int8 FROM k ORDER BY key"
    "         ON CONFLICT (key) DO NOTHING"
    "         RETURNING key, version, bits, cardinality, checksum, nbytes)"
    " SELECT k.ord, b.version, b.bits, b.cardinality, b.checksum, b.nbytes"
    "   FROM k JOIN bitmapd.bitmaps b ON b.key = k.key"
    " UNION ALL"
    " SELECT k.ord, i.version, i.bits, i.cardinality, i.checksum, i.nbytes"
    "   FROM k JOIN ins i ON i.key = k.key";

struct load_ctx {
    size_t n;
    store_load_cb cb;
    void *arg;
};

static void load_done(const struct db_result *r, void *arg)
{
    struct load_ctx *ctx = arg;
    enum store_status st = status_of(r);
    struct store_row *rows = NULL;

    if (st == STORE_OK) {
        rows = calloc(ctx->n ? ctx->n : 1, sizeof(*rows));
        if (!rows) {
            ctx->cb(STORE_ERROR, "out of memory", NULL, ctx->arg);
            free(ctx);
            return;
        }
        for (int i = 0; i < PQntuples(r->res); i++) {
            int64_t ord = db_value_int8(r->res, i, 0);
            if (ord < 1 || (size_t)ord > ctx->n) continue;
            struct store_row *row = &rows[ord - 1];
            row->found = true;
            row->version = db_value_int8(r->res, i, 1);
            row->bits = (const uint8_t *)PQgetvalue(r->res, i, 2);
            row->len = (size_t)PQgetlength(r->res, i, 2);
            row->cardinality = db_value_int8(r->res, i, 3);
            row->checksum = (uint32_t)db_value_int8(r->res, i, 4);
            row->nbytes = PQgetisnull(r->res, i, 5) ? -1 : db_value_int8(r->res, i, 5);
        }
    }
    ctx->cb(st, r->message, rows, ctx->arg);
    free(rows);
    free(ctx);
}

struct db_job *store_load(struct store *st, const struct store_key *keys, size_t n, bool create,
                          store_load_cb cb, void *arg)
{
    struct load_ctx *ctx = malloc(sizeof(*ctx));
    struct pgarr a;
    struct db_job *job = NULL;
    uint32_t crc = htonl(0), crc_lo = htonl(st->empty_crc);
    uint8_t crc8[8];

    if (!ctx) return NULL;
    *ctx = (struct load_ctx){n, cb, arg};
    pa_begin(&a, OID_BYTEA, n, false);
    for (size_t i = 0; i < n; i++) pa_elem(&a, keys[i].key, keys[i].len);
    memcpy(crc8, &crc, 4);
    memcpy(crc8 + 4, &crc_lo, 4);
    if (!a.oom) {
        struct db_param p[3] = {pa_param(&a), {st->empty, (int)st->empty_len, 1}, {crc8, 8, 1}};
        job = create ? db_query(st->db, SQL_LOAD_CREATE, 3, p, load_done, ctx)
                     : db_query(st->db, SQL_LOAD, 1, p, load_done, ctx);
    }
    free(a.buf);
    if (!job) free(ctx);
    return job;
}

/* ---- compare-and-swap ---------------------------------------------------------- */

/* `cur` locks every named row in key order (so concurrent batches cannot deadlock)
 * and, under READ COMMITTED, sees the latest committed versions; `bad` lists the
 * groups with any moved version; `upd` writes the rest. Data-modifying CTEs always
 * run to completion after the main query has materialised `bad`. */
static const char SQL_CAS[] =
    "WITH v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[],"
    "                                $5::int8[], $6::int4[], $7::int8[])"
    "                         AS t(key, ver, bits, card, crc, grp, nbytes)),"
    " cur AS (SELECT b.key, b.version FROM bitmapd.bitmaps b"
    "          WHERE b.key = ANY($1::bytea[]) ORDER BY b.key FOR UPDATE),"
    " bad AS (SELECT DISTINCT v.grp FROM v LEFT JOIN cur ON cur.key = v.key"
    "          WHERE cur.version IS DISTINCT FROM v.ver),"
    " upd AS (UPDATE bitmapd.bitmaps b"
    "            SET bits = v.bits, cardinality = v.card, checksum = v.crc, nbytes = v.nbytes,"
    "                version = b.version + 1, updated_at = now()"
    "           FROM v"
    "          WHERE b.key = v.key AND b.version = v.ver AND v.bits IS NOT NULL"
    "            AND v.grp NOT IN (SELECT grp FROM bad)"
    "      RETURNING b.key)"
    " SELECT grp FROM bad";

struct cas_ctx {
    int32_t ngroups;
    store_cas_cb cb;
    void *arg;
};

static bool is_retryable(const char *sqlstate)
{
    return sqlstate && (strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "40001") == 0);
}

static void cas_done(const struct db_result *r, void *arg)
{
    struct cas_ctx *ctx = arg;
    enum store_status st = status_of(r);
    bool *conflict = calloc((size_t)ctx->ngroups + 1, sizeof(bool));

    if (!conflict) {
        ctx->cb(STORE_ERROR, "out of memory", NULL, ctx->arg);
    } else if (st == STORE_ERROR && is_retryable(r->sqlstate)) {
        for (int32_t g = 0; g < ctx->ngroups; g++) conflict[g] = true;
        ctx->cb(STORE_OK, NULL, conflict, ctx->arg);
    } else if (st != STORE_OK) {
        ctx->cb(st, r->message, NULL, ctx->arg);
    } else {
        for (int i = 0; i < PQntuples(r->res); i++) {
            int32_t g = get_int4(r->res, i, 0);
            if (g >= 0 && g < ctx->ngroups) conflict[g] = true;
        }
        ctx->cb(STORE_OK, NULL, conflict, ctx->arg);
    }
    free(conflict);
    free(ctx);
}

struct db_job *store_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups,
                         store_cas_cb cb, void *arg)
{
    struct pgarr keys, vers, bits, cards, crcs, grps, lens;
    struct cas_ctx *ctx = malloc(sizeof(*ctx));
    struct db_job *job = NULL;
    bool any_null = false, any_null_len = false;

    if (!ctx) return NULL;
    *ctx = (struct cas_ctx){ngroups, cb, arg};
    for (size_t i = 0; i < n; i++) {
        any_null |= (w[i].bits == NULL);
        any_null_len |= (w[i].nbytes < 0);
    }
    pa_begin(&keys, OID_BYTEA, n, false);
    pa_begin(&vers, OID_INT8, n, false);
    pa_begin(&bits, OID_BYTEA, n, any_null);
    pa_begin(&cards, OID_INT8, n, false);
    pa_begin(&crcs, OID_INT8, n, false);
    pa_begin(&grps, OID_INT4, n, false);
    pa_begin(&lens, OID_INT8, n, any_null_len);
    for (size_t i = 0; i < n; i++) {
        pa_elem(&keys, w[i].key, w[i].keylen);
        pa_int8(&vers, w[i].version);
        pa_elem(&bits, w[i].bits, w[i].len);
        pa_int8(&cards, (int64_t)w[i].cardinality);
        pa_int8(&crcs, (int64_t)w[i].checksum);
        pa_int4(&grps, w[i].group);
        pa_int8_or_null(&lens, w[i].nbytes);
    }
    if (!(keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || grps.oom || lens.oom)) {
        struct db_param p[7] = {pa_param(&keys), pa_param(&vers), pa_param(&bits), pa_param(&cards),
                                pa_param(&crcs), pa_param(&grps), pa_param(&lens)};
        job = db_query(st->db, SQL_CAS, 7, p, cas_done, ctx);
    }
    free(keys.buf);
    free(vers.buf);
    free(bits.buf);
    free(cards.buf);
    free(crcs.buf);
    free(grps.buf);
    free(lens.buf);
    if (!job) free(ctx);
    return job;
}

struct db_job *store_ping(struct store *st, db_cb cb, void *arg)
{
    return db_query(st->db, "SELECT 1", 0, NULL, cb, arg);
}

struct store *store_new(struct db *db)
{
    struct store *st = calloc(1, sizeof(*st));
    roaring_bitmap_t *empty = roaring_bitmap_create();
    if (!st || !empty || !codec_encode(empty, &st->empty, &st->empty_len)) {
        if (empty) roaring_bitmap_free(empty);
        free(st);
        return NULL;
    }
    roaring_bitmap_free(empty);
    st->db = db;
    st->empty_crc = codec_crc32c(st->empty, st->empty_len);
    return st;
}

void store_free(struct store *st)
{
    if (!st) return;
    free(st->empty);
    free(st);
}
