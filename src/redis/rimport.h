/* rimport.h — `bitmapd import`: copies the string values (bitmaps) of a Redis server
 * into the store, through the service's own write path. */
#ifndef BITMAPD_RIMPORT_H
#define BITMAPD_RIMPORT_H

#include <stdio.h>

#include "core/config.h"

/* Exit statuses of the import command. */
enum {
    RIMPORT_OK = 0,     /* every scanned key was imported, unchanged or skipped */
    RIMPORT_FAILED = 1, /* some keys failed, or Redis/PostgreSQL went away midway */
    RIMPORT_USAGE = 2,  /* bad arguments or URL, or Redis/PostgreSQL unreachable at the start */
};

/* Runs the import. argv[0] is the word "import", the import's own options follow.
 * cfg (borrowed) is the configuration main() loaded: DSN, [resp] max_key_bytes,
 * [postgres] limits. Writes the summary on stdout, progress and errors on stderr.
 * Returns one of the exit statuses above. */
int rimport_main(const struct config *cfg, int argc, char **argv);

/* The import's usage lines. */
void rimport_usage(FILE *out);

#endif
