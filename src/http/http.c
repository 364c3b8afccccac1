/* http.c — the HTTP server: limits, connections and their deadlines, safe handling of
 * clients that leave early, the request entry (routing through the table it is given)
 * and the one place every reply leaves. JSON and error replies are in http_reply.c,
 * the helpers handlers parse their input with in http_parse.c. */
#include "http/http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "core/auth.h"
#include "core/log.h"
#include "core/metrics.h"
#include "http/reqparse.h"

/* The route table the server was made with (one server per process). */
static const struct route *routes;
static size_t nroutes;


/* One accepted connection. Tracked from accept (through the bufferevent that
 * evhttp_set_bevcb lets us create) to evhttp's close callback, so that connections
 * can be counted and capped, and a request that trickles in can be cut off: evhttp
 * 2.1 has neither a connection limit nor a deadline for a whole request. */
/* What the look at an arriving request's head found (head_check). */
struct head_watch {
    bool seen;      /* its blank line went by: nothing more to look at until the next request */
    bool refusing;  /* its body is too big: answering 413 before reading it, read nothing more */
    bool answered;  /* the 413 is sent: what still arrives is read and dropped until close */
    unsigned lines; /* lines of the head looked at (a CRLF before any is not its end) */
    bool chunked;   /* Transfer-Encoding: chunked (no length up front) */
    unsigned long long body; /* with chunked: bytes of the body (framing included) arrived */
};

struct http_conn {
    struct http_server *srv;
    struct evhttp_connection *evcon;
    evutil_socket_t fd;
    struct event *deadline;   /* armed while a request is arriving */
    struct http_ctx *current; /* the request handed to a handler, or NULL */
    struct head_watch head;   /* the arriving request's head (head_check) */
    struct event *refuse;     /* the 413 of a refused head, on the next turn (freed with conn) */
};

struct http_server {
    struct app *app;
    struct evhttp *http;
    struct evhttp_bound_socket *listener;
    struct http_conn **by_fd; /* open connections by socket */
    size_t by_fd_cap;
    int nconns;
};

static int inflight; /* requests created and not yet answered */
static bool draining; /* SIGTERM: every reply closes its connection */

int http_inflight(void) { return inflight; }

/* Bytes of a reply not yet handed to the kernel, and bytes received not yet parsed. */
static size_t unsent_bytes(struct evhttp_connection *evcon)
{
    return evbuffer_get_length(bufferevent_get_output(evhttp_connection_get_bufferevent(evcon)));
}

static size_t unread_bytes(struct evhttp_connection *evcon)
{
    return evbuffer_get_length(bufferevent_get_input(evhttp_connection_get_bufferevent(evcon)));
}

int http_server_unsent(const struct http_server *srv)
{
    int n = 0;
    for (size_t fd = 0; srv && fd < srv->by_fd_cap; fd++)
        if (srv->by_fd[fd] && unsent_bytes(srv->by_fd[fd]->evcon) > 0) n++;
    return n;
}

/* Requests by route (the last row: no route matched) and status, and latencies. */
static const int counted_status[] = {200, 400, 401, 404, 405, 409, 412, 413, 500, 503};
#define NSTATUS (ARRAY_LEN(counted_status) + 1) /* + other */
static struct route_stat {
    unsigned long long status[NSTATUS];
    struct metrics_hist latency;
} *route_stats; /* nroutes + 1 rows */

static void count_request(const struct http_ctx *c, int status)
{
    size_t r = c->route ? (size_t)(c->route - routes) : nroutes, i = 0;
    if (!route_stats) return;
    while (i < ARRAY_LEN(counted_status) && counted_status[i] != status) i++;
    route_stats[r].status[i]++;
    metrics_observe_latency(&route_stats[r].latency, metrics_now() - c->t0);
}

