/* notice.c — announcements (seed 004): create, re-address and delete notices, mark
 * them read or unread per user, list a user's notices of one audience with read and
 * unread counts (one statement whatever the number of notices), and stats. Every
 * state change is one compare-and-swap of a unit of keys through wpath. */
#include "notice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "inbox.h" /* inbox_page: newest-first paging by rank */
#include "log.h"
#include "wpath.h"

#define NOTICE_ID_MAX 4294967295LL
#define NOTICE_USER_MAX 4294967295LL
#define AUDIENCE_MAX 65535
#define AUDIENCES_PER_NOTICE 64
#define DELETING_MARK UINT32_MAX /* sole member of notice:{id}:audiences while a delete runs */
#define RESTARTS_MAX 5           /* re-reads of a notice that kept changing under a PUT/DELETE */
#define SLICE_USERS 10000        /* users per wpath run of a fan-out: memory stays flat */
#define NKEY_MAX 48

/* ---- keys ----------------------------------------------------------------------- */

enum nkey { NK_AUDIENCES, NK_READERS, NK_PREREAD, NK_INDEX, NK_USER_READ, NK_AUDIENCE_USERS };

static size_t nkey_name(char *buf, enum nkey kind, uint32_t n)
{
    int len = 0;
    switch (kind) {
    case NK_AUDIENCES: len = snprintf(buf, NKEY_MAX, "notice:%u:audiences", n); break;
    case NK_READERS: len = snprintf(buf, NKEY_MAX, "notice:%u:readers", n); break;
    case NK_PREREAD: len = snprintf(buf, NKEY_MAX, "notice:%u:preread", n); break;
    case NK_INDEX: len = snprintf(buf, NKEY_MAX, "notice:audience:%u", n); break;
    case NK_USER_READ: len = snprintf(buf, NKEY_MAX, "notice:user:%u:read", n); break;
    case NK_AUDIENCE_USERS: len = snprintf(buf, NKEY_MAX, "notice:audience:%u:users", n); break;
    }
    return (size_t)len;
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

/* Where a write stands; every change goes through nop_set_step(). */
enum nop_step {
    STEP_NEW,
    STEP_LOAD,    /* PUT, DELETE, mark: reading notice:{id}:audiences (PUT, DELETE build their key lists from it) */
    STEP_CREATE,  /* POST: unit {audiences, readers, preread, index keys of the audiences} */
    STEP_PREREAD, /* POST: pending preread users' read bitmaps get the id, a slice per wpath run */
    STEP_MOVE,    /* PUT: unit {audiences, index keys of old ∪ new audiences} */
    STEP_UNLIST,  /* DELETE 1: unit {audiences, index keys}: out of the index, marked deleting */
    STEP_READERS, /* DELETE: reading notice:{id}:readers */
    STEP_UNREAD,  /* DELETE 2: units {audiences (checked), readers' read bitmaps} lose the id, a slice per run */
    STEP_CLEAR,   /* DELETE 3: unit {audiences, readers, preread}: all emptied, the id is free */
    STEP_MARK,    /* read mark: unit {audiences (version check only), readers, preread, user's reads} */
    STEP_USERS,   /* audience users: unit {notice:audience:{aud}:users} */
};

static const char *const step_names[] = {"new",    "load",    "create", "preread", "move", "unlist",
                                         "readers", "unread", "clear",  "mark",    "users"};

struct nop {
    struct http_ctx *c;
    enum nop_kind kind;
    enum nop_step step;
    struct wpath *wp;        /* the run in flight, if any */
    bool gone;               /* the client left: finish what is in flight, start nothing */
    uint32_t id;             /* the notice (the audience for NOP_AUDIENCE) */
    uint32_t user;           /* NOP_MARK */
    bool read;               /* NOP_MARK: the mark wanted */
    bool replace;            /* NOP_AUDIENCE: PUT replaces the users, POST adds */
    roaring_bitmap_t *want;  /* audiences asked for (create, move); users (audience) */
    roaring_bitmap_t *old;   /* audiences the key list was built from (move, delete) */
    roaring_bitmap_t *users; /* preread users of the body (create); readers being unmarked (delete) */
    roaring_bitmap_t *pending; /* create: the notice's pending preread users, as committed */
    uint32_t *key_aud;       /* move: the audience of index key k+1 */
    uint32_t *slice_ids;     /* preread and delete step 2: the users of the slice in flight */
    uint64_t pos;            /* fan-out: rank where the next slice of users starts */
    uint64_t slice;          /* fan-out: users in the slice in flight */
    int restarts;
    int64_t version;   /* of notice:{id}:audiences: as answered; delete: when marked deleting */
    bool stale;        /* delete: the deleting mark it works for is gone (another delete finished) */
    bool created;      /* create: this request made the notice */
    bool changed;      /* move, mark, audience: something changed */
    bool restart;      /* mutate() saw other audiences than the key list was built from */
    uint64_t count;    /* create: readers after; delete: read records removed; audience: users */
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
    if (n->pending) roaring_bitmap_free(n->pending);
    if (n->reject_body) json_decref(n->reject_body);
    free(n->key_aud);
    free(n->slice_ids);
    free(n);
}

/* The client left. Before anything committed, the request stops at its next
 * statement. After a create or a delete committed its first write, the request
 * finishes its bounded remaining work (preread marks; unmarking and clearing), so
 * that no notice is left half written for lack of a client; the answer goes nowhere. */
static void nop_gone(struct http_ctx *c)
{
    struct nop *n = c->op;
    n->gone = true;
    log_debug("msg=\"notice client gone\" notice=%u step=%s", n->id, step_names[n->step]);
    switch (n->step) {
    case STEP_PREREAD:
    case STEP_READERS:
    case STEP_UNREAD:
    case STEP_CLEAR: break;
    default:
        if (n->wp) wpath_abandon(n->wp);
    }
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

/* Creates the run for nunits units, or answers 500 and frees n. */
static struct wpath *nop_wpath(struct nop *n, size_t nunits, const struct wpath_ops *ops, bool release)
{
    struct wpath *wp = wpath_new(n->c->app->store, n->c->app->cfg, nunits, ops, n, release);
    if (!wp) nop_error(n, 500, "internal", "out of memory");
    return wp;
}

/* Starts the run; n may be freed before this returns (a run can end at once). */
static void nop_run(struct nop *n, enum nop_step step, struct wpath *wp)
{
    nop_set_step(n, step);
    n->wp = wp;
    wpath_run(wp);
}

/* In a done() callback: true when the run ended and no unit failed (units that
 * mutate() refused are left to the caller); otherwise answers, frees n, false. */
static bool nop_run_ok_or_reply(struct nop *n, struct wpath *wp, enum wp_status st, const char *msg)
{
    struct wp_unit *units = wpath_units(wp);
    if (st != WP_OK) {
        nop_fail_wp(n, st, n->gone ? "client went away" : msg);
        return false;
    }
    for (size_t i = 0; i < wpath_nunits(wp); i++) {
        if (units[i].status == WP_OK || units[i].status == WP_REJECTED) continue;
        http_reply_unit_failure(n->c, &units[i]);
        nop_free(n);
        return false;
    }
    return true;
}

/* The single unit of the run was refused by mutate(): an answer of its own, or a restart. */
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

static void preread_slice(struct nop *n);

static void create_answer(struct nop *n)
{
    json_t *out = json_pack("{s:I,s:o,s:b,s:I,s:I,s:I}", "id", (json_int_t)n->id, "audiences",
                            audiences_json(n->want), "created", n->created, "readers", (json_int_t)n->count,
                            "preread", (json_int_t)roaring_bitmap_get_cardinality(n->users), "version",
                            (json_int_t)n->version);
    nop_reply(n, n->created ? 201 : 200, out, n->version);
}

/* keys: [0] audiences, [1] readers, [2] preread (pending), [3 …] the index key of
 * each audience. The preread users become readers here; those that were not
 * readers yet also join the pending set, whose read bits the fan-out writes next.
 * Invariant: pending ⊆ readers, and a reader lacks the read bit only while pending. */
static enum wp_mutation create_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *aud = u->keys[0].bm, *readers = u->keys[1].bm, *pending = u->keys[2].bm, *fresh;
    enum notice_state state = notice_state_of(aud);
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
        for (int k = 1; k <= 2; k++) {
            if (roaring_bitmap_is_empty(u->keys[k].bm)) continue;
            roaring_bitmap_clear(u->keys[k].bm);
            u->keys[k].dirty = any = true;
        }
    }
    if (!(fresh = roaring_bitmap_andnot(n->users, readers)))
        return nop_reject(n, 500, "internal", "out of memory");
    if (!roaring_bitmap_is_empty(fresh)) {
        roaring_bitmap_or_inplace(readers, fresh);
        roaring_bitmap_or_inplace(pending, fresh);
        u->keys[1].dirty = u->keys[2].dirty = any = true;
    }
    roaring_bitmap_free(fresh);
    for (int k = 3; k < u->nkeys; k++) { /* also repairs an index that lost the id */
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
    n->pending = u->keys[2].bm; /* also what an earlier, unfinished preread left */
    u->keys[2].bm = NULL;
    wpath_free(wp);
    n->wp = NULL;
    n->pos = 0;
    preread_slice(n); /* also when the client left: the notice is committed, finish it */
}

static const struct wpath_ops create_ops = {.mutate = create_mutate, .done = create_done};

static void create_start(struct nop *n)
{
    uint64_t naud = roaring_bitmap_get_cardinality(n->want);
    struct wpath *wp = nop_wpath(n, 1, &create_ops, false);
    if (!wp) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!wpath_unit_keys(u, 3 + (int)naud)) {
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    nkey_set(&u->keys[2], NK_PREREAD, n->id);
    int k = 3;
    roaring_uint32_iterator_t *it = roaring_create_iterator(n->want);
    for (; it && it->has_value; roaring_advance_uint32_iterator(it)) nkey_set(&u->keys[k++], NK_INDEX, it->current_value);
    if (it) roaring_free_uint32_iterator(it);
    if (k != u->nkeys) {
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    nop_run(n, STEP_CREATE, wp);
}

/* Preread. Each unit is {audiences (only checked), preread (the pending set), K
 * users' read bitmaps}. A user's bit is set only while the notice is live and the
 * user still pending — a read or unread mark takes its user out of the pending set
 * in its own compare-and-swap, and a delete begins by changing the audiences — so
 * every bit set belongs to a reader, where DELETE finds it. The readers row, which
 * every read mark rewrites, is not in the unit: marks of other users never make a
 * batch conflict. The last batch leaves the pending set empty. One unit per
 * statement, because a key may appear only once in a statement. */
static enum wp_mutation preread_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *pending = u->keys[1].bm;
    uint32_t user;
    bool any = false;

    if (notice_state_of(u->keys[0].bm) != NOTICE_LIVE)
        return nop_reject(n, 409, "notice_deleting",
                          "notice %u was deleted while its preread marks were being written", n->id);
    for (int k = 2; k < u->nkeys; k++) {
        user = n->slice_ids[u->aux + (uint64_t)k - 2]; /* key k is notice:user:{user}:read */
        if (!roaring_bitmap_contains(pending, user)) continue;
        roaring_bitmap_remove(pending, user);
        u->keys[1].dirty = any = true;
        if (roaring_bitmap_contains(u->keys[k].bm, n->id)) continue;
        roaring_bitmap_add(u->keys[k].bm, n->id);
        u->keys[k].dirty = true;
    }
    return any ? WP_CHANGED : WP_UNCHANGED;
}

/* A preread batch failed after the notice was committed: the answer says that the
 * remaining users stay in the pending set and how to finish them. */
static void preread_fail(struct nop *n, enum wp_status st, const char *detail)
{
    int status = st == WP_UNAVAILABLE || st == WP_CONFLICTED ? 503 : 500;
    const char *code = st == WP_UNAVAILABLE   ? "db_unavailable"
                       : st == WP_CONFLICTED ? "conflict_retries_exhausted"
                       : st == WP_CORRUPT    ? "corrupt_bitmap"
                                             : "internal";
    if (st == WP_CONFLICTED) detail = "too many concurrent writers";
    nop_error(n, status, code,
              "notice %u is committed, but some preread users' read marks are not written yet "
              "(stats: preread_pending); repeat this POST to finish them: %s",
              n->id, detail ? detail : "");
}

static void preread_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    struct wp_unit *units = wpath_units(wp);

    if (st != WP_OK) {
        preread_fail(n, st, msg);
        return;
    }
    for (size_t i = 0; i < wpath_nunits(wp); i++) {
        if (units[i].status == WP_REJECTED) {
            nop_reply_rejection(n);
            return;
        }
        if (units[i].status != WP_OK) {
            preread_fail(n, units[i].status, units[i].status == WP_CORRUPT ? units[i].error : NULL);
            return;
        }
    }
    wpath_free(wp);
    n->wp = NULL;
    n->pos += n->slice;
    preread_slice(n); /* also when the client left */
}

