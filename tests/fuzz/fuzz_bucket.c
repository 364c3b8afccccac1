/* fuzz_bucket.c — libFuzzer target for bucket rows (src/store/bucket.c): their names
 * and the bytes of their values as the database feeds them.
 *
 * The first byte picks what the rest is. Even: a stored bucket value (a "bits" column).
 *  - bucket_parse never reads past the end, and a rejection always has a reason that
 *    fits a short err buffer;
 *  - an accepted value obeys every rule of bucket.h (slots strictly ascending below 16,
 *    stubs with nothing but a version, cardinality 0 exactly when the value is empty,
 *    fields in range, values inside the input, back to back to its end);
 *  - it writes back byte for byte (one encoding per bucket; a damaged member keeps its
 *    stored checksum, an intact one gets the same checksum computed again);
 *  - a member put (inserted or replaced) and one removed, both picked from the input,
 *    give a value that parses to exactly the entries expected: the put one intact,
 *    every other carried with its fields, bytes and intact flag.
 * Odd: a key name.
 *  - a member of a family maps to a bucket name of that family, which is reserved, and
 *    back to itself through bucket_member_key; the member name sorts before its bucket's;
 *  - a reserved name is never a member, and its 16 member names map back to it.
 * Leaks are caught by LeakSanitizer. */
#include <stdlib.h>
#include <string.h>

#include "store/bucket.h"
#include "fuzz_check.h"

static void check_entry_rules(const struct bucket_entry *e, const uint8_t *buf, size_t len)
{
    CHECK(e->slot < BUCKET_SLOTS, "slot %u", e->slot);
    CHECK(e->version >= 0, "version %lld", (long long)e->version);
    if (e->stub) {
        CHECK(!e->len && !e->cardinality && e->nbytes == -1 && !e->expire_ms, "stub with fields");
        return;
    }
    CHECK((e->len == 0) == (e->cardinality == 0), "len %zu card %llu", e->len, (unsigned long long)e->cardinality);
    CHECK(e->cardinality <= ((uint64_t)1 << 32), "card");
    CHECK(e->nbytes >= -1 && e->nbytes <= BUCKET_NBYTES_MAX, "nbytes %lld", (long long)e->nbytes);
    CHECK(e->expire_ms >= 0, "expire");
    CHECK(e->len == 0 || (e->val >= buf && e->val + e->len <= buf + len), "value outside the input");
}

static void same_entry(const struct bucket_entry *a, const struct bucket_entry *b)
{
    CHECK(a->slot == b->slot && a->stub == b->stub && a->version == b->version && a->cardinality == b->cardinality &&
              a->nbytes == b->nbytes && a->expire_ms == b->expire_ms && a->len == b->len,
          "entry of slot %u changed", a->slot);
    CHECK(a->len == 0 || memcmp(a->val, b->val, a->len) == 0, "value of slot %u changed", a->slot);
}

static uint8_t *write_exact(const struct bucket_dir *d, size_t *len)
{
    *len = bucket_size(d);
    uint8_t *out = malloc(*len);
    CHECK(out != NULL, "malloc");
    CHECK(bucket_write(d, out, *len) == *len, "write");
    return out;
}

