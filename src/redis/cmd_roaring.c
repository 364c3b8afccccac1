/* cmd_roaring.c — redis-roaring style commands (R.SETINTARRAY R.APPENDINTARRAY
 * R.GETINTARRAY R.RANGEINTARRAY R.REVRANGEINTARRAY R.MIN R.MAX R.CARD): a key as a set
 * of offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis/bitval.h"
#include "store/codec.h"
#include "core/log.h"
#include "redis/rkv_internal.h"

#define RANGE_MAX_MEMBERS 1000000 /* R.RANGEINTARRAY / R.GETINTARRAY answer at most this many */

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
    struct kval v = rkv_unit_val(u, 0);
    roaring_bitmap_t *bm = replace ? roaring_bitmap_of_ptr(x->n, x->v) : v.bm;
    if (!bm) return rkv_reject_oom(w);
    if (!replace) {
        uint64_t before = roaring_bitmap_get_cardinality(bm);
        roaring_bitmap_add_many(bm, x->n, x->v);
        if (roaring_bitmap_get_cardinality(bm) == before && v.exists) return WP_UNCHANGED;
        rkv_unit_put(u, 0, bm, u->keys[0].nbytes);
        return WP_CHANGED;
    }
    if (v.exists && roaring_bitmap_equals(bm, v.bm) && u->keys[0].nbytes < 0 && !v.expire_ms) {
        roaring_bitmap_free(bm);
        return WP_UNCHANGED;
    }
    rkv_unit_put(u, 0, bm, -1); /* as long as its members need */
    rkv_unit_set_expire(u, 0, 0); /* a value set anew, as SET without KEEPTTL */
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
    kwrite1(c, mut, rkv_reply_ok, x, ints_free);
}

void cmd_rsetintarray(struct rcmd *c) { setints(c, rset_mut); }
void cmd_rappendintarray(struct rcmd *c) { setints(c, rappend_mut); }

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

void cmd_rgetintarray(struct rcmd *c) { kread1(c, 1, rget_read); }

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
    if (!a) return rkv_fail(c, "ERR out of memory");
    a->rev = rev;
    if (!rkv_parse_int(c, &c->argv[2], &a->start) || !rkv_parse_int(c, &c->argv[3], &a->end)) {
        free(a);
        return rcmd_finish(c);
    }
    if (a->start < 0 || a->end < 0) {
        free(a);
        return rkv_fail(c, "ERR bitmapd: start and end are ranks, 0 or more");
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

void cmd_rrangeintarray(struct rcmd *c) { rrange(c, false); }
void cmd_rrevrangeintarray(struct rcmd *c) { rrange(c, true); }

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
    if (!w) return rkv_fail(c, "ERR out of memory");
    *w = which;
    c->op = w;
    kread1(c, 1, rminmax_read);
}

void cmd_rmin(struct rcmd *c) { rstat(c, 0); }
void cmd_rmax(struct rcmd *c) { rstat(c, 1); }
void cmd_rcard(struct rcmd *c) { rstat(c, 2); }
