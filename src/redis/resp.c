/* resp.c — the Redis-protocol listener.
 *
 * Each client has a FIFO of parsed commands. A command starts when no earlier,
 * unfinished command of the same client touches one of its keys with a write (so a
 * pipelined SETBIT then GETBIT of one key read in order), and replies leave in
 * command order whatever order the database answers in. A write's reply is written
 * only after its commit. The socket stops being read while [resp] max_pipeline
 * commands are queued, so one client cannot queue without bound. */
#include "redis/resp.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "core/auth.h"
#include "store/cache.h"
#include "core/log.h"
#include "core/metrics.h"
#include "redis/resp_internal.h"
#include "store/store.h"

static int g_inflight;

/* per command, the last row for unknown commands */
static struct cmd_stat {
    unsigned long long calls, errors;
    struct metrics_hist latency;
} *g_stats;

/* The counters of command i (n: unknown commands), allocated on first use. */
static struct cmd_stat *command_stats(void)
{
    size_t n;
    resp_all_commands(&n);
    if (!g_stats && !(g_stats = calloc(n + 1, sizeof(*g_stats)))) abort();
    return g_stats;
}

int resp_inflight(void) { return g_inflight; }

int resp_server_unsent(const struct resp_server *srv)
{
    int n = 0;
    for (const struct rclient *cl = srv ? srv->clients : NULL; cl; cl = cl->next)
        if (cl->bev && evbuffer_get_length(bufferevent_get_output(cl->bev)) > 0) n++;
    return n;
}


static void client_pump(struct rclient *cl);
static void client_free(struct rclient *cl);
static void client_arm_timer(struct rclient *cl);
static void client_reading(struct rclient *cl, bool on);
static void protocol_error(struct rclient *cl, const char *msg);

/* ---- ordering ----------------------------------------------------------------------- */

static bool is_key_arg(const struct rcmd *c, size_t i)
{
    const struct rcmd_def *d = c->def;
    if (!d || d->first_key <= 0 || i < (size_t)d->first_key) return false;
    size_t last = d->last_key < 0 ? c->argc + (size_t)(d->last_key + 1) - 1 : (size_t)d->last_key;
    if (i > last) return false;
    return (i - (size_t)d->first_key) % (size_t)(d->key_step ? d->key_step : 1) == 0;
}

/* Must b (later) wait for a (earlier, unfinished)? */
static bool must_wait(const struct rcmd *a, const struct rcmd *b)
{
    if (!a->def || !b->def) return false;
    if ((a->def->flags | b->def->flags) & RC_BARRIER) return true;
    if (a->def->flags & b->def->flags & RC_MERGED) return false;
    bool aw = a->def->flags & RC_WRITE, bw = b->def->flags & RC_WRITE;
    if (!aw && !bw) return false;
    if (((a->def->flags & RC_ALLKEYS) && bw) || ((b->def->flags & RC_ALLKEYS) && aw)) return true;
    for (size_t i = 1; i < a->argc; i++) {
        if (!is_key_arg(a, i)) continue;
        for (size_t j = 1; j < b->argc; j++)
            if (is_key_arg(b, j) && a->argv[i].len == b->argv[j].len &&
                memcmp(a->argv[i].ptr, b->argv[j].ptr, a->argv[i].len) == 0)
                return true;
    }
    return false;
}

static void unknown_command(struct rcmd *c)
{
    char args[256];
    size_t n = 0;
    args[0] = '\0';
    for (size_t i = 1; i < c->argc && n < 128; i++) {
        int w = snprintf(args + n, sizeof(args) - n, "'%.*s' ", (int)(128 - n < c->argv[i].len ? 128 - n : c->argv[i].len),
                         c->argv[i].ptr);
        if (w < 0) break;
        n += (size_t)w;
        if (n >= sizeof(args)) n = sizeof(args) - 1;
    }
    rr_error(&c->r, "ERR unknown command '%.128s', with args beginning with: %s", c->argv[0].ptr, args);
}

static bool arity_ok(const struct rcmd *c)
{
    int a = c->def->arity;
    return a >= 0 ? (int)c->argc == a : (int)c->argc >= -a;
}

