/* inbox_rules.c — the message box's rules on plain values (inbox_rules.h). */
#include "domains/inbox/inbox_rules.h"

#include "store/codec.h" /* codec_keep_from */

size_t inbox_page(const roaring_bitmap_t *bm, bool cursor, uint64_t skip, uint64_t before,
                  size_t limit, uint32_t *out, bool *more)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    uint64_t top; /* number of members eligible for this page, counted from the bottom */
    size_t n;

    if (cursor)
        top = before == 0 ? 0 : before > UINT32_MAX ? card : roaring_bitmap_rank(bm, (uint32_t)(before - 1));
    else
        top = skip >= card ? 0 : card - skip;
    n = top < limit ? (size_t)top : limit;
    *more = top > n;
    if (n == 0) return 0;
    if (!roaring_bitmap_range_uint32_array(bm, (size_t)(top - n), n, out)) return 0;
    for (size_t i = 0; i < n / 2; i++) { /* ascending → newest first */
        uint32_t t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

enum inbox_verdict inbox_apply(enum inbox_op op, roaring_bitmap_t **push, roaring_bitmap_t **read,
                               const uint32_t *ids, size_t nids, bool force, uint32_t bound,
                               struct inbox_change *out)
{
    uint64_t before_push = roaring_bitmap_get_cardinality(*push);
    uint64_t before_read = roaring_bitmap_get_cardinality(*read);

    *out = (struct inbox_change){0};
    switch (op) {
    case INBOX_PUSH:
        roaring_bitmap_add_many(*push, nids, ids);
        break;
    case INBOX_READ:
        if (!force) {
            for (size_t i = 0; i < nids; i++) {
                if (roaring_bitmap_contains(*push, ids[i])) continue;
                if (out->not_pushed < INBOX_NOT_PUSHED_LIST_MAX) out->first_not_pushed[out->not_pushed] = ids[i];
                out->not_pushed++;
            }
            if (out->not_pushed) return INBOX_NOT_PUSHED;
        }
        roaring_bitmap_add_many(*read, nids, ids);
        break;
    case INBOX_READ_ALL:
        roaring_bitmap_or_inplace(*read, *push);
        break;
    case INBOX_RETRACT:
        if (nids) {
            roaring_bitmap_remove(*push, ids[0]);
            roaring_bitmap_remove(*read, ids[0]);
        }
        break;
    case INBOX_DROP: {
        roaring_bitmap_t *p2 = codec_keep_from(*push, bound), *r2 = codec_keep_from(*read, bound);
        if (!p2 || !r2) {
            if (p2) roaring_bitmap_free(p2);
            if (r2) roaring_bitmap_free(r2);
            return INBOX_NO_MEMORY;
        }
        out->pushed_before = before_push;
        roaring_bitmap_free(*push);
        roaring_bitmap_free(*read);
        *push = p2;
        *read = r2;
        break;
    }
    }
    out->pushed = roaring_bitmap_get_cardinality(*push);
    if (op == INBOX_READ || op == INBOX_READ_ALL) out->unread = inbox_unread_count(*push, *read);
    /* the records only grow (push, read) or only shrink (retract, drop): a change is a
     * change of count */
    out->push_changed = out->pushed != before_push;
    out->read_changed = roaring_bitmap_get_cardinality(*read) != before_read;
    return INBOX_DONE;
}

uint64_t inbox_page_skip(int64_t page, size_t limit)
{
    if (page < 1 || limit == 0) return 0;
    return (uint64_t)(page - 1) > UINT64_MAX / limit ? UINT64_MAX : (uint64_t)(page - 1) * limit;
}

uint64_t inbox_unread_count(const roaring_bitmap_t *push, const roaring_bitmap_t *read)
{
    return roaring_bitmap_get_cardinality(push) - roaring_bitmap_and_cardinality(push, read);
}

uint64_t inbox_count_between(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t below_hi = hi == 0 ? 0 : hi > UINT32_MAX ? roaring_bitmap_get_cardinality(bm)
                                                      : roaring_bitmap_rank(bm, (uint32_t)(hi - 1));
    uint64_t below_lo = lo == 0 ? 0 : lo > UINT32_MAX ? roaring_bitmap_get_cardinality(bm)
                                                      : roaring_bitmap_rank(bm, (uint32_t)(lo - 1));
    return below_hi > below_lo ? below_hi - below_lo : 0;
}

void inbox_period_counts(const roaring_bitmap_t *push, const roaring_bitmap_t *read, const uint64_t *firsts,
                         size_t n, struct inbox_period_count *out)
{
    uint64_t lo = 0;
    for (size_t i = 0; i <= n; i++) {
        uint64_t hi = i < n ? firsts[i] : (uint64_t)UINT32_MAX + 1;
        out[i] = (struct inbox_period_count){lo, inbox_count_between(push, lo, hi), inbox_count_between(read, lo, hi)};
        lo = hi;
    }
}
