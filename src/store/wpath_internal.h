/* wpath_internal.h — what wpath.c (one request's chunks) and wtrain.c (merged
 * writes of several requests) share: private to the write path; nothing else
 * includes it. */
#ifndef BITMAPD_WPATH_INTERNAL_H
#define BITMAPD_WPATH_INTERNAL_H

#include "store/wpath.h"

struct wp_ref;
struct wp_train;

struct wpath {
    struct store *st;
    const struct config *cfg;
    struct wp_unit *units;
    size_t nunits;
    const struct wpath_ops *ops;
    void *arg;
    bool release;
    bool one;             /* a request of one unit: its arrays start inline (wpath.c) */
    size_t next;          /* first unit not yet taken into a chunk */
    size_t *pending;      /* units of the current chunk still to commit */
    size_t cap;           /* entries of pending, refs and encoded (grown per chunk) */
    size_t npending;
    struct wp_ref *refs;  /* statement position → (unit, key) */
    size_t nrefs;
    uint8_t **encoded;    /* new bytes per statement position, owned */
    struct db_job *job;
    bool abandoned;
    bool no_guess; /* a guess was wrong: every key is loaded from here on */
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

struct keylock {
    struct keylock *next;
    struct wpath *owner;     /* a request's chunk holds the key, or */
    struct wp_train *train;  /* a merged write does */
    struct wpath *waiters;
    size_t len;
    char key[]; /* len bytes */
};

/* The lock entry of key k (the slot to fill when there is none). */
struct keylock **wp_lock_find(const struct wp_key *k);
/* Frees key k if owner (a request) or train holds it, and moves its waiters to the
 * front of *wake in the order they came (the oldest first). */
void wp_lock_drop(const struct wp_key *k, const struct wpath *owner, const struct wp_train *train,
                  struct wpath **wake);
/* Lets every request of the list try its chunk again, in list order. */
void wp_lock_wake(struct wpath *wake);
/* A new lock on k for owner or train (nothing when out of memory: the CAS still
 * guarantees correctness, only the in-process turn-taking is lost). */
void wp_lock_take(const struct wp_key *k, struct wpath *owner, struct wp_train *train);

/* The request ends: locks released, done() called with st. */
void wp_finish(struct wpath *wp, enum wp_status st, const char *msg);
/* The request's next chunk, or done() with WP_OK when there is none. */
void wp_next_chunk(struct wpath *wp);
/* Unit u of wp ends as st. */
void wp_unit_end(struct wpath *wp, struct wp_unit *u, enum wp_status st);
/* Takes a loaded row into key: found, version and length (0 and -1 for a missing
 * row), and a bitmap it owns (empty for a missing row): decoded, the row's bits
 * already decoded (taken; a kept copy, kept.h), or else decoded here. False when the
 * row is corrupt or memory ran out; err then says why, naming the key. */
bool wp_key_load(struct wp_key *key, const struct store_row *row, roaring_bitmap_t *decoded, char *err,
                 size_t errlen);
/* The pause before retry number `attempts` (> 1) after a conflict: jittered, growing. */
int wp_retry_pause_us(int attempts);

/* wtrain.c: may wp's current chunk join a train; join one (or wait); forget a
 * request freed by its owner while in a train. */
bool wp_train_eligible(const struct wpath *wp);
void wp_train_enter(struct wpath *wp);
void wp_train_forget(struct wp_train *t, struct wpath *wp);

#endif
