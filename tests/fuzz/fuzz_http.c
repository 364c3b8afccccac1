/* fuzz_http.c — libFuzzer target for HTTP request handling: src/http/http.c's request
 * entry (connection tracking, bearer authentication, route matching with
 * src/http/router.c, query string, ?consistent, If-Match, JSON body with its size
 * limit) and the helpers handlers use to turn path parameters, query parameters
 * and body fields into ids (src/http/http_parse.c over src/http/reqparse.c), without
 * a server or a database.
 *
 * How: this file includes src/http/http.c, so its static http_entry() is called
 * directly with an evhttp_request built from the input. The route handlers are
 * replaced (ld --wrap, list generated from the route table) by one handler here
 * that parses like the real ones do, with the http_parse.c helpers, and answers 200.
 * Four libevent calls that need a live connection are wrapped: the request gets a
 * stand-in connection backed by one end of a socketpair (no port), the close
 * callback is recorded (so a client that leaves mid-request can be simulated),
 * and evhttp_send_reply records the reply before libevent frees the request.
 *
 * Input: one flags byte, then a request as text:
 *   METHOD SP TARGET LF, header lines "Name: value" LF, an empty line, the body.
 *   flags bit 0: [http] max_ids_per_request = 3 (else 1000000)
 *         bit 1: [http] max_body_bytes = 64 (else 16 MiB)
 *         bit 2: the client disconnects once the handler has the request
 *         bit 3: [http] bearer_token = s3cret (else none)
 * Seeds start with a digit, '0' to '9', for readability.
 *
 * Properties, each against a reference written here from the documented rules:
 *  - every request gets exactly one reply, and no request stays in flight;
 *  - the status and error code are the first failing stage's: 401 unauthorized,
 *    404 not_found, 405 method_not_allowed (with the exact Allow header), 400
 *    invalid_parameter (query string, ?consistent), 400 invalid_header (If-Match),
 *    413 payload_too_large / 400 invalid_json (body), then the handler's 400
 *    invalid_id / invalid_parameter / invalid_body or 413 too_many_ids, else 200;
 *  - a reply is a JSON object; an error is {"error":{"code":…,"message":…}};
 *    ETag is the If-Match version the handler echoes;
 *  - the handler gets the first route matching method and path, the path
 *    parameters as the segments (truncated at 63 bytes and marked so), the query
 *    without ?consistent, the If-Match version and the body as parsed;
 *  - parsed ids are exactly the accepted strings' values; id arrays come back
 *    sorted, without duplicates, holding exactly the input's values;
 *  - no 500 and nothing leaked, also when the client left before the reply.
 * FUZZ_PRINT=1 in the environment prints each reply's status and body. */
#include "../../src/http/http.c"

#include <event2/http_struct.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/routes.h"
#include "fuzz_check.h"

/* ---- the stand-in connection and the reply capture ---------------------------------- */

static char fake_evcon_storage;
#define FAKE_EVCON ((struct evhttp_connection *)&fake_evcon_storage)

static struct event_base *fuzz_base;
static struct bufferevent *fake_bev;
static void (*closecb)(struct evhttp_connection *, void *);
static void *closecb_arg;

static struct {
    int replies;
    int status;
    char body[16384];
    size_t body_len;
    char allow[128], etag[64], ctype[64];
    bool has_allow, has_etag, has_ctype, has_www_auth;
} got;

static void copy_header(struct evkeyvalq *h, const char *name, char *dst, size_t cap, bool *has)
{
    const char *v = evhttp_find_header(h, name);
    *has = v != NULL;
    if (v) snprintf(dst, cap, "%s", v);
}

struct evhttp_connection *__wrap_evhttp_request_get_connection(struct evhttp_request *req);
struct evhttp_connection *__wrap_evhttp_request_get_connection(struct evhttp_request *req)
{
    (void)req;
    return FAKE_EVCON;
}

