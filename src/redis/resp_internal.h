/* resp_internal.h — what the RESP server (resp.c) and its connection commands
 * (resp_conn.c) share: the server and client state, and the command table. Not for
 * use outside those two files. */
#ifndef BITMAPD_RESP_INTERNAL_H
#define BITMAPD_RESP_INTERNAL_H

#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <time.h>

#include "redis/rcmd.h"
#include "redis/resp.h"

#define BITMAPD_VERSION "0.3.0"
#define REDIS_COMPAT_VERSION "7.0.15" /* the Redis whose replies we match */
#define MAX_STARTED 1024              /* commands of one client running at once (a train merges a
                                       * pipeline of one-key writes: more at once, fewer commits) */
#define OUTPUT_HIGH_WATER (64u << 20) /* stop reading a client that does not read replies */
#define RESP_SPARES 16                /* finished commands a client keeps for reuse (resp.c) */

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
    bool tx_refusing; /* after MULTI, until EXEC or DISCARD: commands are refused (resp.c) */
    char *name, *lib_name, *lib_ver;
    struct rparser parser;
    struct rcmd *head, *tail;
    struct rcmd *next_start; /* the first command not started yet, or NULL (they start in order) */
    size_t queued;   /* commands in the FIFO */
    size_t started;  /* started and not finished */
    size_t started_other; /* of those, commands other than RC_MERGED writes */
    size_t started_writes; /* of those, commands that may change keys or run alone */
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
    struct rcmd *spare;   /* finished commands kept for the next ones (their reply buffers, empty), */
    unsigned nspare;      /* linked by next: at most RESP_SPARES, a pipeline's worth */
    /* Reading is ours, not the bufferevent's (which only writes): one recv per
     * readiness, without the FIONREAD ioctl libevent asks before each read. */
    struct event *rev;
    struct evbuffer *in;
    bool reading;         /* rev is added */
};

/* Every command: the connection's, then the data commands (rkv.h). Built on first
 * use; resp_commands_free() lets it go. */
const struct rcmd_def *resp_all_commands(size_t *n);
/* The command named name (any case), or NULL. */
const struct rcmd_def *resp_find_command(const struct rarg *name);
void resp_commands_free(void);
/* The client must AUTH before commands without RC_NOAUTH. */
bool resp_auth_required(const struct rclient *cl);
/* Redis's wrong-number-of-arguments error for command `full` (e.g. "client|id"). */
void resp_arity_error(struct rcmd *c, const char *full);

/* Transactions are refused whole (resp_conn.c): what a command is to them (struct
 * rcmd's tx), decided as it is parsed, and its answer when it is one of them. */
enum { TX_NONE, TX_MULTI, TX_NESTED, TX_REFUSED, TX_EXECABORT, TX_DISCARD, TX_EXEC_ALONE, TX_DISCARD_ALONE, TX_ARITY };
void resp_tx_classify(struct rclient *cl, struct rcmd *c);
void resp_tx_answer(struct rcmd *c);

#endif
