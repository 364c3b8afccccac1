/* unread.c — seed 001's unread counts over HTTP: system notices (the global bitmap
 * `broadcasts` and a last-seen cursor per user, cleared when idle), red dots (a
 * setting number per dot and the number each user clicked) and feed unread (posts
 * per author, followees as the bitmap feed:following:{user}, post-count snapshots).
 * Bitmaps are written through wpath; every scalar changes in one statement. */
#include "domains/unread/unread.h"

#include <event2/event.h>
#include <event2/http.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bmload.h"
#include "http/http.h"
#include "core/log.h"
#include "store/wpath.h"

#define BROADCASTS_KEY "broadcasts"
#define FOLLOWING_PREFIX "feed:following:"
#define FOLLOWING_KEY_MAX 48      /* "feed:following:" + 19 digits */
#define FEED_TOP_AUTHORS 100      /* authors listed by GET feed/unread */
#define POSTS_COUNT_MAX 1000000   /* posts counted by one POST */
#define INACTIVE_DAYS_MAX 36500   /* the range of [broadcasts] cursor_ttl_days */
#define SWEEP_BATCH 10000         /* cursors deleted per statement */
#define SWEEP_PERIOD_S 3600       /* between two clearings of idle cursors */
#define SWEEP_RETRY_MAX_S 60      /* longest wait after an unreachable database */
#define INT8OID 20
#define STR_(x) #x
#define STRINGIFY(x) STR_(x)

static const char *const no_names[] = {NULL};

/* ---- helpers ------------------------------------------------------------------------ */

static void reply_oom(struct http_ctx *c) { http_reply_error(c, 500, "internal", "out of memory"); }

/* A decimal rendering of v for a text-format query parameter. */
struct num {
    char s[24];
};

static const char *num(struct num *n, int64_t v)
{
    snprintf(n->s, sizeof(n->s), "%lld", (long long)v);
    return n->s;
}

/* Bodies that are optional: absent, or an object of the listed fields only. */
static bool optional_body_or_reply(struct http_ctx *c, const char *const *fields)
{
    return !c->body || http_body_fields_or_reply(c, fields);
}

/* An id field of the body in [0, max]: missing is 400 invalid_body when required,
 * anything but such an integer is 400 invalid_id. */
