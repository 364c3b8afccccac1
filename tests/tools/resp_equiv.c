/* resp_equiv.c — differential test of the bitmap, string, keyspace and expiry
 * commands over RESP: the same seeded random commands go to a reference Redis (A)
 * and to the server under test (B), and the first reply that differs in any byte
 * stops the run; after every write, every key's deadline must agree too.
 * Usage: see usage() below. Exit 0: no mismatch; 1: mismatch; 2: setup error. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#define NKEYS 8
#define MAX_ARGS 40
#define ARENA_SIZE 4096
#define RUN_SECONDS 120
/* No key may grow past this many bytes on A: Redis then never allocates more
 * than about 1 MB for us and a GET of any key stays cheap. */
#define LEN_LIMIT 1000000LL
/* Largest "big" bit offset drawn; writes beyond LEN_LIMIT are redrawn anyway. */
#define BIG_BIT_OFFSET (LEN_LIMIT * 8 - 64)
/* Redis rejects a bit offset whose byte index reaches proto-max-bulk-len
 * (512 MB), and a SETRANGE whose end passes it; both allocate nothing. */
#define REDIS_MAX_BULK (512LL * 1024 * 1024)
/* How much of a long string a report shows. */
#define SHOW_BYTES 200

struct options {
    const char *addr[2]; /* A (reference), B (under test) as HOST:PORT */
    const char *password;
    const char *prefix;
    const char *log_path;
    uint64_t seed;
    long count;
    bool redis8; /* also send the BITOP operators added in Redis 8 */
};

/* One command being built: argv points into arena. */
struct cmd {
    int argc;
    const char *argv[MAX_ARGS];
    size_t len[MAX_ARGS];
    char arena[ARENA_SIZE];
    size_t used;
    long long grows_to; /* longest any key can become on A; 0 for none */
};

struct gen {
    uint64_t rng;
    const char *prefix;
    bool redis8;
    long long len[NKEYS]; /* STRLEN of each key on A after the last write */
    long long dl[2][NKEYS]; /* PEXPIRETIME of each key on A and on B after the last write */
};

typedef void gen_fn(struct gen *g, struct cmd *c);

/* ---- random numbers (xorshift64*, so a seed reproduces a run) ------------- */

static uint64_t rng_next(struct gen *g)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n); 0 when n is 0. */
static uint64_t rnd(struct gen *g, uint64_t n)
{
    return n ? (rng_next(g) >> 11) % n : 0;
}

/* Uniform in [lo, hi]; unsigned arithmetic, as hi - lo may pass LLONG_MAX. */
static long long rnd_range(struct gen *g, long long lo, long long hi)
{
    return (long long)((uint64_t)lo + rnd(g, (uint64_t)hi - (uint64_t)lo + 1));
}

static bool chance(struct gen *g, unsigned percent)
{
    return rnd(g, 100) < percent;
}

/* ---- building a command --------------------------------------------------- */

static void cmd_reset(struct cmd *c)
{
    c->argc = 0;
    c->used = 0;
    c->grows_to = 0;
}

static void cmd_push(struct cmd *c, const void *data, size_t n)
{
    if (c->argc == MAX_ARGS || c->used + n + 1 > ARENA_SIZE) {
        fprintf(stderr, "resp_equiv: internal error: command too large\n");
        abort();
    }
    char *dst = c->arena + c->used;
    memcpy(dst, data, n);
    dst[n] = '\0';
    c->argv[c->argc] = dst;
    c->len[c->argc] = n;
    c->argc++;
    c->used += n + 1;
}

static void cmd_push_str(struct cmd *c, const char *s)
{
    cmd_push(c, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void cmd_pushf(struct cmd *c, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cmd_push(c, buf, n < 0 ? 0 : (size_t)n);
}

static void grows(struct cmd *c, long long len)
{
    if (len > c->grows_to)
        c->grows_to = len;
}

/* Keywords go out in upper, lower or mixed case: Redis matches them without
 * regard to case, and a reimplementation must too. */
static void push_word(struct gen *g, struct cmd *c, const char *word)
{
    char buf[64];
    size_t n = strlen(word);
    unsigned style = (unsigned)rnd(g, 20);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    for (size_t i = 0; i < n; i++) {
        char ch = word[i];
        if (style == 0 || (style == 1 && (i & 1)))
            ch = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
        buf[i] = ch;
    }
    cmd_push(c, buf, n);
}

static int pick_key(struct gen *g)
{
    return (int)rnd(g, NKEYS);
}

static void push_key(struct gen *g, struct cmd *c, int k)
{
    cmd_pushf(c, "%sk%d", g->prefix, k);
}

static int push_any_key(struct gen *g, struct cmd *c)
{
    int k = pick_key(g);
    push_key(g, c, k);
    return k;
}

/* A short value, often binary: NUL and 0xff bytes are common. */
static size_t push_value(struct gen *g, struct cmd *c)
{
    unsigned char buf[64];
    size_t n;
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 10)
        n = 0;
    else if (r < 70)
        n = (size_t)rnd_range(g, 1, 8);
    else if (r < 95)
        n = (size_t)rnd_range(g, 9, 32);
    else
        n = (size_t)rnd_range(g, 33, 64);
    for (size_t i = 0; i < n; i++) {
        unsigned kind = (unsigned)rnd(g, 20);
        if (kind < 10)
            buf[i] = (unsigned char)('a' + rnd(g, 26));
        else if (kind < 13)
            buf[i] = 0;
        else if (kind < 16)
            buf[i] = 0xff;
        else
            buf[i] = (unsigned char)rnd(g, 256);
    }
    cmd_push(c, buf, n);
    return n;
}

/* ---- numbers: realistic and edge ------------------------------------------ */

/* An edge spelling and the bit offset Redis takes it for (-1: rejected with
 * "bit offset is not an integer or out of range"). Redis parses with
 * string2ll: no '+', no spaces, no leading zeros, no "-0". */
struct edge {
    const char *text;
    long long val;
};

static const struct edge bit_offset_edges[] = {
    {"0", 0},
    {"7", 7},
    {"8", 8},
    {"-1", -1},
    {"abc", -1},
    {"", -1},
    {"01", -1},
    {"-0", -1},
    {"+5", -1},
    {" 3", -1},
    {"3 ", -1},
    {"1.5", -1},
    {"0x10", -1},
    {"4294967288", 4294967288LL}, /* valid, so only ever read */
    {"4294967295", 4294967295LL}, /* last valid bit: SETBIT would take 512 MB */
    {"4294967296", -1},
    {"9223372036854775807", -1},
    {"-9223372036854775808", -1},
    {"18446744073709551616", -1},
    {"99999999999999999999999", -1},
};

static const char *const index_edges[] = {
    "0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "abc",
    "",
    "01",
    "-0",
    "+1",
    "1e2",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Pushes a bit offset; returns the offset Redis accepts it as, -1 if none. */
static long long push_bit_offset(struct gen *g, struct cmd *c)
{
    unsigned r = (unsigned)rnd(g, 100);
    long long off;
    if (r < 75)
        off = rnd_range(g, 0, 300);
    else if (r < 84)
        off = rnd_range(g, 0, 4095);
    else if (r < 87)
        off = rnd_range(g, 0, BIG_BIT_OFFSET);
    else {
        const struct edge *e = &bit_offset_edges[rnd(g, COUNT_OF(bit_offset_edges))];
        cmd_push_str(c, e->text);
        return e->val;
    }
    cmd_pushf(c, "%lld", off);
    return off;
}

/* Bytes a write of `bits` bits at bit offset `off` makes the string span. */
static long long bit_write_len(long long off, int bits)
{
    if (off < 0 || (off >> 3) >= REDIS_MAX_BULK)
        return 0;
    return (off + bits - 1) / 8 + 1;
}

/* A range index (BITCOUNT, BITPOS, GETRANGE): small, around the key's length
 * in bytes or in bits, negative, or an edge spelling. */
static void push_index(struct gen *g, struct cmd *c, long long keylen)
{
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 40)
        cmd_pushf(c, "%lld", rnd_range(g, -20, 40));
    else if (r < 60)
        cmd_pushf(c, "%lld", rnd_range(g, -(keylen + 5), keylen + 5));
    else if (r < 75)
        cmd_pushf(c, "%lld", rnd_range(g, -(keylen * 8 + 10), keylen * 8 + 10));
    else if (r < 88)
        cmd_push_str(c, rnd(g, 2) ? "0" : "-1");
    else
        cmd_push_str(c, index_edges[rnd(g, COUNT_OF(index_edges))]);
}

static void push_unit(struct gen *g, struct cmd *c)
{
    static const char *const bad[] = {"BITS", "BYTES", "", "0"};
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 45)
        push_word(g, c, "BYTE");
    else if (r < 90)
        push_word(g, c, "BIT");
    else
        cmd_push_str(c, bad[rnd(g, COUNT_OF(bad))]);
}

