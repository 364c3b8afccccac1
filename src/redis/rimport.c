/* rimport.c — `bitmapd import`: walks a Redis server with SCAN (never KEYS), keeps its
 * string values and writes them through the service's write path (wpath), one unit
 * per key, a batch of keys per wpath on a private event loop. Blocking hiredis calls
 * are fine here: this one-shot mode has no clients to starve. */
#include "redis/rimport.h"

#include <event2/event.h>
#include <getopt.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "redis/bitval.h"
#include "store/bucket.h"
#include "store/codec.h"
#include "store/db.h"
#include "store/store.h"
#include "store/wpath.h"

#define SCAN_COUNT 1000        /* SCAN's COUNT hint */
#define BATCH_KEYS 500         /* string keys per wpath: one load and one CAS statement each */
#define GET_PIPELINE 64        /* GETs sent ahead: bounds what Redis buffers for us */
#define ERRORS_KEPT 5          /* failures named in the summary */
#define REDIS_CONNECT_S 5
#define REDIS_TIMEOUT_S 60     /* one reply; a big GET of 512 MB must fit in it */
#define DB_WAIT_MS 10000       /* for the pool's first connection */
#define TTY_REDRAW_S 0.1
#define LINE_EVERY_S 2.0
#define LINE_EVERY_KEYS 10000

struct rurl {
    char *host;
    int port;
    char *user;     /* NULL: AUTH with the password alone */
    char *password; /* NULL: no AUTH */
    int db;         /* SELECTed when not 0 */
};

/* Why a scanned key was not imported: one counter each, named in the summary. */
enum skip { SKIP_LIST, SKIP_HASH, SKIP_SET, SKIP_ZSET, SKIP_STREAM, SKIP_OTHER, SKIP_LONG, SKIP_GONE, SKIP_N };

/* TYPE answers for each non-string skip reason; SKIP_OTHER catches module types. */
static const char *const skip_types[SKIP_OTHER] = {"list", "hash", "set", "zset", "stream"};

struct imp_item {
    char *key; /* owned */
    size_t keylen;
    roaring_bitmap_t *bm; /* the value's bits, run-optimized; owned */
    uint64_t len;         /* the value's length in bytes (Redis STRLEN) */
    uint64_t stored;      /* bytes of its stored encoding */
    int64_t expire_ms;    /* its deadline, ms since the epoch (0: none) */
};

struct imp_stats {
    uint64_t scanned, imported, unchanged, failed, dup, skipped[SKIP_N];
    uint64_t redis_bytes, stored_bytes;
    char errors[ERRORS_KEPT][420];
    int nerrors;
    char long_example[80]; /* one key that was too long, quoted */
};

struct imp {
    const struct config *cfg;
    const char *from, *match, *password;
    bool dry_run;
    struct rurl url;
    char where[300]; /* "host:port" for messages (never the password) */
    redisContext *rc;
    struct event_base *base;
    struct db *db;
    struct store *store;
    struct imp_item items[BATCH_KEYS];
    size_t nitems;
    struct imp_stats st;
    bool aborted; /* Redis or PostgreSQL went away: the import stopped early */
    bool exact_ttl; /* Redis has PEXPIRETIME (7.0): deadlines are copied exactly, else
                       from PTTL and this clock (to within the round trip) */
    /* the wpath in progress */
    bool wp_finished;
    enum wp_status wp_status;
    char wp_message[200];
    /* progress */
    bool tty;
    uint64_t total; /* DBSIZE at the start: an upper estimate of what SCAN returns */
    double t0, last_draw;
    uint64_t last_keys;
};

void rimport_usage(FILE *out)
{
    fprintf(out,
            "usage: bitmapd [-c service.ini] [--set section.name=value]... import --from redis://HOST[:PORT]\n"
            "               [--match PATTERN] [--dry-run] [--password PW]\n"
            "  --from URL       redis://HOST[:PORT][/DB] or redis://[USER]:PASSWORD@HOST[:PORT] (port 6379)\n"
            "  --match PATTERN  only keys matching this SCAN MATCH pattern (default: every key)\n"
            "  --dry-run        read Redis and measure; write nothing (needs no database)\n"
            "  --password PW    AUTH with PW (overrides a password in the URL)\n"
            "Copies string values into the store; other types and keys longer than [resp] max_key_bytes\n"
            "are skipped. Exit status: 0 nothing failed, 1 some keys failed, 2 usage or connection error.\n");
}

