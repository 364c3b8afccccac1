/* resp_stress.c — drives a RESP server the way careless clients do: deep
 * pipelines, connections dropped mid-pipeline or mid-command, and many
 * connections writing the same key at once. Each mode checks what it can and
 * exits 0 when the server behaved, 1 when it did not, 2 on a setup error. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#define DEFAULT_TIMEOUT 60
#define BATCH 100
#define MAX_CONNS 1000
/* A bit no mode ever sets: the half-sent SETBIT of `disconnect` names it. */
#define UNSENT_OFFSET_GAP 1000003LL

struct options {
    const char *host;
    const char *port;
    const char *password;
    int timeout;
};

static struct options opt;

/* ---- helpers -------------------------------------------------------------- */

/* The whole run is bounded: past the deadline the process stops, whatever a
 * server does to the sockets. write() is async-signal-safe; printf is not. */
static void on_alarm(int sig)
{
    static const char msg[] = "resp_stress: timed out\n";
    (void)sig;
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

/* Parses a count argument; false if it is not a positive integer. */
__attribute__((warn_unused_result)) static bool parse_count(const char *s, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v <= 0 || v > max)
        return false;
    *out = v;
    return true;
}

/* Opens a blocking hiredis connection with the run's timeout and AUTH.
 * Returns NULL (after a message) on failure; caller frees with redisFree(). */
static redisContext *connect_hiredis(void)
{
    struct timeval tv = {opt.timeout, 0};
    redisContext *c = redisConnectWithTimeout(opt.host, atoi(opt.port), tv);
    if (!c || c->err) {
        fprintf(stderr, "resp_stress: connect %s:%s: %s\n", opt.host, opt.port,
                c ? c->errstr : "out of memory");
        goto err;
    }
    if (redisSetTimeout(c, tv) != REDIS_OK)
        goto err;
    if (opt.password) {
        redisReply *r = redisCommand(c, "AUTH %s", opt.password);
        bool ok = r && r->type == REDIS_REPLY_STATUS;
        if (!ok)
            fprintf(stderr, "resp_stress: AUTH failed: %s\n",
                    r ? (r->str ? r->str : "unexpected reply") : c->errstr);
        if (r)
            freeReplyObject(r);
        if (!ok)
            goto err;
    }
    return c;
err:
    if (c)
        redisFree(c);
    return NULL;
}

/* Runs one command whose reply must be an integer. */
__attribute__((warn_unused_result)) static bool command_integer(redisContext *c, long long *out,
                                                                const char *fmt, const char *key,
                                                                long long arg)
{
    redisReply *r = redisCommand(c, fmt, key, arg);
    bool ok = r && r->type == REDIS_REPLY_INTEGER;
    if (ok)
        *out = r->integer;
    else
        fprintf(stderr, "resp_stress: '%s' on %s: %s\n", fmt, key,
                r ? (r->str ? r->str : "not an integer") : c->errstr);
    if (r)
        freeReplyObject(r);
    return ok;
}

static void describe_reply(char *buf, size_t size, const redisReply *r)
{
    switch (r->type) {
    case REDIS_REPLY_INTEGER: snprintf(buf, size, "(integer) %lld", r->integer); break;
    case REDIS_REPLY_STATUS: snprintf(buf, size, "(status) %.*s", (int)r->len, r->str); break;
    case REDIS_REPLY_ERROR: snprintf(buf, size, "(error) %.*s", (int)r->len, r->str); break;
    case REDIS_REPLY_STRING: snprintf(buf, size, "(string of %zu bytes)", r->len); break;
    case REDIS_REPLY_NIL: snprintf(buf, size, "(nil)"); break;
    case REDIS_REPLY_ARRAY: snprintf(buf, size, "(array of %zu)", r->elements); break;
    default: snprintf(buf, size, "(reply type %d)", r->type);
    }
}

/* ---- pipeline ------------------------------------------------------------- */

/* What the i-th pipelined command is and which reply it must get. */
struct expect {
    enum { EX_SETBIT, EX_GETBIT, EX_PING } kind;
    long long offset;
    long long value; /* SETBIT, GETBIT: the bit; PING: unused */
};

/* Even positions set the next offset; odd ones read back a bit already set
 * (1), a bit never set (0), or PING. So N commands hold ceil(N/2) SETBITs. */
