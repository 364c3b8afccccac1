/* test_chunks.c — unit tests for cutting a big bitmap into chunk rows and joining
 * them back (src/store/chunks.c): round trips of sparse, dense, run and mixed bitmaps; the
 * size rule (each chunk at most CHUNK_BYTES unless it holds one container); that the
 * cut is a function of the members (equal sets cut into equal bytes, whatever their
 * containers were); that one changed member changes one chunk; that every kind of
 * damage to a chunk row is refused; the head checksum; and the directories. */
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


/* n random members below limit, plus runs when runs > 0 */
static roaring_bitmap_t *random_bitmap(uint32_t n, uint64_t limit, uint32_t runs)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t i = 0; i < n; i++) roaring_bitmap_add(bm, (uint32_t)(rng32() % limit));
    for (uint32_t r = 0; r < runs; r++) {
        uint32_t start = (uint32_t)(rng32() % limit), len = 1 + rng32() % 70000;
        for (uint32_t v = start; v < start + len && v >= start; v++) roaring_bitmap_add(bm, v);
    }
    return bm;
}

/* Cuts bm, checks the size rule and the ranges, joins the parts (copied into exactly
 * sized blocks) and compares; returns the number of chunks. */
static size_t round_trip_max(roaring_bitmap_t *bm, size_t max_bytes)
{
    struct chunk_cut cut;
    char err[200];
    assert_true(chunks_cut(bm, max_bytes, &cut));
    uint64_t card = 0;
    uint32_t prev_hi = 0;
    struct chunk_part *copy = calloc(cut.n + 1, sizeof(*copy));
    for (size_t i = 0; i < cut.n; i++) {
        const struct chunk_part *p = &cut.parts[i];
        assert_true(p->lo >= prev_hi && p->lo < p->hi && p->hi <= CHUNK_KEYS);
        assert_true((((p->hi - p->lo) & (p->hi - p->lo - 1))) == 0); /* a halving of 0 .. 65536 */
        assert_int_equal(p->lo % (p->hi - p->lo), 0);
        prev_hi = p->hi;
        roaring_bitmap_t *part = codec_decode(p->bits, p->len, err, sizeof(err));
        assert_non_null(part);
        assert_int_equal(roaring_bitmap_get_cardinality(part), (uint64_t)p->cardinality);
        /* more than max_bytes only when it cannot be cut: one container */
        if (p->len > max_bytes) assert_int_equal(part->high_low_container.size, 1);
        roaring_bitmap_free(part);
        assert_int_equal(p->checksum, codec_crc32c(p->bits, p->len));
        card += (uint64_t)p->cardinality;
        copy[i] = *p;
        uint8_t *b = malloc(p->len);
        memcpy(b, p->bits, p->len);
        copy[i].bits = b;
    }
    assert_int_equal(card, roaring_bitmap_get_cardinality(bm));
    roaring_bitmap_t *back = chunks_join(copy, cut.n, err, sizeof(err));
    assert_non_null(back);
    assert_true(roaring_bitmap_equals(back, bm));
    roaring_bitmap_free(back);
    for (size_t i = 0; i < cut.n; i++) free((void *)copy[i].bits);
    free(copy);
    size_t n = cut.n;
    chunks_cut_free(&cut);
    return n;
}

static size_t round_trip(roaring_bitmap_t *bm) { return round_trip_max(bm, CHUNK_BYTES); }

static void test_round_trips(void **state)
{
    (void)state;
    roaring_bitmap_t *empty = roaring_bitmap_create();
    assert_int_equal(round_trip(empty), 0);
    roaring_bitmap_free(empty);
    for (int t = 0; t < 40; t++) {
        uint32_t n = 1 + rng32() % 200000;
        uint64_t limit = (t % 4 == 0) ? 4294967296ULL : 1 + rng32() % 20000000;
        roaring_bitmap_t *bm = random_bitmap(n, limit, t % 3);
        round_trip(bm);
        round_trip_max(bm, 64 + rng32() % 2000); /* [postgres] chunk_bytes as low as 64 */
        roaring_bitmap_free(bm);
    }
    /* one full bitset container per key: one chunk each */
    roaring_bitmap_t *dense = random_bitmap(0, 1, 0);
    for (uint32_t v = 0; v < 40 * 65536; v += 2) roaring_bitmap_add(dense, v);
    assert_int_equal(round_trip(dense), 40);
    roaring_bitmap_free(dense);
    /* the largest member */
    roaring_bitmap_t *top = roaring_bitmap_of(3, 0u, 70000u, 4294967295u);
    assert_int_equal(round_trip(top), 1);
    roaring_bitmap_free(top);
}

