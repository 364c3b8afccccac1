/* rproto.c — RESP request parsing and reply encoding (see rproto.h). */
#include "redis/rproto.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rparser_init(struct rparser *p, const struct rproto_limits *lim)
{
    memset(p, 0, sizeof(*p));
    p->lim = *lim;
    p->want_args = -1;
    p->bulk_len = -1;
}

void rargs_free(struct rarg *argv, size_t argc)
{
    if (argv) free(argc ? (void *)argv[0].ptr : (void *)argv); /* the block starts with the first argument */
}

/* ---- argument lists (rproto.h: one allocation a command) ---------------------------- */

static void ab_free(struct rargbuf *b)
{
    free(b->argv);
    free(b->data);
    memset(b, 0, sizeof(*b));
}

/* Room in data for n more bytes; the arguments follow their bytes if they move. */
static bool ab_reserve(struct rargbuf *b, size_t n)
{
    if (n <= b->dcap - b->dlen) return true;
    size_t nc = b->dcap > 32 ? b->dcap * 2 : 64;
    if (nc - b->dlen < n) nc = b->dlen + n;
    char *nd = realloc(b->data, nc);
    if (!nd) return false;
    for (size_t i = 0, off = 0; i < b->argc; off += b->argv[i].len + 1, i++) b->argv[i].ptr = nd + off;
    b->data = nd;
    b->dcap = nc;
    return true;
}

/* A new argument of n bytes (NUL-terminated already); where to write them, or NULL
 * when out of memory. The array grows by doubling, never past max entries. */
static char *ab_add(struct rargbuf *b, size_t n, size_t max)
{
    if (b->argc == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 8;
        if (nc > max && max > b->argc) nc = max;
        struct rarg *na = realloc(b->argv, nc * sizeof(*na));
        if (!na) return NULL;
        b->argv = na;
        b->cap = nc;
    }
    if (!ab_reserve(b, n + 1)) return NULL;
    char *dst = b->data + b->dlen;
    dst[n] = '\0';
    b->argv[b->argc++] = (struct rarg){dst, n};
    b->dlen += n + 1;
    return dst;
}

/* The arguments as one block (their bytes, then the array), b emptied; NULL when out
 * of memory (b then unchanged). */
static struct rarg *ab_finish(struct rargbuf *b, size_t *argc)
{
    size_t pad = (b->dlen + 7) & ~(size_t)7;
    char *blk = realloc(b->data, pad + b->argc * sizeof(struct rarg) + 1);
    if (!blk) return NULL;
    struct rarg *argv = (struct rarg *)(void *)(blk + pad);
    for (size_t i = 0, off = 0; i < b->argc; off += b->argv[i].len + 1, i++)
        argv[i] = (struct rarg){blk + off, b->argv[i].len};
    *argc = b->argc;
    free(b->argv);
    memset(b, 0, sizeof(*b));
    return argv;
}

void rparser_reset(struct rparser *p)
{
    ab_free(&p->args);
    rargs_free(p->done, p->done_argc);
    p->done = NULL;
    p->done_argc = 0;
    p->want_args = -1;
    p->bulk_len = -1;
}

struct rarg *rparser_take(struct rparser *p, size_t *argc)
{
    struct rarg *argv = p->done;
    *argc = p->done_argc;
    p->done = NULL;
    p->done_argc = 0;
    p->want_args = -1;
    p->bulk_len = -1;
    return argv;
}

