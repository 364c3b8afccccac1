#!/usr/bin/env bash
# Manages a private ("embedded") PostgreSQL cluster for bitmapd in a directory:
# creates it on first start (initdb), starts/stops it with pg_ctl, and keeps the
# database "bitmapd" with its two login roles (scripts/roles.sql): "bitmapd" owns
# the database and the schema and runs the migrations (DSN in DIR/owner_dsn);
# "bitmapd_app" is the service's least-privilege role (DSN in DIR/dsn).
# A DIR made by an older pg.sh (one role, its DSN in DIR/dsn) is converted on the
# next start: DIR/dsn then names the app role, DIR/owner_dsn the old one.
# Never touches Debian's system cluster (15/main).
#
# Usage: scripts/pg.sh start DIR [PORT] | stop DIR | restart DIR | status DIR
#                      | dsn DIR | owner-dsn DIR | destroy DIR | psql DIR DATABASE
#
# psql runs psql (SQL on stdin, its output on stdout) as the cluster's superuser over
# its Unix socket, for tests and benchmarks that need one (a database of their own);
# the caller's PGOPTIONS go with it, nothing else of its libpq environment.
# Files in DIR: dsn, owner_dsn, port, password and app_password (0600; the
# owner's and the app role's), postgres.log, and either data/ and socket/ (the
# cluster itself) or, when run as root and DIR is not reachable by the
# unprivileged server user, a file "cluster" naming the fallback location
# /var/tmp/bitmapd-pg-<hash> that holds data/ and socket/ instead.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [PORT] | stop DIR | restart DIR | status DIR | dsn DIR | owner-dsn DIR | destroy DIR | psql DIR DATABASE" >&2
  exit 2
}

die() {
  echo "pg.sh: $*" >&2
  exit 1
}

# libpq/server environment of the caller must not redirect our commands (but the
# session options a psql of the caller's asks for: cmd_psql).
CALLER_PGOPTIONS=${PGOPTIONS-}
unset "${!PG@}"

PG_BINDIR=${BITMAPD_PG_BINDIR:-/usr/lib/postgresql/15/bin}
ROLES_SQL=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/roles.sql
DEFAULT_PORT=54329
PORT_MIN=54330
PORT_MAX=54999
ROLE=bitmapd
APP_ROLE=bitmapd_app
DB=bitmapd
SUPERUSER=postgres

(($# >= 2)) || usage
CMD=$1
DIR_ARG=$2
PORT_ARG=${3:-}
if [[ $CMD == psql ]]; then
  [[ -n $PORT_ARG ]] || usage # the database
else
  [[ -z $PORT_ARG || $PORT_ARG =~ ^[0-9]+$ ]] || die "PORT must be a number: $PORT_ARG"
fi

# --- who runs the server ----------------------------------------------------

RUN_USER=$(id -un)
if ((EUID == 0)); then
  if id -u postgres >/dev/null 2>&1; then
    RUN_USER=postgres
  else
    if ! id -u bitmapd >/dev/null 2>&1; then
      useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin bitmapd
    fi
    RUN_USER=bitmapd
  fi
fi

# Runs a command as the server user, from /, with a neutral HOME (PostgreSQL
# tools warn when they cannot read the current directory or ~/.psqlrc).
as_pg() {
  if ((EUID == 0)); then
    (cd / && runuser -u "$RUN_USER" -- env HOME=/ "$@")
  else
    (cd / && "$@")
  fi
}

# --- locations --------------------------------------------------------------

case $CMD in
  start) mkdir -p -- "$DIR_ARG" ;;
  stop | restart | status | dsn | owner-dsn | destroy | psql) [[ -d $DIR_ARG ]] || die "no such directory: $DIR_ARG" ;;
  *) usage ;;
esac
DIR=$(cd -- "$DIR_ARG" && pwd -P)
LOG=$DIR/postgres.log

if [[ -f $DIR/cluster ]]; then
  AREA=$(<"$DIR/cluster")
  FALLBACK=1
elif [[ -d $DIR/data || ($CMD != start && $CMD != restart) ]]; then
  AREA=$DIR
  FALLBACK=0
elif ((EUID == 0)) && ! as_pg test -x "$DIR"; then
  # DIR (or an ancestor, e.g. a mode-0700 mktemp directory) is closed to the
  # server user. Do not loosen permissions of directories we do not own; put
  # the cluster in a stable per-DIR location instead and remember it.
  AREA=/var/tmp/bitmapd-pg-$(printf '%s' "$DIR" | sha256sum | cut -c1-12)
  FALLBACK=1
  printf '%s\n' "$AREA" >"$DIR/cluster"
else
  AREA=$DIR
  FALLBACK=0
