/* store_expire.c — key expiry (docs/design.md, "Expiry"): a row past its deadline is
 * handed out as an empty row at its version, and the rows of expired keys are removed
 * in the background, a bounded batch at a time.
 *
 * A key's deadline is the row's expire_ms, carried like nbytes by the cache, the
 * write-behind log's images and every write. Each instance compares it with its own
 * clock at the moment it hands a row out (load, peek), so an expired key reads as
 * absent at once everywhere, whatever the cache holds; a write computed over it starts
 * from nothing and replaces the row at its version (with no deadline, unless the
 * command sets one). Removing the row only reclaims the space. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bucket.h"
#include "store/codec.h"
#include "core/log.h"
#include "store/store_internal.h"

static void sweep_cb(evutil_socket_t fd, short what, void *arg);

bool store_expire_setup(struct store *st)
{
    roaring_bitmap_t *e = roaring_bitmap_create();
    bool ok = e && codec_encode(e, &st->empty_bits, &st->empty_len);
    if (e) roaring_bitmap_free(e);
    if (!ok) return false;
    st->empty_crc = codec_crc32c(st->empty_bits, st->empty_len);
    return (st->sweep_ev = evtimer_new(db_event_base(st->db), sweep_cb, st)) != NULL;
}

void store_expire_rows(struct store *st, struct store_row *rows, size_t n)
{
    int64_t now = 0;
    for (size_t i = 0; i < n; i++) {
        struct store_row *r = &rows[i];
        if (!r->found || r->expire_ms <= 0) continue;
        if (!now) now = wall_ms();
        if (r->expire_ms > now) continue;
        r->bits = st->empty_bits;
        r->len = st->empty_len;
        r->cardinality = 0;
        r->checksum = st->empty_crc;
        r->nbytes = -1;
        r->expire_ms = 0;
        r->expired = true;
        r->checked = true;
        st->stats.expired_reads++;
    }
}

/* ---- the sweep --------------------------------------------------------------------
 * One statement removes up to $2 rows whose deadline passed [expire] sweep_grace_ms
 * ago ($1, by this instance's clock). The grace keeps a version from repeating while
 * anyone may still write with it: a writer that loaded the key at version v before
 * the removal could otherwise find the key created again and written up to v, and
 * overwrite it (a compare-and-swap sees versions, and rows removed start again at
 * 1); a load and its compare-and-swap lie at most [postgres] queue_timeout_ms plus
 * query_timeout_ms apart. The earliest first, found through the partial index bitmaps_expire (only
 * keys with a deadline are in it, so no sweep reads the table), skipping rows a writer
 * holds locked (their write decides; never a wait, so never a deadlock with the
 * compare-and-swap, which locks in key order), and the chunk rows of those that were
 * chunked, in the same transaction. The deadline is checked again on the locked row.
 * The change trigger announces the deletions (":d"), so every cache drops them, and
 * its guard refuses the statement while another instance holds the write-behind log's
 * lease: that instance sweeps. Under this instance's own lease a key may have a newer
 * image pending in the log; the fold writes it back whole (an upsert), so removing the
 * row under it loses nothing. */
static const char SQL_SWEEP[] =
    "WITH c AS (SELECT key FROM bitmapd.bitmaps WHERE expire_ms <= $1::int8 AND " SQL_KEY_ROW("")
    "            ORDER BY expire_ms LIMIT $2::int8 FOR UPDATE SKIP LOCKED),"
    " d AS (DELETE FROM bitmapd.bitmaps b USING c WHERE b.key = c.key AND b.expire_ms <= $1::int8"
    "       RETURNING b.key, octet_length(b.bits) = 0 AS chunked),"
    " x AS (DELETE FROM bitmapd.chunks k USING d WHERE k.key = d.key AND d.chunked RETURNING 1)"
    " SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM x)";

static void sweep_arm(struct store *st, int ms)
{
    if (ms <= 0 || st->sweep_stopped) return;
    event_add(st->sweep_ev, &(struct timeval){ms / 1000, (ms % 1000) * 1000});
}

static void sweep_done(const struct db_result *r, void *arg)
{
    struct store *st = arg;
    int every = st->cfg->expire_sweep_ms;
    st->sweep_job = NULL;
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        int64_t rows = db_value_int8(r->res, 0, 0);
        st->stats.expired_removed += (unsigned long)rows;
        st->stats.expire_sweeps++;
        st->sweep_failed_logged = false;
        /* a full batch: more are waiting, the next goes at once */
        sweep_arm(st, rows >= st->cfg->expire_sweep_keys ? 1 : every);
        return;
    }
    st->stats.expire_sweep_failures++;
    /* the log's guard (another instance holds the lease and sweeps), or the database
     * away: said once until a sweep succeeds again */
    if (!st->sweep_failed_logged) {
        bool guard = r->sqlstate && strncmp(r->sqlstate, "BMW", 3) == 0;
        if (guard)
            log_info("msg=\"expired rows left to the holder of the write-behind log\" error=\"%s\"",
                     r->message ? r->message : "");
        else
            log_warn("msg=\"sweep of expired rows failed\" error=\"%s\"", r->message ? r->message : "");
        st->sweep_failed_logged = true;
    }
    sweep_arm(st, every);
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    if (st->sweep_job || st->sweep_stopped) return;
    int every = st->cfg->expire_sweep_ms;
    if (every <= 0) { /* off: looked at again later, in case a reload turns it on */
        event_add(st->sweep_ev, &(struct timeval){5, 0});
        return;
    }
    char now[24], limit[24];
    snprintf(now, sizeof(now), "%lld", (long long)(wall_ms() - st->cfg->expire_sweep_grace_ms));
    snprintf(limit, sizeof(limit), "%d", st->cfg->expire_sweep_keys);
    struct db_param p[2] = {{now, 0, 0}, {limit, 0, 0}};
    if (!(st->sweep_job = db_query(st->db, SQL_SWEEP, 2, p, sweep_done, st))) sweep_arm(st, every);
}

void store_expire_start(struct store *st)
{
    if (!st->sweep_stopped && !evtimer_pending(st->sweep_ev, NULL) && !st->sweep_job)
        event_add(st->sweep_ev, &(struct timeval){0, 200 * 1000});
}

void store_expire_free(struct store *st)
{
    st->sweep_stopped = true;
    if (st->sweep_job) db_cancel(st->sweep_job);
    st->sweep_job = NULL;
    if (st->sweep_ev) event_free(st->sweep_ev);
    st->sweep_ev = NULL;
    free(st->empty_bits);
    st->empty_bits = NULL;
}
