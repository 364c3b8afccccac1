/* wpath.c — drives one request's units through load → mutate → compare-and-swap,
 * chunk by chunk, retrying only the units whose versions moved. */
#include "store/wpath.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "core/config.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/wpath_internal.h"

struct wp_ref {
    size_t unit;
    int key;
};

/* ---- in-process key locks (wpath_internal.h says why) ---------------------------- */

#define KEYLOCK_BUCKETS 4096

static struct keylock *keylocks[KEYLOCK_BUCKETS];

static size_t keylock_bucket(const char *key, size_t len)
{
    return (size_t)(bytes_hash(key, len) % KEYLOCK_BUCKETS);
}

struct keylock **wp_lock_find(const struct wp_key *k)
{
    struct keylock **p = &keylocks[keylock_bucket(k->key, k->keylen)];
    while (*p && ((*p)->len != k->keylen || memcmp((*p)->key, k->key, k->keylen) != 0)) p = &(*p)->next;
    return p;
}

static void wp_load(struct wpath *wp);

static void wp_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    wp_load(arg);
}

static void wp_free_encoded(struct wpath *wp)
{
    for (size_t i = 0; i < wp->nrefs; i++) {
        free(wp->encoded[i]);
        wp->encoded[i] = NULL;
    }
}

static void unit_release(struct wp_unit *u)
{
    for (int k = 0; k < u->nkeys; k++) {
        if (u->keys[k].bm) roaring_bitmap_free(u->keys[k].bm);
        u->keys[k].bm = NULL;
    }
}

static void wp_release(struct wpath *wp);

void wp_finish(struct wpath *wp, enum wp_status st, const char *msg)
{
    wp_release(wp);
    wp->job = NULL;
    wp_free_encoded(wp);
    wp->ops->done(wp, st, msg, wp->arg);
}

void wp_unit_end(struct wpath *wp, struct wp_unit *u, enum wp_status st)
{
    u->done = true;
    u->status = st;
    if (wp->release) unit_release(u);
}

roaring_bitmap_t *wpath_decode_row(const char *key, size_t keylen, const struct store_row *row,
                                   char *err, size_t errlen)
{
    char why[128];
    roaring_bitmap_t *bm = NULL;

    if (row->len > CODEC_MAX_BYTES)
        snprintf(why, sizeof(why), "%zu bytes is more than any bitmap needs", row->len);
    else if (row->len == 0)
        snprintf(why, sizeof(why), "its chunks cannot be read (the log names the chunk)");
    else if (!row->checked && codec_crc32c(row->bits, row->len) != row->checksum) /* checked: this
             * instance encoded or joined these very bytes; their checksum was computed from them */
        snprintf(why, sizeof(why), "checksum mismatch");
    else if ((bm = codec_decode(row->bits, row->len, why, sizeof(why))) != NULL &&
             (int64_t)roaring_bitmap_get_cardinality(bm) != row->cardinality) {
        snprintf(why, sizeof(why), "cardinality column says %lld, bits hold %llu",
                 (long long)row->cardinality, (unsigned long long)roaring_bitmap_get_cardinality(bm));
        roaring_bitmap_free(bm);
        bm = NULL;
    }
    if (!bm) {
        snprintf(err, errlen, "stored bitmap for key '%.*s' is corrupt: %s", (int)keylen, key, why);
        metrics.corrupt_rows++;
        char quoted[4 * WP_KEY_MAX + 1];
        log_error("msg=\"corrupt bitmap\" key=\"%s\" reason=\"%s\"",
                  log_quote(quoted, sizeof(quoted), key, keylen), why);
    }
    return bm;
}

/* Encodes one unit's dirty keys into the statement; clean keys are version checks. */
static bool wp_add_writes(struct wpath *wp, struct store_write *w, size_t *nw, size_t ui, int32_t group)
{
    struct wp_unit *u = &wp->units[ui];
    for (int k = 0; k < u->nkeys; k++) {
        struct wp_key *key = &u->keys[k];
        struct store_write *x = &w[*nw];
        memset(x, 0, sizeof(*x));
        x->key = (const uint8_t *)key->key;
        x->keylen = key->keylen;
        x->version = key->version;
        x->nbytes = key->nbytes;
        x->expire_ms = key->expire_ms;
        x->group = group;
        x->absent = !key->found;
        if (key->dirty) {
            uint8_t *buf;
            size_t len;
            if (!codec_encode(key->bm, &buf, &len)) return false;
            wp->encoded[*nw] = buf;
            x->bits = buf;
            x->len = len;
            x->bm = key->bm;
            x->cardinality = roaring_bitmap_get_cardinality(key->bm);
            x->checksum = codec_crc32c(buf, len);
        }
        wp->refs[*nw] = (struct wp_ref){ui, k};
        (*nw)++;
    }
    return true;
}

