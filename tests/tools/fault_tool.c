/* fault_tool.c — the clients of tests/integration/test_faults.sh, one program with
 * five modes:
 *
 *   load      the lost-update workload: HTTP and RESP clients add unique offsets to
 *             a few hot keys and many cold ones on several bitmapd instances,
 *             retrying on another instance after an error; one log line per attempt
 *   check     compares that log with the stored rows, decoded here (Roaring portable
 *             format, bitmapd's dense and gaps encodings, written from the format
 *             descriptions, not from src/store/codec.c), with the PL/pgSQL decoder's
 *             members and with what every instance answers over RESP and HTTP
 *   probe     one request with its latency
 *   await     repeats a request until it succeeds; prints when it did
 *   shutdown  pipelined RESP writers and HTTP writers, then SIGTERM to a pid; says
 *             which commands were answered
 *
 * An attempt is logged as
 *   STATUS KEY OFFSET INSTANCE DOOR MICROSECONDS DETAIL
 * STATUS is A (acknowledged), F (failed cleanly: certainly not applied) or I
 * (indeterminate: may or may not have been applied). Only these count as F:
 * a connection refused before anything was sent, a request that could not be
 * written at all, and answers the service documents as not applied (RESP errors and
 * HTTP 503 bodies saying "nothing was written", 503 conflict_retries_exhausted).
 * Everything else that is not an acknowledgement is I.
 *
 * Exit status: 0 when every check of the mode passed, 1 when one failed, 2 on a
 * usage or setup error. Every mode is bounded in time (alarm). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#define HOST "127.0.0.1"
#define MAX_INST 8
#define MAX_ATTEMPTS 8
#define RETRY_GRACE_S 10 /* after the load's end, an operation is retried this long */
#define HTTP_PAGE 1000   /* [http] max_page_limit's default */

static int io_timeout_s = 5;

/* ---- small helpers ----------------------------------------------------------------- */

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fault_tool: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void on_alarm(int sig)
{
    static const char msg[] = "fault_tool: run bound reached, stopping\n";
    (void)sig;
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) die("%s: not a number from %ld to %ld: %s", what, lo, hi, s);
    return v;
}

/* "P1,P2,P3" → ports; returns how many. */
static int parse_ports(const char *s, int *ports)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    if (!copy) die("out of memory");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_INST) die("at most %d ports", MAX_INST);
        ports[n++] = (int)parse_long(t, 1, 65535, "port");
    }
    free(copy);
    return n;
}

/* Replaces control characters so that a detail stays on its log line. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

/* ---- sockets ----------------------------------------------------------------------- */

/* A blocking TCP connection to 127.0.0.1:port with send and receive timeouts;
 * -1 (errno set) when it cannot be made. Nothing is sent. */
