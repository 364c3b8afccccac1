/* rkv.c — the data commands of the RESP front end over the one bitmap store.
 *
 * A Redis key is a row of bitmapd.bitmaps under the same name (the message box's
 * message:push:{u} is the key "message:push:{u}"). A key's value is a Redis string
 * seen as bits: the row's Roaring bitmap holds the set bits and `nbytes` the length
 * in bytes (see migrations/0003). A key exists when it has a member or an explicit
 * length; DEL empties the row rather than removing it, so versions never repeat.
 *
 * Reads load rows without creating them. Writes go through the write path (wpath):
 * validated load, mutation, re-validated encoding, compare-and-swap; a command's keys
 * form one unit that commits whole (RENAME, COPY, BITOP, DEL of many keys).
 *
 * This file holds what the commands share (rkv_internal.h) and the table; the
 * commands are in cmd_bitmap.c, cmd_string.c, cmd_expire.c, cmd_keyspace.c and
 * cmd_roaring.c. A key may carry a deadline (column expire_ms, docs/resp.md "Expiry"):
 * from it on, the key reads as absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis/bitval.h"
#include "store/bucket.h"
#include "store/codec.h"
#include "core/log.h"
#include "redis/rkv_internal.h"
#include "store/wpath.h"



bool rkv_exists(const roaring_bitmap_t *bm, int64_t nbytes)
{
    return nbytes >= 0 || roaring_bitmap_get_cardinality(bm) > 0;
}

bool rkv_keys_ok(struct rcmd *c, const struct rarg *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (keys[i]->len > (size_t)c->app->cfg->resp_max_key_bytes) {
            rr_error(&c->r, "ERR bitmapd: key is longer than %d bytes ([resp] max_key_bytes)",
                     c->app->cfg->resp_max_key_bytes);
            return false;
        }
        enum bucket_family f = bucket_name_family((const uint8_t *)keys[i]->ptr, keys[i]->len);
        if (f != BUCKET_NONE) {
            rr_error(&c->r, "ERR bitmapd: key name reserved: it names a bucket row of %s keys (docs/resp.md)",
                     bucket_family_name(f));
            return false;
        }
    }
    if (n > WP_MAX_KEYS) {
        rr_error(&c->r, "ERR bitmapd: at most %d keys per command", WP_MAX_KEYS);
        return false;
    }
    return true;
}

/* ---- reads ------------------------------------------------------------------------ */


struct kread {
    struct rcmd *c;
    kread_fn *fn;
    size_t n;
    const struct rarg **keys;
    void *state; /* the command's own, restored into c->op before fn */
};

static void kread_done(enum store_status st, const char *err, const struct store_row *rows, void *arg)
{
    struct kread *k = arg;
    struct rcmd *c = k->c;
    struct kval *v = NULL;
    size_t ok = 0;

    c->op = k->state;
    if (st == STORE_UNAVAILABLE) {
        rr_error(&c->r, "ERR bitmapd: database unavailable, try again (%s)", err ? err : "no connection");
        goto out;
    }
    if (st != STORE_OK) {
        rr_error(&c->r, "ERR bitmapd: %s", err ? err : "database error");
        goto out;
    }
    if (!(v = calloc(k->n ? k->n : 1, sizeof(*v)))) {
        rr_error(&c->r, "ERR out of memory");
        goto out;
    }
    for (; ok < k->n; ok++) {
        char why[256];
        if (!rows[ok].found) {
            v[ok].bm = roaring_bitmap_create();
            continue;
        }
        v[ok].bm = wpath_decode_row(k->keys[ok]->ptr, k->keys[ok]->len, &rows[ok], why, sizeof(why));
        if (!v[ok].bm) {
            rr_error(&c->r, "ERR bitmapd: %s", why);
            goto out;
        }
        v[ok].exists = rkv_exists(v[ok].bm, rows[ok].nbytes);
        v[ok].len = v[ok].exists ? bv_len(v[ok].bm, rows[ok].nbytes) : 0;
        /* a row past its deadline came empty: the store decided it as it answered,
         * in this same turn (store_expire_rows) */
        v[ok].expire_ms = v[ok].exists ? rows[ok].expire_ms : 0;
    }
    kread_fn *fn = k->fn;
    size_t n = k->n;
    free(k->keys);
    free(k);
    fn(c, v, n); /* replies and finishes */
    for (size_t i = 0; i < n; i++) roaring_bitmap_free(v[i].bm);
    free(v);
    return;
out:
    for (size_t i = 0; v && i < ok; i++) roaring_bitmap_free(v[i].bm);
    free(v);
    free(k->keys);
    free(k);
    free(c->op);
    c->op = NULL;
    rcmd_finish(c);
}

