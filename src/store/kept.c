/* kept.c — decoded copies of big values this instance has just committed (kept.h). */
#include <stdlib.h>

#include "store/cache.h"
#include "store/kept.h"

struct kept {
    struct {
        struct cache_blob *blob; /* referenced; NULL: the slot is free */
        roaring_bitmap_t *bm;
    } slot[KEPT_MAX];
    unsigned next;               /* the slot a new copy takes when none is free */
};

struct kept *kept_new(void) { return calloc(1, sizeof(struct kept)); }

static void slot_clear(struct kept *k, unsigned i)
{
    cache_blob_unref(k->slot[i].blob);
    if (k->slot[i].bm) roaring_bitmap_free(k->slot[i].bm);
    k->slot[i].blob = NULL;
    k->slot[i].bm = NULL;
}

void kept_free(struct kept *k)
{
    if (!k) return;
    for (unsigned i = 0; i < KEPT_MAX; i++) slot_clear(k, i);
    free(k);
}

void kept_put(struct kept *k, struct cache_blob *blob, roaring_bitmap_t *bm)
{
    unsigned i = 0;
    /* a copy whose bits only this holds has left the cache: no row can name them again */
    for (unsigned j = 0; j < KEPT_MAX; j++)
        if (k->slot[j].blob && k->slot[j].blob->refs == 1) slot_clear(k, j);
    while (i < KEPT_MAX && k->slot[i].blob) i++;
    if (i == KEPT_MAX) { /* all taken: the oldest placed goes (round robin) */
        i = k->next;
        k->next = (k->next + 1) % KEPT_MAX;
        slot_clear(k, i);
    }
    blob->refs++;
    k->slot[i].blob = blob;
    k->slot[i].bm = bm;
}

roaring_bitmap_t *kept_take(struct kept *k, const uint8_t *bits)
{
    for (unsigned i = 0; i < KEPT_MAX; i++)
        if (k->slot[i].blob && k->slot[i].blob->data == bits) {
            roaring_bitmap_t *bm = k->slot[i].bm;
            k->slot[i].bm = NULL;
            slot_clear(k, i);
            return bm;
        }
    return NULL;
}

size_t kept_count(const struct kept *k)
{
    size_t n = 0;
    for (unsigned i = 0; i < KEPT_MAX; i++) n += k->slot[i].blob != NULL;
    return n;
}
