/* common.h — small macros shared by every module. */
#ifndef BITMAPD_COMMON_H
#define BITMAPD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Functions that can fail are marked so that callers cannot ignore the result. */
#define WUR __attribute__((warn_unused_result))

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* FNV-1a of n bytes: the hash of a key in every in-memory table (cache, write
 * batches, key locks, chunk directories, keys seen chunked, waiting bucket writes,
 * the mover's names seen). */
static inline uint64_t bytes_hash(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* Wall-clock time in milliseconds since the Unix epoch: the clock of key expiry
 * (deadlines are absolute, as Redis keeps them). */
int64_t wall_ms(void);

#endif
