/* config.h — service.ini, one table of keys {section, name, type, target, default}.
 * Precedence: built-in default < service.ini < BITMAPD_DSN (for postgres.dsn) < --set. */
#ifndef BITMAPD_CONFIG_H
#define BITMAPD_CONFIG_H

#include "core/common.h"

struct config {
    /* [http] */
    char *http_address;
    int http_port;
    int http_max_body_bytes;
    int http_max_header_bytes;
    int http_timeout_s;
    int http_max_page_limit;
    int http_default_page_limit;
    int http_max_ids;
    int http_max_connections;   /* open connections; more are answered 503 and closed */
    int http_request_timeout_s; /* a request must arrive whole this long after its first byte */
    char *http_bearer_token;    /* "": no authentication; else Authorization: Bearer <it> */
    /* [resp] */
    char *resp_address;
    int resp_port; /* 0: no RESP listener */
    char *resp_password;
    int resp_max_clients;
    int resp_max_bulk_bytes;   /* one argument */
    int resp_max_args;         /* arguments of one command */
    int resp_max_inline_bytes; /* an inline command line, or a *N / $N header line */
    int resp_max_pipeline;     /* commands queued per client before we stop reading it */
    int resp_max_value_bytes;  /* largest string GET/GETRANGE/R.GETINTARRAY materialise */
    int resp_max_key_bytes;
    int resp_keys_max;         /* KEYS answers at most this many keys */
    int resp_timeout_s;        /* close a client idle this long (nothing in flight); 0: never */
    int resp_command_timeout_s; /* a command must arrive whole this long after its first byte; 0: no limit */
    int resp_write_timeout_s;  /* close a client that reads no reply for this long; 0: no limit */
    /* [postgres] */
    char *pg_dsn;
    int pg_pool_size;
    int pg_query_timeout_ms;
    int pg_queue_timeout_ms;
    int pg_reconnect_min_ms;
    int pg_reconnect_max_ms;
    int pg_batch_keys;
    int pg_max_retries;
    int pg_write_statements; /* group commit: write statements in flight at once */
    int pg_load_statements;  /* coalesced loads in flight at once */
    int pg_analyze_check_ms; /* a writing instance checks this often whether a table outgrew its statistics */
    int pg_migrate_buckets;  /* --migrate moves the families of a database without their keys into buckets */
    int pg_chunk_bytes;      /* a bitmap encoded longer is stored in chunk rows of about this size */
    int pg_flip_bytes;       /* a chunked key's head records its changes up to this size (0: never) */
    int wlog_enabled;        /* [wlog] enabled: acknowledge small writes after one append to the log */
    int wlog_max_keys;       /* keys pending (acknowledged, not folded) at most */
    int wlog_fold_ms;        /* pending images are folded at most this long after their append */
    int wlog_max_value_bytes; /* a bigger value is written in place, not through the log */
    int wlog_cooldown_s;     /* after being asked to let go, the lease is not taken again for this long */
    /* [cache] */
    int cache_max_mb;        /* hot bitmaps kept in memory; 0: no cache */
    /* [expire] */
    int expire_sweep_ms;     /* expired rows are removed this often (0: never, by this instance) */
    int expire_sweep_keys;   /* rows removed per statement, at most */
    int expire_sweep_grace_ms; /* a row is removed this long after its deadline, not before */
    /* [inbox] */
    char *inbox_period_time_zone;
    int inbox_keep_months;       /* history older than this many months is dropped (0: kept) */
    int inbox_retention_check_s; /* how often keep_months is looked at */
    /* [checkin] */
    char *checkin_time_zone;    /* "": the process time zone ([inbox] period_time_zone) */
    int checkin_backfill_days;  /* how far back a date may be signed (0: today only) */
    char *checkin_points;       /* points by streak day: "10,20,30,50" (the last repeats) */
    char *checkin_streak_scope; /* "month" (reset on the 1st, the seed's rule) or "unbounded" */
    /* [groups] */
    int groups_max_members;     /* member ids per group (dense, never reused) */
    /* [broadcasts] */
    int broadcasts_cursor_ttl_days; /* clear last-seen cursors idle this long; 0: never */
    /* [service] */
    char *log_level;
    int shutdown_timeout_s; /* SIGTERM: longest wait for requests in flight before exiting */
    char *migrations_dir;
    char *sql_dir;
};

/* Fills cfg with defaults. Caller releases strings with config_free(). */
void config_defaults(struct config *cfg);

/* Reads an ini file into cfg. A missing file is an error only if required.
 * Unknown sections/keys and bad values are errors (message in err). */
bool config_load_file(struct config *cfg, const char *path, bool required, char *err,
                      size_t errlen) WUR;

/* Applies one "section.name=value" override. */
bool config_set(struct config *cfg, const char *assignment, char *err, size_t errlen) WUR;

/* Checks ranges and cross-field rules after everything is applied. */
bool config_validate(const struct config *cfg, char *err, size_t errlen) WUR;

/* SIGHUP: copies into live every reloadable setting whose value in fresh (a complete,
 * validated configuration) differs, logs each changed one that needs a restart, and
 * returns how many were applied. */
int config_apply_reload(struct config *live, const struct config *fresh);

void config_free(struct config *cfg);

#define CONFIG_MAX_POINTS 64
/* Parses a points list such as "10,20,30,50" (1 .. CONFIG_MAX_POINTS integers in
 * 0 .. 1000000). Returns the count, or -1 if malformed. */
int config_parse_points(const char *s, int *out, int max);

#endif