/* The HTTP families on GET /metrics (registered by http_server_new). */
static void http_metrics_render(struct evbuffer *out, void *arg)
{
    metrics_family(out, "bitmapd_http_requests_total", "counter",
                   "HTTP requests answered, by route and status (route \"none\": no route matched).");
    for (size_t r = 0; r <= nroutes; r++)
        for (size_t i = 0; i < NSTATUS; i++) {
            if (!route_stats[r].status[i]) continue;
            if (i < ARRAY_LEN(counted_status))
                evbuffer_add_printf(out, "bitmapd_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
                                    r < nroutes ? routes[r].name : "none", counted_status[i],
                                    route_stats[r].status[i]);
            else
                evbuffer_add_printf(out, "bitmapd_http_requests_total{route=\"%s\",status=\"other\"} %llu\n",
                                    r < nroutes ? routes[r].name : "none", route_stats[r].status[i]);
        }
    metrics_family(out, "bitmapd_http_request_duration_seconds", "histogram",
                   "Time from a whole request to its reply, by route.");
    for (size_t r = 0; r <= nroutes; r++) {
        char labels[96];
        if (!route_stats[r].latency.count) continue;
        snprintf(labels, sizeof(labels), "route=\"%s\"", r < nroutes ? routes[r].name : "none");
        metrics_latency_series(out, "bitmapd_http_request_duration_seconds", labels, &route_stats[r].latency);
    }
    metrics_counter(out, "bitmapd_http_auth_failures_total", "HTTP requests refused for a missing or wrong token.",
                    metrics.http_auth_failures);
    metrics_counter(out, "bitmapd_http_connections_rejected_total", "HTTP connections over [http] max_connections.",
                    metrics.http_connections_rejected);
    metrics_counter(out, "bitmapd_http_request_timeouts_total",
                    "HTTP connections closed by [http] request_timeout_s.", metrics.http_request_timeouts);
    (void)arg;
}

/* ---- connections ---------------------------------------------------------------- */

/* Best effort, straight to the socket: for a connection that never produced a
 * request evhttp could answer. Only when nothing else is waiting to be sent. */
