/* store_types.h — what the store's requests are made of: a key, a row as loaded, a
 * write as sent, and the callbacks' outcome. Apart from store.h so that the modules
 * the store uses (store_chunks.c) can take these without depending on the store. */
#ifndef BITMAPD_STORE_TYPES_H
#define BITMAPD_STORE_TYPES_H

#include "core/common.h"
#include "store/db.h"

enum store_status { STORE_OK, STORE_UNAVAILABLE, STORE_ERROR };

struct store_key {
    const uint8_t *key;
    size_t len;
};

struct store_row {
    bool found; /* false: no row; version 0, empty bits */
    int64_t version;
    const uint8_t *bits; /* borrowed from the result: valid until the callback returns */
    size_t len;
    int64_t cardinality;
    uint32_t checksum;
    int64_t nbytes; /* length as a Redis string; -1 when NULL (as long as the members need) */
    int64_t expire_ms; /* deadline, ms since the Unix epoch; 0: none. A row past its deadline
                          is handed out as an empty row at its version (store_expire_rows) */
    bool cached;    /* from this instance's cache, not checked against the database */
    bool guessed;   /* not loaded: guessed absent (STORE_GUESS_ABSENT); cached is true too */
    bool expired;   /* handed out empty because its deadline had passed (store_expire_rows):
                       a write over it replaces the old value whole */
    bool checked;   /* bits are known to be a valid encoding of the row (written by this
                       instance, or joined from checked chunk rows): one bit may be read
                       with codec_contains() without decoding the rest */
};

/* rows[i] belongs to keys[i]; rows is NULL unless status is STORE_OK. */
typedef void (*store_load_cb)(enum store_status st, const char *err, const struct store_row *rows,
                              void *arg);

struct store_write {
    const uint8_t *key;
    size_t keylen;
    int64_t version;     /* the version the new bits were computed from */
    const uint8_t *bits; /* NULL: only check that the version is unchanged */
    size_t len;
    uint64_t cardinality;
    uint32_t checksum;
    int64_t nbytes; /* stored as the Redis string length; -1 stores NULL */
    int64_t expire_ms; /* stored as the deadline (ms since the Unix epoch); 0 stores NULL */
    int32_t group;
    int64_t inc;    /* versions the write adds: the changes merged into it (0 and 1 both mean one) */
    bool absent;    /* loaded as "no row": the write inserts it (version 1), or checks it is still absent */
    struct roaring_bitmap_s *bm; /* optional: the bitmap bits encode, so that a big one is cut into
                                    chunks without decoding bits again; run-optimized, as
                                    codec_encode leaves it (used only during store_cas) */
    bool narrow;    /* bm differs from the version written over only in containers tlo .. thi
                       (16-bit keys), every other one as that version's cut left it: a chunked
                       key's unchanged chunks are not serialized again (chunks_cut_since) */
    uint32_t tlo, thi;
    struct cache_blob *blob; /* optional: bits are this blob's data (the writer's encoding,
                                checked), which the store shares instead of copying */
    bool bucket;    /* the row of a bucket of several keys (bucket.h): written in place, never
                       through the write-behind log (store_buckets.c makes these) */
    uint8_t spill;  /* f > 0: a member of family f that spilled from its bucket to a row of its
                       own; the row written gets bucket = -f (store_buckets.c) */
    const struct roaring_bitmap_s *changed; /* optional: exactly the members in which bits
                                               differ from the version written over (a chunked
                                               key's head then records just these) */
};

/* conflict[g] is true for each group g (0 .. ngroups-1) that did not commit because
 * a version had moved; all other groups committed. NULL unless STORE_OK. */
typedef void (*store_cas_cb)(enum store_status st, const char *err, const bool *conflict, void *arg);

#endif