struct bufferevent *__wrap_evhttp_connection_get_bufferevent(struct evhttp_connection *evcon);
struct bufferevent *__wrap_evhttp_connection_get_bufferevent(struct evhttp_connection *evcon)
{
    CHECK(evcon == FAKE_EVCON, "a connection that is not the request's");
    return fake_bev;
}

void __wrap_evhttp_connection_set_closecb(struct evhttp_connection *evcon,
                                          void (*cb)(struct evhttp_connection *, void *), void *arg);
void __wrap_evhttp_connection_set_closecb(struct evhttp_connection *evcon,
                                          void (*cb)(struct evhttp_connection *, void *), void *arg)
{
    CHECK(evcon == FAKE_EVCON, "close callback on a connection that is not the request's");
    closecb = cb;
    closecb_arg = arg;
}

void __wrap_evhttp_connection_free(struct evhttp_connection *evcon);
void __wrap_evhttp_connection_free(struct evhttp_connection *evcon)
{
    (void)evcon;
    CHECK(false, "a request closed its connection");
}

void __real_evhttp_send_reply(struct evhttp_request *req, int code, const char *reason, struct evbuffer *databuf);
void __wrap_evhttp_send_reply(struct evhttp_request *req, int code, const char *reason, struct evbuffer *databuf);
void __wrap_evhttp_send_reply(struct evhttp_request *req, int code, const char *reason, struct evbuffer *databuf)
{
    struct evkeyvalq *out = evhttp_request_get_output_headers(req);
    got.replies++;
    got.status = code;
    got.body_len = 0;
    if (databuf) {
        size_t n = evbuffer_get_length(databuf);
        CHECK(n < sizeof(got.body), "reply of %zu bytes", n);
        got.body_len = (size_t)evbuffer_copyout(databuf, got.body, n);
    }
    got.body[got.body_len] = '\0';
    copy_header(out, "Allow", got.allow, sizeof(got.allow), &got.has_allow);
    copy_header(out, "ETag", got.etag, sizeof(got.etag), &got.has_etag);
    copy_header(out, "Content-Type", got.ctype, sizeof(got.ctype), &got.has_ctype);
    got.has_www_auth = evhttp_find_header(out, "WWW-Authenticate") != NULL;
    /* the request has no connection of libevent's: this frees it */
    __real_evhttp_send_reply(req, code, reason, databuf);
}

/* ---- references, from the documented rules ------------------------------------------ */

/* Plain decimal digits, at most 20 of them, value in [0, max]. */
static bool ref_decimal(const char *s, int64_t max, int64_t *out)
{
    size_t n = strlen(s);
    unsigned __int128 v = 0;
    if (n == 0 || n > 20) return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > (unsigned __int128)max) return false;
    *out = (int64_t)v;
    return true;
}

/* An optional '-' then ref_decimal, in [min, max]. */
static bool ref_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    bool neg = s[0] == '-';
    if (!ref_decimal(s + neg, INT64_MAX, &v)) return false;
    if (neg) v = -v;
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

/* If-Match: N, "N" or W/"N". */
static bool ref_if_match(const char *h, int64_t *out)
{
    char buf[64];
    if (strncmp(h, "W/", 2) == 0) h += 2;
    size_t n = strlen(h);
    if (n >= 2 && h[0] == '"' && h[n - 1] == '"') {
        h++;
        n -= 2;
    }
    if (n == 0 || n >= 32) return false;
    memcpy(buf, h, n);
    buf[n] = '\0';
    return ref_decimal(buf, INT64_MAX, out);
}

