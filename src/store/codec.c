/* codec.c — the only code that turns stored bytes into CRoaring bitmaps and back.
 * It reads and writes three encodings (CRoaring portable, "dense" raw bits when that
 * is smaller, and for chunk rows "gaps", in codec_gaps.c), validates each completely,
 * because CRoaring 0.2.66 accepts crafted bytes that later crash it, and checks every
 * encoding before it is stored. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "store/codec_gaps.h"

/* Constants of the portable format (RoaringFormatSpec). */
enum {
    FMT_COOKIE_NO_RUN = 12346,  /* followed by a uint32 container count, no run containers */
    FMT_COOKIE_RUN = 12347,     /* low 16 bits; high 16 bits hold count - 1 */
    FMT_MAX_CONTAINERS = 65536, /* one container per 16-bit key */
    FMT_MAX_ARRAY_CARD = 4096,  /* above this a non-run container is a bitset */
    FMT_BITSET_BYTES = 8192,    /* 65536 bits */
    FMT_OFFSET_THRESHOLD = 4,   /* with a run cookie, offsets exist only from 4 containers */
};

/* A bounded cursor over the input. Every read checks the remaining length first,
 * so the validator never reads past len. Invariant: pos <= len. */
struct reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    char *err;
    size_t errlen;
};

/* What the header says; the pointers point into the input. */
struct header {
    uint32_t count;
    const uint8_t *run_flags; /* NULL with FMT_COOKIE_NO_RUN */
    const uint8_t *keycards;  /* count pairs of (key, cardinality - 1) */
    const uint8_t *offsets;   /* count uint32 positions, or NULL when absent */
};

static bool fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the reason for rejecting the input and returns false, so callers can
 * write `return fail(r, ...)`. */
static bool fail(struct reader *r, const char *fmt, ...)
{
    if (r->err && r->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The format is little endian whatever the host is. */
static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Returns a pointer to the next n bytes and advances, or NULL when fewer remain.
 * n is always small (at most a few hundred KiB), and the comparison is written
 * against the remaining length so that it cannot overflow. */
static const uint8_t *take(struct reader *r, size_t n)
{
    if (n > r->len - r->pos)
        return NULL;
    const uint8_t *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

static uint16_t key_of(const struct header *h, uint32_t k)
{
    return le16(h->keycards + 4 * (size_t)k);
}

static uint32_t card_of(const struct header *h, uint32_t k)
{
    return (uint32_t)le16(h->keycards + 4 * (size_t)k + 2) + 1;
}

static bool is_run(const struct header *h, uint32_t k)
{
    return h->run_flags && (h->run_flags[k / 8] >> (k % 8)) & 1;
}

/* Cookie and container count. The count is bounded before anything is sized by it. */
static bool read_cookie(struct reader *r, struct header *h, bool *run_cookie)
{
    const uint8_t *p = take(r, 4);
    if (!p)
        return fail(r, "truncated cookie");
    uint32_t cookie = le32(p);
    if ((cookie & 0xFFFF) == FMT_COOKIE_RUN) {
        *run_cookie = true;
        h->count = (cookie >> 16) + 1;
        return true;
    }
    if (cookie != FMT_COOKIE_NO_RUN)
        return fail(r, "bad cookie 0x%08" PRIx32, cookie);
    *run_cookie = false;
    if (!(p = take(r, 4)))
        return fail(r, "truncated container count");
    h->count = le32(p);
    if (h->count > FMT_MAX_CONTAINERS)
        return fail(r, "container count %" PRIu32 " > %d", h->count, FMT_MAX_CONTAINERS);
    return true;
}

/* The run-flag bitset. Bits past the last container must be zero: CRoaring,
 * Java and Go all write zeros there, so anything else is corruption. */
static bool read_run_flags(struct reader *r, struct header *h)
{
    size_t n = ((size_t)h->count + 7) / 8;
    if (!(h->run_flags = take(r, n)))
        return fail(r, "truncated run flags");
    unsigned used = h->count % 8;
    if (used && h->run_flags[n - 1] >> used)
        return fail(r, "nonzero padding in run flags");
    return true;
}

/* The (key, cardinality - 1) pairs; keys must be strictly increasing so that each
 * 16-bit key has at most one container and binary searches in CRoaring work. */
static bool read_keycards(struct reader *r, struct header *h)
{
    if (!(h->keycards = take(r, 4 * (size_t)h->count)))
        return fail(r, "truncated key/cardinality header");
    for (uint32_t k = 1; k < h->count; k++)
        if (key_of(h, k) <= key_of(h, k - 1))
            return fail(r, "container %" PRIu32 ": keys not strictly increasing", k);
    return true;
}

static bool read_header(struct reader *r, struct header *h)
{
    bool run_cookie = false; /* set by read_cookie on success; initialised for -O2 flow analysis */
    memset(h, 0, sizeof(*h));
    if (!read_cookie(r, h, &run_cookie))
        return false;
    if (run_cookie && !read_run_flags(r, h))
        return false;
    if (!read_keycards(r, h))
        return false;
    if (run_cookie && h->count < FMT_OFFSET_THRESHOLD)
        return true;
    if (!(h->offsets = take(r, 4 * (size_t)h->count)))
        return fail(r, "truncated offset header");
    return true;
}

/* Array: card sorted distinct uint16 values. card <= 4096 holds by construction:
 * the format reads a larger non-run container as a bitset. */
static bool check_array(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, 2 * (size_t)card);
    if (!p)
        return fail(r, "container %" PRIu32 ": truncated array", k);
    for (uint32_t i = 1; i < card; i++)
        if (le16(p + 2 * i) <= le16(p + 2 * (i - 1)))
            return fail(r, "container %" PRIu32 ": array not strictly increasing", k);
    return true;
}

/* Number of set bits in p[0..n). Built twice: with the POPCNT instruction where the
 * CPU has it (the portable build calls libgcc's bit-twiddling __popcountdi2, which
 * was a tenth of the write path's time on a 250 KB bitmap), and without. */
#define POPCOUNT_BODY                                                                    \
    uint64_t pop = 0;                                                                    \
    size_t i = 0;                                                                        \
    for (; i + 8 <= n; i += 8) {                                                         \
        uint64_t w;                                                                      \
        memcpy(&w, p + i, sizeof(w)); /* popcount is the same in any byte order */       \
        pop += (uint64_t)__builtin_popcountll(w);                                        \
    }                                                                                    \
    for (; i < n; i++)                                                                   \
        pop += (uint64_t)__builtin_popcount(p[i]);                                       \
    return pop;

static uint64_t popcount_plain(const uint8_t *p, size_t n) { POPCOUNT_BODY }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) static uint64_t popcount_hw(const uint8_t *p, size_t n) { POPCOUNT_BODY }

static uint64_t popcount_bytes(const uint8_t *p, size_t n)
{
    static int hw = -1;
    if (hw < 0) hw = __builtin_cpu_supports("popcnt") ? 1 : 0;
    return hw ? popcount_hw(p, n) : popcount_plain(p, n);
}
#else
static uint64_t popcount_bytes(const uint8_t *p, size_t n) { return popcount_plain(p, n); }
#endif

/* Bitset: the declared cardinality is trusted by CRoaring, so it must be exact. */
static bool check_bitset(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, FMT_BITSET_BYTES);
    if (!p)
        return fail(r, "container %" PRIu32 ": truncated bitset", k);
    uint32_t pop = (uint32_t)popcount_bytes(p, FMT_BITSET_BYTES);
    if (pop != card)
        return fail(r, "container %" PRIu32 ": bitset popcount %" PRIu32 " != cardinality %" PRIu32,
                    k, pop, card);
    return true;
}

