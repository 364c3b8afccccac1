/* relayout.h — `bitmapd --migrate` cuts the big bitmaps still stored as one row into
 * chunk rows (chunks.h), online and restartable. Blocking libpq, like migrate.c. */
#ifndef BITMAPD_RELAYOUT_H
#define BITMAPD_RELAYOUT_H

#include <libpq-fe.h>

#include "core/common.h"

bool relayout_run(PGconn *pg) WUR;
/* `bitmapd --fold-flips`: writes every chunked key's flips (migration 0010) into its
 * chunk rows, one key per transaction like relayout_run, value and version unchanged,
 * so that a bitmapd older than flips can read every key again. */
bool relayout_fold_flips(PGconn *pg) WUR;

#endif
