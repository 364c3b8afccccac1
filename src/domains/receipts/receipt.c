/* receipt.c — group read receipts (seed 001): join/leave the member map in SQL,
 * record a message's eligible members at send time, mark reads, and list readers
 * or non-readers. Receipts bitmaps are written only through wpath; the member map
 * only through bitmapd.group_join / bitmapd.group_leave (sql/060_groups.sql). */
#include "domains/receipts/receipt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "domains/receipts/receipts.h"
#include "store/bucket.h"
#include "store/wpath.h"

#define GROUP_ID_MAX INT64_MAX
#define GMSG_ID_MAX INT64_MAX /* group message ids live only in key names */
#define ID_TEXT 24            /* a bigint in decimal, with its NUL */

/* ---- shared pieces ------------------------------------------------------------------ */

static size_t receipt_key(char *buf, size_t cap, int64_t group, int64_t msg)
{
    return (size_t)snprintf(buf, cap, "group:%lld:msg:%lld", (long long)group, (long long)msg);
}

static void id_text(char *buf, int64_t v) { snprintf(buf, ID_TEXT, "%lld", (long long)v); }

static bool group_param_or_reply(struct http_ctx *c, int idx, int64_t *out)
{
    return http_param_int_or_reply(c, idx, "group id", GROUP_ID_MAX, out);
}

static bool gmsg_param_or_reply(struct http_ctx *c, int idx, int64_t *out)
{
    return http_param_int_or_reply(c, idx, "message id", GMSG_ID_MAX, out);
}

/* A required id field of the body: missing is invalid_body, anything but an
 * integer in 0 .. max is invalid_id (as for ids in paths). */
