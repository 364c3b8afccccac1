/* store_cas.c — group commit: the writes waiting at that time go out as one
 * compare-and-swap statement (or one append to the write-behind log), each call a
 * group that commits whole; the cache follows the outcome. */
#include <stdio.h>

#include "store/store_internal.h"

/* The call, its writes, their chunk plans and blobs and the keys' bytes are one
 * allocation (rows_cas). */
void cas_call_free(struct cas_call *c)
{
    for (size_t i = 0; i < c->n; i++) cas_chunks_free(&c->ch[i]);
    for (size_t i = 0; i < c->n; i++) cache_blob_unref(c->blobs[i]);
    free(c);
}

/* A deadlock or a serialization failure (bitmapd._cas_conflict) fails the whole
 * statement: every group retries as a conflict. So does a unique violation of a
 * compare-and-swap: an insert of a key created meanwhile (they insert plainly). An
 * append inserts only its log row, so a unique violation there is a real error. */
static bool is_retryable(const char *sqlstate, bool append)
{
    return sqlstate && (strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "40001") == 0 ||
                        (!append && strcmp(sqlstate, "23505") == 0));
}

static void cas_handle_cb(const struct db_result *r, void *arg)
{
    struct cas_call *c = arg;
    (void)r;
    c->cb(c->status, c->err, c->conflict, c->arg);
}


/* Versions a write adds: one per merged change (store_write.inc), at least one. */
static int64_t write_inc(const struct store_write *w) { return w->inc > 1 ? w->inc : 1; }

static const void *write_key_at(const void *arg, size_t i, size_t *len)
{
    const struct store_write *w = (const struct store_write *)arg + i;
    *len = w->keylen;
    return w->key;
}

/* Keeps the cache in step with the outcome of one call's writes. */
static void cas_call_cache(struct store *st, const struct cas_call *c, enum store_status s, const bool *conflict,
                           uint32_t xid, uint64_t mark)
{
    if (c->n >= CACHE_PREFETCH_MIN) cache_prefetch(st->cache, c->n, write_key_at, c->w);
    for (size_t i = 0; i < c->n; i++) {
        const struct store_write *w = &c->w[i];
        if (s == STORE_OK && !conflict[w->group]) {
            if (!w->bits || !c->blobs[i]) continue; /* a version check: nothing changed */
            struct cache_val v = {.found = true, .version = (w->absent ? 0 : w->version) + write_inc(w),
                                  .cardinality = (int64_t)w->cardinality, .checksum = w->checksum,
                                  .nbytes = w->nbytes, .expire_ms = w->expire_ms, .xid = xid, .blob = c->blobs[i]};
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

/* A call made for the homes of its keys before a family's state changed
 * (store_buckets.c): nothing of it is written; every group is a conflict, which its
 * writer loads and makes again. */
static void call_conflict(struct cas_call *c)
{
    bool *all = calloc((size_t)c->ngroups + 1, sizeof(bool));
    for (int32_t g = 0; all && g < c->ngroups; g++) all[g] = true;
    c->status = all ? STORE_OK : STORE_ERROR;
    c->err = all ? NULL : "out of memory";
    c->conflict = all;
    db_complete(c->handle, DB_OK, NULL);
    free(all);
    cas_call_free(c);
}

/* Sent again after a pause (the log's holder folds and lets go meanwhile), or failed
 * after WLOG_MAX_WAITS. */
static void call_hold_back(struct store *st, struct cas_call *c)
{
    c->next = NULL;
    if (!sq_hold(&st->writes, &c->q, WLOG_MAX_WAITS)) call_fail_waited(c);
}

static void cas_hold_back(struct store *st, struct cas_batch *b)
{
    struct cas_call *c;
    while ((c = b->calls) != NULL) {
        b->calls = c->next;
        call_hold_back(st, c);
    }
    free(b);
    st->writes.in_flight--;
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
            lease = !PQgetisnull(r->res, i, 3) && (pgbin_int4(r->res, i, 3) & 1) == 1; /* lean: + 2 for a watcher */
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
                                      .nbytes = w->nbytes, .expire_ms = w->expire_ms, .xid = xid, .blob = c->blobs[i]};
                /* a key not pending was probed: w->absent is then the table's state */
                if (!wlog_put(st->wl, w->key, w->keylen, &v, w->absent)) lost_image = true;
                n++;
            }
        st->stats.append_keys += n;
    }
    wlog_append_end(st->wl, b->serial, seq, !lease);
    if (lost_image) wlog_append_unknown(st->wl); /* in the log, not in memory: read the log again */
}

