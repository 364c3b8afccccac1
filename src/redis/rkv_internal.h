/* rkv_internal.h — what the data-command files (rkv.c and cmd_*.c) share: a key's
 * value as read, the read path (kread: load, decode, answer) and the write path
 * (kwrite: one write-path unit over the command's keys, answered after its commit),
 * the argument rules with Redis's error texts, and each file's commands for the
 * table in rkv.c. Not for use outside the RESP command files. */
#ifndef BITMAPD_RKV_INTERNAL_H
#define BITMAPD_RKV_INTERNAL_H

#include <roaring/roaring.h>

#include "redis/rkv.h"
#include "store/wpath.h"

/* The value of one key: its bits, Redis length and whether it exists. */
struct kval {
    roaring_bitmap_t *bm; /* never NULL (empty for a missing key) */
    uint64_t len;
    bool exists;
    int64_t expire_ms; /* deadline, ms since the Unix epoch; 0: none (an existing key only) */
};

/* A read's continuation: the values of the keys asked, in order (freed after it
 * returns); it replies and calls rcmd_finish(). */
typedef void kread_fn(struct rcmd *c, struct kval *v, size_t n);

/* A write in flight: mut() changes the unit under the write path, reply() answers
 * after the commit. */
struct kwrite;
typedef enum wp_mutation kmut_fn(struct kwrite *w, struct wp_unit *u);
typedef void kreply_fn(struct kwrite *w);

struct kwrite {
    struct rcmd *c;
    struct wpath *wp;
    kmut_fn *mut;
    kreply_fn *reply;
    int *slot;     /* argument position → unit key index (or -1): slot_buf, or allocated */
    int slot_buf[8];
    long long n;   /* a result the reply uses */
    char err[200]; /* set by mut() with WP_REJECT */
    void *extra;   /* the command's own state */
    void (*extra_free)(void *);
};

#define RKV_SYNTAX "ERR syntax error"

/* A key exists when it has a member or an explicit length. */
bool rkv_exists(const roaring_bitmap_t *bm, int64_t nbytes);
/* Key length and count limits; answers the error itself. */
bool rkv_keys_ok(struct rcmd *c, const struct rarg *const *keys, size_t n);

/* Loads keys (no row is created) and calls fn with their values, or answers the
 * error itself. c->op (if any) is freed on error. */
void kread(struct rcmd *c, const struct rarg *const *keys, size_t n, kread_fn *fn);
/* kread of the one key at argument argi. */
void kread1(struct rcmd *c, size_t argi, kread_fn *fn);

/* The value of unit key k: bitmap (owned by the unit), effective length, existence. */
struct kval rkv_unit_val(const struct wp_unit *u, int k);
/* Whether v exists at now: a key whose deadline passed after it was loaded (PEXPIRE
 * k 1, then a write of k merged behind it) is absent, as Redis would find it. */
bool rkv_live(const struct kval *v, int64_t now);
/* Replaces key k's value; nbytes < 0 stores "no explicit length". */
void rkv_unit_put(struct wp_unit *u, int k, roaring_bitmap_t *bm, int64_t nbytes);
/* Empties key k (a deleted key: no member, no length, no expiry). False: out of memory. */
bool rkv_unit_delete(struct wp_unit *u, int k);
/* Sets key k's deadline (ms since the Unix epoch; 0: none) and marks it written. A
 * write that calls neither this nor rkv_unit_delete keeps the key's expiry, as
 * SETBIT, SETRANGE, APPEND, INCR and BITFIELD do in Redis. */
void rkv_unit_set_expire(struct wp_unit *u, int k, int64_t expire_ms);

/* Runs one unit over the keys at argument positions keyargs[0..n) (duplicates share
 * a unit key). extra is taken over: released at the end with extra_free (or free). */
void kwrite_ex(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra,
               void (*extra_free)(void *));
void kwrite(struct rcmd *c, const size_t *keyargs, size_t n, kmut_fn *mut, kreply_fn *reply, void *extra);
/* The common case: one key, argument 1. */
void kwrite1(struct rcmd *c, kmut_fn *mut, kreply_fn *reply, void *extra, void (*extra_free)(void *));
/* Replies: the integer w->n; +OK. */
void rkv_reply_n(struct kwrite *w);
void rkv_reply_ok(struct kwrite *w);

/* Argument parsers that write Redis's error into the reply and return false. */
bool rkv_parse_bit_offset(struct rcmd *c, const struct rarg *a, uint32_t *off);
bool rkv_parse_int(struct rcmd *c, const struct rarg *a, long long *v);
/* Answers msg as the error and finishes the command. */
void rkv_fail(struct rcmd *c, const char *msg);
/* For mutate(): "ERR out of memory" as the command's error, and WP_REJECT. */
enum wp_mutation rkv_reject_oom(struct kwrite *w);

