#!/usr/bin/env bash
# What `make psql ARGS='...'` executes: psql on the service's database. Uses the
# configured DSN (BITMAPD_DSN or service.ini [postgres] dsn) if there is one; else
# the embedded cluster in var/pg (started if needed) as its owner role, which may
# also run the administration functions (partition_bitmaps) and DDL.
# Arguments are passed to psql.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
BIN=build/bitmapd
PGDIR=var/pg

# `make psql` does not depend on the build; build quietly (to stderr) if needed,
# since only bitmapd knows how it reads its configuration.
if [[ ! -x $BIN ]]; then
  make -s --no-print-directory "$BIN" >&2
fi

dsn=$("$BIN" --print-dsn)
if [[ -z $dsn ]]; then
  if ! bash scripts/pg.sh status "$PGDIR" >/dev/null 2>&1 || [[ ! -s $PGDIR/owner_dsn ]]; then
    bash scripts/pg.sh start "$PGDIR" >&2
  fi
  dsn=$(<"$PGDIR/owner_dsn")
fi
exec psql "$dsn" "$@"
