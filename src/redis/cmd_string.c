/* cmd_string.c — the string commands: GET SET STRLEN GETRANGE SETRANGE APPEND, over a
 * value stored as the set bits of its bytes and its length (bitval.h). A command that
 * sets a value anew (SET without KEEPTTL, MSET, MSETNX, SETNX, GETSET) drops the key's
 * expiry; one that changes it in place (SETRANGE, APPEND, INCR…) keeps it, as in Redis. */
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "redis/bitval.h"
#include "store/codec.h"
#include "core/log.h"
#include "redis/rkv_internal.h"

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

void cmd_get(struct rcmd *c) { kread1(c, 1, get_read); }

static void strlen_read(struct rcmd *c, struct kval *v, size_t n)
{
    rr_int(&c->r, (long long)v[0].len);
    rcmd_finish(c);
    (void)n;
}

void cmd_strlen(struct rcmd *c) { kread1(c, 1, strlen_read); }

static void getrange_read(struct rcmd *c, struct kval *v, size_t n)
{
    long long *se = c->op;
    reply_range(c, &v[0], se[0], se[1]);
    free(se);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

void cmd_getrange(struct rcmd *c)
{
    long long *se = malloc(2 * sizeof(*se));
    if (!se) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_int(c, &c->argv[2], &se[0]) || !rkv_parse_int(c, &c->argv[3], &se[1])) {
        free(se);
        return rcmd_finish(c);
    }
    c->op = se;
    kread1(c, 1, getrange_read);
}

/* Key k of the unit becomes the string val (its bits and its length), with the
 * deadline expire_ms (0: none): a value set anew drops the old one's expiry, as
 * Redis's setKey() does unless SET … KEEPTTL. */
static enum wp_mutation put_value(struct kwrite *w, struct wp_unit *u, int k, const struct rarg *val, int64_t expire_ms)
{
    roaring_bitmap_t *bm = bv_from_bytes((const uint8_t *)val->ptr, val->len);
    if (!bm) return rkv_reject_oom(w);
    rkv_unit_put(u, k, bm, (int64_t)val->len);
    rkv_unit_set_expire(u, k, expire_ms);
    return WP_CHANGED;
}

struct set_args {
    struct xs_opts o;
    struct old_value old; /* with GET */
    bool done_set;
};

/* Redis's setGenericCommand() after its argument checks: GET's old value, then NX/XX,
 * then the value with its deadline. */
static enum wp_mutation set_mut(struct kwrite *w, struct wp_unit *u)
{
    struct set_args *a = w->extra;
    struct kval v = rkv_unit_val(u, 0);
    int64_t now = wall_ms(), deadline = 0;
    bool exists = rkv_live(&v, now);

    if ((a->o.flags & XS_GET) && !rkv_take_value(w, &a->old, &v, exists)) return WP_REJECT;
    a->done_set = !(((a->o.flags & XS_NX) && exists) || ((a->o.flags & XS_XX) && !exists));
    if (!a->done_set) return WP_UNCHANGED;
    if (a->o.flags & XS_KEEPTTL) deadline = exists ? v.expire_ms : 0;
    if ((a->o.flags & XS_TIME) && rkv_xs_deadline(w->c, &a->o, now, &deadline, w->err, sizeof(w->err)))
        return WP_REJECT; /* checked in cmd_set(): only past 2^63-1 ms since then */
    if ((a->o.flags & (XS_EXAT | XS_PXAT)) && deadline <= now) {
        /* Redis stores the value and its deadline, and the key reads as absent at once:
         * deleting it answers the same and leaves no dead value to later writes */
        if (!v.exists) return WP_UNCHANGED;
        if (!rkv_unit_delete(u, 0)) return rkv_reject_oom(w);
        return WP_CHANGED;
    }
    return put_value(w, u, 0, &w->c->argv[2], deadline);
}

static void set_reply(struct kwrite *w)
{
    struct set_args *a = w->extra;
    if (a->o.flags & XS_GET)
        rkv_reply_value(w->c, &a->old);
    else if (a->done_set)
        rr_simple(&w->c->r, "OK");
    else
        rr_nil(&w->c->r);
}

