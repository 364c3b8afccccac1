/* codec_patch.c — encodes of a bitmap that changed only in a few containers since
 * its last encode: only those containers are run-optimized again, and a big value
 * written a few bits at a time has its old bytes copied and those containers'
 * bytes rewritten (and checked) instead of a whole encode and validation; and the
 * members such a patch changed, for the head row of a chunked key (chunks.h). */
#include <stdlib.h>
#include <string.h>

#include "store/codec_internal.h"

/* Run-optimizes container i of ra (not shared), as roaring_bitmap_run_optimize does. */
static void run_optimize_at(roaring_array_t *ra, int32_t i)
{
    uint8_t before, after;
    void *c = ra_get_container_at_index(ra, (uint16_t)i, &before);
    void *c1 = convert_run_optimize(c, before, &after); /* frees c when it converts */
    ra_set_container_at_index(ra, i, c1, after);
}

bool run_optimize_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed)
{
    roaring_array_t *ra = &bm->high_low_container;
    const roaring_array_t *ca = &changed->high_low_container;
    for (int32_t j = 0; j < ca->size; j++) {
        int32_t i = ra_get_index(ra, ca->keys[j]);
        if (i >= 0 && ra->typecodes[i] == SHARED_CONTAINER_TYPE_CODE) return false;
    }
    for (int32_t j = 0; j < ca->size; j++) {
        int32_t i = ra_get_index(ra, ca->keys[j]);
        if (i >= 0) run_optimize_at(ra, i); /* else emptied: gone */
    }
    return true;
}

bool codec_encode_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t **out, size_t *outlen)
{
    if (!run_optimize_changed(bm, changed)) return codec_encode(bm, out, outlen);
    return encode_optimized_changed(bm, changed, out, outlen);
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

/* Whether every container of a portable old value with a key in lo .. hi is a bitset
 * (what patch_portable needs of old), read off its header alone: a sparse value (a
 * DAU key's array containers) written all over fails here, before the run-optimizing of
 * every container of the range, which cost more than the encode it was meant to spare. */
static bool portable_bitsets(const uint8_t *old, size_t oldlen, uint32_t lo, uint32_t hi)
{
    char err[8];
    struct reader r = {old, oldlen, 0, err, sizeof(err)};
    struct header h;
    if (!read_header(&r, &h)) return false;
    for (uint32_t k = 0; k < h.count; k++)
        if (key_of(&h, k) >= lo && key_of(&h, k) <= hi && (is_run(&h, k) || card_of(&h, k) <= FMT_MAX_ARRAY_CARD))
            return false;
    return true;
}

bool codec_encode_patch_into(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard, uint32_t lo,
                             uint32_t hi, uint8_t *buf)
{
    if (lo > hi || hi > UINT16_MAX) return false;
    if (oldlen >= 1 && old[0] != DENSE_TAG && !portable_bitsets(old, oldlen, lo, hi)) return false;
    if (!run_optimize_keys(bm, lo, hi) || roaring_bitmap_is_empty(bm)) return false;
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
