/* metrics.c — GET /metrics: the counters below, the HTTP and RESP per-route and
 * per-command families (rendered by http.c and resp.c), and the pool, cache and
 * batching figures of db.c, cache.c and store.c, in the Prometheus text format. */
#include "metrics.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache.h"
#include "store_wlog.h"
#include "http.h"
#include "resp.h"

struct metrics_counters metrics;

static const double latency_le[METRICS_LATENCY_BUCKETS] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                           0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                                           1,      2.5,     5,      10};
static const double size_le[METRICS_SIZE_BUCKETS] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};

static void observe(struct metrics_hist *h, const double *le, int n, double v)
{
    for (int i = 0; i < n; i++)
        if (v <= le[i]) h->bucket[i]++; /* cumulative, as the format wants */
    h->count++;
    h->sum += v;
}

void metrics_observe_latency(struct metrics_hist *h, double seconds)
{
    observe(h, latency_le, METRICS_LATENCY_BUCKETS, seconds);
}

void metrics_observe_size(struct metrics_hist *h, double n) { observe(h, size_le, METRICS_SIZE_BUCKETS, n); }

double metrics_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void metrics_family(struct evbuffer *out, const char *name, const char *type, const char *help)
{
    evbuffer_add_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_label_value(struct evbuffer *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            evbuffer_add_printf(out, "\\%c", *v);
        else if (*v == '\n')
            evbuffer_add(out, "\\n", 2);
        else
            evbuffer_add(out, v, 1);
    }
}

static void series(struct evbuffer *out, const char *name, const char *labels, const struct metrics_hist *h,
                   const double *le, int n)
{
    const char *sep = *labels ? "," : "";
    for (int i = 0; i < n; i++)
        evbuffer_add_printf(out, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, le[i], h->bucket[i]);
    evbuffer_add_printf(out, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, h->count);
    evbuffer_add_printf(out, "%s_sum%s%s%s %.6f\n", name, *labels ? "{" : "", labels, *labels ? "}" : "", h->sum);
    evbuffer_add_printf(out, "%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
                        h->count);
}

void metrics_latency_series(struct evbuffer *out, const char *name, const char *labels,
                            const struct metrics_hist *h)
{
    series(out, name, labels, h, latency_le, METRICS_LATENCY_BUCKETS);
}

static void counter(struct evbuffer *out, const char *name, const char *help, unsigned long long v)
{
    metrics_family(out, name, "counter", help);
    evbuffer_add_printf(out, "%s %llu\n", name, v);
}

static void gauge(struct evbuffer *out, const char *name, const char *help, double v)
{
    metrics_family(out, name, "gauge", help);
    evbuffer_add_printf(out, "%s %.17g\n", name, v);
}

