/* unread_reddots.c — red dots: a setting number per dot and the number each user last
 * clicked (migrations/0006_unread.sql), one statement each. */
#include <event2/event.h>
#include <event2/http.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "domains/unread/unread_internal.h"
#include "domains/unread/unread_rules.h"

/* ======================================================================================
 * Red dots
 * ==================================================================================== */

/* Segment seg (0-based) of the request path, for names longer than the router keeps. */
static bool path_segment(struct http_ctx *c, int seg, const char **start, size_t *len)
{
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(c->req);
    const char *p = uri ? evhttp_uri_get_path(uri) : NULL;
    if (!p) return false;
    for (int i = 0; i <= seg; i++) {
        if (*p != '/') return false;
        p++;
        size_t n = strcspn(p, "/");
        if (i == seg) {
            *start = p;
            *len = n;
            return true;
        }
        p += n;
    }
    return false;
}

/* The dot name of path parameter param (path segment seg) into out. */
static bool reddot_name_or_reply(struct http_ctx *c, int param, int seg, char *out)
{
    const char *s = c->match.params[param];
    size_t len = strlen(s);
    if (c->match.param_truncated[param] && !path_segment(c, seg, &s, &len)) len = 0;
    if (!unread_reddot_name_valid(s, len)) {
        http_reply_error(c, 400, "invalid_id", "a red dot name is 1 to %d characters of A-Z a-z 0-9 _ . : -",
                         UNREAD_REDDOT_NAME_MAX);
        return false;
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return true;
}

/* set_at as an RFC 3339 UTC time with microseconds. */
#define SET_AT_TEXT "to_char(d.set_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* {"name", "seq", "set_at"} from a row (name, seq, set_at text). */
static json_t *reddot_json(const PGresult *res)
{
    return json_pack("{s:s%,s:I,s:s%}", "name", PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), "seq",
                     (json_int_t)db_value_int8(res, 0, 1), "set_at", PQgetvalue(res, 0, 2),
                     (size_t)PQgetlength(res, 0, 2));
}

static void reddot_set_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status != DB_OK)
        http_reply_db_failure(c, r);
    else
        http_reply_json(c, 200, reddot_json(r->res), -1);
}

/* POST /v1/reddots/{name} — shows the dot to every user again. The number is drawn
 * after the row is locked, so a dot's seq only grows even under concurrent sets. */
void unread_reddot_set(struct http_ctx *c)
{
    char name[UNREAD_REDDOT_NAME_MAX + 1];
    if (!reddot_name_or_reply(c, 0, 2, name) || !http_query_only_or_reply(c, ur_no_names) ||
        !ur_optional_body_or_reply(c, ur_no_names))
        return;
    struct db_param p[1] = {{name, 0, 0}};
    (void)ur_query_or_reply(c,
                         "INSERT INTO bitmapd.reddots AS d (name, seq, set_at)"
                         " VALUES ($1::text, nextval('bitmapd.reddot_seq'), now())"
                         " ON CONFLICT (name) DO UPDATE SET seq = nextval('bitmapd.reddot_seq'), set_at = now()"
                         " RETURNING d.name, d.seq, " SET_AT_TEXT,
                         1, p, reddot_set_done, c);
}

static void reddot_get_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status != DB_OK)
        http_reply_db_failure(c, r);
    else if (PQntuples(r->res) == 0)
        http_reply_error(c, 404, "not_found", "this red dot was never set");
    else
        http_reply_json(c, 200, reddot_json(r->res), -1);
}

/* GET /v1/reddots/{name} */
void unread_reddot_get(struct http_ctx *c)
{
    char name[UNREAD_REDDOT_NAME_MAX + 1];
    if (!reddot_name_or_reply(c, 0, 2, name) || !http_query_only_or_reply(c, ur_no_names)) return;
    struct db_param p[1] = {{name, 0, 0}};
    (void)ur_query_or_reply(c, "SELECT d.name, d.seq, " SET_AT_TEXT " FROM bitmapd.reddots d WHERE d.name = $1::text",
                         1, p, reddot_get_done, c);
}