/* Puts the batch's calls back at the front of the write queue, in order, and frees it. */
static void batch_requeue(struct store *st, struct cas_batch *b)
{
    struct squeue back;
    sq_init(&back);
    for (struct cas_call *c; (c = b->calls) != NULL;) {
        b->calls = c->next;
        c->next = NULL;
        sq_push(&back, &c->q);
    }
    sq_requeue_front(&st->writes, &back);
    free(b);
}

/* A lean append (SQL_APPEND_LEAN) that put nothing in because a group failed or
 * another instance watches: its calls go to the front of the queue again and leave in
 * a full append (SQL_APPEND), which writes the groups that pass and announces them;
 * after a watcher, appends stay full for LEAN_RETRY_S. False (nothing done) for any
 * other outcome, which the caller takes as SQL_APPEND's. */
#define LEAN_RETRY_S 5.0
static bool lean_again(struct store *st, struct cas_batch *b, const struct db_result *r, const bool *conflict)
{
    int64_t seq = -1;
    int flags = 0;
    bool failed = false;
    for (int i = 0; i < PQntuples(r->res); i++)
        if (!PQgetisnull(r->res, i, 1)) {
            if (!PQgetisnull(r->res, i, 2)) seq = db_value_int8(r->res, i, 2);
            if (!PQgetisnull(r->res, i, 3)) flags = pgbin_int4(r->res, i, 3);
        }
    for (int32_t g = 0; g < b->ngroups; g++) failed |= conflict[g];
    if (seq >= 0 || !(flags & 1) || !b->nimages || !(failed || (flags & 2))) return false;
    if (flags & 2) st->lean_after = metrics_now() + LEAN_RETRY_S;
    st->full_next = true;
    st->stats.lean_redone++;
    wlog_append_end(st->wl, b->serial, -1, false);
    batch_requeue(st, b);
    st->writes.in_flight--;
    cas_flush(st);
    return true;
}

/* A batch without the lock step that met a moved key: of inserts (SQL_CAS_NEW), a key
 * guessed absent exists, or another writer created one meanwhile; of updates
 * (SQL_CAS_UPD), a row is not at the version read. Nothing was written; rather than fail
 * every group as a conflict, its calls go to the front of the queue again, marked so
 * that they leave through SQL_CAS_ROWS (whichever batch takes them), whose lock step
 * fails only the groups whose keys moved. */
