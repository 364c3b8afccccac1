/* gen_seeds.c — writes the committed seed inputs of the codec targets:
 *   gen_seeds DIR   creates DIR/codec/, DIR/codec_ops/ and DIR/bucket/ (make fuzz-seeds)
 * codec: encodings of the layouts the format has (array, bitset and run containers,
 * with and without offsets, both cookies, dense with 1- to 5-byte varints, the
 * empty bitmap both ways) and a few damaged copies that reach the validator's
 * rejections. codec_ops: short programs in the format of fuzz_codec_ops.c. bucket:
 * bucket values of both families (empty, members with every flag, a stub, a damaged
 * member) and member and bucket names, each behind fuzz_bucket.c's first byte.
 * Deterministic, so running it again gives the same files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/bucket.h"
#include "store/codec.h"

static const char *root;

static void put(const char *target, const char *name, const uint8_t *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        perror(path);
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* Writes bm as codec_encode gives it (name.enc) and, when both and different, as
 * codec_encode_roaring gives it (name.roaring). */
static void put_bitmap(const char *name, roaring_bitmap_t *bm, bool both)
{
    uint8_t *out, *rout;
    size_t len, rlen;
    char file[128];
    if (!codec_encode(bm, &out, &len)) exit(1);
    snprintf(file, sizeof(file), "%s.enc", name);
    put("codec", file, out, len);
    if (both) {
        if (!codec_encode_roaring(bm, &rout, &rlen)) exit(1);
        snprintf(file, sizeof(file), "%s.roaring", name);
        if (rlen != len || memcmp(rout, out, len) != 0) put("codec", file, rout, rlen);
        free(rout);
    }
    free(out);
}

enum { APPEND = -1, KEEP = -2 };

/* A damaged copy: byte `at` replaced by val (at == APPEND: val appended; KEEP: no
 * byte changed), then the last `cut` bytes dropped. */
static void put_damaged(const char *name, roaring_bitmap_t *bm, bool roaring, long at, uint8_t val,
                        size_t cut)
{
    uint8_t *out;
    size_t len;
    if (!(roaring ? codec_encode_roaring(bm, &out, &len) : codec_encode(bm, &out, &len))) exit(1);
    uint8_t *copy = malloc(len + 1);
    memcpy(copy, out, len);
    if (at == APPEND)
        copy[len++] = val;
    else if (at >= 0 && (size_t)at < len)
        copy[at] = val;
    put("codec", name, copy, len - cut);
    free(copy);
    free(out);
}

static uint32_t lcg_state = 2024;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 4;
}

static void codec_seeds(void)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    put_bitmap("empty", bm, true);
    roaring_bitmap_add(bm, 0);
    put_bitmap("zero", bm, true);
    roaring_bitmap_clear(bm);
    roaring_bitmap_add(bm, UINT32_MAX);
    put_bitmap("max", bm, true);

    /* a year of daily check-ins: dense */
    roaring_bitmap_clear(bm);
    for (uint32_t d = 0; d < 365; d++)
        if (lcg() % 3) roaring_bitmap_add(bm, 19000 + d);
    put_bitmap("checkins", bm, true);

    /* dense with 2-, 3- and 4-byte varints (5 bytes: "max" above) */
    uint32_t bases[] = {1000, 200000, 30000000};
    for (int i = 0; i < 3; i++) {
        char name[32];
        roaring_bitmap_clear(bm);
        for (uint32_t j = 0; j < 40; j += 1 + j % 3) roaring_bitmap_add(bm, bases[i] + j);
        snprintf(name, sizeof(name), "dense_varint%d", i + 2);
        put_bitmap(name, bm, false);
    }

    /* sparse arrays in three keys: cookie 12346 */
    roaring_bitmap_clear(bm);
    for (int i = 0; i < 60; i++) roaring_bitmap_add(bm, (lcg() % 3) << 16 | (lcg() & 0xFFFF));
    put_bitmap("sparse3", bm, false);
    put_damaged("bad_array_order", bm, false, 8 + 24 + 3, 0xFF, 0);
    put_damaged("bad_offset", bm, false, 8 + 12, 0x99, 0);
    put_damaged("bad_trailing", bm, false, APPEND, 0, 0);
    put_damaged("bad_truncated", bm, false, KEEP, 0, 3);
    put_damaged("bad_keys", bm, false, 8 + 4, 0x00, 0);

    /* a bitset container (5000 random members in key 7) */
    roaring_bitmap_clear(bm);
    while (roaring_bitmap_get_cardinality(bm) < 5000) roaring_bitmap_add(bm, 7u << 16 | (lcg() & 0xFFFF));
    put_bitmap("bitset", bm, true);
    put_damaged("bad_bitset_pop", bm, true, 30, 0x55, 0);

    /* runs: one long run over two keys, then five containers of every kind (offsets) */
    roaring_bitmap_clear(bm);
    for (uint32_t v = 10; v < 100000; v++) roaring_bitmap_add(bm, v);
    put_bitmap("run2", bm, true);
    put_damaged("bad_run_empty", bm, true, 4 + 1 + 8, 0, 0); /* nruns of container 0 -> 0 */
    for (uint32_t v = 5u << 16; v < (5u << 16) + 300; v += 2) roaring_bitmap_add(bm, v);
    while (roaring_bitmap_get_cardinality(bm) < 99990 + 150 + 6000)
        roaring_bitmap_add(bm, 9u << 16 | (lcg() & 0xFFFF));
    for (uint32_t v = 40u << 16; v < (40u << 16) + 4000; v++) roaring_bitmap_add(bm, v);
    put_bitmap("mixed5", bm, true);
    put_damaged("bad_run_flags", bm, true, 4, 0xFF, 0);

    /* gaps (chunk rows): 10% of a key, direct; 90%, complement. Last, so that the
     * seeds above keep their bytes. */
    for (int pct = 10; pct <= 90; pct += 80) {
        struct codec_gaps g;
        uint8_t *out;
        roaring_bitmap_clear(bm);
        for (uint32_t v = 3u << 16; v < 4u << 16; v++)
            if (lcg() % 100 < (uint32_t)pct) roaring_bitmap_add(bm, v);
        if (!codec_gaps_plan(bm, &g) || !(out = malloc(g.size)) || !codec_write_gaps(bm, &g, out)) exit(1);
        put("codec", pct == 10 ? "gaps_direct" : "gaps_complement", out, g.size);
        free(out);
    }

    roaring_bitmap_free(bm);
}

