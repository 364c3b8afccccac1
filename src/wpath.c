/* wpath.c — drives one request's units through load → mutate → compare-and-swap,
 * chunk by chunk, retrying only the units whose versions moved. */
#include "wpath.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "config.h"
#include "log.h"
#include "metrics.h"

struct wp_ref {
    size_t unit;
    int key;
};

struct wpath {
    struct store *st;
    const struct config *cfg;
    struct wp_unit *units;
    size_t nunits;
    const struct wpath_ops *ops;
    void *arg;
    bool release;
    size_t next;          /* first unit not yet taken into a chunk */
    size_t *pending;      /* units of the current chunk still to commit */
    size_t cap;           /* entries of pending, refs and encoded (grown per chunk) */
    size_t npending;
    struct wp_ref *refs;  /* statement position → (unit, key) */
    size_t nrefs;
    uint8_t **encoded;    /* new bytes per statement position, owned */
    struct db_job *job;
    bool abandoned;
    size_t chunk_start;        /* units [chunk_start, next) hold their key locks */
    bool holds_locks;
    struct wpath *next_waiter; /* in the wait list of one busy key */
    struct event *retry_timer; /* the pause before a retry after a conflict */
    struct wp_train *train;    /* the merged write carrying the current chunk (ops->merge) */
};

/* ---- in-process key locks ------------------------------------------------------
 * Two requests of this process writing one key would only make each other retry
 * (and, with enough of them, exhaust the retries). So a chunk starts only when all
 * of its keys are free here, and otherwise waits on one busy key. Nothing is held
 * while waiting, so there is no deadlock; other instances are still handled by
 * the compare-and-swap. */

#define KEYLOCK_BUCKETS 4096

struct keylock {
    struct keylock *next;
    struct wpath *owner;     /* a request's chunk holds the key, or */
    struct wp_train *train;  /* a merged write does */
    struct wpath *waiters;
    size_t len;
    char key[]; /* len bytes */
};

static struct keylock *keylocks[KEYLOCK_BUCKETS];

static size_t keylock_bucket(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)key[i]) * 1099511628211ULL;
    return (size_t)(h % KEYLOCK_BUCKETS);
}

static struct keylock **keylock_find(const struct wp_key *k)
{
    struct keylock **p = &keylocks[keylock_bucket(k->key, k->keylen)];
    while (*p && ((*p)->len != k->keylen || memcmp((*p)->key, k->key, k->keylen) != 0)) p = &(*p)->next;
    return p;
}

static void wp_next_chunk(struct wpath *wp);
static void wp_load(struct wpath *wp);
static bool train_eligible(const struct wpath *wp);
static void train_enter(struct wpath *wp);
static void train_forget(struct wp_train *t, struct wpath *wp);

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

static void wp_finish(struct wpath *wp, enum wp_status st, const char *msg)
{
    wp_release(wp);
    wp->job = NULL;
    wp_free_encoded(wp);
    wp->ops->done(wp, st, msg, wp->arg);
}

static void unit_end(struct wpath *wp, struct wp_unit *u, enum wp_status st)
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
    else if (codec_crc32c(row->bits, row->len) != row->checksum)
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
        x->group = group;
        x->absent = !key->found;
        if (key->dirty) {
            uint8_t *buf;
            size_t len;
            if (!codec_encode(key->bm, &buf, &len)) return false;
            wp->encoded[*nw] = buf;
            x->bits = buf;
            x->len = len;
            x->cardinality = roaring_bitmap_get_cardinality(key->bm);
            x->checksum = codec_crc32c(buf, len);
        }
        wp->refs[*nw] = (struct wp_ref){ui, k};
        (*nw)++;
    }
    return true;
}

/* The pause before retry number `attempts` (> 1) after a conflict: jittered, growing. */
static int retry_pause_us(int attempts)
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
            unit_end(wp, u, u->verdict);
        } else if (++u->attempts > wp->cfg->pg_max_retries) {
            metrics.write_conflicts++;
            metrics.write_retries_exhausted++;
            unit_end(wp, u, WP_CONFLICTED);
        } else {
            metrics.write_conflicts++;
            metrics.write_retries++;
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
        event_add(wp->retry_timer, &(struct timeval){0, retry_pause_us(attempts)});
        return;
    }
    wp_load(wp);
}

