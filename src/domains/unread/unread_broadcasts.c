/* unread_broadcasts.c — system notices: the global list `broadcasts`, a last-seen cursor
 * per user, and the clearing of idle cursors (on request and hourly). */
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
 * System notices
 * ==================================================================================== */

/* ---- POST /v1/broadcasts -------------------------------------------------------------- */

struct bc_post {
    struct http_ctx *c;
    uint32_t id;
    bool created; /* as decided by the mutation that committed */
    uint64_t count; /* broadcasts after it, for the answer */
};

static enum wp_mutation bc_post_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct bc_post *p = arg;
    p->created = !roaring_bitmap_contains(u->keys[0].bm, p->id);
    if (p->created) roaring_bitmap_add(u->keys[0].bm, p->id);
    p->count = roaring_bitmap_get_cardinality(u->keys[0].bm);
    u->keys[0].dirty = p->created;
    return p->created ? WP_CHANGED : WP_UNCHANGED;
}

static void bc_post_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct bc_post *p = arg;
    struct http_ctx *c = p->c;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (st != WP_OK) {
        http_reply_wp_failure(c, st, msg);
    } else if (u->status != WP_OK) {
        http_reply_unit_failure(c, u);
    } else {
        int64_t v = u->keys[0].version;
        http_reply_json(c, 200,
                        json_pack("{s:I,s:b,s:I,s:I}", "id", (json_int_t)p->id, "created", p->created, "count",
                                  (json_int_t)p->count, "version", (json_int_t)v),
                        v);
    }
    wpath_free(wp);
    free(p);
}

static const struct wpath_ops bc_post_ops = {.mutate = bc_post_mutate, .done = bc_post_done, .merge = true};

/* POST /v1/broadcasts {"id": n} — appends to the global list (idempotent). */
void unread_broadcast_post(struct http_ctx *c)
{
    static const char *const fields[] = {"id", NULL};
    int64_t id = 0;
    bool present;
    struct bc_post *p;
    struct wpath *wp;

    if (!http_query_only_or_reply(c, ur_no_names) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !ur_body_id_or_reply(c, "id", MSG_ID_MAX, true, &id, &present))
        return;
    if (!(p = calloc(1, sizeof(*p))) ||
        !(wp = ur_one_key_write(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), &bc_post_ops, p))) {
        free(p);
        ur_reply_oom(c);
        return;
    }
    p->c = c;
    p->id = (uint32_t)id;
    ur_one_key_run(c, wp);
}

/* ---- GET /v1/broadcasts ---------------------------------------------------------------- */

static void bc_get_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                          size_t n, void *arg)
{
    struct http_ctx *c = arg;
    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(c, st, msg);
    } else {
        http_reply_json(c, 200,
                        json_pack("{s:I,s:o,s:I}", "count", (json_int_t)roaring_bitmap_get_cardinality(k[0].bm),
                                  "newest", ur_newest_json(k[0].bm), "version", (json_int_t)k[0].version),
                        k[0].version);
    }
    bmload_free(l);
}

/* GET /v1/broadcasts — size and newest id of the global list. */
void unread_broadcast_get(struct http_ctx *c)
{
    if (!http_query_only_or_reply(c, ur_no_names)) return;
    (void)ur_load_one_or_reply(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), bc_get_loaded, c);
}

/* ---- GET /v1/users/{user}/broadcasts/unread ----------------------------------------------
 * The list and the user's cursor are read at the same time; the answer waits for both. */

enum bc_failure { BCF_NONE, BCF_LOAD, BCF_DB, BCF_OOM };

struct bc_unread {
    struct http_ctx *c;
    int64_t user;
    int pending;                /* reads not yet back */
    roaring_bitmap_t *bm;       /* the list, taken from the load */
    bool has_cursor;
    int64_t last_seen;
    enum bc_failure failure;    /* the first failure, answered when both are back */
    enum bmload_status load_status;
    struct db_result db_failure;
    char message[256];
};

static void bc_unread_fail(struct bc_unread *r, enum bc_failure f, const char *msg)
{
    if (r->failure != BCF_NONE) return;
    r->failure = f;
    snprintf(r->message, sizeof(r->message), "%s", msg ? msg : "");
}

