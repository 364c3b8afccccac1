/* codec_gaps.c — the "gaps" encoding (codec_gaps.h): members, or the non-members of
 * their span, as Golomb–Rice coded gaps. Used for chunk rows of middling density
 * (a notice read by 10% or 90% of its audience), where it takes about half of the
 * raw bits. Every rule is checked before a byte is trusted. */
#include "store/codec_gaps.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/leb128.h"

enum {
    VARINT_MAX = 5,
    K_LIMIT = 32,       /* k is 0 .. 31 */
    MODE_COMPLEMENT = 0x80,
    MODE_K_MASK = 0x1F,
    ITER = 4096,        /* members copied out of CRoaring iterators at a time */
};

static bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* ---- reading ------------------------------------------------------------------------ */

struct head {
    uint32_t base, span, n;
    unsigned k;
    bool complement;
    size_t stream; /* where the bits start */
};

/* A minimal LEB128 varint below 2^32 at *pos. */
static bool read_varint(const uint8_t *buf, size_t len, size_t *pos, uint32_t *out, const char *what, char *err,
                        size_t errlen)
{
    uint64_t v;
    switch (leb128_read(buf, len, pos, VARINT_MAX, &v)) {
    case LEB128_TRUNCATED: return fail(err, errlen, "gaps: truncated %s", what);
    case LEB128_NON_MINIMAL: return fail(err, errlen, "gaps: non-minimal %s varint", what);
    case LEB128_TOO_LONG: return fail(err, errlen, "gaps: %s varint longer than %d bytes", what, VARINT_MAX);
    case LEB128_OK: break;
    }
    if (v > UINT32_MAX) return fail(err, errlen, "gaps: %s %" PRIu64 " past 2^32 - 1", what, v);
    *out = (uint32_t)v;
    return true;
}

static bool read_head(const uint8_t *buf, size_t len, struct head *h, char *err, size_t errlen)
{
    size_t pos = 1;
    if (len < 1 || buf[0] != GAPS_TAG) return fail(err, errlen, "gaps: bad tag");
    if (!read_varint(buf, len, &pos, &h->base, "base", err, errlen) ||
        !read_varint(buf, len, &pos, &h->span, "span", err, errlen))
        return false;
    if ((uint64_t)h->base + h->span > UINT32_MAX)
        return fail(err, errlen, "gaps: base %" PRIu32 " + span %" PRIu32 " past 2^32 - 1", h->base, h->span);
    if (pos >= len) return fail(err, errlen, "gaps: truncated mode");
    uint8_t mode = buf[pos++];
    if (mode & 0x60) return fail(err, errlen, "gaps: mode 0x%02x has reserved bits set", mode);
    h->k = mode & MODE_K_MASK;
    h->complement = mode & MODE_COMPLEMENT;
    if (h->complement && h->span >= GAPS_COMPLEMENT_SPAN)
        return fail(err, errlen, "gaps: complement over a span of %" PRIu32 " (at most %" PRIu32 ")", h->span,
                    GAPS_COMPLEMENT_SPAN - 1);
    if (!read_varint(buf, len, &pos, &h->n, "count", err, errlen)) return false;
    if (h->n == 0) return fail(err, errlen, "gaps: no listed value");
    /* every listed value takes at least one bit: bounds the walk by the input's size */
    if (h->n > 8 * (uint64_t)(len - pos))
        return fail(err, errlen, "gaps: %" PRIu32 " values in %zu bytes", h->n, len - pos);
    h->stream = pos;
    return true;
}

struct bitr {
    const uint8_t *p;
    size_t nbytes;
    uint64_t nbits, pos; /* pos <= nbits */
};

/* The bits from pos on, least significant first: at least 57 of them, or all that
 * are left (zeros after). */
static uint64_t peek(const struct bitr *b)
{
    size_t at = (size_t)(b->pos >> 3);
    uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (at + 8 <= b->nbytes) {
        memcpy(&w, b->p + at, 8);
        return w >> (b->pos & 7);
    }
#endif
    for (size_t i = 0; i < 8 && at + i < b->nbytes; i++) w |= (uint64_t)b->p[at + i] << (8 * i);
    return w >> (b->pos & 7);
}

