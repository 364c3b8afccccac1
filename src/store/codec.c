/* codec.c — the only code that turns stored bytes into CRoaring bitmaps and back.
 * It reads and writes three encodings (CRoaring portable, in codec_portable.c;
 * "dense" raw bits when that is smaller, in codec_dense.c; and for chunk rows and
 * flips "gaps", in codec_gaps.c), validates each completely, because CRoaring 0.2.66 accepts
 * crafted bytes that later crash it, and checks every encoding before it is stored.
 * Here: the choice among them, decode, encode, one-bit lookups and the row checksum;
 * encodes of a bitmap changed in a few containers are in codec_patch.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec_gaps.h"
#include "store/codec_internal.h"

bool reader_fail(struct reader *r, const char *fmt, ...)
{
    if (r->err && r->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    return false;
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
        return reader_fail(&r, "too large: %zu bytes", len);
    if (!buf && len > 0)
        return reader_fail(&r, "no buffer");
    if (len > 0 && buf[0] != DENSE_TAG && buf[0] != GAPS_TAG && buf[0] != (FMT_COOKIE_NO_RUN & 0xFF) &&
        buf[0] != (FMT_COOKIE_RUN & 0xFF))
        return reader_fail(&r, "bad cookie: first byte 0x%02x is neither Roaring (0x3a, 0x3b), dense (0xb1) nor gaps (0xb2)",
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
static bool encode_into(const roaring_bitmap_t *bm, bool dense, size_t size, const roaring_bitmap_t *changed,
                        uint8_t *buf)
{
    if (size > CODEC_MAX_BYTES)
        return false;
    if (dense)
        memset(buf, 0, size);
    bool written = dense ? write_dense(bm, buf, size)
                         : roaring_bitmap_portable_serialize(bm, (char *)buf) == size;
    struct parsed p = {.is_dense = dense};
    struct reader r = {.buf = buf, .len = size};
    bool valid = written && (dense || !changed ? validate(buf, size, &p, NULL, 0)
                                               : size > 0 && validate_roaring_keys(&r, &p.card, changed));
    return valid && p.is_dense == dense && p.card == roaring_bitmap_get_cardinality(bm);
}

static bool encode_as(roaring_bitmap_t *bm, bool dense, size_t size, const roaring_bitmap_t *changed, uint8_t **out,
                      size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (size > CODEC_MAX_BYTES)
        return false;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return false;
    if (!encode_into(bm, dense, size, changed, buf)) {
        free(buf);
        return false;
    }
    *out = buf;
    *outlen = size;
    return true;
}

size_t codec_encode_prepare(roaring_bitmap_t *bm, const roaring_bitmap_t *changed)
{
    if (!changed || !run_optimize_changed(bm, changed))
        roaring_bitmap_run_optimize(bm);
    size_t roaring = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size(bm);
    size_t size = dense < roaring ? dense : roaring;
    return size > CODEC_MAX_BYTES ? 0 : size;
}

bool codec_encode_into(const roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t *buf, size_t size)
{
    size_t roaring = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size(bm);
    bool as_dense = dense < roaring;
    if (size != (as_dense ? dense : roaring))
        return false;
    return encode_into(bm, as_dense, size, as_dense ? NULL : changed, buf);
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
bool encode_optimized_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t **out, size_t *outlen)
{
    size_t roaring = roaring_bitmap_portable_size_in_bytes(bm), dense = dense_size(bm);
    return dense < roaring ? encode_as(bm, true, dense, NULL, out, outlen)
                           : encode_as(bm, false, roaring, changed, out, outlen);
}

bool encode_optimized(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    return encode_optimized_changed(bm, NULL, out, outlen);
}

bool codec_encode(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    roaring_bitmap_run_optimize(bm);
    return encode_optimized(bm, out, outlen);
}

bool codec_encode_roaring(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen)
{
    roaring_bitmap_run_optimize(bm);
    return encode_as(bm, false, roaring_bitmap_portable_size_in_bytes(bm), NULL, out, outlen);
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
