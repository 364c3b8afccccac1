/* kept.h — decoded copies of big values this instance has just committed.
 *
 * A train on a hot big key decodes the cached value, applies its units and encodes
 * the result; for a 250 KB value the decode alone was about a quarter of bitmapd's
 * work per train. After its commit the train keeps its decoded bitmap here, together
 * with a reference to the very bytes the cache holds for the version it wrote. The
 * next writer whose cached row is those same bytes (the same blob: the reference
 * keeps its address from being reused) takes the copy back instead of decoding. A
 * copy whose bytes the cache replaced or dropped is never matched again: it leaves
 * at the next kept_put, which also drops the oldest copy when all KEPT_MAX are
 * taken. */
#ifndef BITMAPD_KEPT_H
#define BITMAPD_KEPT_H
#include <roaring/roaring.h>
#include "core/common.h"

#define KEPT_MAX 4

struct cache_blob;
struct kept;

struct kept *kept_new(void) WUR;
void kept_free(struct kept *k);
/* Keeps bm (taken) as the decoded value of blob (a reference is taken). */
void kept_put(struct kept *k, struct cache_blob *blob, roaring_bitmap_t *bm);
/* The copy kept for exactly the blob whose data is bits, or NULL; the caller owns it. */
roaring_bitmap_t *kept_take(struct kept *k, const uint8_t *bits);
/* Copies kept now (for the tests). */
size_t kept_count(const struct kept *k);
#endif
