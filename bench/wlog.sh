#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/wlog.sh FRAGMENT.md — the write-behind log (docs/design.md, "Write-behind log"):
# durable SETBIT over 1,000,000 random keys, side by side in one run, against
#   in place     bitmapd's main instance (BENCH_RESP_PORT, [wlog] off: one
#                compare-and-swap of the rows per batch)
#   log          a second bitmapd on the same database with [wlog] enabled = 1
#                (acknowledged after one append per batch, folded behind); the main
#                instance watches its appends, so they announce every key to it
#   log, alone   a bitmapd with [wlog] enabled = 1 on a database of its own in the
#                same cluster (made by the cluster's superuser, padded to the main
#                database's row count): the one instance of its database, as most
#                deployments run, whose appends are lean and announce nothing
#   redis-fsync  redis-server --appendonly yes --appendfsync always
# at 50 and 100 clients, and 50 clients with -P 16; BENCH_WLOG_ROUNDS rounds taken
# in turn (medians). A burst is BENCH_WLOG_N requests, fewer than [wlog] max_keys, so
# the log absorbs it and folds during and after it; then one sustained run of
# 10 x BENCH_WLOG_N at 100 clients, long enough that the folds (at half of
# max_keys) run alongside and bound it. Before every measurement the log is folded
# and the key:* rows deleted and vacuumed away (redis: FLUSHALL), so every SETBIT
# makes a new key in a table without dead rows.
#
# Needs (exported by bench/run.sh): BENCH_BIN, BITMAPD_DSN, BENCH_PGURL (owner),
# BENCH_RESP_PORT, BENCH_REDIS_FSYNC_PORT, BENCH_TMP; the cluster's directory of
# scripts/pg.sh in BENCH_PGDIR (default: BENCH_TMP's sibling pg, where run.sh puts it).
# Environment: BENCH_WLOG_ROUNDS [3 / 1 with BENCH_QUICK=1], BENCH_WLOG_N [40000].
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
die() {
  echo "wlog: $*" >&2
  exit 1
}
[[ $# -eq 1 && -n $1 ]] || die "usage: bench/wlog.sh FRAGMENT.md"
OUT=$1
for v in BENCH_BIN BITMAPD_DSN BENCH_PGURL BENCH_RESP_PORT BENCH_REDIS_FSYNC_PORT BENCH_TMP; do
  [[ -n ${!v:-} ]] || die "$v is not set"
done
QUICK=${BENCH_QUICK:-0}
ROUNDS=${BENCH_WLOG_ROUNDS:-$( ((QUICK)) && echo 1 || echo 3)}
N=${BENCH_WLOG_N:-40000}
T=$BENCH_TMP/wlog
mkdir -p "$T"

free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 10000))
    [[ -z $(ss -Htan "sport = :$p" 2>/dev/null) ]] && { echo "$p"; return; }
  done
  die "no free port"
}
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done; for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done' EXIT
start_log() { # DSN NAME: a bitmapd with the log on; sets HTTP_P and RESP_P
  HTTP_P=$(free_port)
  RESP_P=$(free_port)
  BITMAPD_DSN=$1 "$BENCH_BIN" --set http.address=127.0.0.1 --set "http.port=$HTTP_P" --set resp.address=127.0.0.1 \
    --set "resp.port=$RESP_P" --set wlog.enabled=1 --set wlog.cooldown_s=0 --set service.shutdown_timeout_s=60 \
    >"$T/bitmapd.$2.log" 2>&1 </dev/null &
  PIDS+=($!)
  for _ in $(seq 100); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_P/healthz") == 200 ]] && return
    sleep 0.1
  done
  die "the $2 instance did not come up: $(tail -n 3 "$T/bitmapd.$2.log")"
}

# SQL on stdin as the superuser of the cluster of scripts/pg.sh (for a database of its own)
PGDIR=${BENCH_PGDIR:-$(dirname -- "$BENCH_TMP")/pg}
super_sql() { bash scripts/pg.sh psql "$PGDIR" "$1"; } # DB

start_log "$BITMAPD_DSN" log # beside the main instance, on its database
HP=$HTTP_P RP=$RESP_P

