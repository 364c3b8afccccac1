/* fuzz_rproto.c — libFuzzer target for the RESP request parser (src/redis/rproto.c).
 *
 * Input: 4 header bytes, then the byte stream a client sends.
 *   byte 0: max_bulk  (high bit set: 1 MiB, else 1 + b % 64)
 *   byte 1: max_args  (high bit set: 1024, else 1 + b % 16)
 *   byte 2: max_inline (high bit set: 64 KiB, else 1 + b % 96)
 *   byte 3: seeds the sizes of the pieces the stream is fed in (1 byte up to 256)
 * The stream is parsed twice: added to the evbuffer at once, and in pieces with
 * rparser_feed called after each piece, as partial socket reads arrive.
 *
 * Properties:
 *  - both runs give the same commands, the same error (if any) and, without an
 *    error, leave the same bytes unread and the parser in the same state;
 *  - a command has at least one argument, every argument is NUL-terminated at its
 *    length, multibulk arguments respect max_bulk and max_args, and an error text
 *    is one of the "Protocol error: ..." messages;
 *  - every command, written back as multibulk, parses to the same arguments; and
 *    written as an inline line with each byte quoted as \xHH, rproto_split_inline
 *    gives the same arguments;
 *  - rproto_string2ll agrees with a reference (strtoll and Redis's grammar) on
 *    every argument; rproto_glob matches an argument with its escaped pattern and
 *    with "*", and not with one more byte;
 *  - nothing leaks (LeakSanitizer), also after errors and half-received commands.
 * FUZZ_PRINT=1 in the environment prints what the input parses to. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "redis/rproto.h"

/* ---- a growable byte string ---------------------------------------------------------- */

struct str {
    char *p;
    size_t n, cap;
};

static void s_add(struct str *s, const void *p, size_t n)
{
    if (s->n + n + 1 > s->cap) {
        s->cap = (s->n + n + 1) * 2;
        if (!(s->p = realloc(s->p, s->cap))) abort();
    }
    memcpy(s->p + s->n, p, n);
    s->n += n;
    s->p[s->n] = '\0';
}

