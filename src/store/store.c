/* store.c — the SQL of the bitmap table. Parameters and results travel in
 * PostgreSQL's binary format (bytea[] and int8[] arrays built here), so bitmaps are
 * never hex-encoded on the way. */
#include "store/store.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "store/chunks.h"
#include "store/codec.h"
#include "core/config.h"
#include "store/kept.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/pgbin.h"
#include "store/store_chunks.h"
#include "store/store_wlog.h"

struct cas_call;
struct load_ctx;

enum { STMT_LOAD, STMT_CAS, STMT_CAS_ROWS, STMT_CAS_ONE, STMT_CAS_ONE_CHUNKED, STMT_APPEND }; /* prepared once per connection (db_query_prepared) */

struct store {
    struct db *db;
    const struct config *cfg;
    struct cache *cache;
    struct cas_call *queue_head, *queue_tail; /* writes waiting for the next statement */
    int writes_in_flight;
    size_t queued_keys;           /* keys of the calls in the write queue */
    struct load_ctx *load_queue;  /* reads waiting for the next load statement */
    struct load_ctx *ready;       /* reads answered from the cache, for the next turn */
    struct load_ctx *load_waiting; /* reads held back by the write-behind log, for after wait_ev */
    struct cas_call *cas_waiting; /* writes held back by the log's guard, for after wait_ev */
    struct event *ready_ev;
    struct event *flush_ev;       /* sends what waits, once the loop turn's callbacks have queued */
    int loads_in_flight;
    struct sent_node *cas_sent;   /* write statements in flight, for store_free */
    struct sent_node *load_sent;  /* load statements in flight, for store_free */
    unsigned listen_gen;          /* changes of the listener's state */
    struct event *recheck_ev;     /* the trigger check again, after it could not run */
    unsigned recheck_logged_gen;  /* listen_gen whose failed check was logged */
    struct sent_node *checks;     /* trigger checks in flight, for store_free */
    struct store_chunks *chunks;  /* chunked keys: what this instance knows of them */
    struct kept *kept;            /* decoded copies of big values just written (kept.h) */
    struct wlog *wl;              /* the write-behind log (store_wlog.h) */
    struct cas_call *parked;      /* writes of pending keys waiting for a fold or the lease */
    struct event *wait_ev;        /* a pause before sending again what the log's guard held back */
    unsigned absent_score;        /* 0..ABSENT_ONE: how many of the recent cache misses
                                     loaded found no row, decaying (store_peek_or_guess) */
    struct store_stats stats;
};

/* Misses are guessed absent once about three in four of the recent ones were: each
 * load of a missing key moves the score a sixteenth of the way towards ABSENT_ONE
 * (no row) or 0 (a row). */
#define ABSENT_ONE 1024u
#define ABSENT_GUESS 768u
static void absent_learn(struct store *st, bool found)
{
    if (found)
        st->absent_score -= st->absent_score >> 4;
    else
        st->absent_score += (ABSENT_ONE - st->absent_score) >> 4;
}

static enum store_status status_of(const struct db_result *r)
{
    if (r->status == DB_OK) return STORE_OK;
    /* a deadlock or serialization failure is a conflict like any other: retry */
    return r->status == DB_UNAVAILABLE ? STORE_UNAVAILABLE : STORE_ERROR;
}

/* ---- load, coalesced ---------------------------------------------------------- */

/* Versions of every key and bits where the row is not the one this instance holds
 * (same version, written by the same transaction; $2/$3 are -1 for keys it holds
 * none of, so their bits always travel). One statement serves the misses of every
 * request waiting at that time. One index probe per key (LATERAL … LIMIT 1 keeps
 * the planner from turning it into a join that reads every partition of a
 * partitioned table; docs/scaling.md has the figures). A chunked key (empty bits,
 * chunks.h) brings its chunks in columns 7 (their bits, by lo) and 8 (lo, hi,
 * cardinality, checksum of each, flat), read in the same snapshot, and its head's
 * flips in column 9; for other keys those subqueries do not run. */
#define LOAD_SENT "(b.version <> k.ver OR b.xmin::text::int8 <> k.xid)"
static const char SQL_LOAD[] =
    "SELECT k.ord, b.version, CASE WHEN " LOAD_SENT " THEN b.bits END,"
    "       b.cardinality, b.checksum, b.nbytes, b.xmin::text::int8,"
    "       CASE WHEN octet_length(b.bits) = 0 AND " LOAD_SENT
    "            THEN (SELECT array_agg(c.bits ORDER BY c.lo) FROM bitmapd.chunks c WHERE c.key = k.key) END,"
    "       CASE WHEN octet_length(b.bits) = 0 AND " LOAD_SENT
    "            THEN (SELECT array_agg(u.x ORDER BY c.lo, u.o) FROM bitmapd.chunks c"
    "                   CROSS JOIN LATERAL unnest(ARRAY[c.lo::int8, c.hi::int8, c.cardinality, c.checksum])"
    "                                      WITH ORDINALITY AS u(x, o)"
    "                  WHERE c.key = k.key) END,"
    "       CASE WHEN octet_length(b.bits) = 0 AND " LOAD_SENT " THEN b.flips END"
    "  FROM unnest($1::bytea[], $2::int8[], $3::int8[]) WITH ORDINALITY AS k(key, ver, xid, ord)"
    "  CROSS JOIN LATERAL (SELECT x.version, x.bits, x.cardinality, x.checksum, x.nbytes, x.xmin, x.flips"
    "                        FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1) b"
    /* a write-behind log with rows: only its holder may trust the rows (ord 0; column
     * 1 says whether anyone holds the lease) */
    " UNION ALL"
    " SELECT 0, pg_try_advisory_xact_lock_shared(" WLOG_LEASE_LOCK ")::int4::int8, NULL, NULL, NULL, NULL, NULL,"
    "        NULL, NULL, NULL"
    "  WHERE EXISTS (SELECT 1 FROM bitmapd.wlog)";

struct load_ctx {
    struct load_ctx *next;
    struct store *st;
    size_t n;
    store_load_cb cb;
    void *arg;
    struct db_job *handle;    /* what the caller holds (and may cancel) */
    enum store_status status;
    const char *err;
    struct store_row *rows;
    struct cache_val *held;   /* per key: the cached copy (blob referenced) */
    size_t *sent;             /* position among the sent keys → key index */
    size_t nsent;
    size_t first;             /* position of sent[0] in the statement */
    uint8_t *keybuf;          /* the sent keys, back to back */
    size_t *keyoff;           /* per sent key: offset in keybuf (nsent + 1 entries) */
    bool *seen;
    uint64_t mark;
    int waits;                /* times the write-behind log held it back */
};

/* A batch (or a check) whose statement is in flight, listed so that store_free can free it if
 * the loop ends first (the pool then drops the job without a callback). */
struct sent_node {
    struct sent_node *next, **pprev;
};

static void sent_link(struct sent_node **head, struct sent_node *n)
{
    n->next = *head;
    n->pprev = head;
    if (*head) (*head)->pprev = &n->next;
    *head = n;
}

static void sent_unlink(struct sent_node *n)
{
    *n->pprev = n->next;
    if (n->next) n->next->pprev = n->pprev;
}

#define SENT_BATCH(node, type) ((type *)(void *)((char *)(node) - offsetof(type, sent)))

struct load_batch {
    struct store *st;
    struct load_ctx *reqs;
    size_t nkeys;
    struct sent_node sent; /* in st->load_sent while in flight */
};

static void load_ctx_free(struct load_ctx *ctx)
{
    for (size_t i = 0; ctx->held && i < ctx->n; i++) cache_blob_unref(ctx->held[i].blob);
    free(ctx->held);
    free(ctx->rows);
    free(ctx->sent);
    free(ctx->keybuf);
    free(ctx->keyoff);
    free(ctx->seen);
    free(ctx);
}

static void row_from_val(struct store_row *row, const struct cache_val *v)
{
    *row = (struct store_row){.found = v->found, .version = v->version, .cardinality = v->cardinality,
                              .checksum = v->checksum, .nbytes = v->nbytes};
    if (v->blob) {
        row->bits = v->blob->data;
        row->len = v->blob->len;
        row->checked = v->blob->checked;
    }
}

/* A cache hit for key as a row (marked cached: not checked against the database);
 * *held takes the reference on its bits. */
static bool cached_row(struct store *st, const struct store_key *key, struct cache_val *held, struct store_row *row)
{
    if (wlog_lookup(st->wl, key->key, key->len, held))
        cache_count_hit(st->cache);
    else if (!cache_get(st->cache, key->key, key->len, held))
        return false;
    row_from_val(row, held);
    row->cached = true;
    return true;
}

/* The key at position pos of the keys ctx sends. */
static const uint8_t *sent_key(const struct load_ctx *ctx, size_t pos, size_t *len)
{
    *len = ctx->keyoff[pos + 1] - ctx->keyoff[pos];
    return ctx->keybuf + ctx->keyoff[pos];
}

/* A key whose image is pending in the write-behind log (written since the load was
 * sent, or recovered meanwhile) takes the image: the row under it is older. */
static bool load_take_pending(struct load_ctx *ctx, size_t pos)
{
    size_t len, k = ctx->sent[pos];
    const uint8_t *key = sent_key(ctx, pos, &len);
    struct cache_val v;
    if (!wlog_lookup(ctx->st->wl, key, len, &v)) return false;
    cache_blob_unref(ctx->held[k].blob);
    ctx->held[k] = v;
    row_from_val(&ctx->rows[k], &v);
    ctx->rows[k].cached = true;
    return true;
}

