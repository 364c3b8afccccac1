/* gen_buckets.c — what src/store/bucket.c says of names and bucket values, for
 * tests/integration/test_sql_buckets.sh to compare with sql/016_buckets.sql.
 * One line each, fields separated by '|':
 *   N|key hex|family|bucket name hex|slot|reserved family
 *       for a key name (empty fields: not a member / not a bucket name);
 *   B|name|bits hex|family|entries
 *       for a bucket value bucket_parse accepts; entries as the SQL test prints them:
 *       slot/stub/version/cardinality/nbytes/expire_ms/value hex, space-separated
 *       (stub t or f; nbytes and expire_ms empty when absent);
 *   X|name|bits hex
 *       for bytes bucket_parse refuses (SQL must raise 22P03);
 *   C|name|CRC-32C of the bits (a row's checksum column), after each B line.
 * Deterministic (tests/rng.h), so every run prints the same lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bucket.h"
#include "store/codec.h"
#include "rng.h"

static void hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static void name_line(const uint8_t *key, size_t len)
{
    struct bucket_ref r;
    printf("N|");
    hex(key, len);
    if (bucket_of(key, len, &r)) {
        printf("|%d|", r.family);
        hex((const uint8_t *)r.bkey, r.bkeylen);
        printf("|%u", r.slot);
    } else {
        printf("|||");
    }
    enum bucket_family f = bucket_name_family(key, len);
    if (f != BUCKET_NONE)
        printf("|%d\n", f);
    else
        printf("|\n");
}

static void names(void)
{
    static const char *fixed[] = {
        "checkin:0", "checkin:63", "checkin:64", "checkin:9223372036854775807", "checkin:9223372036854775808",
        "checkin:007", "checkin:", "checkin:-1", "checkin:1a", "checkin:~0", "checkin:~1", "checkin:~01",
        "checkin:~576460752303423487", "checkin:~576460752303423488", "checkin:~144115188075855872", "checkin:~", "checkin:~~1", "group:0:msg:0",
        "group:7:msg:130", "group:9223372036854775807:msg:9223372036854775807", "group:9223372036854775808:msg:1",
        "group:1:msg:9223372036854775808", "group:01:msg:1", "group:1:msg:01", "group:1:msg:", "group::msg:1",
        "group:1:msg:~0", "group:3:msg:~576460752303423487", "group:3:msg:~576460752303423488",
        "group:9223372036854775808:msg:~1", "group:1:msgs:1", "group:1:msg:1:x", "message:push:1", "x", "",
        "checkin:\\1", "checkin: 1", "CHECKIN:1",
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        name_line((const uint8_t *)fixed[i], strlen(fixed[i]));
    static const uint8_t nul[] = {'c', 'h', 'e', 'c', 'k', 'i', 'n', ':', '1', 0}, high[] = {'c', 'h', 'e', 'c', 'k', 'i', 'n', ':', 0xB3};
    name_line(nul, sizeof(nul));
    name_line(high, sizeof(high));
    char key[BUCKET_KEY_MAX];
    for (int i = 0; i < 300; i++) {
        uint64_t id = rng64() >> (1 + rng32() % 63), g = rng64() >> (1 + rng32() % 63);
        int n;
        switch (i % 4) {
        case 0:
            n = snprintf(key, sizeof(key), "checkin:%llu", (unsigned long long)id);
            break;
        case 1:
            n = snprintf(key, sizeof(key), "group:%llu:msg:%llu", (unsigned long long)g, (unsigned long long)id);
            break;
        case 2:
            n = snprintf(key, sizeof(key), "checkin:~%llu", (unsigned long long)(id >> (rng32() % 8)));
            break;
        default:
            n = snprintf(key, sizeof(key), "group:%llu:msg:~%llu", (unsigned long long)g,
                         (unsigned long long)(id >> (rng32() % 8)));
            break;
        }
        name_line((const uint8_t *)key, (size_t)n);
    }
}

static void value_line(const char *name, const uint8_t *buf, size_t len)
{
    struct bucket_dir d;
    if (!bucket_parse(buf, len, &d, NULL, 0)) {
        printf("X|%s|", name);
        hex(buf, len);
        printf("\n");
        return;
    }
    printf("B|%s|", name);
    hex(buf, len);
    printf("|%d|", d.family);
    for (unsigned i = 0; i < d.n; i++) {
        const struct bucket_entry *e = &d.e[i];
        printf("%s%u/%c/%lld/%llu/", i ? " " : "", e->slot, e->stub ? 't' : 'f', (long long)e->version,
               (unsigned long long)e->cardinality);
        if (e->nbytes >= 0) printf("%lld", (long long)e->nbytes);
        printf("/");
        if (e->expire_ms) printf("%lld", (long long)e->expire_ms);
        printf("/");
        hex(e->val, e->len);
    }
    printf("\nC|%s|%u\n", name, codec_crc32c(buf, len));
}

static uint8_t *random_value(size_t *len, uint64_t *card)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    unsigned n = 1 + rng32() % 150;
    uint32_t base = rng32() % 2 ? 20000 : rng32();
    for (unsigned i = 0; i < n; i++)
        roaring_bitmap_add(bm, base + rng32() % 500);
    uint8_t *out;
    *card = roaring_bitmap_get_cardinality(bm);
    if (!codec_encode(bm, &out, len)) exit(1);
    roaring_bitmap_free(bm);
    return out;
}

static void values(void)
{
    uint8_t buf[16384];
    for (int round = 0; round < 60; round++) {
        struct bucket_dir d;
        uint8_t *vals[BUCKET_SLOTS] = {0};
        bucket_init(&d, round % 2 ? BUCKET_RECEIPT : BUCKET_CHECKIN);
        unsigned n = round < 3 ? (unsigned[]){0, 1, BUCKET_SLOTS}[round] : rng32() % (BUCKET_SLOTS + 1);
        for (unsigned k = 0; k < n; k++) {
            unsigned slot = n == BUCKET_SLOTS ? k : rng32() % BUCKET_SLOTS;
            if (bucket_find(&d, slot) >= 0) continue;
            struct bucket_entry e = {.slot = (uint8_t)slot, .nbytes = -1};
            e.version = rng32() % 4 ? (int64_t)(rng32() % 100000) : (int64_t)(rng64() >> 1);
            unsigned kind = rng32() % 8;
            if (kind == 0) {
                e.stub = true;
            } else if (kind > 1) {
                vals[slot] = random_value(&e.len, &e.cardinality);
                e.val = vals[slot];
            }
            if (!e.stub && rng32() % 4 == 0) e.nbytes = rng32() % 2 ? (int64_t)(rng32() % 1000) : BUCKET_NBYTES_MAX;
            if (!e.stub && rng32() % 4 == 0) e.expire_ms = rng32() % 2 ? 1 : (int64_t)(rng64() >> 1) + 1;
            if (!bucket_put(&d, &e)) exit(1);
        }
        size_t len = bucket_write(&d, buf, sizeof(buf));
        if (!len) exit(1);
        char name[32];
        snprintf(name, sizeof(name), "bucket%d", round);
        value_line(name, buf, len);
        /* damaged copies: truncated, one byte changed, one byte more */
        snprintf(name, sizeof(name), "bucket%d_cut", round);
        value_line(name, buf, rng32() % len);
        for (int j = 0; j < 3; j++) {
            size_t at = rng32() % len;
            uint8_t was = buf[at];
            buf[at] ^= (uint8_t)(1u << (rng32() % 8));
            snprintf(name, sizeof(name), "bucket%d_flip%zu", round, at);
            value_line(name, buf, len);
            buf[at] = was;
        }
        buf[len] = 0;
        snprintf(name, sizeof(name), "bucket%d_long", round);
        value_line(name, buf, len + 1);
        for (unsigned s = 0; s < BUCKET_SLOTS; s++)
            free(vals[s]);
    }
}

