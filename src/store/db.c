/* db.c — the connection pool. Each connection is a small state machine driven by
 * its socket and one timer; every transition goes through conn_set_state(). */
#include "store/db.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

enum conn_state {
    CONN_DOWN,       /* no server connection; the timer will start the next attempt */
    CONN_CONNECTING, /* PQconnectPoll in progress; the timer bounds the attempt */
    CONN_IDLE,       /* connected, no job; reading only to notice a server goodbye */
    CONN_BUSY,       /* a job was sent; flushing and reading until PQgetResult is NULL */
};

static const char *const conn_state_names[] = {"down", "connecting", "idle", "busy"};

#define CONNECT_TIMEOUT_MS 5000

struct db_job {
    TAILQ_ENTRY(db_job) entry;
    struct db *db;
    char *sql;
    int nparams;
    const char **values;
    int *lengths;
    int *formats;
    db_cb cb;
    void *arg;
    bool cancelled;
    bool queued;
    bool failing;        /* in db->failing, its timer set to fire at once */
    bool local;          /* db_defer(): no statement, answered DB_OK on the next turn */
    int stmt;            /* db_query_prepared(): the statement's number, else -1 */
    bool preparing;      /* the Parse of stmt is in flight on this job's connection */
    bool session;        /* the settings of db_set_session(), run before a connection's next job */
    unsigned session_gen;
    bool bound;          /* db_bind_session(): runs only under the settings of bound_gen */
    unsigned bound_gen;
    const char *fail_sqlstate; /* a failure of ours that says "not run" (DB_ERROR) */
    struct event *timer; /* queue deadline, or immediate failure */
    bool armed;          /* the timer is added (job_arm), until it fires or is deleted */
    PGresult *res;       /* first result of the statement */
    const char *fail_message;
    char *fail_copy;     /* owned text behind fail_message, when it came from a lost connection */
};

TAILQ_HEAD(job_queue, db_job);

struct db_conn {
    struct db *db;
    int index;
    PGconn *pg;
    enum conn_state state;
    struct event *io;
    struct event *timer;
    int backoff_ms;
    struct db_job *job;
    bool listener; /* the LISTEN connection: takes no job of the queue */
    bool tried;    /* connected or tried before: the next attempt is a reconnect */
    bool prepared[DB_MAX_PREPARED]; /* statements parsed on this server connection */
    unsigned session_gen; /* the db_set_session() statement this server session has run */
    struct db_job *after; /* the job waiting while that statement runs first */
};

struct db {
    struct event_base *base;
    const struct config *cfg;
    char *dsn;
    char options[320];
    char instance[17]; /* this process's token: the setting bitmapd.instance of every connection */
    struct db_conn *conns;
    int nconns;
    struct job_queue queue;
    struct job_queue failing; /* jobs to be failed on the next turn (job_fail_soon) */
    int queued;
    unsigned long queries, failures, reconnects;
    struct db_conn *listen;   /* NULL until db_listen() */
    char *listen_channel;
    const char *listen_setup; /* run before LISTEN (db_listen_setup) */
    char *session_sql;        /* run by each server session before its next job (db_set_session) */
    unsigned session_gen;     /* +1 at each db_set_session() */
    bool listen_up;
    db_notify_cb on_notify;
    db_listen_state_cb on_listen_state;
    void *listen_arg;
};

static void conn_io_cb(evutil_socket_t fd, short what, void *arg);
static void db_dispatch(struct db *db);
static void listen_set_up(struct db *db, bool up);

static struct timeval ms_to_tv(int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    return tv;
}

/* ---- jobs ---------------------------------------------------------------- */

/* A job, its timer, its SQL text and its parameters are one allocation (job_new). */
static void job_free(struct db_job *job)
{
    if (job->armed) event_del(job->timer); /* assigned in the job's block: not event_free */
    if (job->res) PQclear(job->res);
    free(job->fail_copy);
    free(job);
}

/* Delivers the outcome (unless cancelled) and frees the job. */
static void job_finish(struct db_job *job, enum db_status status, const char *message)
{
    struct db_result r = {status, NULL, message, NULL};

    if (status == DB_OK && job->local) {
        /* a deferred answer: no result set */
    } else if (status == DB_OK && job->res) {
        ExecStatusType st = PQresultStatus(job->res);
        if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
            r.res = job->res;
        } else {
            r.status = DB_ERROR;
            r.message = PQresultErrorMessage(job->res);
            r.sqlstate = PQresultErrorField(job->res, PG_DIAG_SQLSTATE);
        }
    } else if (status == DB_OK) {
        r.status = DB_UNAVAILABLE;
        r.message = "no result from server";
    }
    if (r.status != DB_OK) job->db->failures++;
    if (!job->cancelled) job->cb(&r, job->arg);
    job_free(job);
}

