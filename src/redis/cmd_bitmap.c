/* cmd_bitmap.c — the bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO,
 * each Redis-exact over a key seen as bits (bitval.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis/bitval.h"
#include "store/bucket.h"
#include "store/codec.h"
#include "core/log.h"
#include "redis/rkv_internal.h"

/* ---- SETBIT / GETBIT --------------------------------------------------------------------- */

struct setbit_args {
    uint32_t off;
    bool on;
};

static enum wp_mutation setbit_mut(struct kwrite *w, struct wp_unit *u)
{
    struct setbit_args *a = w->extra;
    struct kval v = rkv_unit_val(u, 0);
    uint64_t need = (uint64_t)a->off / 8 + 1;
    bool old = roaring_bitmap_contains(v.bm, a->off);
    w->n = old;
    if (old == a->on && v.exists && v.len >= need) return WP_UNCHANGED;
    if (a->on)
        roaring_bitmap_add(v.bm, a->off);
    else
        roaring_bitmap_remove(v.bm, a->off);
    rkv_unit_put(u, 0, v.bm, (int64_t)(v.len > need ? v.len : need));
    if (old != a->on)
        wp_key_flipped(&u->keys[0], a->off);
    else /* only the length grew */
        wp_key_narrow(&u->keys[0], a->off, a->off);
    return WP_CHANGED;
}

void cmd_setbit(struct rcmd *c)
{
    struct setbit_args a;
    long long on;
    if (!rkv_parse_bit_offset(c, &c->argv[2], &a.off)) return rcmd_finish(c);
    if (!rarg_ll(&c->argv[3], &on) || (on != 0 && on != 1))
        return rkv_fail(c, "ERR bit is not an integer or out of range");
    a.on = on;
    struct setbit_args *x = malloc(sizeof(*x));
    if (!x) return rkv_fail(c, "ERR out of memory");
    *x = a;
    kwrite1(c, setbit_mut, rkv_reply_n, x, NULL);
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

    if (key->len > (size_t)c->app->cfg->resp_max_key_bytes ||
        bucket_name_family(sk.key, sk.len) != BUCKET_NONE || !store_peek(c->app->store, &sk, 1, &row, &held))
        return false;
    ok = !row.found || (row.checked && codec_contains(row.bits, row.len, off, &member));
    store_peek_release(&held, 1);
    if (ok) rr_int(&c->r, member);
    return ok;
}

