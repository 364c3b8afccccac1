/* store_internal.h — what the store's files share (store.c, store_load.c,
 * store_cas.c, store_sql.c): the store itself, the requests and batches of its two
 * queues (coalesced loads, group-commit writes), and the statements. Not for use
 * outside src/store/. */
#ifndef BITMAPD_STORE_INTERNAL_H
#define BITMAPD_STORE_INTERNAL_H

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "store/bucket.h"
#include "store/cache.h"
#include "store/chunks.h"
#include "store/codec.h"
#include "core/config.h"
#include "store/kept.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/pgbin.h"
#include "store/store_chunks.h"
#include "store/store_wlog.h"
#include "store/store.h"
#include "store/store_queue.h"

struct bcas;
struct bhold;
struct cas_call;
struct load_ctx;

enum { STMT_LOAD, STMT_CAS, STMT_CAS_ROWS, STMT_CAS_ONE, STMT_CAS_ONE_CHUNKED, STMT_CAS_ONE_FLIPS, STMT_APPEND, STMT_APPEND_LEAN, STMT_CAS_NEW, STMT_CAS_UPD }; /* prepared once per connection (db_query_prepared) */

struct store {
    struct db *db;
    const struct config *cfg;
    struct cache *cache;
    /* The one coalescing queue mechanism (store_queue.h), twice: reads waiting for the
     * next load statement (store_load.c builds it), writes waiting for the next
     * compare-and-swap or append (store_cas.c builds it); each with the requests the
     * write-behind log held back (sent again after wait_ev) and its statements in
     * flight (for store_free). */
    struct squeue loads, writes;
    struct load_ctx *ready;       /* reads answered from the cache, for the next turn */
    struct event *ready_ev;
    struct event *flush_ev;       /* sends what waits, once the loop turn's callbacks have queued */
    unsigned listen_gen;          /* changes of the listener's state */
    struct event *recheck_ev;     /* the trigger check again, after it could not run */
    unsigned recheck_logged_gen;  /* listen_gen whose failed check was logged */
    struct sent_node *checks;     /* trigger checks in flight, for store_free */
    struct store_chunks *chunks;  /* chunked keys: what this instance knows of them */
    struct kept *kept;            /* decoded copies of big values just written (kept.h) */
    struct wlog *wl;              /* the write-behind log (store_wlog.h) */
    struct squeue parked;         /* writes of pending keys waiting for a fold or the lease */
    double lean_after;            /* appends are lean (SQL_APPEND_LEAN) from this time on: */
    bool full_next;               /* but not the next one (its calls go out again) */
    struct event *wait_ev;        /* a pause before sending again what the log's guard held back */
    uint8_t *empty_bits;          /* the encoding of the empty bitmap: an expired row's bits */
    size_t empty_len;
    uint32_t empty_crc;
    struct event *sweep_ev;       /* the next sweep of expired rows (store_expire.c) */
    struct db_job *sweep_job;
    bool sweep_stopped, sweep_failed_logged;
    struct event *analyze_ev;     /* the next statistics check (store_analyze.c) */
    struct db_job *analyze_job;
    unsigned long analyze_written; /* writes counted at the last check */
    bool analyze_stopped, analyze_failed_logged;
    bool analyze_missing;         /* the last check found no bitmapd._refresh_stats() */
    /* Bucket rows (store_buckets.c): where each family's keys are, as
     * bitmapd.bucket_state said when last read (bucket_known false: never read yet, so
     * a member key of any family is answered "unavailable"); writes of buckets in
     * flight or waiting. */
    bool bucket_known;
    uint8_t bucket_state[BUCKET_FAMILIES]; /* BSTATE_* */
    bool bucket_any;              /* some family is not off */
    int64_t bucket_epoch;         /* the sum of the families' generations this instance acts on */
    struct sent_node *bucket_loads; /* reads of members waiting for their buckets' rows */
    struct sent_node *bucket_works; /* batches of member writes started (store_buckets.c) */
    struct bcas *bucket_calls;    /* every write of members not finished (in flight or waiting) */
    struct bcas **bucket_calls_end; /* the link the next call goes in (NULL: &bucket_calls) */
    struct bhold *bucket_hold;    /* run_waiting's table of buckets, kept from pass to pass */
    size_t bucket_hold_cap;
    struct sent_node *bucket_checks; /* state reads in flight, for store_free */
    struct event *bucket_retry_ev; /* the state read again, until one succeeds */
    struct event *bucket_pass_ev; /* run_waiting, once at the end of a turn that asked for it */
    unsigned absent_score;        /* 0..ABSENT_ONE: how many of the recent cache misses
                                     loaded found no row, decaying (store_peek_or_guess) */
    struct store_stats stats;
};

