/* bucket.c — member and bucket names, and the bucket value's bytes (bucket.h). */
#include "store/bucket.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store/codec.h"
#include "store/leb128.h"

#define ID_MAX ((uint64_t)INT64_MAX)
#define BUCKET_ID_MAX (ID_MAX >> BUCKET_SHIFT)

/* ---- names ---------------------------------------------------------------------- */

/* A canonical decimal of p[0..n) (0, or 1 … 19 digits without a leading zero) that is
 * at most max. */
static bool canon_id(const uint8_t *p, size_t n, uint64_t max, uint64_t *v)
{
    if (n == 0 || n > 19 || (p[0] == '0' && n > 1)) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        x = x * 10 + (uint64_t)(p[i] - '0'); /* 19 digits < 2^64: no overflow */
    }
    if (x > max) return false;
    *v = x;
    return true;
}

static bool has_prefix(const uint8_t *key, size_t len, const char *prefix, size_t plen)
{
    return len >= plen && memcmp(key, prefix, plen) == 0;
}

#define CHECKIN_PREFIX "checkin:"
#define GROUP_PREFIX "group:"
#define MSG_INFIX ":msg:"

/* A receipt name group:{g}:msg:{rest}: g, and where rest starts. */
static bool group_msg_split(const uint8_t *key, size_t len, uint64_t *g, size_t *rest)
{
    const size_t gp = sizeof(GROUP_PREFIX) - 1, mi = sizeof(MSG_INFIX) - 1;
    if (!has_prefix(key, len, GROUP_PREFIX, gp)) return false;
    const uint8_t *colon = memchr(key + gp, ':', len - gp);
    if (!colon) return false;
    size_t glen = (size_t)(colon - (key + gp));
    if (!canon_id(key + gp, glen, ID_MAX, g)) return false;
    size_t at = gp + glen;
    if (!has_prefix(key + at, len - at, MSG_INFIX, mi)) return false;
    *rest = at + mi;
    return true;
}

const char *bucket_family_name(enum bucket_family f)
{
    switch (f) {
    case BUCKET_CHECKIN:
        return "checkin";
    case BUCKET_RECEIPT:
        return "receipt";
    default:
        return "?";
    }
}

bool bucket_of(const uint8_t *key, size_t len, struct bucket_ref *ref)
{
    const size_t cp = sizeof(CHECKIN_PREFIX) - 1;
    uint64_t id, g;
    size_t rest;
    int n;
    if (has_prefix(key, len, CHECKIN_PREFIX, cp)) {
        if (!canon_id(key + cp, len - cp, ID_MAX, &id)) return false;
        ref->family = BUCKET_CHECKIN;
        n = snprintf(ref->bkey, sizeof(ref->bkey), CHECKIN_PREFIX "~%llu", (unsigned long long)(id >> BUCKET_SHIFT));
    } else if (group_msg_split(key, len, &g, &rest)) {
        if (!canon_id(key + rest, len - rest, ID_MAX, &id)) return false;
        ref->family = BUCKET_RECEIPT;
        n = snprintf(ref->bkey, sizeof(ref->bkey), GROUP_PREFIX "%llu" MSG_INFIX "~%llu", (unsigned long long)g,
                     (unsigned long long)(id >> BUCKET_SHIFT));
    } else {
        return false;
    }
    ref->slot = (uint8_t)(id & (BUCKET_SLOTS - 1));
    ref->bkeylen = (size_t)n; /* at most 49 bytes: never truncated */
    return true;
}

/* The family of bucket name key[0..len), with its bucket number and the length of
 * the name before '~' (the member names' common prefix). */
static enum bucket_family name_parts(const uint8_t *key, size_t len, uint64_t *b, size_t *plen)
{
    const size_t cp = sizeof(CHECKIN_PREFIX) - 1;
    uint64_t g;
    size_t rest;
    if (has_prefix(key, len, CHECKIN_PREFIX "~", cp + 1)) {
        *plen = cp;
        return canon_id(key + cp + 1, len - cp - 1, BUCKET_ID_MAX, b) ? BUCKET_CHECKIN : BUCKET_NONE;
    }
    if (group_msg_split(key, len, &g, &rest) && rest < len && key[rest] == '~') {
        *plen = rest;
        return canon_id(key + rest + 1, len - rest - 1, BUCKET_ID_MAX, b) ? BUCKET_RECEIPT : BUCKET_NONE;
    }
    return BUCKET_NONE;
}