fi
DATA=$AREA/data
SOCK=$AREA/socket
# A Unix socket path is limited to 107 bytes ("/.s.PGSQL.NNNNN" included).
if ((${#SOCK} > 90)); then
  SOCK=/tmp/bitmapd-pg-sock-$(printf '%s' "$DIR" | sha256sum | cut -c1-12)
fi

# --- helpers ----------------------------------------------------------------

is_running() {
  [[ -f $DATA/postmaster.pid ]] && as_pg "$PG_BINDIR/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

# Port of the running server (line 4 of postmaster.pid).
running_port() {
  sed -n 4p "$DATA/postmaster.pid"
}

port_in_use() {
  local port=$1
  if command -v ss >/dev/null 2>&1; then
    [[ -n $(ss -Htln "sport = :$port" 2>/dev/null) ]]
  else
    (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null
  fi
}

pick_port() {
  local port
  if ! port_in_use "$DEFAULT_PORT"; then
    echo "$DEFAULT_PORT"
    return
  fi
  for ((port = PORT_MIN; port <= PORT_MAX; port++)); do
    if ! port_in_use "$port"; then
      echo "$port"
      return
    fi
  done
  die "no free port in $DEFAULT_PORT, $PORT_MIN-$PORT_MAX"
}

# Creates a directory owned by the server user, mode 0700. Refuses one that
# someone else planted (a symlink, or foreign owner) in a shared tmp directory.
make_private_dir() {
  if [[ -L $1 ]] || { [[ -e $1 ]] && ! [[ -O $1 ]] && [[ $(stat -c %U -- "$1") != "$RUN_USER" ]]; }; then
    die "refusing to use $1: a symlink or owned by someone else"
  fi
  mkdir -p -- "$1"
  if ((EUID == 0)); then
    chown "$RUN_USER:" "$1"
  fi
  chmod 0700 "$1"
}

write_private_file() { # PATH CONTENT
  (umask 077 && printf '%s\n' "$2" >"$1.tmp")
  mv -f -- "$1.tmp" "$1"
}

init_cluster() {
  local locale=C
  if locale -a 2>/dev/null | grep -qixE 'c\.utf-?8'; then
    locale=C.UTF-8
  fi
  if ((FALLBACK)); then
    make_private_dir "$AREA"
  fi
  make_private_dir "$DATA"
  if ! as_pg "$PG_BINDIR/initdb" -D "$DATA" --username="$SUPERUSER" --encoding=UTF8 \
    --locale="$locale" --auth-local=peer --auth-host=scram-sha-256 --no-instructions \
    >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    rm -rf -- "$DATA"
    die "initdb failed (log: $LOG)"
  fi
  # Local (socket) connections: only the server's OS user, as the superuser,
  # via peer auth. TCP: password (SCRAM) only. Nothing else.
  as_pg tee "$DATA/pg_hba.conf" >/dev/null <<EOF
# Written by scripts/pg.sh.
local   all   all                    peer map=pgsh
host    all   all   127.0.0.1/32     scram-sha-256
host    all   all   ::1/128          scram-sha-256
EOF
  as_pg tee "$DATA/pg_ident.conf" >/dev/null <<EOF
# Written by scripts/pg.sh: the server's OS user may connect as the superuser.
pgsh   $RUN_USER   $SUPERUSER
EOF
  printf "\n# Added by scripts/pg.sh: port, addresses and socket.\ninclude_if_exists = 'bitmapd.conf'\n" |
    as_pg tee -a "$DATA/postgresql.conf" >/dev/null
}

write_server_conf() { # PORT
  as_pg tee "$DATA/bitmapd.conf" >/dev/null <<EOF
# Written by scripts/pg.sh on every start; edit the script, not this file.
port = $1
listen_addresses = '127.0.0.1'
unix_socket_directories = '${SOCK//\'/\'\'}'
EOF
}

start_server() {
  make_private_dir "$SOCK"
  # Without -l, the server inherits our stdout/stderr, so the log file can
  # live in DIR even when the server user cannot open DIR itself.
  as_pg "$PG_BINDIR/pg_ctl" -D "$DATA" -w -t 60 start >>"$LOG" 2>&1
}

# psql as the superuser over the socket; SESSION_PGOPTIONS: the session's options (none
# unless cmd_psql passes the caller's on)
superuser_psql() { # PORT DATABASE [PSQL OPTION...], SQL on stdin
  local port=$1 db=$2
  shift 2
  as_pg env PGOPTIONS="${SESSION_PGOPTIONS-}" "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$port" \
    -U "$SUPERUSER" -d "$db" "$@"
}

# A random password kept in a 0600 file, created on first use.
password_file() { # PATH
  local password
  if [[ ! -s $1 ]]; then
    write_private_file "$1" "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  fi
  password=$(<"$1")
  [[ $password =~ ^[0-9a-f]+$ ]] || die "unexpected content in $1"
  printf '%s' "$password"
}

# Idempotent: the owner role and its database, then both roles' privileges by
# scripts/roles.sql, then the two DSNs. owner_dsn is written last: a DIR without
# it (an older pg.sh's, or a start that failed here) is set up again next time.
ensure_role_and_db() { # PORT
  local password app_password
  [[ -r $ROLES_SQL ]] || die "missing $ROLES_SQL"
  password=$(password_file "$DIR/password")
  app_password=$(password_file "$DIR/app_password")
  # Passwords go over stdin, not the command line.
  superuser_psql "$1" postgres >/dev/null <<EOF
SELECT 'CREATE ROLE $ROLE' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') \gexec
ALTER ROLE $ROLE WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '$password';
SELECT 'CREATE DATABASE $DB OWNER $ROLE' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB') \gexec
ALTER DATABASE $DB OWNER TO $ROLE;
-- A private cluster: only the two roles (given CONNECT by roles.sql) use this
-- database, and neither needs temporary tables.
REVOKE ALL ON DATABASE $DB FROM PUBLIC;
EOF
  {
    printf 'SET client_min_messages = warning;\n'
    printf '\\set owner %s\n\\set app %s\n\\set app_password %s\n' "$ROLE" "$APP_ROLE" "$app_password"
    cat -- "$ROLES_SQL"
  } | superuser_psql "$1" "$DB" >/dev/null
  write_private_file "$DIR/dsn" "host=127.0.0.1 port=$1 dbname=$DB user=$APP_ROLE password=$app_password"
  write_private_file "$DIR/owner_dsn" "host=127.0.0.1 port=$1 dbname=$DB user=$ROLE password=$password"
}

where() {
  if ((FALLBACK)); then
    echo " (cluster in $AREA: $DIR is not reachable by user $RUN_USER)"
  fi
}

# --- commands ---------------------------------------------------------------

cmd_start() {
  local port did attempt
  if is_running; then
    port=$(running_port)
    if [[ -n $PORT_ARG && $PORT_ARG != "$port" ]]; then
      die "already running on port $port, not $PORT_ARG; stop it first"
    fi
    if [[ ! -s $DIR/dsn || ! -s $DIR/owner_dsn ]]; then
      ensure_role_and_db "$port"
    fi
    echo "pg: already running on port $port$(where)"
    return
  fi

  if [[ -n $PORT_ARG ]]; then
    port=$PORT_ARG
    port_in_use "$port" && die "port $port is in use"
  elif [[ -s $DIR/port ]] && ! port_in_use "$(<"$DIR/port")"; then
    port=$(<"$DIR/port")
  else
    port=$(pick_port)
  fi

  did=started
  if [[ ! -f $DATA/PG_VERSION ]]; then
    init_cluster
    did="created and started"
  fi
  # A port we chose can be taken by someone else between the check and the
  # bind (another cluster starting at the same time): then choose again.
  for attempt in 1 2 3; do
    printf '%s\n' "$port" >"$DIR/port"
    write_server_conf "$port"
    if start_server; then
      break
    fi
    if [[ -n $PORT_ARG ]] || ((attempt == 3)) || ! grep -q 'Address already in use' "$LOG"; then
      tail -n 20 "$LOG" >&2
      die "pg_ctl start failed (log: $LOG)"
    fi
    echo "pg: port $port was taken meanwhile; trying another" >&2
    port=$(pick_port)
  done
  ensure_role_and_db "$port"
  echo "pg: $did on 127.0.0.1:$port, dsn in $DIR/dsn (owner: owner_dsn)$(where)"
}

cmd_stop() {
  if ! is_running; then
    echo "pg: not running"
    return
  fi
  if ! as_pg "$PG_BINDIR/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    die "pg_ctl stop failed (log: $LOG)"
  fi
  echo "pg: stopped"
}

cmd_status() {
  if is_running; then
    echo "pg: running on port $(running_port), data in $DATA"
  else
    echo "pg: not running"
    exit 3
  fi
}

cmd_dsn() { # FILE
  [[ -s $DIR/$1 ]] || die "no $1 in $DIR (run: $0 start $DIR_ARG)"
  cat -- "$DIR/$1"
}

# Stops the cluster and removes what this script created; DIR itself only if
# that leaves it empty (so a mistaken DIR never loses unrelated files).
cmd_destroy() {
  cmd_stop >/dev/null
  rm -rf -- "$DATA" "$AREA/socket"
  if [[ $SOCK != "$AREA/socket" ]]; then rm -rf -- "$SOCK"; fi
  if ((FALLBACK)); then rmdir -- "$AREA" 2>/dev/null || true; fi
  rm -f -- "$DIR/cluster" "$DIR/dsn" "$DIR/owner_dsn" "$DIR/port" "$DIR/password" "$DIR/app_password" \
    "$DIR/postgres.log"
  rmdir -- "$DIR" 2>/dev/null || true
  echo "pg: destroyed"
}

# psql as the superuser, unaligned tuples only, on the port the running server wrote down
cmd_psql() {
  [[ -f $DATA/postmaster.pid ]] || die "not running (no $DATA/postmaster.pid)"
  SESSION_PGOPTIONS=$CALLER_PGOPTIONS superuser_psql "$(running_port)" "$PORT_ARG" -A -t
}

case $CMD in
  start) cmd_start ;;
  stop) cmd_stop ;;
  psql) cmd_psql ;;
  restart)
    cmd_stop
    cmd_start
    ;;
  status) cmd_status ;;
  dsn) cmd_dsn dsn ;;
  owner-dsn) cmd_dsn owner_dsn ;;
  destroy) cmd_destroy ;;
esac
