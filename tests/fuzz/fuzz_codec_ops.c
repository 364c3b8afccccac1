/* fuzz_codec_ops.c — libFuzzer target for the codec's encode/decode round trip
 * after the mutations the service applies. The input is a small program: its first
 * byte picks a window of 2^17 offsets (at 0, in the middle, or at the top of the
 * 32-bit range), then each operation reads an opcode and its operands. The bitmap is
 * mutated with the CRoaring calls bitmapd uses (add, remove, add_many, remove_many,
 * or/andnot/xor/and with a from_range bitmap, NOT inside the window as BITOP NOT
 * does, copy, run_optimize, codec_keep_from, clear), and the same operations are
 * applied to a plain bitset model of the window.
 *
 * Properties: after every operation the bitmap has the model's cardinality; after an
 * explicit round-trip operation and at the end, the members equal the model's value
 * by value, and codec_encode and codec_encode_roaring give bytes that validate,
 * follow the documented choice (dense only when strictly smaller) and decode to the
 * same set; nothing is printed on stderr. Range functions known to be broken in
 * CRoaring 0.2.66 (add_range, remove_range, flip) are not used, as bitmapd avoids
 * them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "fuzz_check.h"

enum { WBITS = 17, WSIZE = 1 << WBITS, MAX_OPS = 48 };

static uint64_t model[WSIZE / 64];
static uint32_t wbase;

FUZZ_NOCOV static void model_set(uint32_t off) { model[off / 64] |= (uint64_t)1 << (off % 64); }
FUZZ_NOCOV static void model_clr(uint32_t off) { model[off / 64] &= ~((uint64_t)1 << (off % 64)); }

/* model = model OP other: 0 or, 1 andnot, 2 xor, 3 and, 4 not (other unused) */
static uint64_t other[WSIZE / 64];

FUZZ_NOCOV static void model_combine(int op)
{
    for (size_t i = 0; i < WSIZE / 64; i++)
        model[i] = op == 0 ? model[i] | other[i]
                 : op == 1 ? model[i] & ~other[i]
                 : op == 2 ? model[i] ^ other[i]
                 : op == 3 ? model[i] & other[i]
                           : ~model[i];
}

/* Sets (or clears) the window offsets of vals[0..k). */
FUZZ_NOCOV static void model_many(const uint32_t *vals, uint32_t k, bool set)
{
    for (uint32_t i = 0; i < k; i++) set ? model_set(vals[i] - wbase) : model_clr(vals[i] - wbase);
}

FUZZ_NOCOV static void model_clear_below(uint32_t off)
{
    for (uint32_t v = 0; v < off; v++) model_clr(v);
}

FUZZ_NOCOV static uint64_t model_card(void)
{
    uint64_t n = 0;
    for (size_t i = 0; i < WSIZE / 64; i++) n += (uint64_t)__builtin_popcountll(model[i]);
    return n;
}

/* An offset inside the window, from three input bytes. */
static uint32_t read_off(struct fuzz_in *in)
{
    uint32_t v = fuzz_u16(in);
    return (v | fuzz_u8(in) << 16) & (WSIZE - 1);
}

/* ---- stderr capture (CRoaring reports bad input with fprintf(stderr, ...)) ---------- */

static FILE *quiet_stream, *real_stderr;
static char *quiet_buf;
static size_t quiet_len;

static void quiet_begin(void)
{
    if (!quiet_stream && !(quiet_stream = open_memstream(&quiet_buf, &quiet_len))) abort();
    real_stderr = stderr;
    stderr = quiet_stream;
}

static void quiet_end(void)
{
    fflush(quiet_stream);
    long written = ftell(quiet_stream);
    stderr = real_stderr;
    CHECK(written == 0, "printed on stderr: %.*s", (int)quiet_len, quiet_buf);
}

/* ---- checks ------------------------------------------------------------------------ */

FUZZ_NOCOV static void check_members(const roaring_bitmap_t *bm, const char *when)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm), mcard = model_card();
    CHECK(card == mcard, "%s: %" PRIu64 " members, model %" PRIu64, when, card, mcard);
    uint32_t *vals = malloc((card ? card : 1) * sizeof(*vals));
    if (!vals) abort();
    roaring_bitmap_to_uint32_array(bm, vals);
    size_t at = 0;
    for (uint32_t w = 0; w < WSIZE / 64; w++)
        for (uint64_t bits = model[w]; bits; bits &= bits - 1, at++) {
            uint32_t off = 64 * w + (uint32_t)__builtin_ctzll(bits);
            CHECK(vals[at] == wbase + off, "%s: member %zu is %" PRIu32 ", model %" PRIu32, when, at,
                  vals[at], wbase + off);
        }
    free(vals);
}

