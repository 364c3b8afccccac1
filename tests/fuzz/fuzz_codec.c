/* fuzz_codec.c — libFuzzer target for the codec (src/store/codec*.c) as the database
 * feeds it: the input is a stored byte string (a "bits" column).
 *
 * Properties checked on every input:
 *  - codec_validate and codec_decode agree (both accept or both reject, with the
 *    same reason), a rejection always has a reason, and a short err buffer is
 *    never overrun;
 *  - nothing is printed on stderr (CRoaring 0.2.66 prints on every input its own
 *    check rejects, so output means unvalidated bytes reached it);
 *  - an accepted input is what an independent decoder written here reads: the
 *    same members (value by value, or by rank over every interval for sets of
 *    more than 65536), so CRoaring and the validator agree on what the bytes mean;
 *  - the decoded bitmap re-encodes (codec_encode and codec_encode_roaring) to
 *    bytes that validate and decode to the same set; the encoding chosen follows
 *    the documented rule (dense only when strictly smaller); a dense input that
 *    re-encodes dense comes back byte for byte (one encoding per bitmap);
 *  - a gaps input (0xB2) is read alike by a bit-by-bit reader here; the decoded bitmap
 *    (up to 65536 members) written as gaps decodes to itself;
 *  - codec_contains (one bit read in place) agrees with the decoded bitmap on the
 *    edges, the input's checksum and its least and greatest members, and on any bytes
 *    at all never reads past the end;
 *  - after a mutation picked from the input's checksum (add, remove,
 *    codec_keep_from) the round trip still holds and keep_from kept exactly the
 *    members >= the bound.
 * Leaks are caught by LeakSanitizer. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "fuzz_check.h"

/* ---- stderr capture: CRoaring writes with fprintf(stderr, ...) --------------------- */

static FILE *quiet_stream; /* an in-memory stream that stands in for stderr */
static char *quiet_buf;
static size_t quiet_len;
static FILE *real_stderr;

static void quiet_begin(void)
{
    if (!quiet_stream) {
        quiet_stream = open_memstream(&quiet_buf, &quiet_len);
        if (!quiet_stream) abort();
    }
    real_stderr = stderr;
    stderr = quiet_stream;
}

static void quiet_end(const char *what)
{
    fflush(quiet_stream);
    long written = ftell(quiet_stream);
    stderr = real_stderr;
    CHECK(written == 0, "%s printed on stderr: %.*s", what, (int)quiet_len, quiet_buf);
}

/* ---- an independent reader of both encodings, as a list of member intervals -------- */

struct ivs {
    uint64_t (*iv)[2]; /* inclusive [lo, hi], increasing, never adjacent (merged) */
    size_t n, cap;
    uint64_t card;
};

FUZZ_NOCOV static void iv_add(struct ivs *s, uint64_t lo, uint64_t hi)
{
    CHECK(lo <= hi && hi <= UINT32_MAX, "interval [%" PRIu64 ", %" PRIu64 "]", lo, hi);
    if (s->n) {
        uint64_t last = s->iv[s->n - 1][1];
        CHECK(lo > last, "accepted bytes hold members out of order: %" PRIu64 " after %" PRIu64, lo,
              last);
        if (lo == last + 1) {
            s->iv[s->n - 1][1] = hi;
            s->card += hi - lo + 1;
            return;
        }
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->iv = realloc(s->iv, s->cap * sizeof(*s->iv));
        if (!s->iv) abort();
    }
    s->iv[s->n][0] = lo;
    s->iv[s->n][1] = hi;
    s->n++;
    s->card += hi - lo + 1;
}

FUZZ_NOCOV static uint32_t rd16(const uint8_t *b, size_t len, size_t at)
{
    CHECK(at + 2 <= len, "reference reader ran past the end (validator accepted short bytes)");
    return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8;
}

FUZZ_NOCOV static uint32_t rd32(const uint8_t *b, size_t len, size_t at)
{
    return rd16(b, len, at) | rd16(b, len, at + 2) << 16;
}