struct load_ctx {
    struct sq_item q;         /* in st->loads while waiting */
    struct load_ctx *next;    /* in a batch's list, or st->ready */
    struct store *st;
    size_t n;
    store_load_cb cb;
    void *arg;
    struct db_job *handle;    /* what the caller holds (and may cancel) */
    enum store_status status;
    const char *err;
    struct store_row *rows;
    struct cache_val *held;   /* per key: the cached copy (blob referenced) */
    size_t *sent;             /* position among the sent keys → key index */
    size_t nsent;
    size_t first;             /* position of sent[0] in the statement */
    uint8_t *keybuf;          /* the sent keys, back to back */
    size_t *keyoff;           /* per sent key: offset in keybuf (nsent + 1 entries) */
    bool *seen;
    uint64_t mark;
};


struct load_batch {
    struct store *st;
    struct load_ctx *reqs;
    size_t nkeys;
    struct sent_node sent; /* in st->loads.sent while in flight */
};

struct cas_call {
    struct sq_item q;      /* in st->writes (or st->parked) while waiting */
    struct cas_call *next; /* in a batch's list */
    struct store_write *w; /* keys and bits copied into buf */
    struct cas_chunks *ch; /* per write */
    bool chunks;           /* a key is chunked, or was last seen chunked: SQL_CAS */
    bool needs_lock_step;  /* failed in a SQL_CAS_NEW or SQL_CAS_UPD batch: never in one again */
    size_t n;
    int32_t ngroups;
    int32_t first_group;   /* in the statement */
    size_t bytes;          /* keys and bits: what the call adds to a statement */
    store_cas_cb cb;
    void *arg;
    double parked_at;      /* when it first waited for a fold of its pending keys (metrics_now) */
    struct db_job *handle; /* what the caller holds (and may cancel) */
    struct cache_blob **blobs; /* per write with bits: the new bits, for the cache */
    int64_t epoch;         /* st->bucket_epoch when it was made: the homes of its keys (store_buckets.c) */
    /* the outcome, while it is delivered */
    enum store_status status;
    const char *err;
    const bool *conflict;
};

struct cas_batch {
    struct store *st;
    bool rows_only;        /* sent as SQL_CAS_ROWS */
    bool inserts;          /* ... as SQL_CAS_NEW: every write inserts a key found or guessed absent */
    bool updates;          /* ... as SQL_CAS_UPD: every write rewrites a one-row key found, at its version */
    bool append;           /* sent as SQL_APPEND: the write-behind log */
    bool lean;             /* ... as SQL_APPEND_LEAN */
    uint64_t serial;       /* the append's, for the log (wlog_append_begin) */
    size_t nimages;
    struct cas_call *calls;
    uint64_t mark;
    int32_t ngroups;
    struct sent_node sent; /* in st->writes.sent while in flight */
};

#define WLOG_WAIT_MS 20
#define WLOG_MAX_WAITS 500 /* about 10 s */
#define WLOG_WAIT_ERROR \
    "the write-behind log is not folded (held by another bitmapd instance, or a damaged row: see the log)"

