/* checkin.c — daily check-ins: sign a date (today or back-filled), month calendars,
 * year summaries and streaks. A user's check-ins are one bitmap of day numbers,
 * key checkin:{user}; a check-in is one compare-and-swap unit of that one key. */
#include "domains/checkins/checkin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/calendar.h"
#include "domains/checkins/checkin_rules.h"

/* "Today" for [checkin] time_zone, cached until the next local midnight. */
static struct cal_clock today_clock;

size_t checkin_key(char *buf, int64_t user)
{
    return (size_t)snprintf(buf, CHECKIN_KEY_MAX, "checkin:%lld", (long long)user);
}

/* The streak scope and points list of the configuration (validated at start-up). */
struct checkin_rules {
    enum cal_scope scope;
    int points[CONFIG_MAX_POINTS];
    int npoints;
};

static void rules_of(const struct config *cfg, struct checkin_rules *r)
{
    if (!cal_parse_scope(cfg->checkin_streak_scope, &r->scope)) r->scope = CAL_SCOPE_MONTH;
    r->npoints = config_parse_points(cfg->checkin_points, r->points, CONFIG_MAX_POINTS);
    if (r->npoints < 0) r->npoints = 0;
}

static bool today_or_reply(struct http_ctx *c, int32_t *day)
{
    char err[200];
    if (cal_today(&today_clock, c->app->cfg->checkin_time_zone, time(NULL), day, err, sizeof(err)))
        return true;
    http_reply_error(c, 500, "internal", "%s", err);
    return false;
}

/* A zone name for messages: the configured one, or the process zone. */
static const char *zone_name(const struct config *cfg)
{
    return *cfg->checkin_time_zone ? cfg->checkin_time_zone : cfg->inbox_period_time_zone;
}

/* ---- POST: check in ---------------------------------------------------------------- */

struct checkin_write {
    struct http_ctx *c;
    struct wpath *wp;
    int64_t user;
    int32_t day;
    uint32_t streak, month_count; /* after this write, for the answer (set by mutate) */
};

enum { AUX_NEW = 0, AUX_ALREADY = 1 };

/* The streak and month count the answer reports, from the bitmap as this write left it. */
static void checkin_note(struct checkin_write *w, const roaring_bitmap_t *bm)
{
    struct checkin_rules rules;
    int32_t first = cal_month_start(w->day);
    struct cal_date d = cal_civil(w->day);

    rules_of(w->c->app->cfg, &rules);
    w->streak = cal_streak(bm, w->day, rules.scope);
    w->month_count = (uint32_t)cal_count(bm, first, first + cal_month_days(d.year, d.month) - 1);
}

static enum wp_mutation checkin_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct checkin_write *w = arg;
    struct wp_key *k = &u->keys[0];

    u->aux = AUX_NEW;
    if (w->c->has_if_match && w->c->if_match != k->version) return WP_REJECT;
    if (roaring_bitmap_contains(k->bm, (uint32_t)w->day)) {
        u->aux = AUX_ALREADY;
        checkin_note(w, k->bm);
        return WP_UNCHANGED;
    }
    roaring_bitmap_add(k->bm, (uint32_t)w->day);
    k->dirty = true;
    checkin_note(w, k->bm);
    return WP_CHANGED;
}

static void checkin_write_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct checkin_write *w = arg;
    struct http_ctx *c = w->c;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (st != WP_OK) {
        http_reply_wp_failure(c, st, msg);
    } else if (u->status == WP_REJECTED) {
        http_reply_error(c, 412, "precondition_failed", "version is %lld, not %lld",
                         (long long)u->keys[0].version, (long long)c->if_match);
    } else if (u->status != WP_OK) {
        http_reply_unit_failure(c, u);
    } else {
        struct checkin_rules rules;
        bool already = u->aux == AUX_ALREADY;
        char date[CAL_DATE_LEN + 1];

        rules_of(c->app->cfg, &rules);
        cal_format_date(w->day, date);
        int64_t v = u->keys[0].version;
        http_reply_json(c, 200,
                        json_pack("{s:I,s:s,s:b,s:I,s:I,s:i,s:I}", "user", (json_int_t)w->user, "date", date,
                                  "already", already, "streak", (json_int_t)w->streak, "month_count",
                                  (json_int_t)w->month_count, "points",
                                  already ? 0 : cal_points(rules.points, rules.npoints, w->streak), "version",
                                  (json_int_t)v),
                        v);
    }
    wpath_free(w->wp);
    free(w);
}

static const struct wpath_ops checkin_write_ops = {.mutate = checkin_mutate, .done = checkin_write_done, .merge = true};

static void checkin_write_gone(struct http_ctx *c)
{
    struct checkin_write *w = c->op;
    wpath_abandon(w->wp);
}