void cmd_getbit(struct rcmd *c)
{
    uint32_t *off = malloc(sizeof(*off));
    if (!off) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_bit_offset(c, &c->argv[2], off)) {
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
        rr_error(&c->r, RKV_SYNTAX);
    else
        rr_int(&c->r, a->unit_err ? 0 : (long long)bv_bitcount(v[0].bm, v[0].len, a->ranged, a->start, a->end, a->bit_unit));
    free(a);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

void cmd_bitcount(struct rcmd *c)
{
    struct range_args *a = calloc(1, sizeof(*a));
    if (!a) return rkv_fail(c, "ERR out of memory");
    if (c->argc == 4 || c->argc == 5) {
        a->ranged = true;
        range_int(a, &c->argv[2], &a->start);
        range_int(a, &c->argv[3], &a->end);
        if (c->argc == 5) range_unit(a, &c->argv[4]);
    } else if (c->argc != 2) {
        a->err = RKV_SYNTAX;
    }
    c->op = a;
    kread1(c, 1, bitcount_read);
}

static void bitpos_read(struct rcmd *c, struct kval *v, size_t n)
{
    struct range_args *a = c->op;
    if (v[0].exists && (a->err || a->unit_err))
        rr_error(&c->r, "%s", a->err ? a->err : RKV_SYNTAX);
    else
        rr_int(&c->r, (long long)bv_bitpos(v[0].bm, v[0].len, v[0].exists, a->bit, a->has_start, a->start,
                                           a->has_end, a->end, a->bit_unit));
    free(a);
    c->op = NULL;
    rcmd_finish(c);
    (void)n;
}

void cmd_bitpos(struct rcmd *c)
{
    struct range_args *a = calloc(1, sizeof(*a));
    long long bit;
    if (!a) return rkv_fail(c, "ERR out of memory");
    if (!rkv_parse_int(c, &c->argv[2], &bit)) {
        free(a);
        return rcmd_finish(c);
    }
    if (bit != 0 && bit != 1) {
        free(a);
        return rkv_fail(c, "ERR The bit argument must be 1 or 0.");
    }
    a->bit = (int)bit;
    if (c->argc > 6) a->err = RKV_SYNTAX;
    if (c->argc >= 4) {
        a->has_start = true;
        range_int(a, &c->argv[3], &a->start);
    }
    if (c->argc == 6) { /* Redis reads the unit before the end */
        range_unit(a, &c->argv[5]);
        if (a->unit_err && !a->err) a->err = RKV_SYNTAX;
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
        struct kval v = rkv_unit_val(u, w->slot[3 + i]);
        srcs[i] = v.bm;
        lens[i] = v.len;
    }
    if (!(res = bv_bitop(*op, srcs, lens, n, &out_len))) goto oom;
    free(srcs);
    free(lens);
    w->n = (long long)out_len;
    if (out_len == 0) { /* Redis deletes the destination */
        roaring_bitmap_free(res);
        if (!rkv_unit_val(u, dest).exists) return WP_UNCHANGED;
        return rkv_unit_delete(u, dest) ? WP_CHANGED : WP_REJECT;
    }
    rkv_unit_put(u, dest, res, (int64_t)out_len);
    rkv_unit_set_expire(u, dest, 0); /* a value set anew: Redis's setKey() drops the expiry */
    return WP_CHANGED;
oom:
    free(srcs);
    free(lens);
    return rkv_reject_oom(w);
}

void cmd_bitop(struct rcmd *c)
{
    static const struct {
        const char *name;
        enum bv_op op;
    } ops[] = {{"AND", BV_AND},   {"OR", BV_OR},       {"XOR", BV_XOR},     {"NOT", BV_NOT},
               {"DIFF", BV_DIFF}, {"DIFF1", BV_DIFF1}, {"ANDOR", BV_ANDOR}, {"ONE", BV_ONE}};
    enum bv_op *op = malloc(sizeof(*op));
    size_t i, nsrc = c->argc - 3;
    if (!op) return rkv_fail(c, "ERR out of memory");
    for (i = 0; i < ARRAY_LEN(ops); i++)
        if (rarg_eq(&c->argv[1], ops[i].name)) break;
    if (i == ARRAY_LEN(ops)) {
        free(op);
        return rkv_fail(c, RKV_SYNTAX);
    }
    *op = ops[i].op;
    if (*op == BV_NOT && nsrc != 1) {
        free(op);
        return rkv_fail(c, "ERR BITOP NOT must be called with a single source key.");
    }
    if ((*op == BV_DIFF || *op == BV_DIFF1 || *op == BV_ANDOR) && nsrc < 2) {
        rr_error(&c->r, "ERR BITOP %s must be called with at least two source keys.", ops[i].name);
        free(op);
        return rcmd_finish(c);
    }
    size_t *args = malloc((nsrc + 1) * sizeof(*args));
    if (!args) {
        free(op);
        return rkv_fail(c, "ERR out of memory");
    }
    for (size_t k = 0; k <= nsrc; k++) args[k] = 2 + k;
    kwrite(c, args, nsrc + 1, bitop_mut, rkv_reply_n, op);
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
    struct kval v = rkv_unit_val(u, 0);
    uint64_t len = v.len > s->end ? v.len : s->end; /* Redis grows the key first, even if every op FAILs */
    bool grew = !v.exists || len != v.len;
    bool changed = bf_run(s, v.bm, &len);
    if (!changed && !grew) return WP_UNCHANGED;
    rkv_unit_put(u, 0, v.bm, (int64_t)len);
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

    if (!s) return rkv_fail(c, "ERR out of memory");
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
                return rkv_fail(c, "ERR Invalid OVERFLOW type specified");
            }
            i += 2;
            continue;
        } else {
            bf_free(s);
            return rkv_fail(c, RKV_SYNTAX);
        }
        struct bf_op *o = &s->ops[s->nops];
        o->kind = kind;
        o->ov = ov;
        if (!bv_parse_type(c->argv[i + 1].ptr, c->argv[i + 1].len, &o->t)) {
            bf_free(s);
            return rkv_fail(c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
        }
        if (!bv_parse_offset(c->argv[i + 2].ptr, c->argv[i + 2].len, &o->t, &o->off)) {
            bf_free(s);
            return rkv_fail(c, "ERR bit offset is not an integer or out of range");
        }
        if (kind != BF_GET) {
            long long x;
            if (!rkv_parse_int(c, &c->argv[i + 3], &x)) {
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
        return rkv_fail(c, "ERR BITFIELD_RO only supports the GET subcommand");
    }
    if (s->past_end) { /* Redis would grow the value past 512 MB; a bitmap ends at bit 2^32-1 */
        bf_free(s);
        return rkv_fail(c, "ERR bitmapd: a BITFIELD SET or INCRBY must end by bit offset 4294967295");
    }
    if (s->writes) {
        kwrite1(c, bitfield_mut, bitfield_reply, s, bf_free);
        return;
    }
    c->op = s;
    kread1(c, 1, bitfield_read);
}

void cmd_bitfield(struct rcmd *c) { bitfield(c, false); }
void cmd_bitfield_ro(struct rcmd *c) { bitfield(c, true); }
