/* test_codec.c — unit tests for the codec: round trips of both encodings (Roaring
 * portable and dense) after every kind of mutation, the rule choosing between them,
 * hand-crafted invalid inputs of both (each rejected for the right reason),
 * randomized round trips and corruptions, CRC-32C and codec_keep_from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/codec.h"
#include "store/codec_internal.h"

/* ---- helpers ---------------------------------------------------------------- */

/* Deterministic xorshift64*, so every failure reproduces. */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 1;
}

static uint32_t rng32(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t rng_below(uint32_t n)
{
    return n ? rng32() % n : 0;
}

/* Copies bytes into an exactly sized heap block so that ASan reports any read
 * past the end, which is what "never read past len" means in practice. */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    assert_non_null(q);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Validates and decodes buf (from an exactly sized copy) and checks it holds bm. */
static void assert_decodes_to(const uint8_t *buf, size_t len, const roaring_bitmap_t *bm)
{
    char err[128] = "";
    if (!codec_validate(buf, len, err, sizeof(err)))
        fail_msg("encoded bytes rejected: %s", err);
    uint8_t *copy = exact_copy(buf, len);
    roaring_bitmap_t *back = codec_decode(copy, len, err, sizeof(err));
    if (!back)
        fail_msg("decode failed: %s", err);
    assert_true(roaring_bitmap_equals(bm, back));
    assert_int_equal(roaring_bitmap_get_cardinality(bm), roaring_bitmap_get_cardinality(back));
    roaring_bitmap_free(back);
    free(copy);
}

/* The dense size from the format's definition alone: tag, varint, raw bytes. */
static size_t expected_dense_size(const roaring_bitmap_t *bm)
{
    if (roaring_bitmap_is_empty(bm))
        return 2;
    uint32_t first = roaring_bitmap_minimum(bm) / 8, last = roaring_bitmap_maximum(bm) / 8;
    size_t varint = 1;
    while (varint < 5 && first >= 1u << (7 * varint))
        varint++;
    return 1 + varint + (last - first) + 1;
}

struct raw_bits {
    uint8_t *raw;
    uint32_t base;
};

static bool set_raw_bit(uint32_t value, void *param)
{
    struct raw_bits *r = param;
    uint32_t off = value - r->base;
    r->raw[off / 8] |= (uint8_t)(1u << (off % 8));
    return true;
}

/* A reference dense encoder written from the format description, independent of
 * codec.c, or NULL when the encoding would be larger than REF_DENSE_CAP bytes. */
enum { REF_DENSE_CAP = 1 << 22 };

static uint8_t *ref_dense(const roaring_bitmap_t *bm, size_t *len_out)
{
    size_t len = expected_dense_size(bm);
    if (len > REF_DENSE_CAP)
        return NULL;
    uint8_t *buf = calloc(len, 1);
    assert_non_null(buf);
    size_t pos = 0;
    buf[pos++] = 0xB1;
    uint32_t base8 = roaring_bitmap_is_empty(bm) ? 0 : roaring_bitmap_minimum(bm) / 8;
    do {
        buf[pos] = (uint8_t)(base8 & 0x7F);
        base8 >>= 7;
        if (base8)
            buf[pos] |= 0x80;
        pos++;
    } while (base8);
    struct raw_bits r = {buf + pos, 0};
    if (!roaring_bitmap_is_empty(bm))
        r.base = roaring_bitmap_minimum(bm) / 8 * 8;
    roaring_iterate(bm, set_raw_bit, &r);
    *len_out = len;
    return buf;
}

/* Encodes, validates, decodes and compares; checks that serialization is
 * deterministic (re-encoding the decoded bitmap gives the same bytes), that the
 * smaller encoding was chosen (Roaring on a tie), byte for byte against the
 * reference dense encoder, and that both encodings round trip whichever is chosen. */
/* codec_contains agrees with CRoaring on buf (an encoding of bm) for sampled members,
 * random values and the edges; and on every truncation it answers or refuses without
 * reading past the end (ASan). */
static void assert_contains_agrees(const uint8_t *buf, size_t len, const roaring_bitmap_t *bm)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    uint32_t probes[420];
    size_t n = 0;
    bool m;
    probes[n++] = 0;
    probes[n++] = 4294967295u;
    if (card) {
        uint32_t lo = roaring_bitmap_minimum(bm), hi = roaring_bitmap_maximum(bm);
        probes[n++] = lo;
        probes[n++] = hi;
        probes[n++] = lo ? lo - 1 : 1;
        probes[n++] = hi + 1;
        probes[n++] = (lo | 0xFFFF);
        probes[n++] = (hi & ~0xFFFFu);
    }
    for (int i = 0; i < 200 && card; i++) {
        uint32_t v;
        assert_true(roaring_bitmap_select(bm, (uint32_t)(rng32() % card), &v));
        probes[n++] = v;
        probes[n++] = v ^ 1; /* a neighbour, often not a member */
    }
    while (n < 420) probes[n++] = rng32();
    for (size_t i = 0; i < n; i++) {
        assert_true(codec_contains(buf, len, probes[i], &m));
        assert_int_equal(m, roaring_bitmap_contains(bm, probes[i]));
    }
    for (size_t cut = 0; cut < len && cut < 64; cut++) { /* truncated: never a read past the end */
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, buf, cut);
        for (size_t i = 0; i < 8; i++) (void)!codec_contains(t, cut, probes[i], &m);
        free(t);
    }
}

static void assert_round_trip(roaring_bitmap_t *bm)
{
    uint8_t *buf, *buf2, *rbuf;
    size_t len, len2, rlen, dlen = 0;
    char err[128] = "";
    assert_true(codec_encode(bm, &buf, &len));
    assert_decodes_to(buf, len, bm);
    assert_int_equal(codec_encoded_size(bm), len);
    roaring_bitmap_t *back = codec_decode(buf, len, err, sizeof(err));
    assert_non_null(back);
    assert_true(codec_encode(back, &buf2, &len2));
    assert_int_equal(len, len2);
    assert_memory_equal(buf, buf2, len);
    roaring_bitmap_free(back);

    assert_true(codec_encode_roaring(bm, &rbuf, &rlen));
    assert_string_equal(codec_encoding_name(rbuf, rlen), "roaring");
    assert_decodes_to(rbuf, rlen, bm);
    assert_contains_agrees(buf, len, bm);
    assert_contains_agrees(rbuf, rlen, bm);
    uint8_t *dense = ref_dense(bm, &dlen);
    if (dense)
        assert_decodes_to(dense, dlen, bm);
    if (expected_dense_size(bm) < rlen) {
        assert_string_equal(codec_encoding_name(buf, len), "dense");
        assert_non_null(dense); /* smaller than a portable serialization we hold */
        assert_int_equal(len, dlen);
        assert_memory_equal(buf, dense, len);
    } else {
        assert_string_equal(codec_encoding_name(buf, len), "roaring");
        assert_int_equal(len, rlen);
        assert_memory_equal(buf, rbuf, len);
    }
    free(dense);
    free(rbuf);
    free(buf);
    free(buf2);
}

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Cookie of the encoding of bm (bm is run-optimized as a side effect). */
static uint32_t encoded_cookie(roaring_bitmap_t *bm, size_t *len_out)
{
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    assert_true(len >= 4);
    uint32_t cookie = le32_at(buf);
    free(buf);
    if (len_out)
        *len_out = len;
    return cookie;
}

/* Cookie of the portable serialization of bm, whichever encoding codec_encode picks. */
static uint32_t roaring_cookie(roaring_bitmap_t *bm, size_t *len_out)
{
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode_roaring(bm, &buf, &len));
    uint32_t cookie = le32_at(buf);
    free(buf);
    if (len_out)
        *len_out = len;
    return cookie;
}

/* Name of the encoding codec_encode picks for bm, and its length. */
static const char *encoded_name(roaring_bitmap_t *bm, size_t *len_out)
{
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    const char *name = codec_encoding_name(buf, len);
    assert_non_null(name);
    free(buf);
    if (len_out)
        *len_out = len;
    return name;
}

/* ---- crafting serializations by hand --------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} bytes_t;

static void put8(bytes_t *b, uint8_t v)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    b->p[b->len++] = v;
}

static void put16(bytes_t *b, uint16_t v)
{
    put8(b, (uint8_t)v);
    put8(b, (uint8_t)(v >> 8));
}

static void put32(bytes_t *b, uint32_t v)
{
    put16(b, (uint16_t)v);
    put16(b, (uint16_t)(v >> 16));
}

static void patch32(bytes_t *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* One container as written: declared cardinality, run flag, and its payload as
 * little-endian uint16 words (array values; nruns then start/len-1 pairs; or
 * 4096 words of bitset). The declared card may lie on purpose. */
typedef struct {
    uint16_t key;
    uint32_t card;
    bool run;
    const uint16_t *words;
    size_t nwords;
} craft_t;

/* Writes a serialization of the containers with correct offsets. cookie is
 * 12346 or 12347; with 12347 offsets are written only from 4 containers. */