/* ---- small helpers ---------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key as 'text' for messages: printable bytes as they are, others as \xNN, cut at 48 bytes. */
static void quote_key(char *out, size_t outlen, const char *key, size_t len)
{
    size_t o = 0, shown = len > 48 ? 48 : len;
    if (outlen < 8) return;
    out[o++] = '\'';
    for (size_t i = 0; i < shown && o + 8 < outlen; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'' && ch != '\\')
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", ch);
    }
    if (shown < len && o + 5 < outlen) o += (size_t)snprintf(out + o, outlen - o, "...");
    out[o++] = '\'';
    out[o] = '\0';
}

/* Counts a failed key (key may be NULL when the message names it) and keeps the first
 * few messages for the summary. */
__attribute__((format(printf, 4, 5))) static void imp_fail(struct imp *im, const char *key, size_t keylen,
                                                           const char *fmt, ...)
{
    va_list ap;
    char why[200], q[200]; /* a quoted key takes at most 2 + 48 * 4 + 3 + 1 bytes */
    im->st.failed++;
    if (im->st.nerrors >= ERRORS_KEPT) return;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    char *e = im->st.errors[im->st.nerrors++];
    if (key) {
        quote_key(q, sizeof(q), key, keylen);
        snprintf(e, sizeof(im->st.errors[0]), "key %s: %s", q, why);
    } else {
        snprintf(e, sizeof(im->st.errors[0]), "%s", why);
    }
}

static void item_free(struct imp_item *it)
{
    free(it->key);
    if (it->bm) roaring_bitmap_free(it->bm);
    memset(it, 0, sizeof(*it));
}

/* ---- redis:// URLs ---------------------------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20; /* lower case */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool url_error(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    return false;
}

/* Decodes %XX escapes of a URL part; NULL on a bad escape or out of memory. */
static char *url_decode(const char *s, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            *o++ = s[i];
            continue;
        }
        int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1, lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
        if (lo < 0) {
            free(out);
            return NULL;
        }
        *o++ = (char)(hi * 16 + lo);
        i += 2;
    }
    *o = '\0';
    return out;
}

/* user:password@ (redis-cli's reading: without ':' the whole part is the password). */
static bool rurl_userinfo(struct rurl *u, const char *s, size_t len, char *err, size_t errlen)
{
    const char *colon = memchr(s, ':', len);
    if (colon && colon > s && !(u->user = url_decode(s, (size_t)(colon - s)))) goto bad;
    if (colon) {
        len -= (size_t)(colon + 1 - s);
        s = colon + 1;
    }
    if (!(u->password = url_decode(s, len))) goto bad;
    return true;
bad:
    return url_error(err, errlen, "bad %-escape in the user or password");
}

/* HOST, [V6ADDR], either with :PORT. */
static bool rurl_hostport(struct rurl *u, const char *s, size_t len, char *err, size_t errlen)
{
    const char *end = s + len, *hend, *port = NULL;
    if (len && *s == '[') {
        if (!(hend = memchr(s, ']', len))) return url_error(err, errlen, "unclosed '[' in the host");
        s++;
        if (hend + 1 < end && hend[1] != ':') return url_error(err, errlen, "junk after ']'");
        if (hend + 1 < end) port = hend + 2;
    } else {
        hend = memchr(s, ':', len);
        if (hend) port = hend + 1;
        else hend = end;
    }
    if (hend == s) return url_error(err, errlen, "no host");
    if (!(u->host = strndup(s, (size_t)(hend - s)))) return url_error(err, errlen, "out of memory");
    if (!port) return true;
    size_t digits = (size_t)(end - port);
    long v = digits >= 1 && digits <= 5 && strspn(port, "0123456789") >= digits ? strtol(port, NULL, 10) : 0;
    if (v < 1 || v > 65535) return url_error(err, errlen, "the port must be a number from 1 to 65535");
    u->port = (int)v;
    return true;
}

/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]; the password may hold '@' and '/' if
 * the last '@' ends it. Error messages never repeat the URL (it may hold a password). */
