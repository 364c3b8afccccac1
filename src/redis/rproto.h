/* rproto.h — the Redis protocol, requests in and replies out, with no sockets.
 *
 * Requests: RESP multibulk (*N\r\n$len\r\n…) and inline lines (as telnet and
 * redis-cli send them), parsed incrementally from an evbuffer so a 64 MB argument
 * is copied once. Replies: RESP2, or RESP3 after HELLO 3. */
#ifndef BITMAPD_RPROTO_H
#define BITMAPD_RPROTO_H

#include <event2/buffer.h>

#include "core/common.h"

struct rarg {
    char *ptr; /* NUL-terminated copy (arguments are binary-safe: use len) */
    size_t len;
};
/* A command's arguments are one allocation: their bytes, each followed by a NUL,
 * from the first argument's ptr on, then the array itself (one malloc a command, not
 * one per argument and line: a third of the allocations of a pipelined SETBIT).
 * Free them with rargs_free only, and do not move a ptr. */

struct rproto_limits {
    size_t max_bulk;   /* bytes of one argument */
    size_t max_args;   /* arguments of one command */
    size_t max_inline; /* bytes of an inline line or a header line */
};

enum rproto_status { RP_COMMAND, RP_MORE, RP_ERROR };

/* Arguments being received: their bytes (each NUL-terminated) in data, and argv
 * pointing into it. */
struct rargbuf {
    struct rarg *argv;
    size_t argc, cap;
    char *data;
    size_t dlen, dcap;
};

struct rparser {
    struct rproto_limits lim;
    long long want_args; /* -1: at the start of a command */
    long long bulk_len;  /* -1: expecting a $len line */
    struct rargbuf args; /* of the command being received */
    struct rarg *done;   /* a whole command, until rparser_take */
    size_t done_argc;
};

void rparser_init(struct rparser *p, const struct rproto_limits *lim);
void rparser_reset(struct rparser *p); /* frees a half-parsed command */
/* Takes bytes from in. RP_COMMAND: a command is ready (argc ≥ 1); the caller takes
 * the arguments with rparser_take(). RP_MORE: every byte was consumed or
 * more are needed. RP_ERROR: err holds Redis's protocol error text (without "-ERR "),
 * the connection should be answered and closed. */
enum rproto_status rparser_feed(struct rparser *p, struct evbuffer *in, char *err, size_t errlen);
/* Hands over the parsed arguments (caller frees with rargs_free) and readies p. */
struct rarg *rparser_take(struct rparser *p, size_t *argc);
void rargs_free(struct rarg *argv, size_t argc);

/* Redis's string2ll: a whole string as a signed 64-bit decimal, with an optional
 * '-' only and no leading zero ("0" itself is fine; "-0", "+1", "01", " 1" are not). */
bool rproto_string2ll(const char *s, size_t n, long long *out) WUR;

/* Splits an inline line the way Redis does (quotes, \xHH escapes); false on
 * unbalanced quotes. */
bool rproto_split_inline(const char *line, size_t len, struct rarg **argv, size_t *argc) WUR;

/* ---- replies ---- */
struct rreply {
    struct evbuffer *out;
    int proto; /* 2 or 3 */
};

void rr_simple(struct rreply *r, const char *s);                 /* +OK */
void rr_error(struct rreply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rr_int(struct rreply *r, long long v);
void rr_bulk(struct rreply *r, const void *p, size_t n);
void rr_cstr(struct rreply *r, const char *s);                   /* bulk of a C string */
void rr_nil(struct rreply *r);                                   /* $-1 / _ */
void rr_array(struct rreply *r, size_t n);
void rr_map(struct rreply *r, size_t n);                         /* %n, or *2n in RESP2 */
void rr_set(struct rreply *r, size_t n);                         /* ~n, or *n in RESP2 */
void rr_verbatim(struct rreply *r, const char *p, size_t n);     /* =n txt:, or a bulk */

/* Redis's glob-style pattern match (*, ?, [a-z], [^x], \ escapes). */
bool rproto_glob(const char *pat, size_t plen, const char *s, size_t slen, bool nocase);

#endif