static bytes_t craft(const craft_t *c, size_t n, uint32_t cookie)
{
    bytes_t b = {0};
    bool run_cookie = cookie == 12347;
    if (run_cookie) {
        put32(&b, 12347u | (uint32_t)(n - 1) << 16);
        for (size_t i = 0; i < (n + 7) / 8; i++) {
            uint8_t flags = 0;
            for (size_t j = 0; j < 8 && 8 * i + j < n; j++)
                flags |= (uint8_t)(c[8 * i + j].run << j);
            put8(&b, flags);
        }
    } else {
        put32(&b, cookie);
        put32(&b, (uint32_t)n);
    }
    for (size_t i = 0; i < n; i++) {
        put16(&b, c[i].key);
        put16(&b, (uint16_t)(c[i].card - 1));
    }
    bool offsets = !run_cookie || n >= 4;
    size_t offsets_at = b.len;
    if (offsets)
        for (size_t i = 0; i < n; i++)
            put32(&b, 0);
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            patch32(&b, offsets_at + 4 * i, (uint32_t)b.len);
        for (size_t w = 0; w < c[i].nwords; w++)
            put16(&b, c[i].words[w]);
    }
    return b;
}

/* Asserts that codec_validate and codec_decode both reject buf with a reason
 * containing `why`. */
static void assert_rejected(const uint8_t *p, size_t len, const char *why)
{
    char err[128] = "";
    uint8_t *copy = exact_copy(p, len);
    bool ok = codec_validate(copy, len, err, sizeof(err));
    if (ok)
        fail_msg("accepted, expected \"%s\"", why);
    if (!strstr(err, why))
        fail_msg("reason \"%s\", expected \"%s\"", err, why);
    err[0] = '\0';
    assert_null(codec_decode(copy, len, err, sizeof(err)));
    assert_non_null(strstr(err, why));
    free(copy);
}

static void assert_craft_rejected(const craft_t *c, size_t n, uint32_t cookie, const char *why)
{
    bytes_t b = craft(c, n, cookie);
    assert_rejected(b.p, b.len, why);
    free(b.p);
}

/* A bitset payload holding exactly the values lo..hi-1 (plus `extra` if set). */
static uint16_t *bitset_words(uint32_t lo, uint32_t hi)
{
    uint16_t *w = calloc(4096, sizeof(*w));
    assert_non_null(w);
    for (uint32_t v = lo; v < hi; v++)
        w[v / 16] |= (uint16_t)(1u << (v % 16));
    return w;
}

/* ---- CRC-32C ------------------------------------------------------------------ */

static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void test_crc32c(void **state)
{
    (void)state;
    assert_int_equal(codec_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
    assert_int_equal(codec_crc32c(NULL, 0), 0);
    /* RFC 3720 B.4: 32 bytes of zeros. */
    uint8_t zeros[32] = {0};
    assert_int_equal(codec_crc32c(zeros, sizeof(zeros)), 0x8A9136AAu);
    uint8_t data[1000];
    rng_seed(42);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)rng32();
    for (size_t n = 0; n <= sizeof(data); n += 37)
        assert_int_equal(codec_crc32c(data, n), crc32c_bitwise(data, n));
    /* extended piece by piece: the CRC of the whole */
    for (size_t cut = 0; cut <= sizeof(data); cut += 101)
        assert_int_equal(codec_crc32c_extend(codec_crc32c(data, cut), data + cut, sizeof(data) - cut),
                         codec_crc32c(data, sizeof(data)));
}

/* ---- round trips ---------------------------------------------------------------- */

static void test_round_trip_empty(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    assert_int_equal(len, 2); /* dense: tag, base 0, no raw byte */
    assert_memory_equal(buf, "\xB1\x00", 2);
    free(buf);
    assert_int_equal(codec_encoded_size(bm), 2);
    assert_true(codec_encode_roaring(bm, &buf, &len));
    assert_int_equal(len, 8); /* cookie 12346 + count 0: still read */
    assert_int_equal(le32_at(buf), 12346);
    assert_decodes_to(buf, len, bm);
    free(buf);
    assert_round_trip(bm);
    /* Empty input is not an empty bitmap. */
    assert_rejected((const uint8_t *)"", 0, "truncated");
    roaring_bitmap_free(bm);
}

static void test_round_trip_extremes(void **state)
{
    (void)state;
    const uint32_t vals[] = {0, 1, 2, 65535, 65536, 4294901759u, 4294901760u, 4294967293u,
                             4294967294u, 4294967295u};
    for (size_t i = 0; i < ARRAY_LEN(vals); i++) {
        roaring_bitmap_t *one = roaring_bitmap_create();
        roaring_bitmap_add(one, vals[i]);
        assert_round_trip(one);
        roaring_bitmap_free(one);
    }
    roaring_bitmap_t *bm = roaring_bitmap_of_ptr(ARRAY_LEN(vals), vals);
    assert_round_trip(bm);
    roaring_bitmap_remove(bm, 4294967295u);
    roaring_bitmap_remove(bm, 0);
    assert_round_trip(bm);
    assert_false(roaring_bitmap_contains(bm, 0));
    roaring_bitmap_free(bm);
}

static void test_round_trip_sparse_array(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t v = 7; v < 4000000000u; v += 1000003)
        roaring_bitmap_add(bm, v);
    size_t len;
    assert_int_equal(encoded_cookie(bm, &len), 12346);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

/* Dense but irregular values one by one: bitset containers (not runs). Two
 * adjacent keys are smaller as raw bits; two far apart stay Roaring. */
static void test_round_trip_bitset(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t v = 3 * 65536; v < 5 * 65536; v++)
        if (v % 3 != 0)
            roaring_bitmap_add(bm, v);
    size_t len, rlen;
    assert_int_equal(roaring_cookie(bm, &rlen), 12346);
    assert_int_equal(rlen, 8 + 2 * 8 + 2 * 8192);
    assert_string_equal(encoded_name(bm, &len), "dense");
    assert_int_equal(len, 1 + 3 + 2 * 8192); /* base / 8 = 24576 takes 3 bytes */
    assert_round_trip(bm);
    roaring_bitmap_remove(bm, 3 * 65536 + 1);
    assert_round_trip(bm);
    for (uint32_t v = 500 * 65536; v < 501 * 65536; v += 2)
        roaring_bitmap_add(bm, v);
    assert_int_equal(encoded_cookie(bm, &len), 12346);
    assert_int_equal(len, 8 + 3 * 8 + 3 * 8192);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

/* A long consecutive run added value by value, then run-optimized. */
static void test_round_trip_run(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t v = 100000; v < 400000; v++)
        roaring_bitmap_add(bm, v);
    size_t len;
    assert_int_equal(encoded_cookie(bm, &len) & 0xFFFF, 12347);
    assert_true(len < 100);
    assert_round_trip(bm);
    /* Punch a hole into a run container and add back next to it. */
    roaring_bitmap_remove(bm, 200000);
    assert_round_trip(bm);
    roaring_bitmap_add(bm, 200000);
    roaring_bitmap_add(bm, 400000);
    roaring_bitmap_add(bm, 99999);
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

static void test_round_trip_add_many_remove(void **state)
{
    (void)state;
    uint32_t vals[5000];
    rng_seed(7);
    for (size_t i = 0; i < ARRAY_LEN(vals); i++)
        vals[i] = rng_below(3) == 0 ? rng32() : rng_below(200000);
    roaring_bitmap_t *bm = roaring_bitmap_create();
    roaring_bitmap_add_many(bm, ARRAY_LEN(vals), vals);
    assert_round_trip(bm);
    for (size_t i = 0; i < ARRAY_LEN(vals); i += 2)
        roaring_bitmap_remove(bm, vals[i]);
    assert_round_trip(bm);
    roaring_bitmap_remove_many(bm, ARRAY_LEN(vals), vals);
    assert_true(roaring_bitmap_is_empty(bm));
    assert_round_trip(bm);
    roaring_bitmap_free(bm);
}

/* Three kinds of operands (runs, bitsets, arrays) overlapping in the same keys. */
static roaring_bitmap_t *mixed_bitmap(uint32_t seed)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    rng_seed(seed);
    for (uint32_t v = 0; v < 70000; v++)
        roaring_bitmap_add(bm, 65536 * (seed % 3) + v); /* a run across a key boundary */
    for (int i = 0; i < 30000; i++)
        roaring_bitmap_add(bm, 4 * 65536 + rng_below(65536)); /* bitset */
    for (int i = 0; i < 500; i++)
        roaring_bitmap_add(bm, rng_below(8) * 65536 + rng_below(65536)); /* arrays */
    roaring_bitmap_add(bm, 4294967295u);
    roaring_bitmap_run_optimize(bm);
    return bm;
}

static void test_round_trip_set_operations(void **state)
{
    (void)state;
    void (*const ops[])(roaring_bitmap_t *, const roaring_bitmap_t *) = {
        roaring_bitmap_or_inplace, roaring_bitmap_and_inplace, roaring_bitmap_andnot_inplace,
        roaring_bitmap_xor_inplace};
    for (size_t op = 0; op < ARRAY_LEN(ops); op++) {
        for (uint32_t s = 1; s <= 3; s++) {
            roaring_bitmap_t *a = mixed_bitmap(s);
            roaring_bitmap_t *b = mixed_bitmap(s + 10);
            assert_round_trip(a);
            ops[op](a, b);
            assert_round_trip(a);
            ops[op](b, a); /* now with the other side's container types */
            assert_round_trip(b);
            roaring_bitmap_free(a);
            roaring_bitmap_free(b);
        }
    }
}

