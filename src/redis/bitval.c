/* bitval.c — Redis 7 string-value semantics (BITCOUNT, BITPOS, GETRANGE, SETRANGE,
 * BITFIELD, BITOP) over a Roaring bitmap plus a byte length. Bits are read and
 * written through iterators, rank and single-value add/remove, so the cost follows
 * the set bits touched or the bytes asked for, never the value's length. */
#include <stdlib.h>
#include <string.h>

#include "redis/bitval.h"

enum {
    READ_BATCH = 256,   /* values pulled from an iterator at a time */
    WRITE_CHUNK = 1024, /* bytes compared and rewritten at a time by write_bytes */
};

/* ---- bit-level primitives --------------------------------------------------------- */

/* Fills buf[0..count) with bytes [first, first+count) of the value.
 * Cost: the set bits in that window. first + count <= BV_MAX_BYTES. */
static void read_bytes(const roaring_bitmap_t *bm, uint64_t first, size_t count, uint8_t *buf)
{
    memset(buf, 0, count);
    uint64_t lo = first * 8, hi = (first + count) * 8;
    if (count == 0 || lo > UINT32_MAX)
        return;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    if (!roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)lo))
        return;
    uint32_t vals[READ_BATCH];
    for (;;) {
        uint32_t n = roaring_read_uint32_iterator(&it, vals, READ_BATCH);
        for (uint32_t i = 0; i < n; i++) {
            if (vals[i] >= hi)
                return;
            uint64_t rel = vals[i] - lo;
            buf[rel >> 3] |= (uint8_t)(0x80u >> (rel & 7));
        }
        if (n < READ_BATCH)
            return;
    }
}

/* Makes bytes [first, first+len) of the value equal to data: only the bits that
 * differ are added or removed. false on out of memory (bm then holds the chunks
 * written so far). first + len <= BV_MAX_BYTES. */
static bool write_bytes(roaring_bitmap_t *bm, uint64_t first, const uint8_t *data, size_t len)
{
    size_t chunk = len < WRITE_CHUNK ? len : WRITE_CHUNK;
    if (chunk == 0)
        return true;
    uint32_t *adds = malloc(2 * sizeof(uint32_t) * chunk * 8 + chunk);
    if (!adds)
        return false;
    uint32_t *dels = adds + chunk * 8;
    uint8_t *old = (uint8_t *)(dels + chunk * 8);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < chunk ? len - done : chunk;
        read_bytes(bm, first + done, n, old);
        size_t na = 0, nd = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t diff = old[i] ^ data[done + i];
            for (unsigned j = 0; diff; j++, diff = (uint8_t)(diff << 1)) {
                if (!(diff & 0x80))
                    continue;
                uint32_t pos = (uint32_t)((first + done + i) * 8 + j);
                if (data[done + i] & (0x80u >> j))
                    adds[na++] = pos;
                else
                    dels[nd++] = pos;
            }
        }
        if (na)
            roaring_bitmap_add_many(bm, na, adds);
        if (nd)
            roaring_bitmap_remove_many(bm, nd, dels);
        done += n;
    }
    free(adds);
    return true;
}

/* Number of set bits in [lo, hi] (inclusive, hi <= UINT32_MAX). */
static uint64_t count_bits(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t r = roaring_bitmap_rank(bm, (uint32_t)hi);
    if (lo > 0)
        r -= roaring_bitmap_rank(bm, (uint32_t)(lo - 1));
    return r;
}

/* First set bit in [lo, hi], or -1. */
static int64_t first_set(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    if (!roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)lo) || it.current_value > hi)
        return -1;
    return it.current_value;
}

/* First clear bit in [lo, hi], or -1. A binary search on rank, so a long run of
 * ones (up to 2^32 bits) costs ~64 rank calls, not one step per bit. */
