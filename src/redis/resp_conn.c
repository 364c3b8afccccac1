/* resp_conn.c — the commands of the connection and the server (PING ECHO QUIT AUTH
 * HELLO SELECT CLIENT COMMAND TIME CONFIG INFO) and the whole command table: these
 * and the data commands of rkv.h. The clients they act on belong to resp.c
 * (resp_internal.h). */
#include <limits.h>
#include <malloc.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/auth.h"
#include "store/cache.h"
#include "core/log.h"
#include "core/metrics.h"
#include "redis/resp_internal.h"
#include "redis/rkv.h"
#include "store/store.h"

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

bool resp_auth_required(const struct rclient *cl) { return cl->srv->app->cfg->resp_password[0] && !cl->authed; }

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
    if (!c->client_gone && resp_auth_required(cl)) {
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

void resp_arity_error(struct rcmd *c, const char *full)
{
    rr_error(&c->r, "ERR wrong number of arguments for '%s' command", full);
}

static void cmd_client(struct rcmd *c)
{
    struct rclient *cl = cl_of(c);
    const struct rarg *sub = &c->argv[1];

    if (rarg_eq(sub, "ID")) {
        if (c->argc != 2) return resp_arity_error(c, "client|id"), rcmd_finish(c);
        rr_int(&c->r, (long long)c->client_id);
    } else if (rarg_eq(sub, "SETNAME")) {
        if (c->argc != 3) return resp_arity_error(c, "client|setname"), rcmd_finish(c);
        if (!valid_client_name(&c->argv[2])) {
            rr_error(&c->r, "ERR Client names cannot contain spaces, newlines or special characters.");
        } else {
            if (!c->client_gone) set_name(cl, &cl->name, &c->argv[2]);
            rr_simple(&c->r, "OK");
        }
    } else if (rarg_eq(sub, "GETNAME")) {
        if (c->argc != 2) return resp_arity_error(c, "client|getname"), rcmd_finish(c);
        if (!c->client_gone && cl->name)
            rr_cstr(&c->r, cl->name);
        else
            rr_nil(&c->r);
    } else if (rarg_eq(sub, "SETINFO")) {
        if (c->argc != 4) return resp_arity_error(c, "client|setinfo"), rcmd_finish(c);
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

/* Looked up by name through g_index (resp_all_commands builds it), case-insensitive,
 * as rarg_eq compares: a linear walk of every name was 5% of bitmapd's instructions
 * per pipelined SETBIT. */
static uint32_t *g_index; /* a definition's position + 1, 0 empty; g_icap slots */
static size_t g_icap;

static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)tolower((unsigned char)s[i])) * 1099511628211ULL;
    return h;
}

