/* resp.h — the Redis-protocol front end: a TCP listener, one state per client,
 * pipelined commands answered in order, connection-level commands (PING, HELLO,
 * AUTH, CLIENT, COMMAND, INFO, CONFIG GET …, in resp_conn.c). Data commands live in
 * rkv.c and the cmd_*.c files (rkv.h). */
#ifndef BITMAPD_RESP_H
#define BITMAPD_RESP_H

#include "core/app.h"

struct resp_server;

/* Binds [resp] address:port. NULL (logged) on failure. */
struct resp_server *resp_server_new(struct app *app) WUR;
void resp_server_free(struct resp_server *srv);
/* Applies reloaded [resp] settings to connected clients too (parser limits,
 * deadlines). srv may be NULL. */
void resp_server_apply_config(struct resp_server *srv);
/* Closes the listener; clients already connected are still served. */
void resp_server_stop_accepting(struct resp_server *srv);
/* Shutdown: closes the listener, takes every whole command already received,
 * reads nothing more, and closes each client once it has been answered. */
void resp_server_drain(struct resp_server *srv);
/* Commands received and not yet answered, over all clients. */
int resp_inflight(void);
/* Clients with reply bytes not yet handed to the kernel (shutdown waits for them). */
int resp_server_unsent(const struct resp_server *srv);
/* Every command the front end knows (for tests and --commands). */
void resp_print_commands(void);

#endif
