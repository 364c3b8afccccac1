/* rcmd.h — one RESP command in flight, the table entry that describes it, and the
 * argument helpers (rcmd.c). The server (resp.c) owns clients and ordering and the
 * command files (rkv.c, cmd_*.c) only see this: both include it, neither includes
 * the other's header but for the server's use of the command table (rkv.h). */
#ifndef BITMAPD_RCMD_H
#define BITMAPD_RCMD_H

#include "core/app.h"
#include "redis/rproto.h"

enum {
    RC_WRITE = 1 << 0,    /* may change keys */
    RC_NOAUTH = 1 << 1,   /* allowed before AUTH */
    RC_BARRIER = 1 << 2,  /* runs alone: waits for everything before it */
    RC_ALLKEYS = 1 << 3,  /* reads the whole keyspace (SCAN, KEYS, DBSIZE) */
    RC_FAST = 1 << 4,     /* answers without the database */
    RC_MERGED = 1 << 5,   /* a write of one key that enters the write path as it starts, which
                           * applies writes of a key in start order (wpath_ops.merge): a later
                           * such write of the same key need not wait for it to commit */
};

struct rcmd;
typedef void rcmd_fn(struct rcmd *c);

struct rcmd_def {
    const char *name;     /* lower case, as Redis names it in errors */
    int arity;            /* Redis rule: n exact, -n at least n (name included) */
    int flags;
    int first_key, last_key, key_step; /* last_key -1: to the end */
    rcmd_fn *fn;
    const char *group;    /* for COMMAND DOCS */
    const char *since;
    const char *summary;
};

struct rcmd {
    struct app *app;
    const struct rcmd_def *def;
    struct rarg *argv;
    size_t argc;
    struct rreply r;      /* the reply is written here, sent in command order */
    uint64_t client_id;
    bool client_gone;     /* the client disconnected: the reply goes nowhere */
    void *op;             /* the command's own state while it waits */
    /* private to resp.c */
    struct rcmd *next;
    struct rclient *cl;
    bool started, done;
    double t0; /* when it started (metrics_now()) */
    void (*finished)(struct rcmd *c); /* what rcmd_finish() hands the command to */
    unsigned char tx;  /* MULTI, EXEC, DISCARD or a command inside a refused MULTI (resp.c) */
};

/* Every command ends in exactly one rcmd_finish(), after writing its reply: it hands
 * the command back to the server (c->finished). */
void rcmd_finish(struct rcmd *c);

/* Arity and argument helpers with Redis's error texts. */
bool rarg_eq(const struct rarg *a, const char *lit); /* case-insensitive */
/* A whole-string signed 64-bit integer, Redis's string2ll rules. */
bool rarg_ll(const struct rarg *a, long long *out);

#endif
