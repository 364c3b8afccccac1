/* wtrain.c — merged writes: the units of several requests that write the same keys,
 * applied in arrival order to one loaded copy and committed in one statement
 * (docs/design.md, "Merged writes"). Part of the write path: wpath.c hands it the
 * one-unit chunks whose ops allow merging (wpath_ops.merge). */
#include <event2/event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "store/codec.h"
#include "core/config.h"
#include "core/metrics.h"
#include "store/wpath_internal.h"

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
#define TRAIN_INLINE_MEMBERS 4 /* members held in the train itself before an array is allocated */

struct wp_slot {          /* one key of a train and its shared copy */
    struct wp_key k;      /* the name; version, nbytes, found and bm as loaded */
    int64_t version;      /* as the units applied so far left it */
    int64_t nbytes;
    int64_t expire_ms;
    bool found;
    bool dirty, cached, used, corrupt;
    struct cache_blob *patched; /* the new bytes while the statement is built, patched or
                                   encoded (the store shares the blob, not a copy) */
    size_t enc_len;       /* their length, once the statement is answered */
    bool kept;            /* k.bm is the copy kept by the commit of the loaded bits (kept.h) */
    const uint8_t *base;  /* the loaded bits (valid while the train is applied and encoded) */
    size_t base_len;
    int64_t base_card;
    enum { TOUCH_NONE, TOUCH_RANGE, TOUCH_ALL } touch; /* what the units changed of k.bm: */
    uint32_t tlo, thi;    /* with TOUCH_RANGE, only containers tlo .. thi (wp_key_narrow) */
    bool flips_known;     /* every change the units made is a bit they flipped (wp_key_flipped): */
    roaring_bitmap_t *flipped; /* those bits, flipped twice cancelling out (NULL: none yet) */
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
    struct wp_slot *slots[TRAIN_MAX_SLOTS]; /* allocated one by one: most trains have one key */
    int nslots;
    int attempts;
    bool guessed;         /* the rows being written include keys guessed absent */
    bool no_guess;        /* a guess was wrong: load every key from here on */
    size_t sent_units;    /* members of the statement in flight, observed when it commits */
    struct db_job *job;
    struct event *timer;  /* the start at the end of the loop turn; the pause before a retry */
    bool armed;           /* timer added or made active, and not run or deleted since */
    /* most trains are one request on one key: its member and slot, and the timer, in
     * the train's own allocation (train_new) */
    struct wp_member member0[TRAIN_INLINE_MEMBERS];
    struct wp_slot slot0;
    max_align_t ev[];     /* the timer's storage: event_get_struct_event_size() bytes */
};

static void train_load(struct wp_train *t);
static void train_release(struct wp_train *t);
static void train_end(struct wp_train *t, enum wp_status st, const char *msg);

static bool same_key(const struct wp_key *a, const struct wp_key *b)
{
    return a->keylen == b->keylen && memcmp(a->key, b->key, a->keylen) == 0;
}

static struct wp_unit *member_unit(const struct wp_member *m) { return &m->wp->units[m->wp->pending[0]]; }

bool wp_train_eligible(const struct wpath *wp)
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
    t->armed = false; /* it ran: no longer added or active */
    if (t->ending)
        train_end(t, WP_OK, NULL);
    else
        train_load(t);
}

static void train_free(struct wp_train *t)
{
    if (t->job) db_cancel(t->job);
    if (t->armed) event_del(t->timer); /* assigned in the train's block: not event_free */
    for (int i = 0; i < t->nslots; i++) {
        struct wp_slot *s = t->slots[i];
        if (s->k.bm) roaring_bitmap_free(s->k.bm);
        if (s->flipped) roaring_bitmap_free(s->flipped);
        if (s->k.key != s->k.buf) free((char *)s->k.key);
        cache_blob_unref(s->patched);
        if (s != &t->slot0) free(s);
    }
    if (t->members != t->member0) free(t->members);
    free(t);
}

static struct wp_train *train_new(struct wpath *wp)
{
    struct wp_train *t = calloc(1, sizeof(*t) + event_get_struct_event_size());
    static const struct timeval now = {0, 0};