static bool body_id_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required, int64_t *out,
                             bool *present)
{
    json_t *v = c->body ? json_object_get(c->body, field) : NULL;
    *present = v != NULL;
    if (!v) {
        if (required) http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return !required;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) {
        http_reply_error(c, 400, "invalid_id", "'%s' must be an integer from 0 to %lld", field, (long long)max);
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

/* Members of bm that are <= x (0 for x < 0). */
static uint64_t count_upto(const roaring_bitmap_t *bm, int64_t x)
{
    if (x < 0) return 0;
    if (x >= (int64_t)UINT32_MAX) return roaring_bitmap_get_cardinality(bm);
    return roaring_bitmap_rank(bm, (uint32_t)x);
}

static json_t *json_id_or_null(bool present, int64_t v)
{
    return present ? json_integer((json_int_t)v) : json_null();
}

static json_t *newest_json(const roaring_bitmap_t *bm)
{
    return roaring_bitmap_is_empty(bm) ? json_null() : json_integer(roaring_bitmap_maximum(bm));
}

/* The members of bm as a JSON array, ascending; NULL when out of memory. */
static json_t *members_json(const roaring_bitmap_t *bm)
{
    uint64_t n = roaring_bitmap_get_cardinality(bm);
    uint32_t *ids = malloc((size_t)(n ? n : 1) * sizeof(*ids));
    json_t *arr = json_array();
    if (!ids || !arr) goto err;
    roaring_bitmap_to_uint32_array(bm, ids);
    for (uint64_t i = 0; i < n; i++)
        if (json_array_append_new(arr, json_integer(ids[i])) != 0) goto err;
    free(ids);
    return arr;
err:
    free(ids);
    json_decref(arr);
    return NULL;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* The members of bm as an int8[] in PostgreSQL's binary array format (a query
 * parameter of format 1). Caller frees *out. False when out of memory or too big
 * for one parameter. */
static bool int8_array_of(const roaring_bitmap_t *bm, uint8_t **out, int *len)
{
    uint64_t n = roaring_bitmap_get_cardinality(bm);
    uint32_t *ids = NULL;
    uint8_t *buf, *p;
    size_t size;

    if (n > (uint64_t)(INT_MAX - 20) / 12) return false;
    size = n ? 20 + 12 * (size_t)n : 12;
    if (!(buf = malloc(size)) || (n && !(ids = malloc((size_t)n * sizeof(*ids))))) {
        free(buf);
        return false;
    }
    put_be32(buf, n ? 1 : 0);   /* dimensions (an empty array has none) */
    put_be32(buf + 4, 0);       /* no NULLs */
    put_be32(buf + 8, INT8OID); /* element type */
    if (n) {
        put_be32(buf + 12, (uint32_t)n); /* length */
        put_be32(buf + 16, 1);           /* lower bound */
        roaring_bitmap_to_uint32_array(bm, ids);
        p = buf + 20;
        for (uint64_t i = 0; i < n; i++, p += 12) {
            put_be32(p, 8);
            put_be64(p + 4, ids[i]);
        }
    }
    free(ids);
    *out = buf;
    *len = (int)size;
    return true;
}

/* Starts a read-only load of one bitmap; answers 500 itself when out of memory. */
static bool load_one_or_reply(struct http_ctx *c, const char *key, size_t len, bmload_cb cb, void *arg)
{
    const char *names[1] = {key};
    size_t lens[1] = {len};
    if (bmload_start(c->app->store, names, lens, 1, http_load_flags(c), cb, arg)) return true;
    reply_oom(c);
    return false;
}

/* Starts a statement answered by cb(arg); answers 500 itself when out of memory. */
static bool query_or_reply(struct http_ctx *c, const char *sql, int n, const struct db_param *p, db_cb cb,
                           void *arg)
{
    if (db_query(c->app->db, sql, n, p, cb, arg)) return true;
    reply_oom(c);
    return false;
}

/* ---- one-key writes through wpath ----------------------------------------------------- */

static void write_gone(struct http_ctx *c) { wpath_abandon(c->op); }

/* A write path of one unit holding the one key; NULL when out of memory. */
static struct wpath *one_key_write(struct http_ctx *c, const char *key, size_t keylen,
                                   const struct wpath_ops *ops, void *arg)
{
    struct wpath *wp = wpath_new(c->app->store, c->app->cfg, 1, ops, arg, false);
    if (!wp) return NULL;
    struct wp_unit *u = &wpath_units(wp)[0];
    u->nkeys = 1;
    if (!wp_key_set(&u->keys[0], key, keylen)) {
        wpath_free(wp);
        return NULL;
    }
    return wp;
}

/* Runs wp for c; a client that leaves abandons it (done() is still called). */
static void one_key_run(struct http_ctx *c, struct wpath *wp)
{
    c->op = wp;
    c->on_gone = write_gone;
    wpath_run(wp);
}

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

    if (!http_query_only_or_reply(c, no_names) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) || !body_id_or_reply(c, "id", MSG_ID_MAX, true, &id, &present))
        return;
    if (!(p = calloc(1, sizeof(*p))) ||
        !(wp = one_key_write(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), &bc_post_ops, p))) {
        free(p);
        reply_oom(c);
        return;
    }
    p->c = c;
    p->id = (uint32_t)id;
    one_key_run(c, wp);
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
                                  "newest", newest_json(k[0].bm), "version", (json_int_t)k[0].version),
                        k[0].version);
    }
    bmload_free(l);
}

