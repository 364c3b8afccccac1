/* unread.c — seed 001's unread counts over HTTP: system notices (the global bitmap
 * `broadcasts` and a last-seen cursor per user, cleared when idle), red dots (a
 * setting number per dot and the number each user clicked) and feed unread (posts
 * per author, followees as the bitmap feed:following:{user}, post-count snapshots).
 * Bitmaps are written through wpath; every scalar changes in one statement.
 *
 * This file holds what the three share (unread_internal.h); the handlers are in
 * unread_broadcasts.c, unread_reddots.c and unread_feed.c, and the rules they apply,
 * as functions of plain values, in unread_rules.c. */
#include "domains/unread/unread.h"

#include <event2/event.h>
#include <event2/http.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "domains/unread/unread_internal.h"
#include "domains/unread/unread_rules.h"


const char *const ur_no_names[] = {NULL};

/* ---- helpers ------------------------------------------------------------------------ */

void ur_reply_oom(struct http_ctx *c) { http_reply_error(c, 500, "internal", "out of memory"); }

const char *ur_num(struct num *n, int64_t v)
{
    snprintf(n->s, sizeof(n->s), "%lld", (long long)v);
    return n->s;
}

/* Bodies that are optional: absent, or an object of the listed fields only. */
bool ur_optional_body_or_reply(struct http_ctx *c, const char *const *fields)
{
    return !c->body || http_body_fields_or_reply(c, fields);
}

/* An id field of the body in [0, max]: missing is 400 invalid_body when required,
 * anything but such an integer is 400 invalid_id. */
bool ur_body_id_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required, int64_t *out,
                             bool *present)
{
    json_t *v = c->body ? json_object_get(c->body, field) : NULL;
    *present = v != NULL;
    if (!v) {
        if (required) http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return !required;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) {
        http_reply_error(c, 400, "invalid_id", "'%s' must be an integer from 0 to %lld", field, (long long)max);
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

json_t *ur_json_id_or_null(bool present, int64_t v)
{
    return present ? json_integer((json_int_t)v) : json_null();
}

json_t *ur_newest_json(const roaring_bitmap_t *bm)
{
    return roaring_bitmap_is_empty(bm) ? json_null() : json_integer(roaring_bitmap_maximum(bm));
}

/* The members of bm as a JSON array, ascending; NULL when out of memory. */
json_t *ur_members_json(const roaring_bitmap_t *bm)
{
    uint64_t n = roaring_bitmap_get_cardinality(bm);
    uint32_t *ids = malloc((size_t)(n ? n : 1) * sizeof(*ids));
    json_t *arr = json_array();
    if (!ids || !arr) goto err;
    roaring_bitmap_to_uint32_array(bm, ids);
    for (uint64_t i = 0; i < n; i++)
        if (json_array_append_new(arr, json_integer(ids[i])) != 0) goto err;
    free(ids);
    return arr;
err:
    free(ids);
    json_decref(arr);
    return NULL;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* The members of bm as an int8[] in PostgreSQL's binary array format (a query
 * parameter of format 1). Caller frees *out. False when out of memory or too big
 * for one parameter. */
bool ur_int8_array_of(const roaring_bitmap_t *bm, uint8_t **out, int *len)
{
    uint64_t n = roaring_bitmap_get_cardinality(bm);
    uint32_t *ids = NULL;
    uint8_t *buf, *p;
    size_t size;

    if (n > (uint64_t)(INT_MAX - 20) / 12) return false;
    size = n ? 20 + 12 * (size_t)n : 12;
    if (!(buf = malloc(size)) || (n && !(ids = malloc((size_t)n * sizeof(*ids))))) {
        free(buf);
        return false;
    }
    put_be32(buf, n ? 1 : 0);   /* dimensions (an empty array has none) */
    put_be32(buf + 4, 0);       /* no NULLs */
    put_be32(buf + 8, INT8OID); /* element type */
    if (n) {
        put_be32(buf + 12, (uint32_t)n); /* length */
        put_be32(buf + 16, 1);           /* lower bound */
        roaring_bitmap_to_uint32_array(bm, ids);
        p = buf + 20;
        for (uint64_t i = 0; i < n; i++, p += 12) {
            put_be32(p, 8);
            put_be64(p + 4, ids[i]);
        }
    }
    free(ids);
    *out = buf;
    *len = (int)size;
    return true;
}

/* Starts a read-only load of one bitmap; answers 500 itself when out of memory. */
bool ur_load_one_or_reply(struct http_ctx *c, const char *key, size_t len, bmload_cb cb, void *arg)
{
    const char *names[1] = {key};
    size_t lens[1] = {len};
    if (bmload_start(c->app->store, names, lens, 1, http_load_flags(c), cb, arg)) return true;
    ur_reply_oom(c);
    return false;
}

/* Starts a statement answered by cb(arg); answers 500 itself when out of memory. */
bool ur_query_or_reply(struct http_ctx *c, const char *sql, int n, const struct db_param *p, db_cb cb,
                           void *arg)
{
    if (db_query(c->app->db, sql, n, p, cb, arg)) return true;
    ur_reply_oom(c);
    return false;
}

/* ---- one-key writes through wpath ----------------------------------------------------- */

static void write_gone(struct http_ctx *c) { wpath_abandon(c->op); }

/* A write path of one unit holding the one key; NULL when out of memory. */
struct wpath *ur_one_key_write(struct http_ctx *c, const char *key, size_t keylen,
                                   const struct wpath_ops *ops, void *arg)
{
    struct wpath *wp = wpath_new(c->app->store, c->app->cfg, 1, ops, arg, false);
    if (!wp) return NULL;
    struct wp_unit *u = &wpath_units(wp)[0];
    u->nkeys = 1;
    if (!wp_key_set(&u->keys[0], key, keylen)) {
        wpath_free(wp);
        return NULL;
    }
    return wp;
}

/* Runs wp for c; a client that leaves abandons it (done() is still called). */
void ur_one_key_run(struct http_ctx *c, struct wpath *wp)
{
    c->op = wp;
    c->on_gone = write_gone;
    wpath_run(wp);
}