/* "bigbucket": 16 check-in members of about 750 bytes each (6,000 days, a third of
 * them set), every third with a deadline: a value over a chunk (8 KiB). */
static void big(void)
{
    static uint8_t buf[32768];
    struct bucket_dir d;
    uint8_t *vals[BUCKET_SLOTS];
    bucket_init(&d, BUCKET_CHECKIN);
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        for (uint32_t day = 14000; day < 20000; day++)
            if (rng32() % 3 == 0) roaring_bitmap_add(bm, day);
        struct bucket_entry e = {.slot = (uint8_t)s, .version = 1 + s, .nbytes = -1,
                                 .cardinality = roaring_bitmap_get_cardinality(bm),
                                 .expire_ms = s % 3 ? 0 : 4102444800000};
        if (!codec_encode(bm, &vals[s], &e.len)) exit(1);
        e.val = vals[s];
        roaring_bitmap_free(bm);
        if (!bucket_put(&d, &e)) exit(1);
    }
    size_t len = bucket_write(&d, buf, sizeof(buf));
    if (!len) exit(1);
    value_line("bigbucket", buf, len);
    for (unsigned s = 0; s < BUCKET_SLOTS; s++)
        free(vals[s]);
}

/* "deadbucket": one member, deleted (no bits, no length): a bucket row with no live key. */
static void dead(void)
{
    uint8_t buf[64];
    struct bucket_dir d;
    bucket_init(&d, BUCKET_CHECKIN);
    struct bucket_entry e = {.slot = 3, .version = 2, .nbytes = -1};
    if (!bucket_put(&d, &e)) exit(1);
    size_t len = bucket_write(&d, buf, sizeof(buf));
    if (!len) exit(1);
    value_line("deadbucket", buf, len);
}

int main(void)
{
    names();
    values();
    big();
    dead();
    return 0;
}