static int tcp_connect(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {io_timeout_s, 0};
    int one = 1;
    inet_pton(AF_INET, HOST, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* True when an idle connection was closed by its peer (or failed): then the next
 * request goes on a new connection instead of being sent into a dead one. */
static bool conn_dead(int fd)
{
    char b;
    ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return true;
    return false;
}

/* Writes all of buf; returns the number of bytes written (len on success). */
static size_t send_all(int fd, const char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    return done;
}

/* ---- an HTTP/1.1 client with keep-alive -------------------------------------------- */

struct hconn {
    int fd;
    int port;
};

enum hstatus {
    H_ANSWERED,     /* a whole response was read */
    H_NOT_CONNECTED, /* connect failed: nothing was sent */
    H_NOT_SENT,     /* the connection broke before any byte of the request left */
    H_LOST          /* sent (at least partly), then no whole response */
};

struct hresp {
    int64_t sent_at; /* when the whole request had been written (monotonic ns) */
    int status;
    char *body;
    size_t body_len;
    char err[128];
};

static void hconn_close(struct hconn *h)
{
    if (h->fd >= 0) close(h->fd);
    h->fd = -1;
}

static const char *find_header_end(const char *buf, size_t len)
{
    for (size_t i = 0; i + 3 < len; i++)
        if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') return buf + i + 4;
    return NULL;
}

/* Value of a header (case-insensitive name) in the header block, or NULL. */
static const char *header_value(const char *hdr, size_t hlen, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    const char *p = hdr, *end = hdr + hlen;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if ((size_t)(eol - p) > nl + 1 && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t')) v++;
            const char *ve = eol;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ')) ve--;
            *vlen = (size_t)(ve - v);
            return v;
        }
        p = eol + 1;
    }
    return NULL;
}

/* One request on a kept-alive connection (opened when needed). */
static enum hstatus http_do(struct hconn *h, const char *method, const char *path, const char *body,
                            struct hresp *out)
{
    char req[1024];
    size_t blen = body ? strlen(body) : 0;
    memset(out, 0, sizeof(*out));
    if (h->fd >= 0 && conn_dead(h->fd)) hconn_close(h);
    if (h->fd < 0 && (h->fd = tcp_connect(h->port)) < 0) {
        snprintf(out->err, sizeof(out->err), "connect: %s", strerror(errno));
        return H_NOT_CONNECTED;
    }
    int n = snprintf(req, sizeof(req),
                     "%s %s HTTP/1.1\r\nHost: " HOST "\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     method, path, blen, body ? body : "");
    if (n < 0 || (size_t)n >= sizeof(req)) die("request too long");
    size_t sent = send_all(h->fd, req, (size_t)n);
    if (sent < (size_t)n) {
        snprintf(out->err, sizeof(out->err), "send: %s", strerror(errno));
        hconn_close(h);
        return sent == 0 ? H_NOT_SENT : H_LOST;
    }
    out->sent_at = now_ns();
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    const char *body_at = NULL;
    size_t want = 0;
    bool close_after = false;
    for (;;) {
        if (body_at && len >= (size_t)(body_at - buf) + want) break;
        if (len + 4096 > cap) {
            size_t off = body_at ? (size_t)(body_at - buf) : 0;
            cap *= 2;
            buf = xrealloc(buf, cap);
            if (body_at) body_at = buf + off;
        }
        ssize_t r = recv(h->fd, buf + len, cap - len - 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            snprintf(out->err, sizeof(out->err), "%s after sending", r == 0 ? "connection closed" : strerror(errno));
            free(buf);
            hconn_close(h);
            return H_LOST;
        }
        len += (size_t)r;
        if (!body_at && (body_at = find_header_end(buf, len)) != NULL) {
            size_t vlen;
            const char *v = header_value(buf, (size_t)(body_at - buf), "Content-Length", &vlen);
            if (sscanf(buf, "HTTP/1.%*c %d", &out->status) != 1 || !v) {
                snprintf(out->err, sizeof(out->err), "malformed response");
                free(buf);
                hconn_close(h);
                return H_LOST;
            }
            want = (size_t)strtoul(v, NULL, 10);
            v = header_value(buf, (size_t)(body_at - buf), "Connection", &vlen);
            close_after = v && vlen == 5 && strncasecmp(v, "close", 5) == 0;
        }
    }
    out->body = xmalloc(want + 1);
    memcpy(out->body, body_at, want);
    out->body[want] = '\0';
    out->body_len = want;
    free(buf);
    if (close_after) hconn_close(h);
    return H_ANSWERED;
}

/* ---- RESP over hiredis --------------------------------------------------------------- */

static redisContext *resp_connect(int port, char *err, size_t errlen)
{
    struct timeval tv = {io_timeout_s, 0};
    redisContext *c = redisConnectWithTimeout(HOST, port, tv);
    if (!c || c->err) {
        snprintf(err, errlen, "connect: %s", c ? c->errstr : "out of memory");
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    return c;
}

/* ---- keys and offsets of the workload ------------------------------------------------ */

/* Key k of a run: k < hot are hot; cold keys alternate between the message box of a
 * user (reachable over HTTP and RESP) and a RESP-only key. */
struct wkey {
    char name[96];
    bool http;          /* message:push:{user}: HTTP pushes reach it */
    uint64_t user;
    atomic_uint_fast64_t next; /* operations drawn on this key so far */
};

static uint32_t key_offset(int k, uint64_t c)
{
    if (k == 0) return (uint32_t)c; /* consecutive: run containers */
    if (k < 4) return (uint32_t)(c * 3 + (uint64_t)k); /* every third: dense or bitsets */
    return (uint32_t)(c * 2654435761u + (uint64_t)k * 40503u); /* scattered over 2^32 */
}

/* ---- log ------------------------------------------------------------------------------ */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_fp;

static void log_attempt(char status, const char *key, uint32_t off, int inst, char door, int64_t ns,
                        const char *detail)
{
    char d[200];
    snprintf(d, sizeof(d), "%s", detail && *detail ? detail : "-");
    one_line(d);
    pthread_mutex_lock(&log_mu);
    fprintf(log_fp, "%c %s %" PRIu32 " %d %c %lld %s\n", status, key, off, inst, door, (long long)(ns / 1000), d);
    pthread_mutex_unlock(&log_mu);
}

/* HTTP answer → A, F or I. */
static char classify_http(enum hstatus hs, const struct hresp *r)
{
    if (hs == H_NOT_CONNECTED || hs == H_NOT_SENT) return 'F';
    if (hs != H_ANSWERED) return 'I';
    if (r->status == 200) return 'A';
    if (r->status == 503 && r->body &&
        (strstr(r->body, "nothing was written") || strstr(r->body, "\"conflict_retries_exhausted\"")))
        return 'F';
    return 'I';
}

/* RESP error text → F (documented as not applied) or I. */
static char classify_resp_error(const char *s)
{
    return strstr(s, "nothing was written") ? 'F' : 'I';
}

/* ============================== load ================================================== */

struct load {
    int ninst, http_ports[MAX_INST], resp_ports[MAX_INST];
    int nhttp, nresp;
    int nkeys, nhot;
    struct wkey *keys;
    int *http_keys; /* indexes of keys HTTP can reach */
    int nhttp_keys;
    int hot_pct;
    int64_t deadline, retry_until;
    long max_ops;
    atomic_long ops;
    /* totals, per door: [0] HTTP, [1] RESP */
    atomic_long att[2][3], fin[2][3], odd_replies;
};

static int status_index(char s) { return s == 'A' ? 0 : s == 'F' ? 1 : 2; }

struct lclient {
    struct load *L;
    int id;
    bool http;
    int inst; /* where the next attempt goes: home for a new operation, the next after a failure */
    int home;
    struct hconn hc;
    redisContext *rc;
    uint64_t rng;
};

static char attempt_http(struct lclient *c, struct wkey *k, uint32_t off, char *detail, size_t dlen)
{
    char path[128], body[64];
    struct hresp r;
    if (c->hc.port != c->L->http_ports[c->inst]) hconn_close(&c->hc); /* to the instance asked for */
    c->hc.port = c->L->http_ports[c->inst];
    snprintf(path, sizeof(path), "/v1/users/%" PRIu64 "/pushes", k->user);
    snprintf(body, sizeof(body), "{\"messages\":[%" PRIu32 "]}", off);
    enum hstatus hs = http_do(&c->hc, "POST", path, body, &r);
    char s = classify_http(hs, &r);
    if (hs == H_ANSWERED)
        snprintf(detail, dlen, "%d %.150s", r.status, r.status == 200 ? "" : r.body);
    else
        snprintf(detail, dlen, "%s", r.err);
    free(r.body);
    return s;
}

static char attempt_resp(struct lclient *c, struct wkey *k, uint32_t off, bool retry, char *detail, size_t dlen)
{
    if (c->rc && (c->rc->tcp.port != c->L->resp_ports[c->inst] || conn_dead(c->rc->fd))) { /* dead, or another instance's */
        redisFree(c->rc);
        c->rc = NULL;
    }
    if (!c->rc && !(c->rc = resp_connect(c->L->resp_ports[c->inst], detail, dlen))) return 'F';
    redisReply *r = redisCommand(c->rc, "SETBIT %s %u 1", k->name, (unsigned)off);
    if (!r) {
        snprintf(detail, dlen, "after sending: %s", c->rc->errstr);
        redisFree(c->rc);
        c->rc = NULL;
        return 'I';
    }
    char s;
    if (r->type == REDIS_REPLY_INTEGER) {
        snprintf(detail, dlen, "%lld", r->integer);
        s = 'A';
        /* 1 = the bit was already set: only possible if an earlier attempt of this very
         * operation was applied after all (offsets are never drawn twice) */
        if (r->integer != 0 && !retry) atomic_fetch_add(&c->L->odd_replies, 1);
    } else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(detail, dlen, "%s", r->str);
        s = classify_resp_error(r->str);
    } else {
        snprintf(detail, dlen, "unexpected reply type %d", r->type);
        s = 'I';
        atomic_fetch_add(&c->L->odd_replies, 1);
    }
    freeReplyObject(r);
    return s;
}

static int pick_key(struct lclient *c)
{
    struct load *L = c->L;
    uint64_t x = rng_next(&c->rng);
    bool hot = (int)(x % 100) < L->hot_pct;
    x = rng_next(&c->rng);
    if (c->http) {
        /* hot keys are the first HTTP keys */
        return hot ? L->http_keys[x % (uint64_t)L->nhot]
                   : L->http_keys[L->nhot + x % (uint64_t)(L->nhttp_keys - L->nhot)];
    }
    return hot ? (int)(x % (uint64_t)L->nhot) : L->nhot + (int)(x % (uint64_t)(L->nkeys - L->nhot));
}

static void *load_client(void *arg)
{
    struct lclient *c = arg;
    struct load *L = c->L;
    int d = c->http ? 0 : 1;
    char detail[256];

    while (now_ns() < L->deadline && atomic_fetch_add(&L->ops, 1) < L->max_ops) {
        int k = pick_key(c);
        struct wkey *key = &L->keys[k];
        uint32_t off = key_offset(k, atomic_fetch_add(&key->next, 1));
        char final = 'F';
        /* every operation starts at the client's own instance, retries go round the others:
         * a client stayed wherever its last failure had sent it, and after a run of faults
         * an instance could be left with no client at all (test_faults then saw none of the
         * chunk rows instance 1 writes) */
        c->inst = c->home;
        bool any_indet = false;
        for (int a = 0; a < MAX_ATTEMPTS; a++) {
            int64_t t0 = now_ns();
            char s = c->http ? attempt_http(c, key, off, detail, sizeof(detail))
                             : attempt_resp(c, key, off, a > 0, detail, sizeof(detail));
            log_attempt(s, key->name, off, c->inst, c->http ? 'h' : 'r', now_ns() - t0, detail);
            atomic_fetch_add(&L->att[d][status_index(s)], 1);
            if (s == 'I') any_indet = true;
            if (s == 'A') {
                final = 'A';
                break;
            }
            /* another instance, after a short jittered pause */
            c->inst = (c->inst + 1) % L->ninst;
            if (now_ns() > L->retry_until) break;
            long pause = 10L << (a < 5 ? a : 5);
            sleep_ms(pause / 2 + (long)(rng_next(&c->rng) % (uint64_t)(pause / 2 + 1)));
        }
        if (final != 'A' && any_indet) final = 'I';
        atomic_fetch_add(&L->fin[d][status_index(final)], 1);
    }
    hconn_close(&c->hc);
    if (c->rc) redisFree(c->rc);
    return NULL;
}

static void usage_load(void)
{
    fprintf(stderr,
            "usage: fault_tool load --http P1,P2,.. --resp P1,P2,.. --log FILE --prefix P --user-base U\n"
            "         [--http-clients 12] [--resp-clients 24] [--seconds 40] [--max-ops 400000]\n"
            "         [--hot 4] [--cold 1000] [--hot-pct 50] [--seed N]\n");
    exit(2);
}

static int mode_load(int argc, char **argv)
{
    struct load *L = calloc(1, sizeof(*L));
    const char *log_path = NULL, *prefix = NULL;
    uint64_t user_base = 0, seed = (uint64_t)wall_ns();
    long seconds = 40, ncold = 1000;
    int nh = 0, nr = 0;
    if (!L) die("out of memory");
    L->nhttp = 12;
    L->nresp = 24;
    L->max_ops = 400000;
    L->nhot = 4;
    L->hot_pct = 50;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage_load();
        i++;
        if (!strcmp(a, "--http")) nh = parse_ports(v, L->http_ports);
        else if (!strcmp(a, "--resp")) nr = parse_ports(v, L->resp_ports);
        else if (!strcmp(a, "--log")) log_path = v;
        else if (!strcmp(a, "--prefix")) prefix = v;
        else if (!strcmp(a, "--user-base")) user_base = (uint64_t)parse_long(v, 0, 1L << 62, a);
        else if (!strcmp(a, "--http-clients")) L->nhttp = (int)parse_long(v, 0, 500, a);
        else if (!strcmp(a, "--resp-clients")) L->nresp = (int)parse_long(v, 0, 500, a);
        else if (!strcmp(a, "--seconds")) seconds = parse_long(v, 1, 600, a);
        else if (!strcmp(a, "--max-ops")) L->max_ops = parse_long(v, 1, 100000000, a);
        else if (!strcmp(a, "--hot")) L->nhot = (int)parse_long(v, 1, 100, a);
        else if (!strcmp(a, "--cold")) ncold = parse_long(v, 2, 1000000, a);
        else if (!strcmp(a, "--hot-pct")) L->hot_pct = (int)parse_long(v, 0, 100, a);
        else if (!strcmp(a, "--seed")) seed = (uint64_t)parse_long(v, 1, LONG_MAX, a);
        else usage_load();
    }
    if (!log_path || !prefix || !nh || nh != nr) usage_load();
    L->ninst = nh;
    alarm((unsigned)(seconds + RETRY_GRACE_S + MAX_ATTEMPTS * io_timeout_s + 30));
    if (!(log_fp = fopen(log_path, "w"))) die("%s: %s", log_path, strerror(errno));

    L->nkeys = L->nhot + (int)ncold;
    L->keys = calloc((size_t)L->nkeys, sizeof(*L->keys));
    L->http_keys = calloc((size_t)L->nkeys, sizeof(int));
    if (!L->keys || !L->http_keys) die("out of memory");
    for (int k = 0; k < L->nkeys; k++) {
        struct wkey *w = &L->keys[k];
        w->user = user_base + (uint64_t)k;
        w->http = k < L->nhot || (k - L->nhot) % 2 == 0;
        if (w->http) {
            snprintf(w->name, sizeof(w->name), "message:push:%" PRIu64, w->user);
            L->http_keys[L->nhttp_keys++] = k;
        } else {
            snprintf(w->name, sizeof(w->name), "%scold:%d", prefix, k);
        }
        atomic_init(&w->next, 0);
    }

    int n = L->nhttp + L->nresp;
    struct lclient *cl = calloc((size_t)n, sizeof(*cl));
    pthread_t *th = calloc((size_t)n, sizeof(*th));
    if (!cl || !th) die("out of memory");
    int64_t t0 = now_ns();
    L->deadline = t0 + seconds * 1000000000LL;
    L->retry_until = L->deadline + RETRY_GRACE_S * 1000000000LL;
    for (int i = 0; i < n; i++) {
        cl[i] = (struct lclient){.L = L, .id = i, .http = i < L->nhttp, .home = i % L->ninst,
                                 .hc = {.fd = -1}, .rng = seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1)};
        if (pthread_create(&th[i], NULL, load_client, &cl[i]) != 0) die("pthread_create failed");
    }
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    fclose(log_fp);

    double secs = (double)(now_ns() - t0) / 1e9;
    long ops = 0;
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++) ops += atomic_load(&L->fin[d][s]);
    printf("load: %d HTTP + %d RESP clients, %d instances, %d hot + %ld cold keys, seed %" PRIu64 "\n",
           L->nhttp, L->nresp, L->ninst, L->nhot, ncold, seed);
    printf("load: %ld operations in %.1f s (%.0f/s)\n", ops, secs, ops / secs);
    for (int d = 0; d < 2; d++)
        printf("load: %s attempts: acknowledged=%ld failed=%ld indeterminate=%ld; operations: "
               "acknowledged=%ld failed=%ld indeterminate=%ld\n",
               d ? "RESP" : "HTTP", atomic_load(&L->att[d][0]), atomic_load(&L->att[d][1]),
               atomic_load(&L->att[d][2]), atomic_load(&L->fin[d][0]), atomic_load(&L->fin[d][1]),
               atomic_load(&L->fin[d][2]));
    printf("load: odd_replies=%ld\n", atomic_load(&L->odd_replies));
    free(cl);
    free(th);
    free(L->keys);
    free(L->http_keys);
    free(L);
    return 0;
}

