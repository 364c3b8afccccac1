/* test_paging.c — newest-first paging by rank against a naive reference, for
 * page and cursor modes, at every depth, over array, bitset and run containers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "domains/inbox/inbox_rules.h"

/* Reference: members in descending order. */
static size_t desc(const roaring_bitmap_t *bm, uint32_t **out)
{
    size_t n = (size_t)roaring_bitmap_get_cardinality(bm);
    *out = malloc((n ? n : 1) * sizeof(uint32_t));
    roaring_bitmap_to_uint32_array(bm, *out);
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t t = (*out)[i];
        (*out)[i] = (*out)[n - 1 - i];
        (*out)[n - 1 - i] = t;
    }
    return n;
}

static void check_pages(const roaring_bitmap_t *bm, size_t limit)
{
    uint32_t *all, buf[512];
    size_t n = desc(bm, &all);
    bool more;

    /* page mode: page p starts at rank p*limit from the top */
    for (size_t skip = 0; skip <= n + limit; skip += limit) {
        size_t got = inbox_page(bm, false, skip, 0, limit, buf, &more);
        size_t want = skip >= n ? 0 : (n - skip < limit ? n - skip : limit);
        assert_int_equal(got, want);
        if (want) assert_memory_equal(buf, all + skip, want * sizeof(uint32_t));
        assert_int_equal(more, skip + want < n);
    }
    /* cursor mode: walk with next_before until exhausted, from above the top */
    uint64_t before = (uint64_t)UINT32_MAX + 1;
    size_t seen = 0;
    for (;;) {
        size_t got = inbox_page(bm, true, 0, before, limit, buf, &more);
        if (got) assert_memory_equal(buf, all + seen, got * sizeof(uint32_t));
        seen += got;
        if (!more) break;
        before = buf[got - 1];
    }
    assert_int_equal(seen, n);
    free(all);
}

static void test_seed_000(void **state)
{
    uint32_t ids[] = {2, 3, 4, 6, 8, 10, 11}, buf[3];
    bool more;
    roaring_bitmap_t *bm = roaring_bitmap_of_ptr(7, ids);

    assert_int_equal(inbox_page(bm, false, 0, 0, 3, buf, &more), 3);
    assert_int_equal(buf[0], 11);
    assert_int_equal(buf[1], 10);
    assert_int_equal(buf[2], 8);
    assert_true(more);
    assert_int_equal(inbox_page(bm, false, 3, 0, 3, buf, &more), 3);
    assert_int_equal(buf[0], 6);
    assert_int_equal(buf[2], 3);
    assert_int_equal(inbox_page(bm, false, 6, 0, 3, buf, &more), 1);
    assert_int_equal(buf[0], 2);
    assert_false(more);
    assert_int_equal(inbox_page(bm, true, 0, 8, 3, buf, &more), 3);
    assert_int_equal(buf[0], 6);
    assert_int_equal(inbox_page(bm, true, 0, 3, 3, buf, &more), 1);
    assert_int_equal(buf[0], 2);
    assert_false(more);
    assert_int_equal(inbox_page(bm, true, 0, 0, 3, buf, &more), 0);
    assert_int_equal(inbox_page(bm, true, 0, 2, 3, buf, &more), 0);
    roaring_bitmap_free(bm);
}

static void test_against_reference(void **state)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    srand(42);
    for (int i = 0; i < 3000; i++) roaring_bitmap_add(bm, (uint32_t)rand() % 10000000u); /* arrays */
    for (uint32_t v = 200000; v < 210000; v++) roaring_bitmap_add(bm, v);                  /* run */
    for (uint32_t v = 300000; v < 365536; v += 2) roaring_bitmap_add(bm, v);               /* bitset */
    roaring_bitmap_add(bm, 0);
    roaring_bitmap_add(bm, UINT32_MAX);
    roaring_bitmap_run_optimize(bm);
    check_pages(bm, 500);
    check_pages(bm, 37);
    roaring_bitmap_t *empty = roaring_bitmap_create();
    check_pages(empty, 10);
    roaring_bitmap_free(empty);
    roaring_bitmap_free(bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_000),
        cmocka_unit_test(test_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