enum bucket_family bucket_name_family(const uint8_t *key, size_t len)
{
    uint64_t b;
    size_t plen;
    return name_parts(key, len, &b, &plen);
}

size_t bucket_member_key(const uint8_t *bkey, size_t len, unsigned slot, char *out, size_t cap)
{
    uint64_t b;
    size_t plen;
    if (slot >= BUCKET_SLOTS || cap < BUCKET_KEY_MAX || name_parts(bkey, len, &b, &plen) == BUCKET_NONE) return 0;
    memcpy(out, bkey, plen); /* plen < 32: the prefix of a name of at most 48 bytes */
    int n = snprintf(out + plen, cap - plen, "%llu", (unsigned long long)((b << BUCKET_SHIFT) | slot));
    return plen + (size_t)n;
}

/* ---- the value -------------------------------------------------------------------- */

#define CARD_MAX ((uint64_t)1 << 32)
#define CRC_BYTES 4
#define EXPIRE_BYTES 8

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint8_t flags_of(const struct bucket_entry *e)
{
    if (e->stub) return BUCKET_F_STUB;
    return (uint8_t)((e->expire_ms ? BUCKET_F_EXPIRE : 0) | (e->nbytes >= 0 ? BUCKET_F_NBYTES : 0));
}

/* Bytes of e's directory entry, its checksum included. */
static size_t entry_size(const struct bucket_entry *e)
{
    size_t n = 2 + varint_len((uint64_t)e->version) + CRC_BYTES;
    if (e->stub) return n;
    n += varint_len(e->cardinality) + varint_len(e->len);
    if (e->nbytes >= 0) n += varint_len((uint64_t)e->nbytes);
    if (e->expire_ms) n += EXPIRE_BYTES;
    return n;
}

/* The entry's bytes before its checksum into p; their number. */
static size_t entry_put(uint8_t *p, const struct bucket_entry *e)
{
    size_t n = 0;
    p[n++] = e->slot;
    p[n++] = flags_of(e);
    n += leb128_put(p + n, (uint64_t)e->version);
    if (e->stub) return n;
    n += leb128_put(p + n, e->cardinality);
    n += leb128_put(p + n, e->len);
    if (e->nbytes >= 0) n += leb128_put(p + n, (uint64_t)e->nbytes);
    if (e->expire_ms) {
        put_le(p + n, (uint64_t)e->expire_ms, EXPIRE_BYTES);
        n += EXPIRE_BYTES;
    }
    return n;
}

static uint32_t entry_crc(uint32_t head_crc, const uint8_t *ent, size_t entlen, const uint8_t *val, size_t len)
{
    uint32_t crc = codec_crc32c_extend(head_crc, ent, entlen);
    return len ? codec_crc32c_extend(crc, val, len) : crc;
}

/* The rules bucket_put and bucket_parse share, for one entry's fields. */
static const char *entry_fault(const struct bucket_entry *e)
{
    if (e->slot >= BUCKET_SLOTS) return "slot out of range";
    if (e->version < 0) return "negative version";
    if (e->len > UINT32_MAX) return "a value out of range";
    if (e->stub) {
        if (e->len || e->cardinality || e->nbytes >= 0 || e->expire_ms) return "a stub with a value";
        return NULL;
    }
    if (e->cardinality > CARD_MAX) return "cardinality above 2^32";
    if ((e->len == 0) != (e->cardinality == 0)) return "cardinality and length disagree on emptiness";
    if (e->nbytes < -1 || e->nbytes > BUCKET_NBYTES_MAX) return "string length out of range";
    if (e->expire_ms < 0) return "negative deadline";
    return NULL;
}

void bucket_init(struct bucket_dir *d, enum bucket_family f)
{
    d->family = f;
    d->n = 0;
}

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* A minimal varint of at most max bytes, at most bound; false (reason in err) else. */
static bool get_varint(const uint8_t *buf, size_t len, size_t *pos, int max, uint64_t bound, const char *where,
                       const char *what, uint64_t *v, char *err, size_t errlen)
{
    switch (leb128_read(buf, len, pos, max, v)) {
    case LEB128_OK:
        return *v <= bound || fail(err, errlen, "%s: %s %llu out of range", where, what, (unsigned long long)*v);
    case LEB128_TRUNCATED:
        return fail(err, errlen, "%s: truncated in its %s", where, what);
    case LEB128_NON_MINIMAL:
        return fail(err, errlen, "%s: %s not a minimal varint", where, what);
    default:
        return fail(err, errlen, "%s: %s varint too long", where, what);
    }
}

