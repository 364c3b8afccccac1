/*
 * bench/naive.c — the design of seed 000 as a load generator, for `make bench`.
 *
 * The seed's author kept each bitmap as a blob in a SQL row and, for every
 * operation, read the row, deserialized it, changed it, serialized it and wrote
 * it back: two blocking statements in autocommit, no version check (so two
 * clients writing the same key at once lose one of the updates). This program
 * does exactly that for SETBIT key offset 1, with CRoaring portable bytes
 * instead of the seed's EWAH, one libpq connection per client thread:
 *
 *   SELECT bits FROM bench_naive WHERE key = $1
 *   -> roaring_bitmap_portable_deserialize_safe, roaring_bitmap_add(offset),
 *      roaring_bitmap_portable_serialize
 *   -> UPDATE bench_naive SET bits = $2 WHERE key = $1
 *      (INSERT … ON CONFLICT DO UPDATE when the row was missing)
 *
 * Keys are the ones redis-benchmark sends with -r: "key:" and a 12-digit,
 * zero-padded random number below --keys. Statements are prepared once per
 * connection, parameters and results are binary: the naive design at its best.
 *
 * Usage:
 *   naive --dsn DSN --prefill N
 *       (re)creates bench_naive with N rows key:000000000000 … holding bit 7,
 *       the state bench/run.sh gives the other targets before their SETBIT runs
 *   naive --dsn DSN --clients C --requests N --seconds S [--keys K] [--offset
 * O] runs at most N SETBITs (over all clients) for at most S seconds, then
 *       prints one line:
 *       NAIVE clients=C requests=R errors=E seconds=S rps=X p50_ms=… p95_ms=…
 * p99_ms=… max_ms=… Exit status 0 when at least one request succeeded and none
 * failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <roaring/roaring.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY_FMT "key:%012" PRIu64

static const char *dsn;
static uint64_t n_keys = 1000000;
static uint32_t offset = 8;
static long n_requests;
static double seconds;
static double deadline; /* CLOCK_MONOTONIC seconds */

static atomic_long next_request;
static atomic_long done_ok;
static atomic_long done_err;
static atomic_int error_printed;
static float *latency_ms; /* one slot per request index; < 0 = not done */
static pthread_barrier_t start_line; /* twice: all connected, then go */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report_error(const char *what, PGconn *conn) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&error_printed, &expected, 1))
    fprintf(stderr, "naive: %s: %s", what, PQerrorMessage(conn));
}

static uint64_t xorshift(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

static PGconn *connect_db(void) {
  PGconn *conn = PQconnectdb(dsn);
  if (PQstatus(conn) != CONNECTION_OK) {
    fprintf(stderr, "naive: connect: %s", PQerrorMessage(conn));
    PQfinish(conn);
    return NULL;
  }
  return conn;
}

static int prepare(PGconn *conn, const char *name, const char *sql,
                   int nparams) {
  PGresult *r = PQprepare(conn, name, sql, nparams, NULL);
  int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok)
    fprintf(stderr, "naive: prepare %s: %s", name, PQerrorMessage(conn));
  PQclear(r);
  return ok;
}

