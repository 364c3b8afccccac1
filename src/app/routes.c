/* routes.c — the HTTP API: every route and the handler that serves it, from the
 * domains (inbox, notices, group receipts, unread, check-ins) and health.c. The
 * server (http.c) is given this table; it knows no domain. */
#include "app/routes.h"

#include "domains/checkins/checkin.h"
#include "http/health.h"
#include "domains/inbox/inbox.h"
#include "domains/notices/notice.h"
#include "domains/receipts/receipt.h"
#include "domains/unread/unread.h"

/* The HTTP API. docs/openapi.yaml must describe every row (a test checks). */
static const struct route routes[] = {
    {"GET", "/healthz", health_get, "healthz"},
    {"GET", "/metrics", health_metrics_get, "metrics"},
    {"POST", "/v1/users/{user}/pushes", inbox_push, "push"},
    {"POST", "/v1/pushes", inbox_fanout, "fanout"},
    {"POST", "/v1/users/{user}/reads", inbox_read, "read"},
    {"GET", "/v1/users/{user}/messages/{msg}", inbox_message, "message"},
    {"DELETE", "/v1/users/{user}/messages/{msg}", inbox_retract, "retract"},
    {"GET", "/v1/users/{user}/messages", inbox_list, "list"},
    {"GET", "/v1/users/{user}/unread", inbox_unread, "unread"},
    {"POST", "/v1/users/{user}/history/drop", inbox_drop_user, "drop_user"},
    {"POST", "/v1/history/drop", inbox_drop_all, "drop_all"},
    {"GET", "/v1/users/{user}/periods", inbox_user_periods, "user_periods"},
    {"GET", "/v1/periods", inbox_periods_list, "periods"},
    {"PUT", "/v1/periods/{period}", inbox_period_put, "period_put"},
    {"POST", "/v1/users/{user}/checkins", checkin_post, "checkin"},
    {"GET", "/v1/users/{user}/checkins", checkin_get, "checkins"},
    {"GET", "/v1/users/{user}/checkins/streak", checkin_streak, "checkin_streak"},
    /* check-ins (checkin.c): routes go above this line */
    {"POST", "/v1/notices", notice_create, "notice_create"},
    {"PUT", "/v1/notices/{id}", notice_update, "notice_update"},
    {"DELETE", "/v1/notices/{id}", notice_delete, "notice_delete"},
    {"GET", "/v1/notices/{id}/stats", notice_stats, "notice_stats"},
    {"PUT", "/v1/notices/{id}/reads/{user}", notice_mark, "notice_mark"},
    {"GET", "/v1/notices/{id}/reads/{user}", notice_is_read, "notice_is_read"},
    {"GET", "/v1/audiences/{aud}/users/{user}/notices", notice_list, "notice_list"},
    {"PUT", "/v1/audiences/{aud}/users", notice_audience_set, "audience_users_set"},
    {"POST", "/v1/audiences/{aud}/users", notice_audience_add, "audience_users_add"},
    /* notices (notice.c): routes go above this line */
    {"POST", "/v1/groups/{group}/members", receipt_join, "group_join"},
    {"GET", "/v1/groups/{group}/members/{user}", receipt_member, "group_member"},
    {"DELETE", "/v1/groups/{group}/members/{user}", receipt_leave, "group_leave"},
    {"POST", "/v1/groups/{group}/messages", receipt_send, "group_send"},
    {"POST", "/v1/groups/{group}/messages/{msg}/reads", receipt_read, "group_read"},
    {"GET", "/v1/groups/{group}/messages/{msg}/receipts", receipt_list, "group_receipts"},
    /* group receipts (receipt.c): routes go above this line */
    {"POST", "/v1/broadcasts", unread_broadcast_post, "broadcast_post"},
    {"GET", "/v1/broadcasts", unread_broadcast_get, "broadcast_get"},
    {"POST", "/v1/broadcasts/cursors/expire", unread_cursors_expire, "broadcast_cursors_expire"},
    {"GET", "/v1/users/{user}/broadcasts/unread", unread_broadcast_unread, "broadcast_unread"},
    {"POST", "/v1/users/{user}/broadcasts/seen", unread_broadcast_seen, "broadcast_seen"},
    {"POST", "/v1/reddots/{name}", unread_reddot_set, "reddot_set"},
    {"GET", "/v1/reddots/{name}", unread_reddot_get, "reddot_get"},
    {"GET", "/v1/users/{user}/reddots/{name}", unread_reddot_show, "reddot_show"},
    {"POST", "/v1/users/{user}/reddots/{name}/click", unread_reddot_click, "reddot_click"},
    {"POST", "/v1/authors/{author}/posts", unread_author_post, "author_post"},
    {"GET", "/v1/authors/{author}/posts", unread_author_get, "author_get"},
    {"PUT", "/v1/users/{user}/following", unread_following_put, "following_put"},
    {"GET", "/v1/users/{user}/following", unread_following_get, "following_get"},
    {"GET", "/v1/users/{user}/feed/unread", unread_feed_unread, "feed_unread"},
    {"POST", "/v1/users/{user}/feed/seen", unread_feed_seen, "feed_seen"},
    /* broadcasts, red dots, feed unread (unread.c): routes go above this line */
};

const struct route *app_routes(size_t *n)
{
    *n = ARRAY_LEN(routes);
    return routes;
}