static void fuzz_value(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1); /* exactly sized: ASan sees any overread */
    memcpy(buf, data, size);
    struct bucket_dir d, p;
    char err[160], small[6];
    bool ok = bucket_parse(buf, size, &d, err, sizeof(err));
    CHECK(ok == bucket_parse(buf, size, &p, small, sizeof(small)), "answer depends on the err buffer");
    if (!ok) {
        CHECK(err[0] != '\0', "rejected without a reason");
        CHECK(strlen(small) < sizeof(small), "short buffer overrun");
        free(buf);
        return;
    }
    CHECK(d.family > BUCKET_NONE && d.family < BUCKET_FAMILIES && d.n <= BUCKET_SLOTS, "header");
    for (unsigned i = 0; i < d.n; i++) {
        check_entry_rules(&d.e[i], buf, size);
        CHECK(i == 0 || d.e[i].slot > d.e[i - 1].slot, "slots not ascending");
        CHECK(i == 0 || d.e[i].len == 0 || d.e[i - 1].len == 0 || d.e[i].val == d.e[i - 1].val + d.e[i - 1].len,
              "values not back to back");
    }
    CHECK(bucket_size(&d) == size, "size %zu of %zu", bucket_size(&d), size);
    size_t len;
    uint8_t *again = write_exact(&d, &len);
    CHECK(len == size && memcmp(again, buf, size) == 0, "not written back byte for byte");
    free(again);

    /* a put and a remove picked from the input */
    uint8_t pick = buf[size - 1];
    unsigned slot = pick % BUCKET_SLOTS;
    static const uint8_t nv[] = {0xB1, 0x00, 0x05};
    struct bucket_entry e = {.slot = (uint8_t)slot, .version = pick, .cardinality = 2, .nbytes = pick % 3 ? -1 : pick,
                             .expire_ms = pick % 5 ? 0 : 1000 + pick, .val = nv, .len = sizeof(nv)};
    if (pick & 0x40) e = (struct bucket_entry){.slot = (uint8_t)slot, .stub = true, .version = pick, .nbytes = -1};
    struct bucket_dir m = d;
    CHECK(bucket_put(&m, &e), "put refused");
    unsigned gone = (slot + 1 + buf[0]) % BUCKET_SLOTS;
    bool removed = gone != slot && bucket_remove(&m, gone);
    CHECK(removed == (gone != slot && bucket_find(&d, gone) >= 0), "remove");
    uint8_t *out = write_exact(&m, &len);
    CHECK(bucket_parse(out, len, &p, err, sizeof(err)), "rewritten value refused: %s", err);
    CHECK(p.family == d.family, "family");
    unsigned j = 0;
    for (unsigned i = 0; i < p.n; i++) {
        const struct bucket_entry *q = &p.e[i];
        if (q->slot == slot) {
            same_entry(q, &e);
            CHECK(q->intact, "put entry damaged");
            continue;
        }
        while (j < d.n && (d.e[j].slot == slot || (removed && d.e[j].slot == gone)))
            j++;
        CHECK(j < d.n, "entry of slot %u from nowhere", q->slot);
        same_entry(q, &d.e[j]);
        CHECK(q->intact == d.e[j].intact, "slot %u intact %d, was %d", q->slot, q->intact, d.e[j].intact);
        j++;
    }
    CHECK(p.n == d.n + (bucket_find(&d, slot) < 0) - removed, "entries %u from %u", p.n, d.n);
    free(out);
    free(buf);
}

static void fuzz_name(const uint8_t *key, size_t len)
{
    struct bucket_ref r;
    char back[BUCKET_KEY_MAX];
    if (bucket_of(key, len, &r)) {
        CHECK(bucket_name_family(key, len) == BUCKET_NONE, "a member that is also a bucket name");
        CHECK(r.family > BUCKET_NONE && r.family < BUCKET_FAMILIES && r.slot < BUCKET_SLOTS, "ref");
        CHECK(r.bkeylen == strlen(r.bkey), "bkeylen");
        CHECK(bucket_name_family((const uint8_t *)r.bkey, r.bkeylen) == r.family, "bucket name not reserved");
        size_t n = bucket_member_key((const uint8_t *)r.bkey, r.bkeylen, r.slot, back, sizeof(back));
        CHECK(n == len && memcmp(back, key, len) == 0, "member does not map back");
        int c = memcmp(key, r.bkey, len < r.bkeylen ? len : r.bkeylen);
        CHECK(c < 0 || (c == 0 && len < r.bkeylen), "member sorts after its bucket");
    }
    enum bucket_family f = bucket_name_family(key, len);
    if (f != BUCKET_NONE) {
        for (unsigned s = 0; s < BUCKET_SLOTS; s++) {
            size_t n = bucket_member_key(key, len, s, back, sizeof(back));
            CHECK(n > 0 && bucket_of((const uint8_t *)back, n, &r), "slot %u of a bucket is no member", s);
            CHECK(r.family == f && r.slot == s && r.bkeylen == len && memcmp(r.bkey, key, len) == 0,
                  "slot %u maps elsewhere", s);
        }
    } else {
        CHECK(bucket_member_key(key, len, 0, back, sizeof(back)) == 0, "members of a name that is not a bucket");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (data[0] % 2 == 0)
        fuzz_value(data + 1, size - 1);
    else
        fuzz_name(data + 1, size - 1);
    return 0;
}
