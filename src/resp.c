/* resp.c — the Redis-protocol listener.
 *
 * Each client has a FIFO of parsed commands. A command starts when no earlier,
 * unfinished command of the same client touches one of its keys with a write (so a
 * pipelined SETBIT then GETBIT of one key read in order), and replies leave in
 * command order whatever order the database answers in. A write's reply is written
 * only after its commit. The socket stops being read while [resp] max_pipeline
 * commands are queued, so one client cannot queue without bound. */
#include "resp.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "auth.h"
#include "cache.h"
#include "log.h"
#include "metrics.h"
#include "rcmd.h"
#include "rkv.h"
#include "store.h"

#define BITMAPD_VERSION "0.3.0"
#define REDIS_COMPAT_VERSION "7.0.15" /* the Redis whose replies we match */
#define MAX_STARTED 1024              /* commands of one client running at once (a train merges a
                                       * pipeline of one-key writes: more at once, fewer commits) */
#define OUTPUT_HIGH_WATER (64u << 20) /* stop reading a client that does not read replies */

struct resp_server {
    struct app *app;
    struct evconnlistener *lis;
    struct rclient *clients;
    uint64_t next_id;
    int nclients;
    unsigned long long connections, commands, rejected;
    bool draining; /* SIGTERM: answer what was received, read nothing more */
    /* Replies are sent once per loop turn, straight to the socket (flush_cb): the
     * bufferevent's write event is enabled only while a client has output the socket
     * did not take, so a request answered at once costs one read and one write, not
     * two epoll_ctl calls more. */
    struct event *flush_ev;
    struct rclient *dirty; /* clients with replies to send this turn */
};

struct rclient {
    struct resp_server *srv;
    struct rclient *prev, *next; /* list of connected clients */
    struct bufferevent *bev;
    uint64_t id;
    int proto;
    bool authed;
    char *name, *lib_name, *lib_ver;
    struct rparser parser;
    struct rcmd *head, *tail;
    struct rcmd *next_start; /* the first command not started yet, or NULL (they start in order) */
    size_t queued;   /* commands in the FIFO */
    size_t started;  /* started and not finished */
    size_t started_other; /* of those, commands other than RC_MERGED writes */
    bool closing;    /* QUIT or a protocol error: read nothing more, close once flushed */
    bool gone;       /* the socket is closed; freed when nothing is in flight */
    bool eof;        /* the peer closed its side: answer what was read, then close */
    bool pumping, repump;
    time_t created;
    struct event *timer;  /* the idle or the command deadline, see client_arm_timer() */
    enum { DEADLINE_NONE, DEADLINE_IDLE, DEADLINE_COMMAND } deadline;
    bool parsed;          /* a whole command arrived since the deadline was set */
    struct rclient *dirty_prev, *dirty_next;
    bool dirty;           /* on srv->dirty */
    struct rcmd *spare;   /* a finished command kept for the next one (its reply buffer, empty) */
    /* Reading is ours, not the bufferevent's (which only writes): one recv per
     * readiness, without the FIONREAD ioctl libevent asks before each read. */
    struct event *rev;
    struct evbuffer *in;
    bool reading;         /* rev is added */
};

static int g_inflight;

int resp_inflight(void) { return g_inflight; }

int resp_server_unsent(const struct resp_server *srv)
{
    int n = 0;
    for (const struct rclient *cl = srv ? srv->clients : NULL; cl; cl = cl->next)
        if (cl->bev && evbuffer_get_length(bufferevent_get_output(cl->bev)) > 0) n++;
    return n;
}

#ifdef BITMAPD_JEMALLOC
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen); /* jemalloc */
/* Bytes the program has allocated: jemalloc's statistics, refreshed. */
static size_t heap_used(void)
{
    uint64_t epoch = 1;
    size_t allocated = 0, len = sizeof(epoch);
    mallctl("epoch", &epoch, &len, &epoch, len);
    len = sizeof(allocated);
    return mallctl("stats.allocated", &allocated, &len, NULL, 0) == 0 ? allocated : 0;
}
#else
static size_t heap_used(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}
#endif

static void client_pump(struct rclient *cl);
static void client_free(struct rclient *cl);
static void client_arm_timer(struct rclient *cl);
static void client_reading(struct rclient *cl, bool on);
static void protocol_error(struct rclient *cl, const char *msg);

/* ---- connection commands ------------------------------------------------------ */

static struct rclient *cl_of(struct rcmd *c) { return c->cl; }

static void cmd_ping(struct rcmd *c)
{
    if (c->argc > 2)
        rr_error(&c->r, "ERR wrong number of arguments for 'ping' command");
    else if (c->argc == 2)
        rr_bulk(&c->r, c->argv[1].ptr, c->argv[1].len);
    else
        rr_simple(&c->r, "PONG");
    rcmd_finish(c);
}

static void cmd_echo(struct rcmd *c)
{
    rr_bulk(&c->r, c->argv[1].ptr, c->argv[1].len);
    rcmd_finish(c);
}

static void cmd_quit(struct rcmd *c)
{
    rr_simple(&c->r, "OK");
    if (!c->client_gone) cl_of(c)->closing = true;
    rcmd_finish(c);
}

static bool auth_required(const struct rclient *cl) { return cl->srv->app->cfg->resp_password[0] && !cl->authed; }

/* AUTH [username] password; false after answering the error. */
static bool try_auth(struct rcmd *c, const struct rarg *user, const struct rarg *pw)
{
    const struct config *cfg = c->app->cfg;
    if (!cfg->resp_password[0]) {
        rr_error(&c->r, "ERR AUTH <password> called without any password configured for the default user. "
                        "Are you sure your configuration is correct?");
        return false;
    }
    if ((user && !rarg_eq(user, "default")) || !auth_secret_equal(cfg->resp_password, pw->ptr, pw->len)) {
        metrics.resp_auth_failures++;
        log_warn("msg=\"RESP authentication failed\" client=%llu", (unsigned long long)c->client_id);
        rr_error(&c->r, "WRONGPASS invalid username-password pair or user is disabled.");
        return false;
    }
    if (!c->client_gone) cl_of(c)->authed = true;
    return true;
}

static void cmd_auth(struct rcmd *c)
{
    if (c->argc > 3) {
        rr_error(&c->r, "ERR syntax error");
    } else if (try_auth(c, c->argc == 3 ? &c->argv[1] : NULL, &c->argv[c->argc - 1])) {
        rr_simple(&c->r, "OK");
    }
    rcmd_finish(c);
}

