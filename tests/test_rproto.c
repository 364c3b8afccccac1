/* test_rproto.c — the Redis protocol without sockets: multibulk and inline
 * requests split at every byte, Redis's protocol error texts under small limits,
 * binary arguments, glob patterns, and reply encoding in RESP2 and RESP3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "redis/rproto.h"

/* ---- helpers ---------------------------------------------------------------- */

static const struct rproto_limits roomy = {.max_bulk = 1 << 20, .max_args = 1024, .max_inline = 64 * 1024};

/* A transcript of what the parser produced: each command as [arg][arg]…
 * (non-printable bytes as \xHH) followed by a newline, and an error as
 * "ERROR: text" that ends the transcript. */
struct transcript {
    char text[8192];
    size_t len;
    bool error;
};

static void tr_add(struct transcript *t, const char *s, size_t n)
{
    assert_true(t->len + n < sizeof(t->text));
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
}

static void tr_command(struct transcript *t, const struct rarg *argv, size_t argc)
{
    for (size_t i = 0; i < argc; i++) {
        assert_non_null(argv[i].ptr);
        assert_int_equal(argv[i].ptr[argv[i].len], '\0'); /* the documented NUL terminator */
        tr_add(t, "[", 1);
        for (size_t j = 0; j < argv[i].len; j++) {
            unsigned char c = (unsigned char)argv[i].ptr[j];
            char esc[8];
            if (c >= 32 && c < 127 && c != '\\') {
                tr_add(t, (const char *)&c, 1);
            } else {
                snprintf(esc, sizeof(esc), "\\x%02x", c);
                tr_add(t, esc, 4);
            }
        }
        tr_add(t, "]", 1);
    }
    tr_add(t, "\n", 1);
}

/* Feeds until the parser needs more bytes or fails; records what it produced. */
static enum rproto_status drain(struct rparser *p, struct evbuffer *in, struct transcript *t)
{
    for (;;) {
        char err[256] = "";
        enum rproto_status st = rparser_feed(p, in, err, sizeof(err));
        if (st == RP_MORE) return st;
        if (st == RP_ERROR) {
            assert_true(err[0] != '\0');
            tr_add(t, "ERROR: ", 7);
            tr_add(t, err, strlen(err));
            t->error = true;
            return st;
        }
        size_t argc;
        struct rarg *argv = rparser_take(p, &argc);
        assert_true(argc >= 1);
        tr_command(t, argv, argc);
        rargs_free(argv, argc);
    }
}

/* Parses all of s[0..n) in one piece. */
static void parse_whole(const struct rproto_limits *lim, const char *s, size_t n, struct transcript *t)
{
    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    assert_non_null(in);
    memset(t, 0, sizeof(*t));
    rparser_init(&p, lim);
    evbuffer_add(in, s, n);
    drain(&p, in, t);
    rparser_reset(&p);
    evbuffer_free(in);
}

/* Parses s[0..n) cut at offset cut into two pieces. */
static void parse_split(const struct rproto_limits *lim, const char *s, size_t n, size_t cut, struct transcript *t)
{
    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    assert_non_null(in);
    memset(t, 0, sizeof(*t));
    rparser_init(&p, lim);
    evbuffer_add(in, s, cut);
    if (drain(&p, in, t) != RP_ERROR) {
        evbuffer_add(in, s + cut, n - cut);
        drain(&p, in, t);
    }
    rparser_reset(&p);
    evbuffer_free(in);
}

/* Parses s[0..n) fed one byte at a time, as a slow client sends it. */
static void parse_bytewise(const struct rproto_limits *lim, const char *s, size_t n, struct transcript *t)
{
    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    assert_non_null(in);
    memset(t, 0, sizeof(*t));
    rparser_init(&p, lim);
    for (size_t i = 0; i < n; i++) {
        evbuffer_add(in, s + i, 1);
        if (drain(&p, in, t) == RP_ERROR) break;
    }
    rparser_reset(&p);
    evbuffer_free(in);
}

/* The transcript of s must be want however s is cut: whole, at every byte
 * boundary into two pieces, and one byte at a time. */
