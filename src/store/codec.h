/* codec.h — the only door between stored bytes and CRoaring.
 *
 * A stored bitmap is in one of three encodings, told apart by its first byte:
 *  - "roaring": the CRoaring *portable* serialization (first byte 0x3A or 0x3B),
 *    readable by every Roaring implementation; the default.
 *  - "dense": 0xB1, then base / 8 as a minimal unsigned LEB128 varint (at most
 *    5 bytes, < 2^29), then raw bytes where bit i (LSB first) of byte j is set
 *    iff base + 8 * j + i is a member. base is the smallest member rounded down
 *    to a multiple of 8; the first and the last raw byte are non-zero and
 *    base + 8 * nbytes <= 2^32, so each bitmap has one encoding. The empty
 *    bitmap is B1 00.
 *  - "gaps": 0xB2, Golomb-Rice coded gaps (below, and codec_gaps.h); chunk rows and
 *    a chunked head's flips only.
 * codec_encode() writes dense only when it is strictly smaller than the
 * run-optimized portable serialization (small dense sets: a year of daily
 * check-ins, a group's read receipts), so sparse bitmaps stay Roaring.
 *
 * CRoaring 0.2.66 trusts crafted input (unsorted arrays, wrong cardinalities,
 * empty run containers) and has buggy range functions, so every byte string is
 * validated here before CRoaring sees it, and every encoding is validated again
 * before it is stored.
 */
#ifndef BITMAPD_CODEC_H
#define BITMAPD_CODEC_H

#include <roaring/roaring.h>

#include "core/common.h"

/* Largest encoding we accept: a portable serialization of 65536 bitset containers,
 * their key/cardinality pairs and offsets, the run-flag bytes and the cookie. A
 * dense encoding is never longer (at most 1 + 5 + 2^29 bytes). */
#define CODEC_MAX_BYTES ((size_t)65536 * 8192 + 65536 * 8 + 8192 + 16)

/* Checks that buf[0..len) is exactly one well-formed encoding. Portable: cookie,
 * container count, keys strictly increasing, array containers strictly
 * increasing with the declared cardinality (<= 4096), bitset containers whose
 * popcount equals the declared cardinality (> 4096), run containers non-empty,
 * sorted, non-overlapping, inside 0..65535 and summing to the declared cardinality,
 * offsets (when present) pointing where the containers really are, and no byte
 * left over. Dense: every canonical rule above (minimal varint, base < 2^32,
 * non-zero first and last raw byte, nothing past 2^32 - 1, empty = B1 00).
 * On failure writes a one-line reason into err (if errlen > 0). */
bool codec_validate(const uint8_t *buf, size_t len, char *err, size_t errlen) WUR;

/* Validates, then deserializes either encoding. Returns NULL (and the reason in
 * err) on invalid input. Caller frees the result with roaring_bitmap_free(). An
 * empty input (len == 0) is NOT valid: an empty bitmap is B1 00 (or the 8-byte
 * portable serialization). Dense input of n bytes decodes in O(n) time with at
 * most ~2 MiB of scratch memory, within 2x the time of a portable deserialization. */
roaring_bitmap_t *codec_decode(const uint8_t *buf, size_t len, char *err, size_t errlen) WUR;

/* Run-optimizes bm (in place), writes it in the smaller encoding (dense only when
 * strictly smaller than portable), and validates the result before returning it.
 * On success *out is malloc'ed (caller frees with free()) and *outlen is its
 * length. Returns false on allocation failure or if the bytes produced do not
 * validate or disagree with bm's cardinality (the caller must then not store them). */
bool codec_encode(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen) WUR;
/* The same in two steps, into the caller's buffer (a cache blob: no copy of a big
 * value): codec_encode_prepare run-optimizes bm as codec_encode does (only the
 * containers of changed, when not NULL, as codec_encode_changed does) and answers the
 * length of the encoding (0: too large); codec_encode_into writes it into buf, of that
 * length, and validates it as they do (false: buf holds garbage, not to be stored). */
size_t codec_encode_prepare(roaring_bitmap_t *bm, const roaring_bitmap_t *changed) WUR;
bool codec_encode_into(const roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t *buf, size_t size) WUR;

/* The encoding codec_encode would produce for bm, made from old — what codec_encode
 * (or this) wrote for an earlier state of bm, with oldcard members — when bm has
 * changed since only in its containers with keys lo .. hi (16-bit keys: members
 * lo * 65536 .. hi * 65536 + 65535), and every other container is still run-optimized
 * as that encode left it. Run-optimizes those containers (not when old is portable and
 * one of them is not a bitset there: it answers false first); when the encoding is dense
 * and keeps its base and length, copies old and rewrites only their bytes, checking
 * that they hold exactly those containers' members and that the members outside them
 * plus these are bm's cardinality. When it is portable with the same containers, and
 * those of keys lo .. hi are bitsets before and after, copies old and rewrites their
 * cardinalities and bitsets, with the same checks. False otherwise (nothing written: the caller then
 * uses codec_encode). For a big bitmap written a few bits at a time this costs a copy
 * of old instead of a whole encode and validation. */
