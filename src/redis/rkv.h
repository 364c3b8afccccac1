/* rkv.h — the data commands (strings, bitmaps, keys, redis-roaring's R.*), for the
 * server that dispatches them (resp.c). Their code is in rkv.c (the shared read and
 * write paths and the table) and the command files cmd_*.c. */
#ifndef BITMAPD_RKV_H
#define BITMAPD_RKV_H

#include "redis/rcmd.h"

/* The data commands' table. */
const struct rcmd_def *rkv_commands(size_t *n);
/* The keyspace's figures: keys that exist (a member or an explicit length, not past
 * their deadline), how many of them have a deadline, and their mean time to live in
 * ms (0 when none). For DBSIZE and INFO keyspace. */
struct rkv_keyspace {
    long long keys, expires, avg_ttl;
};
/* cb gets ks NULL and err when the count could not be had. */
typedef void rkv_keyspace_fn(struct rcmd *c, const struct rkv_keyspace *ks, const char *err);
void rkv_dbsize(struct rcmd *c, rkv_keyspace_fn *cb);

#endif