#define KREAD_PEEK_MAX 8 /* reads of up to this many keys try the cache synchronously first */

/* Loads keys (no row is created) and calls fn with their values, or answers the
 * error itself. c->op (if any) is freed on error. */
void kread(struct rcmd *c, const struct rarg *const *keys, size_t n, kread_fn *fn)
{
    struct kread *k = calloc(1, sizeof(*k));
    struct store_key *sk = calloc(n ? n : 1, sizeof(*sk));
    if (!k || !sk || !(k->keys = malloc((n ? n : 1) * sizeof(*k->keys)))) goto oom;
    if (!rkv_keys_ok(c, keys, n)) {
        free(k->keys);
        free(k);
        free(sk);
        free(c->op);
        c->op = NULL;
        rcmd_finish(c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        k->keys[i] = keys[i];
        sk[i] = (struct store_key){(const uint8_t *)keys[i]->ptr, keys[i]->len};
    }
    k->c = c;
    k->fn = fn;
    k->n = n;
    k->state = c->op;
    if (n <= KREAD_PEEK_MAX) { /* every key hot: answer now, with no round trip at all */
        struct store_row rows[KREAD_PEEK_MAX];
        struct cache_blob *held[KREAD_PEEK_MAX];
        if (store_peek(c->app->store, sk, n, rows, held)) {
            free(sk);
            kread_done(STORE_OK, NULL, rows, k);
            store_peek_release(held, n);
            return;
        }
    }
    if (!store_load(c->app->store, sk, n, 0, kread_done, k)) goto oom;
    free(sk);
    return;
oom:
    if (k) free(k->keys);
    free(k);
    free(sk);
    rr_error(&c->r, "ERR out of memory");
    free(c->op);
    c->op = NULL;
    rcmd_finish(c);
}

void kread1(struct rcmd *c, size_t argi, kread_fn *fn)
{
    const struct rarg *key = &c->argv[argi];
    kread(c, &key, 1, fn);
}

/* ---- writes ----------------------------------------------------------------------- */


/* The value of unit key k: bitmap (owned by the unit), effective length, existence. */
struct kval rkv_unit_val(const struct wp_unit *u, int k)
{
    struct kval v;
    v.bm = u->keys[k].bm;
    v.exists = rkv_exists(v.bm, u->keys[k].nbytes);
    v.len = v.exists ? bv_len(v.bm, u->keys[k].nbytes) : 0;
    v.expire_ms = v.exists ? u->keys[k].expire_ms : 0;
    return v;
}

bool rkv_live(const struct kval *v, int64_t now) { return v->exists && (!v->expire_ms || v->expire_ms > now); }

/* Replaces key k's value; nbytes < 0 stores "no explicit length". */
void rkv_unit_put(struct wp_unit *u, int k, roaring_bitmap_t *bm, int64_t nbytes)
{
    if (u->keys[k].bm != bm) {
        roaring_bitmap_free(u->keys[k].bm);
        u->keys[k].bm = bm;
    }
    u->keys[k].nbytes = nbytes;
    u->keys[k].dirty = true;
}

/* Empties key k (a deleted key: no member, no length, no expiry). */
bool rkv_unit_delete(struct wp_unit *u, int k)
{
    roaring_bitmap_t *e = roaring_bitmap_create();
    if (!e) return false;
    rkv_unit_put(u, k, e, -1);
    u->keys[k].expire_ms = 0;
    return true;
}

void rkv_unit_set_expire(struct wp_unit *u, int k, int64_t expire_ms)
{
    u->keys[k].expire_ms = expire_ms;
    u->keys[k].dirty = true;
}

static void kwrite_free(struct kwrite *w)
{
    wpath_free(w->wp);
    if (w->slot != w->slot_buf) free(w->slot);
    if (w->extra) (w->extra_free ? w->extra_free : free)(w->extra);
    free(w);
}

static enum wp_mutation kwrite_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct kwrite *w = arg;
    (void)wp;
    w->err[0] = '\0';
    return w->mut(w, u);
}