static bool body_id_or_reply(struct http_ctx *c, const char *field, int64_t max, int64_t *out)
{
    json_t *v = json_object_get(c->body, field);
    if (!v) {
        http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return false;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) {
        http_reply_error(c, 400, "invalid_id", "'%s' must be an integer from 0 to %lld", field, (long long)max);
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

/* The answer a mutate() callback decided on when it refused a write. */
struct rejection {
    int status;
    json_t *body;
};

static enum wp_mutation reject(struct rejection *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static enum wp_mutation reject(struct rejection *r, int status, const char *code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (r->body) json_decref(r->body); /* an earlier attempt's decision */
    r->status = status;
    r->body = json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg);
    return WP_REJECT;
}

/* If-Match against the receipts row's version (412 and no change on mismatch). */
static bool if_match_rejects(const struct http_ctx *c, int64_t version, struct rejection *r)
{
    if (!c->has_if_match || c->if_match == version) return false;
    reject(r, 412, "precondition_failed", "version is %lld, not %lld", (long long)version,
           (long long)c->if_match);
    return true;
}

/* Answers the end of a one-unit write that did not commit normally; false if it did. */
static bool reply_write_failure(struct http_ctx *c, enum wp_status st, const char *msg, const struct wp_unit *u,
                                const struct rejection *r)
{
    if (st != WP_OK)
        http_reply_wp_failure(c, st, msg);
    else if (u->status == WP_REJECTED && r->body)
        http_reply_json(c, r->status, json_incref(r->body), -1);
    else if (u->status != WP_OK)
        http_reply_unit_failure(c, u);
    else
        return false;
    return true;
}

static void counts_into(json_t *out, const struct receipts_counts *rc)
{
    json_object_set_new(out, "eligible", json_integer((json_int_t)rc->eligible));
    json_object_set_new(out, "read", json_integer((json_int_t)rc->read));
    json_object_set_new(out, "unread", json_integer((json_int_t)rc->unread));
}

/* ---- the member map ---------------------------------------------------------------------- */

struct member_op {
    struct http_ctx *c;
    int64_t group, user;
};

static struct member_op *member_op_new(struct http_ctx *c, int64_t group, int64_t user)
{
    struct member_op *o = malloc(sizeof(*o));
    if (!o) {
        http_reply_error(c, 500, "internal", "out of memory");
        return NULL;
    }
    *o = (struct member_op){c, group, user};
    return o;
}

/* Runs sql with $1 = group and $2 = user (and $3 when extra is set); cb owns o. */
static void member_query(struct member_op *o, const char *sql, const char *extra, db_cb cb)
{
    char g[ID_TEXT], u[ID_TEXT];
    id_text(g, o->group);
    id_text(u, o->user);
    struct db_param p[3] = {{g, 0, 0}, {u, 0, 0}, {extra, 0, 0}};
    if (!db_query(o->c->app->db, sql, extra ? 3 : 2, p, cb, o)) {
        http_reply_error(o->c, 500, "internal", "out of memory");
        free(o);
    }
}

static json_t *member_json(const struct member_op *o, int64_t member_id)
{
    return json_pack("{s:I,s:I,s:I}", "group", (json_int_t)o->group, "user", (json_int_t)o->user, "member_id",
                     (json_int_t)member_id);
}

static void join_done(const struct db_result *r, void *arg)
{
    struct member_op *o = arg;
    struct http_ctx *c = o->c;

    if (r->status != DB_OK) {
        http_reply_db_failure(c, r);
    } else if (PQntuples(r->res) != 1) {
        http_reply_error(c, 500, "internal", "bitmapd.group_join answered %d rows", PQntuples(r->res));
    } else if (PQgetisnull(r->res, 0, 0)) {
        http_reply_error(c, 409, "group_full", "group %lld has given out all %d member ids ([groups] max_members)",
                         (long long)o->group, c->app->cfg->groups_max_members);
    } else {
        const char *result = PQgetvalue(r->res, 0, 1);
        json_t *out = member_json(o, db_value_int8(r->res, 0, 0));
        json_object_set_new(out, "member", json_true());
        json_object_set_new(out, "result", json_stringn(result, (size_t)PQgetlength(r->res, 0, 1)));
        http_reply_json(c, strcmp(result, "joined") == 0 ? 201 : 200, out, -1);
    }
    free(o);
}

/* POST /v1/groups/{group}/members {"user": u} */
void receipt_join(struct http_ctx *c)
{
    static const char *const fields[] = {"user", NULL};
    int64_t group, user;
    char max[16];
    struct member_op *o;

    if (!group_param_or_reply(c, 0, &group) || !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields) ||
        !body_id_or_reply(c, "user", USER_ID_MAX, &user) || !(o = member_op_new(c, group, user)))
        return;
    snprintf(max, sizeof(max), "%d", c->app->cfg->groups_max_members);
    member_query(o,
                 "SELECT member_id::bigint, result"
                 "  FROM bitmapd.group_join($1::bigint, $2::bigint, $3::integer)",
                 max, join_done);
}

#define ISO_UTC(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* The member row of a lookup or a leave as the start of the answer, or NULL after
 * answering the failure (database, or 404 for a user who was never a member). */
static json_t *member_row_or_reply(struct member_op *o, const struct db_result *r)
{
    if (r->status != DB_OK) {
        http_reply_db_failure(o->c, r);
        return NULL;
    }
    if (PQntuples(r->res) != 1) {
        http_reply_error(o->c, 404, "member_not_found", "user %lld was never a member of group %lld",
                         (long long)o->user, (long long)o->group);
        return NULL;
    }
    return member_json(o, db_value_int8(r->res, 0, 0));
}

static void member_done(const struct db_result *r, void *arg)
{
    struct member_op *o = arg;
    struct http_ctx *c = o->c;
    json_t *out = member_row_or_reply(o, r);

    if (out) {
        json_object_set_new(out, "member", json_boolean(PQgetisnull(r->res, 0, 2)));
        json_object_set_new(out, "joined_at", json_stringn(PQgetvalue(r->res, 0, 1), (size_t)PQgetlength(r->res, 0, 1)));
        json_object_set_new(out, "left_at", PQgetisnull(r->res, 0, 2)
                                                ? json_null()
                                                : json_stringn(PQgetvalue(r->res, 0, 2), (size_t)PQgetlength(r->res, 0, 2)));
        http_reply_json(c, 200, out, -1);
    }
    free(o);
}

/* GET /v1/groups/{group}/members/{user} */
void receipt_member(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    int64_t group, user;
    struct member_op *o;

    if (!group_param_or_reply(c, 0, &group) || !http_param_user_or_reply(c, 1, &user) ||
        !http_query_only_or_reply(c, params) || !(o = member_op_new(c, group, user)))
        return;
    member_query(o,
                 "SELECT member_id::bigint, " ISO_UTC("joined_at") ", " ISO_UTC("left_at")
                 "  FROM bitmapd.group_members WHERE group_id = $1::bigint AND user_id = $2::bigint",
                 NULL, member_done);
}

static void leave_done(const struct db_result *r, void *arg)
{
    struct member_op *o = arg;
    struct http_ctx *c = o->c;
    json_t *out = member_row_or_reply(o, r);

    if (out) {
        json_object_set_new(out, "member", json_false());
        json_object_set_new(out, "already_left", json_boolean(db_value_int8(r->res, 0, 1) == 0));
        http_reply_json(c, 200, out, -1);
    }
    free(o);
}

/* DELETE /v1/groups/{group}/members/{user} */
void receipt_leave(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    int64_t group, user;
    struct member_op *o;

    if (!group_param_or_reply(c, 0, &group) || !http_param_user_or_reply(c, 1, &user) ||
        !http_query_only_or_reply(c, params) || !(o = member_op_new(c, group, user)))
        return;
    member_query(o, "SELECT member_id::bigint, left_now::int::bigint FROM bitmapd.group_leave($1::bigint, $2::bigint)",
                 NULL, leave_done);
}

/* ---- recording a message (send time) -------------------------------------------------------- */

struct send_op {
    struct http_ctx *c;
    struct wpath *wp;
    int64_t group, msg, sender_user;
    uint32_t *members; /* current member ids (not left), the sender among them */
    size_t nmembers;
    uint32_t sender;
    bool created;
    struct rejection rej;
};

static void send_op_free(struct send_op *o)
{
    wpath_free(o->wp);
    if (o->rej.body) json_decref(o->rej.body);
    free(o->members);
    free(o);
}

/* The client went away during a write: finish what was sent, start nothing new. */
static void write_gone(struct http_ctx *c) { wpath_abandon(c->op); }

static enum wp_mutation send_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct send_op *o = arg;
    struct wp_key *k = &u->keys[0];
    struct receipts_counts rc;

    o->created = false;
    if (if_match_rejects(o->c, k->version, &o->rej)) return WP_REJECT;
    if (receipts_recorded(k->bm)) { /* a retry, or another instance recorded it first */
        receipts_count(k->bm, &rc);
        if (rc.has_sender && rc.sender != o->sender)
            return reject(&o->rej, 409, "message_exists",
                          "message %lld of group %lld was already recorded with another sender (member id %u)",
                          (long long)o->msg, (long long)o->group, rc.sender);
        return WP_UNCHANGED;
    }
    roaring_bitmap_t *bm = receipts_build(o->members, o->nmembers, o->sender);
    if (!bm) return reject(&o->rej, 500, "internal", "out of memory");
    roaring_bitmap_free(k->bm);
    k->bm = bm;
    k->dirty = true;
    o->created = true;
    return WP_CHANGED;
}