/* ============================== decoding stored rows =================================== */

/* A growable sorted set of uint32 members. */
struct u32v {
    uint32_t *v;
    size_t n, cap;
};

/* One row of bitmapd.chunks: the members of container keys lo .. hi-1 (portable format or dense). */
struct cchunk {
    long long lo, hi, cardinality, checksum;
    uint8_t *bits;
    size_t nbits;
};

static void u32v_push(struct u32v *s, uint32_t x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = xrealloc(s->v, s->cap * sizeof(uint32_t));
    }
    s->v[s->n++] = x;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void u32v_sort(struct u32v *s)
{
    if (s->n > 1) qsort(s->v, s->n, sizeof(uint32_t), cmp_u32);
}

static bool u32v_equal(const struct u32v *a, const struct u32v *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof(uint32_t)) == 0);
}

static bool u32v_has(const struct u32v *s, uint32_t x)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] == x) return true;
        if (s->v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

static unsigned rd16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }

/* What decode_bits has seen, to show that every kind of container was exercised. */
static struct {
    long dense, gaps, roaring, arrays, bitsets, runs;
} seen;

/* CRC-32C (Castagnoli, reflected, as iSCSI and ext4 use it), bit by bit. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

/* A minimal LEB128 varint below 2^32 at *i. */
static bool gaps_varint(const uint8_t *b, size_t len, size_t *i, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (*i >= len) return false;
        uint8_t c = b[(*i)++];
        *v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80)) return (shift == 0 || c != 0) && *v <= UINT32_MAX;
    }
    return false;
}

/* The gaps encoding of chunk rows (src/store/codec_gaps.h), read one bit at a time: 0xB2,
 * varints base and span, mode (k, bit 7 complement), varint n, then per listed value
 * d >> k zero bits, a one, the k low bits of d (d = v - prev - 1, prev = base - 1 first). */
static bool decode_gaps(const uint8_t *b, size_t len, struct u32v *out, char *why, size_t wlen)
{
    size_t i = 1;
    uint64_t base, span, n, pos, nbits = 8 * (uint64_t)len;
    if (!gaps_varint(b, len, &i, &base) || !gaps_varint(b, len, &i, &span) || i >= len)
        return snprintf(why, wlen, "gaps: bad header"), false;
    unsigned mode = b[i++], k = mode & 31;
    bool comp = mode & 0x80;
    if (!gaps_varint(b, len, &i, &n) || !n || (mode & 0x60) || base + span > UINT32_MAX ||
        (comp && span >= 1u << 20))
        return snprintf(why, wlen, "gaps: bad header"), false;
    int64_t prev = (int64_t)base - 1, last = (int64_t)(base + span);
    pos = 8 * (uint64_t)i;
    seen.gaps++;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t q = 0, low = 0;
        for (;; q++) {
            if (pos >= nbits || q > span) return snprintf(why, wlen, "gaps: truncated"), false;
            if (b[pos / 8] >> (pos % 8) & 1) break;
            pos++;
        }
        pos++;
        for (unsigned t = 0; t < k; t++, pos++) {
            if (pos >= nbits) return snprintf(why, wlen, "gaps: truncated"), false;
            low |= (uint64_t)(b[pos / 8] >> (pos % 8) & 1) << t;
        }
        int64_t v = prev + 1 + (int64_t)(q << k | low);
        if (v > last) return snprintf(why, wlen, "gaps: past the span"), false;
        if (comp) {
            if (v == (int64_t)base || v == last) return snprintf(why, wlen, "gaps: complement on the edge"), false;
            for (int64_t m = prev + 1 < (int64_t)base ? (int64_t)base : prev + 1; m < v; m++) u32v_push(out, (uint32_t)m);
        } else {
            if (j == 0 && v != (int64_t)base) return snprintf(why, wlen, "gaps: first is not base"), false;
            u32v_push(out, (uint32_t)v);
        }
        prev = v;
    }
    if (comp)
        for (int64_t m = prev + 1; m <= last; m++) u32v_push(out, (uint32_t)m);
    else if (prev != last)
        return snprintf(why, wlen, "gaps: last is not base + span"), false;
    if ((pos + 7) / 8 != len || ((pos % 8) && (b[len - 1] >> (pos % 8))))
        return snprintf(why, wlen, "gaps: trailing bytes or padding"), false;
    return true;
}

/* Decodes a stored value into sorted members: the Roaring portable format (cookies
 * 12346 and 12347), the dense encoding (0xB1, LEB128 base/8, raw bits LSB first) or
 * the gaps encoding of chunk rows (0xB2). Every structural rule is checked; false
 * with a reason when one does not hold. */
