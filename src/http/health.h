/* health.h — GET /healthz: 200 once the database answers, 503 otherwise; GET /metrics:
 * the metrics registry in the Prometheus text format. */
#ifndef BITMAPD_HEALTH_H
#define BITMAPD_HEALTH_H

struct http_ctx;
void health_get(struct http_ctx *c);
void health_metrics_get(struct http_ctx *c);

#endif
