/* health.c — /healthz runs a real round trip, so it reports what a client would see. */
#include "health.h"

#include "http.h"

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
