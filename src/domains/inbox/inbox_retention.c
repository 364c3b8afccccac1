/* inbox_retention.c — [inbox] keep_months: the message box keeps the history of the
 * last N calendar months (the current one included) and drops what is older, the
 * expiry of seed 000's monthly keys done on the one-bitmap-per-user layout
 * (docs/design.md, "History by period").
 *
 * Every retention_check_s, and soon after start, one statement looks up the bound —
 * the first message of the oldest month kept (or of the first month recorded after
 * it) in bitmapd.inbox_periods — and claims the walk in bitmapd.inbox_retention when
 * that bound is past the one already applied and no other instance holds a live claim.
 * The claimer drops the ids below the bound from every box through the write path
 * (drop_all_start, as POST /v1/history/drop does), then records the bound. A walk
 * that fails, or an instance that stops in the middle, leaves the bound unrecorded:
 * the next check (or, after the claim lapses, another instance) walks again, and
 * boxes already done are unchanged writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/log.h"
#include "domains/inbox/inbox_internal.h"
#include "store/db.h"

#define CLAIM_S 3600   /* a walk's claim lapses after this: another instance may walk */
#define FIRST_CHECK_S 5

static struct {
    struct app *app;
    struct event *timer;
    struct db_job *job;    /* the claim or the record in flight */
    struct drop_all *walk; /* the walk in progress */
    char period[8];        /* the bound's period, "YYYY-MM" */
    uint32_t bound;
    bool quiescing; /* the service is shutting down: a walk is cut short, none starts */
    bool stopping;  /* the loop has ended: callbacks still to come do nothing */
} ret;

static void retention_arm(int s)
{
    if (ret.timer && !ret.stopping && !ret.quiescing) event_add(ret.timer, &(struct timeval){s, 0});
}

/* The oldest month kept: the current month (in [inbox] period_time_zone, the process
 * time zone) and keep - 1 before it. */
static void oldest_kept(int keep, char out[8])
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    int months = (tm.tm_year + 1900) * 12 + tm.tm_mon - (keep - 1);
    if (months < 0) months = 0;
    snprintf(out, 8, "%04d-%02d", months / 12 % 10000, months % 12 + 1);
}

static void recorded(const struct db_result *r, void *arg)
{
    (void)arg;
    ret.job = NULL;
    if (r->status != DB_OK)
        log_warn("msg=\"inbox retention: the bound could not be recorded\" error=\"%s\"", r->message ? r->message : "");
    retention_arm(ret.app->cfg->inbox_retention_check_s);
}

/* The walk of ret.bound is over: records the bound when every box was walked, else
 * lets go of the claim, so that the next check (here or elsewhere) walks again. */
static void walk_end(bool ok)
{
    char bound[16], status[16];
    snprintf(bound, sizeof(bound), "%u", ret.bound);
    snprintf(status, sizeof(status), "%d", ok);
    struct db_param p[3] = {{bound, 0, 0}, {ret.period, 0, 0}, {status, 0, 0}};
    ret.job = db_query(ret.app->db,
                       "UPDATE bitmapd.inbox_retention"
                       "   SET applied_before = CASE WHEN $3::int = 1 THEN $1::bigint ELSE applied_before END,"
                       "       applied_period = CASE WHEN $3::int = 1 THEN $2::text ELSE applied_period END,"
                       "       finished_at = CASE WHEN $3::int = 1 THEN now() ELSE finished_at END,"
                       "       running_until = NULL, running_before = NULL"
                       " WHERE running_before = $1::bigint",
                       3, p, recorded, NULL);
    if (!ret.job) retention_arm(ret.app->cfg->inbox_retention_check_s);
}

static void walked(const struct drop_all_result *res, void *arg)
{
    bool ok = res->status == 200 && !res->code && !res->abandoned;
    (void)arg;
    ret.walk = NULL;
    if (ret.stopping) return;
    if (ok)
        log_info("msg=\"inbox retention: history dropped\" before_period=%s before=%u users=%llu removed=%llu",
                 ret.period, ret.bound, (unsigned long long)res->users_changed, (unsigned long long)res->removed);
    else
        log_warn("msg=\"inbox retention: walk incomplete, tried again later\" before=%u users=%llu failed=%llu "
                 "error=\"%s\"",
                 ret.bound, (unsigned long long)res->users_changed, (unsigned long long)res->failed,
                 res->abandoned ? "the service is stopping"
                 : res->message ? res->message : "some boxes could not be changed");
    walk_end(ok);
}