/* Row i of the statement's result is the key at position pos of ctx. */
static void load_take_row(struct load_ctx *ctx, const PGresult *res, int i, size_t pos)
{
    struct store *st = ctx->st;
    size_t k = ctx->sent[pos];
    absent_learn(st, true);
    struct cache_val v = {.found = true,
                          .version = db_value_int8(res, i, 1),
                          .cardinality = db_value_int8(res, i, 3),
                          .checksum = (uint32_t)db_value_int8(res, i, 4),
                          .nbytes = PQgetisnull(res, i, 5) ? -1 : db_value_int8(res, i, 5),
                          .xid = (uint32_t)db_value_int8(res, i, 6)};
    struct store_row *row = &ctx->rows[k];
    ctx->seen[pos] = true;
    if (load_take_pending(ctx, pos)) return;
    if (PQgetisnull(res, i, 2) && ctx->held[k].blob) { /* the row this instance holds */
        v.blob = ctx->held[k].blob;
        /* its checksum too: a chunked head's names its chunks, not these bits */
        v.checksum = ctx->held[k].checksum;
        row_from_val(row, &v);
        return;
    }
    row_from_val(row, &v);
    row->bits = (const uint8_t *)PQgetvalue(res, i, 2);
    row->len = (size_t)PQgetlength(res, i, 2);
    if (row->len == 0) { /* chunked: the key's chunk rows make its bits */
        size_t len;
        const uint8_t *key = sent_key(ctx, pos, &len);
        store_chunks_seen(st->chunks, key, len, true);
        struct cache_blob *blob = store_chunks_join(st->chunks, res, i, 7, 8, key, len, v.version, v.xid, v.checksum,
                                                     v.cardinality);
        if (!blob) return; /* empty bits: the reader reports the row corrupt */
        cache_blob_unref(ctx->held[k].blob);
        ctx->held[k].blob = blob; /* freed with ctx */
        row->bits = blob->data;
        row->len = blob->len;
        row->checked = blob->checked;
        /* checked above, chunk by chunk and against the head: the joined bits carry
         * their own checksum from here on */
        row->checksum = v.checksum = codec_crc32c(blob->data, blob->len);
        v.blob = blob;
        cache_put(st->cache, key, len, &v, ctx->mark);
        return;
    }
    if (cache_enabled(st->cache) && (v.blob = cache_blob_new(row->bits, row->len)) != NULL) {
        size_t len;
        const uint8_t *key = sent_key(ctx, pos, &len);
        cache_put(st->cache, key, len, &v, ctx->mark);
        cache_blob_unref(v.blob);
    }
}

/* Keys the statement found no row for. */
static void load_take_missing(struct load_ctx *ctx)
{
    for (size_t pos = 0; pos < ctx->nsent; pos++) {
        if (ctx->seen[pos] || load_take_pending(ctx, pos)) continue;
        struct cache_val none = {.found = false, .nbytes = -1};
        size_t len;
        const uint8_t *key = sent_key(ctx, pos, &len);
        absent_learn(ctx->st, false);
        row_from_val(&ctx->rows[ctx->sent[pos]], &none);
        cache_put(ctx->st->cache, key, len, &none, ctx->mark);
    }
}

static void load_deliver_cb(const struct db_result *r, void *arg)
{
    struct load_ctx *ctx = arg;
    (void)r;
    ctx->cb(ctx->status, ctx->err, ctx->status == STORE_OK ? ctx->rows : NULL, ctx->arg);
}

/* Answers ctx (unless its caller cancelled) and frees it. */
static void load_finish(struct load_ctx *ctx)
{
    db_complete(ctx->handle, DB_OK, NULL);
    load_ctx_free(ctx);
}

static void load_flush(struct store *st);

static void load_ready_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    struct load_ctx *list = st->ready;
    st->ready = NULL;
    (void)fd;
    (void)what;
    while (list) {
        struct load_ctx *ctx = list;
        list = ctx->next;
        load_finish(ctx);
    }
}

static void load_hold_back(struct store *st, struct load_batch *b);

static void load_batch_done(const struct db_result *r, void *arg)
{
    struct load_batch *b = arg;
    struct store *st = b->st;
    enum store_status s = status_of(r);
    struct load_ctx *ctx;

    sent_unlink(&b->sent);
    if (s == STORE_OK && !wlog_is_holder(st->wl))
        for (int i = PQntuples(r->res) - 1; i >= 0; i--)
            if (db_value_int8(r->res, i, 0) == 0) { /* the log has rows: wait for its fold */
                wlog_blocked(st->wl, db_value_int8(r->res, i, 1) == 0);
                load_hold_back(st, b);
                return;
            }
    if (s == STORE_OK) {
        /* requests are in statement order: walk the rows by their ordinal */
        int nrows = PQntuples(r->res);
        size_t nreq = 0;
        for (ctx = b->reqs; ctx; ctx = ctx->next) nreq++;
        struct load_ctx **by = calloc(nreq ? nreq : 1, sizeof(*by));
        if (!by) {
            s = STORE_ERROR;
        } else {
            size_t j = 0;
            for (ctx = b->reqs; ctx; ctx = ctx->next) by[j++] = ctx;
            for (int i = 0; i < nrows; i++) {
                int64_t ord = db_value_int8(r->res, i, 0);
                if (ord < 1 || (size_t)ord > b->nkeys) continue;
                size_t pos = (size_t)ord - 1, lo = 0, hi = nreq;
                while (hi - lo > 1) { /* the last request whose first position <= pos */
                    size_t mid = (lo + hi) / 2;
                    if (by[mid]->first <= pos) lo = mid; else hi = mid;
                }
                load_take_row(by[lo], r->res, i, pos - by[lo]->first);
            }
        }
        free(by);
    }
    /* loads_in_flight still counts this batch: reads issued from the callbacks
     * queue up and leave together in the next statement */
    while ((ctx = b->reqs) != NULL) {
        b->reqs = ctx->next;
        ctx->status = s;
        ctx->err = s == STORE_OK ? NULL : (r->message ? r->message : "out of memory");
        if (s == STORE_OK) load_take_missing(ctx);
        load_finish(ctx);
    }
    free(b);
    st->loads_in_flight--;
    load_flush(st);
}

#define WLOG_WAIT_MS 20
#define WLOG_MAX_WAITS 500 /* about 10 s */
static const char WLOG_WAIT_ERROR[] =
    "the write-behind log is not folded (held by another bitmapd instance, or a damaged row: see the log)";

static void wait_arm(struct store *st)
{
    struct timeval tv = {0, WLOG_WAIT_MS * 1000};
    if (!event_pending(st->wait_ev, EV_TIMEOUT, NULL)) event_add(st->wait_ev, &tv);
}

/* The batch's reads go back to the front of the queue after a pause (the log's holder
 * folds meanwhile), or fail after WLOG_MAX_WAITS. */
static void load_hold_back(struct store *st, struct load_batch *b)
{
    struct load_ctx *ctx, *back = NULL, **tail = &back;
    while ((ctx = b->reqs) != NULL) {
        b->reqs = ctx->next;
        ctx->next = NULL;
        if (++ctx->waits > WLOG_MAX_WAITS) {
            ctx->status = STORE_ERROR; /* nothing was written; the reason is not the database's state */
            ctx->err = WLOG_WAIT_ERROR;
            load_finish(ctx);
            continue;
        }
        *tail = ctx;
        tail = &ctx->next;
    }
    *tail = st->load_waiting;
    st->load_waiting = back;
    free(b);
    st->loads_in_flight--;
    wait_arm(st);
}

static void load_batch_unsent(const struct db_result *r, void *arg)
{
    struct db_result fail = {DB_ERROR, NULL, "out of memory", NULL};
    (void)r;
    load_batch_done(&fail, arg);
}

/* Sends one statement with the keys of as many waiting requests as fit. */
static bool load_send(struct store *st)
{
    struct load_batch *b = calloc(1, sizeof(*b));
    struct load_ctx **tail, *ctx;
    struct pgarr a, vers, xids;
    struct db_job *job = NULL;
    size_t limit = (size_t)st->cfg->pg_batch_keys, nkeys;

    if (!b) return false;
    b->st = st;
    tail = &b->reqs;
    while ((ctx = st->load_queue) != NULL) {
        if (db_cancelled(ctx->handle)) { /* its request is gone */
            st->load_queue = ctx->next;
            load_finish(ctx);
            continue;
        }
        if (b->reqs && b->nkeys + ctx->nsent > limit) break;
        st->load_queue = ctx->next;
        ctx->next = NULL;
        ctx->first = b->nkeys;
        ctx->mark = cache_mark(st->cache);
        b->nkeys += ctx->nsent;
        *tail = ctx;
        tail = &ctx->next;
    }
    if (!b->reqs) {
        free(b);
        return false;
    }
    pa_begin(&a, OID_BYTEA, b->nkeys, false);
    pa_begin(&vers, OID_INT8, b->nkeys, false);
    pa_begin(&xids, OID_INT8, b->nkeys, false);
    for (ctx = b->reqs; ctx; ctx = ctx->next)
        for (size_t pos = 0; pos < ctx->nsent; pos++) {
            const struct cache_val *held = &ctx->held[ctx->sent[pos]];
            bool have = held->blob != NULL;
            size_t len;
            const uint8_t *key = sent_key(ctx, pos, &len);
            pa_elem(&a, key, len);
            pa_int8(&vers, have ? held->version : -1);
            pa_int8(&xids, have ? (int64_t)held->xid : -1);
        }
    nkeys = b->nkeys;
    sent_link(&st->load_sent, &b->sent); /* before the query, so that store_free finds it whatever follows */
    if (!a.oom && !vers.oom && !xids.oom) {
        struct db_param p[3] = {pa_param(&a), pa_param(&vers), pa_param(&xids)};
        job = db_query_prepared(st->db, STMT_LOAD, SQL_LOAD, 3, p, load_batch_done, b);
    }
    free(a.buf);
    free(vers.buf);
    free(xids.buf);
    if (!job && !(job = db_defer(st->db, load_batch_unsent, b))) {
        struct load_ctx *last = b->reqs;
        sent_unlink(&b->sent);
        while (last->next) last = last->next;
        last->next = st->load_queue; /* back to the front, in order */
        st->load_queue = b->reqs;
        free(b);
        return false;
    }
    st->loads_in_flight++;
    st->stats.load_statements++;
    metrics_observe_size(&metrics.load_batch_keys, (double)nkeys);
    return true;
}