/* GET /v1/broadcasts — size and newest id of the global list. */
void unread_broadcast_get(struct http_ctx *c)
{
    if (!http_query_only_or_reply(c, no_names)) return;
    (void)load_one_or_reply(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), bc_get_loaded, c);
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
    uint64_t card = roaring_bitmap_get_cardinality(r->bm);
    uint64_t unread = r->has_cursor ? card - count_upto(r->bm, r->last_seen) : 0;

    http_reply_json(c, 200,
                    json_pack("{s:I,s:I,s:b,s:o,s:o}", "user", (json_int_t)r->user, "unread", (json_int_t)unread,
                              "seen", r->has_cursor, "last_seen",
                              json_id_or_null(r->has_cursor && r->last_seen >= 0, r->last_seen), "newest",
                              newest_json(r->bm)),
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
        reply_oom(r->c);
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

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names)) return;
    if (!(r = calloc(1, sizeof(*r)))) {
        reply_oom(c);
        return;
    }
    r->c = c;
    r->user = user;
    r->pending = 2;
    struct db_param p[1] = {{num(&u, user), 0, 0}};
    if (!query_or_reply(c, "SELECT last_seen FROM bitmapd.broadcast_seen WHERE user_id = $1::int8", 1, p,
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
        uint64_t unread = roaring_bitmap_get_cardinality(s->bm) - count_upto(s->bm, last);
        http_reply_json(s->c, 200,
                        json_pack("{s:I,s:o,s:I,s:o}", "user", (json_int_t)s->user, "last_seen",
                                  json_id_or_null(last >= 0, last), "unread", (json_int_t)unread, "newest",
                                  newest_json(s->bm)),
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
    /* with no broadcast yet, -1 records the user so that every later one counts */
    int64_t target = s->has_id ? s->id : roaring_bitmap_is_empty(s->bm) ? -1 : (int64_t)roaring_bitmap_maximum(s->bm);
    struct db_param p[2] = {{num(&u, s->user), 0, 0}, {num(&id, target), 0, 0}};
    if (!query_or_reply(s->c, SQL_SEEN, 2, p, bc_seen_stored, s)) bc_seen_free(s);
}

/* POST /v1/users/{user}/broadcasts/seen [{"id": n}] — the cursor moves to the newest
 * broadcast, or to id; never backwards. */
void unread_broadcast_seen(struct http_ctx *c)
{
    static const char *const fields[] = {"id", NULL};
    int64_t user, id = 0;
    bool has_id;
    struct bc_seen *s;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names) ||
        !optional_body_or_reply(c, fields) || !body_id_or_reply(c, "id", MSG_ID_MAX, false, &id, &has_id))
        return;
    if (!(s = calloc(1, sizeof(*s)))) {
        reply_oom(c);
        return;
    }
    *s = (struct bc_seen){c, user, has_id, id, NULL};
    if (!load_one_or_reply(c, BROADCASTS_KEY, strlen(BROADCASTS_KEY), bc_seen_loaded, s)) free(s);
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
    struct db_param p[2] = {{num(&days, sw->days), 0, 0}, {num(&batch, SWEEP_BATCH), 0, 0}};
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

    if (!http_query_only_or_reply(c, no_names) || !http_body_or_reply(c) ||
        !http_body_fields_or_reply(c, fields) ||
        !http_body_int_or_reply(c, "inactive_days", 1, INACTIVE_DAYS_MAX, true, &days, NULL))
        return;
    if (!(sw = sweep_new(c->app->db, (int)days, expire_done, c))) {
        reply_oom(c);
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

/* ======================================================================================
 * Red dots
 * ==================================================================================== */

bool unread_reddot_name_valid(const char *s, size_t len)
{
    if (len == 0 || len > UNREAD_REDDOT_NAME_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '.' || ch == ':' || ch == '-';
        if (!ok) return false;
    }
    return true;
}

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
    if (!reddot_name_or_reply(c, 0, 2, name) || !http_query_only_or_reply(c, no_names) ||
        !optional_body_or_reply(c, no_names))
        return;
    struct db_param p[1] = {{name, 0, 0}};
    (void)query_or_reply(c,
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
    if (!reddot_name_or_reply(c, 0, 2, name) || !http_query_only_or_reply(c, no_names)) return;
    struct db_param p[1] = {{name, 0, 0}};
    (void)query_or_reply(c, "SELECT d.name, d.seq, " SET_AT_TEXT " FROM bitmapd.reddots d WHERE d.name = $1::text",
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
        !http_query_only_or_reply(c, no_names))
        return NULL;
    if (!(d = calloc(1, sizeof(*d)))) {
        reply_oom(c);
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
    struct db_param p[2] = {{d->name, 0, 0}, {num(&u, d->user), 0, 0}};
    if (!query_or_reply(c,
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
    if (!optional_body_or_reply(c, no_names)) {
        free(d);
        return;
    }
    struct db_param p[2] = {{num(&u, d->user), 0, 0}, {d->name, 0, 0}};
    if (!query_or_reply(c,
                        "INSERT INTO bitmapd.reddot_clicks AS c (user_id, name, seq, clicked_at)"
                        " SELECT $1::int8, d.name, d.seq, now() FROM bitmapd.reddots d WHERE d.name = $2::text"
                        " ON CONFLICT (user_id, name) DO UPDATE SET seq = greatest(c.seq, EXCLUDED.seq),"
                        " clicked_at = EXCLUDED.clicked_at"
                        " RETURNING c.seq",
                        2, p, reddot_click_done, d))
        free(d);
}

/* ======================================================================================
 * Feed unread
 * ==================================================================================== */

/* ---- authors' post counters -------------------------------------------------------------- */

static void author_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status != DB_OK)
        http_reply_db_failure(c, r);
    else
        http_reply_json(c, 200,
                        json_pack("{s:I,s:I}", "author", (json_int_t)db_value_int8(r->res, 0, 0), "posts",
                                  (json_int_t)db_value_int8(r->res, 0, 1)),
                        -1);
}

/* POST /v1/authors/{author}/posts [{"count": n}] — counts new posts (one by default). */
void unread_author_post(struct http_ctx *c)
{
    static const char *const fields[] = {"count", NULL};
    int64_t author, count = 1;
    struct num a, n;

    if (!http_param_int_or_reply(c, 0, "author id", MSG_ID_MAX, &author) ||
        !http_query_only_or_reply(c, no_names) || !optional_body_or_reply(c, fields) ||
        (c->body && !http_body_int_or_reply(c, "count", 1, POSTS_COUNT_MAX, false, &count, NULL)))
        return;
    struct db_param p[2] = {{num(&a, author), 0, 0}, {num(&n, count), 0, 0}};
    (void)query_or_reply(c,
                         "INSERT INTO bitmapd.author_posts AS p (author_id, posts) VALUES ($1::int8, $2::int8)"
                         " ON CONFLICT (author_id) DO UPDATE SET posts = p.posts + EXCLUDED.posts"
                         " RETURNING p.author_id, p.posts",
                         2, p, author_done, c);
}

/* GET /v1/authors/{author}/posts */
void unread_author_get(struct http_ctx *c)
{
    int64_t author;
    struct num a;

    if (!http_param_int_or_reply(c, 0, "author id", MSG_ID_MAX, &author) ||
        !http_query_only_or_reply(c, no_names))
        return;
    struct db_param p[1] = {{num(&a, author), 0, 0}};
    (void)query_or_reply(c,
                         "SELECT $1::int8, coalesce((SELECT posts FROM bitmapd.author_posts"
                         " WHERE author_id = $1::int8), 0)",
                         1, p, author_done, c);
}

/* ---- a user's followees and snapshots ------------------------------------------------------ */

/* Makes the user's snapshots match the followee set $4 if feed:following:{user} is
 * still at version $3 (sql/070_unread.sql); $5 refreshes every snapshot. */
static const char SQL_FEED_SYNC[] = "SELECT bitmapd.feed_sync($1::int8, $2::bytea, $3::int8, $4::int8[], $5::bool)";

struct feed {
    struct http_ctx *c;
    int64_t user;
    char key[FOLLOWING_KEY_MAX];
    size_t keylen;
    roaring_bitmap_t *bm; /* the followees: as loaded, or as written by PUT */
    int64_t version;
    int attempts;         /* feed/seen, and PUT's snapshot step: loads so far */
    /* PUT following */
    uint64_t added, removed;
    uint64_t put_following; /* the set PUT committed, and its version: the answer */
    int64_t put_version;
    int reject_status;
    char reject_msg[128];
};

static struct feed *feed_new_or_reply(struct http_ctx *c, int64_t user)
{
    struct feed *f = calloc(1, sizeof(*f));
    if (!f) {
        reply_oom(c);
        return NULL;
    }
    f->c = c;
    f->user = user;
    f->keylen = (size_t)snprintf(f->key, sizeof(f->key), FOLLOWING_PREFIX "%lld", (long long)user);
    return f;
}

static void feed_free(struct feed *f)
{
    if (f->bm) roaring_bitmap_free(f->bm);
    free(f);
}

/* Followee sets are bounded like any id list of a request; a bigger one (written
 * over RESP) is refused rather than turned into a huge statement or answer. */
static bool feed_size_or_reply(struct feed *f)
{
    uint64_t n = roaring_bitmap_get_cardinality(f->bm);
    if (n <= (uint64_t)f->c->app->cfg->http_max_ids) return true;
    http_reply_error(f->c, 500, "internal", "%s has %llu members, more than [http] max_ids_per_request (%d)", f->key,
                     (unsigned long long)n, f->c->app->cfg->http_max_ids);
    return false;
}

/* Sends feed_sync for f->bm at f->version; answers 500 itself when out of memory. */
static bool feed_sync_or_reply(struct feed *f, bool refresh, db_cb cb)
{
    uint8_t *arr;
    int arrlen;
    struct num u, v;

    if (!int8_array_of(f->bm, &arr, &arrlen)) {
        reply_oom(f->c);
        return false;
    }
    struct db_param p[5] = {{num(&u, f->user), 0, 0},
                            {f->key, (int)f->keylen, 1},
                            {num(&v, f->version), 0, 0},
                            {arr, arrlen, 1},
                            {refresh ? "true" : "false", 0, 0}};
    bool ok = query_or_reply(f->c, SQL_FEED_SYNC, 5, p, cb, f);
    free(arr);
    return ok;
}

/* Takes the bitmap of a finished one-key load into f; answers and returns false on failure. */
static bool feed_take_or_reply(struct feed *f, struct bmload *l, enum bmload_status st, const char *msg,
                               struct bmload_key *k)
{
    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(f->c, st, msg);
        bmload_free(l);
        return false;
    }
    if (f->bm) roaring_bitmap_free(f->bm);
    f->bm = k[0].bm;
    f->version = k[0].version;
    k[0].bm = NULL;
    bmload_free(l);
    return feed_size_or_reply(f);
}

/* ---- PUT /v1/users/{user}/following -----------------------------------------------------------
 * commit the set (wpath) → snapshot it at that version (feed_sync) → if the set moved
 * meanwhile, load it again and snapshot it at the current version, at most
 * [postgres] max_retries times. No later write can be trusted to snapshot for us: a
 * RESP SETBIT on feed:following:{user} never does, and a later PUT's own step may fail. */

/* The followees are committed; the snapshot step failed: repeating the PUT repeats it. */
static void follow_unsynced(struct feed *f, int status, const char *code, const char *why)
{
    http_reply_error(f->c, status, code,
                     "the followees were committed (version %lld) but their snapshots were not: %s; repeat the PUT",
                     (long long)f->put_version, why ? why : "");
}

static void follow_resync(struct feed *f);

static void follow_synced(const struct db_result *r, void *arg)
{
    struct feed *f = arg;
    if (r->status != DB_OK) {
        follow_unsynced(f, r->status == DB_UNAVAILABLE ? 503 : 500,
                        r->status == DB_UNAVAILABLE ? "db_unavailable" : "internal", r->message);
    } else if (PQgetvalue(r->res, 0, 0)[0] == 0) { /* the set moved since f->version */
        if (f->attempts < f->c->app->cfg->pg_max_retries) {
            follow_resync(f);
            return;
        }
        follow_unsynced(f, 503, "conflict_retries_exhausted", "the followees kept changing");
    } else {
        http_reply_json(f->c, 200,
                        json_pack("{s:I,s:I,s:I,s:I,s:I}", "user", (json_int_t)f->user, "following",
                                  (json_int_t)f->put_following, "added", (json_int_t)f->added, "removed",
                                  (json_int_t)f->removed, "version", (json_int_t)f->put_version),
                        f->put_version);
    }
    feed_free(f);
}

static void follow_reloaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                            size_t n, void *arg)
{
    struct feed *f = arg;
    if (st != BMLOAD_OK) {
        follow_unsynced(f, st == BMLOAD_UNAVAILABLE ? 503 : 500,
                        st == BMLOAD_UNAVAILABLE ? "db_unavailable"
                        : st == BMLOAD_CORRUPT   ? "corrupt_bitmap"
                                                 : "internal",
                        msg);
        bmload_free(l);
        feed_free(f);
        return;
    }
    if (!feed_take_or_reply(f, l, st, msg, k) || !feed_sync_or_reply(f, false, follow_synced)) feed_free(f);
}

/* Loads the current set (and version) for another snapshot step. */
static void follow_resync(struct feed *f)
{
    f->attempts++;
    if (!load_one_or_reply(f->c, f->key, f->keylen, follow_reloaded, f)) feed_free(f);
}

static enum wp_mutation follow_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct feed *f = arg;
    struct wp_key *k = &u->keys[0];

    if (f->c->has_if_match && f->c->if_match != k->version) {
        f->reject_status = 412;
        snprintf(f->reject_msg, sizeof(f->reject_msg), "version is %lld, not %lld", (long long)k->version,
                 (long long)f->c->if_match);
        return WP_REJECT;
    }
    uint64_t both = roaring_bitmap_and_cardinality(k->bm, f->bm);
    f->added = roaring_bitmap_get_cardinality(f->bm) - both;
    f->removed = roaring_bitmap_get_cardinality(k->bm) - both;
    if (f->added == 0 && f->removed == 0) return WP_UNCHANGED;
    roaring_bitmap_t *copy = roaring_bitmap_copy(f->bm);
    if (!copy) {
        f->reject_status = 500;
        snprintf(f->reject_msg, sizeof(f->reject_msg), "out of memory");
        return WP_REJECT;
    }
    roaring_bitmap_free(k->bm);
    k->bm = copy;
    k->dirty = true;
    return WP_CHANGED;
}