/* Zero bits up to the next 1 bit (consumed too), at most limit of them. */
static bool read_unary(struct bitr *b, uint64_t limit, uint64_t *q)
{
    uint64_t n = 0;
    for (;;) {
        uint64_t avail = b->nbits - b->pos;
        if (avail == 0) return false;
        if (avail > 57) avail = 57;
        uint64_t w = peek(b) & ((1ULL << avail) - 1);
        if (w) {
            unsigned t = (unsigned)__builtin_ctzll(w);
            n += t;
            b->pos += t + 1;
            *q = n;
            return n <= limit;
        }
        n += avail;
        b->pos += avail;
        if (n > limit) return false;
    }
}

/* k (< 32) bits, least significant first. */
static bool read_low(struct bitr *b, unsigned k, uint64_t *v)
{
    if (k > b->nbits - b->pos) return false;
    *v = k ? peek(b) & ((1ULL << k) - 1) : 0;
    b->pos += k;
    return true;
}

/* Walks the listed values, checking each; calls put(ctx, v) for each when put is set. */
static bool walk(const uint8_t *buf, size_t len, const struct head *h, void (*put)(void *, uint32_t), void *ctx,
                 char *err, size_t errlen)
{
    struct bitr b = {buf + h->stream, len - h->stream, 8 * (uint64_t)(len - h->stream), 0};
    int64_t prev = (int64_t)h->base - 1, last = (int64_t)h->base + h->span;
    for (uint32_t i = 0; i < h->n; i++) {
        if (last - prev - 1 < 0) return fail(err, errlen, "gaps: value %" PRIu32 " past the span", i);
        uint64_t room = (uint64_t)(last - prev - 1), q, low = 0; /* the largest d that stays in the span */
        if (!read_unary(&b, room >> h->k, &q) || !read_low(&b, h->k, &low))
            return fail(err, errlen, "gaps: value %" PRIu32 " is truncated or past the span", i);
        uint64_t d = (q << h->k) | low;
        if (d > room) return fail(err, errlen, "gaps: value %" PRIu32 " past the span", i);
        int64_t v = prev + 1 + (int64_t)d;
        if (h->complement ? v == h->base || v == last : i == 0 && v != h->base)
            return fail(err, errlen, "gaps: value %" PRIu32 " at %" PRId64 " is not where its mode allows", i, v);
        if (put) put(ctx, (uint32_t)v);
        prev = v;
    }
    if (!h->complement && prev != last)
        return fail(err, errlen, "gaps: the last member is %" PRId64 ", not base + span", prev);
    uint64_t used = (b.pos + 7) / 8;
    if (used != len - h->stream) return fail(err, errlen, "gaps: %" PRIu64 " trailing bytes", len - h->stream - used);
    if ((b.pos & 7) && (buf[len - 1] >> (b.pos & 7)))
        return fail(err, errlen, "gaps: padding bits set");
    return true;
}

bool gaps_check(const uint8_t *buf, size_t len, uint64_t *card, char *err, size_t errlen)
{
    struct head h;
    if (!read_head(buf, len, &h, err, errlen) || !walk(buf, len, &h, NULL, NULL, err, errlen)) return false;
    *card = h.complement ? (uint64_t)h.span + 1 - h.n : h.n;
    return true;
}

struct collect {
    uint32_t *vals;
    size_t n;
    uint8_t *raw;
    uint32_t base8;
};

static void put_val(void *ctx, uint32_t v)
{
    struct collect *c = ctx;
    c->vals[c->n++] = v;
}

static void clear_bit(void *ctx, uint32_t v)
{
    struct collect *c = ctx;
    uint64_t off = (uint64_t)v - (uint64_t)c->base8 * 8;
    c->raw[off / 8] &= (uint8_t)~(1u << (off % 8));
}

bool gaps_unpack(const uint8_t *buf, size_t len, uint32_t **vals, size_t *n, uint8_t **raw, size_t *nraw,
                 uint32_t *base8)
{
    struct head h;
    struct collect c = {0};
    *vals = NULL;
    *raw = NULL;
    *n = *nraw = 0;
    if (!read_head(buf, len, &h, NULL, 0)) return false;
    if (!h.complement) {
        if (!(c.vals = malloc((size_t)h.n * sizeof(*c.vals)))) return false;
        if (!walk(buf, len, &h, put_val, &c, NULL, 0)) {
            free(c.vals);
            return false;
        }
        *vals = c.vals;
        *n = c.n;
        return true;
    }
    /* every bit of [base, base + span] set, then the listed ones cleared */
    c.base8 = h.base / 8;
    uint64_t o = h.base % 8, last = o + h.span; /* bit offsets in raw */
    size_t bytes = (size_t)(last / 8 + 1);
    if (!(c.raw = calloc(bytes, 1))) return false;
    while (o <= last) {
        if (o % 8 == 0 && last - o >= 7) {
            memset(c.raw + o / 8, 0xFF, (size_t)((last - o + 1) / 8));
            o += (last - o + 1) / 8 * 8;
        } else {
            c.raw[o / 8] |= (uint8_t)(1u << (o % 8));
            o++;
        }
    }
    if (!walk(buf, len, &h, clear_bit, &c, NULL, 0)) {
        free(c.raw);
        return false;
    }
    *raw = c.raw;
    *nraw = bytes;
    *base8 = c.base8;
    return true;
}

