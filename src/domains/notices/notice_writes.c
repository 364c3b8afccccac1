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

/* ---- the unit as the rules see it (notice_rules.h) ----------------------------------------- */

/* The bitmaps of unit u for the rules: key 0 the audiences, key 1 the readers (when
 * with_readers), the rest the indexes (of the audiences index_aud, for a move). NULL
 * when out of memory; view_commit() marks the keys the rule changed and frees it. */
struct unit_view {
    struct notice_unit nu;
    int first; /* the unit key of index 0 */
};

static struct unit_view *view_of(struct wp_unit *u, bool with_readers, const uint32_t *index_aud)
{
    int first = with_readers ? 2 : 1;
    size_t nindex = u->nkeys > first ? (size_t)(u->nkeys - first) : 0;
    struct unit_view *v = calloc(1, sizeof(*v));
    roaring_bitmap_t **index = calloc(nindex ? nindex : 1, sizeof(*index));
    bool *dirty = calloc(2 + nindex, sizeof(*dirty));
    if (!v || !index || !dirty) {
        free(v);
        free(index);
        free(dirty);
        return NULL;
    }
    for (size_t i = 0; i < nindex; i++) index[i] = u->keys[first + (int)i].bm;
    v->first = first;
    v->nu = (struct notice_unit){u->keys[0].bm, with_readers ? u->keys[1].bm : NULL, index, index_aud, nindex, dirty};
    return v;
}

static void view_commit(struct wp_unit *u, struct unit_view *v)
{
    if (v->nu.dirty[0]) u->keys[0].dirty = true;
    if (v->first == 2 && v->nu.dirty[1]) u->keys[1].dirty = true;
    for (size_t i = 0; i < v->nu.nindex; i++)
        if (v->nu.dirty[2 + i]) u->keys[v->first + (int)i].dirty = true;
    free(v->nu.index);
    free(v->nu.dirty);
    free(v);
}

static enum wp_mutation mutation_of(enum notice_verdict nv) { return nv == NV_CHANGED ? WP_CHANGED : WP_UNCHANGED; }

/* ---- create ------------------------------------------------------------------------------ */

/* keys: [0] audiences, [1] readers, [2 …] the index key of each audience. The
 * preread users become readers in the same commit as the notice. */
static enum wp_mutation create_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct nop *n = arg;
    struct unit_view *v = view_of(u, true, NULL);

    if (!v) return nop_reject(n, 500, "internal", "out of memory");
    enum notice_verdict nv = notice_apply_create(&v->nu, n->id, n->want, n->users, &n->created);
    view_commit(u, v);
    if (nv == NV_DELETING)
        return nop_reject(n, 409, "notice_deleting",
                          "notice %u is being deleted; DELETE it again to finish, then create it", n->id);
    if (nv == NV_OTHER_AUDIENCES)
        return nop_reject(n, 409, "notice_exists",
                          "notice %u exists with other audiences; PUT /v1/notices/%u changes them", n->id, n->id);
    return mutation_of(nv);
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
    struct unit_view *v;

    n->changed = n->restart = false;
    if (n->c->has_if_match && n->c->if_match != u->keys[0].version)
        return nop_reject(n, 412, "precondition_failed", "notice %u is at version %lld, not %lld", n->id,
                          (long long)u->keys[0].version, (long long)n->c->if_match);
    if (!(v = view_of(u, false, n->key_aud))) return nop_reject(n, 500, "internal", "out of memory");
    enum notice_verdict nv = notice_apply_move(&v->nu, n->id, n->old, n->want);
    view_commit(u, v);
    if (nv == NV_RESTART) { /* changed since the key list was built: build it again */
        n->restart = true;
        return WP_REJECT;
    }
    n->changed = nv == NV_CHANGED;
    return mutation_of(nv);
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
    struct unit_view *v = view_of(u, true, NULL);

    n->restart = false;
    if (!v) return nop_reject(n, 500, "internal", "out of memory");
    enum notice_verdict nv = notice_apply_delete(&v->nu, n->id, n->old, &n->count);
    view_commit(u, v);
    if (nv == NV_MISSING)
        return nop_reject(n, 404, "not_found", "notice %u was deleted by another request while this one ran",
                          n->id);
    if (nv == NV_RESTART) { /* re-addressed since the key list was built */
        n->restart = true;
        return WP_REJECT;
    }
    return mutation_of(nv);
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
    bool dirty[2] = {false, false};
    struct notice_unit nu = {u->keys[0].bm, u->keys[1].bm, NULL, NULL, 0, dirty};
    enum notice_verdict nv = notice_apply_mark(&nu, n->user, n->read);

    n->changed = nv == NV_CHANGED;
    if (nv == NV_MISSING) return nop_reject(n, 404, "not_found", "no notice %u", n->id);
    if (nv == NV_DELETING) return nop_reject(n, 404, "not_found", "notice %u is being deleted", n->id);
    if (n->changed) {
        u->keys[1].dirty = true;
        wp_key_flipped(&u->keys[1], n->user);
    }
    return mutation_of(nv);
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

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_param_user_or_reply(c, 1, &user) ||
        !notice_no_query_or_reply(c) ||
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
    enum notice_verdict nv =
        notice_apply_audience_users(u->keys[0].bm, u->keys[0].found, n->want, n->replace, &n->changed);
    u->keys[0].dirty = nv == NV_CHANGED;
    return mutation_of(nv);
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
