/* hotkey.c — many clients writing one key: SETBIT key offset value over RESP, the
 * same command stream against any server (bitmapd, redis-server), for `make bench`.
 *
 * Each of C clients (a thread with its own connection) keeps P commands in flight
 * (a pipeline of P, refilled as replies come back) until N commands in all were
 * answered or S seconds passed. Command j (a counter shared by all clients) is
 * SETBIT KEY (OFF + j mod R) ((j div R + 1) mod 2): offsets are distinct within each
 * pass over the range; the first pass sets, the next clears, and so on, so the
 * key stays within R bits and most commands change it. With -x the offsets of a pass
 * are scattered over the range (OFF + (j * S) mod R, S coprime with R and near 0.618 R):
 * each command lands in a different part of the key, as the ids of a day's active
 * users land all over a big bitmap.
 *
 * usage: hotkey -p PORT [-h HOST] [-c CLIENTS] [-P PIPELINE] [-n COMMANDS]
 *               [-s SECONDS] [-k KEY] [-o OFFSET] [-r RANGE] [-x]
 * prints: "hotkey: N commands in T s: R/s, errors E" and exits 1 on any error reply. */
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1", *key = "hotkey";
static int port, clients = 50, pipeline = 1, seconds = 10;
static long long total = 100000, offset0 = 0, range = 10000, stride = 1;
static atomic_llong next_cmd, answered, errors;
static double deadline;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long gcd(long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Sends command j; false when the run is over. */
static bool send_next(redisContext *c)
{
    long long j = atomic_fetch_add(&next_cmd, 1);
    if (j >= total || now() > deadline) return false;
    char off[32], val[4];
    unsigned long long at = (unsigned long long)(j % range) * (unsigned long long)stride % (unsigned long long)range;
    snprintf(off, sizeof(off), "%lld", offset0 + (long long)at);
    snprintf(val, sizeof(val), "%lld", (j / range + 1) % 2);
    return redisAppendCommand(c, "SETBIT %s %s %s", key, off, val) == REDIS_OK;
}

static void *client(void *arg)
{
    (void)arg;
    redisContext *c = redisConnect(host, port);
    int inflight = 0;
    if (!c || c->err) {
        fprintf(stderr, "hotkey: cannot connect to %s:%d\n", host, port);
        atomic_fetch_add(&errors, 1);
        if (c) redisFree(c);
        return NULL;
    }
    while (inflight < pipeline && send_next(c)) inflight++;
    while (inflight > 0) {
        redisReply *r = NULL;
        if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) {
            atomic_fetch_add(&errors, 1);
            break;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            if (atomic_fetch_add(&errors, 1) == 0) fprintf(stderr, "hotkey: error reply: %s\n", r->str);
        } else {
            atomic_fetch_add(&answered, 1);
        }
        freeReplyObject(r);
        inflight--;
        if (send_next(c)) inflight++;
    }
    redisFree(c);
    return NULL;
}

int main(int argc, char **argv)
{
    int opt;
    bool scatter = false;
    while ((opt = getopt(argc, argv, "h:p:c:P:n:s:k:o:r:x")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'c': clients = atoi(optarg); break;
        case 'P': pipeline = atoi(optarg); break;
        case 'n': total = atoll(optarg); break;
        case 's': seconds = atoi(optarg); break;
        case 'k': key = optarg; break;
        case 'o': offset0 = atoll(optarg); break;
        case 'r': range = atoll(optarg); break;
        case 'x': scatter = true; break;
        default: return 2;
        }
    }
    if (port <= 0 || clients < 1 || clients > 1000 || pipeline < 1 || pipeline > 10000 || total < 1 ||
        seconds < 1 || seconds > 600 || range < 1 || offset0 < 0 || offset0 + range > 4294967296LL) {
        fprintf(stderr, "usage: hotkey -p PORT [-h HOST] [-c CLIENTS] [-P PIPELINE] [-n COMMANDS] [-s SECONDS]"
                        " [-k KEY] [-o OFFSET] [-r RANGE] [-x]\n");
        return 2;
    }
    if (scatter && range > 2) /* a permutation of each pass: the stride shares no factor with the range */
        for (stride = range * 618 / 1000; gcd(stride, range) != 1; stride++) {}
    pthread_t *t = calloc((size_t)clients, sizeof(*t));
    if (!t) return 2;
    double t0 = now();
    deadline = t0 + seconds;
    for (int i = 0; i < clients; i++)
        if (pthread_create(&t[i], NULL, client, NULL) != 0) return 2;
    for (int i = 0; i < clients; i++) pthread_join(t[i], NULL);
    double dt = now() - t0;
    long long n = atomic_load(&answered);
    printf("hotkey: %lld commands in %.3f s: %.0f/s, errors %lld\n", n, dt, (double)n / dt, (long long)atomic_load(&errors));
    free(t);
    return atomic_load(&errors) ? 1 : 0;
}