/* Authorization: "Bearer" (any case), blanks, the token, optional blanks. */
static bool ref_bearer(const char *secret, const char *h)
{
    if (!h || strncasecmp(h, "bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t')) return false;
    h += 6;
    while (*h == ' ' || *h == '\t') h++;
    size_t n = strlen(h);
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\t')) n--;
    return *secret && n == strlen(secret) && memcmp(h, secret, n) == 0;
}

/* Path segments after each '/'; false if path does not start with '/'. */
struct segs {
    const char *s[64];
    size_t len[64], n;
};

static bool split(const char *path, struct segs *g)
{
    g->n = 0;
    if (path[0] != '/') return false;
    for (const char *p = path; *p == '/';) {
        const char *start = ++p;
        while (*p && *p != '/') p++;
        if (g->n == 64) return false;
        g->s[g->n] = start;
        g->len[g->n++] = (size_t)(p - start);
    }
    return true;
}

static bool ref_match(const char *pattern, const struct segs *path)
{
    struct segs pat;
    if (!split(pattern, &pat) || pat.n != path->n) return false;
    for (size_t i = 0; i < pat.n; i++) {
        bool param = pat.len[i] >= 2 && pat.s[i][0] == '{' && pat.s[i][pat.len[i] - 1] == '}';
        if (param ? path->len[i] == 0
                  : pat.len[i] != path->len[i] || memcmp(pat.s[i], path->s[i], pat.len[i]) != 0)
            return false;
    }
    return true;
}

/* ---- what the request should get ---------------------------------------------------- */

static struct config cfg;
static struct app app;
static struct http_server *srv;
static bool client_leaves;

static struct {
    bool to_handler;   /* the request passes every stage before the handler */
    int status;        /* the reply expected (set by the handler stub when it runs) */
    const char *code;  /* error code, NULL for 200 */
    int64_t etag;      /* -1: no ETag */
    size_t route;
    struct segs path;
    char allow[128];
    struct evkeyvalq query; /* without ?consistent */
    bool consistent, has_if_match;
    int64_t if_match;
    json_t *body;
    bool handled, left; /* the handler ran; the client left while it had the request */
} want;

static void expect(int status, const char *code)
{
    want.status = status;
    want.code = code;
    want.etag = -1;
}

/* Appends key=value to q as evhttp_parse_query_str does, without the header
 * checks of evhttp_add_header (a query key may hold a CR). */
static void kv_append(struct evkeyvalq *q, const char *key, const char *value)
{
    struct evkeyval *kv = calloc(1, sizeof(*kv));
    if (!kv || !(kv->key = strdup(key)) || !(kv->value = strdup(value))) abort();
    TAILQ_INSERT_TAIL(q, kv, next);
}

/* The stages of http_entry, in its order. */
static void expect_request(const char *method, const char *path, const char *q, struct evkeyvalq *in,
                           const uint8_t *body, size_t blen)
{
    want.to_handler = false;
    if (*cfg.http_bearer_token && strcmp(path, "/healthz") != 0 &&
        !ref_bearer(cfg.http_bearer_token, evhttp_find_header(in, "Authorization")))
        return expect(401, "unauthorized");

    bool known = split(path, &want.path);
    want.route = nroutes;
    want.allow[0] = '\0';
    for (size_t i = 0; known && i < nroutes; i++) {
        if (!ref_match(routes[i].pattern, &want.path)) continue;
        if (strcmp(routes[i].method, method) == 0) {
            want.route = i;
            break;
        }
        if (!strstr(want.allow, routes[i].method)) {
            size_t used = strlen(want.allow);
            snprintf(want.allow + used, sizeof(want.allow) - used, "%s%s", used ? ", " : "", routes[i].method);
        }
    }
    if (want.route == nroutes) return want.allow[0] ? expect(405, "method_not_allowed")
                                                              : expect(404, "not_found");

    struct evkeyvalq all;
    TAILQ_INIT(&all);
    if (q && evhttp_parse_query_str(q, &all) != 0) {
        evhttp_clear_headers(&all);
        return expect(400, "invalid_parameter");
    }
    want.consistent = false;
    bool bad_consistent = false;
    struct evkeyval *kv;
    TAILQ_FOREACH(kv, &all, next)
    {
        if (strcasecmp(kv->key, "consistent") != 0) {
            kv_append(&want.query, kv->key, kv->value);
        } else if (!bad_consistent) {
            if (strcmp(kv->value, "true") == 0 || strcmp(kv->value, "1") == 0)
                want.consistent = true;
            else if (strcmp(kv->value, "false") != 0 && strcmp(kv->value, "0") != 0)
                bad_consistent = true;
        }
    }
    evhttp_clear_headers(&all);
    if (bad_consistent) return expect(400, "invalid_parameter");

    const char *h = evhttp_find_header(in, "If-Match");
    want.has_if_match = h && strcmp(h, "*") != 0;
    if (want.has_if_match && !ref_if_match(h, &want.if_match)) return expect(400, "invalid_header");

    if (blen > 0) {
        json_error_t jerr;
        if (blen > (size_t)cfg.http_max_body_bytes) return expect(413, "payload_too_large");
        want.body = json_loadb((const char *)body, blen, JSON_REJECT_DUPLICATES, &jerr);
        if (!want.body || !json_is_object(want.body)) return expect(400, "invalid_json");
    }
    want.to_handler = true;
    expect(0, NULL); /* the handler decides */
}

/* ---- the handler every route gets --------------------------------------------------- */

static bool same_query(struct evkeyvalq *a, struct evkeyvalq *b)
{
    struct evkeyval *x = TAILQ_FIRST(a), *y = TAILQ_FIRST(b);
    for (; x && y; x = TAILQ_NEXT(x, next), y = TAILQ_NEXT(y, next))
        if (strcmp(x->key, y->key) != 0 || strcmp(x->value, y->value) != 0) return false;
    return !x && !y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What http_json_ids_or_reply must do with arr. Returns true when it accepts. */
static bool ids_expected(const json_t *arr, int64_t min, int64_t max)
{
    if (!json_is_array(arr)) return expect(400, "invalid_body"), false;
    if (json_array_size(arr) > (size_t)cfg.http_max_ids) return expect(413, "too_many_ids"), false;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
            return expect(400, "invalid_id"), false;
    }
    return true;
}

static void check_ids(const json_t *arr, const int64_t *ids, size_t n)
{
    for (size_t i = 1; i < n; i++) CHECK(ids[i - 1] < ids[i], "ids not sorted and unique at %zu", i);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        int64_t v = json_integer_value(json_array_get(arr, i));
        CHECK(bsearch(&v, ids, n, sizeof(*ids), cmp_i64), "id %lld lost", (long long)v);
    }
    CHECK(n <= json_array_size(arr), "more ids than given");
}

/* One field holding ids: false when it replied (c is gone). */
static bool body_ids(struct http_ctx *c, const char *field, int64_t min, int64_t max, json_t *out)
{
    json_t *arr = json_object_get(c->body, field);
    int64_t *ids = NULL;
    size_t n = 0;
    if (!arr) return true;
    bool ok = ids_expected(arr, min, max);
    json_t *keep = json_incref(arr); /* c->body goes with c on a reply */
    bool res = http_json_ids_or_reply(c, arr, field, min, max, &ids, &n);
    CHECK(res == ok, "'%s': http_json_ids_or_reply says %d, reference %d", field, res, ok);
    if (res) {
        check_ids(keep, ids, n);
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(list, json_integer(ids[i]));
        json_object_set_new(out, field, list);
        free(ids);
    }
    json_decref(keep);
    return res;
}

static bool body_int(struct http_ctx *c, const char *field, int64_t min, int64_t max, bool required, json_t *out)
{
    json_t *v = json_object_get(c->body, field);
    bool ok = v ? json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max : !required;
    int64_t want_v = ok && v ? json_integer_value(v) : 0, got_v = -1;
    bool present = false;
    if (!ok) expect(400, "invalid_body");
    bool res = http_body_int_or_reply(c, field, min, max, required, &got_v, &present);
    CHECK(res == ok, "'%s': http_body_int_or_reply says %d, reference %d", field, res, ok);
    if (res && present) {
        CHECK(got_v == want_v, "'%s': %lld, reference %lld", field, (long long)got_v, (long long)want_v);
        json_object_set_new(out, field, json_integer(got_v));
    }
    return res;
}

static const char *const query_names[] = {"limit", "before", "cursor", "from", "to", "at", NULL};
static const char *const body_names[] = {"ids", "users", "at", "msg", "all", "text", NULL};

static void fuzz_route_handler(struct http_ctx *c)
{
    CHECK(want.to_handler, "a handler got a request that should have been answered %d %s", want.status,
          want.code ? want.code : "");
    want.handled = true;
    CHECK(c->route == &routes[want.route], "route %s, reference %s", c->route->name, routes[want.route].name);
    CHECK(c->consistent == want.consistent, "consistent %d, reference %d", c->consistent, want.consistent);
    CHECK(c->has_if_match == want.has_if_match && (!c->has_if_match || c->if_match == want.if_match),
          "If-Match version");
    CHECK(want.body ? c->body && json_equal(c->body, want.body) : !c->body, "the body");
    CHECK(same_query(&c->query, &want.query), "query parameters without ?consistent");

    /* path parameters: the segments of the pattern's {name}s */
    struct segs pat;
    CHECK(split(c->route->pattern, &pat), "pattern");
    int np = 0;
    json_t *echo = json_object();
    json_object_set_new(echo, "route", json_string(c->route->name));
    for (size_t i = 0; i < pat.n; i++) {
        if (!(pat.len[i] >= 2 && pat.s[i][0] == '{')) continue;
        size_t keep = want.path.len[i] < ROUTE_PARAM_MAX - 1 ? want.path.len[i] : ROUTE_PARAM_MAX - 1;
        CHECK(np < c->match.nparams && strlen(c->match.params[np]) == keep &&
                  memcmp(c->match.params[np], want.path.s[i], keep) == 0 &&
                  c->match.param_truncated[np] == (keep < want.path.len[i]),
              "path parameter %d", np);
        bool user = strncmp(pat.s[i], "{user}", 6) == 0, msg = strncmp(pat.s[i], "{msg}", 5) == 0;
        int64_t max = user ? USER_ID_MAX : MSG_ID_MAX, v = -1, ref = -2;
        bool ok = !c->match.param_truncated[np] && ref_decimal(c->match.params[np], max, &ref);
        if (!ok) expect(400, "invalid_id");
        bool res;
        if (user) {
            res = http_param_user_or_reply(c, np, &v);
        } else if (msg) {
            uint32_t m = 0;
            res = http_param_msg_or_reply(c, np, &m);
            v = m;
        } else {
            res = http_param_int_or_reply(c, np, "id", max, &v);
        }
        CHECK(res == ok, "path parameter %d: parser says %d, reference %d", np, res, ok);
        if (!res) {
            json_decref(echo);
            return; /* answered */
        }
        CHECK(v == ref, "path parameter %d: %lld, reference %lld", np, (long long)v, (long long)ref);
        json_object_set_new(echo, "param", json_integer(v));
        np++;
    }
    CHECK(np == c->match.nparams, "%d parameters captured, pattern has %d", c->match.nparams, np);

    if (client_leaves) {
        CHECK(closecb && closecb_arg, "no close callback while a handler has the request");
        closecb(FAKE_EVCON, closecb_arg);
        closecb = NULL;
        CHECK(c->gone && !c->conn, "a client that left is not marked gone");
        want.left = true;
    }

    /* query parameters: only known names, each once */
    bool qok = true;
    struct evkeyval *kv, *prev;
    TAILQ_FOREACH(kv, &c->query, next)
    {
        bool known = false;
        for (const char *const *n = query_names; *n; n++) known = known || strcmp(*n, kv->key) == 0;
        for (prev = TAILQ_FIRST(&c->query); known && prev != kv; prev = TAILQ_NEXT(prev, next))
            if (strcasecmp(prev->key, kv->key) == 0) known = false;
        if (!known) {
            qok = false;
            break;
        }
    }
    if (!qok) expect(400, "invalid_parameter");
    bool res = http_query_only_or_reply(c, query_names);
    CHECK(res == qok, "http_query_only_or_reply says %d, reference %d", res, qok);
    if (!res) goto answered;
    static const struct {
        const char *name;
        int64_t min, max;
    } qints[] = {{"limit", 1, 1000}, {"before", 0, (int64_t)1 << 32}, {"from", INT64_MIN, INT64_MAX}};
    for (size_t i = 0; i < ARRAY_LEN(qints); i++) {
        const char *s = evhttp_find_header(&c->query, qints[i].name);
        int64_t ref = 0, v = 0;
        bool present = false, ok = !s || ref_int(s, qints[i].min, qints[i].max, &ref);
        if (!ok) expect(400, "invalid_parameter");
        res = http_query_int_or_reply(c, qints[i].name, qints[i].min, qints[i].max, &v, &present);
        CHECK(res == ok, "query %s: parser says %d, reference %d", qints[i].name, res, ok);
        if (!res) goto answered;
        CHECK(present == (s != NULL) && (!s || v == ref), "query %s value", qints[i].name);
        if (s) json_object_set_new(echo, qints[i].name, json_integer(v));
    }

    /* body fields; a PUT needs a body */
    if (strcmp(c->route->method, "PUT") == 0) {
        bool has = c->body != NULL;
        if (!has) expect(400, "invalid_json");
        res = http_body_or_reply(c);
        CHECK(res == has, "http_body_or_reply says %d with%s a body", res, has ? "" : "out");
        if (!res) goto answered;
    }
    if (c->body) {
        const char *key;
        json_t *val;
        bool fok = true;
        json_object_foreach(c->body, key, val)
        {
            bool known = false;
            for (const char *const *n = body_names; *n; n++) known = known || strcmp(*n, key) == 0;
            fok = fok && known;
        }
        if (!fok) expect(400, "invalid_body");
        res = http_body_fields_or_reply(c, body_names);
        CHECK(res == fok, "http_body_fields_or_reply says %d, reference %d", res, fok);
        if (!res) goto answered;
        json_t *all = json_object_get(c->body, "all");
        bool bok = !all || json_is_boolean(all), b = true;
        if (!bok) expect(400, "invalid_body");
        res = http_body_bool_or_reply(c, "all", &b);
        CHECK(res == bok, "http_body_bool_or_reply says %d, reference %d", res, bok);
        if (!res) goto answered;
        CHECK(b == (all && json_is_true(all)), "'all' value");
        if (!body_int(c, "at", 0, MSG_ID_MAX, false, echo)) goto answered;
        if (!body_int(c, "msg", 0, MSG_ID_MAX, strcmp(c->route->method, "PUT") == 0, echo)) goto answered;
        if (!body_ids(c, "ids", 0, MSG_ID_MAX, echo)) goto answered;
        if (!body_ids(c, "users", 0, USER_ID_MAX, echo)) goto answered;
    }
    expect(200, NULL);
    want.etag = c->has_if_match ? c->if_match : -1;
    http_reply_json(c, 200, echo, want.etag);
    return;
answered:
    json_decref(echo);
}

#include "fuzz_http_stubs.inc"

/* ---- the target ------------------------------------------------------------------------ */

static FILE *devnull;

static void setup(void)
{
    int fds[2];
    config_defaults(&cfg);
    free(cfg.http_bearer_token); /* set per input to one of two constant strings */
    cfg.http_bearer_token = NULL;
    fuzz_base = event_base_new();
    if (!fuzz_base || socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) abort();
    fake_bev = bufferevent_socket_new(fuzz_base, fds[0], 0);
    devnull = fopen("/dev/null", "w");
    if (!fake_bev || !devnull) abort();
    app.cfg = &cfg;
    app.base = fuzz_base;
    srv = calloc(1, sizeof(*srv));
    if (!srv) abort();
    srv->app = &app;
    routes = app_routes(&nroutes); /* what http_server_new() is given in main.c */
    if (!(route_stats = calloc(nroutes + 1, sizeof(*route_stats)))) abort();
    log_current_level = LOG_LEVEL_DEBUG; /* every log line is formatted (into /dev/null) */
}

static int method_type(const char *m, enum evhttp_cmd_type *t)
{
    static const struct {
        const char *name;
        enum evhttp_cmd_type type;
    } methods[] = {{"GET", EVHTTP_REQ_GET},       {"POST", EVHTTP_REQ_POST},   {"PUT", EVHTTP_REQ_PUT},
                   {"DELETE", EVHTTP_REQ_DELETE}, {"HEAD", EVHTTP_REQ_HEAD},   {"PATCH", EVHTTP_REQ_PATCH},
                   {"OPTIONS", EVHTTP_REQ_OPTIONS}};
    for (size_t i = 0; i < ARRAY_LEN(methods); i++)
        if (strcmp(m, methods[i].name) == 0) {
            *t = methods[i].type;
            return 1;
        }
    return 0; /* evhttp answers other methods itself */
}

/* Copies data[*at, next LF) (without a trailing CR) into a NUL-terminated string;
 * NULL when no LF is left or the line holds a NUL byte. */
static char *next_line(const uint8_t *data, size_t size, size_t *at)
{
    const uint8_t *lf = memchr(data + *at, '\n', size - *at);
    if (!lf) return NULL;
    size_t n = (size_t)(lf - (data + *at));
    if (memchr(data + *at, '\0', n)) return NULL;
    char *line = strndup((const char *)data + *at, n);
    *at += n + 1;
    if (line && n && line[n - 1] == '\r') line[n - 1] = '\0';
    return line;
}

/* Whether s[0..n) is valid UTF-8 (jansson refuses strings that are not). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || i + len > n) return false;
        uint32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
            return false;
        i += len;
    }
    return true;
}

static char *req_path;
static json_t *req_body;
static struct evkeyvalq req_query;

static void check_reply(void)
{
    CHECK(got.replies == 1, "%d replies to one request", got.replies);
    CHECK(http_inflight() == 0, "%d requests still in flight", http_inflight());
    CHECK(got.status == want.status, "status %d, reference %d (%s)", got.status, want.status,
          want.code ? want.code : "ok");
    if (want.left) {
        CHECK(got.body_len == 0, "a reply body for a client that left");
        CHECK(srv->nconns == 0, "the connection of a client that left is still tracked");
        return;
    }
    CHECK(srv->nconns == 1, "%d connections tracked", srv->nconns);
    CHECK(got.has_ctype && strcmp(got.ctype, "application/json") == 0, "Content-Type");
    /* messages quote client bytes; they must still be UTF-8, as JSON wants */
    CHECK(utf8_valid((const unsigned char *)got.body, got.body_len), "reply body is not UTF-8");
    json_error_t jerr;
    json_t *doc = json_loadb(got.body, got.body_len, 0, &jerr);
    CHECK(doc && json_is_object(doc), "reply is not a JSON object: %s", got.body);
    if (want.code) {
        const char *code = NULL, *message = NULL;
        CHECK(json_unpack(doc, "{s:{s:s,s:s}}", "error", "code", &code, "message", &message) == 0 &&
                  json_object_size(doc) == 1,
              "error reply shape: %s", got.body);
        CHECK(strcmp(code, want.code) == 0, "error code %s, reference %s", code, want.code);
    } else {
        CHECK(json_is_string(json_object_get(doc, "route")), "200 reply: %s", got.body);
    }
    json_decref(doc);
    char tag[40];
    snprintf(tag, sizeof(tag), "\"%lld\"", (long long)want.etag);
    CHECK(want.etag < 0 ? !got.has_etag : got.has_etag && strcmp(got.etag, tag) == 0, "ETag %s, reference %s",
          got.has_etag ? got.etag : "none", want.etag < 0 ? "none" : tag);
    if (want.status == 405)
        CHECK(got.has_allow && strcmp(got.allow, want.allow) == 0, "Allow \"%s\", reference \"%s\"",
              got.has_allow ? got.allow : "", want.allow);
    if (want.status == 401) CHECK(got.has_www_auth, "401 without WWW-Authenticate");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!srv) setup();
    if (size < 1) return 0;
    unsigned flags = data[0];
    cfg.http_max_ids = flags & 1 ? 3 : 1000000;
    cfg.http_max_body_bytes = flags & 2 ? 64 : 16 << 20;
    client_leaves = flags & 4;
    cfg.http_bearer_token = flags & 8 ? "s3cret" : "";

    size_t at = 1;
    char *line = next_line(data, size, &at), *sp;
    enum evhttp_cmd_type type;
    if (!line || !(sp = strchr(line, ' ')) || strchr(sp + 1, ' ')) {
        free(line);
        return 0;
    }
    *sp = '\0';
    const char *target = sp + 1;
    struct evhttp_uri *uri = NULL;
    if (!method_type(line, &type) || !*target ||
        !(uri = evhttp_uri_parse_with_flags(target, EVHTTP_URI_NONCONFORMANT))) {
        free(line);
        return 0; /* evhttp itself answers a request line it cannot parse */
    }
    struct evhttp_request *req = evhttp_request_new(NULL, NULL);
    if (!req) abort();
    req->type = type;
    req->uri = strdup(target);
    req->uri_elems = uri;
    struct evkeyvalq *in = evhttp_request_get_input_headers(req);
    char *h;
    for (int n = 0; n < 16 && (h = next_line(data, size, &at)) != NULL; n++) {
        bool end = h[0] == '\0';
        char *colon = strchr(h, ':');
        if (colon && colon != h) {
            *colon = '\0';
            char *v = colon + 1;
            v += strspn(v, " \t");
            size_t vl = strlen(v);
            while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t')) v[--vl] = '\0';
            (void)evhttp_add_header(in, h, v); /* refuses what evhttp would not parse */
        }
        free(h);
        if (end) break;
    }
    const uint8_t *body = data + at;
    size_t blen = at < size ? size - at : 0;
    evbuffer_add(evhttp_request_get_input_buffer(req), body, blen);

    const char *path = evhttp_uri_get_path(uri);
    char *path_copy = strdup(path && *path ? path : "/");
    const char *q = evhttp_uri_get_query(uri);
    char *q_copy = q ? strdup(q) : NULL;

    memset(&want, 0, sizeof(want));
    TAILQ_INIT(&want.query);
    expect_request(line, path_copy, q_copy, in, body, blen);
    req_path = path_copy;
    TAILQ_INIT(&req_query);
    if (q_copy && evhttp_parse_query_str(q_copy, &req_query) != 0) evhttp_clear_headers(&req_query);
    req_body = want.body;
    memset(&got, 0, sizeof(got));

    FILE *saved = stderr;
    stderr = devnull;
    http_entry(req, srv); /* req is freed by the reply */
    stderr = saved;

    CHECK(!want.to_handler || want.handled, "the request never reached its handler");
    if (getenv("FUZZ_PRINT")) printf("%d %s%s", got.status, got.body, got.body_len ? "" : "\n");
    check_reply();
    evhttp_clear_headers(&want.query);
    evhttp_clear_headers(&req_query);
    if (want.body) json_decref(want.body);
    free(path_copy);
    free(q_copy);
    free(line);
    return 0;
}
