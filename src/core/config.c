/* config.c — the configuration table and its loaders (inih parses the file). */
#include "core/config.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

enum cf_type { CF_INT, CF_STR };

struct cf_key {
    const char *section;
    const char *name;
    enum cf_type type;
    size_t offset;
    const char *def;
    long min, max;   /* for CF_INT */
    bool reloadable; /* SIGHUP applies a new value; otherwise it waits for a restart */
};

/* R: reloadable by SIGHUP (every reader takes the value at the time of use);
 * N: read once at start-up (sockets, pools, time zones), so a change needs a restart */
#define R true
#define N false
#define CF_INT_KEY(sec, nam, field, def, lo, hi, rl)                                               \
    {sec, nam, CF_INT, offsetof(struct config, field), def, lo, hi, rl}
#define CF_STR_KEY(sec, nam, field, def, rl) {sec, nam, CF_STR, offsetof(struct config, field), def, 0, 0, rl}

static const struct cf_key cf_keys[] = {
    CF_STR_KEY("http", "address", http_address, "127.0.0.1", N),
    CF_INT_KEY("http", "port", http_port, "8080", 0, 65535, N),
    CF_INT_KEY("http", "max_body_bytes", http_max_body_bytes, "16777216", 1024, 1 << 30, R),
    CF_INT_KEY("http", "max_header_bytes", http_max_header_bytes, "16384", 1024, 1 << 20, R),
    CF_INT_KEY("http", "timeout_s", http_timeout_s, "30", 1, 3600, R),
    CF_INT_KEY("http", "max_page_limit", http_max_page_limit, "1000", 1, 1000000, R),
    CF_INT_KEY("http", "default_page_limit", http_default_page_limit, "20", 1, 1000000, R),
    CF_INT_KEY("http", "max_ids_per_request", http_max_ids, "1000000", 1, 100000000, R),
    CF_INT_KEY("http", "max_connections", http_max_connections, "10000", 1, 1000000, R),
    CF_INT_KEY("http", "request_timeout_s", http_request_timeout_s, "10", 1, 3600, R),
    CF_STR_KEY("http", "bearer_token", http_bearer_token, "", R),
    CF_STR_KEY("resp", "address", resp_address, "127.0.0.1", N),
    CF_INT_KEY("resp", "port", resp_port, "6380", 0, 65535, N),
    CF_STR_KEY("resp", "password", resp_password, "", R),
    CF_INT_KEY("resp", "max_clients", resp_max_clients, "10000", 1, 1000000, R),
    CF_INT_KEY("resp", "max_bulk_bytes", resp_max_bulk_bytes, "67108864", 1024, 536870912, R),
    CF_INT_KEY("resp", "max_args", resp_max_args, "1048576", 16, 1048576, R),
    CF_INT_KEY("resp", "max_inline_bytes", resp_max_inline_bytes, "65536", 256, 16777216, R),
    CF_INT_KEY("resp", "max_pipeline", resp_max_pipeline, "10000", 1, 1000000, R),
    CF_INT_KEY("resp", "max_value_bytes", resp_max_value_bytes, "67108864", 1024, 536870912, R),
    CF_INT_KEY("resp", "max_key_bytes", resp_max_key_bytes, "1024", 1, 2048, R),
    CF_INT_KEY("resp", "keys_max", resp_keys_max, "100000", 1, 100000000, R),
    CF_INT_KEY("resp", "timeout_s", resp_timeout_s, "0", 0, 31536000, R),
    CF_INT_KEY("resp", "command_timeout_s", resp_command_timeout_s, "10", 0, 3600, R),
    CF_INT_KEY("resp", "write_timeout_s", resp_write_timeout_s, "60", 0, 3600, R),
    CF_STR_KEY("postgres", "dsn", pg_dsn, "", N),
    CF_INT_KEY("postgres", "pool_size", pg_pool_size, "4", 1, 256, N),
    CF_INT_KEY("postgres", "query_timeout_ms", pg_query_timeout_ms, "10000", 100, 3600000, N),
    CF_INT_KEY("postgres", "queue_timeout_ms", pg_queue_timeout_ms, "5000", 10, 3600000, R),
    CF_INT_KEY("postgres", "reconnect_min_ms", pg_reconnect_min_ms, "50", 1, 600000, R),
    CF_INT_KEY("postgres", "reconnect_max_ms", pg_reconnect_max_ms, "1000", 1, 600000, R),
    CF_INT_KEY("postgres", "batch_keys", pg_batch_keys, "2000", 1, 100000, R),
    CF_INT_KEY("postgres", "max_retries", pg_max_retries, "100", 0, 1000, R),
    CF_INT_KEY("postgres", "write_statements", pg_write_statements, "1", 1, 64, R),
    CF_INT_KEY("postgres", "load_statements", pg_load_statements, "2", 1, 64, R),
    CF_INT_KEY("postgres", "chunk_bytes", pg_chunk_bytes, "8192", 64, 1048576, N),
    CF_INT_KEY("postgres", "flip_bytes", pg_flip_bytes, "1536", 0, 1900, N),
    CF_INT_KEY("postgres", "migrate_buckets", pg_migrate_buckets, "1", 0, 1, N),
    CF_INT_KEY("postgres", "analyze_check_ms", pg_analyze_check_ms, "1000", 0, 3600000, R),
    CF_INT_KEY("wlog", "enabled", wlog_enabled, "0", 0, 1, N),
    CF_INT_KEY("wlog", "max_keys", wlog_max_keys, "100000", 16, 10000000, R),
    CF_INT_KEY("wlog", "fold_ms", wlog_fold_ms, "1000", 1, 60000, R),
    CF_INT_KEY("wlog", "max_value_bytes", wlog_max_value_bytes, "4096", 0, 1048576, R),
    CF_INT_KEY("wlog", "cooldown_s", wlog_cooldown_s, "5", 0, 3600, R),
    CF_INT_KEY("cache", "max_mb", cache_max_mb, "256", 0, 1048576, N),
    CF_INT_KEY("expire", "sweep_ms", expire_sweep_ms, "1000", 0, 3600000, R),
    CF_INT_KEY("expire", "sweep_keys", expire_sweep_keys, "500", 1, 100000, R),
    CF_INT_KEY("expire", "sweep_grace_ms", expire_sweep_grace_ms, "60000", 0, 86400000, R),
    CF_STR_KEY("inbox", "period_time_zone", inbox_period_time_zone, "UTC", N),
    CF_INT_KEY("inbox", "keep_months", inbox_keep_months, "0", 0, 1200, R),
    CF_INT_KEY("inbox", "retention_check_s", inbox_retention_check_s, "3600", 1, 86400, R),
    CF_STR_KEY("checkin", "time_zone", checkin_time_zone, "", N),
    CF_INT_KEY("checkin", "backfill_days", checkin_backfill_days, "30", 0, 3660, R),
    CF_STR_KEY("checkin", "points", checkin_points, "10,20,30,50", R),
    CF_STR_KEY("checkin", "streak_scope", checkin_streak_scope, "month", R),
    CF_INT_KEY("groups", "max_members", groups_max_members, "1000000", 1, 1073741824, R),
    CF_INT_KEY("broadcasts", "cursor_ttl_days", broadcasts_cursor_ttl_days, "0", 0, 36500, N),
    CF_STR_KEY("service", "log_level", log_level, "info", R),
    CF_INT_KEY("service", "shutdown_timeout_s", shutdown_timeout_s, "10", 0, 3600, R),
    CF_STR_KEY("service", "migrations_dir", migrations_dir, "migrations", N),
    CF_STR_KEY("service", "sql_dir", sql_dir, "sql", N),
};
#undef R
#undef N


