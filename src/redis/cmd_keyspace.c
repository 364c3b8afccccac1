/* cmd_keyspace.c — the keyspace commands: DEL UNLINK EXISTS TYPE RENAME RENAMENX COPY, and
 * those over the whole keyspace, DBSIZE SCAN KEYS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis/bitval.h"
#include "store/bucket.h"
#include "store/codec.h"
#include "core/log.h"
#include "redis/rkv_internal.h"

/* ---- keyspace: DEL EXISTS TYPE RENAME COPY -------------------------------------------------- */

/* Every empty value is made before the first key changes: a rejected unit must
 * leave its keys as they were (wpath_ops.merge). */
static enum wp_mutation del_mut(struct kwrite *w, struct wp_unit *u)
{
    roaring_bitmap_t **empty = calloc((size_t)u->nkeys, sizeof(*empty));
    bool oom = !empty, changed = false;
    int64_t now = wall_ms();

    for (int k = 0; !oom && k < u->nkeys; k++)
        if (rkv_unit_val(u, k).exists && !(empty[k] = roaring_bitmap_create())) oom = true;
    w->n = 0;
    for (int k = 0; empty && k < u->nkeys; k++) {
        if (!empty[k]) continue;
        if (oom) {
            roaring_bitmap_free(empty[k]);
            continue;
        }
        struct kval v = rkv_unit_val(u, k);
        w->n += rkv_live(&v, now); /* one past its deadline is emptied, not counted */
        rkv_unit_put(u, k, empty[k], -1);
        rkv_unit_set_expire(u, k, 0); /* as rkv_unit_delete() */
        changed = true;
    }
    free(empty);
    if (oom) return rkv_reject_oom(w);
    return changed ? WP_CHANGED : WP_UNCHANGED;
}

/* DEL first reads, so that deleting keys that do not exist writes nothing. */
static void del_read(struct rcmd *c, struct kval *v, size_t n)
{
    size_t *args = malloc((n ? n : 1) * sizeof(*args)), m = 0;
    if (!args) return rkv_fail(c, "ERR out of memory");
    for (size_t i = 0; i < n; i++)
        if (v[i].exists) args[m++] = 1 + i;
    if (m == 0) {
        free(args);
        rr_int(&c->r, 0);
        return rcmd_finish(c);
    }
    kwrite(c, args, m, del_mut, rkv_reply_n, NULL);
    free(args);
}

/* Loads every argument from the first on as a key (DEL, EXISTS). */
static void kread_all(struct rcmd *c, kread_fn *fn)
{
    const struct rarg **keys = malloc(c->argc * sizeof(*keys));
    if (!keys) return rkv_fail(c, "ERR out of memory");
    for (size_t i = 1; i < c->argc; i++) keys[i - 1] = &c->argv[i];
    kread(c, keys, c->argc - 1, fn);
    free(keys);
}

void cmd_del(struct rcmd *c) { kread_all(c, del_read); }

static void exists_read(struct rcmd *c, struct kval *v, size_t n)
{
    long long count = 0;
    for (size_t i = 0; i < n; i++) count += v[i].exists;
    rr_int(&c->r, count);
    rcmd_finish(c);
}

void cmd_exists(struct rcmd *c) { kread_all(c, exists_read); }

static void type_read(struct rcmd *c, struct kval *v, size_t n)
{
    rr_simple(&c->r, v[0].exists ? "string" : "none");
    rcmd_finish(c);
    (void)n;
}

void cmd_type(struct rcmd *c) { kread1(c, 1, type_read); }

struct move_args {
    bool copy, replace, nx;
};

static enum wp_mutation move_mut(struct kwrite *w, struct wp_unit *u)
{
    struct move_args *a = w->extra;
    int s = w->slot[1], d = w->slot[2];
    struct kval src = rkv_unit_val(u, s), dst = rkv_unit_val(u, d);
    int64_t now = wall_ms();

    if (!rkv_live(&src, now)) {
        if (a->copy) {
            w->n = 0;
            return WP_UNCHANGED;
        }
        snprintf(w->err, sizeof(w->err), "ERR no such key");
        return WP_REJECT;
    }
    if (s == d) { /* RENAME k k */
        w->n = 0;
        return WP_UNCHANGED;
    }
    if (rkv_live(&dst, now) && (a->nx || (a->copy && !a->replace))) {
        w->n = 0;
        return WP_UNCHANGED;
    }
    roaring_bitmap_t *bm = roaring_bitmap_copy(src.bm);
    if (!bm || (!a->copy && !rkv_unit_delete(u, s))) {
        if (bm) roaring_bitmap_free(bm);
        return rkv_reject_oom(w);
    }
    rkv_unit_put(u, d, bm, (int64_t)src.len);
    rkv_unit_set_expire(u, d, src.expire_ms); /* the source's deadline, or none: Redis's too */
    w->n = 1;
    return WP_CHANGED;
}

