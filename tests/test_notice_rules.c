/* test_notice_rules.c — the rules of announcements on plain values (notice_rules.c):
 * a notice's state from its audiences; the writes — create (new, again, taken, being
 * deleted, an index repaired), a change of audiences, the delete protocol (gone
 * meanwhile, re-addressed meanwhile), read marks, an audience's users; the listing of
 * seed 004 (which notices per state, the read and unread counts, newest first, by
 * cursor), a listing compared with a naive one over random sets, and an audience's
 * size and unread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
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

/* A unit of audiences, readers and n indexes, each empty unless given. */
struct fixture {
    roaring_bitmap_t *aud, *readers, *index[4];
    bool dirty[6];
    struct notice_unit nu;
};

static void fixture_init(struct fixture *f, size_t nindex, const uint32_t *index_aud)
{
    f->aud = roaring_bitmap_create();
    f->readers = roaring_bitmap_create();
    for (size_t i = 0; i < 4; i++) f->index[i] = roaring_bitmap_create();
    memset(f->dirty, 0, sizeof(f->dirty));
    f->nu = (struct notice_unit){f->aud, f->readers, f->index, index_aud, nindex, f->dirty};
}

static void fixture_free(struct fixture *f)
{
    roaring_bitmap_free(f->aud);
    roaring_bitmap_free(f->readers);
    for (size_t i = 0; i < 4; i++) roaring_bitmap_free(f->index[i]);
}

static void test_create(void **state)
{
    static const uint32_t auds[] = {1, 2}, other[] = {3}, pre[] = {50, 51}, stale[] = {9};
    roaring_bitmap_t *want = of(auds, 2), *users = of(pre, 2), *none = roaring_bitmap_create();
    struct fixture f;
    bool created;

    /* a new notice: its audiences, its prereaders alone (a stale reader row is emptied),
     * and its id in both indexes */
    fixture_init(&f, 2, NULL);
    roaring_bitmap_add_many(f.readers, 1, stale);
    assert_int_equal(notice_apply_create(&f.nu, 77, want, users, &created), NV_CHANGED);
    assert_true(created);
    assert_true(roaring_bitmap_equals(f.aud, want));
    assert_true(roaring_bitmap_equals(f.readers, users));
    assert_true(roaring_bitmap_contains(f.index[0], 77) && roaring_bitmap_contains(f.index[1], 77));
    for (int i = 0; i < 4; i++) assert_true(f.dirty[i]);

    /* again with the same audiences: nothing to do ... */
    memset(f.dirty, 0, sizeof(f.dirty));
    assert_int_equal(notice_apply_create(&f.nu, 77, want, none, &created), NV_UNCHANGED);
    assert_false(created);
    /* ... unless an index lost the id, or new prereaders come: those are written */
    roaring_bitmap_remove(f.index[1], 77);
    roaring_bitmap_add(users, 52);
    assert_int_equal(notice_apply_create(&f.nu, 77, want, users, &created), NV_CHANGED);
    assert_false(created);
    assert_false(f.dirty[0]);
    assert_true(f.dirty[1] && f.dirty[3]);
    assert_false(f.dirty[2]);
    assert_int_equal(roaring_bitmap_get_cardinality(f.readers), 3);

    /* the id is taken by a notice of other audiences, or one being deleted: nothing changes */
    roaring_bitmap_t *o = of(other, 1);
    assert_int_equal(notice_apply_create(&f.nu, 77, o, none, &created), NV_OTHER_AUDIENCES);
    roaring_bitmap_add(f.aud, NOTICE_DELETING_MARK);
    assert_int_equal(notice_apply_create(&f.nu, 77, want, none, &created), NV_DELETING);
    assert_int_equal(roaring_bitmap_get_cardinality(f.readers), 3);
    roaring_bitmap_free(o);
    roaring_bitmap_free(want);
    roaring_bitmap_free(users);
    roaring_bitmap_free(none);
    fixture_free(&f);
}