static void load_flush(struct store *st)
{
    while (st->loads_in_flight < st->cfg->pg_load_statements && st->load_queue)
        if (!load_send(st)) break;
}

struct db_job *store_load(struct store *st, const struct store_key *keys, size_t n, unsigned flags,
                          store_load_cb cb, void *arg)
{
    struct load_ctx *ctx = calloc(1, sizeof(*ctx));
    size_t total = 0;
    bool consistent = flags & STORE_CONSISTENT;

    if (!ctx) return NULL;
    *ctx = (struct load_ctx){.st = st, .n = n, .cb = cb, .arg = arg, .status = STORE_OK};
    ctx->rows = calloc(n ? n : 1, sizeof(*ctx->rows));
    ctx->held = calloc(n ? n : 1, sizeof(*ctx->held));
    ctx->sent = calloc(n ? n : 1, sizeof(*ctx->sent));
    ctx->keyoff = calloc(n + 1, sizeof(*ctx->keyoff));
    ctx->seen = calloc(n ? n : 1, sizeof(*ctx->seen));
    if (!ctx->rows || !ctx->held || !ctx->sent || !ctx->keyoff || !ctx->seen) goto fail;
    for (size_t i = 0; i < n; i++) {
        /* a pending image is newer than the row: never checked against it */
        if (cached_row(st, &keys[i], &ctx->held[i], &ctx->rows[i]) &&
            (!consistent || wlog_pending(st->wl, keys[i].key, keys[i].len)))
            continue;
        ctx->sent[ctx->nsent++] = i;
        total += keys[i].len;
    }
    if (!(ctx->keybuf = malloc(total ? total : 1))) goto fail;
    for (size_t pos = 0, off = 0; pos < ctx->nsent; pos++) {
        const struct store_key *k = &keys[ctx->sent[pos]];
        memcpy(ctx->keybuf + off, k->key, k->len);
        ctx->keyoff[pos] = off;
        off += k->len;
        ctx->keyoff[pos + 1] = off;
    }
    if (!(ctx->handle = db_pending(st->db, load_deliver_cb, ctx))) goto fail;
    st->stats.loads++;
    st->stats.load_keys_db += ctx->nsent;
    st->stats.load_keys_cached += n - ctx->nsent;
    if (ctx->nsent == 0) { /* all from the cache: answered on the next turn of the loop */
        ctx->next = st->ready;
        st->ready = ctx;
        event_active(st->ready_ev, 0, 0);
        return ctx->handle;
    }
    {
        struct load_ctx **p = &st->load_queue;
        struct db_job *handle = ctx->handle;
        while (*p) p = &(*p)->next;
        *p = ctx;
        event_active(st->flush_ev, 0, 0); /* with the other loads of this loop turn */
        return handle;
    }
fail:
    if (ctx->handle) {
        db_cancel(ctx->handle);
        db_complete(ctx->handle, DB_OK, NULL);
    }
    load_ctx_free(ctx);
    return NULL;
}

/* ---- compare-and-swap, committed in groups ------------------------------------- */

/* The part both compare-and-swap statements share: `cur` locks every named row in key
 * order (one index probe per key: concurrent batches cannot deadlock, and a partitioned
 * table is not scanned whole) and, under READ COMMITTED, sees the latest committed
 * versions, whether the head is chunked and its xmin; `bad` lists the groups with any
 * moved version (an absent key is version -1 here); `upd` and `ins` write the rest. An
 * insert that finds the key created in the meantime aborts the statement
 * (bitmapd._cas_conflict, a serialization failure), which is retried as a conflict of
 * every group, so a group still commits all or nothing. Data-modifying CTEs always run
 * to completion. SQL_CAS then writes the chunk rows (`done`, `c`, `cput`, `cdel`:
 * docs/design.md, "Chunked rows"), and gives every head it writes its flips
 * (set_flips: NULL but for a write that is the flips alone); a one-row head never has
 * flips, so SQL_CAS_ROWS, which writes only those, leaves the column alone. */
#define SQL_CAS_HEADS(set_flips) \
    " cur AS (SELECT b.key, b.version, b.chunked, b.xid" \
    "           FROM (SELECT DISTINCT key FROM unnest($1::bytea[]) AS u(key) ORDER BY key) k" \
    "          CROSS JOIN LATERAL (SELECT x.key, x.version, octet_length(x.bits) = 0 AS chunked, x.xmin::text::int8 AS xid" \
    "                                FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1 FOR UPDATE) b)," \
    " bad AS (SELECT DISTINCT v.grp FROM v LEFT JOIN cur ON cur.key = v.key" \
    "          WHERE coalesce(cur.version, -1) <> v.ver)," \
    " upd AS (UPDATE bitmapd.bitmaps b" \
    "            SET bits = v.bits, cardinality = v.card, checksum = v.crc, nbytes = v.nbytes," \
    "                version = b.version + v.inc, updated_at = now()" set_flips \
    "           FROM v" \
    "          WHERE b.key = v.key AND b.version = v.ver AND v.bits IS NOT NULL" \
    "            AND v.grp NOT IN (SELECT grp FROM bad)" \
    "      RETURNING b.key)," \
    " want AS (SELECT * FROM v WHERE v.ver = -1 AND v.bits IS NOT NULL" \
    "             AND v.grp NOT IN (SELECT grp FROM bad))," \
    " ins AS (INSERT INTO bitmapd.bitmaps AS b (key, version, bits, cardinality, checksum, nbytes)" \
    "         SELECT key, inc, bits, card, crc, nbytes FROM want ORDER BY key" \
    "         ON CONFLICT (key) DO NOTHING RETURNING b.key)"

/* What both statements answer: the groups that did not commit, the transaction's id,
 * and an abort (a conflict of every group) when an insert met a key created meanwhile
 * or when a written key's head row is in a state the statement cannot write over. */
#define SQL_CAS_ANSWER(abort_when) \
    " SELECT grp, NULL::int8 FROM bad" \
    " UNION ALL" \
    " SELECT NULL, txid_current() % 4294967296" \
    " UNION ALL" \
    " SELECT bitmapd._cas_conflict(), NULL" \
    "  WHERE (SELECT count(*) FROM want) <> (SELECT count(*) FROM ins)" \
    "     OR EXISTS (SELECT 1 FROM v JOIN cur ON cur.key = v.key" \
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

static const char SQL_CAS[] =
    "WITH v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[],"
    "                                $5::int8[], $6::int4[], $7::int8[], $8::int8[], $9::int4[], $16::int8[],"
    "                                $17::bytea[])"
    "                         AS t(key, ver, bits, card, crc, grp, nbytes, inc, whole, dirxid, flips)),"
    SQL_CAS_HEADS(", flips = v.flips") ","
    " done AS (SELECT v.key, v.whole, octet_length(v.bits) = 0 AS chunked"
    "            FROM v LEFT JOIN cur ON cur.key = v.key"
    "           WHERE v.bits IS NOT NULL AND v.grp NOT IN (SELECT grp FROM bad)"
    "             AND (octet_length(v.bits) = 0 OR cur.chunked)),"
    " c AS (SELECT * FROM unnest($10::bytea[], $11::int4[], $12::int4[], $13::bytea[], $14::int8[], $15::int8[])"
    "                  AS t(key, lo, hi, bits, card, crc)"
    "        WHERE t.key IN (SELECT key FROM done)),"
    SQL_CHUNKS_PUT
    " cdel AS (DELETE FROM bitmapd.chunks x USING done d"
    "           WHERE x.key = d.key"
    "             AND (NOT d.chunked"
    "                  OR (d.whole = 1 AND NOT EXISTS (SELECT 1 FROM c WHERE c.key = x.key AND c.lo = x.lo))"
    "                  OR EXISTS (SELECT 1 FROM c WHERE c.key = x.key AND c.lo = x.lo AND c.bits IS NULL)))"
    SQL_CAS_ANSWER("v.dirxid >= 0 AND cur.xid <> v.dirxid");

/* The same compare-and-swap for batches in which no key is, or was last seen,
 * chunked: no chunk rows to write, so it leaves out the CTEs that would write them
 * (their start-up cost is paid by every statement). Should a head row turn out to be
 * chunked after all (another instance cut it), the statement aborts as a conflict
 * instead of leaving its chunk rows behind, and the store sends those keys' writes
 * through SQL_CAS from then on. */