static bool decode_bits(const uint8_t *b, size_t len, struct u32v *out, char *why, size_t wlen)
{
    out->n = 0;
    if (len >= 1 && b[0] == 0xB2) return decode_gaps(b, len, out, why, wlen);
    if (len >= 1 && b[0] == 0xB1) {
        uint64_t base8 = 0;
        size_t i = 1;
        int shift = 0;
        for (;;) {
            if (i >= len || shift > 28) return snprintf(why, wlen, "dense: bad varint"), false;
            base8 |= (uint64_t)(b[i] & 0x7F) << shift;
            shift += 7;
            if (!(b[i++] & 0x80)) break;
        }
        uint64_t base = base8 * 8;
        size_t nraw = len - i;
        if (nraw == 0) return base == 0 || (snprintf(why, wlen, "dense: empty with base"), false);
        if (!b[i] || !b[len - 1]) return snprintf(why, wlen, "dense: zero end byte"), false;
        if (base + 8 * (uint64_t)nraw > 4294967296ULL) return snprintf(why, wlen, "dense: past 2^32"), false;
        seen.dense++;
        for (size_t j = 0; j < nraw; j++)
            for (int bit = 0; bit < 8; bit++)
                if (b[i + j] >> bit & 1) u32v_push(out, (uint32_t)(base + 8 * j + (uint64_t)bit));
        return true;
    }
    if (len < 4) return snprintf(why, wlen, "shorter than a cookie"), false;
    uint32_t cookie = rd32(b);
    size_t n, keys_at, pos;
    const uint8_t *runflags = NULL;
    bool offsets;
    if ((cookie & 0xFFFF) == 12347) {
        n = (cookie >> 16) + 1;
        runflags = b + 4;
        keys_at = 4 + (n + 7) / 8;
        offsets = n >= 4;
    } else if (cookie == 12346) {
        if (len < 8) return snprintf(why, wlen, "truncated count"), false;
        n = rd32(b + 4);
        if (n > 65536) return snprintf(why, wlen, "%zu containers", n), false;
        keys_at = 8;
        offsets = true;
    } else {
        return snprintf(why, wlen, "bad cookie %" PRIu32, cookie), false;
    }
    pos = keys_at + 4 * n + (offsets ? 4 * n : 0);
    if (pos > len) return snprintf(why, wlen, "truncated header"), false;
    seen.roaring++;
    long prev_key = -1;
    for (size_t k = 0; k < n; k++) {
        unsigned key = rd16(b + keys_at + 4 * k), card = rd16(b + keys_at + 4 * k + 2) + 1;
        uint32_t hi = (uint32_t)key << 16;
        size_t before = out->n;
        if ((long)key <= prev_key) return snprintf(why, wlen, "keys not increasing"), false;
        prev_key = key;
        if (offsets && rd32(b + keys_at + 4 * n + 4 * k) != pos)
            return snprintf(why, wlen, "container %zu: offset mismatch", k), false;
        if (runflags && (runflags[k / 8] >> (k % 8) & 1)) {
            if (pos + 2 > len) return snprintf(why, wlen, "truncated run count"), false;
            unsigned nruns = rd16(b + pos);
            pos += 2;
            seen.runs++;
            if (!nruns || pos + 4 * (size_t)nruns > len) return snprintf(why, wlen, "bad run container"), false;
            long last_end = -1;
            for (unsigned r = 0; r < nruns; r++) {
                unsigned start = rd16(b + pos + 4 * r), l = rd16(b + pos + 4 * r + 2);
                if ((long)start <= last_end || start + l > 65535)
                    return snprintf(why, wlen, "runs overlap or overflow"), false;
                for (unsigned x = start; x <= start + l; x++) u32v_push(out, hi | x);
                last_end = (long)(start + l);
            }
            pos += 4 * (size_t)nruns;
        } else if (card > 4096) {
            if (pos + 8192 > len) return snprintf(why, wlen, "truncated bitset"), false;
            seen.bitsets++;
            for (unsigned w = 0; w < 8192; w++)
                for (int bit = 0; bit < 8; bit++)
                    if (b[pos + w] >> bit & 1) u32v_push(out, hi | (w * 8 + (unsigned)bit));
            pos += 8192;
        } else {
            if (pos + 2 * (size_t)card > len) return snprintf(why, wlen, "truncated array"), false;
            seen.arrays++;
            long last = -1;
            for (unsigned j = 0; j < card; j++) {
                unsigned x = rd16(b + pos + 2 * j);
                if ((long)x <= last) return snprintf(why, wlen, "array not increasing"), false;
                last = x;
                u32v_push(out, hi | x);
            }
            pos += 2 * (size_t)card;
        }
        if (out->n - before != card)
            return snprintf(why, wlen, "container %zu: %zu members, header says %u", k, out->n - before, card), false;
    }
    if (pos != len) return snprintf(why, wlen, "%zu trailing bytes", len - pos), false;
    return true;
}

/* ============================== check ================================================== */

struct op {
    uint32_t off;
    char st; /* A, I or F: the best of the operation's attempts */
};

struct ckey {
    char *name;
    struct op *ops;
    size_t nops, cap;
    bool in_db;
    long long version, cardinality, checksum, nbytes;
    uint8_t *bits;
    size_t nbits;
    bool chunked;    /* head row with empty bits: the members are in its chunk rows */
    uint8_t *flips;  /* a chunked head's flips (migration 0010): members in which the value
                        differs from its chunks; NULL: none */
    size_t nflips;
    struct cchunk *chunks;
    size_t nchunks;
    struct u32v sql; /* members per the PL/pgSQL decoder */
};

static struct {
    struct ckey *v;
    size_t n, cap;
    size_t *table; /* open addressing: index + 1, 0 = empty */
    size_t tcap;
} keys;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static void keys_rehash(void)
{
    free(keys.table);
    keys.tcap = keys.tcap ? keys.tcap * 2 : 1024;
    keys.table = calloc(keys.tcap, sizeof(size_t));
    if (!keys.table) die("out of memory");
    for (size_t i = 0; i < keys.n; i++) {
        size_t h = hash_str(keys.v[i].name) & (keys.tcap - 1);
        while (keys.table[h]) h = (h + 1) & (keys.tcap - 1);
        keys.table[h] = i + 1;
    }
}

static struct ckey *key_get(const char *name)
{
    if (2 * (keys.n + 1) > keys.tcap) keys_rehash();
    size_t h = hash_str(name) & (keys.tcap - 1);
    while (keys.table[h]) {
        struct ckey *k = &keys.v[keys.table[h] - 1];
        if (!strcmp(k->name, name)) return k;
        h = (h + 1) & (keys.tcap - 1);
    }
    if (keys.n == keys.cap) {
        keys.cap = keys.cap ? keys.cap * 2 : 256;
        keys.v = xrealloc(keys.v, keys.cap * sizeof(*keys.v));
    }
    struct ckey *k = &keys.v[keys.n];
    memset(k, 0, sizeof(*k));
    k->name = strdup(name);
    if (!k->name) die("out of memory");
    keys.table[h] = ++keys.n;
    return k;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex text → bytes (malloc'd, NUL-terminated too); false on bad hex. */
static bool unhex(const char *s, size_t slen, uint8_t **out, size_t *olen)
{
    if (slen % 2) return false;
    uint8_t *b = xmalloc(slen / 2 + 1);
    for (size_t i = 0; i < slen / 2; i++) {
        int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
        if (h < 0 || l < 0) {
            free(b);
            return false;
        }
        b[i] = (uint8_t)(h << 4 | l);
    }
    b[slen / 2] = 0;
    *out = b;
    *olen = slen / 2;
    return true;
}

static int rank(char s) { return s == 'A' ? 2 : s == 'I' ? 1 : 0; }

static int cmp_op(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return rank(y->st) - rank(x->st); /* best first */
}

static void read_log(const char *path, long *attempts)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    if (!f) die("%s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) > 0) {
        char st, name[256];
        unsigned long off;
        if (sscanf(line, "%c %255s %lu", &st, name, &off) != 3 || !strchr("AFI", st) || off > UINT32_MAX)
            die("%s: malformed line: %s", path, line);
        struct ckey *k = key_get(name);
        if (k->nops == k->cap) {
            k->cap = k->cap ? k->cap * 2 : 8;
            k->ops = xrealloc(k->ops, k->cap * sizeof(*k->ops));
        }
        k->ops[k->nops++] = (struct op){(uint32_t)off, st};
        attempts[status_index(st)]++;
    }
    free(line);
    fclose(f);
}

/* A dumped row: six space-separated fields, the first the key as hex; the key's entry. */
static struct ckey *row_key(char *line, char **tok, const char *path)
{
    char *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \n", &save); t && nt < 6; t = strtok_r(NULL, " \n", &save)) tok[nt++] = t;
    uint8_t *name;
    size_t nlen;
    if (nt != 6 || !unhex(tok[0], strlen(tok[0]), &name, &nlen)) die("%s: malformed row", path);
    if (strlen((char *)name) != nlen) die("%s: a key holds a NUL byte", path);
    struct ckey *k = key_get((char *)name);
    free(name);
    return k;
}

/* Calls take for each dumped row of path (six fields, the first the key as hex). */
static void read_rows(const char *path, void (*take)(struct ckey *k, char **tok, const char *path))
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    if (!f) die("%s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) > 0) {
        char *tok[6];
        take(row_key(line, tok, path), tok, path);
    }
    free(line);
    fclose(f);
}

