/* store.h — rows of bitmapd.bitmaps: batched loads and the compare-and-swap write.
 *
 * A write names, for each key, the version it was computed from. Keys are grouped:
 * a group commits all of its keys or none (e.g. a user's push and read bitmaps),
 * and groups are independent of each other, so a conflict on one key retries only
 * that key's group. */
#ifndef BITMAPD_STORE_H
#define BITMAPD_STORE_H

#include "core/common.h"
#include "store/db.h"
#include "store/store_types.h"

struct store;
struct config;

/* With cfg->cache_max_mb > 0 the store keeps hot rows in memory (cache.h) while it
 * receives the change notifications of the database. */
struct store *store_new(struct db *db, const struct config *cfg) WUR;
void store_free(struct store *st);

/* STORE_CONSISTENT: check every key's version in the database (bits travel only for
 * keys whose version or checksum differs from the cached copy). */
#define STORE_CONSISTENT 1u
/* STORE_GUESS_ABSENT: for a writer whose compare-and-swap checks every row it was
 * given, a missing key may be guessed absent instead of loaded, as
 * store_peek_or_guess() does (row.guessed marks it); never with STORE_CONSISTENT. */
#define STORE_GUESS_ABSENT 2u

/* Loads keys (at most a few thousand at a time), from the cache where it can: the
 * callback always comes on a later turn of the loop. A missing key is a row with
 * found = false. The returned job can be cancelled with db_cancel(). */
struct db_job *store_load(struct store *st, const struct store_key *keys, size_t n, unsigned flags,
                          store_load_cb cb, void *arg) WUR;

/* Group commit: the writes join the next compare-and-swap statement, which carries
 * the writes of every request waiting at that time ([postgres] write_statements
 * statements are in flight at once; a lone request is sent at once). The statement
 * locks the rows in key order and updates (or inserts, for absent keys) every group
 * whose versions all still match (version := version + inc, one per change merged in). A call names a key twice
 * only to check it (units of one request sharing a key); two calls with a common key
 * go in different statements. The callback comes after commit. */
struct db_job *store_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups,
                         store_cas_cb cb, void *arg) WUR;

struct cache;
struct cache_blob;
/* The rows of n keys from the cache alone, at once (no statement, no callback): true
 * when every key is cached; rows then borrow from held[], released with
 * store_peek_release(held, n). For reads that may be served from the cache. */
bool store_peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                struct cache_blob **held) WUR;
void store_peek_release(struct cache_blob **held, size_t n);
/* As store_peek, for writers whose compare-and-swap checks every row it was given
 * (trains): when the recent loads of keys missing from the cache found mostly no row
 * (new keys: a day's first check-ins, random keys), a missing key not known to be
 * chunked is guessed absent —
 * found false, cached true (not checked against the database) — instead of being
 * loaded, which saves the load's round trip and statement. A wrong guess is a
 * conflict of the write (its group is not written); the writer then loads. *guessed
 * says whether any key was guessed. */
bool store_peek_or_guess(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                         struct cache_blob **held, bool *guessed) WUR;

/* A writer that has just committed key at version hands over bm, its decoded value
 * (taken): when the cache holds that version's bits and they are longer than
 * [postgres] chunk_bytes, bm is kept with them (kept.h) for the next writer of those
 * very bits, else freed. */
void store_keep_decoded(struct store *st, const uint8_t *key, size_t len, int64_t version, struct roaring_bitmap_s *bm);
/* The decoded copy kept for a cached row's bits (store_peek), or NULL; the caller owns it. */
struct roaring_bitmap_s *store_take_decoded(struct store *st, const struct store_row *row);

/* Whether keys of some family may live in bucket rows (bitmapd.bucket_state; true
 * while the state is not known yet): statements that list keys then expand buckets. */
bool store_buckets_any(const struct store *st);

/* The store's cache (never NULL), for statistics. */
struct cache *store_cache(struct store *st);
struct event_base *store_event_base(struct store *st);
/* The pool the store sends its statements through. */
struct db *store_db(struct store *st);
struct evbuffer;
/* The store's families on GET /metrics (store_metrics.c); arg is the store.
 * store_new registers it with the metrics registry, store_free takes it out. */
void store_metrics_render(struct evbuffer *out, void *arg);

struct store_stats {
    unsigned long cas_statements, cas_calls, cas_keys, loads, load_statements, load_keys_db, load_keys_cached;
    unsigned long max_batch_calls;
    unsigned long append_keys; /* images acknowledged through the write-behind log */
    unsigned long lean_appends, lean_redone; /* appends sent as SQL_APPEND_LEAN; of them, sent again in full */
    unsigned long insert_statements, inserts_redone; /* statements sent as SQL_CAS_NEW; of them, sent again */
    unsigned long update_statements, updates_redone; /* statements sent as SQL_CAS_UPD; of them, sent again */
    unsigned long quiet_asked; /* statements sent asking to go unannounced (SQL_QUIET) */
    unsigned long expired_reads;   /* rows handed out empty because their deadline had passed */
    unsigned long expired_removed; /* rows of expired keys removed by this instance's sweeps */
    unsigned long expire_sweeps, expire_sweep_failures;
    unsigned long analyzes; /* statistics checks that analyzed a table (store_analyze.c) */
};
void store_get_stats(const struct store *st, struct store_stats *out);

/* cb(true, arg) once every write acknowledged before the call is in the table itself,
 * not only in the write-behind log: for statements that read bitmapd.bitmaps in SQL
 * (SCAN, KEYS, DBSIZE, listings). cb(false) if that could not be had (the database is
 * away, or another instance's log stays unfolded for about 10 s). Always on a later
 * turn of the loop. */
bool store_fold_barrier(struct store *st, void (*cb)(bool ok, void *arg), void *arg) WUR;

/* db_query() of a statement that reads bitmapd.bitmaps in SQL, sent once every write
 * acknowledged before the call is in the table (store_fold_barrier; at once when no
 * write-behind log is in use). sql must outlive the call (a literal); the parameters
 * are copied. A barrier that fails answers cb with DB_UNAVAILABLE. */
#define STORE_QUERY_MAX_PARAMS 8
bool store_query_folded(struct store *st, const char *sql, int nparams, const struct db_param *params, db_cb cb,
                        void *arg) WUR;

/* Shutting down: the write-behind log is folded and its lease let go, and never taken
 * again. True once that is done (call again until it is, or until a deadline). */
bool store_wlog_stop(struct store *st);

struct wlog_stats;
void store_get_wlog_stats(const struct store *st, struct wlog_stats *out);

/* A trivial round trip, for health checks. */
struct db_job *store_ping(struct store *st, db_cb cb, void *arg) WUR;

#endif
