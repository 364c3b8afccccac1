/* notice_writes.c — the writes of announcements: create (with preread users), change
 * a notice's audiences, delete, read marks, and the users of an audience. Each is one
 * unit of keys through the state machine of notice.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "domains/notices/notice_internal.h"
#include "domains/notices/notice_rules.h"
#include "store/codec.h"

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
    if (state == NOTICE_LIVE && !notice_same_set(aud, n->want))
        return nop_reject(n, 409, "notice_exists",
                          "notice %u exists with other audiences; PUT /v1/notices/%u changes them", n->id, n->id);
    if (state == NOTICE_MISSING) { /* a new notice has only its preread readers */
        n->created = true;
        notice_set_to(aud, n->want);
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
    if (notice_unit_rejected(wp)) {
        nop_reply_rejection(n);
        return;
    }
    n->version = u->keys[0].version;
    n->count = roaring_bitmap_get_cardinality(u->keys[1].bm);
    json_t *out = json_pack("{s:I,s:o,s:b,s:I,s:I,s:I}", "id", (json_int_t)n->id, "audiences",
                            notice_audiences_json(n->want), "created", n->created, "readers", (json_int_t)n->count,
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

    if (!notice_no_query_or_reply(c) || !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields) ||
        !body_notice_id_or_reply(c, &id) || !notice_body_audiences_or_reply(c, &want))
        return;
    if (!notice_body_set_or_reply(c, "preread", NOTICE_USER_MAX, false, &preread) ||
        !(n = nop_new(c, NOP_CREATE, id))) {
        roaring_bitmap_free(want);
        if (preread) roaring_bitmap_free(preread);
        return;
    }
    n->want = want;
    n->users = preread;
    if (!(wp = nop_unit(n, 2 + notice_index_keys_of(want), &create_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, id);
    nkey_set(&u->keys[1], NK_READERS, id);
    notice_set_index_keys(u, 2, want);
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
    if (!notice_same_set(aud, n->old)) { /* changed since the key list was built: build it again */
        n->restart = true;
        return WP_REJECT;
    }
    if (notice_same_set(aud, n->want)) return WP_UNCHANGED;
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
    notice_set_to(aud, n->want);
    u->keys[0].dirty = n->changed = true;
    return WP_CHANGED;
}

static void move_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct nop *n = arg;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (!nop_run_ok_or_reply(n, wp, st, msg)) return;
    if (notice_unit_rejected(wp) && !n->restart) {
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
                                notice_audiences_json(n->want), "previous", notice_audiences_json(n->old), "changed",
                                n->changed, "version", (json_int_t)n->version);
        nop_reply(n, 200, out, n->version);
    }
}

static const struct wpath_ops move_ops = {.mutate = move_mutate, .done = move_done};

void move_loaded(struct nop *n, struct bmload_key *audiences)
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
    n->key_aud = all ? notice_members_of(all, &nall) : NULL;
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

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_no_query_or_reply(c) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !notice_body_audiences_or_reply(c, &want))
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
    if (!notice_same_set(aud, n->old)) { /* re-addressed since the key list was built */
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
    if (notice_unit_rejected(wp) && !n->restart) {
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
void delete_loaded(struct nop *n, struct bmload_key *audiences)
{
    struct wpath *wp;

    if (notice_state_of(audiences->bm) == NOTICE_MISSING) {
        nop_error(n, 404, "not_found", "no notice %u", n->id);
        return;
    }
    if (n->old) roaring_bitmap_free(n->old);
    n->old = audiences->bm;
    audiences->bm = NULL;
    if (!(wp = nop_unit(n, 2 + notice_index_keys_of(n->old), &delete_ops))) return;
    struct wp_unit *u = &wpath_units(wp)[0];
    nkey_set(&u->keys[0], NK_AUDIENCES, n->id);
    nkey_set(&u->keys[1], NK_READERS, n->id);
    notice_set_index_keys(u, 2, n->old);
    nop_run(n, STEP_DELETE, wp);
}

/* DELETE /v1/notices/{id} */
void notice_delete(struct http_ctx *c)
{
    uint32_t id;
    struct nop *n;

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_no_query_or_reply(c) || !(n = nop_new(c, NOP_DELETE, id)))
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
    if (notice_unit_rejected(wp)) {
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
void mark_loaded(struct nop *n, struct bmload_key *audiences)
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

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_param_user_or_reply(c, 1, &user) || !notice_no_query_or_reply(c) ||
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
        n->changed = !notice_same_set(bm, n->want);
        if (n->changed) notice_set_to(bm, n->want);
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

    if (!notice_param_audience_or_reply(c, 0, &aud) || !notice_no_query_or_reply(c) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !notice_body_set_or_reply(c, "users", NOTICE_USER_MAX, true, &want))
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