static void set_args_free(void *arg)
{
    struct set_args *a = arg;
    free(a->old.bytes);
    free(a);
}

/* The time is checked before anything about the key, as Redis does. */
void cmd_set(struct rcmd *c)
{
    struct set_args *a = calloc(1, sizeof(*a));
    char err[128];
    int64_t deadline;
    if (!a) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_xs(c, true, &a->o)) {
        free(a);
        return rcmd_finish(c);
    }
    if ((a->o.flags & XS_TIME) && rkv_xs_deadline(c, &a->o, wall_ms(), &deadline, err, sizeof(err))) {
        free(a);
        return rkv_fail(c, err);
    }
    kwrite1(c, set_mut, set_reply, a, set_args_free);
}

static enum wp_mutation setrange_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[3];
    long long *off = w->extra;
    struct kval v = rkv_unit_val(u, 0);

    if (val->len == 0) { /* Redis neither creates nor pads */
        w->n = (long long)v.len;
        return WP_UNCHANGED;
    }
    if ((uint64_t)*off + val->len > BV_MAX_BYTES) {
        snprintf(w->err, sizeof(w->err), "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return WP_REJECT;
    }
    uint64_t len = v.len;
    if (!bv_setrange(v.bm, &len, (uint64_t)*off, (const uint8_t *)val->ptr, val->len)) return rkv_reject_oom(w);
    w->n = (long long)len;
    rkv_unit_put(u, 0, v.bm, (int64_t)len);
    wp_key_narrow(&u->keys[0], (uint64_t)*off * 8, ((uint64_t)*off + val->len) * 8 - 1);
    return WP_CHANGED;
}

void cmd_setrange(struct rcmd *c)
{
    long long *off = malloc(sizeof(*off));
    if (!off) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_int(c, &c->argv[2], off)) {
        free(off);
        return rcmd_finish(c);
    }
    if (*off < 0) {
        free(off);
        return rkv_fail(c, "ERR offset is out of range");
    }
    kwrite1(c, setrange_mut, rkv_reply_n, off, NULL);
}

static enum wp_mutation append_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[2];
    struct kval v = rkv_unit_val(u, 0);
    uint64_t len = v.len;

    if (len + val->len > BV_MAX_BYTES) {
        snprintf(w->err, sizeof(w->err), "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return WP_REJECT;
    }
    if (!bv_setrange(v.bm, &len, len, (const uint8_t *)val->ptr, val->len)) return rkv_reject_oom(w);
    w->n = (long long)len;
    if (v.exists && val->len == 0) return WP_UNCHANGED;
    rkv_unit_put(u, 0, v.bm, (int64_t)len); /* APPEND creates the key, even with "" */
    return WP_CHANGED;
}

void cmd_append(struct rcmd *c) { kwrite1(c, append_mut, rkv_reply_n, NULL, NULL); }

/* ---- many keys: MGET MSET MSETNX --------------------------------------------------------- */

static char msetnx_flag;                           /* MSET's extra: NULL; MSETNX's: this */
static void keep_static(void *arg) { (void)arg; } /* extra that points to static data */

static void mget_read(struct rcmd *c, struct kval *v, size_t n)
{
    rr_array(&c->r, n);
    for (size_t i = 0; i < n; i++) {
        if (!v[i].exists)
            rr_nil(&c->r);
        else
            reply_range(c, &v[i], 0, -1); /* an error in place of that key's value past the cap */
    }
    rcmd_finish(c);
}

void cmd_mget(struct rcmd *c)
{
    const struct rarg **keys = malloc(c->argc * sizeof(*keys));
    if (!keys) return rkv_fail(c, "ERR out of memory");
    for (size_t i = 1; i < c->argc; i++) keys[i - 1] = &c->argv[i];
    kread(c, keys, c->argc - 1, mget_read);
    free(keys);
}

/* MSET and MSETNX: every key:value pair in one unit, so they commit together; a key
 * named twice takes its last value, as in Redis. extra: true for MSETNX. */
