/* test_bucket.c — bucket rows (store/bucket.h): member and bucket names of both
 * families at their edges and over random ids (each name maps one way and back, a
 * bucket sorts after its members, bucket names are never members), bucket values
 * written and parsed back field by field and byte for byte, each rule of the layout
 * refused on crafted bytes, every truncation refused, damage to one member's bytes
 * marked on that member alone and carried unchanged through a rewrite of another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/bucket.h"
#include "store/codec.h"
#include "rng.h"

#define KEY(s) (const uint8_t *)(s), strlen(s)

/* ---- names ---------------------------------------------------------------------- */

static void assert_member(const char *key, enum bucket_family f, const char *bkey, unsigned slot)
{
    struct bucket_ref r;
    if (!bucket_of(KEY(key), &r)) fail_msg("%s: not a member", key);
    assert_int_equal(r.family, f);
    assert_string_equal(r.bkey, bkey);
    assert_int_equal(r.bkeylen, strlen(bkey));
    assert_int_equal(r.slot, slot);
    assert_int_equal(bucket_name_family(KEY(bkey)), f);
    char back[BUCKET_KEY_MAX];
    assert_int_equal(bucket_member_key(KEY(bkey), slot, back, sizeof(back)), strlen(key));
    assert_string_equal(back, key);
    assert_true(strcmp(key, bkey) < 0); /* a bucket sorts after its members */
    assert_int_equal(bucket_name_family(KEY(key)), BUCKET_NONE);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(BUCKET_SLOTS, 16);
    assert_member("checkin:0", BUCKET_CHECKIN, "checkin:~0", 0);
    assert_member("checkin:15", BUCKET_CHECKIN, "checkin:~0", 15);
    assert_member("checkin:16", BUCKET_CHECKIN, "checkin:~1", 0);
    assert_member("checkin:10000042", BUCKET_CHECKIN, "checkin:~625002", 10);
    assert_member("checkin:9223372036854775807", BUCKET_CHECKIN, "checkin:~576460752303423487", 15);
    assert_member("group:0:msg:0", BUCKET_RECEIPT, "group:0:msg:~0", 0);
    assert_member("group:7:msg:130", BUCKET_RECEIPT, "group:7:msg:~8", 2);
    assert_member("group:9223372036854775807:msg:9223372036854775807", BUCKET_RECEIPT,
                  "group:9223372036854775807:msg:~576460752303423487", 15);

    /* not members: they stay rows of their own */
    const char *plain[] = {"checkin:", "checkin:007", "checkin:-1", "checkin:+1", "checkin:1a", "checkin: 1",
                           "checkin:9223372036854775808", "checkin:99999999999999999999", "checkin:~0",
                           "checkin:~1", "Checkin:1", "checkin", "group:1:msg:", "group::msg:1", "group:01:msg:1",
                           "group:1:msg:01", "group:1:msg:~0", "group:1:msgs:1", "group:1:msg:1:x",
                           "group:9223372036854775808:msg:1", "group:1:msg:9223372036854775808", "group:1",
                           "message:push:1", ""};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        struct bucket_ref r;
        if (bucket_of(KEY(plain[i]), &r)) fail_msg("'%s' taken for a member of %s", plain[i], r.bkey);
    }
    struct bucket_ref r;
    assert_false(bucket_of((const uint8_t *)"checkin:1\0", 10, &r)); /* a NUL inside */
    assert_false(bucket_of((const uint8_t *)"checkin:\0" "1", 10, &r));

    /* reserved names, and names that are not */
    assert_int_equal(bucket_name_family(KEY("checkin:~576460752303423487")), BUCKET_CHECKIN);
    assert_int_equal(bucket_name_family(KEY("group:3:msg:~0")), BUCKET_RECEIPT);
    const char *free_names[] = {"checkin:~", "checkin:~01", "checkin:~-1",
                                "checkin:~1~", "checkin:~~1", "group:3:msg:~", "group:03:msg:~1",
                                "group:3:msg:~576460752303423488", "checkin:~576460752303423488", "group:3:msg~1", "checkin:1", "x"};
    for (size_t i = 0; i < sizeof(free_names) / sizeof(free_names[0]); i++)
        if (bucket_name_family(KEY(free_names[i])) != BUCKET_NONE) fail_msg("'%s' reserved", free_names[i]);
    char out[BUCKET_KEY_MAX];
    assert_int_equal(bucket_member_key(KEY("checkin:~1"), BUCKET_SLOTS, out, sizeof(out)), 0);
    assert_int_equal(bucket_member_key(KEY("checkin:1"), 0, out, sizeof(out)), 0);
    assert_int_equal(bucket_member_key(KEY("checkin:~1"), 0, out, 8), 0); /* short buffer */
    assert_string_equal(bucket_family_name(BUCKET_CHECKIN), "checkin");
    assert_string_equal(bucket_family_name(BUCKET_RECEIPT), "receipt");
    assert_string_equal(bucket_family_name(BUCKET_NONE), "?");
}

