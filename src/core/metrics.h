/* metrics.h — counters, histograms and the registry behind GET /metrics (Prometheus
 * text format). The service is one thread, so counters are plain integers bumped
 * where things happen. Modules that keep figures of their own (the doors, the store)
 * register a renderer; the page is the process's start time, then every renderer in
 * the order registered. metrics.c calls nothing above it: it knows no module. */
#ifndef BITMAPD_METRICS_H
#define BITMAPD_METRICS_H

#include <event2/buffer.h>
#include <time.h>

#include "core/common.h"

/* Latency buckets in seconds (upper bounds; +Inf is implied). */
#define METRICS_LATENCY_BUCKETS 16
/* Batch-size buckets in keys. */
#define METRICS_SIZE_BUCKETS 12

struct metrics_hist {
    unsigned long long bucket[METRICS_LATENCY_BUCKETS > METRICS_SIZE_BUCKETS ? METRICS_LATENCY_BUCKETS
                                                                             : METRICS_SIZE_BUCKETS];
    unsigned long long count;
    double sum;
};

/* Things counted where they happen. */
struct metrics_counters {
    unsigned long long corrupt_rows;         /* stored rows that failed validation when read */
    unsigned long long write_retries;        /* write units sent again after a version conflict */
    unsigned long long write_conflicts;      /* write units whose version check failed */
    unsigned long long write_retries_exhausted;
    unsigned long long write_guessed_absent;   /* keys a train wrote on the guess that they had no row */
    unsigned long long write_guesses_wrong;    /* guessing trains that did not commit: loaded and applied again */
    unsigned long long write_unchanged_fresh;  /* merged write units that changed nothing, decided
                                                  on rows just read from the database: no statement */
    unsigned long long write_kept_copies;      /* trains of a big key that took the decoded copy
                                                  kept by the commit of its cached bits (kept.h) */
    unsigned long long write_flips;            /* writes of a chunked key committed as its head's
                                                  flips alone (no chunk row written) */
    unsigned long long write_chunk_rows;       /* chunk rows written or deleted by committed writes */
    unsigned long long http_auth_failures;
    unsigned long long http_connections_rejected; /* over [http] max_connections */
    unsigned long long http_request_timeouts;     /* [http] request_timeout_s passed */
    unsigned long long resp_auth_failures;
    unsigned long long resp_timeouts;             /* idle, command or write deadline passed */
    struct metrics_hist write_batch_keys;         /* keys per group-commit statement */
    struct metrics_hist write_merged_units;       /* units of one merged write (wpath trains) */
    struct metrics_hist load_batch_keys;          /* keys per coalesced load statement */
};
extern struct metrics_counters metrics;

void metrics_observe_latency(struct metrics_hist *h, double seconds);
void metrics_observe_size(struct metrics_hist *h, double n);

/* Seconds on a monotonic clock, for latencies. */
double metrics_now(void);

/* Renders a module's families onto out; arg is what it was registered with. */
typedef void metrics_render_fn(struct evbuffer *out, void *arg);
/* Adds fn(arg) to the page, after those registered before. False: the registry
 * (METRICS_MAX_SOURCES) is full. A module unregisters before arg is freed. */
#define METRICS_MAX_SOURCES 8
bool metrics_register(metrics_render_fn *fn, void *arg) WUR;
void metrics_unregister(metrics_render_fn *fn, void *arg);
/* The whole page: bitmapd_start_time_seconds, then every registered renderer. */
void metrics_render(struct evbuffer *out);
/* The start time the page reports (Unix time; main sets it once). */
void metrics_set_start_time(time_t t);

/* Text-format helpers for the modules that render their own families. */
void metrics_family(struct evbuffer *out, const char *name, const char *type, const char *help);
/* A family of one unlabelled series. */
void metrics_counter(struct evbuffer *out, const char *name, const char *help, unsigned long long v);
void metrics_gauge(struct evbuffer *out, const char *name, const char *help, double v);
/* A histogram family of one unlabelled series over the batch-size buckets. */
void metrics_size_histogram(struct evbuffer *out, const char *name, const char *help,
                            const struct metrics_hist *h);
/* One histogram series: name_bucket{labels,le=…}, name_sum{labels}, name_count{labels}.
 * labels is "" or `key="value",…` (already escaped). */
void metrics_latency_series(struct evbuffer *out, const char *name, const char *labels,
                            const struct metrics_hist *h);

/* Appends a label value escaped for the text format (\\, \", \n). */
void metrics_label_value(struct evbuffer *out, const char *v);

#endif
