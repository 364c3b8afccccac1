/* notice.c — announcements (seed 004): create, re-address and delete notices, mark
 * them read or unread per user, list a user's notices of one audience with read and
 * unread counts, and stats. A notice's readers are one bitmap per notice, and
 * nothing is kept per user: a listing tests the user in the readers of each live
 * notice of the audience (docs/notices.md). Every state change is one
 * compare-and-swap of one unit of keys through wpath.
 *
 * This file holds the keys, the input rules and the state machine every write goes
 * through (notice_internal.h); the writes are in notice_writes.c, the reads in
 * notice_reads.c, and the rules on plain values (a notice's state, a listing's page
 * and counts, an audience's unread count) in notice_rules.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "domains/notices/notice_internal.h"
#include "domains/notices/notice_rules.h"
#include "store/codec.h"

/* ---- keys ----------------------------------------------------------------------- */

/* notice:{n}:audiences and so on: a listing names a key for every notice of an
 * audience, so no printf. buf holds NKEY_MAX bytes; the name is NUL-terminated. */
size_t nkey_name(char *buf, enum nkey kind, uint32_t n)
{
    static const struct {
        const char *prefix, *suffix;
    } parts[] = {
        [NK_AUDIENCES] = {"notice:", ":audiences"},
        [NK_READERS] = {"notice:", ":readers"},
        [NK_INDEX] = {"notice:audience:", ""},
        [NK_AUDIENCE_USERS] = {"notice:audience:", ":users"},
    };
    char digits[10];
    size_t nd = 0, len = strlen(parts[kind].prefix), slen = strlen(parts[kind].suffix);
    do {
        digits[nd++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    memcpy(buf, parts[kind].prefix, len);
    while (nd) buf[len++] = digits[--nd];
    memcpy(buf + len, parts[kind].suffix, slen + 1);
    return len + slen;
}

void nkey_set(struct wp_key *k, enum nkey kind, uint32_t n)
{
    char buf[NKEY_MAX];
    size_t len = nkey_name(buf, kind, n);
    if (!wp_key_set(k, buf, len)) abort(); /* at most 29 bytes: cannot fail */
}

/* One validated read of the named keys (bmload): false only when out of memory. */
bool nkeys_load(struct http_ctx *c, const struct nkey_ref *refs, size_t n, bmload_cb cb, void *arg)
{
    char(*names)[NKEY_MAX] = calloc(n ? n : 1, NKEY_MAX);
    const char **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
    size_t *lens = calloc(n ? n : 1, sizeof(*lens));
    bool ok = names && ptrs && lens;

    for (size_t i = 0; ok && i < n; i++) {
        lens[i] = nkey_name(names[i], refs[i].kind, refs[i].n);
        ptrs[i] = names[i];
    }
    ok = ok && bmload_start(c->app->store, ptrs, lens, n, http_load_flags(c), cb, arg);
    free(names);
    free(ptrs);
    free(lens);
    return ok;
}

/* ---- sets ------------------------------------------------------------------------ */

/* Audience ids of a notice as a JSON array (the deleting mark is not an audience). */
json_t *notice_audiences_json(const roaring_bitmap_t *audiences)
{
    json_t *arr = json_array();
    roaring_uint32_iterator_t *it = roaring_create_iterator(audiences);
    for (; it && it->has_value && it->current_value <= AUDIENCE_MAX; roaring_advance_uint32_iterator(it))
        json_array_append_new(arr, json_integer(it->current_value));
    if (it) roaring_free_uint32_iterator(it);
    return arr;
}

/* Members of bm as an ascending array of n uint32 (malloc'ed). */
uint32_t *notice_members_of(const roaring_bitmap_t *bm, size_t *n)
{
    *n = (size_t)roaring_bitmap_get_cardinality(bm);
    uint32_t *out = malloc((*n ? *n : 1) * sizeof(*out));
    if (out) roaring_bitmap_to_uint32_array(bm, out);
    return out;
}

/* ---- input ------------------------------------------------------------------------- */

/* Ids of body field `field` in [0, max] as a new bitmap; an absent field is an
 * empty set unless required. */
bool notice_body_set_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required,
                              roaring_bitmap_t **out)
{
    json_t *arr = json_object_get(c->body, field);
    int64_t *ids = NULL;
    size_t n = 0;

    *out = NULL;
    if (!arr && required) {
        http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return false;
    }
    if (arr && !http_json_ids_or_reply(c, arr, field, 0, max, &ids, &n)) return false;
    uint32_t *narrow = malloc((n ? n : 1) * sizeof(*narrow));
    if (narrow) {
        for (size_t i = 0; i < n; i++) narrow[i] = (uint32_t)ids[i];
        *out = roaring_bitmap_of_ptr(n, narrow);
    }
    free(ids);
    free(narrow);
    if (!*out) {
        http_reply_error(c, 500, "internal", "out of memory");
        return false;
    }
    return true;
}

/* "audiences": 1 … 64 distinct audience ids. */
bool notice_body_audiences_or_reply(struct http_ctx *c, roaring_bitmap_t **out)
{
    if (!notice_body_set_or_reply(c, "audiences", AUDIENCE_MAX, true, out)) return false;
    uint64_t n = roaring_bitmap_get_cardinality(*out);
    if (n >= 1 && n <= AUDIENCES_PER_NOTICE) return true;
    roaring_bitmap_free(*out);
    *out = NULL;
    http_reply_error(c, 400, "invalid_body", "'audiences' must hold 1 to %d distinct audience ids, not %llu",
                     AUDIENCES_PER_NOTICE, (unsigned long long)n);
    return false;
}

bool notice_param_id_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "notice id", NOTICE_ID_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

bool notice_param_user_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "user id", NOTICE_USER_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

bool notice_param_audience_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "audience id", AUDIENCE_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

bool notice_no_query_or_reply(struct http_ctx *c)
{
    static const char *const none[] = {NULL};
    return http_query_only_or_reply(c, none);
}

/* ---- writes: one state machine for every notice write ------------------------------- */

static const char *const step_names[] = {"new", "load", "create", "move", "delete", "mark", "users"};

static void nop_set_step(struct nop *n, enum nop_step step)
{
    log_debug("msg=\"notice step\" notice=%u from=%s to=%s", n->id, step_names[n->step], step_names[step]);
    n->step = step;
}

static void nop_free(struct nop *n)
{
    wpath_free(n->wp);
    if (n->want) roaring_bitmap_free(n->want);
    if (n->old) roaring_bitmap_free(n->old);
    if (n->users) roaring_bitmap_free(n->users);
    if (n->reject_body) json_decref(n->reject_body);
    free(n->key_aud);
    free(n);
}

/* The client left: the run in flight is abandoned (wpath starts no load for it;
 * a unit whose load has started runs to its commit, and the answer goes nowhere);
 * nothing further starts. */
static void nop_gone(struct http_ctx *c)
{
    struct nop *n = c->op;
    n->gone = true;
    log_debug("msg=\"notice client gone\" notice=%u step=%s", n->id, step_names[n->step]);
    if (n->wp) wpath_abandon(n->wp);
}

struct nop *nop_new(struct http_ctx *c, enum nop_kind kind, uint32_t id)
{
    struct nop *n = calloc(1, sizeof(*n));
    if (!n) {
        http_reply_error(c, 500, "internal", "out of memory");
        return NULL;
    }
    n->c = c;
    n->kind = kind;
    n->id = id;
    c->op = n;
    c->on_gone = nop_gone;
    return n;
}

/* The replies: each answers the client and frees n. */
void nop_reply(struct nop *n, int status, json_t *body, int64_t etag)
{
    http_reply_json(n->c, status, body, etag);
    nop_free(n);
}

void nop_error(struct nop *n, int status, const char *code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    http_reply_error(n->c, status, code, "%s", msg);
    nop_free(n);
}

static void nop_fail_wp(struct nop *n, enum wp_status st, const char *msg)
{
    http_reply_wp_failure(n->c, st, msg);
    nop_free(n);
}

static void nop_fail_load(struct nop *n, enum bmload_status st, const char *msg)
{
    http_reply_bmload_failure(n->c, st, msg);
    nop_free(n);
}

void nop_fail_gone(struct nop *n)
{
    nop_fail_wp(n, WP_FAILED, "client went away");
}

enum wp_mutation nop_reject(struct nop *n, int status, const char *code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n->reject_body) json_decref(n->reject_body);
    n->reject_status = status;
    n->reject_body = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
    return WP_REJECT;
}