static bool rurl_parse(const char *s, struct rurl *u, char *err, size_t errlen)
{
    static const char scheme[] = "redis://";
    const char *p = s + sizeof(scheme) - 1, *at, *path;

    memset(u, 0, sizeof(*u));
    u->port = 6379;
    if (strncmp(s, scheme, sizeof(scheme) - 1) != 0)
        return url_error(err, errlen, "it must start with redis:// (rediss:// and unix sockets are not supported)");
    if ((at = strrchr(p, '@')) != NULL) {
        if (!rurl_userinfo(u, p, (size_t)(at - p), err, errlen)) return false;
        p = at + 1;
    }
    path = p + strcspn(p, "/?#");
    if (!rurl_hostport(u, p, (size_t)(path - p), err, errlen)) return false;
    if (*path == '\0' || strcmp(path, "/") == 0) return true;
    char *end;
    long db = *path == '/' && path[1] >= '0' && path[1] <= '9' ? strtol(path + 1, &end, 10) : -1;
    if (db < 0 || db > 1000000 || *end != '\0')
        return url_error(err, errlen, "after HOST:PORT only /DB (a database number) may follow");
    u->db = (int)db;
    return true;
}

static void rurl_free(struct rurl *u)
{
    free(u->host);
    free(u->user);
    free(u->password);
}

/* ---- Redis ------------------------------------------------------------------------------- */

/* A reply, or NULL after saying why: the connection failed (aborting the import) or
 * Redis answered an error. */
/* fmt is hiredis's (%b takes a pointer and a size_t), not printf's. */
static redisReply *imp_redis(struct imp *im, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(im->rc, fmt, ap);
    va_end(ap);
    if (!r) {
        fprintf(stderr, "bitmapd: redis at %s: %s\n", im->where, im->rc->errstr[0] ? im->rc->errstr : "no reply");
        im->aborted = true;
        return NULL;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "bitmapd: redis at %s answered: %.*s\n", im->where, (int)r->len, r->str);
        freeReplyObject(r);
        return NULL;
    }
    return r;
}

/* Connects, AUTHs, SELECTs and reads DBSIZE; false (message written) on any failure. */
static bool imp_connect(struct imp *im)
{
    struct timeval tv = {REDIS_CONNECT_S, 0};
    redisReply *r;
    const char *pw = im->password ? im->password : im->url.password;

    im->rc = redisConnectWithTimeout(im->url.host, im->url.port, tv);
    if (!im->rc || im->rc->err) {
        fprintf(stderr, "bitmapd: cannot connect to redis at %s: %s\n", im->where,
                im->rc ? im->rc->errstr : "out of memory");
        return false;
    }
    tv.tv_sec = REDIS_TIMEOUT_S;
    if (redisSetTimeout(im->rc, tv) != REDIS_OK) {
        fprintf(stderr, "bitmapd: cannot connect to redis at %s: cannot set a timeout\n", im->where);
        return false;
    }
    if (pw) {
        r = im->url.user ? imp_redis(im, "AUTH %s %s", im->url.user, pw) : imp_redis(im, "AUTH %s", pw);
        if (!r) return false;
        freeReplyObject(r);
    }
    if (im->url.db) {
        if (!(r = imp_redis(im, "SELECT %d", im->url.db))) return false;
        freeReplyObject(r);
    }
    if (!(r = imp_redis(im, "DBSIZE"))) {
        if (!pw) fprintf(stderr, "bitmapd: (give --password or redis://:PASSWORD@HOST:PORT if it needs AUTH)\n");
        return false;
    }
    im->total = r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? (uint64_t)r->integer : 0;
    freeReplyObject(r);
    /* an error (an older Redis) is the answer here, not a failure */
    r = redisCommand(im->rc, "PEXPIRETIME %s", "bitmapd:import:probe");
    if (!r) {
        fprintf(stderr, "bitmapd: redis at %s: %s\n", im->where, im->rc->errstr);
        return false;
    }
    im->exact_ttl = r->type == REDIS_REPLY_INTEGER;
    freeReplyObject(r);
    return true;
}

/* ---- progress ---------------------------------------------------------------------------- */

static uint64_t imp_done_keys(const struct imp *im)
{
    uint64_t n = im->st.imported + im->st.unchanged + im->st.failed + im->st.dup;
    for (int i = 0; i < SKIP_N; i++) n += im->st.skipped[i];
    return n;
}