/* ---- one generator per command ------------------------------------------- */

/* SETBIT key offset value */
static void gen_setbit(struct gen *g, struct cmd *c)
{
    static const char *const bad[] = {"2", "-1", "abc", "", "01", "10", " 1"};
    push_any_key(g, c);
    long long off = push_bit_offset(g, c);
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 60)
        cmd_push_str(c, "1");
    else if (r < 92)
        cmd_push_str(c, "0");
    else
        cmd_push_str(c, bad[rnd(g, COUNT_OF(bad))]);
    grows(c, bit_write_len(off, 1));
}

/* GETBIT key offset */
static void gen_getbit(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    (void)push_bit_offset(g, c);
}

/* BITCOUNT key [start end [BYTE|BIT]] */
static void gen_bitcount(struct gen *g, struct cmd *c)
{
    int k = push_any_key(g, c);
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 25)
        return;
    push_index(g, c, g->len[k]);
    if (r < 30) /* start without end: syntax error */
        return;
    push_index(g, c, g->len[k]);
    if (r < 65)
        return;
    push_unit(g, c);
    if (r < 96)
        return;
    push_word(g, c, "BIT");
}

/* BITPOS key bit [start [end [BYTE|BIT]]] */
static void gen_bitpos(struct gen *g, struct cmd *c)
{
    static const char *const bad_bit[] = {"2", "-1", "a", "", "01"};
    int k = push_any_key(g, c);
    if (chance(g, 92))
        cmd_push_str(c, rnd(g, 2) ? "1" : "0");
    else
        cmd_push_str(c, bad_bit[rnd(g, COUNT_OF(bad_bit))]);
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 25)
        return;
    push_index(g, c, g->len[k]);
    if (r < 45)
        return;
    push_index(g, c, g->len[k]);
    if (r < 70)
        return;
    push_unit(g, c);
    if (r < 96)
        return;
    cmd_push_str(c, "1");
}

/* BITOP operation destkey key [key ...] */
static void gen_bitop(struct gen *g, struct cmd *c)
{
    static const char *const ops[] = {"AND", "OR", "XOR", "NOT", "DIFF", "DIFF1", "ANDOR", "ONE"};
    static const char *const bad_ops[] = {"NAND", "", "ANDX", "NOT1"};
    size_t nops = g->redis8 ? COUNT_OF(ops) : 4;
    const char *op = ops[rnd(g, nops)];
    if (chance(g, 3))
        cmd_push_str(c, bad_ops[rnd(g, COUNT_OF(bad_ops))]);
    else
        push_word(g, c, op);
    int dest = push_any_key(g, c);
    int nsrc = strcmp(op, "NOT") == 0 && chance(g, 85) ? 1 : (int)rnd_range(g, 1, 3);
    for (int i = 0; i < nsrc; i++) {
        int k = chance(g, 20) ? dest : pick_key(g);
        if (chance(g, 8)) /* a key that never exists */
            cmd_pushf(c, "%smissing", g->prefix);
        else
            push_key(g, c, k);
        grows(c, g->len[k]);
    }
}

/* A BITFIELD type: i1..i64 and u1..u63, or an invalid one. Returns its width
 * (64 when invalid, so that growth is over- rather than under-estimated). */
static int push_bitfield_type(struct gen *g, struct cmd *c)
{
    static const char *const bad[] = {"u64", "i65", "x8", "i0", "u0", "I8", "U8", "i",
                                      "u-1", "i08", "i 8", "8", ""};
    static const int common[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64};
    if (chance(g, 7)) {
        cmd_push_str(c, bad[rnd(g, COUNT_OF(bad))]);
        return 64;
    }
    bool sign = rnd(g, 2);
    int bits = chance(g, 60) ? common[rnd(g, COUNT_OF(common))] : (int)rnd_range(g, 1, 64);
    if (!sign && bits == 64)
        bits = 63;
    cmd_pushf(c, "%c%d", sign ? 'i' : 'u', bits);
    return bits;
}

