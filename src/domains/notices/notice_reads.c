/* notice_reads.c — the reads of announcements: whether a user read a notice, a
 * user's listing of one audience (from the cache on a loop turn of its own, or by two
 * loads), and a notice's stats. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "domains/notices/notice_internal.h"
#include "domains/notices/notice_rules.h"
#include "store/codec.h"

/* ---- reads ----------------------------------------------------------------------------------- */

struct nread {
    struct http_ctx *c;
    uint32_t id, user, aud;
    enum notice_list_state state;
    size_t limit;
    bool cursor;
    uint64_t before;
    roaring_bitmap_t *audiences, *readers; /* stats: from the first load */
    roaring_bitmap_t *index;               /* listing: the audience's notices the second load asks about */
    uint32_t *ids;                         /* listing: index as an array; readers key k+1 is notice ids[k] */
    size_t nids;
    char (*names)[NKEY_MAX];               /* listing: the key names of the second load */
    int restarts;
    int64_t version;
};

static void nread_free(struct nread *r)
{
    if (r->audiences) roaring_bitmap_free(r->audiences);
    if (r->readers) roaring_bitmap_free(r->readers);
    if (r->index) roaring_bitmap_free(r->index);
    free(r->ids);
    free(r->names);
    free(r);
}

static struct nread *nread_new(struct http_ctx *c)
{
    struct nread *r = calloc(1, sizeof(*r));
    if (!r) http_reply_error(c, 500, "internal", "out of memory");
    if (r) r->c = c;
    return r;
}

static void nread_start(struct nread *r, const struct nkey_ref *refs, size_t n, bmload_cb cb)
{
    if (nkeys_load(r->c, refs, n, cb, r)) return;
    http_reply_error(r->c, 500, "internal", "out of memory");
    nread_free(r);
}

/* The first load of a GET about one notice: false (answered, r freed) unless it is live. */
static bool nread_live_or_reply(struct nread *r, enum bmload_status st, const char *msg, struct bmload_key *keys)
{
    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
    } else if (notice_state_of(keys[0].bm) == NOTICE_MISSING) {
        http_reply_error(r->c, 404, "not_found", "no notice %u", r->id);
    } else if (notice_state_of(keys[0].bm) == NOTICE_DELETING) {
        http_reply_error(r->c, 404, "not_found", "notice %u is being deleted", r->id);
    } else {
        return true;
    }
    nread_free(r);
    return false;
}

/* keys: [0] the notice's audiences, [1] its readers. */
static void is_read_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                           size_t nkeys, void *arg)
{
    struct nread *r = arg;
    if (nread_live_or_reply(r, st, msg, keys)) {
        http_reply_json(r->c, 200,
                        json_pack("{s:I,s:I,s:b}", "notice", (json_int_t)r->id, "user", (json_int_t)r->user,
                                  "read", roaring_bitmap_contains(keys[1].bm, r->user)),
                        -1);
        nread_free(r);
    }
    bmload_free(l);
}

/* GET /v1/notices/{id}/reads/{user} */
void notice_is_read(struct http_ctx *c)
{
    uint32_t id, user;
    struct nread *r;

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_param_user_or_reply(c, 1, &user) ||
        !notice_no_query_or_reply(c) ||
        !(r = nread_new(c)))
        return;
    r->id = id;
    r->user = user;
    struct nkey_ref refs[2] = {{NK_AUDIENCES, id}, {NK_READERS, id}};
    nread_start(r, refs, 2, is_read_loaded);
}

/* The listing. Two loads: the audience's index, then the index again with the
 * readers of every notice in it, all in one load (the cache, and one statement for
 * what it lacks), so that counts and page come from rows read together. A notice
 * added to the index between the two loads starts the second load again. The user is
 * looked up in each readers row where it lies, reading only the container that can
 * hold the user when the row's bytes are known good (codec_contains). */

static void list_index_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                              struct bmload_key *keys, size_t nkeys, void *arg);