static int64_t first_clear(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    if (!roaring_bitmap_contains(bm, (uint32_t)lo))
        return (int64_t)lo;
    if (count_bits(bm, lo, hi) == hi - lo + 1)
        return -1;
    /* invariant: [lo, hi] holds a clear bit and [original lo, lo) holds none */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (count_bits(bm, lo, mid) == mid - lo + 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)lo;
}

/* Redis's index normalisation for a value of len units: negative indexes count
 * from the end, both clamp to >= 0, end clamps to len-1. false when the range is
 * empty (start > end, which includes len == 0). */
static bool normalize(int64_t *start, int64_t *end, int64_t len)
{
    if (*start < 0)
        *start += len;
    if (*end < 0)
        *end += len;
    if (*start < 0)
        *start = 0;
    if (*end < 0)
        *end = 0;
    if (*end >= len)
        *end = len - 1;
    return *start <= *end;
}

/* ---- strings --------------------------------------------------------------------- */

uint64_t bv_len(const roaring_bitmap_t *bm, int64_t stored_nbytes)
{
    uint64_t len = stored_nbytes < 0 ? 0 : (uint64_t)stored_nbytes;
    if (!roaring_bitmap_is_empty(bm)) {
        uint64_t need = (uint64_t)roaring_bitmap_maximum(bm) / 8 + 1;
        if (need > len)
            len = need;
    }
    return len;
}

/* BITCOUNT key [start end [BYTE|BIT]] */
uint64_t bv_bitcount(const roaring_bitmap_t *bm, uint64_t nbytes, bool ranged, int64_t start,
                     int64_t end, bool bit_unit)
{
    if (!ranged)
        return roaring_bitmap_get_cardinality(bm);
    if (start < 0 && end < 0 && start > end)
        return 0;
    if (!normalize(&start, &end, (int64_t)(bit_unit ? nbytes * 8 : nbytes)))
        return 0;
    if (bit_unit)
        return count_bits(bm, (uint64_t)start, (uint64_t)end);
    return count_bits(bm, (uint64_t)start * 8, (uint64_t)end * 8 + 7);
}

/* BITPOS key bit [start [end [BYTE|BIT]]] */
int64_t bv_bitpos(const roaring_bitmap_t *bm, uint64_t nbytes, bool exists, int bit,
                  bool has_start, int64_t start, bool has_end, int64_t end, bool bit_unit)
{
    if (!exists)
        return bit ? -1 : 0;
    if (!has_start) {
        start = 0;
        has_end = false;
        bit_unit = false;
    }
    int64_t len = (int64_t)(bit_unit ? nbytes * 8 : nbytes);
    if (!has_end)
        end = len - 1;
    if (!normalize(&start, &end, len))
        return -1;
    uint64_t lo = (uint64_t)start, hi = (uint64_t)end;
    if (!bit_unit) {
        lo *= 8;
        hi = hi * 8 + 7;
    }
    if (bit)
        return first_set(bm, lo, hi);
    int64_t pos = first_clear(bm, lo, hi);
    if (pos < 0 && !has_end)
        pos = (int64_t)hi + 1; /* the value reads as padded with zeros */
    return pos;
}

/* GETRANGE key start end */
bool bv_getrange(const roaring_bitmap_t *bm, uint64_t nbytes, int64_t start, int64_t end,
                 size_t cap, uint8_t **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (start < 0 && end < 0 && start > end)
        return true;
    if (!normalize(&start, &end, (int64_t)nbytes))
        return true;
    size_t n = (size_t)(end - start + 1);
    *outlen = n;
    if (n > cap)
        return false;
    uint8_t *buf = malloc(n);
    if (!buf)
        return false;
    read_bytes(bm, (uint64_t)start, n, buf);
    *out = buf;
    return true;
}

/* SETRANGE key offset value */
bool bv_setrange(roaring_bitmap_t *bm, uint64_t *nbytes, uint64_t offset, const uint8_t *data,
                 size_t len)
{
    if (len == 0)
        return true;
    if (!write_bytes(bm, offset, data, len))
        return false;
    if (offset + len > *nbytes)
        *nbytes = offset + len;
    return true;
}