static void conn_send_raw(struct evhttp_connection *evcon, int status, const char *reason, const char *code,
                          const char *message)
{
    evutil_socket_t fd = bufferevent_getfd(evhttp_connection_get_bufferevent(evcon));
    char body[256], msg[512];
    int bl, ml;

    if (unsent_bytes(evcon) > 0) return;
    bl = snprintf(body, sizeof(body), "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}\n", code, message);
    ml = snprintf(msg, sizeof(msg),
                  "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                  "Connection: close\r\n\r\n%s",
                  status, reason, bl, body);
    /* bytes of the request left unread make close() send a reset, which can destroy
     * the answer before the client reads it: take them first (bounded), and end our
     * side with a FIN after the answer */
    char sink[4096];
    for (int i = 0; i < 16 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++) {
    }
    if (ml > 0 && (size_t)ml < sizeof(msg) && send(fd, msg, (size_t)ml, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        /* the client is gone or not reading: closing is all that is left */
    }
    shutdown(fd, SHUT_WR);
}

static void conn_arm_deadline(struct http_conn *conn)
{
    struct timeval tv = {conn->srv->app->cfg->http_request_timeout_s, 0};
    if (!evtimer_pending(conn->deadline, NULL)) evtimer_add(conn->deadline, &tv);
}

/* ---- a body declared too big: refused before it is read ------------------------------
 * libevent reads a body whole before the request reaches us, and answers one past
 * its own cap (evhttp_set_max_body_size) with its HTML page. So the head is looked at
 * as it arrives, before evhttp parses and drains its lines: a Content-Length over
 * [http] max_body_bytes is answered a JSON 413 at once, the body is not read, and
 * the connection closes. A chunked body has no length up front: one past the limit
 * gets our JSON 413 when it is whole, and its bytes are counted as they arrive, so
 * that one heading for evhttp's cap is refused the same way first (at half the room
 * between the limit and that cap: the count includes the chunks' framing, which only
 * a body of tiny chunks makes large). */

/* evhttp's cap on a body: the limit plus this much room, so that bodies in between
 * get our JSON 413 (see http_server_apply_config) */
static long long body_cap_room(const struct config *cfg)
{
    return cfg->http_max_body_bytes > (16 << 20) ? cfg->http_max_body_bytes : (16 << 20);
}

#define REFUSE_LINGER_S 2 /* after the 413: what the client still sends is read and dropped */

static void conn_refuse_cb(evutil_socket_t fd, short what, void *arg)
{
    struct http_conn *conn = arg;
    const struct timeval soon = {0, 20000}, linger = {REFUSE_LINGER_S, 0};
    char msg[128];
    (void)fd;
    (void)what;
    if (conn->head.answered) { /* the linger is over: the client has had its answer */
        evhttp_connection_free(conn->evcon); /* calls conn_closed, which frees conn */
        return;
    }
    if (unsent_bytes(conn->evcon) > 0) { /* the reply before it (keep-alive) still leaves */
        evtimer_add(conn->refuse, &soon);
        return;
    }
    snprintf(msg, sizeof(msg), "the body is longer than the limit of %d bytes ([http] max_body_bytes)",
             conn->srv->app->cfg->http_max_body_bytes);
    conn_send_raw(conn->evcon, 413, "Payload Too Large", "payload_too_large", msg);
    /* closed now, the socket would answer the body still arriving with a reset, which
     * can destroy the 413 before the client reads it: keep reading (and dropping) for
     * a while; a client that closes first ends it sooner */
    conn->head.answered = true;
    if (!conn->refuse || evtimer_add(conn->refuse, &linger) != 0) evhttp_connection_free(conn->evcon);
}

/* The value of header line `line` (len bytes, no CRLF) if it is Content-Length. */
static bool content_length_of(const char *line, size_t len, unsigned long long *out)
{
    static const char name[] = "content-length:";
    size_t n = sizeof(name) - 1, i;
    unsigned long long v = 0;
    if (len <= n || strncasecmp(line, name, n) != 0) return false;
    for (i = n; i < len && (line[i] == ' ' || line[i] == '\t'); i++) {
    }
    if (i == len) return false;
    for (; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
        if (v > (ULLONG_MAX - 9) / 10) return false;
        v = v * 10 + (unsigned long long)(line[i] - '0');
    }
    *out = v;
    return true;
}

/* Whether header line `line` (len bytes) is a Transfer-Encoding naming chunked. */
static bool chunked_of(const char *line, size_t len)
{
    static const char name[] = "transfer-encoding:";
    size_t n = sizeof(name) - 1;
    if (len <= n || strncasecmp(line, name, n) != 0) return false;
    for (size_t i = n; i + 7 <= len; i++)
        if (strncasecmp(line + i, "chunked", 7) == 0) return true;
    return false;
}

/* Looks at the complete header lines now in buf (evhttp drains each once it is
 * whole, after the callbacks of the buffer): true, with the length in *cl, when a
 * Content-Length is past [http] max_body_bytes. At the head's end, a chunked body
 * starts being counted (w->body). */
static bool head_check(struct head_watch *w, struct evbuffer *buf, const struct config *cfg, unsigned long long *cl)
{
    size_t len = evbuffer_get_length(buf), from = 0;
    size_t max = (size_t)cfg->http_max_header_bytes + 2;
    char line[256];

    if (len > max + sizeof(line)) len = max + sizeof(line); /* a head is no longer */
    while (from < len && !w->seen) {
        struct evbuffer_ptr at;
        size_t eol_len = 0;
        if (evbuffer_ptr_set(buf, &at, from, EVBUFFER_PTR_SET) != 0) return false;
        /* CRLF or a bare LF, as evhttp reads them */
        struct evbuffer_ptr eol = evbuffer_search_eol(buf, &at, &eol_len, EVBUFFER_EOL_CRLF);
        if (eol.pos < 0 || (size_t)eol.pos >= len) return false; /* the line is not whole yet */
        size_t n = (size_t)eol.pos - from;
        if (n == 0) {
            /* the blank line ends the head; an empty line before any is a stray CRLF
             * between requests, which evhttp skips too */
            if (w->lines > 0) {
                w->seen = true;
                w->body = evbuffer_get_length(buf) - ((size_t)eol.pos + eol_len);
            }
        } else {
            w->lines++;
            if (n < sizeof(line)) {
                evbuffer_copyout_from(buf, &at, line, n);
                if (content_length_of(line, n, cl) && *cl > (unsigned long long)cfg->http_max_body_bytes) {
                    w->refusing = true;
                    return true;
                }
                if (chunked_of(line, n)) w->chunked = true;
            }
        }
        from = (size_t)eol.pos + eol_len;
    }
    return false;
}

/* A body found too big (its declared length, or the chunked bytes so far): log it and
 * answer it on the next turn of the loop. */
static void conn_refuse(struct http_conn *conn, unsigned long long len)
{
    const struct timeval now = {0, 0};
    log_info("msg=\"HTTP body refused before it was read\" fd=%d %s=%llu max_body_bytes=%d", (int)conn->fd,
             conn->head.chunked ? "chunked_bytes" : "content_length", len, conn->srv->app->cfg->http_max_body_bytes);
    /* an event of the connection's own: a client that leaves first frees it with conn.
     * Should it not be made, the connection stays refusing (what arrives is dropped)
     * and [http] request_timeout_s closes it with a 408. */
    if (!conn->refuse) conn->refuse = evtimer_new(conn->srv->app->base, conn_refuse_cb, conn);
    if (conn->refuse) evtimer_add(conn->refuse, &now);
}

/* Bytes arrived: if no request is being handled, one has begun, and must be
 * whole within [http] request_timeout_s; its head is checked as it comes. */
static void conn_input_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    struct http_conn *conn = arg;
    unsigned long long cl;
    if (info->n_added == 0) return;
    if (conn->head.refusing) { /* what follows the refused head is not read */
        evbuffer_drain(buf, evbuffer_get_length(buf));
        return;
    }
    if (conn->current) return;
    conn_arm_deadline(conn);
    const struct config *cfg = conn->srv->app->cfg;
    if (!conn->head.seen) {
        if (head_check(&conn->head, buf, cfg, &cl)) {
            evbuffer_drain(buf, evbuffer_get_length(buf));
            conn_refuse(conn, cl);
        }
        return;
    }
    if (!conn->head.chunked) return;
    conn->head.body += info->n_added;
    if (conn->head.body > (unsigned long long)(cfg->http_max_body_bytes + body_cap_room(cfg) / 2)) {
        conn->head.refusing = true;
        evbuffer_drain(buf, evbuffer_get_length(buf));
        conn_refuse(conn, conn->head.body);
    }
}
static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct http_conn *conn = arg;
    char msg[96];
    (void)fd;
    (void)what;
    if (conn->current) return;
    if (unsent_bytes(conn->evcon) > 0) {
        /* the previous reply is still being written: a pipelined request waits for
         * it (evhttp reads it only afterwards), and a client that stops reading meets
         * [http] timeout_s instead; the next request gets a full period */
        conn_arm_deadline(conn);
        return;
    }
    metrics.http_request_timeouts++;
    log_info("msg=\"slow HTTP client: request not received in time\" fd=%d timeout_s=%d", (int)conn->fd,
             conn->srv->app->cfg->http_request_timeout_s);
    snprintf(msg, sizeof(msg), "the request did not arrive whole within %d s", conn->srv->app->cfg->http_request_timeout_s);
    conn_send_raw(conn->evcon, 408, "Request Timeout", "request_timeout", msg);
    evhttp_connection_free(conn->evcon); /* calls conn_closed, which frees conn */
}