/* A bar redrawn in place on a terminal; otherwise a line every few seconds or keys. */
static void imp_progress(struct imp *im, bool last)
{
    double t = now_s(), el = t - im->t0;
    uint64_t done = imp_done_keys(im), total = im->total > done ? im->total : done;
    double rate = el > 0 ? (double)done / el : 0;
    long eta = rate > 0 ? (long)((double)(total - done) / rate + 0.5) : 0;
    char bar[31];

    if (im->tty) {
        if (!last && t - im->last_draw < TTY_REDRAW_S) return;
        int fill = total ? (int)(30 * done / total) : 30;
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %llu/%llu keys  %.0f keys/s  ETA %ld:%02ld\033[K%s", bar,
                (unsigned long long)done, (unsigned long long)total, rate, eta / 60, eta % 60, last ? "\n" : "");
    } else {
        if (last || (t - im->last_draw < LINE_EVERY_S && done - im->last_keys < LINE_EVERY_KEYS)) return;
        fprintf(stderr, "import: %llu of at most %llu keys, %.0f keys/s, ETA %ld s\n", (unsigned long long)done,
                (unsigned long long)total, rate, eta);
    }
    fflush(stderr);
    im->last_draw = t;
    im->last_keys = done;
}

/* ---- one batch: GET, then write ---------------------------------------------------------- */

