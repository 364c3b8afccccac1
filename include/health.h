/* health.h — GET /healthz: 200 once the database answers, 503 otherwise. */
#ifndef BITMAPD_HEALTH_H
#define BITMAPD_HEALTH_H

struct http_ctx;
void health_get(struct http_ctx *c);

#endif
