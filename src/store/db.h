/* db.h — libpq on the libevent loop: a small pool of non-blocking connections,
 * a FIFO of queries, reconnect with jittered backoff, and fail-fast when no
 * connection is up. Nothing here ever blocks the loop. */
#ifndef BITMAPD_DB_H
#define BITMAPD_DB_H

#include <event2/event.h>
#include <libpq-fe.h>

#include "core/common.h"
#include "core/config.h"

enum db_status {
    DB_OK,          /* the statement ran; res holds its result */
    DB_UNAVAILABLE, /* no connection, connection lost, or timed out: outcome may be unknown */
    DB_ERROR,       /* the server rejected the statement; sqlstate says why */
};

struct db_result {
    enum db_status status;
    PGresult *res;        /* borrowed: valid until the callback returns; NULL unless DB_OK */
    const char *message;  /* borrowed: error text, NULL when DB_OK */
    const char *sqlstate; /* borrowed: five-char SQLSTATE for DB_ERROR, else NULL */
};

typedef void (*db_cb)(const struct db_result *r, void *arg);

/* One query parameter; format 0 = text (NUL-terminated), 1 = binary of `length` bytes.
 * Values are copied by db_query(), so they may be freed as soon as it returns. */
struct db_param {
    const void *value;
    int length;
    int format;
};

struct db;
struct db_job;

/* Creates the pool and starts connecting. cfg and base are borrowed for the pool's life. */
struct db *db_new(struct event_base *base, const struct config *cfg, const char *dsn) WUR;
void db_free(struct db *db);

/* Queues one statement (results always in binary format). Exactly one call of cb
 * follows, from the loop and never from inside db_query(), unless the job is
 * cancelled first. Returns NULL only when out of memory. */
struct db_job *db_query(struct db *db, const char *sql, int nparams, const struct db_param *params,
                        db_cb cb, void *arg) WUR;

/* As db_query(), for the few hot statements: stmt (0 .. DB_MAX_PREPARED-1) names
 * sql, which each connection parses once and then executes by name (no parse or
 * plan per call). Parameter types come from casts in sql. */
#define DB_MAX_PREPARED 12
struct db_job *db_query_prepared(struct db *db, int stmt, const char *sql, int nparams,
                                 const struct db_param *params, db_cb cb, void *arg) WUR;

/* The callback of job will not be called. A statement already sent still runs to
 * completion on the server; its result is discarded. */
void db_cancel(struct db_job *job);

/* A job with no statement: cb gets DB_OK with res NULL on a later turn of the loop
 * (never from inside this call). Cancellable like any job. */
struct db_job *db_defer(struct db *db, db_cb cb, void *arg) WUR;

/* A job with no statement, answered when its owner calls db_complete() (which calls
 * cb synchronously unless the job was cancelled, then frees it). For work that is
 * queued elsewhere, e.g. writes waiting for the next group commit. */
struct db_job *db_pending(struct db *db, db_cb cb, void *arg) WUR;
void db_complete(struct db_job *job, enum db_status status, const char *message);
bool db_cancelled(const struct db_job *job);
struct event_base *db_event_base(struct db *db);

/* Opens one more connection, outside the pool, that LISTENs on channel (an SQL
 * identifier, not quoted) and reconnects with the pool's backoff. on_state(true) once
 * LISTEN has completed, on_state(false) when the connection is lost (notifications
 * may have been missed in between); on_notify for each payload while up. */
typedef void (*db_notify_cb)(const char *payload, void *arg);
typedef void (*db_listen_state_cb)(bool up, void *arg);
bool db_listen(struct db *db, const char *channel, db_notify_cb on_notify, db_listen_state_cb on_state,
               void *arg) WUR;
/* A statement the listener's session runs before each LISTEN (NULL: none); the
 * listener is up once both succeed. Set before db_listen. */
void db_listen_setup(struct db *db, const char *sql);
bool db_listening(const struct db *db);
/* The backend pid of the listener's session while it is up; 0 otherwise. */
int db_listener_pid(const struct db *db);

/* One statement every server session of the pool and the listener runs before its
 * next job (settings: set_config(..., false)), from now on and after each reconnect;
 * idle sessions run it at once. A session whose run fails is dropped and reconnects. */
void db_set_session(struct db *db, const char *sql);
/* Binds a job (of db_query or db_query_prepared, just returned) to the settings of the
 * last db_set_session(): should they change before it runs, it does not run and fails
 * with DB_ERROR, SQLSTATE DB_SESSION_CHANGED. */
void db_bind_session(struct db_job *job);
#define DB_SESSION_CHANGED "BMB01"

/* This process's instance token (16 hex digits), the setting bitmapd.instance of
 * every connection it opens. */
const char *db_instance(const struct db *db);

/* Runs one statement on the LISTEN connection, whose session lasts as long as the
 * listener is up (a session-level advisory lock taken there is released when the
 * listener goes down, which the store notices). NULL when the listener is not up or
 * is busy with another statement. */
struct db_job *db_listener_query(struct db *db, const char *sql, int nparams, const struct db_param *params,
                                 db_cb cb, void *arg) WUR;

/* Big-endian int8 of a binary-format result cell. */
int64_t db_value_int8(const PGresult *res, int row, int col);

/* True when at least one connection is established. */
bool db_is_up(const struct db *db);

struct db_stats {
    unsigned long queries, failures, reconnects;
    int conns_up, queued;
};
void db_get_stats(const struct db *db, struct db_stats *out);

#endif
