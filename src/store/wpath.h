/* wpath.h — the write path of the design card, for one request:
 *   load (from the cache where it can) → validate + decode → mutate → encode → compare-and-swap
 *   → on conflict reload and retry that unit only (bounded) → done after commit.
 *
 * A request is a list of units; a unit is 1..WP_MAX_KEYS keys that commit together
 * (a user's push and read bitmaps). Units are processed in chunks of
 * [postgres] batch_keys keys, each chunk one load and one compare-and-swap statement.
 * With wpath_ops.merge, a one-unit chunk is merged with other requests' writes of
 * the same keys (wtrain.c). */
#ifndef BITMAPD_WPATH_H
#define BITMAPD_WPATH_H

#include <roaring/roaring.h>

#include "core/common.h"
#include "store/store.h"

#define WP_MAX_KEYS 1026  /* keys of one unit (BITOP: a destination and its sources) */
#define WP_INLINE_KEYS 2  /* a unit's keys live inside it up to this many */
#define WP_KEY_INLINE 48  /* key bytes kept inside wp_key; longer keys are allocated */
#define WP_KEY_MAX 2048   /* longest key (a PostgreSQL btree entry must stay under ~2.7 kB) */
#define WP_KEY_FLIPS 4    /* bits one mutate() may report flipped in one key */

struct wp_key {
    const char *key; /* set with wp_key_set(): points into buf or to an allocation */
    size_t keylen;
    int64_t version;      /* loaded version; after commit, the committed one */
    int64_t nbytes;       /* loaded Redis string length (-1: none stored); written back as is */
    int64_t expire_ms;    /* loaded deadline (ms since the Unix epoch; 0: none); written back
                             as is, so a write keeps a key's expiry unless mutate() changes it */
    roaring_bitmap_t *bm; /* current content; mutate() changes it in place */
    bool dirty;           /* set by mutate() for keys it changed */
    bool found;           /* a row exists (else the write inserts it; version 0 until then) */
    bool narrow;          /* set by mutate() (wp_key_narrow) when it changed bm only in
                             containers tlo .. thi; a dirty key without it changed anywhere */
    uint32_t tlo, thi;
    bool inexact;         /* some change was told by its range only (wp_key_narrow) */
    uint8_t nflips;       /* otherwise: the bits mutate() flipped (wp_key_flipped), exactly */
    uint32_t flips[WP_KEY_FLIPS];
    char buf[WP_KEY_INLINE];
};

static inline void wp_key_range(struct wp_key *k, uint64_t lo, uint64_t hi)
{
    uint32_t klo = (uint32_t)((lo > UINT32_MAX ? UINT32_MAX : lo) >> 16);
    uint32_t khi = (uint32_t)((hi > UINT32_MAX ? UINT32_MAX : hi) >> 16);
    if (k->narrow) {
        if (klo < k->tlo) k->tlo = klo;
        if (khi > k->thi) k->thi = khi;
        return;
    }
    k->narrow = true;
    k->tlo = klo;
    k->thi = khi;
}

/* For mutate(): what it just changed of k's bm lies in bits lo .. hi (members; a big
 * value's write then re-encodes only their containers: docs/design.md, "Chunked
 * rows"). Call it after marking k dirty, for every change it makes (the ranges add up),
 * only when bm is the same bitmap and nothing outside those bits changed. */
static inline void wp_key_narrow(struct wp_key *k, uint64_t lo, uint64_t hi)
{
    wp_key_range(k, lo, hi);
    k->inexact = true;
}

/* As wp_key_narrow(k, bit, bit) for a change that is exactly this bit flipped (a big
 * value's write may then record just the bits flipped: docs/design.md, "Flips"). */
static inline void wp_key_flipped(struct wp_key *k, uint32_t bit)
{
    wp_key_range(k, bit, bit);
    if (k->nflips < WP_KEY_FLIPS)
        k->flips[k->nflips++] = bit;
    else
        k->inexact = true;
}

enum wp_status {
    WP_OK,          /* every unit committed (or needed no change) */
    WP_REJECTED,    /* mutate() refused; the domain set its own error */
    WP_CORRUPT,     /* a stored row failed validation; message names the key */
    WP_UNAVAILABLE, /* database unreachable or connection lost: outcome of the last batch unknown */
    WP_CONFLICTED,  /* a unit kept conflicting beyond [postgres] max_retries */
    WP_FAILED,      /* anything else (SQL error, out of memory); message says what */
};

