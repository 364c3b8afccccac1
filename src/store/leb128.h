/* leb128.h — the unsigned LEB128 varints of the stored encodings (the dense base of
 * codec_dense.c, the gaps header of codec_gaps.c, the directory of bucket.c): one
 * minimal reader, one writer and the length of a value's encoding. Each caller keeps its own bound and its own error wording. */
#ifndef BITMAPD_LEB128_H
#define BITMAPD_LEB128_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"

/* What leb128_read found. The bound on the value and the wording of each error
 * are the caller's (the dense base, the gaps header fields). */
enum leb128 {
    LEB128_OK,
    LEB128_TRUNCATED,   /* the input ended inside it */
    LEB128_NON_MINIMAL, /* a last byte of 0 after the first: another encoding is shorter */
    LEB128_TOO_LONG,    /* max bytes, every one with its continuation bit */
};

/* An unsigned LEB128 varint of at most max (<= 9) bytes at buf[*pos..len), minimal:
 * one encoding per value, so that equal bitmaps have equal bytes. *pos advances past
 * every byte read (so *pos - start is their number); *v is the value (< 2^(7 max))
 * when LEB128_OK. */
static inline enum leb128 leb128_read(const uint8_t *buf, size_t len, size_t *pos, int max, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < max; i++) {
        if (*pos >= len)
            return LEB128_TRUNCATED;
        uint8_t b = buf[(*pos)++];
        *v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (b & 0x80)
            continue;
        return i > 0 && b == 0 ? LEB128_NON_MINIMAL : LEB128_OK;
    }
    return LEB128_TOO_LONG;
}

/* Bytes of the minimal LEB128 varint of v. */
static inline size_t varint_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        n++;
    return n;
}

/* Writes the minimal LEB128 varint of v at p (varint_len(v) bytes); their number. */
static inline size_t leb128_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        p[n++] = (uint8_t)(0x80 | (v & 0x7F));
    p[n++] = (uint8_t)v;
    return n;
}

#endif