bool bucket_parse(const uint8_t *buf, size_t len, struct bucket_dir *d, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    if (len == 0 || buf[0] != BUCKET_TAG)
        return fail(err, errlen, "not a bucket value (%zu bytes, first byte 0x%02X)", len, len ? buf[0] : 0u);
    size_t pos = 1;
    uint64_t fam, n;
    if (!get_varint(buf, len, &pos, 1, 127, "bucket header", "family", &fam, err, errlen)) return false;
    if (fam == BUCKET_NONE || fam >= BUCKET_FAMILIES) return fail(err, errlen, "bucket of unknown family %llu", (unsigned long long)fam);
    uint32_t head_crc = codec_crc32c(buf, pos);
    if (!get_varint(buf, len, &pos, 1, BUCKET_SLOTS, "bucket header", "count", &n, err, errlen)) return false;
    d->family = (enum bucket_family)fam;
    d->n = 0;
    size_t start[BUCKET_SLOTS + 1]; /* where each entry starts; then where the values do */
    size_t vals = 0;                /* value bytes the entries claim */
    char where[32];
    for (unsigned i = 0; i < n; i++) {
        struct bucket_entry *e = &d->e[i];
        snprintf(where, sizeof(where), "bucket entry %u", i);
        start[i] = pos;
        if (len - pos < 2) return fail(err, errlen, "%s: truncated", where);
        e->slot = buf[pos];
        uint8_t flags = buf[pos + 1];
        pos += 2;
        if (e->slot >= BUCKET_SLOTS)
            return fail(err, errlen, "%s: slot %u above %u", where, e->slot, BUCKET_SLOTS - 1);
        if (i > 0 && e->slot <= d->e[i - 1].slot)
            return fail(err, errlen, "%s: slot %u not above the one before", where, e->slot);
        if (flags & ~(BUCKET_F_EXPIRE | BUCKET_F_NBYTES | BUCKET_F_STUB))
            return fail(err, errlen, "%s: unknown flags 0x%02X", where, flags);
        e->stub = flags & BUCKET_F_STUB;
        if (e->stub && flags != BUCKET_F_STUB) return fail(err, errlen, "%s: a stub with other flags (0x%02X)", where, flags);
        uint64_t v, card = 0, vlen = 0, nb = 0;
        if (!get_varint(buf, len, &pos, 9, ID_MAX, where, "version", &v, err, errlen)) return false;
        if (!e->stub && (!get_varint(buf, len, &pos, 5, CARD_MAX, where, "cardinality", &card, err, errlen) ||
                         !get_varint(buf, len, &pos, 5, UINT32_MAX, where, "length", &vlen, err, errlen)))
            return false;
        if ((flags & BUCKET_F_NBYTES) &&
            !get_varint(buf, len, &pos, 5, (uint64_t)BUCKET_NBYTES_MAX, where, "string length", &nb, err, errlen))
            return false;
        e->version = (int64_t)v;
        e->cardinality = card;
        e->len = (size_t)vlen;
        e->nbytes = (flags & BUCKET_F_NBYTES) ? (int64_t)nb : -1;
        e->expire_ms = 0;
        if (flags & BUCKET_F_EXPIRE) {
            if (len - pos < EXPIRE_BYTES) return fail(err, errlen, "%s: truncated in its deadline", where);
            uint64_t x = get_le(buf + pos, EXPIRE_BYTES);
            pos += EXPIRE_BYTES;
            if (x == 0 || x > ID_MAX) return fail(err, errlen, "%s: deadline %llu out of range", where, (unsigned long long)x);
            e->expire_ms = (int64_t)x;
        }
        if (len - pos < CRC_BYTES) return fail(err, errlen, "%s: truncated in its checksum", where);
        e->crc = (uint32_t)get_le(buf + pos, CRC_BYTES);
        pos += CRC_BYTES;
        const char *why = entry_fault(e);
        if (why) return fail(err, errlen, "%s: %s", where, why);
        if (e->len > len - pos || vals > len - pos - e->len)
            return fail(err, errlen, "%s: values past the end of the bucket", where);
        vals += e->len;
        d->n = i + 1;
    }
    start[d->n] = pos;
    if (len - pos != vals)
        return fail(err, errlen, "bucket of %u entries: %zu bytes after the directory, where its entries have %zu",
                    d->n, len - pos, vals);
    for (unsigned i = 0; i < d->n; i++) { /* each entry's bytes run from its start to its checksum */
        struct bucket_entry *e = &d->e[i];
        e->val = buf + pos;
        pos += e->len;
        e->intact = entry_crc(head_crc, buf + start[i], start[i + 1] - start[i] - CRC_BYTES, e->val, e->len) == e->crc;
    }
    return true;
}

