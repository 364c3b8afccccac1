/* wpath.h — the write path of the design card, for one request:
 *   load (creating empty rows) → validate + decode → mutate → encode → compare-and-swap
 *   → on conflict reload and retry that unit only (bounded) → done after commit.
 *
 * A request is a list of units; a unit is 1..WP_MAX_KEYS keys that commit together
 * (a user's push and read bitmaps). Units are processed in chunks of
 * [postgres] batch_keys keys, each chunk one load and one compare-and-swap statement. */
#ifndef BITMAPD_WPATH_H
#define BITMAPD_WPATH_H

#include <roaring/roaring.h>

#include "common.h"
#include "store.h"

#define WP_MAX_KEYS 2
#define WP_KEY_MAX 64

struct wp_key {
    char key[WP_KEY_MAX];
    size_t keylen;
    int64_t version;      /* loaded version; after commit, the committed one */
    roaring_bitmap_t *bm; /* current content; mutate() changes it in place */
    bool dirty;           /* set by mutate() for keys it changed */
};

enum wp_status {
    WP_OK,          /* every unit committed (or needed no change) */
    WP_REJECTED,    /* mutate() refused; the domain set its own error */
    WP_CORRUPT,     /* a stored row failed validation; message names the key */
    WP_UNAVAILABLE, /* database unreachable or connection lost: outcome of the last batch unknown */
    WP_CONFLICTED,  /* a unit kept conflicting beyond [postgres] max_retries */
    WP_FAILED,      /* anything else (SQL error, out of memory); message says what */
};

struct wp_unit {
    struct wp_key keys[WP_MAX_KEYS];
    int nkeys;
    int attempts;
    bool done;
    bool sent;             /* part of the statement in flight */
    enum wp_status status; /* of this unit once done: WP_OK, WP_REJECTED, WP_CORRUPT, WP_CONFLICTED */
    char error[160];       /* for WP_CORRUPT: the reason, naming the key */
    uint64_t aux;          /* the domain's own per-unit figure, set by mutate() */
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
};

/* nunits units, zeroed; the caller fills keys[].key/keylen and nkeys, then calls
 * wpath_run(). With release_bitmaps, bitmaps are freed as soon as a unit commits
 * (fan-out to many users keeps memory flat). */
struct wpath *wpath_new(struct store *st, const struct config *cfg, size_t nunits,
                        const struct wpath_ops *ops, void *arg, bool release_bitmaps) WUR;
struct wp_unit *wpath_units(struct wpath *wp);
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