static void plan_pipeline(struct expect *ex, long n)
{
    long long set = 0;
    unsigned seed = 12345;
    for (long i = 0; i < n; i++) {
        if (i % 2 == 0)
            ex[i] = (struct expect){EX_SETBIT, set++, 0};
        else if (i % 50 == 49)
            ex[i] = (struct expect){EX_PING, 0, 0};
        else if (i % 14 == 7)
            ex[i] = (struct expect){EX_GETBIT, n + i, 0};
        else
            ex[i] = (struct expect){EX_GETBIT, (long long)(rand_r(&seed) % set), 1};
    }
}

static bool reply_matches(const struct expect *e, const redisReply *r)
{
    if (e->kind == EX_PING)
        return r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
    return r->type == REDIS_REPLY_INTEGER && r->integer == e->value;
}

static void print_expect(const struct expect *e, long i, const char *key, const char *got)
{
    if (e->kind == EX_PING)
        printf("resp_stress pipeline: reply #%ld to PING was %s, expected PONG\n", i, got);
    else
        printf("resp_stress pipeline: reply #%ld to %s %s %lld%s was %s, expected (integer) %lld\n",
               i, e->kind == EX_SETBIT ? "SETBIT" : "GETBIT", key, e->offset,
               e->kind == EX_SETBIT ? " 1" : "", got, e->value);
}

/* Appends every command, then reads every reply; returns the wrong count or
 * -1 when the connection failed. */
static long pipeline_exchange(redisContext *c, const struct expect *ex, long n, const char *key)
{
    for (long i = 0; i < n; i++) {
        int rc = ex[i].kind == EX_PING ? redisAppendCommand(c, "PING")
                 : ex[i].kind == EX_SETBIT
                     ? redisAppendCommand(c, "SETBIT %s %lld 1", key, ex[i].offset)
                     : redisAppendCommand(c, "GETBIT %s %lld", key, ex[i].offset);
        if (rc != REDIS_OK)
            return -1;
    }
    long wrong = 0;
    char got[160];
    for (long i = 0; i < n; i++) {
        void *v = NULL;
        if (redisGetReply(c, &v) != REDIS_OK) {
            printf("resp_stress pipeline: reading reply #%ld of %ld: %s\n", i, n, c->errstr);
            return -1;
        }
        redisReply *r = v;
        if (!reply_matches(&ex[i], r) && wrong++ == 0) {
            describe_reply(got, sizeof got, r);
            print_expect(&ex[i], i, key, got);
        }
        freeReplyObject(r);
    }
    return wrong;
}

/* pipeline N KEY */
static int mode_pipeline(long n, const char *key)
{
    int rc = 2;
    struct expect *ex = calloc((size_t)n, sizeof *ex);
    redisContext *c = connect_hiredis();
    long long count = 0;
    if (!ex || !c || !command_integer(c, &count, "DEL %s", key, 0))
        goto done;
    plan_pipeline(ex, n);
    long wrong = pipeline_exchange(c, ex, n, key);
    rc = 1;
    if (wrong < 0)
        goto done;
    long long setbits = (n + 1) / 2;
    if (!command_integer(c, &count, "BITCOUNT %s", key, 0))
        goto done;
    if (count != setbits) {
        printf("resp_stress pipeline: BITCOUNT %s = %lld, expected %lld\n", key, count, setbits);
        wrong++;
    }
    printf("resp_stress pipeline: %ld replies in order, %ld wrong\n", n, wrong);
    rc = wrong ? 1 : 0;
done:
    if (c)
        redisFree(c);
    free(ex);
    return rc;
}

/* ---- disconnect ----------------------------------------------------------- */

/* A growable byte buffer for handcrafted RESP. */
struct buf {
    char *data;
    size_t len, cap;
};

static void buf_append(struct buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) {
            fprintf(stderr, "resp_stress: out of memory\n");
            exit(2);
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static void buf_bulk(struct buf *b, const char *s)
{
    char head[32];
    size_t n = strlen(s);
    buf_append(b, head, (size_t)snprintf(head, sizeof head, "$%zu\r\n", n));
    buf_append(b, s, n);
    buf_append(b, "\r\n", 2);
}

/* SETBIT key offset 1 as a RESP array of bulk strings. */
static void buf_setbit(struct buf *b, const char *key, long long offset)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", offset);
    buf_append(b, "*4\r\n", 4);
    buf_bulk(b, "SETBIT");
    buf_bulk(b, key);
    buf_bulk(b, num);
    buf_bulk(b, "1");
}