/* Random ids of every magnitude: each maps to its bucket and slot and back. */
static void test_names_random(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        uint64_t id = rng64() >> (1 + rng32() % 63), g = rng64() >> (1 + rng32() % 63);
        char key[BUCKET_KEY_MAX], bkey[BUCKET_KEY_MAX];
        bool receipt = i % 2;
        if (receipt) {
            snprintf(key, sizeof(key), "group:%llu:msg:%llu", (unsigned long long)g, (unsigned long long)id);
            snprintf(bkey, sizeof(bkey), "group:%llu:msg:~%llu", (unsigned long long)g,
                     (unsigned long long)(id / BUCKET_SLOTS));
        } else {
            snprintf(key, sizeof(key), "checkin:%llu", (unsigned long long)id);
            snprintf(bkey, sizeof(bkey), "checkin:~%llu", (unsigned long long)(id / BUCKET_SLOTS));
        }
        assert_member(key, receipt ? BUCKET_RECEIPT : BUCKET_CHECKIN, bkey, (unsigned)(id % BUCKET_SLOTS));
    }
}

/* ---- values ----------------------------------------------------------------------- */

/* A random member value: a codec encoding of a few random days, or nothing. */
struct val {
    uint8_t *bytes;
    size_t len;
    uint64_t card;
};

static struct val random_val(void)
{
    struct val v = {0};
    unsigned n = rng32() % 4 == 0 ? 0 : 1 + rng32() % 200;
    if (!n) return v;
    roaring_bitmap_t *bm = roaring_bitmap_create();
    uint32_t base = rng32() % 3 ? rng32() % 3000 : rng32();
    for (unsigned i = 0; i < n; i++)
        roaring_bitmap_add(bm, base + rng32() % 400);
    v.card = roaring_bitmap_get_cardinality(bm);
    assert_true(codec_encode(bm, &v.bytes, &v.len));
    roaring_bitmap_free(bm);
    return v;
}

static void random_entry(struct bucket_entry *e, unsigned slot, struct val *v)
{
    memset(e, 0, sizeof(*e));
    e->slot = (uint8_t)slot;
    e->version = rng32() % 3 ? (int64_t)(rng32() % 5000) : (int64_t)(rng64() >> 1);
    e->nbytes = -1;
    if (rng32() % 8 == 0) {
        e->stub = true;
        return;
    }
    *v = random_val();
    e->val = v->bytes;
    e->len = v->len;
    e->cardinality = v->card;
    if (rng32() % 4 == 0) e->nbytes = rng32() % 2 ? (int64_t)(rng32() % 100) : BUCKET_NBYTES_MAX;
    if (rng32() % 4 == 0) e->expire_ms = rng32() % 2 ? 1 : (int64_t)(rng64() >> 1) + 1;
}