static const char SQL_CAS_ROWS[] =
    "WITH v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[],"
    "                                $5::int8[], $6::int4[], $7::int8[], $8::int8[])"
    "                         AS t(key, ver, bits, card, crc, grp, nbytes, inc)),"
    SQL_CAS_HEADS("")
    SQL_CAS_ANSWER("cur.chunked AND v.bits IS NOT NULL");

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
static const char SQL_CAS_ONE[] =
    "WITH upd AS (UPDATE bitmapd.bitmaps b"
    "                SET bits = ($3::bytea[])[1], cardinality = ($4::int8[])[1], checksum = ($5::int8[])[1],"
    "                    nbytes = ($7::int8[])[1], version = b.version + ($8::int8[])[1], updated_at = now()"
    "              WHERE b.key = ($1::bytea[])[1] AND b.version = ($2::int8[])[1] AND octet_length(b.bits) > 0"
    "          RETURNING 1)"
    SQL_CAS_ONE_ANSWER("upd");

/* The same for one chunked row whose chunk directory is known (a hot big key): the
 * head is updated at its version and at the transaction that wrote the directory (the
 * check SQL_CAS makes by aborting), with its new flips ($17: NULL once the chunks are
 * written whole), and only then are the changed chunks written and the vanished ones
 * deleted (none when the write is the flips alone). A head that does not match writes
 * nothing: a conflict. */
static const char SQL_CAS_ONE_CHUNKED[] =
    "WITH h AS (UPDATE bitmapd.bitmaps b"
    "              SET cardinality = ($4::int8[])[1], checksum = ($5::int8[])[1], nbytes = ($7::int8[])[1],"
    "                  version = b.version + ($8::int8[])[1], updated_at = now(), flips = ($17::bytea[])[1]"
    "            WHERE b.key = ($1::bytea[])[1] AND b.version = ($2::int8[])[1] AND octet_length(b.bits) = 0"
    "              AND b.xmin::text::int8 = ($16::int8[])[1] AND ($9::int4[])[1] = 0"
    "              AND octet_length(($3::bytea[])[1]) = 0"
    "        RETURNING 1),"
    " c AS (SELECT * FROM unnest($10::bytea[], $11::int4[], $12::int4[], $13::bytea[], $14::int8[], $15::int8[])"
    "                  AS t(key, lo, hi, bits, card, crc)"
    "        WHERE EXISTS (SELECT 1 FROM h)),"
    /* only chunks whose bytes changed are sent: no comparison (it would read the old
     * chunk back from TOAST) */
    SQL_CHUNKS_UPSERT("")
    " cdel AS (DELETE FROM bitmapd.chunks x USING c"
    "           WHERE x.key = c.key AND x.lo = c.lo AND c.bits IS NULL)"
    SQL_CAS_ONE_ANSWER("h");

/* The write-behind log's append (docs/design.md, "Write-behind log"): the new images
 * ($5, one packed image each, of group $8) as one row of bitmapd.wlog, leaving out the
 * groups that failed: a key not pending in the log whose row no longer has the version
 * (or absence) its write was computed from ($1-$3, probed with a share lock in key
 * order, so that a write in place of the same key still in flight — one whose answer
 * was lost — is waited for and seen), or a group that failed its check against a
 * pending image ($4). Nothing goes in unless this instance still holds the lease. The change
 * notification names the images written ("!w," first, so that other instances know
 * the log is in use); it is sent only while another instance watches (`watched`).
 * Answer: the groups that failed, then the transaction's id, the
 * log row (NULL: nothing was written) and whether the lease held. */
static const char SQL_APPEND[] =
    "WITH bad AS (SELECT p.grp"
    "               FROM (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::int4[]) AS u(key, ver, grp)"
    "                      ORDER BY key) p"
    "               LEFT JOIN LATERAL (SELECT x.version, octet_length(x.bits) = 0 AS chunked"
    "                                    FROM bitmapd.bitmaps x WHERE x.key = p.key LIMIT 1 FOR SHARE) b ON true"
    "              WHERE coalesce(b.version, -1) <> p.ver OR b.chunked"
    "             UNION SELECT unnest($4::int4[])),"
    " held AS MATERIALIZED (SELECT NOT pg_try_advisory_xact_lock_shared(" WLOG_LEASE_LOCK ")"
    "                              AND current_setting('bitmapd.instance', true) ="
    "                                  (SELECT holder FROM bitmapd.wlog_lease) AS ok),"
    " good AS (SELECT * FROM unnest($5::bytea[], $6::bytea[], $7::int8[], $8::int4[]) WITH ORDINALITY"
    "                          AS i(img, k, v, grp, ord)"
    "           WHERE i.grp NOT IN (SELECT grp FROM bad)),"
    " ins AS (INSERT INTO bitmapd.wlog (images)"
    "         SELECT a FROM (SELECT array_agg(img ORDER BY ord) AS a FROM good) x"
    "          WHERE a IS NOT NULL AND (SELECT ok FROM held)"
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

#define CAS_MAX_BYTES (64u << 20) /* bits and keys of one statement, unless one call alone is more */

struct cas_call {
    struct cas_call *next;
    struct store_write *w; /* keys and bits copied into buf */
    struct cas_chunks *ch; /* per write */
    bool chunks;           /* a key is chunked, or was last seen chunked: SQL_CAS */
    size_t n;
    int32_t ngroups;
    int32_t first_group;   /* in the statement */
    size_t bytes;          /* keys and bits: what the call adds to a statement */
    store_cas_cb cb;
    void *arg;
    int waits;             /* times the write-behind log's guard held it back */
    double parked_at;      /* when it first waited for a fold of its pending keys (metrics_now) */
    struct db_job *handle; /* what the caller holds (and may cancel) */
    struct cache_blob **blobs; /* per write with bits: the new bits, for the cache */
    /* the outcome, while it is delivered */
    enum store_status status;
    const char *err;
    const bool *conflict;
};

struct cas_batch {
    struct store *st;
    bool rows_only;        /* sent as SQL_CAS_ROWS */
    bool append;           /* sent as SQL_APPEND: the write-behind log */
    uint64_t serial;       /* the append's, for the log (wlog_append_begin) */
    size_t nimages;
    struct cas_call *calls;
    uint64_t mark;
    int32_t ngroups;
    struct sent_node sent; /* in st->cas_sent while in flight */
};

static void cas_call_free(struct cas_call *c)
{
    for (size_t i = 0; c->ch && i < c->n; i++) cas_chunks_free(&c->ch[i]);
    free(c->ch);
    for (size_t i = 0; c->blobs && i < c->n; i++) cache_blob_unref(c->blobs[i]);
    free(c->blobs);
    free(c->w);
    free(c);
}

static bool is_retryable(const char *sqlstate)
{
    return sqlstate && (strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "40001") == 0);
}

static void cas_handle_cb(const struct db_result *r, void *arg)
{
    struct cas_call *c = arg;
    (void)r;
    c->cb(c->status, c->err, c->conflict, c->arg);
}

static void cas_flush(struct store *st);

/* Versions a write adds: one per merged change (store_write.inc), at least one. */
static int64_t write_inc(const struct store_write *w) { return w->inc > 1 ? w->inc : 1; }

/* Keeps the cache in step with the outcome of one call's writes. */
static void cas_call_cache(struct store *st, const struct cas_call *c, enum store_status s, const bool *conflict,
                           uint32_t xid, uint64_t mark)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct store_write *w = &c->w[i];
        if (s == STORE_OK && !conflict[w->group]) {
            if (!w->bits || !c->blobs[i]) continue; /* a version check: nothing changed */
            struct cache_val v = {.found = true, .version = (w->absent ? 0 : w->version) + write_inc(w),
                                  .cardinality = (int64_t)w->cardinality, .checksum = w->checksum,
                                  .nbytes = w->nbytes, .xid = xid, .blob = c->blobs[i]};
            cache_put(st->cache, w->key, w->keylen, &v, mark);
            cache_note_write(st->cache, w->key, w->keylen, v.version, xid);
            store_chunks_committed(st->chunks, w, v.version, xid, &c->ch[i]);
            metrics.write_flips += c->ch[i].flips_only;
            metrics.write_chunk_rows += c->ch[i].nrows;
        } else {
            cache_drop(st->cache, w->key, w->keylen);
            store_chunks_forget(st->chunks, w->key, w->keylen); /* a conflict may be a stale directory */
        }
    }
}


/* A call the write-behind log keeps from being written fails, nothing of it written. */
static void call_fail_waited(struct cas_call *c)
{
    static bool none[1];
    c->status = STORE_ERROR; /* nothing was written */
    c->err = WLOG_WAIT_ERROR;
    c->conflict = none;
    db_complete(c->handle, DB_OK, NULL);
    cas_call_free(c);
}

/* Sent again after a pause (the log's holder folds and lets go meanwhile), or failed
 * after WLOG_MAX_WAITS. */
static void call_hold_back(struct store *st, struct cas_call *c)
{
    if (++c->waits > WLOG_MAX_WAITS) {
        call_fail_waited(c);
        return;
    }
    c->next = st->cas_waiting;
    st->cas_waiting = c;
}

static void cas_hold_back(struct store *st, struct cas_batch *b)
{
    struct cas_call *c;
    while ((c = b->calls) != NULL) {
        b->calls = c->next;
        call_hold_back(st, c);
    }
    free(b);
    st->writes_in_flight--;
    wait_arm(st);
    cas_flush(st);
}

/* An append's outcome, once cas_batch_done has read the failed groups and the
 * transaction's id from its answer: the row's seq and whether the lease held. Committed
 * images become pending in the log; an append whose fate is unknown (the connection
 * was lost) makes the holder fold, let go and read the log again. */
