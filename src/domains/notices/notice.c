/* notice.c — announcements (seed 004): create, re-address and delete notices, mark
 * them read or unread per user, list a user's notices of one audience with read and
 * unread counts, and stats. A notice's readers are one bitmap per notice, and
 * nothing is kept per user: a listing tests the user in the readers of each live
 * notice of the audience (docs/notices.md). Every state change is one
 * compare-and-swap of one unit of keys through wpath. */
#include "domains/notices/notice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "http/http.h"
#include "domains/inbox/inbox_rules.h" /* inbox_page: newest-first paging by rank */
#include "core/log.h"
#include "store/wpath.h"

#define NOTICE_ID_MAX 4294967295LL
#define NOTICE_USER_MAX 4294967295LL
#define AUDIENCE_MAX 65535
#define AUDIENCES_PER_NOTICE 64
#define DELETING_MARK UINT32_MAX /* sole member of notice:{id}:audiences while an older version's delete ran */
#define RESTARTS_MAX 5           /* re-reads of a notice (or an index) that kept changing under a request */
#define NKEY_MAX 48

/* ---- keys ----------------------------------------------------------------------- */

enum nkey { NK_AUDIENCES, NK_READERS, NK_INDEX, NK_AUDIENCE_USERS };

/* notice:{n}:audiences and so on: a listing names a key for every notice of an
 * audience, so no printf. buf holds NKEY_MAX bytes; the name is NUL-terminated. */
static size_t nkey_name(char *buf, enum nkey kind, uint32_t n)
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

static void nkey_set(struct wp_key *k, enum nkey kind, uint32_t n)
{
    char buf[NKEY_MAX];
    size_t len = nkey_name(buf, kind, n);
    if (!wp_key_set(k, buf, len)) abort(); /* at most 29 bytes: cannot fail */
}

struct nkey_ref {
    enum nkey kind;
    uint32_t n;
};

/* One validated read of the named keys (bmload): false only when out of memory. */
static bool nkeys_load(struct http_ctx *c, const struct nkey_ref *refs, size_t n, bmload_cb cb, void *arg)
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

enum notice_state { NOTICE_MISSING, NOTICE_LIVE, NOTICE_DELETING };

static enum notice_state notice_state_of(const roaring_bitmap_t *audiences)
{
    if (roaring_bitmap_is_empty(audiences)) return NOTICE_MISSING;
    return roaring_bitmap_contains(audiences, DELETING_MARK) ? NOTICE_DELETING : NOTICE_LIVE;
}

/* Content equality that does not depend on container kinds (a loaded bitmap may hold
 * runs where a freshly built one holds an array). */
static bool same_set(const roaring_bitmap_t *a, const roaring_bitmap_t *b)
{
    uint64_t n = roaring_bitmap_get_cardinality(a);
    return n == roaring_bitmap_get_cardinality(b) && roaring_bitmap_and_cardinality(a, b) == n;
}

/* Replaces the content of dst with src. */
static void set_to(roaring_bitmap_t *dst, const roaring_bitmap_t *src)
{
    roaring_bitmap_clear(dst);
    roaring_bitmap_or_inplace(dst, src);
}

/* Audience ids of a notice as a JSON array (the deleting mark is not an audience). */
static json_t *audiences_json(const roaring_bitmap_t *audiences)
{
    json_t *arr = json_array();
    roaring_uint32_iterator_t *it = roaring_create_iterator(audiences);
    for (; it && it->has_value && it->current_value <= AUDIENCE_MAX; roaring_advance_uint32_iterator(it))
        json_array_append_new(arr, json_integer(it->current_value));
    if (it) roaring_free_uint32_iterator(it);
    return arr;
}

/* Members of bm as an ascending array of n uint32 (malloc'ed). */
static uint32_t *members_of(const roaring_bitmap_t *bm, size_t *n)
{
    *n = (size_t)roaring_bitmap_get_cardinality(bm);
    uint32_t *out = malloc((*n ? *n : 1) * sizeof(*out));
    if (out) roaring_bitmap_to_uint32_array(bm, out);
    return out;
}

/* ---- input ------------------------------------------------------------------------- */

/* Ids of body field `field` in [0, max] as a new bitmap; an absent field is an
 * empty set unless required. */
static bool body_set_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required,
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
static bool body_audiences_or_reply(struct http_ctx *c, roaring_bitmap_t **out)
{
    if (!body_set_or_reply(c, "audiences", AUDIENCE_MAX, true, out)) return false;
    uint64_t n = roaring_bitmap_get_cardinality(*out);
    if (n >= 1 && n <= AUDIENCES_PER_NOTICE) return true;
    roaring_bitmap_free(*out);
    *out = NULL;
    http_reply_error(c, 400, "invalid_body", "'audiences' must hold 1 to %d distinct audience ids, not %llu",
                     AUDIENCES_PER_NOTICE, (unsigned long long)n);
    return false;
}

static bool param_notice_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "notice id", NOTICE_ID_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

static bool param_user_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "user id", NOTICE_USER_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

