/* http.h — the HTTP/JSON front end: one evhttp server, the route table, and the
 * helpers every handler uses to parse input and answer exactly once. */
#ifndef BITMAPD_HTTP_H
#define BITMAPD_HTTP_H

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "core/app.h"
#include "store/bmload.h"
#include "store/wpath.h"
#include "http/router.h"

/* One request in flight. Created by the server, freed by http_reply_*(): every
 * handler path ends in exactly one reply, also after the client went away. */
struct http_ctx {
    struct app *app;
    struct evhttp_request *req;
    const struct route *route;
    struct route_match match;
    struct evkeyvalq query;
    json_t *body;           /* parsed JSON object for POST/PUT, else NULL */
    bool has_if_match;
    int64_t if_match;
    bool consistent;        /* ?consistent=true: reads check versions in the database */
    bool gone;              /* the client disconnected: the reply goes nowhere */
    struct http_conn *conn; /* its connection while the handler has it; NULL once replied or gone */
    double t0;              /* when the whole request had arrived (metrics_now()) */
    void (*on_gone)(struct http_ctx *c); /* set by a handler with work in flight */
    void *op;               /* the handler's state */
};

struct http_server;
struct http_conn;

/* Binds address:port from cfg and serves the n routes of table (borrowed: it must
 * outlive the server). Returns NULL (and logs why) on failure. */
struct http_server *http_server_new(struct app *app, const struct route *table, size_t n) WUR;
void http_server_free(struct http_server *srv);
/* Applies the reloadable [http] settings that evhttp holds (body and header caps,
 * the inactivity timeout). evhttp copies them into each connection when it is
 * accepted, so they apply to new connections; the others (our JSON body limit,
 * deadlines, the token…) are read at the time of use. */
void http_server_apply_config(struct http_server *srv);
/* Closes the listening socket; requests in flight go on. */
void http_server_stop_accepting(struct http_server *srv);
/* Shutdown: closes the listener; from now on every reply closes its connection
 * (Connection: close), so a kept-alive client sends no further request. */
void http_server_drain(struct http_server *srv);
/* Requests received and not yet answered. */
int http_inflight(void);
/* Connections with reply bytes not yet handed to the kernel (shutdown waits for them). */
int http_server_unsent(const struct http_server *srv);


/* store_load()/bmload_start() flags for this request's reads. */
unsigned http_load_flags(const struct http_ctx *c);

/* Sends obj (reference stolen) with status; etag >= 0 adds an ETag header. Frees c. */
void http_reply_json(struct http_ctx *c, int status, json_t *obj, int64_t etag);
/* Sends body (borrowed; copied out) with Content-Type content_type. Frees c. */
void http_reply_text(struct http_ctx *c, int status, const char *content_type, struct evbuffer *body);
/* Sends {"error": {"code": code, "message": …}}. Frees c. */
void http_reply_error(struct http_ctx *c, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Answers a failed query: 503 db_unavailable when the database is out of reach,
 * else 500. Frees c. */
void http_reply_db_failure(struct http_ctx *c, const struct db_result *r);

/* Parsers that answer 400 themselves and return false on bad input. */
bool http_param_user_or_reply(struct http_ctx *c, int idx, int64_t *out) WUR;
bool http_param_msg_or_reply(struct http_ctx *c, int idx, uint32_t *out) WUR;
/* Query parameter as an integer in [min, max]; absent → *present = false. */
bool http_query_int_or_reply(struct http_ctx *c, const char *name, int64_t min, int64_t max,
                             int64_t *out, bool *present) WUR;
/* Every query parameter must be one of the NULL-terminated names. */
bool http_query_only_or_reply(struct http_ctx *c, const char *const *names) WUR;
/* Requires a JSON object body. */
bool http_body_or_reply(struct http_ctx *c) WUR;
/* A JSON array of integers in [min, max] of at most [http] max_ids_per_request
 * entries, sorted and de-duplicated into a malloc'ed array (caller frees). */
bool http_json_ids_or_reply(struct http_ctx *c, const json_t *arr, const char *field, int64_t min,
                            int64_t max, int64_t **out, size_t *n) WUR;
/* Optional boolean body field (absent: false). */
bool http_body_bool_or_reply(struct http_ctx *c, const char *field, bool *out) WUR;
/* Integer body field in [min, max]; absent is an error only when required. */
bool http_body_int_or_reply(struct http_ctx *c, const char *field, int64_t min, int64_t max,
                            bool required, int64_t *out, bool *present) WUR;
/* Path parameter idx as plain decimal digits in [0, max]; `what` names it in the error. */
bool http_param_int_or_reply(struct http_ctx *c, int idx, const char *what, int64_t max,
                             int64_t *out) WUR;

/* A failed write: 503 db_unavailable / conflict_retries_exhausted, 500 corrupt_bitmap
 * or internal. Frees c. */
void http_reply_wp_failure(struct http_ctx *c, enum wp_status st, const char *msg);
/* A unit that ended in WP_CORRUPT or WP_CONFLICTED (or another failure). Frees c. */
void http_reply_unit_failure(struct http_ctx *c, const struct wp_unit *u);
/* A failed bmload. Frees c. */
void http_reply_bmload_failure(struct http_ctx *c, enum bmload_status st, const char *msg);

/* Checks that only the listed fields are present in the body. */
bool http_body_fields_or_reply(struct http_ctx *c, const char *const *names) WUR;

#define USER_ID_MAX INT64_MAX
#define MSG_ID_MAX 4294967295LL

#endif
