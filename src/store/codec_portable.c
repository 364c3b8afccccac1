/* codec_portable.c — the CRoaring portable serialization, checked rule by rule:
 * CRoaring 0.2.66 trusts what it deserializes (unsorted arrays, wrong cardinalities,
 * empty run containers), so every byte of a portable value is checked here before
 * it gets there (the rules: codec_validate in codec.h). */
#include <inttypes.h>
#include <string.h>

#include "store/codec_internal.h"

/* Cookie and container count. The count is bounded before anything is sized by it. */
static bool read_cookie(struct reader *r, struct header *h, bool *run_cookie)
{
    const uint8_t *p = take(r, 4);
    if (!p)
        return reader_fail(r, "truncated cookie");
    uint32_t cookie = le32(p);
    if ((cookie & 0xFFFF) == FMT_COOKIE_RUN) {
        *run_cookie = true;
        h->count = (cookie >> 16) + 1;
        return true;
    }
    if (cookie != FMT_COOKIE_NO_RUN)
        return reader_fail(r, "bad cookie 0x%08" PRIx32, cookie);
    *run_cookie = false;
    if (!(p = take(r, 4)))
        return reader_fail(r, "truncated container count");
    h->count = le32(p);
    if (h->count > FMT_MAX_CONTAINERS)
        return reader_fail(r, "container count %" PRIu32 " > %d", h->count, FMT_MAX_CONTAINERS);
    return true;
}

/* The run-flag bitset. Bits past the last container must be zero: CRoaring,
 * Java and Go all write zeros there, so anything else is corruption. */
static bool read_run_flags(struct reader *r, struct header *h)
{
    size_t n = ((size_t)h->count + 7) / 8;
    if (!(h->run_flags = take(r, n)))
        return reader_fail(r, "truncated run flags");
    unsigned used = h->count % 8;
    if (used && h->run_flags[n - 1] >> used)
        return reader_fail(r, "nonzero padding in run flags");
    return true;
}

/* The (key, cardinality - 1) pairs; keys must be strictly increasing so that each
 * 16-bit key has at most one container and binary searches in CRoaring work. */
static bool read_keycards(struct reader *r, struct header *h)
{
    if (!(h->keycards = take(r, 4 * (size_t)h->count)))
        return reader_fail(r, "truncated key/cardinality header");
    for (uint32_t k = 1; k < h->count; k++)
        if (key_of(h, k) <= key_of(h, k - 1))
            return reader_fail(r, "container %" PRIu32 ": keys not strictly increasing", k);
    return true;
}

bool read_header(struct reader *r, struct header *h)
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
        return reader_fail(r, "truncated offset header");
    return true;
}

/* Array: card sorted distinct uint16 values. card <= 4096 holds by construction:
 * the format reads a larger non-run container as a bitset. */
static bool check_array(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, 2 * (size_t)card);
    if (!p)
        return reader_fail(r, "container %" PRIu32 ": truncated array", k);
    for (uint32_t i = 1; i < card; i++)
        if (le16(p + 2 * i) <= le16(p + 2 * (i - 1)))
            return reader_fail(r, "container %" PRIu32 ": array not strictly increasing", k);
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

uint64_t popcount_bytes(const uint8_t *p, size_t n)
{
    static int hw = -1;
    if (hw < 0) hw = __builtin_cpu_supports("popcnt") ? 1 : 0;
    return hw ? popcount_hw(p, n) : popcount_plain(p, n);
}
#else
uint64_t popcount_bytes(const uint8_t *p, size_t n) { return popcount_plain(p, n); }
#endif