static void job_dequeue(struct db_job *job)
{
    if (!job->queued) return;
    TAILQ_REMOVE(&job->db->queue, job, entry);
    job->queued = false;
    job->db->queued--;
}

static void job_arm(struct db_job *job, const struct timeval *tv)
{
    event_add(job->timer, tv);
    job->armed = true;
}

static void job_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct db_job *job = arg;
    job->armed = false; /* fired: no longer added */
    if (job->failing) {
        TAILQ_REMOVE(&job->db->failing, job, entry);
        job->failing = false;
    }
    if (job->local) {
        job_finish(job, DB_OK, NULL);
        return;
    }
    job_dequeue(job);
    if (job->fail_sqlstate) {
        struct db_result r = {DB_ERROR, NULL, job->fail_message, job->fail_sqlstate};
        job->db->failures++;
        if (!job->cancelled) job->cb(&r, job->arg);
        job_free(job);
        return;
    }
    job_finish(job, DB_UNAVAILABLE,
               job->fail_message ? job->fail_message : "timed out waiting for a database connection");
}

/* Fails a job on a later turn of the loop so that callers never see re-entrancy. */
static void job_fail_soon(struct db_job *job, const char *message)
{
    struct timeval now = {0, 0};
    job_dequeue(job);
    job->fail_message = message;
    if (!job->failing) {
        TAILQ_INSERT_TAIL(&job->db->failing, job, entry); /* so that db_free finds it */
        job->failing = true;
    }
    job_arm(job, &now);
}

static size_t param_size(const struct db_param *p)
{
    if (!p->value) return 0;
    return p->format ? (size_t)p->length : strlen(p->value) + 1;
}

/* The room job_copy_params needs for n parameters. */
static size_t params_room(int n, const struct db_param *p)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) total += param_size(&p[i]);
    return (size_t)n * (sizeof(char *) + 2 * sizeof(int)) + total;
}

/* Copies the parameters into block: values[], lengths[], formats[], then the bytes. */
static void job_copy_params(struct db_job *job, int n, const struct db_param *p, char *block)
{
    size_t head = (size_t)n * (sizeof(char *) + 2 * sizeof(int));
    if (!n) return;
    job->values = (const char **)(void *)block;
    job->lengths = (int *)(block + (size_t)n * sizeof(char *));
    job->formats = job->lengths + n;
    char *bytes = block + head;
    for (int i = 0; i < n; i++) {
        size_t len = param_size(&p[i]);
        job->values[i] = p[i].value ? bytes : NULL;
        if (len) memcpy(bytes, p[i].value, len);
        job->lengths[i] = p[i].length;
        job->formats[i] = p[i].format;
        bytes += len;
    }
}

static struct db_job *job_new(struct db *db, const char *sql, int nparams, const struct db_param *params,
                              db_cb cb, void *arg)
{
    struct db_job *job;
    /* [job][its timer][the parameters][the SQL text]: the timer and the parameters'
     * array heads aligned as a max_align_t */
    size_t al = sizeof(max_align_t), evsz = (event_get_struct_event_size() + al - 1) / al * al;
    size_t at_params = (sizeof(*job) + al - 1) / al * al + evsz, sqllen = strlen(sql);
    size_t at_sql = at_params + params_room(nparams, params);
    char *block = calloc(1, at_sql + sqllen + 1);
    if (!block) return NULL;
    job = (struct db_job *)(void *)block;
    job->db = db;
    job->cb = cb;
    job->arg = arg;
    job->nparams = nparams;
    job->stmt = -1;
    job->sql = memcpy(block + at_sql, sql, sqllen + 1);
    job_copy_params(job, nparams, params, block + at_params);
    if (evtimer_assign((struct event *)(void *)(block + at_params - evsz), db->base, job_timer_cb, job) != 0) {
        free(block);
        return NULL;
    }
    job->timer = (struct event *)(void *)(block + at_params - evsz);
    return job;
}