/* A BITFIELD offset: plain bits or "#N" (N times the type's width). */
static long long push_bitfield_offset(struct gen *g, struct cmd *c, int bits)
{
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 78)
        return push_bit_offset(g, c);
    if (r < 96) {
        long long n = rnd_range(g, 0, 40);
        cmd_pushf(c, "#%lld", n);
        return n * bits;
    }
    static const char *const bad[] = {"#-1", "#abc", "#", "##1", "#99999999999999999999"};
    cmd_push_str(c, bad[rnd(g, COUNT_OF(bad))]);
    return -1;
}

/* A SET value or INCRBY increment: in range, at the edges, or not a number. */
static void push_bitfield_value(struct gen *g, struct cmd *c, int bits)
{
    static const char *const edges[] = {"0",
                                        "-1",
                                        "1",
                                        "9223372036854775807",
                                        "-9223372036854775808",
                                        "9223372036854775808",
                                        "abc",
                                        "",
                                        "1.5",
                                        "+1"};
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 55) {
        long long span = bits >= 63 ? 1000000 : 1LL << bits;
        cmd_pushf(c, "%lld", rnd_range(g, -span, span));
    } else if (r < 75) {
        cmd_pushf(c, "%lld", rnd_range(g, -5, 5));
    } else if (r < 88) {
        cmd_pushf(c, "%lld", (long long)rng_next(g));
    } else {
        cmd_push_str(c, edges[rnd(g, COUNT_OF(edges))]);
    }
}

/* One BITFIELD subcommand; `ro` leans towards GET. */
static void push_bitfield_op(struct gen *g, struct cmd *c, bool ro)
{
    static const char *const overflows[] = {"WRAP", "SAT", "FAIL"};
    unsigned r = (unsigned)rnd(g, 100);
    if (ro)
        r = r < 92 ? 0 : 40 + (unsigned)rnd(g, 60);
    if (r < 35) {
        push_word(g, c, "GET");
        int bits = push_bitfield_type(g, c);
        (void)push_bitfield_offset(g, c, bits);
    } else if (r < 85) {
        push_word(g, c, r < 62 ? "SET" : "INCRBY");
        int bits = push_bitfield_type(g, c);
        long long off = push_bitfield_offset(g, c, bits);
        push_bitfield_value(g, c, bits);
        grows(c, bit_write_len(off, bits));
    } else if (r < 97) {
        push_word(g, c, "OVERFLOW");
        if (chance(g, 92))
            push_word(g, c, overflows[rnd(g, COUNT_OF(overflows))]);
        else
            cmd_push_str(c, chance(g, 50) ? "FOO" : "");
    } else {
        push_word(g, c, chance(g, 50) ? "DEL" : "GETX");
    }
}

/* BITFIELD key [GET type offset | SET type offset value |
 *               INCRBY type offset increment | OVERFLOW WRAP|SAT|FAIL] ... */
static void gen_bitfield(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    int nops = chance(g, 5) ? 0 : (int)rnd_range(g, 1, 4);
    for (int i = 0; i < nops; i++)
        push_bitfield_op(g, c, false);
}

/* BITFIELD_RO key [GET type offset ...] */
static void gen_bitfield_ro(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    int nops = chance(g, 5) ? 0 : (int)rnd_range(g, 1, 3);
    for (int i = 0; i < nops; i++)
        push_bitfield_op(g, c, true);
}

/* GET key | STRLEN key | TYPE key */
static void gen_one_key(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
}

/* SET key value */
static void gen_set(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    grows(c, (long long)push_value(g, c));
}

/* GETRANGE key start end */
static void gen_getrange(struct gen *g, struct cmd *c)
{
    int k = push_any_key(g, c);
    push_index(g, c, g->len[k]);
    push_index(g, c, g->len[k]);
}

/* SETRANGE key offset value */
static void gen_setrange(struct gen *g, struct cmd *c)
{
    static const struct edge edges[] = {
        {"-1", -1},
        {"abc", -1},
        {"01", -1},
        {"536870911", 536870911LL},
        {"536870912", 536870912LL},
        {"4294967296", 4294967296LL},
        {"9223372036854775807", 9223372036854775807LL},
        {"9223372036854775808", -1},
    };
    int k = push_any_key(g, c);
    long long off;
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 75) {
        off = rnd_range(g, 0, 300);
        cmd_pushf(c, "%lld", off);
    } else if (r < 88) {
        off = rnd_range(g, 0, g->len[k] + 8);
        cmd_pushf(c, "%lld", off);
    } else {
        const struct edge *e = &edges[rnd(g, COUNT_OF(edges))];
        cmd_push_str(c, e->text);
        off = e->val;
    }
    long long n = (long long)push_value(g, c);
    /* Nothing is written for an empty value; past 512 MB Redis refuses. */
    if (n > 0 && off >= 0 && off <= REDIS_MAX_BULK - n)
        grows(c, off + n);
}

/* APPEND key value */
static void gen_append(struct gen *g, struct cmd *c)
{
    int k = push_any_key(g, c);
    grows(c, g->len[k] + (long long)push_value(g, c));
}

/* DEL key [key ...] | UNLINK key [key ...] | EXISTS key [key ...] */
static void gen_keys(struct gen *g, struct cmd *c)
{
    int n = (int)rnd_range(g, 1, 4);
    for (int i = 0; i < n; i++)
        push_any_key(g, c);
}

/* RENAME key newkey */
static void gen_rename(struct gen *g, struct cmd *c)
{
    int src = push_any_key(g, c);
    if (chance(g, 10))
        push_key(g, c, src);
    else
        push_any_key(g, c);
    grows(c, g->len[src]);
}

/* COPY source destination [REPLACE] */
static void gen_copy(struct gen *g, struct cmd *c)
{
    int src = push_any_key(g, c);
    if (chance(g, 8))
        push_key(g, c, src);
    else
        push_any_key(g, c);
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 40)
        push_word(g, c, "REPLACE");
    else if (r < 45)
        cmd_push_str(c, "REPLAC");
    grows(c, g->len[src]);
}

/* A value for the counters: integers at and near the edges of 64 bits, and text
 * that is almost one (a sign, a leading zero, a space) or is not. */
static size_t push_number(struct gen *g, struct cmd *c)
{
    static const char *const odd[] = {"9223372036854775807", "-9223372036854775808", "9223372036854775806",
                                      "-9223372036854775807", "9223372036854775808", "0", "-0", "007", "+1",
                                      " 1", "1 ", "1.5", "", "12a", "-", "18446744073709551616"};
    char buf[32];
    int n;
    if (chance(g, 4)) {
        const char *t = odd[rnd(g, COUNT_OF(odd))];
        cmd_push_str(c, t);
        return strlen(t);
    }
    n = snprintf(buf, sizeof buf, "%lld", (long long)rnd_range(g, -1000, 1000));
    cmd_push(c, buf, (size_t)n);
    return (size_t)n;
}

