/* unread.h — seed 001's unread counts: system notices (a global broadcast list, the
 * bitmap `broadcasts`, and a last-seen cursor per user), red dots (a global setting
 * number per dot and the number each user last clicked) and feed unread (posts per
 * author, followees as the bitmap `feed:following:{user}`, post-count snapshots).
 * Bitmaps are written through wpath; the scalars live in the tables of
 * migrations/0006_unread.sql and change by single atomic statements. */
#ifndef BITMAPD_UNREAD_H
#define BITMAPD_UNREAD_H

#include "core/app.h"
#include "core/common.h"

struct http_ctx;

/* system notices */
void unread_broadcast_post(struct http_ctx *c);
void unread_broadcast_get(struct http_ctx *c);
void unread_cursors_expire(struct http_ctx *c);
void unread_broadcast_unread(struct http_ctx *c);
void unread_broadcast_seen(struct http_ctx *c);
/* red dots */
void unread_reddot_set(struct http_ctx *c);
void unread_reddot_get(struct http_ctx *c);
void unread_reddot_show(struct http_ctx *c);
void unread_reddot_click(struct http_ctx *c);
/* feed unread */
void unread_author_post(struct http_ctx *c);
void unread_author_get(struct http_ctx *c);
void unread_following_put(struct http_ctx *c);
void unread_following_get(struct http_ctx *c);
void unread_feed_unread(struct http_ctx *c);
void unread_feed_seen(struct http_ctx *c);

/* Starts the clearing of idle broadcast cursors ([broadcasts] cursor_ttl_days; 0
 * starts nothing): at once, then hourly, one bounded batch per statement. app is
 * borrowed until unread_stop(), which must run before the database pool is freed. */
void unread_start(struct app *app);
void unread_stop(void);

#endif
