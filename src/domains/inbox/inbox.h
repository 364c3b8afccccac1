/* inbox.h — the message box of seed 000: per-user push and read bitmaps stored
 * under the seed's own Redis key names, message:push:{user} and message:read:{user}. */
#ifndef BITMAPD_INBOX_H
#define BITMAPD_INBOX_H

#include "core/common.h"

struct http_ctx;

void inbox_push(struct http_ctx *c);
void inbox_fanout(struct http_ctx *c);
void inbox_read(struct http_ctx *c);
void inbox_message(struct http_ctx *c);
void inbox_retract(struct http_ctx *c);
void inbox_list(struct http_ctx *c);
void inbox_unread(struct http_ctx *c);
void inbox_drop_user(struct http_ctx *c);
void inbox_drop_all(struct http_ctx *c);
void inbox_user_periods(struct http_ctx *c);
void inbox_periods_list(struct http_ctx *c);
void inbox_period_put(struct http_ctx *c);

struct app;
/* The retention of [inbox] keep_months (inbox_retention.c): a timer that drops the
 * history older than that from every box, once per new bound, one instance at a time. */
void inbox_retention_start(struct app *app);
/* Shutting down: a walk in progress stops after its page, lets go of its claim and
 * records nothing; no check starts. inbox_retention_pending() counts what is still in
 * flight (the service waits for it, as for requests); inbox_retention_stop() after the loop. */
void inbox_retention_quiesce(void);
int inbox_retention_pending(void);
void inbox_retention_stop(void);


#endif