static void hello_reply(struct rcmd *c, int proto)
{
    struct rreply *r = &c->r;
    r->proto = proto;
    rr_map(r, 7);
    rr_cstr(r, "server");
    rr_cstr(r, "redis");
    rr_cstr(r, "version");
    rr_cstr(r, REDIS_COMPAT_VERSION);
    rr_cstr(r, "proto");
    rr_int(r, proto);
    rr_cstr(r, "id");
    rr_int(r, (long long)c->client_id);
    rr_cstr(r, "mode");
    rr_cstr(r, "standalone");
    rr_cstr(r, "role");
    rr_cstr(r, "master");
    rr_cstr(r, "modules");
    rr_array(r, 0);
}

static void set_name(struct rclient *cl, char **slot, const struct rarg *a)
{
    free(*slot);
    *slot = a->len ? strndup(a->ptr, a->len) : NULL;
    (void)cl;
}

static bool valid_client_name(const struct rarg *a)
{
    for (size_t i = 0; i < a->len; i++)
        if (a->ptr[i] < '!' || a->ptr[i] > '~') return false;
    return true;
}

/* HELLO [protover [AUTH username password] [SETNAME clientname]] */
static void cmd_hello(struct rcmd *c)
{
    struct rclient *cl = cl_of(c);
    long long ver = c->client_gone ? 2 : cl->proto;
    size_t i = 1;
    const struct rarg *user = NULL, *pw = NULL, *name = NULL;

    if (c->argc >= 2) {
        if (!rarg_ll(&c->argv[1], &ver)) {
            rr_error(&c->r, "ERR Protocol version is not an integer or out of range");
            goto out;
        }
        i = 2;
        if (ver < 2 || ver > 3) {
            rr_error(&c->r, "NOPROTO unsupported protocol version");
            goto out;
        }
    }
    for (; i < c->argc; i++) {
        bool more = i + 1 < c->argc;
        if (rarg_eq(&c->argv[i], "AUTH") && i + 2 < c->argc) {
            user = &c->argv[i + 1];
            pw = &c->argv[i + 2];
            i += 2;
        } else if (rarg_eq(&c->argv[i], "SETNAME") && more) {
            name = &c->argv[++i];
            if (!valid_client_name(name)) {
                rr_error(&c->r, "ERR Client names cannot contain spaces, newlines or special characters.");
                goto out;
            }
        } else {
            rr_error(&c->r, "ERR Syntax error in HELLO option '%.128s'", c->argv[i].ptr);
            goto out;
        }
    }
    if (pw && !try_auth(c, user, pw)) goto out;
    if (!c->client_gone && auth_required(cl)) {
        rr_error(&c->r, "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
                        "select the RESP protocol version at the same time");
        goto out;
    }
    if (!c->client_gone) {
        cl->proto = (int)ver;
        if (name) set_name(cl, &cl->name, name);
    }
    hello_reply(c, (int)ver);
out:
    rcmd_finish(c);
}

static void cmd_select(struct rcmd *c)
{
    long long db;
    if (!rarg_ll(&c->argv[1], &db))
        rr_error(&c->r, "ERR value is not an integer or out of range");
    else if (db != 0)
        rr_error(&c->r, "ERR DB index is out of range (bitmapd has one database, 0)");
    else
        rr_simple(&c->r, "OK");
    rcmd_finish(c);
}

static void arity_error(struct rcmd *c, const char *full)
{
    rr_error(&c->r, "ERR wrong number of arguments for '%s' command", full);
}

static void cmd_client(struct rcmd *c)
{
    struct rclient *cl = cl_of(c);
    const struct rarg *sub = &c->argv[1];

    if (rarg_eq(sub, "ID")) {
        if (c->argc != 2) return arity_error(c, "client|id"), rcmd_finish(c);
        rr_int(&c->r, (long long)c->client_id);
    } else if (rarg_eq(sub, "SETNAME")) {
        if (c->argc != 3) return arity_error(c, "client|setname"), rcmd_finish(c);
        if (!valid_client_name(&c->argv[2])) {
            rr_error(&c->r, "ERR Client names cannot contain spaces, newlines or special characters.");
        } else {
            if (!c->client_gone) set_name(cl, &cl->name, &c->argv[2]);
            rr_simple(&c->r, "OK");
        }
    } else if (rarg_eq(sub, "GETNAME")) {
        if (c->argc != 2) return arity_error(c, "client|getname"), rcmd_finish(c);
        if (!c->client_gone && cl->name)
            rr_cstr(&c->r, cl->name);
        else
            rr_nil(&c->r);
    } else if (rarg_eq(sub, "SETINFO")) {
        if (c->argc != 4) return arity_error(c, "client|setinfo"), rcmd_finish(c);
        bool lib = rarg_eq(&c->argv[2], "LIB-NAME"), ver = rarg_eq(&c->argv[2], "LIB-VER");
        if (!lib && !ver) {
            rr_error(&c->r, "ERR Unrecognized option '%.128s'", c->argv[2].ptr);
        } else if (!valid_client_name(&c->argv[3])) {
            rr_error(&c->r, "ERR %s cannot contain spaces, newlines or special characters.",
                     lib ? "lib-name" : "lib-ver");
        } else {
            if (!c->client_gone) set_name(cl, lib ? &cl->lib_name : &cl->lib_ver, &c->argv[3]);
            rr_simple(&c->r, "OK");
        }
    } else if (rarg_eq(sub, "INFO")) {
        char buf[512];
        int n = snprintf(buf, sizeof(buf), "id=%llu name=%s db=0 resp=%d lib-name=%s lib-ver=%s\n",
                         (unsigned long long)c->client_id, !c->client_gone && cl->name ? cl->name : "",
                         c->r.proto, !c->client_gone && cl->lib_name ? cl->lib_name : "",
                         !c->client_gone && cl->lib_ver ? cl->lib_ver : "");
        rr_verbatim(&c->r, buf, (size_t)n);
    } else {
        rr_error(&c->r, "ERR unknown subcommand '%.128s'. Try CLIENT HELP.", sub->ptr);
    }
    rcmd_finish(c);
}

static const struct rcmd_def *all_commands(size_t *n);

static void command_flags(struct rreply *r, const struct rcmd_def *d)
{
    const char *f[4];
    size_t n = 0;
    f[n++] = (d->flags & RC_WRITE) ? "write" : "readonly";
    if (d->flags & RC_FAST) f[n++] = "fast";
    if (d->flags & RC_NOAUTH) f[n++] = "no_auth";
    rr_set(r, n);
    for (size_t i = 0; i < n; i++) rr_simple(r, f[i]);
}