/* One SETBIT, the seed's way. Returns 1 on success. */
static int naive_setbit(PGconn *conn, const char *key, char **buf,
                        size_t *cap) {
  const char *p1[1] = {key};
  int l1[1] = {(int)strlen(key)};
  int f1[1] = {0};
  PGresult *r = PQexecPrepared(conn, "sel", 1, p1, l1, f1, 1);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    report_error("SELECT", conn);
    PQclear(r);
    return 0;
  }
  roaring_bitmap_t *bm;
  int exists = PQntuples(r) == 1;
  if (exists) {
    bm = roaring_bitmap_portable_deserialize_safe(PQgetvalue(r, 0, 0),
                                                  (size_t)PQgetlength(r, 0, 0));
    if (!bm) {
      fprintf(stderr, "naive: row of %s does not deserialize\n", key);
      PQclear(r);
      return 0;
    }
  } else {
    bm = roaring_bitmap_create();
  }
  PQclear(r);
  roaring_bitmap_add(bm, offset);
  size_t need = roaring_bitmap_portable_size_in_bytes(bm);
  if (need > *cap) {
    char *nb = realloc(*buf, need);
    if (!nb) {
      roaring_bitmap_free(bm);
      return 0;
    }
    *buf = nb;
    *cap = need;
  }
  size_t len = roaring_bitmap_portable_serialize(bm, *buf);
  roaring_bitmap_free(bm);

  const char *p2[2] = {key, *buf};
  int l2[2] = {(int)strlen(key), (int)len};
  int f2[2] = {0, 1};
  r = PQexecPrepared(conn, exists ? "upd" : "ins", 2, p2, l2, f2, 0);
  int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok)
    report_error(exists ? "UPDATE" : "INSERT", conn);
  PQclear(r);
  return ok;
}

static void *client(void *arg) {
  uint64_t rng = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)time(NULL) ^ 0x5DEECE66Dull;
  if (rng == 0)
    rng = 1;
  PGconn *conn = connect_db();
  int ready =
      conn &&
      prepare(conn, "sel", "SELECT bits FROM bench_naive WHERE key = $1", 1) &&
      prepare(conn, "upd", "UPDATE bench_naive SET bits = $2 WHERE key = $1",
              2) &&
      prepare(conn, "ins",
              "INSERT INTO bench_naive (key, bits) VALUES ($1, $2) "
              "ON CONFLICT (key) DO UPDATE SET bits = EXCLUDED.bits",
              2);
  if (!ready)
    atomic_fetch_add(&done_err, 1);
  pthread_barrier_wait(&start_line); /* connected */
  pthread_barrier_wait(&start_line); /* main has set the deadline */
  char *buf = NULL;
  size_t cap = 0;
  char key[32];
  while (ready) {
    long i = atomic_fetch_add(&next_request, 1);
    if (i >= n_requests)
      break;
    double t0 = now_s();
    if (t0 >= deadline)
      break;
    snprintf(key, sizeof key, KEY_FMT, xorshift(&rng) % n_keys);
    if (naive_setbit(conn, key, &buf, &cap)) {
      latency_ms[i] = (float)((now_s() - t0) * 1000.0);
      atomic_fetch_add(&done_ok, 1);
    } else {
      atomic_fetch_add(&done_err, 1);
      if (PQstatus(conn) != CONNECTION_OK)
        break;
    }
  }
  free(buf);
  PQfinish(conn);
  return NULL;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static double percentile(const float *sorted, long n, double p) {
  if (n == 0)
    return 0;
  long i = (long)(p / 100.0 * (double)n + 0.999999) - 1; /* nearest rank */
  if (i < 0)
    i = 0;
  if (i >= n)
    i = n - 1;
  return sorted[i];
}

static int prefill(long n) {
  PGconn *conn = connect_db();
  if (!conn)
    return 1;
  roaring_bitmap_t *bm = roaring_bitmap_create();
  roaring_bitmap_add(bm, 7);
  size_t len = roaring_bitmap_portable_size_in_bytes(bm);
  char *buf = malloc(len);
  if (!buf)
    return 1;
  roaring_bitmap_portable_serialize(bm, buf);
  roaring_bitmap_free(bm);
  char count[32];
  snprintf(count, sizeof count, "%ld", n);
  PGresult *r = PQexec(
      conn,
      "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_naive; "
      "CREATE TABLE bench_naive (key text PRIMARY KEY, bits bytea NOT NULL)");
  int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  if (ok) {
    const char *p[2] = {buf, count};
    int l[2] = {(int)len, (int)strlen(count)};
    int f[2] = {1, 0};
    r = PQexecParams(conn,
                     "INSERT INTO bench_naive (key, bits) "
                     "SELECT 'key:' || lpad(i::text, 12, '0'), $1 FROM "
                     "generate_series(0, $2::bigint - 1) i",
                     2, NULL, p, l, f, 0);
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
  }
  if (ok) {
    r = PQexec(conn, "VACUUM (ANALYZE) bench_naive");
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
  }
  if (!ok)
    fprintf(stderr, "naive: prefill: %s", PQerrorMessage(conn));
  free(buf);
  PQfinish(conn);
  return ok ? 0 : 1;
}

