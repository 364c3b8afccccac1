/* receipts.h — the arithmetic of a group message's read receipts (seed 001's
 * {maxid, readbit[], quitbit[]}), pure: no I/O, unit-tested on its own.
 *
 * A message's receipts are ONE bitmap with two interleaved planes over the group's
 * dense member ids k (0 .. RECEIPTS_MEMBER_MAX):
 *   bit 2k      member k is eligible: a member (not left) when the message was
 *               sent, and not its sender;
 *   bit 2k + 1  member k has read it (only ever set together with bit 2k);
 * and one marker: the sender s has bit 2s + 1 without bit 2s, the only odd bit
 * without its even partner. The marker makes a recorded message non-empty even
 * when nobody is eligible (the sender alone in the group), so an empty bitmap (or
 * a missing row) always means "never recorded"; it also names the sender.
 * The seed's maxid is implicit (the highest eligible member), its quitbits are
 * the gaps in the even plane. */
#ifndef BITMAPD_RECEIPTS_H
#define BITMAPD_RECEIPTS_H

#include <roaring/roaring.h>

#include "core/common.h"

/* Largest member id: its read bit 2k + 1 must be a 32-bit offset. */
#define RECEIPTS_MEMBER_MAX 2147483647u

#define RECEIPTS_ELIGIBLE_BIT(k) ((uint32_t)(k) * 2u)
#define RECEIPTS_READ_BIT(k) ((uint32_t)(k) * 2u + 1u)

struct receipts_counts {
    uint64_t eligible; /* members counted: eligible at send time */
    uint64_t read;     /* eligible members that have read */
    uint64_t unread;   /* eligible − read */
    bool has_sender;   /* a sender marker was found (always, for rows this service wrote) */
    uint32_t sender;   /* the sender's member id, when has_sender */
};

/* The send-time bitmap: an eligible bit for every member id in members[0..n)
 * (any order, duplicates allowed) except the sender, and the sender's marker.
 * Returns NULL when an id (or the sender) is above RECEIPTS_MEMBER_MAX or on out of
 * memory. Caller frees with roaring_bitmap_free(). */
roaring_bitmap_t *receipts_build(const uint32_t *members, size_t n, uint32_t sender) WUR;

/* True when bm holds a recorded message (it has any member at all). */
bool receipts_recorded(const roaring_bitmap_t *bm);

/* Counts both planes in one pass over bm. A read bit without its eligible bit is
 * not counted as a read; the first such bit is taken as the sender's marker. */
void receipts_count(const roaring_bitmap_t *bm, struct receipts_counts *out);

enum receipts_mark {
    RECEIPTS_MARKED,       /* the read bit was set now (bm changed) */
    RECEIPTS_ALREADY_READ, /* it was already set (bm unchanged) */
    RECEIPTS_NOT_ELIGIBLE, /* member was not a member when the message was sent */
    RECEIPTS_IS_SENDER,    /* member sent the message: senders are not counted */
};

/* Marks member's read bit if member is eligible. Changes bm only for RECEIPTS_MARKED. */
enum receipts_mark receipts_mark_read(roaring_bitmap_t *bm, uint32_t member);

/* True when member is eligible and has read. */
bool receipts_has_read(const roaring_bitmap_t *bm, uint32_t member);

enum receipts_list { RECEIPTS_LIST_READ, RECEIPTS_LIST_UNREAD };

/* One page of a list: the eligible member ids that have read (or not), ascending,
 * strictly greater than `after` (-1: from the first), at most `limit` of them into
 * out[0..limit). *more is set when the list goes on past the page (then the last
 * id returned is the cursor for the next page). Returns how many were written. */
size_t receipts_page(const roaring_bitmap_t *bm, enum receipts_list which, int64_t after, size_t limit,
                     uint32_t *out, bool *more);

#endif