static bool param_audience_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (!http_param_int_or_reply(c, idx, "audience id", AUDIENCE_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

static bool no_query_or_reply(struct http_ctx *c)
{
    static const char *const none[] = {NULL};
    return http_query_only_or_reply(c, none);
}

/* ---- writes: one state machine for every notice write ------------------------------- */

enum nop_kind { NOP_CREATE, NOP_MOVE, NOP_DELETE, NOP_MARK, NOP_AUDIENCE };

/* Where a write stands; every change goes through nop_set_step(). Each write is one
 * unit: a client that leaves before the unit's load starts abandons it whole, after
 * that the unit runs to its commit. */
enum nop_step {
    STEP_NEW,
    STEP_LOAD,   /* PUT, DELETE, mark: reading notice:{id}:audiences (PUT, DELETE build their key lists from it) */
    STEP_CREATE, /* POST: unit {audiences, readers, index keys of the audiences} */
    STEP_MOVE,   /* PUT: unit {audiences, index keys of old ∪ new audiences} */
    STEP_DELETE, /* DELETE: unit {audiences, readers, index keys}: all emptied, the id is free */
    STEP_MARK,   /* read mark: unit {audiences (version check only), readers} */
    STEP_USERS,  /* audience users: unit {notice:audience:{aud}:users} */
};

static const char *const step_names[] = {"new", "load", "create", "move", "delete", "mark", "users"};

struct nop {
    struct http_ctx *c;
    enum nop_kind kind;
    enum nop_step step;
    struct wpath *wp;        /* the run in flight, if any */
    bool gone;               /* the client left: the run in flight is abandoned */
    uint32_t id;             /* the notice (the audience for NOP_AUDIENCE) */
    uint32_t user;           /* NOP_MARK */
    bool read;               /* NOP_MARK: the mark wanted */
    bool replace;            /* NOP_AUDIENCE: PUT replaces the users, POST adds */
    roaring_bitmap_t *want;  /* audiences asked for (create, move); users (audience) */
    roaring_bitmap_t *old;   /* audiences the key list was built from (move, delete) */
    roaring_bitmap_t *users; /* preread users of the body (create) */
    uint32_t *key_aud;       /* move: the audience of index key k+1 */
    int restarts;
    int64_t version;   /* of notice:{id}:audiences, as answered */
    bool created;      /* create: this request made the notice */
    bool changed;      /* move, mark, audience: something changed */
    bool restart;      /* mutate() saw other audiences than the key list was built from */
    uint64_t count;    /* create: readers after; delete: readers removed */
    int reject_status; /* set with reject_body when mutate() refuses */
    json_t *reject_body;
};

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

static struct nop *nop_new(struct http_ctx *c, enum nop_kind kind, uint32_t id)
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
static void nop_reply(struct nop *n, int status, json_t *body, int64_t etag)
{
    http_reply_json(n->c, status, body, etag);
    nop_free(n);
}

static void nop_error(struct nop *n, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void nop_error(struct nop *n, int status, const char *code, const char *fmt, ...)
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

static void nop_fail_gone(struct nop *n)
{
    nop_fail_wp(n, WP_FAILED, "client went away");
}

static enum wp_mutation nop_reject(struct nop *n, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum wp_mutation nop_reject(struct nop *n, int status, const char *code, const char *fmt, ...)
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
static struct wpath *nop_unit(struct nop *n, int nkeys, const struct wpath_ops *ops)
{
    struct wpath *wp = wpath_new(n->c->app->store, n->c->app->cfg, 1, ops, n, false);
    if (wp && wpath_unit_keys(&wpath_units(wp)[0], nkeys)) return wp;
    wpath_free(wp);
    nop_error(n, 500, "internal", "out of memory");
    return NULL;
}

/* Starts the run; n may be freed before this returns (a run can end at once). */
static void nop_run(struct nop *n, enum nop_step step, struct wpath *wp)
{
    nop_set_step(n, step);
    n->wp = wp;
    wpath_run(wp);
}

/* In a done() callback: true when the run ended and its unit did not fail (a unit
 * that mutate() refused is left to the caller); otherwise answers, frees n, false. */
static bool nop_run_ok_or_reply(struct nop *n, struct wpath *wp, enum wp_status st, const char *msg)
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
static bool unit_rejected(struct wpath *wp)
{
    return wpath_units(wp)[0].status == WP_REJECTED;
}

static void nop_reply_rejection(struct nop *n)
{
    json_t *body = n->reject_body;
    n->reject_body = NULL;
    nop_reply(n, n->reject_status, body, -1);
}

/* Counts a restart of a PUT/DELETE whose notice changed under it; false (answered) past the bound. */
static bool nop_restart_or_reply(struct nop *n)
{
    n->restart = false;
    if (++n->restarts <= RESTARTS_MAX) return true;
    nop_error(n, 503, "conflict_retries_exhausted",
              "notice %u kept changing while this request ran; try again", n->id);
    return false;
}

/* Keys [first …] of u: the index key of each audience of set (the deleting mark is
 * not one), in ascending order; returns the position after the last. */
static int set_index_keys(struct wp_unit *u, int first, const roaring_bitmap_t *set)
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
static int index_keys_of(const roaring_bitmap_t *set)
{
    return (int)roaring_bitmap_range_cardinality(set, 0, (uint64_t)AUDIENCE_MAX + 1);
}

/* ---- loading a notice's audiences (PUT and DELETE build their key lists from it; a mark checks it) ---- */

static void move_loaded(struct nop *n, struct bmload_key *audiences);
static void delete_loaded(struct nop *n, struct bmload_key *audiences);
static void mark_loaded(struct nop *n, struct bmload_key *audiences);

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

static void nop_load_audiences(struct nop *n)
{
    struct nkey_ref ref = {NK_AUDIENCES, n->id};
    nop_set_step(n, STEP_LOAD);
    if (!nkeys_load(n->c, &ref, 1, nop_audiences_loaded, n)) nop_error(n, 500, "internal", "out of memory");
}

/* ---- create ------------------------------------------------------------------------------ */

/* keys: [0] audiences, [1] readers, [2 …] the index key of each audience. The
 * preread users become readers in the same commit as the notice. */
static enum wp_mutation create_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *aud = u->keys[0].bm, *readers = u->keys[1].bm;
    enum notice_state state = notice_state_of(aud);
    uint64_t before;
    bool any = false;

    n->created = false;
    if (state == NOTICE_DELETING)
        return nop_reject(n, 409, "notice_deleting",
                          "notice %u is being deleted; DELETE it again to finish, then create it", n->id);
    if (state == NOTICE_LIVE && !same_set(aud, n->want))
        return nop_reject(n, 409, "notice_exists",
                          "notice %u exists with other audiences; PUT /v1/notices/%u changes them", n->id, n->id);
    if (state == NOTICE_MISSING) { /* a new notice has only its preread readers */
        n->created = true;
        set_to(aud, n->want);
        u->keys[0].dirty = any = true;
        if (!roaring_bitmap_is_empty(readers)) {
            roaring_bitmap_clear(readers);
            u->keys[1].dirty = true;
        }
    }
    before = roaring_bitmap_get_cardinality(readers);
    roaring_bitmap_or_inplace(readers, n->users);
    if (roaring_bitmap_get_cardinality(readers) != before) u->keys[1].dirty = any = true;
    for (int k = 2; k < u->nkeys; k++) { /* also repairs an index that lost the id */
        if (roaring_bitmap_contains(u->keys[k].bm, n->id)) continue;
        roaring_bitmap_add(u->keys[k].bm, n->id);
        u->keys[k].dirty = any = true;
    }
    return any ? WP_CHANGED : WP_UNCHANGED;
}

static void create_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (unit_rejected(wp)) {
        nop_reply_rejection(n);
        return;
    }
    n->version = u->keys[0].version;
    n->count = roaring_bitmap_get_cardinality(u->keys[1].bm);
    json_t *out = json_pack("{s:I,s:o,s:b,s:I,s:I,s:I}", "id", (json_int_t)n->id, "audiences",
                            audiences_json(n->want), "created", n->created, "readers", (json_int_t)n->count,
                            "preread", (json_int_t)roaring_bitmap_get_cardinality(n->users), "version",
                            (json_int_t)n->version);
    nop_reply(n, n->created ? 201 : 200, out, n->version);
}

static const struct wpath_ops create_ops = {.mutate = create_mutate, .done = create_done};

/* Reads body field "id" as a notice id (400 invalid_id otherwise). */
static bool body_notice_id_or_reply(struct http_ctx *c, uint32_t *out)
{
    json_t *v = json_object_get(c->body, "id");
    if (!v) {
        http_reply_error(c, 400, "invalid_body", "'id' is required");
        return false;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > NOTICE_ID_MAX) {
        http_reply_error(c, 400, "invalid_id", "'id' must be an integer from 0 to %lld", NOTICE_ID_MAX);
        return false;
    }
    *out = (uint32_t)json_integer_value(v);
    return true;
}

/* POST /v1/notices {"id": n, "audiences": [audience ids], "preread": [user ids]} */
void notice_create(struct http_ctx *c)
{
    static const char *const fields[] = {"id", "audiences", "preread", NULL};
    roaring_bitmap_t *want = NULL, *preread = NULL;
    uint32_t id;
    struct nop *n;
    struct wpath *wp;

    if (!no_query_or_reply(c) || !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields) ||
        !body_notice_id_or_reply(c, &id) || !body_audiences_or_reply(c, &want))
        return;
    if (!body_set_or_reply(c, "preread", NOTICE_USER_MAX, false, &preread) ||
        !(n = nop_new(c, NOP_CREATE, id))) {
        roaring_bitmap_free(want);
        if (preread) roaring_bitmap_free(preread);
        return;
    }
    n->want = want;
    n->users = preread;
    if (!(wp = nop_unit(n, 2 + index_keys_of(want), &create_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, id);
    nkey_set(&u->keys[1], NK_READERS, id);
    set_index_keys(u, 2, want);
    nop_run(n, STEP_CREATE, wp);
}

/* ---- move: change a notice's audiences ---------------------------------------------------- */

/* keys: [0] audiences, [1 …] the index key of each audience in old ∪ want (key_aud). */
static enum wp_mutation move_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *aud = u->keys[0].bm;

    n->changed = n->restart = false;
    if (n->c->has_if_match && n->c->if_match != u->keys[0].version)
        return nop_reject(n, 412, "precondition_failed", "notice %u is at version %lld, not %lld", n->id,
                          (long long)u->keys[0].version, (long long)n->c->if_match);
    if (!same_set(aud, n->old)) { /* changed since the key list was built: build it again */
        n->restart = true;
        return WP_REJECT;
    }
    if (same_set(aud, n->want)) return WP_UNCHANGED;
    for (int k = 1; k < u->nkeys; k++) {
        roaring_bitmap_t *index = u->keys[k].bm;
        bool in = roaring_bitmap_contains(n->want, n->key_aud[k - 1]);
        if (in == roaring_bitmap_contains(index, n->id)) continue;
        if (in)
            roaring_bitmap_add(index, n->id);
        else
            roaring_bitmap_remove(index, n->id);
        u->keys[k].dirty = true;
    }
    set_to(aud, n->want);
    u->keys[0].dirty = n->changed = true;
    return WP_CHANGED;
}

static void move_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (unit_rejected(wp) && !n->restart) {
        nop_reply_rejection(n);
        return;
    }
    bool restart = n->restart;
    n->version = u->keys[0].version;
    wpath_free(wp);
    n->wp = NULL;
    if (n->gone) {
        nop_fail_gone(n);
    } else if (restart) {
        if (nop_restart_or_reply(n)) nop_load_audiences(n);
    } else {
        json_t *out = json_pack("{s:I,s:o,s:o,s:b,s:I}", "id", (json_int_t)n->id, "audiences",
                                audiences_json(n->want), "previous", audiences_json(n->old), "changed",
                                n->changed, "version", (json_int_t)n->version);
        nop_reply(n, 200, out, n->version);
    }
}

static const struct wpath_ops move_ops = {.mutate = move_mutate, .done = move_done};

static void move_loaded(struct nop *n, struct bmload_key *audiences)
{
    enum notice_state state = notice_state_of(audiences->bm);
    roaring_bitmap_t *all;
    struct wpath *wp;
    size_t nall = 0;

    if (state == NOTICE_MISSING) {
        nop_error(n, 404, "not_found", "no notice %u", n->id);
        return;
    }
    if (state == NOTICE_DELETING) {
        nop_error(n, 409, "notice_deleting", "notice %u is being deleted; DELETE it again to finish", n->id);
        return;
    }
    if (n->old) roaring_bitmap_free(n->old);
    n->old = audiences->bm;
    audiences->bm = NULL;
    free(n->key_aud);
    all = roaring_bitmap_or(n->old, n->want);
    n->key_aud = all ? members_of(all, &nall) : NULL;
    if (all) roaring_bitmap_free(all);
    if (!n->key_aud) {
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    if (!(wp = nop_unit(n, 1 + (int)nall, &move_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    for (size_t i = 0; i < nall; i++) nkey_set(&u->keys[1 + i], NK_INDEX, n->key_aud[i]);
    nop_run(n, STEP_MOVE, wp);
}

/* PUT /v1/notices/{id} {"audiences": [audience ids]} */
void notice_update(struct http_ctx *c)
{
    static const char *const fields[] = {"audiences", NULL};
    roaring_bitmap_t *want;
    uint32_t id;
    struct nop *n;

    if (!param_notice_or_reply(c, 0, &id) || !no_query_or_reply(c) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !body_audiences_or_reply(c, &want))
        return;
    if (!(n = nop_new(c, NOP_MOVE, id))) {
        roaring_bitmap_free(want);
        return;
    }
    n->want = want;
    nop_load_audiences(n);
}

/* ---- delete: one unit, the notice gone from every index with its readers ---------------------- */

/* keys: [0] audiences, [1] readers, [2 …] the index key of each audience it was
 * read with. Versions never repeat for a key (rows are emptied, never removed), so
 * a stale compare-and-swap cannot succeed against a re-created id. */
static enum wp_mutation delete_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *aud = u->keys[0].bm, *readers = u->keys[1].bm;

    n->restart = false;
    if (notice_state_of(aud) == NOTICE_MISSING)
        return nop_reject(n, 404, "not_found", "notice %u was deleted by another request while this one ran",
                          n->id);
    if (!same_set(aud, n->old)) { /* re-addressed since the key list was built */
        n->restart = true;
        return WP_REJECT;
    }
    for (int k = 2; k < u->nkeys; k++) {
        if (!roaring_bitmap_contains(u->keys[k].bm, n->id)) continue;
        roaring_bitmap_remove(u->keys[k].bm, n->id);
        u->keys[k].dirty = true;
    }
    n->count = roaring_bitmap_get_cardinality(readers);
    if (n->count) {
        roaring_bitmap_clear(readers);
        u->keys[1].dirty = true;
    }
    roaring_bitmap_clear(aud);
    u->keys[0].dirty = true;
    return WP_CHANGED;
}

static void delete_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (unit_rejected(wp) && !n->restart) {
        nop_reply_rejection(n);
        return;
    }
    bool restart = n->restart;
    wpath_free(wp);
    n->wp = NULL;
    if (!restart)
        nop_reply(n, 200,
                  json_pack("{s:I,s:b,s:I}", "id", (json_int_t)n->id, "deleted", true, "read_records",
                            (json_int_t)n->count),
                  -1);
    else if (n->gone)
        nop_fail_gone(n);
    else if (nop_restart_or_reply(n))
        nop_load_audiences(n);
}

static const struct wpath_ops delete_ops = {.mutate = delete_mutate, .done = delete_done};

/* A notice left "deleting" by an older version's delete is finished the same way:
 * its audiences are the mark alone, so the unit has no index key. */
static void delete_loaded(struct nop *n, struct bmload_key *audiences)
{
    struct wpath *wp;

    if (notice_state_of(audiences->bm) == NOTICE_MISSING) {
        nop_error(n, 404, "not_found", "no notice %u", n->id);
        return;
    }
    if (n->old) roaring_bitmap_free(n->old);
    n->old = audiences->bm;
    audiences->bm = NULL;
    if (!(wp = nop_unit(n, 2 + index_keys_of(n->old), &delete_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    set_index_keys(u, 2, n->old);
    nop_run(n, STEP_DELETE, wp);
}

/* DELETE /v1/notices/{id} */
void notice_delete(struct http_ctx *c)
{
    uint32_t id;
    struct nop *n;

    if (!param_notice_or_reply(c, 0, &id) || !no_query_or_reply(c) || !(n = nop_new(c, NOP_DELETE, id)))
        return;
    nop_load_audiences(n);
}

/* ---- read marks ------------------------------------------------------------------------ */

/* keys: [0] audiences (never written: the mark commits only if they are still at the
 * version its unit loaded, so never onto a notice deleted after that load), [1]
 * readers. Marks of one notice from
 * many clients merge into one commit of its readers (wpath trains). */
static enum wp_mutation mark_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    enum notice_state state = notice_state_of(u->keys[0].bm);
    roaring_bitmap_t *readers = u->keys[1].bm;

    n->changed = false;
    if (state == NOTICE_MISSING) return nop_reject(n, 404, "not_found", "no notice %u", n->id);
    if (state == NOTICE_DELETING) return nop_reject(n, 404, "not_found", "notice %u is being deleted", n->id);
    if (roaring_bitmap_contains(readers, n->user) == n->read) return WP_UNCHANGED;
    if (n->read)
        roaring_bitmap_add(readers, n->user);
    else
        roaring_bitmap_remove(readers, n->user);
    u->keys[1].dirty = n->changed = true;
    wp_key_flipped(&u->keys[1], n->user);
    return WP_CHANGED;
}

static void mark_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (unit_rejected(wp)) {
        nop_reply_rejection(n);
        return;
    }
    nop_reply(n, 200,
              json_pack("{s:I,s:I,s:b,s:b}", "notice", (json_int_t)n->id, "user", (json_int_t)n->user, "read",
                        n->read, "changed", n->changed),
              -1);
}

static const struct wpath_ops mark_ops = {.mutate = mark_mutate, .done = mark_done, .merge = true};

/* The notice was read without creating anything: a mark of a missing or deleting
 * notice is 404 and writes no row (the write path would create its rows empty).
 * A notice deleted after this read is caught by mark_mutate(). */
static void mark_loaded(struct nop *n, struct bmload_key *audiences)
{
    enum notice_state state = notice_state_of(audiences->bm);
    struct wpath *wp;

    if (state != NOTICE_LIVE) {
        nop_error(n, 404, "not_found", state == NOTICE_MISSING ? "no notice %u" : "notice %u is being deleted",
                  n->id);
        return;
    }
    if (!(wp = nop_unit(n, 2, &mark_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    nop_run(n, STEP_MARK, wp);
}

/* PUT /v1/notices/{id}/reads/{user} {"read": true|false} */
void notice_mark(struct http_ctx *c)
{
    static const char *const fields[] = {"read", NULL};
    uint32_t id, user;
    bool read;
    struct nop *n;

    if (!param_notice_or_reply(c, 0, &id) || !param_user_or_reply(c, 1, &user) || !no_query_or_reply(c) ||
        !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields))
        return;
    if (!json_object_get(c->body, "read")) {
        http_reply_error(c, 400, "invalid_body", "'read' is required");
        return;
    }
    if (!http_body_bool_or_reply(c, "read", &read) || !(n = nop_new(c, NOP_MARK, id))) return;
    n->user = user;
    n->read = read;
    nop_load_audiences(n);
}

/* ---- audience users ---------------------------------------------------------------------- */

static enum wp_mutation users_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *bm = u->keys[0].bm;
    uint64_t before = roaring_bitmap_get_cardinality(bm);

    if (n->replace) {
        n->changed = !same_set(bm, n->want);
        if (n->changed) set_to(bm, n->want);
    } else {
        roaring_bitmap_or_inplace(bm, n->want);
        n->changed = roaring_bitmap_get_cardinality(bm) != before;
    }
    /* an audience whose users were never given has no row: writing even an empty set
     * makes it a known (empty) audience */
    u->keys[0].dirty = n->changed || !u->keys[0].found;
    return u->keys[0].dirty ? WP_CHANGED : WP_UNCHANGED;
}

static void users_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    int64_t version = u->keys[0].version;
    nop_reply(n, 200,
              json_pack("{s:I,s:I,s:b,s:I}", "audience", (json_int_t)n->id, "users",
                        (json_int_t)roaring_bitmap_get_cardinality(u->keys[0].bm), "changed", n->changed,
                        "version", (json_int_t)version),
              version);
}

static const struct wpath_ops users_ops = {.mutate = users_mutate, .done = users_done};

static void audience_users(struct http_ctx *c, bool replace)
{
    static const char *const fields[] = {"users", NULL};
    uint32_t aud;
    roaring_bitmap_t *want;
    struct nop *n;
    struct wpath *wp;

    if (!param_audience_or_reply(c, 0, &aud) || !no_query_or_reply(c) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !body_set_or_reply(c, "users", NOTICE_USER_MAX, true, &want))
        return;
    if (!(n = nop_new(c, NOP_AUDIENCE, aud))) {
        roaring_bitmap_free(want);
        return;
    }
    n->want = want;
    n->replace = replace;
    if (!(wp = nop_unit(n, 1, &users_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCE_USERS, aud);
    nop_run(n, STEP_USERS, wp);
}

/* PUT /v1/audiences/{aud}/users {"users": [user ids]} */
void notice_audience_set(struct http_ctx *c) { audience_users(c, true); }

/* POST /v1/audiences/{aud}/users {"users": [user ids]} */
void notice_audience_add(struct http_ctx *c) { audience_users(c, false); }


/* ---- reads ----------------------------------------------------------------------------------- */

enum list_state { LIST_ALL, LIST_UNREAD, LIST_READ };
static const char *const list_state_names[] = {"all", "unread", "read"};

struct nread {
    struct http_ctx *c;
    uint32_t id, user, aud;
    enum list_state state;
    size_t limit;
    bool cursor;
    uint64_t before;
    roaring_bitmap_t *audiences, *readers; /* stats: from the first load */
    roaring_bitmap_t *index;               /* listing: the audience's notices the second load asks about */
    uint32_t *ids;                         /* listing: index as an array; readers key k+1 is notice ids[k] */
    size_t nids;
    char (*names)[NKEY_MAX];               /* listing: the key names of the second load */
    int restarts;
    int64_t version;
};

static void nread_free(struct nread *r)
{
    if (r->audiences) roaring_bitmap_free(r->audiences);
    if (r->readers) roaring_bitmap_free(r->readers);
    if (r->index) roaring_bitmap_free(r->index);
    free(r->ids);
    free(r->names);
    free(r);
}

static struct nread *nread_new(struct http_ctx *c)
{
    struct nread *r = calloc(1, sizeof(*r));
    if (!r) http_reply_error(c, 500, "internal", "out of memory");
    if (r) r->c = c;
    return r;
}

static void nread_start(struct nread *r, const struct nkey_ref *refs, size_t n, bmload_cb cb)
{
    if (nkeys_load(r->c, refs, n, cb, r)) return;
    http_reply_error(r->c, 500, "internal", "out of memory");
    nread_free(r);
}

/* The first load of a GET about one notice: false (answered, r freed) unless it is live. */
static bool nread_live_or_reply(struct nread *r, enum bmload_status st, const char *msg, struct bmload_key *keys)
{
    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
    } else if (notice_state_of(keys[0].bm) == NOTICE_MISSING) {
        http_reply_error(r->c, 404, "not_found", "no notice %u", r->id);
    } else if (notice_state_of(keys[0].bm) == NOTICE_DELETING) {
        http_reply_error(r->c, 404, "not_found", "notice %u is being deleted", r->id);
    } else {
        return true;
    }
    nread_free(r);
    return false;
}

/* keys: [0] the notice's audiences, [1] its readers. */
static void is_read_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                           size_t nkeys, void *arg)
{
    struct nread *r = arg;
    if (nread_live_or_reply(r, st, msg, keys)) {
        http_reply_json(r->c, 200,
                        json_pack("{s:I,s:I,s:b}", "notice", (json_int_t)r->id, "user", (json_int_t)r->user,
                                  "read", roaring_bitmap_contains(keys[1].bm, r->user)),
                        -1);
        nread_free(r);
    }
    bmload_free(l);
}

/* GET /v1/notices/{id}/reads/{user} */
void notice_is_read(struct http_ctx *c)
{
    uint32_t id, user;
    struct nread *r;

    if (!param_notice_or_reply(c, 0, &id) || !param_user_or_reply(c, 1, &user) || !no_query_or_reply(c) ||
        !(r = nread_new(c)))
        return;
    r->id = id;
    r->user = user;
    struct nkey_ref refs[2] = {{NK_AUDIENCES, id}, {NK_READERS, id}};
    nread_start(r, refs, 2, is_read_loaded);
}

/* The listing. Two loads: the audience's index, then the index again with the
 * readers of every notice in it, all in one load (the cache, and one statement for
 * what it lacks), so that counts and page come from rows read together. A notice
 * added to the index between the two loads starts the second load again. The user is
 * looked up in each readers row where it lies, reading only the container that can
 * hold the user when the row's bytes are known good (codec_contains). */

static void list_index_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                              struct bmload_key *keys, size_t nkeys, void *arg);

/* Is r->user a reader, by the row of key names[k]? false with why filled when the row is corrupt. */
static bool row_has_user(const struct nread *r, size_t k, const struct store_row *row, bool *member, char *why,
                         size_t whylen)
{
    roaring_bitmap_t *bm;

    *member = false;
    if (!row->found) return true;
    if (row->checked && codec_contains(row->bits, row->len, r->user, member)) return true;
    if (!(bm = wpath_decode_row(r->names[k], strlen(r->names[k]), row, why, whylen))) return false;
    *member = roaring_bitmap_contains(bm, r->user);
    roaring_bitmap_free(bm);
    return true;
}

/* Answers the page of pick (the notices of state r->state) and the counts. */
static void list_answer(struct nread *r, const roaring_bitmap_t *index, const roaring_bitmap_t *read)
{
    uint64_t both = roaring_bitmap_get_cardinality(read);
    roaring_bitmap_t *pick = r->state == LIST_READ     ? roaring_bitmap_copy(read)
                             : r->state == LIST_UNREAD ? roaring_bitmap_andnot(index, read)
                                                       : roaring_bitmap_copy(index);
    uint32_t *ids = malloc(r->limit * sizeof(*ids));
    bool more = false;

    if (!pick || !ids) {
        http_reply_error(r->c, 500, "internal", "out of memory");
    } else {
        size_t n = inbox_page(pick, r->cursor, 0, r->before, r->limit, ids, &more);
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(list, json_integer(ids[i]));
        json_t *out = json_pack("{s:I,s:I,s:s,s:I,s:I,s:o}", "audience", (json_int_t)r->aud, "user",
                                (json_int_t)r->user, "state", list_state_names[r->state], "read",
                                (json_int_t)both, "unread",
                                (json_int_t)(roaring_bitmap_get_cardinality(index) - both), "notices", list);
        json_object_set_new(out, "next_before", more && n ? json_integer(ids[n - 1]) : json_null());
        http_reply_json(r->c, 200, out, -1);
    }
    if (pick) roaring_bitmap_free(pick);
    free(ids);
}

/* The answer from index and rows[k], the readers row of notice r->ids[k] (named
 * r->names[k + 1]); index ⊆ the ids. Answers in every case. */
static void list_from_rows(struct nread *r, const roaring_bitmap_t *index, const struct store_row *rows)
{
    roaring_bitmap_t *read = roaring_bitmap_create();
    char why[WP_KEY_MAX + 200];
    bool member;

    if (!read) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        return;
    }
    for (size_t k = 0; k < r->nids; k++) {
        if (!roaring_bitmap_contains(index, r->ids[k])) continue; /* deleted meanwhile */
        if (!row_has_user(r, k + 1, &rows[k], &member, why, sizeof(why))) {
            http_reply_bmload_failure(r->c, BMLOAD_CORRUPT, why);
            roaring_bitmap_free(read);
            return;
        }
        if (member) roaring_bitmap_add(read, r->ids[k]);
    }
    list_answer(r, index, read);
    roaring_bitmap_free(read);
}

/* rows: [0] the index, [k + 1] the readers of notice r->ids[k]. */
static void list_rows_loaded(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct nread *r = arg;
    roaring_bitmap_t *index = NULL;
    char why[WP_KEY_MAX + 200];

    if (st != STORE_OK) {
        http_reply_bmload_failure(r->c, st == STORE_UNAVAILABLE ? BMLOAD_UNAVAILABLE : BMLOAD_FAILED,
                                  err ? err : "query failed");
        goto done;
    }
    if (!(index = rows[0].found ? wpath_decode_row(r->names[0], strlen(r->names[0]), &rows[0], why, sizeof(why))
                                : roaring_bitmap_create())) {
        http_reply_bmload_failure(r->c, rows[0].found ? BMLOAD_CORRUPT : BMLOAD_FAILED,
                                  rows[0].found ? why : "out of memory");
        goto done;
    }
    /* a notice was added meanwhile: ask again (a cardinality test, as same_set: no
     * subset test between containers of different kinds) */
    if (roaring_bitmap_and_cardinality(index, r->index) != roaring_bitmap_get_cardinality(index)) {
        if (++r->restarts > RESTARTS_MAX) {
            http_reply_error(r->c, 503, "conflict_retries_exhausted",
                             "the notices of audience %u kept changing while this request ran; try again", r->aud);
            goto done;
        }
        struct nkey_ref ref = {NK_INDEX, r->aud};
        roaring_bitmap_free(index);
        nread_start(r, &ref, 1, list_index_loaded);
        return;
    }
    list_from_rows(r, index, rows + 1);
done:
    if (index) roaring_bitmap_free(index);
    nread_free(r);
}

/* r->ids and r->names (the index key first, then the readers key of each id) from
 * r->index, and the store keys for them (sk: nids + 1 of them, malloc'ed); false
 * when out of memory. */
static bool list_keys(struct nread *r, struct store_key **sk)
{
    free(r->ids);
    free(r->names);
    r->names = NULL;
    *sk = NULL;
    if (!(r->ids = members_of(r->index, &r->nids)) || !(r->names = malloc((r->nids + 1) * NKEY_MAX)) ||
        !(*sk = malloc((r->nids + 1) * sizeof(**sk))))
        return false;
    for (size_t k = 0; k <= r->nids; k++) {
        size_t len = k ? nkey_name(r->names[k], NK_READERS, r->ids[k - 1]) : nkey_name(r->names[0], NK_INDEX, r->aud);
        (*sk)[k] = (struct store_key){(const uint8_t *)r->names[k], len};
    }
    return true;
}

/* The listing when the index and every readers row are in the cache (and the request
 * does not ask for a consistent read): answered at once, without a load. false (nothing
 * answered) otherwise. */
static bool list_cached(struct nread *r)
{
    struct store *st = r->c->app->store;
    struct store_key *sk = NULL;
    struct store_row *rows = NULL;
    struct cache_blob **held = NULL;
    char why[WP_KEY_MAX + 200];
    bool answered = false, peeked = false;

    if (http_load_flags(r->c)) return false;
    char name[NKEY_MAX];
    struct store_key ik = {(const uint8_t *)name, nkey_name(name, NK_INDEX, r->aud)};
    struct store_row irow;
    struct cache_blob *iheld;
    if (!store_peek(st, &ik, 1, &irow, &iheld)) return false;
    r->index = irow.found ? wpath_decode_row(name, ik.len, &irow, why, sizeof(why)) : roaring_bitmap_create();
    store_peek_release(&iheld, 1);
    if (!r->index) return false; /* a corrupt index (or no memory): the load says which */
    if (!list_keys(r, &sk) || !(rows = malloc((r->nids + 1) * sizeof(*rows))) ||
        !(held = malloc((r->nids + 1) * sizeof(*held))))
        goto done;
    if (!(peeked = store_peek(st, sk + 1, r->nids, rows, held))) goto done;
    list_from_rows(r, r->index, rows);
    answered = true;
done:
    if (peeked) store_peek_release(held, r->nids);
    free(sk);
    free(rows);
    free(held);
    return answered;
}

/* keys: [0] the audience's index of live notices. */
static void list_index_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                              struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nread *r = arg;
    struct store_key *sk = NULL;
    bool ok;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
        nread_free(r);
        bmload_free(l);
        return;
    }
    if (r->index) roaring_bitmap_free(r->index);
    r->index = keys[0].bm;
    keys[0].bm = NULL;
    bmload_free(l);
    ok = list_keys(r, &sk) &&
         store_load(r->c->app->store, sk, r->nids + 1, http_load_flags(r->c), list_rows_loaded, r);
    free(sk);
    if (!ok) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        nread_free(r);
    }
}