/* SET key <integer-ish>: gives the counters something to count */
static void gen_set_number(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    grows(c, (long long)push_number(g, c));
}

/* INCRBY key n | DECRBY key n */
static void gen_incrby(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    push_number(g, c);
    grows(c, 21);
}

/* INCR key | DECR key */
static void gen_incr(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    grows(c, 21);
}

/* MGET key [key ...] */
static void gen_mget(struct gen *g, struct cmd *c)
{
    int n = (int)rnd_range(g, 1, 5);
    for (int i = 0; i < n; i++) push_any_key(g, c);
}

/* MSET key value [key value ...] | MSETNX …, sometimes a key without its value */
static void gen_mset(struct gen *g, struct cmd *c)
{
    int n = (int)rnd_range(g, 1, 4);
    for (int i = 0; i < n; i++) {
        push_any_key(g, c);
        if (chance(g, 3))
            grows(c, (long long)push_number(g, c));
        else
            grows(c, (long long)push_value(g, c));
    }
    if (chance(g, 12)) push_any_key(g, c); /* odd: the arity error */
}

/* SETNX key value | GETSET key value */
static void gen_key_value(struct gen *g, struct cmd *c)
{
    push_any_key(g, c);
    grows(c, (long long)push_value(g, c));
}

/* ---- expiry ----------------------------------------------------------------
 * No key may expire by itself during a run, or A and B would disagree on when: a
 * deadline is far ahead (absolute: fixed dates of 2100 and later, the same on both;
 * relative: 1000 s or more, longer than any run) or already past (the key is deleted
 * at once). A deadline set relative to now differs between A and B by the ms between
 * their clocks' readings, so what depends on it (TTL, EXPIRETIME, GT/LT against it) is
 * asked only when both must answer alike, judged from both servers' deadlines (g->dl). */

/* Milliseconds a command may take to reach both servers after it is drawn. */
#define TIME_MARGIN_MS 300
/* A relative deadline is compared (GT, LT) only with one at least this far from it. */
#define COMPARE_MARGIN_MS 100000LL

static long long wall_ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *const abs_seconds[] = {"4102444800", "4102444801", "4133980800", "7258118400", "9223372036854775"};
static const char *const abs_millis[] = {"4102444800000", "4102444800001", "4102444800499", "4102444800500",
                                         "4133980800999", "9223372036854775807"};
static const char *const past_seconds[] = {"1", "1000", "1600000000"};
static const char *const past_millis[] = {"1", "999", "1600000000000"};
static const long long rel_seconds[] = {1000, 2000, 5000, 100000, 1000000};
static const char *const bad_times[] = {"abc", "", "1.5", "+1", "01", "1e3", "9223372036854775808"};

/* Pushes a time for EX/PX/EXAT/PXAT or EXPIRE…: far ahead, past, zero or negative,
 * not a number, or at the edges of 64 bits. *approx is the deadline in ms it stands
 * for, about (LLONG_MIN when it sets none that could be compared). */
static void push_time(struct gen *g, struct cmd *c, bool seconds, bool relative, bool expire_cmd, long long *approx)
{
    unsigned r = (unsigned)rnd(g, 100);
    long long now = wall_ms_now();
    *approx = LLONG_MIN;
    if (r < 55) { /* far ahead */
        if (relative) {
            long long v = rel_seconds[rnd(g, COUNT_OF(rel_seconds))];
            long long ms = v * 1000 + (seconds ? 0 : (long long)rnd(g, 1000));
            cmd_pushf(c, "%lld", seconds ? v : ms);
            *approx = now + ms;
        } else {
            const char *t = seconds ? abs_seconds[rnd(g, COUNT_OF(abs_seconds))] : abs_millis[rnd(g, COUNT_OF(abs_millis))];
            long long v = strtoll(t, NULL, 10);
            cmd_push_str(c, t);
            *approx = seconds ? v * 1000 : v;
        }
    } else if (r < 72) { /* already past, zero or negative */
        unsigned q = (unsigned)rnd(g, 4);
        if (q == 0)
            cmd_push_str(c, "0");
        else if (q == 1)
            cmd_push_str(c, chance(g, 50) ? "-1" : "-1000");
        else if (relative)
            cmd_push_str(c, "-5");
        else
            cmd_push_str(c, seconds ? past_seconds[rnd(g, COUNT_OF(past_seconds))] : past_millis[rnd(g, COUNT_OF(past_millis))]);
        *approx = 0;
    } else if (r < 88) {
        cmd_push_str(c, bad_times[rnd(g, COUNT_OF(bad_times))]);
    } else {
        /* the edges of the conversions: ×1000, + now, and for EXPIRE the negative side */
        static const char *const edges_s[] = {"9223372036854775", "9223372036854776", "-9223372036854775",
                                              "-9223372036854776", "9223372036854775807", "-9223372036854775808"};
        static const char *const edges_ms[] = {"9223372036854775807", "-9223372036854775808", "9223370000000000000",
                                               "9223372036854775806"};
        const char *t = seconds ? edges_s[rnd(g, COUNT_OF(edges_s))] : edges_ms[rnd(g, COUNT_OF(edges_ms))];
        if (!expire_cmd && t[0] == '-')
            t = "-1";
        cmd_push_str(c, t);
        if (strcmp(t, "9223370000000000000") == 0) /* PEXPIRE/PX: a deadline near 2^63, relative */
            *approx = relative ? now + 9223370000000000000LL : 9223370000000000000LL;
        else if (strcmp(t, "9223372036854775806") == 0 && !relative)
            *approx = 9223372036854775806LL;
        else if (strcmp(t, "9223372036854775807") == 0 && !relative && !seconds)
            *approx = 9223372036854775807LL;
        else if (strcmp(t, "9223372036854775") == 0 && !relative)
            *approx = 9223372036854775000LL;
    }
}

/* Whether a new deadline near `approx` may be compared with key k's on both sides:
 * it is exact (absolute) or far from it. */
static bool comparable(const struct gen *g, int k, long long approx, bool relative)
{
    if (!relative || approx == LLONG_MIN)
        return true;
    for (int s = 0; s < 2; s++) {
        long long d = g->dl[s][k];
        if (d >= 0 && (approx - d < COMPARE_MARGIN_MS && d - approx < COMPARE_MARGIN_MS))
            return false;
    }
    return true;
}

