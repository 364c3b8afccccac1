/* routes.h — the HTTP API's route table (routes.c), for the server and --routes. */
#ifndef BITMAPD_ROUTES_H
#define BITMAPD_ROUTES_H

#include "http/router.h"

/* The table: docs/openapi.yaml describes every row (test_openapi_routes.sh). */
const struct route *app_routes(size_t *n);

#endif