struct wp_unit {
    struct wp_key *keys; /* key_buf, or an allocation made by wpath_unit_keys() */
    int nkeys;
    int attempts;
    bool done;
    bool sent;             /* part of the statement in flight */
    bool unverified;       /* decided on cached rows: an "unchanged" or "rejected" still needs a version check */
    bool guessed;          /* a key of it was guessed absent, not loaded (STORE_GUESS_ABSENT) */
    enum wp_status verdict; /* what a sent unit ends as once its statement commits: WP_OK or WP_REJECTED */
    enum wp_status status; /* of this unit once done: WP_OK, WP_REJECTED, WP_CORRUPT, WP_CONFLICTED */
    char error[160];       /* for WP_CORRUPT: the reason, naming the key */
    uint64_t aux;          /* the domain's own per-unit figure, set by mutate() */
    struct wp_key key_buf[WP_INLINE_KEYS];
};

enum wp_mutation { WP_CHANGED, WP_UNCHANGED, WP_REJECT };

struct wpath;

struct wpath_ops {
    /* Called after every (re)load of a unit with keys[].bm decoded. Returns
     * WP_CHANGED after marking changed keys dirty, WP_UNCHANGED, or WP_REJECT. */
    enum wp_mutation (*mutate)(struct wpath *wp, struct wp_unit *u, void *arg);
    /* Called exactly once at the end. st is WP_OK when every unit reached an end of
     * its own (see wp_unit.status); otherwise the request as a whole failed. The units (and their bitmaps, unless
     * release_bitmaps was set) are valid until wpath_free(). */
    void (*done)(struct wpath *wp, enum wp_status st, const char *message, void *arg);
    /* Writes of these ops may be merged with other requests' writes of the same keys
     * (see "Merged writes" in docs/design.md): a one-unit chunk of at most
     * WP_MERGE_KEYS distinct keys joins the other units waiting on those keys, and
     * they are applied one after the other, in arrival order, to one loaded copy
     * and committed in one statement. mutate() then sees keys[].bm, version, found
     * and nbytes as the units before it left them, and must keep this contract:
     *  - everything the reply needs is computed in mutate() (done() reads no
     *    bitmap: keys[].bm is NULL once the unit ends);
     *  - WP_REJECT and WP_UNCHANGED leave the bitmaps, nbytes and expire_ms as they were;
     *  - a bitmap may be replaced (free the old, store the new pointer in keys[].bm).
     * A unit's keys[].version after commit is the version its own change made. */
    bool merge;
};

#define WP_MERGE_KEYS 4 /* keys of a unit that may be merged with other requests' */

/* nunits units, zeroed; the caller fills keys[].key/keylen and nkeys, then calls
 * wpath_run(). With release_bitmaps, bitmaps are freed as soon as a unit commits
 * (fan-out to many users keeps memory flat). */
struct wpath *wpath_new(struct store *st, const struct config *cfg, size_t nunits,
                        const struct wpath_ops *ops, void *arg, bool release_bitmaps) WUR;
struct wp_unit *wpath_units(struct wpath *wp);
/* Gives a unit n keys (1 .. WP_MAX_KEYS); false on out of memory. Units start with
 * room for WP_INLINE_KEYS keys, so setting nkeys directly is fine up to that. */
bool wpath_unit_keys(struct wp_unit *u, int n) WUR;
/* Copies a key name (1 .. WP_KEY_MAX bytes) into k; false if too long or out of memory. */
bool wp_key_set(struct wp_key *k, const void *key, size_t len) WUR;
size_t wpath_nunits(const struct wpath *wp);
void wpath_run(struct wpath *wp);
/* The client went away: finish what was sent, start nothing new, still call done(). */
void wpath_abandon(struct wpath *wp);
void wpath_free(struct wpath *wp);

/* Decodes a loaded row: checksum, cardinality and full validation. On failure
 * writes a reason naming the key into err and returns NULL. Caller frees. */
roaring_bitmap_t *wpath_decode_row(const char *key, size_t keylen, const struct store_row *row,
                                   char *err, size_t errlen) WUR;

#endif