static void reply_rename(struct kwrite *w)
{
    struct move_args *a = w->extra;
    if (a->nx || a->copy)
        rr_int(&w->c->r, w->n);
    else
        rr_simple(&w->c->r, "OK");
}

static void start_move(struct rcmd *c, struct move_args a)
{
    static const size_t args[2] = {1, 2};
    struct move_args *x = malloc(sizeof(*x));
    if (!x) return rkv_fail(c, "ERR out of memory");
    *x = a;
    kwrite(c, args, 2, move_mut, reply_rename, x);
}

void cmd_rename(struct rcmd *c) { start_move(c, (struct move_args){false, false, false}); }
void cmd_renamenx(struct rcmd *c) { start_move(c, (struct move_args){false, false, true}); }

void cmd_copy(struct rcmd *c)
{
    struct move_args a = {true, false, false};
    for (size_t i = 3; i < c->argc; i++) {
        if (rarg_eq(&c->argv[i], "REPLACE")) {
            a.replace = true;
        } else if (rarg_eq(&c->argv[i], "DB") && i + 1 < c->argc) {
            long long db;
            if (!rkv_parse_int(c, &c->argv[++i], &db)) return rcmd_finish(c);
            if (db != 0) return rkv_fail(c, "ERR DB index is out of range (bitmapd has one database, 0)");
        } else {
            return rkv_fail(c, RKV_SYNTAX);
        }
    }
    if (c->argv[1].len == c->argv[2].len && memcmp(c->argv[1].ptr, c->argv[2].ptr, c->argv[1].len) == 0)
        return rkv_fail(c, "ERR source and destination objects are the same");
    start_move(c, a);
}

/* ---- whole keyspace: DBSIZE SCAN KEYS ------------------------------------------------------------ */

/* A row is a key when it has a member or a length and its deadline, if any, is after
 * $n: this instance's clock (wall_ms()), which decides expiry for every other command
 * too. An expired key's row waits for the sweep (docs/design.md, "Expiry"). */
#define EXISTS_SQL(n) \
    "(cardinality > 0 OR nbytes IS NOT NULL) AND (expire_ms IS NULL OR expire_ms > $" #n "::bigint) AND " SQL_KEY_ROW("")


static void now_param(char buf[static 24], struct db_param *p)
{
    snprintf(buf, 24, "%lld", (long long)wall_ms());
    *p = (struct db_param){buf, 0, 0};
}

struct dbsize_op {
    struct rcmd *c;
    rkv_keyspace_fn *cb;
};

static void dbsize_done(const struct db_result *r, void *arg)
{
    struct dbsize_op *o = arg;
    struct rcmd *c = o->c;
    rkv_keyspace_fn *cb = o->cb;
    free(o);
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        struct rkv_keyspace ks = {db_value_int8(r->res, 0, 0), db_value_int8(r->res, 0, 1),
                                  db_value_int8(r->res, 0, 2)};
        cb(c, &ks, NULL);
    } else {
        cb(c, NULL, r->message ? r->message : "database unavailable");
    }
}

