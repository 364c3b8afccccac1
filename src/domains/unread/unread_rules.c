/* unread_rules.c — the rules of the unread counts on plain values (unread_rules.h). */
#include "domains/unread/unread_rules.h"

uint64_t unread_count_upto(const roaring_bitmap_t *bm, int64_t x)
{
    if (x < 0) return 0;
    if (x >= (int64_t)UINT32_MAX) return roaring_bitmap_get_cardinality(bm);
    return roaring_bitmap_rank(bm, (uint32_t)x);
}

uint64_t unread_broadcasts_after(const roaring_bitmap_t *list, bool has_cursor, int64_t last_seen)
{
    if (!has_cursor) return 0;
    return roaring_bitmap_get_cardinality(list) - unread_count_upto(list, last_seen);
}

int64_t unread_seen_target(const roaring_bitmap_t *list, bool has_id, int64_t id)
{
    if (has_id) return id;
    return roaring_bitmap_is_empty(list) ? -1 : (int64_t)roaring_bitmap_maximum(list);
}

bool unread_reddot_name_valid(const char *s, size_t len)
{
    if (len == 0 || len > UNREAD_REDDOT_NAME_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '.' || ch == ':' || ch == '-';
        if (!ok) return false;
    }
    return true;
}
