/* rproto.c — RESP request parsing and reply encoding (see rproto.h). */
#include "redis/rproto.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
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
    if (!argv) return;
    for (size_t i = 0; i < argc; i++) free(argv[i].ptr);
    free(argv);
}

void rparser_reset(struct rparser *p)
{
    rargs_free(p->argv, p->argc);
    p->argv = NULL;
    p->argc = p->cap = 0;
    p->want_args = -1;
    p->bulk_len = -1;
}

struct rarg *rparser_take(struct rparser *p, size_t *argc)
{
    struct rarg *argv = p->argv;
    *argc = p->argc;
    p->argv = NULL;
    p->argc = p->cap = 0;
    p->want_args = -1;
    p->bulk_len = -1;
    return argv;
}

static bool push_arg(struct rarg **argv, size_t *argc, size_t *cap, const char *s, size_t n)
{
    if (*argc == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct rarg *na = realloc(*argv, nc * sizeof(*na));
        if (!na) return false;
        *argv = na;
        *cap = nc;
    }
    char *copy = malloc(n + 1);
    if (!copy) return false;
    if (n) memcpy(copy, s, n);
    copy[n] = '\0';
    (*argv)[(*argc)++] = (struct rarg){copy, n};
    return true;
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
    struct rarg *v = NULL;
    size_t n = 0, cap = 0, i = 0;
    char *cur = malloc(len + 1);

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
        if (!push_arg(&v, &n, &cap, cur, cl)) goto fail;
    }
    free(cur);
    *argv = v;
    *argc = n;
    return true;
fail:
    free(cur);
    rargs_free(v, n);
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
                p->argc = 0;
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
            if (argc == 0) {
                free(argv);
                continue; /* empty line */
            }
            p->argv = argv;
            p->argc = p->cap = argc;
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
        if (p->argc == p->cap) {
            size_t nc = p->cap ? p->cap * 2 : 8;
            if (nc > (size_t)p->want_args) nc = (size_t)p->want_args;
            struct rarg *na = realloc(p->argv, nc * sizeof(*na));
            if (!na) {
                snprintf(err, errlen, "Protocol error: out of memory");
                return RP_ERROR;
            }
            p->argv = na;
            p->cap = nc;
        }
        char *data = malloc((size_t)p->bulk_len + 1);
        if (!data) {
            snprintf(err, errlen, "Protocol error: out of memory");
            return RP_ERROR;
        }
        evbuffer_remove(in, data, (size_t)p->bulk_len);
        evbuffer_drain(in, 2); /* CRLF */
        data[p->bulk_len] = '\0';
        p->argv[p->argc++] = (struct rarg){data, (size_t)p->bulk_len};
        p->bulk_len = -1;
        if ((long long)p->argc == p->want_args) return RP_COMMAND;
    }
}

/* ---- replies ---------------------------------------------------------------- */

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

void rr_int(struct rreply *r, long long v) { evbuffer_add_printf(r->out, ":%lld\r\n", v); }

void rr_bulk(struct rreply *r, const void *p, size_t n)
{
    evbuffer_add_printf(r->out, "$%zu\r\n", n);
    if (n) evbuffer_add(r->out, p, n);
    evbuffer_add(r->out, "\r\n", 2);
}

void rr_cstr(struct rreply *r, const char *s) { rr_bulk(r, s, strlen(s)); }

void rr_nil(struct rreply *r) { evbuffer_add(r->out, r->proto == 3 ? "_\r\n" : "$-1\r\n", r->proto == 3 ? 3 : 5); }

void rr_array(struct rreply *r, size_t n) { evbuffer_add_printf(r->out, "*%zu\r\n", n); }

void rr_map(struct rreply *r, size_t n)
{
    if (r->proto == 3)
        evbuffer_add_printf(r->out, "%%%zu\r\n", n);
    else
        evbuffer_add_printf(r->out, "*%zu\r\n", 2 * n);
}

void rr_set(struct rreply *r, size_t n) { evbuffer_add_printf(r->out, "%c%zu\r\n", r->proto == 3 ? '~' : '*', n); }

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