/* Decodes one unit's rows; false if a row is missing (the unit will be retried)
 * or corrupt (the unit is ended). */
static bool wp_decode_unit(struct wpath *wp, struct wp_unit *u, const struct store_row *rows,
                           size_t first)
{
    unit_release(u);
    u->unverified = false;
    for (int k = 0; k < u->nkeys; k++) {
        const struct store_row *row = &rows[first + (size_t)k];
        struct wp_key *key = &u->keys[k];
        key->dirty = false;
        u->unverified |= row->cached;
        key->found = row->found;
        key->version = row->version;
        key->nbytes = row->nbytes;
        if (!row->found) { /* the write will insert it */
            key->version = 0;
            key->nbytes = -1;
            if (!(key->bm = roaring_bitmap_create())) {
                snprintf(u->error, sizeof(u->error), "out of memory");
                unit_end(wp, u, WP_CORRUPT);
                return false;
            }
            continue;
        }
        key->bm = wpath_decode_row(key->key, key->keylen, row, u->error, sizeof(u->error));
        if (!key->bm) {
            unit_end(wp, u, WP_CORRUPT);
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
                unit_end(wp, u, u->verdict);
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
    wp->job = store_load(wp->st, keys, n, 0, wp_load_done, wp);
    free(keys);
    if (!wp->job) wp_finish(wp, WP_FAILED, "out of memory");
}

static void wp_start_chunk(struct wpath *wp);

/* Frees key k if owner (a request) or train holds it, and moves its waiters to the
 * front of *wake in the order they came (the oldest first). */
static void keylock_drop(const struct wp_key *k, const struct wpath *owner, const struct wp_train *train,
                         struct wpath **wake)
{
    struct keylock **p = keylock_find(k);
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
static void keylock_wake(struct wpath *wake)
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
static void keylock_take(const struct wp_key *k, struct wpath *owner, struct wp_train *train)
{
    struct keylock **p = keylock_find(k);
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
            struct keylock *l = *keylock_find(&wp->units[i].keys[k]);
            if (l && l->owner != wp) {
                wp->next_waiter = l->waiters;
                l->waiters = wp;
                return false;
            }
        }
    for (size_t i = wp->chunk_start; i < wp->next; i++)
        for (int k = 0; k < wp->units[i].nkeys; k++) keylock_take(&wp->units[i].keys[k], wp, NULL);
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
        for (int k = 0; k < wp->units[i].nkeys; k++) keylock_drop(&wp->units[i].keys[k], wp, NULL, &wake);
    keylock_wake(wake);
}

/* ---- merged writes ---------------------------------------------------------------
 * Requests whose ops allow it (wpath_ops.merge) and whose chunk is one unit of a few
 * keys do not take turns on a busy key: they join a train, the set of units waiting
 * on the same keys. A train is open (anyone writing one of its keys joins, in
 * arrival order) until the loop turn ends, then it runs: one load of its keys, every
 * unit applied in order to one shared copy of each key, one compare-and-swap of the
 * keys as one group (versions + one per change), all units answered after the
 * commit. On a conflict the train loads again and applies them all again. While it
 * runs, newcomers wait on its keys and form the next train when it ends: one commit
 * per key per round trip, however many clients write the key. */

#define TRAIN_MAX_UNITS 4096 /* units of one train; newcomers wait for the next */
#define TRAIN_MAX_SLOTS 64   /* distinct keys of one train */

struct wp_slot {          /* one key of a train and its shared copy */
    struct wp_key k;      /* the name; version, nbytes, found and bm as loaded */
    int64_t version;      /* as the units applied so far left it */
    int64_t nbytes;
    bool found;
    bool dirty, cached, used, corrupt;
    char error[160];      /* when corrupt: the reason, naming the key */
};

struct wp_member {
    struct wpath *wp;     /* NULL once it left (answered, or freed by its owner) */
    int slot[WP_MERGE_KEYS]; /* unit key k → slot */
};

struct wp_train {
    struct store *st;
    const struct config *cfg;
    bool open;            /* newcomers may join until it runs */
    bool busy;            /* calling back members: a member freed meanwhile only leaves */
    bool ending;          /* committed, keys released: members are answered on the next turn */
    struct wp_member *members;
    size_t nmembers, cap, live;
    struct wp_slot slots[TRAIN_MAX_SLOTS];
    int nslots;
    int attempts;
    struct db_job *job;
    struct event *timer;  /* the start at the end of the loop turn; the pause before a retry */
    uint8_t *encoded[TRAIN_MAX_SLOTS];
};

static void train_load(struct wp_train *t);
static void train_release(struct wp_train *t);
static void train_end(struct wp_train *t, enum wp_status st, const char *msg);

static bool same_key(const struct wp_key *a, const struct wp_key *b)
{
    return a->keylen == b->keylen && memcmp(a->key, b->key, a->keylen) == 0;
}

static struct wp_unit *member_unit(const struct wp_member *m) { return &m->wp->units[m->wp->pending[0]]; }

static bool train_eligible(const struct wpath *wp)
{
    if (!wp->ops->merge || wp->npending != 1) return false;
    const struct wp_unit *u = &wp->units[wp->pending[0]];
    if (u->nkeys > WP_MERGE_KEYS) return false;
    for (int i = 0; i < u->nkeys; i++)
        for (int j = i + 1; j < u->nkeys; j++)
            if (same_key(&u->keys[i], &u->keys[j])) return false;
    return true;
}

static void train_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct wp_train *t = arg;
    (void)fd;
    (void)what;
    if (t->ending)
        train_end(t, WP_OK, NULL);
    else
        train_load(t);
}

static void train_free(struct wp_train *t)
{
    if (t->job) db_cancel(t->job);
    if (t->timer) event_free(t->timer);
    for (int i = 0; i < t->nslots; i++) {
        struct wp_slot *s = &t->slots[i];
        if (s->k.bm) roaring_bitmap_free(s->k.bm);
        if (s->k.key != s->k.buf) free((char *)s->k.key);
        free(t->encoded[i]);
    }
    free(t->members);
    free(t);
}

static struct wp_train *train_new(struct wpath *wp)
{
    struct wp_train *t = calloc(1, sizeof(*t));
    static const struct timeval now = {0, 0};

    if (!t) return NULL;
    t->st = wp->st;
    t->cfg = wp->cfg;
    t->open = true;
    if (!(t->timer = evtimer_new(store_event_base(wp->st), train_timer_cb, t)) || event_add(t->timer, &now) != 0) {
        train_free(t);
        return NULL;
    }
    return t;
}

static int train_slot(struct wp_train *t, const struct wp_key *k)
{
    for (int i = 0; i < t->nslots; i++)
        if (same_key(&t->slots[i].k, k)) return i;
    return -1;
}

/* Adds wp's unit to the open train t, taking the keys t does not hold yet. */
static bool train_add(struct wp_train *t, struct wpath *wp)
{
    struct wp_unit *u = &wp->units[wp->pending[0]];
    struct wp_member m = {wp, {0}};

    if (t->nmembers == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4;
        struct wp_member *nm = realloc(t->members, cap * sizeof(*nm));
        if (!nm) return false;
        t->members = nm;
        t->cap = cap;
    }
    for (int k = 0; k < u->nkeys; k++) {
        int i = train_slot(t, &u->keys[k]);
        if (i < 0) {
            struct wp_slot *s = &t->slots[t->nslots];
            memset(s, 0, sizeof(*s));
            if (!wp_key_set(&s->k, u->keys[k].key, u->keys[k].keylen)) return false;
            keylock_take(&s->k, NULL, t);
            i = t->nslots++;
        }
        m.slot[k] = i;
    }
    t->members[t->nmembers++] = m;
    t->live++;
    wp->train = t;
    return true;
}

/* Joins the open train holding one of the unit's keys, or starts one; waits instead
 * when a key is held by anything else (a running train, a request's chunk). */
static void train_enter(struct wpath *wp)
{
    struct wp_unit *u = &wp->units[wp->pending[0]];
    struct wp_train *t = NULL;
    struct keylock *held = NULL;
    int fresh = 0;

    for (int k = 0; k < u->nkeys; k++) {
        struct keylock *l = *keylock_find(&u->keys[k]);
        if (!l) {
            fresh++;
            continue;
        }
        if (!held) held = l;
        if (!(l->train && l->train->open && (!t || t == l->train))) {
            held = l;
            t = NULL;
            break;
        }
        t = l->train;
    }
    if (held && (!t || t->nmembers >= TRAIN_MAX_UNITS || t->nslots + fresh > TRAIN_MAX_SLOTS)) {
        wp->next_waiter = held->waiters;
        held->waiters = wp;
        return;
    }
    if (!t && !(t = train_new(wp))) {
        wp_finish(wp, WP_FAILED, "out of memory");
        return;
    }
    if (!train_add(t, wp)) {
        if (!t->nmembers) { /* a train of its own: nobody else can be waiting on it yet */
            train_release(t);
            train_free(t);
        }
        wp_finish(wp, WP_FAILED, "out of memory");
    }
}

/* Frees the train's keys; the requests that waited on them form the next train,
 * which starts at once: its statement can then leave in the next one, before the
 * replies of this train's members are written. */
static void train_release(struct wp_train *t)
{
    struct wpath *wake = NULL;
    bool busy = t->busy;

    for (int i = 0; i < t->nslots; i++) keylock_drop(&t->slots[i].k, NULL, t, &wake);
    keylock_wake(wake);
    t->busy = true; /* the next train's work may free a member of this one */
    for (int i = 0; i < t->nslots; i++) {
        struct keylock *l = *keylock_find(&t->slots[i].k);
        if (l && l->train && l->train != t && l->train->open) train_load(l->train);
    }
    t->busy = busy;
}

/* Member i leaves the train; its request goes on (next chunk, or done) with st. */
static void train_leave(struct wp_train *t, size_t i, enum wp_status st, const char *msg)
{
    struct wpath *wp = t->members[i].wp;
    struct wp_unit *u = member_unit(&t->members[i]);

    for (int k = 0; k < u->nkeys; k++) u->keys[k].bm = NULL; /* the slots own the bitmaps */
    t->members[i].wp = NULL;
    t->live--;
    wp->train = NULL;
    if (st == WP_OK)
        wp_next_chunk(wp);
    else
        wp_finish(wp, st, msg);
}

/* Ends the train: keys released first (waiters form the next train), then every
 * member still in it goes on with st. */
static void train_end(struct wp_train *t, enum wp_status st, const char *msg)
{
    t->open = false;
    if (!t->ending) train_release(t);
    t->busy = true;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp) train_leave(t, i, st, msg);
    train_free(t);
}

