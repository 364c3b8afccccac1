/* bmload.h — read-only loads of bitmaps by key for the HTTP domains: one statement
 * for up to a few thousand keys, every row validated and decoded (a missing row is
 * an empty bitmap with version 0 and found = false). Nothing is created. */
#ifndef BITMAPD_BMLOAD_H
#define BITMAPD_BMLOAD_H

#include <roaring/roaring.h>

#include "core/common.h"
#include "store/store.h"

struct bmload_key {
    roaring_bitmap_t *bm; /* owned by the bmload until bmload_free(); steal by setting NULL */
    int64_t version;
    int64_t nbytes;       /* -1: NULL */
    int64_t expire_ms;    /* deadline, ms since the Unix epoch; 0: none */
    bool found;           /* a row exists (it may still be empty) */
};

enum bmload_status {
    BMLOAD_OK,
    BMLOAD_CORRUPT,     /* a row failed validation; message names the key */
    BMLOAD_UNAVAILABLE, /* database unreachable */
    BMLOAD_FAILED,      /* query error or out of memory */
};

struct bmload;
/* keys[i] corresponds to the i-th name given to bmload_start(). Called exactly once. */
typedef void (*bmload_cb)(struct bmload *l, enum bmload_status st, const char *message,
                          struct bmload_key *keys, size_t n, void *arg);

/* Loads n keys (names copied); flags as store_load() (STORE_CONSISTENT). Returns false only when out of memory (cb not called).
 * The callback owns nothing: call bmload_free(l) when done with the bitmaps
 * (also inside the callback). */
bool bmload_start(struct store *st, const char *const *names, const size_t *lens, size_t n, unsigned flags,
                  bmload_cb cb, void *arg) WUR;
void bmload_free(struct bmload *l);

#endif