/* Runs are (start, length - 1) pairs covering [start, start + length - 1].
 * Adjacent runs are accepted (other writers may not merge them); overlapping,
 * unsorted or empty ones are not, because CRoaring's run code assumes otherwise. */
static bool check_runs(struct reader *r, uint32_t k, uint32_t card, const uint8_t *p, uint32_t nruns)
{
    uint64_t sum = 0;
    uint32_t prev_end = 0;
    for (uint32_t i = 0; i < nruns; i++) {
        uint32_t start = le16(p + 4 * (size_t)i);
        uint32_t end = start + le16(p + 4 * (size_t)i + 2);
        if (end > 0xFFFF)
            return fail(r, "container %" PRIu32 ": run past 65535", k);
        if (i > 0 && start <= prev_end) {
            uint32_t prev_start = le16(p + 4 * (size_t)(i - 1));
            return fail(r, "container %" PRIu32 ": runs %s", k,
                        start < prev_start ? "not sorted" : "overlap");
        }
        sum += end - start + 1;
        prev_end = end;
    }
    if (sum != card)
        return fail(r, "container %" PRIu32 ": run cardinality %" PRIu64 " != declared %" PRIu32,
                    k, sum, card);
    return true;
}

static bool check_run(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, 2);
    if (!p)
        return fail(r, "container %" PRIu32 ": truncated run count", k);
    uint32_t nruns = le16(p);
    if (nruns == 0)
        return fail(r, "container %" PRIu32 ": empty run container", k);
    if (!(p = take(r, 4 * (size_t)nruns)))
        return fail(r, "container %" PRIu32 ": truncated runs", k);
    return check_runs(r, k, card, p, nruns);
}

/* One container: its offset (when the header has offsets) must be where it really
 * starts, since readers that seek by offset would otherwise see other bytes. */
static bool check_container(struct reader *r, const struct header *h, uint32_t k)
{
    if (h->offsets) {
        uint32_t off = le32(h->offsets + 4 * (size_t)k);
        if (off != r->pos)
            return fail(r, "container %" PRIu32 ": offset %" PRIu32 " should be %zu", k, off, r->pos);
    }
    uint32_t card = card_of(h, k);
    if (is_run(h, k))
        return check_run(r, k, card);
    if (card > FMT_MAX_ARRAY_CARD)
        return check_bitset(r, k, card);
    return check_array(r, k, card);
}

/* A whole portable serialization, after the size checks of validate(). Returns the
 * total cardinality from the header, which codec_decode and codec_encode compare
 * with what CRoaring reports. */
static bool validate_roaring(struct reader *r, uint64_t *card)
{
    struct header h;
    if (!read_header(r, &h))
        return false;
    *card = 0;
    for (uint32_t k = 0; k < h.count; k++) {
        if (!check_container(r, &h, k))
            return false;
        *card += card_of(&h, k);
    }
    if (r->pos != r->len)
        return fail(r, "%zu trailing bytes", r->len - r->pos);
    return true;
}

/* ---- the dense encoding ---------------------------------------------------------- */

/* Constants of the dense encoding (described in codec.h). */
enum {
    DENSE_TAG = 0xB1,    /* never the first byte of a portable serialization (0x3A, 0x3B) */
    DENSE_VARINT_MAX = 5, /* base / 8 < 2^29 needs at most five 7-bit groups */
    DENSE_EMPTY_LEN = 2,  /* B1 00 */
    GROUP_KEYS = 256,     /* 16-bit keys handed to CRoaring per deserialization */
};
#define DENSE_BASE8_LIMIT ((uint64_t)1 << 29)
#define BIT_LIMIT ((uint64_t)1 << 32) /* bit offsets are 32-bit */

/* A validated dense encoding; raw points into the input. */
struct dense {
    uint32_t base;      /* first member rounded down to a multiple of 8 */
    const uint8_t *raw; /* bit i of raw[j] <=> member base + 8 * j + i */
    size_t nraw;
};

/* base / 8 as a minimal unsigned LEB128 varint: one encoding per value, so that
 * equal bitmaps always have equal bytes (and equal checksums). */