int bucket_find(const struct bucket_dir *d, unsigned slot)
{
    for (unsigned i = 0; i < d->n; i++)
        if (d->e[i].slot == slot) return (int)i;
    return -1;
}

bool bucket_put(struct bucket_dir *d, const struct bucket_entry *e)
{
    if (entry_fault(e) || (e->len && !e->val)) return false;
    unsigned i = 0;
    while (i < d->n && d->e[i].slot < e->slot)
        i++;
    if (i == d->n || d->e[i].slot != e->slot) {
        if (d->n >= BUCKET_SLOTS) return false; /* a directory that breaks its own rules */
        memmove(&d->e[i + 1], &d->e[i], (d->n - i) * sizeof(d->e[0])); /* n < BUCKET_SLOTS: slots are distinct */
        d->n++;
    }
    d->e[i] = *e;
    d->e[i].intact = true;
    if (e->stub) d->e[i].val = NULL;
    return true;
}

bool bucket_remove(struct bucket_dir *d, unsigned slot)
{
    int i = bucket_find(d, slot);
    if (i < 0) return false;
    memmove(&d->e[i], &d->e[i + 1], (d->n - (unsigned)i - 1) * sizeof(d->e[0]));
    d->n--;
    return true;
}

static size_t head_size(const struct bucket_dir *d)
{
    return 1 + varint_len((uint64_t)d->family) + varint_len(d->n);
}

void bucket_counts(const struct bucket_dir *d, uint64_t *keys, uint64_t *deadlines)
{
    *keys = *deadlines = 0;
    for (unsigned i = 0; i < d->n; i++) {
        const struct bucket_entry *e = &d->e[i];
        if (e->stub || (e->cardinality == 0 && e->nbytes < 0)) continue;
        ++*keys;
        *deadlines += e->expire_ms > 0;
    }
}

size_t bucket_size(const struct bucket_dir *d)
{
    size_t n = head_size(d);
    for (unsigned i = 0; i < d->n; i++)
        n += entry_size(&d->e[i]) + d->e[i].len;
    return n;
}

size_t bucket_write(const struct bucket_dir *d, uint8_t *out, size_t cap)
{
    size_t total = bucket_size(d);
    if (cap < total) return 0;
    size_t pos = 0;
    out[pos++] = BUCKET_TAG;
    pos += leb128_put(out + pos, (uint64_t)d->family);
    uint32_t head_crc = codec_crc32c(out, pos);
    pos += leb128_put(out + pos, d->n);
    size_t vpos = total;
    for (unsigned i = 0; i < d->n; i++)
        vpos -= d->e[i].len;
    for (unsigned i = 0; i < d->n; i++) {
        const struct bucket_entry *e = &d->e[i];
        size_t entlen = entry_put(out + pos, e);
        if (e->len) memcpy(out + vpos, e->val, e->len);
        uint32_t crc = e->intact ? entry_crc(head_crc, out + pos, entlen, e->val, e->len) : e->crc;
        pos += entlen;
        put_le(out + pos, crc, CRC_BYTES);
        pos += CRC_BYTES;
        vpos += e->len;
    }
    return total;
}

int64_t bucket_min_deadline(const struct bucket_dir *d)
{
    int64_t min = 0;
    for (unsigned i = 0; i < d->n; i++)
        if (d->e[i].expire_ms && (!min || d->e[i].expire_ms < min)) min = d->e[i].expire_ms;
    return min;
}