static void send_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct send_op *o = arg;
    struct wp_unit *u = &wpath_units(wp)[0];
    struct receipts_counts rc;

    if (!reply_write_failure(o->c, st, msg, u, &o->rej)) {
        receipts_count(u->keys[0].bm, &rc);
        json_t *out = json_pack("{s:I,s:I,s:I,s:b}", "group", (json_int_t)o->group, "message", (json_int_t)o->msg,
                                "sender", (json_int_t)o->sender_user, "created", o->created);
        counts_into(out, &rc);
        json_object_set_new(out, "version", json_integer((json_int_t)u->keys[0].version));
        http_reply_json(o->c, o->created ? 201 : 200, out, u->keys[0].version);
    }
    send_op_free(o);
}

static const struct wpath_ops send_ops = {.mutate = send_mutate, .done = send_done};

static void send_start_write(struct send_op *o)
{
    char key[WP_KEY_MAX];
    struct http_ctx *c = o->c;

    if (c->gone) { /* nobody to tell: record nothing */
        http_reply_error(c, 503, "client_gone", "the client went away");
        send_op_free(o);
        return;
    }
    if (!(o->wp = wpath_new(c->app->store, c->app->cfg, 1, &send_ops, o, false)) ||
        !wp_key_set(&wpath_units(o->wp)[0].keys[0], key, receipt_key(key, sizeof(key), o->group, o->msg))) {
        http_reply_error(c, 500, "internal", "out of memory");
        send_op_free(o);
        return;
    }
    wpath_units(o->wp)[0].nkeys = 1;
    c->op = o->wp;
    c->on_gone = write_gone;
    wpath_run(o->wp);
}

