/* rkv.h — the data commands (strings, bitmaps, keys, redis-roaring's R.*), for the
 * server that dispatches them (resp.c). Their code is in rkv.c (the shared read and
 * write paths and the table) and the command files cmd_*.c. */
#ifndef BITMAPD_RKV_H
#define BITMAPD_RKV_H

#include "redis/rcmd.h"

/* The data commands' table. */
const struct rcmd_def *rkv_commands(size_t *n);
/* Keys that exist in the store: card > 0 or an explicit length. For DBSIZE/INFO. */
void rkv_dbsize(struct rcmd *c, void (*cb)(struct rcmd *c, long long n, const char *err));

#endif