static void kwrite_done(struct wpath *wp, enum wp_status st, const char *msg, void *arg)
{
    struct kwrite *w = arg;
    struct rcmd *c = w->c;
    struct wp_unit *u = &wpath_units(wp)[0];

    if (st == WP_OK) st = u->status;
    switch (st) {
    case WP_OK:
        w->reply(w);
        break;
    case WP_REJECTED:
        rr_error(&c->r, "%s", w->err[0] ? w->err : "ERR bitmapd: rejected");
        break;
    case WP_CORRUPT:
        rr_error(&c->r, "ERR bitmapd: %s; the key was not changed", u->error);
        break;
    case WP_UNAVAILABLE:
        rr_error(&c->r, "ERR bitmapd: database unavailable (%s)", msg ? msg : "no connection");
        break;
    case WP_CONFLICTED:
        rr_error(&c->r, "ERR bitmapd: too many concurrent writes to this key; nothing was written, try again");
        break;
    default:
        rr_error(&c->r, "ERR bitmapd: write failed: %s", msg ? msg : "unknown error");
        break;
    }
    c->op = NULL;
    kwrite_free(w);
    rcmd_finish(c);
}

static const struct wpath_ops kwrite_ops = {.mutate = kwrite_mutate, .done = kwrite_done, .merge = true};

/* Runs one unit over the keys at argument positions keyargs[0..n) (duplicates share
 * a unit key). extra is taken over: released at the end with extra_free (or free). */
void kwrite_ex(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra,
                      void (*extra_free)(void *))
{
    struct kwrite *w = calloc(1, sizeof(*w));
    const struct rarg *keys_buf[8], **keys = n <= 8 ? keys_buf : calloc(n, sizeof(*keys));
    int nk = 0;

    if (w) w->slot = c->argc <= sizeof(w->slot_buf) / sizeof(w->slot_buf[0]) ? w->slot_buf : malloc(c->argc * sizeof(int));
    if (!w || !keys || !w->slot) goto oom;
    for (size_t i = 0; i < n; i++) keys[i] = &c->argv[keyargs[i]];
    w->extra = extra;
    w->extra_free = extra_free;
    extra = NULL;
    if (!rkv_keys_ok(c, keys, n)) {
        if (keys != keys_buf) free(keys);
        kwrite_free(w);
        rcmd_finish(c);
        return;
    }
    w->c = c;
    w->mut = mut;
    w->reply = reply;
    if (!(w->wp = wpath_new(c->app->store, c->app->cfg, 1, &kwrite_ops, w, false))) goto oom;
    struct wp_unit *u = &wpath_units(w->wp)[0];
    for (size_t i = 0; i < c->argc; i++) w->slot[i] = -1;
    /* distinct keys, at most n of them */
    if (!wpath_unit_keys(u, (int)(n ? n : 1))) goto oom;
    for (size_t i = 0; i < n; i++) {
        const struct rarg *a = keys[i];
        int k;
        for (k = 0; k < nk; k++)
            if (u->keys[k].keylen == a->len && memcmp(u->keys[k].key, a->ptr, a->len) == 0) break;
        if (k == nk) {
            if (!wp_key_set(&u->keys[nk], a->ptr, a->len)) goto oom;
            nk++;
        }
        w->slot[keyargs[i]] = k;
    }
    u->nkeys = nk;
    if (keys != keys_buf) free(keys);
    c->op = w;
    wpath_run(w->wp);
    return;
oom:
    if (keys != keys_buf) free(keys);
    if (extra) (extra_free ? extra_free : free)(extra);
    if (w) kwrite_free(w);
    rr_error(&c->r, "ERR out of memory");
    rcmd_finish(c);
}

void kwrite(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra)
{
    kwrite_ex(c, keyargs, n, mut, reply, extra, NULL);
}

/* The common case: one key, argument 1. */
void kwrite1(struct rcmd *c, kmut_fn *mut, kreply_fn *reply, void *extra, void (*extra_free)(void *))
{
    static const size_t one = 1;
    kwrite_ex(c, &one, 1, mut, reply, extra, extra_free);
}

void rkv_reply_n(struct kwrite *w) { rr_int(&w->c->r, w->n); }
void rkv_reply_ok(struct kwrite *w) { rr_simple(&w->c->r, "OK"); }

/* ---- argument parsing ---------------------------------------------------------------- */

bool rkv_parse_bit_offset(struct rcmd *c, const struct rarg *a, uint32_t *off)
{
    long long v;
    if (!rarg_ll(a, &v) || v < 0 || v > 4294967295LL) {
        rr_error(&c->r, "ERR bit offset is not an integer or out of range");
        return false;
    }
    *off = (uint32_t)v;
    return true;
}