static void usage(void) {
  fprintf(stderr, "usage: naive --dsn DSN --prefill N\n"
                  "       naive --dsn DSN --clients C --requests N --seconds S "
                  "[--keys K] [--offset O]\n");
  exit(2);
}

static long parse_long(const char *s, long min, long max, const char *what) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max) {
    fprintf(stderr, "naive: %s must be an integer in %ld..%ld\n", what, min,
            max);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  long clients = 0, fill = -1;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc)
      usage();
    const char *a = argv[i], *v = argv[++i];
    if (!strcmp(a, "--dsn"))
      dsn = v;
    else if (!strcmp(a, "--prefill"))
      fill = parse_long(v, 0, 100000000, "--prefill");
    else if (!strcmp(a, "--clients"))
      clients = parse_long(v, 1, 1000, "--clients");
    else if (!strcmp(a, "--requests"))
      n_requests = parse_long(v, 1, 100000000, "--requests");
    else if (!strcmp(a, "--seconds"))
      seconds = (double)parse_long(v, 1, 3600, "--seconds");
    else if (!strcmp(a, "--keys"))
      n_keys = (uint64_t)parse_long(v, 1, 1000000000000L, "--keys");
    else if (!strcmp(a, "--offset"))
      offset = (uint32_t)parse_long(v, 0, 4294967295L, "--offset");
    else
      usage();
  }
  if (!dsn)
    usage();
  if (fill >= 0)
    return prefill(fill);
  if (!clients || !n_requests || seconds <= 0)
    usage();

  latency_ms = malloc(sizeof *latency_ms * (size_t)n_requests);
  pthread_t *th = calloc((size_t)clients, sizeof *th);
  if (!latency_ms || !th)
    return 1;
  for (long i = 0; i < n_requests; i++)
    latency_ms[i] = -1;
  pthread_barrier_init(&start_line, NULL, (unsigned)clients + 1);
  for (long c = 0; c < clients; c++) {
    if (pthread_create(&th[c], NULL, client, (void *)(uintptr_t)(c + 1))) {
      fprintf(stderr, "naive: pthread_create failed\n");
      return 1;
    }
  }
  /* The clock starts when every client has connected and prepared. */
  pthread_barrier_wait(&start_line);
  double t0 = now_s();
  deadline = t0 + seconds;
  pthread_barrier_wait(&start_line);
  for (long c = 0; c < clients; c++)
    pthread_join(th[c], NULL);
  double elapsed = now_s() - t0;

  long ok = atomic_load(&done_ok), err = atomic_load(&done_err), n = 0;
  for (long i = 0; i < n_requests; i++)
    if (latency_ms[i] >= 0)
      latency_ms[n++] = latency_ms[i];
  qsort(latency_ms, (size_t)n, sizeof *latency_ms, cmp_float);
  printf("NAIVE clients=%ld requests=%ld errors=%ld seconds=%.2f rps=%.1f "
         "p50_ms=%.3f p95_ms=%.3f p99_ms=%.3f "
         "max_ms=%.3f\n",
         clients, ok, err, elapsed, elapsed > 0 ? (double)ok / elapsed : 0.0,
         percentile(latency_ms, n, 50), percentile(latency_ms, n, 95),
         percentile(latency_ms, n, 99), n ? latency_ms[n - 1] : 0.0);
  free(latency_ms);
  free(th);
  return ok > 0 && err == 0 ? 0 : 1;
}