/* Each chunk takes bitmapd's smallest encoding: a notice's readers (random users of
 * 0 … 99,999, 10% and 90% of them) are two chunks in the gaps encoding, about half of
 * the 12,500 bytes of the raw bits in all; a chunk half full is raw bits; a sparse
 * chunk is never raw bits. */
static void test_dense_chunks(void **state)
{
    (void)state;
    for (int pct = 10; pct <= 90; pct += 80) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        for (uint32_t u = 0; u < 100000; u++)
            if (rng32() % 100 < (uint32_t)pct) roaring_bitmap_add(bm, u);
        struct chunk_cut cut;
        assert_true(chunks_cut(bm, CHUNK_BYTES, &cut));
        assert_int_equal(cut.n, 2);
        size_t total = 0;
        for (size_t i = 0; i < cut.n; i++) {
            assert_int_equal(cut.parts[i].bits[0], 0xB2); /* the gaps tag */
            total += cut.parts[i].len;
        }
        assert_true(total <= 100000 / 8 * 55 / 100);
        chunks_cut_free(&cut);
        assert_int_equal(round_trip(bm), 2);
        roaring_bitmap_free(bm);
    }
    roaring_bitmap_t *half = roaring_bitmap_create();
    for (uint32_t u = 0; u < 100000; u++)
        if (rng32() % 2) roaring_bitmap_add(half, u);
    assert_int_equal(round_trip(half), 2);
    struct chunk_cut hcut;
    assert_true(chunks_cut(half, CHUNK_BYTES, &hcut));
    for (size_t i = 0; i < hcut.n; i++) assert_int_equal(hcut.parts[i].bits[0], 0xB1); /* the dense tag */
    chunks_cut_free(&hcut);
    roaring_bitmap_free(half);
    roaring_bitmap_t *sparse = random_bitmap(3000, 4294967296ULL, 0);
    struct chunk_cut cut;
    assert_true(chunks_cut(sparse, CHUNK_BYTES, &cut));
    for (size_t i = 0; i < cut.n; i++) assert_int_not_equal(cut.parts[i].bits[0], 0xB1);
    chunks_cut_free(&cut);
    roaring_bitmap_free(sparse);
}

/* A directory from a version that wrote every chunk portable: an untouched chunk
 * that would now be gaps keeps its portable row (no rewrite for its encoding
 * alone); the touched one is written in gaps. */
static void test_cut_since_portable(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t v = 0; v < 4u << 16; v++)
        if (rng32() % 10 == 0) roaring_bitmap_add(bm, v); /* four bitsets, gaps as chunks */
    struct chunk_cut now, since;
    assert_true(chunks_cut(bm, CHUNK_BYTES, &now));
    assert_int_equal(now.n, 4);
    struct chunk_part old[4];
    for (size_t j = 0; j < 4; j++) { /* as the older version cut them: portable, 8,208 bytes each */
        assert_int_equal(now.parts[j].bits[0], 0xB2);
        old[j] = now.parts[j];
        old[j].len = 8208;
        old[j].checksum = 1000 + (uint32_t)j;
        old[j].hash = 2000 + j;
    }
    roaring_bitmap_add(bm, (2u << 16) + 5); /* touch container 2 */
    roaring_bitmap_run_optimize(bm);
    assert_true(chunks_cut_since(bm, CHUNK_BYTES, old, 4, 2, 2, &since));
    assert_int_equal(since.n, 4);
    for (size_t j = 0; j < 4; j++) {
        if (j == 2) {
            assert_non_null(since.parts[j].bits);
            assert_int_equal(since.parts[j].bits[0], 0xB2);
            assert_true(since.parts[j].len < 8208 / 2);
        } else {
            assert_null(since.parts[j].bits); /* reused: the row stays as it is */
            assert_int_equal(since.parts[j].len, 8208);
            assert_int_equal(since.parts[j].checksum, 1000 + j);
        }
    }
    chunks_cut_free(&now);
    chunks_cut_free(&since);
    roaring_bitmap_free(bm);
}

/* The same members, built differently (a run container, or not), cut into the same
 * bytes; and a one-member change touches one chunk. */
