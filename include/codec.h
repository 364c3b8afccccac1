/* codec.h — the only door between stored bytes and CRoaring.
 *
 * Stored bitmaps use the CRoaring *portable* serialization. CRoaring 0.2.66 trusts
 * crafted input (unsorted arrays, wrong cardinalities, empty run containers) and
 * has buggy range functions, so every byte string is validated here before
 * CRoaring sees it, and every serialization is validated again before it is stored.
 */
#ifndef BITMAPD_CODEC_H
#define BITMAPD_CODEC_H

#include <roaring/roaring.h>

#include "common.h"

/* Largest portable serialization we accept: 65536 bitset containers, their
 * key/cardinality pairs and offsets, the run-flag bytes and the cookie. */
#define CODEC_MAX_BYTES ((size_t)65536 * 8192 + 65536 * 8 + 8192 + 16)

/* Checks that buf[0..len) is exactly one well-formed portable serialization:
 * cookie, container count, keys strictly increasing, array containers strictly
 * increasing with the declared cardinality (<= 4096), bitset containers whose
 * popcount equals the declared cardinality (> 4096), run containers non-empty,
 * sorted, non-overlapping, inside 0..65535 and summing to the declared cardinality,
 * offsets (when present) pointing where the containers really are, and no byte
 * left over. On failure writes a one-line reason into err (if errlen > 0). */
bool codec_validate(const uint8_t *buf, size_t len, char *err, size_t errlen) WUR;

/* Validates, then deserializes. Returns NULL (and the reason in err) on invalid
 * input. Caller frees the result with roaring_bitmap_free(). An empty input
 * (len == 0) is NOT valid: an empty bitmap has an 8-byte serialization. */
roaring_bitmap_t *codec_decode(const uint8_t *buf, size_t len, char *err, size_t errlen) WUR;

/* Run-optimizes bm (in place), serializes it in portable format, and validates the
 * result before returning it. On success *out is malloc'ed (caller frees with free())
 * and *outlen is its length. Returns false on allocation failure or if CRoaring
 * produced bytes that do not validate (the caller must then not store them). */
bool codec_encode(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen) WUR;

/* CRC-32C (Castagnoli) of buf, as stored in the row's checksum column. */
uint32_t codec_crc32c(const uint8_t *buf, size_t len);

/* Removes every value < bound from bm without the buggy range functions of 0.2.66.
 * Returns a new bitmap (caller frees) or NULL on allocation failure; bm is untouched. */
roaring_bitmap_t *codec_keep_from(const roaring_bitmap_t *bm, uint32_t bound) WUR;

#endif