static const struct wpath_ops preread_ops = {.mutate = preread_mutate, .done = preread_done};

/* The next slice of at most SLICE_USERS users of set, from n->pos, as units of {the
 * notice's prefix keys, up to batch_keys − nprefix users' read bitmaps}: one unit per
 * statement, because a key may appear only once in a statement. n->slice_ids holds
 * the slice's users and u->aux where a unit's users start in it. When the set is
 * exhausted, calls finish instead. */
static void user_slice(struct nop *n, const roaring_bitmap_t *set, const enum nkey *prefix, int nprefix,
                       const struct wpath_ops *ops, enum nop_step step, void (*finish)(struct nop *n))
{
    uint64_t total = roaring_bitmap_get_cardinality(set);
    int batch = n->c->app->cfg->pg_batch_keys;
    size_t per = batch > nprefix ? (size_t)(batch - nprefix) : 1, count, nunits;
    uint32_t *ids;
    struct wpath *wp;

    if (per > (size_t)(WP_MAX_KEYS - nprefix)) per = (size_t)(WP_MAX_KEYS - nprefix);
    if (n->pos >= total) {
        finish(n);
        return;
    }
    count = (size_t)(total - n->pos < SLICE_USERS ? total - n->pos : SLICE_USERS);
    nunits = (count + per - 1) / per;
    if (!(ids = malloc(count * sizeof(*ids))) || !roaring_bitmap_range_uint32_array(set, (size_t)n->pos, count, ids)) {
        free(ids);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    free(n->slice_ids);
    n->slice_ids = ids;
    if (!(wp = nop_wpath(n, nunits, ops, true))) return;
    for (size_t i = 0, next = 0; i < nunits; i++) {
        struct wp_unit *u = &wpath_units(wp)[i];
        size_t m = count - next < per ? count - next : per;
        if (!wpath_unit_keys(u, nprefix + (int)m)) {
            wpath_free(wp);
            nop_error(n, 500, "internal", "out of memory");
            return;
        }
        u->aux = next;
        for (int k = 0; k < nprefix; k++) nkey_set(&u->keys[k], prefix[k], n->id);
        for (size_t j = 0; j < m; j++) nkey_set(&u->keys[nprefix + (int)j], NK_USER_READ, ids[next++]);
    }
    n->slice = count;
    nop_run(n, step, wp);
}

/* The next slice of the pending users, as committed by the create unit. */
static void preread_slice(struct nop *n)
{
    static const enum nkey prefix[] = {NK_AUDIENCES, NK_PREREAD};
    user_slice(n, n->pending, prefix, 2, &preread_ops, STEP_PREREAD, create_answer);
}

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
    create_start(n);
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
    if (!(wp = nop_wpath(n, 1, &move_ops, false))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!wpath_unit_keys(u, 1 + (int)nall)) {
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
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

/* ---- delete: unlist (mark deleting) → unmark every reader → clear ---------------------------- */

static void delete_readers(struct nop *n);
static void unread_slice(struct nop *n);

/* keys: [0] audiences, [1 …] the index key of each old audience. */
static enum wp_mutation unlist_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    roaring_bitmap_t *aud = u->keys[0].bm;

    n->restart = false;
    if (!same_set(aud, n->old)) {
        n->restart = true;
        return WP_REJECT;
    }
    for (int k = 1; k < u->nkeys; k++) {
        if (!roaring_bitmap_contains(u->keys[k].bm, n->id)) continue;
        roaring_bitmap_remove(u->keys[k].bm, n->id);
        u->keys[k].dirty = true;
    }
    roaring_bitmap_clear(aud);
    roaring_bitmap_add(aud, DELETING_MARK);
    u->keys[0].dirty = true;
    return WP_CHANGED;
}

static void unlist_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    bool restart = unit_rejected(wp) && n->restart;
    n->version = wpath_units(wp)[0].keys[0].version; /* the deleting mark this delete works for */
    wpath_free(wp);
    n->wp = NULL;
    if (!restart)
        delete_readers(n); /* also when the client left: finish what step 1 began */
    else if (n->gone)
        nop_fail_gone(n);
    else if (nop_restart_or_reply(n))
        nop_load_audiences(n);
}