static void test_deterministic_and_local(void **state)
{
    (void)state;
    roaring_bitmap_t *a = random_bitmap(300000, 30000000, 2);
    roaring_bitmap_t *b = roaring_bitmap_create();
    uint32_t *all = malloc(roaring_bitmap_get_cardinality(a) * sizeof(*all));
    roaring_bitmap_to_uint32_array(a, all);
    for (uint64_t i = roaring_bitmap_get_cardinality(a); i-- > 0;) roaring_bitmap_add(b, all[i]);
    free(all);
    struct chunk_cut ca, cb;
    assert_true(chunks_cut(a, CHUNK_BYTES, &ca));
    assert_true(chunks_cut(b, CHUNK_BYTES, &cb));
    assert_int_equal(ca.n, cb.n);
    for (size_t i = 0; i < ca.n; i++) {
        assert_int_equal(ca.parts[i].lo, cb.parts[i].lo);
        assert_int_equal(ca.parts[i].len, cb.parts[i].len);
        assert_memory_equal(ca.parts[i].bits, cb.parts[i].bits, ca.parts[i].len);
    }
    assert_int_equal(chunks_head_crc(ca.parts, ca.n, NULL, 0), chunks_head_crc(cb.parts, cb.n, NULL, 0));
    /* flip one member */
    uint32_t v = 12345678;
    if (roaring_bitmap_contains(b, v)) roaring_bitmap_remove(b, v); else roaring_bitmap_add(b, v);
    chunks_cut_free(&cb);
    assert_true(chunks_cut(b, CHUNK_BYTES, &cb));
    size_t changed = 0;
    assert_int_equal(ca.n, cb.n);
    for (size_t i = 0; i < ca.n; i++)
        changed += ca.parts[i].checksum != cb.parts[i].checksum || ca.parts[i].hash != cb.parts[i].hash;
    assert_int_equal(changed, 1);
    assert_int_not_equal(chunks_head_crc(ca.parts, ca.n, NULL, 0), chunks_head_crc(cb.parts, cb.n, NULL, 0));
    /* the head's flips are part of it */
    const uint8_t f1[2] = {1, 2}, f2[2] = {1, 3};
    assert_int_not_equal(chunks_head_crc(ca.parts, ca.n, f1, 2), chunks_head_crc(ca.parts, ca.n, NULL, 0));
    assert_int_not_equal(chunks_head_crc(ca.parts, ca.n, f1, 2), chunks_head_crc(ca.parts, ca.n, f2, 2));
    chunks_cut_free(&ca);
    chunks_cut_free(&cb);
    roaring_bitmap_free(a);
    roaring_bitmap_free(b);
}

/* Every kind of damage to the rows is refused, with a reason. */
static void test_join_refuses(void **state)
{
    (void)state;
    roaring_bitmap_t *bm = random_bitmap(100000, 10000000, 0);
    struct chunk_cut cut;
    char err[200];
    assert_true(chunks_cut(bm, CHUNK_BYTES, &cut));
    assert_true(cut.n >= 3);
    struct chunk_part *p = calloc(cut.n, sizeof(*p));
    uint8_t *bytes = malloc(cut.parts[1].len);

#define RESET() memcpy(p, cut.parts, cut.n * sizeof(*p))
#define REFUSED(what)                                                                  \
    do {                                                                               \
        err[0] = 0;                                                                    \
        assert_null(chunks_join(p, cut.n, err, sizeof(err)));                          \
        assert_true(strstr(err, what) != NULL);                                        \
    } while (0)
    RESET();
    p[1].bits = bytes;
    memcpy(bytes, cut.parts[1].bits, cut.parts[1].len);
    bytes[cut.parts[1].len / 2] ^= 0x10; /* a flipped bit */
    REFUSED("checksum mismatch");
    RESET();
    p[1].checksum ^= 1;
    REFUSED("checksum mismatch");
    RESET();
    p[1].cardinality++;
    REFUSED("do not match");
    RESET();
    p[1].lo = p[0].lo; /* overlapping */
    REFUSED("overlaps");
    RESET();
    struct chunk_part t = p[0]; /* out of order */
    p[0] = p[1];
    p[1] = t;
    REFUSED("overlaps");
    RESET();
    p[1].hi = p[1].lo; /* empty range */
    REFUSED("overlaps");
    RESET();
    p[2].lo = p[2].hi - 1 > p[2].lo ? p[2].lo + 1 : p[2].lo; /* members below the range */
    if (p[2].lo != cut.parts[2].lo) REFUSED("do not match");
    RESET();
    p[1].len = 3; /* truncated */
    p[1].checksum = codec_crc32c(p[1].bits, 3);
    REFUSED("chunk");
    free(bytes);
    free(p);
    chunks_cut_free(&cut);
    roaring_bitmap_free(bm);
}

