/* store_wlog_lease.c — the lease of the write-behind log (taken, let go, lost, asked
 * for) and the recovery of a log left behind, on the listener's session
 * (docs/design.md, "Write-behind log"). */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "core/metrics.h"
#include "store/pgbin.h"
#include "store/store_wlog_internal.h"

static void relisten(struct wlog *wl);

/* ---- the lease --------------------------------------------------------------------- */

/* On the listener's session: the lock, then the lease row naming this instance, and
 * whether the guard of 0009 is in the change trigger (without it, no lease). The
 * holder stops watching (WLOG_WATCH_LOCK): nobody else writes while it holds the
 * lease, and its appends need not announce to itself. A session that holds the lock
 * already (a lease lost to the guard, taken again) does not take it twice: one unlock
 * must let it go. */
static const char SQL_ACQUIRE[] =
    "WITH h AS MATERIALIZED (SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
    "                          AND pid = pg_backend_pid() AND classid = 0 AND objid = " WLOG_LEASE_LOCK
    "                          AND objsubid = 1 AND mode = 'ExclusiveLock' AND granted) AS had),"
    " l AS MATERIALIZED (SELECT (SELECT had FROM h) OR pg_try_advisory_lock(" WLOG_LEASE_LOCK ") AS got),"
    " w AS MATERIALIZED (" WLOG_UNWATCH_SQL " WHERE (SELECT got FROM l) AND NOT (SELECT had FROM h)),"
    " u AS (UPDATE bitmapd.wlog_lease SET holder = $1::text WHERE (SELECT got FROM l) RETURNING 1)"
    " SELECT (SELECT got FROM l)::int4, (SELECT count(*) FROM u)::int4,"
    "        (SELECT prosrc LIKE '%_wlog_guard%' FROM pg_proc"
    "          WHERE oid = 'bitmapd._bitmaps_changed()'::regprocedure)::int4, (SELECT count(*) FROM w)::int4";
static const char SQL_READ_LOG[] = "SELECT seq, images FROM bitmapd.wlog ORDER BY seq";
/* The lease row names nobody before the lock goes: the old holder's token must not
 * pass the guard while the next holder is taking the lease. It watches again before
 * it lets go: the next holder's appends announce to it. */
static const char SQL_RELEASE[] =
    "WITH w AS MATERIALIZED (" WLOG_WATCH_SQL "),"
    " u AS (UPDATE bitmapd.wlog_lease SET holder = '' WHERE holder = $1::text RETURNING 1)"
    " SELECT (SELECT count(*) FROM u), (SELECT pg_advisory_unlock(" WLOG_LEASE_LOCK ") FROM w)";

static void recovered_image(const struct wlog_image *im, void *arg)
{
    struct wlog *wl = arg;
    struct cache_val v = {.found = true, .version = im->version, .cardinality = im->cardinality,
                          .checksum = im->checksum, .nbytes = im->nbytes, .expire_ms = im->expire_ms};
    if (!(v.blob = cache_blob_new(im->bits, im->len))) {
        wl->recover_failed = true;
        return;
    }
    cache_drop(wl->cache, im->key, im->keylen);
    if (!wlog_put(wl, im->key, im->keylen, &v, false)) wl->recover_failed = true; /* rows unknown */
    cache_blob_unref(v.blob);
}

static const char SQL_ROW_VERSIONS[] =
    "SELECT b.key, b.version FROM unnest($1::bytea[]) AS k(key)"
    "  CROSS JOIN LATERAL (SELECT x.key, x.version FROM bitmapd.bitmaps x WHERE x.key = k.key LIMIT 1) b";

static void recovered(struct wlog *wl);

/* A recovery that cannot finish lets go without folding: the rows stay in the log for
 * the next attempt, and what was read of them is forgotten. */
static void recovery_abort(struct wlog *wl)
{
    wl_drop_all(wl);
    wl->state = WL_YIELDING; /* wl_release() waits for a busy listener from this state */
    wl_release(wl);
}

static void versions_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return;
    if (r->status != DB_OK) {
        log_warn("msg=\"write-behind log: checking recovered images failed\" reason=\"%s\"", r->message ? r->message : "?");
        recovery_abort(wl);
        return;
    }
    for (int i = 0; i < PQntuples(r->res); i++) {
        const uint8_t *key = (const uint8_t *)PQgetvalue(r->res, i, 0);
        size_t len = (size_t)PQgetlength(r->res, i, 0);
        struct pend *p = wl_find(wl, key, len);
        if (p && p->v.version <= db_value_int8(r->res, i, 1)) wl_unlink_pend(wl, p);
    }
    recovered(wl);
}