static void expect_parse_lim(const struct rproto_limits *lim, const char *s, size_t n, const char *want)
{
    struct transcript t;
    parse_whole(lim, s, n, &t);
    assert_string_equal(t.text, want);
    for (size_t cut = 0; cut <= n; cut++) {
        parse_split(lim, s, n, cut, &t);
        if (strcmp(t.text, want) != 0) fail_msg("cut at byte %zu of %zu: got \"%s\", want \"%s\"", cut, n, t.text, want);
    }
    parse_bytewise(lim, s, n, &t);
    assert_string_equal(t.text, want);
}

static void expect_parse(const char *s, const char *want) { expect_parse_lim(&roomy, s, strlen(s), want); }

/* ---- multibulk ----------------------------------------------------------------- */

static void test_multibulk_split_everywhere(void **state)
{
    static const char s[] = "*3\r\n$6\r\nSETBIT\r\n$13\r\nuser:sign:98:\r\n$1\r\n9\r\n"
                            "*1\r\n$4\r\nPING\r\n"
                            "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"
                            "*4\r\n$6\r\nBITPOS\r\n$1\r\nk\r\n$1\r\n1\r\n$2\r\n-1\r\n";
    expect_parse_lim(&roomy, s, sizeof(s) - 1,
                     "[SETBIT][user:sign:98:][9]\n"
                     "[PING]\n"
                     "[ECHO][]\n"
                     "[BITPOS][k][1][-1]\n");
}

/* Arguments are binary: NUL, CR, LF and '$' inside a bulk are data. */
static void test_multibulk_binary(void **state)
{
    static const char s[] = "*3\r\n$3\r\nSET\r\n$3\r\na\0b\r\n$8\r\n\r\n$1\r\n\0\xff\r\n";
    expect_parse_lim(&roomy, s, sizeof(s) - 1, "[SET][a\\x00b][\\x0d\\x0a$1\\x0d\\x0a\\x00\\xff]\n");

    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    char err[128];
    size_t argc;
    rparser_init(&p, &roomy);
    evbuffer_add(in, s, sizeof(s) - 1);
    assert_int_equal(rparser_feed(&p, in, err, sizeof(err)), RP_COMMAND);
    struct rarg *argv = rparser_take(&p, &argc);
    assert_int_equal(argc, 3);
    assert_int_equal(argv[1].len, 3);
    assert_memory_equal(argv[1].ptr, "a\0b", 3);
    assert_int_equal(argv[2].len, 8);
    assert_memory_equal(argv[2].ptr, "\r\n$1\r\n\0\xff", 8);
    rargs_free(argv, argc);
    assert_int_equal(evbuffer_get_length(in), 0);
    assert_int_equal(rparser_feed(&p, in, err, sizeof(err)), RP_MORE);
    rparser_reset(&p);
    evbuffer_free(in);
}

/* A command's arguments are one block: their bytes in order, each NUL-terminated,
 * then the array (rproto.h), whether the command came whole or in pieces, as a
 * multibulk of up to 64 arguments (taken in one pass), of more, or inline. */
static void expect_one_block(const struct rarg *argv, size_t argc)
{
    for (size_t i = 0; i + 1 < argc; i++) assert_ptr_equal(argv[i + 1].ptr, argv[i].ptr + argv[i].len + 1);
    assert_true((const char *)argv > argv[argc - 1].ptr + argv[argc - 1].len);
    assert_true((const char *)argv - (argv[argc - 1].ptr + argv[argc - 1].len) <= 8);
}

static void one_block_of(const char *s, size_t n, size_t piece, size_t want_argc)
{
    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    char err[128];
    size_t argc = 0, fed = 0;
    struct rarg *argv = NULL;
    rparser_init(&p, &roomy);
    while (!argv) {
        size_t k = n - fed < piece ? n - fed : piece;
        assert_true(k > 0);
        evbuffer_add(in, s + fed, k);
        fed += k;
        enum rproto_status st = rparser_feed(&p, in, err, sizeof(err));
        assert_int_not_equal(st, RP_ERROR);
        if (st == RP_COMMAND) argv = rparser_take(&p, &argc);
    }
    assert_int_equal(argc, want_argc);
    expect_one_block(argv, argc);
    rargs_free(argv, argc);
    rparser_reset(&p);
    evbuffer_free(in);
}