/* Members whose unit has ended (corrupt row, retries exhausted) go on now. */
static void train_leave_ended(struct wp_train *t)
{
    t->busy = true;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp && member_unit(&t->members[i])->done) train_leave(t, i, WP_OK, NULL);
    t->busy = false;
}

/* A member's request was freed by its owner (it cannot have been answered yet). */
static void train_forget(struct wp_train *t, struct wpath *wp)
{
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp == wp) {
            struct wp_unit *u = member_unit(&t->members[i]);
            for (int k = 0; k < u->nkeys; k++) u->keys[k].bm = NULL;
            t->members[i].wp = NULL;
            t->live--;
        }
    if (!t->live && !t->busy) {
        t->open = false;
        train_release(t);
        train_free(t);
    }
}

static void train_cas_done(enum store_status st, const char *err, const bool *conflict, void *arg)
{
    struct wp_train *t = arg;

    t->job = NULL;
    for (int i = 0; i < t->nslots; i++) {
        free(t->encoded[i]);
        t->encoded[i] = NULL;
    }
    if (st != STORE_OK) {
        train_end(t, st == STORE_UNAVAILABLE ? WP_UNAVAILABLE : WP_FAILED,
                  st == STORE_UNAVAILABLE ? "connection lost during the commit: the write may or may not have been applied"
                                          : err);
        return;
    }
    bool retry = conflict[0] && ++t->attempts <= t->cfg->pg_max_retries;
    for (size_t i = 0; i < t->nmembers; i++) {
        if (!t->members[i].wp) continue;
        struct wp_unit *u = member_unit(&t->members[i]);
        if (u->done) continue;
        if (!conflict[0]) {
            for (int k = 0; k < u->nkeys; k++)
                if (u->keys[k].dirty) {
                    u->keys[k].version++; /* the version this unit's own change made */
                    u->keys[k].found = true;
                }
            unit_end(t->members[i].wp, u, u->verdict);
            continue;
        }
        metrics.write_conflicts++;
        if (retry) {
            metrics.write_retries++;
        } else {
            metrics.write_retries_exhausted++;
            unit_end(t->members[i].wp, u, WP_CONFLICTED);
        }
    }
    if (!retry) { /* the next train goes first; these members are answered on the next turn */
        t->open = false;
        train_release(t);
        t->ending = true;
        if (!t->live) {
            train_free(t);
            return;
        }
        event_del(t->timer);
        event_active(t->timer, EV_TIMEOUT, 1);
        return;
    }
    train_leave_ended(t);
    if (!t->live) {
        train_end(t, WP_OK, NULL);
        return;
    }
    if (t->attempts > 1) { /* see wp_cas_done: another instance's writer; wait a moment */
        event_add(t->timer, &(struct timeval){0, retry_pause_us(t->attempts)});
        return;
    }
    train_load(t);
}

