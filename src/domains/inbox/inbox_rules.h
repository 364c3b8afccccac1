/* inbox_rules.h — the message box's rules on plain values (no HTTP, no database),
 * unit-tested in tests/test_paging.c and tests/test_inbox_rules.c: newest-first
 * paging by rank, the unread count, and the counts per period. The handlers
 * (inbox_reads.c) load a user's two bitmaps, call these and answer. Announcements
 * page their listings with inbox_page too. */
#ifndef BITMAPD_INBOX_RULES_H
#define BITMAPD_INBOX_RULES_H

#include <roaring/roaring.h>

#include "core/common.h"

/* Paging by rank, newest first: fills out[] with up to limit members of bm, starting
 * after skipping `skip` members from the top (page mode) or at the largest member
 * below `before` (cursor mode, before <= 2^32). Returns the count written and sets
 * *more when older members remain. Cost is independent of depth. */
size_t inbox_page(const roaring_bitmap_t *bm, bool cursor, uint64_t skip, uint64_t before,
                  size_t limit, uint32_t *out, bool *more);

/* ---- writes ---------------------------------------------------------------------------- */

/* What a write of one user does to the user's push and read records. */
enum inbox_op {
    INBOX_PUSH,     /* ids become pushed */
    INBOX_READ,     /* ids become read; every one must have been pushed, unless forced */
    INBOX_READ_ALL, /* every pushed id becomes read */
    INBOX_RETRACT,  /* one id is neither pushed nor read any more */
    INBOX_DROP,     /* history drop: every id below a bound goes from both */
};

#define INBOX_NOT_PUSHED_LIST_MAX 20 /* ids never pushed that a refused read lists */

struct inbox_change {
    bool push_changed, read_changed;
    uint64_t pushed;        /* pushed after the write */
    uint64_t unread;        /* INBOX_READ, INBOX_READ_ALL: unread after the write */
    uint64_t pushed_before; /* INBOX_DROP: pushed before it */
    size_t not_pushed;      /* INBOX_READ refused: how many ids were never pushed */
    uint32_t first_not_pushed[INBOX_NOT_PUSHED_LIST_MAX];
};

enum inbox_verdict {
    INBOX_DONE,       /* applied (perhaps changing nothing: see *_changed) */
    INBOX_NOT_PUSHED, /* a read of ids never pushed, not forced: nothing changed */
    INBOX_NO_MEMORY,  /* nothing changed */
};

/* Applies op to a user's records *push and *read (INBOX_DROP may replace them with
 * new bitmaps, freeing the old): ids[0..nids) sorted and distinct (INBOX_RETRACT:
 * ids[0]); force lets a read mark ids never pushed; bound is INBOX_DROP's. */
enum inbox_verdict inbox_apply(enum inbox_op op, roaring_bitmap_t **push, roaring_bitmap_t **read,
                               const uint32_t *ids, size_t nids, bool force, uint32_t bound,
                               struct inbox_change *out);

/* ---- reads ---------------------------------------------------------------------------- */

/* The members to skip for page `page` (1-based) of `limit`; a skip past any possible
 * cardinality (UINT64_MAX) yields an empty page instead of overflowing. */
uint64_t inbox_page_skip(int64_t page, size_t limit);

/* Pushed messages not read: |push \ read| (a read record of a message never pushed,
 * written with "force", does not count). */
uint64_t inbox_unread_count(const roaring_bitmap_t *push, const roaring_bitmap_t *read);

/* Members of bm in [lo, hi), hi <= 2^32: two rank lookups, no decoding. */
uint64_t inbox_count_between(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi);

/* The counts of one period: messages from `first` up to the next period's first. */
struct inbox_period_count {
    uint64_t first, pushed, read;
};
/* Counts per period, given the n recorded first message ids in ascending period
 * order: out[0] is "earlier" (messages below firsts[0]; first 0), out[i] the period
 * that starts at firsts[i - 1] and ends at firsts[i] (the last at 2^32). out holds
 * n + 1 entries. */
void inbox_period_counts(const roaring_bitmap_t *push, const roaring_bitmap_t *read, const uint64_t *firsts,
                         size_t n, struct inbox_period_count *out);

#endif