static void append_done(struct store *st, struct cas_batch *b, const struct db_result *r, enum store_status s,
                        bool *conflict, uint32_t xid)
{
    int64_t seq = -1;
    bool lease = true, lost_image = false;
    if (s != STORE_OK || !conflict) {
        wlog_append_end(st->wl, b->serial, -1, false);
        if (s == STORE_UNAVAILABLE || !conflict) wlog_append_unknown(st->wl); /* it may have gone in */
        return;
    }
    for (int i = 0; i < PQntuples(r->res); i++) /* res is NULL after a retryable error: no row */
        if (!PQgetisnull(r->res, i, 1)) {
            if (!PQgetisnull(r->res, i, 2)) seq = db_value_int8(r->res, i, 2);
            lease = !PQgetisnull(r->res, i, 3) && pgbin_int4(r->res, i, 3) == 1;
        }
    if (!lease) { /* nothing went in: every group is a conflict (then written in place) */
        for (int32_t g = 0; g < b->ngroups; g++) conflict[g] = true;
    } else {
        size_t n = 0;
        for (struct cas_call *c = b->calls; c; c = c->next)
            for (size_t i = 0; i < c->n; i++) {
                const struct store_write *w = &c->w[i];
                if (!w->bits || !c->blobs[i] || conflict[c->first_group + w->group]) continue;
                struct cache_val v = {.found = true, .version = (w->absent ? 0 : w->version) + write_inc(w),
                                      .cardinality = (int64_t)w->cardinality, .checksum = w->checksum,
                                      .nbytes = w->nbytes, .xid = xid, .blob = c->blobs[i]};
                if (!wlog_put(st->wl, w->key, w->keylen, &v)) lost_image = true;
                n++;
            }
        st->stats.append_keys += n;
    }
    wlog_append_end(st->wl, b->serial, seq, !lease);
    if (lost_image) wlog_append_unknown(st->wl); /* in the log, not in memory: read the log again */
}

static void cas_batch_done(const struct db_result *r, void *arg)
{
    struct cas_batch *b = arg;
    struct store *st = b->st;
    enum store_status s = status_of(r);
    const char *err = r->message;
    bool *conflict = calloc((size_t)b->ngroups + 1, sizeof(bool));
    bool have_xid = false;
    uint32_t xid = 0;

    sent_unlink(&b->sent);
    if (s == STORE_ERROR && r->sqlstate && strncmp(r->sqlstate, "BMW", 3) == 0 && !b->append) {
        /* the write-behind log's guard: nothing was written; again after a pause */
        wlog_blocked(st->wl, strcmp(r->sqlstate, "BMW01") == 0);
        cas_hold_back(st, b);
        free(conflict);
        return;
    }
    bool parse = false;
    if (!conflict) {
        s = STORE_ERROR;
        err = "out of memory";
    } else if (s == STORE_ERROR && is_retryable(r->sqlstate)) {
        s = STORE_OK;
        for (int32_t g = 0; g < b->ngroups; g++) conflict[g] = true;
        if (b->rows_only && !b->append) /* perhaps a chunked head: its keys take SQL_CAS from now on */
            for (struct cas_call *c = b->calls; c; c = c->next)
                for (size_t i = 0; i < c->n; i++) store_chunks_seen(st->chunks, c->w[i].key, c->w[i].keylen, true);
    } else {
        parse = s == STORE_OK;
    }
    if (parse) {
        for (int i = 0; i < PQntuples(r->res); i++) {
            if (!PQgetisnull(r->res, i, 1)) {
                xid = (uint32_t)db_value_int8(r->res, i, 1);
                have_xid = true;
                continue;
            }
            int32_t g = pgbin_int4(r->res, i, 0);
            if (g >= 0 && g < b->ngroups) conflict[g] = true;
        }
    }
    if (b->append) append_done(st, b, r, s, conflict, xid);
    /* writes_in_flight still counts this batch: requests that write again from their
     * callbacks queue up and leave together in the next statement */
    while (b->calls) {
        struct cas_call *c = b->calls;
        b->calls = c->next;
        c->status = s;
        c->err = err;
        c->conflict = conflict ? conflict + c->first_group : NULL;
        cas_call_cache(st, c, conflict && have_xid ? s : STORE_ERROR, c->conflict, xid, b->mark);
        db_complete(c->handle, DB_OK, NULL); /* calls cas_handle_cb unless cancelled */
        cas_call_free(c);
    }
    free(conflict);
    free(b);
    st->writes_in_flight--;
    cas_flush(st);
}

static uint64_t write_hash(const struct store_write *w)
{
    return bytes_hash(w->key, w->keylen) | 1; /* 0 marks an empty slot */
}

/* Adds c's keys to the open-addressing set of the statement's keys; false (and the
 * set unchanged) if one of them is already there from another call. A call may name
 * a key twice (units of one request sharing a key they only check). */
static bool keyset_add(uint64_t *set, const struct store_write **who, size_t cap, const struct cas_call *c)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < c->n; i++) {
            const struct store_write *w = &c->w[i];
            uint64_t h = write_hash(w);
            size_t j = h & (cap - 1);
            bool present = false;
            for (; set[j]; j = (j + 1) & (cap - 1))
                if (set[j] == h && who[j]->keylen == w->keylen && memcmp(who[j]->key, w->key, w->keylen) == 0) {
                    present = true;
                    break;
                }
            if (pass == 0 && present) return false; /* pass 0 sees only earlier calls' keys */
            if (pass == 1 && !present) {
                set[j] = h;
                who[j] = w;
            }
        }
    return true;
}

static void cas_batch_unsent(const struct db_result *r, void *arg)
{
    struct db_result fail = {DB_ERROR, NULL, "out of memory", NULL};
    (void)r;
    cas_batch_done(&fail, arg);
}

/* What a call's writes may do while the write-behind log is in use: go into the next
 * append (small values of keys not chunked, this instance holding the lease, room
 * for them), or else be written in place — unless a key is pending in the log, whose
 * row is behind its image: such a call waits for the fold (or the lease) instead. */
enum call_kind { CALL_DIRECT, CALL_LOG, CALL_PARK };
static enum call_kind call_kind(struct store *st, const struct cas_call *c, size_t nkeys)
{
    bool pending = false, small = !c->chunks;
    for (size_t i = 0; i < c->n; i++) {
        pending |= wlog_pending(st->wl, c->w[i].key, c->w[i].keylen);
        if (c->w[i].bits && c->w[i].len > wlog_max_value_bytes(st->wl)) small = false;
    }
    if (small && wlog_holding(st->wl) && wlog_room(st->wl, nkeys + c->n)) return CALL_LOG;
    return pending ? CALL_PARK : CALL_DIRECT;
}

static struct db_job *append_send(struct store *st, struct cas_batch *b, size_t nkeys)
{
    struct pgarr pkeys, pvers, pgrps, bad, ikeys, ivers, imgs, igrps;
    int32_t *imgrp = calloc(nkeys ? nkeys : 1, sizeof(*imgrp));
    struct wlog_image *im = calloc(nkeys ? nkeys : 1, sizeof(*im));
    struct cache_val *pend = calloc(nkeys ? nkeys : 1, sizeof(*pend));
    bool *is_pend = calloc(nkeys ? nkeys : 1, sizeof(*is_pend));
    size_t nprobe = 0, nbad = 0, nim = 0, packed = 0, j = 0;
    uint8_t *buf = NULL;
    struct db_job *job = NULL;

    if (!im || !pend || !is_pend || !imgrp) goto out;
    for (struct cas_call *c = b->calls; c; c = c->next)
        for (size_t i = 0; i < c->n; i++, j++) {
            const struct store_write *w = &c->w[i];
            is_pend[j] = wlog_lookup(st->wl, w->key, w->keylen, &pend[j]);
            if (!is_pend[j])
                nprobe++;
            else if (w->absent || pend[j].version != w->version)
                nbad++;
            if (w->bits) packed += WLOG_PACK_HEAD + wlog_pack_size(w->keylen, w->len) + WLOG_PACK_TAIL;
        }
    pa_begin(&pkeys, OID_BYTEA, nprobe, false);
    pa_begin(&pvers, OID_INT8, nprobe, false);
    pa_begin(&pgrps, OID_INT4, nprobe, false);
    pa_begin(&bad, OID_INT4, nbad, false);
    j = 0;
    for (struct cas_call *c = b->calls; c; c = c->next)
        for (size_t i = 0; i < c->n; i++, j++) {
            const struct store_write *w = &c->w[i];
            int32_t g = c->first_group + w->group;
            if (!is_pend[j]) {
                pa_elem(&pkeys, w->key, w->keylen);
                pa_int8(&pvers, w->absent ? -1 : w->version);
                pa_int4(&pgrps, g);
            } else if (w->absent || pend[j].version != w->version) {
                pa_int4(&bad, g);
            }
            if (w->bits) {
                imgrp[nim] = g;
                im[nim++] = (struct wlog_image){.key = w->key, .keylen = w->keylen,
                                                .version = (w->absent ? 0 : w->version) + write_inc(w),
                                                .cardinality = (int64_t)w->cardinality, .checksum = w->checksum,
                                                .nbytes = w->nbytes, .bits = w->bits, .len = w->len};
            }
        }
    pa_begin(&ikeys, OID_BYTEA, nim, false);
    pa_begin(&ivers, OID_INT8, nim, false);
    pa_begin(&imgs, OID_BYTEA, nim, false);
    pa_begin(&igrps, OID_INT4, nim, false);
    if ((buf = malloc(packed ? packed : 1)) != NULL)
        for (size_t i = 0; i < nim; i++) {
            pa_elem(&ikeys, im[i].key, im[i].keylen);
            pa_int8(&ivers, im[i].version);
            pa_elem(&imgs, buf, wlog_pack(buf, &im[i], 1));
            pa_int4(&igrps, imgrp[i]);
        }
    if (buf && !(pkeys.oom || pvers.oom || pgrps.oom || bad.oom || ikeys.oom || ivers.oom || imgs.oom || igrps.oom)) {
        struct db_param p[8] = {pa_param(&pkeys), pa_param(&pvers), pa_param(&pgrps), pa_param(&bad),
                                pa_param(&imgs),  pa_param(&ikeys), pa_param(&ivers), pa_param(&igrps)};
        b->append = true;
        b->nimages = nim;
        b->serial = wlog_append_begin(st->wl);
        job = db_query_prepared(st->db, STMT_APPEND, SQL_APPEND, 8, p, cas_batch_done, b);
        if (!job) {
            wlog_append_end(st->wl, b->serial, -1, false);
            b->append = false;
        }
    }
    free(pkeys.buf);
    free(pvers.buf);
    free(pgrps.buf);
    free(bad.buf);
    free(ikeys.buf);
    free(ivers.buf);
    free(imgs.buf);
    free(igrps.buf);
out:
    for (size_t i = 0; pend && is_pend && i < nkeys; i++)
        if (is_pend[i]) cache_blob_unref(pend[i].blob);
    free(buf);
    free(im);
    free(imgrp);
    free(pend);
    free(is_pend);
    return job;
}

