/* cache.h — the hot bitmaps of this instance: each key's stored row (encoded bits,
 * version, checksum, cardinality, Redis length), or the fact that no row exists,
 * bounded in bytes and evicted least recently used first.
 *
 * Reads served from here need no database round trip and writes need no reload; the
 * compare-and-swap still checks every version, so a stale entry can cost a retry but
 * never an update. Entries are dropped by the change notifications of every writer
 * (migration 0007): an entry survives a notification only if it already holds exactly
 * the announced version, written by the announced transaction — or a later version,
 * when the announced transaction is one of this instance's own last commits (a hot
 * key commits again before the notification of its previous commit arrives). A value loaded or written by a statement that was
 * sent before a conflicting notification arrived is not cached (see cache_mark()). */
#ifndef BITMAPD_CACHE_H
#define BITMAPD_CACHE_H

#include "core/common.h"

/* Immutable encoded bits, shared by the cache and the readers holding a reference. */
struct cache_blob {
    uint32_t refs;
    bool checked; /* known to be a valid encoding: this instance wrote it, or joined and
                     checked it from chunk rows (set before it is shared) */
    uint16_t members_ok; /* a bucket row's: the slots whose members' values were found valid
                            encodings (store_buckets.c; the only field set while shared, by
                            the loop's thread) */
    size_t len;
    uint8_t data[];
};

struct cache_blob *cache_blob_new(const void *bits, size_t len) WUR; /* one reference */
/* A blob of len bytes for the caller to fill before sharing it (one reference). */
struct cache_blob *cache_blob_alloc(size_t len) WUR;
void cache_blob_unref(struct cache_blob *b);

struct cache_val {
    bool found;          /* a row exists */
    int64_t version;
    int64_t cardinality;
    uint32_t checksum;
    uint32_t xid;        /* the transaction that wrote the row (its xmin) */
    int64_t nbytes;      /* -1: NULL */
    int64_t expire_ms;   /* 0: NULL (no deadline) */
    struct cache_blob *blob; /* NULL when !found */
};

struct cache_stats {
    uint64_t hits, misses, puts, evictions, invalidations, flushes, stale_skips;
    size_t entries, bytes, max_bytes;
};

struct cache;

/* Slots of the table of the latest notification per key hash (40 bytes each), which
 * decides whether an in-flight result may be cached. A key's result is skipped when its
 * slot's record was overwritten by another key's since the statement was sent, so the
 * table must stay well above the keys of the statements in flight: a fan-out has
 * FANOUT_LANES (4) lanes of [postgres] batch_keys (2000) keys, up to three statements
 * at once. With 1 << 16 slots and 2,000 keys per statement, 0.6% of a fan-out's
 * results were skipped (5,600 of 1,000,000 users loaded again by the next fan-out);
 * with 1 << 17, 0.13% (1,000 keys and 1 << 16: 0.07%; docs/design.md, "Statements of
 * 2,000 keys"). */
#define CACHE_RECENT_SLOTS (1u << 17)

/* max_bytes 0: a cache that holds nothing. Starts disabled (see cache_set_enabled). */
struct cache *cache_new(size_t max_bytes) WUR;
void cache_free(struct cache *c);

/* Enabled only while change notifications are being received; every change of state
 * empties the cache, since notifications may have been missed. */
void cache_set_enabled(struct cache *c, bool on);
bool cache_enabled(const struct cache *c);

/* Asks the processor for the memory that lookups, puts or drops of n keys will touch
 * (key(arg, i, &len) gives key i), so that a batch waits for it side by side instead
 * of one miss after another: in a cache of a million rows each lookup misses the
 * processor's caches for the bucket, the entry and its bits, a put also for the
 * key's slot of recent notifications. Changes nothing. */
typedef const void *cache_key_fn(const void *arg, size_t i, size_t *len);
void cache_prefetch(const struct cache *c, size_t n, cache_key_fn *key, const void *arg);
#define CACHE_PREFETCH_MIN 16 /* fewer keys: not worth it */

/* A hit fills *out and takes a reference on out->blob (release with cache_blob_unref). */
bool cache_get(struct cache *c, const void *key, size_t len, struct cache_val *out) WUR;

/* The bits cached for key at exactly version (a reference taken), or NULL. Not a
 * read: neither a hit nor a miss, and the entry keeps its place in the LRU order. */
struct cache_blob *cache_blob_at(struct cache *c, const void *key, size_t len, int64_t version) WUR;

/* A read served from memory by something other than the cache (the write-behind
 * log's pending images): counted as a hit. */
void cache_count_hit(struct cache *c);

/* The point in the stream of notifications a statement is sent at. */
uint64_t cache_mark(const struct cache *c);

/* Stores what a statement sent at `mark` read or wrote. v->blob is referenced, not
 * taken. Skipped when a notification that arrived since `mark` contradicts it. */
void cache_put(struct cache *c, const void *key, size_t len, const struct cache_val *v, uint64_t mark);
void cache_drop(struct cache *c, const void *key, size_t len);
/* This instance committed key at version/xid (before its notification arrives). */
void cache_note_write(struct cache *c, const void *key, size_t len, int64_t version, uint32_t xid);

/* Applies one notification payload of channel bitmapd_changed (migration 0007).
 * Returns false (and empties the cache) on a payload it cannot parse. */
bool cache_invalidate(struct cache *c, const char *payload);

void cache_get_stats(const struct cache *c, struct cache_stats *out);

#endif