static void test_move(void **state)
{
    /* notice 5 moves from audiences {1, 2} to {2, 3}: the index keys are of {1, 2, 3} */
    static const uint32_t from[] = {1, 2}, to[] = {2, 3}, idx_aud[] = {1, 2, 3};
    roaring_bitmap_t *old = of(from, 2), *want = of(to, 2);
    struct fixture f;
    fixture_init(&f, 3, idx_aud);
    roaring_bitmap_or_inplace(f.aud, old);
    roaring_bitmap_add(f.index[0], 5);
    roaring_bitmap_add(f.index[1], 5);
    roaring_bitmap_add(f.index[1], 6); /* another notice of audience 2 stays */

    assert_int_equal(notice_apply_move(&f.nu, 5, old, want), NV_CHANGED);
    assert_true(roaring_bitmap_equals(f.aud, want));
    assert_false(roaring_bitmap_contains(f.index[0], 5));
    assert_true(roaring_bitmap_contains(f.index[1], 5) && roaring_bitmap_contains(f.index[1], 6));
    assert_true(roaring_bitmap_contains(f.index[2], 5));
    assert_true(f.dirty[0] && f.dirty[2] && f.dirty[4]);
    assert_false(f.dirty[3]); /* audience 2 kept it: its index is not written */

    /* moved again to where it is: nothing; audiences changed under the unit: restart */
    memset(f.dirty, 0, sizeof(f.dirty));
    assert_int_equal(notice_apply_move(&f.nu, 5, want, want), NV_UNCHANGED);
    assert_int_equal(notice_apply_move(&f.nu, 5, old, want), NV_RESTART);
    for (int i = 0; i < 5; i++) assert_false(f.dirty[i]);
    roaring_bitmap_free(old);
    roaring_bitmap_free(want);
    fixture_free(&f);
}

static void test_delete(void **state)
{
    static const uint32_t auds[] = {4, 8}, rd[] = {10, 11, 12};
    roaring_bitmap_t *old = of(auds, 2), *other = roaring_bitmap_create();
    struct fixture f;
    uint64_t removed = 99;
    fixture_init(&f, 2, NULL);
    roaring_bitmap_or_inplace(f.aud, old);
    roaring_bitmap_add_many(f.readers, 3, rd);
    roaring_bitmap_add(f.index[0], 3);
    roaring_bitmap_add(f.index[1], 3);
    roaring_bitmap_add(f.index[1], 4);

    /* re-addressed since the keys were chosen: nothing written, build the unit again */
    roaring_bitmap_add(other, 4);
    assert_int_equal(notice_apply_delete(&f.nu, 3, other, &removed), NV_RESTART);
    assert_int_equal(roaring_bitmap_get_cardinality(f.readers), 3);

    /* one commit: audiences and readers emptied, the id out of every index, the id free */
    assert_int_equal(notice_apply_delete(&f.nu, 3, old, &removed), NV_CHANGED);
    assert_int_equal(removed, 3);
    assert_true(roaring_bitmap_is_empty(f.aud) && roaring_bitmap_is_empty(f.readers));
    assert_false(roaring_bitmap_contains(f.index[0], 3) || roaring_bitmap_contains(f.index[1], 3));
    assert_true(roaring_bitmap_contains(f.index[1], 4));
    assert_int_equal(notice_state_of(f.aud), NOTICE_MISSING);

    /* deleted by another request meanwhile */
    assert_int_equal(notice_apply_delete(&f.nu, 3, old, &removed), NV_MISSING);
    /* a notice that kept the deleting mark (an older version's delete) is deleted too */
    roaring_bitmap_add(f.aud, NOTICE_DELETING_MARK);
    roaring_bitmap_t *mark = roaring_bitmap_copy(f.aud);
    assert_int_equal(notice_apply_delete(&f.nu, 3, mark, &removed), NV_CHANGED);
    assert_true(roaring_bitmap_is_empty(f.aud));
    roaring_bitmap_free(mark);
    roaring_bitmap_free(old);
    roaring_bitmap_free(other);
    fixture_free(&f);
}

