/* test_unread_rules.c — the rules of seed 001's unread counts on plain values
 * (unread_rules.c): broadcasts after a cursor (no cursor counts nothing, -1 counts
 * everything, cursors between, at and past the members, at the top of the id range),
 * where "seen" moves a cursor, the rank they rest on, against a naive count, and the
 * red-dot name rule at its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"
#include "domains/unread/unread_rules.h"

static roaring_bitmap_t *of(const uint32_t *ids, size_t n)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    roaring_bitmap_add_many(bm, n, ids);
    return bm;
}

static void test_seed_scenario(void **state)
{
    /* the seed: notices 1..5 exist; a user who saw up to 3 has 2 unread; one who
     * never came has none; seeing everything leaves none */
    static const uint32_t ids[] = {1, 2, 3, 4, 5};
    roaring_bitmap_t *list = of(ids, 5);
    assert_int_equal(unread_broadcasts_after(list, true, 3), 2);
    assert_int_equal(unread_broadcasts_after(list, false, 0), 0);
    assert_int_equal(unread_broadcasts_after(list, false, 3), 0);
    assert_int_equal(unread_seen_target(list, false, 0), 5);
    assert_int_equal(unread_broadcasts_after(list, true, unread_seen_target(list, false, 0)), 0);
    roaring_bitmap_free(list);
}

static void test_cursor_positions(void **state)
{
    static const uint32_t ids[] = {10, 20, 30, UINT32_MAX - 1, UINT32_MAX};
    roaring_bitmap_t *list = of(ids, 5);
    assert_int_equal(unread_broadcasts_after(list, true, -1), 5); /* recorded before any */
    assert_int_equal(unread_broadcasts_after(list, true, 0), 5);
    assert_int_equal(unread_broadcasts_after(list, true, 9), 5);
    assert_int_equal(unread_broadcasts_after(list, true, 10), 4); /* at a member */
    assert_int_equal(unread_broadcasts_after(list, true, 15), 4); /* between two */
    assert_int_equal(unread_broadcasts_after(list, true, 30), 2);
    assert_int_equal(unread_broadcasts_after(list, true, (int64_t)UINT32_MAX - 1), 1);
    assert_int_equal(unread_broadcasts_after(list, true, UINT32_MAX), 0); /* at the last id */
    assert_int_equal(unread_broadcasts_after(list, true, (int64_t)UINT32_MAX + 7), 0); /* past it */
    assert_int_equal(unread_broadcasts_after(list, true, INT64_MAX), 0);
    assert_int_equal(unread_count_upto(list, -5), 0);
    assert_int_equal(unread_count_upto(list, INT64_MAX), 5);
    roaring_bitmap_free(list);
}

static void test_empty_list(void **state)
{
    roaring_bitmap_t *list = roaring_bitmap_create();
    assert_int_equal(unread_broadcasts_after(list, true, -1), 0);
    assert_int_equal(unread_broadcasts_after(list, true, 100), 0);
    /* seen before any broadcast: -1, so the first broadcast will count */
    assert_int_equal(unread_seen_target(list, false, 0), -1);
    roaring_bitmap_add(list, 0);
    assert_int_equal(unread_broadcasts_after(list, true, -1), 1);
    assert_int_equal(unread_broadcasts_after(list, true, 0), 0);
    roaring_bitmap_free(list);
}

static void test_seen_target(void **state)
{
    static const uint32_t ids[] = {7, 70, 700};
    roaring_bitmap_t *list = of(ids, 3);
    assert_int_equal(unread_seen_target(list, false, 12345), 700); /* id ignored when absent */
    assert_int_equal(unread_seen_target(list, true, 70), 70);
    assert_int_equal(unread_seen_target(list, true, 71), 71);  /* not a member: taken as given */
    assert_int_equal(unread_seen_target(list, true, 5), 5);    /* lower than the newest: the store keeps the greater */
    assert_int_equal(unread_seen_target(list, true, 4294967295LL), 4294967295LL);
    assert_int_equal(unread_broadcasts_after(list, true, unread_seen_target(list, true, 70)), 1);
    roaring_bitmap_free(list);
}

static void test_against_naive_count(void **state)
{
    for (int round = 0; round < 50; round++) {
        uint32_t ids[200];
        size_t n = (size_t)(rng64() % 200);
        uint32_t span = round % 2 ? 1000 : UINT32_MAX;
        for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)(rng64() % span);
        roaring_bitmap_t *list = of(ids, n);
        uint64_t card = roaring_bitmap_get_cardinality(list);
        for (int probe = 0; probe < 40; probe++) {
            int64_t cur = probe == 0 ? -1 : (int64_t)(rng64() % ((uint64_t)span + 2)) - 1;
            uint64_t naive = 0;
            roaring_uint32_iterator_t *it = roaring_create_iterator(list);
            for (; it->has_value; roaring_advance_uint32_iterator(it))
                if ((int64_t)it->current_value > cur) naive++;
            roaring_free_uint32_iterator(it);
            assert_int_equal(unread_broadcasts_after(list, true, cur), naive);
            assert_int_equal(unread_count_upto(list, cur), card - naive);
        }
        roaring_bitmap_free(list);
    }
}

static void test_reddot_names(void **state)
{
    char name[UNREAD_REDDOT_NAME_MAX + 2];
    memset(name, 'a', sizeof(name));
    assert_false(unread_reddot_name_valid("", 0));
    assert_true(unread_reddot_name_valid(name, 1));
    assert_true(unread_reddot_name_valid(name, UNREAD_REDDOT_NAME_MAX));
    assert_false(unread_reddot_name_valid(name, UNREAD_REDDOT_NAME_MAX + 1));
    assert_true(unread_reddot_name_valid("new.feature:v2-beta_9", 21));
    assert_true(unread_reddot_name_valid("ABCxyz019", 9));
    assert_false(unread_reddot_name_valid("a/b", 3));
    assert_false(unread_reddot_name_valid("a b", 3));
    assert_false(unread_reddot_name_valid("a%20", 4));
    assert_false(unread_reddot_name_valid("a\0b", 3)); /* a NUL inside the length */
    assert_false(unread_reddot_name_valid("\xc3\xa9", 2)); /* not ASCII */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_scenario),
        cmocka_unit_test(test_cursor_positions),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_seen_target),
        cmocka_unit_test(test_against_naive_count),
        cmocka_unit_test(test_reddot_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
