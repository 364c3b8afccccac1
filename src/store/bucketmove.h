/* bucketmove.h — `bitmapd --buckets in|out FAMILY`: moves a family's keys into bucket
 * rows or out of them while instances serve (bucketmove.c). Blocking libpq, like
 * migrate.c. */
#ifndef BITMAPD_BUCKETMOVE_H
#define BITMAPD_BUCKETMOVE_H

#include <stddef.h>

/* dir "in" or "out", family "checkin" or "receipt"; waits up to wait_s (0: 60) for
 * the instances to act on each new state. An exit code: 0 done, 1 failed (the
 * reason on stderr; a new run goes on), 2 usage. */
int bucketmove_main(const char *dsn, size_t chunk_bytes, const char *dir, const char *family, int wait_s);

/* After --migrate: each family never moved, with no key yet, in a database no
 * instance is connected to, goes into bucket rows (new databases start that way).
 * Says what it did or why not in the log; never fails. */
void bucketmove_defaults(const char *dsn, size_t chunk_bytes);

#endif
