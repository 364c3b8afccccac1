/* store_load.c — coalesced loads: the cache misses of every request waiting at that
 * time go out in one statement (at most [postgres] load_statements in flight), and
 * each request gets its rows back in its own order. */
#include <stdio.h>

#include "store/store_internal.h"

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
    "       CASE WHEN octet_length(b.bits) = 0 AND " LOAD_SENT " THEN b.flips END, b.expire_ms"
    "  FROM unnest($1::bytea[], $2::int8[], $3::int8[]) WITH ORDINALITY AS k(key, ver, xid, ord)"
    "  CROSS JOIN LATERAL (SELECT x.version, x.bits, x.cardinality, x.checksum, x.nbytes, x.xmin, x.flips,"
    "                             x.expire_ms"
    "                        FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1) b"
    /* a write-behind log with rows: only its holder may trust the rows (ord 0; column
     * 1 says whether anyone holds the lease) */
    " UNION ALL"
    " SELECT 0, pg_try_advisory_xact_lock_shared(" WLOG_LEASE_LOCK ")::int4::int8, NULL, NULL, NULL, NULL, NULL,"
    "        NULL, NULL, NULL, NULL"
    "  WHERE EXISTS (SELECT 1 FROM bitmapd.wlog)";




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
                              .checksum = v->checksum, .nbytes = v->nbytes, .expire_ms = v->expire_ms};
    if (v->blob) {
        row->bits = v->blob->data;
        row->len = v->blob->len;
        row->checked = v->blob->checked;
    }
}

/* A cache hit for key as a row (marked cached: not checked against the database);
 * *held takes the reference on its bits. */
bool cached_row(struct store *st, const struct store_key *key, struct cache_val *held, struct store_row *row)
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
                          .xid = (uint32_t)db_value_int8(res, i, 6),
                          .expire_ms = PQgetisnull(res, i, 10) ? 0 : db_value_int8(res, i, 10)};
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
    if (ctx->status == STORE_OK) store_expire_rows(ctx->st, ctx->rows, ctx->n);
    ctx->cb(ctx->status, ctx->err, ctx->status == STORE_OK ? ctx->rows : NULL, ctx->arg);
}

/* Answers ctx (unless its caller cancelled) and frees it. */
void load_finish(struct load_ctx *ctx)
{
    db_complete(ctx->handle, DB_OK, NULL);
    load_ctx_free(ctx);
}


void load_ready_cb(evutil_socket_t fd, short what, void *arg)
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
    /* loads.in_flight still counts this batch: reads issued from the callbacks
     * queue up and leave together in the next statement */
    while ((ctx = b->reqs) != NULL) {
        b->reqs = ctx->next;
        ctx->status = s;
        ctx->err = s == STORE_OK ? NULL : (r->message ? r->message : "out of memory");
        if (s == STORE_OK) load_take_missing(ctx);
        load_finish(ctx);
    }
    free(b);
    st->loads.in_flight--;
    load_flush(st);
}


void wait_arm(struct store *st)
{
    struct timeval tv = {0, WLOG_WAIT_MS * 1000};
    if (!event_pending(st->wait_ev, EV_TIMEOUT, NULL)) event_add(st->wait_ev, &tv);
}

/* The batch's reads go back to the front of the queue after a pause (the log's holder
 * folds meanwhile), or fail after WLOG_MAX_WAITS. */