/* EXPIRE key seconds [NX|XX|GT|LT] | PEXPIRE | EXPIREAT | PEXPIREAT */
static void gen_expire(struct gen *g, struct cmd *c, bool seconds, bool relative)
{
    static const char *const flags[] = {"NX", "XX", "GT", "LT"};
    static const char *const bad[] = {"FOO", "NXX", "", "G T", "EX"};
    int k = push_any_key(g, c);
    long long approx;
    push_time(g, c, seconds, relative, true, &approx);
    unsigned r = (unsigned)rnd(g, 100);
    int n = r < 45 ? 0 : r < 85 ? 1 : r < 95 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        if (chance(g, 6)) {
            cmd_push_str(c, bad[rnd(g, COUNT_OF(bad))]);
            continue;
        }
        const char *f = flags[rnd(g, COUNT_OF(flags))];
        if ((f[0] == 'G' || f[0] == 'L') && !comparable(g, k, approx, relative))
            f = "XX"; /* a comparison that the ms between A and B could decide */
        push_word(g, c, f);
    }
}

static void gen_expire_s(struct gen *g, struct cmd *c) { gen_expire(g, c, true, true); }
static void gen_pexpire(struct gen *g, struct cmd *c) { gen_expire(g, c, false, true); }
static void gen_expireat(struct gen *g, struct cmd *c) { gen_expire(g, c, true, false); }
static void gen_pexpireat(struct gen *g, struct cmd *c) { gen_expire(g, c, false, false); }

/* Redis's seconds of a deadline: (ms + 500) / 1000, also for one near 2^63. */
static long long round_seconds(long long ms)
{
    return (long long)(((uint64_t)ms + 500) / 1000);
}

/* Would TTL (ttl) or EXPIRETIME (!ttl) of key k answer alike on A and B, at any
 * moment of the next TIME_MARGIN_MS? PTTL and PEXPIRETIME: only without a deadline. */
static bool deadline_answer_alike(const struct gen *g, int k, bool ttl, bool ms)
{
    long long a = g->dl[0][k], b = g->dl[1][k];
    if (a < 0 || b < 0)
        return a == b;
    if (ms)
        return !ttl && a == b;
    if (!ttl)
        return round_seconds(a) == round_seconds(b);
    long long now = wall_ms_now(), ea = a - now, eb = b - now;
    if (ea < 2 * TIME_MARGIN_MS || eb < 2 * TIME_MARGIN_MS)
        return false;
    long long s = (ea + 500) / 1000;
    return s == (eb + 500) / 1000 && s == (ea - TIME_MARGIN_MS + 500) / 1000 &&
           s == (eb - TIME_MARGIN_MS + 500) / 1000;
}

/* TTL | PTTL | EXPIRETIME | PEXPIRETIME of a key whose answer cannot depend on the ms */
static void gen_deadline_read(struct gen *g, struct cmd *c, bool ttl, bool ms)
{
    int k = pick_key(g), with[NKEYS], n = 0;
    for (int i = 0; i < NKEYS; i++)
        if (g->dl[0][i] >= 0 && deadline_answer_alike(g, i, ttl, ms))
            with[n++] = i;
    if (n && chance(g, 70)) /* keys with a deadline are the interesting ones */
        k = with[rnd(g, (uint64_t)n)];
    for (int i = 0; i < NKEYS && !deadline_answer_alike(g, k, ttl, ms); i++)
        k = (k + 1) % NKEYS;
    if (deadline_answer_alike(g, k, ttl, ms))
        push_key(g, c, k);
    else
        cmd_pushf(c, "%smissing", g->prefix);
}

static void gen_ttl(struct gen *g, struct cmd *c) { gen_deadline_read(g, c, true, false); }
static void gen_pttl(struct gen *g, struct cmd *c) { gen_deadline_read(g, c, true, true); }
static void gen_expiretime(struct gen *g, struct cmd *c) { gen_deadline_read(g, c, false, false); }
static void gen_pexpiretime(struct gen *g, struct cmd *c) { gen_deadline_read(g, c, false, true); }

/* A time option of SET or GETEX, sometimes without its value (a syntax error). */
static void push_time_option(struct gen *g, struct cmd *c, bool last)
{
    static const char *const words[] = {"EX", "PX", "EXAT", "PXAT"};
    unsigned w = (unsigned)rnd(g, COUNT_OF(words));
    long long approx;
    push_word(g, c, words[w]);
    if (last && chance(g, 5))
        return;
    push_time(g, c, w == 0 || w == 2, w < 2, false, &approx);
}

/* SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL], in any order and
 * sometimes in combinations Redis refuses */
static void gen_set_expiry(struct gen *g, struct cmd *c)
{
    static const char *const words[] = {"NX", "XX", "GET", "KEEPTTL", "PERSIST", "GETX"};
    push_any_key(g, c);
    grows(c, (long long)push_value(g, c));
    int n = (int)rnd_range(g, 1, 3);
    for (int i = 0; i < n; i++) {
        if (chance(g, 55))
            push_time_option(g, c, i == n - 1);
        else
            push_word(g, c, words[rnd(g, chance(g, 90) ? 4 : COUNT_OF(words))]);
    }
}

/* GETEX key [EX s|PX ms|EXAT t|PXAT t|PERSIST] */
static void gen_getex(struct gen *g, struct cmd *c)
{
    static const char *const words[] = {"PERSIST", "NX", "KEEPTTL", "GET"};
    push_any_key(g, c);
    unsigned r = (unsigned)rnd(g, 100);
    int n = r < 15 ? 0 : r < 90 ? 1 : 2;
    for (int i = 0; i < n; i++) {
        if (chance(g, 75))
            push_time_option(g, c, i == n - 1);
        else
            push_word(g, c, words[chance(g, 70) ? 0 : rnd(g, COUNT_OF(words))]);
    }
}