/* A random bucket of up to max entries; vals[slot] hold their values (free_vals). */
static void random_bucket(struct bucket_dir *d, struct val vals[BUCKET_SLOTS], unsigned max)
{
    bucket_init(d, rng32() % 2 ? BUCKET_CHECKIN : BUCKET_RECEIPT);
    memset(vals, 0, sizeof(vals[0]) * BUCKET_SLOTS);
    unsigned n = max ? rng32() % (max + 1) : 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned slot = rng32() % BUCKET_SLOTS;
        if (bucket_find(d, slot) >= 0) continue;
        struct bucket_entry e;
        random_entry(&e, slot, &vals[slot]);
        assert_true(bucket_put(d, &e));
    }
}

static void free_vals(struct val vals[BUCKET_SLOTS])
{
    for (unsigned i = 0; i < BUCKET_SLOTS; i++)
        free(vals[i].bytes);
}

/* d written into an exactly sized block (ASan sees any overrun). */
static uint8_t *write_exact(const struct bucket_dir *d, size_t *len)
{
    *len = bucket_size(d);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(bucket_write(d, buf, *len - 1), 0); /* one byte short: nothing */
    assert_int_equal(bucket_write(d, buf, *len), *len);
    return buf;
}

static void assert_same_entry(const struct bucket_entry *a, const struct bucket_entry *b)
{
    assert_int_equal(a->slot, b->slot);
    assert_int_equal(a->stub, b->stub);
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->cardinality, b->cardinality);
    assert_int_equal(a->nbytes, b->nbytes);
    assert_int_equal(a->expire_ms, b->expire_ms);
    assert_int_equal(a->len, b->len);
    if (a->len) assert_memory_equal(a->val, b->val, a->len);
}

static void test_round_trips(void **state)
{
    (void)state;
    for (int round = 0; round < 3000; round++) {
        struct bucket_dir d, p, q;
        struct val vals[BUCKET_SLOTS];
        random_bucket(&d, vals, round % 10 == 0 ? 60 : round % (BUCKET_SLOTS + 1));
        size_t len, len2;
        uint8_t *buf = write_exact(&d, &len);
        char err[160];
        if (!bucket_parse(buf, len, &p, err, sizeof(err))) fail_msg("round %d rejected: %s", round, err);
        assert_int_equal(p.family, d.family);
        assert_int_equal(p.n, d.n);
        for (unsigned i = 0; i < d.n; i++) {
            assert_true(p.e[i].intact);
            assert_same_entry(&d.e[i], &p.e[i]);
            if (i) assert_true(p.e[i].slot > p.e[i - 1].slot);
        }
        /* one encoding per bucket: what was parsed writes back byte for byte */
        q = p;
        uint8_t *again = write_exact(&q, &len2);
        assert_int_equal(len2, len);
        assert_memory_equal(again, buf, len);
        int64_t min = 0;
        for (unsigned i = 0; i < d.n; i++)
            if (d.e[i].expire_ms && (!min || d.e[i].expire_ms < min)) min = d.e[i].expire_ms;
        assert_int_equal(bucket_min_deadline(&p), min);
        free(again);
        free(buf);
        free_vals(vals);
    }
}

/* ---- crafted bytes ---------------------------------------------------------------- */

struct bytes {
    uint8_t b[256];
    size_t n;
};

static void put(struct bytes *s, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        s->b[s->n++] = (uint8_t)va_arg(ap, int);
    va_end(ap);
}

/* The checksum of the entry that starts at entry_at (ending at the end of s so far),
 * for a bucket whose header is s->b[0..head) and whose value is val[0..vlen). */
static void put_crc(struct bytes *s, size_t head, size_t entry_at, const uint8_t *val, size_t vlen)
{
    uint32_t crc = codec_crc32c(s->b, head);
    crc = codec_crc32c_extend(crc, s->b + entry_at, s->n - entry_at);
    if (vlen) crc = codec_crc32c_extend(crc, val, vlen);
    put(s, 4, crc & 0xFF, (crc >> 8) & 0xFF, (crc >> 16) & 0xFF, crc >> 24);
}