bool rproto_string2ll(const char *s, size_t n, long long *out)
{
    unsigned long long v = 0, max;
    bool neg = false;
    size_t i = 0;
    if (n == 0 || n > 20) return false;
    if (n == 1 && s[0] == '0') {
        *out = 0;
        return true;
    }
    if (s[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i >= n || s[i] < '1' || s[i] > '9') return false;
    max = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX; /* LLONG_MIN is fine */
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        if (v > (max - (unsigned)(s[i] - '0')) / 10) return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

bool rproto_split_inline(const char *line, size_t len, struct rarg **argv, size_t *argc)
{
    struct rargbuf b = {0};
    size_t i = 0;
    char *cur = malloc(len + 1), *dst;

    if (!cur) return false;
    *argv = NULL;
    *argc = 0;
    for (;;) {
        while (i < len && isspace((unsigned char)line[i])) i++;
        if (i >= len) break;
        size_t cl = 0;
        int quote = 0; /* 0, '"' or '\'' */
        bool done = false;
        while (!done) {
            if (quote == '"') {
                if (i >= len) goto fail; /* unterminated */
                if (line[i] == '\\' && i + 3 < len && line[i + 1] == 'x' && hexval(line[i + 2]) >= 0 &&
                    hexval(line[i + 3]) >= 0) {
                    cur[cl++] = (char)(hexval(line[i + 2]) * 16 + hexval(line[i + 3]));
                    i += 4;
                } else if (line[i] == '\\' && i + 1 < len) {
                    char c = line[i + 1];
                    cur[cl++] = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c == 'b' ? '\b' : c == 'a' ? '\a' : c;
                    i += 2;
                } else if (line[i] == '"') {
                    i++;
                    /* the closing quote must be followed by a space or the end */
                    if (i < len && !isspace((unsigned char)line[i])) goto fail;
                    done = true;
                } else {
                    cur[cl++] = line[i++];
                }
            } else if (quote == '\'') {
                if (i >= len) goto fail;
                if (line[i] == '\\' && i + 1 < len && line[i + 1] == '\'') {
                    cur[cl++] = '\'';
                    i += 2;
                } else if (line[i] == '\'') {
                    i++;
                    if (i < len && !isspace((unsigned char)line[i])) goto fail;
                    done = true;
                } else {
                    cur[cl++] = line[i++];
                }
            } else {
                if (i >= len || isspace((unsigned char)line[i])) {
                    done = true;
                } else if (line[i] == '"' || line[i] == '\'') {
                    quote = line[i++];
                } else {
                    cur[cl++] = line[i++];
                }
            }
        }
        if (!(dst = ab_add(&b, cl, SIZE_MAX))) goto fail;
        if (cl) memcpy(dst, cur, cl);
    }
    free(cur);
    if (!b.argc) { /* nothing on the line */
        ab_free(&b);
        return true;
    }
    if (!(*argv = ab_finish(&b, argc))) goto fail;
    return true;
fail:
    free(cur);
    ab_free(&b);
    return false;
}

/* A header or inline line ending in LF; NULL (with *need_more) if incomplete. */
static char *take_line(struct evbuffer *in, size_t max, size_t *len, bool *too_long)
{
    struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
    *too_long = false;
    if (eol.pos < 0) {
        *too_long = evbuffer_get_length(in) > max;
        return NULL;
    }
    if ((size_t)eol.pos > max) {
        *too_long = true;
        return NULL;
    }
    char *line = malloc((size_t)eol.pos + 2);
    if (!line) return NULL;
    evbuffer_remove(in, line, (size_t)eol.pos + 1);
    size_t n = (size_t)eol.pos;
    if (n && line[n - 1] == '\r') n--;
    line[n] = '\0';
    *len = n;
    return line;
}

/* The line of a header at s[at..n): its text (after the '*' or '$', without the
 * CR before the LF) as text and tlen, and where the next line starts; false if its LF
 * is not within n or the line is longer than max (rparser_feed's slow path then
 * decides, and answers the errors). */
static bool header_at(const char *s, size_t n, size_t at, size_t max, const char **text, size_t *tlen,
                      size_t *next)
{
    size_t room = n - at < max + 1 ? n - at : max + 1;
    const char *lf = memchr(s + at, '\n', room);
    if (!lf) return false;
    size_t len = (size_t)(lf - (s + at)); /* what take_line compares with max */
    if (len > max) return false;
    if (len && lf[-1] == '\r') len--;
    *text = s + at + 1;
    *tlen = len ? len - 1 : 0;
    *next = (size_t)(lf - s) + 1;
    return len >= 1;
}

#define WHOLE_MAX_ARGS 64 /* commands of more arguments take the slow path */

/* A whole multibulk command of at most WHOLE_MAX_ARGS arguments, all in the first
 * piece of in: taken in one pass and one allocation (rproto.h), with no line copied
 * out first. False (nothing taken) for anything else, including every input that
 * the slow path answers with an error: it alone says what those are. */
static bool take_whole(struct rparser *p, struct evbuffer *in)
{
    struct evbuffer_iovec v;
    if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len < 4) return false;
    const char *s = v.iov_base, *t;
    size_t n = v.iov_len, tl, pos;
    long long count, len;
    size_t at[WHOLE_MAX_ARGS], lens[WHOLE_MAX_ARGS], total = 0;

    if (s[0] != '*' || !header_at(s, n, 0, p->lim.max_inline, &t, &tl, &pos)) return false;
    if (!rproto_string2ll(t, tl, &count) || count < 1 || count > WHOLE_MAX_ARGS ||
        (unsigned long long)count > p->lim.max_args)
        return false;
    for (long long i = 0; i < count; i++) {
        if (pos >= n || s[pos] != '$' || !header_at(s, n, pos, p->lim.max_inline, &t, &tl, &pos)) return false;
        if (!rproto_string2ll(t, tl, &len) || len < 0 || (unsigned long long)len > p->lim.max_bulk ||
            n - pos < (size_t)len + 2)
            return false;
        at[i] = pos;
        lens[i] = (size_t)len;
        total += (size_t)len + 1;
        pos += (size_t)len + 2; /* the CRLF after the bytes is not checked (nor by Redis) */
    }
    size_t pad = (total + 7) & ~(size_t)7;
    char *blk = malloc(pad + (size_t)count * sizeof(struct rarg));
    if (!blk) return false; /* the slow path fails it as out of memory */
    struct rarg *argv = (struct rarg *)(void *)(blk + pad);
    for (long long i = 0, off = 0; i < count; off += (long long)lens[i] + 1, i++) {
        if (lens[i]) memcpy(blk + off, s + at[i], lens[i]);
        blk[off + (long long)lens[i]] = '\0';
        argv[i] = (struct rarg){blk + off, lens[i]};
    }
    evbuffer_drain(in, pos);
    p->done = argv;
    p->done_argc = (size_t)count;
    return true;
}

enum rproto_status rparser_feed(struct rparser *p, struct evbuffer *in, char *err, size_t errlen)
{
    for (;;) {
        size_t avail = evbuffer_get_length(in);
        if (p->want_args < 0) {
            /* the start of a command: *N or an inline line */
            unsigned char first;
            size_t n;
            bool too_long;
            if (avail == 0) return RP_MORE;
            if (take_whole(p, in)) return RP_COMMAND;
            evbuffer_copyout(in, &first, 1);
            char *line = take_line(in, p->lim.max_inline, &n, &too_long);
            if (!line) {
                if (too_long) {
                    snprintf(err, errlen, "Protocol error: %s",
                             first == '*' ? "too big mbulk count string" : "too big inline request");
                    return RP_ERROR;
                }
                return RP_MORE;
            }
            if (first == '*') {
                long long count;
                bool ok = rproto_string2ll(line + 1, n - 1, &count) && count <= (long long)p->lim.max_args;
                free(line);
                if (!ok) {
                    snprintf(err, errlen, "Protocol error: invalid multibulk length");
                    return RP_ERROR;
                }
                if (count <= 0) continue; /* an empty command: ignored, as Redis does */
                p->want_args = count;
                continue;
            }
            struct rarg *argv;
            size_t argc;
            bool ok = rproto_split_inline(line, n, &argv, &argc);
            free(line);
            if (!ok) {
                snprintf(err, errlen, "Protocol error: unbalanced quotes in request");
                return RP_ERROR;
            }
            if (argc == 0) continue; /* empty line */
            p->done = argv;
            p->done_argc = argc;
            return RP_COMMAND;
        }
        if (p->bulk_len < 0) {
            size_t n;
            bool too_long;
            unsigned char first;
            if (avail == 0) return RP_MORE;
            evbuffer_copyout(in, &first, 1);
            if (first != '$') {
                if (first >= 32 && first < 127)
                    snprintf(err, errlen, "Protocol error: expected '$', got '%c'", first);
                else
                    snprintf(err, errlen, "Protocol error: expected '$', got ' '");
                return RP_ERROR;
            }
            char *line = take_line(in, p->lim.max_inline, &n, &too_long);
            if (!line) {
                if (too_long) {
                    snprintf(err, errlen, "Protocol error: too big bulk count string");
                    return RP_ERROR;
                }
                return RP_MORE;
            }
            long long len;
            bool ok = rproto_string2ll(line + 1, n - 1, &len) && len >= 0 && (unsigned long long)len <= p->lim.max_bulk;
            free(line);
            if (!ok) {
                snprintf(err, errlen, "Protocol error: invalid bulk length");
                return RP_ERROR;
            }
            p->bulk_len = len;
            continue;
        }
        if (avail < (size_t)p->bulk_len + 2) return RP_MORE;
        char *data = ab_add(&p->args, (size_t)p->bulk_len, (size_t)p->want_args);
        if (!data) {
            snprintf(err, errlen, "Protocol error: out of memory");
            return RP_ERROR;
        }
        evbuffer_remove(in, data, (size_t)p->bulk_len);
        evbuffer_drain(in, 2); /* CRLF */
        p->bulk_len = -1;
        if ((long long)p->args.argc == p->want_args) {
            if (!(p->done = ab_finish(&p->args, &p->done_argc))) {
                snprintf(err, errlen, "Protocol error: out of memory");
                return RP_ERROR;
            }
            return RP_COMMAND;
        }
    }
}

/* ---- replies ---------------------------------------------------------------- */

/* prefix, the decimal of v and CRLF, in one evbuffer_add: the headers of most replies
 * (evbuffer_add_printf formats through vsnprintf and a scratch chain) */
static void add_head(struct evbuffer *out, char prefix, long long v)
{
    char buf[24], *e = buf + sizeof(buf), *p = e - 2;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    p[0] = '\r';
    p[1] = '\n';
    do *--p = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *--p = '-';
    *--p = prefix;
    evbuffer_add(out, p, (size_t)(e - p));
}

void rr_simple(struct rreply *r, const char *s) { evbuffer_add_printf(r->out, "+%s\r\n", s); }

void rr_error(struct rreply *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (char *c = buf; *c; c++)
        if (*c == '\r' || *c == '\n') *c = ' '; /* an error is one line */
    evbuffer_add_printf(r->out, "-%s\r\n", buf);
}

void rr_int(struct rreply *r, long long v) { add_head(r->out, ':', v); }

void rr_bulk(struct rreply *r, const void *p, size_t n)
{
    add_head(r->out, '$', (long long)n);
    if (n) evbuffer_add(r->out, p, n);
    evbuffer_add(r->out, "\r\n", 2);
}

void rr_cstr(struct rreply *r, const char *s) { rr_bulk(r, s, strlen(s)); }

void rr_nil(struct rreply *r) { evbuffer_add(r->out, r->proto == 3 ? "_\r\n" : "$-1\r\n", r->proto == 3 ? 3 : 5); }

void rr_array(struct rreply *r, size_t n) { add_head(r->out, '*', (long long)n); }

void rr_map(struct rreply *r, size_t n)
{
    if (r->proto == 3)
        add_head(r->out, '%', (long long)n);
    else
        add_head(r->out, '*', (long long)(2 * n));
}

void rr_set(struct rreply *r, size_t n) { add_head(r->out, r->proto == 3 ? '~' : '*', (long long)n); }

void rr_verbatim(struct rreply *r, const char *p, size_t n)
{
    if (r->proto != 3) {
        rr_bulk(r, p, n);
        return;
    }
    evbuffer_add_printf(r->out, "=%zu\r\ntxt:", n + 4);
    evbuffer_add(r->out, p, n);
    evbuffer_add(r->out, "\r\n", 2);
}

/* ---- glob -------------------------------------------------------------------- */

static bool ceq(char a, char b, bool nocase)
{
    return nocase ? tolower((unsigned char)a) == tolower((unsigned char)b) : a == b;
}

/* A bracket class starting after '['; *consumed gets its length including ']'. */
static bool class_match(const char *p, size_t plen, char c, bool nocase, size_t *consumed)
{
    size_t i = 0;
    bool neg = false, match = false;
    if (i < plen && p[i] == '^') {
        neg = true;
        i++;
    }
    for (; i < plen && p[i] != ']'; i++) {
        if (p[i] == '\\' && i + 1 < plen) {
            i++;
            match |= ceq(p[i], c, nocase);
        } else if (i + 2 < plen && p[i + 1] == '-' && p[i + 2] != ']') {
            char lo = p[i], hi = p[i + 2];
            if (lo > hi) {
                char t = lo;
                lo = hi;
                hi = t;
            }
            if (nocase) {
                char lc = (char)tolower((unsigned char)c);
                match |= (tolower((unsigned char)lo) <= lc && lc <= tolower((unsigned char)hi));
            } else {
                match |= (lo <= c && c <= hi);
            }
            i += 2;
        } else {
            match |= ceq(p[i], c, nocase);
        }
    }
    *consumed = i < plen ? i + 1 : i; /* an unclosed class ends the pattern */
    return neg ? !match : match;
}

bool rproto_glob(const char *pat, size_t plen, const char *s, size_t slen, bool nocase)
{
    size_t pi = 0, si = 0;
    size_t star_p = SIZE_MAX, star_s = 0;

    while (si < slen) {
        if (pi < plen && pat[pi] == '*') {
            while (pi < plen && pat[pi] == '*') pi++;
            if (pi == plen) return true;
            star_p = pi;
            star_s = si;
            continue;
        }
        if (pi < plen) {
            bool ok;
            size_t adv = 1;
            if (pat[pi] == '?') {
                ok = true;
            } else if (pat[pi] == '[') {
                size_t used;
                ok = class_match(pat + pi + 1, plen - pi - 1, s[si], nocase, &used);
                adv = 1 + used;
            } else if (pat[pi] == '\\' && pi + 1 < plen) {
                ok = ceq(pat[pi + 1], s[si], nocase);
                adv = 2;
            } else {
                ok = ceq(pat[pi], s[si], nocase);
            }
            if (ok) {
                pi += adv;
                si++;
                continue;
            }
        }
        if (star_p == SIZE_MAX) return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < plen && pat[pi] == '*') pi++;
    return pi == plen;
}
