/* inbox.c — the message box: push records, read records, newest-first paging,
 * history drop and per-period counts. Writes go through wpath (compare-and-swap
 * with retry); reads load both of a user's rows in one statement. */
#include "domains/inbox/inbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/codec.h"
#include "http/http.h"
#include "core/log.h"
#include "http/reqparse.h"
#include "store/wpath.h"

enum { K_PUSH = 0, K_READ = 1 };

#define NOT_PUSHED_LIST_MAX 20

static size_t inbox_key(char *buf, int which, int64_t user)
{
    int n = snprintf(buf, WP_KEY_MAX, "message:%s:%lld", which == K_PUSH ? "push" : "read",
                     (long long)user);
    return (size_t)n;
}

/* Names a write-path key after a user's bitmap (short: always fits inside wp_key). */
static void inbox_unit_key(struct wp_key *k, int which, int64_t user)
{
    char buf[WP_KEY_MAX];
    size_t n = inbox_key(buf, which, user);
    if (!wp_key_set(k, buf, n)) abort(); /* at most 33 bytes: cannot fail */
}

static uint64_t unread_count(const roaring_bitmap_t *push, const roaring_bitmap_t *read)
{
    return roaring_bitmap_get_cardinality(push) - roaring_bitmap_and_cardinality(push, read);
}

size_t inbox_page(const roaring_bitmap_t *bm, bool cursor, uint64_t skip, uint64_t before,
                  size_t limit, uint32_t *out, bool *more)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    uint64_t top; /* number of members eligible for this page, counted from the bottom */
    size_t n;

    if (cursor)
        top = before == 0 ? 0 : before > UINT32_MAX ? card : roaring_bitmap_rank(bm, (uint32_t)(before - 1));
    else
        top = skip >= card ? 0 : card - skip;
    n = top < limit ? (size_t)top : limit;
    *more = top > n;
    if (n == 0) return 0;
    if (!roaring_bitmap_range_uint32_array(bm, (size_t)(top - n), n, out)) return 0;
    for (size_t i = 0; i < n / 2; i++) { /* ascending → newest first */
        uint32_t t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

/* ---- the common failure answers --------------------------------------------------- */

/* {"key": …, "error": …} for a unit of a bulk request that did not commit. */
static json_t *unit_error_json(const struct wp_unit *u)
{
    const char *why = u->status == WP_CORRUPT      ? u->error
                      : u->status == WP_CONFLICTED ? "conflict"
                                                   : "could not be changed";
    return json_pack("{s:s%,s:s}", "key", u->keys[0].key, u->keys[0].keylen, "error", why);
}

static int64_t user_version(const struct wp_unit *u)
{
    return u->keys[K_PUSH].version + u->keys[K_READ].version;
}

/* ---- single-user writes -------------------------------------------------------------- */

enum user_op { OP_PUSH, OP_READ, OP_READ_ALL, OP_RETRACT, OP_DROP };

struct user_write {
    struct http_ctx *c;
    struct wpath *wp;
    enum user_op op;
    int64_t user;
    uint32_t *ids; /* sorted, distinct */
    size_t nids;
    bool force;
    uint32_t bound;           /* OP_DROP: remove ids below */
    uint64_t before_card;     /* OP_DROP: pushed count before */
    uint64_t pushed, unread;  /* after this write, for the answer (set by mutate) */
    int reject_status;        /* set when mutate() rejects */
    json_t *reject_body;
};

static void user_write_free(struct user_write *w)
{
    wpath_free(w->wp);
    if (w->reject_body) json_decref(w->reject_body);
    free(w->ids);
    free(w);
}

static void user_write_gone(struct http_ctx *c)
{
    struct user_write *w = c->op;
    wpath_abandon(w->wp);
}

static enum wp_mutation reject(struct user_write *w, int status, json_t *body)
{
    if (w->reject_body) json_decref(w->reject_body); /* from an earlier attempt */
    w->reject_status = status;
    w->reject_body = body;
    return WP_REJECT;
}

static json_t *error_body(const char *code, const char *msg)
{
    return json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
}

/* Every id must be pushed unless forced: otherwise 409 listing the first offenders. */
static enum wp_mutation check_pushed(struct user_write *w, const roaring_bitmap_t *push)
{
    json_t *missing = json_array();
    size_t count = 0;
    for (size_t i = 0; i < w->nids; i++) {
        if (roaring_bitmap_contains(push, w->ids[i])) continue;
        if (count++ < NOT_PUSHED_LIST_MAX) json_array_append_new(missing, json_integer(w->ids[i]));
    }
    if (count == 0) {
        json_decref(missing);
        return WP_UNCHANGED;
    }
    char msg[160];
    snprintf(msg, sizeof(msg), "%zu message(s) were never pushed to user %lld; send \"force\": true to mark them anyway",
             count, (long long)w->user);
    json_t *body = error_body("not_pushed", msg);
    json_object_set_new(json_object_get(body, "error"), "messages", missing);
    return reject(w, 409, body);
}

static enum wp_mutation user_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct user_write *w = arg;
    roaring_bitmap_t *push = u->keys[K_PUSH].bm, *read = u->keys[K_READ].bm;
    uint64_t before_push = roaring_bitmap_get_cardinality(push);
    uint64_t before_read = roaring_bitmap_get_cardinality(read);

    if (w->c->has_if_match && w->c->if_match != user_version(u)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "version is %lld, not %lld", (long long)user_version(u),
                 (long long)w->c->if_match);
        return reject(w, 412, error_body("precondition_failed", msg));
    }
    switch (w->op) {
    case OP_PUSH:
        roaring_bitmap_add_many(push, w->nids, w->ids);
        break;
    case OP_READ:
        if (!w->force && check_pushed(w, push) == WP_REJECT) return WP_REJECT;
        roaring_bitmap_add_many(read, w->nids, w->ids);
        break;
    case OP_READ_ALL:
        roaring_bitmap_or_inplace(read, push);
        break;
    case OP_RETRACT:
        roaring_bitmap_remove(push, w->ids[0]);
        roaring_bitmap_remove(read, w->ids[0]);
        break;
    case OP_DROP: {
        w->before_card = before_push;
        roaring_bitmap_t *p2 = codec_keep_from(push, w->bound), *r2 = codec_keep_from(read, w->bound);
        if (!p2 || !r2) {
            if (p2) roaring_bitmap_free(p2);
            if (r2) roaring_bitmap_free(r2);
            return reject(w, 500, error_body("internal", "out of memory"));
        }
        roaring_bitmap_free(push);
        roaring_bitmap_free(read);
        u->keys[K_PUSH].bm = push = p2;
        u->keys[K_READ].bm = read = r2;
        break;
    }
    }
    w->pushed = roaring_bitmap_get_cardinality(push);
    if (w->op == OP_READ || w->op == OP_READ_ALL) w->unread = unread_count(push, read);
    u->keys[K_PUSH].dirty = w->pushed != before_push;
    u->keys[K_READ].dirty = roaring_bitmap_get_cardinality(read) != before_read;
    if (w->nids > 0 && (w->op == OP_PUSH || w->op == OP_READ || w->op == OP_RETRACT))
        for (int k = 0; k < 2; k++) /* ids are sorted: the changes lie between the ends */
            if (u->keys[k].dirty) wp_key_narrow(&u->keys[k], w->ids[0], w->ids[w->nids - 1]);
    return u->keys[K_PUSH].dirty || u->keys[K_READ].dirty ? WP_CHANGED : WP_UNCHANGED;
}