static void assert_refused(const struct bytes *s, const char *why)
{
    struct bucket_dir d;
    char err[160] = "";
    uint8_t *copy = malloc(s->n ? s->n : 1); /* exactly sized: ASan sees any overread */
    memcpy(copy, s->b, s->n);
    if (bucket_parse(copy, s->n, &d, err, sizeof(err))) fail_msg("accepted: expected '%s'", why);
    if (!strstr(err, why)) fail_msg("reason '%s', expected '%s'", err, why);
    char small[8];
    assert_false(bucket_parse(copy, s->n, &d, small, sizeof(small))); /* a short err buffer */
    assert_true(strlen(small) < sizeof(small));
    assert_false(bucket_parse(copy, s->n, &d, NULL, 0));
    free(copy);
}

static void assert_accepted(const struct bytes *s, unsigned n)
{
    struct bucket_dir d;
    char err[160] = "";
    if (!bucket_parse(s->b, s->n, &d, err, sizeof(err))) fail_msg("refused: %s", err);
    assert_int_equal(d.n, n);
    for (unsigned i = 0; i < n; i++)
        assert_true(d.e[i].intact);
}

/* One entry of slot 5, version 1, cardinality 1, the value B1 00 01 (member 0), with the
 * bytes extra after the length, and its checksum right. */
static void one_entry(struct bytes *s, uint8_t flags, const uint8_t *extra, size_t nextra)
{
    static const uint8_t val[] = {0xB1, 0x00, 0x01};
    s->n = 0;
    put(s, 3, BUCKET_TAG, 1, 1);
    size_t at = s->n;
    put(s, 5, 5, flags, 1, 1, 3);
    if (nextra) memcpy(s->b + s->n, extra, nextra);
    s->n += nextra;
    put_crc(s, 2, at, val, sizeof(val));
    memcpy(s->b + s->n, val, sizeof(val));
    s->n += sizeof(val);
}

