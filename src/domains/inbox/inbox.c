/* inbox.c — the message box: push records, read records, newest-first paging,
 * history drop and per-period counts. Writes go through wpath (compare-and-swap
 * with retry); reads load both of a user's rows in one statement.
 *
 * This file holds the keys, the writes of one user and the fan-out; the reads are in
 * inbox_reads.c, periods and history drop in inbox_history.c, and the rules on plain
 * values (paging, counts, periods) in inbox_rules.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "domains/inbox/inbox_internal.h"
#include "domains/inbox/inbox_rules.h"
#include "http/reqparse.h"
#include "store/codec.h"

size_t inbox_key(char *buf, int which, int64_t user)
{
    int n = snprintf(buf, WP_KEY_MAX, "message:%s:%lld", which == K_PUSH ? "push" : "read",
                     (long long)user);
    return (size_t)n;
}

/* Names a write-path key after a user's bitmap (short: always fits inside wp_key). */
void inbox_unit_key(struct wp_key *k, int which, int64_t user)
{
    char buf[WP_KEY_MAX];
    size_t n = inbox_key(buf, which, user);
    if (!wp_key_set(k, buf, n)) abort(); /* at most 33 bytes: cannot fail */
}

/* ---- the common failure answers --------------------------------------------------- */

/* {"key": …, "error": …} for a unit of a bulk request that did not commit. */
json_t *unit_error_json(const struct wp_unit *u)
{
    const char *why = u->status == WP_CORRUPT      ? u->error
                      : u->status == WP_CONFLICTED ? "conflict"
                                                   : "could not be changed";
    return json_pack("{s:s%,s:s}", "key", u->keys[0].key, u->keys[0].keylen, "error", why);
}

int64_t user_version(const struct wp_unit *u)
{
    return u->keys[K_PUSH].version + u->keys[K_READ].version;
}

/* ---- single-user writes -------------------------------------------------------------- */

struct user_write {
    struct http_ctx *c;
    struct wpath *wp;
    enum inbox_op op;
    int64_t user;
    uint32_t *ids; /* sorted, distinct */
    size_t nids;
    bool force;
    uint32_t bound;           /* INBOX_DROP: remove ids below */
    uint64_t before_card;     /* INBOX_DROP: pushed count before */
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

/* The 409 of a read of ids never pushed, listing the first of them. */
static enum wp_mutation reject_not_pushed(struct user_write *w, const struct inbox_change *ch)
{
    json_t *missing = json_array();
    char msg[160];
    size_t listed = ch->not_pushed < INBOX_NOT_PUSHED_LIST_MAX ? ch->not_pushed : INBOX_NOT_PUSHED_LIST_MAX;
    for (size_t i = 0; i < listed; i++) json_array_append_new(missing, json_integer(ch->first_not_pushed[i]));
    snprintf(msg, sizeof(msg), "%zu message(s) were never pushed to user %lld; send \"force\": true to mark them anyway",
             ch->not_pushed, (long long)w->user);
    json_t *body = error_body("not_pushed", msg);
    json_object_set_new(json_object_get(body, "error"), "messages", missing);
    return reject(w, 409, body);
}

/* The write's rule is inbox_apply() (inbox_rules.c); here: the precondition, the
 * answers of a refusal, and what the write path needs to know of the change. */
static enum wp_mutation user_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct user_write *w = arg;
    struct inbox_change ch;

    if (w->c->has_if_match && w->c->if_match != user_version(u)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "version is %lld, not %lld", (long long)user_version(u),
                 (long long)w->c->if_match);
        return reject(w, 412, error_body("precondition_failed", msg));
    }
    switch (inbox_apply(w->op, &u->keys[K_PUSH].bm, &u->keys[K_READ].bm, w->ids, w->nids, w->force, w->bound,
                        &ch)) {
    case INBOX_NOT_PUSHED:
        return reject_not_pushed(w, &ch);
    case INBOX_NO_MEMORY:
        return reject(w, 500, error_body("internal", "out of memory"));
    case INBOX_DONE:
        break;
    }
    w->pushed = ch.pushed;
    if (w->op == INBOX_READ || w->op == INBOX_READ_ALL) w->unread = ch.unread;
    if (w->op == INBOX_DROP) w->before_card = ch.pushed_before;
    u->keys[K_PUSH].dirty = ch.push_changed;
    u->keys[K_READ].dirty = ch.read_changed;
    if (w->nids > 0 && (w->op == INBOX_PUSH || w->op == INBOX_READ || w->op == INBOX_RETRACT))
        for (int k = 0; k < 2; k++) /* ids are sorted: the changes lie between the ends */
            if (u->keys[k].dirty) wp_key_narrow(&u->keys[k], w->ids[0], w->ids[w->nids - 1]);
    (void)wp;
    return u->keys[K_PUSH].dirty || u->keys[K_READ].dirty ? WP_CHANGED : WP_UNCHANGED;
}

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
        case INBOX_PUSH:
            periods_note_push(c->app, w->ids, w->nids);
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "pushed", (json_int_t)w->pushed,
                            "version", (json_int_t)v);
            break;
        case INBOX_READ:
        case INBOX_READ_ALL:
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "unread", (json_int_t)w->unread,
                            "version", (json_int_t)v);
            break;
        case INBOX_RETRACT:
            out = json_pack("{s:I,s:I,s:I}", "user", (json_int_t)w->user, "pushed", (json_int_t)w->pushed,
                            "version", (json_int_t)v);
            break;
        case INBOX_DROP:
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

/* Starts the write; takes ownership of a->ids. Answers the client in every case. */
void user_write_start(struct http_ctx *c, const struct user_write_args *a)
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
    user_write_start(c, &(struct user_write_args){INBOX_PUSH, user, ids, n, false, 0});
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
    user_write_start(c, &(struct user_write_args){all ? INBOX_READ_ALL : INBOX_READ, user, ids, n, force, 0});
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
    user_write_start(c, &(struct user_write_args){INBOX_RETRACT, user, ids, 1, false, 0});
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