/* All 65536 keys present, from key 0 to key 65535: the largest container count,
 * which with runs puts 0xFFFF into the cookie's high half. */
static void test_round_trip_all_keys(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    uint32_t vals[64];
    for (uint32_t key = 0; key < 65536; key++) {
        for (uint32_t i = 0; i < 64; i++)
            vals[i] = key << 16 | (key % 2 ? 1000 + i : 2 * i); /* runs and arrays */
        roaring_bitmap_add_many(bm, 64, vals);
    }
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    assert_int_equal(le32_at(buf), 0xFFFF0000u | 12347);
    free(buf);
    assert_round_trip(bm);

    /* Without runs: one value per key, cookie 12346 with count 65536. */
    roaring_bitmap_t *one = roaring_bitmap_create();
    for (uint32_t key = 0; key < 65536; key++)
        roaring_bitmap_add(one, key << 16 | (key ^ 0x5555));
    assert_true(codec_encode(one, &buf, &len));
    assert_int_equal(le32_at(buf), 12346);
    assert_int_equal(le32_at(buf + 4), 65536);
    free(buf);
    assert_round_trip(one);
    roaring_bitmap_free(one);
    roaring_bitmap_free(bm);
}

/* ---- crafted inputs: valid edge cases ---------------------------------------- */

static void assert_craft_accepted(const craft_t *c, size_t n, uint32_t cookie, uint64_t card)
{
    char err[128] = "";
    bytes_t b = craft(c, n, cookie);
    roaring_bitmap_t *bm = codec_decode(b.p, b.len, err, sizeof(err));
    if (!bm)
        fail_msg("rejected: %s", err);
    assert_int_equal(roaring_bitmap_get_cardinality(bm), card);
    roaring_bitmap_free(bm);
    free(b.p);
}

static void test_crafted_valid(void **state)
{
    (void)state;
    const uint16_t arr[] = {1, 5, 65535};
    const uint16_t adjacent[] = {2, 0, 9, 10, 9}; /* [0,9] and [10,19] */
    const uint16_t full[] = {1, 0, 65535};
    /* A run cookie with no run container and no offsets (3 containers). */
    craft_t no_runs[] = {{.key = 0, .card = 3, .words = arr, .nwords = 3},
                         {.key = 9, .card = 3, .words = arr, .nwords = 3},
                         {.key = 65535, .card = 3, .words = arr, .nwords = 3}};
    assert_craft_accepted(no_runs, 3, 12347, 9);
    /* Adjacent runs are not merged by every writer; they are well formed. */
    craft_t adj[] = {{.key = 1, .card = 20, .run = true, .words = adjacent, .nwords = 5}};
    assert_craft_accepted(adj, 1, 12347, 20);
    /* A full container as one run. */
    craft_t f[] = {{.key = 65535, .card = 65536, .run = true, .words = full, .nwords = 3}};
    assert_craft_accepted(f, 1, 12347, 65536);
}

/* ---- crafted inputs: each kind of damage ------------------------------------ */

/* A valid buffer with all three container kinds and offsets. */
static bytes_t multi_container(uint32_t cookie)
{
    static const uint16_t arr[] = {3, 70, 900};
    static const uint16_t runs[] = {2, 10, 4, 100, 0};
    static uint16_t *bits;
    if (!bits)
        bits = bitset_words(0, 5000);
    bool r = cookie == 12347;
    craft_t c[] = {{.key = 0, .card = 3, .words = arr, .nwords = 3},
                   {.key = 2, .card = r ? 6 : 3, .run = r, .words = r ? runs : arr, .nwords = r ? 5 : 3},
                   {.key = 3, .card = 5000, .words = bits, .nwords = 4096},
                   {.key = 17, .card = 3, .words = arr, .nwords = 3},
                   {.key = 65535, .card = 3, .words = arr, .nwords = 3}};
    return craft(c, ARRAY_LEN(c), cookie);
}

static void test_bad_cookie(void **state)
{
    (void)state;
    const uint32_t cookies[] = {0, 12345, 12348, 0x303A0001u, 0xFFFFFFFFu, 0x3B300000u};
    for (size_t i = 0; i < ARRAY_LEN(cookies); i++) {
        bytes_t b = {0};
        put32(&b, cookies[i]);
        put32(&b, 0);
        assert_rejected(b.p, b.len, "bad cookie");
        free(b.p);
    }
}

static void test_truncated_every_prefix(void **state)
{
    (void)state;
    const uint32_t cookies[] = {12346, 12347};
    for (size_t c = 0; c < ARRAY_LEN(cookies); c++) {
        bytes_t b = multi_container(cookies[c]);
        char err[128];
        assert_true(codec_validate(b.p, b.len, err, sizeof(err)));
        for (size_t n = 0; n < b.len; n++)
            assert_rejected(b.p, n, "truncated");
        free(b.p);
    }
}

static void test_trailing_byte(void **state)
{
    (void)state;
    bytes_t b = multi_container(12347);
    put8(&b, 0);
    assert_rejected(b.p, b.len, "1 trailing bytes");
    free(b.p);
    bytes_t e = {0};
    put32(&e, 12346);
    put32(&e, 0);
    put8(&e, 0);
    assert_rejected(e.p, e.len, "trailing");
    free(e.p);
}

static void test_keys_not_increasing(void **state)
{
    (void)state;
    const uint16_t arr[] = {1};
    craft_t equal[] = {{.key = 5, .card = 1, .words = arr, .nwords = 1},
                       {.key = 5, .card = 1, .words = arr, .nwords = 1}};
    assert_craft_rejected(equal, 2, 12346, "container 1: keys not strictly increasing");
    craft_t decreasing[] = {{.key = 5, .card = 1, .words = arr, .nwords = 1},
                            {.key = 6, .card = 1, .words = arr, .nwords = 1},
                            {.key = 4, .card = 1, .words = arr, .nwords = 1}};
    assert_craft_rejected(decreasing, 3, 12347, "container 2: keys not strictly increasing");
}

static void test_array_damage(void **state)
{
    (void)state;
    const uint16_t unsorted[] = {1, 9, 4};
    const uint16_t dup[] = {1, 4, 4, 9};
    craft_t u[] = {{.key = 0, .card = 3, .words = unsorted, .nwords = 3}};
    assert_craft_rejected(u, 1, 12346, "container 0: array not strictly increasing");
    craft_t d[] = {{.key = 0, .card = 1, .words = unsorted, .nwords = 1},
                   {.key = 1, .card = 4, .words = dup, .nwords = 4}};
    assert_craft_rejected(d, 2, 12346, "container 1: array not strictly increasing");

    /* An "array" of 4097 values cannot be expressed: the format reads a non-run
     * container with more than 4096 values as a bitset, so it fails as one. */
    uint16_t *big = malloc(4097 * sizeof(*big));
    assert_non_null(big);
    for (uint16_t i = 0; i < 4097; i++)
        big[i] = (uint16_t)(i * 3);
    craft_t a[] = {{.key = 0, .card = 4097, .words = big, .nwords = 4097}};
    assert_craft_rejected(a, 1, 12346, "container 0: bitset popcount");
    free(big);
}

static void test_bitset_popcount(void **state)
{
    (void)state;
    uint16_t *bits = bitset_words(100, 10100); /* 10000 values */
    craft_t more[] = {{.key = 7, .card = 10001, .words = bits, .nwords = 4096}};
    assert_craft_rejected(more, 1, 12346, "container 0: bitset popcount 10000 != cardinality 10001");
    craft_t less[] = {{.key = 7, .card = 9999, .words = bits, .nwords = 4096}};
    assert_craft_rejected(less, 1, 12346, "bitset popcount 10000 != cardinality 9999");
    craft_t ok[] = {{.key = 7, .card = 10000, .words = bits, .nwords = 4096}};
    assert_craft_accepted(ok, 1, 12346, 10000);
    free(bits);
}

static void test_run_damage(void **state)
{
    (void)state;
    const uint16_t empty[] = {0};
    const uint16_t overlap[] = {2, 10, 5, 15, 5};      /* [10,15] and [15,20] */
    const uint16_t unsorted[] = {2, 100, 0, 10, 0};    /* 100 then 10 */
    const uint16_t past_end[] = {1, 65530, 6};          /* [65530, 65536] */
    const uint16_t wrong_sum[] = {2, 0, 9, 20, 9};      /* 20 values */
    const uint16_t contained[] = {2, 10, 100, 20, 5};   /* second inside first */
    craft_t c[] = {{.key = 3, .card = 1, .run = true, .words = empty, .nwords = 1}};
    assert_craft_rejected(c, 1, 12347, "container 0: empty run container");
    c[0] = (craft_t){.key = 3, .card = 12, .run = true, .words = overlap, .nwords = 5};
    assert_craft_rejected(c, 1, 12347, "container 0: runs overlap");
    c[0] = (craft_t){.key = 3, .card = 107, .run = true, .words = contained, .nwords = 5};
    assert_craft_rejected(c, 1, 12347, "container 0: runs overlap");
    c[0] = (craft_t){.key = 3, .card = 2, .run = true, .words = unsorted, .nwords = 5};
    assert_craft_rejected(c, 1, 12347, "container 0: runs not sorted");
    c[0] = (craft_t){.key = 3, .card = 7, .run = true, .words = past_end, .nwords = 3};
    assert_craft_rejected(c, 1, 12347, "container 0: run past 65535");
    c[0] = (craft_t){.key = 3, .card = 21, .run = true, .words = wrong_sum, .nwords = 5};
    assert_craft_rejected(c, 1, 12347, "container 0: run cardinality 20 != declared 21");
    c[0].card = 20;
    assert_craft_accepted(c, 1, 12347, 20);
}