roaring_bitmap_t *bv_from_bytes(const uint8_t *data, size_t len)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    if (bm && !write_bytes(bm, 0, data, len)) {
        roaring_bitmap_free(bm);
        bm = NULL;
    }
    return bm;
}

/* ---- BITFIELD -------------------------------------------------------------------- */

/* Redis's string2ll acceptance: optional '-', then "0" alone or a digit 1-9 followed
 * by digits, nothing else, within int64. */
static bool parse_ll(const char *s, size_t len, int64_t *v)
{
    bool neg = len > 0 && s[0] == '-';
    size_t i = neg ? 1 : 0;
    if (i == len)
        return false;
    if (s[i] == '0') {
        *v = 0;
        return len == 1;
    }
    uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (acc > (limit - d) / 10)
            return false;
        acc = acc * 10 + d;
    }
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

bool bv_parse_type(const char *s, size_t len, struct bv_type *t)
{
    if (len == 0 || (s[0] != 'i' && s[0] != 'u'))
        return false;
    int64_t bits;
    if (!parse_ll(s + 1, strnlen(s + 1, len - 1), &bits))
        return false;
    bool is_signed = s[0] == 'i';
    if (bits < 1 || bits > (is_signed ? 64 : 63))
        return false;
    t->is_signed = is_signed;
    t->bits = (unsigned)bits;
    return true;
}

bool bv_parse_offset(const char *s, size_t len, const struct bv_type *t, uint64_t *bit_offset)
{
    bool hash = len > 0 && s[0] == '#';
    int64_t v;
    if (!parse_ll(s + hash, len - hash, &v) || v < 0)
        return false;
    uint64_t off = (uint64_t)v;
    if (hash) {
        if (off > (UINT64_C(1) << 32) / t->bits)
            return false;
        off *= t->bits;
    }
    if (off >= (UINT64_C(1) << 32))
        return false;
    *bit_offset = off;
    return true;
}

uint64_t bv_field_end(struct bv_type t, uint64_t offset)
{
    return (offset + t.bits - 1) / 8 + 1;
}

/* The field's raw bits (t.bits low bits of the result, MSB first in the value). */
static uint64_t field_read_raw(const roaring_bitmap_t *bm, struct bv_type t, uint64_t offset)
{
    uint8_t buf[9];
    uint64_t first = offset / 8;
    read_bytes(bm, first, (size_t)(bv_field_end(t, offset) - first), buf);
    uint64_t v = 0;
    for (unsigned i = 0; i < t.bits; i++) {
        uint64_t b = offset + i - first * 8;
        v = (v << 1) | ((buf[b >> 3] >> (7 - (b & 7))) & 1u);
    }
    return v;
}

/* Interprets the low t.bits bits of raw as the type's value (sign-extending). */
static int64_t field_value(struct bv_type t, uint64_t raw)
{
    if (t.bits < 64) {
        uint64_t mask = (UINT64_C(1) << t.bits) - 1;
        raw &= mask;
        if (t.is_signed && (raw >> (t.bits - 1)))
            raw |= ~mask;
    }
    return (int64_t)raw;
}

/* Writes the low t.bits bits of raw, touching only the bits that change. */
static void field_write_raw(roaring_bitmap_t *bm, struct bv_type t, uint64_t offset, uint64_t raw)
{
    uint64_t cur = field_read_raw(bm, t, offset);
    for (unsigned i = 0; i < t.bits; i++) {
        unsigned shift = t.bits - 1 - i;
        uint64_t want = (raw >> shift) & 1u;
        if (want == ((cur >> shift) & 1u))
            continue;
        if (want)
            roaring_bitmap_add(bm, (uint32_t)(offset + i));
        else
            roaring_bitmap_remove(bm, (uint32_t)(offset + i));
    }
}

int64_t bv_field_get(const roaring_bitmap_t *bm, struct bv_type t, uint64_t offset)
{
    return field_value(t, field_read_raw(bm, t, offset));
}