static void ops_seed(const char *name, const uint8_t *prog, size_t len)
{
    put("codec_ops", name, prog, len);
}

static void codec_ops_seeds(void)
{
    /* base, then (opcode, operands) as fuzz_codec_ops.c reads them */
    static const uint8_t setbits[] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 9, 0, 0, 1, 1, 0, 0, 12};
    static const uint8_t runs[] = {1, 2, 0, 0, 0, 0x70, 0x11, 0, 12, 5, 0x10, 0, 0, 0x00, 0x10, 0, 0,
                                   6, 0, 0x80, 0, 0xFF, 0x7F, 1, 0, 12};
    static const uint8_t notkeep[] = {2, 2, 0, 1, 0, 0xFF, 0x00, 3, 8, 11, 0, 0x80, 0, 12, 8, 12};
    static const uint8_t setops[] = {3, 4, 0, 0, 0, 0xFF, 0xFF, 2, 210, 9, 0, 0x10, 0, 0, 0x20, 0, 0, 1,
                                     7, 0, 0, 0, 0xFF, 0xFF, 1, 0, 10, 13, 12, 14, 0, 5, 0, 3, 12};
    static const uint8_t stride[] = {0, 2, 0x34, 0x12, 0, 0x88, 0x13, 2, 3, 0x40, 0x12, 0, 0x00, 0x02, 3,
                                     12, 4, 0, 0, 3, 0, 0x10, 2, 255, 12};
    ops_seed("setbits", setbits, sizeof(setbits));
    ops_seed("runs", runs, sizeof(runs));
    ops_seed("not_keep", notkeep, sizeof(notkeep));
    ops_seed("setops", setops, sizeof(setops));
    ops_seed("stride", stride, sizeof(stride));
}

/* A bucket value behind fuzz_bucket.c's first byte (even: a value). */
static void bucket_value_seed(const char *name, const struct bucket_dir *d, long damage_at)
{
    uint8_t buf[4096];
    size_t n = bucket_write(d, buf + 1, sizeof(buf) - 1);
    if (!n) exit(1);
    buf[0] = 0;
    if (damage_at >= 0) buf[1 + n - 1 - (size_t)damage_at] ^= 0x04;
    put("bucket", name, buf, n + 1);
}

static void bucket_name_seed(const char *name, const char *key)
{
    uint8_t buf[BUCKET_KEY_MAX + 1];
    buf[0] = 1;
    memcpy(buf + 1, key, strlen(key));
    put("bucket", name, buf, strlen(key) + 1);
}

static void bucket_seeds(void)
{
    struct bucket_dir d;
    bucket_init(&d, BUCKET_CHECKIN);
    bucket_value_seed("empty", &d, -1);
    static const uint8_t days[] = {0xB1, 0x80, 0x9C, 0x01, 0x5B, 0x01, 0xFF}, one[] = {0xB1, 0x00, 0x01};
    struct bucket_entry e[] = {
        {.slot = 0, .version = 1, .cardinality = 13, .nbytes = -1, .val = days, .len = sizeof(days)},
        {.slot = 5, .version = 300, .cardinality = 1, .nbytes = 12, .val = one, .len = sizeof(one)},
        {.slot = 6, .version = 2, .nbytes = -1, .expire_ms = 1800000000000},
        {.slot = 9, .stub = true, .version = 70000, .nbytes = -1},
        {.slot = 15, .version = 9, .cardinality = 1, .nbytes = 0, .expire_ms = 1, .val = one, .len = sizeof(one)},
    };
    for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
        if (!bucket_put(&d, &e[i])) exit(1);
    bucket_value_seed("checkin_five", &d, -1);
    bucket_value_seed("checkin_damaged", &d, 1);
    d.family = BUCKET_RECEIPT;
    bucket_value_seed("receipt_five", &d, -1);
    bucket_name_seed("name_checkin", "checkin:10000042");
    bucket_name_seed("name_checkin_bucket", "checkin:~625002");
    bucket_name_seed("name_receipt", "group:7:msg:130");
    bucket_name_seed("name_receipt_bucket", "group:7:msg:~8");
    bucket_name_seed("name_plain", "checkin:007");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    codec_seeds();
    codec_ops_seeds();
    bucket_seeds();
    return 0;
}