/* Is r->user a reader, by the row of key names[k]? false with why filled when the row is corrupt. */
static bool row_has_user(const struct nread *r, size_t k, const struct store_row *row, bool *member, char *why,
                         size_t whylen)
{
    roaring_bitmap_t *bm;

    *member = false;
    if (!row->found) return true;
    if (row->checked && codec_contains(row->bits, row->len, r->user, member)) return true;
    if (!(bm = wpath_decode_row(r->names[k], strlen(r->names[k]), row, why, whylen))) return false;
    *member = roaring_bitmap_contains(bm, r->user);
    roaring_bitmap_free(bm);
    return true;
}

/* Answers the page of the notices of state r->state and the counts. */
static void list_answer(struct nread *r, const roaring_bitmap_t *index, const roaring_bitmap_t *read)
{
    uint32_t *ids = malloc(r->limit * sizeof(*ids));
    struct notice_list_page pg;

    if (!ids || !notice_list_page(index, read, r->state, r->cursor, r->before, r->limit, ids, &pg)) {
        http_reply_error(r->c, 500, "internal", "out of memory");
    } else {
        json_t *list = json_array();
        for (size_t i = 0; i < pg.n; i++) json_array_append_new(list, json_integer(ids[i]));
        json_t *out = json_pack("{s:I,s:I,s:s,s:I,s:I,s:o}", "audience", (json_int_t)r->aud, "user",
                                (json_int_t)r->user, "state", notice_list_state_name(r->state), "read",
                                (json_int_t)pg.read, "unread", (json_int_t)pg.unread, "notices", list);
        json_object_set_new(out, "next_before", pg.more && pg.n ? json_integer(ids[pg.n - 1]) : json_null());
        http_reply_json(r->c, 200, out, -1);
    }
    free(ids);
}

/* The answer from index and rows[k], the readers row of notice r->ids[k] (named
 * r->names[k + 1]); index ⊆ the ids. Answers in every case. */
static void list_from_rows(struct nread *r, const roaring_bitmap_t *index, const struct store_row *rows)
{
    roaring_bitmap_t *read = roaring_bitmap_create();
    char why[WP_KEY_MAX + 200];
    bool member;

    if (!read) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        return;
    }
    for (size_t k = 0; k < r->nids; k++) {
        if (!roaring_bitmap_contains(index, r->ids[k])) continue; /* deleted meanwhile */
        if (!row_has_user(r, k + 1, &rows[k], &member, why, sizeof(why))) {
            http_reply_bmload_failure(r->c, BMLOAD_CORRUPT, why);
            roaring_bitmap_free(read);
            return;
        }
        if (member) roaring_bitmap_add(read, r->ids[k]);
    }
    list_answer(r, index, read);
    roaring_bitmap_free(read);
}

/* rows: [0] the index, [k + 1] the readers of notice r->ids[k]. */
static void list_rows_loaded(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct nread *r = arg;
    roaring_bitmap_t *index = NULL;
    char why[WP_KEY_MAX + 200];

    if (st != STORE_OK) {
        http_reply_bmload_failure(r->c, st == STORE_UNAVAILABLE ? BMLOAD_UNAVAILABLE : BMLOAD_FAILED,
                                  err ? err : "query failed");
        goto done;
    }
    if (!(index = rows[0].found ? wpath_decode_row(r->names[0], strlen(r->names[0]), &rows[0], why, sizeof(why))
                                : roaring_bitmap_create())) {
        http_reply_bmload_failure(r->c, rows[0].found ? BMLOAD_CORRUPT : BMLOAD_FAILED,
                                  rows[0].found ? why : "out of memory");
        goto done;
    }
    /* a notice was added meanwhile: ask again (a cardinality test, as the rules' same_set: no
     * subset test between containers of different kinds) */
    if (roaring_bitmap_and_cardinality(index, r->index) != roaring_bitmap_get_cardinality(index)) {
        if (++r->restarts > RESTARTS_MAX) {
            http_reply_error(r->c, 503, "conflict_retries_exhausted",
                             "the notices of audience %u kept changing while this request ran; try again", r->aud);
            goto done;
        }
        struct nkey_ref ref = {NK_INDEX, r->aud};
        roaring_bitmap_free(index);
        nread_start(r, &ref, 1, list_index_loaded);
        return;
    }
    list_from_rows(r, index, rows + 1);
done:
    if (index) roaring_bitmap_free(index);
    nread_free(r);
}

/* r->ids and r->names (the index key first, then the readers key of each id) from
 * r->index, and the store keys for them (sk: nids + 1 of them, malloc'ed); false
 * when out of memory. */