/* The pause before retry number `attempts` (> 1) after a conflict: jittered, growing. */
int wp_retry_pause_us(int attempts)
{
    int cap = attempts > 8 ? 8 : attempts;
    return 250 * cap + rand() % (1000 * cap);
}

static void wp_cas_done(enum store_status st, const char *err, const bool *conflict, void *arg)
{
    struct wpath *wp = arg;
    size_t still = 0;

    wp->job = NULL;
    wp_free_encoded(wp);
    if (st == STORE_UNAVAILABLE) {
        wp_finish(wp, WP_UNAVAILABLE, "connection lost during the commit: the write may or may not have been applied");
        return;
    }
    if (st != STORE_OK) {
        wp_finish(wp, WP_FAILED, err);
        return;
    }
    /* refs are grouped by unit in the order of pending[]; group g = pending[g] */
    for (size_t g = 0; g < wp->npending; g++) {
        struct wp_unit *u = &wp->units[wp->pending[g]];
        if (u->done) continue; /* settled before the statement (unchanged/rejected) */
        if (u->sent && !conflict[g]) {
            for (int k = 0; k < u->nkeys; k++)
                if (u->keys[k].dirty) {
                    u->keys[k].version++; /* an inserted row starts at version 1 */
                    u->keys[k].found = true;
                }
            wp_unit_end(wp, u, u->verdict);
        } else if (u->guessed) {
            /* most likely a key guessed absent had a row: loaded again, not a conflict */
            metrics.write_guesses_wrong++;
            wp->no_guess = true;
            wp->pending[still++] = wp->pending[g];
        } else if (++u->attempts > wp->cfg->pg_max_retries) {
            metrics.write_conflicts++;
            metrics.write_retries_exhausted++;
            wp_unit_end(wp, u, WP_CONFLICTED);
        } else {
            metrics.write_conflicts++;
            metrics.write_retries++;
            wp->no_guess = true; /* its keys were dropped from the cache, and exist */
            wp->pending[still++] = wp->pending[g];
        }
    }
    wp->npending = still;
    if (!still) {
        wp_next_chunk(wp);
        return;
    }
    /* Conflicts with another instance: retrying at once tends to collide again with
     * the same writer, so wait a jittered, growing moment first (the first retry
     * goes at once: a stale cache entry is the common cause and costs nothing). */
    int attempts = 0;
    for (size_t g = 0; g < still; g++)
        if (wp->units[wp->pending[g]].attempts > attempts) attempts = wp->units[wp->pending[g]].attempts;
    if (attempts > 1 && (wp->retry_timer || (wp->retry_timer = evtimer_new(store_event_base(wp->st), wp_retry_cb, wp)))) {
        event_add(wp->retry_timer, &(struct timeval){0, wp_retry_pause_us(attempts)});
        return;
    }
    wp_load(wp);
}

bool wp_key_load(struct wp_key *key, const struct store_row *row, roaring_bitmap_t *decoded, char *err,
                 size_t errlen)
{
    key->dirty = false;
    key->found = row->found;
    key->version = row->found ? row->version : 0; /* a missing row: the write will insert it */
    key->nbytes = row->found ? row->nbytes : -1;
    key->expire_ms = row->found ? row->expire_ms : 0;
    if (decoded) {
        key->bm = decoded;
    } else if (row->found) {
        key->bm = wpath_decode_row(key->key, key->keylen, row, err, errlen);
    } else if (!(key->bm = roaring_bitmap_create())) {
        snprintf(err, errlen, "out of memory");
    }
    return key->bm != NULL;
}

/* Decodes one unit's rows; false if a row is missing (the unit will be retried)
 * or corrupt (the unit is ended). */
static bool wp_decode_unit(struct wpath *wp, struct wp_unit *u, const struct store_row *rows,
                           size_t first)
{
    unit_release(u);
    u->unverified = false;
    u->guessed = false;
    for (int k = 0; k < u->nkeys; k++) {
        const struct store_row *row = &rows[first + (size_t)k];
        u->unverified |= row->cached;
        u->guessed |= row->guessed;
        if (!wp_key_load(&u->keys[k], row, NULL, u->error, sizeof(u->error))) {
            wp_unit_end(wp, u, WP_CORRUPT);
            return false;
        }
    }
    return true;
}