void rkv_dbsize(struct rcmd *c, rkv_keyspace_fn *cb)
{
    struct dbsize_op *o = malloc(sizeof(*o));
    char now[24];
    struct db_param p;
    if (!o) return cb(c, NULL, "out of memory");
    *o = (struct dbsize_op){c, cb};
    now_param(now, &p);
    /* one pass over the keys gives all three figures; with a family in buckets
     * (migrations/0015), a bucket row counts its live members: from its columns when
     * none has a deadline (nbytes 0, bucket.h bucket_counts), else from its bits */
    bool buckets = store_buckets_any(c->app->store);
    if (!store_query_folded(c->app->store,
                            buckets ? "SELECT n::int8, x::int8, CASE WHEN x > 0 THEN round(t::numeric / x)::int8 ELSE 0 END FROM ("
                                      " SELECT count(*) FILTER (WHERE own) + coalesce(sum(cardinality) FILTER (WHERE fast), 0)"
                                      "        + coalesce(sum(l[1]), 0) AS n,"
                                      "        count(expire_ms) FILTER (WHERE own) + coalesce(sum(l[2]), 0) AS x,"
                                      "        coalesce(sum(expire_ms - $1::bigint) FILTER (WHERE own), 0)"
                                      "        + coalesce(sum(l[3]), 0) AS t"
                                      "   FROM (SELECT expire_ms, cardinality, bucket IS NULL OR bucket < 0 AS own,"
                                      "                bucket > 0 AND nbytes = 0 AS fast,"
                                      "                CASE WHEN bucket > 0 AND nbytes IS DISTINCT FROM 0"
                                      "                     THEN bitmapd._bucket_live(bits, $1::bigint) END AS l"
                                      "           FROM bitmapd.bitmaps WHERE " EXISTS_SQL(1) " OR bucket > 0) r) s"
                                    : "SELECT count(*), count(expire_ms),"
                                      "       coalesce(avg(expire_ms - $1::bigint), 0)::int8"
                                      "  FROM bitmapd.bitmaps WHERE " EXISTS_SQL(1),
                            1, &p, dbsize_done, o)) {
        free(o);
        cb(c, NULL, "out of memory");
    }
}

static void dbsize_reply(struct rcmd *c, const struct rkv_keyspace *ks, const char *err)
{
    if (!ks)
        rr_error(&c->r, "ERR bitmapd: %s", err);
    else
        rr_int(&c->r, ks->keys);
    rcmd_finish(c);
}

void cmd_dbsize(struct rcmd *c) { rkv_dbsize(c, dbsize_reply); }

struct scan_op {
    struct rcmd *c;
    const struct rarg *match;
    bool type_ok;
    long long count;
};

static void scan_done(const struct db_result *r, void *arg)
{
    struct scan_op *o = arg;
    struct rcmd *c = o->c;
    if (r->status != DB_OK) {
        /* 22023: the cursor names no fence (never handed out, or from before 0014) */
        if (r->sqlstate && strcmp(r->sqlstate, "22023") == 0)
            rr_error(&c->r, "ERR invalid cursor");
        else
            rr_error(&c->r, "ERR bitmapd: %s", r->message ? r->message : "database unavailable");
    } else {
        /* the keys, then one row with no key and the next cursor */
        int rows = PQntuples(r->res), take = rows > 0 ? rows - 1 : 0;
        char next[32] = "0";
        if (rows > 0 && !PQgetisnull(r->res, rows - 1, 1))
            snprintf(next, sizeof(next), "%lld", (long long)db_value_int8(r->res, rows - 1, 1));
        int nmatch = 0;
        for (int i = 0; i < take && o->type_ok; i++)
            if (!o->match || rproto_glob(o->match->ptr, o->match->len, PQgetvalue(r->res, i, 0),
                                         (size_t)PQgetlength(r->res, i, 0), false))
                nmatch++;
        rr_array(&c->r, 2);
        rr_cstr(&c->r, next);
        rr_array(&c->r, (size_t)nmatch);
        for (int i = 0; i < take && o->type_ok; i++) {
            const char *k = PQgetvalue(r->res, i, 0);
            size_t kl = (size_t)PQgetlength(r->res, i, 0);
            if (!o->match || rproto_glob(o->match->ptr, o->match->len, k, kl, false)) rr_bulk(&c->r, k, kl);
        }
    }
    free(o);
    rcmd_finish(c);
}

/* SCAN walks keys in key order, a page from one fence to the next
 * (bitmapd.scan_page, migrations/0014): the cursor is a plain number, as clients
 * expect, and any instance can continue it, since the fences are rows. */