static bool is_merged(const struct rcmd *c) { return c->def && (c->def->flags & RC_MERGED); }

/* A command a later one may have to wait for, whatever it is (must_wait: a read waits
 * only for these). */
static bool is_writing(const struct rcmd *c) { return c->def && (c->def->flags & (RC_WRITE | RC_BARRIER)); }

/* May c (not started; every command before it is) start now? An RC_MERGED write
 * waits for nothing while only such writes run (the common deep pipeline of
 * SETBITs), without comparing it with each of them. */
static bool may_start(const struct rclient *cl, const struct rcmd *c)
{
    if (is_merged(c) && cl->started_other == 0) return true;
    if (!is_writing(c) && cl->started_writes == 0) return true; /* a deep pipeline of reads */
    for (struct rcmd *e = cl->head; e != c; e = e->next)
        if (!e->done && must_wait(e, c)) return false;
    return true;
}

static void cmd_start(struct rclient *cl, struct rcmd *c)
{
    c->t0 = metrics_now();
    c->started = true;
    cl->started++;
    if (!is_merged(c)) cl->started_other++;
    if (is_writing(c)) cl->started_writes++;
    cl->srv->commands++;
    c->r.proto = cl->proto;
    if (c->tx != TX_NONE && resp_auth_required(cl)) {
        rr_error(&c->r, "NOAUTH Authentication required.");
        rcmd_finish(c);
    } else if (c->tx != TX_NONE) {
        resp_tx_answer(c);
        rcmd_finish(c);
    } else if (!c->def) {
        unknown_command(c);
        rcmd_finish(c);
    } else if (resp_auth_required(cl) && !(c->def->flags & RC_NOAUTH)) {
        rr_error(&c->r, "NOAUTH Authentication required.");
        rcmd_finish(c);
    } else if (!arity_ok(c)) {
        resp_arity_error(c, c->def->name);
        rcmd_finish(c);
    } else {
        c->def->fn(c);
    }
}

/* Closing (QUIT, a protocol error) or half-closed by the peer, with every command
 * answered: closed once its output is sent. */
static bool client_answered_all(const struct rclient *cl) { return (cl->closing || cl->eof) && !cl->head; }

static void client_mark_dirty(struct rclient *cl)
{
    struct resp_server *srv = cl->srv;
    if (cl->dirty) return;
    cl->dirty = true;
    cl->dirty_prev = NULL;
    cl->dirty_next = srv->dirty;
    if (srv->dirty) srv->dirty->dirty_prev = cl;
    srv->dirty = cl;
    event_active(srv->flush_ev, EV_WRITE, 1);
}

static void client_unmark_dirty(struct rclient *cl)
{
    if (!cl->dirty) return;
    if (cl->dirty_prev) cl->dirty_prev->dirty_next = cl->dirty_next;
    else cl->srv->dirty = cl->dirty_next;
    if (cl->dirty_next) cl->dirty_next->dirty_prev = cl->dirty_prev;
    cl->dirty = false;
    cl->dirty_prev = cl->dirty_next = NULL;
}

static void client_flush(struct rclient *cl)
{
    while (cl->head && cl->head->done) {
        struct rcmd *c = cl->head;
        cl->head = c->next;
        if (cl->next_start == c) cl->next_start = c->next;
        if (!cl->head) cl->tail = NULL;
        cl->queued--;
        if (!cl->gone) {
            bufferevent_write_buffer(cl->bev, c->r.out);
            client_mark_dirty(cl);
        }
        rargs_free(c->argv, c->argc);
        if (cl->nspare < RESP_SPARES && evbuffer_get_length(c->r.out) == 0) {
            c->next = cl->spare;
            cl->spare = c;
            cl->nspare++;
        } else {
            evbuffer_free(c->r.out);
            free(c);
        }
    }
}

static bool client_parse(struct rclient *cl);

/* Starts what may start, sends finished replies in order, reads more; repeats
 * until nothing moves. Commands that finish while it runs only mark themselves
 * done (no recursion, whatever the pipeline depth). */