static bool read_base8(struct reader *r, uint32_t *base8)
{
    uint64_t v = 0;
    for (int i = 0; i < DENSE_VARINT_MAX; i++) {
        const uint8_t *p = take(r, 1);
        if (!p)
            return fail(r, "dense: truncated base varint");
        v |= (uint64_t)(*p & 0x7F) << (7 * i);
        if (*p & 0x80)
            continue;
        if (i > 0 && *p == 0)
            return fail(r, "dense: non-minimal base varint (%d bytes)", i + 1);
        if (v >= DENSE_BASE8_LIMIT)
            return fail(r, "dense: base %" PRIu64 " past 2^32", v * 8);
        *base8 = (uint32_t)v;
        return true;
    }
    return fail(r, "dense: base varint longer than %d bytes", DENSE_VARINT_MAX);
}

/* Tag, base and raw bytes, with the canonical rules: the empty bitmap is B1 00,
 * otherwise the first and the last raw byte hold members and none lies past 2^32 - 1. */
static bool read_dense(struct reader *r, struct dense *d)
{
    uint32_t base8 = 0;
    if (!take(r, 1) || !read_base8(r, &base8))
        return false;
    d->base = base8 * 8;
    d->raw = r->buf + r->pos;
    d->nraw = r->len - r->pos;
    r->pos = r->len;
    if (d->nraw == 0)
        return base8 == 0 ||
               fail(r, "dense: no raw bytes but base %" PRIu32 " (empty is B1 00)", d->base);
    if (d->raw[0] == 0)
        return fail(r, "dense: first raw byte is zero");
    if (d->raw[d->nraw - 1] == 0)
        return fail(r, "dense: last raw byte is zero");
    if (d->base + 8 * (uint64_t)d->nraw > BIT_LIMIT)
        return fail(r, "dense: %zu raw bytes from base %" PRIu32 " pass 2^32", d->nraw, d->base);
    return true;
}

static size_t varint_len(uint32_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        n++;
    return n;
}

/* What the dense encoding of bm takes: only its minimum and maximum matter. */
static size_t dense_size(const roaring_bitmap_t *bm)
{
    if (roaring_bitmap_is_empty(bm))
        return DENSE_EMPTY_LEN;
    uint32_t first = roaring_bitmap_minimum(bm) / 8, last = roaring_bitmap_maximum(bm) / 8;
    return 1 + varint_len(first) + (size_t)(last - first) + 1;
}

/* Values are copied out of CRoaring iterators this many at a time. */
enum { ITER_CHUNK = 4096 };

/* Sets bit off of raw[0..nraw) (a member past the end means the size was not
 * dense_size(bm) after all; it is left out and validation says so). */
static void set_raw_bit(uint8_t *raw, size_t nraw, uint64_t off)
{
    if (off / 8 < nraw) raw[off / 8] |= (uint8_t)(1u << (off % 8));
}

/* Bits [lo, end) of raw set, whole bytes at once. */
static void set_raw_range(uint8_t *raw, size_t nraw, uint64_t lo, uint64_t end)
{
    while (lo < end && lo % 8) set_raw_bit(raw, nraw, lo++);
    while (lo < end && end % 8) set_raw_bit(raw, nraw, --end);
    if (lo >= end) return;
    uint64_t from = lo / 8, to = end / 8; /* whole bytes [from, to) */
    if (from >= nraw) return;
    if (to > nraw) to = nraw;
    memset(raw + from, 0xFF, (size_t)(to - from));
}

/* The members of bm into raw (bit 0 = base8 * 8), container by container: a
 * bitset is its own bytes on a little-endian machine, an array a bit per member, a
 * run whole bytes. Reads CRoaring's containers directly; the encoder validates
 * what this writes (members, cardinality) before anything is stored. */
/* Container i of ra and its type, through a shared (copy-on-write) wrapper. */
static const void *container_at(const roaring_array_t *ra, int32_t i, uint8_t *type)
{
    const void *c = ra->containers[i];
    *type = ra->typecodes[i];
    if (*type == SHARED_CONTAINER_TYPE_CODE) {
        *type = ((const shared_container_t *)c)->typecode;
        c = ((const shared_container_t *)c)->container;
    }
    return c;
}

/* The raw bytes of keys lo .. hi in a dense value of nraw raw bytes from base8 * 8
 * (base is a multiple of 8, a key 65536 bits): [*from, *to), empty when from >= to. */
static void key_bytes(uint32_t lo, uint32_t hi, uint32_t base8, size_t nraw, int64_t *from, int64_t *to)
{
    *from = ((int64_t)lo << 13) - (int64_t)base8;
    *to = ((int64_t)(hi + 1) << 13) - (int64_t)base8;
    if (*from < 0) *from = 0;
    if (*to > (int64_t)nraw) *to = (int64_t)nraw;
}

static void write_dense_containers(const roaring_bitmap_t *bm, uint32_t base8, uint8_t *raw, size_t nraw,
                                   uint32_t key_lo, uint32_t key_hi)
{
    const roaring_array_t *ra = &bm->high_low_container;
    for (int32_t i = 0; i < ra->size; i++) {
        if (ra->keys[i] < key_lo || ra->keys[i] > key_hi) continue;
        uint8_t type;
        const void *c = container_at(ra, i, &type);
        /* bit offset of the container's first value; base8 * 8 <= the minimum */
        int64_t start = ((int64_t)ra->keys[i] << 16) - (int64_t)base8 * 8;
        if (type == BITSET_CONTAINER_TYPE_CODE) {
            const uint8_t *bytes = (const uint8_t *)((const bitset_container_t *)c)->array;
            int64_t from = start / 8, skip = from < 0 ? -from : 0; /* bytes below base are 0 */
            int64_t n = FMT_BITSET_BYTES - skip;
            if (from + skip + n > (int64_t)nraw) n = (int64_t)nraw - (from + skip);
            if (n > 0) memcpy(raw + from + skip, bytes + skip, (size_t)n);
        } else if (type == ARRAY_CONTAINER_TYPE_CODE) {
            const array_container_t *a = c;
            for (int32_t j = 0; j < a->cardinality; j++) set_raw_bit(raw, nraw, (uint64_t)(start + a->array[j]));
        } else if (type == RUN_CONTAINER_TYPE_CODE) {
            const run_container_t *r = c;
            for (int32_t j = 0; j < r->n_runs; j++)
                set_raw_range(raw, nraw, (uint64_t)(start + r->runs[j].value),
                              (uint64_t)(start + r->runs[j].value + r->runs[j].length) + 1);
        }
    }
}

