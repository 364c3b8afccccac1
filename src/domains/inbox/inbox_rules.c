/* inbox_rules.c — the message box's rules on plain values (inbox_rules.h). */
#include "domains/inbox/inbox_rules.h"

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
