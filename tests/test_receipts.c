/* test_receipts.c — the two-plane receipts arithmetic (receipts.c): the seed-001
 * scenario, edges (empty group, sender alone, member ids at the top of the range,
 * all read, cursors at and past the end), encode/decode round trips after every
 * kind of change, the stored size of a 200-member message, and a randomized
 * comparison of counts and paging against a naive reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "domains/receipts/receipts.h"

/* Encodes bm as the write path would, decodes it again and checks equality. */
static void assert_round_trip(roaring_bitmap_t *bm)
{
    uint8_t *buf;
    size_t len;
    char err[160];
    assert_true(codec_encode(bm, &buf, &len));
    roaring_bitmap_t *back = codec_decode(buf, len, err, sizeof(err));
    assert_non_null(back);
    assert_true(roaring_bitmap_equals(bm, back));
    roaring_bitmap_free(back);
    free(buf);
}

/* Every id of one list, by pages of `limit`, walking the cursor; returns the count. */
static size_t walk(const roaring_bitmap_t *bm, enum receipts_list which, size_t limit, uint32_t *all, size_t cap)
{
    uint32_t *page = malloc((limit ? limit : 1) * sizeof(*page));
    int64_t after = -1;
    size_t n = 0;
    bool more = true;
    assert_non_null(page);
    while (more) {
        size_t got = receipts_page(bm, which, after, limit, page, &more);
        assert_true(got <= limit);
        assert_true(n + got <= cap);
        if (more) assert_int_equal(got, limit); /* only a full page says "more" */
        memcpy(all + n, page, got * sizeof(*page));
        n += got;
        if (got) after = page[got - 1];
    }
    free(page);
    return n;
}

static void assert_counts(const roaring_bitmap_t *bm, uint64_t eligible, uint64_t read)
{
    struct receipts_counts c;
    receipts_count(bm, &c);
    assert_int_equal(c.eligible, eligible);
    assert_int_equal(c.read, read);
    assert_int_equal(c.unread, eligible - read);
}

/* Seed 001: members A..E are 0..4, C (2) has left, A sends; B and D read. */
static void test_seed_001(void **state)
{
    uint32_t current[] = {4, 0, 3, 1}; /* any order: C is not current */
    uint32_t out[8];
    bool more;
    struct receipts_counts c;
    roaring_bitmap_t *bm = receipts_build(current, 4, 0);

    assert_non_null(bm);
    assert_true(receipts_recorded(bm));
    receipts_count(bm, &c);
    assert_int_equal(c.eligible, 3); /* B, D, E: not the sender, not C */
    assert_int_equal(c.read, 0);
    assert_true(c.has_sender);
    assert_int_equal(c.sender, 0);
    assert_int_equal(receipts_mark_read(bm, 1), RECEIPTS_MARKED);
    assert_int_equal(receipts_mark_read(bm, 3), RECEIPTS_MARKED);
    assert_int_equal(receipts_mark_read(bm, 3), RECEIPTS_ALREADY_READ);
    assert_int_equal(receipts_mark_read(bm, 2), RECEIPTS_NOT_ELIGIBLE); /* C had left */
    assert_int_equal(receipts_mark_read(bm, 0), RECEIPTS_IS_SENDER);
    assert_int_equal(receipts_mark_read(bm, 5), RECEIPTS_NOT_ELIGIBLE); /* joined later */
    assert_counts(bm, 3, 2);
    assert_true(receipts_has_read(bm, 1));
    assert_false(receipts_has_read(bm, 0));
    assert_false(receipts_has_read(bm, 4));
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, -1, 8, out, &more), 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 3);
    assert_false(more);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, -1, 8, out, &more), 1);
    assert_int_equal(out[0], 4);
    assert_false(more);
    /* the stored layout: sender marker 1, eligible 2 (B), 6 (D), 8 (E), read 3, 7 */
    uint32_t want[] = {1, 2, 3, 6, 7, 8};
    assert_int_equal(roaring_bitmap_get_cardinality(bm), 6);
    for (size_t i = 0; i < 6; i++) assert_true(roaring_bitmap_contains(bm, want[i]));
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

