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