struct db_job *db_defer(struct db *db, db_cb cb, void *arg)
{
    struct db_job *job = job_new(db, "", 0, NULL, cb, arg);
    struct timeval now = {0, 0};
    if (!job) return NULL;
    job->local = true;
    job_arm(job, &now);
    return job;
}

struct db_job *db_pending(struct db *db, db_cb cb, void *arg)
{
    struct db_job *job = job_new(db, "", 0, NULL, cb, arg);
    if (job) job->local = true;
    return job;
}

void db_complete(struct db_job *job, enum db_status status, const char *message)
{
    job_finish(job, status, message);
}

bool db_cancelled(const struct db_job *job) { return job->cancelled; }

struct event_base *db_event_base(struct db *db) { return db->base; }

static struct db_job *query_start(struct db *db, struct db_job *job);

struct db_job *db_query_prepared(struct db *db, int stmt, const char *sql, int nparams,
                                 const struct db_param *params, db_cb cb, void *arg)
{
    struct db_job *job = job_new(db, sql, nparams, params, cb, arg);
    if (!job) return NULL;
    job->stmt = stmt >= 0 && stmt < DB_MAX_PREPARED ? stmt : -1;
    return query_start(db, job);
}

struct db_job *db_query(struct db *db, const char *sql, int nparams, const struct db_param *params,
                        db_cb cb, void *arg)
{
    struct db_job *job = job_new(db, sql, nparams, params, cb, arg);
    if (!job) return NULL;
    return query_start(db, job);
}

static struct db_job *query_start(struct db *db, struct db_job *job)
{
    db->queries++;
    TAILQ_INSERT_TAIL(&db->queue, job, entry);
    job->queued = true;
    db->queued++;
    if (!db_is_up(db)) {
        job_fail_soon(job, "no connection to PostgreSQL is up");
        return job;
    }
    struct timeval tv = ms_to_tv(db->cfg->pg_queue_timeout_ms);
    job_arm(job, &tv);
    db_dispatch(db);
    return job;
}

void db_cancel(struct db_job *job)
{
    job->cancelled = true;
    if (job->queued) {
        job_dequeue(job);
        job_free(job);
    }
    /* A running job is freed when its statement completes; a job whose failure is
     * pending (timer armed, not queued) is freed by the timer without a callback. */
}

/* ---- connections ------------------------------------------------------------ */

static void conn_set_state(struct db_conn *c, enum conn_state st)
{
    if (c->state != st)
        log_debug("msg=\"db connection state\" conn=%d from=%s to=%s", c->index,
                  conn_state_names[c->state], conn_state_names[st]);
    c->state = st;
}

/* Waits for `what` on the connection's current socket (re-read every time: libpq
 * may change it while connecting); a timeout_ms of 0 means no deadline. */
static void conn_arm(struct db_conn *c, short what, int timeout_ms)
{
    event_del(c->io);
    event_assign(c->io, c->db->base, PQsocket(c->pg), what, conn_io_cb, c);
    event_add(c->io, NULL);
    if (timeout_ms > 0) {
        struct timeval tv = ms_to_tv(timeout_ms);
        event_add(c->timer, &tv);
    } else {
        event_del(c->timer);
    }
}

static bool conn_is_up(const struct db_conn *c) { return c->state == CONN_IDLE || c->state == CONN_BUSY; }

/* Drops the server connection, schedules a reconnect, and fails its job (last,
 * so that the job's callback sees the pool in its new state). */
static void conn_lost(struct db_conn *c, const char *why)
{
    struct db *db = c->db;
    struct db_job *job = c->job, *after = c->after;
    char reason[256];

    snprintf(reason, sizeof(reason), "%s", why); /* why may point into the PGconn */
    reason[strcspn(reason, "\n")] = '\0';
    if (conn_is_up(c))
        log_warn("msg=\"database connection lost\" conn=%d reason=\"%s\"", c->index, reason);
    if (c->listener) listen_set_up(db, false);
    event_del(c->io);
    if (c->pg) PQfinish(c->pg);
    c->pg = NULL;
    c->job = NULL;
    c->after = NULL;
    c->session_gen = 0; /* a new server session has run nothing */
    conn_set_state(c, CONN_DOWN);
    /* jittered exponential backoff: between half and all of the current step */
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : db->cfg->pg_reconnect_min_ms;
    if (c->backoff_ms > db->cfg->pg_reconnect_max_ms) c->backoff_ms = db->cfg->pg_reconnect_max_ms;
    struct timeval tv = ms_to_tv(c->backoff_ms / 2 + rand() % (c->backoff_ms / 2 + 1));
    event_add(c->timer, &tv);
    if (!c->listener && !db_is_up(db)) {
        struct db_job *q;
        while ((q = TAILQ_FIRST(&db->queue)) != NULL) job_fail_soon(q, "every connection to PostgreSQL was lost");
    }
    if (job) {
        /* on a later turn: a send can fail at once, inside db_query() itself, whose
         * caller must get a live handle back and never its callback before it */
        free(job->fail_copy);
        job->fail_copy = strdup(reason);
        job_fail_soon(job, job->fail_copy ? job->fail_copy : "connection lost");
    }
    if (after) {
        free(after->fail_copy);
        after->fail_copy = strdup(reason);
        job_fail_soon(after, after->fail_copy ? after->fail_copy : "connection lost");
    }
}

