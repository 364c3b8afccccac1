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
 * form one unit that commits whole (RENAME, COPY, BITOP, DEL of many keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitval.h"
#include "codec.h"
#include "log.h"
#include "rkv.h"
#include "wpath.h"

#define RANGE_MAX_MEMBERS 1000000 /* R.RANGEINTARRAY / R.GETINTARRAY answer at most this many */

struct kval {
    roaring_bitmap_t *bm; /* never NULL (empty for a missing key) */
    uint64_t len;
    bool exists;
};

static bool kv_exists(const roaring_bitmap_t *bm, int64_t nbytes)
{
    return nbytes >= 0 || roaring_bitmap_get_cardinality(bm) > 0;
}

static bool keys_ok(struct rcmd *c, const struct rarg *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i]->len > (size_t)c->app->cfg->resp_max_key_bytes) {
            rr_error(&c->r, "ERR bitmapd: key is longer than %d bytes ([resp] max_key_bytes)",
                     c->app->cfg->resp_max_key_bytes);
            return false;
        }
    if (n > WP_MAX_KEYS) {
        rr_error(&c->r, "ERR bitmapd: at most %d keys per command", WP_MAX_KEYS);
        return false;
    }
    return true;
}

/* ---- reads ------------------------------------------------------------------------ */

