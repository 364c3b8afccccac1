/* main.c — command line, configuration, and the event loop that serves HTTP. */
#include <event2/event.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/app.h"
#include "core/calendar.h"
#include "core/config.h"
#include "store/db.h"
#include "http/http.h"
#include "redis/resp.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/migrate.h"
#include "redis/rimport.h"
#include "app/routes.h"
#include "store/store.h"
#include "store/bucketmove.h"
#include "domains/unread/unread.h"
#include "domains/inbox/inbox.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bitmapd [-c service.ini] [--set section.name=value]... [MODE]\n"
            "modes:\n"
            "  (none)       serve HTTP (needs [postgres] dsn or BITMAPD_DSN)\n"
            "  --migrate    apply migrations and sql/ to the database, then exit\n"
            "  --fold-flips write the flips of every chunked bitmap into its chunk rows (before\n"
            "               running a bitmapd older than migration 0010), then exit\n"
            "  --buckets in|out FAMILY\n"
            "               move the keys of FAMILY (checkin, receipt) into bucket rows or out of\n"
            "               them while instances serve; restartable (README, \"Check-ins and receipts in bucket rows\")\n"
            "  --print-dsn  print the configured DSN (empty when none), then exit\n"
            "  --routes     print the HTTP routes, then exit\n"
            "  import --from redis://HOST[:PORT] [--match PATTERN] [--dry-run] [--password PW]\n"
            "               copy Redis string values into the store (bitmapd import --help)\n"
            "options before the mode apply to every mode, import's own follow the word import\n");
}

/* Where the configuration comes from, kept for SIGHUP. */
static struct {
    const char *path;
    bool required;
    const char **sets; /* --set section.name=value, in order */
    int nsets;
} g_src;

static bool env_override(struct config *cfg, const char *var, const char *setting, char *err, size_t errlen)
{
    const char *v = getenv(var);
    char assignment[4096];
    if (!v || !*v) return true;
    if ((size_t)snprintf(assignment, sizeof(assignment), "%s=%s", setting, v) >= sizeof(assignment)) {
        snprintf(err, errlen, "%s is too long", var);
        return false;
    }
    return config_set(cfg, assignment, err, errlen);
}

/* Built-in defaults < service.ini < environment (BITMAPD_DSN, BITMAPD_HTTP_TOKEN,
 * BITMAPD_RESP_PASSWORD) < --set; then the cross-field checks. */
static bool load_config(struct config *cfg, char *err, size_t errlen)
{
    config_defaults(cfg);
    bool ok = config_load_file(cfg, g_src.path, g_src.required, err, errlen) &&
              env_override(cfg, "BITMAPD_DSN", "postgres.dsn", err, errlen) &&
              env_override(cfg, "BITMAPD_HTTP_TOKEN", "http.bearer_token", err, errlen) &&
              env_override(cfg, "BITMAPD_RESP_PASSWORD", "resp.password", err, errlen);
    for (int i = 0; ok && i < g_src.nsets; i++) ok = config_set(cfg, g_src.sets[i], err, errlen);
    if (ok) ok = config_validate(cfg, err, errlen);
    if (ok && !cal_zone_known(cfg->inbox_period_time_zone)) {
        snprintf(err, errlen, "[inbox] period_time_zone '%.64s' is not a known time zone", cfg->inbox_period_time_zone);
        ok = false;
    }
    if (ok && *cfg->checkin_time_zone && !cal_zone_known(cfg->checkin_time_zone)) {
        snprintf(err, errlen, "[checkin] time_zone '%.64s' is not a known time zone", cfg->checkin_time_zone);
        ok = false;
    }
    return ok;
}

/* What the signal handlers reach. */
struct signal_ctx {
    struct config *cfg; /* the live configuration, changed in place by SIGHUP */
    struct event_base *base;
    struct http_server *srv;
    struct resp_server *resp;
    struct store *store;
    struct event *tick;
    int waited_ms;
};

/* Exits the loop once every request in flight has been answered, or at the deadline. */
static void shutdown_tick(evutil_socket_t fd, short what, void *arg)
{
    struct signal_ctx *sd = arg;
    struct timeval tv = {0, 50 * 1000};
    /* a reply counts until its bytes are written: evhttp and the RESP clients send
     * from their buffers on later turns, and breaking the loop drops what is left */
    int pending = http_inflight() + resp_inflight() + http_server_unsent(sd->srv) + resp_server_unsent(sd->resp) +
                  inbox_retention_pending();
    /* then the write-behind log: folded and let go, so that the table is whole */
    bool folded = pending == 0 && store_wlog_stop(sd->store);
    if (folded || sd->waited_ms >= sd->cfg->shutdown_timeout_s * 1000) {
        if (pending) log_warn("msg=\"shutdown deadline passed\" unanswered=%d", pending);
        if (!folded)
            log_warn("msg=\"shutdown: the write-behind log may be left unfolded; the next bitmapd to write folds it\"");
        event_base_loopbreak(sd->base);
        return;
    }
    sd->waited_ms += 50;
    event_add(sd->tick, &tv);
}

