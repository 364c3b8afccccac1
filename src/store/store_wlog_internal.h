/* store_wlog_internal.h — what the files of the write-behind log share: its state and
 * the functions one file calls in another. store_wlog.c holds the packed images, the
 * pending images, the appends' bookkeeping, the barriers and the log's life;
 * store_wlog_fold.c the fold; store_wlog_lease.c the lease and the recovery. Private
 * to those three files; nothing else includes it. */
#ifndef BITMAPD_STORE_WLOG_INTERNAL_H
#define BITMAPD_STORE_WLOG_INTERNAL_H

#include "store/store_wlog.h"

enum wl_state {
    WL_OFF,       /* not the holder */
    WL_ACQUIRING, /* taking the lease, then reading the log left behind */
    WL_HOLDING,   /* the holder: appends go to the log */
    WL_YIELDING,  /* the holder, letting go: no new appends, folding what is pending */
    WL_RELEASING, /* everything folded: unlocking */
};

struct pend {
    struct pend *next;
    uint64_t hash;
    size_t fold_pos;    /* 1 + its place in the fold in flight; 0: not in it */
    bool row_absent;    /* bitmapd.bitmaps has no row of the key: its first image was written
                           from a probed absence, and no fold has written it since */
    struct cache_val v; /* the image; v.blob referenced */
    size_t keylen;
    uint8_t key[];
};

struct folded { /* a key of the fold in flight, and the version it writes */
    struct pend *p; /* NULL once dropped */
    int64_t version;
};

struct barrier {
    struct barrier *next;
    struct wlog *wl;
    bool checking;   /* not the holder: a look at the log is in flight */
    bool ok;         /* satisfied: a fold covered it, or the log was found empty */
    uint64_t target; /* appends up to this serial must be folded */
    wlog_barrier_cb cb;
    void *arg;
    int checks;      /* not the holder: how many times the log was found not empty */
};

struct wlog {
    struct store *st;
    struct db *db;
    const struct config *cfg;
    struct cache *cache;
    enum wl_state state;
    bool keep;                 /* stay the holder after recovery */
    bool seen;                 /* the log may have rows (an append was announced, or unknown) */
    double used_at;            /* when an append was last announced, or a guard refused a write (metrics_now) */
    bool listener_busy;        /* a lease statement is out on the listener connection */
    struct pend **tab;
    size_t cap, n, bytes;
    int64_t *seqs;             /* committed log rows this holder knows and has not deleted */
    size_t nseqs, seqcap;
    uint64_t next_serial;      /* appends begun */
    uint64_t *inflight;        /* serials of appends in flight */
    size_t ninflight, inflightcap;
    struct db_job *fold_job;
    struct folded *fold;       /* the fold in flight */
    size_t nfold;
    int64_t *fold_seqs;
    size_t nfold_seqs;
    uint64_t fold_covers;      /* appends up to this serial are in the fold in flight */
    uint64_t fold_mark;
    struct event *timer;       /* the next fold; a retry of the lease */
    struct event *barrier_ev;  /* barriers checked on the next turn, or after a pause */
    struct barrier *barriers;
    double cooldown_until, last_ask; /* metrics_now() seconds, as every time below */
    double damaged_until;      /* a damaged row was met: no recovery before this */
    double doubt_until;        /* inserts go in place before this (wlog_doubt_inserts) */
    bool stopping;             /* shutting down: let go, never take the lease again */
    bool lost;                 /* the listener went down while this instance held the lease: its
                                  server session (and lock) may live on for a while, so nothing
                                  is written until the lease is taken again */
    bool recover_failed;       /* out of memory while reading the log: let go without folding */
    int fold_failures;         /* folds failed in a row */
    double retry_at;           /* no new attempt at the lease before this */
    struct wlog_stats stats;
};

/* store_wlog.c: (re)arms the log's timer (the next fold; a retry of the lease) for ms. */
void wl_arm(struct wlog *wl, int ms);
/* store_wlog.c: the pending image of key, or NULL. */
struct pend *wl_find(struct wlog *wl, const void *key, size_t len);
/* store_wlog.c: forgets pending image p (and takes it out of the fold in flight). */
void wl_unlink_pend(struct wlog *wl, struct pend *p);
/* store_wlog.c: forgets every pending image and every log row this holder knew. */
void wl_drop_all(struct wlog *wl);
/* store_wlog.c: records log row seq as known to this holder; false when out of memory. */
bool wl_seq_add(struct wlog *wl, int64_t seq);
/* store_wlog_fold.c: folds the pending images and known rows, unless a fold is in flight. */
void wl_fold_start(struct wlog *wl);
/* store_wlog_lease.c: lets the lease go (later, on the timer, while the listener is busy). */
void wl_release(struct wlog *wl);
/* store_wlog.c: a holder letting go (WL_YIELDING) folds what it knows of, or lets go
 * once nothing is pending, known, in flight or being folded; other states: nothing. */
void wl_yield_step(struct wlog *wl);

#endif