static const struct wpath_ops unlist_ops = {.mutate = unlist_mutate, .done = unlist_done};

static void delete_loaded(struct nop *n, struct bmload_key *audiences)
{
    enum notice_state state = notice_state_of(audiences->bm);
    struct wpath *wp;
    size_t nold;
    uint32_t *old;

    if (state == NOTICE_MISSING) {
        nop_error(n, 404, "not_found", "no notice %u", n->id);
        return;
    }
    if (state == NOTICE_DELETING) { /* an earlier delete stopped half way: finish it */
        n->version = audiences->version;
        delete_readers(n);
        return;
    }
    if (n->old) roaring_bitmap_free(n->old);
    n->old = audiences->bm;
    audiences->bm = NULL;
    if (!(old = members_of(n->old, &nold))) {
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    if (!(wp = nop_wpath(n, 1, &unlist_ops, false))) {
        free(old);
        return;
    }
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!wpath_unit_keys(u, 1 + (int)nold)) {
        free(old);
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    for (size_t i = 0; i < nold; i++) nkey_set(&u->keys[1 + i], NK_INDEX, old[i]);
    free(old);
    nop_run(n, STEP_UNLIST, wp);
}

/* Nothing adds a reader or a read bit once the notice is marked deleting (read
 * marks and the preread check its audiences), so this one read of the readers is
 * final — for this deleting mark only: another delete may finish, and the id be
 * created again, while this one works through the list. Steps 2 and 3 therefore
 * check that the mark is still the one read here (same version of the audiences). */
static void delete_readers_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                                  struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nop *n = arg;
    if (st != BMLOAD_OK) {
        nop_fail_load(n, st, msg);
    } else { /* also when the client left */
        n->users = keys[0].bm;
        keys[0].bm = NULL;
        n->count = roaring_bitmap_get_cardinality(n->users);
        n->pos = 0;
        unread_slice(n);
    }
    bmload_free(l);
}

