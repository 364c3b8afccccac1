/* test_inbox_rules.c — the message box's rules on plain values (inbox_rules.c), other
 * than the paging of test_paging.c: the writes (push, read with and without force,
 * read all, retract, history drop) on a user's two records, the unread count (a forced read of a message never
 * pushed does not count), counts between two ids at the ends of the id range, the
 * counts per period (seed 000's monthly boundaries, an empty "earlier", boundaries at
 * 0 and at the top), and the skip of a page number that would overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>

#include "domains/inbox/inbox_rules.h"

static roaring_bitmap_t *of(const uint32_t *ids, size_t n)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    roaring_bitmap_add_many(bm, n, ids);
    return bm;
}

static void test_writes(void **state)
{
    roaring_bitmap_t *push = roaring_bitmap_create(), *read = roaring_bitmap_create();
    struct inbox_change ch;
    static const uint32_t a[] = {10, 20, 30}, r1[] = {20}, bad[] = {20, 21, 22};

    /* the seed's push of three messages, pushed again: only the first changes anything */
    assert_int_equal(inbox_apply(INBOX_PUSH, &push, &read, a, 3, false, 0, &ch), INBOX_DONE);
    assert_true(ch.push_changed);
    assert_false(ch.read_changed);
    assert_int_equal(ch.pushed, 3);
    assert_int_equal(inbox_apply(INBOX_PUSH, &push, &read, a, 3, false, 0, &ch), INBOX_DONE);
    assert_false(ch.push_changed || ch.read_changed);

    /* a read of pushed ids; the unread count follows */
    assert_int_equal(inbox_apply(INBOX_READ, &push, &read, r1, 1, false, 0, &ch), INBOX_DONE);
    assert_true(ch.read_changed);
    assert_int_equal(ch.unread, 2);

    /* a read naming ids never pushed is refused whole, listing them; forced, it goes in */
    assert_int_equal(inbox_apply(INBOX_READ, &push, &read, bad, 3, false, 0, &ch), INBOX_NOT_PUSHED);
    assert_int_equal(ch.not_pushed, 2);
    assert_int_equal(ch.first_not_pushed[0], 21);
    assert_int_equal(ch.first_not_pushed[1], 22);
    assert_int_equal(roaring_bitmap_get_cardinality(read), 1);
    assert_int_equal(inbox_apply(INBOX_READ, &push, &read, bad, 3, true, 0, &ch), INBOX_DONE);
    assert_int_equal(roaring_bitmap_get_cardinality(read), 3);
    assert_int_equal(ch.unread, 2); /* 21 and 22 were never pushed: they do not lower it */

    /* read all; retract one message from both records */
    assert_int_equal(inbox_apply(INBOX_READ_ALL, &push, &read, NULL, 0, false, 0, &ch), INBOX_DONE);
    assert_int_equal(ch.unread, 0);
    static const uint32_t one[] = {20};
    assert_int_equal(inbox_apply(INBOX_RETRACT, &push, &read, one, 1, false, 0, &ch), INBOX_DONE);
    assert_true(ch.push_changed && ch.read_changed);
    assert_false(roaring_bitmap_contains(push, 20) || roaring_bitmap_contains(read, 20));

    /* history drop below 25: 10 goes from both, 30 stays; pushed_before is the count before */
    assert_int_equal(inbox_apply(INBOX_DROP, &push, &read, NULL, 0, false, 25, &ch), INBOX_DONE);
    assert_int_equal(ch.pushed_before, 2);
    assert_int_equal(ch.pushed, 1);
    assert_true(roaring_bitmap_contains(push, 30));
    assert_false(roaring_bitmap_contains(read, 10));
    assert_int_equal(roaring_bitmap_get_cardinality(read), 1); /* 21 and 22 were below it too */
    assert_true(roaring_bitmap_contains(read, 30));
    assert_int_equal(inbox_apply(INBOX_DROP, &push, &read, NULL, 0, false, 25, &ch), INBOX_DONE);
    assert_false(ch.push_changed || ch.read_changed);
    roaring_bitmap_free(push);
    roaring_bitmap_free(read);
}

static void test_not_pushed_list_is_bounded(void **state)
{
    roaring_bitmap_t *push = roaring_bitmap_create(), *read = roaring_bitmap_create();
    uint32_t ids[100];
    struct inbox_change ch;
    for (uint32_t i = 0; i < 100; i++) ids[i] = 1000 + i;
    assert_int_equal(inbox_apply(INBOX_READ, &push, &read, ids, 100, false, 0, &ch), INBOX_NOT_PUSHED);
    assert_int_equal(ch.not_pushed, 100);
    assert_int_equal(ch.first_not_pushed[INBOX_NOT_PUSHED_LIST_MAX - 1], 1000 + INBOX_NOT_PUSHED_LIST_MAX - 1);
    assert_true(roaring_bitmap_is_empty(read));
    roaring_bitmap_free(push);
    roaring_bitmap_free(read);
}