/* Rows: (-1, group exists) once, then (member id, is the sender) per current member. */
static void send_members_loaded(const struct db_result *r, void *arg)
{
    struct send_op *o = arg;
    struct http_ctx *c = o->c;
    bool group_exists = false, sender_found = false;
    int n;

    if (r->status != DB_OK) {
        http_reply_db_failure(c, r);
        send_op_free(o);
        return;
    }
    n = PQntuples(r->res);
    if (!(o->members = malloc((size_t)(n ? n : 1) * sizeof(*o->members)))) {
        http_reply_error(c, 500, "internal", "out of memory");
        send_op_free(o);
        return;
    }
    for (int i = 0; i < n; i++) {
        int64_t id = db_value_int8(r->res, i, 0), flag = db_value_int8(r->res, i, 1);
        if (id < 0) {
            group_exists = flag != 0;
            continue;
        }
        o->members[o->nmembers++] = (uint32_t)id;
        if (flag) {
            sender_found = true;
            o->sender = (uint32_t)id;
        }
    }
    if (!group_exists) {
        http_reply_error(c, 404, "group_not_found", "group %lld has no members and never had any", (long long)o->group);
        send_op_free(o);
    } else if (!sender_found) {
        http_reply_error(c, 409, "not_member", "user %lld is not a member of group %lld", (long long)o->sender_user,
                         (long long)o->group);
        send_op_free(o);
    } else {
        send_start_write(o);
    }
}

/* POST /v1/groups/{group}/messages {"message": m, "sender": u} */
void receipt_send(struct http_ctx *c)
{
    static const char *const fields[] = {"message", "sender", NULL};
    int64_t group, msg, sender;
    char g[ID_TEXT], s[ID_TEXT];
    struct send_op *o;

    if (!group_param_or_reply(c, 0, &group) || !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields) ||
        !body_id_or_reply(c, "message", GMSG_ID_MAX, &msg) || !body_id_or_reply(c, "sender", USER_ID_MAX, &sender))
        return;
    if (!(o = calloc(1, sizeof(*o)))) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    o->c = c;
    o->group = group;
    o->msg = msg;
    o->sender_user = sender;
    id_text(g, group);
    id_text(s, sender);
    struct db_param p[2] = {{g, 0, 0}, {s, 0, 0}};
    if (!db_query(c->app->db,
                  "SELECT -1::bigint, EXISTS (SELECT 1 FROM bitmapd.group_counters WHERE group_id = $1::bigint)::int::bigint"
                  " UNION ALL"
                  " SELECT member_id::bigint, (user_id = $2::bigint)::int::bigint FROM bitmapd.group_members"
                  "  WHERE group_id = $1::bigint AND left_at IS NULL",
                  2, p, send_members_loaded, o)) {
        http_reply_error(c, 500, "internal", "out of memory");
        send_op_free(o);
    }
}

/* ---- marking a message read ------------------------------------------------------------------- */

struct read_op {
    struct http_ctx *c;
    struct wpath *wp;
    int64_t group, msg, user;
    uint32_t member;
    bool already;
    struct receipts_counts counts; /* after this read, for the answer (set by mutate) */
    struct rejection rej;
    char key[WP_KEY_MAX];
    size_t keylen;
};

static void read_op_free(struct read_op *o)
{
    wpath_free(o->wp);
    if (o->rej.body) json_decref(o->rej.body);
    free(o);
}

