/* notice.h — announcements (seed 004): notices addressed to audiences (the seed's
 * platforms: operators, users, customers), per-user read marks, and read/unread
 * counts per (audience, user) computed from the audience's index and the readers
 * of each of its live notices, read in one load. Nothing is kept per user.
 *
 * Keys (rows of bitmapd.bitmaps; docs/notices.md has the whole protocol):
 *   notice:{id}:audiences       audience ids of the notice; it exists iff this has
 *                               members; the single member 4294967295 = "deleting",
 *                               left only by an older version's interrupted delete
 *   notice:{id}:readers         user ids that read the notice
 *   notice:audience:{aud}       ids of the live notices of the audience (the index)
 *   notice:audience:{aud}:users the audience's users, when the service was told
 * Migration 0011 deleted the notice:user:{user}:read and notice:{id}:preread rows
 * of older versions. */
#ifndef BITMAPD_NOTICE_H
#define BITMAPD_NOTICE_H

struct http_ctx;

/* Route handlers (the table of src/app/routes.c). Each answers exactly once. */
void notice_create(struct http_ctx *c);         /* POST   /v1/notices */
void notice_update(struct http_ctx *c);         /* PUT    /v1/notices/{id} */
void notice_delete(struct http_ctx *c);         /* DELETE /v1/notices/{id} */
void notice_stats(struct http_ctx *c);          /* GET    /v1/notices/{id}/stats */
void notice_mark(struct http_ctx *c);           /* PUT    /v1/notices/{id}/reads/{user} */
void notice_is_read(struct http_ctx *c);        /* GET    /v1/notices/{id}/reads/{user} */
void notice_list(struct http_ctx *c);           /* GET    /v1/audiences/{aud}/users/{user}/notices */
void notice_audience_set(struct http_ctx *c);   /* PUT    /v1/audiences/{aud}/users */
void notice_audience_add(struct http_ctx *c);   /* POST   /v1/audiences/{aud}/users */

#endif