static bool list_state_or_reply(struct http_ctx *c, enum list_state *out)
{
    const char *s = evhttp_find_header(&c->query, "state");
    *out = LIST_ALL;
    if (!s) return true;
    for (size_t i = 0; i < ARRAY_LEN(list_state_names); i++)
        if (strcmp(s, list_state_names[i]) == 0) {
            *out = (enum list_state)i;
            return true;
        }
    http_reply_error(c, 400, "invalid_parameter", "state must be unread, read or all");
    return false;
}

/* The listing, on a turn of the event loop of its own: from the cache, or by the two
 * loads. (Answered inside the request's callback, listings of 10 cached notices ran
 * at 44,000–48,000/s with 16 connections; on a turn of their own, at 52,000–56,000.) */
static void list_start(evutil_socket_t fd, short what, void *arg)
{
    struct nread *r = arg;
    if (list_cached(r)) {
        nread_free(r);
        return;
    }
    struct nkey_ref ref = {NK_INDEX, r->aud};
    nread_start(r, &ref, 1, list_index_loaded);
    (void)fd;
    (void)what;
}

/* GET /v1/audiences/{aud}/users/{user}/notices?state=unread|read|all&limit=N&before=ID */
void notice_list(struct http_ctx *c)
{
    static const char *const params[] = {"state", "limit", "before", NULL};
    uint32_t aud, user;
    int64_t limit, before = 0;
    bool has_limit, has_before;
    enum list_state state;
    struct nread *r;

    if (!param_audience_or_reply(c, 0, &aud) || !param_user_or_reply(c, 1, &user) ||
        !http_query_only_or_reply(c, params) || !list_state_or_reply(c, &state) ||
        !http_query_int_or_reply(c, "limit", 1, c->app->cfg->http_max_page_limit, &limit, &has_limit) ||
        !http_query_int_or_reply(c, "before", 0, NOTICE_ID_MAX + 1, &before, &has_before) ||
        !(r = nread_new(c)))
        return;
    r->aud = aud;
    r->user = user;
    r->state = state;
    r->limit = has_limit ? (size_t)limit : (size_t)c->app->cfg->http_default_page_limit;
    r->cursor = has_before;
    r->before = (uint64_t)before;
    struct timeval now = {0, 0};
    if (event_base_once(c->app->base, -1, EV_TIMEOUT, list_start, r, &now) != 0) list_start(-1, 0, r);
}