# the lone instance's database: the roles' grants, the migrations, and as many rows as
# the main database holds now (the index a probe walks is then as deep)
ADB=bitmapd_wlog_alone
OWNER_ROLE=$(sed -n 's|^postgresql://\([^:]*\):.*|\1|p' <<<"$BENCH_PGURL")
APP_ROLE=$(sed -n 's/.*user=\([^ ]*\).*/\1/p' <<<"$BITMAPD_DSN")
[[ -n $OWNER_ROLE && -n $APP_ROLE ]] || die "cannot read the roles from BENCH_PGURL and BITMAPD_DSN"
A_URL=${BENCH_PGURL%/*}/$ADB
A_DSN=${BITMAPD_DSN/dbname=bitmapd/dbname=$ADB}
[[ $A_DSN != "$BITMAPD_DSN" ]] || die "BITMAPD_DSN names no dbname=bitmapd"
super_sql postgres <<<"DROP DATABASE IF EXISTS $ADB" >/dev/null
super_sql postgres <<<"CREATE DATABASE $ADB OWNER \"$OWNER_ROLE\"" >/dev/null
{
  printf 'SET client_min_messages = warning;\n\\set owner %s\n\\set app %s\n' "$OWNER_ROLE" "$APP_ROLE"
  cat scripts/roles.sql
} | super_sql "$ADB" >/dev/null
BITMAPD_DSN="$A_URL" "$BENCH_BIN" --migrate >"$T/migrate.alone.log" 2>&1 || die "migrating $ADB: $(tail -n 3 "$T/migrate.alone.log")"
start_log "$A_DSN" alone
AHP=$HTTP_P ARP=$RESP_P
PAD=$(psql "$BENCH_PGURL" -XAtq -c "SELECT count(*) FROM bitmapd.bitmaps WHERE key NOT LIKE 'key:%'")
if ((PAD > 0)); then # through the lone instance itself: real values, spread over the index as key:* will be
  redis-benchmark -h 127.0.0.1 -p "$ARP" -c 50 -P 16 -n "$PAD" -r 100000000 -q SETBIT pad:__rand_int__ 7 1 >/dev/null 2>&1
  psql "$A_URL" -XAtq -c "SELECT bitmapd.wlog_fold()" >/dev/null
  for _ in $(seq 300); do
    [[ $(psql "$A_URL" -XAtq -c "SELECT count(*) FROM bitmapd.wlog") == 0 ]] && break
    sleep 0.1
  done
  psql "$A_URL" -XAtq -c "ANALYZE bitmapd.bitmaps" >/dev/null
fi

metric_at() { curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n {print $2}'; }
metric() { metric_at "$HP" "$1"; }
q() { psql "$BENCH_PGURL" -XAtq -c "$1"; }

# every measurement starts with the log folded and no key:* row, in both databases
clean_db() { # URL
  local i
  psql "$1" -XAtq -c "SELECT bitmapd.wlog_fold()" >/dev/null
  for i in $(seq 300); do
    [[ $(psql "$1" -XAtq -c "SELECT count(*) FROM bitmapd.wlog") == 0 ]] &&
      psql "$1" -XAtq -c "DELETE FROM bitmapd.bitmaps WHERE key LIKE 'key:%'" >/dev/null 2>&1 && break
    sleep 0.1
  done
  ((i < 300)) || die "could not fold the log and delete the keys"
  # the deleted rows (the last measurement's, and resp.sh's million before the first)
  # would otherwise stay in the table and its indexes until autovacuum comes: every
  # new key's insert would walk past them
  psql "$1" -XAtq -c "VACUUM bitmapd.bitmaps" >/dev/null
}
clean() {
  clean_db "$BENCH_PGURL"
  clean_db "$A_URL"
  redis-cli -p "$BENCH_REDIS_FSYNC_PORT" FLUSHALL >/dev/null
  q "CHECKPOINT" >/dev/null 2>&1 || true
}

rate() { # PORT CLIENTS PIPELINE N
  redis-benchmark -h 127.0.0.1 -p "$1" -c "$2" -P "$3" -n "$4" -r 1000000 -q SETBIT key:__rand_int__ 7 1 2>/dev/null |
    tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -n 1 | awk '{printf "%.0f", $1}'
}

lease() { # HTTP RESP: the lease first, so that the burst is measured through the log
  for _ in $(seq 100); do
    redis-cli -p "$2" SETBIT key:warm 1 1 >/dev/null
    [[ $(metric_at "$1" bitmapd_wlog_holder) == 1 ]] && return
    sleep 0.05
  done
  die "the instance on port $2 did not take the lease"
}

measure() { # WHO CLIENTS PIPELINE N
  local port=$BENCH_RESP_PORT
  clean
  case $1 in
  log)
    port=$RP
    lease "$HP" "$RP"
    ;;
  alone)
    port=$ARP
    lease "$AHP" "$ARP"
    ;;
  redis) port=$BENCH_REDIS_FSYNC_PORT ;;
  esac
  rate "$port" "$2" "$3" "$4"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print (NR ? a[int((NR + 1) / 2)] : 0)}'; }

declare -A R=()
WORK=("50 1" "100 1" "50 16")
for ((r = 0; r < ROUNDS; r++)); do
  for w in "${WORK[@]}"; do
    read -r c p <<<"$w"
    for who in place log alone redis; do
      v=$(measure "$who" "$c" "$p" "$N") || v=0
      R[$who.$c.$p]+=" $v"
      echo "wlog: round $((r + 1)) $who c$c P$p: $v/s" >&2
    done
  done
done
declare -A S=()
for who in place log alone redis; do
  S[$who]=$(measure "$who" 100 1 $((10 * N))) || S[$who]=0
  echo "wlog: sustained $who: ${S[$who]}/s" >&2
done
folds=$(metric bitmapd_wlog_folds_total)
folded=$(metric bitmapd_wlog_folded_keys_total)
appended=$(metric bitmapd_wlog_append_keys_total)
lean=$(metric bitmapd_wlog_lean_appends_total) redone=$(metric bitmapd_wlog_lean_redone_total)
a_appends=$(metric_at "$AHP" bitmapd_wlog_appends_total)
a_lean=$(metric_at "$AHP" bitmapd_wlog_lean_appends_total) a_redone=$(metric_at "$AHP" bitmapd_wlog_lean_redone_total)
clean
for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
PIDS=()
super_sql postgres <<<"DROP DATABASE IF EXISTS $ADB" >/dev/null 2>&1 || true

thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }'; }
{
  echo "## The write-behind log: random keys, durable"
  echo
  echo "Durable SETBIT of new keys (\`redis-benchmark -r 1000000 SETBIT key:__rand_int__ 7 1\`), each row the"
  echo "median of $ROUNDS measurement(s) of $(thousands "$N") requests taken in turn; bitmapd in place ([wlog] off, the"
  echo "main instance), bitmapd with the write-behind log ([wlog] enabled = 1, defaults otherwise) beside the main"
  echo "instance on its database (which watches the appends: each announces its keys to it), the same alone on a"
  echo "database of its own in the same cluster (padded to the main database's $(thousands "${PAD:-0}") rows with"
  echo "SETBITs of its own: the one instance of its database, as a single instance runs), and redis-server"
  echo "\`--appendfsync always\`, on the same machine and disk. Before each measurement the logs are folded, the key:* rows"
  echo "are deleted and \`VACUUM bitmapd.bitmaps\` clears them away (redis: FLUSHALL). Targets of issue 13: 0.6× at 50 and 100 clients, 0.3× with \`-P 16\`."
  echo
  echo "| clients | in place | log, beside the main instance | log, alone | redis fsync | in place / redis | log beside / redis | log alone / redis |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for w in "${WORK[@]}"; do
    read -r c p <<<"$w"
    a=$(median <<<"${R[place.$c.$p]}")
    b=$(median <<<"${R[log.$c.$p]}")
    l=$(median <<<"${R[alone.$c.$p]}")
    x=$(median <<<"${R[redis.$c.$p]}")
    label="$c"
    ((p > 1)) && label="$c, \`-P $p\`"
    echo "| $label | $(thousands "$a") | $(thousands "$b") | $(thousands "$l") | $(thousands "$x") | $(ratio "$a" "$x") | $(ratio "$b" "$x") | **$(ratio "$l" "$x")** |"
  done
  echo "| 100, sustained ($(thousands $((10 * N))) requests) | $(thousands "${S[place]}") | $(thousands "${S[log]}") | $(thousands "${S[alone]}") | $(thousands "${S[redis]}") | $(ratio "${S[place]}" "${S[redis]}") | $(ratio "${S[log]}" "${S[redis]}") | **$(ratio "${S[alone]}" "${S[redis]}")** |"
  echo
  echo "The instance beside the main one appended $(thousands "${appended:-0}") images and folded $(thousands "${folded:-0}") in $(thousands "${folds:-0}") folds over the run"
  echo "(a key written twice before a fold is folded once); of its appends $(thousands "${lean:-0}") went out lean and $(thousands "${redone:-0}") of those met the watcher and went"
  echo "out again in full (after one, appends stay full for 5 s). The lone instance appended $(thousands "${a_appends:-0}") rows; it sent $(thousands "${a_lean:-0}") appends"
  echo "lean (those of version checks alone append no row), $(thousands "${a_redone:-0}") of them again in full. The burst rows measure what a client sees while the log absorbs the writes; the"
  echo "sustained row, where the folds run alongside, what the machine can keep up."
} >"$OUT"