static void test_rules(void **state)
{
    (void)state;
    struct bytes s = {.n = 0};
    assert_refused(&s, "not a bucket value");
    put(&s, 3, 0xB1, 1, 0);
    assert_refused(&s, "first byte 0xB1");
    s.n = 0, put(&s, 3, BUCKET_TAG, 1, 0);
    assert_accepted(&s, 0); /* the empty bucket */
    s.n = 0, put(&s, 3, BUCKET_TAG, 0, 0);
    assert_refused(&s, "unknown family 0");
    s.n = 0, put(&s, 3, BUCKET_TAG, 3, 0);
    assert_refused(&s, "unknown family 3");
    s.n = 0, put(&s, 4, BUCKET_TAG, 0x81, 0x00, 0);
    assert_refused(&s, "family varint too long");
    s.n = 0, put(&s, 2, BUCKET_TAG, 1);
    assert_refused(&s, "truncated in its count");
    s.n = 0, put(&s, 3, BUCKET_TAG, 1, BUCKET_SLOTS + 1);
    assert_refused(&s, "count 17 out of range");
    s.n = 0, put(&s, 4, BUCKET_TAG, 1, 0, 0);
    assert_refused(&s, "1 bytes after the directory");
    s.n = 0, put(&s, 4, BUCKET_TAG, 1, 1, 5);
    assert_refused(&s, "entry 0: truncated");

    one_entry(&s, 0, NULL, 0);
    assert_accepted(&s, 1);
    for (size_t cut = 0; cut < s.n; cut++) { /* every truncation */
        struct bytes t = s;
        t.n = cut;
        struct bucket_dir d;
        assert_false(bucket_parse(t.b, t.n, &d, NULL, 0));
    }
    s.b[s.n++] = 0;
    assert_refused(&s, "4 bytes after the directory, where its entries have 3");
    one_entry(&s, 0, NULL, 0);
    s.b[3] = BUCKET_SLOTS;
    assert_refused(&s, "slot 16 above 15");
    one_entry(&s, 0x08, NULL, 0);
    assert_refused(&s, "unknown flags 0x08");
    one_entry(&s, BUCKET_F_STUB | BUCKET_F_EXPIRE, NULL, 0);
    assert_refused(&s, "a stub with other flags");
    static const uint8_t nb_ok[] = {0x80, 0x80, 0x80, 0x80, 0x02}, nb_big[] = {0x81, 0x80, 0x80, 0x80, 0x02};
    one_entry(&s, BUCKET_F_NBYTES, nb_ok, sizeof(nb_ok));
    assert_accepted(&s, 1); /* 512 MiB */
    one_entry(&s, BUCKET_F_NBYTES, nb_big, sizeof(nb_big));
    assert_refused(&s, "string length 536870913 out of range");
    static const uint8_t nb_long[] = {0x80, 0x00};
    one_entry(&s, BUCKET_F_NBYTES, nb_long, sizeof(nb_long));
    assert_refused(&s, "string length not a minimal varint");
    static const uint8_t dl_zero[8] = {0}, dl_max[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F},
                         dl_big[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    one_entry(&s, BUCKET_F_EXPIRE, dl_max, sizeof(dl_max));
    assert_accepted(&s, 1);
    one_entry(&s, BUCKET_F_EXPIRE, dl_zero, sizeof(dl_zero));
    assert_refused(&s, "deadline 0 out of range");
    one_entry(&s, BUCKET_F_EXPIRE, dl_big, sizeof(dl_big));
    assert_refused(&s, "deadline 9223372036854775808 out of range");
    one_entry(&s, BUCKET_F_EXPIRE, dl_max, sizeof(dl_max));
    s.n = 8 + 5; /* header 3, entry 5: the deadline's first 5 bytes */
    assert_refused(&s, "entry 0: truncated in its deadline");
    one_entry(&s, BUCKET_F_EXPIRE, dl_max, sizeof(dl_max));
    s.n = 8 + 8 + 2;
    assert_refused(&s, "entry 0: truncated in its checksum");

    /* fields of the entry itself: slot 5, flags, then the varints given */
    struct {
        uint8_t f[12];
        size_t n;
        const char *why;
    } cases[] = {
        {{0x81, 0x00, 1, 1}, 4, "version not a minimal varint"},
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10, "version varint too long"},
        {{1, 0x81, 0x80, 0x80, 0x80, 0x10, 1}, 7, "cardinality 4294967297 out of range"},
        {{1, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, 7, "cardinality varint too long"},
        {{1, 1, 0}, 3, "cardinality and length disagree"},
        {{1, 0, 1}, 3, "cardinality and length disagree"},
        {{1, 1, 0x80, 0x80, 0x80, 0x80, 0x10}, 7, "length 4294967296 out of range"},
        {{1, 1, 100}, 3, "values past the end"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        s.n = 0;
        put(&s, 3, BUCKET_TAG, 1, 1);
        size_t at = s.n;
        put(&s, 2, 5, 0);
        memcpy(s.b + s.n, cases[i].f, cases[i].n);
        s.n += cases[i].n;
        put_crc(&s, 2, at, NULL, 0);
        assert_refused(&s, cases[i].why);
    }

    /* two entries: slots must rise */
    for (int dup = 0; dup < 2; dup++) {
        s.n = 0;
        put(&s, 3, BUCKET_TAG, 2, 2);
        size_t at = s.n;
        put(&s, 3, 9, BUCKET_F_STUB, 7);
        put_crc(&s, 2, at, NULL, 0);
        at = s.n;
        put(&s, 3, dup ? 9 : 8, BUCKET_F_STUB, 7);
        put_crc(&s, 2, at, NULL, 0);
        assert_refused(&s, dup ? "slot 9 not above" : "slot 8 not above");
    }
    s.n = 0; /* a stub: version and checksum only */
    put(&s, 3, BUCKET_TAG, 2, 1);
    size_t at = s.n;
    put(&s, 4, 9, BUCKET_F_STUB, 0x80, 0x01);
    put_crc(&s, 2, at, NULL, 0);
    assert_accepted(&s, 1);
}

/* A bucket of n members (slots 0, 3, 6, ...), each with a 20-member value. */
static uint8_t *sample(unsigned n, struct val vals[BUCKET_SLOTS], size_t *len, struct bucket_dir *d)
{
    bucket_init(d, BUCKET_CHECKIN);
    memset(vals, 0, sizeof(vals[0]) * BUCKET_SLOTS);
    for (unsigned i = 0; i < n; i++) {
        unsigned slot = i * 3;
        roaring_bitmap_t *bm = roaring_bitmap_create();
        for (unsigned k = 0; k < 20; k++)
            roaring_bitmap_add(bm, 100 * i + k * 7);
        assert_true(codec_encode(bm, &vals[slot].bytes, &vals[slot].len));
        struct bucket_entry e = {.slot = (uint8_t)slot, .version = 1000 + i, .cardinality = 20, .nbytes = i % 2 ? 99 : -1,
                                 .expire_ms = i % 3 ? 0 : 1700000000000 + i, .val = vals[slot].bytes, .len = vals[slot].len};
        roaring_bitmap_free(bm);
        assert_true(bucket_put(d, &e));
    }
    return write_exact(d, len);
}

/* Every single-bit change: a change in a member's value marks that member alone; any
 * change is either refused or marks at least one member (or names another family). */
static void test_damage(void **state)
{
    (void)state;
    struct val vals[BUCKET_SLOTS];
    struct bucket_dir d, p;
    size_t len;
    uint8_t *buf = sample(6, vals, &len, &d);
    size_t values_at = len;
    for (unsigned i = 0; i < d.n; i++)
        values_at -= d.e[i].len;
    for (size_t pos = 0; pos < len; pos++) {
        for (int bit = 0; bit < 8; bit++) {
            buf[pos] ^= (uint8_t)(1 << bit);
            bool ok = bucket_parse(buf, len, &p, NULL, 0);
            if (pos >= values_at) {
                assert_true(ok);
                size_t off = values_at;
                for (unsigned i = 0; i < p.n; i++) {
                    bool hit = pos >= off && pos < off + p.e[i].len;
                    if (p.e[i].intact == hit) fail_msg("byte %zu bit %d: member %u intact %d", pos, bit, i, p.e[i].intact);
                    off += p.e[i].len;
                }
            } else if (ok && p.family == d.family) {
                unsigned damaged = 0;
                for (unsigned i = 0; i < p.n; i++)
                    damaged += !p.e[i].intact;
                if (!damaged) fail_msg("byte %zu bit %d: accepted with every member intact", pos, bit);
            }
            buf[pos] ^= (uint8_t)(1 << bit);
        }
    }
    /* another family in the header: no member of it is intact */
    buf[1] = BUCKET_RECEIPT;
    assert_true(bucket_parse(buf, len, &p, NULL, 0));
    for (unsigned i = 0; i < p.n; i++)
        assert_false(p.e[i].intact);
    free(buf);
    free_vals(vals);
}

/* A rewrite of one member carries a damaged neighbour byte for byte, still damaged. */
static void test_rewrite_keeps_damage(void **state)
{
    (void)state;
    struct val vals[BUCKET_SLOTS];
    struct bucket_dir d, p, q;
    size_t len, len2;
    uint8_t *buf = sample(5, vals, &len, &d);
    assert_true(bucket_parse(buf, len, &p, NULL, 0));
    uint8_t *hit = (uint8_t *)p.e[2].val + 1; /* member at slot 6 */
    *hit ^= 0x10;
    assert_true(bucket_parse(buf, len, &p, NULL, 0));
    assert_false(p.e[2].intact);
    uint8_t damaged[64];
    size_t dlen = p.e[2].len;
    memcpy(damaged, p.e[2].val, dlen);

    static const uint8_t nv[] = {0xB1, 0x01, 0x03};
    struct bucket_entry e = {.slot = 9, .version = 77, .cardinality = 2, .nbytes = -1, .val = nv, .len = sizeof(nv)};
    assert_true(bucket_put(&p, &e)); /* replaces slot 9 */
    e.slot = 14; /* and a new member after the others */
    assert_true(bucket_put(&p, &e));
    assert_int_equal(p.n, 6);
    uint8_t *out = write_exact(&p, &len2);
    assert_true(bucket_parse(out, len2, &q, NULL, 0));
    assert_int_equal(q.n, 6);
    for (unsigned i = 0; i < q.n; i++)
        assert_int_equal(q.e[i].intact, q.e[i].slot != 6);
    assert_int_equal(q.e[2].len, dlen);
    assert_memory_equal(q.e[2].val, damaged, dlen);
    assert_int_equal(q.e[3].slot, 9);
    assert_int_equal(q.e[3].version, 77);
    assert_memory_equal(q.e[3].val, nv, sizeof(nv));
    assert_int_equal(q.e[5].slot, 14);
    free(out);
    free(buf);
    free_vals(vals);
}

static void test_put_remove(void **state)
{
    (void)state;
    struct bucket_dir d;
    bucket_init(&d, BUCKET_RECEIPT);
    static const uint8_t v[] = {0xB1, 0x00, 0x01};
    struct bucket_entry ok = {.slot = 3, .version = 1, .cardinality = 1, .nbytes = -1, .val = v, .len = 3};
    struct bucket_entry bad[] = {
        {.slot = BUCKET_SLOTS, .version = 1, .cardinality = 1, .nbytes = -1, .val = v, .len = 3},
        {.slot = 1, .version = -1, .cardinality = 1, .nbytes = -1, .val = v, .len = 3},
        {.slot = 1, .version = 1, .cardinality = 0, .nbytes = -1, .val = v, .len = 3},
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = -1, .val = v, .len = 0},
        {.slot = 1, .version = 1, .cardinality = ((uint64_t)1 << 32) + 1, .nbytes = -1, .val = v, .len = 3},
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = BUCKET_NBYTES_MAX + 1, .val = v, .len = 3},
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = -2, .val = v, .len = 3},
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = -1, .expire_ms = -5, .val = v, .len = 3},
        {.slot = 1, .stub = true, .version = 1, .cardinality = 1, .nbytes = -1, .val = v, .len = 3},
        {.slot = 1, .stub = true, .version = 1, .nbytes = 4},
        {.slot = 1, .stub = true, .version = 1, .nbytes = -1, .expire_ms = 9},
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = -1, .val = NULL, .len = 3},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (bucket_put(&d, &bad[i])) fail_msg("case %zu put", i);
    assert_int_equal(d.n, 0);
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) {
        ok.slot = (uint8_t)((s * 37) % BUCKET_SLOTS);
        assert_true(bucket_put(&d, &ok));
    }
    assert_int_equal(d.n, BUCKET_SLOTS);
    ok.version = 9;
    assert_true(bucket_put(&d, &ok)); /* replaces: still 16 */
    assert_int_equal(d.n, BUCKET_SLOTS);
    struct bucket_dir broken = d; /* 16 entries, two of one slot: a 17th never goes in */
    broken.e[15].slot = 14;
    ok.slot = 15;
    assert_false(bucket_put(&broken, &ok));
    for (unsigned i = 0; i < d.n; i++)
        assert_int_equal(d.e[i].slot, i);
    assert_true(bucket_remove(&d, 10));
    assert_false(bucket_remove(&d, 10));
    assert_int_equal(bucket_find(&d, 10), -1);
    assert_int_equal(bucket_find(&d, 11), 10);
    assert_int_equal(d.n, BUCKET_SLOTS - 1);
    assert_int_equal(bucket_min_deadline(&d), 0);
}