static void follow_written(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct feed *f = arg;
    struct http_ctx *c = f->c;
    struct wp_unit *u = &wpath_units(wp)[0];
    bool committed = st == WP_OK && u->status == WP_OK;

    c->op = NULL; /* the write path is over: nothing may abandon it any more */
    c->on_gone = NULL;
    if (st != WP_OK)
        http_reply_wp_failure(c, st, msg);
    else if (u->status == WP_REJECTED)
        http_reply_error(c, f->reject_status, f->reject_status == 412 ? "precondition_failed" : "internal", "%s",
                         f->reject_msg);
    else if (u->status != WP_OK)
        http_reply_unit_failure(c, u);
    else {
        f->version = f->put_version = u->keys[0].version;
        f->put_following = roaring_bitmap_get_cardinality(f->bm);
    }
    wpath_free(wp); /* c may be freed by now: not touched again unless committed */
    if (!committed || !feed_sync_or_reply(f, false, follow_synced)) feed_free(f);
}

static const struct wpath_ops follow_ops = {.mutate = follow_mutate, .done = follow_written};

/* PUT /v1/users/{user}/following {"authors": [ids]} — replaces the followee set, then
 * snapshots newly followed authors at their current post counts (so following
 * someone adds no unread) and drops the snapshots of unfollowed ones. */