/* A row of bitmapd.bitmaps: key version cardinality checksum nbytes bits (hex, or
 * "chunked" for a big bitmap's head row, "chunked:" and its flips in hex when it has
 * flips). */
static void take_db_row(struct ckey *k, char **tok, const char *path)
{
    k->in_db = true;
    k->version = atoll(tok[1]);
    k->cardinality = atoll(tok[2]);
    k->checksum = atoll(tok[3]);
    k->nbytes = atoll(tok[4]);
    k->chunked = !strncmp(tok[5], "chunked", 7);
    if (k->chunked && tok[5][7] == ':' && !unhex(tok[5] + 8, strlen(tok[5] + 8), &k->flips, &k->nflips))
        die("%s: bad hex in flips", path);
    if (!k->chunked && !unhex(tok[5], strlen(tok[5]), &k->bits, &k->nbits)) die("%s: bad hex in bits", path);
}

/* A row of bitmapd.chunks: key lo hi cardinality checksum bits (hex), in lo order. */
static void take_chunk_row(struct ckey *k, char **tok, const char *path)
{
    k->chunks = xrealloc(k->chunks, (k->nchunks + 1) * sizeof(*k->chunks));
    struct cchunk *c = &k->chunks[k->nchunks++];
    c->lo = atoll(tok[1]);
    c->hi = atoll(tok[2]);
    c->cardinality = atoll(tok[3]);
    c->checksum = atoll(tok[4]);
    if (!unhex(tok[5], strlen(tok[5]), &c->bits, &c->nbits)) die("%s: bad hex in chunk bits", path);
}

static void read_sql_members(const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, hex[600];
    size_t cap = 0;
    unsigned long m;
    if (!f) die("%s: %s", path, strerror(errno));
    while (getline(&line, &cap, f) > 0) {
        uint8_t *name;
        size_t nlen;
        if (sscanf(line, "%599s %lu", hex, &m) != 2 || m > UINT32_MAX || !unhex(hex, strlen(hex), &name, &nlen))
            die("%s: malformed line: %s", path, line);
        u32v_push(&key_get((char *)name)->sql, (uint32_t)m);
        free(name);
    }
    free(line);
    fclose(f);
}

/* Members of message:push:{user} over HTTP, walking the newest-first pages with
 * consistent=true. False (with a reason) when a page cannot be read. */
static bool http_members(struct hconn *h, uint64_t user, struct u32v *out, char *why, size_t wlen)
{
    char path[160];
    long long before = -1, pushed = -1;
    out->n = 0;
    for (int page = 0; page < 100000; page++) {
        struct hresp r;
        if (before < 0)
            snprintf(path, sizeof(path), "/v1/users/%" PRIu64 "/messages?limit=%d&consistent=true", user, HTTP_PAGE);
        else
            snprintf(path, sizeof(path), "/v1/users/%" PRIu64 "/messages?limit=%d&before=%lld&consistent=true", user,
                     HTTP_PAGE, before);
        enum hstatus hs = http_do(h, "GET", path, NULL, &r);
        if (hs != H_ANSWERED || r.status != 200) {
            snprintf(why, wlen, "GET %.150s: %d %.100s%.100s", path, r.status, r.body ? r.body : "", r.err);
            free(r.body);
            return false;
        }
        const char *p = strstr(r.body, "\"pushed\":");
        if (p) pushed = atoll(p + 9);
        const char *msgs = strstr(r.body, "\"messages\":[");
        const char *nb = strstr(r.body, "\"next_before\":");
        if (!msgs || !nb || pushed < 0) {
            snprintf(why, wlen, "unexpected page: %.100s", r.body);
            free(r.body);
            return false;
        }
        for (p = msgs; (p = strstr(p, "\"id\":")) != NULL && p < nb; p += 5)
            u32v_push(out, (uint32_t)strtoul(p + 5, NULL, 10));
        bool last = strncmp(nb + 14, "null", 4) == 0;
        before = last ? -1 : atoll(nb + 14);
        free(r.body);
        if (last) break;
    }
    u32v_sort(out);
    if ((long long)out->n != pushed) {
        snprintf(why, wlen, "pages list %zu messages, pushed says %lld", out->n, pushed);
        return false;
    }
    return true;
}

static void usage_check(void)
{
    fprintf(stderr, "usage: fault_tool check --log FILE [--log FILE...] --db FILE [--chunks FILE] [--sql FILE]\n"
                    "         [--resp P1,P2,..] [--http P1,P2,..] [--show N]\n");
    exit(2);
}

#define REPORT(...)                                                                                \
    do {                                                                                           \
        if (shown++ < show) printf("# " __VA_ARGS__);                                              \
    } while (0)

