/* metrics.c — the counters every module bumps, the histogram buckets, the text-format
 * helpers, and the registry of renderers that GET /metrics (health.c) prints: the
 * doors' per-route and per-command families (http.c, resp.c) and the store's pool,
 * cache, batching and write-behind-log figures (store_metrics.c). */
#include "core/metrics.h"

#include <stdio.h>
#include <string.h>
#include <time.h>


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

void metrics_counter(struct evbuffer *out, const char *name, const char *help, unsigned long long v)
{
    metrics_family(out, name, "counter", help);
    evbuffer_add_printf(out, "%s %llu\n", name, v);
}

void metrics_gauge(struct evbuffer *out, const char *name, const char *help, double v)
{
    metrics_family(out, name, "gauge", help);
    evbuffer_add_printf(out, "%s %.17g\n", name, v);
}

void metrics_size_histogram(struct evbuffer *out, const char *name, const char *help,
                            const struct metrics_hist *h)
{
    metrics_family(out, name, "histogram", help);
    series(out, name, "", h, size_le, METRICS_SIZE_BUCKETS);
}

/* ---- the registry ---------------------------------------------------------------------- */

static struct {
    metrics_render_fn *fn;
    void *arg;
} sources[METRICS_MAX_SOURCES];
static size_t nsources;
static time_t start_time;

bool metrics_register(metrics_render_fn *fn, void *arg)
{
    if (nsources == METRICS_MAX_SOURCES) return false;
    sources[nsources].fn = fn;
    sources[nsources].arg = arg;
    nsources++;
    return true;
}

void metrics_unregister(metrics_render_fn *fn, void *arg)
{
    for (size_t i = 0; i < nsources; i++)
        if (sources[i].fn == fn && sources[i].arg == arg) {
            memmove(&sources[i], &sources[i + 1], (nsources - i - 1) * sizeof(sources[0]));
            nsources--;
            return;
        }
}

void metrics_set_start_time(time_t t) { start_time = t; }

void metrics_render(struct evbuffer *out)
{
    metrics_gauge(out, "bitmapd_start_time_seconds", "When the process started (Unix time).", (double)start_time);
    for (size_t i = 0; i < nsources; i++) sources[i].fn(out, sources[i].arg);
}
