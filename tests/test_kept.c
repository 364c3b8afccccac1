/* test_kept.c — decoded copies of big values kept for the next writer (kept.h): a copy
 * is taken back only for the very blob it was kept with, once; the blob's reference
 * is held while kept and released after; a copy whose blob only it still holds is
 * dropped at the next put; the oldest goes when all slots are taken; and the cache's
 * cache_blob_at answers only the exact version, without counting a hit or a miss. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "store/kept.h"

static roaring_bitmap_t *bitmap_of(uint32_t member)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    roaring_bitmap_add(bm, member);
    return bm;
}

static void taken_only_for_its_blob(void **state)
{
    (void)state;
    struct kept *k = kept_new();
    assert_non_null(k);
    struct cache_blob *a = cache_blob_new("same bytes", 10), *b = cache_blob_new("same bytes", 10);
    assert_non_null(a);
    assert_non_null(b);
    kept_put(k, a, bitmap_of(7));
    assert_int_equal(a->refs, 2);
    assert_int_equal(kept_count(k), 1);
    /* equal bytes elsewhere are not the kept blob */
    assert_null(kept_take(k, b->data));
    roaring_bitmap_t *bm = kept_take(k, a->data);
    assert_non_null(bm);
    assert_true(roaring_bitmap_contains(bm, 7));
    assert_int_equal(roaring_bitmap_get_cardinality(bm), 1);
    roaring_bitmap_free(bm);
    assert_int_equal(a->refs, 1);
    assert_int_equal(kept_count(k), 0);
    assert_null(kept_take(k, a->data)); /* once */
    cache_blob_unref(a);
    cache_blob_unref(b);
    kept_free(k);
}

static void left_cache_dropped_oldest_replaced(void **state)
{
    (void)state;
    struct kept *k = kept_new();
    struct cache_blob *blob[KEPT_MAX + 1];
    for (int i = 0; i <= KEPT_MAX; i++) assert_non_null(blob[i] = cache_blob_new("x", 1));
    for (int i = 0; i < KEPT_MAX; i++) kept_put(k, blob[i], bitmap_of((uint32_t)i));
    assert_int_equal(kept_count(k), KEPT_MAX);
    /* all held elsewhere too (as the cache would): the oldest makes room */
    kept_put(k, blob[KEPT_MAX], bitmap_of(KEPT_MAX));
    assert_int_equal(kept_count(k), KEPT_MAX);
    assert_int_equal(blob[0]->refs, 1);
    assert_null(kept_take(k, blob[0]->data));
    /* blob 1 leaves "the cache": only the copy holds it, so the next put drops it */
    cache_blob_unref(blob[1]);
    roaring_bitmap_t *bm = kept_take(k, blob[2]->data);
    assert_non_null(bm);
    assert_true(roaring_bitmap_contains(bm, 2));
    kept_put(k, blob[2], bm);
    assert_int_equal(kept_count(k), KEPT_MAX - 1);
    for (int i = 0; i <= KEPT_MAX; i++)
        if (i != 1) cache_blob_unref(blob[i]);
    kept_free(k); /* frees what it still holds (the sanitizers and valgrind check) */
}

static void blob_at_exact_version(void **state)
{
    (void)state;
    struct cache *c = cache_new(1 << 20);
    assert_non_null(c);
    cache_set_enabled(c, true);
    struct cache_blob *b = cache_blob_new("bits", 4);
    struct cache_val v = {.found = true, .version = 5, .cardinality = 1, .checksum = 1, .xid = 9, .nbytes = -1, .blob = b};
    cache_put(c, "k", 1, &v, cache_mark(c));
    struct cache_stats before, after;
    cache_get_stats(c, &before);
    assert_null(cache_blob_at(c, "k", 1, 4));
    assert_null(cache_blob_at(c, "other", 5, 5));
    struct cache_blob *got = cache_blob_at(c, "k", 1, 5);
    assert_ptr_equal(got, b);
    assert_int_equal(b->refs, 3); /* ours, the cache's, the answer's */
    cache_blob_unref(got);
    cache_get_stats(c, &after);
    assert_int_equal(after.hits, before.hits);
    assert_int_equal(after.misses, before.misses);
    cache_set_enabled(c, false); /* empties it */
    assert_null(cache_blob_at(c, "k", 1, 5));
    cache_blob_unref(b);
    cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taken_only_for_its_blob),
        cmocka_unit_test(left_cache_dropped_oldest_replaced),
        cmocka_unit_test(blob_at_exact_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