/* Sends one statement with the writes of as many waiting calls as fit. */
static bool cas_send(struct store *st)
{
    if (wlog_busy(st->wl)) return false; /* the lease is changing hands: store_wlog_resume */
    size_t limit = (size_t)st->cfg->pg_batch_keys, nkeys = 0, nbytes = 0, cap = 64;
    struct cas_batch *b = calloc(1, sizeof(*b));
    struct cas_call **tail, *c;
    uint64_t *set = NULL;
    const struct store_write **who = NULL;
    struct pgarr keys, vers, bits, cards, crcs, grps, lens, incs, wholes, dirxids;
    struct pgarr ckeys, clos, chis, cbits, ccards, ccrcs, flips;
    size_t nchunks = 0;
    bool any_delete = false;
    struct db_job *job = NULL;
    bool any_null = false, any_null_len = false;
    unsigned long ncalls = 0;
    enum call_kind kind = CALL_DIRECT;

    {   /* the key set needs room for what can leave now, not for batch_keys */
        size_t queued = 0;
        for (c = st->queue_head; c && queued <= limit; c = c->next) queued += c->n;
        while (cap < 2 * queued) cap *= 2;
    }
    if (!b || !(set = calloc(cap, sizeof(*set))) || !(who = calloc(cap, sizeof(*who)))) goto oom;
    b->st = st;
    b->mark = cache_mark(st->cache);
    tail = &b->calls;
    while ((c = st->queue_head) != NULL) {
        if (db_cancelled(c->handle)) { /* its request is gone: nothing of it is sent */
            st->queue_head = c->next;
            st->queued_keys -= c->n;
            db_complete(c->handle, DB_OK, NULL);
            cas_call_free(c);
            continue;
        }
        enum call_kind k = call_kind(st, c, nkeys);
        if (k == CALL_PARK) { /* until a fold or the lease changes (store_wlog_resume) */
            double now = metrics_now();
            st->queue_head = c->next;
            st->queued_keys -= c->n;
            if (!c->parked_at) c->parked_at = now;
            if (now - c->parked_at > WLOG_MAX_WAITS * WLOG_WAIT_MS / 1000.0) { /* the folds keep failing */
                call_fail_waited(c);
                continue;
            }
            c->next = st->parked;
            st->parked = c;
            continue;
        }
        if (b->calls && k != kind) break; /* one statement is an append or in place, not both */
        kind = k;
        /* bounded in keys and in bytes (a bytea[] parameter must stay far below 1 GB) */
        if (b->calls && (nkeys + c->n > limit || nbytes + c->bytes > CAS_MAX_BYTES)) break;
        if (!keyset_add(set, who, cap, c)) break; /* a key of an earlier call: next statement */
        st->queue_head = c->next;
        st->queued_keys -= c->n;
        c->next = NULL;
        c->first_group = b->ngroups;
        b->ngroups += c->ngroups;
        nkeys += c->n;
        nbytes += c->bytes;
        *tail = c;
        tail = &c->next;
    }
    if (!st->queue_head) st->queue_tail = NULL;
    free(set);
    free(who);
    set = NULL;
    who = NULL;
    if (!b->calls) {
        free(b);
        return false;
    }
    if (kind == CALL_LOG) {
        for (c = b->calls; c; c = c->next) ncalls++;
        sent_link(&st->cas_sent, &b->sent);
        job = append_send(st, b, nkeys);
        goto sent;
    }
    b->rows_only = true;
    for (c = b->calls; c; c = c->next) {
        if (c->chunks) b->rows_only = false;
        for (size_t i = 0; i < c->n; i++) {
            any_null |= (c->w[i].bits == NULL);
            any_null_len |= (c->w[i].nbytes < 0);
            nchunks += c->ch[i].nrows;
            for (size_t j = 0; j < c->ch[i].nrows; j++) any_delete |= c->ch[i].rows[j].bits == NULL;
        }
    }
    pa_begin(&keys, OID_BYTEA, nkeys, false);
    pa_begin(&vers, OID_INT8, nkeys, false);
    pa_begin(&bits, OID_BYTEA, nkeys, any_null);
    pa_begin(&cards, OID_INT8, nkeys, false);
    pa_begin(&crcs, OID_INT8, nkeys, false);
    pa_begin(&grps, OID_INT4, nkeys, false);
    pa_begin(&lens, OID_INT8, nkeys, any_null_len);
    pa_begin(&incs, OID_INT8, nkeys, false);
    /* the chunk parameters of SQL_CAS; a SQL_CAS_ROWS batch has no chunked write */
    pa_begin(&wholes, OID_INT4, b->rows_only ? 0 : nkeys, false);
    pa_begin(&dirxids, OID_INT8, b->rows_only ? 0 : nkeys, false);
    pa_begin(&flips, OID_BYTEA, b->rows_only ? 0 : nkeys, true);
    pa_begin(&ckeys, OID_BYTEA, nchunks, false);
    pa_begin(&clos, OID_INT4, nchunks, false);
    pa_begin(&chis, OID_INT4, nchunks, false);
    pa_begin(&cbits, OID_BYTEA, nchunks, any_delete);
    pa_begin(&ccards, OID_INT8, nchunks, false);
    pa_begin(&ccrcs, OID_INT8, nchunks, false);
    for (c = b->calls; c; c = c->next)
        for (size_t i = 0; i < c->n; i++) {
            const struct store_write *w = &c->w[i];
            const struct cas_chunks *ch = &c->ch[i];
            pa_elem(&keys, w->key, w->keylen);
            pa_int8(&vers, w->absent ? -1 : w->version);
            pa_elem(&bits, ch->chunked ? (const uint8_t *)"" : w->bits, ch->chunked ? 0 : w->len);
            if (!b->rows_only) {
                pa_int4(&wholes, ch->whole);
                pa_int8(&dirxids, ch->chunked ? ch->dir_xid : -1);
                pa_elem(&flips, ch->flips, ch->flen); /* NULL: the head has none */
            }
            for (size_t j = 0; j < ch->nrows; j++) {
                const struct chunk_part *cp = &ch->rows[j];
                pa_elem(&ckeys, w->key, w->keylen);
                pa_int4(&clos, (int32_t)cp->lo);
                pa_int4(&chis, (int32_t)cp->hi);
                pa_elem(&cbits, cp->bits, cp->len);
                pa_int8(&ccards, cp->cardinality);
                pa_int8(&ccrcs, (int64_t)cp->checksum);
            }
            pa_int8(&cards, (int64_t)w->cardinality);
            pa_int8(&crcs, (int64_t)(ch->chunked ? ch->head_crc : w->checksum));
            pa_int4(&grps, c->first_group + w->group);
            pa_int8_or_null(&lens, w->nbytes);
            pa_int8(&incs, write_inc(w));
        }
    for (c = b->calls; c; c = c->next) ncalls++;
    sent_link(&st->cas_sent, &b->sent); /* before the query, so that store_free finds it whatever follows */
    if (!(keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || grps.oom || lens.oom || incs.oom ||
          wholes.oom || ckeys.oom || clos.oom || chis.oom || cbits.oom || ccards.oom || ccrcs.oom || dirxids.oom ||
          flips.oom)) {
        struct db_param p[17] = {pa_param(&keys),   pa_param(&vers),  pa_param(&bits),  pa_param(&cards),
                                 pa_param(&crcs),   pa_param(&grps),  pa_param(&lens),  pa_param(&incs),
                                 pa_param(&wholes), pa_param(&ckeys), pa_param(&clos),  pa_param(&chis),
                                 pa_param(&cbits),  pa_param(&ccards), pa_param(&ccrcs), pa_param(&dirxids),
                                 pa_param(&flips)};
        /* one existing row written: the short statements */
        const struct store_write *w0 = &b->calls->w[0];
        const struct cas_chunks *ch0 = &b->calls->ch[0];
        bool one = nkeys == 1 && w0->bits && !w0->absent;
        if (one && b->rows_only)
            job = db_query_prepared(st->db, STMT_CAS_ONE, SQL_CAS_ONE, 8, p, cas_batch_done, b);
        else if (one && ch0->chunked && !ch0->whole && ch0->dir_xid >= 0)
            job = db_query_prepared(st->db, STMT_CAS_ONE_CHUNKED, SQL_CAS_ONE_CHUNKED, 17, p, cas_batch_done, b);
        else if (b->rows_only)
            job = db_query_prepared(st->db, STMT_CAS_ROWS, SQL_CAS_ROWS, 8, p, cas_batch_done, b);
        else
            job = db_query_prepared(st->db, STMT_CAS, SQL_CAS, 17, p, cas_batch_done, b);
    }
    free(dirxids.buf);
    free(flips.buf);
    free(wholes.buf);
    free(ckeys.buf);
    free(clos.buf);
    free(chis.buf);
    free(cbits.buf);
    free(ccards.buf);
    free(ccrcs.buf);
    free(keys.buf);
    free(vers.buf);
    free(bits.buf);
    free(cards.buf);
    free(crcs.buf);
    free(grps.buf);
    free(lens.buf);
    free(incs.buf);
sent:
    /* out of memory: the batch's calls fail, from the loop as always */
    if (!job && !(job = db_defer(st->db, cas_batch_unsent, b))) {
        struct cas_call *last = b->calls;
        sent_unlink(&b->sent);
        while (last->next) last = last->next;
        last->next = st->queue_head; /* back to the front of the queue, in order */
        if (!st->queue_head) st->queue_tail = last;
        st->queue_head = b->calls;
        for (c = b->calls; c != last->next; c = c->next) st->queued_keys += c->n;
        free(b);
        return false;
    }
    st->writes_in_flight++;
    st->stats.cas_statements++;
    st->stats.cas_keys += nkeys;
    metrics_observe_size(&metrics.write_batch_keys, (double)nkeys);
    st->stats.cas_calls += ncalls;
    if (ncalls > st->stats.max_batch_calls) st->stats.max_batch_calls = ncalls;
    return true;
oom:
    free(set);
    free(who);
    free(b);
    return false;
}

