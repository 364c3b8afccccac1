/* store_wlog.c — the write-behind log: the lease, the pending images, the fold and the
 * recovery (docs/design.md, "Write-behind log"). */
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

/* ---- packed images ---------------------------------------------------------------
 * A log row: "BMW1", u32 count, then per image u16 keylen, key, i64 version,
 * i64 cardinality, u32 checksum, i64 nbytes (-1: NULL), u32 len, bits; then the
 * CRC-32C of everything before it. Big-endian, as PostgreSQL's binary format. */
#define PACK_MAGIC "BMW1"

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

size_t wlog_pack_size(size_t keylen, size_t bitslen) { return 2 + keylen + 8 + 8 + 4 + 8 + 4 + bitslen; }

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
    for (uint32_t i = 0; i < n; i++) {
        struct wlog_image im;
        if (end - p < 2) return false;
        im.keylen = (size_t)p[0] << 8 | p[1];
        p += 2;
        if ((size_t)(end - p) < im.keylen + 32) return false;
        im.key = p;
        p += im.keylen;
        im.version = pgbin_be64(p);
        im.cardinality = pgbin_be64(p + 8);
        im.checksum = get32(p + 16);
        im.nbytes = pgbin_be64(p + 20);
        im.len = get32(p + 28);
        p += 32;
        if ((size_t)(end - p) < im.len || im.version < 1) return false;
        im.bits = p;
        p += im.len;
        if (each) each(&im, arg);
    }
    return p == end;
}

bool wlog_unpack(const uint8_t *buf, size_t len, void (*each)(const struct wlog_image *im, void *arg), void *arg)
{
    if (len < WLOG_PACK_HEAD + WLOG_PACK_TAIL || memcmp(buf, PACK_MAGIC, 4) != 0 ||
        get32(buf + len - 4) != codec_crc32c(buf, len - 4) || !unpack_pass(buf, len, NULL, NULL))
        return false;
    return unpack_pass(buf, len, each, arg);
}

/* ---- state ----------------------------------------------------------------------- */

enum wl_state {
    WL_OFF,       /* not the holder */
    WL_ACQUIRING, /* taking the lease, then reading the log left behind */
    WL_HOLDING,   /* the holder: appends go to the log */
    WL_YIELDING,  /* the holder, letting go: no new appends, folding what is pending */
    WL_RELEASING, /* everything folded: unlocking */
};

struct pend {
    struct pend *next;
    uint64_t hash;
    size_t fold_pos;    /* 1 + its place in the fold in flight; 0: not in it */
    struct cache_val v; /* the image; v.blob referenced */
    size_t keylen;
    uint8_t key[];
};

struct folded { /* a key of the fold in flight, and the version it writes */
    struct pend *p; /* NULL once dropped */
    int64_t version;
};

struct barrier {
    struct barrier *next;
    struct wlog *wl;
    bool checking;   /* not the holder: a look at the log is in flight */
    bool ok;         /* satisfied: a fold covered it, or the log was found empty */
    uint64_t target; /* appends up to this serial must be folded */
    wlog_barrier_cb cb;
    void *arg;
    int checks;      /* not the holder: how many times the log was found not empty */
};

struct wlog {
    struct store *st;
    struct db *db;
    const struct config *cfg;
    struct cache *cache;
    enum wl_state state;
    bool keep;                 /* stay the holder after recovery */
    bool seen;                 /* the log may have rows (an append was announced, or unknown) */
    bool listener_busy;        /* a lease statement is out on the listener connection */
    struct pend **tab;
    size_t cap, n, bytes;
    int64_t *seqs;             /* committed log rows this holder knows and has not deleted */
    size_t nseqs, seqcap;
    uint64_t next_serial;      /* appends begun */
    uint64_t *inflight;        /* serials of appends in flight */
    size_t ninflight, inflightcap;
    struct db_job *fold_job;
    struct folded *fold;       /* the fold in flight */
    size_t nfold;
    int64_t *fold_seqs;
    size_t nfold_seqs;
    uint64_t fold_covers;      /* appends up to this serial are in the fold in flight */
    uint64_t fold_mark;
    struct event *timer;       /* the next fold; a retry of the lease */
    struct event *barrier_ev;  /* barriers checked on the next turn, or after a pause */
    struct barrier *barriers;
    double cooldown_until, last_ask; /* metrics_now() seconds, as every time below */
    double damaged_until;      /* a damaged row was met: no recovery before this */
    bool stopping;             /* shutting down: let go, never take the lease again */
    bool lost;                 /* the listener went down while this instance held the lease: its
                                  server session (and lock) may live on for a while, so nothing
                                  is written until the lease is taken again */
    bool recover_failed;       /* out of memory while reading the log: let go without folding */
    int fold_failures;         /* folds failed in a row */
    double retry_at;           /* no new attempt at the lease before this */
    struct wlog_stats stats;
};