static int mode_check(int argc, char **argv)
{
    const char *logs[8], *db = NULL, *sql = NULL, *chunks = NULL;
    int nlogs = 0, nresp = 0, nhttp = 0, resp_ports[MAX_INST], http_ports[MAX_INST];
    long show = 20, shown = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage_check();
        i++;
        if (!strcmp(a, "--log") && nlogs < 8) logs[nlogs++] = v;
        else if (!strcmp(a, "--db")) db = v;
        else if (!strcmp(a, "--sql")) sql = v;
        else if (!strcmp(a, "--chunks")) chunks = v;
        else if (!strcmp(a, "--resp")) nresp = parse_ports(v, resp_ports);
        else if (!strcmp(a, "--http")) nhttp = parse_ports(v, http_ports);
        else if (!strcmp(a, "--show")) show = parse_long(v, 0, 100000, a);
        else usage_check();
    }
    if (!nlogs || !db) usage_check();
    alarm(170);

    long attempts[3] = {0};
    for (int i = 0; i < nlogs; i++) read_log(logs[i], attempts);
    read_rows(db, take_db_row);
    if (chunks) read_rows(chunks, take_chunk_row);
    if (sql) read_sql_members(sql);
    for (size_t i = 0; i < keys.n; i++) u32v_sort(&keys.v[i].sql);

    long ops[3] = {0}, lost = 0, unexpected = 0, failed_present = 0, ind_applied = 0;
    long rows = 0, row_errors = 0, col_errors = 0, sql_errors = 0, svc_errors = 0, replay_equal = 0;
    long resp_reads = 0, http_reads = 0, max_card = 0, chunked_rows = 0;
    redisContext *rc[MAX_INST] = {0};
    struct hconn hc[MAX_INST];
    char err[512];
    for (int i = 0; i < nresp; i++)
        if (!(rc[i] = resp_connect(resp_ports[i], err, sizeof(err)))) die("RESP port %d: %s", resp_ports[i], err);
    for (int i = 0; i < nhttp; i++) hc[i] = (struct hconn){.fd = -1, .port = http_ports[i]};

    struct u32v dbm = {0}, svc = {0}, ack = {0}, allowed = {0};
    for (size_t ki = 0; ki < keys.n; ki++) {
        struct ckey *k = &keys.v[ki];
        /* operations: attempts of one offset merged, the best status wins */
        if (k->nops > 1) qsort(k->ops, k->nops, sizeof(*k->ops), cmp_op);
        size_t w = 0;
        for (size_t i = 0; i < k->nops; i++)
            if (w == 0 || k->ops[w - 1].off != k->ops[i].off) k->ops[w++] = k->ops[i];
        k->nops = w;
        ack.n = allowed.n = 0;
        for (size_t i = 0; i < k->nops; i++) {
            ops[status_index(k->ops[i].st)]++;
            if (k->ops[i].st == 'A') u32v_push(&ack, k->ops[i].off);
            if (k->ops[i].st != 'F') u32v_push(&allowed, k->ops[i].off);
        }
        /* the row as stored, decoded here */
        dbm.n = 0;
        if (k->in_db) {
            rows++;
            if (k->chunked) {
                /* each chunk on its own: its CRC, its format, its members inside its range */
                struct u32v part = {0};
                long long prev_hi = 0;
                chunked_rows++;
                if (!k->nchunks) {
                    row_errors++;
                    REPORT("row %s is chunked but has no chunk\n", k->name);
                }
                for (size_t j = 0; j < k->nchunks; j++) {
                    const struct cchunk *c = &k->chunks[j];
                    if ((long long)crc32c(c->bits, c->nbits) != c->checksum) {
                        col_errors++;
                        REPORT("chunk %s/%lld: checksum column %lld, CRC-32C of bits %" PRIu32 "\n", k->name, c->lo,
                               c->checksum, crc32c(c->bits, c->nbits));
                    }
                    if (!decode_bits(c->bits, c->nbits, &part, err, sizeof(err))) {
                        row_errors++;
                        REPORT("chunk %s/%lld does not decode: %s\n", k->name, c->lo, err);
                        continue;
                    }
                    bool inside = c->lo >= prev_hi && c->lo < c->hi && (long long)part.n == c->cardinality;
                    for (size_t m = 0; m < part.n; m++) {
                        inside &= (long long)(part.v[m] >> 16) >= c->lo && (long long)(part.v[m] >> 16) < c->hi;
                        u32v_push(&dbm, part.v[m]);
                    }
                    if (!inside) {
                        row_errors++;
                        REPORT("chunk %s/%lld..%lld: members outside its range, overlapping chunks or a wrong "
                               "cardinality column\n", k->name, c->lo, c->hi);
                    }
                    prev_hi = c->hi;
                }
                /* the head's flips: the members in which the value differs from its chunks */
                if (k->flips) {
                    struct u32v x = {0};
                    size_t a = 0, b = 0;
                    if (!decode_bits(k->flips, k->nflips, &part, err, sizeof(err))) {
                        row_errors++;
                        REPORT("row %s: its flips do not decode: %s\n", k->name, err);
                        part.n = 0;
                    }
                    while (a < dbm.n || b < part.n) { /* both ascending: the symmetric difference */
                        if (b == part.n || (a < dbm.n && dbm.v[a] < part.v[b])) u32v_push(&x, dbm.v[a++]);
                        else if (a == dbm.n || part.v[b] < dbm.v[a]) u32v_push(&x, part.v[b++]);
                        else a++, b++;
                    }
                    free(dbm.v);
                    dbm = x;
                }
                free(part.v);
                /* the head's checksum: CRC-32C of the chunks' (lo, hi, checksum) as
                 * little-endian uint32 triples (migration 0008), then its flips (0010) */
                uint8_t *dir = malloc(12 * (k->nchunks + 1) + k->nflips);
                if (!dir) die("out of memory");
                if (k->nflips) memcpy(dir + 12 * k->nchunks, k->flips, k->nflips);
                for (size_t j = 0; j < k->nchunks; j++) {
                    uint32_t t[3] = {(uint32_t)k->chunks[j].lo, (uint32_t)k->chunks[j].hi,
                                     (uint32_t)k->chunks[j].checksum};
                    for (int x = 0; x < 3; x++)
                        for (int y = 0; y < 4; y++) dir[12 * j + 4 * x + y] = (uint8_t)(t[x] >> (8 * y));
                }
                if ((long long)crc32c(dir, 12 * k->nchunks + k->nflips) != k->checksum) {
                    col_errors++;
                    REPORT("row %s: head checksum %lld does not name its %zu chunks\n", k->name, k->checksum,
                           k->nchunks);
                }
                free(dir);
            } else if (!decode_bits(k->bits, k->nbits, &dbm, err, sizeof(err))) {
                row_errors++;
                REPORT("row %s does not decode: %s\n", k->name, err);
                dbm.n = 0;
            }
            if ((long long)dbm.n != k->cardinality) {
                col_errors++;
                REPORT("row %s: cardinality column %lld, decoded %zu members\n", k->name, k->cardinality, dbm.n);
            }
            /* a chunked head's checksum is the CRC of the service's own encoding of the
             * whole bitmap, which this decoder does not reproduce; its chunks were checked */
            if (!k->chunked && (long long)crc32c(k->bits, k->nbits) != k->checksum) {
                col_errors++;
                REPORT("row %s: checksum column %lld, CRC-32C of bits %" PRIu32 "\n", k->name, k->checksum,
                       crc32c(k->bits, k->nbits));
            }
            /* every committed write of this workload adds exactly one new member (a
             * write that changes nothing commits nothing), so version = members */
            if (k->version != (long long)dbm.n) {
                col_errors++;
                REPORT("row %s: version %lld but %zu members (one committed write per addition)\n", k->name,
                       k->version, dbm.n);
            }
            if (sql && !u32v_equal(&dbm, &k->sql)) {
                sql_errors++;
                REPORT("row %s: bitmapd.members() gives %zu members, this decoder %zu\n", k->name, k->sql.n, dbm.n);
            }
            if ((long)dbm.n > max_card) max_card = (long)dbm.n;
        }
        /* lost: acknowledged, not stored; unexpected: stored, never attempted (or only
         * attempts that certainly failed) */
        for (size_t i = 0; i < ack.n; i++)
            if (!u32v_has(&dbm, ack.v[i])) {
                lost++;
                REPORT("LOST: %s offset %" PRIu32 " was acknowledged and is not in the row\n", k->name, ack.v[i]);
            }
        for (size_t i = 0; i < dbm.n; i++)
            if (!u32v_has(&allowed, dbm.v[i])) {
                unexpected++;
                bool failed = false;
                for (size_t j = 0; j < k->nops; j++) failed |= k->ops[j].off == dbm.v[i];
                failed_present += failed;
                REPORT("UNEXPECTED: %s offset %" PRIu32 " is in the row but %s\n", k->name, dbm.v[i],
                       failed ? "every attempt failed cleanly" : "was never attempted");
            }
        for (size_t i = 0; i < k->nops; i++)
            if (k->ops[i].st == 'I' && u32v_has(&dbm, k->ops[i].off)) ind_applied++;
        /* the replay: acknowledged operations plus the indeterminate ones the row shows
         * applied; the row must be exactly that */
        {
            size_t n_replay = ack.n;
            for (size_t i = 0; i < k->nops; i++)
                if (k->ops[i].st == 'I' && u32v_has(&dbm, k->ops[i].off)) n_replay++;
            bool subset = true;
            for (size_t i = 0; i < dbm.n && subset; i++) subset = u32v_has(&allowed, dbm.v[i]);
            if (subset && n_replay == dbm.n) replay_equal++;
        }
        /* the service, every instance */
        uint32_t max = dbm.n ? dbm.v[dbm.n - 1] : 0;
        long long eff_len = dbm.n ? max / 8 + 1 : 0;
        if (k->nbytes > eff_len) eff_len = k->nbytes;
        for (int i = 0; i < nresp; i++) {
            redisAppendCommand(rc[i], "R.GETINTARRAY %s", k->name);
            redisAppendCommand(rc[i], "STRLEN %s", k->name);
            redisReply *r1 = NULL, *r2 = NULL;
            if (redisGetReply(rc[i], (void **)&r1) != REDIS_OK || redisGetReply(rc[i], (void **)&r2) != REDIS_OK)
                die("RESP port %d: %s", resp_ports[i], rc[i]->errstr);
            resp_reads++;
            svc.n = 0;
            bool ok = r1->type == REDIS_REPLY_ARRAY;
            for (size_t j = 0; ok && j < r1->elements; j++) {
                ok = r1->element[j]->type == REDIS_REPLY_INTEGER;
                if (ok) u32v_push(&svc, (uint32_t)r1->element[j]->integer);
            }
            if (!ok || !u32v_equal(&svc, &dbm)) {
                svc_errors++;
                REPORT("RESP port %d: R.GETINTARRAY %s gives %s%zu members, the row has %zu\n", resp_ports[i], k->name,
                       ok ? "" : "an error or ", svc.n, dbm.n);
            }
            if (r2->type != REDIS_REPLY_INTEGER || r2->integer != eff_len) {
                svc_errors++;
                REPORT("RESP port %d: STRLEN %s = %lld, the row says %lld\n", resp_ports[i], k->name,
                       r2->type == REDIS_REPLY_INTEGER ? r2->integer : -1, eff_len);
            }
            freeReplyObject(r1);
            freeReplyObject(r2);
        }
        if (nhttp && !strncmp(k->name, "message:push:", 13)) {
            struct hconn *h = &hc[ki % (size_t)nhttp];
            http_reads++;
            if (!http_members(h, strtoull(k->name + 13, NULL, 10), &svc, err, sizeof(err))) {
                svc_errors++;
                REPORT("HTTP port %d: %s: %s\n", h->port, k->name, err);
            } else if (!u32v_equal(&svc, &dbm)) {
                svc_errors++;
                REPORT("HTTP port %d: %s lists %zu messages, the row has %zu\n", h->port, k->name, svc.n, dbm.n);
            }
        }
    }
    for (int i = 0; i < nresp; i++) redisFree(rc[i]);
    for (int i = 0; i < nhttp; i++) hconn_close(&hc[i]);

    printf("check: attempts: acknowledged=%ld failed=%ld indeterminate=%ld\n", attempts[0], attempts[1], attempts[2]);
    printf("check: operations: acknowledged=%ld failed=%ld indeterminate=%ld (applied=%ld, not applied=%ld)\n",
           ops[0], ops[1], ops[2], ind_applied, ops[2] - ind_applied);
    printf("check: lost=%ld unexpected=%ld (of which failed cleanly yet present=%ld)\n", lost, unexpected,
           failed_present);
    printf("check: keys=%zu rows=%ld (largest %ld members) undecodable=%ld column_mismatches=%ld "
           "sql_decoder_mismatches=%ld rows_equal_to_replay=%ld\n",
           keys.n, rows, max_card, row_errors, col_errors, sql_errors, replay_equal);
    printf("check: decoded rows: dense=%ld gaps=%ld roaring=%ld (containers: array=%ld bitset=%ld run=%ld) chunked=%ld\n",
           seen.dense, seen.gaps, seen.roaring, seen.arrays, seen.bitsets, seen.runs, chunked_rows);
    printf("check: service reads: resp=%ld http=%ld service_mismatches=%ld\n", resp_reads, http_reads, svc_errors);
    if (shown > show) printf("# ... %ld more problems not shown\n", shown - show);
    bool ok = !lost && !unexpected && !row_errors && !col_errors && !sql_errors && !svc_errors &&
              replay_equal == rows;
    free(dbm.v);
    free(svc.v);
    free(ack.v);
    free(allowed.v);
    for (size_t i = 0; i < keys.n; i++) {
        free(keys.v[i].name);
        free(keys.v[i].ops);
        free(keys.v[i].bits);
        free(keys.v[i].flips);
        free(keys.v[i].sql.v);
    }
    free(keys.v);
    free(keys.table);
    return ok ? 0 : 1;
}