static void lock_step_again(struct store *st, struct cas_batch *b)
{
    for (struct cas_call *c = b->calls; c; c = c->next) c->needs_lock_step = true;
    if (b->inserts)
        st->stats.inserts_redone++;
    else
        st->stats.updates_redone++;
    batch_requeue(st, b);
    st->writes.in_flight--;
    cas_flush(st);
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
    if (s == STORE_ERROR && r->sqlstate && strcmp(r->sqlstate, "BMB01") == 0) {
        /* the guard of bucket rows (migration 0016), or the statement's session
         * settings changed before it ran (db_bind_session): a family's state moved on.
         * Nothing was written; the state is read again, and the calls wait a pause: once
         * this instance acts on the new state, cas_send answers them as conflicts */
        store_buckets_reread(st);
        if (b->append) wlog_append_end(st->wl, b->serial, -1, false);
        cas_hold_back(st, b);
        free(conflict);
        return;
    }
    if (s == STORE_ERROR && r->sqlstate && strncmp(r->sqlstate, "BMW", 3) == 0 && !b->append) {
        /* the write-behind log's guard: nothing was written; again after a pause */
        wlog_blocked(st->wl, strcmp(r->sqlstate, "BMW01") == 0);
        cas_hold_back(st, b);
        free(conflict);
        return;
    }
    if (s == STORE_ERROR && r->sqlstate &&
        ((b->inserts && strcmp(r->sqlstate, "23505") == 0) ||
         (b->updates && (strcmp(r->sqlstate, "40001") == 0 || strcmp(r->sqlstate, "55P03") == 0)))) {
        free(conflict);
        lock_step_again(st, b);
        return;
    }
    bool parse = false;
    if (!conflict) {
        s = STORE_ERROR;
        err = "out of memory";
    } else if (s == STORE_ERROR && r->sqlstate && strcmp(r->sqlstate, "BMB02") == 0) {
        /* a write made for a family's previous state (a key's own row where its bucket
         * is its home now, or the reverse): nothing was written; every group is a
         * conflict, loaded and made again where the key lives now */
        s = STORE_OK;
        for (int32_t g = 0; g < b->ngroups; g++) conflict[g] = true;
        store_buckets_reread(st);
    } else if (s == STORE_ERROR && is_retryable(r->sqlstate, b->append)) {
        s = STORE_OK;
        for (int32_t g = 0; g < b->ngroups; g++) conflict[g] = true;
        /* perhaps a chunked head (an abort, not a key created meanwhile): its keys take
         * SQL_CAS from now on */
        if (b->rows_only && !b->inserts && !b->updates && !b->append && strcmp(r->sqlstate, "23505") != 0)
            for (struct cas_call *c = b->calls; c; c = c->next)
                for (size_t i = 0; i < c->n; i++) store_chunks_seen(st->chunks, c->w[i].key, c->w[i].keylen, true);
    } else {
        parse = s == STORE_OK;
        if (s == STORE_UNAVAILABLE && !b->append) wlog_doubt_inserts(st->wl); /* it may commit yet */
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
    if (b->lean && s == STORE_OK && conflict && have_xid && lean_again(st, b, r, conflict)) {
        free(conflict);
        return;
    }
    if (b->append) append_done(st, b, r, s, conflict, xid);
    /* writes.in_flight still counts this batch: requests that write again from their
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
    st->writes.in_flight--;
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
    bool pending = false, small = !c->chunks, doubting = wlog_doubting(st->wl);
    for (size_t i = 0; i < c->n; i++) {
        pending |= wlog_pending(st->wl, c->w[i].key, c->w[i].keylen);
        if (c->w[i].bits && c->w[i].len > wlog_max_value_bytes(st->wl)) small = false;
        if (c->w[i].bucket) small = false; /* the log's images are rows of single keys */
        if (doubting && c->w[i].absent) small = false; /* wlog_doubt_inserts */
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
                                                .nbytes = w->nbytes, .expire_ms = w->expire_ms, .bits = w->bits,
                                                .len = w->len};
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
        struct db_param pl[5] = {p[0], p[1], p[2], p[4], p[5]};
        b->append = true;
        b->lean = nbad == 0 && !st->full_next && metrics_now() >= st->lean_after;
        st->full_next = false;
        st->stats.lean_appends += b->lean;
        b->nimages = nim;
        b->serial = wlog_append_begin(st->wl);
        job = b->lean ? db_query_prepared(st->db, STMT_APPEND_LEAN, SQL_APPEND_LEAN, 5, pl, cas_batch_done, b)
                      : db_query_prepared(st->db, STMT_APPEND, SQL_APPEND, 8, p, cas_batch_done, b);
        if (job) db_bind_session(job); /* its keys' homes are this epoch's */
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
    struct sq_item *it;
    uint64_t *set = NULL;
    const struct store_write **who = NULL;
    struct pgarr keys, vers, bits, cards, crcs, grps, lens, incs, exps, wholes, dirxids;
    struct pgarr ckeys, clos, chis, cbits, ccards, ccrcs, flips, sps;
    size_t nchunks = 0;
    bool any_delete = false;
    struct db_job *job = NULL;
    bool any_null = false, any_null_len = false, any_null_exp = false;
    unsigned long ncalls = 0;
    enum call_kind kind = CALL_DIRECT;

    {   /* the key set needs room for what can leave now, not for batch_keys */
        size_t queued = 0;
        for (it = sq_head(&st->writes); it && queued <= limit; it = it->next) queued += CALL_OF(it)->n;
        while (cap < 2 * queued) cap *= 2;
    }
    if (!b || !(set = calloc(cap, sizeof(*set))) || !(who = calloc(cap, sizeof(*who)))) goto oom;
    b->st = st;
    b->mark = cache_mark(st->cache);
    tail = &b->calls;
    while ((it = sq_head(&st->writes)) != NULL) {
        c = CALL_OF(it);
        if (db_cancelled(c->handle)) { /* its request is gone: nothing of it is sent */
            sq_pop(&st->writes);
            db_complete(c->handle, DB_OK, NULL);
            cas_call_free(c);
            continue;
        }
        if (c->epoch != st->bucket_epoch) { /* made where its keys were: a conflict, made again */
            sq_pop(&st->writes);
            call_conflict(c);
            continue;
        }
        enum call_kind k = call_kind(st, c, nkeys);
        if (k == CALL_PARK) { /* until a fold or the lease changes (store_wlog_resume) */
            double now = metrics_now();
            sq_pop(&st->writes);
            if (!c->parked_at) c->parked_at = now;
            if (now - c->parked_at > WLOG_MAX_WAITS * WLOG_WAIT_MS / 1000.0) { /* the folds keep failing */
                call_fail_waited(c);
                continue;
            }
            sq_push(&st->parked, &c->q);
            continue;
        }
        if (b->calls && k != kind) break; /* one statement is an append or in place, not both */
        kind = k;
        /* bounded in keys and in bytes (a bytea[] parameter must stay far below 1 GB) */
        if (b->calls && (nkeys + c->n > limit || nbytes + c->bytes > CAS_MAX_BYTES)) break;
        if (!keyset_add(set, who, cap, c)) break; /* a key of an earlier call: next statement */
        sq_pop(&st->writes);
        c->next = NULL;
        c->first_group = b->ngroups;
        b->ngroups += c->ngroups;
        nkeys += c->n;
        nbytes += c->bytes;
        *tail = c;
        tail = &c->next;
    }
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
        sent_link(&st->writes.sent, &b->sent);
        job = append_send(st, b, nkeys);
        goto sent;
    }
    b->rows_only = true;
    /* SQL_CAS_NEW only while no other instance is seen using the write-behind log: its
     * fold could be updating a row this batch guessed absent while inserting a key this
     * batch inserted first (a deadlock; docs/design.md, "A statement of inserts alone") */
    b->inserts = !wlog_used_elsewhere(st->wl);
    /* SQL_CAS_UPD for more than one key (one goes as SQL_CAS_ONE) */
    b->updates = nkeys > 1;
    for (c = b->calls; c; c = c->next) {
        if (c->chunks) b->rows_only = false;
        if (c->needs_lock_step) b->inserts = b->updates = false;
        for (size_t i = 0; i < c->n; i++) {
            b->inserts &= c->w[i].absent && c->w[i].bits != NULL && !c->ch[i].chunked;
            b->updates &= !c->w[i].absent && c->w[i].bits != NULL && !c->ch[i].chunked;
            any_null |= (c->w[i].bits == NULL);
            any_null_len |= (c->w[i].nbytes < 0);
            any_null_exp |= (c->w[i].expire_ms <= 0);
            nchunks += c->ch[i].nrows;
            for (size_t j = 0; j < c->ch[i].nrows; j++) any_delete |= c->ch[i].rows[j].bits == NULL;
        }
    }
    b->inserts &= b->rows_only;
    b->updates &= b->rows_only;
    pa_begin(&keys, OID_BYTEA, nkeys, false);
    pa_begin(&vers, OID_INT8, nkeys, false);
    pa_begin(&bits, OID_BYTEA, nkeys, any_null);
    pa_begin(&cards, OID_INT8, nkeys, false);
    pa_begin(&crcs, OID_INT8, nkeys, false);
    pa_begin(&grps, OID_INT4, nkeys, false);
    pa_begin(&lens, OID_INT8, nkeys, any_null_len);
    pa_begin(&incs, OID_INT8, nkeys, false);
    pa_begin(&exps, OID_INT8, nkeys, any_null_exp);
    pa_begin(&sps, OID_INT4, nkeys, true);
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
            pa_int8_or_null(&exps, w->expire_ms > 0 ? w->expire_ms : -1);
            if (w->spill)
                pa_int4(&sps, w->spill);
            else
                pa_elem(&sps, NULL, 0);
        }
    for (c = b->calls; c; c = c->next) ncalls++;
    sent_link(&st->writes.sent, &b->sent); /* before the query, so that store_free finds it whatever follows */
    if (!(keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || grps.oom || lens.oom || incs.oom || exps.oom ||
          wholes.oom || ckeys.oom || clos.oom || chis.oom || cbits.oom || ccards.oom || ccrcs.oom || dirxids.oom ||
          flips.oom || sps.oom)) {
        struct db_param p[19] = {pa_param(&keys),   pa_param(&vers),  pa_param(&bits),  pa_param(&cards),
                                 pa_param(&crcs),   pa_param(&grps),  pa_param(&lens),  pa_param(&incs),
                                 pa_param(&exps),
                                 pa_param(&wholes), pa_param(&ckeys), pa_param(&clos),  pa_param(&chis),
                                 pa_param(&cbits),  pa_param(&ccards), pa_param(&ccrcs), pa_param(&dirxids),
                                 pa_param(&flips), pa_param(&sps)};
        /* SQL_CAS_ROWS and SQL_CAS_ONE: the first nine, and the spill marks as $10;
         * SQL_CAS_ROWS, SQL_CAS_NEW and SQL_CAS_UPD: whether to go unannounced as $11 */
        char quiet[16];
        int quiet_pid = nkeys >= CAS_QUIET_MIN_KEYS && b->rows_only ? db_listener_pid(st->db) : 0;
        snprintf(quiet, sizeof(quiet), "%d", quiet_pid);
        struct db_param pr[11] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[18],
                                  {quiet, (int)strlen(quiet), 0}};
        /* SQL_CAS_ONE_FLIPS: those, the directory's transaction and the flips */
        struct db_param pf[12] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[18], p[16], p[17]};
        /* one existing row written: the short statements */
        const struct store_write *w0 = &b->calls->w[0];
        const struct cas_chunks *ch0 = &b->calls->ch[0];
        bool one = nkeys == 1 && w0->bits && !w0->absent;
        /* ... of a chunked key whose directory the instance holds */
        bool one_chunked = one && ch0->chunked && !ch0->whole && ch0->dir_xid >= 0;
        if (one && b->rows_only)
            job = db_query_prepared(st->db, STMT_CAS_ONE, SQL_CAS_ONE, 10, pr, cas_batch_done, b);
        else if (one_chunked && nchunks == 0) /* its flips alone */
            job = db_query_prepared(st->db, STMT_CAS_ONE_FLIPS, SQL_CAS_ONE_FLIPS, 12, pf, cas_batch_done, b);
        else if (one_chunked)
            job = db_query_prepared(st->db, STMT_CAS_ONE_CHUNKED, SQL_CAS_ONE_CHUNKED, 19, p, cas_batch_done, b);
        else if (b->inserts) { /* rows only, by construction */
            job = db_query_prepared(st->db, STMT_CAS_NEW, SQL_CAS_NEW, 11, pr, cas_batch_done, b);
            st->stats.insert_statements++;
        }
        else if (b->updates) { /* rows only, by construction */
            job = db_query_prepared(st->db, STMT_CAS_UPD, SQL_CAS_UPD, 11, pr, cas_batch_done, b);
            st->stats.update_statements++;
        }
        else if (b->rows_only)
            job = db_query_prepared(st->db, STMT_CAS_ROWS, SQL_CAS_ROWS, 11, pr, cas_batch_done, b);
        else
            job = db_query_prepared(st->db, STMT_CAS, SQL_CAS, 19, p, cas_batch_done, b);
        if (job && quiet_pid) st->stats.quiet_asked++; /* rows only, and more than one key */
        if (job) db_bind_session(job); /* its keys' homes are this epoch's (store_buckets.c) */
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
    free(exps.buf);
    free(sps.buf);