static void test_wrong_offsets(void **state)
{
    (void)state;
    const uint32_t cookies[] = {12346, 12347};
    for (size_t i = 0; i < ARRAY_LEN(cookies); i++) {
        bytes_t b = multi_container(cookies[i]);
        /* offsets start after cookie (+count or run flags) and 5 key/card pairs */
        size_t offsets_at = (cookies[i] == 12346 ? 8 : 5) + 5 * 4;
        for (size_t k = 0; k < 5; k++) {
            size_t at = offsets_at + 4 * k;
            uint32_t good = le32_at(b.p + at);
            const uint32_t bad[] = {good + 1, good - 1, 0, 0xFFFFFFFFu};
            for (size_t j = 0; j < ARRAY_LEN(bad); j++) {
                char why[64];
                snprintf(why, sizeof(why), "container %zu: offset", k);
                patch32(&b, at, bad[j]);
                assert_rejected(b.p, b.len, why);
            }
            patch32(&b, at, good);
        }
        char err[128];
        assert_true(codec_validate(b.p, b.len, err, sizeof(err)));
        free(b.p);
    }
}

static void test_nonzero_run_flag_padding(void **state)
{
    (void)state;
    bytes_t b = multi_container(12347);
    b.p[4] |= 0x80; /* flag for a sixth container that does not exist */
    assert_rejected(b.p, b.len, "nonzero padding in run flags");
    free(b.p);
}

static void test_container_count_and_huge_sizes(void **state)
{
    (void)state;
    const uint32_t counts[] = {65537, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
    for (size_t i = 0; i < ARRAY_LEN(counts); i++) {
        bytes_t b = {0};
        put32(&b, 12346);
        put32(&b, counts[i]);
        assert_rejected(b.p, b.len, "> 65536");
        free(b.p);
    }
    /* Largest legal counts with nothing behind them. */
    bytes_t b = {0};
    put32(&b, 12346);
    put32(&b, 65536);
    assert_rejected(b.p, b.len, "truncated key/cardinality header");
    free(b.p);
    b = (bytes_t){0};
    put32(&b, 0xFFFF0000u | 12347);
    assert_rejected(b.p, b.len, "truncated run flags");
    free(b.p);
    /* 65535 runs declared, 2 given. */
    const uint16_t many[] = {65535, 0, 0, 10, 0};
    craft_t c[] = {{.key = 0, .card = 2, .run = true, .words = many, .nwords = 5}};
    assert_craft_rejected(c, 1, 12347, "container 0: truncated runs");
    /* Every array declares 4096 values but the buffer ends early. */
    bytes_t h = {0};
    put32(&h, 12346);
    put32(&h, 3);
    for (uint16_t k = 0; k < 3; k++) {
        put16(&h, k);
        put16(&h, 4095);
    }
    for (uint32_t k = 0; k < 3; k++)
        put32(&h, 0xFFFFFFF0u);
    assert_rejected(h.p, h.len, "container 0: offset");
    free(h.p);
    /* A claimed length beyond the limit is rejected before any byte is read. */
    uint8_t small[8] = {0x3A, 0x30, 0, 0, 0, 0, 0, 0};
    char err[128];
    assert_false(codec_validate(small, CODEC_MAX_BYTES + 1, err, sizeof(err)));
    assert_non_null(strstr(err, "too large"));
    assert_false(codec_validate(small, SIZE_MAX, err, sizeof(err)));
    assert_null(codec_decode(small, SIZE_MAX, err, sizeof(err)));
    /* A NULL err is allowed. */
    assert_false(codec_validate(small, 3, NULL, 0));
}

/* Crafted input that crashes CRoaring 0.2.66: 134 bytes, nine containers, an
 * empty run container and a run whose declared cardinality is wrong. On this
 * machine roaring_bitmap_portable_deserialize_safe accepts exactly these bytes
 * and roaring_init_iterator then dereferences NULL, so they must never reach it. */
static void test_crafted_134_bytes(void **state)
{
    (void)state;
    const uint16_t empty[] = {0};
    const uint16_t run[] = {1, 0, 99};        /* 100 values declared as 50 */
    const uint16_t a3[] = {1, 2, 3};
    const uint16_t a6[] = {1, 2, 3, 4, 5, 6};
    craft_t c[9] = {{.key = 0, .card = 1, .run = true, .words = empty, .nwords = 1},
                    {.key = 1, .card = 50, .run = true, .words = run, .nwords = 3}};
    for (uint16_t k = 2; k < 8; k++)
        c[k] = (craft_t){.key = k, .card = 3, .words = a3, .nwords = 3};
    c[8] = (craft_t){.key = 8, .card = 6, .words = a6, .nwords = 6};
    bytes_t b = craft(c, 9, 12347);
    assert_int_equal(b.len, 134);
    char err[128] = "";
    assert_null(codec_decode(b.p, b.len, err, sizeof(err)));
    assert_string_equal(err, "container 0: empty run container");
    /* With the empty run fixed, the wrong cardinality is still caught. */
    const uint16_t one[] = {1, 5, 0};
    c[0].words = one;
    c[0].nwords = 3;
    bytes_t b2 = craft(c, 9, 12347);
    assert_null(codec_decode(b2.p, b2.len, err, sizeof(err)));
    assert_string_equal(err, "container 1: run cardinality 100 != declared 50");
    free(b.p);
    free(b2.p);
}

/* ---- the dense encoding: choice and exact bytes ----------------------------------- */

/* Encodes bm, checks the chosen encoding and its exact length, and round trips. */
static void assert_encoded(roaring_bitmap_t *bm, const char *name, size_t len)
{
    size_t got;
    assert_string_equal(encoded_name(bm, &got), name);
    assert_int_equal(got, len);
    assert_int_equal(codec_encoded_size(bm), len);
    assert_round_trip(bm);
}

/* Members of one day-numbered year of check-ins, from day `first`. */
static roaring_bitmap_t *checkins(uint32_t first, uint32_t days, uint32_t every)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t d = 0; d < days; d += every)
        roaring_bitmap_add(bm, first + d);
    return bm;
}

static void test_choice_rule(void **state)
{
    (void)state;
    size_t rlen;
    /* A year of every other day from day 20000: 183 members, 365 bits. Dense is
     * 1 tag + 2 varint (2500) + 46 raw bytes; Roaring an 8 + 8 byte header and
     * 2 bytes per member. The raw bytes are 0x55 but the last (days 360..364). */
    roaring_bitmap_t *bm = checkins(20000, 365, 2);
    assert_int_equal(roaring_cookie(bm, &rlen), 12346);
    assert_int_equal(rlen, 16 + 2 * 183);
    assert_encoded(bm, "dense", 1 + 2 + 46);
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    assert_memory_equal(buf, "\xB1\xC4\x13\x55\x55", 5);
    assert_int_equal(buf[len - 1], 0x15);
    free(buf);
    roaring_bitmap_free(bm);

    /* 50% random check-ins with the first and last day present: the same size. */
    rng_seed(365);
    bm = checkins(20000, 1, 1);
    for (uint32_t d = 1; d < 364; d++)
        if (rng_below(2))
            roaring_bitmap_add(bm, 20000 + d);
    roaring_bitmap_add(bm, 20000 + 364);
    assert_encoded(bm, "dense", 1 + 2 + 46);
    roaring_bitmap_free(bm);

    /* 30 consecutive days: one run (15 bytes as Roaring) or 4 raw bytes. */
    bm = checkins(20000, 30, 1);
    assert_int_equal(roaring_cookie(bm, &rlen) & 0xFFFF, 12347);
    assert_int_equal(rlen, 15);
    assert_encoded(bm, "dense", 1 + 2 + 4);
    roaring_bitmap_free(bm);

    /* A 200-member group receipt: read bit 2i and quit bit 2i + 1 per member. */
    bm = roaring_bitmap_create();
    for (uint32_t m = 0; m < 200; m++) {
        roaring_bitmap_add(bm, 2 * m);
        if (m % 7 == 6)
            roaring_bitmap_add(bm, 2 * m + 1);
    }
    assert_encoded(bm, "dense", 1 + 1 + 50);
    roaring_bitmap_free(bm);

    /* 1825 ids spread over 10,000,000: sparse, stays Roaring. */
    bm = roaring_bitmap_create();
    for (uint32_t i = 0; i < 1825; i++)
        roaring_bitmap_add(bm, i * 5479 + 11);
    assert_int_equal(roaring_cookie(bm, &rlen), 12346);
    assert_encoded(bm, "roaring", rlen);
    roaring_bitmap_free(bm);

    /* The empty bitmap is B1 00; a long run stays Roaring. */
    bm = roaring_bitmap_create();
    assert_encoded(bm, "dense", 2);
    for (uint32_t v = 100000; v < 400000; v++)
        roaring_bitmap_add(bm, v);
    assert_int_equal(encoded_cookie(bm, &len) & 0xFFFF, 12347);
    assert_encoded(bm, "roaring", len);
    roaring_bitmap_free(bm);
}