static void delete_readers(struct nop *n)
{
    struct nkey_ref ref = {NK_READERS, n->id};
    nop_set_step(n, STEP_READERS);
    if (!nkeys_load(n->c, &ref, 1, delete_readers_loaded, n)) nop_error(n, 500, "internal", "out of memory");
}

/* True when keys[0], the notice's audiences, is still the deleting mark this delete
 * read (versions never repeat for a key: rows are emptied, never removed). Once
 * false, it stays false for the rest of the request. */
static bool still_deleting(struct nop *n, const struct wp_key *audiences)
{
    if (!n->stale && audiences->version == n->version && roaring_bitmap_get_cardinality(audiences->bm) == 1 &&
        roaring_bitmap_contains(audiences->bm, DELETING_MARK))
        return true;
    n->stale = true;
    return false;
}

/* A delete that found its deleting mark gone: another delete finished first (and
 * the id may hold a new notice, whose read marks this one must not touch). */
static void nop_reply_stale_delete(struct nop *n)
{
    nop_error(n, 404, "not_found", "notice %u was deleted by another request while this one ran", n->id);
}

/* keys: [0] audiences (never written: checked), [1 …] readers' read bitmaps. */
static enum wp_mutation unread_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    bool any = false;

    if (!still_deleting(n, &u->keys[0])) return WP_REJECT;
    for (int k = 1; k < u->nkeys; k++) {
        if (!roaring_bitmap_contains(u->keys[k].bm, n->id)) continue;
        roaring_bitmap_remove(u->keys[k].bm, n->id);
        u->keys[k].dirty = any = true;
    }
    return any ? WP_CHANGED : WP_UNCHANGED;
}