static void command_info(struct rreply *r, const struct rcmd_def *d)
{
    rr_array(r, 10);
    rr_cstr(r, d->name);
    rr_int(r, d->arity);
    command_flags(r, d);
    rr_int(r, d->first_key);
    rr_int(r, d->last_key);
    rr_int(r, d->key_step);
    rr_set(r, 0); /* ACL categories */
    rr_set(r, 0); /* tips */
    rr_array(r, 0); /* key specs */
    rr_array(r, 0); /* subcommands */
}

static const struct rcmd_def *find_command(const struct rarg *name)
{
    size_t n;
    const struct rcmd_def *defs = all_commands(&n);
    for (size_t i = 0; i < n; i++)
        if (rarg_eq(name, defs[i].name)) return &defs[i];
    return NULL;
}

static void command_docs(struct rreply *r, const struct rcmd_def *d)
{
    rr_cstr(r, d->name);
    rr_map(r, 3);
    rr_cstr(r, "summary");
    rr_cstr(r, d->summary);
    rr_cstr(r, "since");
    rr_cstr(r, d->since);
    rr_cstr(r, "group");
    rr_cstr(r, d->group);
}

static void cmd_command(struct rcmd *c)
{
    size_t n;
    const struct rcmd_def *defs = all_commands(&n);

    if (c->argc == 1) {
        rr_array(&c->r, n);
        for (size_t i = 0; i < n; i++) command_info(&c->r, &defs[i]);
    } else if (rarg_eq(&c->argv[1], "COUNT")) {
        if (c->argc != 2) return arity_error(c, "command|count"), rcmd_finish(c);
        rr_int(&c->r, (long long)n);
    } else if (rarg_eq(&c->argv[1], "INFO")) {
        if (c->argc == 2) {
            rr_array(&c->r, n);
            for (size_t i = 0; i < n; i++) command_info(&c->r, &defs[i]);
        } else {
            rr_array(&c->r, c->argc - 2);
            for (size_t i = 2; i < c->argc; i++) {
                const struct rcmd_def *d = find_command(&c->argv[i]);
                if (d)
                    command_info(&c->r, d);
                else
                    rr_nil(&c->r);
            }
        }
    } else if (rarg_eq(&c->argv[1], "DOCS")) {
        if (c->argc == 2) {
            rr_map(&c->r, n);
            for (size_t i = 0; i < n; i++) command_docs(&c->r, &defs[i]);
        } else {
            size_t found = 0;
            for (size_t i = 2; i < c->argc; i++) found += find_command(&c->argv[i]) != NULL;
            rr_map(&c->r, found);
            for (size_t i = 2; i < c->argc; i++) {
                const struct rcmd_def *d = find_command(&c->argv[i]);
                if (d) command_docs(&c->r, d);
            }
        }
    } else if (rarg_eq(&c->argv[1], "LIST")) {
        rr_array(&c->r, n);
        for (size_t i = 0; i < n; i++) rr_cstr(&c->r, defs[i].name);
    } else {
        rr_error(&c->r, "ERR unknown subcommand '%.128s'. Try COMMAND HELP.", c->argv[1].ptr);
    }
    rcmd_finish(c);
}

static void cmd_time(struct rcmd *c)
{
    struct timeval tv;
    char s[32], us[32];
    gettimeofday(&tv, NULL);
    snprintf(s, sizeof(s), "%lld", (long long)tv.tv_sec);
    snprintf(us, sizeof(us), "%lld", (long long)tv.tv_usec);
    rr_array(&c->r, 2);
    rr_cstr(&c->r, s);
    rr_cstr(&c->r, us);
    rcmd_finish(c);
}

/* CONFIG GET: the Redis parameters that mean something here. */
static void cmd_config(struct rcmd *c)
{
    const struct config *cfg = c->app->cfg;
    char port[16], maxc[16], bulk[16], idle[16];
    snprintf(port, sizeof(port), "%d", cfg->resp_port);
    snprintf(maxc, sizeof(maxc), "%d", cfg->resp_max_clients);
    snprintf(idle, sizeof(idle), "%d", cfg->resp_timeout_s);
    snprintf(bulk, sizeof(bulk), "%d", cfg->resp_max_bulk_bytes);
    const char *params[][2] = {
        {"bind", cfg->resp_address}, {"port", port},          {"databases", "1"},
        {"maxclients", maxc},        {"proto-max-bulk-len", bulk}, {"timeout", idle},
        {"maxmemory", "0"},          {"maxmemory-policy", "noeviction"},
    };
    bool hit[ARRAY_LEN(params)] = {0};
    size_t nhit = 0;

    if (!rarg_eq(&c->argv[1], "GET")) {
        if (rarg_eq(&c->argv[1], "SET") || rarg_eq(&c->argv[1], "RESETSTAT") || rarg_eq(&c->argv[1], "REWRITE"))
            rr_error(&c->r, "ERR CONFIG %s is not supported by bitmapd: settings live in service.ini",
                     c->argv[1].ptr);
        else
            rr_error(&c->r, "ERR unknown subcommand '%.128s'. Try CONFIG HELP.", c->argv[1].ptr);
        return rcmd_finish(c);
    }
    if (c->argc < 3) return arity_error(c, "config|get"), rcmd_finish(c);
    for (size_t a = 2; a < c->argc; a++)
        for (size_t i = 0; i < ARRAY_LEN(params); i++)
            if (!hit[i] && rproto_glob(c->argv[a].ptr, c->argv[a].len, params[i][0], strlen(params[i][0]), true)) {
                hit[i] = true;
                nhit++;
            }
    rr_map(&c->r, nhit);
    for (size_t i = 0; i < ARRAY_LEN(params); i++)
        if (hit[i]) {
            rr_cstr(&c->r, params[i][0]);
            rr_cstr(&c->r, params[i][1]);
        }
    rcmd_finish(c);
}


static bool want_section(struct rcmd *c, const char *name, bool in_default)
{
    if (c->argc == 1) return in_default;
    for (size_t i = 1; i < c->argc; i++)
        if (rarg_eq(&c->argv[i], name) || rarg_eq(&c->argv[i], "all") || rarg_eq(&c->argv[i], "everything") ||
            (in_default && rarg_eq(&c->argv[i], "default")))
            return true;
    return false;
}

/* Sections are separated by one blank line, as in Redis. */
static void section(struct evbuffer *t, const char *title)
{
    if (evbuffer_get_length(t)) evbuffer_add(t, "\r\n", 2);
    evbuffer_add_printf(t, "# %s\r\n", title);
}