static void client_pump(struct rclient *cl)
{
    if (cl->pumping) {
        cl->repump = true;
        return;
    }
    cl->pumping = true;
    do {
        cl->repump = false;
        for (;;) { /* from the first command not started: a pump per finished command stays O(1) */
            while (cl->next_start && cl->next_start->started) cl->next_start = cl->next_start->next;
            struct rcmd *c = cl->next_start;
            if (!c || cl->gone || cl->started >= MAX_STARTED || !may_start(cl, c)) break;
            cmd_start(cl, c);
        }
        client_flush(cl);
        if (!cl->gone && client_parse(cl)) cl->repump = true;
    } while (cl->repump && !cl->gone);
    cl->pumping = false;

    if (cl->gone) {
        if (cl->started == 0) client_free(cl);
        return;
    }
    if (client_answered_all(cl) && evbuffer_get_length(bufferevent_get_output(cl->bev)) == 0) {
        cl->gone = true;
        client_free(cl); /* otherwise write_cb closes once the output is sent */
        return;
    }
    client_arm_timer(cl);
}

static void count_command(const struct rcmd *c)
{
    size_t n;
    const struct rcmd_def *defs = resp_all_commands(&n);
    struct cmd_stat *st = &command_stats()[c->def ? (size_t)(c->def - defs) : n];
    char first = 0;
    evbuffer_copyout(c->r.out, &first, 1);
    st->calls++;
    if (first == '-' || first == '!') st->errors++;
    metrics_observe_latency(&st->latency, metrics_now() - c->t0);
}

/* The RESP families on GET /metrics (registered by resp_server_new). */
static void resp_metrics_render(struct evbuffer *out, void *arg)
{
    size_t n;
    const struct rcmd_def *defs = resp_all_commands(&n);
    const struct cmd_stat *g = command_stats();
    metrics_family(out, "bitmapd_resp_commands_total", "counter",
                   "RESP commands answered, by command and result (command \"unknown\": no such command).");
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? defs[i].name : "unknown";
        if (!g[i].calls) continue;
        if (g[i].calls > g[i].errors)
            evbuffer_add_printf(out, "bitmapd_resp_commands_total{command=\"%s\",result=\"ok\"} %llu\n", name,
                                g[i].calls - g[i].errors);
        if (g[i].errors)
            evbuffer_add_printf(out, "bitmapd_resp_commands_total{command=\"%s\",result=\"error\"} %llu\n",
                                name, g[i].errors);
    }
    metrics_family(out, "bitmapd_resp_command_duration_seconds", "histogram",
                   "Time from a command's start to its reply being ready, by command.");
    for (size_t i = 0; i <= n; i++) {
        char labels[96];
        if (!g[i].calls) continue;
        snprintf(labels, sizeof(labels), "command=\"%s\"", i < n ? defs[i].name : "unknown");
        metrics_latency_series(out, "bitmapd_resp_command_duration_seconds", labels, &g[i].latency);
    }
    metrics_counter(out, "bitmapd_resp_auth_failures_total", "RESP AUTH attempts with a wrong password.",
                    metrics.resp_auth_failures);
    metrics_counter(out, "bitmapd_resp_timeouts_total", "RESP clients closed by an idle, command or write deadline.",
                    metrics.resp_timeouts);
    (void)arg;
}

/* A command's end (rcmd_finish): counted, and its reply sent once its turn comes. */
static void command_finished(struct rcmd *c)
{
    struct rclient *cl = c->cl;
    count_command(c);
    c->done = true;
    cl->started--;
    if (!is_merged(c)) cl->started_other--;
    if (is_writing(c)) cl->started_writes--;
    g_inflight--;
    client_pump(cl);
}

/* ---- sockets ------------------------------------------------------------------------- */

/* Backpressure: [resp] max_pipeline commands queued, or replies piling up unread.
 * The socket is not read meanwhile (and the client is not slow: we are). */
static bool client_full(const struct rclient *cl)
{
    return cl->queued >= (size_t)cl->srv->app->cfg->resp_max_pipeline ||
           evbuffer_get_length(bufferevent_get_output(cl->bev)) > OUTPUT_HIGH_WATER;
}

