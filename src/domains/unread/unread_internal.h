/* unread_internal.h — what the unread files share (unread.c, unread_broadcasts.c,
 * unread_reddots.c, unread_feed.c): keys and limits, and the helpers of their
 * handlers. Not for use outside src/domains/unread/. */
#ifndef BITMAPD_UNREAD_INTERNAL_H
#define BITMAPD_UNREAD_INTERNAL_H

#include <jansson.h>
#include <roaring/roaring.h>

#include "domains/unread/unread.h"
#include "http/http.h"
#include "store/bmload.h"
#include "store/wpath.h"

#define BROADCASTS_KEY "broadcasts"
#define FOLLOWING_PREFIX "feed:following:"
#define FOLLOWING_KEY_MAX 48      /* "feed:following:" + 19 digits */
#define FEED_TOP_AUTHORS 100      /* authors listed by GET feed/unread */
#define POSTS_COUNT_MAX 1000000   /* posts counted by one POST */
#define INACTIVE_DAYS_MAX 36500   /* the range of [broadcasts] cursor_ttl_days */
#define SWEEP_BATCH 10000         /* cursors deleted per statement */
#define SWEEP_PERIOD_S 3600       /* between two clearings of idle cursors */
#define SWEEP_RETRY_MAX_S 60      /* longest wait after an unreachable database */
#define INT8OID 20
#define STR_(x) #x
#define STRINGIFY(x) STR_(x)

extern const char *const ur_no_names[]; /* no query parameter allowed */

/* A decimal rendering of v for a text-format query parameter. */
struct num {
    char s[24];
};

/* 500 internal, out of memory. Frees c. */
void ur_reply_oom(struct http_ctx *c);
/* v in decimal, in n. */
const char *ur_num(struct num *n, int64_t v);
/* Bodies that are optional: absent, or an object of the listed fields only. */
bool ur_optional_body_or_reply(struct http_ctx *c, const char *const *fields);
/* An id field of the body in [0, max]: missing is 400 invalid_body when required,
 * anything but such an integer is 400 invalid_id. */
bool ur_body_id_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required, int64_t *out, bool *present);
/* v as JSON when present, else null. */
json_t *ur_json_id_or_null(bool present, int64_t v);
/* bm's largest member, or null when empty. */
json_t *ur_newest_json(const roaring_bitmap_t *bm);
/* The members of bm as a JSON array, ascending; NULL when out of memory. */
json_t *ur_members_json(const roaring_bitmap_t *bm);
/* The members of bm as an int8[] in PostgreSQL's binary array format (a query
 * parameter of format 1). Caller frees *out. False when out of memory or too big. */
bool ur_int8_array_of(const roaring_bitmap_t *bm, uint8_t **out, int *len);
/* Starts a read-only load of one bitmap; answers 500 itself when out of memory. */
bool ur_load_one_or_reply(struct http_ctx *c, const char *key, size_t len, bmload_cb cb, void *arg);
/* Starts a statement answered by cb(arg); answers 500 itself when out of memory. */
bool ur_query_or_reply(struct http_ctx *c, const char *sql, int n, const struct db_param *p, db_cb cb, void *arg);
/* A write path of one unit holding the one key; NULL when out of memory. */
struct wpath *ur_one_key_write(struct http_ctx *c, const char *key, size_t keylen, const struct wpath_ops *ops, void *arg);
/* Runs wp for c; a client that leaves abandons it (done() is still called). */
void ur_one_key_run(struct http_ctx *c, struct wpath *wp);

#endif