static void periods_note_push(struct app *app, const uint32_t *ids, size_t n);

static void user_write_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct user_write *w = arg;
    struct http_ctx *c = w->c;
    struct wp_unit *u = &wpath_units(wp)[0];
    json_t *out;

    if (st != WP_OK) {
        http_reply_wp_failure(c, st, msg);
    } else if (u->status == WP_REJECTED) {
        http_reply_json(c, w->reject_status, json_incref(w->reject_body), -1);
    } else if (u->status != WP_OK) {
        http_reply_unit_failure(c, u);
    } else {
        int64_t v = user_version(u);
        switch (w->op) {
        case OP_PUSH:
            periods_note_push(c->app, w->ids, w->nids);
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "pushed", (json_int_t)w->pushed,
                            "version", (json_int_t)v);
            break;
        case OP_READ:
        case OP_READ_ALL:
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "unread", (json_int_t)w->unread,
                            "version", (json_int_t)v);
            break;
        case OP_RETRACT:
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "pushed", (json_int_t)w->pushed,
                            "version", (json_int_t)v);
            break;
        case OP_DROP:
        default:
            out = json_pack("{s:I,s:I,s:I,s:I}", "user", (json_int_t)w->user, "removed",
                            (json_int_t)(w->before_card - w->pushed), "pushed", (json_int_t)w->pushed, "version",
                            (json_int_t)v);
            break;
        }
        http_reply_json(c, 200, out, v);
    }
    user_write_free(w);
}

static const struct wpath_ops user_write_ops = {.mutate = user_mutate, .done = user_write_done, .merge = true};

struct user_write_args {
    enum user_op op;
    int64_t user;
    uint32_t *ids; /* owned by the write from here on */
    size_t nids;
    bool force;
    uint32_t bound;
};