/* The parser limits of [resp], for new clients and, after SIGHUP, connected ones. */
static struct rproto_limits parser_limits(const struct config *cfg)
{
    struct rproto_limits lim = {0};
    lim.max_bulk = (size_t)cfg->resp_max_bulk_bytes;
    lim.max_args = (size_t)cfg->resp_max_args;
    lim.max_inline = (size_t)cfg->resp_max_inline_bytes;
    return lim;
}

/* The deadlines of a client, one timer for both:
 *  - command ([resp] command_timeout_s): once part of a command has arrived, the
 *    rest must follow in time, else the client is answered -ERR and closed (a
 *    client that trickles bytes holds memory and a slot); a whole command arriving
 *    restarts it, so a long stream of pipelined commands is never cut;
 *  - idle ([resp] timeout_s, Redis's `timeout`): nothing in flight, nothing arriving.
 * A client that does not read its replies meets the bufferevent's write timeout
 * ([resp] write_timeout_s) instead. */
static void client_arm_timer(struct rclient *cl)
{
    const struct config *cfg = cl->srv->app->cfg;
    bool full = client_full(cl);
    bool partial = cl->parser.want_args != -1 || evbuffer_get_length(cl->in) > 0;
    int kind = DEADLINE_NONE, secs = 0;

    if (cl->gone || cl->closing || cl->eof || !cl->timer) {
        kind = DEADLINE_NONE;
    } else if (partial && !full && cfg->resp_command_timeout_s > 0) {
        kind = DEADLINE_COMMAND;
        secs = cfg->resp_command_timeout_s;
    } else if (!partial && !cl->head && cfg->resp_timeout_s > 0) {
        kind = DEADLINE_IDLE;
        secs = cfg->resp_timeout_s;
    }
    if (kind == DEADLINE_NONE) {
        if (cl->timer && cl->deadline != DEADLINE_NONE) evtimer_del(cl->timer); /* none armed since */
    } else if (kind != (int)cl->deadline || cl->parsed || !evtimer_pending(cl->timer, NULL)) {
        struct timeval tv = {secs, 0};
        evtimer_add(cl->timer, &tv);
    }
    cl->deadline = kind;
    cl->parsed = false;
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rclient *cl = arg;
    const struct config *cfg = cl->srv->app->cfg;
    char msg[96];
    (void)fd;
    (void)what;
    metrics.resp_timeouts++;
    if (cl->deadline == DEADLINE_IDLE) {
        log_debug("msg=\"RESP client idle: closed\" client=%llu timeout_s=%d", (unsigned long long)cl->id,
                  cfg->resp_timeout_s);
        cl->gone = true;
        client_free(cl);
        return;
    }
    log_info("msg=\"slow RESP client: command not received in time\" client=%llu timeout_s=%d",
             (unsigned long long)cl->id, cfg->resp_command_timeout_s);
    rparser_reset(&cl->parser);
    snprintf(msg, sizeof(msg), "command not received in full within %d s", cfg->resp_command_timeout_s);
    protocol_error(cl, msg);
    client_pump(cl);
}

/* [resp] write_timeout_s on the socket (0: none). */
static void client_apply_config(struct rclient *cl)
{
    const struct config *cfg = cl->srv->app->cfg;
    struct timeval wtv = {cfg->resp_write_timeout_s, 0};
    cl->parser.lim = parser_limits(cfg);
    bufferevent_set_timeouts(cl->bev, NULL, cfg->resp_write_timeout_s > 0 ? &wtv : NULL);
}

void resp_server_apply_config(struct resp_server *srv)
{
    if (!srv) return;
    for (struct rclient *cl = srv->clients; cl; cl = cl->next) {
        if (cl->gone || !cl->bev) continue;
        client_apply_config(cl);
        cl->parsed = true; /* a changed deadline takes effect now */
        client_arm_timer(cl);
    }
}