/* Takes the loaded row of slot s: the shared copy every unit will change. */
static void slot_load(struct wp_slot *s, const struct store_row *row)
{
    if (s->k.bm) roaring_bitmap_free(s->k.bm);
    s->k.bm = NULL;
    s->dirty = s->corrupt = false;
    s->cached = row->cached;
    s->k.found = s->found = row->found;
    s->k.version = s->version = row->found ? row->version : 0;
    s->k.nbytes = s->nbytes = row->found ? row->nbytes : -1;
    if (!row->found)
        s->k.bm = roaring_bitmap_create();
    else
        s->k.bm = wpath_decode_row(s->k.key, s->k.keylen, row, s->error, sizeof(s->error));
    if (!s->k.bm) {
        s->corrupt = true;
        if (!row->found) snprintf(s->error, sizeof(s->error), "out of memory");
    }
}

/* Applies member m's unit to the shared copies, after the units before it. */
static void train_apply(struct wp_train *t, struct wp_member *m)
{
    struct wpath *wp = m->wp;
    struct wp_unit *u = member_unit(m);

    for (int k = 0; k < u->nkeys; k++)
        if (t->slots[m->slot[k]].corrupt) {
            snprintf(u->error, sizeof(u->error), "%s", t->slots[m->slot[k]].error);
            unit_end(wp, u, WP_CORRUPT);
            return;
        }
    for (int k = 0; k < u->nkeys; k++) {
        struct wp_slot *s = &t->slots[m->slot[k]];
        struct wp_key *key = &u->keys[k];
        key->bm = s->k.bm;
        key->version = s->version;
        key->found = s->found;
        key->nbytes = s->nbytes;
        key->dirty = false;
    }
    enum wp_mutation r = wp->ops->mutate(wp, u, wp->arg);
    u->verdict = r == WP_REJECT ? WP_REJECTED : WP_OK;
    u->sent = true;
    for (int k = 0; k < u->nkeys; k++) {
        struct wp_slot *s = &t->slots[m->slot[k]];
        struct wp_key *key = &u->keys[k];
        s->k.bm = key->bm; /* mutate() may have replaced it */
        s->used = true;
        if (r == WP_CHANGED && key->dirty) {
            s->version++;
            s->found = true;
            s->nbytes = key->nbytes;
            s->dirty = true;
        } else {
            key->dirty = false;
        }
        key->bm = NULL;
    }
}