static void read_log_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return; /* the listener went down meanwhile */
    if (r->status != DB_OK) {
        log_warn("msg=\"write-behind log: reading the log failed\" reason=\"%s\"", r->message ? r->message : "?");
        recovery_abort(wl);
        return;
    }
    for (int i = 0; i < PQntuples(r->res); i++) {
        int64_t seq = db_value_int8(r->res, i, 0);
        size_t n = pgbin_array_len(r->res, i, 1);
        const uint8_t **ptr = calloc(n ? n : 1, sizeof(*ptr));
        size_t *len = calloc(n ? n : 1, sizeof(*len));
        long got = ptr && len ? pgbin_array_elems((const uint8_t *)PQgetvalue(r->res, i, 1),
                                                  (size_t)PQgetlength(r->res, i, 1), ptr, len, n)
                              : -1;
        bool ok = got >= 0 && (size_t)got == n;
        for (size_t k = 0; ok && k < n; k++) ok = wlog_unpack(ptr[k], len[k], NULL, NULL);
        for (size_t k = 0; ok && k < n; k++) ok = wlog_unpack(ptr[k], len[k], recovered_image, wl);
        free(ptr);
        free(len);
        if (!ok) {
            /* left in place: every writer stays blocked on it, which is what an
             * unreadable acknowledged write deserves; the operator decides */
            log_error("msg=\"write-behind log row is damaged or unreadable; it blocks every write until it is "
                      "removed\" seq=%lld",
                      (long long)seq);
            wl->damaged_until = metrics_now() + 5;
            wl->keep = false; /* fold what can be read, let go: writers stay blocked on the row */
            continue;
        }
        wl_seq_add(wl, seq);
        wl->stats.recovered_rows++;
    }
    if (wl->recover_failed) { /* the rows stay in the log for the next attempt */
        log_error("msg=\"write-behind log: out of memory recovering the log; letting go\"");
        wl->recover_failed = false;
        recovery_abort(wl);
        return;
    }
    if (PQntuples(r->res) > 0)
        log_info("msg=\"write-behind log recovered\" rows=%d keys=%zu", PQntuples(r->res), wl->n);
    if (wl->n) { /* images already overtaken by their rows are not pending */
        struct pgarr keys;
        pa_begin(&keys, OID_BYTEA, wl->n, false);
        for (size_t i = 0; i < wl->cap; i++)
            for (struct pend *p = wl->tab[i]; p; p = p->next) pa_elem(&keys, p->key, p->keylen);
        if (!keys.oom) {
            struct db_param prm = pa_param(&keys);
            wl->listener_busy = true;
            if (!db_listener_query(wl->db, SQL_ROW_VERSIONS, 1, &prm, versions_done, wl)) wl->listener_busy = false;
        }
        free(keys.buf);
        if (wl->listener_busy) return;
        recovery_abort(wl); /* could not check them */
        return;
    }
    recovered(wl);
}

/* After recovery: hold (log mode), or fold what was found and let go. */
static void recovered(struct wlog *wl)
{
    wl->state = wl->keep ? WL_HOLDING : WL_YIELDING;
    if (wl->n || wl->nseqs)
        wl_fold_start(wl);
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs)
        wl_release(wl);
    else
        relisten(wl);
    store_wlog_resume(wl->st);
}

static void acquire_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_ACQUIRING) return;
    bool got = r->status == DB_OK && PQntuples(r->res) == 1 && pgbin_int4(r->res, 0, 0) == 1;
    bool guard = got && !PQgetisnull(r->res, 0, 2) && pgbin_int4(r->res, 0, 2) == 1;
    if (!got || !guard) {
        if (got) log_error("msg=\"write-behind log stays off: the guard of migration 0009 is missing (bitmapd --migrate)\"");
        wl->retry_at = metrics_now() + 0.2;
        wl->state = WL_OFF;
        if (got)
            wl_release(wl);
        else
            relisten(wl);
        wl_arm(wl, 200);
        store_wlog_resume(wl->st);
        return;
    }
    wl->stats.leases++;
    wl->lost = false;
    if (wl->keep) log_info("msg=\"write-behind log: lease taken\"");
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, SQL_READ_LOG, 0, NULL, read_log_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF; /* the listener is going down: its session's lock goes with it */
        store_wlog_resume(wl->st);
    }
}

static void acquire(struct wlog *wl, bool keep)
{
    struct db_param p = {db_instance(wl->db), -1, 0};
    if (wl->state != WL_OFF || wl->listener_busy || !db_listening(wl->db) || metrics_now() < wl->retry_at) return;
    wl->keep = keep;
    wl->state = WL_ACQUIRING;
    wl->listener_busy = true;
    p.length = (int)strlen(p.value);
    if (!db_listener_query(wl->db, SQL_ACQUIRE, 1, &p, acquire_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF;
    }
}

static void release_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->listener_busy = false;
    if (wl->state != WL_RELEASING) return;
    wl->state = WL_OFF;
    if (r->status != DB_OK) log_warn("msg=\"write-behind log: unlock failed\" reason=\"%s\"", r->message ? r->message : "?");
    relisten(wl);
    store_wlog_resume(wl->st);
}

