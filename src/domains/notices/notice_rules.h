/* notice_rules.h — the rules of announcements on plain values (no HTTP, no database),
 * unit-tested in tests/test_notice_rules.c: a notice's state from its audiences; the
 * writes — create, change of audiences, the delete protocol, read marks, an
 * audience's users — applied to the bitmaps they loaded; a user's listing of one
 * audience (which notices, read and unread counts, the page); and a notice's audience
 * size and unread count. The handlers (notice_reads.c, notice_writes.c) load the
 * bitmaps, call these, commit what they changed and answer. */
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

/* ---- writes ---------------------------------------------------------------------------
 * A write sees the bitmaps of its unit as loaded: the notice's audiences, its readers
 * (not for a change of audiences), and the index (the notice ids of one audience) of
 * each audience concerned. It changes them in place and sets dirty[] for each one it
 * changed: dirty[0] the audiences, dirty[1] the readers, dirty[2 + i] index[i]. A
 * verdict other than NV_CHANGED or NV_UNCHANGED changes nothing. */
struct notice_unit {
    roaring_bitmap_t *audiences, *readers;
    roaring_bitmap_t **index;
    const uint32_t *index_aud; /* the audience of each index (a change of audiences) */
    size_t nindex;
    bool *dirty;               /* 2 + nindex entries, cleared by the caller */
};

enum notice_verdict {
    NV_CHANGED,         /* something to commit */
    NV_UNCHANGED,       /* already so: nothing to commit */
    NV_MISSING,         /* no such notice (deleted meanwhile, or never created) */
    NV_DELETING,        /* an older version's delete did not finish (the deleting mark) */
    NV_OTHER_AUDIENCES, /* create: the id is taken by a notice of other audiences */
    NV_RESTART,         /* the audiences are not those the unit's keys were chosen from:
                           load them again and build the unit again */
};

/* Create notice id for the audiences `want`, with prereaders as readers, indexed in
 * every audience's index (index[i] for the i-th member of want). Creating it again
 * with the same audiences adds the prereaders and repairs an index that lost the id
 * (*created false); a new notice starts with its prereaders alone. */
enum notice_verdict notice_apply_create(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *want,
                                  const roaring_bitmap_t *prereaders, bool *created);
/* Re-address notice id from `built_from` (the audiences the unit's index keys were
 * chosen for: built_from ∪ want) to `want`: the id leaves the indexes of the
 * audiences it loses and joins those it gains. */
enum notice_verdict notice_apply_move(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *built_from,
                                const roaring_bitmap_t *want);
/* Delete notice id, whose audiences were `built_from` when its index keys were
 * chosen: one commit empties the audiences and the readers and takes the id out of
 * every index, so the id is free again; *readers_removed is how many read it. */
enum notice_verdict notice_apply_delete(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *built_from,
                                  uint64_t *readers_removed);
/* Mark notice (audiences, readers) read or unread by user. */
enum notice_verdict notice_apply_mark(const struct notice_unit *u, uint32_t user, bool read);
/* Set (replace) or add to the users of an audience, *users. An audience never given
 * its users has no row: writing even an empty set makes it a known, empty audience
 * (found false). */
enum notice_verdict notice_apply_audience_users(roaring_bitmap_t *users, bool found, const roaring_bitmap_t *given,
                                          bool replace, bool *changed);

/* ---- reads ---------------------------------------------------------------------------- */

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