static void bc_unread_answer(struct bc_unread *r)
{
    struct http_ctx *c = r->c;
    uint64_t unread = unread_broadcasts_after(r->bm, r->has_cursor, r->last_seen);

    http_reply_json(c, 200,
                    json_pack("{s:I,s:I,s:b,s:o,s:o}", "user", (json_int_t)r->user, "unread", (json_int_t)unread,
                              "seen", r->has_cursor, "last_seen",
                              ur_json_id_or_null(r->has_cursor && r->last_seen >= 0, r->last_seen), "newest",
                              ur_newest_json(r->bm)),
                    -1);
}

/* One of the two reads is back: answer once both are. */
static void bc_unread_step(struct bc_unread *r)
{
    if (--r->pending > 0) return;
    switch (r->failure) {
    case BCF_NONE:
        bc_unread_answer(r);
        break;
    case BCF_LOAD:
        http_reply_bmload_failure(r->c, r->load_status, r->message);
        break;
    case BCF_DB:
        r->db_failure.message = r->message;
        http_reply_db_failure(r->c, &r->db_failure);
        break;
    case BCF_OOM:
        ur_reply_oom(r->c);
        break;
    }
    if (r->bm) roaring_bitmap_free(r->bm);
    free(r);
}

static void bc_unread_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                             size_t n, void *arg)
{
    struct bc_unread *r = arg;
    if (st != BMLOAD_OK) {
        r->load_status = st;
        bc_unread_fail(r, BCF_LOAD, msg);
    } else {
        r->bm = k[0].bm;
        k[0].bm = NULL;
    }
    bmload_free(l);
    bc_unread_step(r);
}

static void bc_unread_cursor(const struct db_result *res, void *arg)
{
    struct bc_unread *r = arg;
    if (res->status != DB_OK) {
        r->db_failure.status = res->status;
        bc_unread_fail(r, BCF_DB, res->message);
    } else if (PQntuples(res->res) == 1) {
        r->has_cursor = true;
        r->last_seen = db_value_int8(res->res, 0, 0);
    }
    bc_unread_step(r);
}

/* GET /v1/users/{user}/broadcasts/unread — broadcasts after the user's cursor; a
 * user with no cursor (never seen, or cleared when idle) counts 0, as the seed says. */
void unread_broadcast_unread(struct http_ctx *c)
{
    int64_t user;
    struct num u;
    struct bc_unread *r;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names)) return;
    if (!(r = calloc(1, sizeof(*r)))) {
        ur_reply_oom(c);
        return;
    }
    r->c = c;
    r->user = user;
    r->pending = 2;
    struct db_param p[1] = {{ur_num(&u, user), 0, 0}};
    if (!ur_query_or_reply(c, "SELECT last_seen FROM bitmapd.broadcast_seen WHERE user_id = $1::int8", 1, p,
                        bc_unread_cursor, r)) {
        free(r);
        return;
    }
    const char *names[1] = {BROADCASTS_KEY};
    size_t lens[1] = {strlen(BROADCASTS_KEY)};
    if (!bmload_start(c->app->store, names, lens, 1, http_load_flags(c), bc_unread_loaded, r)) {
        bc_unread_fail(r, BCF_OOM, NULL);
        bc_unread_step(r); /* the cursor read is still out; it answers */
    }
}

/* ---- POST /v1/users/{user}/broadcasts/seen -------------------------------------------------- */

struct bc_seen {
    struct http_ctx *c;
    int64_t user;
    bool has_id;
    int64_t id;
    roaring_bitmap_t *bm; /* the list as loaded */
};

static void bc_seen_free(struct bc_seen *s)
{
    if (s->bm) roaring_bitmap_free(s->bm);
    free(s);
}

static void bc_seen_stored(const struct db_result *res, void *arg)
{
    struct bc_seen *s = arg;
    if (res->status != DB_OK) {
        http_reply_db_failure(s->c, res);
    } else {
        int64_t last = db_value_int8(res->res, 0, 0);
        uint64_t unread = unread_broadcasts_after(s->bm, true, last);
        http_reply_json(s->c, 200,
                        json_pack("{s:I,s:o,s:I,s:o}", "user", (json_int_t)s->user, "last_seen",
                                  ur_json_id_or_null(last >= 0, last), "unread", (json_int_t)unread, "newest",
                                  ur_newest_json(s->bm)),
                        -1);
    }
    bc_seen_free(s);
}