/* One unit of nkeys keys for a run of n, or answers 500, frees n and returns NULL. */
struct wpath *nop_unit(struct nop *n, int nkeys, const struct wpath_ops *ops)
{
    struct wpath *wp = wpath_new(n->c->app->store, n->c->app->cfg, 1, ops, n, false);
    if (wp && wpath_unit_keys(&wpath_units(wp)[0], nkeys)) return wp;
    wpath_free(wp);
    nop_error(n, 500, "internal", "out of memory");
    return NULL;
}

/* Starts the run; n may be freed before this returns (a run can end at once). */
void nop_run(struct nop *n, enum nop_step step, struct wpath *wp)
{
    nop_set_step(n, step);
    n->wp = wp;
    wpath_run(wp);
}

/* In a done() callback: true when the run ended and its unit did not fail (a unit
 * that mutate() refused is left to the caller); otherwise answers, frees n, false. */
bool nop_run_ok_or_reply(struct nop *n, struct wpath *wp, enum wp_status st, const char *msg)
{
    struct wp_unit *u = &wpath_units(wp)[0];
    if (st != WP_OK) {
        nop_fail_wp(n, st, n->gone ? "client went away" : msg);
        return false;
    }
    if (u->status == WP_OK || u->status == WP_REJECTED) return true;
    http_reply_unit_failure(n->c, u);
    nop_free(n);
    return false;
}

