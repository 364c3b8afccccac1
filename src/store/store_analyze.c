/* store_analyze.c — statistics that keep up with a growing table (docs/design.md,
 * "Statistics of a growing table"; sql/090_stats.sql).
 *
 * The sessions keep one generic plan per statement until the statistics of the tables
 * it reads change. A plan made while bitmapd.bitmaps was counted nearly empty scans
 * the whole primary key in the compare-and-swap's UPDATE, once per statement, and
 * keeps doing so as the table grows until autovacuum analyzes it. So, every
 * [postgres] analyze_check_ms while this instance writes, bitmapd._refresh_stats()
 * analyzes whichever of bitmapd's big tables has doubled since PostgreSQL last counted
 * it; the analyze makes every session plan again. A database migrated by a version
 * without the function answers 42883: said once, and looked for again every
 * ANALYZE_MISSING_CHECKS checks (a minute at the default), so that a `bitmapd
 * --migrate` run meanwhile is found without a restart; until then the tables are left
 * to autovacuum. */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "store/store_internal.h"

#define ANALYZE_MISSING_CHECKS 60 /* checks skipped while the function is missing */

static void analyze_cb(evutil_socket_t fd, short what, void *arg);

bool store_analyze_setup(struct store *st)
{
    return (st->analyze_ev = evtimer_new(db_event_base(st->db), analyze_cb, st)) != NULL;
}

/* The next check in `checks` intervals of [postgres] analyze_check_ms. */
static void analyze_arm_in(struct store *st, int checks)
{
    int ms = st->cfg->pg_analyze_check_ms;
    if (st->analyze_stopped) return;
    if (ms <= 0) ms = 5000; /* off: looked at again later, in case a reload turns it on */
    long long us = (long long)ms * 1000 * checks;
    event_add(st->analyze_ev, &(struct timeval){(time_t)(us / 1000000), (suseconds_t)(us % 1000000)});
}

static void analyze_arm(struct store *st) { analyze_arm_in(st, 1); }

static void analyze_done(const struct db_result *r, void *arg)
{
    struct store *st = arg;
    st->analyze_job = NULL;
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        st->analyze_failed_logged = false;
        if (st->analyze_missing) log_info("msg=\"bitmapd._refresh_stats() found: statistics checks resume\"");
        st->analyze_missing = false;
        if (!PQgetisnull(r->res, 0, 0)) {
            st->stats.analyzes++;
            log_info("msg=\"tables analyzed: grown to twice their counted size\" tables=\"%s\"",
                     PQgetvalue(r->res, 0, 0));
        }
        analyze_arm(st);
        return;
    }
    if (r->sqlstate && strcmp(r->sqlstate, "42883") == 0) {
        if (!st->analyze_missing)
            log_warn("msg=\"bitmapd._refresh_stats() is missing: run bitmapd --migrate; until then the tables' "
                     "statistics are left to autovacuum\" retry_checks=%d", ANALYZE_MISSING_CHECKS);
        st->analyze_missing = true;
        analyze_arm_in(st, ANALYZE_MISSING_CHECKS);
        return;
    }
    if (!st->analyze_failed_logged) {
        log_warn("msg=\"statistics check failed\" error=\"%s\"", r->message ? r->message : "");
        st->analyze_failed_logged = true;
    }
    analyze_arm(st);
}

static void analyze_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    if (st->analyze_job || st->analyze_stopped) return;
    /* only while this instance writes: an idle one sends nothing */
    unsigned long written = st->stats.cas_statements + st->stats.append_keys;
    if (st->cfg->pg_analyze_check_ms <= 0 || written == st->analyze_written) {
        analyze_arm(st);
        return;
    }
    st->analyze_written = written;
    if (!(st->analyze_job = db_query(st->db, "SELECT bitmapd._refresh_stats()", 0, NULL, analyze_done, st)))
        analyze_arm(st);
}

void store_analyze_start(struct store *st) { analyze_arm(st); }

void store_analyze_free(struct store *st)
{
    st->analyze_stopped = true;
    if (st->analyze_job) db_cancel(st->analyze_job);
    st->analyze_job = NULL;
    if (st->analyze_ev) event_free(st->analyze_ev);
    st->analyze_ev = NULL;
}
