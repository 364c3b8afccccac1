/* router.h — matches "METHOD /path" against a static table of patterns such as
 * "/v1/users/{user}/messages/{msg}". Pure: no I/O, unit-tested on its own. */
#ifndef BITMAPD_ROUTER_H
#define BITMAPD_ROUTER_H

#include "core/common.h"

#define ROUTE_MAX_PARAMS 4
#define ROUTE_PARAM_MAX 64

struct http_ctx;
typedef void (*route_handler)(struct http_ctx *c);

struct route {
    const char *method; /* "GET", "POST", "PUT", "DELETE" */
    const char *pattern;
    route_handler handler;
    const char *name; /* for logs and metrics */
};

enum route_result { ROUTE_FOUND, ROUTE_NOT_FOUND, ROUTE_BAD_METHOD };

struct route_match {
    const struct route *route;
    int nparams;
    char params[ROUTE_MAX_PARAMS][ROUTE_PARAM_MAX]; /* captured segments, truncated */
    bool param_truncated[ROUTE_MAX_PARAMS];
    char allow[64]; /* for ROUTE_BAD_METHOD: "GET, POST" */
};

/* path is the URI path only (no query). */
enum route_result router_match(const struct route *table, size_t n, const char *method,
                               const char *path, struct route_match *m);

#endif