/* Hands every notification libpq has read to the listener's callback. */
static void conn_drain_notifies(struct db_conn *c)
{
    PGnotify *n;
    while ((n = PQnotifies(c->pg)) != NULL) {
        if (c->listener && c->db->listen_up) c->db->on_notify(n->extra, c->db->listen_arg);
        PQfreemem(n);
    }
}

static void listen_set_up(struct db *db, bool up)
{
    if (db->listen_up == up) return;
    db->listen_up = up;
    if (up)
        log_info("msg=\"listening for changes\" channel=%s", db->listen_channel);
    else
        log_warn("msg=\"change listener down\" channel=%s", db->listen_channel);
    db->on_listen_state(up, db->listen_arg);
}

static void conn_start_connect(struct db_conn *c)
{
    struct db *db = c->db;
    /* keepalives: a peer that vanished without a reset (a partition, a dead host) is
     * noticed within about 15 s even on an idle connection, such as the listener */
    const char *keys[] = {"dbname", "application_name", "options", "keepalives", "keepalives_idle",
                          "keepalives_interval", "keepalives_count", "tcp_user_timeout", NULL};
    const char *vals[] = {db->dsn, "bitmapd", db->options, "1", "5", "2", "3", "15000", NULL};

    if (c->tried) db->reconnects++;
    c->tried = true;
    memset(c->prepared, 0, sizeof(c->prepared)); /* a new server session knows none */
    conn_set_state(c, CONN_CONNECTING);
    c->pg = PQconnectStartParams(keys, vals, 1);
    if (!c->pg || PQstatus(c->pg) == CONNECTION_BAD) {
        conn_lost(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
        return;
    }
    conn_arm(c, EV_WRITE, CONNECT_TIMEOUT_MS);
}

static void conn_run(struct db_conn *c, struct db_job *job);
static struct db_job *job_new(struct db *db, const char *sql, int nparams, const struct db_param *params,
                              db_cb cb, void *arg);

static void session_job_cb(const struct db_result *r, void *arg)
{
    (void)r;
    (void)arg;
}

/* The statement of db_set_session() as a job of its own (its outcome is read by
 * conn_read_busy, and a failure drops the connection). */
static struct db_job *session_job(struct db *db)
{
    struct db_job *set = job_new(db, db->session_sql, 0, NULL, session_job_cb, NULL);
    if (set) {
        set->session = true;
        set->session_gen = db->session_gen;
    }
    return set;
}

void db_bind_session(struct db_job *job)
{
    job->bound = true;
    job->bound_gen = job->db->session_gen;
}

/* An idle session behind the last db_set_session() takes the settings now. One that
 * was busy when they changed was skipped there, and on a quiet instance it may get no
 * job for a long time: `bitmapd --buckets` waits for every session to show the new
 * epoch, and gave up after 60 s on one left so (two state reads in flight, one of
 * them on it, when a new epoch came; the first answer set the idle sessions). Called
 * wherever a session goes idle, after the waiting jobs had their turn. */
static void conn_catch_up(struct db_conn *c)
{
    struct db *db = c->db;
    if (c->state != CONN_IDLE || c->job || !db->session_sql || c->session_gen == db->session_gen ||
        (c->listener && !db->listen_up))
        return;
    struct db_job *set = session_job(db);
    if (set) conn_run(c, set);
}

void db_set_session(struct db *db, const char *sql)
{
    char *copy = strdup(sql);
    if (!copy) {
        log_error("msg=\"out of memory: the session settings stay as they were\"");
        return;
    }
    free(db->session_sql);
    db->session_sql = copy;
    db->session_gen++;
    /* idle sessions take them now (an operator waits for them in pg_stat_activity);
     * busy ones before their next job, or once they are idle again (conn_catch_up) */
    for (int i = -1; i < db->nconns; i++) {
        struct db_conn *c = i < 0 ? db->listen : &db->conns[i];
        if (c) conn_catch_up(c);
    }
}

/* LISTEN or the setup before it failed on a connection still up: drop it and retry. */
static void listen_failed(struct db_conn *c, const struct db_result *r)
{
    if (c->state != CONN_IDLE) return; /* the connection was lost: it reconnects by itself */
    log_warn("msg=\"LISTEN failed\" reason=\"%s\"", r->message ? r->message : "?");
    /* conn_lost() from inside the job's own completion would free the job twice:
     * the connection is dropped on its next timer instead, reading nothing meanwhile */
    struct timeval soon = {0, 0};
    event_del(c->io);
    conn_set_state(c, CONN_BUSY);
    event_add(c->timer, &soon);
}

static void listen_done(const struct db_result *r, void *arg)
{
    struct db_conn *c = arg;
    if (r->status != DB_OK) {
        listen_failed(c, r);
        return;
    }
    c->backoff_ms = 0;
    listen_set_up(c->db, true);
}

static void listen_run(struct db_conn *c, const char *sql, db_cb cb)
{
    struct db_job *job = job_new(c->db, sql, 0, NULL, cb, c);
    if (!job) {
        conn_lost(c, "out of memory");
        return;
    }
    conn_run(c, job);
}

static void listen_send(struct db_conn *c)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "LISTEN %s", c->db->listen_channel);
    listen_run(c, sql, listen_done);
}