/* keys: the users bitmap of each audience of the notice, in audience order. */
static void stats_users_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                               struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nread *r = arg;
    json_t *size = json_null(), *unread = json_null();
    bool known = true;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
        goto done;
    }
    for (size_t i = 0; i < nkeys; i++) known &= keys[i].found;
    if (known) {
        roaring_bitmap_t *all = roaring_bitmap_create();
        for (size_t i = 0; all && i < nkeys; i++) roaring_bitmap_or_inplace(all, keys[i].bm);
        if (!all) {
            http_reply_error(r->c, 500, "internal", "out of memory");
            goto done;
        }
        uint64_t n = roaring_bitmap_get_cardinality(all);
        size = json_integer((json_int_t)n);
        unread = json_integer((json_int_t)(n - roaring_bitmap_and_cardinality(all, r->readers)));
        roaring_bitmap_free(all);
    }
    /* preread_pending: always 0 since a preread commits with its notice (migration
     * 0011); kept for clients that read it */
    http_reply_json(r->c, 200,
                    json_pack("{s:I,s:o,s:I,s:o,s:o,s:i,s:I}", "id", (json_int_t)r->id, "audiences",
                              audiences_json(r->audiences), "readers",
                              (json_int_t)roaring_bitmap_get_cardinality(r->readers), "audience_size", size,
                              "unread", unread, "preread_pending", 0, "version", (json_int_t)r->version),
                    r->version);