void cmd_scan(struct rcmd *c)
{
    struct scan_op *o = calloc(1, sizeof(*o));
    long long cursor;
    if (!o) return rkv_fail(c, "ERR out of memory");
    o->c = c;
    o->count = 10;
    o->type_ok = true;
    if (!rarg_ll(&c->argv[1], &cursor) || cursor < 0) {
        free(o);
        return rkv_fail(c, "ERR invalid cursor");
    }
    for (size_t i = 2; i < c->argc; i++) {
        bool more = i + 1 < c->argc;
        if (rarg_eq(&c->argv[i], "MATCH") && more) {
            o->match = &c->argv[++i];
            if (o->match->len == 1 && o->match->ptr[0] == '*') o->match = NULL;
        } else if (rarg_eq(&c->argv[i], "COUNT") && more) {
            if (!rkv_parse_int(c, &c->argv[++i], &o->count)) {
                free(o);
                return rcmd_finish(c);
            }
            if (o->count < 1) {
                free(o);
                return rkv_fail(c, RKV_SYNTAX);
            }
            if (o->count > 100000) o->count = 100000;
        } else if (rarg_eq(&c->argv[i], "TYPE") && more) {
            o->type_ok = rarg_eq(&c->argv[++i], "string");
        } else {
            free(o);
            return rkv_fail(c, RKV_SYNTAX);
        }
    }
    char cur[32], lim[32], now[24];
    snprintf(cur, sizeof(cur), "%lld", cursor);
    snprintf(lim, sizeof(lim), "%lld", o->count);
    struct db_param p[3] = {{cur, 0, 0}, {lim, 0, 0}};
    now_param(now, &p[2]);
    if (!store_query_folded(c->app->store,
                  "SELECT scan_key, scan_next FROM bitmapd.scan_page($1::bigint, $2::int, $3::bigint)",
                  3, p, scan_done, o)) {
        free(o);
        rkv_fail(c, "ERR out of memory");
    }
}

/* KEYS pattern: pages through the keys in key order (only those under the pattern's
 * literal prefix), and refuses to answer more than [resp] keys_max keys. */
struct keys_op {
    struct rcmd *c;
    struct evbuffer *found;
    size_t nfound;
    uint8_t *prefix;
    size_t prefix_len;
    uint8_t *last;
    size_t last_len;
    bool started;
    bool buckets; /* a family may be in bucket rows: they are expanded (store_buckets_any) */
};

#define KEYS_PAGE 1000

static void keys_next(struct keys_op *o);

static void keys_end(struct keys_op *o, const char *err)
{
    struct rcmd *c = o->c;
    if (err) {
        rr_error(&c->r, "%s", err);
    } else {
        rr_array(&c->r, o->nfound);
        evbuffer_add_buffer(c->r.out, o->found);
    }
    evbuffer_free(o->found);
    free(o->prefix);
    free(o->last);
    free(o);
    rcmd_finish(c);
}

static void keys_done(const struct db_result *r, void *arg)
{
    struct keys_op *o = arg;
    struct rcmd *c = o->c;
    const struct rarg *pat = &c->argv[1];
    char err[200];

    if (r->status != DB_OK) {
        snprintf(err, sizeof(err), "ERR bitmapd: %s", r->message ? r->message : "database unavailable");
        return keys_end(o, err);
    }
    /* a row: its key, the key of one member of a bucket row (column 2, else NULL),
     * and whether that is a live key; a bucket row gives one row per member */
    int rows = PQntuples(r->res), page = 0;
    for (int i = 0; i < rows; i++) {
        const char *k = PQgetvalue(r->res, i, 0);
        size_t kl = (size_t)PQgetlength(r->res, i, 0);
        if (o->prefix_len && (kl < o->prefix_len || memcmp(k, o->prefix, o->prefix_len) != 0)) return keys_end(o, NULL);
        page += i == 0 || kl != (size_t)PQgetlength(r->res, i - 1, 0) || memcmp(k, PQgetvalue(r->res, i - 1, 0), kl);
        const char *name = PQgetisnull(r->res, i, 2) ? k : PQgetvalue(r->res, i, 2);
        size_t namel = PQgetisnull(r->res, i, 2) ? kl : (size_t)PQgetlength(r->res, i, 2);
        if (!PQgetisnull(r->res, i, 1) && rproto_glob(pat->ptr, pat->len, name, namel, false)) {
            if (++o->nfound > (size_t)c->app->cfg->resp_keys_max) {
                snprintf(err, sizeof(err), "ERR bitmapd: KEYS matches more than %d keys ([resp] keys_max); use SCAN",
                         c->app->cfg->resp_keys_max);
                return keys_end(o, err);
            }
            evbuffer_add_printf(o->found, "$%zu\r\n", namel);
            evbuffer_add(o->found, name, namel);
            evbuffer_add(o->found, "\r\n", 2);
        }
        if (i == rows - 1) {
            free(o->last);
            if (!(o->last = malloc(kl + 1))) return keys_end(o, "ERR out of memory");
            memcpy(o->last, k, kl);
            o->last_len = kl;
        }
    }
    if (page < KEYS_PAGE) return keys_end(o, NULL);
    keys_next(o);
}