/* Bitset: the declared cardinality is trusted by CRoaring, so it must be exact. */
static bool check_bitset(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, FMT_BITSET_BYTES);
    if (!p)
        return reader_fail(r, "container %" PRIu32 ": truncated bitset", k);
    uint32_t pop = (uint32_t)popcount_bytes(p, FMT_BITSET_BYTES);
    if (pop != card)
        return reader_fail(r, "container %" PRIu32 ": bitset popcount %" PRIu32 " != cardinality %" PRIu32,
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
            return reader_fail(r, "container %" PRIu32 ": run past 65535", k);
        if (i > 0 && start <= prev_end) {
            uint32_t prev_start = le16(p + 4 * (size_t)(i - 1));
            return reader_fail(r, "container %" PRIu32 ": runs %s", k,
                               start < prev_start ? "not sorted" : "overlap");
        }
        sum += end - start + 1;
        prev_end = end;
    }
    if (sum != card)
        return reader_fail(r, "container %" PRIu32 ": run cardinality %" PRIu64 " != declared %" PRIu32,
                           k, sum, card);
    return true;
}

static bool check_run(struct reader *r, uint32_t k, uint32_t card)
{
    const uint8_t *p = take(r, 2);
    if (!p)
        return reader_fail(r, "container %" PRIu32 ": truncated run count", k);
    uint32_t nruns = le16(p);
    if (nruns == 0)
        return reader_fail(r, "container %" PRIu32 ": empty run container", k);
    if (!(p = take(r, 4 * (size_t)nruns)))
        return reader_fail(r, "container %" PRIu32 ": truncated runs", k);
    return check_runs(r, k, card, p, nruns);
}

/* One container: its offset (when the header has offsets) must be where it really
 * starts, since readers that seek by offset would otherwise see other bytes. */
static bool check_container(struct reader *r, const struct header *h, uint32_t k)
{
    if (h->offsets) {
        uint32_t off = le32(h->offsets + 4 * (size_t)k);
        if (off != r->pos)
            return reader_fail(r, "container %" PRIu32 ": offset %" PRIu32 " should be %zu", k, off, r->pos);
    }
    uint32_t card = card_of(h, k);
    if (is_run(h, k))
        return check_run(r, k, card);
    if (card > FMT_MAX_ARRAY_CARD)
        return check_bitset(r, k, card);
    return check_array(r, k, card);
}

/* A whole portable serialization, after the size checks of validate() (codec.c).
 * Returns the total cardinality from the header, which codec_decode and codec_encode
 * compare with what CRoaring reports. */
bool validate_roaring(struct reader *r, uint64_t *card)
{
    return validate_roaring_keys(r, card, NULL);
}

bool validate_roaring_keys(struct reader *r, uint64_t *card, const roaring_bitmap_t *only)
{
    struct header h;
    const roaring_array_t *ra = only ? &only->high_low_container : NULL;
    int32_t j = 0;
    if (!read_header(r, &h))
        return false;
    *card = 0;
    for (uint32_t k = 0; k < h.count; k++) {
        uint16_t key = key_of(&h, k);
        while (ra && j < ra->size && ra->keys[j] < key) j++;
        if (!ra || (j < ra->size && ra->keys[j] == key)) {
            if (!check_container(r, &h, k))
                return false;
        } else { /* where it is and how long, not what it holds */
            size_t size;
            if (h.offsets && le32(h.offsets + 4 * (size_t)k) != r->pos)
                return reader_fail(r, "container %" PRIu32 ": offset %" PRIu32 " should be %zu", k,
                                   le32(h.offsets + 4 * (size_t)k), r->pos);
            if (!payload_at(r->buf, r->len, &h, k, r->pos, &size) || (is_run(&h, k) && le16(r->buf + r->pos) == 0))
                return reader_fail(r, "container %" PRIu32 ": truncated or empty", k);
            r->pos += size;
        }
        *card += card_of(&h, k);
    }
    if (r->pos != r->len)
        return reader_fail(r, "%zu trailing bytes", r->len - r->pos);
    return true;
}

/* Payload bytes of container k of a portable value at pos (run: from its run count). */
bool payload_at(const uint8_t *buf, size_t len, const struct header *h, uint32_t k, size_t pos, size_t *size)
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

/* Where container k's payload starts in a portable value whose containers start at
 * body (from the offsets, or walking to it when there are none). */
bool container_pos(const uint8_t *buf, size_t len, const struct header *h, size_t body, uint32_t k,
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