/* Starts the write; takes ownership of a->ids. Answers the client in every case. */
static void user_write_start(struct http_ctx *c, const struct user_write_args *a)
{
    struct user_write *w = calloc(1, sizeof(*w));
    if (!w || !(w->wp = wpath_new(c->app->store, c->app->cfg, 1, &user_write_ops, w, false))) {
        free(w);
        free(a->ids);
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    w->c = c;
    w->op = a->op;
    w->user = a->user;
    w->ids = a->ids;
    w->nids = a->nids;
    w->force = a->force;
    w->bound = a->bound;
    struct wp_unit *u = &wpath_units(w->wp)[0];
    u->nkeys = 2;
    inbox_unit_key(&u->keys[K_PUSH], K_PUSH, a->user);
    inbox_unit_key(&u->keys[K_READ], K_READ, a->user);
    c->op = w;
    c->on_gone = user_write_gone;
    wpath_run(w->wp);
}

/* Reads body field `field` as message ids; NULL-safe for a missing field. */
static bool body_msg_ids_or_reply(struct http_ctx *c, const char *field, uint32_t **ids, size_t *n)
{
    int64_t *wide;
    json_t *arr = json_object_get(c->body, field);
    if (!arr) {
        http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return false;
    }
    if (!http_json_ids_or_reply(c, arr, field, 0, MSG_ID_MAX, &wide, n)) return false;
    *ids = malloc((*n ? *n : 1) * sizeof(**ids));
    if (!*ids) {
        free(wide);
        http_reply_error(c, 500, "internal", "out of memory");
        return false;
    }
    for (size_t i = 0; i < *n; i++) (*ids)[i] = (uint32_t)wide[i];
    free(wide);
    return true;
}

/* POST /v1/users/{user}/pushes {"messages": [ids]} */
void inbox_push(struct http_ctx *c)
{
    static const char *const fields[] = {"messages", NULL};
    int64_t user;
    uint32_t *ids;
    size_t n;

    if (!http_param_user_or_reply(c, 0, &user) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !body_msg_ids_or_reply(c, "messages", &ids, &n))
        return;
    user_write_start(c, &(struct user_write_args){OP_PUSH, user, ids, n, false, 0});
}

/* POST /v1/users/{user}/reads {"messages": [ids], "force": bool} | {"all": true} */
void inbox_read(struct http_ctx *c)
{
    static const char *const fields[] = {"messages", "all", "force", NULL};
    int64_t user;
    uint32_t *ids = NULL;
    size_t n = 0;
    bool all, force;

    if (!http_param_user_or_reply(c, 0, &user) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !http_body_bool_or_reply(c, "all", &all) ||
        !http_body_bool_or_reply(c, "force", &force))
        return;
    if (all == (json_object_get(c->body, "messages") != NULL)) {
        http_reply_error(c, 400, "invalid_body", "send either \"messages\": [ids] or \"all\": true");
        return;
    }
    if (!all && !body_msg_ids_or_reply(c, "messages", &ids, &n)) return;
    user_write_start(c, &(struct user_write_args){all ? OP_READ_ALL : OP_READ, user, ids, n, force, 0});
}

/* DELETE /v1/users/{user}/messages/{msg} */
void inbox_retract(struct http_ctx *c)
{
    int64_t user;
    uint32_t msg, *ids;

    if (!http_param_user_or_reply(c, 0, &user) || !http_param_msg_or_reply(c, 1, &msg)) return;
    if (!(ids = malloc(sizeof(*ids)))) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    ids[0] = msg;
    user_write_start(c, &(struct user_write_args){OP_RETRACT, user, ids, 1, false, 0});
}

/* ---- fan-out ----------------------------------------------------------------------------- */

#define FANOUT_LANES 4 /* requests of one fan-out in flight at once, so loads and commits overlap */

struct fanout {
    struct http_ctx *c;
    struct wpath *lane[FANOUT_LANES];
    int nlanes, running;
    enum wp_status st; /* the first lane failure, if any */
    char msg[200];
    uint32_t msg_id;
};

static enum wp_mutation fanout_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct fanout *f = arg;
    if (roaring_bitmap_contains(u->keys[0].bm, f->msg_id)) return WP_UNCHANGED;
    roaring_bitmap_add(u->keys[0].bm, f->msg_id);
    u->keys[0].dirty = true;
    return WP_CHANGED;
}

static void fanout_free(struct fanout *f)
{
    for (int l = 0; l < f->nlanes; l++) wpath_free(f->lane[l]);
    free(f);
}

/* Answers once every lane has ended. */
static void fanout_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct fanout *f = arg;
    size_t n = 0, ok = 0;
    json_t *failed;

    if (st != WP_OK && f->st == WP_OK) {
        f->st = st;
        snprintf(f->msg, sizeof(f->msg), "%s", msg ? msg : "");
    }
    if (--f->running > 0) return;
    if (f->st != WP_OK) {
        http_reply_wp_failure(f->c, f->st, f->msg);
        fanout_free(f);
        return;
    }
    failed = json_array();
    for (int l = 0; l < f->nlanes; l++) {
        struct wp_unit *units = wpath_units(f->lane[l]);
        size_t nl = wpath_nunits(f->lane[l]);
        n += nl;
        for (size_t i = 0; i < nl; i++) {
            if (units[i].status == WP_OK)
                ok++;
            else if (json_array_size(failed) < NOT_PUSHED_LIST_MAX)
                json_array_append_new(failed, unit_error_json(&units[i]));
        }
    }
    if (ok) periods_note_push(f->c->app, &f->msg_id, 1);
    json_t *out = json_pack("{s:I,s:I}", "message", (json_int_t)f->msg_id, "users", (json_int_t)ok);
    if (ok < n) {
        json_object_set_new(out, "failed", json_integer((json_int_t)(n - ok)));
        json_object_set_new(out, "errors", failed);
    } else {
        json_decref(failed);
    }
    /* 200 when every user has the message; otherwise 500 with the count that did */
    http_reply_json(f->c, ok == n ? 200 : 500, out, -1);
    fanout_free(f);
    (void)wp;
}

static const struct wpath_ops fanout_ops = {.mutate = fanout_mutate, .done = fanout_done};

static void fanout_gone(struct http_ctx *c)
{
    struct fanout *f = c->op;
    for (int l = 0; l < f->nlanes; l++) wpath_abandon(f->lane[l]);
}

/* POST /v1/pushes {"message": id, "users": [ids]} — the users are split into lanes
 * that run side by side; each lane goes through the write path [postgres]
 * batch_keys users per statement, and group commit lets one lane's commit overlap
 * another's load. */