/* Reads a portable serialization (RoaringFormatSpec) that the validator accepted. */
FUZZ_NOCOV static void ref_portable(const uint8_t *b, size_t len, struct ivs *s)
{
    uint32_t cookie = rd32(b, len, 0), count;
    size_t at = 4, flags = 0;
    bool runs = (cookie & 0xFFFF) == 12347, offsets;
    if (runs) {
        count = (cookie >> 16) + 1;
        flags = at;
        at += (count + 7) / 8;
        offsets = count >= 4;
    } else {
        CHECK(cookie == 12346, "accepted cookie %08" PRIx32, cookie);
        count = rd32(b, len, at);
        at += 4;
        offsets = true;
    }
    size_t head = at;
    at += 4 * (size_t)count + (offsets ? 4 * (size_t)count : 0);
    for (uint32_t k = 0; k < count; k++) {
        uint64_t key = (uint64_t)rd16(b, len, head + 4 * (size_t)k) << 16;
        uint32_t card = rd16(b, len, head + 4 * (size_t)k + 2) + 1;
        if (offsets)
            CHECK(rd32(b, len, head + 4 * (size_t)count + 4 * (size_t)k) == at,
                  "container %" PRIu32 " offset does not point at it", k);
        if (runs && (b[flags + k / 8] >> (k % 8) & 1)) {
            uint32_t nruns = rd16(b, len, at), sum = 0;
            at += 2;
            for (uint32_t i = 0; i < nruns; i++, at += 4) {
                uint32_t start = rd16(b, len, at), extra = rd16(b, len, at + 2);
                CHECK(start + extra <= 0xFFFF, "accepted run past 65535");
                iv_add(s, key + start, key + start + extra);
                sum += extra + 1;
            }
            CHECK(sum == card, "accepted run container of %" PRIu32 " members declaring %" PRIu32,
                  sum, card);
        } else if (card > 4096) {
            uint32_t pop = 0;
            CHECK(at + 8192 <= len, "accepted truncated bitset");
            for (uint32_t v = 0; v < 65536; v++)
                if (b[at + v / 8] >> (v % 8) & 1) {
                    iv_add(s, key + v, key + v);
                    pop++;
                }
            CHECK(pop == card, "accepted bitset of %" PRIu32 " members declaring %" PRIu32, pop, card);
            at += 8192;
        } else {
            for (uint32_t i = 0; i < card; i++, at += 2) {
                uint32_t v = rd16(b, len, at);
                iv_add(s, key + v, key + v);
            }
        }
    }
    CHECK(at == len, "accepted %zu bytes of which %zu are read", len, at);
}

/* Reads a dense encoding: B1, LEB128 base / 8, raw bits from base. */
FUZZ_NOCOV static void ref_dense(const uint8_t *b, size_t len, struct ivs *s)
{
    uint64_t base8 = 0;
    size_t at = 1;
    for (int shift = 0;; shift += 7) {
        CHECK(at < len && shift < 35, "accepted a broken varint");
        base8 |= (uint64_t)(b[at] & 0x7F) << shift;
        if (!(b[at++] & 0x80)) break;
    }
    for (size_t j = at; j < len; j++)
        for (unsigned i = 0; i < 8; i++)
            if (b[j] >> i & 1) {
                uint64_t v = base8 * 8 + 8 * (uint64_t)(j - at) + i;
                iv_add(s, v, v);
            }
    if (len > at) {
        CHECK(b[at] != 0 && b[len - 1] != 0, "accepted a dense encoding with a zero end byte");
    } else {
        CHECK(base8 == 0, "accepted an empty dense encoding with a base");
    }
}

/* Reads a gaps encoding (codec_gaps.h), one bit at a time. */
FUZZ_NOCOV static uint64_t ref_varint(const uint8_t *b, size_t len, size_t *at)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        CHECK(*at < len && shift < 35, "accepted a broken varint");
        v |= (uint64_t)(b[*at] & 0x7F) << shift;
        if (!(b[(*at)++] & 0x80)) return v;
    }
}

FUZZ_NOCOV static unsigned ref_bit(const uint8_t *b, size_t len, uint64_t *pos)
{
    CHECK(*pos / 8 < len, "reference reader ran past the end of a gaps stream");
    unsigned bit = b[*pos / 8] >> (*pos % 8) & 1;
    (*pos)++;
    return bit;
}

