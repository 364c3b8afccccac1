/* store.c — the SQL of the bitmap table. Parameters and results travel in
 * PostgreSQL's binary format (bytea[] and int8[] arrays built here), so bitmaps are
 * never hex-encoded on the way.
 *
 * This file holds the store's life (new, free), its change notifications and
 * listener checks, the cache peeks and the pauses of the write-behind log; the loads
 * are in store_load.c, the writes in store_cas.c and their statements in
 * store_sql.c (store_internal.h). */
#include "store/store_internal.h"


/* Misses are guessed absent once about three in four of the recent ones were: each
 * load of a missing key moves the score a sixteenth of the way towards ABSENT_ONE
 * (no row) or 0 (a row). */
#define ABSENT_ONE 1024u
#define ABSENT_GUESS 768u
void absent_learn(struct store *st, bool found)
{
    if (found)
        st->absent_score -= st->absent_score >> 4;
    else
        st->absent_score += (ABSENT_ONE - st->absent_score) >> 4;
}

bool store_guess_absent(struct store *st, const struct store_key *key, struct store_row *row)
{
    if (st->absent_score < ABSENT_GUESS || store_chunks_known(st->chunks, key->key, key->len)) return false;
    *row = (struct store_row){.found = false, .nbytes = -1, .cached = true, .guessed = true};
    return true;
}

enum store_status status_of(const struct db_result *r)
{
    if (r->status == DB_OK) return STORE_OK;
    /* a deadlock or serialization failure is a conflict like any other: retry */
    return r->status == DB_UNAVAILABLE ? STORE_UNAVAILABLE : STORE_ERROR;
}


struct db_job *store_ping(struct store *st, db_cb cb, void *arg)
{
    return db_query(st->db, "SELECT 1", 0, NULL, cb, arg);
}

static void store_on_notify(const char *payload, void *arg)
{
    struct store *st = arg;
    if (strcmp(payload, "!buckets") == 0) { /* a family's state changed (bitmapd --buckets) */
        store_buckets_reread(st);
        return;
    }
    if (strncmp(payload, "!q:", 3) == 0) {
        /* a statement that went unannounced (migration 0019): this instance's own is
         * known from its answer, unless a write's answer was lost (its statement may
         * commit yet, after a load put the old row in the cache: wlog_doubting);
         * another's was sent while no listener was seen, so this one registered since
         * and cannot tell which keys it holds are stale */
        if (strcmp(payload + 3, db_instance(st->db)) != 0 || wlog_doubting(st->wl))
            cache_invalidate(st->cache, "*");
        return;
    }
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
    if (up) {
        triggers_check(st);
        store_buckets_reread(st);
    }
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

/* The writes parked for a fold go to the front of the write queue again, in order. */
void store_wlog_resume(struct store *st)
{
    sq_requeue_front(&st->writes, &st->parked);
    event_active(st->flush_ev, 0, 0);
}

static void wait_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    /* what the write-behind log held back goes to the front of its queue again */
    sq_release(&st->writes);
    sq_release(&st->loads);
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
    sq_init(&st->loads);
    sq_init(&st->writes);
    sq_init(&st->parked);
    if (!(st->cache = cache_new((size_t)cfg->cache_max_mb << 20))) goto fail;
    if (!(st->chunks = store_chunks_new())) goto fail;
    if (!(st->kept = kept_new())) goto fail;
    if (!(st->ready_ev = event_new(db_event_base(db), -1, 0, load_ready_cb, st))) goto fail;
    if (!(st->flush_ev = event_new(db_event_base(db), -1, 0, flush_cb, st))) goto fail;
    if (!(st->recheck_ev = evtimer_new(db_event_base(db), recheck_cb, st))) goto fail;
    if (!(st->wait_ev = evtimer_new(db_event_base(db), wait_cb, st))) goto fail;
    if (!(st->wl = wlog_new(st, db, cfg, st->cache))) goto fail;
    if (!store_expire_setup(st)) goto fail;
    if (!store_analyze_setup(st)) goto fail;
    if (!store_buckets_setup(st)) goto fail;
    db_listen_setup(db, WLOG_WATCH_SQL); /* a watcher of the appends (store_wlog.h) */
    if (cfg->cache_max_mb > 0 && !db_listen(db, "bitmapd_changed", store_on_notify, store_on_listen, st)) goto fail;
    if (!metrics_register(store_metrics_render, st)) goto fail;
    store_expire_start(st);
    store_analyze_start(st);
    return st;
fail:
    store_free(st);
    return NULL;
}

/* Lists of calls and of reads the loop will not serve: their callers' handles end
 * cancelled (store_free). */
static void call_cancel(struct cas_call *c)
{
    db_cancel(c->handle);
    db_complete(c->handle, DB_OK, NULL);
    cas_call_free(c);
}

static void calls_cancel(struct cas_call *c) /* a batch's list */
{
    while (c) {
        struct cas_call *next = c->next;
        call_cancel(c);
        c = next;
    }
}

static void calls_cancel_queue(struct squeue *q)
{
    for (struct sq_item *it = sq_take_all(q), *next; it; it = next) {
        next = it->next;
        call_cancel(CALL_OF(it));
    }
}

static void load_cancel(struct load_ctx *ctx)
{
    db_cancel(ctx->handle);
    load_finish(ctx);
}

static void loads_cancel(struct load_ctx *ctx) /* a batch's list, or st->ready */
{
    while (ctx) {
        struct load_ctx *next = ctx->next;
        load_cancel(ctx);
        ctx = next;
    }
}

static void loads_cancel_queue(struct squeue *q)
{
    for (struct sq_item *it = sq_take_all(q), *next; it; it = next) {
        next = it->next;
        load_cancel(LOAD_OF(it));
    }
}

void store_free(struct store *st)
{
    if (!st) return;
    metrics_unregister(store_metrics_render, st);
    store_buckets_free(st);
    calls_cancel_queue(&st->parked);
    calls_cancel_queue(&st->writes);
    loads_cancel_queue(&st->loads);
    loads_cancel(st->ready);
    st->ready = NULL;
    /* Statements still running (the shutdown deadline passed, or their requests went
     * away): db_free drops their jobs without a callback, so their batches go here. */
    while (st->writes.sent) {
        struct cas_batch *b = SENT_BATCH(st->writes.sent, struct cas_batch);
        st->writes.sent = b->sent.next;
        calls_cancel(b->calls);
        free(b);
    }
    while (st->loads.sent) {
        struct load_batch *b = SENT_BATCH(st->loads.sent, struct load_batch);
        st->loads.sent = b->sent.next;
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
    store_expire_free(st);
    store_analyze_free(st);
    wlog_free(st->wl);
    cache_free(st->cache);
    store_chunks_free(st->chunks);
    kept_free(st->kept);
    free(st);
}

/* The rows of n keys from the cache; with guess, a missing key not known to be chunked
 * is taken as absent (unchecked) while most recent misses had no row. False, with
 * nothing held, when a key is neither. */
bool rows_peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
               struct cache_blob **held, bool guess, size_t *nguess)
{
    size_t i;
    *nguess = 0;
    for (i = 0; i < n; i++) {
        struct cache_val v;
        if (cached_row(st, &keys[i], &v, &rows[i])) {
            held[i] = v.blob;
        } else if (guess && store_guess_absent(st, &keys[i], &rows[i])) {
            held[i] = NULL;
            (*nguess)++;
        } else {
            store_peek_release(held, i);
            return false;
        }
    }
    st->stats.loads++;
    st->stats.load_keys_cached += n - *nguess;
    store_expire_rows(st, rows, n);
    return true;
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