/* ---- writing ------------------------------------------------------------------------ */

/* The members of bm two at a time: calls pair(ctx, prev, v) for each member v after the
 * first (prev the member before it). */
static bool each_pair(const roaring_bitmap_t *bm, void (*pair)(void *, uint32_t, uint32_t), void *ctx)
{
    uint32_t *buf = malloc(ITER * sizeof(*buf)), prev = 0, got;
    bool first = true;
    roaring_uint32_iterator_t it;
    if (!buf) return false;
    roaring_init_iterator(bm, &it);
    while ((got = roaring_read_uint32_iterator(&it, buf, ITER)) > 0)
        for (uint32_t i = 0; i < got; i++) {
            if (!first) pair(ctx, prev, buf[i]);
            first = false;
            prev = buf[i];
        }
    free(buf);
    return true;
}

/* Sums over the listed values of one mode: n, sum (of d), and s[k] = sum of (d >> k)
 * for k in [klo, khi], the only k that can give the fewest bits (window()). */
struct tally {
    uint64_t n, sum, s[K_LIMIT];
    unsigned klo, khi;
    int64_t prev_nonmember; /* complement: the last listed value, or base - 1 */
};

struct tallies {
    struct tally direct, comp;
    bool want_comp; /* the span is short enough for a complement */
    bool sums;      /* the second pass: s[k] over the windows */
};

static void tally_d(struct tally *t, uint64_t d, bool sums)
{
    if (!sums) {
        t->n++;
        t->sum += d;
        return;
    }
    for (unsigned k = t->klo; k <= t->khi; k++) t->s[k] += d >> k;
}

/* The k worth counting, from n and the sum S of the d alone. A mode of n values takes
 * f(k) = (k + 1) n + s_k bits, where S / 2^k - n < s_k <= S / 2^k and s_(k+1) <= s_k / 2.
 * While S / 2^k >= 3n, s_k >= 2n and f(k) >= f(k + 1); once S / 2^k <= n, s_k <= n and
 * f(k) <= f(k + 1). So the fewest bits are at a k in [ka + 1, kb], ka the last k with
 * S >= 3n 2^k (none: 0) and kb the first with S <= n 2^k: two or three values of k
 * instead of 32 for every d (test_gaps checks the plan against all 32). */
static void window(struct tally *t)
{
    t->klo = 0;
    t->khi = K_LIMIT - 1;
    for (unsigned k = K_LIMIT; k-- > 0;)
        if ((unsigned __int128)3 * t->n << k <= t->sum) {
            t->klo = k; /* ka itself too, should it tie with ka + 1 in bytes */
            break;
        }
    for (unsigned k = t->klo; k < K_LIMIT; k++)
        if ((unsigned __int128)t->n << k >= t->sum) {
            t->khi = k;
            break;
        }
}

static void tally_pair(void *ctx, uint32_t a, uint32_t b)
{
    struct tallies *t = ctx;
    tally_d(&t->direct, (uint64_t)b - a - 1, t->sums);
    if (t->want_comp && b - a > 1) { /* a run of non-members a + 1 .. b - 1 */
        tally_d(&t->comp, (uint64_t)((int64_t)a - t->comp.prev_nonmember), t->sums);
        if (!t->sums) t->comp.n += b - a - 2; /* the rest of the run: d = 0, nothing in any sum */
        t->comp.prev_nonmember = b - 1;
    }
}

static size_t put_varint(uint8_t *buf, size_t pos, uint32_t v) { return pos + leb128_put(buf + pos, v); }

/* Consider mode (n listed values, sums s) for the plan. */
static void consider(struct gaps_plan *best, size_t head, const struct tally *t, bool complement)
{
    if (t->n == 0 || t->n > UINT32_MAX) return;
    for (unsigned k = t->klo; k <= t->khi; k++) {
        uint64_t bits = (uint64_t)(k + 1) * t->n + t->s[k];
        size_t size = head + varint_len((uint32_t)t->n) + (size_t)((bits + 7) / 8);
        if (size < best->size) *best = (struct gaps_plan){size, complement, k};
    }
}