bool codec_encode_patch(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard, uint32_t lo,
                        uint32_t hi, uint8_t **out, size_t *outlen) WUR;
/* The same, into buf (oldlen bytes: a patched encoding is as long as old), which holds
 * garbage when it answers false. */
bool codec_encode_patch_into(roaring_bitmap_t *bm, const uint8_t *old, size_t oldlen, uint64_t oldcard, uint32_t lo,
                             uint32_t hi, uint8_t *buf) WUR;

/* The members in which now differs from old (their symmetric difference) within
 * containers lo .. hi, for old and what codec_encode_patch made of it (two dense
 * encodings of one length and base, or two portable ones with the same containers,
 * those of lo .. hi bitsets), or NULL (another shape, or out of memory). A chunked
 * key's write with a patched encoding stores just these (the head's flips, chunks.h). */
roaring_bitmap_t *codec_patch_changes(const uint8_t *old, size_t oldlen, const uint8_t *now, size_t len,
                                      uint32_t lo, uint32_t hi) WUR;

/* codec_encode for a bm that has changed, since codec_encode (or the patch) last left
 * it run-optimized, only in the members of changed: only the containers holding them
 * are run-optimized again, and only they are checked in the result besides the header
 * and every container's place and length (the encoding is the same; for a big sparse
 * value the run count and the check of every array were most of a write's work). The
 * other containers must be as a checked encoding or decode left them. */
bool codec_encode_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t **out,
                          size_t *outlen) WUR;

/* As codec_encode, but always the portable serialization, for readers that only
 * know Roaring (other Roaring libraries, pg_roaringbitmap, exports). */
bool codec_encode_roaring(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen) WUR;

/* The length codec_encode would produce for bm, without producing it. Run-optimizes
 * bm in place, as codec_encode does. */
size_t codec_encoded_size(roaring_bitmap_t *bm);

/* The length of bm's dense encoding (from its minimum and maximum only). bm may be a
 * view borrowing another bitmap's containers. */
size_t codec_dense_size(const roaring_bitmap_t *bm);

/* Writes the dense encoding of bm into buf[0..size), size = codec_dense_size(bm),
 * and validates what it wrote (the encoding's rules, and a cardinality equal to
 * bm's); false if it does not come out so. For the chunk rows, whose buffer the
 * caller lays out. */
bool codec_write_dense(const roaring_bitmap_t *bm, uint8_t *buf, size_t size) WUR;

/* The "gaps" encoding (0xB2, layout in codec_gaps.h): the members, or the non-members
 * between the smallest and the largest, as Golomb-Rice coded gaps; about log2(1/p) + 2
 * bits per member at density p. Chunk rows take it where it is smaller than both
 * others (a chunk 10% or 90% full: about half its raw bits), and a chunked head's flips
 * where they are scattered (store_chunks.c); codec_encode never writes it, so a one-row
 * value is never in it. Every function here reads it. */
struct codec_gaps {
    size_t size; /* bytes */
    bool complement;
    unsigned k;
};
/* The smallest gaps encoding of bm (may be a view): false for the empty bitmap. One pass
 * over the members. */
bool codec_gaps_plan(const roaring_bitmap_t *bm, struct codec_gaps *g) WUR;
/* Writes that encoding into buf[0..g->size) and validates what it wrote (the rules, and
 * bm's cardinality); false if it does not come out so. */
bool codec_write_gaps(const roaring_bitmap_t *bm, const struct codec_gaps *g, uint8_t *buf) WUR;

/* Is v a member of the encoded bitmap buf[0..len)? Reads the header and the one
 * container (or raw byte) that can hold v, without decoding the rest: for reads of one
 * bit of a cached big value, whose bytes were checked when they were cached. Every
 * read is bounds-checked, but the encoding is not validated whole: false when what it
 * reads is malformed (the caller then decodes, which reports why). */
bool codec_contains(const uint8_t *buf, size_t len, uint32_t v, bool *member) WUR;

/* "roaring", "dense" or "gaps" by the leading bytes (a portable cookie, or a tag),
 * NULL for neither. Does not validate: use codec_validate for that. */
const char *codec_encoding_name(const uint8_t *buf, size_t len);

/* CRC-32C (Castagnoli) of buf, as stored in the row's checksum column. */
uint32_t codec_crc32c(const uint8_t *buf, size_t len);
/* The CRC-32C of A followed by buf, given crc = the CRC-32C of A (0 for nothing). */
uint32_t codec_crc32c_extend(uint32_t crc, const uint8_t *buf, size_t len);

/* Removes every value < bound from bm without the buggy range functions of 0.2.66.
 * Returns a new bitmap (caller frees) or NULL on allocation failure; bm is untouched. */
roaring_bitmap_t *codec_keep_from(const roaring_bitmap_t *bm, uint32_t bound) WUR;

#endif