static void wp_load_done(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct wpath *wp = arg;
    struct store_write *w = NULL;
    size_t nw = 0, pos = 0;

    wp->job = NULL;
    if (st == STORE_UNAVAILABLE) {
        wp_finish(wp, WP_UNAVAILABLE, "nothing was written by this step");
        return;
    }
    if (st != STORE_OK) {
        wp_finish(wp, WP_FAILED, err);
        return;
    }
    w = calloc(wp->nrefs ? wp->nrefs : 1, sizeof(*w));
    if (!w) {
        wp_finish(wp, WP_FAILED, "out of memory");
        return;
    }
    for (size_t g = 0; g < wp->npending; g++) {
        struct wp_unit *u = &wp->units[wp->pending[g]];
        size_t first = pos;
        u->sent = false;
        pos += (size_t)u->nkeys;
        if (!wp_decode_unit(wp, u, rows, first)) continue; /* not sent: retried or ended */
        enum wp_mutation m = wp->ops->mutate(wp, u, wp->arg);
        u->verdict = m == WP_REJECT ? WP_REJECTED : WP_OK;
        if (m != WP_CHANGED) {
            if (!u->unverified) {
                wp_unit_end(wp, u, u->verdict);
                continue;
            }
            /* Decided on cached rows, which may be a notification behind: the unit
             * goes into the statement as version checks only, and is loaded from
             * the database again if one of them moved. */
            for (int k = 0; k < u->nkeys; k++) u->keys[k].dirty = false;
        }
        u->sent = true;
        if (!wp_add_writes(wp, w, &nw, wp->pending[g], (int32_t)g)) {
            free(w);
            wp_finish(wp, WP_FAILED, "could not encode a bitmap");
            return;
        }
    }
    if (nw == 0) {
        free(w);
        /* nothing to write; units whose rows were missing (a rare race) load again */
        bool *none = calloc(wp->npending + 1, sizeof(bool));
        if (!none) {
            wp_finish(wp, WP_FAILED, "out of memory");
            return;
        }
        wp_cas_done(STORE_OK, NULL, none, wp);
        free(none);
        return;
    }
    wp->job = store_cas(wp->st, w, nw, (int32_t)wp->npending, wp_cas_done, wp);
    free(w);
    if (!wp->job) wp_finish(wp, WP_FAILED, "out of memory");
}

/* Loads every key of the pending units of the chunk, in one statement. */
static void wp_load(struct wpath *wp)
{
    struct store_key *keys;
    size_t n = 0;

    if (wp->abandoned) {
        wp_finish(wp, WP_FAILED, "client went away");
        return;
    }
    for (size_t g = 0; g < wp->npending; g++) n += (size_t)wp->units[wp->pending[g]].nkeys;
    keys = calloc(n ? n : 1, sizeof(*keys));
    if (!keys) {
        wp_finish(wp, WP_FAILED, "out of memory");
        return;
    }
    n = 0;
    for (size_t g = 0; g < wp->npending; g++) {
        struct wp_unit *u = &wp->units[wp->pending[g]];
        for (int k = 0; k < u->nkeys; k++)
            keys[n++] = (struct store_key){(const uint8_t *)u->keys[k].key, u->keys[k].keylen};
    }
    wp->nrefs = n;
    /* keys missing from the cache may be guessed absent (new users of a fan-out): the
     * compare-and-swap checks every row this write was computed on */
    wp->job = store_load(wp->st, keys, n, wp->no_guess ? 0 : STORE_GUESS_ABSENT, wp_load_done, wp);
    free(keys);
    if (!wp->job) wp_finish(wp, WP_FAILED, "out of memory");
}

static void wp_start_chunk(struct wpath *wp);

/* Frees key k if owner (a request) or train holds it, and moves its waiters to the
 * front of *wake in the order they came (the oldest first). */
void wp_lock_drop(const struct wp_key *k, const struct wpath *owner, const struct wp_train *train,
                         struct wpath **wake)
{
    struct keylock **p = wp_lock_find(k);
    struct keylock *l = *p;
    struct wpath *first = NULL, *last = NULL;