void inbox_fanout(struct http_ctx *c)
{
    static const char *const fields[] = {"message", "users", NULL};
    json_t *m;
    int64_t *users;
    size_t n, per, done = 0;
    struct fanout *f;

    if (!http_body_or_reply(c) || !http_body_fields_or_reply(c, fields)) return;
    m = json_object_get(c->body, "message");
    if (!json_is_integer(m) || json_integer_value(m) < 0 || json_integer_value(m) > MSG_ID_MAX) {
        http_reply_error(c, 400, "invalid_id", "'message' must be an integer from 0 to %lld", MSG_ID_MAX);
        return;
    }
    if (!json_object_get(c->body, "users")) {
        http_reply_error(c, 400, "invalid_body", "'users' is required");
        return;
    }
    if (!http_json_ids_or_reply(c, json_object_get(c->body, "users"), "users", 0, USER_ID_MAX, &users, &n))
        return;
    if (!(f = calloc(1, sizeof(*f)))) goto oom;
    f->c = c;
    f->msg_id = (uint32_t)json_integer_value(m);
    f->st = WP_OK;
    /* a lane per batch_keys users, at most FANOUT_LANES; at least one (no users: 200) */
    per = (size_t)c->app->cfg->pg_batch_keys;
    f->nlanes = (int)((n + per - 1) / per);
    if (f->nlanes > FANOUT_LANES) f->nlanes = FANOUT_LANES;
    if (f->nlanes < 1) f->nlanes = 1;
    per = (n + (size_t)f->nlanes - 1) / (size_t)f->nlanes;
    for (int l = 0; l < f->nlanes; l++) {
        size_t cnt = n - done < per ? n - done : per;
        if (!(f->lane[l] = wpath_new(c->app->store, c->app->cfg, cnt, &fanout_ops, f, true))) goto oom;
        for (size_t i = 0; i < cnt; i++) {
            struct wp_unit *u = &wpath_units(f->lane[l])[i];
            u->nkeys = 1;
            inbox_unit_key(&u->keys[0], K_PUSH, users[done + i]);
        }
        done += cnt;
    }
    free(users);
    c->op = f;
    c->on_gone = fanout_gone;
    f->running = f->nlanes;
    for (int l = 0, nl = f->nlanes; l < nl; l++) wpath_run(f->lane[l]);
    return;
oom:
    if (f) fanout_free(f);
    free(users);
    http_reply_error(c, 500, "internal", "out of memory");
}

/* ---- reads ----------------------------------------------------------------------------------- */

struct user_read;
typedef void (*user_read_fn)(struct user_read *r);

struct user_read {
    struct http_ctx *c;
    int64_t user;
    char keys[2][WP_KEY_MAX];
    size_t lens[2];
    roaring_bitmap_t *bm[2];
    int64_t version;
    user_read_fn then;
    /* request parameters */
    uint32_t msg;
    bool cursor, with_list;
    uint64_t skip, before;
    size_t limit;
    json_t *periods; /* for user periods: [[period, first_message], …] */
};

static void user_read_free(struct user_read *r)
{
    for (int i = 0; i < 2; i++)
        if (r->bm[i]) roaring_bitmap_free(r->bm[i]);
    if (r->periods) json_decref(r->periods);
    free(r);
}

static void user_read_loaded(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct user_read *r = arg;
    char why[200];

    if (st != STORE_OK) {
        if (st == STORE_UNAVAILABLE)
            http_reply_error(r->c, 503, "db_unavailable", "database unavailable: %s", err ? err : "");
        else
            http_reply_error(r->c, 500, "internal", "%s", err ? err : "query failed");
        user_read_free(r);
        return;
    }
    r->version = 0;
    for (int i = 0; i < 2; i++) {
        if (!rows[i].found) {
            r->bm[i] = roaring_bitmap_create();
            continue;
        }
        r->version += rows[i].version;
        r->bm[i] = wpath_decode_row(r->keys[i], r->lens[i], &rows[i], why, sizeof(why));
        if (!r->bm[i]) {
            http_reply_error(r->c, 500, "corrupt_bitmap", "%s", why);
            user_read_free(r);
            return;
        }
    }
    r->then(r);
    user_read_free(r);
}

static void user_read_start(struct user_read *r)
{
    struct store_key keys[2];
    for (int i = 0; i < 2; i++) {
        r->lens[i] = inbox_key(r->keys[i], i, r->user);
        keys[i] = (struct store_key){(const uint8_t *)r->keys[i], r->lens[i]};
    }
    if (!store_load(r->c->app->store, keys, 2, http_load_flags(r->c), user_read_loaded, r)) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        user_read_free(r);
    }
}

static struct user_read *user_read_new(struct http_ctx *c, int64_t user, user_read_fn then)
{
    struct user_read *r = calloc(1, sizeof(*r));
    if (!r) {
        http_reply_error(c, 500, "internal", "out of memory");
        return NULL;
    }
    r->c = c;
    r->user = user;
    r->then = then;
    return r;
}

static void message_answer(struct user_read *r)
{
    http_reply_json(r->c, 200,
                    json_pack("{s:I,s:I,s:b,s:b}", "user", (json_int_t)r->user, "message",
                              (json_int_t)r->msg, "readable", roaring_bitmap_contains(r->bm[K_PUSH], r->msg),
                              "read", roaring_bitmap_contains(r->bm[K_READ], r->msg)),
                    r->version);
}

/* GET /v1/users/{user}/messages/{msg} */
void inbox_message(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    int64_t user;
    uint32_t msg;
    struct user_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_param_msg_or_reply(c, 1, &msg) ||
        !http_query_only_or_reply(c, params) || !(r = user_read_new(c, user, message_answer)))
        return;
    r->msg = msg;
    user_read_start(r);
}

static void list_answer(struct user_read *r)
{
    uint32_t *ids = malloc((r->limit ? r->limit : 1) * sizeof(*ids));
    bool more;
    if (!ids) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        return;
    }
    size_t n = inbox_page(r->bm[K_PUSH], r->cursor, r->skip, r->before, r->limit, ids, &more);
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:I,s:b}", "id", (json_int_t)ids[i], "read",
                                              roaring_bitmap_contains(r->bm[K_READ], ids[i])));
    json_t *out = json_pack("{s:I,s:I,s:o}", "user", (json_int_t)r->user, "pushed",
                            (json_int_t)roaring_bitmap_get_cardinality(r->bm[K_PUSH]), "messages", list);
    json_object_set_new(out, "next_before", more && n ? json_integer(ids[n - 1]) : json_null());
    free(ids);
    http_reply_json(r->c, 200, out, r->version);
}