/* ============================== probe and await ========================================= */

/* One request: RESP (argv is the command) or HTTP (argv: METHOD PATH [BODY]). Sets
 * *ok when the service did what was asked (a non-error RESP reply, HTTP 2xx) and
 * *answered when it answered at all; writes a one-line description. */
static void one_request(bool http, int port, int argc, char **argv, bool *answered, bool *ok, char *desc,
                        size_t dlen)
{
    *answered = *ok = false;
    if (http) {
        struct hconn h = {.fd = -1, .port = port};
        struct hresp r;
        if (argc < 2) die("HTTP needs METHOD PATH [BODY]");
        enum hstatus hs = http_do(&h, argv[0], argv[1], argc > 2 ? argv[2] : NULL, &r);
        hconn_close(&h);
        if (hs == H_ANSWERED) {
            *answered = true;
            *ok = r.status >= 200 && r.status < 300;
            snprintf(desc, dlen, "%d %s", r.status, r.body);
        } else {
            snprintf(desc, dlen, "no answer: %s", r.err);
        }
        free(r.body);
    } else {
        char err[128];
        redisContext *c = resp_connect(port, err, sizeof(err));
        if (!c) {
            snprintf(desc, dlen, "no answer: %s", err);
            return;
        }
        redisReply *r = redisCommandArgv(c, argc, (const char **)argv, NULL);
        if (!r) {
            snprintf(desc, dlen, "no answer: %s", c->errstr);
        } else {
            *answered = true;
            *ok = r->type != REDIS_REPLY_ERROR;
            if (r->type == REDIS_REPLY_ERROR) snprintf(desc, dlen, "-%s", r->str);
            else if (r->type == REDIS_REPLY_INTEGER) snprintf(desc, dlen, ":%lld", r->integer);
            else if (r->str) snprintf(desc, dlen, "+%s", r->str);
            else snprintf(desc, dlen, "(reply type %d)", r->type);
            freeReplyObject(r);
        }
        redisFree(c);
    }
    one_line(desc);
}

static void usage_probe(void)
{
    fprintf(stderr, "usage: fault_tool probe --http PORT METHOD PATH [BODY] | --resp PORT CMD [ARG...]\n"
                    "       fault_tool await [--max-seconds S] (--http PORT ... | --resp PORT ...)\n"
                    "probe exits 0 when answered (any answer) within the I/O timeout; await exits 0 once\n"
                    "a request succeeded and prints ok_at_wall_ns\n");
    exit(2);
}

static int mode_probe(int argc, char **argv, bool await)
{
    long max_s = 30;
    if (await && argc >= 2 && !strcmp(argv[0], "--max-seconds")) {
        max_s = parse_long(argv[1], 1, 120, "--max-seconds");
        argc -= 2;
        argv += 2;
    }
    if (argc < 3 || (strcmp(argv[0], "--http") && strcmp(argv[0], "--resp"))) usage_probe();
    bool http = !strcmp(argv[0], "--http");
    int port = (int)parse_long(argv[1], 1, 65535, "port");
    char desc[512];
    bool answered, ok;
    alarm((unsigned)(await ? max_s + 2 * io_timeout_s + 5 : 2 * io_timeout_s + 5));
    if (!await) {
        int64_t t0 = now_ns();
        one_request(http, port, argc - 2, argv + 2, &answered, &ok, desc, sizeof(desc));
        printf("latency_ms=%.1f answer=%s\n", (double)(now_ns() - t0) / 1e6, desc);
        return answered ? 0 : 1;
    }
    int64_t end = now_ns() + max_s * 1000000000LL;
    long tries = 0;
    while (now_ns() < end) {
        tries++;
        one_request(http, port, argc - 2, argv + 2, &answered, &ok, desc, sizeof(desc));
        if (ok) {
            printf("ok_at_wall_ns=%lld tries=%ld answer=%s\n", (long long)wall_ns(), tries, desc);
            return 0;
        }
        sleep_ms(10);
    }
    printf("not_ok tries=%ld last=%s\n", tries, desc);
    return 1;
}

/* ============================== shutdown =============================================== */

struct sd {
    int http_port, resp_port, pipeline;
    pid_t pid;
    const char *prefix;
    uint64_t user_base;
    atomic_llong t_sig;   /* monotonic ns just before kill(); 0 before */
    int64_t stop_at;      /* nobody sends after this */
    atomic_uint_fast64_t next[16];
    /* [pre|post] × sent, acked, error, unanswered */
    atomic_long n[2][4];
};

enum { SD_SENT, SD_ACK, SD_ERR, SD_UNANSWERED };

struct sdclient {
    struct sd *S;
    int id;
};

static bool sd_sent_before_signal(struct sd *S, int64_t written_at)
{
    int64_t t = atomic_load(&S->t_sig);
    return t == 0 || written_at < t;
}

static void *sd_resp_client(void *arg)
{
    struct sdclient *c = arg;
    struct sd *S = c->S;
    char key[96], buf[8192];
    int slot = c->id % 8;
    uint32_t offs[64];
    snprintf(key, sizeof(key), "%ssd:%d", S->prefix, slot);
    int fd = tcp_connect(S->resp_port);
    if (fd < 0) return NULL;
    redisReader *rd = redisReaderCreate();
    bool broken = false;
    while (!broken && now_ns() < S->stop_at) {
        size_t len = 0;
        for (int i = 0; i < S->pipeline; i++) {
            offs[i] = (uint32_t)atomic_fetch_add(&S->next[slot], 1);
            char num[16];
            int nl = snprintf(num, sizeof(num), "%" PRIu32, offs[i]);
            len += (size_t)snprintf(buf + len, sizeof(buf) - len,
                                    "*4\r\n$6\r\nSETBIT\r\n$%zu\r\n%s\r\n$%d\r\n%s\r\n$1\r\n1\r\n", strlen(key), key,
                                    nl, num);
        }
        size_t sent = send_all(fd, buf, len);
        int64_t written_at = now_ns();
        int when = sd_sent_before_signal(S, written_at) && sent == len ? 0 : 1;
        int got = 0;
        if (sent == len) {
            atomic_fetch_add(&S->n[when][SD_SENT], S->pipeline);
        } else {
            broken = true; /* part of a pipeline: not counted as sent */
        }
        while (!broken && got < S->pipeline) {
            void *reply = NULL;
            if (redisReaderGetReply(rd, &reply) != REDIS_OK) {
                broken = true;
                break;
            }
            if (reply) {
                redisReply *r = reply;
                char st = 'I';
                char detail[160];
                if (r->type == REDIS_REPLY_INTEGER) {
                    st = 'A';
                    snprintf(detail, sizeof(detail), "%s %lld", when ? "post" : "pre", r->integer);
                    atomic_fetch_add(&S->n[when][SD_ACK], 1);
                } else {
                    st = r->type == REDIS_REPLY_ERROR ? classify_resp_error(r->str) : 'I';
                    snprintf(detail, sizeof(detail), "%s %s", when ? "post" : "pre", r->str ? r->str : "?");
                    atomic_fetch_add(&S->n[when][SD_ERR], 1);
                }
                log_attempt(st, key, offs[got], 0, 'r', 0, detail);
                freeReplyObject(r);
                got++;
                continue;
            }
            char in[4096];
            ssize_t n = recv(fd, in, sizeof(in), 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                broken = true;
                break;
            }
            redisReaderFeed(rd, in, (size_t)n);
        }
        if (sent == len)
            for (int i = got; i < S->pipeline; i++) {
                log_attempt('I', key, offs[i], 0, 'r', 0, when ? "post unanswered" : "pre unanswered");
                atomic_fetch_add(&S->n[when][SD_UNANSWERED], 1);
            }
    }
    redisReaderFree(rd);
    close(fd);
    return NULL;
}