static void conn_forget(struct http_conn *conn)
{
    struct http_server *srv = conn->srv;
    evbuffer_remove_cb(bufferevent_get_input(evhttp_connection_get_bufferevent(conn->evcon)), conn_input_cb, conn);
    if (conn->deadline) event_free(conn->deadline);
    if (conn->refuse) event_free(conn->refuse);
    if ((size_t)conn->fd < srv->by_fd_cap && srv->by_fd[conn->fd] == conn) srv->by_fd[conn->fd] = NULL;
    srv->nconns--;
    free(conn);
}

/* evhttp is closing the connection (the client left, an error, a timeout, or we
 * asked): a request still with its handler learns that its client is gone. */
static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
    struct http_conn *conn = arg;
    struct http_ctx *c = conn->current;
    (void)evcon;
    conn_forget(conn);
    if (c) {
        c->conn = NULL;
        c->gone = true;
        if (c->on_gone) c->on_gone(c);
    }
}

enum attach { ATTACH_OK, ATTACH_FULL, ATTACH_NOMEM };

/* Starts tracking evcon (idempotent). */
static enum attach conn_attach(struct http_server *srv, struct evhttp_connection *evcon, struct http_conn **out)
{
    struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);
    evutil_socket_t fd = bufferevent_getfd(bev);
    struct http_conn *conn;

    if (fd < 0) return ATTACH_NOMEM;
    if ((size_t)fd < srv->by_fd_cap && (conn = srv->by_fd[fd]) != NULL) {
        if (conn->evcon == evcon) {
            *out = conn;
            return ATTACH_OK;
        }
        srv->by_fd[fd] = NULL; /* cannot happen: a socket is closed only after conn_closed */
    }
    if (srv->nconns >= srv->app->cfg->http_max_connections) return ATTACH_FULL;
    if ((size_t)fd >= srv->by_fd_cap) {
        size_t cap = srv->by_fd_cap ? srv->by_fd_cap : 256;
        while (cap <= (size_t)fd) cap *= 2;
        struct http_conn **grown = realloc(srv->by_fd, cap * sizeof(*grown));
        if (!grown) return ATTACH_NOMEM;
        memset(grown + srv->by_fd_cap, 0, (cap - srv->by_fd_cap) * sizeof(*grown));
        srv->by_fd = grown;
        srv->by_fd_cap = cap;
    }
    if (!(conn = calloc(1, sizeof(*conn))) ||
        !(conn->deadline = evtimer_new(srv->app->base, conn_deadline_cb, conn)) ||
        !evbuffer_add_cb(bufferevent_get_input(bev), conn_input_cb, conn)) {
        if (conn && conn->deadline) event_free(conn->deadline);
        free(conn);
        return ATTACH_NOMEM;
    }
    conn->srv = srv;
    conn->evcon = evcon;
    conn->fd = fd;
    srv->by_fd[fd] = conn;
    srv->nconns++;
    evhttp_connection_set_closecb(evcon, conn_closed, conn);
    if (unread_bytes(evcon) > 0) conn_arm_deadline(conn);
    *out = conn;
    return ATTACH_OK;
}