static void fold_start(struct wlog *wl);
static void acquire(struct wlog *wl, bool keep);
static void barriers_check(struct wlog *wl);

static void arm(struct wlog *wl, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_add(wl->timer, &tv);
}

/* ---- pending images ---------------------------------------------------------------- */

static struct pend **slot(struct wlog *wl, const void *key, size_t len, uint64_t h)
{
    struct pend **pp = &wl->tab[h & (wl->cap - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && (*pp)->keylen == len && memcmp((*pp)->key, key, len) == 0) break;
    return pp;
}

static struct pend *find(struct wlog *wl, const void *key, size_t len)
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

static void unlink_pend(struct wlog *wl, struct pend *p)
{
    struct pend **pp = slot(wl, p->key, p->keylen, p->hash);
    if (*pp == p) *pp = p->next;
    if (p->fold_pos) wl->fold[p->fold_pos - 1].p = NULL;
    pend_free(wl, p);
}

static void drop_all(struct wlog *wl)
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
static bool put(struct wlog *wl, const void *key, size_t len, const struct cache_val *v)
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
    struct pend *p = wl->state >= WL_HOLDING ? find(wl, key, len) : NULL; /* recovered: checked first */
    if (!p) return false;
    *out = p->v;
    if (out->blob) out->blob->refs++;
    return true;
}

bool wlog_pending(struct wlog *wl, const void *key, size_t len)
{
    return wl->state >= WL_HOLDING && find(wl, key, len) != NULL;
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
    fold_start(wl);
}

bool wlog_room(const struct wlog *wl, size_t n) { return wl->n + n <= (size_t)wl->cfg->wlog_max_keys; }

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

bool wlog_put(struct wlog *wl, const void *key, size_t len, const struct cache_val *v) { return put(wl, key, len, v); }

static bool seq_add(struct wlog *wl, int64_t seq)
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
        if (!seq_add(wl, seq) && wl->state == WL_HOLDING) wl->state = WL_YIELDING; /* a row it cannot delete */
        if (wl->n >= (size_t)wl->cfg->wlog_max_keys / 2 || wl->state == WL_YIELDING)
            fold_start(wl);
        else if (!event_pending(wl->timer, EV_TIMEOUT, NULL))
            arm(wl, wl->cfg->wlog_fold_ms);
    }
    if (lease_lost && wl->state >= WL_HOLDING) {
        log_warn("msg=\"write-behind log: the lease was lost\"");
        wl->state = WL_OFF;
        drop_all(wl);
    }
    if (wl->state == WL_YIELDING) fold_start(wl);
    if (wl->barriers) event_active(wl->barrier_ev, 0, 0);
}

/* ---- fold ----------------------------------------------------------------------- */

/* Writes every pending image (an upsert that never goes back in version) and deletes
 * the log rows this holder knows, in one transaction. bitmapd.folding (for this
 * transaction only) tells the change trigger that the versions written were announced
 * by the appends already: the fold sends no notification of its own. */