static bool limit_or_reply(struct http_ctx *c, size_t *limit, bool *present)
{
    int64_t v;
    if (!http_query_int_or_reply(c, "limit", 1, c->app->cfg->http_max_page_limit, &v, present)) return false;
    *limit = *present ? (size_t)v : (size_t)c->app->cfg->http_default_page_limit;
    return true;
}

/* GET /v1/users/{user}/messages?limit=N&page=P | ?limit=N&before=ID */
void inbox_list(struct http_ctx *c)
{
    static const char *const params[] = {"limit", "page", "before", NULL};
    int64_t user, page = 1, before = 0;
    bool has_page, has_before, has_limit;
    size_t limit;
    struct user_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params) ||
        !limit_or_reply(c, &limit, &has_limit) ||
        !http_query_int_or_reply(c, "page", 1, INT64_MAX, &page, &has_page) ||
        !http_query_int_or_reply(c, "before", 0, MSG_ID_MAX + 1, &before, &has_before))
        return;
    if (has_page && has_before) {
        http_reply_error(c, 400, "invalid_parameter", "use either page or before, not both");
        return;
    }
    if (!(r = user_read_new(c, user, list_answer))) return;
    r->limit = limit;
    r->cursor = has_before;
    r->before = (uint64_t)before;
    /* a skip past any possible cardinality simply yields an empty page */
    r->skip = (uint64_t)(page - 1) > UINT64_MAX / limit ? UINT64_MAX : (uint64_t)(page - 1) * limit;
    user_read_start(r);
}

static void unread_answer(struct user_read *r)
{
    const roaring_bitmap_t *push = r->bm[K_PUSH], *read = r->bm[K_READ];
    uint64_t pushed = roaring_bitmap_get_cardinality(push), both = roaring_bitmap_and_cardinality(push, read);
    json_t *out = json_pack("{s:I,s:I,s:I,s:I}", "user", (json_int_t)r->user, "pushed", (json_int_t)pushed,
                            "read", (json_int_t)both, "unread", (json_int_t)(pushed - both));
    if (r->with_list) {
        roaring_bitmap_t *unread = roaring_bitmap_andnot(push, read);
        uint32_t *ids = malloc(r->limit * sizeof(*ids));
        bool more;
        json_t *list = json_array();
        size_t n = unread && ids ? inbox_page(unread, false, 0, 0, r->limit, ids, &more) : 0;
        for (size_t i = 0; i < n; i++) json_array_append_new(list, json_integer(ids[i]));
        json_object_set_new(out, "messages", list);
        free(ids);
        if (unread) roaring_bitmap_free(unread);
    }
    http_reply_json(r->c, 200, out, r->version);
}

/* GET /v1/users/{user}/unread[?limit=N] */
void inbox_unread(struct http_ctx *c)
{
    static const char *const params[] = {"limit", NULL};
    int64_t user;
    size_t limit;
    bool has_limit;
    struct user_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params) ||
        !limit_or_reply(c, &limit, &has_limit) || !(r = user_read_new(c, user, unread_answer)))
        return;
    r->with_list = has_limit;
    r->limit = limit;
    user_read_start(r);
}

/* ---- periods ------------------------------------------------------------------------------------- */

/* A period is a calendar month ("YYYY-MM") and starts at a message id: the boundary
 * is recorded in bitmapd.inbox_periods, automatically from the first push the
 * service commits in a month (or set by PUT /v1/periods/{period}). */

static bool parse_period(const char *s, int *year, int *month)
{
    char tail;
    if (strlen(s) != 7 || sscanf(s, "%4d-%2d%c", year, month, &tail) != 2 || s[4] != '-') return false;
    return *year >= 1970 && *year <= 9999 && *month >= 1 && *month <= 12;
}

/* Boundaries must grow with the months: a boundary is recorded only if no earlier
 * month starts above it and no later month starts below it. */
#define PERIOD_IN_ORDER                                                                            \
    " NOT EXISTS (SELECT 1 FROM bitmapd.inbox_periods o WHERE o.period <> $1 AND"                  \
    " ((o.period < $1 AND o.first_message > $2::bigint) OR (o.period > $1 AND o.first_message < $2::bigint)))"

static struct {
    char month[8]; /* the month this process has registered a boundary for */
} periods_state;

static void periods_note_done(const struct db_result *r, void *arg)
{
    if (r->status != DB_OK) {
        log_warn("msg=\"could not record period boundary\" error=\"%s\"", r->message ? r->message : "");
        periods_state.month[0] = '\0'; /* try again on a later push */
    }
}

/* Registers the current month's first message id once per month per process;
 * ON CONFLICT DO NOTHING keeps the first registration of any instance. */
static void periods_note_push(struct app *app, const uint32_t *ids, size_t n)
{
    char month[16], id[16];
    time_t now = time(NULL);
    struct tm tm;

    if (n == 0) return;
    localtime_r(&now, &tm);
    strftime(month, sizeof(month), "%Y-%m", &tm);
    if (strcmp(month, periods_state.month) == 0) return;
    memcpy(periods_state.month, month, sizeof(periods_state.month));
    snprintf(id, sizeof(id), "%u", ids[0]);
    struct db_param p[2] = {{month, 0, 0}, {id, 0, 0}};
    if (!db_query(app->db,
                  "INSERT INTO bitmapd.inbox_periods (period, first_message)"
                  " SELECT $1, $2::bigint WHERE" PERIOD_IN_ORDER " ON CONFLICT (period) DO NOTHING",
                  2, p, periods_note_done, NULL))
        periods_state.month[0] = '\0';
}