/* Over [http] max_connections: answered and closed, like Redis's maxclients. */
static void conn_reject(struct http_server *srv, struct evhttp_connection *evcon)
{
    char msg[96];
    metrics.http_connections_rejected++;
    log_warn("msg=\"HTTP connection refused: too many connections\" max_connections=%d",
             srv->app->cfg->http_max_connections);
    snprintf(msg, sizeof(msg), "too many connections (the limit is %d)", srv->app->cfg->http_max_connections);
    conn_send_raw(evcon, 503, "Service Unavailable", "too_many_connections", msg);
    evhttp_connection_free(evcon);
}

struct adopt {
    struct http_server *srv;
    struct bufferevent *bev;
    struct head_watch head; /* the first request's head, watched before evhttp reads it */
    unsigned long long content_length;
};

/* Until the connection is adopted, its first head is watched here (evhttp may read
 * it before conn_adopt_cb runs). */
static void adopt_input_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    struct adopt *a = arg;
    if (info->n_added == 0) return;
    if (a->head.refusing || (!a->head.seen && head_check(&a->head, buf, a->srv->app->cfg, &a->content_length)))
        evbuffer_drain(buf, evbuffer_get_length(buf));
}

/* One turn after accept: evhttp has wrapped the bufferevent in its connection
 * (the bufferevent's callback argument), unless it already closed it. */