static void *sd_http_client(void *arg)
{
    struct sdclient *c = arg;
    struct sd *S = c->S;
    struct hconn h = {.fd = -1, .port = S->http_port};
    uint64_t user = S->user_base + (uint64_t)(c->id % 4);
    int slot = 8 + c->id % 4;
    char key[64], path[96], body[64], detail[200];
    snprintf(key, sizeof(key), "message:push:%" PRIu64, user);
    snprintf(path, sizeof(path), "/v1/users/%" PRIu64 "/pushes", user);
    while (now_ns() < S->stop_at) {
        uint32_t off = (uint32_t)atomic_fetch_add(&S->next[slot], 1);
        struct hresp r;
        snprintf(body, sizeof(body), "{\"messages\":[%" PRIu32 "]}", off);
        /* only reuse the connection: after SIGTERM a new one must be refused */
        bool had = h.fd >= 0 && !conn_dead(h.fd);
        if (!had && atomic_load(&S->t_sig)) break;
        int64_t t0 = now_ns();
        enum hstatus hs = http_do(&h, "POST", path, body, &r);
        if (hs == H_NOT_CONNECTED || hs == H_NOT_SENT) {
            free(r.body);
            break;
        }
        int when = r.sent_at && sd_sent_before_signal(S, r.sent_at) ? 0 : 1;
        atomic_fetch_add(&S->n[when][SD_SENT], 1);
        char st = classify_http(hs, &r);
        if (hs == H_ANSWERED) {
            atomic_fetch_add(&S->n[when][r.status == 200 ? SD_ACK : SD_ERR], 1);
            snprintf(detail, sizeof(detail), "%s %d %.120s", when ? "post" : "pre", r.status,
                     r.status == 200 ? "" : r.body);
        } else {
            atomic_fetch_add(&S->n[when][SD_UNANSWERED], 1);
            snprintf(detail, sizeof(detail), "%s unanswered: %s", when ? "post" : "pre", r.err);
        }
        log_attempt(st, key, off, 0, 'h', now_ns() - t0, detail);
        free(r.body);
        if (hs != H_ANSWERED) break;
    }
    hconn_close(&h);
    return NULL;
}

/* Milliseconds after t_sig until connecting to port is refused; -1 if it never was
 * within limit_ms. */
static long refused_after(int port, int64_t t_sig, long limit_ms)
{
    while ((now_ns() - t_sig) / 1000000 < limit_ms) {
        int fd = tcp_connect(port);
        if (fd < 0 && errno == ECONNREFUSED) return (long)((now_ns() - t_sig) / 1000000);
        if (fd >= 0) close(fd);
        sleep_ms(5);
    }
    return -1;
}

static void usage_shutdown(void)
{
    fprintf(stderr, "usage: fault_tool shutdown --pid PID --http PORT --resp PORT --log FILE --prefix P\n"
                    "         --user-base U [--resp-clients 50] [--http-clients 8] [--pipeline 20]\n"
                    "         [--warmup-ms 1500] [--after-seconds 15]\n");
    exit(2);
}

static int mode_shutdown(int argc, char **argv)
{
    struct sd *S = calloc(1, sizeof(*S));
    const char *log_path = NULL;
    int nresp = 50, nhttp = 8;
    long warmup = 1500, after = 15;
    if (!S) die("out of memory");
    S->pipeline = 20;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage_shutdown();
        i++;
        if (!strcmp(a, "--pid")) S->pid = (pid_t)parse_long(v, 2, INT32_MAX, a);
        else if (!strcmp(a, "--http")) S->http_port = (int)parse_long(v, 1, 65535, a);
        else if (!strcmp(a, "--resp")) S->resp_port = (int)parse_long(v, 1, 65535, a);
        else if (!strcmp(a, "--log")) log_path = v;
        else if (!strcmp(a, "--prefix")) S->prefix = v;
        else if (!strcmp(a, "--user-base")) S->user_base = (uint64_t)parse_long(v, 0, 1L << 62, a);
        else if (!strcmp(a, "--resp-clients")) nresp = (int)parse_long(v, 1, 500, a);
        else if (!strcmp(a, "--http-clients")) nhttp = (int)parse_long(v, 0, 100, a);
        else if (!strcmp(a, "--pipeline")) S->pipeline = (int)parse_long(v, 1, 64, a);
        else if (!strcmp(a, "--warmup-ms")) warmup = parse_long(v, 100, 60000, a);
        else if (!strcmp(a, "--after-seconds")) after = parse_long(v, 1, 60, a);
        else usage_shutdown();
    }
    if (!S->pid || !S->http_port || !S->resp_port || !log_path || !S->prefix) usage_shutdown();
    alarm((unsigned)(warmup / 1000 + after + 2 * io_timeout_s + 20));
    if (!(log_fp = fopen(log_path, "w"))) die("%s: %s", log_path, strerror(errno));
    S->stop_at = now_ns() + (warmup + after * 1000) * 1000000LL;

    int n = nresp + nhttp;
    struct sdclient *cl = calloc((size_t)n, sizeof(*cl));
    pthread_t *th = calloc((size_t)n, sizeof(*th));
    if (!cl || !th) die("out of memory");
    for (int i = 0; i < n; i++) {
        cl[i] = (struct sdclient){S, i};
        if (pthread_create(&th[i], NULL, i < nresp ? sd_resp_client : sd_http_client, &cl[i]) != 0)
            die("pthread_create failed");
    }
    sleep_ms(warmup);
    int64_t t = now_ns();
    atomic_store(&S->t_sig, t);
    long long t_wall = wall_ns();
    if (kill(S->pid, SIGTERM) != 0) die("kill %d: %s", (int)S->pid, strerror(errno));
    long r_resp = refused_after(S->resp_port, t, 3000), r_http = refused_after(S->http_port, t, 3000);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    fclose(log_fp);

    printf("shutdown: sigterm_wall_ns=%lld\n", t_wall);
    printf("shutdown: refused_after_ms resp=%ld http=%ld\n", r_resp, r_http);
    for (int w = 0; w < 2; w++)
        printf("shutdown: %s sent=%ld acked=%ld errors=%ld unanswered=%ld\n", w ? "post" : "pre",
               atomic_load(&S->n[w][SD_SENT]), atomic_load(&S->n[w][SD_ACK]), atomic_load(&S->n[w][SD_ERR]),
               atomic_load(&S->n[w][SD_UNANSWERED]));
    free(cl);
    free(th);
    free(S);
    return 0;
}

/* ================================================================================== */

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *t = getenv("FAULT_IO_TIMEOUT_S");
    if (t) io_timeout_s = (int)parse_long(t, 1, 60, "FAULT_IO_TIMEOUT_S");
    if (argc < 2) {
        fprintf(stderr, "usage: fault_tool load|check|probe|await|shutdown ... (see the head of fault_tool.c)\n");
        return 2;
    }
    if (!strcmp(argv[1], "load")) return mode_load(argc - 2, argv + 2);
    if (!strcmp(argv[1], "check")) return mode_check(argc - 2, argv + 2);
    if (!strcmp(argv[1], "probe")) return mode_probe(argc - 2, argv + 2, false);
    if (!strcmp(argv[1], "await")) return mode_probe(argc - 2, argv + 2, true);
    if (!strcmp(argv[1], "shutdown")) return mode_shutdown(argc - 2, argv + 2);
    fprintf(stderr, "fault_tool: unknown mode %s\n", argv[1]);
    return 2;
}