static enum wp_mutation mset_mut(struct kwrite *w, struct wp_unit *u)
{
    bool nx = w->extra != NULL;
    w->n = 1;
    int64_t now = wall_ms();
    if (nx)
        for (size_t i = 1; i < w->c->argc; i += 2) {
            struct kval v = rkv_unit_val(u, w->slot[i]);
            if (rkv_live(&v, now)) {
                w->n = 0; /* MSETNX sets nothing when any key exists */
                return WP_UNCHANGED;
            }
        }
    /* every value built before any is put: a failure leaves the unit as it was loaded */
    size_t n = (w->c->argc - 1) / 2;
    roaring_bitmap_t **bms = calloc(n, sizeof(*bms));
    for (size_t j = 0; bms && j < n; j++) {
        const struct rarg *val = &w->c->argv[2 + 2 * j];
        if (!(bms[j] = bv_from_bytes((const uint8_t *)val->ptr, val->len))) {
            while (j > 0) roaring_bitmap_free(bms[--j]);
            free(bms);
            bms = NULL;
        }
    }
    if (!bms) return rkv_reject_oom(w);
    for (size_t j = 0; j < n; j++) {
        rkv_unit_put(u, w->slot[1 + 2 * j], bms[j], (int64_t)w->c->argv[2 + 2 * j].len);
        rkv_unit_set_expire(u, w->slot[1 + 2 * j], 0); /* a value set anew: no expiry */
    }
    free(bms);
    return WP_CHANGED;
}

static void mset(struct rcmd *c, bool nx)
{
    size_t n = (c->argc - 1) / 2, *args;
    if (c->argc % 2 == 0) { /* a key without its value */
        rr_error(&c->r, "ERR wrong number of arguments for '%s' command", nx ? "msetnx" : "mset");
        return rcmd_finish(c);
    }
    if (!(args = malloc(n * sizeof(*args)))) return rkv_fail(c, "ERR out of memory");
    for (size_t i = 0; i < n; i++) args[i] = 1 + 2 * i;
    kwrite_ex(c, args, n, mset_mut, nx ? rkv_reply_n : rkv_reply_ok, nx ? &msetnx_flag : NULL, keep_static);
    free(args);
}

void cmd_mset(struct rcmd *c) { mset(c, false); }
void cmd_msetnx(struct rcmd *c) { mset(c, true); }

/* ---- one key: SETNX GETSET GETDEL ---------------------------------------------------------- */

/* SETNX key value: SET … NX answering 1 or 0 */
static enum wp_mutation setnx_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[2];
    struct kval v = rkv_unit_val(u, 0);
    w->n = 0;
    if (rkv_live(&v, wall_ms())) return WP_UNCHANGED;
    w->n = 1;
    return put_value(w, u, 0, val, 0);
}

void cmd_setnx(struct rcmd *c) { kwrite1(c, setnx_mut, rkv_reply_n, NULL, NULL); }

static void old_value_free(void *arg)
{
    struct old_value *o = arg;
    free(o->bytes);
    free(o);
}

bool rkv_take_value(struct kwrite *w, struct old_value *o, const struct kval *v, bool exists)
{
    free(o->bytes);
    o->bytes = NULL;
    o->len = 0;
    o->exists = exists;
    if (exists &&
        !bv_getrange(v->bm, v->len, 0, -1, (size_t)w->c->app->cfg->resp_max_value_bytes, &o->bytes, &o->len)) {
        snprintf(w->err, sizeof(w->err), "%s",
                 o->len > (size_t)w->c->app->cfg->resp_max_value_bytes
                     ? "ERR bitmapd: the value is larger than [resp] max_value_bytes; nothing was changed"
                     : "ERR out of memory");
        return false;
    }
    return true;
}

void rkv_reply_value(struct rcmd *c, const struct old_value *o)
{
    if (o->exists)
        rr_bulk(&c->r, o->bytes, o->len);
    else
        rr_nil(&c->r);
}

static void reply_old(struct kwrite *w) { rkv_reply_value(w->c, w->extra); }