static void listen_setup_done(const struct db_result *r, void *arg)
{
    struct db_conn *c = arg;
    if (r->status != DB_OK)
        listen_failed(c, r);
    else
        listen_send(c);
}

/* The listener connected: the setup (db_listen_setup), then LISTEN, before anything
 * else. LISTEN stays the session's last statement until the store runs others (an
 * operator finds the listener in pg_stat_activity by it). */
static void listen_start(struct db_conn *c)
{
    if (c->db->listen_setup)
        listen_run(c, c->db->listen_setup, listen_setup_done);
    else
        listen_send(c);
}

static void conn_poll_connect(struct db_conn *c)
{
    switch (PQconnectPoll(c->pg)) {
    case PGRES_POLLING_READING:
        conn_arm(c, EV_READ, CONNECT_TIMEOUT_MS);
        return;
    case PGRES_POLLING_WRITING:
        conn_arm(c, EV_WRITE, CONNECT_TIMEOUT_MS);
        return;
    case PGRES_POLLING_OK:
        if (PQsetnonblocking(c->pg, 1) != 0) {
            conn_lost(c, "cannot set non-blocking mode");
            return;
        }
        if (c->backoff_ms) log_info("msg=\"database connection established\" conn=%d", c->index);
        if (!c->listener) c->backoff_ms = 0; /* the listener: once LISTEN succeeds */
        conn_set_state(c, CONN_IDLE);
        conn_arm(c, EV_READ, 0);
        if (c->listener) {
            listen_start(c);
        } else if (c->db->session_sql) { /* before it serves: an idle session shows them too */
            struct db_job *set = session_job(c->db);
            if (set)
                conn_run(c, set);
            else
                db_dispatch(c->db);
        } else {
            db_dispatch(c->db);
        }
        return;
    default:
        conn_lost(c, PQerrorMessage(c->pg));
        return;
    }
}

/* Sends what libpq buffered; waits for write-readiness only while output is pending. */
static void conn_flush_and_arm(struct db_conn *c)
{
    int rc = PQflush(c->pg);
    if (rc < 0) {
        conn_lost(c, PQerrorMessage(c->pg));
        return;
    }
    /* the server enforces statement_timeout; this deadline catches a dead peer */
    conn_arm(c, rc == 1 ? (EV_READ | EV_WRITE) : EV_READ, c->db->cfg->pg_query_timeout_ms + 2000);
}

/* Sends the job's statement: as is, or (db_query_prepared) by name, parsing it first
 * on a connection that has not seen it (the Parse result is read before Execute). */