bool rkv_parse_int(struct rcmd *c, const struct rarg *a, long long *v)
{
    if (rarg_ll(a, v)) return true;
    rr_error(&c->r, "ERR value is not an integer or out of range");
    return false;
}

void rkv_fail(struct rcmd *c, const char *msg)
{
    rr_error(&c->r, "%s", msg);
    rcmd_finish(c);
}

enum wp_mutation rkv_reject_oom(struct kwrite *w)
{
    snprintf(w->err, sizeof(w->err), "ERR out of memory");
    return WP_REJECT;
}


/* ---- the table ---------------------------------------------------------------------------------- */

#define RD(nm, ar, f, fk, lk, st, grp, since, sum) {nm, ar, 0, fk, lk, st, f, grp, since, sum}
#define WR(nm, ar, f, fk, lk, st, grp, since, sum) {nm, ar, RC_WRITE, fk, lk, st, f, grp, since, sum}
/* a one-key write whose handler calls kwrite1() at once, or answers an argument error */
#define WM(nm, ar, f, grp, since, sum) {nm, ar, RC_WRITE | RC_MERGED, 1, 1, 1, f, grp, since, sum}

static const struct rcmd_def kv_cmds[] = {
    WM("setbit", 4, cmd_setbit, "bitmap", "2.2.0", "Sets or clears the bit at offset; durable when answered."),
    RD("getbit", 3, cmd_getbit, 1, 1, 1, "bitmap", "2.2.0", "Returns the bit at offset."),
    RD("bitcount", -2, cmd_bitcount, 1, 1, 1, "bitmap", "2.6.0", "Counts set bits, optionally in a BYTE or BIT range."),
    RD("bitpos", -3, cmd_bitpos, 1, 1, 1, "bitmap", "2.8.7", "Finds the first set or clear bit in a range."),
    WR("bitop", -4, cmd_bitop, 2, -1, 1, "bitmap", "2.6.0", "AND, OR, XOR, NOT, DIFF, DIFF1, ANDOR, ONE into a key."),
    WR("bitfield", -2, cmd_bitfield, 1, 1, 1, "bitmap", "3.2.0", "GET, SET and INCRBY of integer fields."),
    RD("bitfield_ro", -2, cmd_bitfield_ro, 1, 1, 1, "bitmap", "6.0.0", "GET of integer fields."),
    RD("get", 2, cmd_get, 1, 1, 1, "string", "1.0.0", "Returns the value (up to [resp] max_value_bytes)."),
    WM("set", -3, cmd_set, "string", "1.0.0", "Sets the value (NX, XX, GET, EX, PX, EXAT, PXAT, KEEPTTL)."),
    RD("strlen", 2, cmd_strlen, 1, 1, 1, "string", "2.2.0", "Returns the length of the value in bytes."),
    RD("getrange", 4, cmd_getrange, 1, 1, 1, "string", "2.4.0", "Returns a substring of the value."),
    WM("setrange", 4, cmd_setrange, "string", "2.2.0", "Overwrites part of the value at an offset."),
    WM("append", 3, cmd_append, "string", "2.0.0", "Appends to the value."),
    RD("mget", -2, cmd_mget, 1, -1, 1, "string", "1.0.0", "Returns the values of keys (nil for a missing one)."),
    WR("mset", -3, cmd_mset, 1, -1, 2, "string", "1.0.1", "Sets keys to values, all in one commit."),
    WR("msetnx", -3, cmd_msetnx, 1, -1, 2, "string", "1.0.1", "Sets keys to values only if none exists, in one commit."),
    WM("setnx", 3, cmd_setnx, "string", "1.0.0", "Sets the value only if the key does not exist."),
    WM("getset", 3, cmd_getset, "string", "1.0.0", "Sets the value and returns the old one."),
    WM("getdel", 2, cmd_getdel, "string", "6.2.0", "Returns the value and deletes the key."),
    WM("incr", 2, cmd_incr, "string", "1.0.0", "Adds 1 to the integer value (0 for a missing key)."),
    WM("decr", 2, cmd_decr, "string", "1.0.0", "Subtracts 1 from the integer value."),
    WM("incrby", 3, cmd_incrby, "string", "1.0.0", "Adds an integer to the integer value."),
    WM("decrby", 3, cmd_decrby, "string", "1.0.0", "Subtracts an integer from the integer value."),
    WM("getex", -2, cmd_getex, "string", "6.2.0",
       "Returns the value and sets or clears its expiry (EX, PX, EXAT, PXAT, PERSIST)."),
    WR("del", -2, cmd_del, 1, -1, 1, "generic", "1.0.0", "Deletes keys."),
    WR("unlink", -2, cmd_del, 1, -1, 1, "generic", "4.0.0", "Deletes keys (same as DEL here)."),
    RD("exists", -2, cmd_exists, 1, -1, 1, "generic", "1.0.0", "Counts the keys that exist."),
    RD("type", 2, cmd_type, 1, 1, 1, "generic", "1.0.0", "string, or none."),
    WR("rename", 3, cmd_rename, 1, 2, 1, "generic", "1.0.0", "Renames a key, atomically."),
    WR("renamenx", 3, cmd_renamenx, 1, 2, 1, "generic", "1.0.0", "Renames a key if the new name is free."),
    WR("copy", -3, cmd_copy, 1, 2, 1, "generic", "6.2.0", "Copies a key (REPLACE; DB 0 only)."),
    WM("expire", -3, cmd_expire, "generic", "1.0.0", "Sets a key's time to live in seconds (NX, XX, GT, LT)."),
    WM("pexpire", -3, cmd_pexpire, "generic", "2.6.0", "Sets a key's time to live in milliseconds (NX, XX, GT, LT)."),
    WM("expireat", -3, cmd_expireat, "generic", "1.2.0", "Sets a key's deadline as a Unix time in seconds (NX, XX, GT, LT)."),
    WM("pexpireat", -3, cmd_pexpireat, "generic", "2.6.0",
       "Sets a key's deadline as a Unix time in milliseconds (NX, XX, GT, LT)."),
    RD("ttl", 2, cmd_ttl, 1, 1, 1, "generic", "1.0.0", "Returns a key's time to live in seconds (-1: none, -2: no key)."),
    RD("pttl", 2, cmd_pttl, 1, 1, 1, "generic", "2.6.0", "Returns a key's time to live in milliseconds."),
    RD("expiretime", 2, cmd_expiretime, 1, 1, 1, "generic", "7.0.0", "Returns a key's deadline as a Unix time in seconds."),
    RD("pexpiretime", 2, cmd_pexpiretime, 1, 1, 1, "generic", "7.0.0",
       "Returns a key's deadline as a Unix time in milliseconds."),
    WM("persist", 2, cmd_persist, "generic", "2.2.0", "Removes a key's expiry."),
    {"scan", -2, RC_ALLKEYS, 0, 0, 0, cmd_scan, "generic", "2.8.0", "Iterates keys (MATCH, COUNT, TYPE); any instance continues a cursor."},
    {"keys", 2, RC_ALLKEYS, 0, 0, 0, cmd_keys, "generic", "1.0.0", "Keys matching a pattern, up to [resp] keys_max."},
    {"dbsize", 1, RC_ALLKEYS, 0, 0, 0, cmd_dbsize, "server", "1.0.0", "Number of keys."},
    WM("r.setintarray", -3, cmd_rsetintarray, "roaring", "bitmapd", "Replaces the bitmap with these offsets."),
    WM("r.appendintarray", -3, cmd_rappendintarray, "roaring", "bitmapd", "Sets these offsets."),
    RD("r.getintarray", 2, cmd_rgetintarray, 1, 1, 1, "roaring", "bitmapd", "All set offsets, ascending."),
    RD("r.rangeintarray", 4, cmd_rrangeintarray, 1, 1, 1, "roaring", "bitmapd", "Set offsets of ranks start..end, ascending."),
    RD("r.revrangeintarray", 4, cmd_rrevrangeintarray, 1, 1, 1, "roaring", "bitmapd",
       "Set offsets of ranks start..end from the largest (newest first)."),
    RD("r.min", 2, cmd_rmin, 1, 1, 1, "roaring", "bitmapd", "Smallest set offset, or -1."),
    RD("r.max", 2, cmd_rmax, 1, 1, 1, "roaring", "bitmapd", "Largest set offset, or -1."),
    RD("r.card", 2, cmd_rcard, 1, 1, 1, "roaring", "bitmapd", "Number of set bits."),
};

const struct rcmd_def *rkv_commands(size_t *n)
{
    *n = ARRAY_LEN(kv_cmds);
    return kv_cmds;
}