static const struct cf_key *cf_find(const char *section, const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(cf_keys); i++)
        if (strcmp(cf_keys[i].section, section) == 0 && strcmp(cf_keys[i].name, name) == 0)
            return &cf_keys[i];
    return NULL;
}

static bool cf_apply(struct config *cfg, const struct cf_key *k, const char *value, char *err,
                     size_t errlen)
{
    void *target = (char *)cfg + k->offset;

    if (k->type == CF_STR) {
        char *copy = strdup(value);
        if (!copy) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        free(*(char **)target);
        *(char **)target = copy;
        return true;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < k->min || v > k->max) {
        snprintf(err, errlen, "[%s] %s = \"%s\": expected an integer in %ld..%ld", k->section,
                 k->name, value, k->min, k->max);
        return false;
    }
    *(int *)target = (int)v;
    return true;
}

void config_defaults(struct config *cfg)
{
    char err[128];
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < ARRAY_LEN(cf_keys); i++)
        if (!cf_apply(cfg, &cf_keys[i], cf_keys[i].def, err, sizeof(err)))
            abort(); /* a default outside its own range is a programming error */
}

struct ini_ctx {
    struct config *cfg;
    char *err;
    size_t errlen;
    bool failed;
};

static int cf_ini_line(void *user, const char *section, const char *name, const char *value)
{
    struct ini_ctx *ctx = user;
    const struct cf_key *k = cf_find(section, name);

    if (ctx->failed) return 0;
    if (!k) {
        snprintf(ctx->err, ctx->errlen, "unknown setting [%s] %s", section, name);
        ctx->failed = true;
        return 0;
    }
    if (!cf_apply(ctx->cfg, k, value, ctx->err, ctx->errlen)) {
        ctx->failed = true;
        return 0;
    }
    return 1;
}