static void render_store(struct evbuffer *out, const struct app *app)
{
    struct db_stats ds;
    struct store_stats ss;
    struct cache_stats cs;

    db_get_stats(app->db, &ds);
    store_get_stats(app->store, &ss);
    cache_get_stats(store_cache(app->store), &cs);

    counter(out, "bitmapd_db_queries_total", "Statements sent to PostgreSQL.", ds.queries);
    counter(out, "bitmapd_db_failures_total", "Statements that failed (unavailable or rejected).", ds.failures);
    counter(out, "bitmapd_db_reconnects_total", "Connection attempts to PostgreSQL after a connection was lost or failed.", ds.reconnects);
    gauge(out, "bitmapd_db_connections_up", "Pool connections established.", ds.conns_up);
    gauge(out, "bitmapd_db_queue_length", "Statements waiting for a pool connection.", ds.queued);
    gauge(out, "bitmapd_db_listener_up", "1 while the LISTEN connection for cache invalidation is up.",
          db_listening(app->db) ? 1 : 0);

    counter(out, "bitmapd_write_statements_total", "Group-commit write statements.", ss.cas_statements);
    counter(out, "bitmapd_write_calls_total", "Write requests that went through group commit.", ss.cas_calls);
    counter(out, "bitmapd_write_keys_total", "Keys written or version-checked by write statements.", ss.cas_keys);
    metrics_family(out, "bitmapd_write_batch_keys", "histogram", "Keys per group-commit write statement.");
    series(out, "bitmapd_write_batch_keys", "", &metrics.write_batch_keys, size_le, METRICS_SIZE_BUCKETS);
    metrics_family(out, "bitmapd_write_merged_units", "histogram",
                   "Requests' writes merged into one read-modify-write of the same keys.");
    series(out, "bitmapd_write_merged_units", "", &metrics.write_merged_units, size_le, METRICS_SIZE_BUCKETS);
    counter(out, "bitmapd_load_statements_total", "Coalesced load statements.", ss.load_statements);
    metrics_family(out, "bitmapd_load_batch_keys", "histogram", "Keys per coalesced load statement.");
    series(out, "bitmapd_load_batch_keys", "", &metrics.load_batch_keys, size_le, METRICS_SIZE_BUCKETS);
    counter(out, "bitmapd_write_conflicts_total", "Write units whose version check failed (another writer won).",
            metrics.write_conflicts);
    counter(out, "bitmapd_write_retries_total", "Write units sent again after a conflict.", metrics.write_retries);
    counter(out, "bitmapd_write_retries_exhausted_total", "Write units that failed after [postgres] max_retries.",
            metrics.write_retries_exhausted);
    counter(out, "bitmapd_write_guessed_absent_keys_total",
            "Keys missing from the cache that a train wrote on the guess that they had no row, without loading them.",
            metrics.write_guessed_absent);
    counter(out, "bitmapd_write_guesses_wrong_total",
            "Trains with a key guessed absent whose statement did not commit (mostly: the key had a row): "
            "loaded and applied again, not counted as a conflict.",
            metrics.write_guesses_wrong);
    counter(out, "bitmapd_write_unchanged_fresh_units_total",
            "Merged write units that changed nothing, decided on rows just read from the database (no statement).",
            metrics.write_unchanged_fresh);
    counter(out, "bitmapd_write_kept_copies_total",
            "Writes of a big key that took the decoded copy kept by the commit of its cached bits instead of decoding them.",
            metrics.write_kept_copies);
    counter(out, "bitmapd_write_flips_total",
            "Writes of a chunked key committed as the flips in its head row alone, with no chunk row written.",
            metrics.write_flips);
    counter(out, "bitmapd_write_chunk_rows_total",
            "Chunk rows sent to be written or deleted by committed writes (a write of a whole value sends every "
            "chunk; the unchanged ones are left unwritten).",
            metrics.write_chunk_rows);
    counter(out, "bitmapd_corrupt_rows_total", "Stored rows that failed validation when read (each time read).",
            metrics.corrupt_rows);

    {
        struct wlog_stats ws;
        store_get_wlog_stats(app->store, &ws);
        gauge(out, "bitmapd_wlog_holder", "1 while this instance holds the write-behind log's lease.", ws.holder);
        gauge(out, "bitmapd_wlog_pending_keys", "Keys acknowledged through the write-behind log, not folded yet.",
              (double)ws.pending);
        gauge(out, "bitmapd_wlog_pending_bytes", "Bytes of the pending images (keys and values).",
              (double)ws.pending_bytes);
        counter(out, "bitmapd_wlog_appends_total", "Rows appended to the write-behind log.", ws.appends);
        counter(out, "bitmapd_wlog_append_keys_total", "Images acknowledged through the write-behind log.",
                ss.append_keys);
        counter(out, "bitmapd_wlog_folds_total", "Folds of the pending images into bitmapd.bitmaps.", ws.folds);
        counter(out, "bitmapd_wlog_folded_keys_total", "Images written by folds.", ws.fold_keys);
        counter(out, "bitmapd_wlog_leases_total", "Times this instance took the lease.", ws.leases);
        counter(out, "bitmapd_wlog_yields_total", "Times this instance was asked to fold and let go.", ws.yields);
        counter(out, "bitmapd_wlog_recovered_rows_total", "Log rows left by a stopped holder and folded here.",
                ws.recovered_rows);
        counter(out, "bitmapd_wlog_blocked_total",
                "Statements held back because another instance's log was not folded.", ws.blocked);
    }

    gauge(out, "bitmapd_cache_enabled", "1 while the cache is in use.", cache_enabled(store_cache(app->store)));
    counter(out, "bitmapd_cache_hits_total", "Reads answered from the cache.", cs.hits);
    counter(out, "bitmapd_cache_misses_total", "Reads that went to the database.", cs.misses);
    counter(out, "bitmapd_cache_evictions_total", "Entries evicted to stay within [cache] max_mb.", cs.evictions);
    counter(out, "bitmapd_cache_invalidations_total", "Entries dropped by change notifications.", cs.invalidations);
    gauge(out, "bitmapd_cache_entries", "Entries in the cache.", (double)cs.entries);
    gauge(out, "bitmapd_cache_bytes", "Bytes held by the cache.", (double)cs.bytes);
    gauge(out, "bitmapd_cache_max_bytes", "The cache's bound.", (double)cs.max_bytes);
}

/* GET /metrics */
void metrics_get(struct http_ctx *c)
{
    static const char *const params[] = {NULL};
    struct evbuffer *out;

    if (!http_query_only_or_reply(c, params)) return;
    if (!(out = evbuffer_new())) {
        http_reply_error(c, 500, "internal", "out of memory");
        return;
    }
    gauge(out, "bitmapd_start_time_seconds", "When the process started (Unix time).", (double)c->app->started);
    http_metrics_render(out);
    counter(out, "bitmapd_http_auth_failures_total", "HTTP requests refused for a missing or wrong token.",
            metrics.http_auth_failures);
    counter(out, "bitmapd_http_connections_rejected_total", "HTTP connections over [http] max_connections.",
            metrics.http_connections_rejected);
    counter(out, "bitmapd_http_request_timeouts_total", "HTTP connections closed by [http] request_timeout_s.",
            metrics.http_request_timeouts);
    resp_metrics_render(out);
    counter(out, "bitmapd_resp_auth_failures_total", "RESP AUTH attempts with a wrong password.",
            metrics.resp_auth_failures);
    counter(out, "bitmapd_resp_timeouts_total", "RESP clients closed by an idle, command or write deadline.",
            metrics.resp_timeouts);
    render_store(out, c->app);
    http_reply_text(c, 200, "text/plain; version=0.0.4; charset=utf-8", out);
    evbuffer_free(out);
}
