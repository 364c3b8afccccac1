/* chunks.h — a big bitmap as rows of bitmapd.chunks (migration 0008).
 *
 * A bitmap whose encoding is longer than CHUNK_BYTES is stored as a head row in
 * bitmapd.bitmaps (empty bits; version, cardinality, the checksum of the whole
 * encoding, nbytes) and chunks: each the members whose 16-bit container key lies in
 * [lo, hi), in the smallest of bitmapd's encodings (CRoaring portable, dense raw
 * bits, or gaps when the cut serializes few enough members: GAPS_MAX_MEMBERS in
 * chunks.c). The ranges are the coarsest halvings of 0 .. 65536 whose portable
 * serialization fits CHUNK_BYTES (a range holding one
 * container is never cut), so they are a function of the members alone: a write
 * that changes one container changes the chunk holding it, and a chunk is cut in
 * two or joined with its neighbour only when its size crosses CHUNK_BYTES. */
#ifndef BITMAPD_CHUNKS_H
#define BITMAPD_CHUNKS_H

#include <roaring/roaring.h>

#include "core/common.h"

#define CHUNK_BYTES 8192 /* the default of [postgres] chunk_bytes */
#define CHUNK_KEYS 65536u /* container keys: a chunk's hi is at most this */

/* One row of bitmapd.chunks. */
struct chunk_part {
    uint32_t lo, hi;
    const uint8_t *bits;
    size_t len;
    int64_t cardinality;
    uint32_t checksum;
    uint64_t hash; /* chunk_hash(bits): with the checksum, tells a changed chunk from the
                      one a directory remembers (a CRC alone could miss one in 2^32) */
};

/* The chunks of one bitmap; the parts' bits point into buf. */
struct chunk_cut {
    struct chunk_part *parts;
    size_t n;
    uint8_t *buf;
};

/* Cuts bm into chunks of at most max_bytes unless one container is more
 * (run-optimized here, so that equal sets cut into equal ranges). False on allocation
 * failure. An empty bitmap has no chunk. */
bool chunks_cut(roaring_bitmap_t *bm, size_t max_bytes, struct chunk_cut *out) WUR;
/* The same for a bm run-optimized already (codec_encode leaves it so): for a big
 * bitmap of bitsets, counting their runs again is a tenth of a hot key's write. */
bool chunks_cut_optimized(const roaring_bitmap_t *bm, size_t max_bytes, struct chunk_cut *out) WUR;
/* As chunks_cut_optimized for a bm that has changed, since old (the cut of an earlier
 * state, in lo order, as a directory keeps it: no bits) was made, only in containers
 * with keys tlo .. thi: a part whose range lies outside those keys and that old has
 * with the same range and length is not serialized again — its bits are NULL, its
 * cardinality, checksum and hash old's. With tlo > thi nothing is taken from old. */
bool chunks_cut_since(const roaring_bitmap_t *bm, size_t max_bytes, const struct chunk_part *old, size_t nold,
                      uint32_t tlo, uint32_t thi, struct chunk_cut *out) WUR;
void chunks_cut_free(struct chunk_cut *c);

/* The bitmap of n chunk rows in ascending lo: every part is checked (range, order, no
 * overlap, checksum, a valid encoding, cardinality, members inside its range). NULL
 * with the reason in err when a check fails or memory runs out. */
roaring_bitmap_t *chunks_join(const struct chunk_part *parts, size_t n, char *err, size_t errlen) WUR;

/* The checksum column of a chunked key's head row: CRC-32C of its chunks' (lo, hi,
 * checksum) as little-endian uint32 triples, in lo order, followed by the head's
 * flips (flen bytes; none: 0). It ties the head to exactly this set of chunks (a
 * missing, extra or stale chunk row changes it) and to its flips, whatever encoding a
 * writer gave the whole bitmap. */
uint32_t chunks_head_crc(const struct chunk_part *parts, size_t n, const uint8_t *flips, size_t flen);

/* A 64-bit hash of a chunk's bytes, independent of its CRC-32C. */
uint64_t chunk_hash(const uint8_t *bits, size_t len);

/* The chunk ranges and checksums (no bits) of the chunked keys this instance last
 * loaded or wrote, each at one version of the head row, written by transaction xid:
 * what a write of that version needs to send only the chunks it changes. The
 * compare-and-swap checks that the head row is still that xid's (a change by hand or
 * by `--migrate` keeps the version), else the write is retried sending every chunk.
 * At most max keys; when full, it starts again empty. */
struct chunk_dirs;
struct chunk_dirs *chunk_dirs_new(size_t max) WUR;
void chunk_dirs_free(struct chunk_dirs *d);
/* Records key's chunks at version (their bits are not kept) and the head's flips (a
 * copy; flen 0: none); false when out of memory. */
bool chunk_dirs_put(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version, uint32_t xid,
                    const struct chunk_part *parts, size_t n, const uint8_t *flips, size_t flen);
void chunk_dirs_drop(struct chunk_dirs *d, const uint8_t *key, size_t len);
/* key's chunks at exactly version (bits NULL) and the xid that wrote them, or NULL;
 * valid until the next put/drop. */
const struct chunk_part *chunk_dirs_get(const struct chunk_dirs *d, const uint8_t *key, size_t len,
                                        int64_t version, uint32_t *xid, size_t *n, const uint8_t **flips,
                                        size_t *flen);
/* The flips of key's directory at version, decoded (fbm: the bitmap the bytes given to
 * chunk_dirs_put decode to; owned from here on, freed when there is no such entry or it
 * has no flips), so that the next write of the key does not decode them again. */
void chunk_dirs_keep_flips(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version,
                           roaring_bitmap_t *fbm);
/* Those flips, taken out of the directory (the caller owns them; the next write of the
 * key decodes the bytes again unless they are kept again), or NULL when none are kept. */
roaring_bitmap_t *chunk_dirs_take_flips(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version);

#endif