/* Three values in one array container take 8 + 8 + 6 = 22 bytes as Roaring; as
 * dense 2 + the bytes from 0 to the last value: a tie at 20 raw bytes keeps Roaring. */
static void test_choice_tie(void **state)
{
    (void)state;
    const uint32_t last[] = {151, 159, 167};
    const char *want[] = {"dense", "roaring", "roaring"};
    const size_t want_len[] = {21, 22, 22};
    for (size_t i = 0; i < ARRAY_LEN(last); i++) {
        const uint32_t vals[] = {0, 80, last[i]};
        roaring_bitmap_t *bm = roaring_bitmap_of_ptr(3, vals);
        assert_encoded(bm, want[i], want_len[i]);
        roaring_bitmap_free(bm);
    }
}

/* One member at each varint length boundary: exact bytes. */
static void test_dense_varint(void **state)
{
    (void)state;
    static const struct {
        uint32_t value;
        size_t len;
        const char *bytes;
    } cases[] = {
        {0, 3, "\xB1\x00\x01"},
        {1023, 3, "\xB1\x7F\x80"},
        {1024, 4, "\xB1\x80\x01\x01"},
        {131071, 4, "\xB1\xFF\x7F\x80"},
        {131072, 5, "\xB1\x80\x80\x01\x01"},
        {16777216, 6, "\xB1\x80\x80\x80\x01\x01"},
        {2147483648u, 7, "\xB1\x80\x80\x80\x80\x01\x01"},
        {4294967295u, 7, "\xB1\xFF\xFF\xFF\xFF\x01\x80"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        roaring_bitmap_t *bm = roaring_bitmap_of_ptr(1, &cases[i].value);
        uint8_t *buf;
        size_t len;
        assert_true(codec_encode(bm, &buf, &len));
        assert_int_equal(len, cases[i].len);
        assert_memory_equal(buf, cases[i].bytes, len);
        free(buf);
        assert_round_trip(bm);
        roaring_bitmap_free(bm);
    }
}

static void test_encoding_name(void **state)
{
    (void)state;
    assert_string_equal(codec_encoding_name((const uint8_t *)"\xB1\x00", 2), "dense");
    assert_string_equal(codec_encoding_name((const uint8_t *)"\xB1", 1), "dense");
    assert_string_equal(codec_encoding_name((const uint8_t *)"\x3A\x30\0\0\0\0\0\0", 8), "roaring");
    assert_string_equal(codec_encoding_name((const uint8_t *)"\x3B\x30\0\0", 4), "roaring");
    assert_null(codec_encoding_name((const uint8_t *)"\x3A\x31", 2));
    assert_null(codec_encoding_name((const uint8_t *)"\x3A", 1));
    assert_null(codec_encoding_name((const uint8_t *)"\xB0\x00", 2));
    assert_null(codec_encoding_name(NULL, 0));
}

/* ---- the dense encoding: each kind of damage ----------------------------------------- */

static void test_dense_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } cases[] = {
        {"\xB0\x00\x01", 3, "bad cookie: first byte 0xb0"},
        {"\xB3", 1, "bad cookie: first byte 0xb3"}, /* 0xB2 is the gaps tag (test_gaps.c) */
        {"\x00\x00\x00\x00", 4, "bad cookie: first byte 0x00"},
        {"\xB1", 1, "dense: truncated base varint"},
        {"\xB1\x80", 2, "dense: truncated base varint"},
        {"\xB1\xFF\xFF\xFF\xFF", 5, "dense: truncated base varint"},
        {"\xB1\x80\x00\x01", 4, "dense: non-minimal base varint (2 bytes)"},
        {"\xB1\x81\x80\x00\x01", 5, "dense: non-minimal base varint (3 bytes)"},
        {"\xB1\x80\x80\x80\x80\x00", 6, "dense: non-minimal base varint (5 bytes)"},
        {"\xB1\x80\x80\x80\x80\x80\x01", 7, "dense: base varint longer than 5 bytes"},
        {"\xB1\x80\x80\x80\x80\x02\x01", 7, "dense: base 4294967296 past 2^32"},
        {"\xB1\xFF\xFF\xFF\xFF\x7F\x01", 7, "past 2^32"},
        {"\xB1\x01", 2, "dense: no raw bytes but base 8 (empty is B1 00)"},
        {"\xB1\x00\x00", 3, "dense: first raw byte is zero"},
        {"\xB1\x00\x00\x01", 4, "dense: first raw byte is zero"},
        {"\xB1\x05\x01\x00", 4, "dense: last raw byte is zero"},
        {"\xB1\x00\x01\x00\x00", 5, "dense: last raw byte is zero"},
        /* base 2^32 - 8 and two raw bytes: bits up to 2^32 + 7 */
        {"\xB1\xFF\xFF\xFF\xFF\x01\x01\x01", 8, "dense: 2 raw bytes from base 4294967288 pass 2^32"},
        {"\xB1\xFE\xFF\xFF\xFF\x01\x01\x00\x01", 9, "dense: 3 raw bytes from base 4294967280 pass 2^32"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        assert_rejected((const uint8_t *)cases[i].bytes, cases[i].len, cases[i].why);

    /* Trailing bytes cannot be told from raw bytes, except past 2^32: a bitmap that
     * ends at 2^32 - 1 followed by any byte is rejected. */
    const uint32_t top[] = {4294967200u, 4294967295u};
    roaring_bitmap_t *bm = roaring_bitmap_of_ptr(2, top);
    uint8_t *buf;
    size_t len;
    assert_true(codec_encode(bm, &buf, &len));
    assert_string_equal(codec_encoding_name(buf, len), "dense");
    uint8_t *longer = malloc(len + 1);
    assert_non_null(longer);
    memcpy(longer, buf, len);
    longer[len] = 0x01;
    assert_rejected(longer, len + 1, "pass 2^32");
    free(longer);
    /* Each shorter prefix is either rejected or a different, valid bitmap. */
    for (size_t n = 0; n < len; n++) {
        char err[128];
        uint8_t *copy = exact_copy(buf, n);
        roaring_bitmap_t *back = codec_decode(copy, n, err, sizeof(err));
        if (back) {
            assert_false(roaring_bitmap_equals(back, bm));
            roaring_bitmap_free(back);
        }
        free(copy);
    }
    free(buf);
    roaring_bitmap_free(bm);
}

/* ---- the dense encoding: large inputs ---------------------------------------------------- */

/* 3 MiB of random raw bytes from a base that is not a multiple of 65536: decoding
 * crosses group and key boundaries inside bytes' spans, and must match the
 * members added one by one. */
static void test_dense_decode_large(void **state)
{
    (void)state;
    const size_t nraw = 3u << 20;
    const uint32_t base = 5 * 65536 + 8 * 1001;
    uint8_t *buf = malloc(4 + nraw);
    assert_non_null(buf);
    size_t pos = 0;
    buf[pos++] = 0xB1;
    buf[pos++] = (uint8_t)(0x80 | ((base / 8) & 0x7F));
    buf[pos++] = (uint8_t)(0x80 | ((base / 8) >> 7 & 0x7F));
    buf[pos++] = (uint8_t)((base / 8) >> 14);
    rng_seed(8);
    roaring_bitmap_t *want = roaring_bitmap_create();
    for (size_t j = 0; j < nraw; j++) {
        /* sparse stretches (array containers), dense ones (bitsets) and empty keys */
        uint32_t zone = (uint32_t)(j / 20000) % 3;
        uint8_t b = 0;
        if (zone == 0)
            b = (uint8_t)rng32();
        else if (zone == 1 && rng_below(64) == 0)
            b = (uint8_t)(1u << rng_below(8));
        if (j == 0 || j == nraw - 1)
            b = 0x81;
        buf[pos + j] = b;
        for (unsigned i = 0; i < 8; i++)
            if (b >> i & 1)
                roaring_bitmap_add(want, base + 8 * (uint32_t)j + i);
    }
    assert_decodes_to(buf, pos + nraw, want);
    free(buf);
    roaring_bitmap_free(want);
}

/* ---- randomized ----------------------------------------------------------------- */

/* Values cluster in a few keys (so containers change kind) plus the extremes. */
/* When narrow_span is set, every random value falls in [narrow_base, narrow_base +
 * narrow_span), so that the dense encoding is often the smaller one. */
static uint32_t narrow_base, narrow_span;

static uint32_t random_value(void)
{
    static const uint32_t keys[] = {0, 1, 2, 5, 100, 65534, 65535};
    if (narrow_span)
        return narrow_base + rng_below(narrow_span);
    if (rng_below(10) == 0)
        return rng32();
    return keys[rng_below(ARRAY_LEN(keys))] << 16 | rng_below(65536);
}

static roaring_bitmap_t *random_bitmap(void);

static void mutate(roaring_bitmap_t *bm)
{
    uint32_t start = random_value(), n = rng_below(3000) + 1;
    roaring_bitmap_t *other;
    switch (rng_below(9)) {
    case 0:
        for (uint32_t i = 0; i < n; i++)
            roaring_bitmap_add(bm, random_value());
        break;
    case 1: {
        uint32_t vals[512];
        for (size_t i = 0; i < ARRAY_LEN(vals); i++)
            vals[i] = rng_below(2) ? start + (uint32_t)i : random_value();
        roaring_bitmap_add_many(bm, ARRAY_LEN(vals), vals);
        break;
    }
    case 2: /* remove members, some of them inside runs */
        for (uint32_t i = 0; i < n && !roaring_bitmap_is_empty(bm); i++) {
            uint32_t v;
            uint64_t card = roaring_bitmap_get_cardinality(bm);
            if (roaring_bitmap_select(bm, rng_below((uint32_t)(card > UINT32_MAX ? UINT32_MAX : card)), &v))
                roaring_bitmap_remove(bm, v);
        }
        break;
    case 3: /* a dense range one by one, possibly crossing keys and wrapping at 2^32 */
        n = rng_below(80000);
        for (uint32_t i = 0; i < n; i++)
            roaring_bitmap_add(bm, start + i);
        break;
    case 4: /* dense, irregular: bitset containers */
        for (uint32_t i = 0; i < 20000; i++)
            roaring_bitmap_add(bm, start + i * (1 + rng_below(3)));
        break;
    case 5:
        roaring_bitmap_run_optimize(bm);
        break;
    default: {
        void (*const ops[])(roaring_bitmap_t *, const roaring_bitmap_t *) = {
            roaring_bitmap_or_inplace, roaring_bitmap_and_inplace,
            roaring_bitmap_andnot_inplace, roaring_bitmap_xor_inplace};
        other = random_bitmap();
        ops[rng_below(4)](bm, other);
        roaring_bitmap_free(other);
        break;
    }
    }
}

static roaring_bitmap_t *random_bitmap(void)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    uint32_t start = random_value();
    for (uint32_t i = 0, n = rng_below(70000); i < n; i++)
        roaring_bitmap_add(bm, start + i);
    for (uint32_t i = 0, n = rng_below(5000); i < n; i++)
        roaring_bitmap_add(bm, random_value());
    if (rng_below(2))
        roaring_bitmap_run_optimize(bm);
    return bm;
}