static enum wp_mutation read_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct read_op *o = arg;
    struct wp_key *k = &u->keys[0];

    o->already = false;
    if (if_match_rejects(o->c, k->version, &o->rej)) return WP_REJECT;
    if (!receipts_recorded(k->bm))
        return reject(&o->rej, 404, "message_not_found", "group %lld has no message %lld", (long long)o->group,
                      (long long)o->msg);
    switch (receipts_mark_read(k->bm, o->member)) {
    case RECEIPTS_MARKED:
        k->dirty = true;
        wp_key_flipped(k, (uint32_t)RECEIPTS_READ_BIT(o->member));
        receipts_count(k->bm, &o->counts);
        return WP_CHANGED;
    case RECEIPTS_ALREADY_READ:
        o->already = true;
        receipts_count(k->bm, &o->counts);
        return WP_UNCHANGED;
    case RECEIPTS_IS_SENDER:
        return reject(&o->rej, 409, "not_member_at_send",
                      "user %lld sent message %lld; a sender is not counted in its receipts", (long long)o->user,
                      (long long)o->msg);
    case RECEIPTS_NOT_ELIGIBLE:
    default:
        return reject(&o->rej, 409, "not_member_at_send",
                      "user %lld (member id %u) was not a member of group %lld when message %lld was sent",
                      (long long)o->user, o->member, (long long)o->group, (long long)o->msg);
    }
}

static void read_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct read_op *o = arg;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (!reply_write_failure(o->c, st, msg, u, &o->rej)) {
        json_t *out = json_pack("{s:I,s:I,s:I,s:I,s:b}", "group", (json_int_t)o->group, "message", (json_int_t)o->msg,
                                "user", (json_int_t)o->user, "member_id", (json_int_t)o->member, "already",
                                o->already);
        counts_into(out, &o->counts);
        json_object_set_new(out, "version", json_integer((json_int_t)u->keys[0].version));
        http_reply_json(o->c, 200, out, u->keys[0].version);
    }
    read_op_free(o);
}

static const struct wpath_ops read_ops = {.mutate = read_mutate, .done = read_done, .merge = true};

/* One row: (the user's member id or NULL, whether the message is recorded). */
static void read_member_loaded(const struct db_result *r, void *arg)
{
    struct read_op *o = arg;
    struct http_ctx *c = o->c;

    if (r->status != DB_OK) {
        http_reply_db_failure(c, r);
    } else if (PQntuples(r->res) != 1 || db_value_int8(r->res, 0, 1) == 0) {
        http_reply_error(c, 404, "message_not_found", "group %lld has no message %lld", (long long)o->group,
                         (long long)o->msg);
    } else if (PQgetisnull(r->res, 0, 0)) {
        http_reply_error(c, 409, "not_member_at_send", "user %lld was never a member of group %lld",
                         (long long)o->user, (long long)o->group);
    } else if (c->gone) {
        http_reply_error(c, 503, "client_gone", "the client went away");
    } else if (!(o->wp = wpath_new(c->app->store, c->app->cfg, 1, &read_ops, o, false)) ||
               !wp_key_set(&wpath_units(o->wp)[0].keys[0], o->key, o->keylen)) {
        http_reply_error(c, 500, "internal", "out of memory");
    } else {
        o->member = (uint32_t)db_value_int8(r->res, 0, 0);
        wpath_units(o->wp)[0].nkeys = 1;
        c->op = o->wp;
        c->on_gone = write_gone;
        wpath_run(o->wp);
        return;
    }
    read_op_free(o);
}

