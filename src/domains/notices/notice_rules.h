/* notice_rules.h — the rules of announcements on plain values (no HTTP, no database),
 * unit-tested in tests/test_notice_rules.c: a notice's state from its audiences, a
 * user's listing of one audience (which notices, read and unread counts, the page),
 * and a notice's audience size and unread count. The handlers (notice_reads.c,
 * notice_writes.c) load the bitmaps, call these and answer. */
#ifndef BITMAPD_NOTICE_RULES_H
#define BITMAPD_NOTICE_RULES_H

#include <roaring/roaring.h>

#include "core/common.h"

/* The sole member of notice:{id}:audiences while an older version's delete ran. */
#define NOTICE_DELETING_MARK UINT32_MAX

enum notice_state { NOTICE_MISSING, NOTICE_LIVE, NOTICE_DELETING };

/* No audience: missing (never created, or deleted); the deleting mark: being
 * deleted; otherwise live. */
enum notice_state notice_state_of(const roaring_bitmap_t *audiences);

/* A listing's ?state=: every live notice of the audience, the unread ones, the read ones. */
enum notice_list_state { NOTICE_LIST_ALL, NOTICE_LIST_UNREAD, NOTICE_LIST_READ };
/* "all", "unread", "read" (the API's names); false for anything else. */
bool notice_list_state_parse(const char *s, enum notice_list_state *out) WUR;
const char *notice_list_state_name(enum notice_list_state s);

/* A user's listing of one audience. index: the audience's live notices; read: those
 * of them the user read (read ⊆ index). Fills ids[0..limit) with the page of the
 * notices in state `state`, newest first (cursor: below `before`, as inbox_page),
 * *more when older ones remain, and the counts over the whole audience. Returns the
 * page's length; false in *ok when out of memory. */
struct notice_list_page {
    size_t n;
    bool more;
    uint64_t read, unread;
};
bool notice_list_page(const roaring_bitmap_t *index, const roaring_bitmap_t *read, enum notice_list_state state,
                      bool cursor, uint64_t before, size_t limit, uint32_t *ids, struct notice_list_page *out) WUR;

/* A notice's audience: the union of its audiences' users (users[0..n)) and how many of
 * them have not read it (not in readers). False when out of memory. */
bool notice_audience_counts(const roaring_bitmap_t *const *users, size_t n, const roaring_bitmap_t *readers,
                            uint64_t *size, uint64_t *unread) WUR;

#endif