/* SIGINT/SIGTERM: stop accepting, let requests in flight finish (their writes
 * commit and are answered) for up to [service] shutdown_timeout_s, then stop. */
static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct signal_ctx *sd = arg;
    if (sd->tick) return; /* already stopping */
    log_info("msg=\"stopping\" signal=%d inflight=%d", (int)sig, http_inflight() + resp_inflight());
    /* open connections get no new work: otherwise busy clients keep the count of
     * requests in flight above zero until the deadline cuts them off unanswered */
    http_server_drain(sd->srv);
    resp_server_drain(sd->resp);
    inbox_retention_quiesce();
    sd->tick = evtimer_new(sd->base, shutdown_tick, sd);
    if (!sd->tick) {
        event_base_loopbreak(sd->base);
        return;
    }
    shutdown_tick(-1, 0, sd);
}

/* SIGHUP: reads the configuration again (file, environment, --set) and applies
 * the settings marked reloadable; a configuration that does not load changes nothing. */
static void on_sighup(evutil_socket_t sig, short what, void *arg)
{
    struct signal_ctx *sd = arg;
    struct config fresh;
    char err[256];

    if (!load_config(&fresh, err, sizeof(err))) {
        log_error("msg=\"reload failed; settings unchanged\" error=\"%s\"", err);
        config_free(&fresh);
        return;
    }
    int changed = config_apply_reload(sd->cfg, &fresh);
    config_free(&fresh);
    if (!log_parse_level(sd->cfg->log_level, &log_current_level)) log_current_level = LOG_LEVEL_INFO;
    http_server_apply_config(sd->srv);
    resp_server_apply_config(sd->resp);
    log_info("msg=\"configuration reloaded\" path=\"%s\" changed=%d", g_src.path, changed);
}

