/* store_wlog.h — the write-behind log (docs/design.md, "Write-behind log"), the part
 * of the store that holds the lease, keeps the images of the writes acknowledged but
 * not folded yet ("pending"), folds them into bitmapd.bitmaps and recovers a log left
 * behind. store_cas.c sends the appends themselves (they are write statements like the
 * others) and asks this module what a write may do. Internal to the store. */
#ifndef BITMAPD_STORE_WLOG_H
#define BITMAPD_STORE_WLOG_H

#include "store/cache.h"
#include "core/common.h"
#include "store/db.h"

struct store;
struct config;
struct wlog;

/* The lock id of the lease (migration 0009). */
#define WLOG_LEASE_LOCK "7355609"
/* Watchers: every instance's listener session takes the locks (WLOG_WATCH_LOCK, 0 …
 * 15) shared just before its LISTEN (so before its cache is turned on) and holds them
 * except while it holds the lease. An append announces its keys only when it cannot
 * take the lock of its backend's slot (pid mod 16) exclusively, held until its
 * commit: when another instance is listening (or, rarely, when another append of
 * the same slot runs: the holder's appends on other connections do not stand in
 * each other's way). A watcher that registers waits for the appends that did not
 * announce to commit; its loads, all later, see their rows in the log and wait for
 * the fold. */
#define WLOG_WATCH_LOCK "7355610"
#define WLOG_WATCH_SLOTS "16"
#define WLOG_WATCH_SQL                                                                                  \
    "SELECT count(pg_advisory_lock_shared(" WLOG_WATCH_LOCK ", s)) FROM generate_series(0, " WLOG_WATCH_SLOTS \
    " - 1) s"
#define WLOG_UNWATCH_SQL                                                                                \
    "SELECT count(*) FILTER (WHERE pg_advisory_unlock_shared(" WLOG_WATCH_LOCK ", s))"                  \
    " FROM generate_series(0, " WLOG_WATCH_SLOTS " - 1) s"

struct wlog *wlog_new(struct store *st, struct db *db, const struct config *cfg, struct cache *cache) WUR;
void wlog_free(struct wlog *wl);

/* This instance holds the lease and takes appends now. */
bool wlog_holding(const struct wlog *wl);
/* This instance holds the lease (appending, recovering or letting go): its loads of
 * keys that are not pending are exact even while the log has rows. */
bool wlog_is_holder(const struct wlog *wl);
/* No log in use as far as this instance knows (not the holder, none configured, no
 * append announced since the last look): SQL may read the table at once. */
bool wlog_quiet(const struct wlog *wl);
/* Another instance used the write-behind log lately: this one is not its holder, and
 * saw an append announced or a write refused by the log's guard in the last
 * WLOG_USED_ELSEWHERE_S seconds. */
#define WLOG_USED_ELSEWHERE_S 10.0
bool wlog_used_elsewhere(const struct wlog *wl);
/* The listener went down while holding the lease: write nothing until it is taken again. */
bool wlog_lost(const struct wlog *wl);
/* The lease is changing hands: send nothing until store_wlog_resume. */
bool wlog_busy(const struct wlog *wl);
/* An append's outcome is unknown (connection lost): it may be in the log. */
void wlog_append_unknown(struct wlog *wl);
/* The pending image of key, if any (blob referenced: release with cache_blob_unref). */
bool wlog_lookup(struct wlog *wl, const void *key, size_t len, struct cache_val *out);
bool wlog_pending(struct wlog *wl, const void *key, size_t len);
/* Room for n more pending keys. */
bool wlog_room(const struct wlog *wl, size_t n);
/* A write in place whose answer was lost (its connection went away after it was
 * sent) may still commit: its statement runs on in its server session for up to
 * [postgres] query_timeout_ms. An append's probe does not wait for another session's
 * insert still running, so an append of a key it inserts would take the key as absent
 * and be overtaken by that insert, same version, different bits. For that long (and
 * 2 s more) wlog_doubting() is true, and writes that insert a key go in place, where
 * the insert waits for the other one and then meets it as a conflict. */
void wlog_doubt_inserts(struct wlog *wl);
bool wlog_doubting(const struct wlog *wl);
size_t wlog_max_value_bytes(const struct wlog *wl);

/* An append is about to be sent / has finished. seq >= 0: committed as log row seq,
 * and the images are then recorded with wlog_put (xid of the append); row_absent: the
 * append found the key with no row (a key already pending keeps what it had). */
uint64_t wlog_append_begin(struct wlog *wl);
bool wlog_put(struct wlog *wl, const void *key, size_t len, const struct cache_val *v, bool row_absent) WUR;
void wlog_append_end(struct wlog *wl, uint64_t serial, int64_t seq, bool lease_lost);

/* A write statement met the guard (SQLSTATE BMW01: another instance holds the lease;
 * BMW02: a log is left with no holder), or a load found the log not empty while this
 * instance is not the holder (held_elsewhere says which): asks for the fold, or
 * recovers the log itself. */
void wlog_blocked(struct wlog *wl, bool held_elsewhere);

/* A payload of the change channel meant for the log ("!fold"): true if consumed. */
bool wlog_on_notify(struct wlog *wl, const char *payload);
void wlog_listen_state(struct wlog *wl, bool up);
/* An append of another instance was announced on the change channel. */
void wlog_note_append_seen(struct wlog *wl);
/* Implemented by store.c: the lease changed state or a fold finished; send what waits. */
void store_wlog_resume(struct store *st);
/* Writes are waiting: take the lease now if the configuration asks for it. */
void wlog_kick(struct wlog *wl);

/* cb(arg) once every write acknowledged before the call is in bitmapd.bitmaps (for
 * statements that read the table in SQL: SCAN, KEYS, DBSIZE, listings); on a later
 * turn of the loop, after a fold if one is needed. */
typedef void (*wlog_barrier_cb)(bool ok, void *arg);
bool wlog_barrier(struct wlog *wl, wlog_barrier_cb cb, void *arg) WUR;

/* See store_wlog_stop. */
bool wlog_stop(struct wlog *wl);

struct wlog_stats {
    unsigned long appends, append_keys, folds, fold_keys, leases, yields, recovered_rows, blocked;
    size_t pending, pending_bytes;
    bool holder;
};
void wlog_get_stats(const struct wlog *wl, struct wlog_stats *out);

/* The packed images of one log row (exposed for the unit tests). */
struct wlog_image {
    const uint8_t *key;
    size_t keylen;
    int64_t version, cardinality, nbytes;
    int64_t expire_ms; /* 0: none */
    uint32_t checksum;
    const uint8_t *bits;
    size_t len;
};
size_t wlog_pack_size(size_t keylen, size_t bitslen);
/* Packs n images into out (of at least the sum of wlog_pack_size + WLOG_PACK_TAIL bytes). */
size_t wlog_pack(uint8_t *out, const struct wlog_image *im, size_t n);
#define WLOG_PACK_HEAD 8u
#define WLOG_PACK_TAIL 4u
/* Calls each(im, arg) per image of a packed row; false (nothing called) if buf is not a
 * well-formed row with a matching checksum. */
bool wlog_unpack(const uint8_t *buf, size_t len, void (*each)(const struct wlog_image *im, void *arg), void *arg) WUR;

#endif
