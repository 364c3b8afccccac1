/* codec_gaps.h — the "gaps" encoding, inside the codec only (codec*.c; callers use codec.h).
 *
 * Layout (all varints minimal unsigned LEB128 of at most 5 bytes, < 2^32):
 *   B2                  tag
 *   varint base         the smallest value of the universe [base, base + span]
 *   varint span         base + span <= 2^32 - 1
 *   byte mode           bits 0..4: k (Rice parameter); bit 7: complement; 5, 6: zero
 *   varint n            listed values, n >= 1
 *   stream              per listed value v (ascending), with prev the value before it
 *                       (base - 1 for the first) and d = v - prev - 1: d >> k as that
 *                       many 0 bits and a 1 bit, then the k low bits of d, LSB first;
 *                       bits fill each byte from its least significant bit. Padding
 *                       bits of the last byte are zero and no byte follows.
 * Direct (bit 7 clear): the listed values are the members; the first is base and the
 * last base + span. Complement (bit 7 set): the members are [base, base + span] minus
 * the listed values, which all lie strictly inside; span < GAPS_COMPLEMENT_SPAN, so
 * that a few bytes never stand for more than 128 KiB of bits.
 * Golomb–Rice coding of the gaps takes about log2(1/p) + 2 bits per member at density
 * p: 5.3 bits at 10% where raw bits take 10 and a Roaring array 16. */
#ifndef BITMAPD_CODEC_GAPS_H
#define BITMAPD_CODEC_GAPS_H

#include <roaring/roaring.h>

#include "core/common.h"

#define GAPS_TAG 0xB2
#define GAPS_COMPLEMENT_SPAN ((uint32_t)1 << 20)

/* The encoder's choice for one bitmap: its size, mode and k. */
struct gaps_plan {
    size_t size;
    bool complement;
    unsigned k;
};

/* Checks buf[0..len) (buf[0] == GAPS_TAG) against every rule above; *card is the number
 * of members. On failure a one-line reason in err. */
bool gaps_check(const uint8_t *buf, size_t len, uint64_t *card, char *err, size_t errlen) WUR;

/* What checked gaps bytes hold: a direct value as its members (*vals, malloc'ed, *n of
 * them), a complement one as raw bits (*raw, malloc'ed, *nraw bytes, bit i of byte j
 * <=> member *base8 * 8 + 8j + i, first and last byte non-zero). False when memory
 * runs out. */
bool gaps_unpack(const uint8_t *buf, size_t len, uint32_t **vals, size_t *n, uint8_t **raw, size_t *nraw,
                 uint32_t *base8) WUR;

/* The smallest gaps encoding of bm (a view may borrow another bitmap's containers):
 * false for the empty bitmap, which has none. */
bool gaps_plan_of(const roaring_bitmap_t *bm, struct gaps_plan *p);

/* Writes that encoding into buf[0..p->size), false when it does not come out that long
 * (or memory runs out). Not validated here: codec.c does that. */
bool gaps_write(const roaring_bitmap_t *bm, const struct gaps_plan *p, uint8_t *buf) WUR;

#endif