typedef void kread_fn(struct rcmd *c, struct kval *v, size_t n);

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
        v[ok].exists = kv_exists(v[ok].bm, rows[ok].nbytes);
        v[ok].len = v[ok].exists ? bv_len(v[ok].bm, rows[ok].nbytes) : 0;
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
static void kread(struct rcmd *c, const struct rarg *const *keys, size_t n, kread_fn *fn)
{
    struct kread *k = calloc(1, sizeof(*k));
    struct store_key *sk = calloc(n ? n : 1, sizeof(*sk));
    if (!k || !sk || !(k->keys = malloc((n ? n : 1) * sizeof(*k->keys)))) goto oom;
    if (!keys_ok(c, keys, n)) {
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

static void kread1(struct rcmd *c, size_t argi, kread_fn *fn)
{
    const struct rarg *key = &c->argv[argi];
    kread(c, &key, 1, fn);
}

/* ---- writes ----------------------------------------------------------------------- */

struct kwrite;
typedef enum wp_mutation kmut_fn(struct kwrite *w, struct wp_unit *u);
typedef void kreply_fn(struct kwrite *w);

struct kwrite {
    struct rcmd *c;
    struct wpath *wp;
    kmut_fn *mut;
    kreply_fn *reply;
    int *slot;     /* argument position → unit key index (or -1) */
    long long n;   /* a result the reply uses */
    char err[200]; /* set by mut() with WP_REJECT */
    void *extra;   /* the command's own state */
    void (*extra_free)(void *);
};

/* The value of unit key k: bitmap (owned by the unit), effective length, existence. */
static struct kval unit_val(const struct wp_unit *u, int k)
{
    struct kval v;
    v.bm = u->keys[k].bm;
    v.exists = kv_exists(v.bm, u->keys[k].nbytes);
    v.len = v.exists ? bv_len(v.bm, u->keys[k].nbytes) : 0;
    return v;
}

/* Replaces key k's value; nbytes < 0 stores "no explicit length". */
static void unit_put(struct wp_unit *u, int k, roaring_bitmap_t *bm, int64_t nbytes)
{
    if (u->keys[k].bm != bm) {
        roaring_bitmap_free(u->keys[k].bm);
        u->keys[k].bm = bm;
    }
    u->keys[k].nbytes = nbytes;
    u->keys[k].dirty = true;
}

/* Empties key k (a deleted key: no member, no length). */
static bool unit_delete(struct wp_unit *u, int k)
{
    roaring_bitmap_t *e = roaring_bitmap_create();
    if (!e) return false;
    unit_put(u, k, e, -1);
    return true;
}

static void kwrite_free(struct kwrite *w)
{
    wpath_free(w->wp);
    free(w->slot);
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
static void kwrite_ex(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra,
                      void (*extra_free)(void *))
{
    struct kwrite *w = calloc(1, sizeof(*w));
    const struct rarg **keys = calloc(n ? n : 1, sizeof(*keys));
    int nk = 0;

    if (!w || !keys || !(w->slot = malloc(c->argc * sizeof(int)))) goto oom;
    for (size_t i = 0; i < n; i++) keys[i] = &c->argv[keyargs[i]];
    w->extra = extra;
    w->extra_free = extra_free;
    extra = NULL;
    if (!keys_ok(c, keys, n)) {
        free(keys);
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
    free(keys);
    c->op = w;
    wpath_run(w->wp);
    return;
oom:
    free(keys);
    if (extra) (extra_free ? extra_free : free)(extra);
    if (w) kwrite_free(w);
    rr_error(&c->r, "ERR out of memory");
    rcmd_finish(c);
}

static void kwrite(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra)
{
    kwrite_ex(c, keyargs, n, mut, reply, extra, NULL);
}

/* The common case: one key, argument 1. */
static void kwrite1(struct rcmd *c, kmut_fn *mut, kreply_fn *reply, void *extra, void (*extra_free)(void *))
{
    static const size_t one = 1;
    kwrite_ex(c, &one, 1, mut, reply, extra, extra_free);
}

static void reply_n(struct kwrite *w) { rr_int(&w->c->r, w->n); }
static void reply_ok(struct kwrite *w) { rr_simple(&w->c->r, "OK"); }

/* ---- argument parsing ---------------------------------------------------------------- */

static bool parse_bit_offset(struct rcmd *c, const struct rarg *a, uint32_t *off)
{
    long long v;
    if (!rarg_ll(a, &v) || v < 0 || v > 4294967295LL) {
        rr_error(&c->r, "ERR bit offset is not an integer or out of range");
        return false;
    }
    *off = (uint32_t)v;
    return true;
}

static bool parse_int(struct rcmd *c, const struct rarg *a, long long *v)
{
    if (rarg_ll(a, v)) return true;
    rr_error(&c->r, "ERR value is not an integer or out of range");
    return false;
}

static void fail(struct rcmd *c, const char *msg)
{
    rr_error(&c->r, "%s", msg);
    rcmd_finish(c);
}

static const char SYNTAX[] = "ERR syntax error";

/* ---- SETBIT / GETBIT --------------------------------------------------------------------- */

struct setbit_args {
    uint32_t off;
    bool on;
};

static enum wp_mutation setbit_mut(struct kwrite *w, struct wp_unit *u)
{
    struct setbit_args *a = w->extra;
    struct kval v = unit_val(u, 0);
    uint64_t need = (uint64_t)a->off / 8 + 1;
    bool old = roaring_bitmap_contains(v.bm, a->off);
    w->n = old;
    if (old == a->on && v.exists && v.len >= need) return WP_UNCHANGED;
    if (a->on)
        roaring_bitmap_add(v.bm, a->off);
    else
        roaring_bitmap_remove(v.bm, a->off);
    unit_put(u, 0, v.bm, (int64_t)(v.len > need ? v.len : need));
    if (old != a->on)
        wp_key_flipped(&u->keys[0], a->off);
    else /* only the length grew */
        wp_key_narrow(&u->keys[0], a->off, a->off);
    return WP_CHANGED;
}

static void cmd_setbit(struct rcmd *c)
{
    struct setbit_args a;
    long long on;
    if (!parse_bit_offset(c, &c->argv[2], &a.off)) return rcmd_finish(c);
    if (!rarg_ll(&c->argv[3], &on) || (on != 0 && on != 1))
        return fail(c, "ERR bit is not an integer or out of range");
    a.on = on;
    struct setbit_args *x = malloc(sizeof(*x));
    if (!x) return fail(c, "ERR out of memory");
    *x = a;
    kwrite1(c, setbit_mut, reply_n, x, NULL);
}

static void getbit_read(struct rcmd *c, struct kval *v, size_t n)
{
    uint32_t *off = c->op;
    rr_int(&c->r, roaring_bitmap_contains(v[0].bm, *off));
    free(off);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

/* GETBIT of a key held in the cache as checked bytes: the one container that can hold
 * the bit is read in place, so a big value is not decoded whole for one bit. */
static bool getbit_cached(struct rcmd *c, uint32_t off)
{
    const struct rarg *key = &c->argv[1];
    struct store_key sk = {(const uint8_t *)key->ptr, key->len};
    struct store_row row;
    struct cache_blob *held;
    bool member = false, ok;

    if (key->len > (size_t)c->app->cfg->resp_max_key_bytes || !store_peek(c->app->store, &sk, 1, &row, &held))
        return false;
    ok = !row.found || (row.checked && codec_contains(row.bits, row.len, off, &member));
    store_peek_release(&held, 1);
    if (ok) rr_int(&c->r, member);
    return ok;
}

static void cmd_getbit(struct rcmd *c)
{
    uint32_t *off = malloc(sizeof(*off));
    if (!off) return fail(c, "ERR out of memory");
    if (!parse_bit_offset(c, &c->argv[2], off)) {
        free(off);
        return rcmd_finish(c);
    }
    if (getbit_cached(c, *off)) {
        free(off);
        return rcmd_finish(c);
    }
    c->op = off;
    kread1(c, 1, getbit_read);
}

/* ---- BITCOUNT / BITPOS ------------------------------------------------------------------ */

/* Redis 7.0 looks the key up before it checks the range arguments of BITCOUNT
 * and BITPOS: on a missing key even bad arguments answer 0 (or -1). So argument
 * errors are kept in `err` and answered only if the key exists. */
struct range_args {
    bool ranged, has_start, has_end, bit_unit;
    long long start, end;
    int bit;
    const char *err;  /* a bad integer, or a syntax error */
    bool unit_err;    /* BYTE|BIT misspelt: BITCOUNT answers 0 first when -s > -e */
};

static void range_int(struct range_args *a, const struct rarg *arg, long long *v)
{
    if (!a->err && !rarg_ll(arg, v)) a->err = "ERR value is not an integer or out of range";
}

static void range_unit(struct range_args *a, const struct rarg *arg)
{
    if (rarg_eq(arg, "BIT")) a->bit_unit = true;
    else if (!rarg_eq(arg, "BYTE")) a->unit_err = true;
}

static void bitcount_read(struct rcmd *c, struct kval *v, size_t n)
{
    struct range_args *a = c->op;
    bool both_negative_empty = a->ranged && a->start < 0 && a->end < 0 && a->start > a->end;
    if (v[0].exists && a->err)
        rr_error(&c->r, "%s", a->err);
    else if (v[0].exists && a->unit_err && !both_negative_empty)
        rr_error(&c->r, SYNTAX);
    else
        rr_int(&c->r, a->unit_err ? 0 : (long long)bv_bitcount(v[0].bm, v[0].len, a->ranged, a->start, a->end, a->bit_unit));
    free(a);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void cmd_bitcount(struct rcmd *c)
{
    struct range_args *a = calloc(1, sizeof(*a));
    if (!a) return fail(c, "ERR out of memory");
    if (c->argc == 4 || c->argc == 5) {
        a->ranged = true;
        range_int(a, &c->argv[2], &a->start);
        range_int(a, &c->argv[3], &a->end);
        if (c->argc == 5) range_unit(a, &c->argv[4]);
    } else if (c->argc != 2) {
        a->err = SYNTAX;
    }
    c->op = a;
    kread1(c, 1, bitcount_read);
}

static void bitpos_read(struct rcmd *c, struct kval *v, size_t n)
{
    struct range_args *a = c->op;
    if (v[0].exists && (a->err || a->unit_err))
        rr_error(&c->r, "%s", a->err ? a->err : SYNTAX);
    else
        rr_int(&c->r, (long long)bv_bitpos(v[0].bm, v[0].len, v[0].exists, a->bit, a->has_start, a->start,
                                           a->has_end, a->end, a->bit_unit));
    free(a);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void cmd_bitpos(struct rcmd *c)
{
    struct range_args *a = calloc(1, sizeof(*a));
    long long bit;
    if (!a) return fail(c, "ERR out of memory");
    if (!parse_int(c, &c->argv[2], &bit)) {
        free(a);
        return rcmd_finish(c);
    }
    if (bit != 0 && bit != 1) {
        free(a);
        return fail(c, "ERR The bit argument must be 1 or 0.");
    }
    a->bit = (int)bit;
    if (c->argc > 6) a->err = SYNTAX;
    if (c->argc >= 4) {
        a->has_start = true;
        range_int(a, &c->argv[3], &a->start);
    }
    if (c->argc == 6) { /* Redis reads the unit before the end */
        range_unit(a, &c->argv[5]);
        if (a->unit_err && !a->err) a->err = SYNTAX;
    }
    if (c->argc >= 5) {
        a->has_end = true;
        range_int(a, &c->argv[4], &a->end);
    }
    c->op = a;
    kread1(c, 1, bitpos_read);
}

/* ---- BITOP -------------------------------------------------------------------------------- */

static enum wp_mutation bitop_mut(struct kwrite *w, struct wp_unit *u)
{
    struct rcmd *c = w->c;
    enum bv_op *op = w->extra;
    size_t n = c->argc - 3;
    const roaring_bitmap_t **srcs = calloc(n, sizeof(*srcs));
    uint64_t *lens = calloc(n, sizeof(*lens)), out_len = 0;
    roaring_bitmap_t *res = NULL;
    int dest = w->slot[2];

    if (!srcs || !lens) goto oom;
    for (size_t i = 0; i < n; i++) {
        struct kval v = unit_val(u, w->slot[3 + i]);
        srcs[i] = v.bm;
        lens[i] = v.len;
    }
    if (!(res = bv_bitop(*op, srcs, lens, n, &out_len))) goto oom;
    free(srcs);
    free(lens);
    w->n = (long long)out_len;
    if (out_len == 0) { /* Redis deletes the destination */
        roaring_bitmap_free(res);
        if (!unit_val(u, dest).exists) return WP_UNCHANGED;
        return unit_delete(u, dest) ? WP_CHANGED : WP_REJECT;
    }
    unit_put(u, dest, res, (int64_t)out_len);
    return WP_CHANGED;
oom:
    free(srcs);
    free(lens);
    snprintf(w->err, sizeof(w->err), "ERR out of memory");
    return WP_REJECT;
}

static void cmd_bitop(struct rcmd *c)
{
    static const struct {
        const char *name;
        enum bv_op op;
    } ops[] = {{"AND", BV_AND},   {"OR", BV_OR},       {"XOR", BV_XOR},     {"NOT", BV_NOT},
               {"DIFF", BV_DIFF}, {"DIFF1", BV_DIFF1}, {"ANDOR", BV_ANDOR}, {"ONE", BV_ONE}};
    enum bv_op *op = malloc(sizeof(*op));
    size_t i, nsrc = c->argc - 3;
    if (!op) return fail(c, "ERR out of memory");
    for (i = 0; i < ARRAY_LEN(ops); i++)
        if (rarg_eq(&c->argv[1], ops[i].name)) break;
    if (i == ARRAY_LEN(ops)) {
        free(op);
        return fail(c, SYNTAX);
    }
    *op = ops[i].op;
    if (*op == BV_NOT && nsrc != 1) {
        free(op);
        return fail(c, "ERR BITOP NOT must be called with a single source key.");
    }
    if ((*op == BV_DIFF || *op == BV_DIFF1 || *op == BV_ANDOR) && nsrc < 2) {
        rr_error(&c->r, "ERR BITOP %s must be called with at least two source keys.", ops[i].name);
        free(op);
        return rcmd_finish(c);
    }
    size_t *args = malloc((nsrc + 1) * sizeof(*args));
    if (!args) {
        free(op);
        return fail(c, "ERR out of memory");
    }
    for (size_t k = 0; k <= nsrc; k++) args[k] = 2 + k;
    kwrite(c, args, nsrc + 1, bitop_mut, reply_n, op);
    free(args);
}

/* ---- BITFIELD ----------------------------------------------------------------------------- */

enum bf_kind { BF_GET, BF_SET, BF_INCRBY };

struct bf_op {
    enum bf_kind kind;
    struct bv_type t;
    uint64_t off;
    int64_t arg;
    enum bv_overflow ov;
};

struct bf_state {
    size_t nops;
    bool writes;
    bool past_end; /* a write crosses bit 2^32 */
    uint64_t end;  /* bytes the write operations need */
    struct bf_op *ops;
    int64_t *res;
    bool *nil;
};

static void bf_free(void *arg) { free(arg); } /* one allocation: see bitfield() */

/* Runs every operation on (bm, len); true if something was written. */
static bool bf_run(struct bf_state *s, roaring_bitmap_t *bm, uint64_t *len)
{
    bool changed = false;
    for (size_t i = 0; i < s->nops; i++) {
        struct bf_op *o = &s->ops[i];
        s->nil[i] = false;
        if (o->kind == BF_GET) {
            s->res[i] = bv_field_get(bm, o->t, o->off);
        } else if (o->kind == BF_SET) {
            int64_t before = bv_field_get(bm, o->t, o->off);
            if (!bv_field_set_ov(bm, len, o->t, o->off, o->arg, o->ov, &s->res[i])) s->nil[i] = true;
            changed |= bv_field_get(bm, o->t, o->off) != before;
        } else {
            int64_t before = bv_field_get(bm, o->t, o->off);
            if (!bv_field_incrby(bm, len, o->t, o->off, o->arg, o->ov, &s->res[i])) s->nil[i] = true;
            changed |= s->res[i] != before && !s->nil[i];
        }
    }
    return changed;
}

static void bf_reply(struct rcmd *c, struct bf_state *s)
{
    rr_array(&c->r, s->nops);
    for (size_t i = 0; i < s->nops; i++) {
        if (s->nil[i])
            rr_nil(&c->r);
        else
            rr_int(&c->r, s->res[i]);
    }
}

static enum wp_mutation bitfield_mut(struct kwrite *w, struct wp_unit *u)
{
    struct bf_state *s = w->extra;
    struct kval v = unit_val(u, 0);
    uint64_t len = v.len > s->end ? v.len : s->end; /* Redis grows the key first, even if every op FAILs */
    bool grew = !v.exists || len != v.len;
    bool changed = bf_run(s, v.bm, &len);
    if (!changed && !grew) return WP_UNCHANGED;
    unit_put(u, 0, v.bm, (int64_t)len);
    for (size_t i = 0; i < s->nops; i++) /* the fields it may have written */
        if (s->ops[i].kind != BF_GET)
            wp_key_narrow(&u->keys[0], s->ops[i].off, s->ops[i].off + s->ops[i].t.bits - 1);
    return WP_CHANGED;
}

static void bitfield_reply(struct kwrite *w) { bf_reply(w->c, w->extra); }

static void bitfield_read(struct rcmd *c, struct kval *v, size_t n)
{
    struct bf_state *s = c->op;
    uint64_t len = v[0].len;
    bf_run(s, v[0].bm, &len); /* GETs only */
    bf_reply(c, s);
    bf_free(s);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void bitfield(struct rcmd *c, bool ro)
{
    /* the state and its three arrays in one block, so any path frees it with free() */
    size_t n = c->argc;
    struct bf_state *s = calloc(1, sizeof(*s) + n * (sizeof(struct bf_op) + sizeof(int64_t) + sizeof(bool)));
    enum bv_overflow ov = BV_WRAP;
    size_t i = 2;

    if (!s) return fail(c, "ERR out of memory");
    s->ops = (struct bf_op *)(s + 1);
    s->res = (int64_t *)(s->ops + n);
    s->nil = (bool *)(s->res + n);
    while (i < c->argc) {
        const struct rarg *a = &c->argv[i];
        size_t left = c->argc - i - 1;
        enum bf_kind kind;
        if (rarg_eq(a, "GET") && left >= 2) kind = BF_GET;
        else if (rarg_eq(a, "SET") && left >= 3) kind = BF_SET;
        else if (rarg_eq(a, "INCRBY") && left >= 3) kind = BF_INCRBY;
        else if (rarg_eq(a, "OVERFLOW") && left >= 1) {
            const struct rarg *p = &c->argv[i + 1];
            if (rarg_eq(p, "WRAP")) ov = BV_WRAP;
            else if (rarg_eq(p, "SAT")) ov = BV_SAT;
            else if (rarg_eq(p, "FAIL")) ov = BV_FAIL;
            else {
                bf_free(s);
                return fail(c, "ERR Invalid OVERFLOW type specified");
            }
            i += 2;
            continue;
        } else {
            bf_free(s);
            return fail(c, SYNTAX);
        }
        struct bf_op *o = &s->ops[s->nops];
        o->kind = kind;
        o->ov = ov;
        if (!bv_parse_type(c->argv[i + 1].ptr, c->argv[i + 1].len, &o->t)) {
            bf_free(s);
            return fail(c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
        }
        if (!bv_parse_offset(c->argv[i + 2].ptr, c->argv[i + 2].len, &o->t, &o->off)) {
            bf_free(s);
            return fail(c, "ERR bit offset is not an integer or out of range");
        }
        if (kind != BF_GET) {
            long long x;
            if (!parse_int(c, &c->argv[i + 3], &x)) {
                bf_free(s);
                return rcmd_finish(c);
            }
            o->arg = x;
            s->writes = true;
            if (o->off + o->t.bits > 4294967296ULL) s->past_end = true;
            else if (bv_field_end(o->t, o->off) > s->end) s->end = bv_field_end(o->t, o->off);
        }
        s->nops++;
        i += kind == BF_GET ? 3 : 4;
    }
    if (ro && s->writes) {
        bf_free(s);
        return fail(c, "ERR BITFIELD_RO only supports the GET subcommand");
    }
    if (s->past_end) { /* Redis would grow the value past 512 MB; a bitmap ends at bit 2^32-1 */
        bf_free(s);
        return fail(c, "ERR bitmapd: a BITFIELD SET or INCRBY must end by bit offset 4294967295");
    }
    if (s->writes) {
        kwrite1(c, bitfield_mut, bitfield_reply, s, bf_free);
        return;
    }
    c->op = s;
    kread1(c, 1, bitfield_read);
}

static void cmd_bitfield(struct rcmd *c) { bitfield(c, false); }
static void cmd_bitfield_ro(struct rcmd *c) { bitfield(c, true); }

/* ---- strings: GET SET STRLEN GETRANGE SETRANGE APPEND --------------------------------------- */

/* Writes the value [start, end] of v as a bulk reply, or an error past the cap. */
static void reply_range(struct rcmd *c, const struct kval *v, long long start, long long end)
{
    uint8_t *buf = NULL;
    size_t n = 0, cap = (size_t)c->app->cfg->resp_max_value_bytes;
    if (!bv_getrange(v->bm, v->len, start, end, cap, &buf, &n)) {
        if (n > cap)
            rr_error(&c->r,
                     "ERR bitmapd: the answer is %zu bytes, more than [resp] max_value_bytes (%zu); read it in "
                     "parts with GETRANGE, or use BITCOUNT, BITPOS or R.RANGEINTARRAY",
                     n, cap);
        else
            rr_error(&c->r, "ERR out of memory");
        return;
    }
    rr_bulk(&c->r, buf, n);
    free(buf);
}

static void get_read(struct rcmd *c, struct kval *v, size_t n)
{
    if (!v[0].exists)
        rr_nil(&c->r);
    else
        reply_range(c, &v[0], 0, -1);
    rcmd_finish(c);
    (void)n;
}

static void cmd_get(struct rcmd *c) { kread1(c, 1, get_read); }

static void strlen_read(struct rcmd *c, struct kval *v, size_t n)
{
    rr_int(&c->r, (long long)v[0].len);
    rcmd_finish(c);
    (void)n;
}

static void cmd_strlen(struct rcmd *c) { kread1(c, 1, strlen_read); }

static void getrange_read(struct rcmd *c, struct kval *v, size_t n)
{
    long long *se = c->op;
    reply_range(c, &v[0], se[0], se[1]);
    free(se);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void cmd_getrange(struct rcmd *c)
{
    long long *se = malloc(2 * sizeof(*se));
    if (!se) return fail(c, "ERR out of memory");
    if (!parse_int(c, &c->argv[2], &se[0]) || !parse_int(c, &c->argv[3], &se[1])) {
        free(se);
        return rcmd_finish(c);
    }
    c->op = se;
    kread1(c, 1, getrange_read);
}

enum set_cond { SET_ALWAYS, SET_NX, SET_XX };

struct set_args {
    enum set_cond cond;
    bool get;
    uint8_t *old;
    size_t old_len;
    bool old_exists, done_set;
};

static enum wp_mutation set_mut(struct kwrite *w, struct wp_unit *u)
{
    struct set_args *a = w->extra;
    const struct rarg *val = &w->c->argv[2];
    struct kval v = unit_val(u, 0);

    free(a->old);
    a->old = NULL;
    a->old_exists = v.exists;
    if (a->get && v.exists &&
        !bv_getrange(v.bm, v.len, 0, -1, (size_t)w->c->app->cfg->resp_max_value_bytes, &a->old, &a->old_len)) {
        snprintf(w->err, sizeof(w->err), "ERR bitmapd: the old value is larger than [resp] max_value_bytes");
        return WP_REJECT;
    }
    a->done_set = !((a->cond == SET_NX && v.exists) || (a->cond == SET_XX && !v.exists));
    if (!a->done_set) return WP_UNCHANGED;
    roaring_bitmap_t *bm = bv_from_bytes((const uint8_t *)val->ptr, val->len);
    if (!bm) {
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    unit_put(u, 0, bm, (int64_t)val->len);
    return WP_CHANGED;
}

static void set_reply(struct kwrite *w)
{
    struct set_args *a = w->extra;
    if (a->get) {
        if (a->old_exists)
            rr_bulk(&w->c->r, a->old, a->old_len);
        else
            rr_nil(&w->c->r);
    } else if (a->done_set) {
        rr_simple(&w->c->r, "OK");
    } else {
        rr_nil(&w->c->r);
    }
}

static void set_args_free(void *arg)
{
    struct set_args *a = arg;
    free(a->old);
    free(a);
}

static void cmd_set(struct rcmd *c)
{
    struct set_args *a = calloc(1, sizeof(*a));
    if (!a) return fail(c, "ERR out of memory");
    for (size_t i = 3; i < c->argc; i++) {
        const struct rarg *o = &c->argv[i];
        if (rarg_eq(o, "NX") && a->cond != SET_XX) a->cond = SET_NX;
        else if (rarg_eq(o, "XX") && a->cond != SET_NX) a->cond = SET_XX;
        else if (rarg_eq(o, "GET")) a->get = true;
        else if (rarg_eq(o, "KEEPTTL")) continue; /* keys never expire here */
        else if ((rarg_eq(o, "EX") || rarg_eq(o, "PX") || rarg_eq(o, "EXAT") || rarg_eq(o, "PXAT")) && i + 1 < c->argc) {
            free(a);
            return fail(c, "ERR bitmapd does not expire keys: SET with EX, PX, EXAT or PXAT is not supported");
        } else {
            free(a);
            return fail(c, SYNTAX);
        }
    }
    kwrite1(c, set_mut, set_reply, a, set_args_free);
}

static enum wp_mutation setrange_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[3];
    long long *off = w->extra;
    struct kval v = unit_val(u, 0);

    if (val->len == 0) { /* Redis neither creates nor pads */
        w->n = (long long)v.len;
        return WP_UNCHANGED;
    }
    if ((uint64_t)*off + val->len > BV_MAX_BYTES) {
        snprintf(w->err, sizeof(w->err), "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return WP_REJECT;
    }
    uint64_t len = v.len;
    if (!bv_setrange(v.bm, &len, (uint64_t)*off, (const uint8_t *)val->ptr, val->len)) {
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    w->n = (long long)len;
    unit_put(u, 0, v.bm, (int64_t)len);
    wp_key_narrow(&u->keys[0], (uint64_t)*off * 8, ((uint64_t)*off + val->len) * 8 - 1);
    return WP_CHANGED;
}

static void cmd_setrange(struct rcmd *c)
{
    long long *off = malloc(sizeof(*off));
    if (!off) return fail(c, "ERR out of memory");
    if (!parse_int(c, &c->argv[2], off)) {
        free(off);
        return rcmd_finish(c);
    }
    if (*off < 0) {
        free(off);
        return fail(c, "ERR offset is out of range");
    }
    kwrite1(c, setrange_mut, reply_n, off, NULL);
}

static enum wp_mutation append_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[2];
    struct kval v = unit_val(u, 0);
    uint64_t len = v.len;

    if (len + val->len > BV_MAX_BYTES) {
        snprintf(w->err, sizeof(w->err), "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return WP_REJECT;
    }
    if (!bv_setrange(v.bm, &len, len, (const uint8_t *)val->ptr, val->len)) {
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    w->n = (long long)len;
    if (v.exists && val->len == 0) return WP_UNCHANGED;
    unit_put(u, 0, v.bm, (int64_t)len); /* APPEND creates the key, even with "" */
    return WP_CHANGED;
}

static void cmd_append(struct rcmd *c) { kwrite1(c, append_mut, reply_n, NULL, NULL); }

/* ---- keyspace: DEL EXISTS TYPE RENAME COPY -------------------------------------------------- */

/* Every empty value is made before the first key changes: a rejected unit must
 * leave its keys as they were (wpath_ops.merge). */
static enum wp_mutation del_mut(struct kwrite *w, struct wp_unit *u)
{
    roaring_bitmap_t **empty = calloc((size_t)u->nkeys, sizeof(*empty));
    bool oom = !empty;

    for (int k = 0; !oom && k < u->nkeys; k++)
        if (unit_val(u, k).exists && !(empty[k] = roaring_bitmap_create())) oom = true;
    w->n = 0;
    for (int k = 0; empty && k < u->nkeys; k++) {
        if (!empty[k]) continue;
        if (oom) {
            roaring_bitmap_free(empty[k]);
            continue;
        }
        unit_put(u, k, empty[k], -1);
        w->n++;
    }
    free(empty);
    if (oom) {
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    return w->n ? WP_CHANGED : WP_UNCHANGED;
}

/* DEL first reads, so that deleting keys that do not exist writes nothing. */
static void del_read(struct rcmd *c, struct kval *v, size_t n)
{
    size_t *args = malloc((n ? n : 1) * sizeof(*args)), m = 0;
    if (!args) return fail(c, "ERR out of memory");
    for (size_t i = 0; i < n; i++)
        if (v[i].exists) args[m++] = 1 + i;
    if (m == 0) {
        free(args);
        rr_int(&c->r, 0);
        return rcmd_finish(c);
    }
    kwrite(c, args, m, del_mut, reply_n, NULL);
    free(args);
}

/* Loads every argument from the first on as a key (DEL, EXISTS). */
static void kread_all(struct rcmd *c, kread_fn *fn)
{
    const struct rarg **keys = malloc(c->argc * sizeof(*keys));
    if (!keys) return fail(c, "ERR out of memory");
    for (size_t i = 1; i < c->argc; i++) keys[i - 1] = &c->argv[i];
    kread(c, keys, c->argc - 1, fn);
    free(keys);
}

static void cmd_del(struct rcmd *c) { kread_all(c, del_read); }

static void exists_read(struct rcmd *c, struct kval *v, size_t n)
{
    long long count = 0;
    for (size_t i = 0; i < n; i++) count += v[i].exists;
    rr_int(&c->r, count);
    rcmd_finish(c);
}

static void cmd_exists(struct rcmd *c) { kread_all(c, exists_read); }

static void type_read(struct rcmd *c, struct kval *v, size_t n)
{
    rr_simple(&c->r, v[0].exists ? "string" : "none");
    rcmd_finish(c);
    (void)n;
}

static void cmd_type(struct rcmd *c) { kread1(c, 1, type_read); }

struct move_args {
    bool copy, replace, nx;
};

static enum wp_mutation move_mut(struct kwrite *w, struct wp_unit *u)
{
    struct move_args *a = w->extra;
    int s = w->slot[1], d = w->slot[2];
    struct kval src = unit_val(u, s), dst = unit_val(u, d);

    if (!src.exists) {
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
    if (dst.exists && (a->nx || (a->copy && !a->replace))) {
        w->n = 0;
        return WP_UNCHANGED;
    }
    roaring_bitmap_t *bm = roaring_bitmap_copy(src.bm);
    if (!bm || (!a->copy && !unit_delete(u, s))) {
        if (bm) roaring_bitmap_free(bm);
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    unit_put(u, d, bm, (int64_t)src.len);
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
    if (!x) return fail(c, "ERR out of memory");
    *x = a;
    kwrite(c, args, 2, move_mut, reply_rename, x);
}

static void cmd_rename(struct rcmd *c) { start_move(c, (struct move_args){false, false, false}); }
static void cmd_renamenx(struct rcmd *c) { start_move(c, (struct move_args){false, false, true}); }

static void cmd_copy(struct rcmd *c)
{
    struct move_args a = {true, false, false};
    for (size_t i = 3; i < c->argc; i++) {
        if (rarg_eq(&c->argv[i], "REPLACE")) {
            a.replace = true;
        } else if (rarg_eq(&c->argv[i], "DB") && i + 1 < c->argc) {
            long long db;
            if (!parse_int(c, &c->argv[++i], &db)) return rcmd_finish(c);
            if (db != 0) return fail(c, "ERR DB index is out of range (bitmapd has one database, 0)");
        } else {
            return fail(c, SYNTAX);
        }
    }
    if (c->argv[1].len == c->argv[2].len && memcmp(c->argv[1].ptr, c->argv[2].ptr, c->argv[1].len) == 0)
        return fail(c, "ERR source and destination objects are the same");
    start_move(c, a);
}

/* ---- redis-roaring style: R.SETINTARRAY R.APPENDINTARRAY R.GETINTARRAY R.RANGEINTARRAY … ------ */

struct ints {
    uint32_t *v;
    size_t n;
};

static bool parse_ints(struct rcmd *c, size_t from, struct ints **out)
{
    struct ints *x = calloc(1, sizeof(*x));
    if (!x || !(x->v = malloc((c->argc - from + 1) * sizeof(uint32_t)))) {
        if (x) free(x);
        rr_error(&c->r, "ERR out of memory");
        return false;
    }
    for (size_t i = from; i < c->argc; i++) {
        long long v;
        if (!rarg_ll(&c->argv[i], &v) || v < 0 || v > 4294967295LL) {
            free(x->v);
            free(x);
            rr_error(&c->r, "ERR bit offset is not an integer or out of range");
            return false;
        }
        x->v[x->n++] = (uint32_t)v;
    }
    *out = x;
    return true;
}

static enum wp_mutation setints_mut(struct kwrite *w, struct wp_unit *u, bool replace)
{
    struct ints *x = w->extra;
    struct kval v = unit_val(u, 0);
    roaring_bitmap_t *bm = replace ? roaring_bitmap_of_ptr(x->n, x->v) : v.bm;
    if (!bm) {
        snprintf(w->err, sizeof(w->err), "ERR out of memory");
        return WP_REJECT;
    }
    if (!replace) {
        uint64_t before = roaring_bitmap_get_cardinality(bm);
        roaring_bitmap_add_many(bm, x->n, x->v);
        if (roaring_bitmap_get_cardinality(bm) == before && v.exists) return WP_UNCHANGED;
        unit_put(u, 0, bm, u->keys[0].nbytes);
        return WP_CHANGED;
    }
    if (v.exists && roaring_bitmap_equals(bm, v.bm) && u->keys[0].nbytes < 0) {
        roaring_bitmap_free(bm);
        return WP_UNCHANGED;
    }
    unit_put(u, 0, bm, -1); /* as long as its members need */
    return WP_CHANGED;
}

static enum wp_mutation rset_mut(struct kwrite *w, struct wp_unit *u) { return setints_mut(w, u, true); }
static enum wp_mutation rappend_mut(struct kwrite *w, struct wp_unit *u) { return setints_mut(w, u, false); }

static void ints_free(void *arg)
{
    struct ints *x = arg;
    free(x->v);
    free(x);
}

static void setints(struct rcmd *c, kmut_fn *mut)
{
    struct ints *x;
    if (!parse_ints(c, 2, &x)) return rcmd_finish(c);
    kwrite1(c, mut, reply_ok, x, ints_free);
}

static void cmd_rsetintarray(struct rcmd *c) { setints(c, rset_mut); }
static void cmd_rappendintarray(struct rcmd *c) { setints(c, rappend_mut); }

static void reply_members(struct rcmd *c, const roaring_bitmap_t *bm, uint64_t from, uint64_t count, bool rev)
{
    uint64_t card = roaring_bitmap_get_cardinality(bm);
    if (from >= card) count = 0;
    else if (count > card - from) count = card - from;
    uint32_t *buf = count ? malloc(count * sizeof(*buf)) : NULL;
    if (count && !buf) {
        rr_error(&c->r, "ERR out of memory");
        return;
    }
    /* by rank: ascending ranks [from, from+count), or from the top when rev */
    uint64_t lo = rev ? card - from - count : from;
    if (count) roaring_bitmap_range_uint32_array(bm, (size_t)lo, (size_t)count, buf);
    rr_array(&c->r, count);
    for (uint64_t i = 0; i < count; i++) rr_int(&c->r, buf[rev ? count - 1 - i : i]);
    free(buf);
}

static void rget_read(struct rcmd *c, struct kval *v, size_t n)
{
    uint64_t card = roaring_bitmap_get_cardinality(v[0].bm);
    if (card > RANGE_MAX_MEMBERS)
        rr_error(&c->r, "ERR bitmapd: %llu members, more than %d at once; page with R.RANGEINTARRAY",
                 (unsigned long long)card, RANGE_MAX_MEMBERS);
    else
        reply_members(c, v[0].bm, 0, card, false);
    rcmd_finish(c);
    (void)n;
}

static void cmd_rgetintarray(struct rcmd *c) { kread1(c, 1, rget_read); }

struct rrange {
    long long start, end;
    bool rev;
};

static void rrange_read(struct rcmd *c, struct kval *v, size_t n)
{
    struct rrange *a = c->op;
    uint64_t count = (uint64_t)(a->end - a->start + 1);
    reply_members(c, v[0].bm, (uint64_t)a->start, count, a->rev);
    free(a);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void rrange(struct rcmd *c, bool rev)
{
    struct rrange *a = malloc(sizeof(*a));
    if (!a) return fail(c, "ERR out of memory");
    a->rev = rev;
    if (!parse_int(c, &c->argv[2], &a->start) || !parse_int(c, &c->argv[3], &a->end)) {
        free(a);
        return rcmd_finish(c);
    }
    if (a->start < 0 || a->end < 0) {
        free(a);
        return fail(c, "ERR bitmapd: start and end are ranks, 0 or more");
    }
    if (a->end - a->start >= RANGE_MAX_MEMBERS) {
        rr_error(&c->r, "ERR bitmapd: at most %d members at once", RANGE_MAX_MEMBERS);
        free(a);
        return rcmd_finish(c);
    }
    if (a->start > a->end) {
        free(a);
        rr_array(&c->r, 0);
        return rcmd_finish(c);
    }
    c->op = a;
    kread1(c, 1, rrange_read);
}

static void cmd_rrangeintarray(struct rcmd *c) { rrange(c, false); }
static void cmd_rrevrangeintarray(struct rcmd *c) { rrange(c, true); }

static void rminmax_read(struct rcmd *c, struct kval *v, size_t n)
{
    int *which = c->op; /* 0 min, 1 max, 2 card */
    uint64_t card = roaring_bitmap_get_cardinality(v[0].bm);
    if (*which == 2)
        rr_int(&c->r, (long long)card);
    else if (card == 0)
        rr_int(&c->r, -1);
    else
        rr_int(&c->r, *which ? roaring_bitmap_maximum(v[0].bm) : roaring_bitmap_minimum(v[0].bm));
    free(which);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

static void rstat(struct rcmd *c, int which)
{
    int *w = malloc(sizeof(*w));
    if (!w) return fail(c, "ERR out of memory");
    *w = which;
    c->op = w;
    kread1(c, 1, rminmax_read);
}

static void cmd_rmin(struct rcmd *c) { rstat(c, 0); }
static void cmd_rmax(struct rcmd *c) { rstat(c, 1); }
static void cmd_rcard(struct rcmd *c) { rstat(c, 2); }

/* ---- whole keyspace: DBSIZE SCAN KEYS ------------------------------------------------------------ */

#define EXISTS_SQL "(cardinality > 0 OR nbytes IS NOT NULL)"

struct dbsize_op {
    struct rcmd *c;
    void (*cb)(struct rcmd *c, long long n, const char *err);
};

static void dbsize_done(const struct db_result *r, void *arg)
{
    struct dbsize_op *o = arg;
    struct rcmd *c = o->c;
    void (*cb)(struct rcmd *, long long, const char *) = o->cb;
    free(o);
    if (r->status == DB_OK && PQntuples(r->res) == 1)
        cb(c, db_value_int8(r->res, 0, 0), NULL);
    else
        cb(c, -1, r->message ? r->message : "database unavailable");
}

void rkv_dbsize(struct rcmd *c, void (*cb)(struct rcmd *c, long long n, const char *err))
{
    struct dbsize_op *o = malloc(sizeof(*o));
    if (!o) return cb(c, -1, "out of memory");
    *o = (struct dbsize_op){c, cb};
    if (!store_query_folded(c->app->store, "SELECT count(*) FROM bitmapd.bitmaps WHERE " EXISTS_SQL, 0, NULL, dbsize_done,
                            o)) {
        free(o);
        cb(c, -1, "out of memory");
    }
}

static void dbsize_reply(struct rcmd *c, long long n, const char *err)
{
    if (n < 0)
        rr_error(&c->r, "ERR bitmapd: %s", err);
    else
        rr_int(&c->r, n);
    rcmd_finish(c);
}

static void cmd_dbsize(struct rcmd *c) { rkv_dbsize(c, dbsize_reply); }

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
        rr_error(&c->r, "ERR bitmapd: %s", r->message ? r->message : "database unavailable");
    } else {
        int rows = PQntuples(r->res), take = rows;
        char next[32] = "0";
        if (rows > o->count) {
            /* more remain: the next cursor is the first hash not returned; keys that
             * share it (a 60-bit collision) are all left for the next call */
            int64_t h = db_value_int8(r->res, rows - 1, 1);
            take = rows - 1;
            while (take > 0 && db_value_int8(r->res, take - 1, 1) == h) take--;
            if (take == 0) take = rows - 1; /* pathological: all equal */
            snprintf(next, sizeof(next), "%lld", (long long)h);
        }
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

/* SCAN walks keys in the order of a 60-bit hash of the key (an index of
 * migrations/0004): the cursor is a plain number, as clients expect, it needs no
 * state in the server, and any instance can continue it. */
static void cmd_scan(struct rcmd *c)
{
    struct scan_op *o = calloc(1, sizeof(*o));
    long long cursor;
    if (!o) return fail(c, "ERR out of memory");
    o->c = c;
    o->count = 10;
    o->type_ok = true;
    if (!rarg_ll(&c->argv[1], &cursor) || cursor < 0) {
        free(o);
        return fail(c, "ERR invalid cursor");
    }
    for (size_t i = 2; i < c->argc; i++) {
        bool more = i + 1 < c->argc;
        if (rarg_eq(&c->argv[i], "MATCH") && more) {
            o->match = &c->argv[++i];
            if (o->match->len == 1 && o->match->ptr[0] == '*') o->match = NULL;
        } else if (rarg_eq(&c->argv[i], "COUNT") && more) {
            if (!parse_int(c, &c->argv[++i], &o->count)) {
                free(o);
                return rcmd_finish(c);
            }
            if (o->count < 1) {
                free(o);
                return fail(c, SYNTAX);
            }
            if (o->count > 100000) o->count = 100000;
        } else if (rarg_eq(&c->argv[i], "TYPE") && more) {
            o->type_ok = rarg_eq(&c->argv[++i], "string");
        } else {
            free(o);
            return fail(c, SYNTAX);
        }
    }
    char cur[32], lim[32];
    snprintf(cur, sizeof(cur), "%lld", cursor);
    snprintf(lim, sizeof(lim), "%lld", o->count + 1);
    struct db_param p[2] = {{cur, 0, 0}, {lim, 0, 0}};
    if (!store_query_folded(c->app->store,
                  "SELECT key, bitmapd.key_hash(key) FROM bitmapd.bitmaps"
                  " WHERE bitmapd.key_hash(key) >= $1::bigint AND " EXISTS_SQL
                  " ORDER BY bitmapd.key_hash(key) LIMIT $2::int",
                  2, p, scan_done, o)) {
        free(o);
        fail(c, "ERR out of memory");
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
    int rows = PQntuples(r->res);
    for (int i = 0; i < rows; i++) {
        const char *k = PQgetvalue(r->res, i, 0);
        size_t kl = (size_t)PQgetlength(r->res, i, 0);
        if (o->prefix_len && (kl < o->prefix_len || memcmp(k, o->prefix, o->prefix_len) != 0)) return keys_end(o, NULL);
        if (!PQgetisnull(r->res, i, 1) && rproto_glob(pat->ptr, pat->len, k, kl, false)) {
            if (++o->nfound > (size_t)c->app->cfg->resp_keys_max) {
                snprintf(err, sizeof(err), "ERR bitmapd: KEYS matches more than %d keys ([resp] keys_max); use SCAN",
                         c->app->cfg->resp_keys_max);
                return keys_end(o, err);
            }
            evbuffer_add_printf(o->found, "$%zu\r\n", kl);
            evbuffer_add(o->found, k, kl);
            evbuffer_add(o->found, "\r\n", 2);
        }
        if (i == rows - 1) {
            free(o->last);
            if (!(o->last = malloc(kl + 1))) return keys_end(o, "ERR out of memory");
            memcpy(o->last, k, kl);
            o->last_len = kl;
        }
    }
    if (rows < KEYS_PAGE) return keys_end(o, NULL);
    keys_next(o);
}

static void keys_next(struct keys_op *o)
{
    struct rcmd *c = o->c;
    const uint8_t *from = o->started ? o->last : o->prefix;
    size_t from_len = o->started ? o->last_len : o->prefix_len;
    struct db_param p[2] = {{from, (int)from_len, 1}, {o->started ? "1" : "0", 0, 0}};
    o->started = true;
    /* the second column is NULL for rows that are not keys (deleted) */
    if (!store_query_folded(c->app->store,
                  "SELECT key, CASE WHEN " EXISTS_SQL " THEN 1 END FROM bitmapd.bitmaps"
                  " WHERE (key > $1::bytea OR ($2::int = 0 AND key = $1::bytea))"
                  " ORDER BY key LIMIT 1000",
                  2, p, keys_done, o))
        keys_end(o, "ERR out of memory");
}

static void cmd_keys(struct rcmd *c)
{
    struct keys_op *o = calloc(1, sizeof(*o));
    const struct rarg *pat = &c->argv[1];
    if (!o || !(o->found = evbuffer_new()) || !(o->prefix = malloc(pat->len + 1))) {
        if (o && o->found) evbuffer_free(o->found);
        free(o);
        return fail(c, "ERR out of memory");
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
    keys_next(o);
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
    WM("set", -3, cmd_set, "string", "1.0.0", "Sets the value (NX, XX, GET; no expiry)."),
    RD("strlen", 2, cmd_strlen, 1, 1, 1, "string", "2.2.0", "Returns the length of the value in bytes."),
    RD("getrange", 4, cmd_getrange, 1, 1, 1, "string", "2.4.0", "Returns a substring of the value."),
    WM("setrange", 4, cmd_setrange, "string", "2.2.0", "Overwrites part of the value at an offset."),
    WM("append", 3, cmd_append, "string", "2.0.0", "Appends to the value."),
    WR("del", -2, cmd_del, 1, -1, 1, "generic", "1.0.0", "Deletes keys."),
    WR("unlink", -2, cmd_del, 1, -1, 1, "generic", "4.0.0", "Deletes keys (same as DEL here)."),
    RD("exists", -2, cmd_exists, 1, -1, 1, "generic", "1.0.0", "Counts the keys that exist."),
    RD("type", 2, cmd_type, 1, 1, 1, "generic", "1.0.0", "string, or none."),
    WR("rename", 3, cmd_rename, 1, 2, 1, "generic", "1.0.0", "Renames a key, atomically."),
    WR("renamenx", 3, cmd_renamenx, 1, 2, 1, "generic", "1.0.0", "Renames a key if the new name is free."),
    WR("copy", -3, cmd_copy, 1, 2, 1, "generic", "6.2.0", "Copies a key (REPLACE; DB 0 only)."),
    {"scan", -2, RC_ALLKEYS, 0, 0, 0, cmd_scan, "generic", "2.8.0", "Iterates keys (MATCH, COUNT, TYPE); stateless cursor."},
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
