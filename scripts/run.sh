#!/usr/bin/env bash
# What `make run` executes: uses the configured PostgreSQL DSN (BITMAPD_DSN or
# service.ini [postgres] dsn) if there is one, else starts the embedded cluster
# in var/pg; applies migrations as the owner role; then runs build/bitmapd in the
# foreground as the least-privilege app role (README.md, "Database roles").
# Migrations use BITMAPD_OWNER_DSN when it is set (the embedded cluster's
# var/pg/owner_dsn otherwise), else the service's own DSN; they get it as
# BITMAPD_DSN, so a --set postgres.dsn=... argument would override it.
# Ctrl-C (INT) or TERM stops the service, then the embedded cluster.
# Extra arguments are passed to every bitmapd invocation (e.g. --config FILE,
# --set http.port=9000).
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
BIN=build/bitmapd
PGDIR=var/pg

[[ -x $BIN ]] || {
  echo "run: $BIN not built (make all)" >&2
  exit 1
}

dsn=$("$BIN" --print-dsn "$@")
embedded=0
if [[ -z $dsn ]]; then
  embedded=1
  # Stop the cluster whatever happens from here on (migration failure included).
  trap 'bash scripts/pg.sh stop "$PGDIR" || true' EXIT
  bash scripts/pg.sh start "$PGDIR"
  BITMAPD_DSN=$(<"$PGDIR/dsn")
  BITMAPD_OWNER_DSN=$(<"$PGDIR/owner_dsn")
  export BITMAPD_DSN
  echo "run: using the embedded cluster in $PGDIR (make psql to inspect it)"
else
  echo "run: using the configured database (no embedded cluster)"
fi

if [[ -n ${BITMAPD_OWNER_DSN:-} ]]; then
  BITMAPD_DSN=$BITMAPD_OWNER_DSN "$BIN" --migrate "$@"
elif ! "$BIN" --migrate "$@"; then
  echo "run: migrations failed; if the service's role may not change the schema, set BITMAPD_OWNER_DSN to the owner role's DSN" >&2
  exit 1
fi
unset BITMAPD_OWNER_DSN

# Background child + wait, so our INT/TERM trap runs at once and forwards the
# stop request. A second signal kills the service outright.
child=""
signals=0
# shellcheck disable=SC2317  # invoked by trap
forward() {
  signals=$((signals + 1))
  [[ -n $child ]] || return 0
  if ((signals == 1)); then
    kill -TERM "$child" 2>/dev/null || true
  else
    kill -KILL "$child" 2>/dev/null || true
  fi
}
trap forward INT TERM

"$BIN" "$@" &
child=$!
# wait returns early (status > 128) when a trapped signal arrives while the
# service still runs: wait again until it is gone.
rc=0
while :; do
  if wait "$child"; then rc=0; else rc=$?; fi
  kill -0 "$child" 2>/dev/null || break
done
# When that wait was cut short just as the service exited, bash may still
# hold the real status; it answers 127 or -1 (sic) when it does not.
final=0
wait "$child" 2>/dev/null || final=$?
if ((final >= 0 && final != 127)); then rc=$final; fi
child=""
if ((embedded)); then
  echo "run: bitmapd exited with status $rc; stopping the embedded cluster"
fi
exit "$rc"