struct dot_req {
    struct http_ctx *c;
    int64_t user;
    char name[UNREAD_REDDOT_NAME_MAX + 1];
};

/* Parses {user} and {name} of /v1/users/{user}/reddots/{name}[/click]. */
static struct dot_req *dot_req_or_reply(struct http_ctx *c)
{
    struct dot_req *d;
    int64_t user;
    char name[UNREAD_REDDOT_NAME_MAX + 1];

    if (!http_param_user_or_reply(c, 0, &user) || !reddot_name_or_reply(c, 1, 4, name) ||
        !http_query_only_or_reply(c, ur_no_names))
        return NULL;
    if (!(d = calloc(1, sizeof(*d)))) {
        ur_reply_oom(c);
        return NULL;
    }
    d->c = c;
    d->user = user;
    memcpy(d->name, name, sizeof(name));
    return d;
}

static void dot_reply(struct dot_req *d, bool show)
{
    http_reply_json(d->c, 200, json_pack("{s:I,s:s,s:b}", "user", (json_int_t)d->user, "name", d->name, "show", show),
                    -1);
    free(d);
}

static void reddot_show_done(const struct db_result *r, void *arg)
{
    struct dot_req *d = arg;
    if (r->status != DB_OK) {
        http_reply_db_failure(d->c, r);
        free(d);
        return;
    }
    /* no row: the dot was never set, so there is nothing to show */
    dot_reply(d, PQntuples(r->res) == 1 && PQgetvalue(r->res, 0, 0)[0] != 0);
}

/* GET /v1/users/{user}/reddots/{name} — true iff the dot was set after the user's
 * last click on it (or set and never clicked). */
void unread_reddot_show(struct http_ctx *c)
{
    struct dot_req *d;
    struct num u;
    if (!(d = dot_req_or_reply(c))) return;
    struct db_param p[2] = {{d->name, 0, 0}, {ur_num(&u, d->user), 0, 0}};
    if (!ur_query_or_reply(c,
                        "SELECT c.seq IS NULL OR c.seq < d.seq FROM bitmapd.reddots d"
                        " LEFT JOIN bitmapd.reddot_clicks c ON c.name = d.name AND c.user_id = $2::int8"
                        " WHERE d.name = $1::text",
                        2, p, reddot_show_done, d))
        free(d);
}

static void reddot_click_done(const struct db_result *r, void *arg)
{
    struct dot_req *d = arg;
    /* 23503: the dot was deleted by an operator while we clicked it */
    bool unset = (r->status == DB_OK && PQntuples(r->res) == 0) ||
                 (r->status == DB_ERROR && r->sqlstate && strcmp(r->sqlstate, "23503") == 0);
    if (unset) {
        http_reply_error(d->c, 404, "not_found", "red dot '%s' was never set", d->name);
        free(d);
    } else if (r->status != DB_OK) {
        http_reply_db_failure(d->c, r);
        free(d);
    } else {
        dot_reply(d, false);
    }
}

/* POST /v1/users/{user}/reddots/{name}/click — records the dot's current number as
 * seen by the user (never an older one). */
void unread_reddot_click(struct http_ctx *c)
{
    struct dot_req *d;
    struct num u;
    if (!(d = dot_req_or_reply(c))) return;
    if (!ur_optional_body_or_reply(c, ur_no_names)) {
        free(d);
        return;
    }
    struct db_param p[2] = {{ur_num(&u, d->user), 0, 0}, {d->name, 0, 0}};
    if (!ur_query_or_reply(c,
                        "INSERT INTO bitmapd.reddot_clicks AS c (user_id, name, seq, clicked_at)"
                        " SELECT $1::int8, d.name, d.seq, now() FROM bitmapd.reddots d WHERE d.name = $2::text"
                        " ON CONFLICT (user_id, name) DO UPDATE SET seq = greatest(c.seq, EXCLUDED.seq),"
                        " clicked_at = EXCLUDED.clicked_at"
                        " RETURNING c.seq",
                        2, p, reddot_click_done, d))
        free(d);
}