static void keys_next(struct keys_op *o)
{
    struct rcmd *c = o->c;
    const uint8_t *from = o->started ? o->last : o->prefix;
    size_t from_len = o->started ? o->last_len : o->prefix_len;
    char now[24];
    struct db_param p[3] = {{from, (int)from_len, 1}, {o->started ? "1" : "0", 0, 0}};
    now_param(now, &p[2]);
    o->started = true;
    /* the second column is NULL for rows that are not keys (deleted or expired); with
     * bucket rows, each gives its members (migrations/0015) in the third, a member that
     * spilled to a row of its own at its bucket's place (as SCAN lists it) */
    if (!store_query_folded(c->app->store,
                  o->buckets
                      ? "WITH page AS (SELECT key, CASE WHEN " EXISTS_SQL(3) " AND bucket IS NULL THEN 1 END AS ok,"
                        "                     CASE WHEN bucket > 0 THEN bits END AS bb FROM bitmapd.bitmaps"
                        "               WHERE (key > $1::bytea OR ($2::int = 0 AND key = $1::bytea))"
                        "               ORDER BY key LIMIT 1000)"
                        " SELECT p.key, p.ok, NULL::bytea, -1 AS s FROM page p WHERE p.bb IS NULL"
                        " UNION ALL"
                        " SELECT p.key, CASE WHEN e.stub"
                        "                    THEN (SELECT 1 FROM bitmapd.bitmaps o"
                        "                           WHERE o.key = bitmapd.bucket_member_key(p.key, e.slot) AND o.bucket < 0"
                        "                             AND (o.cardinality > 0 OR o.nbytes IS NOT NULL)"
                        "                             AND (o.expire_ms IS NULL OR o.expire_ms > $3::bigint))"
                        "                    WHEN (e.cardinality > 0 OR e.nbytes IS NOT NULL)"
                        "                     AND (e.expire_ms IS NULL OR e.expire_ms > $3::bigint) THEN 1 END,"
                        "        bitmapd.bucket_member_key(p.key, e.slot), e.slot"
                        "   FROM page p LEFT JOIN LATERAL bitmapd._bucket_entries_safe(p.bb) e ON true"
                        "  WHERE p.bb IS NOT NULL"
                        " ORDER BY 1, 4"
                      : "SELECT key, CASE WHEN " EXISTS_SQL(3) " THEN 1 END, NULL::bytea FROM bitmapd.bitmaps"
                        " WHERE (key > $1::bytea OR ($2::int = 0 AND key = $1::bytea))"
                        " ORDER BY key LIMIT 1000",
                  3, p, keys_done, o))
        keys_end(o, "ERR out of memory");
}

/* How much of a KEYS walk's prefix p[0..len) stays when members of a family may live
 * in bucket rows: up to the start of a family's id part (checkin:, group:{g}:msg:). */
static size_t keys_family_prefix(const uint8_t *p, size_t len)
{
    static const char ck[] = "checkin:", gp[] = "group:", msg[] = ":msg:";
    const size_t ckl = sizeof(ck) - 1, gpl = sizeof(gp) - 1, msgl = sizeof(msg) - 1;
    if (len > ckl && memcmp(p, ck, ckl) == 0) return ckl;
    if (len > gpl && memcmp(p, gp, gpl) == 0) {
        size_t i = gpl;
        while (i < len && p[i] >= '0' && p[i] <= '9') i++;
        if (len > i + msgl && memcmp(p + i, msg, msgl) == 0) return i + msgl;
    }
    return len;
}

void cmd_keys(struct rcmd *c)
{
    struct keys_op *o = calloc(1, sizeof(*o));
    const struct rarg *pat = &c->argv[1];
    if (!o || !(o->found = evbuffer_new()) || !(o->prefix = malloc(pat->len + 1))) {
        if (o && o->found) evbuffer_free(o->found);
        free(o);
        return rkv_fail(c, "ERR out of memory");
    }
    o->c = c;
    /* the literal prefix of the pattern bounds the walk */
    for (size_t i = 0; i < pat->len; i++) {
        char ch = pat->ptr[i];
        if (ch == '*' || ch == '?' || ch == '[') break;
        if (ch == '\\') {
            if (++i >= pat->len) break;
            ch = pat->ptr[i];
        }
        o->prefix[o->prefix_len++] = (uint8_t)ch;
    }
    /* with a family in buckets, a member (checkin:42) lives in a row whose name
     * (checkin:~2) leaves the member's prefix where the id begins: the walk then covers
     * the family's names from there (checkin:, group:{g}:msg:), and the pattern picks */
    o->buckets = store_buckets_any(c->app->store);
    if (o->buckets) o->prefix_len = keys_family_prefix(o->prefix, o->prefix_len);
    keys_next(o);
}