/* Opens a plain TCP socket with send/receive timeouts; -1 on failure. */
static int connect_raw(void)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    int err = getaddrinfo(opt.host, opt.port, &hints, &res);
    if (err) {
        fprintf(stderr, "resp_stress: %s: %s\n", opt.host, gai_strerror(err));
        return -1;
    }
    int fd = -1;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "resp_stress: connect %s:%s: %s\n", opt.host, opt.port, strerror(errno));
        return -1;
    }
    struct timeval tv = {opt.timeout, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Writes all of b; a server that hangs up first is not an error here. */
static void write_all(int fd, const struct buf *b, const char *variant)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = send(fd, b->data + off, b->len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            printf("resp_stress disconnect: %s: the server stopped taking data after %zu of %zu "
                   "bytes (%s)\n",
                   variant, off, b->len, strerror(errno));
            return;
        }
        off += (size_t)n;
    }
}

/* How one connection of the disconnect mode ends. */
struct drop {
    const char *name;
    bool half_of_first; /* send SETBITs for offsets < N/2 only */
    int cut;            /* bytes of the unsent SETBIT's encoding to send; 0 none */
    bool reset;         /* RST (SO_LINGER 0) instead of an orderly FIN */
};

/* Sends the SETBITs of one drop variant on a fresh socket and hangs up
 * without reading a single reply. */