static int item_cmp(const void *a, const void *b)
{
    const struct imp_item *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->keylen < y->keylen ? x->keylen : y->keylen);
    return c ? c : (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

/* SCAN may return a key twice; the write path needs distinct keys in one statement. */
static void imp_dedupe(struct imp *im)
{
    size_t n = 0;
    qsort(im->items, im->nitems, sizeof(im->items[0]), item_cmp);
    for (size_t i = 0; i < im->nitems; i++) {
        if (n && item_cmp(&im->items[n - 1], &im->items[i]) == 0) {
            item_free(&im->items[i]);
            im->st.dup++;
            continue;
        }
        im->items[n++] = im->items[i];
    }
    im->nitems = n;
}

/* Turns one GET reply into the item's bitmap; false when the key is not imported
 * (counted here as skipped or failed). */
static bool imp_take_value(struct imp *im, struct imp_item *it, const redisReply *r)
{
    if (r->type == REDIS_REPLY_NIL) {
        im->st.skipped[SKIP_GONE]++; /* deleted since SCAN */
        return false;
    }
    if (r->type == REDIS_REPLY_ERROR) { /* e.g. WRONGTYPE: replaced by another type since TYPE */
        imp_fail(im, it->key, it->keylen, "GET answered %.*s", (int)r->len, r->str);
        return false;
    }
    if (r->type != REDIS_REPLY_STRING) {
        imp_fail(im, it->key, it->keylen, "GET answered something other than a string");
        return false;
    }
    if (!(it->bm = bv_from_bytes((const uint8_t *)r->str, r->len))) {
        imp_fail(im, it->key, it->keylen, "out of memory");
        return false;
    }
    it->len = r->len;
    it->stored = codec_encoded_size(it->bm); /* run-optimizes it, as codec_encode() will */
    return true;
}

/* The deadline of a key from its PEXPIRETIME (or PTTL) reply; false when the key has
 * gone meanwhile (expired between the GET and this). */
static bool imp_take_expiry(struct imp *im, struct imp_item *it, const redisReply *r)
{
    it->expire_ms = 0;
    if (r->type != REDIS_REPLY_INTEGER) {
        imp_fail(im, it->key, it->keylen, "%s answered something other than an integer",
                 im->exact_ttl ? "PEXPIRETIME" : "PTTL");
        return false;
    }
    if (r->integer == -2) {
        im->st.skipped[SKIP_GONE]++;
        return false;
    }
    if (r->integer >= 0) {
        long long when = im->exact_ttl ? r->integer : (long long)wall_ms() + r->integer;
        it->expire_ms = when > 0 ? when : 1; /* a deadline passed: the key reads as absent */
    }
    return true;
}

/* GETs the batch's values and deadlines, GET_PIPELINE keys at a time; keeps the items
 * that have a value. */
static void imp_fetch(struct imp *im)
{
    size_t sent = 0, got = 0, kept = 0;
    while (got < im->nitems && !im->aborted) {
        for (; sent < im->nitems && sent < got + GET_PIPELINE; sent++) {
            redisAppendCommand(im->rc, "GET %b", im->items[sent].key, im->items[sent].keylen);
            redisAppendCommand(im->rc, im->exact_ttl ? "PEXPIRETIME %b" : "PTTL %b", im->items[sent].key,
                               im->items[sent].keylen);
        }
        redisReply *r = NULL, *t = NULL;
        if (redisGetReply(im->rc, (void **)&r) != REDIS_OK || redisGetReply(im->rc, (void **)&t) != REDIS_OK) {
            fprintf(stderr, "bitmapd: redis at %s: %s\n", im->where, im->rc->errstr);
            if (r) freeReplyObject(r);
            im->aborted = true;
            break;
        }
        struct imp_item *it = &im->items[got++];
        bool ok = imp_take_value(im, it, r) && imp_take_expiry(im, it, t);
        freeReplyObject(r);
        freeReplyObject(t);
        if (ok)
            im->items[kept++] = *it;
        else
            item_free(it);
    }
    for (size_t i = got; i < im->nitems; i++) item_free(&im->items[i]);
    im->nitems = kept;
}

static void imp_count_ok(struct imp *im, const struct imp_item *it, bool written)
{
    if (written)
        im->st.imported++;
    else
        im->st.unchanged++;
    im->st.redis_bytes += it->len;
    im->st.stored_bytes += it->stored;
}

/* Sets the key to the Redis value unless it already holds exactly that (same bits and
 * same length), so that running the import again writes nothing. May run more than once
 * for a unit (after a conflict), so the item's bitmap is copied, never given away. */
static enum wp_mutation imp_mutate(struct wpath *wp, struct wp_unit *u, void *arg)
{
    struct imp *im = arg;
    const struct imp_item *it = &im->items[u - wpath_units(wp)];
    struct wp_key *k = &u->keys[0];

    u->aux = 0;
    /* a deadline read through PTTL moves with the round trip: within a second is the same */
    int64_t skew = k->expire_ms - it->expire_ms, slack = im->exact_ttl ? 0 : 1000;
    bool same_deadline = k->expire_ms && it->expire_ms ? skew <= slack && -skew <= slack
                                                        : k->expire_ms == it->expire_ms;
    if (k->nbytes == (int64_t)it->len && same_deadline && roaring_bitmap_equals(k->bm, it->bm))
        return WP_UNCHANGED;
    roaring_bitmap_t *bm = roaring_bitmap_copy(it->bm);
    if (!bm) {
        snprintf(u->error, sizeof(u->error), "out of memory");
        return WP_REJECT;
    }
    roaring_bitmap_free(k->bm);
    k->bm = bm;
    k->nbytes = (int64_t)it->len;
    k->expire_ms = it->expire_ms;
    k->dirty = true;
    u->aux = 1;
    return WP_CHANGED;
}

static void imp_wp_done(struct wpath *wp, enum wp_status st, const char *message, void *arg)
{
    struct imp *im = arg;
    im->wp_finished = true;
    im->wp_status = st;
    snprintf(im->wp_message, sizeof(im->wp_message), "%s", message ? message : "");
}

static const struct wpath_ops imp_wp_ops = {.mutate = imp_mutate, .done = imp_wp_done};

/* Counts each unit's outcome; a batch that failed as a whole stops the import. */
static void imp_tally(struct imp *im, struct wpath *wp)
{
    const struct wp_unit *units = wpath_units(wp);
    for (size_t i = 0; i < im->nitems; i++) {
        const struct wp_unit *u = &units[i];
        const struct imp_item *it = &im->items[i];
        if (!u->done)
            imp_fail(im, it->key, it->keylen, "not written: %s%s%s", im->wp_message[0] ? im->wp_message : "",
                     im->wp_message[0] ? "; " : "",
                     im->wp_status == WP_UNAVAILABLE ? "database unavailable" : "the batch failed");
        else if (u->status == WP_OK)
            imp_count_ok(im, it, u->aux != 0);
        else if (u->status == WP_CORRUPT)
            imp_fail(im, NULL, 0, "%s; the key was not changed", u->error);
        else if (u->status == WP_CONFLICTED)
            imp_fail(im, it->key, it->keylen, "kept conflicting with other writers ([postgres] max_retries)");
        else
            imp_fail(im, it->key, it->keylen, "%s", u->error[0] ? u->error : "rejected");
    }
    if (im->wp_status != WP_OK) im->aborted = true;
}

/* Writes the batch as one wpath and runs the loop until it is done. */
static void imp_write(struct imp *im)
{
    struct wpath *wp = wpath_new(im->store, im->cfg, im->nitems, &imp_wp_ops, im, true);
    size_t i = 0;

    for (; wp && i < im->nitems; i++) {
        struct wp_unit *u = &wpath_units(wp)[i];
        u->nkeys = 1;
        if (!wp_key_set(&u->keys[0], im->items[i].key, im->items[i].keylen)) break;
    }
    if (!wp || i < im->nitems) {
        wpath_free(wp);
        for (i = 0; i < im->nitems; i++) imp_fail(im, im->items[i].key, im->items[i].keylen, "out of memory");
        im->aborted = true;
        return;
    }
    im->wp_finished = false;
    im->wp_status = WP_FAILED;
    im->wp_message[0] = '\0';
    wpath_run(wp);
    while (!im->wp_finished)
        if (event_base_loop(im->base, EVLOOP_ONCE) != 0) break; /* nothing left to wait for */
    if (!im->wp_finished) snprintf(im->wp_message, sizeof(im->wp_message), "the event loop stopped");
    imp_tally(im, wp);
    wpath_free(wp);
}

/* Handles the batch of string keys collected so far. */
static void imp_flush(struct imp *im)
{
    imp_dedupe(im);
    imp_fetch(im);
    if (im->dry_run)
        for (size_t i = 0; i < im->nitems; i++) imp_count_ok(im, &im->items[i], true);
    else if (im->nitems && !im->aborted)
        imp_write(im);
    for (size_t i = 0; i < im->nitems; i++) item_free(&im->items[i]);
    im->nitems = 0;
    imp_progress(im, false);
}

/* ---- scanning ---------------------------------------------------------------------------- */

/* Adds a string key to the batch, or counts why it is skipped. */
static void imp_consider(struct imp *im, const redisReply *key, const redisReply *type)
{
    int s;
    if (type->type != REDIS_REPLY_STATUS && type->type != REDIS_REPLY_STRING) {
        imp_fail(im, key->str, key->len, "TYPE answered %.*s", (int)type->len, type->str ? type->str : "?");
        return;
    }
    if (strcmp(type->str, "string") != 0) {
        for (s = 0; s < SKIP_OTHER && strcmp(type->str, skip_types[s]) != 0; s++) continue;
        im->st.skipped[strcmp(type->str, "none") == 0 ? SKIP_GONE : s]++;
        return;
    }
    if (key->len > (size_t)im->cfg->resp_max_key_bytes) {
        if (!im->st.skipped[SKIP_LONG]++)
            quote_key(im->st.long_example, sizeof(im->st.long_example), key->str, key->len);
        return;
    }
    if (bucket_name_family((const uint8_t *)key->str, key->len) != BUCKET_NONE) {
        imp_fail(im, key->str, key->len, "the name is reserved for a bucket row of %s keys (docs/resp.md)",
                 bucket_family_name(bucket_name_family((const uint8_t *)key->str, key->len)));
        return;
    }
    struct imp_item *it = &im->items[im->nitems];
    if (!(it->key = malloc(key->len ? key->len : 1))) {
        imp_fail(im, key->str, key->len, "out of memory");
        return;
    }
    memcpy(it->key, key->str, key->len);
    it->keylen = key->len;
    if (++im->nitems == BATCH_KEYS) imp_flush(im);
}

/* TYPE of every key of one SCAN page (pipelined), then each key considered in turn. */
static void imp_page(struct imp *im, const redisReply *keys)
{
    redisReply **types = calloc(keys->elements ? keys->elements : 1, sizeof(*types));
    size_t got = 0;

    if (!types) {
        fprintf(stderr, "bitmapd: out of memory\n");
        im->aborted = true;
        return;
    }
    for (size_t i = 0; i < keys->elements; i++)
        redisAppendCommand(im->rc, "TYPE %b", keys->element[i]->str, keys->element[i]->len);
    for (; got < keys->elements; got++)
        if (redisGetReply(im->rc, (void **)&types[got]) != REDIS_OK) {
            fprintf(stderr, "bitmapd: redis at %s: %s\n", im->where, im->rc->errstr);
            im->aborted = true;
            break;
        }
    im->st.scanned += got;
    for (size_t i = 0; i < got && !im->aborted; i++) imp_consider(im, keys->element[i], types[i]);
    for (size_t i = 0; i < got; i++) freeReplyObject(types[i]);
    free(types);
}

static bool scan_reply_ok(const redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
        r->element[0]->len >= 32 || r->element[1]->type != REDIS_REPLY_ARRAY)
        return false;
    for (size_t i = 0; i < r->element[1]->elements; i++)
        if (r->element[1]->element[i]->type != REDIS_REPLY_STRING) return false;
    return true;
}