static void test_args_one_block(void **state)
{
    char s[4096];
    for (size_t nargs = 1; nargs <= 70; nargs += 23) { /* 1, 24, 47 and 70 arguments */
        int n = snprintf(s, sizeof(s), "*%zu\r\n", nargs);
        for (size_t i = 0; i < nargs; i++) /* i % 7 bytes each */
            n += snprintf(s + n, sizeof(s) - (size_t)n, "$%zu\r\n%.*s\r\n", i % 7, (int)(i % 7), "xxxxxxx");
        for (size_t piece = 1; piece <= (size_t)n; piece = piece * 3 + 1) one_block_of(s, (size_t)n, piece, nargs);
    }
    static const char inl[] = "SET \"a b\" c\r\n";
    one_block_of(inl, sizeof(inl) - 1, sizeof(inl), 3);
    one_block_of(inl, sizeof(inl) - 1, 2, 3);
    /* 64 arguments are taken whole, 65 by the slow path: the same commands either way */
    for (size_t nargs = 64; nargs <= 65; nargs++) {
        char want[512] = "";
        size_t wl = 0;
        int n = snprintf(s, sizeof(s), "*%zu\r\n", nargs);
        for (size_t i = 0; i < nargs; i++) {
            n += snprintf(s + n, sizeof(s) - (size_t)n, "$1\r\n%c\r\n", (char)('a' + i % 26));
            wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "[%c]", (char)('a' + i % 26));
        }
        snprintf(want + wl, sizeof(want) - wl, "\n");
        expect_parse_lim(&roomy, s, (size_t)n, want);
    }
}

/* *0 and *-1 are empty commands Redis skips; the next command still parses. */
static void test_multibulk_empty(void **state)
{
    expect_parse("*0\r\n", "");
    expect_parse("*-1\r\n", "");
    expect_parse("*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n*0\r\n", "[PING]\n");
    expect_parse("*1\r\n$0\r\n\r\n", "[]\n");
}

/* A command that is exactly at the limits passes; one more is refused. */
static void test_multibulk_at_limits(void **state)
{
    const struct rproto_limits lim = {.max_bulk = 5, .max_args = 3, .max_inline = 16};
    static const char ok[] = "*3\r\n$5\r\nhello\r\n$5\r\nworld\r\n$0\r\n\r\n";
    expect_parse_lim(&lim, ok, sizeof(ok) - 1, "[hello][world][]\n");
    /* a bulk longer than max_inline is fine: the inline limit is for lines */
    const struct rproto_limits big = {.max_bulk = 100, .max_args = 3, .max_inline = 8};
    char s[200];
    int n = snprintf(s, sizeof(s), "*1\r\n$100\r\n%0100d\r\n", 0);
    char want[120];
    snprintf(want, sizeof(want), "[%0100d]\n", 0);
    expect_parse_lim(&big, s, (size_t)n, want);
}

