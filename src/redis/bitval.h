/* bitval.h — Redis 7 string-value semantics over a Roaring bitmap plus a byte length.
 *
 * A Redis string value is modelled as (bm, nbytes): bit i of the value is set iff
 * i is in bm, bit 0 being the most significant bit of byte 0 (Redis's order: byte
 * = offset >> 3, mask = 0x80 >> (offset & 7)). nbytes is the value's length,
 * always >= max(bm) / 8 + 1 when bm is non-empty, at most BV_MAX_BYTES. A missing
 * key is (empty bm, nbytes 0, exists=false); an existing empty string is (empty bm,
 * nbytes 0, exists=true).
 *
 * Every function costs time and memory proportional to the set bits it touches
 * or the bytes it is asked for, never to nbytes: a value of 2^29 bytes with one
 * bit set is handled in microseconds. None of them uses CRoaring's range/flip
 * functions (corrupting in 0.2.66).
 *
 * Replies that the RESP layer must produce itself (observed on redis 7.0.15):
 * - BITFIELD with OVERFLOW FAIL answers nil but still creates / zero-extends the key
 *   to the highest write offset of the whole command (see bv_field_end).
 * - BITFIELD SET obeys OVERFLOW too (see bv_field_set_ov).
 * - BITPOS on a missing key answers 0 for bit 0 and -1 for bit 1, whatever the range;
 *   on an existing empty string it answers -1 for both.
 */
#ifndef BITMAPD_BITVAL_H
#define BITMAPD_BITVAL_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/common.h"

/* Redis's proto-max-bulk-len default (512 MB): offsets are then uint32 bits. */
#define BV_MAX_BYTES 536870912ULL

/* Effective length: max(stored, max/8+1); stored < 0 means "no explicit length"
 * (then an empty bm has length 0). */
uint64_t bv_len(const roaring_bitmap_t *bm, int64_t stored_nbytes);

/* BITCOUNT key [start end [BYTE|BIT]]; ranged=false counts everything.
 * Redis rule: if start < 0 and end < 0 and start > end the answer is 0 (checked on
 * the raw arguments); otherwise negative indexes count from the end (of nbytes, or
 * of nbytes*8 bits when bit_unit), then both clamp to >= 0, end clamps to len-1,
 * and start > end (or len 0) answers 0. */
uint64_t bv_bitcount(const roaring_bitmap_t *bm, uint64_t nbytes, bool ranged, int64_t start,
                     int64_t end, bool bit_unit);

/* BITPOS key bit [start [end [BYTE|BIT]]]; exists=false for a missing key.
 * Returns the Redis reply (-1 when not found):
 * - missing key: 0 for bit 0, -1 for bit 1, whatever the range;
 * - no start: the whole value (an existing empty string answers -1 for both bits);
 * - start/end normalised like BITCOUNT but WITHOUT the "both negative and start >
 *   end" rule; end defaults to the last byte; start > end after clamping answers -1;
 * - bit 0 and no zero in range: without an explicit end the value is treated as
 *   padded with zeros on the right (answer (end+1)*8, i.e. nbytes*8 with no end),
 *   with an explicit end the answer is -1.
 * has_end and bit_unit are ignored when has_start is false. bit is 0 or 1 (caller
 * checked). */
int64_t bv_bitpos(const roaring_bitmap_t *bm, uint64_t nbytes, bool exists, int bit,
                  bool has_start, int64_t start, bool has_end, int64_t end, bool bit_unit);

/* GETRANGE key start end: fills *out (malloc'd, caller frees; NULL when *outlen is
 * 0) with Redis's answer: same normalisation as BITCOUNT in bytes (including "both
 * negative and start > end" → ""), empty value → "". Returns false (no allocation)
 * if the answer would exceed cap bytes, or on out of memory (then *outlen is the
 * answer's length, so the two can be told apart: *outlen > cap). */
bool bv_getrange(const roaring_bitmap_t *bm, uint64_t nbytes, int64_t start, int64_t end,
                 size_t cap, uint8_t **out, size_t *outlen) WUR;

/* SETRANGE key offset value (also SET = clear + setrange at 0, APPEND = setrange
 * at nbytes): overwrites bytes [offset, offset+len) with data, zero-padding, and
 * grows *nbytes to offset+len. Caller has checked offset+len <= BV_MAX_BYTES.
 * len 0 changes nothing (Redis neither creates nor pads the key then). false only
 * on out of memory; bm may then hold part of the new bytes, *nbytes is unchanged. */
bool bv_setrange(roaring_bitmap_t *bm, uint64_t *nbytes, uint64_t offset, const uint8_t *data,
                 size_t len) WUR;

/* A bitmap of the bits of a byte string (SET, import); caller frees with
 * roaring_bitmap_free(). NULL on out of memory. len <= BV_MAX_BYTES. */