static void info_finish(struct rcmd *c, long long keys, const char *err)
{
    struct evbuffer *t = c->op;
    if (keys >= 0) {
        section(t, "Keyspace");
        if (keys > 0) evbuffer_add_printf(t, "db0:keys=%lld,expires=0,avg_ttl=0\r\n", keys);
    } else if (err) {
        section(t, "Keyspace");
        evbuffer_add_printf(t, "# unavailable: %s\r\n", err);
    }
    size_t n = evbuffer_get_length(t);
    const char *p = n ? (const char *)evbuffer_pullup(t, -1) : "";
    rr_verbatim(&c->r, p, n);
    evbuffer_free(t);
    c->op = NULL;
    rcmd_finish(c);
}

static void cmd_info(struct rcmd *c)
{
    struct resp_server *srv = c->client_gone ? NULL : cl_of(c)->srv;
    struct evbuffer *t = evbuffer_new();
    struct rusage ru;
    if (!t) {
        rr_error(&c->r, "ERR out of memory");
        return rcmd_finish(c);
    }
    getrusage(RUSAGE_SELF, &ru);
    if (want_section(c, "server", true)) {
        section(t, "Server");
        evbuffer_add_printf(t,
                            "redis_version:%s\r\nbitmapd_version:%s\r\nredis_mode:standalone\r\n"
                            "os:Linux\r\narch_bits:64\r\nprocess_id:%ld\r\ntcp_port:%d\r\n"
                            "uptime_in_seconds:%lld\r\n",
                            REDIS_COMPAT_VERSION, BITMAPD_VERSION, (long)getpid(), c->app->cfg->resp_port,
                            (long long)(time(NULL) - c->app->started));
    }
    if (want_section(c, "clients", true)) {
        section(t, "Clients");
        evbuffer_add_printf(t, "connected_clients:%d\r\nmaxclients:%d\r\n", srv ? srv->nclients : 0,
                            c->app->cfg->resp_max_clients);
    }
    if (want_section(c, "memory", true)) {
        section(t, "Memory");
        evbuffer_add_printf(t, "used_memory:%zu\r\nused_memory_rss:%lld\r\nmaxmemory:0\r\n"
                               "maxmemory_policy:noeviction\r\n",
                            heap_used(), (long long)ru.ru_maxrss * 1024);
    }
    if (want_section(c, "stats", true)) {
        section(t, "Stats");
        evbuffer_add_printf(t, "total_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n"
                               "rejected_connections:%llu\r\n",
                            srv ? srv->connections : 0, srv ? srv->commands : 0, srv ? srv->rejected : 0);
    }
    if (want_section(c, "bitmapd", false)) {
        struct cache_stats cs;
        struct store_stats ss;
        cache_get_stats(store_cache(c->app->store), &cs);
        store_get_stats(c->app->store, &ss);
        section(t, "Bitmapd");
        evbuffer_add_printf(t,
                            "cache_enabled:%d\r\ncache_entries:%zu\r\ncache_bytes:%zu\r\ncache_max_bytes:%zu\r\n"
                            "cache_hits:%llu\r\ncache_misses:%llu\r\ncache_evictions:%llu\r\n"
                            "cache_invalidations:%llu\r\ncache_flushes:%llu\r\ncache_stale_skips:%llu\r\n"
                            "loads:%lu\r\nload_statements:%lu\r\nload_keys_cached:%lu\r\nload_keys_db:%lu\r\n"
                            "cas_statements:%lu\r\ncas_calls:%lu\r\ncas_keys:%lu\r\ncas_max_calls:%lu\r\n",
                            cache_enabled(store_cache(c->app->store)), cs.entries, cs.bytes, cs.max_bytes,
                            (unsigned long long)cs.hits, (unsigned long long)cs.misses,
                            (unsigned long long)cs.evictions, (unsigned long long)cs.invalidations,
                            (unsigned long long)cs.flushes, (unsigned long long)cs.stale_skips, ss.loads,
                            ss.load_statements, ss.load_keys_cached, ss.load_keys_db, ss.cas_statements, ss.cas_calls, ss.cas_keys,
                            ss.max_batch_calls);
    }
    c->op = t;
    if (want_section(c, "keyspace", true))
        rkv_dbsize(c, info_finish);
    else
        info_finish(c, -1, NULL);
}

/* ---- the command table ----------------------------------------------------------- */

#define CONN(nm, ar, fl, f, sum) {nm, ar, (fl) | RC_FAST, 0, 0, 0, f, "connection", "1.0.0", sum}

static const struct rcmd_def conn_cmds[] = {
    CONN("ping", -1, 0, cmd_ping, "Returns the server's liveliness response."),
    CONN("echo", 2, 0, cmd_echo, "Returns the given string."),
    CONN("quit", -1, RC_NOAUTH | RC_BARRIER, cmd_quit, "Closes the connection."),
    CONN("auth", -2, RC_NOAUTH, cmd_auth, "Authenticates the connection."),
    CONN("hello", -1, RC_NOAUTH, cmd_hello, "Handshakes with the server (RESP2 or RESP3)."),
    CONN("select", 2, 0, cmd_select, "Changes the selected database (only 0 exists)."),
    CONN("client", -2, 0, cmd_client, "CLIENT ID, SETNAME, GETNAME, SETINFO, INFO."),
    {"command", -1, RC_FAST, 0, 0, 0, cmd_command, "server", "2.8.13", "Returns detailed information about commands."},
    {"time", 1, RC_FAST, 0, 0, 0, cmd_time, "server", "2.6.0", "Returns the server time."},
    {"config", -2, RC_FAST, 0, 0, 0, cmd_config, "server", "2.0.0", "CONFIG GET of the parameters that apply."},
    {"info", -1, RC_ALLKEYS, 0, 0, 0, cmd_info, "server", "1.0.0", "Returns information about the server."},
};

static struct rcmd_def *g_defs;
static size_t g_ndefs;
/* per command, the last row for unknown commands */
static struct cmd_stat {
    unsigned long long calls, errors;
    struct metrics_hist latency;
} *g_stats;

static const struct rcmd_def *all_commands(size_t *n)
{
    if (!g_defs) {
        size_t nkv;
        const struct rcmd_def *kv = rkv_commands(&nkv);
        g_defs = calloc(ARRAY_LEN(conn_cmds) + nkv, sizeof(*g_defs));
        if (!g_defs) abort();
        memcpy(g_defs, conn_cmds, sizeof(conn_cmds));
        memcpy(g_defs + ARRAY_LEN(conn_cmds), kv, nkv * sizeof(*kv));
        g_ndefs = ARRAY_LEN(conn_cmds) + nkv;
        if (!(g_stats = calloc(g_ndefs + 1, sizeof(*g_stats)))) abort();
    }
    *n = g_ndefs;
    return g_defs;
}

