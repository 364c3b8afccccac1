/* Unit tests: the packed images of the write-behind log (store_wlog.h). A row that is
 * not exactly what bitmapd packed — cut short, one byte changed, a count that lies —
 * is refused as a whole, without calling back for any image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/codec.h"
#include "store/store_wlog.h"

struct seen {
    int n;
    struct wlog_image im[8];
    uint8_t keys[8][32], bits[8][64];
};

static void collect(const struct wlog_image *im, void *arg)
{
    struct seen *s = arg;
    assert_true(s->n < 8 && im->keylen <= 32 && im->len <= 64);
    s->im[s->n] = *im;
    memcpy(s->keys[s->n], im->key, im->keylen);
    memcpy(s->bits[s->n], im->bits, im->len);
    s->n++;
}

static size_t pack_two(uint8_t *buf)
{
    static const uint8_t bits[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0};
    struct wlog_image im[2] = {
        {.key = (const uint8_t *)"dau:20261126", .keylen = 12, .version = 3, .cardinality = 1,
         .checksum = 0xdeadbeef, .nbytes = -1, .bits = bits, .len = sizeof(bits)},
        {.key = (const uint8_t *)"k", .keylen = 1, .version = 9000000000LL, .cardinality = 0, .checksum = 7,
         .nbytes = 5, .expire_ms = 1795000000123LL, .bits = NULL, .len = 0},
    };
    size_t cap = WLOG_PACK_HEAD + WLOG_PACK_TAIL + wlog_pack_size(12, sizeof(bits)) + wlog_pack_size(1, 0);
    size_t n = wlog_pack(buf, im, 2);
    assert_int_equal(n, cap);
    return n;
}

static void test_round_trip(void **state)
{
    uint8_t buf[256];
    struct seen s = {0};
    size_t n = pack_two(buf);
    (void)state;
    assert_true(wlog_unpack(buf, n, collect, &s));
    assert_int_equal(s.n, 2);
    assert_int_equal(s.im[0].keylen, 12);
    assert_memory_equal(s.keys[0], "dau:20261126", 12);
    assert_int_equal(s.im[0].version, 3);
    assert_int_equal(s.im[0].cardinality, 1);
    assert_int_equal(s.im[0].checksum, 0xdeadbeefu);
    assert_int_equal(s.im[0].nbytes, -1);
    assert_int_equal(s.im[0].len, 14);
    assert_int_equal(s.bits[0][12], 7);
    assert_int_equal(s.im[1].version, 9000000000LL);
    assert_int_equal(s.im[1].nbytes, 5);
    assert_int_equal(s.im[1].len, 0);
    assert_int_equal(s.im[0].expire_ms, 0);
    assert_int_equal(s.im[1].expire_ms, 1795000000123LL);
}

/* A row written before keys could expire ("BMW1": no expire_ms) still reads, every
 * image with no deadline. Built by hand: magic, count, one image, CRC. */
static void test_v1_row_reads(void **state)
{
    uint8_t buf[64], *p = buf;
    struct seen s = {0};
    (void)state;
    memcpy(p, "BMW1\0\0\0\1", 8);
    p += 8;
    *p++ = 0;
    *p++ = 1;
    *p++ = 'k';
    static const uint8_t fixed[32] = {0, 0, 0, 0, 0, 0, 0, 4,             /* version 4 */
                                      0, 0, 0, 0, 0, 0, 0, 0,             /* cardinality 0 */
                                      0, 0, 0, 9,                         /* checksum 9 */
                                      255, 255, 255, 255, 255, 255, 255, 255, /* nbytes -1 */
                                      0, 0, 0, 0};                        /* len 0 */
    memcpy(p, fixed, sizeof(fixed));
    p += sizeof(fixed);
    uint32_t crc = codec_crc32c(buf, (size_t)(p - buf));
    *p++ = (uint8_t)(crc >> 24);
    *p++ = (uint8_t)(crc >> 16);
    *p++ = (uint8_t)(crc >> 8);
    *p++ = (uint8_t)crc;
    assert_true(wlog_unpack(buf, (size_t)(p - buf), collect, &s));
    assert_int_equal(s.n, 1);
    assert_int_equal(s.im[0].version, 4);
    assert_int_equal(s.im[0].checksum, 9);
    assert_int_equal(s.im[0].nbytes, -1);
    assert_int_equal(s.im[0].expire_ms, 0);
    /* the same bytes under the new magic are one image too short: refused */
    memcpy(buf, "BMW2", 4);
    crc = codec_crc32c(buf, (size_t)(p - buf) - 4);
    p[-4] = (uint8_t)(crc >> 24);
    p[-3] = (uint8_t)(crc >> 16);
    p[-2] = (uint8_t)(crc >> 8);
    p[-1] = (uint8_t)crc;
    s.n = 0;
    assert_false(wlog_unpack(buf, (size_t)(p - buf), collect, &s));
}

static void test_every_cut_is_refused(void **state)
{
    uint8_t buf[256];
    size_t n = pack_two(buf);
    (void)state;
    for (size_t len = 0; len < n; len++) {
        struct seen s = {0};
        assert_false(wlog_unpack(buf, len, collect, &s));
        assert_int_equal(s.n, 0);
    }
}

static void test_every_changed_byte_is_refused(void **state)
{
    uint8_t buf[256];
    size_t n = pack_two(buf);
    (void)state;
    for (size_t i = 0; i < n; i++) {
        struct seen s = {0};
        buf[i] ^= 0x40;
        assert_false(wlog_unpack(buf, n, collect, &s));
        assert_int_equal(s.n, 0);
        buf[i] ^= 0x40;
    }
    {
        struct seen s = {0};
        assert_true(wlog_unpack(buf, n, collect, &s)); /* and restored, it reads again */
        assert_int_equal(s.n, 2);
    }
}

static void test_lying_count_is_refused(void **state)
{
    /* a count past the images, with a checksum made to match: the walk runs out */
    uint8_t buf[256];
    size_t n = pack_two(buf);
    struct seen s = {0};
    (void)state;
    buf[7] = 3;
    {
        uint32_t crc = codec_crc32c(buf, n - 4);
        buf[n - 4] = (uint8_t)(crc >> 24);
        buf[n - 3] = (uint8_t)(crc >> 16);
        buf[n - 2] = (uint8_t)(crc >> 8);
        buf[n - 1] = (uint8_t)crc;
    }
    assert_false(wlog_unpack(buf, n, collect, &s));
    assert_int_equal(s.n, 0);
}

static void test_empty_row(void **state)
{
    uint8_t buf[16];
    struct seen s = {0};
    (void)state;
    assert_int_equal(wlog_pack(buf, NULL, 0), WLOG_PACK_HEAD + WLOG_PACK_TAIL);
    assert_true(wlog_unpack(buf, WLOG_PACK_HEAD + WLOG_PACK_TAIL, collect, &s));
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_v1_row_reads),
        cmocka_unit_test(test_every_cut_is_refused),
        cmocka_unit_test(test_every_changed_byte_is_refused),
        cmocka_unit_test(test_lying_count_is_refused),
        cmocka_unit_test(test_empty_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