done:
    nread_free(r);
    bmload_free(l);
}

static void stats_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                         size_t nkeys, void *arg)
{
    struct nread *r = arg;
    struct nkey_ref refs[AUDIENCES_PER_NOTICE];
    size_t n = 0;

    if (!nread_live_or_reply(r, st, msg, keys)) {
        bmload_free(l);
        return;
    }
    r->audiences = keys[0].bm;
    r->readers = keys[1].bm;
    r->version = keys[0].version;
    keys[0].bm = keys[1].bm = NULL;
    bmload_free(l);
    roaring_uint32_iterator_t *it = roaring_create_iterator(r->audiences);
    for (; it && it->has_value && n < AUDIENCES_PER_NOTICE; roaring_advance_uint32_iterator(it))
        refs[n++] = (struct nkey_ref){NK_AUDIENCE_USERS, it->current_value};
    if (it) roaring_free_uint32_iterator(it);
    nread_start(r, refs, n, stats_users_loaded);
}

/* GET /v1/notices/{id}/stats */
void notice_stats(struct http_ctx *c)
{
    uint32_t id;
    struct nread *r;

    if (!param_notice_or_reply(c, 0, &id) || !no_query_or_reply(c) || !(r = nread_new(c))) return;
    r->id = id;
    struct nkey_ref refs[2] = {{NK_AUDIENCES, id}, {NK_READERS, id}};
    nread_start(r, refs, 2, stats_loaded);
}
