/* inbox_reads.c — the message box's reads: one message, the newest-first listing by
 * page or cursor, the unread count (and list), and the counts per period. Each loads
 * both of a user's rows in one statement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "domains/inbox/inbox_internal.h"
#include "domains/inbox/inbox_rules.h"
#include "http/reqparse.h"
#include "store/codec.h"

/* ---- reads ----------------------------------------------------------------------------------- */

void user_read_free(struct user_read *r)
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

void user_read_start(struct user_read *r)
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

struct user_read *user_read_new(struct http_ctx *c, int64_t user, user_read_fn then)
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
    r->skip = inbox_page_skip(page, limit);
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

static void user_periods_answer(struct user_read *r)
{
    json_t *out = json_array();
    size_t n = json_array_size(r->periods);
    uint64_t *firsts = malloc((n ? n : 1) * sizeof(*firsts));
    struct inbox_period_count *counts = malloc((n + 1) * sizeof(*counts));

    if (!out || !firsts || !counts) {
        json_decref(out);
        free(firsts);
        free(counts);
        http_reply_error(r->c, 500, "internal", "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        firsts[i] = (uint64_t)json_integer_value(json_object_get(json_array_get(r->periods, i), "first_message"));
    inbox_period_counts(r->bm[K_PUSH], r->bm[K_READ], firsts, n, counts);
    /* "earlier" (messages below the first boundary) only when it holds any */
    for (size_t i = 0; i <= n; i++) {
        if (i == 0 && !counts[0].pushed && !counts[0].read) continue;
        json_t *name = i ? json_incref(json_object_get(json_array_get(r->periods, i - 1), "period"))
                         : json_string("earlier");
        json_array_append_new(out, json_pack("{s:o,s:I,s:I,s:I}", "period", name, "first_message",
                                             (json_int_t)counts[i].first, "pushed", (json_int_t)counts[i].pushed,
                                             "read", (json_int_t)counts[i].read));
    }
    free(firsts);
    free(counts);
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