static void imp_run(struct imp *im)
{
    char cursor[32] = "0";
    im->t0 = im->last_draw = now_s();
    do {
        redisReply *r = imp_redis(im, "SCAN %s MATCH %b COUNT %d", cursor, im->match, strlen(im->match), SCAN_COUNT);
        if (!r || !scan_reply_ok(r)) {
            if (r) fprintf(stderr, "bitmapd: redis at %s: unexpected answer to SCAN\n", im->where);
            if (r) freeReplyObject(r);
            im->aborted = true;
            break;
        }
        memcpy(cursor, r->element[0]->str, r->element[0]->len);
        cursor[r->element[0]->len] = '\0';
        imp_page(im, r->element[1]);
        freeReplyObject(r);
        imp_progress(im, false);
    } while (!im->aborted && strcmp(cursor, "0") != 0);
    if (!im->aborted) imp_flush(im);
    for (size_t i = 0; i < im->nitems; i++) item_free(&im->items[i]);
    im->nitems = 0;
    imp_progress(im, true);
}

/* ---- the store --------------------------------------------------------------------------- */

static void imp_wait_tick(evutil_socket_t fd, short what, void *arg) { (void)fd, (void)what, (void)arg; }

/* The same pool and store as the service; waits for the first connection, since
 * queries sent while no connection is up fail at once. */