static const char SQL_PERIODS[] = "SELECT period, first_message FROM bitmapd.inbox_periods ORDER BY period";

/* [{"period": "YYYY-MM", "first_message": id}, …] from SQL_PERIODS rows. */
static json_t *periods_json(const PGresult *res)
{
    json_t *list = json_array();
    for (int i = 0; i < PQntuples(res); i++)
        json_array_append_new(list, json_pack("{s:s%,s:I}", "period", PQgetvalue(res, i, 0),
                                              (size_t)PQgetlength(res, i, 0), "first_message",
                                              (json_int_t)db_value_int8(res, i, 1)));
    return list;
}

static void periods_list_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status != DB_OK) {
        http_reply_db_failure(c, r);
        return;
    }
    http_reply_json(c, 200, json_pack("{s:o}", "periods", periods_json(r->res)), -1);
}

/* GET /v1/periods */
void inbox_periods_list(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    if (!http_query_only_or_reply(c, params)) return;
    if (!db_query(c->app->db, SQL_PERIODS, 0, NULL, periods_list_done, c))
        http_reply_error(c, 500, "internal", "out of memory");
}

static void period_put_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status != DB_OK) {
        http_reply_db_failure(c, r);
        return;
    }
    if (PQntuples(r->res) != 1) {
        http_reply_error(c, 409, "period_order",
                         "boundaries must grow with the months: an earlier month starts above, or a later "
                         "month below, this first_message");
        return;
    }
    json_t *fm = json_object_get(c->body, "first_message");
    http_reply_json(c, 200, json_pack("{s:s,s:O}", "period", c->match.params[0], "first_message", fm), -1);
}

/* PUT /v1/periods/{period} {"first_message": id} */
void inbox_period_put(struct http_ctx *c)
{
    static const char *const fields[] = {"first_message", NULL};
    int year, month;
    json_t *fm;
    char id[24];

    if (!parse_period(c->match.params[0], &year, &month)) {
        http_reply_error(c, 400, "invalid_parameter", "period must be YYYY-MM");
        return;
    }
    if (!http_body_or_reply(c) || !http_body_fields_or_reply(c, fields)) return;
    fm = json_object_get(c->body, "first_message");
    if (!json_is_integer(fm) || json_integer_value(fm) < 0 || json_integer_value(fm) > MSG_ID_MAX) {
        http_reply_error(c, 400, "invalid_id", "'first_message' must be an integer from 0 to %lld", MSG_ID_MAX);
        return;
    }
    snprintf(id, sizeof(id), "%lld", (long long)json_integer_value(fm));
    struct db_param p[2] = {{c->match.params[0], 0, 0}, {id, 0, 0}};
    if (!db_query(c->app->db,
                  "INSERT INTO bitmapd.inbox_periods (period, first_message)"
                  " SELECT $1, $2::bigint WHERE" PERIOD_IN_ORDER
                  " ON CONFLICT (period) DO UPDATE SET first_message = EXCLUDED.first_message"
                  " RETURNING period",
                  2, p, period_put_done, c))
        http_reply_error(c, 500, "internal", "out of memory");
}

/* Counts members of bm in [lo, hi) by rank: two rank lookups, no decoding. */
static uint64_t count_between(const roaring_bitmap_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t below_hi = hi == 0 ? 0 : hi > UINT32_MAX ? roaring_bitmap_get_cardinality(bm)
                                                      : roaring_bitmap_rank(bm, (uint32_t)(hi - 1));
    uint64_t below_lo = lo == 0 ? 0 : lo > UINT32_MAX ? roaring_bitmap_get_cardinality(bm)
                                                      : roaring_bitmap_rank(bm, (uint32_t)(lo - 1));
    return below_hi > below_lo ? below_hi - below_lo : 0;
}

static void user_periods_answer(struct user_read *r)
{
    json_t *out = json_array();
    size_t n = json_array_size(r->periods);
    uint64_t lo = 0;

    /* bucket i covers [first_i, first_{i+1}); messages below the first boundary are "earlier" */
    for (size_t i = 0; i <= n; i++) {
        json_t *p = i < n ? json_array_get(r->periods, i) : NULL;
        uint64_t hi = p ? (uint64_t)json_integer_value(json_object_get(p, "first_message"))
                        : (uint64_t)UINT32_MAX + 1;
        uint64_t pushed = count_between(r->bm[K_PUSH], lo, hi);
        uint64_t read = count_between(r->bm[K_READ], lo, hi);
        if (i > 0 || pushed || read) {
            json_t *prev = i ? json_array_get(r->periods, i - 1) : NULL;
            json_t *name = prev ? json_incref(json_object_get(prev, "period")) : json_string("earlier");
            json_array_append_new(out, json_pack("{s:o,s:I,s:I,s:I}", "period", name, "first_message",
                                                 (json_int_t)lo, "pushed", (json_int_t)pushed, "read",
                                                 (json_int_t)read));
        }
        lo = hi;
    }
    http_reply_json(r->c, 200, json_pack("{s:I,s:o}", "user", (json_int_t)r->user, "periods", out), r->version);
}

static void user_periods_loaded(const struct db_result *res, void *arg)
{
    struct user_read *r = arg;
    if (res->status != DB_OK) {
        http_reply_db_failure(r->c, res);
        user_read_free(r);
        return;
    }
    r->periods = periods_json(res->res);
    user_read_start(r);
}

