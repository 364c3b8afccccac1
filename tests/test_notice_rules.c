/* test_notice_rules.c — the rules of announcements on plain values (notice_rules.c):
 * a notice's state from its audiences, the listing of seed 004 (which notices per
 * state, the read and unread counts, newest first, by cursor), a listing compared
 * with a naive one over random sets, and an audience's size and unread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>

#include "domains/notices/notice_rules.h"

static roaring_bitmap_t *of(const uint32_t *ids, size_t n)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    roaring_bitmap_add_many(bm, n, ids);
    return bm;
}

static void test_state(void **state)
{
    static const uint32_t auds[] = {1, 7}, deleting[] = {NOTICE_DELETING_MARK};
    roaring_bitmap_t *none = roaring_bitmap_create(), *live = of(auds, 2), *del = of(deleting, 1);
    assert_int_equal(notice_state_of(none), NOTICE_MISSING);
    assert_int_equal(notice_state_of(live), NOTICE_LIVE);
    assert_int_equal(notice_state_of(del), NOTICE_DELETING);
    roaring_bitmap_add(live, NOTICE_DELETING_MARK); /* the mark wins over audiences */
    assert_int_equal(notice_state_of(live), NOTICE_DELETING);
    roaring_bitmap_free(none);
    roaring_bitmap_free(live);
    roaring_bitmap_free(del);
}

static void test_state_names(void **state)
{
    enum notice_list_state s = NOTICE_LIST_ALL;
    assert_true(notice_list_state_parse("unread", &s));
    assert_int_equal(s, NOTICE_LIST_UNREAD);
    assert_true(notice_list_state_parse("read", &s));
    assert_int_equal(s, NOTICE_LIST_READ);
    assert_true(notice_list_state_parse("all", &s));
    assert_int_equal(s, NOTICE_LIST_ALL);
    assert_false(notice_list_state_parse("", &s));
    assert_false(notice_list_state_parse("Unread", &s));
    assert_false(notice_list_state_parse("unread ", &s));
    assert_string_equal(notice_list_state_name(NOTICE_LIST_UNREAD), "unread");
}

