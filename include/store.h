/* store.h — rows of bitmapd.bitmaps: batched loads and the compare-and-swap write.
 *
 * A write names, for each key, the version it was computed from. Keys are grouped:
 * a group commits all of its keys or none (e.g. a user's push and read bitmaps),
 * and groups are independent of each other, so a conflict on one key retries only
 * that key's group. */
#ifndef BITMAPD_STORE_H
#define BITMAPD_STORE_H

#include "common.h"
#include "db.h"

enum store_status { STORE_OK, STORE_UNAVAILABLE, STORE_ERROR };

struct store_key {
    const uint8_t *key;
    size_t len;
};

struct store_row {
    bool found;
    int64_t version;
    const uint8_t *bits; /* borrowed from the result: valid until the callback returns */
    size_t len;
    int64_t cardinality;
    uint32_t checksum;
    int64_t nbytes; /* length as a Redis string; -1 when NULL (as long as the members need) */
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
    int32_t group;
};

/* conflict[g] is true for each group g (0 .. ngroups-1) that did not commit because
 * a version had moved; all other groups committed. NULL unless STORE_OK. */
typedef void (*store_cas_cb)(enum store_status st, const char *err, const bool *conflict, void *arg);

struct store;

struct store *store_new(struct db *db) WUR;
void store_free(struct store *st);

/* Loads keys (at most a few thousand at a time). With create, missing keys are first
 * inserted as empty version-0 rows, so that every later write is a plain
 * compare-and-swap of existing rows. The returned job can be cancelled with db_cancel(). */
struct db_job *store_load(struct store *st, const struct store_key *keys, size_t n, bool create,
                          store_load_cb cb, void *arg) WUR;

/* One statement: locks the rows in key order, and updates every group whose
 * versions all still match (version := version + 1). Keys must be distinct. */
struct db_job *store_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups,
                         store_cas_cb cb, void *arg) WUR;

/* A trivial round trip, for health checks. */
struct db_job *store_ping(struct store *st, db_cb cb, void *arg) WUR;

#endif