void resp_print_commands(void)
{
    size_t n;
    const struct rcmd_def *d = all_commands(&n);
    for (size_t i = 0; i < n; i++) printf("%s %d %s\n", d[i].name, d[i].arity, (d[i].flags & RC_WRITE) ? "write" : "read");
}

/* ---- ordering ----------------------------------------------------------------------- */

static bool is_key_arg(const struct rcmd *c, size_t i)
{
    const struct rcmd_def *d = c->def;
    if (!d || d->first_key <= 0 || i < (size_t)d->first_key) return false;
    size_t last = d->last_key < 0 ? c->argc + (size_t)(d->last_key + 1) - 1 : (size_t)d->last_key;
    if (i > last) return false;
    return (i - (size_t)d->first_key) % (size_t)(d->key_step ? d->key_step : 1) == 0;
}

/* Must b (later) wait for a (earlier, unfinished)? */
static bool must_wait(const struct rcmd *a, const struct rcmd *b)
{
    if (!a->def || !b->def) return false;
    if ((a->def->flags | b->def->flags) & RC_BARRIER) return true;
    if (a->def->flags & b->def->flags & RC_MERGED) return false;
    bool aw = a->def->flags & RC_WRITE, bw = b->def->flags & RC_WRITE;
    if (!aw && !bw) return false;
    if (((a->def->flags & RC_ALLKEYS) && bw) || ((b->def->flags & RC_ALLKEYS) && aw)) return true;
    for (size_t i = 1; i < a->argc; i++) {
        if (!is_key_arg(a, i)) continue;
        for (size_t j = 1; j < b->argc; j++)
            if (is_key_arg(b, j) && a->argv[i].len == b->argv[j].len &&
                memcmp(a->argv[i].ptr, b->argv[j].ptr, a->argv[i].len) == 0)
                return true;
    }
    return false;
}

static void unknown_command(struct rcmd *c)
{
    char args[256];
    size_t n = 0;
    args[0] = '\0';
    for (size_t i = 1; i < c->argc && n < 128; i++) {
        int w = snprintf(args + n, sizeof(args) - n, "'%.*s' ", (int)(128 - n < c->argv[i].len ? 128 - n : c->argv[i].len),
                         c->argv[i].ptr);
        if (w < 0) break;
        n += (size_t)w;
        if (n >= sizeof(args)) n = sizeof(args) - 1;
    }
    rr_error(&c->r, "ERR unknown command '%.128s', with args beginning with: %s", c->argv[0].ptr, args);
}

static bool arity_ok(const struct rcmd *c)
{
    int a = c->def->arity;
    return a >= 0 ? (int)c->argc == a : (int)c->argc >= -a;
}

static bool is_merged(const struct rcmd *c) { return c->def && (c->def->flags & RC_MERGED); }

/* May c (not started; every command before it is) start now? An RC_MERGED write
 * waits for nothing while only such writes run (the common deep pipeline of
 * SETBITs), without comparing it with each of them. */
static bool may_start(const struct rclient *cl, const struct rcmd *c)
{
    if (is_merged(c) && cl->started_other == 0) return true;
    for (struct rcmd *e = cl->head; e != c; e = e->next)
        if (!e->done && must_wait(e, c)) return false;
    return true;
}

static void cmd_start(struct rclient *cl, struct rcmd *c)
{
    c->t0 = metrics_now();
    c->started = true;
    cl->started++;
    if (!is_merged(c)) cl->started_other++;
    cl->srv->commands++;
    c->r.proto = cl->proto;
    if (!c->def) {
        unknown_command(c);
        rcmd_finish(c);
    } else if (auth_required(cl) && !(c->def->flags & RC_NOAUTH)) {
        rr_error(&c->r, "NOAUTH Authentication required.");
        rcmd_finish(c);
    } else if (!arity_ok(c)) {
        arity_error(c, c->def->name);
        rcmd_finish(c);
    } else {
        c->def->fn(c);
    }
}

/* Closing (QUIT, a protocol error) or half-closed by the peer, with every command
 * answered: closed once its output is sent. */
static bool client_answered_all(const struct rclient *cl) { return (cl->closing || cl->eof) && !cl->head; }

static void client_mark_dirty(struct rclient *cl)
{
    struct resp_server *srv = cl->srv;
    if (cl->dirty) return;
    cl->dirty = true;
    cl->dirty_prev = NULL;
    cl->dirty_next = srv->dirty;
    if (srv->dirty) srv->dirty->dirty_prev = cl;
    srv->dirty = cl;
    event_active(srv->flush_ev, EV_WRITE, 1);
}

static void client_unmark_dirty(struct rclient *cl)
{
    if (!cl->dirty) return;
    if (cl->dirty_prev) cl->dirty_prev->dirty_next = cl->dirty_next;
    else cl->srv->dirty = cl->dirty_next;
    if (cl->dirty_next) cl->dirty_next->dirty_prev = cl->dirty_prev;
    cl->dirty = false;
    cl->dirty_prev = cl->dirty_next = NULL;
}

static void client_flush(struct rclient *cl)
{
    while (cl->head && cl->head->done) {
        struct rcmd *c = cl->head;
        cl->head = c->next;
        if (cl->next_start == c) cl->next_start = c->next;
        if (!cl->head) cl->tail = NULL;
        cl->queued--;
        if (!cl->gone) {
            bufferevent_write_buffer(cl->bev, c->r.out);
            client_mark_dirty(cl);
        }
        rargs_free(c->argv, c->argc);
        if (!cl->spare && evbuffer_get_length(c->r.out) == 0) {
            cl->spare = c;
        } else {
            evbuffer_free(c->r.out);
            free(c);
        }
    }
}

static bool client_parse(struct rclient *cl);

/* Starts what may start, sends finished replies in order, reads more; repeats
 * until nothing moves. Commands that finish while it runs only mark themselves
 * done (no recursion, whatever the pipeline depth). */
static void client_pump(struct rclient *cl)
{
    if (cl->pumping) {
        cl->repump = true;
        return;
    }
    cl->pumping = true;
    do {
        cl->repump = false;
        for (;;) { /* from the first command not started: a pump per finished command stays O(1) */
            while (cl->next_start && cl->next_start->started) cl->next_start = cl->next_start->next;
            struct rcmd *c = cl->next_start;
            if (!c || cl->gone || cl->started >= MAX_STARTED || !may_start(cl, c)) break;
            cmd_start(cl, c);
        }
        client_flush(cl);
        if (!cl->gone && client_parse(cl)) cl->repump = true;
    } while (cl->repump && !cl->gone);
    cl->pumping = false;

    if (cl->gone) {
        if (cl->started == 0) client_free(cl);
        return;
    }
    if (client_answered_all(cl) && evbuffer_get_length(bufferevent_get_output(cl->bev)) == 0) {
        cl->gone = true;
        client_free(cl); /* otherwise write_cb closes once the output is sent */
        return;
    }
    client_arm_timer(cl);
}