/* POST /v1/groups/{group}/messages/{msg}/reads {"user": u} */
void receipt_read(struct http_ctx *c)
{
    static const char *const fields[] = {"user", NULL};
    int64_t group, msg, user;
    char g[ID_TEXT], u[ID_TEXT];
    struct read_op *o;

    if (!group_param_or_reply(c, 0, &group) || !gmsg_param_or_reply(c, 1, &msg) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !body_id_or_reply(c, "user", USER_ID_MAX, &user))
        return;
    if (!(o = calloc(1, sizeof(*o)))) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    o->c = c;
    o->group = group;
    o->msg = msg;
    o->user = user;
    o->keylen = receipt_key(o->key, sizeof(o->key), group, msg);
    id_text(g, group);
    id_text(u, user);
    /* the message exists: its row, or its entry in its bucket row (bucket.h) when its
     * family is in buckets (a probe that finds nothing when it is not) */
    struct bucket_ref ref;
    char slot[8];
    if (!bucket_of((const uint8_t *)o->key, o->keylen, &ref)) abort(); /* receipt_key makes members */
    snprintf(slot, sizeof(slot), "%u", ref.slot);
    struct db_param p[5] = {{g, 0, 0}, {u, 0, 0}, {o->key, (int)o->keylen, 1}, {ref.bkey, (int)ref.bkeylen, 1},
                            {slot, 0, 0}};
    if (!store_query_folded(c->app->store,
                  "SELECT (SELECT member_id::bigint FROM bitmapd.group_members"
                  "         WHERE group_id = $1::bigint AND user_id = $2::bigint),"
                  "       (EXISTS (SELECT 1 FROM bitmapd.bitmaps"
                  "                 WHERE key = $3::bytea AND cardinality > 0 AND (bucket IS NULL OR bucket < 0))"
                  "        OR EXISTS (SELECT 1 FROM bitmapd.bitmaps b"
                  "                    CROSS JOIN LATERAL bitmapd._bucket_entries(b.bits) e"
                  "                    WHERE b.key = $4::bytea AND b.bucket > 0 AND e.slot = $5::int"
                  "                      AND NOT e.stub AND e.cardinality > 0))::int::bigint",
                  5, p, read_member_loaded, o)) {
        http_reply_error(c, 500, "internal", "out of memory");
        read_op_free(o);
    }
}

/* ---- listing readers and non-readers --------------------------------------------------------------- */

struct list_op {
    struct http_ctx *c;
    int64_t group, msg;
    enum receipts_list which;
    int64_t after; /* the cursor: member id after which to continue; -1 from the start */
    size_t limit;
    struct receipts_counts rc;
    int64_t version;
    uint32_t *page; /* member ids of this page */
    size_t n;
    bool more;
};

static void list_op_free(struct list_op *o)
{
    free(o->page);
    free(o);
}

static void list_reply(struct list_op *o, json_t *users)
{
    json_t *out = json_pack("{s:I,s:I,s:s}", "group", (json_int_t)o->group, "message", (json_int_t)o->msg, "list",
                            o->which == RECEIPTS_LIST_READ ? "read" : "unread");
    counts_into(out, &o->rc);
    json_object_set_new(out, "users", users);
    json_object_set_new(out, "next_cursor", o->more && o->n ? json_integer(o->page[o->n - 1]) : json_null());
    json_object_set_new(out, "version", json_integer((json_int_t)o->version));
    http_reply_json(o->c, 200, out, o->version);
    list_op_free(o);
}

/* One row per member id of the page, in page order: its user id (NULL if unknown). */
static void list_users_loaded(const struct db_result *r, void *arg)
{
    struct list_op *o = arg;
    json_t *users;

    if (r->status != DB_OK) {
        http_reply_db_failure(o->c, r);
        list_op_free(o);
        return;
    }
    users = json_array();
    for (size_t i = 0; i < o->n; i++) {
        if ((size_t)PQntuples(r->res) != o->n || PQgetisnull(r->res, (int)i, 0)) {
            json_decref(users);
            http_reply_error(o->c, 500, "corrupt_bitmap",
                             "receipts of key 'group:%lld:msg:%lld' name member id %u, which group %lld does not have",
                             (long long)o->group, (long long)o->msg, o->page[i], (long long)o->group);
            list_op_free(o);
            return;
        }
        json_array_append_new(users, json_integer((json_int_t)db_value_int8(r->res, (int)i, 0)));
    }
    list_reply(o, users);
}

