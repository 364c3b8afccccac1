/* test_gaps.c — the "gaps" encoding (codec_gaps.h) through codec.h: round trips of
 * direct and complement values of every density and at the edges of the 32-bit
 * range, the sizes it reaches, each rule of the layout refused on crafted bytes, every
 * truncation and single-byte change of valid values refused or decoded to exactly
 * what validation counted, and chunk rows that take it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/chunks.h"
#include "store/codec.h"
#include "rng.h"

#define GAPS_COMPLEMENT_SPAN_TEST ((uint32_t)1 << 20) /* codec_gaps.h's GAPS_COMPLEMENT_SPAN */


/* Each value of [lo, lo + span) a member with probability permille / 1000, and lo and
 * lo + span - 1 always. */
static roaring_bitmap_t *density(uint32_t lo, uint32_t span, unsigned permille)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    for (uint64_t v = lo; v < (uint64_t)lo + span; v++)
        if (rng32() % 1000 < permille) roaring_bitmap_add(bm, (uint32_t)v);
    roaring_bitmap_add(bm, lo);
    roaring_bitmap_add(bm, (uint32_t)((uint64_t)lo + span - 1));
    return bm;
}

/* Encodes bm as gaps into an exactly sized block (ASan sees any overrun). */
static uint8_t *encode_gaps(const roaring_bitmap_t *bm, struct codec_gaps *g)
{
    assert_true(codec_gaps_plan(bm, g));
    uint8_t *buf = malloc(g->size);
    assert_non_null(buf);
    assert_true(codec_write_gaps(bm, g, buf));
    return buf;
}

static void assert_round_trip(const roaring_bitmap_t *bm, struct codec_gaps *g)
{
    char err[160] = "";
    uint8_t *buf = encode_gaps(bm, g);
    assert_int_equal(buf[0], 0xB2);
    assert_string_equal(codec_encoding_name(buf, g->size), "gaps");
    if (!codec_validate(buf, g->size, err, sizeof(err))) fail_msg("rejected: %s", err);
    roaring_bitmap_t *back = codec_decode(buf, g->size, err, sizeof(err));
    if (!back) fail_msg("not decoded: %s", err);
    assert_true(roaring_bitmap_equals(back, bm));
    bool member;
    assert_false(codec_contains(buf, g->size, roaring_bitmap_minimum(bm), &member)); /* no index: decode */
    roaring_bitmap_free(back);
    free(buf);
}