static void clear_start(struct nop *n);

static void unread_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    /* a reader that could not be unmarked keeps the notice in "deleting": a later DELETE resumes */
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    wpath_free(wp);
    n->wp = NULL;
    if (n->stale) {
        nop_reply_stale_delete(n);
        return;
    }
    n->pos += n->slice;
    unread_slice(n); /* also when the client left */
}

static const struct wpath_ops unread_ops = {.mutate = unread_mutate, .done = unread_done};

/* Units of {audiences, up to batch_keys − 1 readers' read bitmaps}: the audiences
 * in each unit make every removal conditional on the deleting mark. */
static void unread_slice(struct nop *n)
{
    static const enum nkey prefix[] = {NK_AUDIENCES};
    user_slice(n, n->users, prefix, 1, &unread_ops, STEP_UNREAD, clear_start);
}

/* keys: [0] audiences, [1] readers, [2] preread (pending users: readers, so step 2
 * has unmarked them). Only the deleting mark this delete read is cleared: otherwise
 * another DELETE finished first (and the id may be reused). */
static enum wp_mutation clear_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;

    if (!still_deleting(n, &u->keys[0])) return WP_REJECT;
    roaring_bitmap_clear(u->keys[0].bm);
    u->keys[0].dirty = true;
    for (int k = 1; k <= 2; k++) {
        if (roaring_bitmap_is_empty(u->keys[k].bm)) continue;
        roaring_bitmap_clear(u->keys[k].bm);
        u->keys[k].dirty = true;
    }
    return WP_CHANGED;
}