static void conn_adopt_cb(evutil_socket_t fd, short what, void *arg)
{
    struct adopt *a = arg;
    bufferevent_event_cb ecb = NULL;
    void *evcon = NULL;
    struct http_conn *conn;
    (void)fd;
    (void)what;
    evbuffer_remove_cb(bufferevent_get_input(a->bev), adopt_input_cb, a);
    bufferevent_getcb(a->bev, NULL, NULL, &ecb, &evcon);
    if (ecb && evcon) { /* bufferevent_free clears the callbacks: a closed one has none */
        switch (conn_attach(a->srv, evcon, &conn)) {
        case ATTACH_OK:
            /* from here conn_input_cb watches; a connection a request attached first
             * (http_entry) keeps what its own watch saw */
            if (conn->head.lines == 0 && !conn->head.seen && !conn->current) conn->head = a->head;
            if (a->head.refusing && conn->head.refusing) conn_refuse(conn, a->content_length);
            break;
        case ATTACH_FULL: conn_reject(a->srv, evcon); break;
        case ATTACH_NOMEM: evhttp_connection_free(evcon); break;
        }
    }
    bufferevent_decref(a->bev);
    free(a);
}

/* evhttp asks for the bufferevent of each accepted connection. */
static struct bufferevent *conn_bev_new(struct event_base *base, void *arg)
{
    struct adopt *a = malloc(sizeof(*a));
    struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    const struct timeval now = {0, 0};

    if (!a || !bev) {
        free(a);
        return bev; /* untracked until its first request attaches it */
    }
    *a = (struct adopt){.srv = arg, .bev = bev};
    bufferevent_incref(bev); /* kept valid until conn_adopt_cb looks at it */
    if (!evbuffer_add_cb(bufferevent_get_input(bev), adopt_input_cb, a) ||
        event_base_once(base, -1, EV_TIMEOUT, conn_adopt_cb, a, &now) != 0) {
        evbuffer_remove_cb(bufferevent_get_input(bev), adopt_input_cb, a);
        bufferevent_decref(bev);
        free(a);
    }
    return bev;
}

/* The reply to c's request is being sent: the connection may carry another. */
static void conn_request_done(struct http_ctx *c)
{
    struct http_conn *conn = c->conn;
    if (!conn) return;
    c->conn = NULL;
    conn->current = NULL;
    /* the next request's head is checked as it arrives; one already here (pipelined)
     * has been partly read by evhttp, so it is left to evhttp's own limit */
    conn->head = (struct head_watch){.seen = unread_bytes(conn->evcon) > 0};
    /* part of a pipelined next request may already be waiting */
    if (unread_bytes(conn->evcon) > 0) conn_arm_deadline(conn);
}

/* ---- replies (the JSON and error replies built on these: http_reply.c) -------- */

static void ctx_free(struct http_ctx *c)
{
    inflight--;
    evhttp_clear_headers(&c->query);
    if (c->body) json_decref(c->body);
    free(c);
}

static const char *reason_phrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

/* The one place every reply leaves: counted, logged, sent, c freed. */
void http_reply_text(struct http_ctx *c, int status, const char *content_type, struct evbuffer *body)
{
    count_request(c, status);
    log_debug("msg=\"http reply\" route=%s status=%d", c->route ? c->route->name : "-", status);
    if (c->gone) {
        /* libevent keeps an unfinished request alive for us after its connection
         * died; sending releases it. The connection itself must not be touched. */
        evhttp_send_reply(c->req, status, reason_phrase(status), NULL);
        ctx_free(c);
        return;
    }
    conn_request_done(c);
    struct evkeyvalq *out = evhttp_request_get_output_headers(c->req);
    evhttp_add_header(out, "Content-Type", content_type);
    if (draining) evhttp_add_header(out, "Connection", "close");
    evhttp_send_reply(c->req, status, reason_phrase(status), body);
    ctx_free(c);
}

/* ---- request entry ------------------------------------------------------------------ */

static const char *method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_PATCH: return "PATCH";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    default: return "OTHER";
    }
}

/* ?consistent=true on any route: reads check every version in the database instead
 * of trusting the cache (writes always do). Taken out of the query, so that handlers
 * that list their parameters need not know it. */