static bool imp_open_store(struct imp *im)
{
    if (!(im->base = event_base_new()) || !(im->db = db_new(im->base, im->cfg, im->cfg->pg_dsn)) ||
        !(im->store = store_new(im->db, im->cfg))) {
        fprintf(stderr, "bitmapd: out of memory\n");
        return false;
    }
    struct event *tick = evtimer_new(im->base, imp_wait_tick, NULL);
    struct timeval step = {0, 20 * 1000};
    for (int waited = 0; tick && !db_is_up(im->db) && waited < DB_WAIT_MS; waited += 20) {
        event_add(tick, &step);
        event_base_loop(im->base, EVLOOP_ONCE);
    }
    if (tick) event_free(tick);
    if (!db_is_up(im->db)) {
        fprintf(stderr, "bitmapd: cannot connect to PostgreSQL within %d s (see the log lines above)\n",
                DB_WAIT_MS / 1000);
        return false;
    }
    return true;
}

/* ---- the command ------------------------------------------------------------------------- */

/* One ", N what" part of the skipped line; the first part starts with ": ". */
static void summary_part(bool *first, uint64_t n, const char *what)
{
    if (!n) return;
    printf("%s%llu %s", *first ? ": " : ", ", (unsigned long long)n, what);
    *first = false;
}