static void test_directories(void **state)
{
    (void)state;
    struct chunk_dirs *d = chunk_dirs_new(3);
    struct chunk_part parts[2] = {{.lo = 0, .hi = 8, .checksum = 7}, {.lo = 8, .hi = 16, .checksum = 9}};
    uint32_t xid;
    size_t n, flen;
    const uint8_t *fl;
    assert_true(chunk_dirs_put(d, (const uint8_t *)"k1", 2, 5, 100, parts, 2, NULL, 0));
    const struct chunk_part *got = chunk_dirs_get(d, (const uint8_t *)"k1", 2, 5, &xid, &n, &fl, &flen);
    assert_non_null(got);
    assert_int_equal(n, 2);
    assert_int_equal(xid, 100);
    assert_null(fl);
    assert_int_equal(flen, 0);
    assert_int_equal(got[1].checksum, 9);
    assert_null(got[0].bits);
    assert_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 6, &xid, &n, &fl, &flen)); /* another version */
    assert_null(chunk_dirs_get(d, (const uint8_t *)"k2", 2, 5, &xid, &n, &fl, &flen));
    assert_true(chunk_dirs_put(d, (const uint8_t *)"k1", 2, 6, 101, parts, 1, NULL, 0)); /* replaces */
    assert_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 5, &xid, &n, &fl, &flen));
    assert_non_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 6, &xid, &n, &fl, &flen));
    assert_int_equal(n, 1);
    /* the head's flips are kept with the directory, as a copy */
    uint8_t flips[3] = {1, 2, 3};
    assert_true(chunk_dirs_put(d, (const uint8_t *)"k1", 2, 7, 102, parts, 1, flips, 3));
    flips[0] = 9;
    assert_non_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 7, &xid, &n, &fl, &flen));
    assert_int_equal(flen, 3);
    assert_int_equal(fl[0], 1);
    assert_int_equal(fl[2], 3);
    /* and their decoded bitmap, when kept: taken once, for that version only; kept for a
     * version the directory does not hold, or one without flips, it is freed (ASan) */
    assert_null(chunk_dirs_take_flips(d, (const uint8_t *)"k1", 2, 7)); /* none kept yet */
    roaring_bitmap_t *fb = roaring_bitmap_of(2, 5, 1000000);
    chunk_dirs_keep_flips(d, (const uint8_t *)"k1", 2, 7, fb);
    assert_null(chunk_dirs_take_flips(d, (const uint8_t *)"k1", 2, 6));
    roaring_bitmap_t *took = chunk_dirs_take_flips(d, (const uint8_t *)"k1", 2, 7);
    assert_ptr_equal(took, fb);
    assert_null(chunk_dirs_take_flips(d, (const uint8_t *)"k1", 2, 7)); /* taken: the bytes stay */
    assert_non_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 7, &xid, &n, &fl, &flen));
    assert_int_equal(flen, 3);
    chunk_dirs_keep_flips(d, (const uint8_t *)"k1", 2, 8, took);                     /* no such version */
    chunk_dirs_keep_flips(d, (const uint8_t *)"k9", 2, 7, roaring_bitmap_of(1, 3)); /* no such key */
    assert_true(chunk_dirs_put(d, (const uint8_t *)"k3", 2, 1, 1, parts, 1, NULL, 0));
    chunk_dirs_keep_flips(d, (const uint8_t *)"k3", 2, 1, roaring_bitmap_of(1, 3)); /* no flips there */
    assert_null(chunk_dirs_take_flips(d, (const uint8_t *)"k3", 2, 1));
    chunk_dirs_keep_flips(d, (const uint8_t *)"k1", 2, 7, roaring_bitmap_of(1, 4));
    chunk_dirs_drop(d, (const uint8_t *)"k1", 2); /* frees what it kept */
    assert_null(chunk_dirs_get(d, (const uint8_t *)"k1", 2, 6, &xid, &n, &fl, &flen));
    for (int i = 0; i < 10; i++) { /* past max: starts again empty, never more than max */
        char k[8];
        snprintf(k, sizeof(k), "x%d", i);
        assert_true(chunk_dirs_put(d, (const uint8_t *)k, strlen(k), 1, 1, parts, 2, NULL, 0));
        assert_non_null(chunk_dirs_get(d, (const uint8_t *)k, strlen(k), 1, &xid, &n, &fl, &flen));
    }
    chunk_dirs_free(d);
}