static bool parse_consistent_or_reply(struct http_ctx *c)
{
    const char *v;
    while ((v = evhttp_find_header(&c->query, "consistent")) != NULL) {
        if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
            c->consistent = true;
        else if (strcmp(v, "false") != 0 && strcmp(v, "0") != 0) {
            http_reply_error(c, 400, "invalid_parameter", "consistent must be true or false");
            return false;
        }
        evhttp_remove_header(&c->query, "consistent");
    }
    return true;
}

unsigned http_load_flags(const struct http_ctx *c) { return c->consistent ? STORE_CONSISTENT : 0; }

/* If-Match: "N", N, W/"N" or *. */
static bool parse_if_match_or_reply(struct http_ctx *c)
{
    const char *h = evhttp_find_header(evhttp_request_get_input_headers(c->req), "If-Match");

    if (!h || strcmp(h, "*") == 0) return true;
    if (!reqparse_if_match(h, &c->if_match)) {
        http_reply_error(c, 400, "invalid_header", "If-Match must be a version as sent in ETag");
        return false;
    }
    c->has_if_match = true;
    return true;
}

static bool parse_body_or_reply(struct http_ctx *c)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(c->req);
    size_t len = evbuffer_get_length(in);
    json_error_t jerr;

    if (len == 0) return true;
    if (len > (size_t)c->app->cfg->http_max_body_bytes) {
        http_reply_error(c, 413, "payload_too_large", "body of %zu bytes exceeds the limit of %d", len,
                         c->app->cfg->http_max_body_bytes);
        return false;
    }
    c->body = json_loadb((const char *)evbuffer_pullup(in, -1), len, JSON_REJECT_DUPLICATES, &jerr);
    if (!c->body) {
        http_reply_error(c, 400, "invalid_json", "malformed JSON at line %d column %d: %s", jerr.line,
                         jerr.column, jerr.text);
        return false;
    }
    if (!json_is_object(c->body)) {
        http_reply_error(c, 400, "invalid_json", "the body must be a JSON object");
        return false;
    }
    return true;
}

/* Ties the request to its tracked connection (which stops the arrival deadline). */
static bool conn_track_or_reply(struct http_server *srv, struct http_ctx *c)
{
    struct http_conn *conn = NULL;
    switch (conn_attach(srv, evhttp_request_get_connection(c->req), &conn)) {
    case ATTACH_OK:
        break;
    case ATTACH_FULL:
        metrics.http_connections_rejected++;
        evhttp_add_header(evhttp_request_get_output_headers(c->req), "Connection", "close");
        http_reply_error(c, 503, "too_many_connections", "too many connections (the limit is %d)",
                         srv->app->cfg->http_max_connections);
        return false;
    case ATTACH_NOMEM:
        http_reply_error(c, 500, "internal", "out of memory");
        return false;
    }
    evtimer_del(conn->deadline);
    conn->current = c;
    c->conn = conn;
    return true;
}

/* [http] bearer_token: every route but /healthz (load balancers probe it) needs
 * Authorization: Bearer <token>. */
static bool authorized_or_reply(struct http_ctx *c, const char *path)
{
    const char *token = c->app->cfg->http_bearer_token;
    if (!*token || strcmp(path, "/healthz") == 0) return true;
    if (auth_bearer_ok(token, evhttp_find_header(evhttp_request_get_input_headers(c->req), "Authorization")))
        return true;
    metrics.http_auth_failures++;
    char quoted[4 * 200 + 1];
    log_info("msg=\"HTTP request refused: missing or wrong bearer token\" path=\"%s\"",
             log_quote(quoted, sizeof(quoted), path, strnlen(path, 200)));
    evhttp_add_header(evhttp_request_get_output_headers(c->req), "WWW-Authenticate", "Bearer realm=\"bitmapd\"");
    http_reply_error(c, 401, "unauthorized", "this service needs Authorization: Bearer <token>");
    return false;
}

