/* receipts.c — two-plane receipts bitmaps (eligible bit 2k, read bit 2k+1, sender
 * marker 2s+1 alone): build at send time, count, mark read, page through a list.
 * Uses only CRoaring calls that 0.2.66 gets right (no range functions). */
#include "domains/receipts/receipts.h"

#include <stdlib.h>

#define PAGE_CHUNK 256 /* members fetched per rank/select step while paging */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

roaring_bitmap_t *receipts_build(const uint32_t *members, size_t n, uint32_t sender)
{
    uint32_t *bits;
    size_t m = 0;
    roaring_bitmap_t *bm;

    if (sender > RECEIPTS_MEMBER_MAX || !(bits = malloc((n + 1) * sizeof(*bits)))) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (members[i] > RECEIPTS_MEMBER_MAX) {
            free(bits);
            return NULL;
        }
        if (members[i] != sender) bits[m++] = RECEIPTS_ELIGIBLE_BIT(members[i]);
    }
    bits[m++] = RECEIPTS_READ_BIT(sender);
    qsort(bits, m, sizeof(*bits), cmp_u32); /* add_many is fastest in order */
    bm = roaring_bitmap_create();
    if (bm) roaring_bitmap_add_many(bm, m, bits);
    free(bits);
    return bm;
}

bool receipts_recorded(const roaring_bitmap_t *bm) { return !roaring_bitmap_is_empty(bm); }

struct count_state {
    struct receipts_counts *c;
    bool have_prev;
    uint32_t prev;
};

static bool count_one(uint32_t v, void *arg)
{
    struct count_state *s = arg;
    if ((v & 1u) == 0) {
        s->c->eligible++;
    } else if (s->have_prev && s->prev == v - 1) {
        s->c->read++;
    } else if (!s->c->has_sender) {
        s->c->has_sender = true;
        s->c->sender = v / 2;
    }
    s->prev = v;
    s->have_prev = true;
    return true;
}

void receipts_count(const roaring_bitmap_t *bm, struct receipts_counts *out)
{
    struct count_state s = {out, false, 0};
    *out = (struct receipts_counts){0};
    roaring_iterate(bm, count_one, &s);
    out->unread = out->eligible - out->read;
}

enum receipts_mark receipts_mark_read(roaring_bitmap_t *bm, uint32_t member)
{
    if (member > RECEIPTS_MEMBER_MAX) return RECEIPTS_NOT_ELIGIBLE;
    if (!roaring_bitmap_contains(bm, RECEIPTS_ELIGIBLE_BIT(member)))
        return roaring_bitmap_contains(bm, RECEIPTS_READ_BIT(member)) ? RECEIPTS_IS_SENDER : RECEIPTS_NOT_ELIGIBLE;
    if (roaring_bitmap_contains(bm, RECEIPTS_READ_BIT(member))) return RECEIPTS_ALREADY_READ;
    roaring_bitmap_add(bm, RECEIPTS_READ_BIT(member));
    return RECEIPTS_MARKED;
}

bool receipts_has_read(const roaring_bitmap_t *bm, uint32_t member)
{
    return member <= RECEIPTS_MEMBER_MAX && roaring_bitmap_contains(bm, RECEIPTS_ELIGIBLE_BIT(member)) &&
           roaring_bitmap_contains(bm, RECEIPTS_READ_BIT(member));
}

size_t receipts_page(const roaring_bitmap_t *bm, enum receipts_list which, int64_t after, size_t limit,
                     uint32_t *out, bool *more)
{
    uint64_t start = after < 0 ? 0 : 2 * ((uint64_t)after + 1); /* first eligible bit after the cursor */
    uint64_t card = roaring_bitmap_get_cardinality(bm), idx;
    uint32_t buf[PAGE_CHUNK];
    size_t n = 0;

    *more = false;
    if (start > UINT32_MAX) return 0;
    /* rank gives the position of the first member >= start: the cost does not grow with the cursor */
    idx = start == 0 ? 0 : roaring_bitmap_rank(bm, (uint32_t)(start - 1));
    while (idx < card) {
        size_t take = card - idx < PAGE_CHUNK ? (size_t)(card - idx) : PAGE_CHUNK;
        if (!roaring_bitmap_range_uint32_array(bm, (size_t)idx, take, buf)) break;
        for (size_t i = 0; i < take; i++) {
            uint32_t v = buf[i];
            if (v & 1u) continue; /* a read bit or the sender's marker */
            bool read = i + 1 < take ? buf[i + 1] == v + 1 : roaring_bitmap_contains(bm, v + 1);
            if (read != (which == RECEIPTS_LIST_READ)) continue;
            if (n == limit) {
                *more = true;
                return n;
            }
            out[n++] = v / 2;
        }
        idx += take;
    }
    return n;
}