FUZZ_NOCOV static void ref_gaps(const uint8_t *b, size_t len, struct ivs *s)
{
    size_t at = 1;
    uint64_t base = ref_varint(b, len, &at), span = ref_varint(b, len, &at);
    CHECK(at < len, "accepted gaps without a mode");
    unsigned mode = b[at++], k = mode & 31;
    bool comp = mode & 0x80;
    uint64_t n = ref_varint(b, len, &at), prev = base - 1, pos = 8 * (uint64_t)at; /* prev wraps for 0 */
    CHECK(n >= 1 && !(mode & 0x60) && base + span <= UINT32_MAX, "accepted a gaps header it should not");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t q = 0, low = 0;
        while (!ref_bit(b, len, &pos)) q++;
        for (unsigned j = 0; j < k; j++) low |= (uint64_t)ref_bit(b, len, &pos) << j;
        uint64_t v = prev + 1 + (q << k | low); /* prev + 1 wraps back to base for the first */
        CHECK(v <= base + span, "accepted a gaps value past the span");
        if (comp) {
            CHECK(v > base && v < base + span, "accepted a complement value on the edge");
            if (v > prev + 1) iv_add(s, i ? prev + 1 : base, v - 1);
        } else {
            CHECK(i || v == base, "accepted a first member that is not base");
            iv_add(s, v, v);
        }
        prev = v;
    }
    if (comp) iv_add(s, prev + 1, base + span);
    else CHECK(prev == base + span, "accepted a last member that is not base + span");
    CHECK((pos + 7) / 8 == len, "accepted gaps with %zu bytes of which %" PRIu64 " are read", len, (pos + 7) / 8);
}

/* The gaps encoding of a non-empty bm decodes to it (what chunk rows store). */
FUZZ_NOCOV static void gaps_round_trip(const roaring_bitmap_t *bm, const char *what)
{
    struct codec_gaps g;
    char err[160] = "";
    if (roaring_bitmap_is_empty(bm)) {
        CHECK(!codec_gaps_plan(bm, &g), "%s: a gaps plan for the empty bitmap", what);
        return;
    }
    CHECK(codec_gaps_plan(bm, &g), "%s: no gaps plan", what);
    uint8_t *buf = malloc(g.size);
    if (!buf) abort();
    CHECK(codec_write_gaps(bm, &g, buf), "%s: codec_write_gaps failed (%zu bytes planned)", what, g.size);
    roaring_bitmap_t *back = codec_decode(buf, g.size, err, sizeof(err));
    CHECK(back, "%s: own gaps encoding does not decode: %s", what, err);
    CHECK(roaring_bitmap_equals(back, bm), "%s: decode(gaps(bm)) != bm", what);
    roaring_bitmap_free(back);
    free(buf);
}

/* ---- comparing a bitmap with the intervals ----------------------------------------- */

/* Members of bm in [lo, hi]. */
static uint64_t count_in(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t upto_hi = roaring_bitmap_rank(bm, (uint32_t)hi);
    uint64_t below_lo = lo ? roaring_bitmap_rank(bm, (uint32_t)(lo - 1)) : 0;
    return upto_hi - below_lo;
}

enum { ENUMERATE_MAX = 1 << 16 }; /* compare value by value up to this many members */

