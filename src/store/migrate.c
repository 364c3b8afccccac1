/* migrate.c — schema migrations. Every step holds a transaction-scoped advisory
 * lock, so several instances starting together apply each migration once. */
#include "store/migrate.h"

#include <dirent.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "store/relayout.h"

#define LOCK_SQL "SELECT pg_advisory_xact_lock(7355608)"

static bool exec_ok(PGconn *pg, const char *sql, const char *what)
{
    PGresult *r = PQexec(pg, sql);
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok) log_error("msg=\"migration step failed\" step=\"%s\" error=\"%s\"", what, PQresultErrorMessage(r));
    PQclear(r);
    return ok;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len + 1)) != NULL) {
        if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        } else {
            buf[len] = '\0';
        }
    }
    fclose(f);
    return buf;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names of *.sql files in dir; caller frees each and the array. */
static char **list_sql(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d) return NULL;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0) continue;
        if (*n == cap) {
            char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));
            if (!nn) break;
            names = nn;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names) qsort(names, *n, sizeof(*names), cmp_names);
    return names;
}

/* Runs one file inside BEGIN … COMMIT; for a migration, only if not yet recorded. */
static bool apply_file(PGconn *pg, const char *dir, const char *name, bool is_migration)
{
    char path[4096], check[256];
    char *sql;
    int version = atoi(name);
    bool ok = false;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(sql = read_file(path))) {
        log_error("msg=\"cannot read\" file=\"%s\"", path);
        return false;
    }
    if (!exec_ok(pg, "BEGIN", "begin") || !exec_ok(pg, LOCK_SQL, "lock")) goto done;
    if (is_migration) {
        snprintf(check, sizeof(check), "SELECT 1 FROM bitmapd.schema_migrations WHERE version = %d", version);
        PGresult *r = PQexec(pg, check);
        bool applied = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
        PQclear(r);
        if (applied) {
            ok = exec_ok(pg, "COMMIT", "commit");
            goto done;
        }
    }
    if (!exec_ok(pg, sql, name)) goto done;
    if (is_migration) {
        const char *params[2];
        char vbuf[16];
        snprintf(vbuf, sizeof(vbuf), "%d", version);
        params[0] = vbuf;
        params[1] = name;
        PGresult *r = PQexecParams(pg, "INSERT INTO bitmapd.schema_migrations (version, name) VALUES ($1, $2)",
                                   2, NULL, params, NULL, NULL, 0);
        bool ins = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ins) goto done;
        log_info("msg=\"migration applied\" file=%s", name);
    }
    ok = exec_ok(pg, "COMMIT", "commit");
done:
    if (!ok) PQclear(PQexec(pg, "ROLLBACK"));
    free(sql);
    return ok;
}

static bool apply_dir(PGconn *pg, const char *dir, bool is_migration)
{
    size_t n;
    char **names = list_sql(dir, &n);
    bool ok = names != NULL || n == 0;
    if (!names && is_migration) {
        log_error("msg=\"no migrations found\" dir=\"%s\"", dir);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (ok) ok = apply_file(pg, dir, names[i], is_migration);
        free(names[i]);
    }
    free(names);
    return ok;
}

/* The relayouts rewrite rows of keys: as a session that knows where the families are
 * (the guard of migration 0016 refuses a write to their key ranges otherwise). */
static bool act_on_bucket_epoch(PGconn *pg)
{
    return exec_ok(pg, "SELECT set_config('bitmapd.bucket_epoch', bitmapd.bucket_epoch()::text, false)", "epoch");
}

bool migrate_fold_flips(const char *dsn)
{
    PGconn *pg = PQconnectdb(dsn);
    bool ok = PQstatus(pg) == CONNECTION_OK;
    if (!ok)
        log_error("msg=\"cannot connect\" error=\"%s\"", PQerrorMessage(pg));
    else
        ok = act_on_bucket_epoch(pg) && relayout_fold_flips(pg);
    PQfinish(pg);
    return ok;
}

bool migrate_run(const char *dsn, const char *migrations_dir, const char *sql_dir)
{
    PGconn *pg = PQconnectdb(dsn);
    bool ok = false;

    if (PQstatus(pg) != CONNECTION_OK) {
        log_error("msg=\"cannot connect\" error=\"%s\"", PQerrorMessage(pg));
        goto done;
    }
    PQclear(PQexec(pg, "SET client_min_messages = warning"));
    ok = exec_ok(pg, "BEGIN", "begin") && exec_ok(pg, LOCK_SQL, "lock") &&
         exec_ok(pg,
                 "CREATE SCHEMA IF NOT EXISTS bitmapd;"
                 "CREATE TABLE IF NOT EXISTS bitmapd.schema_migrations ("
                 " version int PRIMARY KEY, name text NOT NULL,"
                 " applied_at timestamptz NOT NULL DEFAULT now())",
                 "bootstrap") &&
         exec_ok(pg, "COMMIT", "commit") && apply_dir(pg, migrations_dir, true) &&
         apply_dir(pg, sql_dir, false);
    if (ok) log_info("msg=\"schema up to date\"");
    ok = ok && act_on_bucket_epoch(pg) && relayout_run(pg);
done:
    PQfinish(pg);
    return ok;
}