static void count_command(const struct rcmd *c)
{
    size_t n;
    const struct rcmd_def *defs = all_commands(&n);
    struct cmd_stat *st = &g_stats[c->def ? (size_t)(c->def - defs) : n];
    char first = 0;
    evbuffer_copyout(c->r.out, &first, 1);
    st->calls++;
    if (first == '-' || first == '!') st->errors++;
    metrics_observe_latency(&st->latency, metrics_now() - c->t0);
}

/* The RESP families on GET /metrics (registered by resp_server_new). */
static void resp_metrics_render(struct evbuffer *out, void *arg)
{
    size_t n;
    const struct rcmd_def *defs = all_commands(&n);
    metrics_family(out, "bitmapd_resp_commands_total", "counter",
                   "RESP commands answered, by command and result (command \"unknown\": no such command).");
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? defs[i].name : "unknown";
        if (!g_stats[i].calls) continue;
        if (g_stats[i].calls > g_stats[i].errors)
            evbuffer_add_printf(out, "bitmapd_resp_commands_total{command=\"%s\",result=\"ok\"} %llu\n", name,
                                g_stats[i].calls - g_stats[i].errors);
        if (g_stats[i].errors)
            evbuffer_add_printf(out, "bitmapd_resp_commands_total{command=\"%s\",result=\"error\"} %llu\n",
                                name, g_stats[i].errors);
    }
    metrics_family(out, "bitmapd_resp_command_duration_seconds", "histogram",
                   "Time from a command's start to its reply being ready, by command.");
    for (size_t i = 0; i <= n; i++) {
        char labels[96];
        if (!g_stats[i].calls) continue;
        snprintf(labels, sizeof(labels), "command=\"%s\"", i < n ? defs[i].name : "unknown");
        metrics_latency_series(out, "bitmapd_resp_command_duration_seconds", labels, &g_stats[i].latency);
    }
    metrics_counter(out, "bitmapd_resp_auth_failures_total", "RESP AUTH attempts with a wrong password.",
                    metrics.resp_auth_failures);
    metrics_counter(out, "bitmapd_resp_timeouts_total", "RESP clients closed by an idle, command or write deadline.",
                    metrics.resp_timeouts);
    (void)arg;
}

/* A command's end (rcmd_finish): counted, and its reply sent once its turn comes. */
static void command_finished(struct rcmd *c)
{
    struct rclient *cl = c->cl;
    count_command(c);
    c->done = true;
    cl->started--;
    if (!is_merged(c)) cl->started_other--;
    g_inflight--;
    client_pump(cl);
}

/* ---- sockets ------------------------------------------------------------------------- */

/* Backpressure: [resp] max_pipeline commands queued, or replies piling up unread.
 * The socket is not read meanwhile (and the client is not slow: we are). */
static bool client_full(const struct rclient *cl)
{
    return cl->queued >= (size_t)cl->srv->app->cfg->resp_max_pipeline ||
           evbuffer_get_length(bufferevent_get_output(cl->bev)) > OUTPUT_HIGH_WATER;
}

/* The parser limits of [resp], for new clients and, after SIGHUP, connected ones. */
static struct rproto_limits parser_limits(const struct config *cfg)
{
    struct rproto_limits lim = {0};
    lim.max_bulk = (size_t)cfg->resp_max_bulk_bytes;
    lim.max_args = (size_t)cfg->resp_max_args;
    lim.max_inline = (size_t)cfg->resp_max_inline_bytes;
    return lim;
}

/* The deadlines of a client, one timer for both:
 *  - command ([resp] command_timeout_s): once part of a command has arrived, the
 *    rest must follow in time, else the client is answered -ERR and closed (a
 *    client that trickles bytes holds memory and a slot); a whole command arriving
 *    restarts it, so a long stream of pipelined commands is never cut;
 *  - idle ([resp] timeout_s, Redis's `timeout`): nothing in flight, nothing arriving.
 * A client that does not read its replies meets the bufferevent's write timeout
 * ([resp] write_timeout_s) instead. */
static void client_arm_timer(struct rclient *cl)
{
    const struct config *cfg = cl->srv->app->cfg;
    bool full = client_full(cl);
    bool partial = cl->parser.want_args != -1 || evbuffer_get_length(cl->in) > 0;
    int kind = DEADLINE_NONE, secs = 0;

    if (cl->gone || cl->closing || cl->eof || !cl->timer) {
        kind = DEADLINE_NONE;
    } else if (partial && !full && cfg->resp_command_timeout_s > 0) {
        kind = DEADLINE_COMMAND;
        secs = cfg->resp_command_timeout_s;
    } else if (!partial && !cl->head && cfg->resp_timeout_s > 0) {
        kind = DEADLINE_IDLE;
        secs = cfg->resp_timeout_s;
    }
    if (kind == DEADLINE_NONE) {
        if (cl->timer) evtimer_del(cl->timer);
    } else if (kind != (int)cl->deadline || cl->parsed || !evtimer_pending(cl->timer, NULL)) {
        struct timeval tv = {secs, 0};
        evtimer_add(cl->timer, &tv);
    }
    cl->deadline = kind;
    cl->parsed = false;
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rclient *cl = arg;
    const struct config *cfg = cl->srv->app->cfg;
    char msg[96];
    (void)fd;
    (void)what;
    metrics.resp_timeouts++;
    if (cl->deadline == DEADLINE_IDLE) {
        log_debug("msg=\"RESP client idle: closed\" client=%llu timeout_s=%d", (unsigned long long)cl->id,
                  cfg->resp_timeout_s);
        cl->gone = true;
        client_free(cl);
        return;
    }
    log_info("msg=\"slow RESP client: command not received in time\" client=%llu timeout_s=%d",
             (unsigned long long)cl->id, cfg->resp_command_timeout_s);
    rparser_reset(&cl->parser);
    snprintf(msg, sizeof(msg), "command not received in full within %d s", cfg->resp_command_timeout_s);
    protocol_error(cl, msg);
    client_pump(cl);
}