static void client_free(struct rclient *cl)
{
    struct resp_server *srv = cl->srv;
    client_unmark_dirty(cl);
    if (cl->rev) { /* before the bufferevent closes the socket */
        event_free(cl->rev);
        cl->rev = NULL;
        cl->reading = false;
    }
    if (cl->started) { /* commands still running: they free us when they finish */
        cl->gone = true;
        if (cl->timer) evtimer_del(cl->timer);
        if (cl->bev) {
            bufferevent_free(cl->bev);
            cl->bev = NULL;
        }
        for (struct rcmd *c = cl->head; c; c = c->next) c->client_gone = true;
        return;
    }
    while (cl->head) {
        struct rcmd *c = cl->head;
        cl->head = c->next;
        if (!c->done) g_inflight--;
        evbuffer_free(c->r.out);
        rargs_free(c->argv, c->argc);
        free(c);
    }
    cl->next_start = NULL;
    while (cl->spare) {
        struct rcmd *c = cl->spare;
        cl->spare = c->next;
        evbuffer_free(c->r.out);
        free(c);
    }
    if (cl->bev) bufferevent_free(cl->bev);
    if (cl->in) evbuffer_free(cl->in);
    if (cl->timer) event_free(cl->timer);
    rparser_reset(&cl->parser);
    if (cl->prev) cl->prev->next = cl->next;
    else srv->clients = cl->next;
    if (cl->next) cl->next->prev = cl->prev;
    srv->nclients--;
    free(cl->name);
    free(cl->lib_name);
    free(cl->lib_ver);
    free(cl);
}

static void append_cmd(struct rclient *cl, struct rcmd *c)
{
    if (cl->tail)
        cl->tail->next = c;
    else
        cl->head = c;
    cl->tail = c;
    cl->queued++;
    if (!cl->next_start) cl->next_start = c;
}

static bool enqueue(struct rclient *cl, struct rarg *argv, size_t argc)
{
    struct rcmd *c = cl->spare;
    if (c) {
        struct evbuffer *out = c->r.out;
        cl->spare = c->next;
        cl->nspare--;
        memset(c, 0, sizeof(*c));
        c->r.out = out;
    } else if (!(c = calloc(1, sizeof(*c))) || !(c->r.out = evbuffer_new())) {
        free(c);
        rargs_free(argv, argc);
        return false;
    }
    c->app = cl->srv->app;
    c->argv = argv;
    c->argc = argc;
    c->cl = cl;
    c->client_id = cl->id;
    c->finished = command_finished;
    c->def = resp_find_command(&argv[0]);
    resp_tx_classify(cl, c);
    append_cmd(cl, c);
    g_inflight++;
    return true;
}

/* A protocol error: answer it after everything before it, then close. */
static void protocol_error(struct rclient *cl, const char *msg)
{
    struct rcmd *c = calloc(1, sizeof(*c));
    log_info("msg=\"RESP protocol error\" client=%llu error=\"%s\"", (unsigned long long)cl->id, msg);
    cl->closing = true;
    if (!c || !(c->r.out = evbuffer_new())) {
        free(c);
        return;
    }
    c->cl = cl;
    c->finished = command_finished;
    c->started = c->done = true;
    rr_error(&c->r, "ERR %s", msg);
    append_cmd(cl, c);
}

/* Parses queued input into commands; true if any was added. */
static bool client_parse(struct rclient *cl)
{
    struct evbuffer *in = cl->in;
    const struct config *cfg = cl->srv->app->cfg;
    bool added = false;
    char err[160];

    /* while draining, every whole command already received is taken, whatever the
     * pipeline limit: it was sent before the signal and must be answered */
    while (!cl->closing && !cl->eof && (cl->queued < (size_t)cfg->resp_max_pipeline || cl->srv->draining)) {
        enum rproto_status st = rparser_feed(&cl->parser, in, err, sizeof(err));
        if (st == RP_MORE) break;
        if (st == RP_ERROR) {
            protocol_error(cl, err);
            added = true;
            break;
        }
        size_t argc;
        struct rarg *argv = rparser_take(&cl->parser, &argc);
        cl->parsed = true;
        if (!enqueue(cl, argv, argc)) {
            protocol_error(cl, "out of memory");
            added = true;
            break;
        }
        added = true;
    }
    client_reading(cl, !(cl->closing || cl->eof || client_full(cl)));
    return added;
}

static void client_reading(struct rclient *cl, bool on)
{
    if (!cl->rev || cl->reading == on) return;
    if (on ? event_add(cl->rev, NULL) == 0 : event_del(cl->rev) == 0) cl->reading = on;
}