static void conn_run(struct db_conn *c, struct db_job *job)
{
    char name[32];
    int ok;
    struct db *db = c->db;
    if (job && job->bound && job->bound_gen != db->session_gen) {
        /* made for settings that changed before it could run: it does not run */
        job->fail_sqlstate = DB_SESSION_CHANGED;
        job_fail_soon(job, "the session settings changed before the statement ran");
        if (c->state == CONN_BUSY) {
            c->job = NULL;
            conn_set_state(c, CONN_IDLE);
            conn_arm(c, EV_READ, 0);
        }
        if (!c->listener) db_dispatch(db);
        conn_catch_up(c);
        return;
    }
    conn_set_state(c, CONN_BUSY);
    if (job && !job->session && db->session_sql && c->session_gen != db->session_gen) {
        /* the session's settings first (db_set_session); the job once they are read */
        struct db_job *set = session_job(db);
        if (!set) {
            c->job = job;
            conn_lost(c, "out of memory");
            return;
        }
        c->after = job;
        job = set;
    }
    c->job = job;
    if (job->stmt < 0) {
        ok = PQsendQueryParams(c->pg, job->sql, job->nparams, NULL, job->values, job->lengths, job->formats, 1);
    } else {
        snprintf(name, sizeof(name), "bitmapd_%d", job->stmt);
        job->preparing = !c->prepared[job->stmt];
        ok = job->preparing ? PQsendPrepare(c->pg, name, job->sql, job->nparams, NULL)
                            : PQsendQueryPrepared(c->pg, name, job->nparams, job->values, job->lengths,
                                                  job->formats, 1);
    }
    if (!ok) {
        conn_lost(c, PQerrorMessage(c->pg));
        return;
    }
    conn_flush_and_arm(c);
}

/* An idle connection only hears goodbyes (server shutdown) and notifications. */
static void conn_read_idle(struct db_conn *c)
{
    if (!PQconsumeInput(c->pg)) {
        conn_lost(c, PQerrorMessage(c->pg));
        return;
    }
    conn_drain_notifies(c);
    if (PQstatus(c->pg) == CONNECTION_BAD)
        conn_lost(c, "server closed the connection");
    else
        conn_arm(c, EV_READ, 0);
}

/* Reads whatever arrived; completes the job once libpq has no more results. */
static void conn_read_busy(struct db_conn *c)
{
    if (!PQconsumeInput(c->pg)) {
        conn_lost(c, PQerrorMessage(c->pg));
        return;
    }
    while (!PQisBusy(c->pg)) {
        PGresult *res = PQgetResult(c->pg);
        if (!res && c->job->preparing && c->job->res &&
            PQresultStatus(c->job->res) == PGRES_COMMAND_OK) { /* parsed: now execute it */
            PQclear(c->job->res);
            c->job->res = NULL;
            c->prepared[c->job->stmt] = true;
            conn_run(c, c->job);
            return;
        }
        if (!res && c->job->session) { /* the session's settings were read: now the job, if any */
            struct db_job *set = c->job, *job = c->after;
            ExecStatusType st = set->res ? PQresultStatus(set->res) : PGRES_FATAL_ERROR;
            bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
            char why[200];
            snprintf(why, sizeof(why), "session settings failed: %s",
                     set->res ? PQresultErrorMessage(set->res) : "no result");
            c->after = NULL;
            if (ok) c->session_gen = set->session_gen;
            job_free(set);
            c->job = job;
            if (!ok) {
                conn_lost(c, why);
            } else if (job) {
                conn_run(c, job);
            } else {
                conn_set_state(c, CONN_IDLE);
                conn_arm(c, EV_READ, 0);
                if (!c->listener) db_dispatch(c->db);
                conn_drain_notifies(c);
                conn_catch_up(c); /* settings newer than these came meanwhile */
            }
            return;
        }
        if (!res) {
            struct db_job *job = c->job;
            c->job = NULL;
            conn_set_state(c, CONN_IDLE);
            conn_arm(c, EV_READ, 0);
            job_finish(job, DB_OK, NULL);
            if (!c->listener) db_dispatch(c->db);
            conn_drain_notifies(c);
            conn_catch_up(c);
            return;
        }
        if (!c->job->res) {
            c->job->res = res;
        } else if (PQresultStatus(res) == PGRES_FATAL_ERROR) {
            /* the statement's rows came, then its transaction failed to commit (at
             * Sync: a lock wait at commit, a notification queue that is full): nothing
             * is committed, so the error is the outcome */
            PQclear(c->job->res);
            c->job->res = res;
        } else {
            PQclear(res); /* one statement, one result: keep the first */
        }
    }
    conn_flush_and_arm(c);
}