static void test_mark(void **state)
{
    struct fixture f;
    fixture_init(&f, 0, NULL);
    assert_int_equal(notice_apply_mark(&f.nu, 42, true), NV_MISSING);
    roaring_bitmap_add(f.aud, 1);
    assert_int_equal(notice_apply_mark(&f.nu, 42, false), NV_UNCHANGED); /* unread already */
    assert_int_equal(notice_apply_mark(&f.nu, 42, true), NV_CHANGED);
    assert_true(f.dirty[1]);
    assert_false(f.dirty[0]); /* the audiences are only checked */
    assert_true(roaring_bitmap_contains(f.readers, 42));
    assert_int_equal(notice_apply_mark(&f.nu, 42, true), NV_UNCHANGED);
    assert_int_equal(notice_apply_mark(&f.nu, 42, false), NV_CHANGED);
    assert_false(roaring_bitmap_contains(f.readers, 42));
    roaring_bitmap_add(f.aud, NOTICE_DELETING_MARK);
    assert_int_equal(notice_apply_mark(&f.nu, 42, true), NV_DELETING);
    assert_false(roaring_bitmap_contains(f.readers, 42));
    fixture_free(&f);
}

static void test_audience_users_write(void **state)
{
    static const uint32_t a[] = {1, 2, 3}, b[] = {3, 4};
    roaring_bitmap_t *users = roaring_bitmap_create(), *ga = of(a, 3), *gb = of(b, 2), *empty = roaring_bitmap_create();
    bool changed;
    /* an audience never given: even an empty set is written (a known, empty audience) */
    assert_int_equal(notice_apply_audience_users(users, false, empty, true, &changed), NV_CHANGED);
    assert_false(changed);
    assert_int_equal(notice_apply_audience_users(users, true, empty, true, &changed), NV_UNCHANGED);
    assert_int_equal(notice_apply_audience_users(users, true, ga, false, &changed), NV_CHANGED);
    assert_true(changed);
    assert_int_equal(notice_apply_audience_users(users, true, gb, false, &changed), NV_CHANGED); /* add: {1..4} */
    assert_int_equal(roaring_bitmap_get_cardinality(users), 4);
    assert_int_equal(notice_apply_audience_users(users, true, gb, true, &changed), NV_CHANGED); /* replace */
    assert_true(roaring_bitmap_equals(users, gb));
    assert_int_equal(notice_apply_audience_users(users, true, gb, true, &changed), NV_UNCHANGED);
    roaring_bitmap_free(users);
    roaring_bitmap_free(ga);
    roaring_bitmap_free(gb);
    roaring_bitmap_free(empty);
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

static void test_against_naive(void **state)
{
    uint32_t ids[64];
    for (int round = 0; round < 40; round++) {
        roaring_bitmap_t *index = roaring_bitmap_create(), *r = roaring_bitmap_create();
        size_t n = (size_t)(rng64() % 300);
        for (size_t i = 0; i < n; i++) {
            uint32_t id = round % 2 ? (uint32_t)(rng64() % 1000) : (uint32_t)rng64();
            roaring_bitmap_add(index, id);
            if (rng64() % 3 == 0) roaring_bitmap_add(r, id);
        }
        for (int st = NOTICE_LIST_ALL; st <= NOTICE_LIST_READ; st++) {
            size_t limit = 1 + (size_t)(rng64() % 64);
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
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_move),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_mark),
        cmocka_unit_test(test_audience_users_write),
        cmocka_unit_test(test_state_names),
        cmocka_unit_test(test_seed_listing),
        cmocka_unit_test(test_against_naive),
        cmocka_unit_test(test_audience_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