/* chunks_cut_since: after changes in keys tlo .. thi, its parts are a whole cut's
 * (ranges, lengths, cardinalities, checksums, hashes), the bits of those it takes from
 * the directory NULL — and only of parts outside those keys; what a directory lacks, or
 * remembers with another range or cardinality, is serialized. A part it serializes may
 * be gaps where the whole cut (too many members to spend gaps on) is not: then it holds
 * the same members in fewer bytes. */
static void test_cut_since(void **state)
{
    (void)state;
    int reused = 0, rewritten = 0, regapped = 0;
    for (int round = 0; round < 40; round++) {
        roaring_bitmap_t *bm = random_bitmap(300000 + rng32() % 200000, 40u << 16, round % 3);
        struct chunk_cut before, since, whole;
        assert_true(chunks_cut(bm, CHUNK_BYTES, &before));
        struct chunk_dirs *d = chunk_dirs_new(4);
        assert_true(chunk_dirs_put(d, (const uint8_t *)"k", 1, 1, 1, before.parts, before.n, NULL, 0));
        uint32_t xid;
        size_t nold, flen;
        const uint8_t *fl;
        const struct chunk_part *old = chunk_dirs_get(d, (const uint8_t *)"k", 1, 1, &xid, &nold, &fl, &flen);
        assert_non_null(old);
        uint32_t tlo = rng32() % 40, thi = tlo + rng32() % 3, changes = 1 + rng32() % 3000;
        for (uint32_t i = 0; i < changes; i++) { /* some grow a container past a chunk's size */
            uint32_t v = ((tlo + rng32() % (thi - tlo + 1)) << 16) + rng32() % 65536;
            if (rng32() % 3) roaring_bitmap_add(bm, v); else roaring_bitmap_remove(bm, v);
        }
        roaring_bitmap_run_optimize(bm);
        assert_true(chunks_cut_since(bm, CHUNK_BYTES, old, nold, tlo, thi, &since));
        assert_true(chunks_cut_optimized(bm, CHUNK_BYTES, &whole));
        assert_int_equal(since.n, whole.n);
        for (size_t j = 0; j < whole.n; j++) {
            const struct chunk_part *a = &since.parts[j], *b = &whole.parts[j];
            assert_int_equal(a->lo, b->lo);
            assert_int_equal(a->hi, b->hi);
            assert_int_equal(a->cardinality, b->cardinality);
            if (a->bits && a->bits[0] != b->bits[0]) {
                /* the gaps encoding for the few chunks a narrow cut serializes, not for
                 * a whole cut of this many members (GAPS_MAX_MEMBERS): the same members */
                char err[128];
                assert_int_equal(a->bits[0], 0xB2);
                roaring_bitmap_t *x = codec_decode(a->bits, a->len, err, sizeof(err)),
                                 *y = codec_decode(b->bits, b->len, err, sizeof(err));
                assert_non_null(x);
                assert_non_null(y);
                assert_true(roaring_bitmap_equals(x, y));
                assert_true(a->len < b->len);
                roaring_bitmap_free(x);
                roaring_bitmap_free(y);
                rewritten++;
                regapped++;
                continue;
            }
            assert_int_equal(a->len, b->len);
            assert_int_equal(a->checksum, b->checksum);
            assert_true(a->hash == b->hash);
            if (a->bits) {
                assert_memory_equal(a->bits, b->bits, b->len);
                rewritten++;
            } else {
                assert_true(a->hi <= tlo || a->lo > thi);
                reused++;
            }
        }
        chunks_cut_free(&before);
        chunks_cut_free(&since);
        chunks_cut_free(&whole);
        chunk_dirs_free(d);
        roaring_bitmap_free(bm);
    }
    assert_true(reused > 100);
    assert_true(rewritten > 40);
    assert_true(regapped > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_dense_chunks),
        cmocka_unit_test(test_deterministic_and_local),
        cmocka_unit_test(test_join_refuses),
        cmocka_unit_test(test_directories),
        cmocka_unit_test(test_cut_since),
        cmocka_unit_test(test_cut_since_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