void unread_following_put(struct http_ctx *c)
{
    static const char *const fields[] = {"authors", NULL};
    int64_t user, *ids = NULL;
    size_t n;
    struct feed *f;
    struct wpath *wp;

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names) ||
        !http_body_or_reply(c) || !http_body_fields_or_reply(c, fields))
        return;
    if (!json_object_get(c->body, "authors")) {
        http_reply_error(c, 400, "invalid_body", "'authors' is required");
        return;
    }
    if (!http_json_ids_or_reply(c, json_object_get(c->body, "authors"), "authors", 0, MSG_ID_MAX, &ids, &n)) return;
    if (!(f = feed_new_or_reply(c, user))) {
        free(ids);
        return;
    }
    if (!(f->bm = roaring_bitmap_create())) goto oom;
    for (size_t i = 0; i < n; i++) roaring_bitmap_add(f->bm, (uint32_t)ids[i]);
    free(ids);
    ids = NULL;
    if (!(wp = one_key_write(c, f->key, f->keylen, &follow_ops, f))) goto oom;
    one_key_run(c, wp);
    return;
oom:
    free(ids);
    feed_free(f);
    reply_oom(c);
}

/* ---- GET /v1/users/{user}/following ------------------------------------------------------------ */

static void following_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                             size_t n, void *arg)
{
    struct feed *f = arg;
    if (feed_take_or_reply(f, l, st, msg, k)) {
        json_t *authors = members_json(f->bm);
        if (!authors)
            reply_oom(f->c);
        else
            http_reply_json(f->c, 200,
                            json_pack("{s:I,s:I,s:o,s:I}", "user", (json_int_t)f->user, "following",
                                      (json_int_t)roaring_bitmap_get_cardinality(f->bm), "authors", authors,
                                      "version", (json_int_t)f->version),
                            f->version);
    }
    feed_free(f);
}