/* GETSET key value: SET … GET */
static enum wp_mutation getset_mut(struct kwrite *w, struct wp_unit *u)
{
    const struct rarg *val = &w->c->argv[2];
    struct kval v = rkv_unit_val(u, 0);
    if (!rkv_take_value(w, w->extra, &v, rkv_live(&v, wall_ms()))) return WP_REJECT;
    return put_value(w, u, 0, val, 0);
}

/* GETDEL key: the value, and the key deleted (as DEL: emptied, never removed) */
static enum wp_mutation getdel_mut(struct kwrite *w, struct wp_unit *u)
{
    struct kval v = rkv_unit_val(u, 0);
    if (!rkv_take_value(w, w->extra, &v, rkv_live(&v, wall_ms()))) return WP_REJECT;
    if (!v.exists) return WP_UNCHANGED;
    if (!rkv_unit_delete(u, 0)) return rkv_reject_oom(w);
    return WP_CHANGED;
}

static void old_value_write(struct rcmd *c, kmut_fn *mut)
{
    struct old_value *o = calloc(1, sizeof(*o));
    if (!o) return rkv_fail(c, "ERR out of memory");
    kwrite1(c, mut, reply_old, o, old_value_free);
}

void cmd_getset(struct rcmd *c) { old_value_write(c, getset_mut); }
void cmd_getdel(struct rcmd *c) { old_value_write(c, getdel_mut); }

/* ---- counters: INCR DECR INCRBY DECRBY ---------------------------------------------------------
 * The value is a base-10 signed 64-bit integer as Redis writes it (string2ll: no
 * sign but '-', no leading zero, no space); a missing key is 0. The result is
 * stored as its decimal text. */

#define LONG_STR_MAX 21 /* "-9223372036854775808" and a NUL */

static enum wp_mutation incr_mut(struct kwrite *w, struct wp_unit *u)
{
    long long by = *(long long *)w->extra, cur = 0;
    struct kval v = rkv_unit_val(u, 0);

    if (v.exists) {
        uint8_t *buf = NULL;
        size_t n = 0;
        bool ok = v.len < LONG_STR_MAX && bv_getrange(v.bm, v.len, 0, -1, LONG_STR_MAX, &buf, &n) &&
                  rproto_string2ll((const char *)buf, n, &cur);
        free(buf);
        if (!ok) {
            snprintf(w->err, sizeof(w->err), "ERR value is not an integer or out of range");
            return WP_REJECT;
        }
    }
    if ((by < 0 && cur < 0 && by < LLONG_MIN - cur) || (by > 0 && cur > 0 && by > LLONG_MAX - cur)) {
        snprintf(w->err, sizeof(w->err), "ERR increment or decrement would overflow");
        return WP_REJECT;
    }
    char text[LONG_STR_MAX];
    int len = snprintf(text, sizeof(text), "%lld", cur + by);
    roaring_bitmap_t *bm = bv_from_bytes((const uint8_t *)text, (size_t)len);
    if (!bm) return rkv_reject_oom(w);
    rkv_unit_put(u, 0, bm, len);
    w->n = cur + by;
    return WP_CHANGED;
}

static void incr(struct rcmd *c, long long by)
{
    long long *arg = malloc(sizeof(*arg));
    if (!arg) return rkv_fail(c, "ERR out of memory");
    *arg = by;
    kwrite1(c, incr_mut, rkv_reply_n, arg, NULL);
}

void cmd_incr(struct rcmd *c) { incr(c, 1); }
void cmd_decr(struct rcmd *c) { incr(c, -1); }

void cmd_incrby(struct rcmd *c)
{
    long long by;
    if (!rkv_parse_int(c, &c->argv[2], &by)) return rcmd_finish(c);
    incr(c, by);
}

void cmd_decrby(struct rcmd *c)
{
    long long by;
    if (!rkv_parse_int(c, &c->argv[2], &by)) return rcmd_finish(c);
    if (by == LLONG_MIN) return rkv_fail(c, "ERR decrement would overflow");
    incr(c, -by);
}
