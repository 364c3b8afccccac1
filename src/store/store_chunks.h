/* store_chunks.h — the store's side of chunked rows (chunks.h, docs/design.md
 * "Chunked rows"): which keys this instance last saw chunked (their writes take the
 * statement that also writes chunk rows), the chunk directories of the versions it
 * knows, the chunk rows a write sends, and a loaded key's chunk rows joined back into
 * one value. Used by the store (store_cas.c, store_load.c) and by relayout.c, to fold flips. */
#ifndef BITMAPD_STORE_CHUNKS_H
#define BITMAPD_STORE_CHUNKS_H

#include <libpq-fe.h>

#include "store/cache.h"
#include "store/chunks.h"
#include "core/common.h"
#include "store/store_types.h"

/* The chunk rows of one write whose bits are longer than [postgres] chunk_bytes. */
struct cas_chunks {
    bool chunked;            /* the head row gets empty bits; the rows below carry the members */
    uint32_t head_crc;       /* the head's checksum column: chunks_head_crc() */
    int64_t dir_xid;         /* not whole: the head row must still be this transaction's */
    bool whole;              /* no known chunks of the version written over: every chunk is
                                sent (unchanged ones are not rewritten) and the others deleted */
    struct chunk_cut cut;
    struct chunk_part *rows; /* what the statement writes: bits NULL deletes the chunk at lo */
    size_t nrows;
    uint8_t *flips;          /* the head's new flips (chunks.h; owned), NULL: none. With flips
                                the write sends no chunk row: cut is the directory's copy */
    size_t flen;
    roaring_bitmap_t *fbm;   /* the same flips decoded (owned), for the directory */
    bool flips_only;         /* the write is the head's flips alone */
};


void cas_chunks_free(struct cas_chunks *ch);

struct store_chunks;
struct store_chunks *store_chunks_new(void) WUR;
void store_chunks_free(struct store_chunks *sc);

/* Was key's head row chunked when this instance last loaded or wrote it? */
bool store_chunks_known(const struct store_chunks *sc, const uint8_t *key, size_t len);
/* Notes what this instance saw of key's head row. */
void store_chunks_seen(struct store_chunks *sc, const uint8_t *key, size_t len, bool chunked);

/* Plans the write of w (longer than max_bytes). When w says what it changed
 * (w->changed) since a version whose directory is known, and the head's flips with
 * those changes stay within flip_bytes, the write is those flips alone (no chunk row).
 * Otherwise cuts w into chunks and lists in ch the rows its statement writes: against
 * the directory of the version it was computed from, when known, only those that
 * changed and deletions of those gone; else all of them (ch->whole); the head's flips
 * then become none. */
bool store_chunks_plan(struct store_chunks *sc, const struct store_write *w, size_t max_bytes, size_t flip_bytes,
                       struct cas_chunks *ch) WUR;
/* w committed as version, by transaction xid (ch: its plan). */
void store_chunks_committed(struct store_chunks *sc, const struct store_write *w, int64_t version, uint32_t xid,
                            struct cas_chunks *ch);
/* w did not commit (a conflict may mean a stale directory). */
void store_chunks_forget(struct store_chunks *sc, const uint8_t *key, size_t len);

/* The value of a chunked key loaded as version by xid, from row's array columns
 * bits_col (the chunks' bits by lo) and meta_col (lo, hi, cardinality, checksum of each)
 * and the head's flips in column bits_col + 2: checked against the head's checksum and
 * chunk by chunk, joined, flipped, checked against the head's cardinality and encoded
 * once, in a new blob. NULL when a chunk or the flips are corrupt (logged, naming them)
 * or memory ran out. */
struct cache_blob *store_chunks_join(struct store_chunks *sc, const PGresult *res, int row, int bits_col,
                                     int meta_col, const uint8_t *key, size_t keylen, int64_t version,
                                     uint32_t xid, uint32_t head_crc, int64_t cardinality) WUR;

#endif