/* GET /v1/users/{user}/following */
void unread_following_get(struct http_ctx *c)
{
    int64_t user;
    struct feed *f;
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names) ||
        !(f = feed_new_or_reply(c, user)))
        return;
    if (!load_one_or_reply(c, f->key, f->keylen, following_loaded, f)) feed_free(f);
}

/* ---- GET /v1/users/{user}/feed/unread ---------------------------------------------------------- */

/* Unread per followee with a snapshot (a followee without one counts 0), most first,
 * with the total over all of them. */
static const char SQL_FEED_UNREAD[] =
    "SELECT a.author_id, p.posts - s.posts AS unread, CAST(sum(p.posts - s.posts) OVER () AS int8)"
    "  FROM unnest($2::int8[]) AS a(author_id)"
    "  JOIN bitmapd.feed_snapshots s ON s.user_id = $1::int8 AND s.author_id = a.author_id"
    "  JOIN bitmapd.author_posts p ON p.author_id = a.author_id"
    " WHERE p.posts > s.posts"
    " ORDER BY unread DESC, a.author_id"
    " LIMIT " STRINGIFY(FEED_TOP_AUTHORS);

static void feed_answer(struct feed *f, int64_t unread, json_t *authors)
{
    http_reply_json(f->c, 200,
                    json_pack("{s:I,s:I,s:I,s:o,s:I}", "user", (json_int_t)f->user, "unread", (json_int_t)unread,
                              "following", (json_int_t)roaring_bitmap_get_cardinality(f->bm), "authors", authors,
                              "version", (json_int_t)f->version),
                    f->version);
}