static const char SQL_FOLD[] =
    "WITH f AS MATERIALIZED (SELECT set_config('bitmapd.folding', 'on', true) AS flag),"
    " v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[], $5::int8[], $6::int8[])"
    "                     AS t(key, ver, bits, card, crc, nbytes)"
    "        WHERE (SELECT flag FROM f) = 'on'),"
    " up AS (INSERT INTO bitmapd.bitmaps AS b (key, version, bits, cardinality, checksum, nbytes)"
    "        SELECT key, ver, bits, card, crc, nbytes FROM v ORDER BY key"
    "        ON CONFLICT (key) DO UPDATE"
    "              SET version = excluded.version, bits = excluded.bits, cardinality = excluded.cardinality,"
    "                  checksum = excluded.checksum, nbytes = excluded.nbytes, updated_at = now()"
    "            WHERE b.version < excluded.version AND octet_length(b.bits) > 0"
    "        RETURNING 1),"
    " gone AS (DELETE FROM bitmapd.wlog WHERE seq = ANY($7::int8[]) RETURNING 1)"
    " SELECT txid_current() % 4294967296, (SELECT count(*) FROM up), (SELECT count(*) FROM gone)";

static void release(struct wlog *wl);
static void relisten(struct wlog *wl);

static void fold_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->fold_job = NULL;
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        uint32_t xid = (uint32_t)db_value_int8(r->res, 0, 0);
        for (size_t i = 0; i < wl->nfold; i++) {
            struct pend *p = wl->fold[i].p;
            if (!p || p->v.version != wl->fold[i].version) continue; /* written again meanwhile */
            struct cache_val v = p->v;
            v.xid = xid;
            /* the same version, now written by the fold's transaction: the append's
             * entry would read as a contradiction of it */
            cache_drop(wl->cache, p->key, p->keylen);
            cache_note_write(wl->cache, p->key, p->keylen, v.version, xid);
            cache_put(wl->cache, p->key, p->keylen, &v, wl->fold_mark);
            unlink_pend(wl, p);
        }
        /* the deleted rows leave the list; rows committed meanwhile stay */
        size_t k = 0;
        for (size_t i = 0; i < wl->nseqs; i++) {
            bool gone = false;
            for (size_t j = 0; j < wl->nfold_seqs && !gone; j++) gone = wl->seqs[i] == wl->fold_seqs[j];
            if (!gone) wl->seqs[k++] = wl->seqs[i];
        }
        wl->nseqs = k;
        wl->stats.folds++;
        wl->stats.fold_keys += wl->nfold;
        wl->fold_failures = 0;
        for (struct barrier *b = wl->barriers; b; b = b->next)
            if (b->target <= wl->fold_covers) b->ok = true;
    } else {
        log_warn("msg=\"write-behind fold failed; retrying\" reason=\"%s\"", r->message ? r->message : "?");
        wl->fold_failures++;
        if (r->sqlstate && strncmp(r->sqlstate, "BMW", 3) == 0 && wl->state >= WL_HOLDING) {
            log_warn("msg=\"write-behind log: the lease was lost\"");
            wl->state = WL_OFF;
            drop_all(wl);
        }
    }
    for (size_t i = 0; i < wl->nfold; i++)
        if (wl->fold[i].p) wl->fold[i].p->fold_pos = 0;
    free(wl->fold);
    free(wl->fold_seqs);
    wl->fold = NULL;
    wl->fold_seqs = NULL;
    wl->nfold = wl->nfold_seqs = 0;
    /* the next fold: at once when letting go or half full, else a fold_ms later (big
     * folds cost the database far less per row than many small ones) */
    if (wl->state >= WL_HOLDING && (wl->n || wl->nseqs))
        arm(wl, r->status != DB_OK ? 200
                : wl->state == WL_YIELDING || wl->n >= (size_t)wl->cfg->wlog_max_keys / 2 ? 0
                                                                                        : wl->cfg->wlog_fold_ms);
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs && !wl->ninflight) release(wl);
    event_active(wl->barrier_ev, 0, 0);
    store_wlog_resume(wl->st);
}