    if (!t) return NULL;
    t->st = wp->st;
    t->cfg = wp->cfg;
    t->open = true;
    t->members = t->member0;
    t->cap = TRAIN_INLINE_MEMBERS;
    if (evtimer_assign((struct event *)(void *)t->ev, store_event_base(wp->st), train_timer_cb, t) != 0) {
        free(t);
        return NULL;
    }
    t->timer = (struct event *)(void *)t->ev;
    t->armed = true;
    if (event_add(t->timer, &now) != 0) {
        train_free(t);
        return NULL;
    }
    return t;
}

static int train_slot(struct wp_train *t, const struct wp_key *k)
{
    for (int i = 0; i < t->nslots; i++)
        if (same_key(&t->slots[i]->k, k)) return i;
    return -1;
}

/* Adds wp's unit to the open train t, taking the keys t does not hold yet. */
static bool train_add(struct wp_train *t, struct wpath *wp)
{
    struct wp_unit *u = &wp->units[wp->pending[0]];
    struct wp_member m = {wp, {0}};

    if (t->nmembers == t->cap) {
        size_t cap = 2 * t->cap;
        struct wp_member *nm = t->members == t->member0 ? malloc(cap * sizeof(*nm)) : realloc(t->members, cap * sizeof(*nm));
        if (!nm) return false;
        if (t->members == t->member0) memcpy(nm, t->member0, sizeof(t->member0));
        t->members = nm;
        t->cap = cap;
    }
    for (int k = 0; k < u->nkeys; k++) {
        int i = train_slot(t, &u->keys[k]);
        if (i < 0) {
            struct wp_slot *s = t->nslots ? calloc(1, sizeof(*s)) : &t->slot0; /* the first is the train's own */
            if (!s || !wp_key_set(&s->k, u->keys[k].key, u->keys[k].keylen)) {
                if (s != &t->slot0) free(s);
                return false;
            }
            t->slots[t->nslots] = s;
            wp_lock_take(&s->k, NULL, t);
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
void wp_train_enter(struct wpath *wp)
{
    struct wp_unit *u = &wp->units[wp->pending[0]];
    struct wp_train *t = NULL;
    struct keylock *held = NULL;
    int fresh = 0;

    for (int k = 0; k < u->nkeys; k++) {
        struct keylock *l = *wp_lock_find(&u->keys[k]);
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

    for (int i = 0; i < t->nslots; i++) wp_lock_drop(&t->slots[i]->k, NULL, t, &wake);
    wp_lock_wake(wake);
    t->busy = true; /* the next train's work may free a member of this one */
    for (int i = 0; i < t->nslots; i++) {
        struct keylock *l = *wp_lock_find(&t->slots[i]->k);
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
void wp_train_forget(struct wp_train *t, struct wpath *wp)
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
        t->slots[i]->enc_len = t->slots[i]->patched ? t->slots[i]->patched->len : 0;
        cache_blob_unref(t->slots[i]->patched);
        t->slots[i]->patched = NULL;
    }
    if (st != STORE_OK) {
        train_end(t, st == STORE_UNAVAILABLE ? WP_UNAVAILABLE : WP_FAILED,
                  st == STORE_UNAVAILABLE ? "connection lost during the commit: the write may or may not have been applied"
                                          : err);
        return;
    }
    if (!conflict[0] && t->sent_units) metrics_observe_size(&metrics.write_merged_units, (double)t->sent_units);
    t->sent_units = 0;
    /* A train that guessed keys absent and did not commit most likely met a row it
     * guessed away: it loads and applies again, once (no_guess), as neither a conflict
     * nor a retry. After any conflict the train loads every key: its keys were dropped
     * from the cache, and exist. */
    bool guess_wrong = conflict[0] && t->guessed;
    t->guessed = false;
    if (conflict[0]) t->no_guess = true;
    if (guess_wrong) metrics.write_guesses_wrong++;
    bool retry = guess_wrong || (conflict[0] && ++t->attempts <= t->cfg->pg_max_retries);
    if (!conflict[0]) /* before the next train starts: it may take these copies back */
        for (int i = 0; i < t->nslots; i++) {
            struct wp_slot *s = t->slots[i];
            /* the committed copy, or a kept one nothing changed (back it goes; its
             * version did not move: s->version counts changes) */
            if (!s->used || !s->k.bm || !(s->dirty || (s->kept && s->touch == TOUCH_NONE))) continue;
            if ((s->dirty ? s->enc_len : s->base_len) > (size_t)t->cfg->pg_chunk_bytes) /* else never kept */
                store_keep_decoded(t->st, (const uint8_t *)s->k.key, s->k.keylen, s->version, s->k.bm);
            else
                roaring_bitmap_free(s->k.bm);
            s->k.bm = NULL;
        }
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
            wp_unit_end(t->members[i].wp, u, u->verdict);
            continue;
        }
        if (guess_wrong) continue;
        metrics.write_conflicts++;
        if (retry) {
            metrics.write_retries++;
        } else {
            metrics.write_retries_exhausted++;
            wp_unit_end(t->members[i].wp, u, WP_CONFLICTED);
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
        if (t->armed) event_del(t->timer);
        event_active(t->timer, EV_TIMEOUT, 1);
        t->armed = true; /* active until it runs */
        return;
    }
    train_leave_ended(t);
    if (!t->live) {
        train_end(t, WP_OK, NULL);
        return;
    }
    if (t->attempts > 1) { /* see wp_cas_done: another instance's writer; wait a moment */
        event_add(t->timer, &(struct timeval){0, wp_retry_pause_us(t->attempts)});
        t->armed = true;
        return;
    }
    train_load(t);
}

/* Takes the loaded row of slot s: the shared copy every unit will change (decoded,
 * or the copy kept by the train that wrote these very bits). */
static void slot_load(struct wp_train *t, struct wp_slot *s, const struct store_row *row)
{
    if (s->k.bm) roaring_bitmap_free(s->k.bm);
    s->k.bm = NULL;
    s->dirty = false;
    s->cached = row->cached;
    roaring_bitmap_t *kept = row->found ? store_take_decoded(t->st, row) : NULL;
    s->kept = kept != NULL;
    s->base = row->found ? row->bits : NULL;
    s->base_len = row->len;
    s->base_card = row->cardinality;
    s->touch = TOUCH_NONE;
    /* an expired value's chunks are not the base of what is written; and the flips
     * matter only where the base is chunked (store_chunks_plan: the rows they differ
     * from): for a one-row value, tracking them cost a bitmap and its container per
     * write */
    s->flips_known = !row->expired && row->found && row->len > (size_t)t->cfg->pg_chunk_bytes;
    if (s->flipped) roaring_bitmap_clear(s->flipped);
    s->corrupt = !wp_key_load(&s->k, row, kept, s->error, sizeof(s->error));
    s->found = s->k.found;
    s->version = s->k.version;
    s->nbytes = s->k.nbytes;
    s->expire_ms = s->k.expire_ms;
}

/* Adds what a unit that changed key did to the bits the slot's units flipped. */
static void slot_flips(struct wp_slot *s, const struct wp_key *key, bool same_bm)
{
    if (!s->flips_known) return;
    if (!key->narrow || !same_bm || key->inexact || (!s->flipped && !(s->flipped = roaring_bitmap_create()))) {
        s->flips_known = false;
        return;
    }
    for (uint8_t i = 0; i < key->nflips; i++)
        if (roaring_bitmap_contains(s->flipped, key->flips[i]))
            roaring_bitmap_remove(s->flipped, key->flips[i]);
        else
            roaring_bitmap_add(s->flipped, key->flips[i]);
}

/* Applies member m's unit to the shared copies, after the units before it. */
static void train_apply(struct wp_train *t, struct wp_member *m)
{
    struct wpath *wp = m->wp;
    struct wp_unit *u = member_unit(m);

    for (int k = 0; k < u->nkeys; k++)
        if (t->slots[m->slot[k]]->corrupt) {
            snprintf(u->error, sizeof(u->error), "%s", t->slots[m->slot[k]]->error);
            wp_unit_end(wp, u, WP_CORRUPT);
            return;
        }
    for (int k = 0; k < u->nkeys; k++) {
        struct wp_slot *s = t->slots[m->slot[k]];
        struct wp_key *key = &u->keys[k];
        key->bm = s->k.bm;
        key->version = s->version;
        key->found = s->found;
        key->nbytes = s->nbytes;
        key->expire_ms = s->expire_ms;
        key->dirty = false;
        key->narrow = false;
        key->inexact = false;
        key->nflips = 0;
    }
    enum wp_mutation r = wp->ops->mutate(wp, u, wp->arg);
    u->verdict = r == WP_REJECT ? WP_REJECTED : WP_OK;
    u->sent = true;
    for (int k = 0; k < u->nkeys; k++) {
        struct wp_slot *s = t->slots[m->slot[k]];
        struct wp_key *key = &u->keys[k];
        bool same_bm = s->k.bm == key->bm;
        s->k.bm = key->bm; /* mutate() may have replaced it */
        s->used = true;
        if (r == WP_CHANGED && key->dirty) {
            slot_flips(s, key, same_bm);
            if (!key->narrow || !same_bm) {
                s->touch = TOUCH_ALL;
            } else if (s->touch == TOUCH_NONE) {
                s->touch = TOUCH_RANGE;
                s->tlo = key->tlo;
                s->thi = key->thi;
            } else if (s->touch == TOUCH_RANGE) {
                if (key->tlo < s->tlo) s->tlo = key->tlo;
                if (key->thi > s->thi) s->thi = key->thi;
            }
            s->version++;
            s->found = true;
            s->nbytes = key->nbytes;
            s->expire_ms = key->expire_ms;
            s->dirty = true;
        } else {
            key->dirty = false;
        }
        key->bm = NULL;
    }
}

static void changes_free(roaring_bitmap_t **changes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (changes[i]) roaring_bitmap_free(changes[i]);
}

static void train_load_done(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct wp_train *t = arg;
    struct store_write w[TRAIN_MAX_SLOTS];
    roaring_bitmap_t *changes[TRAIN_MAX_SLOTS] = {0};
    size_t nw = 0, pos = 0;
    bool send = false;

    t->job = NULL;
    if (st != STORE_OK) {
        train_end(t, st == STORE_UNAVAILABLE ? WP_UNAVAILABLE : WP_FAILED,
                  st == STORE_UNAVAILABLE ? "nothing was written by this step" : err);
        return;
    }
    for (int i = 0; i < t->nslots; i++)
        if (t->slots[i]->used) slot_load(t, t->slots[i], &rows[pos++]);
    for (int i = 0; i < t->nslots; i++) t->slots[i]->used = false;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp) train_apply(t, &t->members[i]);
    for (int i = 0; i < t->nslots; i++) send |= t->slots[i]->used && (t->slots[i]->dirty || t->slots[i]->cached);
    if (!send) { /* nothing changed, decided on rows read from the database */
        bool none = false;
        metrics.write_unchanged_fresh += t->live;
        t->sent_units = 0; /* no statement */
        train_cas_done(STORE_OK, NULL, &none, t);
        return;
    }
    for (int i = 0; i < t->nslots; i++) {
        struct wp_slot *s = t->slots[i];
        if (!s->used) continue;
        struct store_write *x = &w[nw++];
        memset(x, 0, sizeof(*x));
        x->key = (const uint8_t *)s->k.key;
        x->keylen = s->k.keylen;
        x->version = s->k.version;
        x->absent = !s->k.found;
        x->nbytes = s->dirty ? s->nbytes : s->k.nbytes;
        x->expire_ms = s->dirty ? s->expire_ms : s->k.expire_ms;
        if (!s->dirty) continue; /* a version check */
        size_t len = s->base_len;
        /* a kept copy changed in a few containers: its old bits, rewritten there, in the
         * blob the cache will hold */
        if (s->kept && s->touch == TOUCH_RANGE && s->base && (s->patched = cache_blob_alloc(s->base_len))) {
            x->narrow = codec_encode_patch_into(s->k.bm, s->base, s->base_len, (uint64_t)s->base_card, s->tlo,
                                                s->thi, s->patched->data);
            if (!x->narrow) {
                cache_blob_unref(s->patched);
                s->patched = NULL;
            }
        }
        /* else a kept copy whose units flipped known bits: only their containers need
         * run-optimizing and checking again; anything else is encoded whole. Into the
         * blob the cache will hold: a big value is not copied once more. */
        if (!x->narrow) {
            const roaring_bitmap_t *chg = s->kept && s->flips_known && s->flipped ? s->flipped : NULL;
            len = codec_encode_prepare(s->k.bm, chg);
            if (!len || !(s->patched = cache_blob_alloc(len)) ||
                !codec_encode_into(s->k.bm, chg, s->patched->data, len)) {
                changes_free(changes, nw);
                train_cas_done(STORE_ERROR, "could not encode a bitmap", NULL, t);
                return;
            }
        }
        x->tlo = s->tlo;
        x->thi = s->thi;
        /* a chunked value's head may record just what changed (store_chunks_plan): the
         * bits the units flipped, or what the patch changed */
        if (len > (size_t)t->cfg->pg_chunk_bytes && t->cfg->pg_flip_bytes > 0) {
            if (s->flips_known && s->flipped)
                x->changed = s->flipped;
            else if (x->narrow)
                x->changed = changes[nw - 1] =
                    codec_patch_changes(s->base, s->base_len, s->patched->data, len, s->tlo, s->thi);
        }
        x->bits = s->patched->data;
        x->blob = s->patched;
        x->len = len;
        x->bm = s->k.bm;
        x->cardinality = roaring_bitmap_get_cardinality(s->k.bm);
        /* a chunked value's head names its chunks (chunks_head_crc), and the cache
         * marks these bits checked: only a one-row value stores their checksum */
        x->checksum = len > (size_t)t->cfg->pg_chunk_bytes ? 0 : codec_crc32c(x->bits, len);
        x->inc = s->version - s->k.version;
    }
    t->sent_units = t->live;
    t->job = store_cas(t->st, w, nw, 1, train_cas_done, t); /* which plans the chunks at once */
    changes_free(changes, nw);
    if (!t->job) train_cas_done(STORE_ERROR, "out of memory", NULL, t);
}

/* Runs (or runs again) the train: one load of the keys its members use. */
static void train_load(struct wp_train *t)
{
    struct store_key keys[TRAIN_MAX_SLOTS];
    size_t n = 0;

    t->open = false;
    if (t->armed) event_del(t->timer); /* started before its timer (see train_release) */
    t->armed = false;
    t->busy = true;
    for (size_t i = 0; i < t->nmembers; i++)
        if (t->members[i].wp && t->members[i].wp->abandoned) train_leave(t, i, WP_FAILED, "client went away");
    t->busy = false;
    if (!t->live) {
        train_end(t, WP_OK, NULL);
        return;
    }
    for (int i = 0; i < t->nslots; i++) t->slots[i]->used = false;
    for (size_t i = 0; i < t->nmembers; i++) {
        if (!t->members[i].wp) continue;
        for (int k = 0; k < member_unit(&t->members[i])->nkeys; k++) t->slots[t->members[i].slot[k]]->used = true;
    }
    for (int i = 0; i < t->nslots; i++)
        if (t->slots[i]->used) keys[n++] = (struct store_key){(const uint8_t *)t->slots[i]->k.key, t->slots[i]->k.keylen};
    struct store_row rows[TRAIN_MAX_SLOTS];
    struct cache_blob *held[TRAIN_MAX_SLOTS];
    bool ok = t->no_guess ? store_peek(t->st, keys, n, rows, held)
                          : store_peek_or_guess(t->st, keys, n, rows, held, &t->guessed);
    if (ok) { /* all cached (or guessed absent): no loop turn to wait for */
        train_load_done(STORE_OK, NULL, rows, t);
        store_peek_release(held, n);
        return;
    }
    t->guessed = false;
    if (!(t->job = store_load(t->st, keys, n, 0, train_load_done, t))) train_end(t, WP_FAILED, "out of memory");
}