void wl_release(struct wlog *wl)
{
    if (wl->listener_busy) {
        wl_arm(wl, 10);
        return;
    }
    struct db_param p = {db_instance(wl->db), (int)strlen(db_instance(wl->db)), 0};
    wl->state = WL_RELEASING;
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, SQL_RELEASE, 1, &p, release_done, wl)) {
        wl->listener_busy = false;
        wl->state = WL_OFF; /* no listener, no session, no lock */
    }
}

/* The listener's last statement is LISTEN again after a lease statement, so that an
 * operator (and the tests) still find it in pg_stat_activity by that text. */
static void relistened(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    (void)r;
    wl->listener_busy = false;
}

static void relisten(struct wlog *wl)
{
    if (wl->listener_busy) return;
    wl->listener_busy = true;
    if (!db_listener_query(wl->db, "LISTEN bitmapd_changed", 0, NULL, relistened, wl)) wl->listener_busy = false;
}

static bool cooling(const struct wlog *wl)
{
    return metrics_now() < wl->cooldown_until;
}

bool wlog_stop(struct wlog *wl)
{
    wl->stopping = true;
    if (wl->state == WL_HOLDING) {
        wl->state = WL_YIELDING;
        wl_fold_start(wl);
    }
    if (wl->state == WL_YIELDING && !wl->n && !wl->nseqs && !wl->ninflight && !wl->fold_job && !wl->listener_busy)
        wl_release(wl);
    return wl->state == WL_OFF && !wl->listener_busy;
}

void wlog_kick(struct wlog *wl)
{
    if (wl->stopping) return;
    if (wl->cfg->wlog_enabled && wl->state == WL_OFF && cache_enabled(wl->cache) && !cooling(wl))
        acquire(wl, true);
    else if (wl->lost && wl->state == WL_OFF) /* the lease again, to recover its own log */
        acquire(wl, wl->cfg->wlog_enabled != 0);
}

static void asked(const struct db_result *r, void *arg)
{
    (void)arg;
    if (r->status != DB_OK) log_warn("msg=\"write-behind log: asking the holder to fold failed\" reason=\"%s\"", r->message ? r->message : "?");
}

static void ask_fold(struct wlog *wl)
{
    double now = metrics_now();
    if (now < wl->last_ask + 0.1) return;
    wl->last_ask = now;
    if (!db_query(wl->db, "SELECT pg_notify('bitmapd_changed', '!fold')", 0, NULL, asked, NULL))
        log_warn("msg=\"write-behind log: could not ask the holder to fold\"");
}

void wlog_blocked(struct wlog *wl, bool held_elsewhere)
{
    wl->stats.blocked++;
    wl->seen = true;
    wl->used_at = metrics_now();
    if (wl->state != WL_OFF) return;
    if (held_elsewhere)
        ask_fold(wl);
    else if (metrics_now() >= wl->damaged_until)
        acquire(wl, wl->cfg->wlog_enabled && cache_enabled(wl->cache) && !cooling(wl) && !wl->stopping);
}

bool wlog_on_notify(struct wlog *wl, const char *payload)
{
    if (strcmp(payload, "!fold") == 0) {
        if (wl->state == WL_HOLDING) {
            wl->cooldown_until = metrics_now() + wl->cfg->wlog_cooldown_s;
            wl->state = WL_YIELDING;
            wl->stats.yields++;
            log_info("msg=\"write-behind log: asked to fold and let go\"");
            wl_yield_step(wl);
        }
        return true;
    }
    return false;
}

void wlog_note_append_seen(struct wlog *wl)
{
    wl->seen = true;
    wl->used_at = metrics_now();
}

bool wlog_used_elsewhere(const struct wlog *wl)
{
    return wl->state < WL_HOLDING && wl->used_at > 0 && metrics_now() - wl->used_at < WLOG_USED_ELSEWHERE_S;
}

void wlog_listen_state(struct wlog *wl, bool up)
{
    if (!up) {
        if (wl->state >= WL_HOLDING) {
            /* the server may keep the old session, and its lock, until it notices the
             * connection is gone (its keepalives: about 15 s): this instance's writes
             * would pass the guard under its own token meanwhile, over rows whose
             * images it just dropped. It writes nothing until it holds the lease again. */
            log_warn("msg=\"write-behind log: listener down while holding the lease; writes wait for it\"");
            wl->lost = true;
        }
        wl->state = WL_OFF;
        wl->listener_busy = false;
        wl_drop_all(wl);
    }
    wl->seen = true;
    event_active(wl->barrier_ev, 0, 0);
    store_wlog_resume(wl->st);
}

bool wlog_lost(const struct wlog *wl) { return wl->lost; }