/* The commands and how often each is drawn (weights out of their sum). */
static const struct cmd_spec {
    const char *name;
    gen_fn *gen;
    int weight;
    bool writes;
} cmd_specs[] = {
    {"SETBIT", gen_setbit, 16, true},
    {"GETBIT", gen_getbit, 8, false},
    {"BITCOUNT", gen_bitcount, 8, false},
    {"BITPOS", gen_bitpos, 8, false},
    {"BITOP", gen_bitop, 7, true},
    {"BITFIELD", gen_bitfield, 9, true},
    {"BITFIELD_RO", gen_bitfield_ro, 4, false},
    {"GET", gen_one_key, 5, false},
    {"SET", gen_set, 4, true},
    {"STRLEN", gen_one_key, 3, false},
    {"GETRANGE", gen_getrange, 4, false},
    {"SETRANGE", gen_setrange, 4, true},
    {"APPEND", gen_append, 3, true},
    {"DEL", gen_keys, 2, true},
    {"UNLINK", gen_keys, 1, true},
    {"EXISTS", gen_keys, 2, false},
    {"TYPE", gen_one_key, 1, false},
    {"RENAME", gen_rename, 2, true},
    {"COPY", gen_copy, 2, true},
    {"MGET", gen_mget, 3, false},
    {"MSET", gen_mset, 2, true},
    {"MSETNX", gen_mset, 2, true},
    {"SETNX", gen_key_value, 2, true},
    {"GETSET", gen_key_value, 2, true},
    {"GETDEL", gen_one_key, 2, true},
    {"SET", gen_set_number, 3, true}, /* a number to count */
    {"INCR", gen_incr, 3, true},
    {"DECR", gen_incr, 2, true},
    {"INCRBY", gen_incrby, 3, true},
    {"DECRBY", gen_incrby, 2, true},
    {"SET", gen_set_expiry, 4, true}, /* with EX, PX, EXAT, PXAT, KEEPTTL */
    {"EXPIRE", gen_expire_s, 3, true},
    {"PEXPIRE", gen_pexpire, 2, true},
    {"EXPIREAT", gen_expireat, 2, true},
    {"PEXPIREAT", gen_pexpireat, 2, true},
    {"TTL", gen_ttl, 3, false},
    {"PTTL", gen_pttl, 1, false},
    {"EXPIRETIME", gen_expiretime, 2, false},
    {"PEXPIRETIME", gen_pexpiretime, 2, false},
    {"PERSIST", gen_one_key, 2, true},
    {"GETEX", gen_getex, 3, true},
};

static const struct cmd_spec *pick_spec(struct gen *g)
{
    int total = 0;
    for (size_t i = 0; i < COUNT_OF(cmd_specs); i++)
        total += cmd_specs[i].weight;
    int r = (int)rnd(g, (uint64_t)total);
    for (size_t i = 0; i < COUNT_OF(cmd_specs); i++) {
        r -= cmd_specs[i].weight;
        if (r < 0)
            return &cmd_specs[i];
    }
    return &cmd_specs[0];
}

/* Sometimes drops trailing arguments or adds one, so that arity and syntax
 * errors are compared too. The added argument is a key name of ours, so a
 * command that happens to accept it touches nothing outside the prefix, and
 * both changes only ever shrink what the command writes. */
static void mutate(struct gen *g, struct cmd *c)
{
    unsigned r = (unsigned)rnd(g, 100);
    if (r < 4 && c->argc > 1)
        c->argc = (int)rnd_range(g, 1, c->argc - 1);
    else if (r < 6)
        cmd_pushf(c, "%sx", g->prefix);
}

/* Draws the next command; redraws any that could grow a key past LEN_LIMIT. */
static const struct cmd_spec *generate(struct gen *g, struct cmd *c)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        const struct cmd_spec *spec = pick_spec(g);
        cmd_reset(c);
        push_word(g, c, spec->name);
        spec->gen(g, c);
        if (c->grows_to <= LEN_LIMIT) {
            mutate(g, c);
            return spec;
        }
    }
    static const struct cmd_spec fallback = {"STRLEN", gen_one_key, 0, false};
    cmd_reset(c);
    cmd_push_str(c, fallback.name);
    push_key(g, c, 0);
    return &fallback;
}

/* ---- printing ------------------------------------------------------------- */

/* One argument the way redis-cli reads it back: bare when safe, otherwise
 * double-quoted with \xNN escapes. At most `max` bytes are shown. */
static void print_bytes(FILE *f, const char *s, size_t n, size_t max)
{
    bool bare = n > 0;
    for (size_t i = 0; i < n && bare; i++) {
        unsigned char ch = (unsigned char)s[i];
        bare = ch > ' ' && ch < 0x7f && ch != '"' && ch != '\'' && ch != '\\';
    }
    if (bare && n <= max) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n && i < max; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\r')
            fputs("\\r", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < ' ' || ch >= 0x7f)
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
    if (n > max)
        fprintf(f, "...(%zu bytes)", n);
}

static void print_cmd(FILE *f, const struct cmd *c)
{
    for (int i = 0; i < c->argc; i++) {
        if (i)
            fputc(' ', f);
        print_bytes(f, c->argv[i], c->len[i], SIZE_MAX);
    }
    fputc('\n', f);
}

static void print_reply(FILE *f, const redisReply *r, int depth)
{
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        fprintf(f, "(integer) %lld", r->integer);
        break;
    case REDIS_REPLY_NIL:
        fputs("(nil)", f);
        break;
    case REDIS_REPLY_STATUS:
        fputs("(status) ", f);
        print_bytes(f, r->str, r->len, SHOW_BYTES);
        break;
    case REDIS_REPLY_ERROR:
        fputs("(error) ", f);
        print_bytes(f, r->str, r->len, SHOW_BYTES);
        break;
    case REDIS_REPLY_STRING:
        fprintf(f, "(%zu bytes) ", r->len);
        print_bytes(f, r->str, r->len, SHOW_BYTES);
        break;
    case REDIS_REPLY_ARRAY:
        fprintf(f, "(array of %zu)", r->elements);
        for (size_t i = 0; i < r->elements; i++) {
            fprintf(f, "\n%*s%zu) ", 4 + depth * 3, "", i + 1);
            print_reply(f, r->element[i], depth + 1);
        }
        break;
    default:
        fprintf(f, "(reply type %d)", r->type);
    }
}

/* ---- comparing ------------------------------------------------------------ */

static bool reply_equal(const redisReply *a, const redisReply *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case REDIS_REPLY_INTEGER:
        return a->integer == b->integer;
    case REDIS_REPLY_NIL:
        return true;
    case REDIS_REPLY_ARRAY:
        if (a->elements != b->elements)
            return false;
        for (size_t i = 0; i < a->elements; i++)
            if (!reply_equal(a->element[i], b->element[i]))
                return false;
        return true;
    default: /* status, error, string: every byte counts */
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    }
}

/* Where two differing strings first differ, to point into long values. */
static void print_first_difference(const redisReply *a, const redisReply *b)
{
    if (a->type != REDIS_REPLY_STRING || b->type != REDIS_REPLY_STRING)
        return;
    size_t i = 0;
    while (i < a->len && i < b->len && a->str[i] == b->str[i])
        i++;
    printf("  first difference at byte %zu\n", i);
}

/* ---- the two servers ------------------------------------------------------ */