static void feed_counted(const struct db_result *r, void *arg)
{
    struct feed *f = arg;
    if (r->status != DB_OK) {
        http_reply_db_failure(f->c, r);
    } else {
        int rows = PQntuples(r->res);
        json_t *authors = json_array();
        for (int i = 0; i < rows; i++)
            json_array_append_new(authors, json_pack("{s:I,s:I}", "author", (json_int_t)db_value_int8(r->res, i, 0),
                                                     "unread", (json_int_t)db_value_int8(r->res, i, 1)));
        feed_answer(f, rows ? db_value_int8(r->res, 0, 2) : 0, authors);
    }
    feed_free(f);
}

static void feed_unread_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                               size_t n, void *arg)
{
    struct feed *f = arg;
    uint8_t *arr;
    int arrlen;
    struct num u;

    if (!feed_take_or_reply(f, l, st, msg, k)) {
        feed_free(f);
        return;
    }
    if (roaring_bitmap_is_empty(f->bm)) {
        feed_answer(f, 0, json_array());
        feed_free(f);
        return;
    }
    if (!int8_array_of(f->bm, &arr, &arrlen)) {
        reply_oom(f->c);
        feed_free(f);
        return;
    }
    struct db_param p[2] = {{num(&u, f->user), 0, 0}, {arr, arrlen, 1}};
    if (!query_or_reply(f->c, SQL_FEED_UNREAD, 2, p, feed_counted, f)) feed_free(f);
    free(arr);
}