static void imp_summary(const struct imp *im, double elapsed)
{
    const struct imp_stats *s = &im->st;
    uint64_t nskip = 0;
    bool first = true;
    char longer[160];

    for (int i = 0; i < SKIP_N; i++) nskip += s->skipped[i];
    printf("import from redis at %s, match '%s'%s\n", im->where, im->match, im->dry_run ? ", dry run" : "");
    printf("  scanned    %llu keys\n", (unsigned long long)s->scanned);
    if (im->dry_run) {
        printf("  imported   0 keys (dry run: nothing written; %llu string keys read)\n",
               (unsigned long long)s->imported);
    } else {
        printf("  imported   %llu keys (written)\n", (unsigned long long)s->imported);
        printf("  unchanged  %llu keys (already identical)\n", (unsigned long long)s->unchanged);
    }
    printf("  skipped    %llu keys", (unsigned long long)nskip);
    for (int i = 0; i < SKIP_OTHER; i++) summary_part(&first, s->skipped[i], skip_types[i]);
    summary_part(&first, s->skipped[SKIP_OTHER], "of another type");
    snprintf(longer, sizeof(longer), "with a name longer than %d bytes ([resp] max_key_bytes; e.g. %s)",
             im->cfg->resp_max_key_bytes, s->long_example);
    summary_part(&first, s->skipped[SKIP_LONG], longer);
    summary_part(&first, s->skipped[SKIP_GONE], "deleted during the import");
    printf("\n");
    if (s->dup) printf("  repeated   %llu keys (returned twice by SCAN, handled once)\n", (unsigned long long)s->dup);
    printf("  failed     %llu keys\n", (unsigned long long)s->failed);
    for (int i = 0; i < s->nerrors; i++) printf("    %s\n", s->errors[i]);
    printf("  bytes      %llu as Redis values, %llu as stored", (unsigned long long)s->redis_bytes,
           (unsigned long long)s->stored_bytes);
    if (s->stored_bytes) printf(" (ratio %.2f)", (double)s->redis_bytes / (double)s->stored_bytes);
    printf("\n  elapsed    %.2f s\n", elapsed);
    if (im->aborted) printf("  stopped early (see the errors above): the keys not reached were not imported\n");
}

/* Parses the import's options; false (usage written) on an error or after --help. */
static bool imp_args(struct imp *im, int argc, char **argv, int *rc)
{
    static const struct option opts[] = {{"from", required_argument, NULL, 'f'},
                                         {"match", required_argument, NULL, 'm'},
                                         {"dry-run", no_argument, NULL, 'n'},
                                         {"password", required_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int opt;
    char err[200];

    im->match = "*";
    optind = 0; /* glibc: start over on this argv */
    while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (opt) {
        case 'f': im->from = optarg; break;
        case 'm': im->match = optarg; break;
        case 'n': im->dry_run = true; break;
        case 'p': im->password = optarg; break;
        case 'h': rimport_usage(stdout); *rc = RIMPORT_OK; return false;
        default: rimport_usage(stderr); return false;
        }
    }
    if (optind < argc || !im->from) {
        fprintf(stderr, "bitmapd import: %s\n", optind < argc ? "unexpected argument" : "--from is required");
        rimport_usage(stderr);
        return false;
    }
    if (!rurl_parse(im->from, &im->url, err, sizeof(err))) {
        fprintf(stderr, "bitmapd import: bad --from URL: %s (expected redis://[:PASSWORD@]HOST[:PORT])\n", err);
        return false;
    }
    bool v6 = strchr(im->url.host, ':') != NULL;
    snprintf(im->where, sizeof(im->where), "%s%s%s:%d", v6 ? "[" : "", im->url.host, v6 ? "]" : "", im->url.port);
    return true;
}

int rimport_main(const struct config *cfg, int argc, char **argv)
{
    struct imp *im = calloc(1, sizeof(*im));
    int rc = RIMPORT_USAGE;

    if (!im) {
        fprintf(stderr, "bitmapd: out of memory\n");
        return rc;
    }
    im->cfg = cfg;
    im->tty = isatty(STDERR_FILENO);
    signal(SIGPIPE, SIG_IGN); /* a Redis that goes away is an error reply, not a kill */
    if (!imp_args(im, argc, argv, &rc)) goto done;
    if (!im->dry_run && !*cfg->pg_dsn) { /* before anything else: nothing can be written */
        fprintf(stderr, "bitmapd: no database configured ([postgres] dsn or BITMAPD_DSN); --dry-run needs none\n");
        goto done;
    }
    if (!imp_connect(im) || (!im->dry_run && !imp_open_store(im))) goto done;
    imp_run(im);
    imp_summary(im, now_s() - im->t0);
    rc = im->st.failed || im->aborted ? RIMPORT_FAILED : RIMPORT_OK;
done:
    if (im->rc) redisFree(im->rc);
    store_free(im->store);
    db_free(im->db);
    if (im->base) event_base_free(im->base);
    rurl_free(&im->url);
    free(im);
    return rc;
}