FUZZ_NOCOV static void check_same(const roaring_bitmap_t *bm, const struct ivs *s, const char *what)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    CHECK(card == s->card, "%s: %" PRIu64 " members, reference %" PRIu64, what, card, s->card);
    if (card > ENUMERATE_MAX) {
        /* too many to list: every interval whole, and (by the count) nothing else */
        for (size_t i = 0; i < s->n; i++) {
            uint64_t lo = s->iv[i][0], hi = s->iv[i][1];
            CHECK(count_in(bm, lo, hi) == hi - lo + 1,
                  "%s: [%" PRIu64 ", %" PRIu64 "] not all present", what, lo, hi);
        }
        return;
    }
    if (card == 0) return;
    CHECK(roaring_bitmap_minimum(bm) == s->iv[0][0], "%s: minimum", what);
    CHECK(roaring_bitmap_maximum(bm) == s->iv[s->n - 1][1], "%s: maximum", what);
    uint32_t *vals = malloc(card * sizeof(*vals));
    if (!vals) abort();
    roaring_bitmap_to_uint32_array(bm, vals);
    size_t at = 0;
    for (size_t i = 0; i < s->n; i++)
        for (uint64_t v = s->iv[i][0]; v <= s->iv[i][1]; v++, at++)
            CHECK(vals[at] == v, "%s: member %zu is %" PRIu32 ", reference %" PRIu64, what, at,
                  vals[at], v);
    /* the iterator is where crafted bytes crashed 0.2.66 */
    roaring_uint32_iterator_t it;
    roaring_init_iterator(bm, &it);
    for (at = 0; it.has_value; at++, roaring_advance_uint32_iterator(&it))
        CHECK(at < card && it.current_value == vals[at], "%s: iterator at %zu", what, at);
    CHECK(at == card, "%s: iterator gave %zu of %" PRIu64, what, at, card);
    free(vals);
}

/* The dense size of the rule in codec.h, computed from the bitmap's ends. */
FUZZ_NOCOV static uint64_t dense_size_of(const roaring_bitmap_t *bm)
{
    if (roaring_bitmap_is_empty(bm)) return 2;
    uint32_t first = roaring_bitmap_minimum(bm) / 8, last = roaring_bitmap_maximum(bm) / 8;
    uint64_t varint = 1;
    for (uint32_t v = first; v >= 0x80; v >>= 7) varint++;
    return 1 + varint + (uint64_t)(last - first) + 1;
}

/* Encodes bm both ways and checks that each encoding decodes to it. Returns the
 * codec_encode bytes (caller frees). */
static uint8_t *round_trip(roaring_bitmap_t *bm, size_t *outlen, const char *what)
{
    uint8_t *out = NULL, *rout = NULL;
    size_t len = 0, rlen = 0;
    char err[160] = "";
    CHECK(codec_encode(bm, &out, &len), "%s: codec_encode failed", what);
    uint64_t roaring_size = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size_of(bm);
    bool is_dense = len > 0 && out[0] == 0xB1;
    CHECK(is_dense == (dense < roaring_size) && len == (is_dense ? dense : roaring_size),
          "%s: %zu bytes (%s) chosen, dense %" PRIu64 ", roaring %" PRIu64, what, len,
          is_dense ? "dense" : "roaring", dense, roaring_size);
    CHECK(codec_encoded_size(bm) == len, "%s: codec_encoded_size disagrees", what);
    CHECK(codec_validate(out, len, err, sizeof(err)), "%s: own encoding rejected: %s", what, err);
    roaring_bitmap_t *back = codec_decode(out, len, err, sizeof(err));
    CHECK(back, "%s: own encoding does not decode: %s", what, err);
    CHECK(roaring_bitmap_equals(back, bm), "%s: decode(encode(bm)) != bm", what);
    roaring_bitmap_free(back);

    CHECK(codec_encode_roaring(bm, &rout, &rlen), "%s: codec_encode_roaring failed", what);
    CHECK(rlen == roaring_size && strcmp(codec_encoding_name(rout, rlen), "roaring") == 0,
          "%s: roaring encoding of %zu bytes", what, rlen);
    back = codec_decode(rout, rlen, err, sizeof(err));
    CHECK(back, "%s: own roaring encoding does not decode: %s", what, err);
    CHECK(roaring_bitmap_equals(back, bm), "%s: decode(encode_roaring(bm)) != bm", what);
    roaring_bitmap_free(back);
    free(rout);
    *outlen = len;
    return out;
}

/* ---- the target ---------------------------------------------------------------------- */

static void check_invalid(const uint8_t *data, size_t size, const char *reason)
{
    char err[160] = "", tiny[1] = {'x'};
    CHECK(reason[0] != '\0', "rejected without a reason");
    roaring_bitmap_t *bm = codec_decode(data, size, err, sizeof(err));
    CHECK(!bm, "codec_decode accepted what codec_validate rejected (%s)", reason);
    CHECK(strcmp(err, reason) == 0, "reasons differ: validate \"%s\", decode \"%s\"", reason, err);
    CHECK(!codec_validate(data, size, tiny, sizeof(tiny)) && tiny[0] == '\0',
          "a one-byte err buffer is not left as an empty string");
    CHECK(!codec_validate(data, size, NULL, 0), "rejection depends on the err buffer");
}