static void fold_start(struct wlog *wl)
{
    struct pgarr keys, vers, bits, cards, crcs, lens, seqs;
    size_t n = wl->n, j = 0;
    bool any_null_len = false;

    if (wl->fold_job || wl->state < WL_HOLDING || (!wl->n && !wl->nseqs)) return;
    event_del(wl->timer);
    if (!(wl->fold = calloc(n ? n : 1, sizeof(*wl->fold))) ||
        !(wl->fold_seqs = malloc((wl->nseqs ? wl->nseqs : 1) * sizeof(*wl->fold_seqs)))) {
        free(wl->fold);
        wl->fold = NULL;
        arm(wl, 200);
        return;
    }
    for (size_t i = 0; i < wl->cap; i++)
        for (struct pend *p = wl->tab[i]; p; p = p->next) any_null_len |= p->v.nbytes < 0;
    pa_begin(&keys, OID_BYTEA, n, false);
    pa_begin(&vers, OID_INT8, n, false);
    pa_begin(&bits, OID_BYTEA, n, false);
    pa_begin(&cards, OID_INT8, n, false);
    pa_begin(&crcs, OID_INT8, n, false);
    pa_begin(&lens, OID_INT8, n, any_null_len);
    pa_begin(&seqs, OID_INT8, wl->nseqs, false);
    for (size_t i = 0; i < wl->cap; i++)
        for (struct pend *p = wl->tab[i]; p; p = p->next) {
            wl->fold[j] = (struct folded){p, p->v.version};
            p->fold_pos = ++j;
            pa_elem(&keys, p->key, p->keylen);
            pa_int8(&vers, p->v.version);
            pa_elem(&bits, p->v.blob ? p->v.blob->data : (const uint8_t *)"", p->v.blob ? p->v.blob->len : 0);
            pa_int8(&cards, p->v.cardinality);
            pa_int8(&crcs, (int64_t)p->v.checksum);
            pa_int8_or_null(&lens, p->v.nbytes);
        }
    for (size_t i = 0; i < wl->nseqs; i++) {
        pa_int8(&seqs, wl->seqs[i]);
        wl->fold_seqs[i] = wl->seqs[i];
    }
    wl->nfold = n;
    wl->nfold_seqs = wl->nseqs;
    /* the appends that had all finished when it was built */
    wl->fold_covers = wl->next_serial;
    for (size_t i = 0; i < wl->ninflight; i++)
        if (wl->inflight[i] - 1 < wl->fold_covers) wl->fold_covers = wl->inflight[i] - 1;
    wl->fold_mark = cache_mark(wl->cache);
    if (!(keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || lens.oom || seqs.oom)) {
        struct db_param p[7] = {pa_param(&keys), pa_param(&vers), pa_param(&bits), pa_param(&cards),
                                pa_param(&crcs), pa_param(&lens), pa_param(&seqs)};
        wl->fold_job = db_query(wl->db, SQL_FOLD, 7, p, fold_done, wl);
    }
    free(keys.buf);
    free(vers.buf);
    free(bits.buf);
    free(cards.buf);
    free(crcs.buf);
    free(lens.buf);
    free(seqs.buf);
    if (!wl->fold_job) {
        for (size_t i = 0; i < wl->nfold; i++) wl->fold[i].p->fold_pos = 0;
        free(wl->fold);
        free(wl->fold_seqs);
        wl->fold = NULL;
        wl->fold_seqs = NULL;
        wl->nfold = wl->nfold_seqs = 0;
        arm(wl, 200);
    }
}

/* ---- the lease --------------------------------------------------------------------- */

/* On the listener's session: the lock, then the lease row naming this instance, and
 * whether the guard of 0009 is in the change trigger (without it, no lease). The
 * holder stops watching (WLOG_WATCH_LOCK): nobody else writes while it holds the
 * lease, and its appends need not announce to itself. A session that holds the lock
 * already (a lease lost to the guard, taken again) does not take it twice: one unlock
 * must let it go. */
static const char SQL_ACQUIRE[] =
    "WITH h AS MATERIALIZED (SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
    "                          AND pid = pg_backend_pid() AND classid = 0 AND objid = " WLOG_LEASE_LOCK
    "                          AND objsubid = 1 AND mode = 'ExclusiveLock' AND granted) AS had),"
    " l AS MATERIALIZED (SELECT (SELECT had FROM h) OR pg_try_advisory_lock(" WLOG_LEASE_LOCK ") AS got),"
    " w AS MATERIALIZED (" WLOG_UNWATCH_SQL " WHERE (SELECT got FROM l) AND NOT (SELECT had FROM h)),"
    " u AS (UPDATE bitmapd.wlog_lease SET holder = $1::text WHERE (SELECT got FROM l) RETURNING 1)"
    " SELECT (SELECT got FROM l)::int4, (SELECT count(*) FROM u)::int4,"
    "        (SELECT prosrc LIKE '%_wlog_guard%' FROM pg_proc"
    "          WHERE oid = 'bitmapd._bitmaps_changed()'::regprocedure)::int4, (SELECT count(*) FROM w)::int4";