/* Writes the dense encoding of bm into buf[0..size), which is zero-filled and
 * dense_size(bm) long (so the last member lands in the last byte). */
static bool write_dense(const roaring_bitmap_t *bm, uint8_t *buf, size_t size)
{
    uint32_t base8 = roaring_bitmap_is_empty(bm) ? 0 : roaring_bitmap_minimum(bm) / 8;
    uint32_t *chunk = malloc(ITER_CHUNK * sizeof(*chunk));
    if (!chunk || size < 1 + varint_len(base8)) {
        free(chunk);
        return false;
    }
    size_t pos = 0;
    buf[pos++] = DENSE_TAG;
    uint32_t v = base8;
    for (; v >= 0x80; v >>= 7)
        buf[pos++] = (uint8_t)(0x80 | (v & 0x7F));
    buf[pos++] = (uint8_t)v;
    uint8_t *raw = buf + pos;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    free(chunk);
    write_dense_containers(bm, base8, raw, size - pos, 0, UINT16_MAX);
#else
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    uint32_t n;
    while ((n = roaring_read_uint32_iterator(&it, chunk, ITER_CHUNK)) > 0)
        for (uint32_t i = 0; i < n; i++)
            set_raw_bit(raw, size - pos, (uint64_t)chunk[i] - (uint64_t)base8 * 8);
    free(chunk);
#endif
    return true;
}

/* The part of raw holding the 65536 values of one 16-bit key: raw[lo, hi), whose
 * first byte is byte `at` of the key's container. base is a multiple of 8, so both
 * ends fall on byte boundaries. */
struct window {
    size_t lo, hi, at;
    uint32_t card;
};

static struct window window_of(const struct dense *d, uint32_t key)
{
    uint64_t start = (uint64_t)key << 16, end = start + 65536;
    struct window w;
    w.lo = start > d->base ? (size_t)((start - d->base) / 8) : 0;
    w.at = start > d->base ? 0 : (size_t)((d->base - start) / 8);
    w.hi = (size_t)((end - d->base) / 8); /* end > base: the key is not below base's */
    if (w.hi > d->nraw)
        w.hi = d->nraw;
    w.card = (uint32_t)popcount_bytes(d->raw + w.lo, w.hi - w.lo);
    return w;
}

/* Writes one container's payload as the portable format has it: an array of
 * sorted uint16 below 4097 values, a bitset above. Returns its size. */
static size_t put_container(const struct dense *d, const struct window *w, uint8_t *out)
{
    if (w->card > FMT_MAX_ARRAY_CARD) {
        memset(out, 0, FMT_BITSET_BYTES);
        memcpy(out + w->at, d->raw + w->lo, w->hi - w->lo);
        return FMT_BITSET_BYTES;
    }
    size_t n = 0;
    for (size_t j = w->lo; j < w->hi; j++)
        for (unsigned b = d->raw[j]; b; b &= b - 1) {
            uint32_t v = (uint32_t)(8 * (w->at + j - w->lo)) + (uint32_t)__builtin_ctz(b);
            out[n++] = (uint8_t)v;
            out[n++] = (uint8_t)(v >> 8);
        }
    return n;
}

/* Portable serialization of the non-empty windows of keys [k0, k1) into buf
 * (cookie 12346, so always with offsets); returns its length. */
static size_t put_group(const struct dense *d, uint32_t k0, uint32_t k1, uint8_t *buf)
{
    struct window w[GROUP_KEYS];
    uint32_t keys[GROUP_KEYS], n = 0;
    for (uint32_t k = k0; k < k1; k++)
        if ((w[n] = window_of(d, k)).card > 0)
            keys[n++] = k;
    size_t pos = 8 + 8 * (size_t)n;
    uint32_t head[2] = {FMT_COOKIE_NO_RUN, n};
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 4; b++)
            buf[4 * i + b] = (uint8_t)(head[i] >> (8 * b));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t keycard = keys[i] | (w[i].card - 1) << 16, off = (uint32_t)pos;
        for (int b = 0; b < 4; b++) {
            buf[8 + 4 * i + b] = (uint8_t)(keycard >> (8 * b));
            buf[8 + 4 * (n + i) + b] = (uint8_t)(off >> (8 * b));
        }
        pos += put_container(d, &w[i], buf + pos);
    }
    return pos;
}

/* Bytes put_group may write for keys of which there are nkeys, holding nraw raw
 * bytes: an array takes 2 bytes per member, at most 16 per raw byte, and a bitset
 * (more than 4096 members, so at least 512 raw bytes) 8192, also at most 16 per
 * raw byte. So a small bitmap needs a small buffer. */
static size_t group_bound(uint64_t nkeys, size_t nraw)
{
    uint64_t payload = nkeys * FMT_BITSET_BYTES;
    if (payload > 16 * (uint64_t)nraw)
        payload = 16 * (uint64_t)nraw;
    return (size_t)(8 + 8 * nkeys + payload);
}

/* Builds the bitmap GROUP_KEYS keys at a time: each group is rewritten as a
 * portable serialization, validated like any input, deserialized by CRoaring and
 * appended. That is about 15 times faster than adding the members one by one
 * (0.18 s instead of 2.7 s for 128 MiB of random raw bytes), and needs one
 * group's worth of extra memory at most (about 2 MiB). */