bool gaps_plan_of(const roaring_bitmap_t *bm, struct gaps_plan *p)
{
    if (roaring_bitmap_is_empty(bm)) return false;
    uint32_t lo = roaring_bitmap_minimum(bm), hi = roaring_bitmap_maximum(bm), span = hi - lo;
    struct tallies t;
    memset(&t, 0, sizeof(t));
    t.want_comp = span < GAPS_COMPLEMENT_SPAN;
    for (int pass = 0; pass < 2; pass++) { /* n and the sums, then s[k] in the windows */
        t.sums = pass == 1;
        t.comp.prev_nonmember = (int64_t)lo - 1;
        tally_d(&t.direct, 0, t.sums); /* the first member is base itself */
        if (!each_pair(bm, tally_pair, &t)) return false;
        if (pass == 0) {
            window(&t.direct);
            window(&t.comp);
        }
    }
    size_t head = 1 + varint_len(lo) + varint_len(span) + 1;
    *p = (struct gaps_plan){SIZE_MAX, false, 0};
    consider(p, head, &t.direct, false);
    if (t.want_comp) consider(p, head, &t.comp, true);
    return p->size != SIZE_MAX;
}

struct bitw {
    uint8_t *p;
    size_t cap, at; /* bytes */
    uint64_t acc;   /* bits not yet stored, the first at bit 0 */
    unsigned nacc, k;
    bool over;
    int64_t prev; /* the last listed value written (complement) */
};

/* n (<= 56) bits of v, least significant first. */
static void put_bits(struct bitw *w, uint64_t v, unsigned n)
{
    w->acc |= v << w->nacc;
    w->nacc += n;
    for (; w->nacc >= 8; w->nacc -= 8, w->acc >>= 8) {
        if (w->at >= w->cap) {
            w->over = true;
            w->nacc = 0;
            return;
        }
        w->p[w->at++] = (uint8_t)w->acc;
    }
}

/* One listed value's code: d >> k zeros, a one, the k low bits of d. */
static void put_d(struct bitw *w, uint64_t d)
{
    uint64_t q = d >> w->k;
    for (; q >= 56 && !w->over; q -= 56) put_bits(w, 0, 56);
    put_bits(w, 0, (unsigned)q);
    put_bits(w, 1 | ((d & ((1ULL << w->k) - 1)) << 1), w->k + 1);
}

static void write_direct(void *ctx, uint32_t a, uint32_t b)
{
    put_d(ctx, (uint64_t)b - a - 1);
}

static void write_comp(void *ctx, uint32_t a, uint32_t b)
{
    struct bitw *w = ctx;
    for (uint32_t v = a + 1; v < b && !w->over; v++) {
        put_d(w, (uint64_t)((int64_t)v - w->prev - 1));
        w->prev = v;
    }
}

bool gaps_write(const roaring_bitmap_t *bm, const struct gaps_plan *p, uint8_t *buf)
{
    if (roaring_bitmap_is_empty(bm) || p->k >= K_LIMIT) return false;
    uint32_t lo = roaring_bitmap_minimum(bm), hi = roaring_bitmap_maximum(bm), span = hi - lo;
    uint64_t n = p->complement ? (uint64_t)span + 1 - roaring_bitmap_get_cardinality(bm)
                               : roaring_bitmap_get_cardinality(bm);
    size_t pos = 0;
    if (n == 0 || n > UINT32_MAX) return false;
    if (p->size < 1 + varint_len(lo) + varint_len(span) + 1 + varint_len((uint32_t)n)) return false;
    memset(buf, 0, p->size);
    buf[pos++] = GAPS_TAG;
    pos = put_varint(buf, pos, lo);
    pos = put_varint(buf, pos, span);
    buf[pos++] = (uint8_t)(p->k | (p->complement ? MODE_COMPLEMENT : 0));
    pos = put_varint(buf, pos, (uint32_t)n);
    struct bitw w = {.p = buf + pos, .cap = p->size - pos, .k = p->k, .prev = (int64_t)lo - 1};
    if (!p->complement) put_d(&w, 0); /* the first member, base */
    if (!each_pair(bm, p->complement ? write_comp : write_direct, &w)) return false;
    if (w.nacc && !w.over) {
        if (w.at >= w.cap) return false;
        w.p[w.at++] = (uint8_t)w.acc;
    }
    return !w.over && w.at == w.cap;
}