static void claimed(const struct db_result *r, void *arg)
{
    (void)arg;
    ret.job = NULL;
    int every = ret.app->cfg->inbox_retention_check_s;
    if (r->status != DB_OK) {
        log_warn("msg=\"inbox retention: check failed\" error=\"%s\"", r->message ? r->message : "");
        retention_arm(every);
        return;
    }
    if (PQntuples(r->res) != 1) { /* nothing new to drop, or another instance walks */
        retention_arm(every);
        return;
    }
    ret.bound = (uint32_t)db_value_int8(r->res, 0, 0);
    snprintf(ret.period, sizeof(ret.period), "%s", PQgetvalue(r->res, 0, 1));
    if (ret.quiescing || !(ret.walk = drop_all_start(ret.app, ret.bound, walked, NULL))) {
        walk_end(false); /* stopping, or out of memory: the claim is let go at once */
        return;
    }
    log_info("msg=\"inbox retention: dropping older history\" keep_months=%d before_period=%s before=%u",
             ret.app->cfg->inbox_keep_months, ret.period, ret.bound);
}

static void retention_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    int keep = ret.app->cfg->inbox_keep_months;
    if (ret.job || ret.walk || ret.quiescing) return;
    if (keep <= 0) { /* off; a reload may turn it on */
        retention_arm(ret.app->cfg->inbox_retention_check_s);
        return;
    }
    char from[8], claim[16];
    oldest_kept(keep, from);
    snprintf(claim, sizeof(claim), "%d", CLAIM_S);
    struct db_param p[2] = {{from, 0, 0}, {claim, 0, 0}};
    /* period and first_message are text and bigint: read as binary (results are) */
    ret.job = db_query(ret.app->db,
                       "WITH b AS (SELECT period, first_message FROM bitmapd.inbox_periods"
                       "            WHERE period >= $1::text ORDER BY period LIMIT 1)"
                       " UPDATE bitmapd.inbox_retention r"
                       "    SET running_until = now() + make_interval(secs => $2::int),"
                       "        running_before = b.first_message"
                       "   FROM b"
                       "  WHERE r.applied_before < b.first_message"
                       "    AND (r.running_until IS NULL OR r.running_until < now())"
                       " RETURNING b.first_message::int8, b.period",
                       2, p, claimed, NULL);
    if (!ret.job) retention_arm(ret.app->cfg->inbox_retention_check_s);
}

void inbox_retention_start(struct app *app)
{
    ret.app = app;
    if (!(ret.timer = evtimer_new(app->base, retention_tick, NULL))) {
        log_error("msg=\"cannot create the inbox retention timer\"");
        return;
    }
    if (app->cfg->inbox_keep_months > 0)
        log_info("msg=\"message-box history is kept for a number of months\" keep_months=%d every_s=%d",
                 app->cfg->inbox_keep_months, app->cfg->inbox_retention_check_s);
    retention_arm(app->cfg->inbox_keep_months > 0 ? FIRST_CHECK_S : app->cfg->inbox_retention_check_s);
}

void inbox_retention_quiesce(void)
{
    ret.quiescing = true;
    if (ret.timer) event_del(ret.timer);
    if (ret.walk) drop_all_abandon(ret.walk); /* ends after the page in flight */
}

int inbox_retention_pending(void) { return (ret.walk != NULL) + (ret.job != NULL); }

void inbox_retention_stop(void)
{
    ret.stopping = true;
    if (ret.job) db_cancel(ret.job);
    if (ret.walk) drop_all_abandon(ret.walk); /* its callback returns at once */
    if (ret.timer) event_free(ret.timer);
    memset(&ret, 0, sizeof(ret));
    ret.stopping = true; /* a walk's last callback may still come: it does nothing */
}