static roaring_bitmap_t *decode_own(const uint8_t *buf, size_t len, const char *what)
{
    char err[160] = "";
    CHECK(codec_validate(buf, len, err, sizeof(err)), "%s: own encoding rejected: %s", what, err);
    roaring_bitmap_t *back = codec_decode(buf, len, err, sizeof(err));
    CHECK(back, "%s: own encoding does not decode: %s", what, err);
    return back;
}

/* Both encodings must come back as bm; returns the codec_encode decoding. */
static roaring_bitmap_t *round_trip(roaring_bitmap_t *bm)
{
    uint8_t *out, *rout;
    size_t len, rlen;
    CHECK(codec_encode(bm, &out, &len), "codec_encode failed");
    uint64_t rsize = roaring_bitmap_portable_size_in_bytes(bm), dsize = 2;
    if (!roaring_bitmap_is_empty(bm)) {
        uint32_t first = roaring_bitmap_minimum(bm) / 8, last = roaring_bitmap_maximum(bm) / 8;
        dsize = 3 + (uint64_t)(last - first);
        for (uint32_t v = first; v >= 0x80; v >>= 7) dsize++;
    }
    bool dense = out[0] == 0xB1;
    CHECK(dense == (dsize < rsize) && len == (dense ? dsize : rsize),
          "%zu bytes chosen (%s); dense %" PRIu64 ", roaring %" PRIu64, len, dense ? "dense" : "roaring",
          dsize, rsize);
    roaring_bitmap_t *back = decode_own(out, len, "codec_encode");
    CHECK(roaring_bitmap_equals(back, bm), "decode(encode(bm)) != bm");
    free(out);

    CHECK(codec_encode_roaring(bm, &rout, &rlen), "codec_encode_roaring failed");
    CHECK(rlen == rsize, "roaring encoding of %zu bytes, expected %" PRIu64, rlen, rsize);
    roaring_bitmap_t *rback = decode_own(rout, rlen, "codec_encode_roaring");
    CHECK(roaring_bitmap_equals(rback, bm), "decode(encode_roaring(bm)) != bm");
    roaring_bitmap_free(rback);
    free(rout);
    return back;
}

/* ---- operations -------------------------------------------------------------------- */

/* [lo, hi) in the window with a step, as roaring_bitmap_from_range makes it. */
struct range {
    uint32_t lo, hi, step;
};

static struct range read_range(struct fuzz_in *in)
{
    struct range r;
    r.lo = read_off(in);
    r.hi = r.lo + 1 + (fuzz_u16(in) << (fuzz_u8(in) % 2)); /* up to ~2^17 wide */
    if (r.hi > WSIZE) r.hi = WSIZE;
    /* Steps of 65536 or more are left out: from_range then counts in uint32 and
     * wraps past 2^32 - 1 in 0.2.66 (bitmapd only uses step 1). */
    unsigned s = fuzz_u8(in);
    r.step = s < 200 ? 1 : s - 198;
    return r;
}

static roaring_bitmap_t *from_range(const struct range *r)
{
    roaring_bitmap_t *x = roaring_bitmap_from_range((uint64_t)wbase + r->lo, (uint64_t)wbase + r->hi, r->step);
    CHECK(x, "from_range(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") failed", r->lo, r->hi, r->step);
    return x;
}

FUZZ_NOCOV static void range_to_other(const struct range *r)
{
    memset(other, 0, sizeof(other));
    for (uint64_t v = r->lo; v < r->hi; v += r->step) other[v / 64] |= (uint64_t)1 << (v % 64);
}