static void test_round_trips(void **state)
{
    (void)state;
    static const struct {
        uint32_t lo, span;
        unsigned permille;
        int complement; /* -1: either */
    } cases[] = {
        {0, 65536, 100, 0},          {0, 65536, 900, 1},          {131072, 65536, 20, 0},
        {70000, 100000, 100, 0},     {5, 300000, 950, 1},         {4294901760u, 65536, 100, 0},
        {4294901760u, 65536, 900, 1}, {1000, 2, 1000, -1},         {7, 1, 1000, 0},
        {0, 3000000, 3, 0},          {4294967295u - 999999, 1000000, 10, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        roaring_bitmap_t *bm = density(cases[i].lo, cases[i].span, cases[i].permille);
        struct codec_gaps g;
        assert_round_trip(bm, &g);
        if (cases[i].complement >= 0) assert_int_equal(g.complement, cases[i].complement);
        roaring_bitmap_free(bm);
    }
    /* the single member 2^32 - 1, and runs with holes of one */
    roaring_bitmap_t *bm = roaring_bitmap_of(1, 4294967295u);
    struct codec_gaps g;
    assert_round_trip(bm, &g);
    roaring_bitmap_free(bm);
    bm = roaring_bitmap_create();
    for (uint32_t v = 10; v < 50000; v++)
        if (v % 97) roaring_bitmap_add(bm, v);
    assert_round_trip(bm, &g);
    assert_true(g.complement);
    roaring_bitmap_free(bm);
    bm = roaring_bitmap_create();
    assert_false(codec_gaps_plan(bm, &g)); /* the empty bitmap has no gaps encoding */
    roaring_bitmap_free(bm);
}

/* What it is for: a chunk 10% or 90% full in about 5.3 bits per member (or non-member)
 * against raw bits' 10. */
static void test_sizes(void **state)
{
    (void)state;
    for (unsigned permille = 100; permille <= 900; permille += 800) {
        roaring_bitmap_t *bm = density(0, 65536, permille);
        struct codec_gaps g;
        assert_true(codec_gaps_plan(bm, &g));
        uint64_t listed = permille < 500 ? roaring_bitmap_get_cardinality(bm) : 65536 - roaring_bitmap_get_cardinality(bm);
        assert_true(g.size * 8 < listed * 56 / 10); /* under 5.6 bits each */
        assert_true(g.size < codec_dense_size(bm) * 6 / 10);
        assert_true(g.k == 2 || g.k == 3);
        roaring_bitmap_free(bm);
    }
}

/* Minimal unsigned LEB128 length of v. */
static size_t leb_len(uint32_t v)
{
    size_t n = 1;
    while (v >= 128) {
        v >>= 7;
        n++;
    }
    return n;
}

/* The fewest bytes any gaps encoding of bm takes, every mode and every k tried (the
 * sizes the layout of codec_gaps.h gives), against which codec_gaps_plan, which counts
 * only the few k that can win, is checked. */
static size_t brute_gaps_size(const roaring_bitmap_t *bm)
{
    uint32_t lo = roaring_bitmap_minimum(bm), hi = roaring_bitmap_maximum(bm), span = hi - lo;
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    uint32_t *v = malloc(card * sizeof(*v));
    assert_non_null(v);
    roaring_bitmap_to_uint32_array(bm, v);
    size_t head = 1 + leb_len(lo) + leb_len(span) + 1, best = SIZE_MAX;
    for (int comp = 0; comp < 2; comp++) {
        if (comp && span >= GAPS_COMPLEMENT_SPAN_TEST) break;
        /* the listed values: the members, or the non-members inside the span */
        uint64_t n = 0, s[32] = {0};
        int64_t prev = (int64_t)lo - 1;
        for (uint64_t i = 0; i < card; i++) {
            if (!comp) {
                uint64_t d = (uint64_t)((int64_t)v[i] - prev - 1);
                for (unsigned k = 0; k < 32; k++) s[k] += d >> k;
                n++;
                prev = v[i];
            } else if (i > 0) {
                for (uint64_t x = (uint64_t)v[i - 1] + 1; x < v[i]; x++) {
                    uint64_t d = (uint64_t)((int64_t)x - prev - 1);
                    for (unsigned k = 0; k < 32; k++) s[k] += d >> k;
                    n++;
                    prev = (int64_t)x;
                }
            }
        }
        if (n == 0) continue;
        for (unsigned k = 0; k < 32; k++) {
            size_t size = head + leb_len((uint32_t)n) + (size_t)(((k + 1) * n + s[k] + 7) / 8);
            if (size < best) best = size;
        }
    }
    free(v);
    return best;
}

/* The plan is the smallest encoding there is, for shapes whose best k lies anywhere
 * from 0 to the twenties: dense runs with holes, every density, clusters, a few members
 * far apart, gaps of mixed lengths. */
static void test_plan_is_smallest(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        assert_non_null(bm);
        uint32_t at = rng32() % 1000000;
        unsigned shape = (unsigned)round % 5, n = 1 + rng32() % 3000;
        for (unsigned i = 0; i < n; i++) {
            switch (shape) {
            case 0: at += 1 + rng32() % (1u + rng32() % 4096); break;          /* mixed gaps */
            case 1: at += (rng32() % 8) ? 1 : 2 + rng32() % 3; break;          /* runs, holes */
            case 2: at += (rng32() % 50) ? 1 + rng32() % 3 : 100000; break;    /* clusters */
            case 3: at += 1 + rng32() % 2000000; break;                        /* far apart */
            default: at += 1 + (rng32() % 2 ? rng32() % 10 : rng32() % 70000); /* two scales */
            }
            roaring_bitmap_add(bm, at);
        }
        struct codec_gaps g;
        assert_true(codec_gaps_plan(bm, &g));
        size_t want = brute_gaps_size(bm);
        if (g.size != want) fail_msg("round %d (shape %u, %u members): planned %zu bytes, the smallest is %zu", round,
                                     shape, n, g.size, want);
        assert_round_trip(bm, &g);
        roaring_bitmap_free(bm);
    }
}

/* Crafted values: each rule refused, with the reason. */
static void test_rules(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } bad[] = {
        {"\xB2", 1, "truncated base"},
        {"\xB2\x80\x00\x00\x00\x01\x80", 7, "non-minimal base"},
        {"\xB2\x80\x80\x80\x80\x10\x00\x00\x01\x80", 10, "past 2^32 - 1"},
        {"\xB2\xFF\xFF\xFF\xFF\x0F\x01\x00\x01\x80", 10, "+ span"},
        {"\xB2\x00\x00", 3, "truncated mode"},
        {"\xB2\x00\x00\x20\x01\x01", 6, "reserved bits"},
        {"\xB2\x00\x80\x80\x40\x80\x01\x01", 8, "complement over a span"},
        {"\xB2\x00\x00\x00\x00", 5, "no listed value"},
        {"\xB2\x00\x00\x00\x09\x01", 6, "values in"},
        {"\xB2\x00\x00\x00\x01\x01\x00", 7, "trailing"},
        {"\xB2\x00\x00\x00\x01\x03", 6, "padding"},
        {"\xB2\x00\x01\x00\x01\x01", 6, "not base + span"},       /* direct: 0 listed, last should be 1 */
        {"\xB2\x00\x01\x00\x02\x05", 6, "past the span"},         /* 0, then 2 > 1 */
        {"\xB2\x00\x02\x80\x01\x01", 6, "not where its mode"},    /* complement lists base */
        {"\xB2\x00\x02\x80\x01\x04", 6, "not where its mode"},    /* complement lists the last */
        {"\xB2\x00\x00\x00\x01\x00", 6, "truncated or past"},     /* no 1 bit */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[160] = "";
        uint8_t *copy = malloc(bad[i].len);
        memcpy(copy, bad[i].bytes, bad[i].len);
        if (codec_validate(copy, bad[i].len, err, sizeof(err))) fail_msg("case %zu accepted", i);
        if (!strstr(err, bad[i].why)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, bad[i].why);
        assert_null(codec_decode(copy, bad[i].len, err, sizeof(err)));
        free(copy);
    }
    /* the smallest valid ones: {0} direct, and {0, 2} as the complement of {1} */
    char err[160];
    roaring_bitmap_t *bm = codec_decode((const uint8_t *)"\xB2\x00\x00\x00\x01\x01", 6, err, sizeof(err));
    assert_non_null(bm);
    assert_int_equal(roaring_bitmap_get_cardinality(bm), 1);
    roaring_bitmap_free(bm);
    bm = codec_decode((const uint8_t *)"\xB2\x00\x02\x80\x01\x02", 6, err, sizeof(err));
    assert_non_null(bm);
    assert_int_equal(roaring_bitmap_get_cardinality(bm), 2);
    assert_true(roaring_bitmap_contains(bm, 0) && roaring_bitmap_contains(bm, 2));
    roaring_bitmap_free(bm);
}