/* The options of SET (from argument 3) and GETEX (from 2), parsed as Redis's shared
 * parser does for each: a time option takes the next argument and excludes the other
 * kinds of time (the same kind twice: the last wins), KEEPTTL and PERSIST. */
enum {
    XS_NX = 1 << 0,
    XS_XX = 1 << 1,
    XS_GET = 1 << 2,
    XS_KEEPTTL = 1 << 3, /* SET only */
    XS_PERSIST = 1 << 4, /* GETEX only */
    XS_EX = 1 << 5,
    XS_PX = 1 << 6,
    XS_EXAT = 1 << 7,
    XS_PXAT = 1 << 8,
};
#define XS_TIME (XS_EX | XS_PX | XS_EXAT | XS_PXAT)
struct xs_opts {
    unsigned flags;
    const struct rarg *time; /* the value of the time option, if any */
};
/* False after answering "ERR syntax error" (the command is not finished). */
bool rkv_parse_xs(struct rcmd *c, bool for_set, struct xs_opts *o);
/* The deadline (ms since the epoch) the time option names at now, with Redis's checks:
 * NULL, or buf holding the error. */
const char *rkv_xs_deadline(const struct rcmd *c, const struct xs_opts *o, int64_t now, int64_t *deadline, char *buf,
                            size_t n);

/* A string value taken inside a mutation for the reply (SET … GET, GETSET, GETDEL,
 * GETEX): each run of the mutation takes it afresh. */
struct old_value {
    bool exists;
    uint8_t *bytes;
    size_t len;
};
/* Takes v's bytes into o (o->exists = exists); false with w->err set past [resp]
 * max_value_bytes or out of memory. */
bool rkv_take_value(struct kwrite *w, struct old_value *o, const struct kval *v, bool exists);
/* The bulk reply of o, or nil. */
void rkv_reply_value(struct rcmd *c, const struct old_value *o);

/* The bitmap commands (cmd_bitmap.c): SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO */
void cmd_setbit(struct rcmd *c);
void cmd_getbit(struct rcmd *c);
void cmd_bitcount(struct rcmd *c);
void cmd_bitpos(struct rcmd *c);
void cmd_bitop(struct rcmd *c);
void cmd_bitfield(struct rcmd *c);
void cmd_bitfield_ro(struct rcmd *c);

/* The string commands (cmd_string.c): GET SET STRLEN GETRANGE SETRANGE APPEND MGET MSET
 * MSETNX SETNX GETSET GETDEL INCR DECR INCRBY DECRBY */
void cmd_get(struct rcmd *c);
void cmd_strlen(struct rcmd *c);
void cmd_getrange(struct rcmd *c);
void cmd_set(struct rcmd *c);
void cmd_setrange(struct rcmd *c);
void cmd_append(struct rcmd *c);
void cmd_mget(struct rcmd *c);
void cmd_mset(struct rcmd *c);
void cmd_msetnx(struct rcmd *c);
void cmd_setnx(struct rcmd *c);
void cmd_getset(struct rcmd *c);
void cmd_getdel(struct rcmd *c);
void cmd_incr(struct rcmd *c);
void cmd_decr(struct rcmd *c);
void cmd_incrby(struct rcmd *c);
void cmd_decrby(struct rcmd *c);

/* The expiry commands (cmd_expire.c): EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME
 * PEXPIRETIME PERSIST GETEX */
void cmd_expire(struct rcmd *c);
void cmd_pexpire(struct rcmd *c);
void cmd_expireat(struct rcmd *c);
void cmd_pexpireat(struct rcmd *c);
void cmd_ttl(struct rcmd *c);
void cmd_pttl(struct rcmd *c);
void cmd_expiretime(struct rcmd *c);
void cmd_pexpiretime(struct rcmd *c);
void cmd_persist(struct rcmd *c);
void cmd_getex(struct rcmd *c);

/* The keyspace commands (cmd_keyspace.c): DEL UNLINK EXISTS TYPE RENAME RENAMENX COPY DBSIZE SCAN KEYS */
void cmd_del(struct rcmd *c);
void cmd_exists(struct rcmd *c);
void cmd_type(struct rcmd *c);
void cmd_rename(struct rcmd *c);
void cmd_renamenx(struct rcmd *c);
void cmd_copy(struct rcmd *c);
void cmd_dbsize(struct rcmd *c);
void cmd_scan(struct rcmd *c);
void cmd_keys(struct rcmd *c);

/* The redis-roaring style commands (cmd_roaring.c): R.* */
void cmd_rsetintarray(struct rcmd *c);
void cmd_rappendintarray(struct rcmd *c);
void cmd_rgetintarray(struct rcmd *c);
void cmd_rrangeintarray(struct rcmd *c);
void cmd_rrevrangeintarray(struct rcmd *c);
void cmd_rmin(struct rcmd *c);
void cmd_rmax(struct rcmd *c);
void cmd_rcard(struct rcmd *c);

#endif