static bool drop_connection(const struct drop *d, long n, const char *key)
{
    int fd = connect_raw();
    if (fd < 0)
        return false;
    struct buf b = {0};
    if (opt.password) {
        buf_append(&b, "*2\r\n", 4);
        buf_bulk(&b, "AUTH");
        buf_bulk(&b, opt.password);
    }
    long upto = d->half_of_first ? n / 2 : n;
    for (long i = 0; i < upto; i++)
        buf_setbit(&b, key, i);
    if (d->cut > 0) {
        struct buf tail = {0};
        buf_setbit(&tail, key, n + UNSENT_OFFSET_GAP);
        buf_append(&b, tail.data, (size_t)d->cut < tail.len ? (size_t)d->cut : tail.len - 1);
        free(tail.data);
    }
    write_all(fd, &b, d->name);
    free(b.data);
    if (d->reset) {
        struct linger lg = {1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(fd);
    return true;
}

/* Reads BITCOUNT until three readings 100 ms apart agree, since the server
 * may still be working through what the dropped connections sent. */
__attribute__((warn_unused_result)) static bool settled_bitcount(redisContext *c, const char *key,
                                                                 long long *out)
{
    long long prev = -1;
    int same = 0;
    struct timespec pause = {0, 100 * 1000 * 1000};
    while (same < 3) {
        long long now;
        if (!command_integer(c, &now, "BITCOUNT %s", key, 0))
            return false;
        same = now == prev ? same + 1 : 1;
        prev = now;
        nanosleep(&pause, NULL);
    }
    *out = prev;
    return true;
}

/* disconnect N KEY */
static int mode_disconnect(long n, const char *key)
{
    /* The unsent SETBIT is "*4\r\n$6\r\nSETBIT\r\n$<keylen>\r\n<key>\r\n$<n>\r\n<digits>
     * \r\n$1\r\n1\r\n". Its first 18 bytes end inside the key's length line;
     * all but its last 12 end inside the offset's digits (7 or more of them),
     * where a lax parser might take the digits so far for the whole number. */
    struct buf probe = {0};
    buf_setbit(&probe, key, n + UNSENT_OFFSET_GAP);
    int mid_digits = (int)probe.len - 12;
    free(probe.data);
    const struct drop drops[] = {
        {"close after the pipeline", false, 0, false},
        {"close inside a bulk string", true, mid_digits, false},
        {"close inside a length line", true, 18, false},
        {"reset after the pipeline", false, 0, true},
    };
    redisContext *c = connect_hiredis();
    long long count = 0, unsent = 0;
    int rc = 2;
    if (!c || !command_integer(c, &count, "DEL %s", key, 0))
        goto done;
    for (size_t i = 0; i < sizeof drops / sizeof drops[0]; i++)
        if (!drop_connection(&drops[i], n, key))
            goto done;
    rc = 1;
    redisFree(c);
    c = connect_hiredis();
    redisReply *r = c ? redisCommand(c, "PING") : NULL;
    bool pong = r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
    if (r)
        freeReplyObject(r);
    if (!pong) {
        printf("resp_stress disconnect: no PONG after the dropped connections\n");
        goto done;
    }
    if (!settled_bitcount(c, key, &count) ||
        !command_integer(c, &unsent, "GETBIT %s %lld", key, n + UNSENT_OFFSET_GAP))
        goto done;
    printf("resp_stress disconnect: server answers PING after 4 dropped connections; "
           "BITCOUNT %s = %lld (offsets 0..%ld sent)\n",
           key, count, n - 1);
    if (count > n)
        printf("resp_stress disconnect: BITCOUNT %lld > %ld: bits that were never sent are set\n",
               count, n);
    else if (unsent)
        printf("resp_stress disconnect: the half-sent SETBIT %s %lld 1 was executed\n", key,
               n + UNSENT_OFFSET_GAP);
    else
        rc = 0;
done:
    if (c)
        redisFree(c);
    return rc;
}

/* ---- concurrent and merge ----------------------------------------------------
 * concurrent: each connection sets its own offsets once (every reply must be 0).
 * merge: each connection pipelines, per offset of its own, SETBIT 1, 1, 0, 1; the
 * replies must be 0, 1, 1, 0 whatever the other connections do, which holds only
 * if the writes of one key are applied in the order they were sent, also when the
 * server merges them into one commit. Every offset ends set, after 3 changes. */

struct step {
    int value, old; /* SETBIT key offset value, and the reply it must get */
};
static const struct step ONCE[] = {{1, 0}};
static const struct step FLIP[] = {{1, 0}, {1, 1}, {0, 1}, {1, 0}};

struct worker {
    pthread_t thread;
    long index, n;
    const struct step *steps;
    int nsteps;
    const char *key;
    long wrong;     /* replies other than (integer) 0 */
    bool failed;    /* the connection broke */
    char first[200]; /* the first problem, for the report */
};

/* Sends one batch of SETBITs (the steps for each offset) and checks every reply is
 * the old bit the steps expect. */
static bool worker_batch(struct worker *w, redisContext *c, long long from, long count)
{
    for (long i = 0; i < count; i++)
        for (int s = 0; s < w->nsteps; s++)
            if (redisAppendCommand(c, "SETBIT %s %lld %d", w->key, from + i, w->steps[s].value) != REDIS_OK)
                return false;
    for (long i = 0; i < count * w->nsteps; i++) {
        const struct step *st = &w->steps[i % w->nsteps];
        void *v = NULL;
        if (redisGetReply(c, &v) != REDIS_OK)
            return false;
        redisReply *r = v;
        if (!(r->type == REDIS_REPLY_INTEGER && r->integer == st->old) && w->wrong++ == 0) {
            char got[160];
            describe_reply(got, sizeof got, r);
            snprintf(w->first, sizeof w->first, "connection %ld: SETBIT %s %lld %d gave %s, not %d",
                     w->index, w->key, from + i / w->nsteps, st->value, got, st->old);
        }
        freeReplyObject(r);
    }
    return true;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    redisContext *c = connect_hiredis();
    long long base = (long long)w->index * w->n;
    bool ok = c != NULL;
    for (long done = 0; ok && done < w->n; done += BATCH) {
        long count = w->n - done < BATCH ? w->n - done : BATCH;
        ok = worker_batch(w, c, base + done, count);
        if (!ok)
            snprintf(w->first, sizeof w->first, "connection %ld: %s", w->index, c->errstr);
    }
    w->failed = !ok;
    if (c)
        redisFree(c);
    return NULL;
}

/* concurrent C N KEY, merge C N KEY */
static int mode_concurrent(const char *name, const struct step *steps, int nsteps, long conns, long n,
                           const char *key)
{
    struct worker *w = calloc((size_t)conns, sizeof *w);
    redisContext *c = connect_hiredis();
    long long count = 0;
    long started = 0, wrong = 0, failed = 0;
    int rc = 2;
    if (!w || !c || !command_integer(c, &count, "DEL %s", key, 0))
        goto done;
    for (; started < conns; started++) {
        w[started] = (struct worker){.index = started, .n = n, .steps = steps, .nsteps = nsteps, .key = key};
        if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0) {
            fprintf(stderr, "resp_stress: cannot start thread %ld\n", started);
            break;
        }
    }
    const char *first = NULL;
    for (long i = 0; i < started; i++) {
        pthread_join(w[i].thread, NULL);
        wrong += w[i].wrong;
        failed += w[i].failed;
        if (!first && w[i].first[0])
            first = w[i].first;
    }
    if (started < conns)
        goto done;
    rc = 1;
    if (first)
        printf("resp_stress %s: first problem: %s\n", name, first);
    if (!command_integer(c, &count, "BITCOUNT %s", key, 0))
        goto done;
    printf("resp_stress %s: %ld connections x %ld SETBITs, BITCOUNT %s = %lld "
           "(expected %lld), %ld wrong replies, %ld broken connections\n",
           name, conns, n * nsteps, key, count, (long long)conns * n, wrong, failed);
    if (count == (long long)conns * n && wrong == 0 && failed == 0)
        rc = 0;
done:
    if (c)
        redisFree(c);
    free(w);
    return rc;
}

/* ---- command line --------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: resp_stress --host H --port P [--password PW] [--timeout S] MODE ARGS\n"
            "  pipeline N KEY        N pipelined SETBIT/GETBIT/PING, replies checked in order\n"
            "  disconnect N KEY      N pipelined SETBITs on raw sockets dropped without reading\n"
            "                        (FIN, RST, and mid-command); then PING and BITCOUNT\n"
            "  concurrent C N KEY    C connections x N SETBITs of distinct offsets, batches of %d\n"
            "  merge C N KEY         the same with SETBIT 1, 1, 0, 1 pipelined per offset: replies\n"
            "                        0, 1, 1, 0 (applied in the order sent), BITCOUNT C x N\n"
            "  KEY is deleted first. The run stops after S seconds (default %d).\n",
            BATCH, DEFAULT_TIMEOUT);
}

/* Parses the options into opt; returns the index of MODE or -1. */
static int parse_options(int argc, char **argv)
{
    enum { OPT_HOST = 256, OPT_PORT, OPT_PASSWORD, OPT_TIMEOUT };
    static const struct option longopts[] = {
        {"host", required_argument, NULL, OPT_HOST},
        {"port", required_argument, NULL, OPT_PORT},
        {"password", required_argument, NULL, OPT_PASSWORD},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {NULL, 0, NULL, 0},
    };
    opt = (struct options){.host = "127.0.0.1", .timeout = DEFAULT_TIMEOUT};
    long timeout;
    int o;
    /* "+": options end at MODE, so its arguments are never taken for options. */
    while ((o = getopt_long_only(argc, argv, "+", longopts, NULL)) != -1) {
        switch (o) {
        case OPT_HOST: opt.host = optarg; break;
        case OPT_PORT: opt.port = optarg; break;
        case OPT_PASSWORD: opt.password = optarg; break;
        case OPT_TIMEOUT:
            if (!parse_count(optarg, 3600, &timeout))
                return -1;
            opt.timeout = (int)timeout;
            break;
        default: return -1;
        }
    }
    return opt.port && optind < argc ? optind : -1;
}

int main(int argc, char **argv)
{
    int m = parse_options(argc, argv);
    if (m < 0) {
        usage();
        return 2;
    }
    const char *mode = argv[m];
    char **args = argv + m + 1;
    int nargs = argc - m - 1;
    long a = 0, b = 0;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)opt.timeout);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "pipeline") == 0 && nargs == 2 && parse_count(args[0], 10000000, &a))
        return mode_pipeline(a, args[1]);
    if (strcmp(mode, "disconnect") == 0 && nargs == 2 && parse_count(args[0], 10000000, &a))
        return mode_disconnect(a, args[1]);
    if (strcmp(mode, "concurrent") == 0 && nargs == 3 && parse_count(args[0], MAX_CONNS, &a) &&
        parse_count(args[1], 10000000, &b))
        return mode_concurrent(mode, ONCE, 1, a, b, args[2]);
    if (strcmp(mode, "merge") == 0 && nargs == 3 && parse_count(args[0], MAX_CONNS, &a) &&
        parse_count(args[1], 10000000, &b))
        return mode_concurrent(mode, FLIP, 4, a, b, args[2]);
    usage();
    return 2;
}