/* Small writes: at most write_statements in flight, so that those arriving meanwhile
 * make one big batch. Full batches (a fan-out, a big import) gain nothing by waiting:
 * up to FULL_BATCH_EXTRA more statements go out while batch_keys keys are queued, so
 * both cores work on them. */
#define FULL_BATCH_EXTRA 2
static void cas_flush(struct store *st)
{
    if (st->queue_head) wlog_kick(st->wl); /* writes wait: the lease, if the configuration asks for it */
    /* nothing is written until the lease is ours again; with no connection at all
     * the writes fail at once, as they always did (nothing can be written anyway) */
    if (wlog_lost(st->wl) && st->queue_head && db_is_up(st->db)) {
        while (st->queue_head) {
            struct cas_call *c = st->queue_head;
            st->queue_head = c->next;
            st->queued_keys -= c->n;
            call_hold_back(st, c);
        }
        st->queue_tail = NULL;
        wait_arm(st);
        return;
    }
    while (st->queue_head &&
           (st->writes_in_flight < st->cfg->pg_write_statements ||
            (st->writes_in_flight < st->cfg->pg_write_statements + FULL_BATCH_EXTRA &&
             st->queued_keys >= (size_t)st->cfg->pg_batch_keys)))
        if (!cas_send(st)) break;
}

struct db_job *store_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups,
                         store_cas_cb cb, void *arg)
{
    struct cas_call *c = calloc(1, sizeof(*c));
    size_t keybytes = 0;
    uint8_t *p;

    if (!c) return NULL;
    for (size_t i = 0; i < n; i++) {
        keybytes += w[i].keylen;
        c->bytes += w[i].keylen + (w[i].bits ? w[i].len : 0);
    }
    /* the writes and their keys in one block; the bits go into blobs */
    if (!(c->w = malloc(n * sizeof(*w) + keybytes + 1)) || !(c->blobs = calloc(n ? n : 1, sizeof(*c->blobs))) ||
        !(c->ch = calloc(n ? n : 1, sizeof(*c->ch))))
        goto oom;
    memcpy(c->w, w, n * sizeof(*w));
    c->n = n; /* from here cas_call_free() releases every blob made */
    p = (uint8_t *)(c->w + n);
    for (size_t i = 0; i < n; i++) {
        memcpy(p, w[i].key, w[i].keylen);
        c->w[i].key = p;
        p += w[i].keylen;
        if (w[i].bits) {
            /* the bits go into the statement and, after commit, the cache */
            if (w[i].blob && w[i].blob->data == w[i].bits && w[i].blob->len == w[i].len)
                (c->blobs[i] = w[i].blob)->refs++; /* the writer's own: not copied */
            else if (!(c->blobs[i] = cache_blob_new(w[i].bits, w[i].len)))
                goto oom;
            c->blobs[i]->checked = true; /* codec_encode validated it */
            c->w[i].bits = c->blobs[i]->data;
            if (w[i].len > (size_t)st->cfg->pg_chunk_bytes &&
                !store_chunks_plan(st->chunks, &c->w[i], (size_t)st->cfg->pg_chunk_bytes,
                                   (size_t)st->cfg->pg_flip_bytes, &c->ch[i]))
                goto oom;
            c->w[i].bm = NULL; /* the writer's, valid during this call only */
            c->w[i].changed = NULL;
            c->w[i].blob = NULL;
        }
        c->chunks |= c->ch[i].chunked || store_chunks_known(st->chunks, w[i].key, w[i].keylen);
    }
    c->ngroups = ngroups;
    c->cb = cb;
    c->arg = arg;
    if (!(c->handle = db_pending(st->db, cas_handle_cb, c))) goto oom;
    if (st->queue_tail)
        st->queue_tail->next = c;
    else
        st->queue_head = c;
    st->queue_tail = c;
    st->queued_keys += n;
    {
        struct db_job *handle = c->handle;
        event_active(st->flush_ev, 0, 0); /* with the other writes of this loop turn */
        return handle;
    }
oom:
    cas_call_free(c);
    return NULL;
}

struct db_job *store_ping(struct store *st, db_cb cb, void *arg)
{
    return db_query(st->db, "SELECT 1", 0, NULL, cb, arg);
}

static void store_on_notify(const char *payload, void *arg)
{
    struct store *st = arg;
    if (payload[0] == '!') { /* the write-behind log's (migration 0009) */
        if (wlog_on_notify(st->wl, payload)) return;
        if (strncmp(payload, "!w,", 3) == 0) {
            wlog_note_append_seen(st->wl);
            payload += 3;
        }
    }
    if (!cache_invalidate(st->cache, payload))
        log_warn("msg=\"unreadable change notification; cache emptied\" payload=\"%.80s\"", payload);
}

/* The cache is only as good as the notifications: it is turned on after LISTEN
 * succeeds and the four triggers of migration 0007 are found enabled with the
 * current payload (a table restored with --disable-triggers, or ALTER TABLE …
 * DISABLE TRIGGER, would otherwise leave caches stale with no bound). */
static const char SQL_TRIGGERS_OK[] =
    "SELECT (SELECT count(*) FROM pg_trigger"
    "         WHERE tgrelid = 'bitmapd.bitmaps'::regclass AND tgenabled IN ('O', 'A')"
    "           AND tgname IN ('bitmaps_changed_insert', 'bitmaps_changed_update',"
    "                          'bitmaps_changed_delete', 'bitmaps_changed_truncate')) = 4"
    "   AND (SELECT prosrc LIKE '%txid_current%' FROM pg_proc"
    "         WHERE oid = 'bitmapd._bitmaps_changed()'::regprocedure)";

struct listen_check {
    struct sent_node sent; /* in st->checks while its statement is out, for store_free */
    struct store *st;
    unsigned gen;
};

static void triggers_checked(const struct db_result *r, void *arg)
{
    struct listen_check *lc = arg;
    struct store *st = lc->st;
    bool ok = r->status == DB_OK && PQntuples(r->res) == 1 && !PQgetisnull(r->res, 0, 0) &&
              *PQgetvalue(r->res, 0, 0) == 1;
    if (lc->gen == st->listen_gen && db_listening(st->db)) {
        if (ok) {
            cache_set_enabled(st->cache, true);
        } else if (r->status == DB_UNAVAILABLE ||
                   (r->status == DB_ERROR && r->sqlstate &&
                    (strncmp(r->sqlstate, "08", 2) == 0 || strncmp(r->sqlstate, "57P", 3) == 0))) {
            /* the listener is back before the pool (a restart, terminated backends),
             * or the server is shutting down or starting: the check could not run,
             * which says nothing about the triggers. Logged once per listener session. */
            struct timeval tv = {0, 200 * 1000};
            if (st->recheck_logged_gen != st->listen_gen)
                log_info("msg=\"cache stays off until the change triggers can be checked\" detail=\"%s\"",
                         r->message ? r->message : "");
            st->recheck_logged_gen = st->listen_gen;
            event_add(st->recheck_ev, &tv);
        } else {
            log_error("msg=\"cache stays off: the change triggers of bitmapd.bitmaps are missing, disabled or "
                      "outdated (migration 0007; run bitmapd --migrate)\" detail=\"%s\"",
                      r->message ? r->message : "");
        }
    }
    sent_unlink(&lc->sent);
    free(lc);
}

/* Asks whether the triggers are in place, for the listener's current session. */
static void triggers_check(struct store *st)
{
    struct listen_check *lc = malloc(sizeof(*lc));
    if (!lc) return;
    *lc = (struct listen_check){.st = st, .gen = st->listen_gen};
    sent_link(&st->checks, &lc->sent);
    if (!db_query(st->db, SQL_TRIGGERS_OK, 0, NULL, triggers_checked, lc)) {
        sent_unlink(&lc->sent);
        free(lc);
    }
}

static void recheck_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    if (db_listening(st->db)) triggers_check(st);
}

static void store_on_listen(bool up, void *arg)
{
    struct store *st = arg;
    st->listen_gen++;
    cache_set_enabled(st->cache, false);
    wlog_listen_state(st->wl, up);
    event_del(st->recheck_ev);
    if (up) triggers_check(st);
}