static void check_valid(const uint8_t *data, size_t size)
{
    char err[160] = "";
    struct ivs ref = {0};
    const char *name = codec_encoding_name(data, size);
    bool dense_in = data[0] == 0xB1, gaps_in = data[0] == 0xB2;
    CHECK(name && strcmp(name, dense_in ? "dense" : gaps_in ? "gaps" : "roaring") == 0, "encoding name %s",
          name ? name : "NULL");
    if (dense_in)
        ref_dense(data, size, &ref);
    else if (gaps_in)
        ref_gaps(data, size, &ref);
    else
        ref_portable(data, size, &ref);

    roaring_bitmap_t *bm = codec_decode(data, size, err, sizeof(err));
    CHECK(bm, "codec_validate accepted what codec_decode rejects: %s", err);
    check_same(bm, &ref, "decoded input");

    /* one bit read in place (codec_contains) agrees with the decoded bitmap */
    uint32_t probes[6] = {0, 4294967295u, codec_crc32c(data, size), 0, 0, 0};
    if (!roaring_bitmap_is_empty(bm)) {
        probes[3] = roaring_bitmap_minimum(bm);
        probes[4] = roaring_bitmap_maximum(bm);
        probes[5] = probes[4] - 1;
    }
    for (size_t i = 0; i < 6; i++) {
        bool m;
        if (gaps_in) { /* no index into a gaps stream: the caller is told to decode */
            CHECK(!codec_contains(data, size, probes[i], &m), "codec_contains answered from gaps bytes");
            continue;
        }
        CHECK(codec_contains(data, size, probes[i], &m), "codec_contains refused a valid input");
        CHECK(m == roaring_bitmap_contains(bm, probes[i]), "codec_contains(%" PRIu32 ") says %d", probes[i], m);
    }

    size_t len;
    if (roaring_bitmap_get_cardinality(bm) <= ENUMERATE_MAX) gaps_round_trip(bm, "input");
    uint8_t *out = round_trip(bm, &len, "input");
    if (dense_in && out[0] == 0xB1)
        CHECK(len == size && memcmp(out, data, size) == 0,
              "a dense input re-encoded dense to other bytes (%zu vs %zu)", len, size);
    free(out);

    /* a mutation picked by the input, then the round trip again */
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    if (card <= ENUMERATE_MAX) {
        uint32_t x = codec_crc32c(data, size);
        roaring_bitmap_add(bm, x);
        roaring_bitmap_remove(bm, x * 2654435761u);
        uint64_t max = roaring_bitmap_is_empty(bm) ? 0 : roaring_bitmap_maximum(bm);
        uint32_t bound = (uint32_t)(x % (max + 2));
        roaring_bitmap_t *kept = codec_keep_from(bm, bound);
        CHECK(kept, "codec_keep_from failed");
        uint64_t below = bound ? roaring_bitmap_rank(bm, bound - 1) : 0;
        CHECK(roaring_bitmap_get_cardinality(kept) + below == roaring_bitmap_get_cardinality(bm),
              "keep_from(%" PRIu32 ") kept the wrong number of members", bound);
        CHECK(roaring_bitmap_is_empty(kept) || roaring_bitmap_minimum(kept) >= bound,
              "keep_from(%" PRIu32 ") kept a smaller member", bound);
        free(round_trip(bm, &len, "mutated"));
        free(round_trip(kept, &len, "kept"));
        roaring_bitmap_free(kept);
    }
    roaring_bitmap_free(bm);
    free(ref.iv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[160] = "";
    quiet_begin();
    bool member; /* any bytes at all: codec_contains reads nothing past the end (ASan) */
    (void)!codec_contains(data, size, size ? (uint32_t)data[size - 1] << 16 | data[0] : 0, &member);
    if (codec_validate(data, size, err, sizeof(err)))
        check_valid(data, size);
    else
        check_invalid(data, size, err);
    quiet_end("the codec");
    return 0;
}
