/* health.c — GET /healthz runs a real round trip, so it reports what a client would
 * see; GET /metrics prints the metrics registry (metrics.h). */
#include "http/health.h"

#include "http/http.h"
#include "core/metrics.h"

static void health_done(const struct db_result *r, void *arg)
{
    struct http_ctx *c = arg;
    if (r->status == DB_OK)
        http_reply_json(c, 200, json_pack("{s:s,s:s}", "status", "ok", "database", "up"), -1);
    else
        http_reply_db_failure(c, r);
}

/* GET /healthz */
void health_get(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    if (!http_query_only_or_reply(c, params)) return;
    if (!store_ping(c->app->store, health_done, c))
        http_reply_error(c, 500, "internal", "out of memory");
}

/* GET /metrics */
void health_metrics_get(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    struct evbuffer *out;

    if (!http_query_only_or_reply(c, params)) return;
    if (!(out = evbuffer_new())) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    metrics_render(out);
    http_reply_text(c, 200, "text/plain; version=0.0.4; charset=utf-8", out);
    evbuffer_free(out);
}