/* Requests that start in one turn of the loop (the trains of every client read in
 * it, a pipeline's commands) leave in one statement: store_load and store_cas queue,
 * and this sends once they all have. */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    load_flush(st);
    cas_flush(st);
}

/* What the write-behind log held back goes to the front of its queue again. */
static void requeue_front(struct store *st, struct cas_call *list)
{
    while (list) { /* list is newest first: each goes in front of the one after it */
        struct cas_call *c = list;
        list = c->next;
        c->next = st->queue_head;
        st->queue_head = c;
        if (!st->queue_tail) st->queue_tail = c;
        st->queued_keys += c->n;
    }
}

void store_wlog_resume(struct store *st)
{
    struct cas_call *list = st->parked;
    st->parked = NULL;
    requeue_front(st, list);
    event_active(st->flush_ev, 0, 0);
}

static void wait_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    struct cas_call *list = st->cas_waiting;
    (void)fd;
    (void)what;
    st->cas_waiting = NULL;
    requeue_front(st, list);
    while (st->load_waiting) {
        struct load_ctx *ctx = st->load_waiting, **p = &st->load_queue;
        st->load_waiting = ctx->next;
        ctx->next = *p;
        *p = ctx;
    }
    load_flush(st);
    cas_flush(st);
}

bool store_fold_barrier(struct store *st, void (*cb)(bool ok, void *arg), void *arg)
{
    return wlog_barrier(st->wl, cb, arg);
}

struct folded_query {
    struct store *st;
    const char *sql;
    int nparams;
    struct db_param p[STORE_QUERY_MAX_PARAMS];
    db_cb cb;
    void *arg;
    uint8_t data[]; /* the parameters' values */
};

static void folded_query_go(bool ok, void *arg)
{
    struct folded_query *q = arg;
    if (!ok || !db_query(q->st->db, q->sql, q->nparams, q->p, q->cb, q->arg)) {
        struct db_result fail = {DB_UNAVAILABLE, NULL,
                                 ok ? "out of memory" : "the write-behind log could not be folded in time", NULL};
        q->cb(&fail, q->arg);
    }
    free(q);
}

bool store_query_folded(struct store *st, const char *sql, int nparams, const struct db_param *params, db_cb cb,
                        void *arg)
{
    size_t total = 0;
    struct folded_query *q;
    if (wlog_quiet(st->wl)) return db_query(st->db, sql, nparams, params, cb, arg) != NULL;
    if (nparams > STORE_QUERY_MAX_PARAMS) return false;
    for (int i = 0; i < nparams; i++)
        total += params[i].format ? (size_t)params[i].length : strlen(params[i].value) + 1;
    if (!(q = calloc(1, sizeof(*q) + total))) return false;
    *q = (struct folded_query){.st = st, .sql = sql, .nparams = nparams, .cb = cb, .arg = arg};
    for (int i = 0, off = 0; i < nparams; i++) {
        size_t n = params[i].format ? (size_t)params[i].length : strlen(params[i].value) + 1;
        memcpy(q->data + off, params[i].value, n);
        q->p[i] = params[i];
        q->p[i].value = q->data + off;
        off += (int)n;
    }
    if (!store_fold_barrier(st, folded_query_go, q)) {
        free(q);
        return false;
    }
    return true;
}

struct store *store_new(struct db *db, const struct config *cfg)
{
    struct store *st = calloc(1, sizeof(*st));
    if (!st) return NULL;
    st->db = db;
    st->cfg = cfg;
    if (!(st->cache = cache_new((size_t)cfg->cache_max_mb << 20))) goto fail;
    if (!(st->chunks = store_chunks_new())) goto fail;
    if (!(st->kept = kept_new())) goto fail;
    if (!(st->ready_ev = event_new(db_event_base(db), -1, 0, load_ready_cb, st))) goto fail;
    if (!(st->flush_ev = event_new(db_event_base(db), -1, 0, flush_cb, st))) goto fail;
    if (!(st->recheck_ev = evtimer_new(db_event_base(db), recheck_cb, st))) goto fail;
    if (!(st->wait_ev = evtimer_new(db_event_base(db), wait_cb, st))) goto fail;
    if (!(st->wl = wlog_new(st, db, cfg, st->cache))) goto fail;
    db_listen_setup(db, WLOG_WATCH_SQL); /* a watcher of the appends (store_wlog.h) */
    if (cfg->cache_max_mb > 0 && !db_listen(db, "bitmapd_changed", store_on_notify, store_on_listen, st)) goto fail;
    if (!metrics_register(store_metrics_render, st)) goto fail;
    return st;
fail:
    store_free(st);
    return NULL;
}

/* Lists of calls and of reads the loop will not serve: their callers' handles end
 * cancelled (store_free). */
static void calls_cancel(struct cas_call *c)
{
    while (c) {
        struct cas_call *next = c->next;
        db_cancel(c->handle);
        db_complete(c->handle, DB_OK, NULL);
        cas_call_free(c);
        c = next;
    }
}

static void loads_cancel(struct load_ctx *ctx)
{
    while (ctx) {
        struct load_ctx *next = ctx->next;
        db_cancel(ctx->handle);
        load_finish(ctx);
        ctx = next;
    }
}

void store_free(struct store *st)
{
    if (!st) return;
    metrics_unregister(store_metrics_render, st);
    calls_cancel(st->parked);
    calls_cancel(st->cas_waiting);
    calls_cancel(st->queue_head);
    loads_cancel(st->load_waiting);
    loads_cancel(st->load_queue);
    loads_cancel(st->ready);
    st->parked = st->cas_waiting = st->queue_head = NULL;
    st->load_waiting = st->load_queue = st->ready = NULL;
    /* Statements still running (the shutdown deadline passed, or their requests went
     * away): db_free drops their jobs without a callback, so their batches go here. */
    while (st->cas_sent) {
        struct cas_batch *b = SENT_BATCH(st->cas_sent, struct cas_batch);
        st->cas_sent = b->sent.next;
        calls_cancel(b->calls);
        free(b);
    }
    while (st->load_sent) {
        struct load_batch *b = SENT_BATCH(st->load_sent, struct load_batch);
        st->load_sent = b->sent.next;
        loads_cancel(b->reqs);
        free(b);
    }
    while (st->checks) { /* their jobs are dropped by db_free without a callback */
        struct listen_check *lc = SENT_BATCH(st->checks, struct listen_check);
        st->checks = lc->sent.next;
        free(lc);
    }
    if (st->ready_ev) event_free(st->ready_ev);
    if (st->flush_ev) event_free(st->flush_ev);
    if (st->recheck_ev) event_free(st->recheck_ev);
    if (st->wait_ev) event_free(st->wait_ev);
    wlog_free(st->wl);
    cache_free(st->cache);
    store_chunks_free(st->chunks);
    kept_free(st->kept);
    free(st);
}

/* The rows of n keys from the cache; with guess, a missing key not known to be chunked
 * is taken as absent (unchecked) while most recent misses had no row. False, with
 * nothing held, when a key is neither. */
static bool peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                 struct cache_blob **held, bool guess, size_t *nguess)
{
    size_t i;
    *nguess = 0;
    for (i = 0; i < n; i++) {
        struct cache_val v;
        if (cached_row(st, &keys[i], &v, &rows[i])) {
            held[i] = v.blob;
        } else if (guess && st->absent_score >= ABSENT_GUESS &&
                   !store_chunks_known(st->chunks, keys[i].key, keys[i].len)) {
            rows[i] = (struct store_row){.found = false, .nbytes = -1, .cached = true};
            held[i] = NULL;
            (*nguess)++;
        } else {
            store_peek_release(held, i);
            return false;
        }
    }
    st->stats.loads++;
    st->stats.load_keys_cached += n - *nguess;
    return true;
}

bool store_peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                struct cache_blob **held)
{
    size_t nguess;
    return peek(st, keys, n, rows, held, false, &nguess);
}

bool store_peek_or_guess(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                         struct cache_blob **held, bool *guessed)
{
    size_t nguess;
    bool ok = peek(st, keys, n, rows, held, true, &nguess);
    metrics.write_guessed_absent += nguess;
    *guessed = nguess > 0;
    return ok;
}

void store_peek_release(struct cache_blob **held, size_t n)
{
    for (size_t i = 0; i < n; i++) cache_blob_unref(held[i]);
}

void store_keep_decoded(struct store *st, const uint8_t *key, size_t len, int64_t version, roaring_bitmap_t *bm)
{
    struct cache_blob *b = cache_blob_at(st->cache, key, len, version);
    if (b && b->len > (size_t)st->cfg->pg_chunk_bytes)
        kept_put(st->kept, b, bm);
    else
        roaring_bitmap_free(bm);
    cache_blob_unref(b);
}

roaring_bitmap_t *store_take_decoded(struct store *st, const struct store_row *row)
{
    roaring_bitmap_t *bm = row->cached && row->bits ? kept_take(st->kept, row->bits) : NULL;
    if (bm) metrics.write_kept_copies++;
    return bm;
}

struct cache *store_cache(struct store *st) { return st->cache; }

struct event_base *store_event_base(struct store *st) { return db_event_base(st->db); }

struct db *store_db(struct store *st) { return st->db; }

void store_get_stats(const struct store *st, struct store_stats *out) { *out = st->stats; }

void store_get_wlog_stats(const struct store *st, struct wlog_stats *out) { wlog_get_stats(st->wl, out); }

bool store_wlog_stop(struct store *st) { return wlog_stop(st->wl); }