static void train_load_done(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct wp_train *t = arg;
    struct store_write w[TRAIN_MAX_SLOTS];
    size_t nw = 0, pos = 0;
    bool send = false;

    t->job = NULL;
    if (st != STORE_OK) {
        train_end(t, st == STORE_UNAVAILABLE ? WP_UNAVAILABLE : WP_FAILED,
                  st == STORE_UNAVAILABLE ? "nothing was written by this step" : err);
        return;
    }
    for (int i = 0; i < t->nslots; i++)
        if (t->slots[i].used) slot_load(&t->slots[i], &rows[pos++]);
    for (int i = 0; i < t->nslots; i++) t->slots[i].used = false;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp) train_apply(t, &t->members[i]);
    for (int i = 0; i < t->nslots; i++) send |= t->slots[i].used && (t->slots[i].dirty || t->slots[i].cached);
    if (!send) { /* nothing changed, decided on rows read from the database */
        bool none = false;
        train_cas_done(STORE_OK, NULL, &none, t);
        return;
    }
    for (int i = 0; i < t->nslots; i++) {
        struct wp_slot *s = &t->slots[i];
        if (!s->used) continue;
        struct store_write *x = &w[nw++];
        memset(x, 0, sizeof(*x));
        x->key = (const uint8_t *)s->k.key;
        x->keylen = s->k.keylen;
        x->version = s->k.version;
        x->absent = !s->k.found;
        x->nbytes = s->dirty ? s->nbytes : s->k.nbytes;
        if (!s->dirty) continue; /* a version check */
        size_t len;
        if (!codec_encode(s->k.bm, &t->encoded[i], &len)) {
            train_cas_done(STORE_ERROR, "could not encode a bitmap", NULL, t);
            return;
        }
        x->bits = t->encoded[i];
        x->len = len;
        x->cardinality = roaring_bitmap_get_cardinality(s->k.bm);
        x->checksum = codec_crc32c(x->bits, len);
        x->inc = s->version - s->k.version;
    }
    metrics_observe_size(&metrics.write_merged_units, (double)t->live);
    if (!(t->job = store_cas(t->st, w, nw, 1, train_cas_done, t))) train_cas_done(STORE_ERROR, "out of memory", NULL, t);
}