static int64_t type_max(struct bv_type t)
{
    unsigned vbits = t.is_signed ? t.bits - 1 : t.bits; /* value bits */
    return vbits == 63 ? INT64_MAX : (int64_t)((UINT64_C(1) << vbits) - 1);
}

static int64_t type_min(struct bv_type t)
{
    return t.is_signed ? -type_max(t) - 1 : 0;
}

/* Overflow direction of a result: 0 none, 1 above max, -1 below min. */
typedef int overflow_dir;

/* Direction in which old + incr leaves the type's range (old is a field value, so
 * in range): exact, computed on uint64 differences that cannot overflow. */
static overflow_dir incr_overflow(struct bv_type t, int64_t old, int64_t incr)
{
    uint64_t room_up = (uint64_t)type_max(t) - (uint64_t)old;   /* max - old >= 0 */
    uint64_t room_down = (uint64_t)old - (uint64_t)type_min(t); /* old - min >= 0 */
    if (incr > 0 && (uint64_t)incr > room_up)
        return 1;
    if (incr < 0 && 0 - (uint64_t)incr > room_down)
        return -1;
    return 0;
}

/* Direction Redis gives to SET of value: a negative value is a huge unsigned one
 * for u types; for signed types narrower than 64 bits, max - value overflowing
 * int64 counts as above max (redis 7.0.15: SET i8 INT64_MIN under SAT writes 127). */
static overflow_dir set_overflow(struct bv_type t, int64_t value)
{
    if (!t.is_signed)
        return (uint64_t)value > (uint64_t)type_max(t) ? 1 : 0;
    if (t.bits == 64)
        return 0;
    if (value > type_max(t) || (uint64_t)type_max(t) - (uint64_t)value > (uint64_t)INT64_MAX)
        return 1;
    return value < type_min(t) ? -1 : 0;
}

/* The value written for sum (old + incr, or a SET value, wrapped mod 2^64) when it
 * overflowed in direction dir under ov; false for FAIL. */
static bool resolve_overflow(struct bv_type t, overflow_dir dir, uint64_t sum, enum bv_overflow ov,
                             int64_t *out)
{
    if (dir == 0 || ov == BV_WRAP) {
        *out = field_value(t, sum);
        return true;
    }
    if (ov == BV_FAIL)
        return false;
    *out = dir > 0 ? type_max(t) : type_min(t);
    return true;
}

static void grow_to_field(uint64_t *nbytes, struct bv_type t, uint64_t offset)
{
    uint64_t need = bv_field_end(t, offset);
    if (need > *nbytes)
        *nbytes = need;
}

bool bv_field_set_ov(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                     int64_t value, enum bv_overflow ov, int64_t *old)
{
    *old = bv_field_get(bm, t, offset);
    int64_t v;
    if (!resolve_overflow(t, set_overflow(t, value), (uint64_t)value, ov, &v))
        return false;
    field_write_raw(bm, t, offset, (uint64_t)v);
    grow_to_field(nbytes, t, offset);
    return true;
}

bool bv_field_set(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                  int64_t value, int64_t *old)
{
    return bv_field_set_ov(bm, nbytes, t, offset, value, BV_WRAP, old);
}

bool bv_field_incrby(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                     int64_t incr, enum bv_overflow ov, int64_t *result)
{
    int64_t old = bv_field_get(bm, t, offset);
    uint64_t sum = (uint64_t)old + (uint64_t)incr;
    if (!resolve_overflow(t, incr_overflow(t, old, incr), sum, ov, result))
        return false;
    field_write_raw(bm, t, offset, (uint64_t)*result);
    grow_to_field(nbytes, t, offset);
    return true;
}

/* ---- BITOP ----------------------------------------------------------------------- */

/* Union of srcs[0..n) (an empty bitmap when n == 0); NULL on out of memory. */
static roaring_bitmap_t *union_of(const roaring_bitmap_t *const *srcs, size_t n)
{
    roaring_bitmap_t *u = n ? roaring_bitmap_copy(srcs[0]) : roaring_bitmap_create();
    for (size_t i = 1; u && i < n; i++)
        roaring_bitmap_or_inplace(u, srcs[i]);
    return u;
}

