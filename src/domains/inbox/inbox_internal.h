/* inbox_internal.h — what the message box's files share (inbox.c, inbox_reads.c,
 * inbox_history.c): key names, the write of one user, the read of one user's two
 * rows, and the periods table. Not for use outside src/domains/inbox/. */
#ifndef BITMAPD_INBOX_INTERNAL_H
#define BITMAPD_INBOX_INTERNAL_H

#include <jansson.h>
#include <libpq-fe.h>

#include "domains/inbox/inbox.h"
#include "domains/inbox/inbox_rules.h"
#include "http/http.h"
#include "store/wpath.h"

enum { K_PUSH = 0, K_READ = 1 }; /* a user's two keys, in unit order */

#define NOT_PUSHED_LIST_MAX INBOX_NOT_PUSHED_LIST_MAX /* ids or users an error lists */

/* message:push:{user} or message:read:{user} into buf (WP_KEY_MAX bytes); its length. */
size_t inbox_key(char *buf, int which, int64_t user);
/* Names a write-path key after a user's bitmap (short: always fits inside wp_key). */
void inbox_unit_key(struct wp_key *k, int which, int64_t user);

/* {"key": …, "error": …} for a unit of a bulk request that did not commit. */
json_t *unit_error_json(const struct wp_unit *u);
/* A user's version: the sum of the two rows' versions (the ETag). */
int64_t user_version(const struct wp_unit *u);

struct user_write_args {
    enum inbox_op op;
    int64_t user;
    uint32_t *ids; /* owned by the write from here on */
    size_t nids;
    bool force;
    uint32_t bound;
};

/* Starts the write; takes ownership of a->ids. Answers the client in every case. */
void user_write_start(struct http_ctx *c, const struct user_write_args *a);

struct user_read;
typedef void (*user_read_fn)(struct user_read *r);

struct user_read {
    struct http_ctx *c;
    int64_t user;
    char keys[2][WP_KEY_MAX];
    size_t lens[2];
    roaring_bitmap_t *bm[2];
    int64_t version;
    user_read_fn then;
    /* request parameters */
    uint32_t msg;
    bool cursor, with_list;
    uint64_t skip, before;
    size_t limit;
    json_t *periods; /* for user periods: [[period, first_message], …] */
};

/* A read of user's two rows that calls then(r) once loaded; NULL (answered 500)
 * when out of memory. */
struct user_read *user_read_new(struct http_ctx *c, int64_t user, user_read_fn then);
/* Loads the rows, then calls r->then and frees r; answers failures itself. */
void user_read_start(struct user_read *r);
void user_read_free(struct user_read *r);

/* "YYYY-MM" of 1970-01 .. 9999-12. */
bool parse_period(const char *s, int *year, int *month);
/* Records the current month's first message id (once per month per process). */
void periods_note_push(struct app *app, const uint32_t *ids, size_t n);
#define SQL_PERIODS "SELECT period, first_message FROM bitmapd.inbox_periods ORDER BY period"
/* [{"period": "YYYY-MM", "first_message": id}, …] from SQL_PERIODS rows. */
json_t *periods_json(const PGresult *res);

/* Drops the ids below bound from every user's two rows, a page of users at a time,
 * through the write path (inbox_history.c): for POST /v1/history/drop and for the
 * retention of [inbox] keep_months (inbox_retention.c). done is called once, from the
 * loop (never inside drop_all_start), after which the drop is freed; status is 200
 * when every user was handled, 500 when some were not (failed, errors), or with code
 * and message set when the walk stopped (after users_changed users). */
struct drop_all;
struct drop_all_result {
    uint32_t bound;
    uint64_t users_changed, removed, failed;
    json_t *errors; /* borrowed: the first users that could not be changed */
    int status;
    const char *code, *message; /* NULL unless the walk stopped */
    bool abandoned;             /* drop_all_abandon() cut it short: not every box was reached */
};
typedef void drop_all_done_fn(const struct drop_all_result *res, void *arg);
struct drop_all *drop_all_start(struct app *app, uint32_t bound, drop_all_done_fn *done, void *arg) WUR;
/* Stops after the page in flight; done is still called. */
void drop_all_abandon(struct drop_all *d);

#endif