/* "{1,2,3}": the page as a PostgreSQL array literal (caller frees). */
static char *page_array_text(const uint32_t *ids, size_t n)
{
    char *s = malloc(n * 11 + 3), *p = s;
    if (!s) return NULL;
    *p++ = '{';
    for (size_t i = 0; i < n; i++) p += sprintf(p, i ? ",%u" : "%u", ids[i]);
    *p++ = '}';
    *p = '\0';
    return s;
}

static void list_loaded(struct bmload *l, enum bmload_status st, const char *message, struct bmload_key *keys,
                        size_t n, void *arg)
{
    struct list_op *o = arg;
    struct http_ctx *c = o->c;

    if (st != BMLOAD_OK) {
        bmload_free(l);
        http_reply_bmload_failure(c, st, message);
        list_op_free(o);
        return;
    }
    if (!keys[0].found || !receipts_recorded(keys[0].bm)) {
        bmload_free(l);
        http_reply_error(c, 404, "message_not_found", "group %lld has no message %lld", (long long)o->group,
                         (long long)o->msg);
        list_op_free(o);
        return;
    }
    o->version = keys[0].version;
    receipts_count(keys[0].bm, &o->rc);
    o->n = receipts_page(keys[0].bm, o->which, o->after, o->limit, o->page, &o->more);
    bmload_free(l);
    if (o->n == 0) {
        list_reply(o, json_array());
        return;
    }
    char g[ID_TEXT], *ids = page_array_text(o->page, o->n);
    id_text(g, o->group);
    struct db_param p[2] = {{g, 0, 0}, {ids, 0, 0}};
    if (!ids || !db_query(c->app->db,
                          "SELECT m.user_id FROM unnest($2::int[]) WITH ORDINALITY AS p(member_id, ord)"
                          "  LEFT JOIN bitmapd.group_members m ON m.group_id = $1::bigint AND m.member_id = p.member_id"
                          " ORDER BY p.ord",
                          2, p, list_users_loaded, o)) {
        http_reply_error(c, 500, "internal", "out of memory");
        list_op_free(o);
    }
    free(ids);
}

static bool list_param_or_reply(struct http_ctx *c, enum receipts_list *which)
{
    const char *s = evhttp_find_header(&c->query, "list");
    if (!s || strcmp(s, "unread") == 0) {
        *which = RECEIPTS_LIST_UNREAD;
    } else if (strcmp(s, "read") == 0) {
        *which = RECEIPTS_LIST_READ;
    } else {
        http_reply_error(c, 400, "invalid_parameter", "list must be read or unread");
        return false;
    }
    return true;
}

/* GET /v1/groups/{group}/messages/{msg}/receipts?list=read|unread&limit=N&cursor=C */
void receipt_list(struct http_ctx *c)
{
    static const char *const params[] = {"list", "limit", "cursor", NULL};
    int64_t group, msg, limit, cursor;
    bool has_limit, has_cursor;
    enum receipts_list which;
    char key[WP_KEY_MAX];
    struct list_op *o;

    if (!group_param_or_reply(c, 0, &group) || !gmsg_param_or_reply(c, 1, &msg) ||
        !http_query_only_or_reply(c, params) || !list_param_or_reply(c, &which) ||
        !http_query_int_or_reply(c, "limit", 1, c->app->cfg->http_max_page_limit, &limit, &has_limit) ||
        !http_query_int_or_reply(c, "cursor", 0, RECEIPTS_MEMBER_MAX, &cursor, &has_cursor))
        return;
    if (!has_limit) limit = c->app->cfg->http_default_page_limit;
    uint32_t *page = malloc((size_t)limit * sizeof(*page));
    if (!page || !(o = malloc(sizeof(*o)))) {
        free(page);
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    *o = (struct list_op){.c = c, .group = group, .msg = msg, .which = which, .after = has_cursor ? cursor : -1,
                          .limit = (size_t)limit, .page = page};
    const char *names[1] = {key};
    size_t lens[1] = {receipt_key(key, sizeof(key), group, msg)};
    if (!bmload_start(c->app->store, names, lens, 1, http_load_flags(c), list_loaded, o)) {
        http_reply_error(c, 500, "internal", "out of memory");
        list_op_free(o);
    }
}
