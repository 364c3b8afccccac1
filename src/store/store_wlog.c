/* store_wlog.c — the write-behind log (docs/design.md, "Write-behind log"): the packed
 * images of a log row, the pending images, the appends' bookkeeping, the barriers and
 * the log's life. The fold is in store_wlog_fold.c, the lease and the recovery in
 * store_wlog_lease.c; what they share, in store_wlog_internal.h. */
#include "store/store_wlog.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "core/config.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/pgbin.h"
#include "store/store_wlog_internal.h"

/* ---- packed images ---------------------------------------------------------------
 * A log row: "BMW2", u32 count, then per image u16 keylen, key, i64 version,
 * i64 cardinality, u32 checksum, i64 nbytes (-1: NULL), i64 expire_ms (0: none),
 * u32 len, bits; then the CRC-32C of everything before it. Big-endian, as
 * PostgreSQL's binary format. Rows of "BMW1" (written before keys could expire) are
 * the same without expire_ms, and still read. */
#define PACK_MAGIC "BMW2"
#define PACK_MAGIC_V1 "BMW1"

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    v = htonl(v);
    memcpy(p, &v, 4);
    return p + 4;
}

static uint8_t *put64(uint8_t *p, int64_t v)
{
    p = put32(p, (uint32_t)((uint64_t)v >> 32));
    return put32(p, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

size_t wlog_pack_size(size_t keylen, size_t bitslen) { return 2 + keylen + 8 + 8 + 4 + 8 + 8 + 4 + bitslen; }

size_t wlog_pack(uint8_t *out, const struct wlog_image *im, size_t n)
{
    uint8_t *p = out;
    memcpy(p, PACK_MAGIC, 4);
    p = put32(p + 4, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        *p++ = (uint8_t)(im[i].keylen >> 8);
        *p++ = (uint8_t)im[i].keylen;
        memcpy(p, im[i].key, im[i].keylen);
        p = put64(p + im[i].keylen, im[i].version);
        p = put64(p, im[i].cardinality);
        p = put32(p, im[i].checksum);
        p = put64(p, im[i].nbytes);
        p = put64(p, im[i].expire_ms);
        p = put32(p, (uint32_t)im[i].len);
        if (im[i].len) memcpy(p, im[i].bits, im[i].len);
        p += im[i].len;
    }
    p = put32(p, codec_crc32c(out, (size_t)(p - out)));
    return (size_t)(p - out);
}

/* One pass checks (each NULL), the second calls each. */
static bool unpack_pass(const uint8_t *buf, size_t len, void (*each)(const struct wlog_image *, void *), void *arg)
{
    const uint8_t *p = buf + WLOG_PACK_HEAD, *end = buf + len - WLOG_PACK_TAIL;
    uint32_t n = get32(buf + 4);
    bool v1 = memcmp(buf, PACK_MAGIC_V1, 4) == 0;
    size_t fixed = v1 ? 32 : 40;
    for (uint32_t i = 0; i < n; i++) {
        struct wlog_image im;
        if (end - p < 2) return false;
        im.keylen = (size_t)p[0] << 8 | p[1];
        p += 2;
        if ((size_t)(end - p) < im.keylen + fixed) return false;
        im.key = p;
        p += im.keylen;
        im.version = pgbin_be64(p);
        im.cardinality = pgbin_be64(p + 8);
        im.checksum = get32(p + 16);
        im.nbytes = pgbin_be64(p + 20);
        im.expire_ms = v1 ? 0 : pgbin_be64(p + 28);
        im.len = get32(p + fixed - 4);
        p += fixed;
        if ((size_t)(end - p) < im.len || im.version < 1 || im.expire_ms < 0) return false;
        im.bits = p;
        p += im.len;
        if (each) each(&im, arg);
    }
    return p == end;
}

bool wlog_unpack(const uint8_t *buf, size_t len, void (*each)(const struct wlog_image *im, void *arg), void *arg)
{
    if (len < WLOG_PACK_HEAD + WLOG_PACK_TAIL || (memcmp(buf, PACK_MAGIC, 4) != 0 && memcmp(buf, PACK_MAGIC_V1, 4) != 0) ||
        get32(buf + len - 4) != codec_crc32c(buf, len - 4) || !unpack_pass(buf, len, NULL, NULL))
        return false;
    return unpack_pass(buf, len, each, arg);
}

/* ---- pending images ---------------------------------------------------------------- */

static struct pend **slot(struct wlog *wl, const void *key, size_t len, uint64_t h)
{
    struct pend **pp = &wl->tab[h & (wl->cap - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && (*pp)->keylen == len && memcmp((*pp)->key, key, len) == 0) break;
    return pp;
}

struct pend *wl_find(struct wlog *wl, const void *key, size_t len)
{
    if (!wl->n) return NULL;
    return *slot(wl, key, len, bytes_hash(key, len));
}

static void pend_free(struct wlog *wl, struct pend *p)
{
    wl->n--;
    wl->bytes -= p->keylen + (p->v.blob ? p->v.blob->len : 0);
    cache_blob_unref(p->v.blob);
    free(p);
}

void wl_unlink_pend(struct wlog *wl, struct pend *p)
{
    struct pend **pp = slot(wl, p->key, p->keylen, p->hash);
    if (*pp == p) *pp = p->next;
    if (p->fold_pos) wl->fold[p->fold_pos - 1].p = NULL;
    pend_free(wl, p);
}

void wl_drop_all(struct wlog *wl)
{
    for (size_t i = 0; i < wl->cap; i++)
        while (wl->tab[i]) {
            struct pend *p = wl->tab[i];
            wl->tab[i] = p->next;
            pend_free(wl, p);
        }
    for (size_t i = 0; i < wl->nfold; i++) wl->fold[i].p = NULL;
    wl->nseqs = 0;
}

static bool grow(struct wlog *wl)
{
    size_t cap = wl->cap * 2;
    struct pend **tab = calloc(cap, sizeof(*tab));
    if (!tab) return false;
    for (size_t i = 0; i < wl->cap; i++)
        while (wl->tab[i]) {
            struct pend *p = wl->tab[i];
            wl->tab[i] = p->next;
            p->next = tab[p->hash & (cap - 1)];
            tab[p->hash & (cap - 1)] = p;
        }
    free(wl->tab);
    wl->tab = tab;
    wl->cap = cap;
    return true;
}

/* Records an image; an older version than the one held is ignored (a log replayed).
 * False when out of memory (the image is not held). */
static bool put(struct wlog *wl, const void *key, size_t len, const struct cache_val *v, bool row_absent)
{
    uint64_t h = bytes_hash(key, len);
    struct pend **pp, *p;
    if (wl->n >= wl->cap && !grow(wl)) goto oom;
    pp = slot(wl, key, len, h);
    if ((p = *pp) != NULL) {
        if (p->v.version >= v->version) return true;
        wl->bytes -= p->v.blob ? p->v.blob->len : 0;
        cache_blob_unref(p->v.blob);
    } else {
        if (!(p = calloc(1, sizeof(*p) + len))) goto oom;
        p->hash = h;
        p->keylen = len;
        p->row_absent = row_absent;
        memcpy(p->key, key, len);
        *pp = p;
        wl->n++;
        wl->bytes += len;
    }
    p->v = *v;
    p->v.found = true;
    if (p->v.blob) {
        p->v.blob->refs++;
        wl->bytes += p->v.blob->len;
    }
    return true;
oom:
    log_error("msg=\"out of memory keeping a write-behind image\"");
    return false;
}

bool wlog_lookup(struct wlog *wl, const void *key, size_t len, struct cache_val *out)
{
    struct pend *p = wl->state >= WL_HOLDING ? wl_find(wl, key, len) : NULL; /* recovered: checked first */
    if (!p) return false;
    *out = p->v;
    if (out->blob) out->blob->refs++;
    return true;
}

bool wlog_pending(struct wlog *wl, const void *key, size_t len)
{
    return wl->state >= WL_HOLDING && wl_find(wl, key, len) != NULL;
}

bool wlog_quiet(const struct wlog *wl)
{
    return wl->state == WL_OFF && !wl->seen && !wl->cfg->wlog_enabled && db_listening(wl->db);
}

bool wlog_busy(const struct wlog *wl) { return wl->state == WL_ACQUIRING || wl->state == WL_RELEASING; }

void wlog_append_unknown(struct wlog *wl)
{
    if (wl->state != WL_HOLDING) return;
    log_warn("msg=\"write-behind append with an unknown outcome: folding, letting go and reading the log again\"");
    wl->state = WL_YIELDING; /* no cooldown: the next write takes the lease and recovers the log */
    wl_yield_step(wl);
}

bool wlog_room(const struct wlog *wl, size_t n) { return wl->n + n <= (size_t)wl->cfg->wlog_max_keys; }

void wlog_doubt_inserts(struct wlog *wl)
{
    double until = metrics_now() + (wl->cfg->pg_query_timeout_ms + 2000) / 1000.0;
    if (until > wl->doubt_until) wl->doubt_until = until;
}

bool wlog_doubting(const struct wlog *wl) { return wl->doubt_until > 0 && metrics_now() < wl->doubt_until; }

size_t wlog_max_value_bytes(const struct wlog *wl) { return (size_t)wl->cfg->wlog_max_value_bytes; }

bool wlog_holding(const struct wlog *wl) { return wl->state == WL_HOLDING; }

bool wlog_is_holder(const struct wlog *wl) { return wl->state >= WL_HOLDING; }

/* ---- appends ------------------------------------------------------------------------ */

uint64_t wlog_append_begin(struct wlog *wl)
{
    if (wl->ninflight == wl->inflightcap) {
        size_t cap = wl->inflightcap ? 2 * wl->inflightcap : 8;
        uint64_t *a = realloc(wl->inflight, cap * sizeof(*a));
        if (!a) return 0;
        wl->inflight = a;
        wl->inflightcap = cap;
    }
    wl->inflight[wl->ninflight++] = ++wl->next_serial;
    return wl->next_serial;
}

bool wlog_put(struct wlog *wl, const void *key, size_t len, const struct cache_val *v, bool row_absent)
{
    return put(wl, key, len, v, row_absent);
}

bool wl_seq_add(struct wlog *wl, int64_t seq)
{
    if (wl->nseqs == wl->seqcap) {
        size_t cap = wl->seqcap ? 2 * wl->seqcap : 64;
        int64_t *a = realloc(wl->seqs, cap * sizeof(*a));
        if (!a) return false;
        wl->seqs = a;
        wl->seqcap = cap;
    }
    wl->seqs[wl->nseqs++] = seq;
    return true;
}

void wlog_append_end(struct wlog *wl, uint64_t serial, int64_t seq, bool lease_lost)
{
    for (size_t i = 0; i < wl->ninflight; i++)
        if (wl->inflight[i] == serial) {
            wl->inflight[i] = wl->inflight[--wl->ninflight];
            break;
        }
    if (seq >= 0) {
        wl->stats.appends++;
        if (!wl_seq_add(wl, seq) && wl->state == WL_HOLDING) wl->state = WL_YIELDING; /* a row it cannot delete */
        if (wl->n >= (size_t)wl->cfg->wlog_max_keys / 2 || wl->state == WL_YIELDING)
            wl_fold_start(wl);
        else if (!event_pending(wl->timer, EV_TIMEOUT, NULL))
            wl_arm(wl, wl->cfg->wlog_fold_ms);
    }
    if (lease_lost && wl->state >= WL_HOLDING) {
        log_warn("msg=\"write-behind log: the lease was lost\"");
        wl->state = WL_OFF;
        wl_drop_all(wl);
    }
    /* an append that put nothing in (every group a conflict, or an error) leaves a
     * holder letting go with nothing to fold: it must let go here, or nothing would */
    wl_yield_step(wl);
    if (wl->barriers) event_active(wl->barrier_ev, 0, 0);
}

/* ---- barriers --------------------------------------------------------------------- */

static const char SQL_LOG_EMPTY[] =
    "SELECT (NOT EXISTS (SELECT 1 FROM bitmapd.wlog))::int4,"
    "       pg_try_advisory_xact_lock_shared(" WLOG_LEASE_LOCK ")::int4";

#define BARRIER_RETRY_MS 20
#define FOLD_MAX_FAILURES 25 /* about 5 s of folds failing */
#define BARRIER_MAX_CHECKS 500 /* about 10 s of a log that nobody folds */

static void empty_checked(const struct db_result *r, void *arg)
{
    struct barrier *b = arg;
    struct wlog *wl = b->wl;
    struct timeval tv = {0, BARRIER_RETRY_MS * 1000};
    b->checking = false;
    if (r->status == DB_OK && PQntuples(r->res) == 1 && pgbin_int4(r->res, 0, 0) == 1) {
        wl->seen = false;
        b->ok = true;
        event_active(wl->barrier_ev, 0, 0);
        return;
    }
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        wlog_blocked(wl, pgbin_int4(r->res, 0, 1) == 0);
        b->checks++;
    } else {
        b->checks = BARRIER_MAX_CHECKS + 1; /* the database is away: the reader gets its error */
    }
    event_add(wl->barrier_ev, &tv);
}

static void barriers_check(struct wlog *wl)
{
    struct barrier **pp = &wl->barriers;
    uint64_t covered = wl->next_serial;
    bool holder = wl->state >= WL_HOLDING;
    for (size_t i = 0; i < wl->ninflight; i++)
        if (wl->inflight[i] - 1 < covered) covered = wl->inflight[i] - 1;
    while (*pp) {
        struct barrier *b = *pp;
        bool done = false, failed = false;
        if (b->checking) {
            pp = &b->next;
            continue;
        }
        if (b->ok)
            done = true;
        else if (holder && wl->fold_failures >= FOLD_MAX_FAILURES)
            failed = true; /* the reader gets an error rather than a wait without end */
        else if (holder)
            done = !wl->n && !wl->nseqs && b->target <= covered;
        else if (!wl->seen && db_listening(wl->db) && !wl->cfg->wlog_enabled)
            done = true;
        else if (b->checks > BARRIER_MAX_CHECKS)
            failed = true;
        if (done || failed) {
            *pp = b->next;
            b->cb(done, b->arg);
            free(b);
            continue;
        }
        if (holder) {
            wl_fold_start(wl);
        } else {
            b->checking = true;
            if (!db_query(wl->db, SQL_LOG_EMPTY, 0, NULL, empty_checked, b)) {
                b->checking = false;
                b->checks = BARRIER_MAX_CHECKS + 1;
                event_active(wl->barrier_ev, 0, 0);
            }
        }
        pp = &b->next;
    }
}

static void barrier_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    barriers_check(arg);
}

bool wlog_barrier(struct wlog *wl, wlog_barrier_cb cb, void *arg)
{
    struct barrier *b = calloc(1, sizeof(*b));
    if (!b) return false;
    b->wl = wl;
    b->cb = cb;
    b->arg = arg;
    b->target = wl->next_serial;
    b->next = wl->barriers;
    wl->barriers = b;
    event_active(wl->barrier_ev, 0, 0);
    return true;
}

/* ---- life ------------------------------------------------------------------------ */

void wl_arm(struct wlog *wl, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_add(wl->timer, &tv);
}

void wl_yield_step(struct wlog *wl)
{
    if (wl->state != WL_YIELDING) return;
    if (!wl->n && !wl->nseqs && !wl->ninflight && !wl->fold_job)
        wl_release(wl);
    else
        wl_fold_start(wl); /* nothing while a fold is in flight: its end steps again */
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct wlog *wl = arg;
    (void)fd;
    (void)what;
    if (wl->state == WL_YIELDING)
        wl_yield_step(wl);
    else if (wl->state >= WL_HOLDING)
        wl_fold_start(wl);
    else
        store_wlog_resume(wl->st);
}

struct wlog *wlog_new(struct store *st, struct db *db, const struct config *cfg, struct cache *cache)
{
    struct wlog *wl = calloc(1, sizeof(*wl));
    if (!wl) return NULL;
    wl->st = st;
    wl->db = db;
    wl->cfg = cfg;
    wl->cache = cache;
    wl->seen = true;
    wl->cap = 64;
    if (!(wl->tab = calloc(wl->cap, sizeof(*wl->tab))) ||
        !(wl->timer = evtimer_new(db_event_base(db), timer_cb, wl)) ||
        !(wl->barrier_ev = evtimer_new(db_event_base(db), barrier_cb, wl))) {
        wlog_free(wl);
        return NULL;
    }
    return wl;
}

void wlog_free(struct wlog *wl)
{
    if (!wl) return;
    if (wl->fold_job) db_cancel(wl->fold_job);
    while (wl->barriers) {
        struct barrier *b = wl->barriers;
        wl->barriers = b->next;
        if (!b->checking) free(b); /* a check in flight is dropped by db_free with its job */
    }
    if (wl->tab) wl_drop_all(wl);
    free(wl->tab);
    free(wl->seqs);
    free(wl->inflight);
    free(wl->fold);
    free(wl->fold_seqs);
    if (wl->timer) event_free(wl->timer);
    if (wl->barrier_ev) event_free(wl->barrier_ev);
    free(wl);
}

void wlog_get_stats(const struct wlog *wl, struct wlog_stats *out)
{
    *out = wl->stats;
    out->pending = wl->n;
    out->pending_bytes = wl->bytes;
    out->holder = wl->state >= WL_HOLDING;
}