/* The counts a bucket row's columns keep (DBSIZE reads them): keys, and keys with a
 * deadline; a stub, an empty member without a length and an expired member's deadline
 * (still a key until a write sheds it) each as the rule says. */
static void test_counts(void **state)
{
    (void)state;
    struct bucket_dir d;
    bucket_init(&d, BUCKET_CHECKIN);
    uint64_t keys = 9, deadlines = 9;
    bucket_counts(&d, &keys, &deadlines);
    assert_int_equal(keys, 0);
    assert_int_equal(deadlines, 0);
    static const uint8_t v[] = {0xB1, 0x00, 0x01};
    const struct bucket_entry es[] = {
        {.slot = 0, .version = 1, .cardinality = 1, .nbytes = -1, .val = v, .len = 3},                  /* key */
        {.slot = 1, .version = 1, .cardinality = 1, .nbytes = -1, .expire_ms = 5, .val = v, .len = 3},  /* key, deadline */
        {.slot = 2, .version = 2, .cardinality = 0, .nbytes = 7},                                        /* key: a length */
        {.slot = 3, .version = 2, .cardinality = 0, .nbytes = 0, .expire_ms = 1},                         /* key, deadline */
        {.slot = 4, .version = 3, .cardinality = 0, .nbytes = -1},                                       /* "no key" */
        {.slot = 5, .stub = true, .version = 4, .nbytes = -1},                                           /* its own row's */
    };
    for (size_t i = 0; i < sizeof(es) / sizeof(es[0]); i++)
        assert_true(bucket_put(&d, &es[i]));
    bucket_counts(&d, &keys, &deadlines);
    assert_int_equal(keys, 4);
    assert_int_equal(deadlines, 2);
    assert_true(bucket_remove(&d, 1));
    bucket_counts(&d, &keys, &deadlines);
    assert_int_equal(keys, 3);
    assert_int_equal(deadlines, 1);
}