/* The cursor never moves backwards (greatest), whatever order requests commit in. */
static const char SQL_SEEN[] =
    "INSERT INTO bitmapd.broadcast_seen AS s (user_id, last_seen, seen_at) VALUES ($1::int8, $2::int8, now())"
    " ON CONFLICT (user_id) DO UPDATE SET last_seen = greatest(s.last_seen, EXCLUDED.last_seen),"
    " seen_at = EXCLUDED.seen_at"
    " RETURNING s.last_seen";

static void bc_seen_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                           size_t n, void *arg)
{
    struct bc_seen *s = arg;
    struct num u, id;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(s->c, st, msg);
        bmload_free(l);
        bc_seen_free(s);
        return;
    }
    s->bm = k[0].bm;
    k[0].bm = NULL;
    bmload_free(l);
    int64_t target = unread_seen_target(s->bm, s->has_id, s->id);
    struct db_param p[2] = {{ur_num(&u, s->user), 0, 0}, {ur_num(&id, target), 0, 0}};
    if (!ur_query_or_reply(s->c, SQL_SEEN, 2, p, bc_seen_stored, s)) bc_seen_free(s);
}

/* POST /v1/users/{user}/broadcasts/seen [{"id": n}] — the cursor moves to the newest
 * broadcast, or to id; never backwards. */
void unread_broadcast_seen(struct http_ctx *c)
{
    static const char *const fields[] = {"id", NULL};
    int64_t user, id = 0;
    bool has_id;
    struct bc_seen *s;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names) ||
        !ur_optional_body_or_reply(c, fields) || !ur_body_id_or_reply(c, "id", MSG_ID_MAX, false, &id, &has_id))
        return;
    if (!(s = calloc(1, sizeof(*s)))) {
        ur_reply_oom(c);
        return;
    }
    *s = (struct bc_seen){c, user, has_id, id, NULL};
    if (!ur_load_one_or_reply(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), bc_seen_loaded, s)) free(s);
}

/* ---- clearing idle cursors ---------------------------------------------------------------------
 * A sweep deletes cursors idle longer than `days`, SWEEP_BATCH rows per statement
 * (each its own transaction), until a statement deletes fewer. */

struct sweep;
/* failure is NULL on success; borrowed for the call. The callee frees sw. */
typedef void (*sweep_done_fn)(struct sweep *sw, const struct db_result *failure);

struct sweep {
    struct db *db;
    int days;
    uint64_t cleared;
    struct db_job *job; /* the statement in flight */
    bool stop;          /* finish after the statement in flight */
    sweep_done_fn done;
    void *arg;
};

static void sweep_step(struct sweep *sw);

static void sweep_batch_done(const struct db_result *r, void *arg)
{
    struct sweep *sw = arg;
    sw->job = NULL;
    if (r->status != DB_OK) {
        sw->done(sw, r);
        return;
    }
    int64_t n = db_value_int8(r->res, 0, 0);
    sw->cleared += (uint64_t)n;
    if (n < SWEEP_BATCH || sw->stop)
        sw->done(sw, NULL);
    else
        sweep_step(sw);
}

/* Sends the next batch; sw may be gone when this returns. */
static void sweep_step(struct sweep *sw)
{
    struct num days, batch;
    struct db_param p[2] = {{ur_num(&days, sw->days), 0, 0}, {ur_num(&batch, SWEEP_BATCH), 0, 0}};
    sw->job = db_query(sw->db, "SELECT bitmapd.broadcast_clear_batch(make_interval(days => $1::int), $2::int)", 2,
                       p, sweep_batch_done, sw);
    if (!sw->job) {
        struct db_result oom = {DB_ERROR, NULL, "out of memory", NULL};
        sw->done(sw, &oom);
    }
}

static struct sweep *sweep_new(struct db *db, int days, sweep_done_fn done, void *arg)
{
    struct sweep *sw = calloc(1, sizeof(*sw));
    if (sw) *sw = (struct sweep){.db = db, .days = days, .done = done, .arg = arg};
    return sw;
}

/* POST /v1/broadcasts/cursors/expire {"inactive_days": n} */