static void test_unread_count(void **state)
{
    static const uint32_t pushed[] = {1, 2, 3, 4, 5}, read[] = {2, 4, 9}; /* 9: forced, never pushed */
    roaring_bitmap_t *p = of(pushed, 5), *r = of(read, 3), *none = roaring_bitmap_create();
    assert_int_equal(inbox_unread_count(p, r), 3);
    assert_int_equal(inbox_unread_count(p, none), 5);
    assert_int_equal(inbox_unread_count(none, r), 0);
    assert_int_equal(inbox_unread_count(p, p), 0);
    roaring_bitmap_free(p);
    roaring_bitmap_free(r);
    roaring_bitmap_free(none);
}

static void test_count_between(void **state)
{
    static const uint32_t ids[] = {0, 1, 100, 101, UINT32_MAX - 1, UINT32_MAX};
    roaring_bitmap_t *bm = of(ids, 6);
    const uint64_t top = (uint64_t)UINT32_MAX + 1;
    assert_int_equal(inbox_count_between(bm, 0, top), 6);
    assert_int_equal(inbox_count_between(bm, 0, 0), 0);
    assert_int_equal(inbox_count_between(bm, 0, 1), 1);     /* [0, 1): just 0 */
    assert_int_equal(inbox_count_between(bm, 1, 101), 2);   /* 1 and 100 */
    assert_int_equal(inbox_count_between(bm, 101, 101), 0); /* empty range */
    assert_int_equal(inbox_count_between(bm, 200, 100), 0); /* reversed: nothing, not a wrap */
    assert_int_equal(inbox_count_between(bm, UINT32_MAX, top), 1);
    assert_int_equal(inbox_count_between(bm, top, top), 0);
    roaring_bitmap_free(bm);
}

static void test_period_counts(void **state)
{
    /* three months starting at messages 1000, 2000 and 3000; user got 5 in the
     * first, 2 in the third, and read 3 of the first */
    static const uint32_t pushed[] = {1000, 1001, 1500, 1998, 1999, 3000, 4000000000u};
    static const uint32_t read[] = {1000, 1500, 1999};
    static const uint64_t firsts[] = {1000, 2000, 3000};
    struct inbox_period_count out[4];
    roaring_bitmap_t *p = of(pushed, 7), *r = of(read, 3);
    inbox_period_counts(p, r, firsts, 3, out);
    assert_int_equal(out[0].first, 0); /* earlier: empty */
    assert_int_equal(out[0].pushed, 0);
    assert_int_equal(out[0].read, 0);
    assert_int_equal(out[1].first, 1000);
    assert_int_equal(out[1].pushed, 5);
    assert_int_equal(out[1].read, 3);
    assert_int_equal(out[2].first, 2000);
    assert_int_equal(out[2].pushed, 0);
    assert_int_equal(out[3].first, 3000);
    assert_int_equal(out[3].pushed, 2); /* the last period runs to the top of the range */
    assert_int_equal(out[3].read, 0);

    /* messages before the first boundary land in "earlier"; no boundary at all:
     * everything is earlier */
    static const uint32_t old[] = {5, 6};
    roaring_bitmap_t *o = of(old, 2);
    roaring_bitmap_or_inplace(p, o);
    inbox_period_counts(p, r, firsts, 3, out);
    assert_int_equal(out[0].pushed, 2);
    inbox_period_counts(p, r, NULL, 0, out);
    assert_int_equal(out[0].first, 0);
    assert_int_equal(out[0].pushed, 9);
    assert_int_equal(out[0].read, 3);

    /* a boundary at 0 leaves "earlier" empty whatever was pushed */
    static const uint64_t zero[] = {0};
    inbox_period_counts(p, r, zero, 1, out);
    assert_int_equal(out[0].pushed, 0);
    assert_int_equal(out[1].pushed, 9);
    roaring_bitmap_free(p);
    roaring_bitmap_free(r);
    roaring_bitmap_free(o);
}

static void test_page_skip(void **state)
{
    assert_int_equal(inbox_page_skip(1, 20), 0);
    assert_int_equal(inbox_page_skip(2, 20), 20);
    assert_int_equal(inbox_page_skip(50001, 20), 1000000);
    assert_int_equal(inbox_page_skip(INT64_MAX, 1000), UINT64_MAX); /* would overflow: past every page */
    assert_int_equal(inbox_page_skip(INT64_MAX, 1), (uint64_t)INT64_MAX - 1);
    /* the skip feeds inbox_page: a page past the end is empty, with no "more" */
    static const uint32_t ids[] = {1, 2, 3};
    roaring_bitmap_t *bm = of(ids, 3);
    uint32_t out[4];
    bool more = true;
    assert_int_equal(inbox_page(bm, false, inbox_page_skip(INT64_MAX, 1000), 0, 4, out, &more), 0);
    assert_false(more);
    assert_int_equal(inbox_page(bm, false, inbox_page_skip(2, 2), 0, 2, out, &more), 1);
    assert_int_equal(out[0], 1);
    assert_false(more);
    roaring_bitmap_free(bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes),
        cmocka_unit_test(test_not_pushed_list_is_bounded),
        cmocka_unit_test(test_unread_count),
        cmocka_unit_test(test_count_between),
        cmocka_unit_test(test_period_counts),
        cmocka_unit_test(test_page_skip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