static roaring_bitmap_t *decode_dense(const struct dense *d)
{
    roaring_bitmap_t *out = roaring_bitmap_create();
    if (!out || d->nraw == 0)
        return out;
    uint64_t first_key = d->base >> 16, last_key = (d->base + 8 * (uint64_t)d->nraw - 1) >> 16;
    uint64_t nkeys = last_key - first_key + 1 < GROUP_KEYS ? last_key - first_key + 1 : GROUP_KEYS;
    uint8_t *buf = malloc(group_bound(nkeys, d->nraw));
    if (!buf)
        goto err;
    for (uint64_t k = first_key; k <= last_key; k += GROUP_KEYS) {
        uint64_t k1 = last_key + 1 - k > GROUP_KEYS ? k + GROUP_KEYS : last_key + 1;
        size_t len = put_group(d, (uint32_t)k, (uint32_t)k1, buf);
        struct reader r = {.buf = buf, .len = len};
        uint64_t card;
        roaring_bitmap_t *part;
        if (!validate_roaring(&r, &card) ||
            !(part = roaring_bitmap_portable_deserialize_safe((const char *)buf, len)))
            goto err;
        roaring_bitmap_or_inplace(out, part);
        roaring_bitmap_free(part);
    }
    free(buf);
    return out;
err:
    free(buf);
    roaring_bitmap_free(out);
    return NULL;
}

/* ---- the gaps encoding (codec_gaps.c) ------------------------------------------------ */

/* A checked gaps value: its members, or its raw bits made a dense value. */
static roaring_bitmap_t *decode_gaps(const uint8_t *buf, size_t len)
{
    uint32_t *vals, base8 = 0;
    uint8_t *raw;
    size_t n, nraw;
    roaring_bitmap_t *bm = NULL;
    if (!gaps_unpack(buf, len, &vals, &n, &raw, &nraw, &base8)) return NULL;
    if (vals) {
        if ((bm = roaring_bitmap_create())) roaring_bitmap_add_many(bm, n, vals);
    } else {
        struct dense d = {base8 * 8, raw, nraw};
        bm = decode_dense(&d);
    }
    free(vals);
    free(raw);
    return bm;
}

bool codec_gaps_plan(const roaring_bitmap_t *bm, struct codec_gaps *g)
{
    struct gaps_plan p;
    if (!gaps_plan_of(bm, &p) || p.size > CODEC_MAX_BYTES) return false;
    *g = (struct codec_gaps){p.size, p.complement, p.k};
    return true;
}

bool codec_write_gaps(const roaring_bitmap_t *bm, const struct codec_gaps *g, uint8_t *buf)
{
    struct gaps_plan p = {g->size, g->complement, g->k};
    uint64_t card;
    return gaps_write(bm, &p, buf) && gaps_check(buf, g->size, &card, NULL, 0) &&
           card == roaring_bitmap_get_cardinality(bm);
}

/* ---- every encoding ----------------------------------------------------------------- */

/* What validate() found: the encoding and the number of members it holds. */
struct parsed {
    bool is_dense, is_gaps;
    struct dense dense; /* when is_dense */
    uint64_t card;
};

static bool validate(const uint8_t *buf, size_t len, struct parsed *p, char *err, size_t errlen)
{
    struct reader r = {.buf = buf, .len = len, .pos = 0, .err = err, .errlen = errlen};
    memset(p, 0, sizeof(*p));
    if (len > CODEC_MAX_BYTES)
        return fail(&r, "too large: %zu bytes", len);
    if (!buf && len > 0)
        return fail(&r, "no buffer");
    if (len > 0 && buf[0] != DENSE_TAG && buf[0] != GAPS_TAG && buf[0] != (FMT_COOKIE_NO_RUN & 0xFF) &&
        buf[0] != (FMT_COOKIE_RUN & 0xFF))
        return fail(&r, "bad cookie: first byte 0x%02x is neither Roaring (0x3a, 0x3b), dense (0xb1) nor gaps (0xb2)",
                    buf[0]);
    if (len > 0 && buf[0] == GAPS_TAG) {
        p->is_gaps = true;
        return gaps_check(buf, len, &p->card, err, errlen);
    }
    if (len == 0 || buf[0] != DENSE_TAG)
        return validate_roaring(&r, &p->card);
    p->is_dense = true;
    if (!read_dense(&r, &p->dense))
        return false;
    p->card = popcount_bytes(p->dense.raw, p->dense.nraw);
    return true;
}

bool codec_validate(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct parsed p;
    return validate(buf, len, &p, err, errlen);
}

/* Payload bytes of container k of a portable value at pos (run: from its run count). */
static bool payload_at(const uint8_t *buf, size_t len, const struct header *h, uint32_t k, size_t pos, size_t *size)
{
    if (is_run(h, k)) {
        if (pos > len || len - pos < 2) return false;
        *size = 2 + 4 * (size_t)le16(buf + pos);
    } else {
        uint32_t card = card_of(h, k);
        *size = card > FMT_MAX_ARRAY_CARD ? FMT_BITSET_BYTES : 2 * (size_t)card;
    }
    return pos <= len && *size <= len - pos;
}

bool codec_contains(const uint8_t *buf, size_t len, uint32_t v, bool *member)
{
    char err[8];
    struct reader r = {buf, len, 0, err, sizeof(err)};
    struct header h;
    size_t pos, size;

    *member = false;
    if (len >= 1 && buf[0] == GAPS_TAG) return false; /* no index into it: the caller decodes */
    if (len >= 1 && buf[0] == DENSE_TAG) {
        struct dense d;
        if (!read_dense(&r, &d)) return false;
        if (v >= d.base && (v - d.base) / 8 < d.nraw) *member = (d.raw[(v - d.base) / 8] >> ((v - d.base) % 8)) & 1;
        return true;
    }
    if (!read_header(&r, &h)) return false;
    uint32_t key = v >> 16, low = v & 0xFFFF, lo = 0, hi = h.count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_of(&h, mid) < key) lo = mid + 1; else hi = mid;
    }
    if (lo == h.count || key_of(&h, lo) != key) return true;
    if (h.offsets) {
        pos = le32(h.offsets + 4 * (size_t)lo);
    } else { /* fewer than 4 containers: walk to it */
        pos = r.pos;
        for (uint32_t k = 0; k < lo; k++) {
            if (!payload_at(buf, len, &h, k, pos, &size)) return false;
            pos += size;
        }
    }
    if (!payload_at(buf, len, &h, lo, pos, &size)) return false;
    const uint8_t *p = buf + pos;
    if (is_run(&h, lo)) { /* the last run starting at or below low */
        uint32_t n = le16(p), a = 0, b = n;
        p += 2;
        while (a < b) {
            uint32_t mid = a + (b - a) / 2;
            if (le16(p + 4 * (size_t)mid) <= low) a = mid + 1; else b = mid;
        }
        *member = a > 0 && low <= (uint32_t)le16(p + 4 * (size_t)(a - 1)) + le16(p + 4 * (size_t)(a - 1) + 2);
    } else if (card_of(&h, lo) > FMT_MAX_ARRAY_CARD) {
        *member = (p[low / 8] >> (low % 8)) & 1;
    } else {
        uint32_t a = 0, b = card_of(&h, lo);
        while (a < b) {
            uint32_t mid = a + (b - a) / 2;
            if (le16(p + 2 * (size_t)mid) < low) a = mid + 1; else b = mid;
        }
        *member = a < card_of(&h, lo) && le16(p + 2 * (size_t)a) == low;
    }
    return true;
}

