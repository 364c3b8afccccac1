/* receipt.h — group read receipts over HTTP (seed 001): the member map (dense
 * member ids per group, rows of bitmapd.group_members) and one two-plane receipts
 * bitmap per group message (key group:{g}:msg:{m}, arithmetic in receipts.h),
 * written through the compare-and-swap write path. */
#ifndef BITMAPD_RECEIPT_H
#define BITMAPD_RECEIPT_H

struct http_ctx;

/* POST /v1/groups/{group}/members {"user": u} */
void receipt_join(struct http_ctx *c);
/* GET /v1/groups/{group}/members/{user} */
void receipt_member(struct http_ctx *c);
/* DELETE /v1/groups/{group}/members/{user} */
void receipt_leave(struct http_ctx *c);
/* POST /v1/groups/{group}/messages {"message": m, "sender": u} */
void receipt_send(struct http_ctx *c);
/* POST /v1/groups/{group}/messages/{msg}/reads {"user": u} */
void receipt_read(struct http_ctx *c);
/* GET /v1/groups/{group}/messages/{msg}/receipts?list=read|unread&limit=N&cursor=C */
void receipt_list(struct http_ctx *c);

#endif
