/* cmd_expire.c — the expiry commands: EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL
 * EXPIRETIME PEXPIRETIME PERSIST GETEX, and the options SET shares with GETEX.
 *
 * A key's deadline is kept in its row, in ms since the Unix epoch as Redis keeps it
 * (struct kval's expire_ms, 0 for none). The store hands out a key past its deadline
 * as empty, so every command finds it absent, on every instance, from that ms on.
 * A deadline at or before now is never stored: the key is deleted instead, as Redis
 * does for EXPIRE and GETEX (and SET … PXAT in the past, which Redis stores, reads the
 * same: cmd_string.c), so a write leaves a live key or none. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "redis/rkv_internal.h"

#define ERR_NOT_INT "ERR value is not an integer or out of range"

static const char *invalid_expire(const struct rcmd *c, char *buf, size_t n)
{
    snprintf(buf, n, "ERR invalid expire time in '%s' command", c->def->name);
    return buf;
}

/* ---- the options of SET and GETEX --------------------------------------------------- */

static unsigned time_flag(const struct rarg *a)
{
    if (rarg_eq(a, "EX")) return XS_EX;
    if (rarg_eq(a, "PX")) return XS_PX;
    if (rarg_eq(a, "EXAT")) return XS_EXAT;
    if (rarg_eq(a, "PXAT")) return XS_PXAT;
    return 0;
}

bool rkv_parse_xs(struct rcmd *c, bool for_set, struct xs_opts *o)
{
    *o = (struct xs_opts){0};
    for (size_t i = for_set ? 3 : 2; i < c->argc; i++) {
        const struct rarg *a = &c->argv[i];
        unsigned f = 0, excludes = 0;
        if (for_set && rarg_eq(a, "NX")) {
            f = XS_NX;
            excludes = XS_XX;
        } else if (for_set && rarg_eq(a, "XX")) {
            f = XS_XX;
            excludes = XS_NX;
        } else if (for_set && rarg_eq(a, "GET")) {
            f = XS_GET;
        } else if (for_set && rarg_eq(a, "KEEPTTL")) {
            f = XS_KEEPTTL;
            excludes = XS_TIME;
        } else if (!for_set && rarg_eq(a, "PERSIST")) {
            f = XS_PERSIST;
            excludes = XS_TIME;
        } else if (i + 1 < c->argc && (f = time_flag(a))) {
            excludes = (XS_TIME & ~f) | XS_KEEPTTL | XS_PERSIST; /* EX 1 EX 2: the last wins */
        }
        if (!f || (o->flags & excludes)) {
            rr_error(&c->r, RKV_SYNTAX);
            return false;
        }
        o->flags |= f;
        if (f & XS_TIME) o->time = &c->argv[++i];
    }
    return true;
}

/* Redis's order of checks: an integer; above 0 and, in seconds, convertible to ms;
 * for EX and PX, now added without passing 2^63-1. */
const char *rkv_xs_deadline(const struct rcmd *c, const struct xs_opts *o, int64_t now, int64_t *deadline, char *buf,
                            size_t n)
{
    long long v;
    bool seconds = o->flags & (XS_EX | XS_EXAT), relative = o->flags & (XS_EX | XS_PX);
    if (!rarg_ll(o->time, &v)) {
        snprintf(buf, n, "%s", ERR_NOT_INT);
        return buf;
    }
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) return invalid_expire(c, buf, n);
    if (seconds) v *= 1000;
    if (relative) {
        if (v > LLONG_MAX - now) return invalid_expire(c, buf, n);
        v += now;
    }
    *deadline = v;
    return NULL;
}

/* ---- EXPIRE PEXPIRE EXPIREAT PEXPIREAT ----------------------------------------------- */

enum { EXP_NX = 1, EXP_XX = 2, EXP_GT = 4, EXP_LT = 8 };

struct expire_args {
    unsigned flags;
    long long ms;  /* the time argument in ms */
    bool relative; /* EXPIRE, PEXPIRE: from now */
};

/* ms + now for EXPIRE and PEXPIRE; NULL or the error. */
static const char *expire_when(const struct rcmd *c, const struct expire_args *a, int64_t now, int64_t *when, char *buf,
                               size_t n)
{
    int64_t base = a->relative ? now : 0;
    if (a->ms > LLONG_MAX - base) return invalid_expire(c, buf, n);
    *when = a->ms + base;
    return NULL;
}

