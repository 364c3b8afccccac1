#!/usr/bin/env bash
# Creates (or brings up to date) bitmapd's two database roles on an existing
# PostgreSQL cluster, by running scripts/roles.sql in bitmapd's database: the
# owner role, which `bitmapd --migrate` connects as, and the least-privilege app
# role the service connects as. Idempotent: run it again at any time.
#
# Usage: scripts/roles.sh [--owner NAME] [--app NAME]
#                         [--owner-password-file FILE] [--app-password-file FILE]
#                         CONNINFO
#
#   CONNINFO  libpq connection string or URI of bitmapd's database, for a superuser
#             or a CREATEROLE role that owns that database, e.g.
#             'host=10.0.0.5 dbname=bitmapd user=postgres'. The database must exist
#             (CREATE DATABASE bitmapd OWNER <owner> is the usual first step).
#   --owner NAME, --app NAME   role names (default bitmapd and bitmapd_app)
#   --app-password-file FILE   the app role's password is the first line of FILE;
#             if FILE does not exist, a random password is written to it (mode 0600)
#   --owner-password-file FILE the same for the owner role
#   BITMAPD_APP_PASSWORD, BITMAPD_OWNER_PASSWORD in the environment may give the
#   passwords instead. A role's password is left as it is when none is given.
#
# Passwords reach psql on its standard input, never on a command line.
set -euo pipefail

SQL=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/roles.sql

usage() {
  sed -n '7,21s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

die() {
  echo "roles.sh: $*" >&2
  exit 1
}

owner=bitmapd
app=bitmapd_app
owner_file=""
app_file=""
while (($#)); do
  case $1 in
    --owner) (($# >= 2)) || usage; owner=$2; shift 2 ;;
    --app) (($# >= 2)) || usage; app=$2; shift 2 ;;
    --owner-password-file) (($# >= 2)) || usage; owner_file=$2; shift 2 ;;
    --app-password-file) (($# >= 2)) || usage; app_file=$2; shift 2 ;;
    -h | --help) usage ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
(($# == 1)) || usage
conninfo=$1
[[ -n $owner && -n $app && $owner != "$app" ]] || die "--owner and --app must be two different names"

# Reads the password from FILE, or creates FILE with a random one.
password_from_file() { # FILE
  if [[ ! -e $1 ]]; then
    (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$1.tmp" && echo >>"$1.tmp")
    mv -f -- "$1.tmp" "$1"
    echo "roles.sh: wrote a new password to $1" >&2
  fi
  [[ -r $1 ]] || die "cannot read $1"
  head -n 1 -- "$1"
}

# A psql \set line for VALUE: single quotes doubled and backslashes escaped,
# as psql reads a single-quoted meta-command argument.
psql_set() { # NAME VALUE
  local v=$2
  [[ $v != *$'\n'* && $v != *$'\r'* ]] || die "a password must not contain a line break"
  v=${v//\\/\\\\}
  v=${v//\'/\'\'}
  printf "\\\\set %s '%s'\n" "$1" "$v"
}

owner_password=${BITMAPD_OWNER_PASSWORD:-}
app_password=${BITMAPD_APP_PASSWORD:-}
if [[ -n $owner_file ]]; then owner_password=$(password_from_file "$owner_file"); fi
if [[ -n $app_file ]]; then app_password=$(password_from_file "$app_file"); fi
[[ -n $owner_file || -z ${BITMAPD_OWNER_PASSWORD+x} || -n $owner_password ]] || die "BITMAPD_OWNER_PASSWORD is empty"
[[ -n $app_file || -z ${BITMAPD_APP_PASSWORD+x} || -n $app_password ]] || die "BITMAPD_APP_PASSWORD is empty"

{
  if [[ -n $owner_password ]]; then psql_set owner_password "$owner_password"; fi
  if [[ -n $app_password ]]; then psql_set app_password "$app_password"; fi
  cat -- "$SQL"
} | psql -X -q -v ON_ERROR_STOP=1 -v owner="$owner" -v app="$app" -d "$conninfo" -f -