/* Every truncation refused; every single-byte change refused or decoded to a bitmap of
 * the cardinality validation reported (never a crash: ASan and UBSan run this too). */
static void test_damage(void **state)
{
    (void)state;
    for (unsigned permille = 50; permille <= 950; permille += 900) {
        roaring_bitmap_t *bm = density(65536 * 3 + 11, 5000, permille);
        struct codec_gaps g;
        uint8_t *buf = encode_gaps(bm, &g);
        char err[160];
        for (size_t len = 0; len < g.size; len++) {
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, buf, len);
            assert_false(codec_validate(copy, len, err, sizeof(err)));
            free(copy);
        }
        for (size_t i = 0; i < g.size; i++)
            for (int t = 0; t < 4; t++) {
                uint8_t *copy = malloc(g.size);
                memcpy(copy, buf, g.size);
                copy[i] ^= (uint8_t)(t == 0 ? 1u << (rng32() % 8) : 1 + rng32() % 255);
                roaring_bitmap_t *back = codec_decode(copy, g.size, err, sizeof(err));
                if (back) {
                    assert_true(codec_validate(copy, g.size, err, sizeof(err)));
                    roaring_bitmap_free(back);
                }
                free(copy);
            }
        free(buf);
        roaring_bitmap_free(bm);
    }
}

/* A big bitmap 10% full is cut into chunks that take gaps, about half their raw bits,
 * and join back; a denser one (50%) keeps raw bits. */
static void test_chunks_take_gaps(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = density(0, 200000, 100);
    struct chunk_cut cut;
    char err[160];
    assert_true(chunks_cut(bm, CHUNK_BYTES, &cut));
    assert_int_equal(cut.n, 4);
    size_t total = 0;
    for (size_t i = 0; i < cut.n; i++) {
        assert_int_equal(cut.parts[i].bits[0], 0xB2);
        total += cut.parts[i].len;
    }
    assert_true(total < 200000 / 8 * 6 / 10);
    roaring_bitmap_t *back = chunks_join(cut.parts, cut.n, err, sizeof(err));
    assert_non_null(back);
    assert_true(roaring_bitmap_equals(back, bm));
    /* a write into the last container: the others are taken from the old cut as they are */
    struct chunk_part *old = malloc(cut.n * sizeof(*old));
    memcpy(old, cut.parts, cut.n * sizeof(*old));
    roaring_bitmap_add(bm, 3 * 65536 + 5);
    struct chunk_cut since;
    assert_true(chunks_cut_since(bm, CHUNK_BYTES, old, cut.n, 3, 3, &since));
    assert_int_equal(since.n, 4);
    for (size_t i = 0; i < 3; i++) assert_null(since.parts[i].bits);
    assert_non_null(since.parts[3].bits);
    assert_int_equal(since.parts[3].bits[0], 0xB2);
    free(old);
    chunks_cut_free(&since);
    chunks_cut_free(&cut);
    roaring_bitmap_free(back);
    roaring_bitmap_free(bm);

    bm = density(0, 200000, 500);
    assert_true(chunks_cut(bm, CHUNK_BYTES, &cut));
    for (size_t i = 0; i < cut.n; i++) assert_int_equal(cut.parts[i].bits[0], 0xB1);
    chunks_cut_free(&cut);
    roaring_bitmap_free(bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips), cmocka_unit_test(test_sizes), cmocka_unit_test(test_plan_is_smallest),
        cmocka_unit_test(test_rules),       cmocka_unit_test(test_damage),
        cmocka_unit_test(test_chunks_take_gaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