const struct rcmd_def *resp_find_command(const struct rarg *name)
{
    size_t n;
    const struct rcmd_def *defs = resp_all_commands(&n);
    if (name->len > 64 || memchr(name->ptr, 0, name->len)) return NULL; /* no such name */
    for (size_t i = name_hash(name->ptr, name->len) & (g_icap - 1); g_index[i]; i = (i + 1) & (g_icap - 1))
        if (rarg_eq(name, defs[g_index[i] - 1].name)) return &defs[g_index[i] - 1];
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
    const struct rcmd_def *defs = resp_all_commands(&n);

    if (c->argc == 1) {
        rr_array(&c->r, n);
        for (size_t i = 0; i < n; i++) command_info(&c->r, &defs[i]);
    } else if (rarg_eq(&c->argv[1], "COUNT")) {
        if (c->argc != 2) return resp_arity_error(c, "command|count"), rcmd_finish(c);
        rr_int(&c->r, (long long)n);
    } else if (rarg_eq(&c->argv[1], "INFO")) {
        if (c->argc == 2) {
            rr_array(&c->r, n);
            for (size_t i = 0; i < n; i++) command_info(&c->r, &defs[i]);
        } else {
            rr_array(&c->r, c->argc - 2);
            for (size_t i = 2; i < c->argc; i++) {
                const struct rcmd_def *d = resp_find_command(&c->argv[i]);
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
            for (size_t i = 2; i < c->argc; i++) found += resp_find_command(&c->argv[i]) != NULL;
            rr_map(&c->r, found);
            for (size_t i = 2; i < c->argc; i++) {
                const struct rcmd_def *d = resp_find_command(&c->argv[i]);
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
    if (c->argc < 3) return resp_arity_error(c, "config|get"), rcmd_finish(c);
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

static void info_finish(struct rcmd *c, const struct rkv_keyspace *ks, const char *err)
{
    struct evbuffer *t = c->op;
    if (ks) {
        section(t, "Keyspace");
        if (ks->keys > 0)
            evbuffer_add_printf(t, "db0:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", ks->keys, ks->expires, ks->avg_ttl);
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

/* A 40-hex-digit id drawn once per process, like Redis's run_id and replication id. */
static const char *process_id_hex(int which)
{
    static char ids[2][41];
    if (!ids[which][0])
        for (int i = 0; i < 40; i++) ids[which][i] = "0123456789abcdef"[rand() & 15];
    return ids[which];
}

/* n bytes as Redis's *_human fields write them (1.50K, 2.00M …). */
static void human_bytes(char *buf, size_t len, double n)
{
    static const char units[] = "BKMGTP";
    int u = 0;
    while (n >= 1024 && u < 5) {
        n /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0fB", n);
    else
        snprintf(buf, len, "%.2f%c", n, units[u]);
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
        struct timeval now;
        long long up = (long long)(time(NULL) - c->app->started);
        gettimeofday(&now, NULL);
        section(t, "Server");
        evbuffer_add_printf(t,
                            "redis_version:%s\r\nbitmapd_version:%s\r\nredis_git_sha1:00000000\r\n"
                            "redis_git_dirty:0\r\nredis_mode:standalone\r\nos:Linux\r\narch_bits:64\r\n"
                            "multiplexing_api:%s\r\nprocess_id:%ld\r\nprocess_supervised:no\r\nrun_id:%s\r\n"
                            "tcp_port:%d\r\nserver_time_usec:%lld\r\nuptime_in_seconds:%lld\r\n"
                            "uptime_in_days:%lld\r\n",
                            REDIS_COMPAT_VERSION, BITMAPD_VERSION, event_base_get_method(c->app->base),
                            (long)getpid(), process_id_hex(0), c->app->cfg->resp_port,
                            (long long)now.tv_sec * 1000000 + now.tv_usec, up, up / 86400);
    }
    if (want_section(c, "clients", true)) {
        section(t, "Clients");
        evbuffer_add_printf(t,
                            "connected_clients:%d\r\ncluster_connections:0\r\nmaxclients:%d\r\n"
                            "blocked_clients:0\r\ntracking_clients:0\r\n",
                            srv ? srv->nclients : 0, c->app->cfg->resp_max_clients);
    }
    if (want_section(c, "memory", true)) {
        char used[32], rss[32];
        size_t heap = heap_used();
        long long rss_bytes = (long long)ru.ru_maxrss * 1024;
        human_bytes(used, sizeof(used), (double)heap);
        human_bytes(rss, sizeof(rss), (double)rss_bytes);
        section(t, "Memory");
        evbuffer_add_printf(t,
                            "used_memory:%zu\r\nused_memory_human:%s\r\nused_memory_rss:%lld\r\n"
                            "used_memory_rss_human:%s\r\nmaxmemory:0\r\nmaxmemory_human:0B\r\n"
                            "maxmemory_policy:noeviction\r\nmem_allocator:%s\r\n",
                            heap, used, rss_bytes, rss,
#ifdef BITMAPD_JEMALLOC
                            "jemalloc"
#else
                            "libc"
#endif
        );
    }
    if (want_section(c, "persistence", true)) {
        /* nothing to save: every write is committed to PostgreSQL before its reply */
        section(t, "Persistence");
        evbuffer_add_printf(t,
                            "loading:0\r\nasync_loading:0\r\nrdb_changes_since_last_save:0\r\n"
                            "rdb_bgsave_in_progress:0\r\nrdb_last_save_time:%lld\r\nrdb_last_bgsave_status:ok\r\n"
                            "aof_enabled:0\r\naof_rewrite_in_progress:0\r\naof_last_write_status:ok\r\n",
                            (long long)c->app->started);
    }
    if (want_section(c, "stats", true)) {
        struct store_stats xs; /* expired_keys: rows of expired keys this instance's sweeps removed */
        store_get_stats(c->app->store, &xs);
        section(t, "Stats");
        evbuffer_add_printf(t,
                            "total_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n"
                            "rejected_connections:%llu\r\nexpired_keys:%lu\r\nevicted_keys:0\r\n",
                            srv ? srv->connections : 0, srv ? srv->commands : 0, srv ? srv->rejected : 0,
                            xs.expired_removed);
    }
    if (want_section(c, "replication", true)) {
        section(t, "Replication");
        evbuffer_add_printf(t,
                            "role:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n"
                            "master_replid:%s\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n"
                            "master_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\n"
                            "repl_backlog_size:0\r\nrepl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n",
                            process_id_hex(1));
    }
    if (want_section(c, "cpu", true)) {
        struct rusage ch;
        getrusage(RUSAGE_CHILDREN, &ch);
        section(t, "CPU");
        evbuffer_add_printf(t,
                            "used_cpu_sys:%ld.%06ld\r\nused_cpu_user:%ld.%06ld\r\nused_cpu_sys_children:%ld.%06ld\r\n"
                            "used_cpu_user_children:%ld.%06ld\r\n",
                            (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, (long)ru.ru_utime.tv_sec,
                            (long)ru.ru_utime.tv_usec, (long)ch.ru_stime.tv_sec, (long)ch.ru_stime.tv_usec,
                            (long)ch.ru_utime.tv_sec, (long)ch.ru_utime.tv_usec);
    }
    if (want_section(c, "modules", true)) section(t, "Modules");
    if (want_section(c, "cluster", true)) {
        section(t, "Cluster");
        evbuffer_add(t, "cluster_enabled:0\r\n", 19);
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
        info_finish(c, NULL, NULL);
}

/* ---- transactions: refused whole ---------------------------------------------------
 * bitmapd runs no MULTI/EXEC transaction. A client that sends MULTI believes the
 * commands up to EXEC or DISCARD wait for EXEC: so none of them runs. Each is
 * answered an error, and EXEC answers EXECABORT, as Redis does for a transaction
 * holding a command it refused; the client library raises, and nothing was
 * written. Decided as commands are parsed, in the client's order. QUIT still closes. */

void resp_tx_classify(struct rclient *cl, struct rcmd *c)
{
    const struct rarg *name = &c->argv[0];
    int c0 = name->len ? tolower((unsigned char)name->ptr[0]) : 0; /* most commands are none of these */
    bool tx_word = (c0 == 'm' || c0 == 'e' || c0 == 'd') &&
                   (rarg_eq(name, "MULTI") || rarg_eq(name, "EXEC") || rarg_eq(name, "DISCARD"));
    if (!tx_word) {
        if (cl->tx_refusing && !rarg_eq(name, "QUIT")) c->tx = TX_REFUSED;
    } else if (c->argc != 1) { /* Redis's arity error; a transaction stays as it was */
        c->tx = TX_ARITY;
    } else if (rarg_eq(name, "MULTI")) {
        c->tx = cl->tx_refusing ? TX_NESTED : TX_MULTI;
        cl->tx_refusing = true;
    } else if (rarg_eq(name, "EXEC")) {
        c->tx = cl->tx_refusing ? TX_EXECABORT : TX_EXEC_ALONE;
        cl->tx_refusing = false;
    } else { /* DISCARD */
        c->tx = cl->tx_refusing ? TX_DISCARD : TX_DISCARD_ALONE;
        cl->tx_refusing = false;
    }
}

void resp_tx_answer(struct rcmd *c)
{
    switch (c->tx) {
    case TX_MULTI:
        rr_error(&c->r, "ERR bitmapd does not run transactions (MULTI/EXEC): the commands up to EXEC or DISCARD "
                        "are refused and none of them is run");
        break;
    case TX_NESTED:
        rr_error(&c->r, "ERR MULTI calls can not be nested");
        break;
    case TX_REFUSED:
        rr_error(&c->r, "ERR bitmapd does not run transactions: refused inside MULTI, not run");
        break;
    case TX_EXECABORT:
        rr_error(&c->r, "EXECABORT Transaction discarded because of previous errors.");
        break;
    case TX_DISCARD:
        rr_simple(&c->r, "OK");
        break;
    case TX_EXEC_ALONE:
        rr_error(&c->r, "ERR EXEC without MULTI");
        break;
    case TX_DISCARD_ALONE:
        rr_error(&c->r, "ERR DISCARD without MULTI");
        break;
    case TX_ARITY: {
        char lower[8] = {0};
        for (size_t i = 0; i < c->argv[0].len && i < sizeof(lower) - 1; i++)
            lower[i] = (char)(c->argv[0].ptr[i] | 0x20);
        resp_arity_error(c, lower);
        break;
    }
    }
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

const struct rcmd_def *resp_all_commands(size_t *n)
{
    if (!g_defs) {
        size_t nkv;
        const struct rcmd_def *kv = rkv_commands(&nkv);
        g_defs = calloc(ARRAY_LEN(conn_cmds) + nkv, sizeof(*g_defs));
        if (!g_defs) abort();
        memcpy(g_defs, conn_cmds, sizeof(conn_cmds));
        memcpy(g_defs + ARRAY_LEN(conn_cmds), kv, nkv * sizeof(*kv));
        g_ndefs = ARRAY_LEN(conn_cmds) + nkv;
        for (g_icap = 16; g_icap < 2 * g_ndefs; g_icap *= 2) {}
        if (!(g_index = calloc(g_icap, sizeof(*g_index)))) abort();
        for (size_t d = 0; d < g_ndefs; d++) { /* the first of a name wins, as the walk found it */
            size_t len = strlen(g_defs[d].name), i = name_hash(g_defs[d].name, len) & (g_icap - 1);
            bool dup = false;
            for (; g_index[i]; i = (i + 1) & (g_icap - 1)) dup |= strcasecmp(g_defs[g_index[i] - 1].name, g_defs[d].name) == 0;
            if (!dup) g_index[i] = (uint32_t)d + 1;
        }
    }
    *n = g_ndefs;
    return g_defs;
}

void resp_print_commands(void)
{
    size_t n;
    const struct rcmd_def *d = resp_all_commands(&n);
    for (size_t i = 0; i < n; i++) printf("%s %d %s\n", d[i].name, d[i].arity, (d[i].flags & RC_WRITE) ? "write" : "read");
}

void resp_commands_free(void)
{
    free(g_defs);
    free(g_index);
    g_defs = NULL;
    g_index = NULL;
    g_ndefs = g_icap = 0;
}