    if (!l || l->owner != owner || l->train != train) return;
    *p = l->next;
    while (l->waiters) { /* a stack, newest first: reversed into first..last */
        struct wpath *w = l->waiters;
        l->waiters = w->next_waiter;
        w->next_waiter = first;
        first = w;
        if (!last) last = w;
    }
    if (last) {
        last->next_waiter = *wake;
        *wake = first;
    }
    free(l);
}

/* Lets every request of the list try its chunk again, in list order. */
void wp_lock_wake(struct wpath *wake)
{
    while (wake) {
        struct wpath *w = wake;
        wake = w->next_waiter;
        w->next_waiter = NULL;
        wp_start_chunk(w);
    }
}

/* A new lock on k for owner or train; without one (out of memory) the CAS still
 * guarantees correctness, only the in-process turn-taking is lost. */
void wp_lock_take(const struct wp_key *k, struct wpath *owner, struct wp_train *train)
{
    struct keylock **p = wp_lock_find(k);
    if (*p) return;
    struct keylock *l = calloc(1, sizeof(*l) + k->keylen);
    if (!l) return;
    l->owner = owner;
    l->train = train;
    l->len = k->keylen;
    memcpy(l->key, k->key, l->len);
    *p = l;
}

/* Takes every key of the chunk, or none and queues wp behind the first busy one. */
static bool wp_acquire(struct wpath *wp)
{
    for (size_t i = wp->chunk_start; i < wp->next; i++)
        for (int k = 0; k < wp->units[i].nkeys; k++) {
            struct keylock *l = *wp_lock_find(&wp->units[i].keys[k]);
            if (l && l->owner != wp) {
                wp->next_waiter = l->waiters;
                l->waiters = wp;
                return false;
            }
        }
    for (size_t i = wp->chunk_start; i < wp->next; i++)
        for (int k = 0; k < wp->units[i].nkeys; k++) wp_lock_take(&wp->units[i].keys[k], wp, NULL);
    wp->holds_locks = true;
    return true;
}

/* Frees the chunk's keys and lets every request waiting on them try again. */
static void wp_release(struct wpath *wp)
{
    struct wpath *wake = NULL;

    if (!wp->holds_locks) return;
    wp->holds_locks = false;
    for (size_t i = wp->chunk_start; i < wp->next; i++)
        for (int k = 0; k < wp->units[i].nkeys; k++) wp_lock_drop(&wp->units[i].keys[k], wp, NULL, &wake);
    wp_lock_wake(wake);
}

static void wp_start_chunk(struct wpath *wp)
{
    if (wp_train_eligible(wp))
        wp_train_enter(wp);
    else if (wp_acquire(wp))
        wp_load(wp);
}

/* A request of one unit (most of them: one RESP command) is one allocation: the
 * request, its unit and the per-chunk arrays for a chunk of one key, which the others
 * allocate and grow (wp_next_chunk). */
struct wpath_one {
    struct wpath wp;
    struct wp_unit unit;
    size_t pending;
    struct wp_ref ref;
    uint8_t *encoded;
};

static bool is_inline(const struct wpath *wp, const void *p)
{
    const struct wpath_one *one = (const struct wpath_one *)(const void *)wp;
    return wp->one && (p == &one->unit || p == &one->pending || p == &one->ref || p == &one->encoded);
}

/* *p (n entries of size elem) grown to cap entries; an inline array is copied out. */
static bool grow(const struct wpath *wp, void **p, size_t n, size_t cap, size_t elem)
{
    void *np;
    if (is_inline(wp, *p)) {
        if (!(np = malloc(cap * elem))) return false;
        memcpy(np, *p, n * elem);
    } else if (!(np = realloc(*p, cap * elem))) {
        return false;
    }
    *p = np;
    return true;
}

static void free_array(const struct wpath *wp, void *p)
{
    if (!is_inline(wp, p)) free(p);
}

