/* inbox_history.c — periods (a calendar month starts at a message id, recorded from
 * the first push of the month) and history drop, for one user or for every user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "domains/inbox/inbox_internal.h"
#include "domains/inbox/inbox_rules.h"
#include "http/reqparse.h"
#include "store/codec.h"

/* ---- periods ------------------------------------------------------------------------------------- */

/* A period is a calendar month ("YYYY-MM") and starts at a message id: the boundary
 * is recorded in bitmapd.inbox_periods, automatically from the first push the
 * service commits in a month (or set by PUT /v1/periods/{period}). */

bool parse_period(const char *s, int *year, int *month)
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
void periods_note_push(struct app *app, const uint32_t *ids, size_t n)
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


/* [{"period": "YYYY-MM", "first_message": id}, …] from SQL_PERIODS rows. */
json_t *periods_json(const PGresult *res)
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
    user_write_start(c, &(struct user_write_args){INBOX_DROP, user, NULL, 0, false, bound});
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
    struct app *app;
    drop_all_done_fn *done;
    void *arg;
    struct wpath *wp;
    uint32_t bound;
    uint8_t last_key[WP_KEY_MAX];
    size_t last_len;
    uint64_t users_changed, removed, failed;
    json_t *errors; /* the first NOT_PUSHED_LIST_MAX users that could not be changed */
    bool gone;
};

static void drop_all_next(struct drop_all *d);

void drop_all_abandon(struct drop_all *d)
{
    d->gone = true;
    if (d->wp) wpath_abandon(d->wp);
}

static void drop_all_end(struct drop_all *d, int status, const char *code, const char *msg)
{
    struct drop_all_result res = {.bound = d->bound, .users_changed = d->users_changed, .removed = d->removed,
                                  .failed = d->failed, .errors = d->errors, .status = status, .code = code,
                                  .message = msg, .abandoned = d->gone};
    d->done(&res, d->arg);
    if (d->wp) wpath_free(d->wp);
    json_decref(d->errors);
    free(d);
}

static void drop_all_fail(struct drop_all *d, int status, const char *code, const char *msg)
{
    drop_all_end(d, status, code, msg);
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
        /* 200 when every user was handled; otherwise 500 naming who was not */
        drop_all_end(d, d->failed ? 500 : 200, NULL, NULL);
        return;
    }
    /* remember where the page ended; the users of its keys become write units */
    d->last_len = (size_t)PQgetlength(r->res, n - 1, 0);
    if (d->last_len > sizeof(d->last_key)) d->last_len = sizeof(d->last_key);
    memcpy(d->last_key, PQgetvalue(r->res, n - 1, 0), d->last_len);
    d->wp = wpath_new(d->app->store, d->app->cfg, (size_t)n, &drop_all_ops, d, false);
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
    if (!store_query_folded(d->app->store, sql, 1, p, drop_all_keys_loaded, d)) drop_all_fail(d, 500, "internal", "out of memory");
}

struct drop_all *drop_all_start(struct app *app, uint32_t bound, drop_all_done_fn *done, void *arg)
{
    struct drop_all *d = calloc(1, sizeof(*d));
    if (!d) return NULL;
    d->app = app;
    d->done = done;
    d->arg = arg;
    d->bound = bound;
    if (!(d->errors = json_array())) {
        free(d);
        return NULL;
    }
    drop_all_next(d);
    return d;
}

static void drop_all_http_done(const struct drop_all_result *res, void *arg)
{
    struct http_ctx *c = arg;
    c->op = NULL;
    c->on_gone = NULL;
    if (res->code) {
        http_reply_error(c, res->status, res->code, "%s (after %llu users changed, %llu messages removed)",
                         res->message, (unsigned long long)res->users_changed, (unsigned long long)res->removed);
        return;
    }
    json_t *out = json_pack("{s:I,s:I,s:I}", "before", (json_int_t)res->bound, "users",
                            (json_int_t)res->users_changed, "removed", (json_int_t)res->removed);
    if (res->failed) {
        json_object_set_new(out, "failed", json_integer((json_int_t)res->failed));
        json_object_set(out, "errors", res->errors);
    }
    http_reply_json(c, res->status, out, -1);
}

static void drop_all_http_gone(struct http_ctx *c) { drop_all_abandon(c->op); }

static void drop_all_http_start(struct http_ctx *c, uint32_t bound)
{
    /* the first page is a statement: drop_all_http_done never runs inside this call */
    struct drop_all *d = drop_all_start(c->app, bound, drop_all_http_done, c);
    if (!d) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    c->op = d;
    c->on_gone = drop_all_http_gone;
}

/* POST /v1/history/drop {"before": id} | {"before_period": "YYYY-MM"} */
void inbox_drop_all(struct http_ctx *c)
{
    static const char *const fields[] = {"before", "before_period", NULL};
    if (!http_body_or_reply(c) || !http_body_fields_or_reply(c, fields)) return;
    drop_bound_then(c, drop_all_http_start);
}