/* The optional body {"date": "YYYY-MM-DD"}: sets *day, or leaves it when absent. */
static bool body_date_or_reply(struct http_ctx *c, int32_t *day)
{
    static const char *const fields[] = {"date", NULL};
    json_t *v;

    if (!c->body) return true; /* no body at all: today */
    if (!http_body_fields_or_reply(c, fields)) return false;
    if (!(v = json_object_get(c->body, "date"))) return true;
    if (!json_is_string(v) || !cal_parse_date(json_string_value(v), day)) {
        http_reply_error(c, 400, "invalid_body",
                         "'date' must be a real calendar date written YYYY-MM-DD, from 1970-01-01 to 9999-12-31");
        return false;
    }
    return true;
}

/* Today, or a past date at most [checkin] backfill_days back. */
static bool date_allowed_or_reply(struct http_ctx *c, int32_t day, int32_t today)
{
    const struct config *cfg = c->app->cfg;
    char d[CAL_DATE_LEN + 1], t[CAL_DATE_LEN + 1];

    cal_format_date(day, d);
    cal_format_date(today, t);
    if (day > today) {
        http_reply_error(c, 400, "date_in_future", "%s is after today (%s in time zone %s)", d, t,
                         zone_name(cfg));
        return false;
    }
    if (today - day > cfg->checkin_backfill_days) {
        char e[CAL_DATE_LEN + 1];
        cal_format_date(today - cfg->checkin_backfill_days, e);
        http_reply_error(c, 400, "date_too_old",
                         "%s is more than %d day(s) before today (%s): the earliest date that may be "
                         "back-filled is %s",
                         d, cfg->checkin_backfill_days, t, e);
        return false;
    }
    return true;
}

/* POST /v1/users/{user}/checkins {"date": "YYYY-MM-DD"} */
void checkin_post(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    struct checkin_write *w;
    int64_t user;
    int32_t today, day = -1;
    char key[CHECKIN_KEY_MAX];

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params) ||
        !body_date_or_reply(c, &day) || !today_or_reply(c, &today))
        return;
    if (day < 0) day = today;
    if (!date_allowed_or_reply(c, day, today)) return;
    w = calloc(1, sizeof(*w));
    if (!w || !(w->wp = wpath_new(c->app->store, c->app->cfg, 1, &checkin_write_ops, w, false))) {
        free(w);
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    w->c = c;
    w->user = user;
    w->day = day;
    struct wp_unit *u = &wpath_units(w->wp)[0];
    u->nkeys = 1;
    if (!wp_key_set(&u->keys[0], key, checkin_key(key, user))) abort(); /* < 32 bytes: cannot fail */
    c->op = w;
    c->on_gone = checkin_write_gone;
    wpath_run(w->wp);
}

/* ---- reads ----------------------------------------------------------------------------- */

enum read_kind { READ_MONTH, READ_YEAR, READ_STREAK };

struct checkin_read {
    struct http_ctx *c;
    enum read_kind kind;
    int64_t user;
    int year, month; /* READ_MONTH, READ_YEAR */
    int32_t day;     /* READ_STREAK */
};

/* {"month", "count", "days": [1, 2, …], "calendar": {"YYYY-MM-01": bool, …}} */
static json_t *month_json(const struct checkin_read *r, const roaring_bitmap_t *bm)
{
    char mon[CAL_MONTH_LEN + 1], date[CAL_DATE_LEN + 1];
    int32_t first = cal_month_first(r->year, r->month);
    int n = cal_month_days(r->year, r->month);
    json_t *days = json_array(), *cal = json_object();

    for (int i = 0; i < n; i++) {
        bool in = roaring_bitmap_contains(bm, (uint32_t)(first + i));
        if (in) json_array_append_new(days, json_integer(i + 1));
        cal_format_date(first + i, date);
        json_object_set_new(cal, date, json_boolean(in));
    }
    cal_format_month(r->year, r->month, mon);
    return json_pack("{s:I,s:s,s:I,s:o,s:o}", "user", (json_int_t)r->user, "month", mon, "count",
                     (json_int_t)json_array_size(days), "days", days, "calendar", cal);
}

/* {"year", "count", "months": {"YYYY-01": n, …}, "longest_streak": n} */
static json_t *year_json(const struct checkin_read *r, const roaring_bitmap_t *bm, enum cal_scope scope)
{
    char mon[CAL_MONTH_LEN + 1], y[8];
    json_t *months = json_object();
    uint64_t total = 0;

    for (int m = 1; m <= 12; m++) {
        int32_t first = cal_month_first(r->year, m);
        uint64_t n = cal_count(bm, first, first + cal_month_days(r->year, m) - 1);
        cal_format_month(r->year, m, mon);
        json_object_set_new(months, mon, json_integer((json_int_t)n));
        total += n;
    }
    int32_t first = cal_month_first(r->year, 1), last = cal_month_first(r->year, 12) + 30;
    snprintf(y, sizeof(y), "%04d", r->year);
    return json_pack("{s:I,s:s,s:I,s:o,s:I}", "user", (json_int_t)r->user, "year", y, "count",
                     (json_int_t)total, "months", months, "longest_streak",
                     (json_int_t)cal_longest_streak(bm, first, last, scope));
}