/* [resp] write_timeout_s on the socket (0: none). */
static void client_apply_config(struct rclient *cl)
{
    const struct config *cfg = cl->srv->app->cfg;
    struct timeval wtv = {cfg->resp_write_timeout_s, 0};
    cl->parser.lim = parser_limits(cfg);
    bufferevent_set_timeouts(cl->bev, NULL, cfg->resp_write_timeout_s > 0 ? &wtv : NULL);
}

void resp_server_apply_config(struct resp_server *srv)
{
    if (!srv) return;
    for (struct rclient *cl = srv->clients; cl; cl = cl->next) {
        if (cl->gone || !cl->bev) continue;
        client_apply_config(cl);
        cl->parsed = true; /* a changed deadline takes effect now */
        client_arm_timer(cl);
    }
}

static void client_free(struct rclient *cl)
{
    struct resp_server *srv = cl->srv;
    client_unmark_dirty(cl);
    if (cl->rev) { /* before the bufferevent closes the socket */
        event_free(cl->rev);
        cl->rev = NULL;
        cl->reading = false;
    }
    if (cl->started) { /* commands still running: they free us when they finish */
        cl->gone = true;
        if (cl->timer) evtimer_del(cl->timer);
        if (cl->bev) {
            bufferevent_free(cl->bev);
            cl->bev = NULL;
        }
        for (struct rcmd *c = cl->head; c; c = c->next) c->client_gone = true;
        return;
    }
    while (cl->head) {
        struct rcmd *c = cl->head;
        cl->head = c->next;
        if (!c->done) g_inflight--;
        evbuffer_free(c->r.out);
        rargs_free(c->argv, c->argc);
        free(c);
    }
    cl->next_start = NULL;
    if (cl->spare) {
        evbuffer_free(cl->spare->r.out);
        free(cl->spare);
    }
    if (cl->bev) bufferevent_free(cl->bev);
    if (cl->in) evbuffer_free(cl->in);
    if (cl->timer) event_free(cl->timer);
    rparser_reset(&cl->parser);
    if (cl->prev) cl->prev->next = cl->next;
    else srv->clients = cl->next;
    if (cl->next) cl->next->prev = cl->prev;
    srv->nclients--;
    free(cl->name);
    free(cl->lib_name);
    free(cl->lib_ver);
    free(cl);
}

static void append_cmd(struct rclient *cl, struct rcmd *c)
{
    if (cl->tail)
        cl->tail->next = c;
    else
        cl->head = c;
    cl->tail = c;
    cl->queued++;
    if (!cl->next_start) cl->next_start = c;
}

static bool enqueue(struct rclient *cl, struct rarg *argv, size_t argc)
{
    struct rcmd *c = cl->spare;
    if (c) {
        struct evbuffer *out = c->r.out;
        cl->spare = NULL;
        memset(c, 0, sizeof(*c));
        c->r.out = out;
    } else if (!(c = calloc(1, sizeof(*c))) || !(c->r.out = evbuffer_new())) {
        free(c);
        rargs_free(argv, argc);
        return false;
    }
    c->app = cl->srv->app;
    c->argv = argv;
    c->argc = argc;
    c->cl = cl;
    c->client_id = cl->id;
    c->finished = command_finished;
    c->def = find_command(&argv[0]);
    append_cmd(cl, c);
    g_inflight++;
    return true;
}

/* A protocol error: answer it after everything before it, then close. */
static void protocol_error(struct rclient *cl, const char *msg)
{
    struct rcmd *c = calloc(1, sizeof(*c));
    log_info("msg=\"RESP protocol error\" client=%llu error=\"%s\"", (unsigned long long)cl->id, msg);
    cl->closing = true;
    if (!c || !(c->r.out = evbuffer_new())) {
        free(c);
        return;
    }
    c->cl = cl;
    c->finished = command_finished;
    c->started = c->done = true;
    rr_error(&c->r, "ERR %s", msg);
    append_cmd(cl, c);
}

/* Parses queued input into commands; true if any was added. */
static bool client_parse(struct rclient *cl)
{
    struct evbuffer *in = cl->in;
    const struct config *cfg = cl->srv->app->cfg;
    bool added = false;
    char err[160];

    /* while draining, every whole command already received is taken, whatever the
     * pipeline limit: it was sent before the signal and must be answered */
    while (!cl->closing && !cl->eof && (cl->queued < (size_t)cfg->resp_max_pipeline || cl->srv->draining)) {
        enum rproto_status st = rparser_feed(&cl->parser, in, err, sizeof(err));
        if (st == RP_MORE) break;
        if (st == RP_ERROR) {
            protocol_error(cl, err);
            added = true;
            break;
        }
        size_t argc;
        struct rarg *argv = rparser_take(&cl->parser, &argc);
        cl->parsed = true;
        if (!enqueue(cl, argv, argc)) {
            protocol_error(cl, "out of memory");
            added = true;
            break;
        }
        added = true;
    }
    client_reading(cl, !(cl->closing || cl->eof || client_full(cl)));
    return added;
}

static void client_reading(struct rclient *cl, bool on)
{
    if (!cl->rev || cl->reading == on) return;
    if (on ? event_add(cl->rev, NULL) == 0 : event_del(cl->rev) == 0) cl->reading = on;
}

#define READ_CHUNK 65536
static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    static char buf[READ_CHUNK]; /* one loop, one thread: copied out before the next read */
    struct rclient *cl = arg;
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    (void)what;
    if (n > 0) {
        if (evbuffer_add(cl->in, buf, (size_t)n) != 0) {
            protocol_error(cl, "out of memory");
            client_reading(cl, false);
        }
        client_pump(cl);
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n == 0) { /* the peer may only have closed its writing side: answer what it sent */
        cl->eof = true;
        rparser_reset(&cl->parser); /* a half-received command is dropped */
        client_reading(cl, false);
        if (!cl->head) {
            cl->gone = true;
            client_free(cl);
        }
        return;
    }
    log_debug("msg=\"RESP client gone\" client=%llu error=\"%s\"", (unsigned long long)cl->id, strerror(errno));
    client_free(cl);
}

/* The bufferevent sent what flush_cb left it: the next replies go straight out again. */
static void write_cb(struct bufferevent *bev, void *arg)
{
    struct rclient *cl = arg;
    bufferevent_disable(bev, EV_WRITE);
    if (client_answered_all(cl)) {
        cl->gone = true;
        client_free(cl);
        return;
    }
    client_pump(cl); /* the output drained below the high-water mark */
}

/* Once a loop turn, after the callbacks that finished commands: each client's
 * replies leave in one write, straight to the socket. What the socket does not
 * take, and an error, are left to the bufferevent (its write event, its write
 * timeout, event_cb). */
