/* relayout.h — `bitmapd --migrate` cuts the big bitmaps still stored as one row into
 * chunk rows (chunks.h), online and restartable. Blocking libpq, like migrate.c. */
#ifndef BITMAPD_RELAYOUT_H
#define BITMAPD_RELAYOUT_H

#include <libpq-fe.h>

#include "common.h"

bool relayout_run(PGconn *pg) WUR;

#endif
