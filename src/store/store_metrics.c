/* store_metrics.c — the store's figures on GET /metrics: the pool (db.c), group
 * commit and coalesced loads (store_cas.c, store_load.c), the write-behind log (store_wlog.c) and the
 * cache (cache.c). store_new registers it with the metrics registry. */
#include <stdio.h>

#include "store/cache.h"
#include "store/db.h"
#include "core/metrics.h"
#include "store/store.h"
#include "store/store_wlog.h"

void store_metrics_render(struct evbuffer *out, void *arg)
{
    struct store *st = arg;
    struct db_stats ds;
    struct store_stats ss;
    struct cache_stats cs;

    db_get_stats(store_db(st), &ds);
    store_get_stats(st, &ss);
    cache_get_stats(store_cache(st), &cs);

    metrics_counter(out, "bitmapd_db_queries_total", "Statements sent to PostgreSQL.", ds.queries);
    metrics_counter(out, "bitmapd_db_failures_total", "Statements that failed (unavailable or rejected).", ds.failures);
    metrics_counter(out, "bitmapd_db_reconnects_total", "Connection attempts to PostgreSQL after a connection was lost or failed.", ds.reconnects);
    metrics_gauge(out, "bitmapd_db_connections_up", "Pool connections established.", ds.conns_up);
    metrics_gauge(out, "bitmapd_db_queue_length", "Statements waiting for a pool connection.", ds.queued);
    metrics_gauge(out, "bitmapd_db_listener_up", "1 while the LISTEN connection for cache invalidation is up.",
          db_listening(store_db(st)) ? 1 : 0);

    metrics_counter(out, "bitmapd_write_statements_total", "Group-commit write statements.", ss.cas_statements);
    metrics_counter(out, "bitmapd_write_calls_total", "Write requests that went through group commit.", ss.cas_calls);
    metrics_counter(out, "bitmapd_write_keys_total", "Keys written or version-checked by write statements.", ss.cas_keys);
    metrics_size_histogram(out, "bitmapd_write_batch_keys", "Keys per group-commit write statement.",
                           &metrics.write_batch_keys);
    metrics_size_histogram(out, "bitmapd_write_merged_units",
                           "Requests' writes merged into one read-modify-write of the same keys.",
                           &metrics.write_merged_units);
    metrics_counter(out, "bitmapd_load_statements_total", "Coalesced load statements.", ss.load_statements);
    metrics_counter(out, "bitmapd_expired_reads_total",
            "Rows handed out as absent because their key's deadline had passed (not yet removed).", ss.expired_reads);
    metrics_counter(out, "bitmapd_expired_keys_removed_total",
            "Rows of expired keys removed by this instance's sweeps ([expire] sweep_ms).", ss.expired_removed);
    metrics_counter(out, "bitmapd_expire_sweeps_total", "Sweep statements that ran.", ss.expire_sweeps);
    metrics_counter(out, "bitmapd_expire_sweep_failures_total",
            "Sweep statements that failed (the database away, or another instance holds the write-behind log).",
            ss.expire_sweep_failures);
    metrics_counter(out, "bitmapd_table_analyzes_total",
            "Statistics checks ([postgres] analyze_check_ms) that analyzed a table grown to twice its counted size.",
            ss.analyzes);
    metrics_size_histogram(out, "bitmapd_load_batch_keys", "Keys per coalesced load statement.",
                           &metrics.load_batch_keys);
    metrics_counter(out, "bitmapd_write_conflicts_total", "Write units whose version check failed (another writer won).",
            metrics.write_conflicts);
    metrics_counter(out, "bitmapd_write_retries_total", "Write units sent again after a conflict.", metrics.write_retries);
    metrics_counter(out, "bitmapd_write_retries_exhausted_total", "Write units that failed after [postgres] max_retries.",
            metrics.write_retries_exhausted);
    metrics_counter(out, "bitmapd_write_guessed_absent_keys_total",
            "Keys missing from the cache that a write (a train, a fan-out) wrote on the guess that they had no row, "
            "without loading them.",
            metrics.write_guessed_absent);
    metrics_counter(out, "bitmapd_write_guesses_wrong_total",
            "Trains, and units of other writes, with a key guessed absent whose statement did not commit "
            "(mostly: the key had a row): "
            "loaded and applied again, not counted as a conflict.",
            metrics.write_guesses_wrong);
    metrics_counter(out, "bitmapd_write_unchanged_fresh_units_total",
            "Merged write units that changed nothing, decided on rows just read from the database (no statement).",
            metrics.write_unchanged_fresh);
    metrics_counter(out, "bitmapd_write_kept_copies_total",
            "Writes of a big key that took the decoded copy kept by the commit of its cached bits instead of decoding them.",
            metrics.write_kept_copies);
    metrics_counter(out, "bitmapd_write_flips_total",
            "Writes of a chunked key committed as the flips in its head row alone, with no chunk row written.",
            metrics.write_flips);
    metrics_counter(out, "bitmapd_write_chunk_rows_total",
            "Chunk rows sent to be written or deleted by committed writes (a write of a whole value sends every "
            "chunk; the unchanged ones are left unwritten).",
            metrics.write_chunk_rows);
    metrics_counter(out, "bitmapd_corrupt_rows_total", "Stored rows that failed validation when read (each time read).",
            metrics.corrupt_rows);

    {
        struct wlog_stats ws;
        store_get_wlog_stats(st, &ws);
        metrics_gauge(out, "bitmapd_wlog_holder", "1 while this instance holds the write-behind log's lease.", ws.holder);
        metrics_gauge(out, "bitmapd_wlog_pending_keys", "Keys acknowledged through the write-behind log, not folded yet.",
              (double)ws.pending);
        metrics_gauge(out, "bitmapd_wlog_pending_bytes", "Bytes of the pending images (keys and values).",
              (double)ws.pending_bytes);
        metrics_counter(out, "bitmapd_wlog_appends_total", "Rows appended to the write-behind log.", ws.appends);
        metrics_counter(out, "bitmapd_wlog_append_keys_total", "Images acknowledged through the write-behind log.",
                ss.append_keys);
        metrics_counter(out, "bitmapd_wlog_lean_appends_total",
                "Appends sent in the lean form (no failed image known, no other instance found watching).",
                ss.lean_appends);
        metrics_counter(out, "bitmapd_wlog_lean_redone_total",
                "Lean appends that put nothing in (a group failed, or another instance watches): sent again in full.",
                ss.lean_redone);
        metrics_counter(out, "bitmapd_write_insert_statements_total",
                "Group-commit statements that only inserted keys found or guessed absent (no lock step).",
                ss.insert_statements);
        metrics_counter(out, "bitmapd_write_inserts_redone_total",
                "Of those, statements that met a row that exists and went out again with the lock step.",
                ss.inserts_redone);
        metrics_counter(out, "bitmapd_write_update_statements_total",
                "Group-commit statements that only rewrote one-row keys found, at their versions (no lock step).",
                ss.update_statements);
        metrics_counter(out, "bitmapd_write_updates_redone_total",
                "Of those, statements that met a row not at its version and went out again with the lock step.",
                ss.updates_redone);
        metrics_counter(out, "bitmapd_write_quiet_asked_total",
                "Group-commit statements of many keys sent asking to go unannounced should no other session listen.",
                ss.quiet_asked);
        metrics_counter(out, "bitmapd_wlog_folds_total", "Folds of the pending images into bitmapd.bitmaps.", ws.folds);
        metrics_counter(out, "bitmapd_wlog_folded_keys_total", "Images written by folds.", ws.fold_keys);
        metrics_counter(out, "bitmapd_wlog_leases_total", "Times this instance took the lease.", ws.leases);
        metrics_counter(out, "bitmapd_wlog_yields_total", "Times this instance was asked to fold and let go.", ws.yields);
        metrics_counter(out, "bitmapd_wlog_recovered_rows_total", "Log rows left by a stopped holder and folded here.",
                ws.recovered_rows);
        metrics_counter(out, "bitmapd_wlog_blocked_total",
                "Statements held back because another instance's log was not folded.", ws.blocked);
    }

    metrics_gauge(out, "bitmapd_cache_enabled", "1 while the cache is in use.", cache_enabled(store_cache(st)));
    metrics_counter(out, "bitmapd_cache_hits_total", "Reads answered from the cache.", cs.hits);
    metrics_counter(out, "bitmapd_cache_misses_total", "Reads that went to the database.", cs.misses);
    metrics_counter(out, "bitmapd_cache_evictions_total", "Entries evicted to stay within [cache] max_mb.", cs.evictions);
    metrics_counter(out, "bitmapd_cache_invalidations_total", "Entries dropped by change notifications.", cs.invalidations);
    metrics_gauge(out, "bitmapd_cache_entries", "Entries in the cache.", (double)cs.entries);
    metrics_gauge(out, "bitmapd_cache_bytes", "Bytes held by the cache.", (double)cs.bytes);
    metrics_gauge(out, "bitmapd_cache_max_bytes", "The cache's bound.", (double)cs.max_bytes);
}