void wp_next_chunk(struct wpath *wp)
{
    size_t nkeys = 0;

    wp_release(wp);
    wp->npending = 0;
    wp->chunk_start = wp->next;
    /* size the per-chunk arrays for this chunk (a one-key request needs one entry,
     * not batch_keys: zeroing them for every request showed in profiles) */
    size_t units = 0, want = 0;
    for (size_t i = wp->next; i < wp->nunits; i++) {
        if (units && want + (size_t)wp->units[i].nkeys > (size_t)wp->cfg->pg_batch_keys) break;
        want += (size_t)wp->units[i].nkeys;
        units++;
    }
    if (want > wp->cap || units > wp->cap) {
        size_t cap = want > units ? want : units;
        if (!grow(wp, (void **)&wp->pending, wp->cap, cap, sizeof(*wp->pending)) ||
            !grow(wp, (void **)&wp->refs, wp->cap, cap, sizeof(*wp->refs)) ||
            !grow(wp, (void **)&wp->encoded, wp->cap, cap, sizeof(*wp->encoded))) {
            wp_finish(wp, WP_FAILED, "out of memory");
            return;
        }
        for (size_t i = wp->cap; i < cap; i++) wp->encoded[i] = NULL;
        wp->cap = cap;
    }
    while (wp->next < wp->nunits) {
        struct wp_unit *u = &wp->units[wp->next];
        if (wp->npending && nkeys + (size_t)u->nkeys > (size_t)wp->cfg->pg_batch_keys) break;
        nkeys += (size_t)u->nkeys;
        wp->pending[wp->npending++] = wp->next++;
    }
    if (wp->npending == 0) {
        wp_finish(wp, WP_OK, NULL);
        return;
    }
    wp_start_chunk(wp);
}

struct wpath *wpath_new(struct store *st, const struct config *cfg, size_t nunits,
                        const struct wpath_ops *ops, void *arg, bool release_bitmaps)
{
    struct wpath *wp = calloc(1, nunits == 1 ? sizeof(struct wpath_one) : sizeof(*wp));

    if (!wp) return NULL;
    wp->st = st;
    wp->cfg = cfg;
    wp->nunits = nunits;
    wp->ops = ops;
    wp->arg = arg;
    wp->release = release_bitmaps;
    if (nunits == 1) {
        struct wpath_one *one = (struct wpath_one *)(void *)wp;
        wp->one = true;
        wp->units = &one->unit;
        wp->pending = &one->pending;
        wp->refs = &one->ref;
        wp->encoded = &one->encoded;
        wp->cap = 1;
    } else {
        wp->units = calloc(nunits ? nunits : 1, sizeof(*wp->units));
    }
    for (size_t i = 0; wp->units && i < nunits; i++) wp->units[i].keys = wp->units[i].key_buf;
    if (!wp->units) {
        wpath_free(wp);
        return NULL;
    }
    return wp;
}

struct wp_unit *wpath_units(struct wpath *wp) { return wp->units; }

bool wpath_unit_keys(struct wp_unit *u, int n)
{
    if (n < 1 || n > WP_MAX_KEYS) return false;
    if (n > WP_INLINE_KEYS && u->keys == u->key_buf) {
        struct wp_key *keys = calloc((size_t)n, sizeof(*keys));
        if (!keys) return false;
        memcpy(keys, u->key_buf, sizeof(u->key_buf));
        for (int k = 0; k < WP_INLINE_KEYS; k++)
            if (u->key_buf[k].key == u->key_buf[k].buf) keys[k].key = keys[k].buf;
        u->keys = keys;
    }
    u->nkeys = n;
    return true;
}

bool wp_key_set(struct wp_key *k, const void *key, size_t len)
{
    char *p = k->buf;
    if (len > WP_KEY_MAX) return false; /* an empty name is a valid Redis key */
    if (k->key && k->key != k->buf) free((char *)k->key);
    k->key = NULL;
    if (len > sizeof(k->buf) && !(p = malloc(len))) return false;
    memcpy(p, key, len);
    k->key = p;
    k->keylen = len;
    return true;
}
size_t wpath_nunits(const struct wpath *wp) { return wp->nunits; }
void wpath_run(struct wpath *wp) { wp_next_chunk(wp); }
void wpath_abandon(struct wpath *wp) { wp->abandoned = true; }

void wpath_free(struct wpath *wp)
{
    if (!wp) return;
    if (wp->job) db_cancel(wp->job);
    if (wp->train) wp_train_forget(wp->train, wp);
    if (wp->retry_timer) event_free(wp->retry_timer);
    for (size_t i = 0; wp->units && i < wp->nunits; i++) {
        struct wp_unit *u = &wp->units[i];
        unit_release(u);
        for (int k = 0; k < u->nkeys; k++)
            if (u->keys[k].key != u->keys[k].buf) free((char *)u->keys[k].key);
        if (u->keys != u->key_buf) free(u->keys);
    }
    if (wp->encoded) wp_free_encoded(wp);
    free_array(wp, wp->units);
    free_array(wp, wp->pending);
    free_array(wp, wp->refs);
    free_array(wp, wp->encoded);
    free(wp);
}