bool config_load_file(struct config *cfg, const char *path, bool required, char *err, size_t errlen)
{
    struct ini_ctx ctx = {cfg, err, errlen, false};
    FILE *f = fopen(path, "r");

    if (!f) {
        if (!required && errno == ENOENT) return true;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    int rc = ini_parse_file(f, cf_ini_line, &ctx);
    fclose(f);
    if (ctx.failed) return false;
    if (rc != 0) {
        snprintf(err, errlen, "%s: syntax error on line %d", path, rc);
        return false;
    }
    return true;
}

bool config_set(struct config *cfg, const char *assignment, char *err, size_t errlen)
{
    char section[64], name[64];
    const char *dot = strchr(assignment, '.');
    const char *eq = dot ? strchr(dot, '=') : NULL;

    if (!dot || !eq || (size_t)(dot - assignment) >= sizeof(section) ||
        (size_t)(eq - dot - 1) >= sizeof(name)) {
        snprintf(err, errlen, "--set expects section.name=value, got \"%s\"", assignment);
        return false;
    }
    memcpy(section, assignment, (size_t)(dot - assignment));
    section[dot - assignment] = '\0';
    memcpy(name, dot + 1, (size_t)(eq - dot - 1));
    name[eq - dot - 1] = '\0';
    const struct cf_key *k = cf_find(section, name);
    if (!k) {
        snprintf(err, errlen, "unknown setting %s.%s", section, name);
        return false;
    }
    return cf_apply(cfg, k, eq + 1, err, errlen);
}

bool config_validate(const struct config *cfg, char *err, size_t errlen)
{
    enum log_level lvl;
    int pts[CONFIG_MAX_POINTS];

    if (!log_parse_level(cfg->log_level, &lvl)) {
        snprintf(err, errlen, "[service] log_level must be error, warn, info or debug");
        return false;
    }
    if (cfg->http_default_page_limit > cfg->http_max_page_limit) {
        snprintf(err, errlen, "[http] default_page_limit exceeds max_page_limit");
        return false;
    }
    if (config_parse_points(cfg->checkin_points, pts, CONFIG_MAX_POINTS) < 0) {
        snprintf(err, errlen, "[checkin] points must be 1 to %d comma-separated integers from 0 to 1000000",
                 CONFIG_MAX_POINTS);
        return false;
    }
    if (strcmp(cfg->checkin_streak_scope, "month") != 0 && strcmp(cfg->checkin_streak_scope, "unbounded") != 0) {
        snprintf(err, errlen, "[checkin] streak_scope must be month or unbounded");
        return false;
    }
    if (cfg->pg_reconnect_min_ms > cfg->pg_reconnect_max_ms) {
        snprintf(err, errlen, "[postgres] reconnect_min_ms exceeds reconnect_max_ms");
        return false;
    }
    return true;
}

int config_parse_points(const char *s, int *out, int max)
{
    int n = 0;
    for (;;) {
        char *end;
        long v;
        while (*s == ' ') s++;
        if (*s < '0' || *s > '9' || n == max) return -1;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || v > 1000000) return -1;
        out[n++] = (int)v;
        s = end;
        while (*s == ' ') s++;
        if (*s == '\0') return n;
        if (*s++ != ',') return -1;
    }
}

void config_free(struct config *cfg)
{
    for (size_t i = 0; i < ARRAY_LEN(cf_keys); i++)
        if (cf_keys[i].type == CF_STR) free(*(char **)((char *)cfg + cf_keys[i].offset));
    memset(cfg, 0, sizeof(*cfg));
}

int config_apply_reload(struct config *live, const struct config *fresh)
{
    int changed = 0;
    char err[160];

    for (size_t i = 0; i < ARRAY_LEN(cf_keys); i++) {
        const struct cf_key *k = &cf_keys[i];
        const void *now = (const char *)live + k->offset, *want = (const char *)fresh + k->offset;
        bool differs = k->type == CF_STR ? strcmp(*(char *const *)now, *(char *const *)want) != 0
                                         : *(const int *)now != *(const int *)want;
        if (!differs) continue;
        if (!k->reloadable) {
            log_warn("msg=\"setting changed; it takes effect at the next restart\" setting=%s.%s", k->section,
                     k->name);
            continue;
        }
        if (k->type == CF_STR) {
            if (!cf_apply(live, k, *(char *const *)want, err, sizeof(err))) {
                log_error("msg=\"setting not reloaded\" setting=%s.%s error=\"%s\"", k->section, k->name, err);
                continue;
            }
        } else {
            *(int *)((char *)live + k->offset) = *(const int *)want;
        }
        /* values are not logged: some are secrets */
        log_info("msg=\"setting reloaded\" setting=%s.%s", k->section, k->name);
        changed++;
    }
    return changed;
}