/* The bits [0, nbits) not in src. Built with from_range on nothing (never on a
 * bitmap that has run containers, which is what corrupts in 0.2.66) and checked by
 * cardinality afterwards; NULL when allocation fails or a check does not hold. */
static roaring_bitmap_t *complement(const roaring_bitmap_t *src, uint64_t nbits)
{
    if (nbits == 0)
        return roaring_bitmap_create();
    roaring_bitmap_t *r = roaring_bitmap_from_range(0, nbits, 1);
    if (!r || roaring_bitmap_get_cardinality(r) != nbits)
        goto err;
    uint64_t common = roaring_bitmap_and_cardinality(r, src);
    roaring_bitmap_andnot_inplace(r, src);
    if (roaring_bitmap_get_cardinality(r) != nbits - common)
        goto err;
    return r;
err:
    if (r)
        roaring_bitmap_free(r);
    return NULL;
}

/* Bits set in exactly one of srcs[0..n). */
static roaring_bitmap_t *exactly_one(const roaring_bitmap_t *const *srcs, size_t n)
{
    roaring_bitmap_t *once = roaring_bitmap_create(), *twice = roaring_bitmap_create();
    for (size_t i = 0; once && twice && i < n; i++) {
        roaring_bitmap_t *again = roaring_bitmap_and(once, srcs[i]);
        if (!again)
            break;
        roaring_bitmap_or_inplace(twice, again);
        roaring_bitmap_free(again);
        roaring_bitmap_or_inplace(once, srcs[i]);
    }
    roaring_bitmap_t *r = once && twice ? roaring_bitmap_andnot(once, twice) : NULL;
    if (once)
        roaring_bitmap_free(once);
    if (twice)
        roaring_bitmap_free(twice);
    return r;
}

/* X op (Y1 OR Y2 ...) for DIFF, DIFF1 and ANDOR. */
static roaring_bitmap_t *x_with_union(enum bv_op op, const roaring_bitmap_t *const *srcs, size_t n)
{
    roaring_bitmap_t *u = union_of(srcs + 1, n - 1);
    if (!u)
        return NULL;
    roaring_bitmap_t *r;
    if (op == BV_DIFF)
        r = roaring_bitmap_andnot(srcs[0], u);
    else if (op == BV_DIFF1)
        r = roaring_bitmap_andnot(u, srcs[0]);
    else
        r = roaring_bitmap_and(srcs[0], u);
    roaring_bitmap_free(u);
    return r;
}

roaring_bitmap_t *bv_bitop(enum bv_op op, const roaring_bitmap_t *const *srcs,
                           const uint64_t *lens, size_t n, uint64_t *out_len)
{
    *out_len = 0;
    if (n == 0 || (op == BV_NOT && n != 1))
        return NULL;
    uint64_t len = 0;
    for (size_t i = 0; i < n; i++)
        len = lens[i] > len ? lens[i] : len;
    roaring_bitmap_t *r = NULL;
    switch (op) {
    case BV_AND:
        r = roaring_bitmap_copy(srcs[0]);
        for (size_t i = 1; r && i < n; i++)
            roaring_bitmap_and_inplace(r, srcs[i]);
        break;
    case BV_OR:
        r = union_of(srcs, n);
        break;
    case BV_XOR:
        r = roaring_bitmap_copy(srcs[0]);
        for (size_t i = 1; r && i < n; i++)
            roaring_bitmap_xor_inplace(r, srcs[i]);
        break;
    case BV_NOT:
        r = complement(srcs[0], lens[0] * 8);
        break;
    case BV_DIFF:
    case BV_DIFF1:
    case BV_ANDOR:
        r = x_with_union(op, srcs, n);
        break;
    case BV_ONE:
        r = exactly_one(srcs, n);
        break;
    }
    if (r)
        *out_len = len;
    return r;
}