struct server {
    const char *label; /* "A" or "B" */
    const char *addr;  /* HOST:PORT as given */
    redisContext *ctx;
};

/* Connects and authenticates; false (with a message) on any failure. */
__attribute__((warn_unused_result)) static bool server_open(struct server *s, const char *password)
{
    char host[256];
    const char *colon = strrchr(s->addr, ':');
    size_t hlen = colon ? (size_t)(colon - s->addr) : 0;
    int port = colon ? atoi(colon + 1) : 0;
    if (!colon || hlen == 0 || hlen >= sizeof host || port <= 0 || port > 65535) {
        fprintf(stderr, "resp_equiv: %s: expected HOST:PORT, got '%s'\n", s->label, s->addr);
        return false;
    }
    memcpy(host, s->addr, hlen);
    host[hlen] = '\0';
    struct timeval connect_tv = {5, 0}, io_tv = {15, 0};
    s->ctx = redisConnectWithTimeout(host, port, connect_tv);
    if (!s->ctx || s->ctx->err) {
        fprintf(stderr, "resp_equiv: %s (%s): %s\n", s->label, s->addr,
                s->ctx ? s->ctx->errstr : "out of memory");
        return false;
    }
    if (redisSetTimeout(s->ctx, io_tv) != REDIS_OK)
        return false;
    if (!password)
        return true;
    redisReply *r = redisCommand(s->ctx, "AUTH %s", password);
    bool ok = r && r->type == REDIS_REPLY_STATUS;
    if (!ok)
        fprintf(stderr, "resp_equiv: %s (%s): AUTH failed: %s\n", s->label, s->addr,
                r ? (r->str ? r->str : "unexpected reply") : s->ctx->errstr);
    if (r)
        freeReplyObject(r);
    return ok;
}

/* Sends to both before reading either, so the servers work in parallel.
 * On success both replies are set; caller frees them with freeReplyObject. */
__attribute__((warn_unused_result)) static bool exchange(struct server srv[2], const struct cmd *c,
                                                         redisReply *reply[2])
{
    /* hiredis 0.14 takes `const char **`, which a const cmd cannot give. */
    const char *argv[MAX_ARGS];
    memcpy(argv, c->argv, sizeof argv);
    reply[0] = reply[1] = NULL;
    for (int i = 0; i < 2; i++)
        if (redisAppendCommandArgv(srv[i].ctx, c->argc, argv, c->len) != REDIS_OK)
            return false;
    for (int i = 0; i < 2; i++) {
        void *r = NULL;
        if (redisGetReply(srv[i].ctx, &r) != REDIS_OK)
            return false;
        reply[i] = r;
    }
    return true;
}

/* Asks A for every key's length, the generator's view of the values, and both
 * servers for every key's deadline (PEXPIRETIME). False when a server failed. */
__attribute__((warn_unused_result)) static bool refresh_state(struct server srv[2], struct gen *g)
{
    for (int k = 0; k < NKEYS; k++)
        if (redisAppendCommand(srv[0].ctx, "STRLEN %sk%d", g->prefix, k) != REDIS_OK)
            return false;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < NKEYS; k++)
            if (redisAppendCommand(srv[s].ctx, "PEXPIRETIME %sk%d", g->prefix, k) != REDIS_OK)
                return false;
    bool ok = true;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < (s == 0 ? 2 : 1) * NKEYS; k++) {
            void *v = NULL;
            if (redisGetReply(srv[s].ctx, &v) != REDIS_OK)
                return false;
            redisReply *r = v;
            if (r->type != REDIS_REPLY_INTEGER)
                ok = false;
            else if (s == 0 && k < NKEYS)
                g->len[k] = r->integer;
            else
                g->dl[s][k % NKEYS] = r->integer;
            freeReplyObject(r);
        }
    return ok;
}

/* After a write, every key's deadline must be the same on both: exactly, or within a
 * few seconds for one set relative to now. 0, or 1 after reporting the first key that
 * differs. */
static int check_deadlines(const struct options *o, const struct gen *g, const char *where)
{
    for (int k = 0; k < NKEYS; k++) {
        long long a = g->dl[0][k], b = g->dl[1][k];
        bool same = (a < 0 || b < 0) ? a == b : (a - b < 5000 && b - a < 5000);
        if (same)
            continue;
        printf("resp_equiv: MISMATCH after %s (seed %llu)\n  PEXPIRETIME %sk%d: A %lld, B %lld\n", where,
               (unsigned long long)o->seed, o->prefix, k, a, b);
        return 1;
    }
    return 0;
}

/* ---- the run -------------------------------------------------------------- */

static void report_mismatch(const struct options *o, struct server srv[2], const struct cmd *c,
                            redisReply *reply[2], const char *where)
{
    printf("resp_equiv: MISMATCH at %s (seed %llu)\n  command: ", where,
           (unsigned long long)o->seed);
    print_cmd(stdout, c);
    for (int i = 0; i < 2; i++) {
        printf("  %s (%s): ", srv[i].label, srv[i].addr);
        if (reply[i])
            print_reply(stdout, reply[i], 0);
        else
            printf("(connection error: %s)", srv[i].ctx->errstr);
        putchar('\n');
    }
    if (reply[0] && reply[1])
        print_first_difference(reply[0], reply[1]);
}

static void free_replies(redisReply *reply[2])
{
    for (int i = 0; i < 2; i++)
        if (reply[i])
            freeReplyObject(reply[i]);
}

/* Runs one command on both; returns 0 when the replies agree, 1 on a mismatch
 * (reported), 2 when A itself failed. */
static int step(const struct options *o, struct server srv[2], const struct cmd *c,
                const char *where)
{
    redisReply *reply[2];
    bool sent = exchange(srv, c, reply);
    if (!sent && !reply[0]) {
        fprintf(stderr, "resp_equiv: A (%s) failed at %s: %s\n", srv[0].addr, where,
                srv[0].ctx->errstr);
        free_replies(reply);
        return 2;
    }
    int rc = 0;
    if (!sent || !reply_equal(reply[0], reply[1])) {
        report_mismatch(o, srv, c, reply, where);
        rc = 1;
    }
    free_replies(reply);
    return rc;
}

/* DEL our keys on both sides so that both start from the same state. The
 * counts are not compared: they depend on what earlier runs left behind. */