const char *codec_encoding_name(const uint8_t *buf, size_t len)
{
    if (len >= 1 && buf[0] == DENSE_TAG)
        return "dense";
    if (len >= 1 && buf[0] == GAPS_TAG)
        return "gaps";
    if (len >= 2 && (buf[0] == (FMT_COOKIE_NO_RUN & 0xFF) || buf[0] == (FMT_COOKIE_RUN & 0xFF)) &&
        buf[1] == FMT_COOKIE_RUN >> 8)
        return "roaring";
    return NULL;
}

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen > 0)
        snprintf(err, errlen, "%s", msg);
}

roaring_bitmap_t *codec_decode(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct parsed p;
    if (!validate(buf, len, &p, err, errlen))
        return NULL;
    /* Valid input cannot make this fail except on allocation failure, and so it
     * never reaches CRoaring's stderr messages. */
    roaring_bitmap_t *bm = p.is_dense  ? decode_dense(&p.dense)
                           : p.is_gaps ? decode_gaps(buf, len)
                                       : roaring_bitmap_portable_deserialize_safe((const char *)buf, len);
    if (!bm) {
        set_err(err, errlen, "deserialization failed (out of memory?)");
        return NULL;
    }
    /* Defence in depth: CRoaring must agree with the header (or popcount) it was given. */
    if (roaring_bitmap_get_cardinality(bm) != p.card) {
        roaring_bitmap_free(bm);
        set_err(err, errlen, "cardinality differs after deserialization");
        return NULL;
    }
    return bm;
}

/* Writes bm in the chosen encoding, `size` bytes, and validates the result. The
 * cardinality comparison catches containers whose contents disagree with their
 * cardinality, the kind of damage the 0.2.66 range bugs leave behind. */
static bool encode_as(roaring_bitmap_t *bm, bool dense, size_t size, uint8_t **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (size > CODEC_MAX_BYTES)
        return false;
    uint8_t *buf = dense ? calloc(size, 1) : malloc(size);
    if (!buf)
        return false;
    bool written = dense ? write_dense(bm, buf, size)
                         : roaring_bitmap_portable_serialize(bm, (char *)buf) == size;
    struct parsed p;
    if (!written || !validate(buf, size, &p, NULL, 0) || p.is_dense != dense ||
        p.card != roaring_bitmap_get_cardinality(bm)) {
        free(buf);
        return false;
    }
    *out = buf;
    *outlen = size;
    return true;
}

size_t codec_encoded_size(roaring_bitmap_t *bm)
{
    roaring_bitmap_run_optimize(bm);
    size_t roaring = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size(bm);
    return dense < roaring ? dense : roaring;
}

size_t codec_dense_size(const roaring_bitmap_t *bm)
{
    return dense_size(bm);
}

bool codec_write_dense(const roaring_bitmap_t *bm, uint8_t *buf, size_t size)
{
    struct parsed p;
    memset(buf, 0, size);
    return size == dense_size(bm) && size <= CODEC_MAX_BYTES && write_dense(bm, buf, size) &&
           validate(buf, size, &p, NULL, 0) && p.is_dense && p.card == roaring_bitmap_get_cardinality(bm);
}

/* The smaller encoding of a run-optimized bm (dense only when strictly smaller). */
static bool encode_optimized(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    size_t roaring = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size(bm);
    return dense < roaring ? encode_as(bm, true, dense, out, outlen)
                           : encode_as(bm, false, roaring, out, outlen);
}

bool codec_encode(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    roaring_bitmap_run_optimize(bm);
    return encode_optimized(bm, out, outlen);
}

/* Run-optimizes container i of ra (not shared), as roaring_bitmap_run_optimize does. */
static void run_optimize_at(roaring_array_t *ra, int32_t i)
{
    uint8_t before, after;
    void *c = ra_get_container_at_index(ra, (uint16_t)i, &before);
    void *c1 = convert_run_optimize(c, before, &after); /* frees c when it converts */
    ra_set_container_at_index(ra, i, c1, after);
}

bool codec_encode_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t **out, size_t *outlen)
{
    roaring_array_t *ra = &bm->high_low_container;
    const roaring_array_t *ca = &changed->high_low_container;
    for (int32_t j = 0; j < ca->size; j++) {
        int32_t i = ra_get_index(ra, ca->keys[j]);
        if (i < 0) continue; /* emptied: gone */
        if (ra->typecodes[i] == SHARED_CONTAINER_TYPE_CODE) return codec_encode(bm, out, outlen);
        run_optimize_at(ra, i);
    }
    return encode_optimized(bm, out, outlen);
}

/* Run-optimizes the containers of bm with keys lo .. hi, as roaring_bitmap_run_optimize
 * does for all of them. False (nothing done) if one is shared (copy-on-write, which
 * bitmapd does not use). */
static bool run_optimize_keys(roaring_bitmap_t *bm, uint32_t lo, uint32_t hi)
{
    roaring_array_t *ra = &bm->high_low_container;
    for (int32_t i = 0; i < ra->size; i++)
        if (ra->keys[i] >= lo && ra->keys[i] <= hi && ra->typecodes[i] == SHARED_CONTAINER_TYPE_CODE) return false;
    for (int32_t i = 0; i < ra->size; i++)
        if (ra->keys[i] >= lo && ra->keys[i] <= hi) run_optimize_at(ra, i);
    return true;
}