static void load_hold_back(struct store *st, struct load_batch *b)
{
    struct load_ctx *ctx;
    while ((ctx = b->reqs) != NULL) {
        b->reqs = ctx->next;
        ctx->next = NULL;
        if (!sq_hold(&st->loads, &ctx->q, WLOG_MAX_WAITS)) {
            ctx->status = STORE_ERROR; /* nothing was written; the reason is not the database's state */
            ctx->err = WLOG_WAIT_ERROR;
            load_finish(ctx);
        }
    }
    free(b);
    st->loads.in_flight--;
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
    struct sq_item *it;
    struct pgarr a, vers, xids;
    struct db_job *job = NULL;
    size_t limit = (size_t)st->cfg->pg_batch_keys, nkeys;

    if (!b) return false;
    b->st = st;
    tail = &b->reqs;
    while ((it = sq_head(&st->loads)) != NULL) {
        ctx = LOAD_OF(it);
        if (db_cancelled(ctx->handle)) { /* its request is gone */
            sq_pop(&st->loads);
            load_finish(ctx);
            continue;
        }
        if (b->reqs && b->nkeys + ctx->nsent > limit) break;
        sq_pop(&st->loads);
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
    sent_link(&st->loads.sent, &b->sent); /* before the query, so that store_free finds it whatever follows */
    if (!a.oom && !vers.oom && !xids.oom) {
        struct db_param p[3] = {pa_param(&a), pa_param(&vers), pa_param(&xids)};
        job = db_query_prepared(st->db, STMT_LOAD, SQL_LOAD, 3, p, load_batch_done, b);
    }
    free(a.buf);
    free(vers.buf);
    free(xids.buf);
    if (!job && !(job = db_defer(st->db, load_batch_unsent, b))) {
        struct squeue back; /* the batch's requests back to the front, in order */
        sq_init(&back);
        sent_unlink(&b->sent);
        while ((ctx = b->reqs) != NULL) {
            b->reqs = ctx->next;
            ctx->next = NULL;
            sq_push(&back, &ctx->q);
        }
        sq_requeue_front(&st->loads, &back);
        free(b);
        return false;
    }
    st->loads.in_flight++;
    st->stats.load_statements++;
    metrics_observe_size(&metrics.load_batch_keys, (double)nkeys);
    return true;
}

void load_flush(struct store *st)
{
    while (st->loads.in_flight < st->cfg->pg_load_statements && sq_head(&st->loads))
        if (!load_send(st)) break;
}

static const void *load_key_at(const void *arg, size_t i, size_t *len)
{
    const struct store_key *k = (const struct store_key *)arg + i;
    *len = k->len;
    return k->key;
}

struct db_job *rows_load(struct store *st, const struct store_key *keys, size_t n, unsigned flags, store_load_cb cb,
                         void *arg)
{
    struct load_ctx *ctx = calloc(1, sizeof(*ctx));
    size_t total = 0, nguess = 0;
    bool consistent = flags & STORE_CONSISTENT;
    bool guess = (flags & STORE_GUESS_ABSENT) && !consistent;

    if (!ctx) return NULL;
    *ctx = (struct load_ctx){.st = st, .n = n, .cb = cb, .arg = arg, .status = STORE_OK};
    ctx->rows = calloc(n ? n : 1, sizeof(*ctx->rows));
    ctx->held = calloc(n ? n : 1, sizeof(*ctx->held));
    ctx->sent = calloc(n ? n : 1, sizeof(*ctx->sent));
    ctx->keyoff = calloc(n + 1, sizeof(*ctx->keyoff));
    ctx->seen = calloc(n ? n : 1, sizeof(*ctx->seen));
    if (!ctx->rows || !ctx->held || !ctx->sent || !ctx->keyoff || !ctx->seen) goto fail;
    if (n >= CACHE_PREFETCH_MIN) cache_prefetch(st->cache, n, load_key_at, keys);
    for (size_t i = 0; i < n; i++) {
        /* a pending image is newer than the row: never checked against it */
        bool hit = cached_row(st, &keys[i], &ctx->held[i], &ctx->rows[i]);
        if (hit && (!consistent || wlog_pending(st->wl, keys[i].key, keys[i].len))) continue;
        if (!hit && guess && store_guess_absent(st, &keys[i], &ctx->rows[i])) {
            nguess++;
            continue;
        }
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
    st->stats.load_keys_cached += n - ctx->nsent - nguess;
    metrics.write_guessed_absent += nguess;
    if (ctx->nsent == 0) { /* all from the cache: answered on the next turn of the loop */
        ctx->next = st->ready;
        st->ready = ctx;
        event_active(st->ready_ev, 0, 0);
        return ctx->handle;
    }
    {
        struct db_job *handle = ctx->handle;
        ctx->q.nkeys = ctx->nsent;
        sq_push(&st->loads, &ctx->q);
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