static void random_round_trips(int iterations)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (int iter = 0; iter < iterations; iter++) {
        mutate(bm);
        if (roaring_bitmap_get_cardinality(bm) > 2000000)
            roaring_bitmap_clear(bm); /* keep the test fast */
        roaring_bitmap_t *before = roaring_bitmap_copy(bm);
        assert_round_trip(bm);
        /* run_optimize inside codec_encode must not change the contents */
        assert_true(roaring_bitmap_equals(before, bm));
        roaring_bitmap_free(before);
    }
    roaring_bitmap_free(bm);
}

static void test_random_round_trips(void **state)
{
    (void)state;
    rng_seed(20240601);
    random_round_trips(400);
}

/* The same mutations inside windows of 131072 values: both encodings get
 * chosen, at the bottom of the range (base 0, one-byte varint) and near 2^32. */
static void test_random_round_trips_narrow(void **state)
{
    (void)state;
    const uint32_t bases[] = {0, 20000, 3 * 65536 + 8, 4294967295u - (1u << 17) - 200000};
    int dense = 0, total = 0;
    rng_seed(314159);
    for (size_t b = 0; b < ARRAY_LEN(bases); b++) {
        narrow_base = bases[b];
        narrow_span = 1u << 17;
        roaring_bitmap_t *bm = roaring_bitmap_create();
        for (int iter = 0; iter < 100; iter++) {
            mutate(bm);
            size_t len;
            dense += strcmp(encoded_name(bm, &len), "dense") == 0;
            total++;
            assert_round_trip(bm);
        }
        roaring_bitmap_free(bm);
    }
    narrow_span = 0;
    print_message("narrow round trips: %d of %d dense\n", dense, total);
    assert_true(dense > total / 10 && dense < total); /* both, often */
}

static bool count_value(uint32_t value, void *param)
{
    (void)value;
    ++*(uint64_t *)param;
    return true;
}

/* Decodes one corrupted buffer: it is rejected, or it is a bitmap CRoaring can
 * fully use and whose re-encoding validates. */
static void check_corrupted(const uint8_t *p, size_t len)
{
    char err[128];
    uint8_t *copy = exact_copy(p, len);
    bool valid = codec_validate(copy, len, err, sizeof(err));
    roaring_bitmap_t *bm = codec_decode(copy, len, err, sizeof(err));
    assert_int_equal(valid, bm != NULL);
    if (bm) {
        uint64_t n = 0;
        roaring_iterate(bm, count_value, &n);
        assert_int_equal(n, roaring_bitmap_get_cardinality(bm));
        uint8_t *out;
        size_t outlen;
        assert_true(codec_encode(bm, &out, &outlen));
        assert_true(codec_validate(out, outlen, err, sizeof(err)));
        free(out);
        roaring_bitmap_free(bm);
    }
    free(copy);
}

static void test_random_corruptions(void **state)
{
    (void)state;
    rng_seed(99);
    int accepted = 0, total = 0;
    for (int iter = 0; iter < 60; iter++) {
        roaring_bitmap_t *bm = random_bitmap();
        for (int m = 0; m < 3; m++)
            mutate(bm);
        uint8_t *buf;
        size_t len;
        assert_true(codec_encode(bm, &buf, &len));
        for (int c = 0; c < 60; c++) {
            /* Half the corruptions hit the first 64 bytes, where the headers are. */
            size_t at = rng_below(2) ? rng_below((uint32_t)(len < 64 ? len : 64)) : rng_below((uint32_t)len);
            uint8_t old = buf[at];
            buf[at] = (uint8_t)(old ^ (1 + rng_below(255)));
            char err[128];
            accepted += codec_validate(buf, len, err, sizeof(err));
            total++;
            check_corrupted(buf, len);
            buf[at] = old;
        }
        free(buf);
        roaring_bitmap_free(bm);
    }
    /* Bitset bit flips are legitimately undetectable only when cardinality
     * matches, so most corruptions must be rejected. */
    print_message("corruptions: %d of %d accepted as valid\n", accepted, total);
    assert_true(accepted < total);
}

/* Most flips of dense raw bits make another valid bitmap; what matters is that
 * every accepted input decodes to a bitmap CRoaring can use and re-encode. */
static void test_random_corruptions_dense(void **state)
{
    (void)state;
    rng_seed(271828);
    narrow_base = 65536 * 7 + 24;
    narrow_span = 1u << 18;
    for (int iter = 0; iter < 40; iter++) {
        roaring_bitmap_t *bm = random_bitmap();
        mutate(bm);
        uint8_t *buf;
        size_t len;
        assert_true(codec_encode(bm, &buf, &len));
        for (int c = 0; c < 60; c++) {
            size_t at = rng_below(2) ? rng_below((uint32_t)(len < 8 ? len : 8))
                                     : rng_below(3) ? len - 1 - rng_below((uint32_t)(len < 8 ? len : 8))
                                                    : rng_below((uint32_t)len);
            uint8_t old = buf[at];
            buf[at] = (uint8_t)(old ^ (1 + rng_below(255)));
            check_corrupted(buf, len);
            buf[at] = old;
        }
        free(buf);
        roaring_bitmap_free(bm);
    }
    narrow_span = 0;
}

/* ---- codec_keep_from ------------------------------------------------------------ */

struct filter {
    roaring_bitmap_t *out;
    uint32_t bound;
};

static bool keep_naive(uint32_t value, void *param)
{
    struct filter *f = param;
    if (value >= f->bound)
        roaring_bitmap_add(f->out, value);
    return true;
}

static void assert_keep_from(const roaring_bitmap_t *bm, uint32_t bound)
{
    struct filter f = {roaring_bitmap_create(), bound};
    roaring_iterate(bm, keep_naive, &f);
    roaring_bitmap_t *got = codec_keep_from(bm, bound);
    assert_non_null(got);
    if (!roaring_bitmap_equals(got, f.out))
        fail_msg("keep_from(%u): %llu values, expected %llu", bound,
                 (unsigned long long)roaring_bitmap_get_cardinality(got),
                 (unsigned long long)roaring_bitmap_get_cardinality(f.out));
    assert_round_trip(got);
    roaring_bitmap_free(got);
    roaring_bitmap_free(f.out);
}