static int serve(struct config *cfg)
{
    struct app app = {.cfg = cfg};
    struct http_server *srv = NULL;
    struct resp_server *resp = NULL;
    struct event *sigint = NULL, *sigterm = NULL, *sighup = NULL;
    struct signal_ctx sd = {0};
    int rc = 1;
    size_t nroutes;
    const struct route *routes = app_routes(&nroutes);

    if (!*cfg->pg_dsn) {
        log_error("msg=\"no database configured\" hint=\"set [postgres] dsn in service.ini or BITMAPD_DSN; "
                  "make run starts an embedded one\"");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    if (!(app.base = event_base_new()) || !(app.db = db_new(app.base, cfg, cfg->pg_dsn)) ||
        !(app.store = store_new(app.db, app.cfg)) || !(srv = http_server_new(&app, routes, nroutes)) ||
        (cfg->resp_port && !(resp = resp_server_new(&app))))
        goto done;
    app.started = time(NULL);
    metrics_set_start_time(app.started);
    sd.cfg = cfg;
    sd.base = app.base;
    sd.srv = srv;
    sd.resp = resp;
    sd.store = app.store;
    sigint = evsignal_new(app.base, SIGINT, on_signal, &sd);
    sigterm = evsignal_new(app.base, SIGTERM, on_signal, &sd);
    sighup = evsignal_new(app.base, SIGHUP, on_sighup, &sd);
    if (!sigint || !sigterm || !sighup || event_add(sigint, NULL) || event_add(sigterm, NULL) ||
        event_add(sighup, NULL))
        goto done;
    unread_start(&app);
    inbox_retention_start(&app);
    event_base_dispatch(app.base);
    rc = 0;
done:
    resp_server_free(resp);
    http_server_free(srv);
    if (sigint) event_free(sigint);
    if (sigterm) event_free(sigterm);
    if (sighup) event_free(sighup);
    if (sd.tick) event_free(sd.tick);
    unread_stop();
    inbox_retention_stop();
    store_free(app.store);
    db_free(app.db);
    if (app.base) event_base_free(app.base);
    log_info("msg=\"stopped\"");
    return rc;
}

int main(int argc, char **argv)
{
    enum { OPT_SET = 256, OPT_MIGRATE, OPT_FOLD_FLIPS, OPT_PRINT_DSN, OPT_ROUTES, OPT_BUCKETS, MODE_IMPORT };
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},   {"set", required_argument, NULL, OPT_SET},
        {"migrate", no_argument, NULL, OPT_MIGRATE}, {"print-dsn", no_argument, NULL, OPT_PRINT_DSN},
        {"routes", no_argument, NULL, OPT_ROUTES},   {"help", no_argument, NULL, 'h'},
        {"fold-flips", no_argument, NULL, OPT_FOLD_FLIPS},
        {"buckets", required_argument, NULL, OPT_BUCKETS},
        {NULL, 0, NULL, 0}};
    const char *buckets_dir = NULL, *buckets_family = NULL;
    struct config cfg;
    const char *path = "service.ini";
    bool path_given = false;
    int mode = 0, opt, nsets = 0, rc;
    const char **sets = calloc((size_t)argc + 1, sizeof(char *));
    char err[256];

    /* '+': stop at the first word, so that a mode word's own options stay its own */
    while (sets && (opt = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': path = optarg; path_given = true; break;
        case OPT_SET: sets[nsets++] = optarg; break;
        case OPT_MIGRATE: case OPT_FOLD_FLIPS: case OPT_PRINT_DSN: case OPT_ROUTES: mode = opt; break;
        case OPT_BUCKETS: mode = opt; buckets_dir = optarg; break;
        case 'h': usage(stdout); free(sets); return 0;
        default: usage(stderr); free(sets); return 2;
        }
    }
    if (sets && optind < argc && strcmp(argv[optind], "import") == 0 && !mode) mode = MODE_IMPORT;
    if (sets && mode == OPT_BUCKETS && optind < argc) buckets_family = argv[optind++];
    g_src.path = path;
    g_src.required = path_given;
    g_src.sets = sets;
    g_src.nsets = nsets;
    if (!sets || (optind < argc && mode != MODE_IMPORT)) {
        usage(stderr);
        free(sets);
        return 2;
    }
    bool ok = load_config(&cfg, err, sizeof(err));
    if (!ok) {
        fprintf(stderr, "bitmapd: configuration: %s\n", err);
        free(sets);
        config_free(&cfg);
        return 2;
    }
    if (!log_parse_level(cfg.log_level, &log_current_level)) log_current_level = LOG_LEVEL_INFO;
    setenv("TZ", cfg.inbox_period_time_zone, 1);
    tzset();

    switch (mode) {
    case OPT_PRINT_DSN:
        printf("%s\n", cfg.pg_dsn);
        rc = 0;
        break;
    case OPT_ROUTES: {
        size_t n;
        const struct route *r = app_routes(&n);
        for (size_t i = 0; i < n; i++) printf("%s %s\n", r[i].method, r[i].pattern);
        rc = 0;
        break;
    }
    case MODE_IMPORT:
        cfg.cache_max_mb = 0; /* a one-shot writer reads nothing twice: no cache, no listener */
        rc = rimport_main(&cfg, argc - optind, argv + optind);
        break;
    case OPT_BUCKETS: {
        const char *w = getenv("BITMAPD_BUCKETS_WAIT_S");
        if (!*cfg.pg_dsn) {
            fprintf(stderr, "bitmapd: no database configured ([postgres] dsn or BITMAPD_DSN)\n");
            rc = 2;
        } else {
            rc = bucketmove_main(cfg.pg_dsn, (size_t)cfg.pg_chunk_bytes, buckets_dir, buckets_family,
                                 w ? atoi(w) : 0);
        }
        break;
    }
    case OPT_MIGRATE:
    case OPT_FOLD_FLIPS:
        if (!*cfg.pg_dsn) {
            fprintf(stderr, "bitmapd: no database configured ([postgres] dsn or BITMAPD_DSN)\n");
            rc = 2;
        } else if (mode == OPT_MIGRATE) {
            rc = migrate_run(cfg.pg_dsn, cfg.migrations_dir, cfg.sql_dir) ? 0 : 1;
            if (rc == 0 && cfg.pg_migrate_buckets) bucketmove_defaults(cfg.pg_dsn, (size_t)cfg.pg_chunk_bytes);
        } else {
            rc = migrate_fold_flips(cfg.pg_dsn) ? 0 : 1;
        }
        break;
    default:
        rc = serve(&cfg);
        break;
    }
    config_free(&cfg);
    free(sets);
    return rc;
}
