/* notice_rules.c — the rules of announcements on plain values (notice_rules.h). */
#include "domains/notices/notice_rules.h"

#include <string.h>

#include "domains/inbox/inbox_rules.h" /* inbox_page: newest-first paging by rank */

static const char *const list_state_names[] = {"all", "unread", "read"};

enum notice_state notice_state_of(const roaring_bitmap_t *audiences)
{
    if (roaring_bitmap_is_empty(audiences)) return NOTICE_MISSING;
    return roaring_bitmap_contains(audiences, NOTICE_DELETING_MARK) ? NOTICE_DELETING : NOTICE_LIVE;
}

bool notice_list_state_parse(const char *s, enum notice_list_state *out)
{
    for (size_t i = 0; i < ARRAY_LEN(list_state_names); i++)
        if (strcmp(s, list_state_names[i]) == 0) {
            *out = (enum notice_list_state)i;
            return true;
        }
    return false;
}

const char *notice_list_state_name(enum notice_list_state s) { return list_state_names[s]; }

bool notice_list_page(const roaring_bitmap_t *index, const roaring_bitmap_t *read, enum notice_list_state state,
                      bool cursor, uint64_t before, size_t limit, uint32_t *ids, struct notice_list_page *out)
{
    roaring_bitmap_t *pick = state == NOTICE_LIST_READ     ? roaring_bitmap_copy(read)
                             : state == NOTICE_LIST_UNREAD ? roaring_bitmap_andnot(index, read)
                                                           : roaring_bitmap_copy(index);
    if (!pick) return false;
    out->read = roaring_bitmap_get_cardinality(read);
    out->unread = roaring_bitmap_get_cardinality(index) - out->read;
    out->more = false;
    out->n = inbox_page(pick, cursor, 0, before, limit, ids, &out->more);
    roaring_bitmap_free(pick);
    return true;
}

bool notice_audience_counts(const roaring_bitmap_t *const *users, size_t n, const roaring_bitmap_t *readers,
                            uint64_t *size, uint64_t *unread)
{
    roaring_bitmap_t *all = roaring_bitmap_create();
    if (!all) return false;
    for (size_t i = 0; i < n; i++) roaring_bitmap_or_inplace(all, users[i]);
    *size = roaring_bitmap_get_cardinality(all);
    *unread = *size - roaring_bitmap_and_cardinality(all, readers);
    roaring_bitmap_free(all);
    return true;
}