static void test_seed_listing(void **state)
{
    /* audience 1 has notices 101..105; the user read 102 and 104 */
    static const uint32_t live[] = {101, 102, 103, 104, 105}, read[] = {102, 104};
    roaring_bitmap_t *index = of(live, 5), *r = of(read, 2);
    uint32_t ids[10];
    struct notice_list_page pg;

    assert_true(notice_list_page(index, r, NOTICE_LIST_UNREAD, false, 0, 10, ids, &pg));
    assert_int_equal(pg.n, 3);
    assert_int_equal(ids[0], 105);
    assert_int_equal(ids[1], 103);
    assert_int_equal(ids[2], 101);
    assert_false(pg.more);
    assert_int_equal(pg.read, 2);
    assert_int_equal(pg.unread, 3);

    assert_true(notice_list_page(index, r, NOTICE_LIST_READ, false, 0, 10, ids, &pg));
    assert_int_equal(pg.n, 2);
    assert_int_equal(ids[0], 104);
    assert_int_equal(ids[1], 102);

    /* every notice, two at a time, walking the cursor */
    assert_true(notice_list_page(index, r, NOTICE_LIST_ALL, false, 0, 2, ids, &pg));
    assert_int_equal(pg.n, 2);
    assert_int_equal(ids[1], 104);
    assert_true(pg.more);
    assert_true(notice_list_page(index, r, NOTICE_LIST_ALL, true, ids[1], 2, ids, &pg));
    assert_int_equal(pg.n, 2);
    assert_int_equal(ids[0], 103);
    assert_int_equal(ids[1], 102);
    assert_true(pg.more);
    assert_true(notice_list_page(index, r, NOTICE_LIST_ALL, true, ids[1], 2, ids, &pg));
    assert_int_equal(pg.n, 1);
    assert_int_equal(ids[0], 101);
    assert_false(pg.more);
    /* the counts are the audience's, whatever the page */
    assert_int_equal(pg.read, 2);
    assert_int_equal(pg.unread, 3);
    /* before 0: nothing is older */
    assert_true(notice_list_page(index, r, NOTICE_LIST_ALL, true, 0, 2, ids, &pg));
    assert_int_equal(pg.n, 0);
    assert_false(pg.more);
    roaring_bitmap_free(index);
    roaring_bitmap_free(r);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_against_naive(void **state)
{
    uint64_t seed = 0x2545f4914f6cdd1dULL;
    uint32_t ids[64];
    for (int round = 0; round < 40; round++) {
        roaring_bitmap_t *index = roaring_bitmap_create(), *r = roaring_bitmap_create();
        size_t n = (size_t)(rnd(&seed) % 300);
        for (size_t i = 0; i < n; i++) {
            uint32_t id = round % 2 ? (uint32_t)(rnd(&seed) % 1000) : (uint32_t)rnd(&seed);
            roaring_bitmap_add(index, id);
            if (rnd(&seed) % 3 == 0) roaring_bitmap_add(r, id);
        }
        for (int st = NOTICE_LIST_ALL; st <= NOTICE_LIST_READ; st++) {
            size_t limit = 1 + (size_t)(rnd(&seed) % 64);
            uint64_t before = (uint64_t)UINT32_MAX + 1; /* from the newest */
            uint64_t seen = 0, expect = 0;
            struct notice_list_page pg;
            roaring_uint32_iterator_t *it = roaring_create_iterator(index);
            for (; it->has_value; roaring_advance_uint32_iterator(it)) {
                bool is_read = roaring_bitmap_contains(r, it->current_value);
                expect += st == NOTICE_LIST_ALL || (st == NOTICE_LIST_READ) == is_read;
            }
            roaring_free_uint32_iterator(it);
            do {
                assert_true(notice_list_page(index, r, (enum notice_list_state)st, true, before, limit, ids, &pg));
                for (size_t i = 0; i < pg.n; i++) {
                    bool is_read = roaring_bitmap_contains(r, ids[i]);
                    assert_true(roaring_bitmap_contains(index, ids[i]));
                    assert_true(ids[i] < before); /* newest first, strictly below the cursor */
                    if (st == NOTICE_LIST_READ) assert_true(is_read);
                    if (st == NOTICE_LIST_UNREAD) assert_false(is_read);
                    before = ids[i];
                }
                seen += pg.n;
                assert_int_equal(pg.read, roaring_bitmap_get_cardinality(r));
                assert_int_equal(pg.read + pg.unread, roaring_bitmap_get_cardinality(index));
            } while (pg.more);
            assert_int_equal(seen, expect);
        }
        roaring_bitmap_free(index);
        roaring_bitmap_free(r);
    }
}

static void test_audience_counts(void **state)
{
    /* audiences 1 and 2 overlap in user 3; users 2 and 3 read; 9 read but is in
     * neither audience (a preread user) and does not lower the unread count */
    static const uint32_t a1[] = {1, 2, 3}, a2[] = {3, 4}, rd[] = {2, 3, 9};
    roaring_bitmap_t *u1 = of(a1, 3), *u2 = of(a2, 2), *readers = of(rd, 3);
    const roaring_bitmap_t *users[2] = {u1, u2};
    uint64_t size = 0, unread = 0;
    assert_true(notice_audience_counts(users, 2, readers, &size, &unread));
    assert_int_equal(size, 4);
    assert_int_equal(unread, 2);
    assert_true(notice_audience_counts(users, 0, readers, &size, &unread));
    assert_int_equal(size, 0);
    assert_int_equal(unread, 0);
    roaring_bitmap_free(u1);
    roaring_bitmap_free(u2);
    roaring_bitmap_free(readers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state),
        cmocka_unit_test(test_state_names),
        cmocka_unit_test(test_seed_listing),
        cmocka_unit_test(test_against_naive),
        cmocka_unit_test(test_audience_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
