/* codec_internal.h — what the files of the codec share: codec.c (validation of every
 * encoding, decode, the encode choice, the checksum), codec_portable.c (the CRoaring
 * portable format), codec_dense.c (the dense raw bits), codec_patch.c (encodes of a
 * bitmap changed in a few containers) and, for the varint helpers, codec_gaps.c (the
 * gaps encoding, codec_gaps.h). Private to them; everything else uses codec.h. The
 * names are those the functions had as statics of one codec.c, so that the split
 * shows as a move. */
#ifndef BITMAPD_CODEC_INTERNAL_H
#define BITMAPD_CODEC_INTERNAL_H

#include "store/codec.h"
#include "store/leb128.h"

/* Constants of the portable format (RoaringFormatSpec). */
enum {
    FMT_COOKIE_NO_RUN = 12346,  /* followed by a uint32 container count, no run containers */
    FMT_COOKIE_RUN = 12347,     /* low 16 bits; high 16 bits hold count - 1 */
    FMT_MAX_CONTAINERS = 65536, /* one container per 16-bit key */
    FMT_MAX_ARRAY_CARD = 4096,  /* above this a non-run container is a bitset */
    FMT_BITSET_BYTES = 8192,    /* 65536 bits */
    FMT_OFFSET_THRESHOLD = 4,   /* with a run cookie, offsets exist only from 4 containers */
};

/* The dense encoding's tag (layout in codec.h): never the first byte of a portable
 * serialization (0x3A, 0x3B). */
enum { DENSE_TAG = 0xB1 };

/* Values are copied out of CRoaring iterators this many at a time. */
enum { ITER_CHUNK = 4096 };

/* A bounded cursor over the input. Every read checks the remaining length first,
 * so the validator never reads past len. Invariant: pos <= len. */
struct reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    char *err;
    size_t errlen;
};

/* What the header says; the pointers point into the input. */
struct header {
    uint32_t count;
    const uint8_t *run_flags; /* NULL with FMT_COOKIE_NO_RUN */
    const uint8_t *keycards;  /* count pairs of (key, cardinality - 1) */
    const uint8_t *offsets;   /* count uint32 positions, or NULL when absent */
};

/* A validated dense encoding; raw points into the input. */
struct dense {
    uint32_t base;      /* first member rounded down to a multiple of 8 */
    const uint8_t *raw; /* bit i of raw[j] <=> member base + 8 * j + i */
    size_t nraw;
};

/* ---- reading (codec.c) -------------------------------------------------------------- */

/* Records the reason for rejecting the input and returns false, so callers can
 * write `return reader_fail(r, ...)`. */
bool reader_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The format is little endian whatever the host is. */
static inline uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Returns a pointer to the next n bytes and advances, or NULL when fewer remain.
 * n is always small (at most a few hundred KiB), and the comparison is written
 * against the remaining length so that it cannot overflow. */
static inline const uint8_t *take(struct reader *r, size_t n)
{
    if (n > r->len - r->pos)
        return NULL;
    const uint8_t *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

/* ---- the portable format (codec_portable.c) ----------------------------------------- */

static inline uint16_t key_of(const struct header *h, uint32_t k)
{
    return le16(h->keycards + 4 * (size_t)k);
}

static inline uint32_t card_of(const struct header *h, uint32_t k)
{
    return (uint32_t)le16(h->keycards + 4 * (size_t)k + 2) + 1;
}

static inline bool is_run(const struct header *h, uint32_t k)
{
    return h->run_flags && (h->run_flags[k / 8] >> (k % 8)) & 1;
}

/* Number of set bits in p[0..n), with the POPCNT instruction where the CPU has it. */
uint64_t popcount_bytes(const uint8_t *p, size_t n);

/* Cookie, run flags, keys and cardinalities (keys strictly increasing), offsets. */
bool read_header(struct reader *r, struct header *h) WUR;

/* A whole portable serialization: the header and every container checked, nothing
 * left over. *card is the total cardinality from the header, which codec_decode and
 * codec_encode compare with what CRoaring reports. */
bool validate_roaring(struct reader *r, uint64_t *card) WUR;
/* The same with only the contents of the containers whose keys only holds checked (all
 * of them when only is NULL); the others' places and lengths are: for an encoding of a
 * bitmap whose other containers are those of an encoding checked before. */
bool validate_roaring_keys(struct reader *r, uint64_t *card, const roaring_bitmap_t *only) WUR;

/* Payload bytes of container k of a portable value at pos (run: from its run count);
 * false when they do not fit in len. */
bool payload_at(const uint8_t *buf, size_t len, const struct header *h, uint32_t k, size_t pos, size_t *size) WUR;

/* Where container k's payload starts in a portable value whose containers start at
 * body (from the offsets, or walking to it when there are none). */
bool container_pos(const uint8_t *buf, size_t len, const struct header *h, size_t body, uint32_t k,
                   size_t *pos) WUR;

/* ---- the dense encoding (codec_dense.c) --------------------------------------------- */

/* Tag, base and raw bytes, with the canonical rules: the empty bitmap is B1 00,
 * otherwise the first and the last raw byte hold members and none lies past 2^32 - 1. */
bool read_dense(struct reader *r, struct dense *d) WUR;

/* What the dense encoding of bm takes: only its minimum and maximum matter. */
size_t dense_size(const roaring_bitmap_t *bm);

/* Writes the dense encoding of bm into buf[0..size), which is zero-filled and
 * dense_size(bm) long (so the last member lands in the last byte). Not validated
 * here: the caller validates. */
bool write_dense(const roaring_bitmap_t *bm, uint8_t *buf, size_t size) WUR;

/* The members of bm's containers with keys key_lo .. key_hi into raw (nraw bytes,
 * bit 0 = base8 * 8), which is zero there: a bitset is copied as its bytes (what
 * they are on a little-endian machine), an array a bit per member, a run whole
 * bytes. */
void write_dense_containers(const roaring_bitmap_t *bm, uint32_t base8, uint8_t *raw, size_t nraw,
                            uint32_t key_lo, uint32_t key_hi);

/* Container i of ra and its type, through a shared (copy-on-write) wrapper. */
const void *container_at(const roaring_array_t *ra, int32_t i, uint8_t *type);

/* The raw bytes of keys lo .. hi in a dense value of nraw raw bytes from base8 * 8
 * (base is a multiple of 8, a key 65536 bits): [*from, *to), empty when from >= to. */
void key_bytes(uint32_t lo, uint32_t hi, uint32_t base8, size_t nraw, int64_t *from, int64_t *to);

/* The bitmap of a validated dense value (caller frees), NULL when memory runs out. */
roaring_bitmap_t *decode_dense(const struct dense *d) WUR;

/* ---- the encode choice (codec.c) ---------------------------------------------------- */

/* The smaller encoding of a run-optimized bm (dense only when strictly smaller),
 * validated: codec_encode without the run optimization. */
bool encode_optimized(roaring_bitmap_t *bm, uint8_t **out, size_t *outlen) WUR;
/* The same, a portable result checked in the containers of changed alone
 * (validate_roaring_keys): bm changed only there since it was last checked. */
bool encode_optimized_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed, uint8_t **out,
                              size_t *outlen) WUR;
/* codec_patch.c: run-optimizes the containers of bm that hold members of changed; false
 * (nothing done) when one of them is shared (copy-on-write, which bitmapd does not use). */
bool run_optimize_changed(roaring_bitmap_t *bm, const roaring_bitmap_t *changed) WUR;

#endif