static bool list_keys(struct nread *r, struct store_key **sk)
{
    free(r->ids);
    free(r->names);
    r->names = NULL;
    *sk = NULL;
    if (!(r->ids = notice_members_of(r->index, &r->nids)) || !(r->names = malloc((r->nids + 1) * NKEY_MAX)) ||
        !(*sk = malloc((r->nids + 1) * sizeof(**sk))))
        return false;
    for (size_t k = 0; k <= r->nids; k++) {
        size_t len = k ? nkey_name(r->names[k], NK_READERS, r->ids[k - 1]) : nkey_name(r->names[0], NK_INDEX, r->aud);
        (*sk)[k] = (struct store_key){(const uint8_t *)r->names[k], len};
    }
    return true;
}

/* The listing when the index and every readers row are in the cache (and the request
 * does not ask for a consistent read): answered at once, without a load. false (nothing
 * answered) otherwise. */
static bool list_cached(struct nread *r)
{
    struct store *st = r->c->app->store;
    struct store_key *sk = NULL;
    struct store_row *rows = NULL;
    struct cache_blob **held = NULL;
    char why[WP_KEY_MAX + 200];
    bool answered = false, peeked = false;

    if (http_load_flags(r->c)) return false;
    char name[NKEY_MAX];
    struct store_key ik = {(const uint8_t *)name, nkey_name(name, NK_INDEX, r->aud)};
    struct store_row irow;
    struct cache_blob *iheld;
    if (!store_peek(st, &ik, 1, &irow, &iheld)) return false;
    r->index = irow.found ? wpath_decode_row(name, ik.len, &irow, why, sizeof(why)) : roaring_bitmap_create();
    store_peek_release(&iheld, 1);
    if (!r->index) return false; /* a corrupt index (or no memory): the load says which */
    if (!list_keys(r, &sk) || !(rows = malloc((r->nids + 1) * sizeof(*rows))) ||
        !(held = malloc((r->nids + 1) * sizeof(*held))))
        goto done;
    if (!(peeked = store_peek(st, sk + 1, r->nids, rows, held))) goto done;
    list_from_rows(r, r->index, rows);
    answered = true;
done:
    if (peeked) store_peek_release(held, r->nids);
    free(sk);
    free(rows);
    free(held);
    return answered;
}

/* keys: [0] the audience's index of live notices. */
static void list_index_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                              struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nread *r = arg;
    struct store_key *sk = NULL;
    bool ok;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
        nread_free(r);
        bmload_free(l);
        return;
    }
    if (r->index) roaring_bitmap_free(r->index);
    r->index = keys[0].bm;
    keys[0].bm = NULL;
    bmload_free(l);
    ok = list_keys(r, &sk) &&
         store_load(r->c->app->store, sk, r->nids + 1, http_load_flags(r->c), list_rows_loaded, r);
    free(sk);
    if (!ok) {
        http_reply_error(r->c, 500, "internal", "out of memory");
        nread_free(r);
    }
}

static bool list_state_or_reply(struct http_ctx *c, enum notice_list_state *out)
{
    const char *s = evhttp_find_header(&c->query, "state");
    *out = NOTICE_LIST_ALL;
    if (!s || notice_list_state_parse(s, out)) return true;
    http_reply_error(c, 400, "invalid_parameter", "state must be unread, read or all");
    return false;
}

/* The listing, on a turn of the event loop of its own: from the cache, or by the two
 * loads. (Answered inside the request's callback, listings of 10 cached notices ran
 * at 44,000–48,000/s with 16 connections; on a turn of their own, at 52,000–56,000.) */
static void list_start(evutil_socket_t fd, short what, void *arg)
{
    struct nread *r = arg;
    if (list_cached(r)) {
        nread_free(r);
        return;
    }
    struct nkey_ref ref = {NK_INDEX, r->aud};
    nread_start(r, &ref, 1, list_index_loaded);
    (void)fd;
    (void)what;
}