/* GET /v1/users/{user}/periods */
void inbox_user_periods(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    int64_t user;
    struct user_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params) ||
        !(r = user_read_new(c, user, user_periods_answer)))
        return;
    if (!db_query(c->app->db, SQL_PERIODS, 0, NULL, user_periods_loaded, r)) {
        http_reply_error(c, 500, "internal", "out of memory");
        user_read_free(r);
    }
}

/* ---- history drop ------------------------------------------------------------------------------ */

typedef void (*bound_fn)(struct http_ctx *c, uint32_t bound);

struct bound_lookup {
    struct http_ctx *c;
    bound_fn then;
};

static void drop_period_loaded(const struct db_result *res, void *arg)
{
    struct bound_lookup *bl = arg;
    struct http_ctx *c = bl->c;
    bound_fn then = bl->then;

    free(bl);
    if (res->status != DB_OK) {
        http_reply_db_failure(c, res);
        return;
    }
    if (PQntuples(res->res) != 1) {
        http_reply_error(c, 404, "unknown_period", "no boundary is recorded for that period");
        return;
    }
    then(c, (uint32_t)db_value_int8(res->res, 0, 0));
}

/* Resolves {"before": id} or {"before_period": "YYYY-MM"} to an id, then calls then(). */
static void drop_bound_then(struct http_ctx *c, bound_fn then)
{
    json_t *before = json_object_get(c->body, "before"), *period = json_object_get(c->body, "before_period");
    int y, m;

    if ((before == NULL) == (period == NULL)) {
        http_reply_error(c, 400, "invalid_body", "send either \"before\": id or \"before_period\": \"YYYY-MM\"");
        return;
    }
    if (before) {
        if (!json_is_integer(before) || json_integer_value(before) < 0 || json_integer_value(before) > MSG_ID_MAX) {
            http_reply_error(c, 400, "invalid_id", "'before' must be an integer from 0 to %lld", MSG_ID_MAX);
            return;
        }
        then(c, (uint32_t)json_integer_value(before));
        return;
    }
    if (!json_is_string(period) || !parse_period(json_string_value(period), &y, &m)) {
        http_reply_error(c, 400, "invalid_body", "'before_period' must be \"YYYY-MM\"");
        return;
    }
    struct bound_lookup *bl = malloc(sizeof(*bl));
    struct db_param p[1] = {{json_string_value(period), 0, 0}};
    if (bl) *bl = (struct bound_lookup){c, then};
    if (!bl || !db_query(c->app->db, "SELECT first_message FROM bitmapd.inbox_periods WHERE period = $1", 1, p,
                         drop_period_loaded, bl)) {
        free(bl);
        http_reply_error(c, 500, "internal", "out of memory");
    }
}

static void drop_user_start(struct http_ctx *c, uint32_t bound)
{
    int64_t user;
    if (!http_param_user_or_reply(c, 0, &user)) return;
    user_write_start(c, &(struct user_write_args){OP_DROP, user, NULL, 0, false, bound});
}

/* POST /v1/users/{user}/history/drop {"before": id} | {"before_period": "YYYY-MM"} */
void inbox_drop_user(struct http_ctx *c)
{
    static const char *const fields[] = {"before", "before_period", NULL};
    int64_t user;

    if (!http_param_user_or_reply(c, 0, &user) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields))
        return;
    drop_bound_then(c, drop_user_start);
}

/* ---- history drop for every user ---------------------------------------------------------------- */

/* Walks every non-empty message:push:* and message:read:* key in key order, a page
 * at a time, dropping ids below the bound from both of each user's rows through the
 * normal write path (a user met twice, by push and by read key, is a no-op the
 * second time). */
struct drop_all {
    struct http_ctx *c;
    struct wpath *wp;
    uint32_t bound;
    uint8_t last_key[WP_KEY_MAX];
    size_t last_len;
    uint64_t users_changed, removed, failed;
    json_t *errors; /* the first NOT_PUSHED_LIST_MAX users that could not be changed */
    bool gone;
};

static void drop_all_next(struct drop_all *d);

static void drop_all_gone(struct http_ctx *c)
{
    struct drop_all *d = c->op;
    d->gone = true;
    if (d->wp) wpath_abandon(d->wp);
}

static void drop_all_fail(struct drop_all *d, int status, const char *code, const char *msg)
{
    http_reply_error(d->c, status, code, "%s (after %llu users changed, %llu messages removed)", msg,
                     (unsigned long long)d->users_changed, (unsigned long long)d->removed);
    if (d->wp) wpath_free(d->wp);
    json_decref(d->errors);
    free(d);
}

static enum wp_mutation drop_all_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct drop_all *d = arg;
    bool changed = false;
    u->aux = 0;
    for (int k = 0; k < u->nkeys; k++) {
        roaring_bitmap_t *bm = u->keys[k].bm, *kept = codec_keep_from(bm, d->bound);
        if (!kept) return WP_REJECT;
        uint64_t before = roaring_bitmap_get_cardinality(bm), after = roaring_bitmap_get_cardinality(kept);
        if (k == K_PUSH) u->aux = before - after;
        u->keys[k].dirty = after != before;
        changed |= u->keys[k].dirty;
        roaring_bitmap_free(bm);
        u->keys[k].bm = kept;
    }
    return changed ? WP_CHANGED : WP_UNCHANGED;
}