static roaring_bitmap_t *apply(roaring_bitmap_t *bm, unsigned op, struct fuzz_in *in)
{
    switch (op) {
    case 0: { /* SETBIT 1 */
        uint32_t off = read_off(in);
        roaring_bitmap_add(bm, wbase + off);
        model_set(off);
        break;
    }
    case 1: { /* SETBIT 0 */
        uint32_t off = read_off(in);
        roaring_bitmap_remove(bm, wbase + off);
        model_clr(off);
        break;
    }
    case 2:   /* add_many / remove_many of a strided run */
    case 3: {
        uint32_t off = read_off(in), n = 1 + fuzz_u16(in), step = 1 + fuzz_u8(in) % 8, k = 0;
        uint32_t *vals = malloc(n * sizeof(*vals));
        if (!vals) abort();
        for (uint64_t v = off; v < WSIZE && k < n; v += step) vals[k++] = wbase + (uint32_t)v;
        if (op == 2)
            roaring_bitmap_add_many(bm, k, vals);
        else
            roaring_bitmap_remove_many(bm, k, vals);
        model_many(vals, k, op == 2);
        free(vals);
        break;
    }
    case 4: /* or, andnot, xor, and with a from_range bitmap (run containers) */
    case 5:
    case 6:
    case 7: {
        struct range r = read_range(in);
        roaring_bitmap_t *x = from_range(&r);
        range_to_other(&r);
        model_combine(op - 4);
        if (op == 4) roaring_bitmap_or_inplace(bm, x);
        if (op == 5) roaring_bitmap_andnot_inplace(bm, x);
        if (op == 6) roaring_bitmap_xor_inplace(bm, x);
        if (op == 7) roaring_bitmap_and_inplace(bm, x);
        roaring_bitmap_free(x);
        break;
    }
    case 8: { /* NOT over the window, as BITOP NOT: from_range(all) andnot src */
        struct range all = {0, WSIZE, 1};
        roaring_bitmap_t *x = from_range(&all);
        roaring_bitmap_andnot_inplace(x, bm);
        roaring_bitmap_free(bm);
        bm = x;
        model_combine(4);
        break;
    }
    case 9: { /* non-inplace set operations, as the read paths use them */
        struct range r = read_range(in);
        roaring_bitmap_t *x = from_range(&r), *y;
        range_to_other(&r);
        unsigned which = fuzz_u8(in) % 3;
        y = which == 0 ? roaring_bitmap_or(bm, x) : which == 1 ? roaring_bitmap_and(bm, x)
                                                               : roaring_bitmap_andnot(bm, x);
        CHECK(y, "set operation failed");
        model_combine(which == 0 ? 0 : which == 1 ? 3 : 1);
        roaring_bitmap_free(x);
        roaring_bitmap_free(bm);
        bm = y;
        break;
    }
    case 10: /* run_optimize, as codec_encode does */
        roaring_bitmap_run_optimize(bm);
        break;
    case 11: { /* codec_keep_from (history drop) */
        uint32_t off = read_off(in);
        roaring_bitmap_t *k = codec_keep_from(bm, wbase + off);
        CHECK(k, "codec_keep_from failed");
        roaring_bitmap_free(bm);
        bm = k;
        model_clear_below(off);
        break;
    }
    case 12: { /* store and load: continue with the decoded bitmap */
        check_members(bm, "before a round trip");
        roaring_bitmap_t *back = round_trip(bm);
        roaring_bitmap_free(bm);
        bm = back;
        break;
    }
    case 13: { /* copy */
        roaring_bitmap_t *c = roaring_bitmap_copy(bm);
        CHECK(c, "copy failed");
        roaring_bitmap_free(bm);
        bm = c;
        break;
    }
    case 14: /* DEL, then reuse */
        roaring_bitmap_clear(bm);
        memset(model, 0, sizeof(model));
        break;
    }
    return bm;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t bases[] = {0, 0x7FFF8000u, (uint32_t)(((uint64_t)1 << 32) - WSIZE), 123456789u};
    struct fuzz_in in = {data, size, 0};
    wbase = bases[fuzz_u8(&in) % 4];
    memset(model, 0, sizeof(model));
    quiet_begin();
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (int n = 0; n < MAX_OPS && !fuzz_done(&in); n++) {
        unsigned op = fuzz_u8(&in) % 15;
        bm = apply(bm, op, &in);
        uint64_t card = roaring_bitmap_get_cardinality(bm), mcard = model_card();
        CHECK(card == mcard, "after op %u (#%d): %" PRIu64 " members, model %" PRIu64, op, n, card, mcard);
    }
    check_members(bm, "at the end");
    roaring_bitmap_t *back = round_trip(bm);
    check_members(back, "decoded at the end");
    roaring_bitmap_free(back);
    roaring_bitmap_free(bm);
    quiet_end();
    return 0;
}