static void test_keep_from(void **state)
{
    (void)state;
    roaring_bitmap_t *empty = roaring_bitmap_create();
    assert_keep_from(empty, 0);
    assert_keep_from(empty, 4294967295u);
    roaring_bitmap_free(empty);

    rng_seed(5);
    for (int iter = 0; iter < 40; iter++) {
        roaring_bitmap_t *bm = random_bitmap();
        mutate(bm);
        roaring_bitmap_t *copy = roaring_bitmap_copy(bm);
        uint32_t bounds[12] = {0, 1, 65535, 65536, 4294967295u, random_value(), rng32()};
        size_t nb = 7;
        if (!roaring_bitmap_is_empty(bm)) {
            uint32_t min = roaring_bitmap_minimum(bm), max = roaring_bitmap_maximum(bm), mid;
            bounds[nb++] = min;
            bounds[nb++] = max;
            bounds[nb++] = max + 1;
            if (roaring_bitmap_select(bm, (uint32_t)(roaring_bitmap_get_cardinality(bm) / 2), &mid)) {
                bounds[nb++] = mid;
                bounds[nb++] = mid + 1;
            }
        }
        for (size_t i = 0; i < nb; i++)
            assert_keep_from(bm, bounds[i]);
        assert_true(roaring_bitmap_equals(bm, copy)); /* bm is untouched */
        roaring_bitmap_free(copy);
        roaring_bitmap_free(bm);
    }
}

/* ---- codec_encode_patch ------------------------------------------------------ */

/* A big bitmap as hot keys hold them: keys 3 .. 3 + nkeys - 1, each a random half of
 * its 65536 values (bitset containers), encoded dense. */
static roaring_bitmap_t *half_set(uint32_t nkeys)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    assert_non_null(bm);
    for (uint32_t k = 3; k < 3 + nkeys; k++)
        for (uint32_t v = 0; v < 65536; v += 2) roaring_bitmap_add(bm, (k << 16) + v + (rng32() & 1));
    return bm;
}

/* One change inside key k: a flipped bit, a container thinned into an array or a run,
 * a container emptied, or one created where there was none. */
static void change_key(roaring_bitmap_t *bm, uint32_t k)
{
    uint32_t base = k << 16;
    switch (rng_below(6)) {
    case 0:
    case 1: { /* the hot key's write: one bit */
        uint32_t v = base + rng_below(65536);
        if (roaring_bitmap_contains(bm, v)) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
        break;
    }
    case 2: /* thinned to a few members: an array */
        for (uint32_t v = base; v < base + 65536; v++)
            if (v % 97) roaring_bitmap_remove(bm, v);
        break;
    case 3: /* one long run */
        for (uint32_t v = base; v < base + 65536; v++)
            if (v < base + 1000 || v > base + 30000) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
        break;
    case 4: /* emptied */
        for (uint32_t v = base; v < base + 65536; v++) roaring_bitmap_remove(bm, v);
        break;
    default: /* refilled */
        for (uint32_t v = base; v < base + 65536; v += 3) roaring_bitmap_add(bm, v);
        break;
    }
}

/* Patches bm from old (codec_encode_patch) and encodes a copy of it whole: when the
 * patch answers, its bytes are the whole encode's and what changed, read from the two
 * encodings (codec_patch_changes), is exactly old XOR bm; and bm is still bm, run-
 * optimized like its copy. Whether it patched; *changed: the members changed. */
static bool patch_matches_encode(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard,
                                 uint32_t lo, uint32_t hi, uint64_t *changed)
{
    uint8_t *enc = NULL, *ref = NULL;
    size_t enclen, reflen;
    roaring_bitmap_t *copy = roaring_bitmap_copy(bm);
    assert_non_null(copy);
    bool ok = codec_encode_patch(bm, old, oldlen, oldcard, lo, hi, &enc, &enclen);
    assert_true(codec_encode(copy, &ref, &reflen));
    *changed = 0;
    if (ok) {
        assert_int_equal(enclen, reflen);
        assert_memory_equal(enc, ref, reflen);
        assert_decodes_to(enc, enclen, copy);
        roaring_bitmap_t *was = codec_decode(old, oldlen, NULL, 0), *changes;
        assert_non_null(was);
        roaring_bitmap_t *want = roaring_bitmap_xor(was, copy);
        assert_non_null(changes = codec_patch_changes(old, oldlen, enc, enclen, lo, hi));
        assert_true(roaring_bitmap_equals(changes, want));
        *changed = roaring_bitmap_get_cardinality(changes);
        roaring_bitmap_free(changes);
        roaring_bitmap_free(want);
        roaring_bitmap_free(was);
    } else {
        assert_null(enc);
    }
    assert_true(roaring_bitmap_equals(bm, copy));
    free(enc);
    free(ref);
    roaring_bitmap_free(copy);
    return ok;
}

/* Whenever the patch answers, its bytes are codec_encode's; and it does answer for
 * single-bit writes into the middle of a dense value. */
static void test_encode_patch_equals_encode(void **state)
{
    (void)state;
    rng_seed(4242);
    int patched = 0, bit_writes = 0;
    for (int round = 0; round < 60; round++) {
        uint32_t nkeys = 4 + rng_below(12);
        roaring_bitmap_t *bm = half_set(nkeys);
        uint8_t *old = NULL;
        size_t oldlen;
        assert_true(codec_encode(bm, &old, &oldlen));
        uint64_t oldcard = roaring_bitmap_get_cardinality(bm);
        /* changes in keys lo .. hi (sometimes past the ends: the bitmap's ends move) */
        uint32_t lo = 1 + rng_below(nkeys + 3), hi = lo + rng_below(3);
        bool one_bit = rng_below(2) == 0 && lo >= 4 && hi < 2 + nkeys;
        if (one_bit) {
            hi = lo;
            uint32_t v = (lo << 16) + rng_below(65536);
            if (roaring_bitmap_contains(bm, v)) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
            bit_writes++;
        } else {
            for (uint32_t k = lo; k <= hi; k++)
                if (rng_below(2)) change_key(bm, k);
        }
        uint64_t changed;
        if (patch_matches_encode(bm, old, oldlen, oldcard, lo, hi, &changed)) {
            patched++;
            if (one_bit) assert_int_equal(changed, 1);
        } else {
            assert_false(one_bit); /* a bit inside the value never moves its ends */
        }
        free(old);
        roaring_bitmap_free(bm);
    }
    assert_true(bit_writes > 10);
    assert_true(patched >= bit_writes);
}

/* A big value stored portable (a few full containers make the runs smaller than the
 * dense bytes) with bitsets elsewhere: a write into its bitsets is patched in place,
 * byte for byte codec_encode's, and its changes read back exactly; a write that turns
 * a bitset into another kind, or touches a run, is not patched. */
static void test_encode_patch_portable(void **state)
{
    (void)state;
    rng_seed(9191);
    int patched = 0;
    for (int round = 0; round < 40; round++) {
        uint32_t nkeys = 6 + rng_below(10);
        roaring_bitmap_t *bm = half_set(nkeys);
        for (uint32_t v = 3u << 16; v < 5u << 16; v += 256) { /* keys 3, 4: full (runs); no range */
            uint32_t vals[256];                                 /* function: 0.2.66's are buggy */
            for (uint32_t j = 0; j < 256; j++) vals[j] = v + j;
            roaring_bitmap_add_many(bm, 256, vals);
        }
        uint8_t *old = NULL;
        size_t oldlen;
        assert_true(codec_encode(bm, &old, &oldlen));
        assert_string_equal(codec_encoding_name(old, oldlen), "roaring");
        uint64_t oldcard = roaring_bitmap_get_cardinality(bm);
        uint32_t lo = 5 + rng_below(nkeys - 2), hi = lo + rng_below(2), kind = rng_below(4);
        if (hi > 2 + nkeys) hi = 2 + nkeys;
        for (uint32_t k = lo; k <= hi; k++)
            for (int i = 0; i < 30; i++) { /* bits flipped in bitsets */
                uint32_t v = (k << 16) + rng_below(65536);
                if (roaring_bitmap_contains(bm, v)) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
            }
        if (kind == 0) change_key(bm, lo);                                  /* maybe another kind */
        if (kind == 1) { lo = 4; roaring_bitmap_remove(bm, (4u << 16) + 9); } /* inside a run */
        uint64_t changed;
        bool ok = patch_matches_encode(bm, old, oldlen, oldcard, lo, hi, &changed);
        if (kind >= 2) assert_true(ok); /* bitsets stay bitsets */
        if (kind == 1) assert_false(ok);
        patched += ok;
        free(old);
        roaring_bitmap_free(bm);
    }
    assert_true(patched >= 15);
}

/* codec_encode_changed, told exactly which members changed since codec_encode left bm,
 * writes codec_encode's bytes: sparse arrays, bitsets, and containers that the changes
 * turn into runs or out of them. */