#define READ_CHUNK 65536
static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    static char buf[READ_CHUNK]; /* one loop, one thread: copied out before the next read */
    struct rclient *cl = arg;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    (void)what;
    if (n > 0) {
        if (evbuffer_add(cl->in, buf, (size_t)n) != 0) {
            protocol_error(cl, "out of memory");
            client_reading(cl, false);
        }
        client_pump(cl);
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n == 0) { /* the peer may only have closed its writing side: answer what it sent */
        cl->eof = true;
        rparser_reset(&cl->parser); /* a half-received command is dropped */
        client_reading(cl, false);
        if (!cl->head) {
            cl->gone = true;
            client_free(cl);
        }
        return;
    }
    log_debug("msg=\"RESP client gone\" client=%llu error=\"%s\"", (unsigned long long)cl->id, strerror(errno));
    client_free(cl);
}

/* The bufferevent sent what flush_cb left it: the next replies go straight out again. */
static void write_cb(struct bufferevent *bev, void *arg)
{
    struct rclient *cl = arg;
    bufferevent_disable(bev, EV_WRITE);
    if (client_answered_all(cl)) {
        cl->gone = true;
        client_free(cl);
        return;
    }
    client_pump(cl); /* the output drained below the high-water mark */
}

/* Once a loop turn, after the callbacks that finished commands: each client's
 * replies leave in one write, straight to the socket. What the socket does not
 * take, and an error, are left to the bufferevent (its write event, its write
 * timeout, event_cb). */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    struct resp_server *srv = arg;
    (void)fd;
    (void)what;
    while (srv->dirty) {
        struct rclient *cl = srv->dirty;
        client_unmark_dirty(cl);
        if (cl->gone || !cl->bev || (bufferevent_get_enabled(cl->bev) & EV_WRITE)) continue;
        struct evbuffer *out = bufferevent_get_output(cl->bev);
        bool was_full = client_full(cl);
        if (evbuffer_get_length(out) > 0) { /* as the bufferevent writes it: its start is frozen */
            evbuffer_unfreeze(out, 1);
            evbuffer_write(out, bufferevent_getfd(cl->bev));
            evbuffer_freeze(out, 1);
        }
        if (evbuffer_get_length(out) > 0) {
            bufferevent_enable(cl->bev, EV_WRITE);
        } else if (client_answered_all(cl)) {
            cl->gone = true;
            client_free(cl);
        } else if (was_full) {
            client_pump(cl); /* read again */
        }
    }
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct rclient *cl = arg;
    (void)bev;
    if (what & BEV_EVENT_TIMEOUT) {
        metrics.resp_timeouts++;
        log_info("msg=\"slow RESP client: replies not read in time\" client=%llu write_timeout_s=%d",
                 (unsigned long long)cl->id, cl->srv->app->cfg->resp_write_timeout_s);
    }
    if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF | BEV_EVENT_TIMEOUT)) {
        log_debug("msg=\"RESP client gone\" client=%llu", (unsigned long long)cl->id);
        client_free(cl);
    }
}

static void accept_cb(struct evconnlistener *lis, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
    struct resp_server *srv = arg;
    struct rclient *cl;
    struct rproto_limits lim;
    (void)lis;
    (void)sa;
    (void)salen;

    srv->connections++;
    if (srv->nclients >= srv->app->cfg->resp_max_clients) {
        static const char msg[] = "-ERR max number of clients reached\r\n";
        srv->rejected++;
        if (write(fd, msg, sizeof(msg) - 1) < 0) { /* best effort */
        }
        evutil_closesocket(fd);
        return;
    }
    if (!(cl = calloc(1, sizeof(*cl))) || !(cl->in = evbuffer_new()) ||
        !(cl->rev = event_new(srv->app->base, fd, EV_READ | EV_PERSIST, read_cb, cl)) ||
        !(cl->bev = bufferevent_socket_new(srv->app->base, fd, BEV_OPT_CLOSE_ON_FREE))) {
        if (cl && cl->rev) event_free(cl->rev);
        if (cl && cl->in) evbuffer_free(cl->in);
        free(cl);
        evutil_closesocket(fd);
        return;
    }
    lim = parser_limits(srv->app->cfg);
    rparser_init(&cl->parser, &lim);
    cl->srv = srv;
    cl->id = ++srv->next_id;
    cl->proto = 2;
    cl->created = time(NULL);
    cl->next = srv->clients;
    if (srv->clients) srv->clients->prev = cl;
    srv->clients = cl;
    srv->nclients++;
    cl->timer = evtimer_new(srv->app->base, client_timer_cb, cl); /* NULL: no deadlines for it */
    client_apply_config(cl);
    bufferevent_setcb(cl->bev, NULL, write_cb, event_cb, cl);
    bufferevent_disable(cl->bev, EV_READ | EV_WRITE); /* EV_WRITE: only while output waits (flush_cb) */
    client_reading(cl, true);
    client_arm_timer(cl);
}