/* The unit of the run was refused by mutate(): an answer of its own, or a restart. */
bool notice_unit_rejected(struct wpath *wp)
{
    return wpath_units(wp)[0].status == WP_REJECTED;
}

void nop_reply_rejection(struct nop *n)
{
    json_t *body = n->reject_body;
    n->reject_body = NULL;
    nop_reply(n, n->reject_status, body, -1);
}

/* Counts a restart of a PUT/DELETE whose notice changed under it; false (answered) past the bound. */
bool nop_restart_or_reply(struct nop *n)
{
    n->restart = false;
    if (++n->restarts <= RESTARTS_MAX) return true;
    nop_error(n, 503, "conflict_retries_exhausted",
              "notice %u kept changing while this request ran; try again", n->id);
    return false;
}

/* Keys [first …] of u: the index key of each audience of set (the deleting mark is
 * not one), in ascending order; returns the position after the last. */
int notice_set_index_keys(struct wp_unit *u, int first, const roaring_bitmap_t *set)
{
    int k = first;
    roaring_uint32_iterator_t *it = roaring_create_iterator(set);
    for (; it && it->has_value && it->current_value <= AUDIENCE_MAX && k < u->nkeys;
         roaring_advance_uint32_iterator(it))
        nkey_set(&u->keys[k++], NK_INDEX, it->current_value);
    if (it) roaring_free_uint32_iterator(it);
    return k;
}

/* How many audiences of set have an index key. */
int notice_index_keys_of(const roaring_bitmap_t *set)
{
    return (int)roaring_bitmap_range_cardinality(set, 0, (uint64_t)AUDIENCE_MAX + 1);
}

/* ---- loading a notice's audiences (PUT and DELETE build their key lists from it; a mark checks it) ---- */


static void nop_audiences_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                                 struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nop *n = arg;
    if (st != BMLOAD_OK)
        nop_fail_load(n, st, msg);
    else if (n->gone)
        nop_fail_gone(n);
    else if (n->kind == NOP_MOVE)
        move_loaded(n, &keys[0]);
    else if (n->kind == NOP_MARK)
        mark_loaded(n, &keys[0]);
    else
        delete_loaded(n, &keys[0]);
    bmload_free(l);
}

void nop_load_audiences(struct nop *n)
{
    struct nkey_ref ref = {NK_AUDIENCES, n->id};
    nop_set_step(n, STEP_LOAD);
    if (!nkeys_load(n->c, &ref, 1, nop_audiences_loaded, n)) nop_error(n, 500, "internal", "out of memory");
}
