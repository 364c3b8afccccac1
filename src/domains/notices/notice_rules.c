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

/* Content equality that does not depend on container kinds (a loaded bitmap may hold
 * runs where a freshly built one holds an array). */
static bool same_set(const roaring_bitmap_t *a, const roaring_bitmap_t *b)
{
    uint64_t n = roaring_bitmap_get_cardinality(a);
    return n == roaring_bitmap_get_cardinality(b) && roaring_bitmap_and_cardinality(a, b) == n;
}

static void set_to(roaring_bitmap_t *dst, const roaring_bitmap_t *src)
{
    roaring_bitmap_clear(dst);
    roaring_bitmap_or_inplace(dst, src);
}

enum notice_verdict notice_apply_create(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *want,
                                  const roaring_bitmap_t *prereaders, bool *created)
{
    enum notice_state state = notice_state_of(u->audiences);
    bool any = false;

    *created = false;
    if (state == NOTICE_DELETING) return NV_DELETING;
    if (state == NOTICE_LIVE && !same_set(u->audiences, want)) return NV_OTHER_AUDIENCES;
    if (state == NOTICE_MISSING) { /* a new notice has only its preread readers */
        *created = true;
        set_to(u->audiences, want);
        u->dirty[0] = any = true;
        if (!roaring_bitmap_is_empty(u->readers)) {
            roaring_bitmap_clear(u->readers);
            u->dirty[1] = true;
        }
    }
    uint64_t before = roaring_bitmap_get_cardinality(u->readers);
    roaring_bitmap_or_inplace(u->readers, prereaders);
    if (roaring_bitmap_get_cardinality(u->readers) != before) u->dirty[1] = any = true;
    for (size_t i = 0; i < u->nindex; i++) { /* also repairs an index that lost the id */
        if (roaring_bitmap_contains(u->index[i], id)) continue;
        roaring_bitmap_add(u->index[i], id);
        u->dirty[2 + i] = any = true;
    }
    return any ? NV_CHANGED : NV_UNCHANGED;
}

enum notice_verdict notice_apply_move(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *built_from,
                                const roaring_bitmap_t *want)
{
    if (!same_set(u->audiences, built_from)) return NV_RESTART; /* changed since the key list was built */
    if (same_set(u->audiences, want)) return NV_UNCHANGED;
    for (size_t i = 0; i < u->nindex; i++) {
        bool in = roaring_bitmap_contains(want, u->index_aud[i]);
        if (in == roaring_bitmap_contains(u->index[i], id)) continue;
        if (in)
            roaring_bitmap_add(u->index[i], id);
        else
            roaring_bitmap_remove(u->index[i], id);
        u->dirty[2 + i] = true;
    }
    set_to(u->audiences, want);
    u->dirty[0] = true;
    return NV_CHANGED;
}

enum notice_verdict notice_apply_delete(const struct notice_unit *u, uint32_t id, const roaring_bitmap_t *built_from,
                                  uint64_t *readers_removed)
{
    *readers_removed = 0;
    if (notice_state_of(u->audiences) == NOTICE_MISSING) return NV_MISSING;
    if (!same_set(u->audiences, built_from)) return NV_RESTART; /* re-addressed since the key list was built */
    for (size_t i = 0; i < u->nindex; i++) {
        if (!roaring_bitmap_contains(u->index[i], id)) continue;
        roaring_bitmap_remove(u->index[i], id);
        u->dirty[2 + i] = true;
    }
    *readers_removed = roaring_bitmap_get_cardinality(u->readers);
    if (*readers_removed) {
        roaring_bitmap_clear(u->readers);
        u->dirty[1] = true;
    }
    roaring_bitmap_clear(u->audiences);
    u->dirty[0] = true;
    return NV_CHANGED;
}

enum notice_verdict notice_apply_mark(const struct notice_unit *u, uint32_t user, bool read)
{
    enum notice_state state = notice_state_of(u->audiences);
    if (state == NOTICE_MISSING) return NV_MISSING;
    if (state == NOTICE_DELETING) return NV_DELETING;
    if (roaring_bitmap_contains(u->readers, user) == read) return NV_UNCHANGED;
    if (read)
        roaring_bitmap_add(u->readers, user);
    else
        roaring_bitmap_remove(u->readers, user);
    u->dirty[1] = true;
    return NV_CHANGED;
}

enum notice_verdict notice_apply_audience_users(roaring_bitmap_t *users, bool found, const roaring_bitmap_t *given,
                                          bool replace, bool *changed)
{
    uint64_t before = roaring_bitmap_get_cardinality(users);
    if (replace) {
        *changed = !same_set(users, given);
        if (*changed) set_to(users, given);
    } else {
        roaring_bitmap_or_inplace(users, given);
        *changed = roaring_bitmap_get_cardinality(users) != before;
    }
    return *changed || !found ? NV_CHANGED : NV_UNCHANGED;
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