static void drop_all_page_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct drop_all *d = arg;
    struct wp_unit *units = wpath_units(wp);

    if (st != WP_OK) {
        drop_all_fail(d, st == WP_UNAVAILABLE ? 503 : 500, st == WP_UNAVAILABLE ? "db_unavailable" : "internal",
                      msg ? msg : "write failed");
        return;
    }
    for (size_t i = 0; i < wpath_nunits(wp); i++) {
        if (units[i].status != WP_OK) { /* a corrupt user must not stop everyone else's drop */
            d->failed++;
            if (json_array_size(d->errors) < NOT_PUSHED_LIST_MAX)
                json_array_append_new(d->errors, unit_error_json(&units[i]));
            continue;
        }
        bool changed = units[i].keys[K_PUSH].dirty || units[i].keys[K_READ].dirty;
        d->users_changed += changed;
        d->removed += changed ? units[i].aux : 0;
    }
    wpath_free(wp);
    d->wp = NULL;
    drop_all_next(d);
}

static const struct wpath_ops drop_all_ops = {.mutate = drop_all_mutate, .done = drop_all_page_done};

static int cmp_user(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Parses the user id out of a message:push:N / message:read:N key. */
static bool key_user(const char *key, size_t len, int64_t *user)
{
    char buf[32];
    if (len <= 13 || len - 13 >= sizeof(buf)) return false;
    memcpy(buf, key + 13, len - 13);
    buf[len - 13] = '\0';
    return reqparse_decimal(buf, USER_ID_MAX, user);
}

static void drop_all_keys_loaded(const struct db_result *r, void *arg)
{
    struct drop_all *d = arg;
    int n;

    if (r->status != DB_OK) {
        drop_all_fail(d, r->status == DB_UNAVAILABLE ? 503 : 500,
                      r->status == DB_UNAVAILABLE ? "db_unavailable" : "internal",
                      r->message ? r->message : "query failed"); /* with progress so far */
        return;
    }
    n = PQntuples(r->res);
    if (n == 0 || d->gone) {
        json_t *out = json_pack("{s:I,s:I,s:I}", "before", (json_int_t)d->bound, "users",
                                (json_int_t)d->users_changed, "removed", (json_int_t)d->removed);
        if (d->failed) {
            json_object_set_new(out, "failed", json_integer((json_int_t)d->failed));
            json_object_set(out, "errors", d->errors);
        }
        /* 200 when every user was handled; otherwise 500 naming who was not */
        http_reply_json(d->c, d->failed ? 500 : 200, out, -1);
        json_decref(d->errors);
        free(d);
        return;
    }
    /* remember where the page ended; the users of its keys become write units */
    d->last_len = (size_t)PQgetlength(r->res, n - 1, 0);
    if (d->last_len > sizeof(d->last_key)) d->last_len = sizeof(d->last_key);
    memcpy(d->last_key, PQgetvalue(r->res, n - 1, 0), d->last_len);
    d->wp = wpath_new(d->c->app->store, d->c->app->cfg, (size_t)n, &drop_all_ops, d, false);
    if (!d->wp) {
        drop_all_fail(d, 500, "internal", "out of memory");
        return;
    }
    int64_t *users = malloc((size_t)n * sizeof(*users));
    size_t nusers = 0;
    if (!users) {
        drop_all_fail(d, 500, "internal", "out of memory");
        return;
    }
    for (int i = 0; i < n; i++)
        if (key_user(PQgetvalue(r->res, i, 0), (size_t)PQgetlength(r->res, i, 0), &users[nusers])) nusers++;
    /* one unit per user: a page can hold both of a user's keys */
    qsort(users, nusers, sizeof(*users), cmp_user);
    size_t units = 0;
    for (size_t i = 0; i < nusers; i++) {
        if (i && users[i] == users[i - 1]) continue;
        int64_t user = users[i];
        struct wp_unit *u = &wpath_units(d->wp)[units++];
        u->nkeys = 2;
        inbox_unit_key(&u->keys[K_PUSH], K_PUSH, user);
        inbox_unit_key(&u->keys[K_READ], K_READ, user);
    }
    free(users);
    /* units past `units` stay empty (nkeys 0) and commit trivially */
    wpath_run(d->wp);
}

static void drop_all_next(struct drop_all *d)
{
    static const char sql[] =
        "SELECT key FROM bitmapd.bitmaps"
        " WHERE key > $1::bytea AND key >= 'message:push:'::bytea AND key < 'message:read;'::bytea"
        "   AND (key < 'message:push;'::bytea OR key >= 'message:read:'::bytea)"
        "   AND cardinality > 0"
        " ORDER BY key LIMIT 500"; /* DROP_ALL_PAGE */
    struct db_param p[1] = {{d->last_key, (int)d->last_len, 1}};
    if (!store_query_folded(d->c->app->store, sql, 1, p, drop_all_keys_loaded, d)) drop_all_fail(d, 500, "internal", "out of memory");
}

static void drop_all_start(struct http_ctx *c, uint32_t bound)
{
    struct drop_all *d = calloc(1, sizeof(*d));
    if (!d) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    d->c = c;
    d->bound = bound;
    if (!(d->errors = json_array())) {
        free(d);
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    c->op = d;
    c->on_gone = drop_all_gone;
    drop_all_next(d);
}

/* POST /v1/history/drop {"before": id} | {"before_period": "YYYY-MM"} */
void inbox_drop_all(struct http_ctx *c)
{
    static const char *const fields[] = {"before", "before_period", NULL};
    if (!http_body_or_reply(c) || !http_body_fields_or_reply(c, fields)) return;
    drop_bound_then(c, drop_all_start);
}