/* The flags and the time, in Redis 7.0's order: every option (unknown ones first),
 * then their combinations, then the number. */
static bool expire_parse(struct rcmd *c, bool seconds, bool relative, struct expire_args *a)
{
    static const struct {
        const char *word;
        unsigned flag;
    } opts[] = {{"NX", EXP_NX}, {"XX", EXP_XX}, {"GT", EXP_GT}, {"LT", EXP_LT}};
    char buf[128];
    int64_t when;

    *a = (struct expire_args){.relative = relative};
    for (size_t i = 3; i < c->argc; i++) {
        size_t j = 0;
        while (j < ARRAY_LEN(opts) && !rarg_eq(&c->argv[i], opts[j].word)) j++;
        if (j == ARRAY_LEN(opts)) {
            rr_error(&c->r, "ERR Unsupported option %s", c->argv[i].ptr);
            return false;
        }
        a->flags |= opts[j].flag;
    }
    if ((a->flags & EXP_NX) && (a->flags & (EXP_XX | EXP_GT | EXP_LT))) {
        rr_error(&c->r, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return false;
    }
    if ((a->flags & EXP_GT) && (a->flags & EXP_LT)) {
        rr_error(&c->r, "ERR GT and LT options at the same time are not compatible");
        return false;
    }
    if (!rkv_parse_int(c, &c->argv[2], &a->ms)) return false;
    if (seconds) {
        if (a->ms > LLONG_MAX / 1000 || a->ms < LLONG_MIN / 1000) {
            rr_error(&c->r, "%s", invalid_expire(c, buf, sizeof(buf)));
            return false;
        }
        a->ms *= 1000;
    }
    /* checked here, before the key is looked at, as Redis does; the deadline itself is
     * taken in the mutation, at the time it runs */
    const char *err = expire_when(c, a, wall_ms(), &when, buf, sizeof(buf));
    if (err) rr_error(&c->r, "%s", err);
    return !err;
}

/* Does the condition of NX/XX/GT/LT hold for a new deadline `when` over `cur` (-1:
 * none)? GT takes no deadline as infinite; LT too, yet sets one. */
static bool expire_allowed(unsigned flags, int64_t cur, int64_t when)
{
    if ((flags & EXP_NX) && cur != -1) return false;
    if ((flags & EXP_XX) && cur == -1) return false;
    if ((flags & EXP_GT) && (cur == -1 || when <= cur)) return false;
    if ((flags & EXP_LT) && cur != -1 && when >= cur) return false;
    return true;
}

static enum wp_mutation expire_mut(struct kwrite *w, struct wp_unit *u)
{
    struct expire_args *a = w->extra;
    struct kval v = rkv_unit_val(u, 0);
    int64_t now = wall_ms(), when;

    w->n = 0;
    if (expire_when(w->c, a, now, &when, w->err, sizeof(w->err))) return WP_REJECT;
    if (!rkv_live(&v, now) || !expire_allowed(a->flags, v.expire_ms ? v.expire_ms : -1, when)) return WP_UNCHANGED;
    w->n = 1;
    if (when <= now) /* a deadline already passed deletes the key */
        return rkv_unit_delete(u, 0) ? WP_CHANGED : rkv_reject_oom(w);
    if (when == v.expire_ms) return WP_UNCHANGED; /* answered 1, as Redis does; nothing to write */
    rkv_unit_set_expire(u, 0, when);
    return WP_CHANGED;
}

static void expire_generic(struct rcmd *c, bool seconds, bool relative)
{
    struct expire_args *a = malloc(sizeof(*a));
    if (!a) return rkv_fail(c, "ERR out of memory");
    if (!expire_parse(c, seconds, relative, a)) {
        free(a);
        return rcmd_finish(c);
    }
    kwrite1(c, expire_mut, rkv_reply_n, a, NULL);
}

void cmd_expire(struct rcmd *c) { expire_generic(c, true, true); }
void cmd_pexpire(struct rcmd *c) { expire_generic(c, false, true); }
void cmd_expireat(struct rcmd *c) { expire_generic(c, true, false); }
void cmd_pexpireat(struct rcmd *c) { expire_generic(c, false, false); }

/* ---- TTL PTTL EXPIRETIME PEXPIRETIME -------------------------------------------------- */

/* -2 for no key, -1 for no deadline; else the time left (at least 0) or the deadline
 * itself, in ms or in seconds rounded to the nearest. */
static void ttl_reply(struct rcmd *c, const struct kval *v, bool ms, bool absolute)
{
    long long t;
    if (!v->exists) {
        t = -2;
    } else if (!v->expire_ms) {
        t = -1;
    } else {
        t = absolute ? v->expire_ms : v->expire_ms - wall_ms();
        if (t < 0) t = 0;
        if (!ms) t = (long long)(((uint64_t)t + 500) / 1000); /* a deadline near 2^63 too, as Redis */
    }
    rr_int(&c->r, t);
    rcmd_finish(c);
}

static void ttl_read(struct rcmd *c, struct kval *v, size_t n)
{
    ttl_reply(c, &v[0], false, false);
    (void)n;
}

static void pttl_read(struct rcmd *c, struct kval *v, size_t n)
{
    ttl_reply(c, &v[0], true, false);
    (void)n;
}

static void expiretime_read(struct rcmd *c, struct kval *v, size_t n)
{
    ttl_reply(c, &v[0], false, true);
    (void)n;
}

static void pexpiretime_read(struct rcmd *c, struct kval *v, size_t n)
{
    ttl_reply(c, &v[0], true, true);
    (void)n;
}

void cmd_ttl(struct rcmd *c) { kread1(c, 1, ttl_read); }
void cmd_pttl(struct rcmd *c) { kread1(c, 1, pttl_read); }
void cmd_expiretime(struct rcmd *c) { kread1(c, 1, expiretime_read); }
void cmd_pexpiretime(struct rcmd *c) { kread1(c, 1, pexpiretime_read); }

/* ---- PERSIST ------------------------------------------------------------------------ */

static enum wp_mutation persist_mut(struct kwrite *w, struct wp_unit *u)
{
    struct kval v = rkv_unit_val(u, 0);
    w->n = rkv_live(&v, wall_ms()) && v.expire_ms;
    if (!w->n) return WP_UNCHANGED;
    rkv_unit_set_expire(u, 0, 0);
    return WP_CHANGED;
}

void cmd_persist(struct rcmd *c) { kwrite1(c, persist_mut, rkv_reply_n, NULL, NULL); }

/* ---- GETEX -------------------------------------------------------------------------- */

struct getex_args {
    struct xs_opts o;
    struct old_value val;
};

static void getex_args_free(void *arg)
{
    struct getex_args *a = arg;
    free(a->val.bytes);
    free(a);
}

/* Redis's order: a missing key answers nil whatever the time says; then the time is
 * checked; then the value is answered and the expiry changed. */
static enum wp_mutation getex_mut(struct kwrite *w, struct wp_unit *u)
{
    struct getex_args *a = w->extra;
    struct kval v = rkv_unit_val(u, 0);
    int64_t now = wall_ms(), deadline = 0;

    if (!rkv_live(&v, now)) return rkv_take_value(w, &a->val, &v, false) ? WP_UNCHANGED : WP_REJECT;
    if ((a->o.flags & XS_TIME) && rkv_xs_deadline(w->c, &a->o, now, &deadline, w->err, sizeof(w->err)))
        return WP_REJECT;
    if (!rkv_take_value(w, &a->val, &v, true)) return WP_REJECT;
    if (a->o.flags & XS_PERSIST) deadline = 0;
    else if (!(a->o.flags & XS_TIME)) return WP_UNCHANGED; /* GETEX k: GET */
    if ((a->o.flags & (XS_EXAT | XS_PXAT)) && deadline <= now)
        return rkv_unit_delete(u, 0) ? WP_CHANGED : rkv_reject_oom(w);
    if (deadline == v.expire_ms) return WP_UNCHANGED;
    rkv_unit_set_expire(u, 0, deadline);
    return WP_CHANGED;
}

static void getex_reply(struct kwrite *w)
{
    struct getex_args *a = w->extra;
    rkv_reply_value(w->c, &a->val);
}

void cmd_getex(struct rcmd *c)
{
    struct getex_args *a = calloc(1, sizeof(*a));
    if (!a) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_xs(c, false, &a->o)) {
        free(a);
        return rcmd_finish(c);
    }
    kwrite1(c, getex_mut, getex_reply, a, getex_args_free);
}