/* GET /v1/audiences/{aud}/users/{user}/notices?state=unread|read|all&limit=N&before=ID */
void notice_list(struct http_ctx *c)
{
    static const char *const params[] = {"state", "limit", "before", NULL};
    uint32_t aud, user;
    int64_t limit, before = 0;
    bool has_limit, has_before;
    enum notice_list_state state;
    struct nread *r;

    if (!notice_param_audience_or_reply(c, 0, &aud) || !notice_param_user_or_reply(c, 1, &user) ||
        !http_query_only_or_reply(c, params) || !list_state_or_reply(c, &state) ||
        !http_query_int_or_reply(c, "limit", 1, c->app->cfg->http_max_page_limit, &limit, &has_limit) ||
        !http_query_int_or_reply(c, "before", 0, NOTICE_ID_MAX + 1, &before, &has_before) ||
        !(r = nread_new(c)))
        return;
    r->aud = aud;
    r->user = user;
    r->state = state;
    r->limit = has_limit ? (size_t)limit : (size_t)c->app->cfg->http_default_page_limit;
    r->cursor = has_before;
    r->before = (uint64_t)before;
    struct timeval now = {0, 0};
    if (event_base_once(c->app->base, -1, EV_TIMEOUT, list_start, r, &now) != 0) list_start(-1, 0, r);
}

/* keys: the users bitmap of each audience of the notice, in audience order. */
static void stats_users_loaded(struct bmload *l, enum bmload_status st, const char *msg,
                               struct bmload_key *keys, size_t nkeys, void *arg)
{
    struct nread *r = arg;
    json_t *size = json_null(), *unread = json_null();
    bool known = true;

    if (st != BMLOAD_OK) {
        http_reply_bmload_failure(r->c, st, msg);
        goto done;
    }
    for (size_t i = 0; i < nkeys; i++) known &= keys[i].found;
    if (known) { /* every audience's users are known: the notice's audience size and unread */
        const roaring_bitmap_t *users[AUDIENCES_PER_NOTICE];
        uint64_t n, left;
        for (size_t i = 0; i < nkeys; i++) users[i] = keys[i].bm;
        if (!notice_audience_counts(users, nkeys, r->readers, &n, &left)) {
            http_reply_error(r->c, 500, "internal", "out of memory");
            goto done;
        }
        size = json_integer((json_int_t)n);
        unread = json_integer((json_int_t)left);
    }
    /* preread_pending: always 0 since a preread commits with its notice (migration
     * 0011); kept for clients that read it */
    http_reply_json(r->c, 200,
                    json_pack("{s:I,s:o,s:I,s:o,s:o,s:i,s:I}", "id", (json_int_t)r->id, "audiences",
                              notice_audiences_json(r->audiences), "readers",
                              (json_int_t)roaring_bitmap_get_cardinality(r->readers), "audience_size", size,
                              "unread", unread, "preread_pending", 0, "version", (json_int_t)r->version),
                    r->version);
done:
    nread_free(r);
    bmload_free(l);
}

static void stats_loaded(struct bmload *l, enum bmload_status st, const char *msg, struct bmload_key *keys,
                         size_t nkeys, void *arg)
{
    struct nread *r = arg;
    struct nkey_ref refs[AUDIENCES_PER_NOTICE];
    size_t n = 0;

    if (!nread_live_or_reply(r, st, msg, keys)) {
        bmload_free(l);
        return;
    }
    r->audiences = keys[0].bm;
    r->readers = keys[1].bm;
    r->version = keys[0].version;
    keys[0].bm = keys[1].bm = NULL;
    bmload_free(l);
    roaring_uint32_iterator_t *it = roaring_create_iterator(r->audiences);
    for (; it && it->has_value && n < AUDIENCES_PER_NOTICE; roaring_advance_uint32_iterator(it))
        refs[n++] = (struct nkey_ref){NK_AUDIENCE_USERS, it->current_value};
    if (it) roaring_free_uint32_iterator(it);
    nread_start(r, refs, n, stats_users_loaded);
}

/* GET /v1/notices/{id}/stats */
void notice_stats(struct http_ctx *c)
{
    uint32_t id;
    struct nread *r;

    if (!notice_param_id_or_reply(c, 0, &id) || !notice_no_query_or_reply(c) || !(r = nread_new(c))) return;
    r->id = id;
    struct nkey_ref refs[2] = {{NK_AUDIENCES, id}, {NK_READERS, id}};
    nread_start(r, refs, 2, stats_loaded);
}