static void http_entry(struct evhttp_request *req, void *arg)
{
    struct http_server *srv = arg;
    struct http_ctx *c = calloc(1, sizeof(*c));
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *q = uri ? evhttp_uri_get_query(uri) : NULL;

    if (!c) {
        evhttp_send_error(req, 500, "out of memory");
        return;
    }
    inflight++;
    c->app = srv->app;
    c->req = req;
    c->t0 = metrics_now();
    TAILQ_INIT(&c->query);
    if (!path || !*path) path = "/";
    if (!conn_track_or_reply(srv, c) || !authorized_or_reply(c, path)) return;
    switch (router_match(routes, nroutes, method_name(evhttp_request_get_command(req)), path,
                         &c->match)) {
    case ROUTE_NOT_FOUND:
        http_reply_error(c, 404, "not_found", "no such resource: %.200s", path);
        return;
    case ROUTE_BAD_METHOD:
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", c->match.allow);
        http_reply_error(c, 405, "method_not_allowed", "%s is not allowed here; allowed: %s",
                         method_name(evhttp_request_get_command(req)), c->match.allow);
        return;
    case ROUTE_FOUND:
        break;
    }
    c->route = c->match.route;
    if (q && evhttp_parse_query_str(q, &c->query) != 0) {
        http_reply_error(c, 400, "invalid_parameter", "malformed query string");
        return;
    }
    if (!parse_consistent_or_reply(c) || !parse_if_match_or_reply(c) || !parse_body_or_reply(c)) return;
    c->route->handler(c);
}

struct http_server *http_server_new(struct app *app, const struct route *table, size_t n)
{
    struct http_server *srv = calloc(1, sizeof(*srv));
    const struct config *cfg = app->cfg;

    if (!srv) return NULL;
    srv->app = app;
    routes = table;
    nroutes = n;
    free(route_stats);
    if (!(route_stats = calloc(n + 1, sizeof(*route_stats)))) goto err;
    srv->http = evhttp_new(app->base);
    if (!srv->http) goto err;
    http_server_apply_config(srv);
    evhttp_set_bevcb(srv->http, conn_bev_new, srv);
    evhttp_set_allowed_methods(srv->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_PUT |
                                              EVHTTP_REQ_DELETE | EVHTTP_REQ_HEAD |
                                              EVHTTP_REQ_PATCH | EVHTTP_REQ_OPTIONS);
    evhttp_set_gencb(srv->http, http_entry, srv);
    srv->listener = evhttp_bind_socket_with_handle(srv->http, cfg->http_address, (ev_uint16_t)cfg->http_port);
    if (!srv->listener) {
        log_error("msg=\"cannot listen\" address=%s port=%d error=\"%s\"", cfg->http_address,
                  cfg->http_port, strerror(errno));
        goto err;
    }
    if (!metrics_register(http_metrics_render, srv)) goto err;
    log_info("msg=\"http listening\" address=%s port=%d", cfg->http_address, cfg->http_port);
    return srv;
err:
    http_server_free(srv);
    return NULL;
}

void http_server_apply_config(struct http_server *srv)
{
    const struct config *cfg = srv->app->cfg;
    /* libevent 2.1 answers bodies past its own cap with an HTML 413 and offers no
     * hook; so its cap sits well above ours (limit + max(limit, 16 MiB)) and bodies
     * in between get our JSON 413 from parse_body_or_reply() */
    evhttp_set_max_body_size(srv->http, (ev_ssize_t)(cfg->http_max_body_bytes + body_cap_room(cfg)));
    evhttp_set_max_headers_size(srv->http, cfg->http_max_header_bytes);
    evhttp_set_timeout(srv->http, cfg->http_timeout_s);
}

void http_server_stop_accepting(struct http_server *srv)
{
    if (srv->listener) evhttp_del_accept_socket(srv->http, srv->listener);
    srv->listener = NULL;
}

void http_server_drain(struct http_server *srv)
{
    http_server_stop_accepting(srv);
    draining = true;
}

void http_server_free(struct http_server *srv)
{
    if (!srv) return;
    metrics_unregister(http_metrics_render, srv);
    free(route_stats); /* counted until here (a reply sent while evhttp frees is not) */
    route_stats = NULL;
    if (srv->http) evhttp_free(srv->http); /* closes every connection: conn_closed frees each */
    free(srv->by_fd);
    free(srv);
}