static void test_encode_changed_equals_encode(void **state)
{
    (void)state;
    rng_seed(31337);
    for (int round = 0; round < 40; round++) {
        roaring_bitmap_t *bm = roaring_bitmap_create(), *changed = roaring_bitmap_create();
        assert_non_null(bm);
        assert_non_null(changed);
        for (int i = 0; i < 3000; i++) roaring_bitmap_add(bm, rng32() % (200u << 16)); /* arrays */
        for (uint32_t v = 7u << 16; v < (7u << 16) + 60000; v++) roaring_bitmap_add(bm, v); /* a run */
        for (uint32_t v = 9u << 16; v < 10u << 16; v += 1 + rng_below(3)) roaring_bitmap_add(bm, v); /* bitset */
        uint8_t *first = NULL, *got = NULL, *want = NULL;
        size_t flen, glen, wlen;
        assert_true(codec_encode(bm, &first, &flen)); /* leaves bm run-optimized */
        for (int i = 0; i < 200; i++) {
            uint32_t v = rng_below(4) == 0 ? (7u << 16) + rng_below(65536) /* into the run */
                         : rng_below(3) == 0 ? (9u << 16) + rng_below(65536) : rng32() % (200u << 16);
            if (roaring_bitmap_contains(bm, v)) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
            if (roaring_bitmap_contains(changed, v)) roaring_bitmap_remove(changed, v); else roaring_bitmap_add(changed, v);
        }
        if (round % 4 == 0) /* the run filled up to a whole container */
            for (uint32_t v = 7u << 16; v < 8u << 16; v++)
                if (!roaring_bitmap_contains(bm, v)) {
                    roaring_bitmap_add(bm, v);
                    roaring_bitmap_add(changed, v);
                }
        roaring_bitmap_t *copy = roaring_bitmap_copy(bm), *copy2 = roaring_bitmap_copy(bm);
        assert_non_null(copy);
        assert_non_null(copy2);
        assert_true(codec_encode_changed(bm, changed, &got, &glen));
        assert_true(codec_encode(copy, &want, &wlen));
        assert_int_equal(glen, wlen);
        assert_memory_equal(got, want, wlen);
        /* the same in two steps, into a buffer of the caller's; and a whole encode so */
        size_t size = codec_encode_prepare(copy2, round % 2 ? changed : NULL);
        assert_int_equal(size, wlen);
        uint8_t *into = malloc(size);
        assert_non_null(into);
        assert_true(codec_encode_into(copy2, round % 2 ? changed : NULL, into, size));
        assert_memory_equal(into, want, wlen);
        assert_false(codec_encode_into(copy2, NULL, into, size - 1)); /* not its length */
        free(into);
        roaring_bitmap_free(copy2);
        free(first);
        free(got);
        free(want);
        roaring_bitmap_free(copy);
        roaring_bitmap_free(changed);
        roaring_bitmap_free(bm);
    }
}

/* validate_roaring_keys checks the contents of the containers it is told about and the
 * places and lengths of all: an unsorted array elsewhere passes (it is the encode of a
 * container checked before), one in a named container, a wrong offset or a cut value
 * does not. */
static void test_validate_keys(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create(), *only = roaring_bitmap_create();
    assert_non_null(bm);
    assert_non_null(only);
    for (uint32_t c = 0; c < 6; c++)
        for (uint32_t i = 0; i < 50; i++) roaring_bitmap_add(bm, (c << 16) + 7 * i); /* six arrays */
    roaring_bitmap_add(only, (2u << 16) + 1); /* container 2 changed */
    uint8_t *enc = NULL;
    size_t len;
    assert_true(codec_encode(bm, &enc, &len));
    uint64_t card = 0;
    struct reader r = {.buf = enc, .len = len};
    assert_true(validate_roaring_keys(&r, &card, only));
    assert_int_equal(card, 300);
    struct header h;
    struct reader hr = {.buf = enc, .len = len};
    assert_true(read_header(&hr, &h));
    assert_non_null(h.offsets);
    size_t p4 = le32(h.offsets + 4 * 4), p2 = le32(h.offsets + 4 * 2);
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    /* container 4 (not named): its first two members swapped */
    memcpy(bad, enc, len);
    memcpy(bad + p4, enc + p4 + 2, 2);
    memcpy(bad + p4 + 2, enc + p4, 2);
    r = (struct reader){.buf = bad, .len = len};
    assert_true(validate_roaring_keys(&r, &card, only));
    r = (struct reader){.buf = bad, .len = len};
    assert_false(validate_roaring(&r, &card));
    /* the same in container 2 (named) */
    memcpy(bad, enc, len);
    memcpy(bad + p2, enc + p2 + 2, 2);
    memcpy(bad + p2 + 2, enc + p2, 2);
    r = (struct reader){.buf = bad, .len = len};
    assert_false(validate_roaring_keys(&r, &card, only));
    /* container 5's offset off by two, and the value cut short */
    memcpy(bad, enc, len);
    bad[(size_t)(h.offsets - enc) + 4 * 5] ^= 2;
    r = (struct reader){.buf = bad, .len = len};
    assert_false(validate_roaring_keys(&r, &card, only));
    r = (struct reader){.buf = enc, .len = len - 2};
    assert_false(validate_roaring_keys(&r, &card, only));
    free(bad);
    free(enc);
    roaring_bitmap_free(only);
    roaring_bitmap_free(bm);
}

/* A change outside the keys it is told about is caught by the cardinality check (the
 * caller then encodes whole); a sparse portable old encoding (arrays), or none that
 * matches, is not patched (test_encode_patch_portable has the portable bitsets). */
static void test_encode_patch_refuses(void **state)
{
    (void)state;
    rng_seed(77);
    roaring_bitmap_t *bm = half_set(6);
    uint8_t *old = NULL, *enc = NULL;
    size_t oldlen, enclen;
    assert_true(codec_encode(bm, &old, &oldlen));
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    uint32_t v = (5u << 16) + 10;
    if (roaring_bitmap_contains(bm, v)) roaring_bitmap_remove(bm, v); else roaring_bitmap_add(bm, v);
    assert_false(codec_encode_patch(bm, old, oldlen, card, 7, 7, &enc, &enclen)); /* changed key 5, told 7 */
    assert_null(enc);
    assert_true(codec_encode_patch(bm, old, oldlen, card, 5, 5, &enc, &enclen));
    free(enc);
    enc = NULL;
    assert_false(codec_encode_patch(bm, old, oldlen - 1, card, 5, 5, &enc, &enclen)); /* wrong length */
    assert_false(codec_encode_patch(bm, old, oldlen, card, 6, 5, &enc, &enclen));     /* empty range */
    /* changes are read only between dense encodings of one base */
    assert_null(codec_patch_changes(old, oldlen, old, oldlen, 6, 5));
    uint8_t *moved = malloc(oldlen);
    assert_non_null(moved);
    memcpy(moved, old, oldlen);
    moved[1] ^= 1; /* another base */
    assert_null(codec_patch_changes(old, oldlen, moved, oldlen, 5, 5));
    assert_null(codec_patch_changes(old, oldlen, old, oldlen - 1, 5, 5)); /* lengths differ */
    free(moved);
    roaring_bitmap_t *none = codec_patch_changes(old, oldlen, old, oldlen, 0, 65535);
    assert_non_null(none);
    assert_true(roaring_bitmap_is_empty(none));
    roaring_bitmap_free(none);
    roaring_bitmap_free(bm);
    free(old);
    /* sparse: portable, never patched */
    roaring_bitmap_t *sparse = roaring_bitmap_create();
    for (uint32_t i = 0; i < 2000; i++) roaring_bitmap_add(sparse, i * 100003u);
    assert_true(codec_encode(sparse, &old, &oldlen));
    assert_string_equal(codec_encoding_name(old, oldlen), "roaring");
    card = roaring_bitmap_get_cardinality(sparse);
    roaring_bitmap_add(sparse, 5 * 100003u + 1);
    assert_false(codec_encode_patch(sparse, old, oldlen, card, 7, 7, &enc, &enclen));
    assert_null(enc);
    assert_null(codec_patch_changes(old, oldlen, old, oldlen, 7, 7));
    roaring_bitmap_free(sparse);
    free(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c),
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_round_trip_extremes),
        cmocka_unit_test(test_round_trip_sparse_array),
        cmocka_unit_test(test_round_trip_bitset),
        cmocka_unit_test(test_round_trip_run),
        cmocka_unit_test(test_round_trip_add_many_remove),
        cmocka_unit_test(test_round_trip_set_operations),
        cmocka_unit_test(test_round_trip_all_keys),
        cmocka_unit_test(test_crafted_valid),
        cmocka_unit_test(test_bad_cookie),
        cmocka_unit_test(test_truncated_every_prefix),
        cmocka_unit_test(test_trailing_byte),
        cmocka_unit_test(test_keys_not_increasing),
        cmocka_unit_test(test_array_damage),
        cmocka_unit_test(test_bitset_popcount),
        cmocka_unit_test(test_run_damage),
        cmocka_unit_test(test_wrong_offsets),
        cmocka_unit_test(test_nonzero_run_flag_padding),
        cmocka_unit_test(test_container_count_and_huge_sizes),
        cmocka_unit_test(test_crafted_134_bytes),
        cmocka_unit_test(test_choice_rule),
        cmocka_unit_test(test_choice_tie),
        cmocka_unit_test(test_dense_varint),
        cmocka_unit_test(test_encoding_name),
        cmocka_unit_test(test_dense_malformed),
        cmocka_unit_test(test_dense_decode_large),
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_random_round_trips_narrow),
        cmocka_unit_test(test_random_corruptions),
        cmocka_unit_test(test_random_corruptions_dense),
        cmocka_unit_test(test_keep_from),
        cmocka_unit_test(test_encode_patch_equals_encode),
        cmocka_unit_test(test_encode_patch_refuses),
        cmocka_unit_test(test_encode_patch_portable),
        cmocka_unit_test(test_encode_changed_equals_encode),
        cmocka_unit_test(test_validate_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
