/* migrate.h — `bitmapd --migrate`: applies migrations/NNNN_name.sql files once each, in a
 * transaction, recorded in bitmapd.schema_migrations, then re-applies the sql/ files
 * (idempotent views and functions). A command-line mode, not on the event loop,
 * so it uses blocking libpq. */
#ifndef BITMAPD_MIGRATE_H
#define BITMAPD_MIGRATE_H

#include "core/common.h"

bool migrate_run(const char *dsn, const char *migrations_dir, const char *sql_dir) WUR;
/* bitmapd --fold-flips (relayout_fold_flips). */
bool migrate_fold_flips(const char *dsn) WUR;

#endif