/* {"date", "checked_in", "streak", "streak_before"} */
static json_t *streak_json(const struct checkin_read *r, const roaring_bitmap_t *bm, enum cal_scope scope)
{
    char date[CAL_DATE_LEN + 1];
    cal_format_date(r->day, date);
    return json_pack("{s:I,s:s,s:b,s:I,s:I}", "user", (json_int_t)r->user, "date", date, "checked_in",
                     roaring_bitmap_contains(bm, (uint32_t)r->day), "streak",
                     (json_int_t)cal_streak(bm, r->day, scope), "streak_before",
                     (json_int_t)cal_streak_before(bm, r->day, scope));
}

static void checkin_loaded(struct bmload *l, enum bmload_status st, const char *message,
                           struct bmload_key *keys, size_t n, void *arg)
{
    struct checkin_read *r = arg;
    struct checkin_rules rules;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, message);
    } else {
        json_t *out;
        rules_of(r->c->app->cfg, &rules);
        switch (r->kind) {
        case READ_MONTH: out = month_json(r, keys[0].bm); break;
        case READ_YEAR: out = year_json(r, keys[0].bm, rules.scope); break;
        case READ_STREAK:
        default: out = streak_json(r, keys[0].bm, rules.scope); break;
        }
        http_reply_json(r->c, 200, out, keys[0].version);
    }
    bmload_free(l);
    free(r);
}

/* Loads the user's bitmap (no row is created) and answers r->kind. Frees r. */
static void checkin_read_start(struct checkin_read *r)
{
    char key[CHECKIN_KEY_MAX];
    const char *names[1] = {key};
    size_t lens[1] = {checkin_key(key, r->user)};

    if (!bmload_start(r->c->app->store, names, lens, 1, http_load_flags(r->c), checkin_loaded, r)) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        free(r);
    }
}

static struct checkin_read *read_new_or_reply(struct http_ctx *c, enum read_kind kind, int64_t user)
{
    struct checkin_read *r = calloc(1, sizeof(*r));
    if (!r) {
        http_reply_error(c, 500, "internal", "out of memory");
        return NULL;
    }
    r->c = c;
    r->kind = kind;
    r->user = user;
    return r;
}

/* GET /v1/users/{user}/checkins[?month=YYYY-MM | ?year=YYYY] */
void checkin_get(struct http_ctx *c)
{
    static const char *const params[] = {"month", "year", NULL};
    int64_t user;
    int32_t today;
    int year = 0, month = 0;
    const char *qm, *qy;
    struct checkin_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params)) return;
    qm = evhttp_find_header(&c->query, "month");
    qy = evhttp_find_header(&c->query, "year");
    if (qm && qy) {
        http_reply_error(c, 400, "invalid_parameter", "use either month or year, not both");
        return;
    }
    if (qm && !cal_parse_month(qm, &year, &month)) {
        http_reply_error(c, 400, "invalid_parameter", "month must be YYYY-MM, from 1970-01 to 9999-12");
        return;
    }
    if (qy && !cal_parse_year(qy, &year)) {
        http_reply_error(c, 400, "invalid_parameter", "year must be YYYY, from 1970 to 9999");
        return;
    }
    if (!qm && !qy) {
        if (!today_or_reply(c, &today)) return;
        struct cal_date d = cal_civil(today);
        year = d.year;
        month = d.month;
    }
    if (!(r = read_new_or_reply(c, qy ? READ_YEAR : READ_MONTH, user))) return;
    r->year = year;
    r->month = month;
    checkin_read_start(r);
}

/* GET /v1/users/{user}/checkins/streak[?date=YYYY-MM-DD] */
void checkin_streak(struct http_ctx *c)
{
    static const char *const params[] = {"date", NULL};
    int64_t user;
    int32_t day;
    const char *qd;
    struct checkin_read *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, params)) return;
    qd = evhttp_find_header(&c->query, "date");
    if (qd && !cal_parse_date(qd, &day)) {
        http_reply_error(c, 400, "invalid_parameter",
                         "date must be a real calendar date written YYYY-MM-DD, from 1970-01-01 to 9999-12-31");
        return;
    }
    if (!qd && !today_or_reply(c, &day)) return;
    if (!(r = read_new_or_reply(c, READ_STREAK, user))) return;
    r->day = day;
    checkin_read_start(r);
}