static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
    struct resp_server *srv = arg;
    (void)fd;
    (void)what;
    while (srv->dirty) {
        struct rclient *cl = srv->dirty;
        client_unmark_dirty(cl);
        if (cl->gone || !cl->bev || (bufferevent_get_enabled(cl->bev) & EV_WRITE)) continue;
        struct evbuffer *out = bufferevent_get_output(cl->bev);
        bool was_full = client_full(cl);
        if (evbuffer_get_length(out) > 0) { /* as the bufferevent writes it: its start is frozen */
            evbuffer_unfreeze(out, 1);
            evbuffer_write(out, bufferevent_getfd(cl->bev));
            evbuffer_freeze(out, 1);
        }
        if (evbuffer_get_length(out) > 0) {
            bufferevent_enable(cl->bev, EV_WRITE);
        } else if (client_answered_all(cl)) {
            cl->gone = true;
            client_free(cl);
        } else if (was_full) {
            client_pump(cl); /* read again */
        }
    }
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct rclient *cl = arg;
    (void)bev;
    if (what & BEV_EVENT_TIMEOUT) {
        metrics.resp_timeouts++;
        log_info("msg=\"slow RESP client: replies not read in time\" client=%llu write_timeout_s=%d",
                 (unsigned long long)cl->id, cl->srv->app->cfg->resp_write_timeout_s);
    }
    if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF | BEV_EVENT_TIMEOUT)) {
        log_debug("msg=\"RESP client gone\" client=%llu", (unsigned long long)cl->id);
        client_free(cl);
    }
}

static void accept_cb(struct evconnlistener *lis, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
    struct resp_server *srv = arg;
    struct rclient *cl;
    struct rproto_limits lim;
    (void)lis;
    (void)sa;
    (void)salen;

    srv->connections++;
    if (srv->nclients >= srv->app->cfg->resp_max_clients) {
        static const char msg[] = "-ERR max number of clients reached\r\n";
        srv->rejected++;
        if (write(fd, msg, sizeof(msg) - 1) < 0) { /* best effort */
        }
        evutil_closesocket(fd);
        return;
    }
    if (!(cl = calloc(1, sizeof(*cl))) || !(cl->in = evbuffer_new()) ||
        !(cl->rev = event_new(srv->app->base, fd, EV_READ | EV_PERSIST, read_cb, cl)) ||
        !(cl->bev = bufferevent_socket_new(srv->app->base, fd, BEV_OPT_CLOSE_ON_FREE))) {
        if (cl && cl->rev) event_free(cl->rev);
        if (cl && cl->in) evbuffer_free(cl->in);
        free(cl);
        evutil_closesocket(fd);
        return;
    }
    lim = parser_limits(srv->app->cfg);
    rparser_init(&cl->parser, &lim);
    cl->srv = srv;
    cl->id = ++srv->next_id;
    cl->proto = 2;
    cl->created = time(NULL);
    cl->next = srv->clients;
    if (srv->clients) srv->clients->prev = cl;
    srv->clients = cl;
    srv->nclients++;
    cl->timer = evtimer_new(srv->app->base, client_timer_cb, cl); /* NULL: no deadlines for it */
    client_apply_config(cl);
    bufferevent_setcb(cl->bev, NULL, write_cb, event_cb, cl);
    bufferevent_disable(cl->bev, EV_READ | EV_WRITE); /* EV_WRITE: only while output waits (flush_cb) */
    client_reading(cl, true);
    client_arm_timer(cl);
}

struct resp_server *resp_server_new(struct app *app)
{
    struct resp_server *srv = calloc(1, sizeof(*srv));
    struct evutil_addrinfo hints = {0}, *ai = NULL;
    char port[16];
    int rc;

    if (!srv) return NULL;
    srv->app = app;
    if (!(srv->flush_ev = event_new(app->base, -1, 0, flush_cb, srv))) {
        free(srv);
        return NULL;
    }
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = EVUTIL_AI_PASSIVE | EVUTIL_AI_NUMERICHOST | EVUTIL_AI_NUMERICSERV;
    snprintf(port, sizeof(port), "%d", app->cfg->resp_port);
    if ((rc = evutil_getaddrinfo(app->cfg->resp_address, port, &hints, &ai)) != 0) {
        log_error("msg=\"bad RESP listen address\" address=\"%s\" error=\"%s\"", app->cfg->resp_address,
                  evutil_gai_strerror(rc));
        event_free(srv->flush_ev);
        free(srv);
        return NULL;
    }
    srv->lis = evconnlistener_new_bind(app->base, accept_cb, srv, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 128,
                                       ai->ai_addr, (int)ai->ai_addrlen);
    evutil_freeaddrinfo(ai);
    if (!srv->lis) {
        log_error("msg=\"cannot listen for RESP\" address=\"%s\" port=%d error=\"%s\"", app->cfg->resp_address,
                  app->cfg->resp_port, strerror(errno));
        event_free(srv->flush_ev);
        free(srv);
        return NULL;
    }
    if (!metrics_register(resp_metrics_render, srv)) {
        resp_server_free(srv);
        return NULL;
    }
    log_info("msg=\"RESP listening\" address=\"%s\" port=%d", app->cfg->resp_address, app->cfg->resp_port);
    return srv;
}

void resp_server_stop_accepting(struct resp_server *srv)
{
    if (srv && srv->lis) {
        evconnlistener_free(srv->lis);
        srv->lis = NULL;
    }
}

void resp_server_drain(struct resp_server *srv)
{
    struct rclient *cl, *next;
    if (!srv) return;
    resp_server_stop_accepting(srv);
    srv->draining = true;
    for (cl = srv->clients; cl; cl = next) {
        next = cl->next; /* client_pump may free cl */
        if (cl->gone || cl->closing || cl->eof || !cl->bev) continue;
        /* bytes that reached the socket before the signal are commands sent before it */
        for (int i = 0; i < 64 && evbuffer_read(cl->in, bufferevent_getfd(cl->bev), 65536) > 0; i++) {
        } /* at most 4 MiB: a client still sending cannot hold the shutdown */
        client_parse(cl);
        cl->closing = true; /* answer what was taken, then close */
        client_reading(cl, false);
        client_pump(cl);
    }
}

void resp_server_free(struct resp_server *srv)
{
    if (!srv) return;
    metrics_unregister(resp_metrics_render, srv);
    resp_server_stop_accepting(srv);
    while (srv->clients) {
        struct rclient *cl = srv->clients;
        cl->started = 0; /* the loop is over: nothing will finish */
        client_free(cl);
    }
    free(g_defs);
    g_defs = NULL;
    free(g_stats);
    g_stats = NULL;
    event_free(srv->flush_ev);
    free(srv);
}