static void s_printf(struct str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void s_printf(struct str *s, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    s_add(s, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- reference checks on one command ------------------------------------------------- */

/* Redis's string2ll grammar: "0", or an optional '-' and a digit 1-9 then digits,
 * within long long. */
static bool ref_string2ll(const char *s, size_t n, long long *out)
{
    size_t i = s[0] == '-' ? 1 : 0;
    if (n == 0 || n > 20 || memchr(s, '\0', n)) return false;
    if (n == 1 && s[0] == '0') {
        *out = 0;
        return true;
    }
    if (i >= n || s[i] < '1' || s[i] > '9') return false;
    for (size_t j = i; j < n; j++)
        if (!isdigit((unsigned char)s[j])) return false;
    char buf[24];
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE) return false;
    *out = v;
    return true;
}

static void check_string2ll(const struct rarg *a)
{
    long long got = 0, want = 0;
    bool ok = rproto_string2ll(a->ptr, a->len, &got), ref = ref_string2ll(a->ptr, a->len, &want);
    CHECK(ok == ref && (!ok || got == want), "string2ll(\"%.*s\") = %d/%lld, reference %d/%lld",
          (int)a->len, a->ptr, ok, got, ref, want);
}

static void check_glob(const struct rarg *a)
{
    struct str pat = {0}, longer = {0};
    for (size_t i = 0; i < a->len; i++) {
        s_add(&pat, "\\", 1);
        s_add(&pat, a->ptr + i, 1);
    }
    s_add(&longer, a->ptr, a->len);
    s_add(&longer, "x", 1);
    CHECK(rproto_glob(pat.p ? pat.p : "", pat.n, a->ptr, a->len, false), "escaped pattern does not match");
    CHECK(rproto_glob(pat.p ? pat.p : "", pat.n, a->ptr, a->len, true), "escaped pattern (nocase)");
    CHECK(!rproto_glob(pat.p ? pat.p : "", pat.n, longer.p, longer.n, false),
          "escaped pattern matches a longer string");
    CHECK(rproto_glob("*", 1, a->ptr, a->len, false), "* does not match");
    free(pat.p);
    free(longer.p);
}

static bool same_args(const struct rarg *a, size_t an, const struct rarg *b, size_t bn)
{
    if (an != bn) return false;
    for (size_t i = 0; i < an; i++)
        if (a[i].len != b[i].len || memcmp(a[i].ptr, b[i].ptr, a[i].len) != 0) return false;
    return true;
}

/* The command written as multibulk must parse back to itself. */
static void check_multibulk_round_trip(const struct rarg *argv, size_t argc)
{
    static const struct rproto_limits roomy = {.max_bulk = 1 << 20, .max_args = 1 << 16, .max_inline = 1 << 16};
    struct evbuffer *in = evbuffer_new();
    struct rparser p;
    char err[256] = "";
    if (!in) abort();
    evbuffer_add_printf(in, "*%zu\r\n", argc);
    for (size_t i = 0; i < argc; i++) {
        evbuffer_add_printf(in, "$%zu\r\n", argv[i].len);
        evbuffer_add(in, argv[i].ptr, argv[i].len);
        evbuffer_add(in, "\r\n", 2);
    }
    rparser_init(&p, &roomy);
    CHECK(rparser_feed(&p, in, err, sizeof(err)) == RP_COMMAND, "multibulk copy not parsed: %s", err);
    size_t n;
    struct rarg *back = rparser_take(&p, &n);
    CHECK(same_args(argv, argc, back, n), "multibulk copy parsed differently");
    CHECK(evbuffer_get_length(in) == 0, "multibulk copy left bytes");
    rargs_free(back, n);
    rparser_reset(&p);
    evbuffer_free(in);
}

/* The command written as an inline line of "\xHH"-quoted arguments. */
static void check_inline_round_trip(const struct rarg *argv, size_t argc)
{
    struct str line = {0};
    for (size_t i = 0; i < argc; i++) {
        s_add(&line, i ? " \"" : "\"", i ? 2 : 1);
        for (size_t j = 0; j < argv[i].len; j++) s_printf(&line, "\\x%02x", (unsigned char)argv[i].ptr[j]);
        s_add(&line, "\"", 1);
    }
    struct rarg *back;
    size_t n;
    CHECK(rproto_split_inline(line.p, line.n, &back, &n), "quoted inline copy not split");
    CHECK(same_args(argv, argc, back, n), "quoted inline copy split differently");
    rargs_free(back, n);
    free(line.p);
}

/* ---- the two runs -------------------------------------------------------------------- */

struct run {
    struct str tr; /* transcript: commands and the error */
    bool error;
};

static struct rproto_limits lim;

static void on_command(struct run *r, struct rarg *argv, size_t argc)
{
    CHECK(argc >= 1 && argv, "a command without arguments");
    s_printf(&r->tr, "C%zu", argc);
    for (size_t i = 0; i < argc; i++) {
        CHECK(argv[i].ptr && argv[i].ptr[argv[i].len] == '\0', "argument %zu not NUL-terminated", i);
        s_printf(&r->tr, " %zu:", argv[i].len);
        s_add(&r->tr, argv[i].ptr, argv[i].len);
    }
    s_add(&r->tr, "\n", 1);
}

/* Feeds what is in `in` until the parser wants more or fails. */
static void drain(struct run *r, struct rparser *p, struct evbuffer *in, bool checks)
{
    char err[256];
    for (;;) {
        err[0] = '\0';
        enum rproto_status st = rparser_feed(p, in, err, sizeof(err));
        if (st == RP_MORE) return;
        if (st == RP_ERROR) {
            CHECK(strncmp(err, "Protocol error: ", 16) == 0, "error text \"%s\"", err);
            s_printf(&r->tr, "E %s\n", err);
            r->error = true;
            return;
        }
        CHECK(st == RP_COMMAND, "rparser_feed returned %d", (int)st);
        size_t argc;
        struct rarg *argv = rparser_take(p, &argc);
        CHECK(p->args.argc == 0 && p->args.argv == NULL && p->done == NULL && p->want_args == -1 && p->bulk_len == -1,
              "rparser_take did not ready the parser");
        on_command(r, argv, argc);
        if (checks) {
            /* multibulk: within max_args and max_bulk; inline: every argument
             * comes from one line of at most max_inline bytes */
            bool multibulk_ok = argc <= lim.max_args, inline_ok = true;
            for (size_t i = 0; i < argc; i++) {
                multibulk_ok = multibulk_ok && argv[i].len <= lim.max_bulk;
                inline_ok = inline_ok && argv[i].len <= lim.max_inline;
            }
            CHECK(multibulk_ok || inline_ok, "a command of %zu arguments passed no limit", argc);
            check_multibulk_round_trip(argv, argc);
            check_inline_round_trip(argv, argc);
            for (size_t i = 0; i < argc && i < 4; i++) {
                check_string2ll(&argv[i]);
                check_glob(&argv[i]);
            }
            if (argc >= 2) {
                (void)rproto_glob(argv[0].ptr, argv[0].len, argv[1].ptr, argv[1].len, false);
                (void)rproto_glob(argv[0].ptr, argv[0].len, argv[1].ptr, argv[1].len, true);
            }
        }
        rargs_free(argv, argc);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    lim.max_bulk = data[0] & 0x80 ? 1 << 20 : 1 + data[0] % 64;
    lim.max_args = data[1] & 0x80 ? 1024 : 1 + data[1] % 16;
    lim.max_inline = data[2] & 0x80 ? 1 << 16 : 1 + data[2] % 96;
    uint32_t rng = 0x9E3779B9u ^ data[3];
    size_t max_piece = (size_t)2 << (data[3] >> 5);
    const uint8_t *stream = data + 4;
    size_t len = size - 4;

    struct run whole = {0}, pieces = {0};
    struct rparser pw, pp;
    struct evbuffer *bw = evbuffer_new(), *bp = evbuffer_new();
    if (!bw || !bp) abort();

    rparser_init(&pw, &lim);
    evbuffer_add(bw, stream, len);
    drain(&whole, &pw, bw, true);

    rparser_init(&pp, &lim);
    for (size_t at = 0; at < len && !pieces.error;) {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        size_t n = 1 + rng % max_piece;
        if (n > len - at) n = len - at;
        evbuffer_add(bp, stream + at, n);
        at += n;
        drain(&pieces, &pp, bp, false);
    }

    if (getenv("FUZZ_PRINT"))
        printf("limits bulk=%zu args=%zu inline=%zu\n%s", lim.max_bulk, lim.max_args, lim.max_inline,
               whole.tr.p ? whole.tr.p : "");
    CHECK(whole.tr.n == pieces.tr.n && (whole.tr.n == 0 || memcmp(whole.tr.p, pieces.tr.p, whole.tr.n) == 0),
          "fed at once and in pieces differ:\n--- at once:\n%.*s\n--- in pieces:\n%.*s", (int)whole.tr.n,
          whole.tr.p ? whole.tr.p : "", (int)pieces.tr.n, pieces.tr.p ? pieces.tr.p : "");
    if (!whole.error) {
        CHECK(evbuffer_get_length(bw) == evbuffer_get_length(bp), "unread bytes differ: %zu vs %zu",
              evbuffer_get_length(bw), evbuffer_get_length(bp));
        CHECK(pw.want_args == pp.want_args && pw.bulk_len == pp.bulk_len && pw.args.argc == pp.args.argc,
              "parser states differ");
        CHECK(pw.bulk_len < 0 || (size_t)pw.bulk_len <= lim.max_bulk, "pending bulk over the limit");
        CHECK(pw.want_args < 0 || (size_t)pw.want_args <= lim.max_args, "pending count over the limit");
        for (size_t i = 0; i < pw.args.argc; i++)
            CHECK(pw.args.argv[i].len == pp.args.argv[i].len &&
                      memcmp(pw.args.argv[i].ptr, pp.args.argv[i].ptr, pw.args.argv[i].len) == 0,
                  "half-received argument %zu differs", i);
    }
    rparser_reset(&pw); /* a connection closing with a half-received command */
    rparser_reset(&pp);
    evbuffer_free(bw);
    evbuffer_free(bp);
    free(whole.tr.p);
    free(pieces.tr.p);
    return 0;
}