/* Where container k's payload starts in a portable value whose containers start at
 * body (from the offsets, or walking to it when there are none). */
static bool container_pos(const uint8_t *buf, size_t len, const struct header *h, size_t body, uint32_t k,
                          size_t *pos)
{
    size_t size;
    if (h->offsets) {
        *pos = le32(h->offsets + 4 * (size_t)k);
        return *pos <= len;
    }
    *pos = body;
    for (uint32_t i = 0; i < k; i++) {
        if (!payload_at(buf, len, h, i, *pos, &size)) return false;
        *pos += size;
    }
    return true;
}

/* The bitset container of bm at index i (NULL if it is another kind). */
static const bitset_container_t *bitset_at(const roaring_array_t *ra, int32_t i)
{
    uint8_t type;
    const void *c = container_at(ra, i, &type);
    return type == BITSET_CONTAINER_TYPE_CODE ? c : NULL;
}

/* codec_encode_patch for a portable old value: when bm has the same containers and
 * every one of keys lo .. hi is a bitset in both (the bytes of a big, dense-ish value
 * written a few bits at a time), old's bytes with those containers' cardinalities and
 * bitsets rewritten. */
static bool patch_portable(const roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard,
                           uint32_t lo, uint32_t hi, uint8_t *buf)
{
    char err[8];
    struct reader r = {old, oldlen, 0, err, sizeof(err)};
    struct header h;
    const roaring_array_t *ra = &bm->high_low_container;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return false;
#endif
    if (dense_size(bm) < roaring_bitmap_portable_size_in_bytes(bm) ||
        roaring_bitmap_portable_size_in_bytes(bm) != oldlen || !read_header(&r, &h) || h.count != (uint32_t)ra->size)
        return false;
    for (int32_t i = 0; i < ra->size; i++) {
        if (key_of(&h, (uint32_t)i) != ra->keys[i]) return false;
        if (ra->keys[i] >= lo && ra->keys[i] <= hi &&
            (!bitset_at(ra, i) || is_run(&h, (uint32_t)i) || card_of(&h, (uint32_t)i) <= FMT_MAX_ARRAY_CARD))
            return false;
    }
    memcpy(buf, old, oldlen);
    uint64_t was = 0, now = 0;
    for (int32_t i = 0; i < ra->size; i++) {
        if (ra->keys[i] < lo || ra->keys[i] > hi) continue;
        size_t pos;
        const bitset_container_t *bc = bitset_at(ra, i);
        uint32_t card = (uint32_t)bc->cardinality;
        if (!container_pos(old, oldlen, &h, r.pos, (uint32_t)i, &pos) || pos > oldlen ||
            oldlen - pos < FMT_BITSET_BYTES || card <= FMT_MAX_ARRAY_CARD)
            return false;
        was += card_of(&h, (uint32_t)i);
        memcpy(buf + pos, bc->array, FMT_BITSET_BYTES); /* little endian: the words are the bytes */
        uint64_t pop = popcount_bytes(buf + pos, FMT_BITSET_BYTES);
        now += pop;
        if (pop != card) return false;
        uint8_t *kc = buf + (h.keycards - old) + 4 * (size_t)i + 2;
        kc[0] = (uint8_t)(card - 1);
        kc[1] = (uint8_t)((card - 1) >> 8);
    }
    return oldcard >= was && oldcard - was + now == roaring_bitmap_get_cardinality(bm);
}

bool codec_encode_patch_into(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard, uint32_t lo,
                             uint32_t hi, uint8_t *buf)
{
    if (lo > hi || hi > UINT16_MAX || !run_optimize_keys(bm, lo, hi) || roaring_bitmap_is_empty(bm)) return false;
    if (oldlen >= 1 && old[0] != DENSE_TAG) return patch_portable(bm, old, oldlen, oldcard, lo, hi, buf);
    size_t dense = dense_size(bm);
    uint32_t base8 = roaring_bitmap_minimum(bm) / 8;
    size_t head = 1 + varint_len(base8);
    /* the same encoding as before, in the same place: dense, same base, same length */
    if (dense >= roaring_bitmap_portable_size_in_bytes(bm) || oldlen != dense || old[0] != DENSE_TAG) return false;
    struct reader r = {.buf = old, .len = oldlen};
    struct dense d;
    if (!read_dense(&r, &d) || d.base != base8 * 8 || d.nraw != dense - head) return false;
    int64_t from, to;
    key_bytes(lo, hi, base8, d.nraw, &from, &to);
    memcpy(buf, old, dense);
    uint8_t *raw = buf + head;
    uint64_t was = 0, now = 0, want = 0;
    if (from < to) {
        was = popcount_bytes(raw + from, (size_t)(to - from));
        memset(raw + from, 0, (size_t)(to - from));
        write_dense_containers(bm, base8, raw, d.nraw, lo, hi);
        now = popcount_bytes(raw + from, (size_t)(to - from));
    }
    const roaring_array_t *ra = &bm->high_low_container;
    for (int32_t i = 0; i < ra->size; i++)
        if (ra->keys[i] >= lo && ra->keys[i] <= hi)
            want += container_get_cardinality(ra->containers[i], ra->typecodes[i]);
    /* what was rewritten holds exactly those containers' members; the rest, the old
     * members outside them: together bm's cardinality; and the canonical ends */
    return now == want && oldcard >= was && oldcard - was + now == roaring_bitmap_get_cardinality(bm) &&
           raw[0] != 0 && raw[d.nraw - 1] != 0;
}

bool codec_encode_patch(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard, uint32_t lo,
                        uint32_t hi, uint8_t **out, size_t *outlen)
{
    uint8_t *buf = malloc(oldlen ? oldlen : 1);
    *out = NULL;
    *outlen = 0;
    if (!buf || !codec_encode_patch_into(bm, old, oldlen, oldcard, lo, hi, buf)) {
        free(buf);
        return false;
    }
    *out = buf;
    *outlen = oldlen;
    return true;
}