static void conn_io_cb(evutil_socket_t fd, short what, void *arg)
{
    struct db_conn *c = arg;
    switch (c->state) {
    case CONN_CONNECTING:
        conn_poll_connect(c);
        break;
    case CONN_IDLE:
        conn_read_idle(c);
        break;
    case CONN_BUSY:
        if (what & EV_WRITE) {
            conn_flush_and_arm(c);
            if (c->state != CONN_BUSY || !(what & EV_READ)) break;
        }
        conn_read_busy(c);
        break;
    case CONN_DOWN:
        break;
    }
}

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct db_conn *c = arg;
    switch (c->state) {
    case CONN_DOWN:
        conn_start_connect(c);
        break;
    case CONN_CONNECTING:
        conn_lost(c, "connect timed out");
        break;
    case CONN_BUSY:
        conn_lost(c, c->job ? "query timed out" : "LISTEN failed");
        break;
    case CONN_IDLE:
        break;
    }
}

static void db_dispatch(struct db *db)
{
    for (int i = 0; i < db->nconns && !TAILQ_EMPTY(&db->queue); i++) {
        struct db_conn *c = &db->conns[i];
        if (c->state != CONN_IDLE) continue;
        struct db_job *job = TAILQ_FIRST(&db->queue);
        job_dequeue(job);
        event_del(job->timer);
        job->armed = false;
        conn_run(c, job);
    }
}

/* ---- the pool ----------------------------------------------------------------- */

struct db *db_new(struct event_base *base, const struct config *cfg, const char *dsn)
{
    struct db *db = calloc(1, sizeof(*db));
    if (!db) return NULL;
    db->base = base;
    db->cfg = cfg;
    db->nconns = cfg->pg_pool_size;
    db->dsn = strdup(dsn);
    db->conns = calloc((size_t)db->nconns, sizeof(*db->conns));
    TAILQ_INIT(&db->queue);
    TAILQ_INIT(&db->failing);
    /* Generic plans for the prepared statements: with the default plan_cache_mode,
     * every execution of the compare-and-swap was planned again at bind (0.30 ms of
     * bind against 0.155 ms of execution for a one-key write, in PostgreSQL's
     * log_min_duration_statement), which capped a hot key's commits per second.
     * Unnamed statements are planned for their parameters either way. */
    {   /* the instance token names this process's connections to the write-behind log's
         * guard (migration 0009): random, so two processes never share one */
        uint8_t r[8] = {0};
        FILE *f = fopen("/dev/urandom", "rb");
        if (!f || fread(r, 1, sizeof(r), f) != sizeof(r)) {
            uint64_t x = (uint64_t)time(NULL) * 6364136223846793005u ^ (uint64_t)getpid() << 17 ^ (uint64_t)(uintptr_t)db;
            memcpy(r, &x, sizeof(r));
        }
        if (f) fclose(f);
        for (int i = 0; i < 8; i++) snprintf(db->instance + 2 * i, 3, "%02x", r[i]);
    }
    snprintf(db->options, sizeof(db->options),
             /* no JIT: the background sweep's statement (store_expire.c), estimated
              * past jit_above_cost on a table of millions of rows, was compiled by LLVM
              * at every run (10-45 ms of CPU each second, on an idle service); none of
              * these statements runs long enough to win that back */
             "-c statement_timeout=%d -c plan_cache_mode=force_generic_plan -c jit=off -c bitmapd.instance=%s"
             /* A generic plan is made once per connection, at the statement's first
              * run, from the table's size then, and kept until the table's statistics
              * change. Made while bitmapd.bitmaps held a page or two (a new or just
              * emptied table), a key probe became a sequential scan per key, and a
              * fan-out into that table a minute later still ran it: 5-9 s statements
              * for 1,000 keys of a 50,000-row table, then statement timeouts (the
              * write-behind log's append, seen under make integration-wlog). Every
              * statement here that names keys wants the index whatever the size; one
              * that has no index path (DBSIZE's count) still scans the heap */
             " -c enable_seqscan=off"
             /* the server notices a vanished client as fast as the client notices the
              * server (conn_start_connect): a session, and the lease lock the listener's
              * session may hold, does not outlive its process by more than about 15 s */
             " -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3"
             " -c tcp_user_timeout=15000",
             cfg->pg_query_timeout_ms, db->instance);
    if (!db->dsn || !db->conns) goto err;
    for (int i = 0; i < db->nconns; i++) {
        struct db_conn *c = &db->conns[i];
        c->db = db;
        c->index = i;
        c->state = CONN_DOWN;
        c->io = event_new(base, -1, 0, conn_io_cb, c);
        c->timer = evtimer_new(base, conn_timer_cb, c);
        if (!c->io || !c->timer) goto err;
    }
    for (int i = 0; i < db->nconns; i++) conn_start_connect(&db->conns[i]);
    return db;
err:
    db_free(db);
    return NULL;
}