static void clear_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (n->stale) {
        nop_reply_stale_delete(n);
        return;
    }
    nop_reply(n, 200,
              json_pack("{s:I,s:b,s:I}", "id", (json_int_t)n->id, "deleted", true, "read_records",
                        (json_int_t)n->count),
              -1);
}

static const struct wpath_ops clear_ops = {.mutate = clear_mutate, .done = clear_done};

static void clear_start(struct nop *n)
{
    struct wpath *wp = nop_wpath(n, 1, &clear_ops, false);
    if (!wp) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!wpath_unit_keys(u, 3)) {
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    nkey_set(&u->keys[2], NK_PREREAD, n->id);
    nop_run(n, STEP_CLEAR, wp);
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

/* keys: [0] audiences (never written: its version check keeps a mark from committing
 * after a concurrent delete began), [1] readers, [2] preread (pending users), [3] the
 * user's read bitmap. A mark settles the user's read state itself, so it takes the
 * user out of the pending set: a preread batch then leaves the user alone (an unread
 * mark must not be undone by a late preread bit). */
static enum wp_mutation mark_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    enum notice_state state = notice_state_of(u->keys[0].bm);
    bool any;

    n->changed = false;
    if (state == NOTICE_MISSING) return nop_reject(n, 404, "not_found", "no notice %u", n->id);
    if (state == NOTICE_DELETING) return nop_reject(n, 404, "not_found", "notice %u is being deleted", n->id);
    for (int k = 1; k <= 3; k += 2) {
        roaring_bitmap_t *bm = u->keys[k].bm;
        uint32_t member = k == 1 ? n->user : n->id;
        if (roaring_bitmap_contains(bm, member) == n->read) continue;
        if (n->read)
            roaring_bitmap_add(bm, member);
        else
            roaring_bitmap_remove(bm, member);
        u->keys[k].dirty = n->changed = true;
        wp_key_flipped(&u->keys[k], member);
    }
    any = n->changed;
    if (roaring_bitmap_contains(u->keys[2].bm, n->user)) {
        roaring_bitmap_remove(u->keys[2].bm, n->user);
        u->keys[2].dirty = any = true;
        wp_key_flipped(&u->keys[2], n->user);
    }
    return any ? WP_CHANGED : WP_UNCHANGED;
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
    if (!(wp = nop_wpath(n, 1, &mark_ops, false))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    if (!wpath_unit_keys(u, 4)) {
        wpath_free(wp);
        nop_error(n, 500, "internal", "out of memory");
        return;
    }
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    nkey_set(&u->keys[2], NK_PREREAD, n->id);
    nkey_set(&u->keys[3], NK_USER_READ, n->user);
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
    if (!(wp = nop_wpath(n, 1, &users_ops, false))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    u->nkeys = 1;
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
    uint64_t pending;                       /* stats: preread users whose read bits are not written yet */
    int64_t version;
};

static void nread_free(struct nread *r)
{
    if (r->audiences) roaring_bitmap_free(r->audiences);
    if (r->readers) roaring_bitmap_free(r->readers);
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

/* keys: [0] the notice's audiences, [1] the user's read notices. The answer comes
 * from the user's (small) read bitmap, as the listing's does, never from the
 * notice's readers (which can be large, and lag while a preread is unfinished). */
static void is_read_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                           size_t nkeys, void *arg)
{
    struct nread *r = arg;
    if (nread_live_or_reply(r, st, msg, keys)) {
        http_reply_json(r->c, 200,
                        json_pack("{s:I,s:I,s:b}", "notice", (json_int_t)r->id, "user", (json_int_t)r->user,
                                  "read", roaring_bitmap_contains(keys[1].bm, r->id)),
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
    struct nkey_ref refs[2] = {{NK_AUDIENCES, id}, {NK_USER_READ, user}};
    nread_start(r, refs, 2, is_read_loaded);
}

/* keys: [0] the audience's index of live notices, [1] the user's read notices. */
static void list_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                        size_t nkeys, void *arg)
{
    struct nread *r = arg;
    roaring_bitmap_t *pick = NULL;
    uint32_t *ids = NULL;
    bool more = false;
    size_t n = 0;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
        goto done;
    }
    const roaring_bitmap_t *index = keys[0].bm, *read = keys[1].bm;
    uint64_t both = roaring_bitmap_and_cardinality(index, read);
    pick = r->state == LIST_READ     ? roaring_bitmap_and(index, read)
           : r->state == LIST_UNREAD ? roaring_bitmap_andnot(index, read)
                                     : roaring_bitmap_copy(index);
    ids = malloc(r->limit * sizeof(*ids));
    if (!pick || !ids) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        goto done;
    }
    n = inbox_page(pick, r->cursor, 0, r->before, r->limit, ids, &more);
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(list, json_integer(ids[i]));
    json_t *out = json_pack("{s:I,s:I,s:s,s:I,s:I,s:o}", "audience", (json_int_t)r->aud, "user",
                            (json_int_t)r->user, "state", list_state_names[r->state], "read", (json_int_t)both,
                            "unread", (json_int_t)(roaring_bitmap_get_cardinality(index) - both), "notices", list);
    json_object_set_new(out, "next_before", more && n ? json_integer(ids[n - 1]) : json_null());
    http_reply_json(r->c, 200, out, -1);
done:
    if (pick) roaring_bitmap_free(pick);
    free(ids);
    nread_free(r);
    bmload_free(l);
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
    struct nkey_ref refs[2] = {{NK_INDEX, aud}, {NK_USER_READ, user}};
    nread_start(r, refs, 2, list_loaded);
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
    http_reply_json(r->c, 200,
                    json_pack("{s:I,s:o,s:I,s:o,s:o,s:I,s:I}", "id", (json_int_t)r->id, "audiences",
                              audiences_json(r->audiences), "readers",
                              (json_int_t)roaring_bitmap_get_cardinality(r->readers), "audience_size", size,
                              "unread", unread, "preread_pending", (json_int_t)r->pending, "version",
                              (json_int_t)r->version),
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
    r->pending = roaring_bitmap_get_cardinality(keys[2].bm);
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
    struct nkey_ref refs[3] = {{NK_AUDIENCES, id}, {NK_READERS, id}, {NK_PREREAD, id}};
    nread_start(r, refs, 3, stats_loaded);
}