/* Adds to out the members base + 8 j + b where a[j] and b[j] differ (j < n): eight
 * bytes at a time, most of which are equal. */
static void add_differences(roaring_bitmap_t *out, const uint8_t *a, const uint8_t *b, size_t n, uint32_t base)
{
    uint32_t vals[256];
    size_t nv = 0, j = 0;
    for (; j < n; j += 8) {
        uint64_t wa = 0, wb = 0;
        size_t m = n - j < 8 ? n - j : 8;
        memcpy(&wa, a + j, m);
        memcpy(&wb, b + j, m);
        uint64_t x = wa ^ wb; /* little endian: bit i of x is bit i % 8 of byte j + i / 8 */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        while (x) {
            vals[nv++] = base + 8 * (uint32_t)j + (uint32_t)__builtin_ctzll(x);
            x &= x - 1;
        }
        if (nv > 192) { /* room for the next word's 64 */
            roaring_bitmap_add_many(out, nv, vals);
            nv = 0;
        }
    }
    if (nv) roaring_bitmap_add_many(out, nv, vals);
}

roaring_bitmap_t *codec_patch_changes(const uint8_t *old, size_t oldlen, const uint8_t *now, size_t len, uint32_t lo,
                                      uint32_t hi)
{
    char err[8];
    struct reader r = {old, len, 0, err, sizeof(err)};
    roaring_bitmap_t *out = NULL;
    if (lo > hi || hi > UINT16_MAX || len < 2 || oldlen != len) return NULL;
    if (old[0] == DENSE_TAG) {
        struct dense d;
        if (!read_dense(&r, &d)) return NULL;
        size_t head = len - d.nraw;
        if (now[0] != DENSE_TAG || memcmp(old, now, head) != 0) return NULL; /* not the same base */
        int64_t from, to;
        key_bytes(lo, hi, d.base / 8, d.nraw, &from, &to);
        if (!(out = roaring_bitmap_create())) return NULL;
        if (from < to) add_differences(out, old + head + from, now + head + from, (size_t)(to - from), d.base + 8 * (uint32_t)from);
        return out;
    }
    /* portable, as patch_portable writes it: the same containers, those of keys lo .. hi bitsets */
    struct header h;
    if (!read_header(&r, &h) || now[0] != old[0] || !(out = roaring_bitmap_create())) return NULL;
    for (uint32_t k = 0; k < h.count; k++) {
        uint32_t key = key_of(&h, k);
        size_t pos;
        if (key < lo || key > hi) continue;
        if (is_run(&h, k) || card_of(&h, k) <= FMT_MAX_ARRAY_CARD || le16(now + (h.keycards - old) + 4 * (size_t)k) != key ||
            le16(now + (h.keycards - old) + 4 * (size_t)k + 2) + 1 <= FMT_MAX_ARRAY_CARD ||
            !container_pos(old, len, &h, r.pos, k, &pos) || pos > len || len - pos < FMT_BITSET_BYTES) {
            roaring_bitmap_free(out);
            return NULL;
        }
        add_differences(out, old + pos, now + pos, FMT_BITSET_BYTES, key << 16);
    }
    return out;
}

bool codec_encode_roaring(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    roaring_bitmap_run_optimize(bm);
    return encode_as(bm, false, roaring_bitmap_portable_size_in_bytes(bm), out, outlen);
}

/* Reflected CRC-32C table for polynomial 0x82F63B78: entry i is the CRC of the
 * byte i alone (without init/xorout). Generated once and kept constant so that it
 * needs no initialization and is safe from any thread. */
static const uint32_t crc32c_table[256] = {
    0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
    0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
    0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
    0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
    0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
    0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
    0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
    0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
    0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
    0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
    0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
    0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
    0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
    0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
    0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
    0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
    0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
    0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
    0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
    0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
    0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
    0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
    0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
    0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
    0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
    0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
    0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
    0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
    0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
    0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
    0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
    0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
    0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
    0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
    0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
    0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
    0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
    0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
    0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
    0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
    0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
    0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
    0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

static uint32_t crc32c_sw(uint32_t crc, const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        crc = crc32c_table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

#if defined(__x86_64__)
#include <nmmintrin.h>
/* SSE4.2's crc32 instruction computes this same CRC-32C, 8 bytes at a time: every
 * load re-checks the checksum of the whole row, so this matters for big bitmaps. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t start, const uint8_t *buf, size_t len)
{
    uint64_t crc = start;
    for (; len >= 8; buf += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, buf, 8);
        crc = _mm_crc32_u64(crc, v);
    }
    uint32_t c = (uint32_t)crc;
    while (len--) c = _mm_crc32_u8(c, *buf++);
    return c ^ 0xFFFFFFFFu;
}
#endif

uint32_t codec_crc32c_extend(uint32_t crc, const uint8_t *buf, size_t len)
{
#if defined(__x86_64__)
    static int hw = -1;
    if (hw < 0) hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (hw) return crc32c_hw(crc ^ 0xFFFFFFFFu, buf, len);
#endif
    return crc32c_sw(crc ^ 0xFFFFFFFFu, buf, len);
}

uint32_t codec_crc32c(const uint8_t *buf, size_t len) { return codec_crc32c_extend(0, buf, len); }

/* Built only from iterators and add_many because the range functions of 0.2.66
 * (add_range, remove_range, flip) corrupt run containers. */
roaring_bitmap_t *codec_keep_from(const roaring_bitmap_t *bm, uint32_t bound)
{
    roaring_bitmap_t *out = roaring_bitmap_create();
    uint32_t *chunk = malloc(ITER_CHUNK * sizeof(*chunk));
    if (!out || !chunk)
        goto err;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    if (it.has_value && roaring_move_uint32_iterator_equalorlarger(&it, bound)) {
        uint32_t n;
        while ((n = roaring_read_uint32_iterator(&it, chunk, ITER_CHUNK)) > 0)
            roaring_bitmap_add_many(out, n, chunk);
    }
    free(chunk);
    return out;
err:
    free(chunk);
    if (out)
        roaring_bitmap_free(out);
    return NULL;
}