/* rparser_reset frees a half-parsed command (ASan checks the leak). */
static void test_reset_half_parsed(void **state)
{
    struct rparser p;
    struct evbuffer *in = evbuffer_new();
    char err[128];
    static const char s[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhe";
    rparser_init(&p, &roomy);
    evbuffer_add(in, s, sizeof(s) - 1);
    assert_int_equal(rparser_feed(&p, in, err, sizeof(err)), RP_MORE);
    assert_int_equal(p.args.argc, 2);
    rparser_reset(&p);
    assert_int_equal(p.args.argc, 0);
    assert_null(p.args.argv);
    /* after a reset the parser starts a new command */
    evbuffer_drain(in, evbuffer_get_length(in));
    evbuffer_add(in, "PING\r\n", 6);
    assert_int_equal(rparser_feed(&p, in, err, sizeof(err)), RP_COMMAND);
    size_t argc;
    struct rarg *argv = rparser_take(&p, &argc);
    assert_int_equal(argc, 1);
    assert_string_equal(argv[0].ptr, "PING");
    rargs_free(argv, argc);
    rparser_reset(&p);
    evbuffer_free(in);
}

/* ---- inline ------------------------------------------------------------------- */

static void test_inline_basic(void **state)
{
    expect_parse("PING\r\n", "[PING]\n");
    expect_parse("PING\n", "[PING]\n");
    expect_parse("  SETBIT \t user:sign:98:202204   9  1  \r\n", "[SETBIT][user:sign:98:202204][9][1]\n");
    expect_parse("PING\r\nECHO hi\nGETBIT k 1\r\n", "[PING]\n[ECHO][hi]\n[GETBIT][k][1]\n");
    /* inline and multibulk mixed in one stream */
    expect_parse("PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nPING\r\n", "[PING]\n[ECHO][hi]\n[PING]\n");
}

/* Empty lines and lines of blanks are skipped, as Redis does. */
static void test_inline_empty_lines(void **state)
{
    expect_parse("\r\n", "");
    expect_parse("\n\n\r\n   \r\n\t\n", "");
    expect_parse("\r\n\r\nPING\r\n\r\n", "[PING]\n");
}

static void test_inline_quotes(void **state)
{
    expect_parse("SET \"a b\" 'c d'\r\n", "[SET][a b][c d]\n");
    expect_parse("ECHO \"hel\\x6co\"\r\n", "[ECHO][hello]\n");
    expect_parse("ECHO \"\\x00\\xFF\\xfe\"\r\n", "[ECHO][\\x00\\xff\\xfe]\n");
    expect_parse("ECHO \"a\\nb\\rc\\td\\be\\af\"\r\n", "[ECHO][a\\x0ab\\x0dc\\x09d\\x08e\\x07f]\n");
    expect_parse("ECHO \"q\\\"q\" \"b\\\\s\"\r\n", "[ECHO][q\"q][b\\x5cs]\n");
    /* not a \xHH escape: the x is kept */
    expect_parse("ECHO \"\\xZZ\"\r\n", "[ECHO][xZZ]\n");
    /* single quotes: only \' is an escape */
    expect_parse("ECHO 'it\\'s' '\\x41\\n'\r\n", "[ECHO][it's][\\x5cx41\\x5cn]\n");
    expect_parse("ECHO \"\" ''\r\n", "[ECHO][][]\n");
    /* a quote inside a word opens a quoted part of that word */
    expect_parse("ECHO ab\"c d\"\r\n", "[ECHO][abc d]\n");
    expect_parse("ECHO \"x\"\t'y'\r\n", "[ECHO][x][y]\n");
}

static void test_split_inline_direct(void **state)
{
    struct rarg *argv;
    size_t argc;
    assert_true(rproto_split_inline("a \"b\\x00c\" d", 12, &argv, &argc));
    assert_int_equal(argc, 3);
    assert_int_equal(argv[1].len, 3);
    assert_memory_equal(argv[1].ptr, "b\0c", 3);
    rargs_free(argv, argc);
    assert_true(rproto_split_inline("   ", 3, &argv, &argc));
    assert_int_equal(argc, 0);
    rargs_free(argv, argc);
    assert_true(rproto_split_inline("", 0, &argv, &argc));
    assert_int_equal(argc, 0);
    rargs_free(argv, argc);
    const char *bad[] = {"\"abc", "'abc", "\"abc\"def", "'abc'def", "a \"b", "\"\\\"", NULL};
    for (int i = 0; bad[i]; i++) {
        argv = (struct rarg *)1;
        if (rproto_split_inline(bad[i], strlen(bad[i]), &argv, &argc)) fail_msg("accepted %s", bad[i]);
    }
}

/* ---- protocol errors: Redis's texts ------------------------------------------- */

static void expect_error_lim(const struct rproto_limits *lim, const char *s, const char *want_err)
{
    char want[256];
    snprintf(want, sizeof(want), "ERROR: %s", want_err);
    expect_parse_lim(lim, s, strlen(s), want);
}

static void test_errors(void **state)
{
    const struct rproto_limits lim = {.max_bulk = 8, .max_args = 4, .max_inline = 16};
    expect_error_lim(&lim, "*abc\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&lim, "*\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&lim, "*1x\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&lim, "*5\r\n", "Protocol error: invalid multibulk length"); /* max_args 4 */
    expect_error_lim(&lim, "*99999999999999\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&lim, "*1\r\n:1\r\n", "Protocol error: expected '$', got ':'");
    expect_error_lim(&lim, "*2\r\n$4\r\nECHO\r\nhi\r\n", "Protocol error: expected '$', got 'h'");
    expect_error_lim(&lim, "*1\r\n$x\r\n", "Protocol error: invalid bulk length");
    expect_error_lim(&lim, "*1\r\n$\r\n", "Protocol error: invalid bulk length");
    expect_error_lim(&lim, "*1\r\n$-1\r\n", "Protocol error: invalid bulk length");
    expect_error_lim(&lim, "*1\r\n$9\r\n", "Protocol error: invalid bulk length"); /* max_bulk 8 */
    expect_error_lim(&lim, "SET \"abc\r\n", "Protocol error: unbalanced quotes in request");
    expect_error_lim(&lim, "SET 'a'b\r\n", "Protocol error: unbalanced quotes in request");
    /* no newline within max_inline bytes */
    expect_error_lim(&lim, "PINGPINGPINGPINGPING", "Protocol error: too big inline request");
    expect_error_lim(&lim, "*11111111111111111111", "Protocol error: too big mbulk count string");
    expect_error_lim(&lim, "*1\r\n$11111111111111111111", "Protocol error: too big bulk count string");
    /* commands before the error are still parsed */
    static const char before[] = "PING\r\n*1\r\n$4\r\nPING\r\n*z\r\n";
    expect_parse_lim(&lim, before, sizeof(before) - 1,
                     "[PING]\n[PING]\nERROR: Protocol error: invalid multibulk length");
    /* the bulk at max_bulk passes */
    static const char at_max[] = "*1\r\n$8\r\n12345678\r\n";
    expect_parse_lim(&lim, at_max, sizeof(at_max) - 1, "[12345678]\n");
}

/* An inline or header line either fits max_inline or not, whether its newline
 * arrived with it or later: whole, split and byte-by-byte parses agree at every
 * length; short lines pass and lines past the limit are refused. */
static void test_line_limit_boundary(void **state)
{
    const struct rproto_limits lim = {.max_bulk = 8, .max_args = 4, .max_inline = 16};
    for (size_t n = 1; n <= 24; n++) {
        char s[40], want_ok[40];
        memset(s, 'a', n);
        memcpy(s + n, "\r\n", 2);
        struct transcript whole;
        parse_whole(&lim, s, n + 2, &whole);
        snprintf(want_ok, sizeof(want_ok), "[%.*s]\n", (int)n, s);
        if (n <= 14) assert_string_equal(whole.text, want_ok);
        if (n >= 17) assert_string_equal(whole.text, "ERROR: Protocol error: too big inline request");
        expect_parse_lim(&lim, s, n + 2, whole.text);
        /* the same for a $N header line of that many bytes */
        char h[60];
        int hn = snprintf(h, sizeof(h), "*1\r\n$%0*d\r\n", (int)n - 1, 4);
        memcpy(h + hn, "PING\r\n", 6);
        parse_whole(&lim, h, (size_t)hn + 6, &whole);
        /* zero padding makes the line long; Redis refuses leading zeros, so only
         * "$4" itself parses, and from 17 bytes the length check comes first */
        if (n <= 2) assert_string_equal(whole.text, "[PING]\n");
        else if (n <= 14) assert_string_equal(whole.text, "ERROR: Protocol error: invalid bulk length");
        if (n >= 17) assert_string_equal(whole.text, "ERROR: Protocol error: too big bulk count string");
        expect_parse_lim(&lim, h, (size_t)hn + 6, whole.text);
    }
}

/* Redis 7.0.15 (string2ll) refuses a '+' sign, leading zeros and "-0" in *N and
 * $N lines — "*+1", "*01", "*00", "*-0", "$+4", "$04", "$-0" are invalid multibulk /
 * bulk lengths there (checked against redis-server). */
static void test_lengths_strict_like_redis(void **state)
{
    expect_error_lim(&roomy, "*+1\r\n$4\r\nPING\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&roomy, "*01\r\n$4\r\nPING\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&roomy, "*1\r\n$+4\r\nPING\r\n", "Protocol error: invalid bulk length");
    expect_error_lim(&roomy, "*1\r\n$04\r\nPING\r\n", "Protocol error: invalid bulk length");
    expect_error_lim(&roomy, "*00\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&roomy, "*-0\r\n", "Protocol error: invalid multibulk length");
    expect_error_lim(&roomy, "*1\r\n$-0\r\n\r\n", "Protocol error: invalid bulk length");
}

/* ---- glob ---------------------------------------------------------------------- */

static bool glob(const char *pat, const char *s) { return rproto_glob(pat, strlen(pat), s, strlen(s), false); }
static bool iglob(const char *pat, const char *s) { return rproto_glob(pat, strlen(pat), s, strlen(s), true); }

static void test_glob_star_question(void **state)
{
    assert_true(glob("*", ""));
    assert_true(glob("*", "anything"));
    assert_true(glob("**", "x"));
    assert_true(glob("notice:3:*", "notice:3:17"));
    assert_true(glob("notice:3:*", "notice:3:"));
    assert_false(glob("notice:3:*", "notice:30:1"));
    assert_false(glob("notice:3:*", "notice:3"));
    assert_true(glob("h*llo", "hllo"));
    assert_true(glob("h*llo", "heeeello"));
    assert_true(glob("*llo", "hello"));
    assert_true(glob("a*b*c", "a-b-b-c"));
    assert_false(glob("a*b*c", "a-b-b-cd"));
    assert_true(glob("a*b*c*", "a-b-b-cd"));
    assert_true(glob("h?llo", "hello"));
    assert_false(glob("h?llo", "hllo"));
    assert_false(glob("?", ""));
    assert_true(glob("???", "abc"));
    assert_false(glob("???", "abcd"));
    assert_true(glob("", ""));
    assert_false(glob("", "a"));
    assert_true(glob("abc", "abc"));
    assert_false(glob("abc", "abd"));
    assert_false(glob("abc", "ABC"));
    assert_true(glob("*?", "a"));
    assert_false(glob("*?", ""));
}

static void test_glob_classes(void **state)
{
    assert_true(glob("h[ae]llo", "hello"));
    assert_true(glob("h[ae]llo", "hallo"));
    assert_false(glob("h[ae]llo", "hillo"));
    assert_true(glob("h[^e]llo", "hallo"));
    assert_false(glob("h[^e]llo", "hello"));
    assert_true(glob("h[a-b]llo", "hbllo"));
    assert_false(glob("h[a-b]llo", "hcllo"));
    assert_true(glob("[a-c]", "b"));
    assert_true(glob("[a-c]", "a"));
    assert_true(glob("[a-c]", "c"));
    assert_false(glob("[a-c]", "d"));
    assert_false(glob("[a-c]", ""));
    assert_true(glob("[c-a]", "b")); /* a reversed range, as Redis allows */
    assert_true(glob("[^a]", "b"));
    assert_false(glob("[^a]", "a"));
    assert_true(glob("[^a-c]x", "dx"));
    assert_false(glob("[^a-c]x", "bx"));
    assert_true(glob("[0-9][0-9]", "42"));
    assert_false(glob("[0-9][0-9]", "4a"));
    assert_true(glob("[\\]]", "]"));
    assert_true(glob("[\\-]", "-"));
    assert_true(glob("[a\\-z]", "-"));
    assert_false(glob("[a\\-z]", "m"));
    assert_true(glob("notice:[12]:*", "notice:2:5"));
    assert_false(glob("notice:[12]:*", "notice:3:5"));
}

static void test_glob_escapes(void **state)
{
    assert_true(glob("a\\*b", "a*b"));
    assert_false(glob("a\\*b", "axb"));
    assert_true(glob("a\\?b", "a?b"));
    assert_false(glob("a\\?b", "axb"));
    assert_true(glob("\\[x]", "[x]"));
    assert_false(glob("\\[x]", "x"));
    assert_true(glob("a\\\\b", "a\\b"));
    assert_true(glob("abc\\", "abc\\")); /* a trailing backslash is itself */
    assert_true(glob("\\h\\i", "hi"));
}

static void test_glob_nocase(void **state)
{
    assert_true(iglob("HELLO", "hello"));
    assert_true(iglob("h*LO", "HeLlo"));
    assert_true(iglob("[A-C]x", "bX"));
    assert_true(iglob("[a-c]", "B"));
    assert_false(iglob("[^A-C]", "b"));
    assert_true(iglob("\\A", "a"));
    assert_false(glob("HELLO", "hello"));
    assert_false(glob("[A-C]", "b"));
}

/* Lengths, not NULs, bound both the pattern and the string. */
static void test_glob_binary(void **state)
{
    assert_true(rproto_glob("a?c", 3, "a\0c", 3, false));
    assert_true(rproto_glob("a*", 2, "a\0\0\0", 4, false));
    assert_false(rproto_glob("a\0c", 3, "abc", 3, false));
    assert_true(rproto_glob("a\0c", 3, "a\0c", 3, false));
    assert_true(rproto_glob("abcdef", 3, "abc", 3, false)); /* only plen bytes of the pattern */
    assert_false(rproto_glob("abc", 3, "abcdef", 4, false));
}

/* A pathological pattern finishes quickly (no exponential backtracking). */
static void test_glob_many_stars(void **state)
{
    char pat[64], s[200];
    memset(pat, 0, sizeof(pat));
    for (int i = 0; i < 20; i++) memcpy(pat + 2 * i, "*a", 2);
    pat[40] = 'b';
    memset(s, 'a', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    assert_false(glob(pat, s));
    s[sizeof(s) - 2] = 'b';
    assert_true(glob(pat, s));
}

/* ---- replies -------------------------------------------------------------------- */

/* The bytes written so far, as a NUL-terminated string the caller frees. */
static char *out_text(struct rreply *r, size_t *n)
{
    *n = evbuffer_get_length(r->out);
    char *s = malloc(*n + 1);
    assert_non_null(s);
    evbuffer_remove(r->out, s, *n);
    s[*n] = '\0';
    return s;
}

static void expect_out(struct rreply *r, const char *want, size_t wlen)
{
    size_t n;
    char *s = out_text(r, &n);
    assert_int_equal(n, wlen);
    assert_memory_equal(s, want, wlen);
    free(s);
}

#define EXPECT_OUT(r, lit) expect_out((r), (lit), sizeof(lit) - 1)

static void test_reply_scalars(void **state)
{
    for (int proto = 2; proto <= 3; proto++) {
        struct rreply r = {.out = evbuffer_new(), .proto = proto};
        rr_simple(&r, "OK");
        EXPECT_OUT(&r, "+OK\r\n");
        rr_int(&r, 0);
        rr_int(&r, -1);
        rr_int(&r, 4294967295LL);
        rr_int(&r, INT64_MIN);
        EXPECT_OUT(&r, ":0\r\n:-1\r\n:4294967295\r\n:-9223372036854775808\r\n");
        rr_bulk(&r, "a\0b\r\n", 5);
        EXPECT_OUT(&r, "$5\r\na\0b\r\n\r\n");
        rr_bulk(&r, "", 0);
        EXPECT_OUT(&r, "$0\r\n\r\n");
        rr_cstr(&r, "hello");
        EXPECT_OUT(&r, "$5\r\nhello\r\n");
        rr_array(&r, 0);
        rr_array(&r, 3);
        EXPECT_OUT(&r, "*0\r\n*3\r\n");
        rr_error(&r, "ERR wrong number of arguments for '%s' command", "setbit");
        EXPECT_OUT(&r, "-ERR wrong number of arguments for 'setbit' command\r\n");
        evbuffer_free(r.out);
    }
}

/* An error is one line: CR and LF in its text become spaces; a long one is cut. */
static void test_reply_error_one_line(void **state)
{
    struct rreply r = {.out = evbuffer_new(), .proto = 2};
    rr_error(&r, "ERR a\r\nb\nc%s", "\r");
    EXPECT_OUT(&r, "-ERR a  b c \r\n");
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    rr_error(&r, "ERR %s", big);
    size_t n;
    char *s = out_text(&r, &n);
    assert_true(n > 100 && n < 2000);
    assert_int_equal(s[0], '-');
    assert_memory_equal(s + n - 2, "\r\n", 2);
    assert_null(memchr(s, '\n', n - 1));
    assert_null(memchr(s, '\r', n - 2));
    free(s);
    evbuffer_free(r.out);
}

static void test_reply_resp2(void **state)
{
    struct rreply r = {.out = evbuffer_new(), .proto = 2};
    rr_nil(&r);
    EXPECT_OUT(&r, "$-1\r\n");
    rr_map(&r, 2); /* a map of 2 pairs is a flat array of 4 in RESP2 */
    rr_cstr(&r, "proto");
    rr_int(&r, 2);
    rr_cstr(&r, "id");
    rr_int(&r, 7);
    EXPECT_OUT(&r, "*4\r\n$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:7\r\n");
    rr_map(&r, 0);
    EXPECT_OUT(&r, "*0\r\n");
    rr_set(&r, 3);
    EXPECT_OUT(&r, "*3\r\n");
    rr_verbatim(&r, "# Server\r\nredis_version:7.0.15", 30);
    EXPECT_OUT(&r, "$30\r\n# Server\r\nredis_version:7.0.15\r\n");
    rr_verbatim(&r, "", 0);
    EXPECT_OUT(&r, "$0\r\n\r\n");
    evbuffer_free(r.out);
}

static void test_reply_resp3(void **state)
{
    struct rreply r = {.out = evbuffer_new(), .proto = 3};
    rr_nil(&r);
    EXPECT_OUT(&r, "_\r\n");
    rr_map(&r, 2);
    EXPECT_OUT(&r, "%2\r\n");
    rr_map(&r, 0);
    EXPECT_OUT(&r, "%0\r\n");
    rr_set(&r, 3);
    EXPECT_OUT(&r, "~3\r\n");
    rr_verbatim(&r, "# Server\r\nredis_version:7.0.15", 30); /* 4 bytes "txt:" + 30 */
    EXPECT_OUT(&r, "=34\r\ntxt:# Server\r\nredis_version:7.0.15\r\n");
    rr_verbatim(&r, "", 0);
    EXPECT_OUT(&r, "=4\r\ntxt:\r\n");
    /* what does not change with the protocol */
    rr_array(&r, 2);
    rr_bulk(&r, "x", 1);
    rr_int(&r, 1);
    EXPECT_OUT(&r, "*2\r\n$1\r\nx\r\n:1\r\n");
    evbuffer_free(r.out);
}

/* Replies encoded by rr_* parse back as the same commands: a round trip of
 * arrays of bulks through the request parser (both speak multibulk). */
static void test_reply_roundtrip(void **state)
{
    struct rreply r = {.out = evbuffer_new(), .proto = 2};
    rr_array(&r, 3);
    rr_cstr(&r, "SETBIT");
    rr_bulk(&r, "k\0\r\n", 4);
    rr_cstr(&r, "1");
    size_t n;
    char *s = out_text(&r, &n);
    expect_parse_lim(&roomy, s, n, "[SETBIT][k\\x00\\x0d\\x0a][1]\n");
    free(s);
    evbuffer_free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multibulk_split_everywhere),
        cmocka_unit_test(test_multibulk_binary),
        cmocka_unit_test(test_multibulk_empty),
        cmocka_unit_test(test_args_one_block),
        cmocka_unit_test(test_multibulk_at_limits),
        cmocka_unit_test(test_reset_half_parsed),
        cmocka_unit_test(test_inline_basic),
        cmocka_unit_test(test_inline_empty_lines),
        cmocka_unit_test(test_inline_quotes),
        cmocka_unit_test(test_split_inline_direct),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_line_limit_boundary),
        cmocka_unit_test(test_lengths_strict_like_redis),
        cmocka_unit_test(test_glob_star_question),
        cmocka_unit_test(test_glob_classes),
        cmocka_unit_test(test_glob_escapes),
        cmocka_unit_test(test_glob_nocase),
        cmocka_unit_test(test_glob_binary),
        cmocka_unit_test(test_glob_many_stars),
        cmocka_unit_test(test_reply_scalars),
        cmocka_unit_test(test_reply_error_one_line),
        cmocka_unit_test(test_reply_resp2),
        cmocka_unit_test(test_reply_resp3),
        cmocka_unit_test(test_reply_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