static const char SQL_READ_LOG[] = "SELECT seq, images FROM bitmapd.wlog ORDER BY seq";
/* The lease row names nobody before the lock goes: the old holder's token must not
 * pass the guard while the next holder is taking the lease. It watches again before
 * it lets go: the next holder's appends announce to it. */
static const char SQL_RELEASE[] =
    "WITH w AS MATERIALIZED (" WLOG_WATCH_SQL "),"
    " u AS (UPDATE bitmapd.wlog_lease SET holder = '' WHERE holder = $1::text RETURNING 1)"
    " SELECT (SELECT count(*) FROM u), (SELECT pg_advisory_unlock(" WLOG_LEASE_LOCK ") FROM w)";

static void recovered_image(const struct wlog_image *im, void *arg)
{
    struct wlog *wl = arg;
    struct cache_val v = {.found = true, .version = im->version, .cardinality = im->cardinality,
                          .checksum = im->checksum, .nbytes = im->nbytes};
    if (!(v.blob = cache_blob_new(im->bits, im->len))) {
        wl->recover_failed = true;
        return;
    }
    cache_drop(wl->cache, im->key, im->keylen);
    if (!put(wl, im->key, im->keylen, &v)) wl->recover_failed = true;
    cache_blob_unref(v.blob);
}

static const char SQL_ROW_VERSIONS[] =
    "SELECT b.key, b.version FROM unnest($1::bytea[]) AS k(key)"
    "  CROSS JOIN LATERAL (SELECT x.key, x.version FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1) b";

static void recovered(struct wlog *wl);

/* A recovery that cannot finish lets go without folding: the rows stay in the log for
 * the next attempt, and what was read of them is forgotten. */
static void recovery_abort(struct wlog *wl)
{
    drop_all(wl);
    wl->state = WL_YIELDING; /* release() waits for a busy listener from this state */
    release(wl);
}

static void versions_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return;
    if (r->status != DB_OK) {
        log_warn("msg=\"write-behind log: checking recovered images failed\" reason=\"%s\"", r->message ? r->message : "?");
        recovery_abort(wl);
        return;
    }
    for (int i = 0; i < PQntuples(r->res); i++) {
        const uint8_t *key = (const uint8_t *)PQgetvalue(r->res, i, 0);
        size_t len = (size_t)PQgetlength(r->res, i, 0);
        struct pend *p = find(wl, key, len);
        if (p && p->v.version <= db_value_int8(r->res, i, 1)) unlink_pend(wl, p);
    }
    recovered(wl);
}