bool db_listen(struct db *db, const char *channel, db_notify_cb on_notify, db_listen_state_cb on_state,
               void *arg)
{
    struct db_conn *c = calloc(1, sizeof(*c));
    if (!c || !(db->listen_channel = strdup(channel))) {
        free(c);
        return false;
    }
    c->db = db;
    c->index = -1;
    c->listener = true;
    c->state = CONN_DOWN;
    c->io = event_new(db->base, -1, 0, conn_io_cb, c);
    c->timer = evtimer_new(db->base, conn_timer_cb, c);
    db->listen = c;
    db->on_notify = on_notify;
    db->on_listen_state = on_state;
    db->listen_arg = arg;
    if (!c->io || !c->timer) return false; /* freed by db_free() */
    conn_start_connect(c);
    return true;
}

bool db_listening(const struct db *db) { return db->listen_up; }

int db_listener_pid(const struct db *db)
{
    return db->listen && db->listen_up && db->listen->pg ? PQbackendPID(db->listen->pg) : 0;
}

void db_listen_setup(struct db *db, const char *sql) { db->listen_setup = sql; }

const char *db_instance(const struct db *db) { return db->instance; }

struct db_job *db_listener_query(struct db *db, const char *sql, int nparams, const struct db_param *params,
                                 db_cb cb, void *arg)
{
    struct db_conn *c = db->listen;
    struct db_job *job;
    if (!c || !db->listen_up) return NULL;
    if (c->state == CONN_BUSY && c->job && c->job->session && !c->after) {
        /* busy only with the session's settings (conn_catch_up): the job runs after them */
        if (!(job = job_new(db, sql, nparams, params, cb, arg))) return NULL;
        c->after = job;
        return job;
    }
    if (c->state != CONN_IDLE || c->job) return NULL;
    if (!(job = job_new(db, sql, nparams, params, cb, arg))) return NULL;
    conn_run(c, job);
    return job;
}

static void conn_free(struct db_conn *c)
{
    if (c->after) job_free(c->after);
    if (c->job) job_free(c->job);
    if (c->pg) PQfinish(c->pg);
    if (c->io) event_free(c->io);
    if (c->timer) event_free(c->timer);
}

void db_free(struct db *db)
{
    struct db_job *job;
    if (!db) return;
    if (db->listen) conn_free(db->listen);
    free(db->listen);
    free(db->listen_channel);
    while ((job = TAILQ_FIRST(&db->queue)) != NULL) {
        job_dequeue(job);
        job_free(job);
    }
    while ((job = TAILQ_FIRST(&db->failing)) != NULL) {
        TAILQ_REMOVE(&db->failing, job, entry);
        job_free(job);
    }
    for (int i = 0; db->conns && i < db->nconns; i++) conn_free(&db->conns[i]);
    free(db->conns);
    free(db->dsn);
    free(db->session_sql);
    free(db);
}

int64_t db_value_int8(const PGresult *res, int row, int col)
{
    const uint8_t *p = (const uint8_t *)PQgetvalue(res, row, col);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return (int64_t)v;
}

bool db_is_up(const struct db *db)
{
    for (int i = 0; i < db->nconns; i++)
        if (conn_is_up(&db->conns[i])) return true;
    return false;
}

void db_get_stats(const struct db *db, struct db_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->queries = db->queries;
    out->failures = db->failures;
    out->reconnects = db->reconnects;
    out->queued = db->queued;
    for (int i = 0; i < db->nconns; i++)
        if (conn_is_up(&db->conns[i])) out->conns_up++;
}