static void expire_done(struct sweep *sw, const struct db_result *failure)
{
    struct http_ctx *c = sw->arg;
    if (failure)
        http_reply_error(c, failure->status == DB_UNAVAILABLE ? 503 : 500,
                         failure->status == DB_UNAVAILABLE ? "db_unavailable" : "internal",
                         "%s (after %llu cursors were cleared)", failure->message ? failure->message : "query failed",
                         (unsigned long long)sw->cleared);
    else
        http_reply_json(c, 200,
                        json_pack("{s:I,s:i}", "cleared", (json_int_t)sw->cleared, "inactive_days", sw->days), -1);
    free(sw);
}

static void expire_gone(struct http_ctx *c)
{
    struct sweep *sw = c->op;
    sw->stop = true; /* batches committed so far stay committed */
}

/* POST /v1/broadcasts/cursors/expire {"inactive_days": n} — for operators: clears the
 * cursors of users who have not marked broadcasts seen for n days. */
void unread_cursors_expire(struct http_ctx *c)
{
    static const char *const fields[] = {"inactive_days", NULL};
    int64_t days = 0;
    struct sweep *sw;

    if (!http_query_only_or_reply(c, ur_no_names) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) ||
        !http_body_int_or_reply(c, "inactive_days", 1, INACTIVE_DAYS_MAX, true, &days, NULL))
        return;
    if (!(sw = sweep_new(c->app->db, (int)days, expire_done, c))) {
        ur_reply_oom(c);
        return;
    }
    c->op = sw;
    c->on_gone = expire_gone;
    sweep_step(sw);
}

/* The service's own clearing, [broadcasts] cursor_ttl_days: at start-up (retried with
 * backoff while the database is out of reach) and then every hour. */
static struct {
    struct app *app;
    struct event *timer;
    struct sweep *running;
    int retry_s; /* 0, or the last wait after an unreachable database */
} janitor;

static void janitor_arm(int seconds)
{
    struct timeval tv = {seconds, 0};
    if (evtimer_add(janitor.timer, &tv) != 0) log_error("msg=\"cannot arm the broadcast cursor timer\"");
}

static void janitor_done(struct sweep *sw, const struct db_result *failure)
{
    janitor.running = NULL;
    if (!failure) {
        log_info("msg=\"idle broadcast cursors cleared\" cleared=%llu ttl_days=%d", (unsigned long long)sw->cleared,
                 sw->days);
        janitor.retry_s = 0;
        janitor_arm(SWEEP_PERIOD_S);
    } else if (failure->status == DB_UNAVAILABLE) {
        janitor.retry_s = janitor.retry_s ? janitor.retry_s * 2 : 1;
        if (janitor.retry_s > SWEEP_RETRY_MAX_S) janitor.retry_s = SWEEP_RETRY_MAX_S;
        log_debug("msg=\"broadcast cursor clearing postponed\" retry_s=%d error=\"%s\"", janitor.retry_s,
                  failure->message ? failure->message : "");
        janitor_arm(janitor.retry_s);
    } else {
        log_warn("msg=\"broadcast cursor clearing failed\" cleared=%llu error=\"%s\"",
                 (unsigned long long)sw->cleared, failure->message ? failure->message : "");
        janitor.retry_s = 0;
        janitor_arm(SWEEP_PERIOD_S);
    }
    free(sw);
}

static void janitor_tick(evutil_socket_t fd, short what, void *arg)
{
    if (janitor.running) return; /* cannot happen: the timer is re-armed when a sweep ends */
    if (!(janitor.running = sweep_new(janitor.app->db, janitor.app->cfg->broadcasts_cursor_ttl_days,
                                      janitor_done, NULL))) {
        janitor_arm(SWEEP_PERIOD_S);
        return;
    }
    sweep_step(janitor.running);
}

void unread_start(struct app *app)
{
    if (app->cfg->broadcasts_cursor_ttl_days <= 0) return;
    janitor.app = app;
    if (!(janitor.timer = evtimer_new(app->base, janitor_tick, NULL))) {
        log_error("msg=\"cannot create the broadcast cursor timer\"");
        return;
    }
    log_info("msg=\"idle broadcast cursors will be cleared\" ttl_days=%d every_s=%d",
             app->cfg->broadcasts_cursor_ttl_days, SWEEP_PERIOD_S);
    janitor_arm(0);
}

void unread_stop(void)
{
    if (janitor.running) {
        if (janitor.running->job) db_cancel(janitor.running->job);
        free(janitor.running);
    }
    if (janitor.timer) event_free(janitor.timer);
    memset(&janitor, 0, sizeof(janitor));
}