#define CAS_MAX_BYTES (64u << 20) /* bits and keys of one statement, unless one call alone is more */
/* From this many keys a statement of plain rows asks to go unannounced when no other
 * session listens (SQL_QUIET, migration 0019): below it, the trigger's look at pg_locks
 * (about 60 us) costs more than the payload it saves (3-4 us of PostgreSQL a key). */
#define CAS_QUIET_MIN_KEYS 64

/* The statements of the write queue (store_sql.c). */
extern const char SQL_CAS[];
extern const char SQL_CAS_ROWS[];
extern const char SQL_CAS_UPD[];
extern const char SQL_CAS_NEW[];
extern const char SQL_CAS_ONE[];
extern const char SQL_CAS_ONE_CHUNKED[];
extern const char SQL_CAS_ONE_FLIPS[];
extern const char SQL_APPEND[];
extern const char SQL_APPEND_LEAN[];

#define LOAD_OF(item) SQ_OWNER(item, struct load_ctx, q)
#define CALL_OF(item) SQ_OWNER(item, struct cas_call, q)

/* store.c */
/* Whether a key missing from the cache is guessed absent now (store_peek_or_guess,
 * STORE_GUESS_ABSENT): most recent misses had no row, and it is not known chunked.
 * If so, *row becomes the guess: no row, marked cached and guessed. */
bool store_guess_absent(struct store *st, const struct store_key *key, struct store_row *row);
/* Moves the score of misses guessed absent towards "a row" (found) or "no row". */
void absent_learn(struct store *st, bool found);
/* The store's status for a statement's outcome (a lost connection: unavailable). */
enum store_status status_of(const struct db_result *r);
/* Arms the pause after which what the write-behind log held back is sent again. */
void wait_arm(struct store *st);

/* store_load.c */
/* A key's row from the cache, with the blob held in *held; false when not cached. */
bool cached_row(struct store *st, const struct store_key *key, struct cache_val *held, struct store_row *row);
/* Answers a load request (its callback, unless cancelled) and frees it. */
void load_finish(struct load_ctx *ctx);
/* Sends waiting loads while fewer than [postgres] load_statements are in flight. */
void load_flush(struct store *st);
/* The loads answered from the cache, on the turn after they were asked. */
void load_ready_cb(evutil_socket_t fd, short what, void *arg);

/* store_expire.c */
/* The empty encoding and the sweep's timer; false when out of memory. */
bool store_expire_setup(struct store *st) WUR;
/* Rows past their deadline become empty rows at their version (found, expired). */
void store_expire_rows(struct store *st, struct store_row *rows, size_t n);
/* Starts the sweeps of expired rows ([expire] sweep_ms). */
void store_expire_start(struct store *st);
void store_expire_free(struct store *st);

/* store_analyze.c */
/* The timer of the statistics checks ([postgres] analyze_check_ms); false when out of
 * memory. */
bool store_analyze_setup(struct store *st) WUR;
void store_analyze_start(struct store *st);
void store_analyze_free(struct store *st);

/* The rows of keys, as store_load, store_peek and store_cas answer for keys that are
 * not in buckets (store_buckets.c answers for those that are, through these). */
struct db_job *rows_load(struct store *st, const struct store_key *keys, size_t n, unsigned flags, store_load_cb cb,
                         void *arg);
bool rows_peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
               struct cache_blob **held, bool guess, size_t *nguess);
struct db_job *rows_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups, store_cas_cb cb,
                        void *arg);

/* store_buckets.c */
/* Reads bitmapd.bucket_state (at start, synchronously, and again whenever the
 * listener comes back); false when out of memory. */
bool store_buckets_setup(struct store *st) WUR;
void store_buckets_reread(struct store *st);
void store_buckets_free(struct store *st);

/* store_cas.c */
void cas_call_free(struct cas_call *c);
/* Sends waiting writes as far as the write statements in flight allow. */
void cas_flush(struct store *st);

#endif