static void test_sender_alone(void **state)
{
    uint32_t only[] = {7}, out[4];
    bool more;
    roaring_bitmap_t *bm = receipts_build(only, 1, 7);
    assert_non_null(bm);
    assert_true(receipts_recorded(bm)); /* recorded although nobody is eligible */
    assert_counts(bm, 0, 0);
    assert_int_equal(receipts_mark_read(bm, 7), RECEIPTS_IS_SENDER);
    assert_int_equal(receipts_mark_read(bm, 6), RECEIPTS_NOT_ELIGIBLE);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, -1, 4, out, &more), 0);
    assert_false(more);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, -1, 4, out, &more), 0);
    assert_false(more);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);

    /* no member list at all (the sender need not be in it) */
    bm = receipts_build(NULL, 0, 0);
    assert_non_null(bm);
    assert_true(receipts_recorded(bm));
    assert_counts(bm, 0, 0);
    roaring_bitmap_free(bm);
}

static void test_never_recorded(void **state)
{
    uint32_t out[4];
    bool more;
    struct receipts_counts c;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_false(receipts_recorded(bm));
    receipts_count(bm, &c);
    assert_int_equal(c.eligible, 0);
    assert_false(c.has_sender);
    assert_int_equal(receipts_mark_read(bm, 0), RECEIPTS_NOT_ELIGIBLE);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, -1, 4, out, &more), 0);
    assert_false(more);
    roaring_bitmap_free(bm);
}

/* Member ids at the top: the default max_members (10^6), the configurable maximum
 * (2^30), and the largest id whose read bit is still a 32-bit offset. */
static void test_high_member_ids(void **state)
{
    uint32_t ids[] = {999999, 999998, 1073741823, RECEIPTS_MEMBER_MAX - 1, RECEIPTS_MEMBER_MAX}, out[8];
    bool more;
    roaring_bitmap_t *bm = receipts_build(ids, 5, 999998);
    assert_non_null(bm);
    assert_counts(bm, 4, 0);
    assert_int_equal(receipts_mark_read(bm, RECEIPTS_MEMBER_MAX), RECEIPTS_MARKED);
    assert_true(roaring_bitmap_contains(bm, UINT32_MAX)); /* 2k+1 for the largest k */
    assert_int_equal(receipts_mark_read(bm, 999999), RECEIPTS_MARKED);
    assert_int_equal(receipts_mark_read(bm, 999998), RECEIPTS_IS_SENDER);
    assert_int_equal(receipts_mark_read(bm, RECEIPTS_MEMBER_MAX + 1u), RECEIPTS_NOT_ELIGIBLE);
    assert_counts(bm, 4, 2);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, -1, 8, out, &more), 2);
    assert_int_equal(out[0], 999999);
    assert_int_equal(out[1], RECEIPTS_MEMBER_MAX);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, -1, 8, out, &more), 2);
    assert_int_equal(out[0], 1073741823);
    assert_int_equal(out[1], RECEIPTS_MEMBER_MAX - 1);
    /* cursors at, and past, the end */
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, RECEIPTS_MEMBER_MAX - 1, 8, out, &more), 1);
    assert_int_equal(out[0], RECEIPTS_MEMBER_MAX);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, RECEIPTS_MEMBER_MAX, 8, out, &more), 0);
    assert_false(more);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, INT64_MAX / 4, 8, out, &more), 0);
    assert_false(more);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);

    uint32_t too_big[] = {RECEIPTS_MEMBER_MAX + 1u};
    assert_null(receipts_build(too_big, 1, 0));
    assert_null(receipts_build(ids, 1, RECEIPTS_MEMBER_MAX + 1u));
}

/* 200 members, sender 0: everyone reads; pages of 64 through both lists; the
 * stored size against the seed's 54 bytes (4-byte maxid + 25 + 25). */
static void test_all_read_and_size(void **state)
{
    uint32_t members[200], all[256], out[4];
    bool more;
    for (uint32_t i = 0; i < 200; i++) members[i] = i;
    roaring_bitmap_t *bm = receipts_build(members, 200, 0);
    assert_non_null(bm);
    assert_true(codec_encoded_size(bm) <= 54);
    assert_int_equal(walk(bm, RECEIPTS_LIST_UNREAD, 64, all, 256), 199);
    for (uint32_t i = 0; i < 199; i++) assert_int_equal(all[i], i + 1);
    for (uint32_t i = 1; i < 200; i++) {
        assert_int_equal(receipts_mark_read(bm, i), RECEIPTS_MARKED);
        if (i % 50 == 0) assert_round_trip(bm);
    }
    assert_counts(bm, 199, 199);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, -1, 4, out, &more), 0);
    assert_false(more);
    assert_int_equal(walk(bm, RECEIPTS_LIST_READ, 64, all, 256), 199);
    assert_int_equal(all[198], 199);
    /* a cursor at the last member: nothing after it */
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, 199, 4, out, &more), 0);
    assert_false(more);
    /* limit 0 answers nothing but still tells whether there is more */
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, 197, 0, out, &more), 0);
    assert_true(more);
    assert_true(codec_encoded_size(bm) <= 54);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

