/* bmload.c — one store_load() plus validation and decoding of every row. */
#include "store/bmload.h"

#include <stdlib.h>
#include <string.h>

#include "store/wpath.h"

struct bmload {
    bmload_cb cb;
    void *arg;
    size_t n;
    char **names;
    size_t *lens;
    struct bmload_key *keys;
};

void bmload_free(struct bmload *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n; i++) {
        if (l->names) free(l->names[i]);
        if (l->keys && l->keys[i].bm) roaring_bitmap_free(l->keys[i].bm);
    }
    free(l->names);
    free(l->lens);
    free(l->keys);
    free(l);
}

static void bmload_loaded(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct bmload *l = arg;
    char why[WP_KEY_MAX + 200];

    if (st != STORE_OK) {
        l->cb(l, st == STORE_UNAVAILABLE ? BMLOAD_UNAVAILABLE : BMLOAD_FAILED,
              err ? err : "query failed", NULL, 0, l->arg);
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        struct bmload_key *k = &l->keys[i];
        k->found = rows[i].found;
        k->version = rows[i].found ? rows[i].version : 0;
        k->nbytes = rows[i].found ? rows[i].nbytes : -1;
        k->expire_ms = rows[i].found ? rows[i].expire_ms : 0;
        k->bm = rows[i].found ? wpath_decode_row(l->names[i], l->lens[i], &rows[i], why, sizeof(why))
                              : roaring_bitmap_create();
        if (!k->bm) {
            l->cb(l, rows[i].found ? BMLOAD_CORRUPT : BMLOAD_FAILED,
                  rows[i].found ? why : "out of memory", NULL, 0, l->arg);
            return;
        }
    }
    l->cb(l, BMLOAD_OK, NULL, l->keys, l->n, l->arg);
}

bool bmload_start(struct store *st, const char *const *names, const size_t *lens, size_t n, unsigned flags,
                  bmload_cb cb, void *arg)
{
    struct bmload *l = calloc(1, sizeof(*l));
    struct store_key *sk = NULL;
    if (!l) return false;
    l->cb = cb;
    l->arg = arg;
    l->n = n;
    l->names = calloc(n ? n : 1, sizeof(*l->names));
    l->lens = calloc(n ? n : 1, sizeof(*l->lens));
    l->keys = calloc(n ? n : 1, sizeof(*l->keys));
    sk = calloc(n ? n : 1, sizeof(*sk));
    if (!l->names || !l->lens || !l->keys || !sk) goto fail;
    for (size_t i = 0; i < n; i++) {
        if (!(l->names[i] = malloc(lens[i] ? lens[i] : 1))) goto fail;
        memcpy(l->names[i], names[i], lens[i]);
        l->lens[i] = lens[i];
        sk[i] = (struct store_key){(const uint8_t *)l->names[i], lens[i]};
    }
    if (!store_load(st, sk, n, flags, bmload_loaded, l)) goto fail;
    free(sk);
    return true;
fail:
    free(sk);
    bmload_free(l);
    return false;
}