/* What a full bucket of a year of check-ins costs: the directory's share of each member. */
static void test_sizes(void **state)
{
    (void)state;
    struct bucket_dir d;
    bucket_init(&d, BUCKET_CHECKIN);
    uint8_t *v[BUCKET_SLOTS];
    size_t vl[BUCKET_SLOTS], values = 0;
    for (unsigned s = 0; s < BUCKET_SLOTS; s++) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        for (uint32_t day = 20000; day < 20365; day++) /* half the days of a year */
            if (rng32() % 2) roaring_bitmap_add(bm, day);
        assert_true(codec_encode(bm, &v[s], &vl[s]));
        struct bucket_entry e = {.slot = (uint8_t)s, .version = 180, .cardinality = roaring_bitmap_get_cardinality(bm),
                                 .nbytes = -1, .val = v[s], .len = vl[s]};
        roaring_bitmap_free(bm);
        assert_true(bucket_put(&d, &e));
        values += vl[s];
    }
    size_t size = bucket_size(&d);
    print_message("%u check-in years: %zu bytes, %.1f a member (%.1f of them the value)\n", BUCKET_SLOTS, size,
                  (double)size / BUCKET_SLOTS, (double)values / BUCKET_SLOTS);
    assert_true(size - values <= 3 + BUCKET_SLOTS * 11); /* slot, flags, 2 + 2 + 1 varint bytes, checksum */
    for (unsigned s = 0; s < BUCKET_SLOTS; s++)
        free(v[s]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),        cmocka_unit_test(test_names_random),
        cmocka_unit_test(test_round_trips),  cmocka_unit_test(test_rules),
        cmocka_unit_test(test_damage),       cmocka_unit_test(test_rewrite_keeps_damage),
        cmocka_unit_test(test_put_remove),   cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