static void read_log_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return; /* the listener went down meanwhile */
    if (r->status != DB_OK) {
        log_warn("msg=\"write-behind log: reading the log failed\" reason=\"%s\"", r->message ? r->message : "?");
        recovery_abort(wl);
        return;
    }
    for (int i = 0; i < PQntuples(r->res); i++) {
        int64_t seq = db_value_int8(r->res, i, 0);
        size_t n = pgbin_array_len(r->res, i, 1);
        const uint8_t **ptr = calloc(n ? n : 1, sizeof(*ptr));
        size_t *len = calloc(n ? n : 1, sizeof(*len));
        long got = ptr && len ? pgbin_array_elems((const uint8_t *)PQgetvalue(r->res, i, 1),
                                                  (size_t)PQgetlength(r->res, i, 1), ptr, len, n)
                              : -1;
        bool ok = got >= 0 && (size_t)got == n;
        for (size_t k = 0; ok && k < n; k++) ok = wlog_unpack(ptr[k], len[k], NULL, NULL);
        for (size_t k = 0; ok && k < n; k++) ok = wlog_unpack(ptr[k], len[k], recovered_image, wl);
        free(ptr);
        free(len);
        if (!ok) {
            /* left in place: every writer stays blocked on it, which is what an
             * unreadable acknowledged write deserves; the operator decides */
            log_error("msg=\"write-behind log row is damaged or unreadable; it blocks every write until it is "
                      "removed\" seq=%lld",
                      (long long)seq);
            wl->damaged_until = metrics_now() + 5;
            wl->keep = false; /* fold what can be read, let go: writers stay blocked on the row */
            continue;
        }
        seq_add(wl, seq);
        wl->stats.recovered_rows++;
    }
    if (wl->recover_failed) { /* the rows stay in the log for the next attempt */
        log_error("msg=\"write-behind log: out of memory recovering the log; letting go\"");
        wl->recover_failed = false;
        recovery_abort(wl);
        return;
    }
    if (PQntuples(r->res) > 0)
        log_info("msg=\"write-behind log recovered\" rows=%d keys=%zu", PQntuples(r->res), wl->n);
    if (wl->n) { /* images already overtaken by their rows are not pending */
        struct pgarr keys;
        pa_begin(&keys, OID_BYTEA, wl->n, false);
        for (size_t i = 0; i < wl->cap; i++)
            for (struct pend *p = wl->tab[i]; p; p = p->next) pa_elem(&keys, p->key, p->keylen);
        if (!keys.oom) {
            struct db_param prm = pa_param(&keys);
            wl->listener_busy = true;
            if (!db_listener_query(wl->db, SQL_ROW_VERSIONS, 1, &prm, versions_done, wl)) wl->listener_busy = false;
        }
        free(keys.buf);
        if (wl->listener_busy) return;
        recovery_abort(wl); /* could not check them */
        return;
    }
    recovered(wl);
}

/* After recovery: hold (log mode), or fold what was found and let go. */
static void recovered(struct wlog *wl)
{
    wl->state = wl->keep ? WL_HOLDING : WL_YIELDING;
    if (wl->n || wl->nseqs)
        fold_start(wl);
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs)
        release(wl);
    else
        relisten(wl);
    store_wlog_resume(wl->st);
}

static void acquire_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return;
    bool got = r->status == DB_OK && PQntuples(r->res) == 1 && pgbin_int4(r->res, 0, 0) == 1;
    bool guard = got && !PQgetisnull(r->res, 0, 2) && pgbin_int4(r->res, 0, 2) == 1;
    if (!got || !guard) {
        if (got) log_error("msg=\"write-behind log stays off: the guard of migration 0009 is missing (bitmapd --migrate)\"");
        wl->retry_at = metrics_now() + 0.2;
        wl->state = WL_OFF;
        if (got)
            release(wl);
        else
            relisten(wl);
        arm(wl, 200);
        store_wlog_resume(wl->st);
        return;
    }
    wl->stats.leases++;
    wl->lost = false;
    if (wl->keep) log_info("msg=\"write-behind log: lease taken\"");
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, SQL_READ_LOG, 0, NULL, read_log_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF; /* the listener is going down: its session's lock goes with it */
        store_wlog_resume(wl->st);
    }
}

static void acquire(struct wlog *wl, bool keep)
{
    struct db_param p = {db_instance(wl->db), -1, 0};
    if (wl->state != WL_OFF || wl->listener_busy || !db_listening(wl->db) || metrics_now() < wl->retry_at) return;
    wl->keep = keep;
    wl->state = WL_ACQUIRING;
    wl->listener_busy = true;
    p.length = (int)strlen(p.value);
    if (!db_listener_query(wl->db, SQL_ACQUIRE, 1, &p, acquire_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF;
    }
}

static void release_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_RELEASING) return;
    wl->state = WL_OFF;
    if (r->status != DB_OK) log_warn("msg=\"write-behind log: unlock failed\" reason=\"%s\"", r->message ? r->message : "?");
    relisten(wl);
    store_wlog_resume(wl->st);
}

static void release(struct wlog *wl)
{
    if (wl->listener_busy) {
        arm(wl, 10);
        return;
    }
    struct db_param p = {db_instance(wl->db), (int)strlen(db_instance(wl->db)), 0};
    wl->state = WL_RELEASING;
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, SQL_RELEASE, 1, &p, release_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF; /* no listener, no session, no lock */
    }
}

