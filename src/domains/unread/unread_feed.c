/* unread_feed.c — feed unread: post counters per author, followees as the bitmap
 * feed:following:{user}, and post-count snapshots per user and author. */
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
        !http_query_only_or_reply(c, ur_no_names) || !ur_optional_body_or_reply(c, fields) ||
        (c->body && !http_body_int_or_reply(c, "count", 1, POSTS_COUNT_MAX, false, &count, NULL)))
        return;
    struct db_param p[2] = {{ur_num(&a, author), 0, 0}, {ur_num(&n, count), 0, 0}};
    (void)ur_query_or_reply(c,
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
        !http_query_only_or_reply(c, ur_no_names))
        return;
    struct db_param p[1] = {{ur_num(&a, author), 0, 0}};
    (void)ur_query_or_reply(c,
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
        ur_reply_oom(c);
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

    if (!ur_int8_array_of(f->bm, &arr, &arrlen)) {
        ur_reply_oom(f->c);
        return false;
    }
    struct db_param p[5] = {{ur_num(&u, f->user), 0, 0},
                            {f->key, (int)f->keylen, 1},
                            {ur_num(&v, f->version), 0, 0},
                            {arr, arrlen, 1},
                            {refresh ? "true" : "false", 0, 0}};
    bool ok = ur_query_or_reply(f->c, SQL_FEED_SYNC, 5, p, cb, f);
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
    if (!ur_load_one_or_reply(f->c, f->key, f->keylen, follow_reloaded, f)) feed_free(f);
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

    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names) ||
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
    if (!(wp = ur_one_key_write(c, f->key, f->keylen, &follow_ops, f))) goto oom;
    ur_one_key_run(c, wp);
    return;
oom:
    free(ids);
    feed_free(f);
    ur_reply_oom(c);
}

/* ---- GET /v1/users/{user}/following ------------------------------------------------------------ */

static void following_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *k,
                             size_t n, void *arg)
{
    struct feed *f = arg;
    if (feed_take_or_reply(f, l, st, msg, k)) {
        json_t *authors = ur_members_json(f->bm);
        if (!authors)
            ur_reply_oom(f->c);
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
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names) ||
        !(f = feed_new_or_reply(c, user)))
        return;
    if (!ur_load_one_or_reply(c, f->key, f->keylen, following_loaded, f)) feed_free(f);
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
    if (!ur_int8_array_of(f->bm, &arr, &arrlen)) {
        ur_reply_oom(f->c);
        feed_free(f);
        return;
    }
    struct db_param p[2] = {{ur_num(&u, f->user), 0, 0}, {arr, arrlen, 1}};
    if (!ur_query_or_reply(f->c, SQL_FEED_UNREAD, 2, p, feed_counted, f)) feed_free(f);
    free(arr);
}

/* GET /v1/users/{user}/feed/unread — sum over followees of (posts − snapshot). */
void unread_feed_unread(struct http_ctx *c)
{
    int64_t user;
    struct feed *f;
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names) ||
        !(f = feed_new_or_reply(c, user)))
        return;
    if (!ur_load_one_or_reply(c, f->key, f->keylen, feed_unread_loaded, f)) feed_free(f);
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
    if (!ur_load_one_or_reply(f->c, f->key, f->keylen, feed_seen_loaded, f)) feed_free(f);
}

/* POST /v1/users/{user}/feed/seen — snapshots every followee at its current count. */
void unread_feed_seen(struct http_ctx *c)
{
    int64_t user;
    struct feed *f;
    if (!http_param_user_or_reply(c, 0, &user) || !http_query_only_or_reply(c, ur_no_names) ||
        !ur_optional_body_or_reply(c, ur_no_names) || !(f = feed_new_or_reply(c, user)))
        return;
    feed_seen_load(f);
}