/* A full group at the default max_members: counts and a deep cursor stay exact. */
static void test_million_members(void **state)
{
    const uint32_t n = 1000000;
    uint32_t *members = malloc(n * sizeof(*members)), out[3];
    bool more;
    assert_non_null(members);
    for (uint32_t i = 0; i < n; i++) members[i] = n - 1 - i;
    roaring_bitmap_t *bm = receipts_build(members, n, 500000);
    free(members);
    assert_non_null(bm);
    for (uint32_t k = 0; k < n; k += 3) (void)receipts_mark_read(bm, k);
    /* eligible 999,999; read: multiples of 3 except the sender 500,000 (not one) */
    assert_counts(bm, n - 1, 333334);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_UNREAD, 899999, 3, out, &more), 3);
    assert_int_equal(out[0], 900001);
    assert_int_equal(out[1], 900002);
    assert_int_equal(out[2], 900004);
    assert_true(more);
    assert_int_equal(receipts_page(bm, RECEIPTS_LIST_READ, 999996, 3, out, &more), 1);
    assert_int_equal(out[0], 999999);
    assert_false(more);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

/* Random groups against a reference of plain arrays. */
static void test_random_against_reference(void **state)
{
    enum { MAXK = 5000 };
    static bool member[MAXK], readm[MAXK];
    static uint32_t ids[MAXK], all[MAXK], want[MAXK];
    srand(20240601);
    for (int round = 0; round < 40; round++) {
        uint32_t span = 1 + (uint32_t)rand() % MAXK, base = round % 3 == 0 ? 0 : (uint32_t)rand() % 100000;
        size_t n = 0;
        int density = 1 + rand() % 100;
        for (uint32_t k = 0; k < span; k++) {
            member[k] = rand() % 100 < density;
            readm[k] = false;
            if (member[k]) ids[n++] = base + k;
        }
        uint32_t sender = n ? ids[(size_t)rand() % n] : base;
        roaring_bitmap_t *bm = receipts_build(ids, n, sender);
        assert_non_null(bm);
        uint64_t eligible = 0, read = 0;
        for (uint32_t k = 0; k < span; k++) eligible += member[k] && base + k != sender;
        for (int j = 0; j < (int)span / 2; j++) {
            uint32_t k = (uint32_t)rand() % span;
            enum receipts_mark r = receipts_mark_read(bm, base + k);
            if (base + k == sender)
                assert_int_equal(r, RECEIPTS_IS_SENDER);
            else if (!member[k])
                assert_int_equal(r, RECEIPTS_NOT_ELIGIBLE);
            else
                assert_int_equal(r, readm[k] ? RECEIPTS_ALREADY_READ : RECEIPTS_MARKED);
            if (member[k] && base + k != sender && !readm[k]) {
                readm[k] = true;
                read++;
            }
        }
        assert_counts(bm, eligible, read);
        for (int which = 0; which < 2; which++) {
            size_t nw = 0;
            for (uint32_t k = 0; k < span; k++)
                if (member[k] && base + k != sender && readm[k] == (which == RECEIPTS_LIST_READ))
                    want[nw++] = base + k;
            size_t limit = 1 + (size_t)rand() % 300;
            size_t got = walk(bm, (enum receipts_list)which, limit, all, MAXK);
            assert_int_equal(got, nw);
            if (nw) assert_memory_equal(all, want, nw * sizeof(*want));
        }
        assert_round_trip(bm);
        roaring_bitmap_free(bm);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_001),
        cmocka_unit_test(test_sender_alone),
        cmocka_unit_test(test_never_recorded),
        cmocka_unit_test(test_high_member_ids),
        cmocka_unit_test(test_all_read_and_size),
        cmocka_unit_test(test_million_members),
        cmocka_unit_test(test_random_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