/* GET /v1/users/{user}/feed/unread — sum over followees of (posts − snapshot). */
void unread_feed_unread(struct http_ctx *c)
{
    int64_t user;
    struct feed *f;
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names) ||
        !(f = feed_new_or_reply(c, user)))
        return;
    if (!load_one_or_reply(c, f->key, f->keylen, feed_unread_loaded, f)) feed_free(f);
}

/* ---- POST /v1/users/{user}/feed/seen -------------------------------------------------------------
 * load the followees → refresh every snapshot if the set is still that version →
 * otherwise load again (a PUT committed in between), at most [postgres] max_retries times. */

static void feed_seen_load(struct feed *f);

static void feed_seen_synced(const struct db_result *r, void *arg)
{
    struct feed *f = arg;
    if (r->status != DB_OK) {
        http_reply_db_failure(f->c, r);
    } else if (PQgetvalue(r->res, 0, 0)[0] == 0) {
        if (f->attempts <= f->c->app->cfg->pg_max_retries && !f->c->gone) {
            feed_seen_load(f);
            return;
        }
        http_reply_error(f->c, 503, "conflict_retries_exhausted",
                         "the followees kept changing while marking the feed seen; try again");
    } else {
        http_reply_json(f->c, 200,
                        json_pack("{s:I,s:i,s:I,s:I}", "user", (json_int_t)f->user, "unread", 0, "following",
                                  (json_int_t)roaring_bitmap_get_cardinality(f->bm), "version",
                                  (json_int_t)f->version),
                        f->version);
    }
    feed_free(f);
}

static void feed_seen_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                             size_t n, void *arg)
{
    struct feed *f = arg;
    if (!feed_take_or_reply(f, l, st, msg, k) || !feed_sync_or_reply(f, true, feed_seen_synced)) feed_free(f);
}

static void feed_seen_load(struct feed *f)
{
    f->attempts++;
    if (!load_one_or_reply(f->c, f->key, f->keylen, feed_seen_loaded, f)) feed_free(f);
}

/* POST /v1/users/{user}/feed/seen — snapshots every followee at its current count. */
void unread_feed_seen(struct http_ctx *c)
{
    int64_t user;
    struct feed *f;
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, no_names) ||
        !optional_body_or_reply(c, no_names) || !(f = feed_new_or_reply(c, user)))
        return;
    feed_seen_load(f);
}