struct resp_server *resp_server_new(struct app *app)
{
    struct resp_server *srv = calloc(1, sizeof(*srv));
    struct evutil_addrinfo hints = {0}, *ai = NULL;
    char port[16];
    int rc;

    if (!srv) return NULL;
    srv->app = app;
    if (!(srv->flush_ev = event_new(app->base, -1, 0, flush_cb, srv))) {
        free(srv);
        return NULL;
    }
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = EVUTIL_AI_PASSIVE | EVUTIL_AI_NUMERICHOST | EVUTIL_AI_NUMERICSERV;
    snprintf(port, sizeof(port), "%d", app->cfg->resp_port);
    if ((rc = evutil_getaddrinfo(app->cfg->resp_address, port, &hints, &ai)) != 0) {
        log_error("msg=\"bad RESP listen address\" address=\"%s\" error=\"%s\"", app->cfg->resp_address,
                  evutil_gai_strerror(rc));
        event_free(srv->flush_ev);
        free(srv);
        return NULL;
    }
    srv->lis = evconnlistener_new_bind(app->base, accept_cb, srv, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 128,
                                       ai->ai_addr, (int)ai->ai_addrlen);
    evutil_freeaddrinfo(ai);
    if (!srv->lis) {
        log_error("msg=\"cannot listen for RESP\" address=\"%s\" port=%d error=\"%s\"", app->cfg->resp_address,
                  app->cfg->resp_port, strerror(errno));
        event_free(srv->flush_ev);
        free(srv);
        return NULL;
    }
    if (!metrics_register(resp_metrics_render, srv)) {
        resp_server_free(srv);
        return NULL;
    }
    log_info("msg=\"RESP listening\" address=\"%s\" port=%d", app->cfg->resp_address, app->cfg->resp_port);
    return srv;
}

void resp_server_stop_accepting(struct resp_server *srv)
{
    if (srv && srv->lis) {
        evconnlistener_free(srv->lis);
        srv->lis = NULL;
    }
}

void resp_server_drain(struct resp_server *srv)
{
    struct rclient *cl, *next;
    if (!srv) return;
    resp_server_stop_accepting(srv);
    srv->draining = true;
    for (cl = srv->clients; cl; cl = next) {
        next = cl->next; /* client_pump may free cl */
        if (cl->gone || cl->closing || cl->eof || !cl->bev) continue;
        /* bytes that reached the socket before the signal are commands sent before it */
        for (int i = 0; i < 64 && evbuffer_read(cl->in, bufferevent_getfd(cl->bev), 65536) > 0; i++) {
        } /* at most 4 MiB: a client still sending cannot hold the shutdown */
        client_parse(cl);
        cl->closing = true; /* answer what was taken, then close */
        client_reading(cl, false);
        client_pump(cl);
    }
}

void resp_server_free(struct resp_server *srv)
{
    if (!srv) return;
    metrics_unregister(resp_metrics_render, srv);
    resp_server_stop_accepting(srv);
    while (srv->clients) {
        struct rclient *cl = srv->clients;
        cl->started = 0; /* the loop is over: nothing will finish */
        client_free(cl);
    }
    resp_commands_free();
    free(g_stats);
    g_stats = NULL;
    event_free(srv->flush_ev);
    free(srv);
}