/* The listener's last statement is LISTEN again after a lease statement, so that an
 * operator (and the tests) still find it in pg_stat_activity by that text. */
static void relistened(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    (void)r;
    wl->listener_busy = false;
}

static void relisten(struct wlog *wl)
{
    if (wl->listener_busy) return;
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, "LISTEN bitmapd_changed", 0, NULL, relistened, wl)) wl->listener_busy = false;
}

static bool cooling(const struct wlog *wl)
{
    return metrics_now() < wl->cooldown_until;
}

bool wlog_stop(struct wlog *wl)
{
    wl->stopping = true;
    if (wl->state == WL_HOLDING) {
        wl->state = WL_YIELDING;
        fold_start(wl);
    }
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs && !wl->ninflight && !wl->fold_job && !wl->listener_busy)
        release(wl);
    return wl->state == WL_OFF && !wl->listener_busy;
}

void wlog_kick(struct wlog *wl)
{
    if (wl->stopping) return;
    if (wl->cfg->wlog_enabled && wl->state == WL_OFF && cache_enabled(wl->cache) && !cooling(wl))
        acquire(wl, true);
    else if (wl->lost && wl->state == WL_OFF) /* the lease again, to recover its own log */
        acquire(wl, wl->cfg->wlog_enabled != 0);
}

static void asked(const struct db_result *r, void *arg)
{
    (void)arg;
    if (r->status != DB_OK) log_warn("msg=\"write-behind log: asking the holder to fold failed\" reason=\"%s\"", r->message ? r->message : "?");
}

static void ask_fold(struct wlog *wl)
{
    double now = metrics_now();
    if (now < wl->last_ask + 0.1) return;
    wl->last_ask = now;
    if (!db_query(wl->db, "SELECT pg_notify('bitmapd_changed', '!fold')", 0, NULL, asked, NULL))
        log_warn("msg=\"write-behind log: could not ask the holder to fold\"");
}

void wlog_blocked(struct wlog *wl, bool held_elsewhere)
{
    wl->stats.blocked++;
    wl->seen = true;
    if (wl->state != WL_OFF) return;
    if (held_elsewhere)
        ask_fold(wl);
    else if (metrics_now() >= wl->damaged_until)
        acquire(wl, wl->cfg->wlog_enabled && cache_enabled(wl->cache) && !cooling(wl) && !wl->stopping);
}

bool wlog_on_notify(struct wlog *wl, const char *payload)
{
    if (strcmp(payload, "!fold") == 0) {
        if (wl->state == WL_HOLDING) {
            wl->cooldown_until = metrics_now() + wl->cfg->wlog_cooldown_s;
            wl->state = WL_YIELDING;
            wl->stats.yields++;
            log_info("msg=\"write-behind log: asked to fold and let go\"");
            if (!wl->n && !wl->nseqs && !wl->ninflight)
                release(wl);
            else
                fold_start(wl);
        }
        return true;
    }
    return false;
}

void wlog_note_append_seen(struct wlog *wl) { wl->seen = true; }

void wlog_listen_state(struct wlog *wl, bool up)
{
    if (!up) {
        if (wl->state >= WL_HOLDING) {
            /* the server may keep the old session, and its lock, until it notices the
             * connection is gone (its keepalives: about 15 s): this instance's writes
             * would pass the guard under its own token meanwhile, over rows whose
             * images it just dropped. It writes nothing until it holds the lease again. */
            log_warn("msg=\"write-behind log: listener down while holding the lease; writes wait for it\"");
            wl->lost = true;
        }
        wl->state = WL_OFF;
        wl->listener_busy = false;
        drop_all(wl);
    }
    wl->seen = true;
    event_active(wl->barrier_ev, 0, 0);
    store_wlog_resume(wl->st);
}

bool wlog_lost(const struct wlog *wl) { return wl->lost; }

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
            fold_start(wl);
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

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct wlog *wl = arg;
    (void)fd;
    (void)what;
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs && !wl->ninflight && !wl->fold_job)
        release(wl);
    else if (wl->state >= WL_HOLDING)
        fold_start(wl);
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
    if (wl->tab) drop_all(wl);
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