roaring_bitmap_t *bv_from_bytes(const uint8_t *data, size_t len) WUR;

/* ---- BITFIELD ------------------------------------------------------------------ */

enum bv_overflow { BV_WRAP, BV_SAT, BV_FAIL };
struct bv_type {
    bool is_signed;
    unsigned bits;
}; /* i1..i64, u1..u63 */

/* Parses "i8", "u63"... with Redis's rules: a lowercase 'i' or 'u' (redis 7.0.15
 * rejects "I8"/"U8"), then a decimal integer in Redis's strict form (no sign, no
 * leading zero, no space), 1..64 for i and 1..63 for u. Like Redis, the number ends
 * at the first NUL byte. false for anything invalid (caller answers "-ERR Invalid
 * bitfield type. Use something like i16 u8. Note that u64 is not supported but i64
 * is."). */
bool bv_parse_type(const char *s, size_t len, struct bv_type *t) WUR;

/* Parses a bit offset "123" or "#3" (3 * t->bits) with Redis's strict integer
 * rules (no '+', no leading zero, no negative). false → "-ERR bit offset is not an
 * integer or out of range". As in redis 7.0.15 the offset must be below 2^32 and
 * the field may run past it (a GET reads zeros there; a caller refuses writes that
 * would need bits past 2^32-1). Stricter on one point: "#N" whose product
 * overflows is rejected (Redis wraps it around, undefined behaviour). */
bool bv_parse_offset(const char *s, size_t len, const struct bv_type *t,
                     uint64_t *bit_offset) WUR;

/* GET: the field at offset (bits beyond the value, and past bit 2^32-1, read as 0);
 * unsigned values are returned as int64 too (u63 fits). offset < 2^32. */
int64_t bv_field_get(const roaring_bitmap_t *bm, struct bv_type t, uint64_t offset);

/* SET with OVERFLOW WRAP (Redis's default): writes value truncated to t.bits
 * (two's complement), grows *nbytes to cover the field, returns the old value in
 * *old. false only on out of memory. */
bool bv_field_set(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                  int64_t value, int64_t *old) WUR;

/* SET under any OVERFLOW policy, as Redis does: a value outside the type's range
 * wraps (WRAP), saturates (SAT) or is not written (FAIL: returns false, *old still
 * gets the old value, nothing changes; Redis replies nil). Redis's SAT quirks are
 * kept: for unsigned types a negative value counts as a huge unsigned one and
 * saturates to the MAXIMUM (SET u8 -5 → 255); for signed types narrower than 64
 * bits a value below max - INT64_MAX saturates to the MAXIMUM too (SET i8
 * INT64_MIN → 127). */
bool bv_field_set_ov(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                     int64_t value, enum bv_overflow ov, int64_t *old) WUR;

/* INCRBY with overflow policy: the exact sum old + incr is checked against the
 * type's range; WRAP keeps it modulo 2^bits, SAT clamps to min/max, FAIL returns
 * false and changes nothing (Redis replies nil). *result gets the new value.
 * Grows *nbytes like SET. Also false (nothing changed) on out of memory, which
 * cannot happen with CRoaring 0.2.66 (it does not report allocation failures). */
bool bv_field_incrby(roaring_bitmap_t *bm, uint64_t *nbytes, struct bv_type t, uint64_t offset,
                     int64_t incr, enum bv_overflow ov, int64_t *result) WUR;

/* The length in bytes a write of a field at offset needs: (offset + bits - 1)/8 + 1.
 * Redis grows the key to the largest of these over all write operations of the
 * BITFIELD command BEFORE running them, even those that then FAIL. */
uint64_t bv_field_end(struct bv_type t, uint64_t offset);

/* ---- BITOP --------------------------------------------------------------------- */

/* Result of op over n sources (missing source = empty bm, len 0); the caller frees
 * it with roaring_bitmap_free(). *out_len = max of lens (Redis's reply; 0 means Redis
 * deletes the destination). NOT takes exactly one source and complements within its
 * length. DIFF = X AND NOT(Y1 OR Y2 ...); DIFF1 = NOT X AND (Y1 OR ...); ANDOR = X AND
 * (Y1 OR ...); ONE = bits set in exactly one source (Redis 8.2; those four need n >= 2
 * there, here n == 1 gives X, empty, empty, X). AND with any shorter source is zero
 * beyond that source's length. Returns NULL (with *out_len 0) when n == 0, when NOT
 * has n != 1, or on out of memory. */
enum bv_op { BV_AND, BV_OR, BV_XOR, BV_NOT, BV_DIFF, BV_DIFF1, BV_ANDOR, BV_ONE };
roaring_bitmap_t *bv_bitop(enum bv_op op, const roaring_bitmap_t *const *srcs,
                           const uint64_t *lens, size_t n, uint64_t *out_len) WUR;

#endif