static int clear_keys(const struct options *o, struct server srv[2])
{
    static struct cmd c;
    redisReply *reply[2];
    cmd_reset(&c);
    cmd_push_str(&c, "DEL");
    for (int k = 0; k < NKEYS; k++)
        cmd_pushf(&c, "%sk%d", o->prefix, k);
    cmd_pushf(&c, "%sx", o->prefix);
    cmd_pushf(&c, "%smissing", o->prefix);
    bool ok = exchange(srv, &c, reply);
    for (int i = 0; ok && i < 2; i++)
        ok = reply[i]->type == REDIS_REPLY_INTEGER;
    if (!ok) {
        printf("resp_equiv: the initial DEL failed\n");
        report_mismatch(o, srv, &c, reply, "the initial DEL");
    }
    free_replies(reply);
    return ok ? 0 : 2;
}

/* After the run, every key must hold the same bytes on both sides. */
static int final_check(const struct options *o, struct server srv[2])
{
    static struct cmd c;
    char where[64];
    for (int k = 0; k < NKEYS; k++) {
        cmd_reset(&c);
        cmd_push_str(&c, "GET");
        cmd_pushf(&c, "%sk%d", o->prefix, k);
        snprintf(where, sizeof where, "the final check of key %d", k);
        int rc = step(o, srv, &c, where);
        if (rc)
            return rc;
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(const struct options *o, struct server srv[2], FILE *log)
{
    static struct cmd c;
    struct gen g = {.rng = o->seed ? o->seed : 1, .prefix = o->prefix, .redis8 = o->redis8};
    int rc = clear_keys(o, srv);
    if (rc)
        return rc;
    if (!refresh_state(srv, &g))
        return 2;
    double deadline = now_seconds() + RUN_SECONDS;
    long done = 0;
    char where[64];
    for (; done < o->count; done++) {
        if (now_seconds() > deadline) {
            fprintf(stderr, "resp_equiv: stopped at the %d s limit\n", RUN_SECONDS);
            break;
        }
        const struct cmd_spec *spec = generate(&g, &c);
        if (log)
            print_cmd(log, &c);
        snprintf(where, sizeof where, "command #%ld", done);
        rc = step(o, srv, &c, where);
        if (rc == 1)
            printf("  reproduce: resp_equiv --a %s --b %s --prefix '%s' --seed %llu --count %ld%s\n",
                   o->addr[0], o->addr[1], o->prefix, (unsigned long long)o->seed, done + 1,
                   o->redis8 ? " --redis8" : "");
        if (rc)
            return rc;
        if (spec->writes && !refresh_state(srv, &g)) {
            fprintf(stderr, "resp_equiv: STRLEN or PEXPIRETIME failed\n");
            return 2;
        }
        if (spec->writes && (rc = check_deadlines(o, &g, where)) != 0) {
            printf("  reproduce: resp_equiv --a %s --b %s --prefix '%s' --seed %llu --count %ld%s\n", o->addr[0],
                   o->addr[1], o->prefix, (unsigned long long)o->seed, done + 1, o->redis8 ? " --redis8" : "");
            return rc;
        }
    }
    rc = final_check(o, srv);
    if (rc)
        return rc;
    printf("resp_equiv: %ld commands, 0 mismatches (seed %llu)\n", done,
           (unsigned long long)o->seed);
    return 0;
}

/* ---- command line --------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: resp_equiv --a HOST:PORT --b HOST:PORT [--seed N] [--count N]\n"
            "                  [--prefix STR] [--password PW] [--no-redis8 | --redis8]\n"
            "                  [--log FILE]\n"
            "  A is the reference Redis, B the server under test. Keys used:\n"
            "  PREFIXk0..PREFIXk7 (prefix default \"eq:\"), deleted on both at start.\n"
            "  --redis8 also sends BITOP DIFF/DIFF1/ANDOR/ONE (off by default).\n"
            "  --log writes every command sent, one per line, redis-cli quoting.\n");
}

/* Parses argv into *o; false after printing usage. */
static bool parse_args(int argc, char **argv, struct options *o)
{
    enum { OPT_A = 256, OPT_B, OPT_SEED, OPT_COUNT, OPT_PREFIX, OPT_PASSWORD, OPT_NO8, OPT_8, OPT_LOG };
    static const struct option longopts[] = {
        {"a", required_argument, NULL, OPT_A},
        {"b", required_argument, NULL, OPT_B},
        {"seed", required_argument, NULL, OPT_SEED},
        {"count", required_argument, NULL, OPT_COUNT},
        {"prefix", required_argument, NULL, OPT_PREFIX},
        {"password", required_argument, NULL, OPT_PASSWORD},
        {"no-redis8", no_argument, NULL, OPT_NO8},
        {"redis8", no_argument, NULL, OPT_8},
        {"log", required_argument, NULL, OPT_LOG},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.prefix = "eq:", .count = 5000};
    o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    int opt;
    char *end;
    while ((opt = getopt_long_only(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_A: o->addr[0] = optarg; break;
        case OPT_B: o->addr[1] = optarg; break;
        case OPT_SEED:
            o->seed = strtoull(optarg, &end, 10);
            if (*end || !*optarg)
                goto bad;
            break;
        case OPT_COUNT:
            o->count = strtol(optarg, &end, 10);
            if (*end || o->count < 0)
                goto bad;
            break;
        case OPT_PREFIX: o->prefix = optarg; break;
        case OPT_PASSWORD: o->password = optarg; break;
        case OPT_NO8: o->redis8 = false; break;
        case OPT_8: o->redis8 = true; break;
        case OPT_LOG: o->log_path = optarg; break;
        default: goto bad;
        }
    }
    if (optind == argc && o->addr[0] && o->addr[1] && strlen(o->prefix) < 64) {
        if (strcmp(o->addr[0], o->addr[1]) != 0)
            return true;
        fprintf(stderr, "resp_equiv: A and B are the same server; their keys would collide\n");
        return false;
    }
bad:
    usage();
    return false;
}

int main(int argc, char **argv)
{
    struct options o;
    if (!parse_args(argc, argv, &o))
        return 2;
    struct server srv[2] = {{"A", o.addr[0], NULL}, {"B", o.addr[1], NULL}};
    FILE *log = NULL;
    int rc = 2;
    if (!server_open(&srv[0], o.password) || !server_open(&srv[1], o.password))
        goto done;
    if (o.log_path) {
        log = fopen(o.log_path, "w");
        if (!log) {
            perror(o.log_path);
            goto done;
        }
        setvbuf(log, NULL, _IOLBF, 0);
    }
    rc = run(&o, srv, log);
done:
    if (log)
        fclose(log);
    for (int i = 0; i < 2; i++)
        if (srv[i].ctx)
            redisFree(srv[i].ctx);
    return rc;
}