/* Runs (or runs again) the train: one load of the keys its members use. */
static void train_load(struct wp_train *t)
{
    struct store_key keys[TRAIN_MAX_SLOTS];
    size_t n = 0;

    t->open = false;
    event_del(t->timer); /* started before its timer (see train_release) */
    t->busy = true;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp && t->members[i].wp->abandoned) train_leave(t, i, WP_FAILED, "client went away");
    t->busy = false;
    if (!t->live) {
        train_end(t, WP_OK, NULL);
        return;
    }
    for (int i = 0; i < t->nslots; i++) t->slots[i].used = false;
    for (size_t i = 0; i < t->nmembers; i++) {
        if (!t->members[i].wp) continue;
        for (int k = 0; k < member_unit(&t->members[i])->nkeys; k++) t->slots[t->members[i].slot[k]].used = true;
    }
    for (int i = 0; i < t->nslots; i++)
        if (t->slots[i].used) keys[n++] = (struct store_key){(const uint8_t *)t->slots[i].k.key, t->slots[i].k.keylen};
    struct store_row rows[TRAIN_MAX_SLOTS];
    struct cache_blob *held[TRAIN_MAX_SLOTS];
    if (store_peek(t->st, keys, n, rows, held)) { /* all cached: no loop turn to wait for */
        train_load_done(STORE_OK, NULL, rows, t);
        store_peek_release(held, n);
        return;
    }
    if (!(t->job = store_load(t->st, keys, n, 0, train_load_done, t))) train_end(t, WP_FAILED, "out of memory");
}

static void wp_start_chunk(struct wpath *wp)
{
    if (train_eligible(wp))
        train_enter(wp);
    else if (wp_acquire(wp))
        wp_load(wp);
}

static void wp_next_chunk(struct wpath *wp)
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
        size_t *pending = realloc(wp->pending, cap * sizeof(*pending));
        if (pending) wp->pending = pending;
        struct wp_ref *refs = pending ? realloc(wp->refs, cap * sizeof(*refs)) : NULL;
        if (refs) wp->refs = refs;
        uint8_t **enc = refs ? realloc(wp->encoded, cap * sizeof(*enc)) : NULL;
        if (enc) wp->encoded = enc;
        if (!enc) {
            wp_finish(wp, WP_FAILED, "out of memory");
            return;
        }
        for (size_t i = wp->cap; i < cap; i++) enc[i] = NULL;
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
    struct wpath *wp = calloc(1, sizeof(*wp));

    if (!wp) return NULL;
    wp->st = st;
    wp->cfg = cfg;
    wp->nunits = nunits;
    wp->ops = ops;
    wp->arg = arg;
    wp->release = release_bitmaps;
    wp->units = calloc(nunits ? nunits : 1, sizeof(*wp->units));
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
    if (wp->train) train_forget(wp->train, wp);
    if (wp->retry_timer) event_free(wp->retry_timer);
    for (size_t i = 0; wp->units && i < wp->nunits; i++) {
        struct wp_unit *u = &wp->units[i];
        unit_release(u);
        for (int k = 0; k < u->nkeys; k++)
            if (u->keys[k].key != u->keys[k].buf) free((char *)u->keys[k].key);
        if (u->keys != u->key_buf) free(u->keys);
    }
    if (wp->encoded) wp_free_encoded(wp);
    free(wp->units);
    free(wp->pending);
    free(wp->refs);
    free(wp->encoded);
    free(wp);
}