sent:
    /* out of memory: the batch's calls fail, from the loop as always */
    if (!job && !(job = db_defer(st->db, cas_batch_unsent, b))) {
        sent_unlink(&b->sent);
        batch_requeue(st, b);
        return false;
    }
    st->writes.in_flight++;
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
void cas_flush(struct store *st)
{
    if (sq_head(&st->writes)) wlog_kick(st->wl); /* writes wait: the lease, if the configuration asks for it */
    /* nothing is written until the lease is ours again; with no connection at all
     * the writes fail at once, as they always did (nothing can be written anyway) */
    if (wlog_lost(st->wl) && sq_head(&st->writes) && db_is_up(st->db)) {
        struct sq_item *it;
        while ((it = sq_pop(&st->writes)) != NULL) call_hold_back(st, CALL_OF(it));
        wait_arm(st);
        return;
    }
    while (sq_head(&st->writes) &&
           (st->writes.in_flight < st->cfg->pg_write_statements ||
            (st->writes.in_flight < st->cfg->pg_write_statements + FULL_BATCH_EXTRA &&
             st->writes.nkeys >= (size_t)st->cfg->pg_batch_keys)))
        if (!cas_send(st)) break;
}

struct db_job *rows_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups, store_cas_cb cb,
                        void *arg)
{
    struct cas_call *c;
    size_t keybytes = 0, bytes = 0;
    uint8_t *p;

    for (size_t i = 0; i < n; i++) {
        keybytes += w[i].keylen;
        bytes += w[i].keylen + (w[i].bits ? w[i].len : 0);
    }
    /* the call, the writes, their chunk plans, their blobs and the keys in one block
     * (cas_call_free); the bits go into blobs */
    if (!(c = calloc(1, sizeof(*c) + n * (sizeof(*c->w) + sizeof(*c->ch) + sizeof(*c->blobs)) + keybytes + 1)))
        return NULL;
    c->w = (struct store_write *)(void *)(c + 1);
    c->ch = (struct cas_chunks *)(void *)(c->w + n);
    c->blobs = (struct cache_blob **)(void *)(c->ch + n);
    c->bytes = bytes;
    memcpy(c->w, w, n * sizeof(*w));
    c->n = n; /* from here cas_call_free() releases every blob made */
    c->epoch = st->bucket_epoch;
    p = (uint8_t *)(c->blobs + n);
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
    c->q.nkeys = n;
    sq_push(&st->writes, &c->q);
    {
        struct db_job *handle = c->handle;
        event_active(st->flush_ev, 0, 0); /* with the other writes of this loop turn */
        return handle;
    }
oom:
    cas_call_free(c);
    return NULL;
}
