#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/run.sh — what `make bench` runs after building build/bitmapd and bench/naive.
#
# On loopback only (ports 56000-56099): creates a throwaway PostgreSQL cluster, a
# bitmapd in front of it (HTTP and RESP) and two redis-servers (one in memory, one
# with appendfsync always), then, in this order:
#   1. seeds the message boxes of BENCH_USERS users through the HTTP API (the
#      seed-000 workload: five messages a day for a year from a global sequence of
#      ~10M ids, see bench/common.lua) and measures the bytes stored per user
#      against a raw bitmap and a row-per-event table;
#   2. load-tests push / read / isReadable / a newest-first page with wrk;
#   3. bench/resp.sh: SETBIT and GETBIT with redis-benchmark against bitmapd and
#      both redis-servers, and the naive seed-000 design (bench/naive), at several
#      client counts; medians, the ratios of the targets, a PNG chart; then
#      bench/hotkey.sh: many clients writing one key, and WAL per write by key size;
#   4. bench/http_scale.sh (a page at depth 1,000,000, fan-out to 1,000,000 users)
#      and bench/storage.sh (bytes per user of the seed workloads), when present.
# Throughput comes before storage.sh, whose loads leave dead tuples and
# checkpoints behind. A step 3-4 script that fails is reported, and the others
# still run. The report, with the machine and the command, goes to
# docs/benchmarks.md (BENCH_OUT), the chart next to it (bench-throughput.png).
# The services and the cluster are always stopped and removed at exit.
#
# Scale: seeding goes through the API, one request per user, at roughly 500-1,100
# users/s on 2 shared cores. Users 0-9,999 always get a full year (1,825 ids);
# the other 90,000 get a full year too when the rate of those first 10,000
# projects the whole seeding within BENCH_SEED_BUDGET seconds, else BENCH_IDS ids
# each (the report says which happened and why).
#
# Environment (defaults in brackets):
#   BENCH_QUICK [0]           1: a smoke run of about 3 minutes (2,000 users, 3s wrk phases,
#                             resp.sh at 1 and 50 clients once each, smaller http_scale and
#                             storage workloads); figures from it are not to be quoted
#   BENCH_SECONDS [10]        duration of each wrk load phase
#   BENCH_CONNECTIONS [16]    wrk connections;  BENCH_THREADS [2] wrk threads
#   BENCH_USERS [100000]      users seeded; every load request picks one at random
#   BENCH_FULL_USERS [auto]   users 0…N-1 get all 1,825 ids of the year …
#   BENCH_IDS [50]            … the others this many, spread over the year
#   BENCH_SEED_BUDGET [120]   seconds a full seeding may be projected to take (auto)
#   BENCH_SEED_TIMEOUT [240]  seconds the whole seeding may take before the run fails
#   BENCH_ROW_USERS [≤10000]  users (from 0, full ones) of the storage comparison
#   BENCH_BIN [build/bitmapd] the binary;  BENCH_OUT [docs/benchmarks.md]
#   BENCH_NAIVE [build/bench/naive]  the naive design (make bench builds it)
#   BENCH_STEP_TIMEOUT [1200] seconds each of the scripts of steps 3-4 may take
#   bench/resp.sh, bench/http_scale.sh and bench/storage.sh list their own settings.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"

# The settings given on the command line, for the report ("BENCH_QUICK=1 make bench").
CMD_ENV=""
for v in ${!BENCH_@}; do
  case $v in BENCH_BIN | BENCH_NAIVE | BENCH_HOTKEY) continue ;; esac
  CMD_ENV+="$v=$(printf '%q' "${!v}") "
done

num() { # NAME VALUE MIN MAX: a bounded integer setting, or exit
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    echo "bench: $1 must be an integer in $3..$4, not '$2'" >&2
    exit 2
  fi
}

SLOTS=1825
SLOT_WIDTH=5479
QUICK=${BENCH_QUICK:-0}
[[ $QUICK == 0 || $QUICK == 1 ]] || {
  echo "bench: BENCH_QUICK must be 0 or 1" >&2
  exit 2
}
if ((QUICK)); then
  # Smaller defaults everywhere; any variable set by hand still wins.
  : "${BENCH_SECONDS:=3}" "${BENCH_USERS:=2000}" "${BENCH_SEED_BUDGET:=60}" "${BENCH_STEP_TIMEOUT:=400}"
  : "${BENCH_SCALE_DEPTH:=100000}" "${BENCH_SCALE_FANOUT_USERS:=100000}" "${BENCH_SCALE_SECONDS:=2}"
  : "${BENCH_STORAGE_CHECKIN_USERS:=500}" "${BENCH_STORAGE_BOX_USERS:=100}" "${BENCH_STORAGE_BOX_REDIS_USERS:=10}"
  : "${BENCH_STORAGE_GROUPS:=10}"
  export BENCH_SCALE_DEPTH BENCH_SCALE_FANOUT_USERS BENCH_SCALE_SECONDS
  export BENCH_STORAGE_CHECKIN_USERS BENCH_STORAGE_BOX_USERS BENCH_STORAGE_BOX_REDIS_USERS BENCH_STORAGE_GROUPS
fi
export BENCH_QUICK=$QUICK
SECS=${BENCH_SECONDS:-10}
CONNS=${BENCH_CONNECTIONS:-16}
THREADS=${BENCH_THREADS:-2}
USERS=${BENCH_USERS:-100000}
num BENCH_USERS "$USERS" 1 10000000
IDS=${BENCH_IDS:-50}
FULL=${BENCH_FULL_USERS:-0}
SEED_TIMEOUT=${BENCH_SEED_TIMEOUT:-240}
SEED_BUDGET=${BENCH_SEED_BUDGET:-120}
BIN=${BENCH_BIN:-build/bitmapd}
NAIVE=${BENCH_NAIVE:-build/bench/naive}
OUT=${BENCH_OUT:-docs/benchmarks.md}
STEP_TIMEOUT=${BENCH_STEP_TIMEOUT:-1200}
num BENCH_STEP_TIMEOUT "$STEP_TIMEOUT" 10 7200
num BENCH_SECONDS "$SECS" 1 600
num BENCH_CONNECTIONS "$CONNS" 1 1000
num BENCH_THREADS "$THREADS" 1 64
num BENCH_IDS "$IDS" 1 "$SLOTS"
num BENCH_FULL_USERS "$FULL" 0 "$USERS"
num BENCH_SEED_BUDGET "$SEED_BUDGET" 0 3600
num BENCH_SEED_TIMEOUT "$SEED_TIMEOUT" 10 3600
((CONNS >= THREADS)) || {
  echo "bench: BENCH_CONNECTIONS must be at least BENCH_THREADS" >&2
  exit 2
}
export BENCH_USERS=$USERS BENCH_IDS=$IDS BENCH_THREADS=$THREADS

for tool in wrk psql curl jq ss redis-server redis-cli; do
  command -v "$tool" >/dev/null || {
    echo "bench: $tool is missing (make deps installs it)" >&2
    exit 1
  }
done
[[ -x $BIN ]] || {
  echo "bench: $BIN is not built (make all)" >&2
  exit 1
}

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
START_S=$(date +%s)
LOAD_AT_START=$(cut -d" " -f1-3 /proc/loadavg)

# --- the throwaway cluster and service; always removed -----------------------

WORK=$(mktemp -d /tmp/bitmapd-bench.XXXXXX)
PGDIR=$WORK/pg
SVC_PID=""
WRK_PID=""
REDIS_PIDS=()

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local i
  if [[ -n $WRK_PID ]] && kill -0 "$WRK_PID" 2>/dev/null; then
    kill -TERM "$WRK_PID" 2>/dev/null || true
  fi
  for i in "${REDIS_PIDS[@]}"; do
    kill -TERM "$i" 2>/dev/null || true
  done
  if [[ -n $SVC_PID ]] && kill -0 "$SVC_PID" 2>/dev/null; then
    kill -TERM "$SVC_PID" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      kill -0 "$SVC_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$SVC_PID" 2>/dev/null || true
  fi
  if [[ -d $PGDIR ]]; then
    bash scripts/pg.sh destroy "$PGDIR" >/dev/null 2>&1 || echo "bench: could not remove the cluster in $PGDIR" >&2
  fi
  rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_free() { [[ -z $(ss -Htan "sport = :$1" 2>/dev/null) ]]; } # any state: a TIME-WAIT connection from the port keeps redis-server from binding it
PORTS_TAKEN=" "
pick_port() { # the first free port in 56000-56099 that this script has not picked yet
  local p
  for ((p = 56000; p <= 56099; p++)); do
    if [[ $PORTS_TAKEN != *" $p "* ]] && port_free "$p"; then
      PORTS_TAKEN+="$p "
      PICKED=$p
      return
    fi
  done
  echo "bench: no free port in 56000-56099" >&2
  exit 1
}

pick_port
PG_PORT=$PICKED
bash scripts/pg.sh start "$PGDIR" "$PG_PORT" >/dev/null
# the service runs as the app role; migrations, the bench schema and the naive
# design's own tables belong to the owner role (scripts/pg.sh makes both)
BITMAPD_DSN=$(<"$PGDIR/dsn")
OWNER_DSN=$(<"$PGDIR/owner_dsn")
export BITMAPD_DSN
sql() { psql "$OWNER_DSN" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
BITMAPD_DSN=$OWNER_DSN "$BIN" --migrate 2>"$WORK/migrate.log" || {
  cat "$WORK/migrate.log" >&2
  exit 1
}

pick_port
HTTP_PORT=$PICKED
pick_port
RESP_PORT=$PICKED
URL=http://127.0.0.1:$HTTP_PORT
"$BIN" --set http.address=127.0.0.1 --set "http.port=$HTTP_PORT" \
  --set resp.address=127.0.0.1 --set "resp.port=$RESP_PORT" >"$WORK/bitmapd.log" 2>&1 &
SVC_PID=$!
for ((i = 0; ; i++)); do
  if [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/healthz" || true) == 200 ]]; then
    break
  fi
  if ((i >= 300)) || ! kill -0 "$SVC_PID" 2>/dev/null; then
    echo "bench: bitmapd did not become healthy on $URL; its log:" >&2
    tail -n 20 "$WORK/bitmapd.log" >&2
    exit 1
  fi
  sleep 0.1
done
log "postgres on 127.0.0.1:$PG_PORT, bitmapd (pid $SVC_PID) on $URL and RESP port $RESP_PORT"
LOG_LINES_AT_START=$(wc -l <"$WORK/bitmapd.log") # warnings before it was healthy do not count

# Two redis-servers for bench/resp.sh and bench/storage.sh: one in memory, one
# that fsyncs its append-only file on every write (in BENCH_TMP, the same disk
# as the cluster). No AOF rewrite, so none starts in the middle of a measurement.
BENCH_TMP=$WORK/tmp
mkdir -p -- "$BENCH_TMP/redis-memory" "$BENCH_TMP/redis-fsync"
start_redis() { # NAME ARGS…: sets PICKED to its port
  local name=$1 i
  shift
  pick_port
  redis-server --bind 127.0.0.1 --port "$PICKED" --daemonize no --dir "$BENCH_TMP/$name" \
    --logfile "$BENCH_TMP/$name/redis.log" "$@" &
  REDIS_PIDS+=($!)
  for ((i = 0; ; i++)); do
    [[ $(redis-cli -p "$PICKED" PING 2>/dev/null) == PONG ]] && break
    if ((i >= 100)); then
      echo "bench: redis-server ($name) did not start on port $PICKED" >&2
      tail -n 5 "$BENCH_TMP/$name/redis.log" >&2
      exit 1
    fi
    sleep 0.1
  done
}
start_redis redis-memory --save '' --appendonly no
REDIS_PORT=$PICKED
start_redis redis-fsync --save '' --appendonly yes --appendfsync always --auto-aof-rewrite-percentage 0
REDIS_FSYNC_PORT=$PICKED
log "redis-server in memory on port $REDIS_PORT, with appendfsync always on port $REDIS_FSYNC_PORT"

# CPU time (seconds, 2 decimals) used so far by the service, and by the whole machine.
svc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$SVC_PID/stat"; }
machine_busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat; }

# Fields of the BENCH line that a wrk script's done() printed: bench_field FILE KEY
bench_field() { grep -m1 '^BENCH ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# --- seeding -----------------------------------------------------------------

# Phase 1 seeds users 0..P1-1 with a full year; phase 2 the others, with a full
# year too when phase 1's rate projects the whole seeding within SEED_BUDGET
# seconds (or BENCH_FULL_USERS says so), else with IDS ids each.
export BENCH_SEED_DONE=$WORK/seed-done BENCH_NAME=seed
SEED_S=0
SEED_STATUSES=""
PHASES=() # "name start_epoch", in order; checkpoints are attributed to them
phase() { PHASES+=("$1 $(date +%s.%N)"); }
phase seeding
declare -A SEED_CODES=()

seed_range() { # FROM TO: seeds users FROM..TO-1 (BENCH_FULL_USERS as exported)
  local from=$1 to=$2 t0 t1 seeded=0 next_progress done_threads tn=$THREADS limit
  ((to > from)) || return 0
  rm -f -- "$WORK"/seed-done.*
  ((to - from >= tn)) || tn=$((to - from))
  limit=$(awk -v t="$SEED_TIMEOUT" -v s="$SEED_S" 'BEGIN{l = int(t - s); print (l < 10 ? 10 : l)}')
  t0=$(date +%s.%N)
  BENCH_SEED_FROM=$from BENCH_USERS=$to \
    wrk -t "$THREADS" -c "$CONNS" -d "${limit}s" --timeout 60s -s bench/seed.lua "$URL" >"$WORK/seed.out" 2>&1 &
  WRK_PID=$!
  next_progress=$((SECONDS + 30))
  while kill -0 "$WRK_PID" 2>/dev/null; do
    if ((SECONDS >= next_progress)); then
      next_progress=$((SECONDS + 30))
      log "… $(sql -c "SELECT count(*) FROM bitmapd.bitmaps WHERE cardinality > 0") users seeded"
    fi
    done_threads=$(find "$WORK" -maxdepth 1 -name 'seed-done.*' | wc -l)
    if ((done_threads >= tn)); then
      seeded=1
      break
    fi
    sleep 0.2
  done
  t1=$(date +%s.%N)
  kill -INT "$WRK_PID" 2>/dev/null || true
  wait "$WRK_PID" || true
  WRK_PID=""
  if ((!seeded)); then
    echo "bench: seeding users $from..$((to - 1)) did not finish within ${limit}s (BENCH_SEED_TIMEOUT=$SEED_TIMEOUT in all); wrk said:" >&2
    cat "$WORK/seed.out" >&2
    exit 1
  fi
  SEED_LAST_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')
  SEED_S=$(awk -v a="$SEED_S" -v b="$SEED_LAST_S" 'BEGIN{printf "%.1f", a + b}')
  local pair
  for pair in $(bench_field "$WORK/seed.out" statuses | tr ',' ' '); do
    if [[ $pair == *:* ]]; then SEED_CODES[${pair%%:*}]=$((${SEED_CODES[${pair%%:*}]:-0} + ${pair#*:})); fi
  done
  SEED_STATUSES=$(for c in "${!SEED_CODES[@]}"; do echo "$c:${SEED_CODES[$c]}"; done | sort -n | paste -sd, -)
}

if [[ -n ${BENCH_FULL_USERS:-} ]]; then
  P1=$FULL
  FULL_HOW="set by BENCH_FULL_USERS"
else
  P1=$((USERS < 10000 ? USERS : 10000))
fi
export BENCH_FULL_USERS=$P1
log "seeding users 0..$((P1 - 1)) with $(thousands "$SLOTS") ids each through POST /v1/users/{u}/pushes"
seed_range 0 "$P1"
if ((P1 == USERS)); then
  FULL=$USERS
elif [[ -z ${FULL_HOW:-} ]]; then
  SEED_RATE=$(awk -v n="$P1" -v s="$SEED_LAST_S" 'BEGIN{printf "%.0f", (s > 0 ? n / s : 1e9)}')
  PROJECTED_S=$(awk -v n="$USERS" -v r="$SEED_RATE" 'BEGIN{printf "%.0f", n / r}')
  if ((PROJECTED_S <= SEED_BUDGET)); then
    FULL=$USERS
    FULL_HOW="the first $(thousands "$P1") users were seeded at $(thousands "$SEED_RATE") users/s, which projected ${PROJECTED_S}s for a full year for all $(thousands "$USERS"): within the seeding budget of ${SEED_BUDGET}s"
  else
    FULL=$P1
    FULL_HOW="the first $(thousands "$P1") users were seeded at $(thousands "$SEED_RATE") users/s, which projected ${PROJECTED_S}s for a full year for all $(thousands "$USERS"): over the seeding budget of ${SEED_BUDGET}s"
  fi
  log "$FULL_HOW"
fi
export BENCH_FULL_USERS=$FULL
if ((USERS > P1)); then
  log "seeding users $P1..$((USERS - 1)) with $(thousands "$((FULL > P1 ? SLOTS : IDS))") ids each"
  seed_range "$P1" "$USERS"
fi
export BENCH_USERS=$USERS
ROW_USERS=${BENCH_ROW_USERS:-$((FULL > 0 ? (FULL < 10000 ? FULL : 10000) : (USERS < 10000 ? USERS : 10000)))}
num BENCH_ROW_USERS "$ROW_USERS" 0 "$USERS"

SEED_IDS=$(((FULL * SLOTS) + (USERS - FULL) * IDS))
if ((FULL == USERS)); then
  SEED_DESC="$(thousands "$USERS") users × $(thousands "$SLOTS") ids"
else
  SEED_DESC="$(thousands "$FULL") users × $(thousands "$SLOTS") ids + $(thousands $((USERS - FULL))) users × $(thousands "$IDS") ids"
fi
read -r push_rows push_ids < <(sql -F ' ' -c "
  SELECT count(*), coalesce(sum(cardinality), 0) FROM bitmapd.bitmaps
   WHERE key >= convert_to('message:push:', 'UTF8') AND key < convert_to('message:push;', 'UTF8')")
log "seeded $SEED_DESC in ${SEED_S}s: $push_rows push rows holding $push_ids ids (statuses $SEED_STATUSES)"
if [[ $push_rows != "$USERS" || $push_ids != "$SEED_IDS" ]]; then
  echo "bench: expected $USERS push rows holding $SEED_IDS ids after seeding" >&2
  exit 1
fi

# The id formula of bench/common.lua, in SQL; checked against what the service
# stored for a few users (read back newest-first through the paging API).
sql <<EOF
CREATE SCHEMA bench;
CREATE FUNCTION bench.nids(u bigint) RETURNS integer LANGUAGE sql IMMUTABLE
  AS \$\$ SELECT CASE WHEN u < $FULL THEN $SLOTS ELSE $IDS END \$\$;
CREATE FUNCTION bench.msg_id(u bigint, j integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS \$\$
  SELECT j::bigint * $SLOT_WIDTH
         + ((((((u * $SLOTS + j) % 2147483646) + 1) * 48271 % 2147483647) * 48271 % 2147483647) % $SLOT_WIDTH)
\$\$;
CREATE FUNCTION bench.pushed_id(u bigint, i integer) RETURNS bigint LANGUAGE sql IMMUTABLE
  AS \$\$ SELECT bench.msg_id(u, (i::bigint * $SLOTS / bench.nids(u))::integer) \$\$;
EOF
for u in 0 1 $((USERS / 2)) $((USERS - 1)); do
  api_ids=""
  for page in 1 2; do
    api_ids+=$(curl -sf "$URL/v1/users/$u/messages?limit=1000&page=$page" | jq -r '.messages[].id')$'\n'
  done
  sql_ids=$(sql -c "SELECT bench.pushed_id($u, i) FROM generate_series(bench.nids($u) - 1, 0, -1) i")
  if [[ $(sed '/^$/d' <<<"$api_ids") != "$sql_ids" ]]; then
    echo "bench: the ids stored for user $u differ from the formula in SQL" >&2
    exit 1
  fi
done

# --- storage -------------------------------------------------------------------
# The whole table as the service left it, then a like-for-like comparison for the
# subset of users 0..ROW_USERS-1: a copy of their rows of bitmapd.bitmaps (same
# layout, push row and read row per user) against the same ids as a raw bitmap
# and as a row-per-event table.

log "measuring storage"
phase storage
sql -c "VACUUM (ANALYZE) bitmapd.bitmaps"
IFS='|' read -r all_rows bits_bytes rel_bytes < <(sql -c "
  SELECT count(*), sum(bitmapd.value_bytes(key, bits)),
         pg_total_relation_size('bitmapd.bitmaps') + pg_total_relation_size('bitmapd.chunks') FROM bitmapd.bitmaps")

row_users_sql="generate_series(0, $ROW_USERS - 1) u"
sub_rows=0 sub_push_bits=0 sub_rel=0 sub_ids=0 raw_sub=0 row_n=0 row_rel=0 ROW_S=0
if ((ROW_USERS > 0)); then
  log "storage of users 0..$((ROW_USERS - 1)): bitmap rows, raw bitmaps, a row-per-event table"
  sql <<EOF
CREATE TABLE bench.bitmaps_copy (LIKE bitmapd.bitmaps INCLUDING ALL);
INSERT INTO bench.bitmaps_copy
  SELECT b.* FROM $row_users_sql
    JOIN bitmapd.bitmaps b ON b.key IN (convert_to('message:push:' || u, 'UTF8'),
                                        convert_to('message:read:' || u, 'UTF8'))
   ORDER BY b.key;
VACUUM (ANALYZE) bench.bitmaps_copy;
EOF
  IFS='|' read -r sub_rows sub_push_bits sub_ids sub_rel < <(sql -c "
    SELECT count(*),
           sum(octet_length(bits)) FILTER (WHERE key < convert_to('message:push;', 'UTF8')),
           sum(cardinality) FILTER (WHERE key < convert_to('message:push;', 'UTF8')),
           pg_total_relation_size('bench.bitmaps_copy') FROM bench.bitmaps_copy")
  sql -c "DROP TABLE bench.bitmaps_copy"
  # Redis SETBIT: a string of floor(max offset / 8) + 1 bytes per user.
  raw_sub=$(sql -c "SELECT sum(bench.pushed_id(u, bench.nids(u) - 1) / 8 + 1) FROM $row_users_sql")
  row_t0=$(date +%s.%N)
  sql <<EOF
CREATE TABLE bench.events (user_id bigint NOT NULL, message_id integer NOT NULL);
INSERT INTO bench.events
  SELECT u, bench.pushed_id(u, i) FROM $row_users_sql, LATERAL generate_series(0, bench.nids(u) - 1) i;
ALTER TABLE bench.events ADD PRIMARY KEY (user_id, message_id);
VACUUM (ANALYZE) bench.events;
EOF
  ROW_S=$(awk -v a="$row_t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
  IFS='|' read -r row_n row_rel < <(sql -c "SELECT count(*), pg_total_relation_size('bench.events') FROM bench.events")
  sql -c "DROP TABLE bench.events" # not to weigh on the load phases
  if [[ $row_n != "$sub_ids" ]]; then
    echo "bench: the row-per-event table has $row_n rows, the bitmaps $sub_ids ids" >&2
    exit 1
  fi
fi

# --- load ------------------------------------------------------------------------

declare -A R
WORKLOADS=(push read isreadable page)
declare -A DESC=(
  [push]='push: `POST /v1/users/{u}/pushes {"messages":[id]}`'
  [read]='read: `POST /v1/users/{u}/reads {"messages":[id],"force":true}`'
  [isreadable]='isReadable: `GET /v1/users/{u}/messages/{id}`'
  [page]='page: `GET /v1/users/{u}/messages?limit=20&page=P`'
)
for w in "${WORKLOADS[@]}"; do
  log "load: $w for ${SECS}s ($CONNS connections, $THREADS threads)"
  phase "$w"
  export BENCH_NAME=$w
  cpu0=$(svc_cpu)
  read -r busy0 idle0 < <(machine_busy)
  timeout $((SECS + 60)) wrk -t "$THREADS" -c "$CONNS" -d "${SECS}s" --timeout 5s --latency \
    -s "bench/$w.lua" "$URL" >"$WORK/$w.out" 2>&1 || {
    echo "bench: wrk failed for $w:" >&2
    cat "$WORK/$w.out" >&2
    exit 1
  }
  cpu1=$(svc_cpu)
  read -r busy1 idle1 < <(machine_busy)
  for k in requests seconds rps p50_ms p90_ms p99_ms max_ms non2xx statuses sock_errors; do
    R[$w.$k]=$(bench_field "$WORK/$w.out" "$k")
  done
  R[$w.svc_cpu]=$(awk -v a="$cpu0" -v b="$cpu1" -v s="${R[$w.seconds]}" 'BEGIN{printf "%.0f", 100 * (b - a) / s}')
  R[$w.machine]=$(awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" 'BEGIN{printf "%.0f", 100 * b / (b + i)}')
  sed -n '/Latency Distribution/,/requests in/p' "$WORK/$w.out" | sed 's/^/    /' >&2
  if ! kill -0 "$SVC_PID" 2>/dev/null; then
    echo "bench: bitmapd died during the $w phase; its log:" >&2
    tail -n 30 "$WORK/bitmapd.log" >&2
    exit 1
  fi
done

# --- steps 3-4: scripts that each write a Markdown fragment ---------------------
# resp.sh and http_scale.sh measure throughput; storage.sh goes last, since its
# loads leave dead tuples and checkpoints behind. A failure is reported, not fatal.

DSN_PASSWORD=$(sed -n 's/.*password=\([^ ]*\).*/\1/p' <<<"$OWNER_DSN")
DSN_USER=$(sed -n 's/.*user=\([^ ]*\).*/\1/p' <<<"$OWNER_DSN")
DSN_DB=$(sed -n 's/.*dbname=\([^ ]*\).*/\1/p' <<<"$OWNER_DSN")
export BENCH_PGURL="postgresql://$DSN_USER:$DSN_PASSWORD@127.0.0.1:$PG_PORT/$DSN_DB"
export BENCH_HTTP=$URL BENCH_RESP_PORT=$RESP_PORT BENCH_REDIS_PORT=$REDIS_PORT
export BENCH_REDIS_FSYNC_PORT=$REDIS_FSYNC_PORT BENCH_BIN=$BIN BENCH_NAIVE=$NAIVE BENCH_TMP
export BENCH_HOTKEY=${BENCH_HOTKEY:-build/bench/hotkey}
CHART=$(dirname -- "$OUT")/bench-throughput.png
export BENCH_CHART=$WORK/bench-throughput.png BENCH_CHART_LINK=bench-throughput.png
STEPS=(resp wlog hotkey http_scale storage)
declare -A STEP_RC=() STEP_S=()
for st in "${STEPS[@]}"; do
  script=bench/$st.sh
  if [[ ! -f $script ]]; then
    STEP_RC[$st]=absent
    log "$script: absent, skipped"
    continue
  fi
  log "$script (at most ${STEP_TIMEOUT}s)"
  phase "$st.sh"
  t0=$(date +%s)
  rc=0
  timeout --kill-after=10 "$STEP_TIMEOUT" bash "$script" "$WORK/fragment-$st.md" 2> >(tee "$WORK/$st.err" >&2) || rc=$?
  STEP_S[$st]=$(($(date +%s) - t0))
  STEP_RC[$st]=$rc
  if ((rc != 0)); then
    log "$script failed (exit $rc$( ((rc == 124)) && echo ", timed out after ${STEP_TIMEOUT}s"))"
  fi
  if ! kill -0 "$SVC_PID" 2>/dev/null; then
    echo "bench: bitmapd died during $script; its log:" >&2
    tail -n 30 "$WORK/bitmapd.log" >&2
    exit 1
  fi
done

phase end

# PostgreSQL checkpoints (log_checkpoints is on by default), by the phase they started in.
CHECKPOINTS=""
pglog=$PGDIR/postgres.log
declare -A CP=()
while read -r d t z _ reason; do
  ts=$(date -d "$d $t $z" +%s.%N 2>/dev/null) || continue
  name=before
  for ph in "${PHASES[@]}"; do
    if awk -v a="$ts" -v b="${ph#* }" 'BEGIN{exit !(a >= b)}'; then name=${ph%% *}; fi
  done
  CP[$name]+="${CP[$name]:+, }${reason}"
done < <(sed -n 's/^\([0-9-]* [0-9:.]* [A-Z]*\) \[[0-9]*\] LOG:  checkpoint starting: \(.*\)$/\1 - \2/p' "$pglog" 2>/dev/null || true)
for ph in "${PHASES[@]}"; do
  name=${ph%% *}
  if [[ -n ${CP[$name]:-} ]]; then CHECKPOINTS+="${CHECKPOINTS:+; }$name: ${CP[$name]}"; fi
done

svc_warnings=$(tail -n +$((LOG_LINES_AT_START + 1)) "$WORK/bitmapd.log" | grep -c 'level=\(warn\|error\)' || true)
if ((svc_warnings > 0)); then
  log "bitmapd logged $svc_warnings warning/error lines; the first ones:"
  tail -n +$((LOG_LINES_AT_START + 1)) "$WORK/bitmapd.log" | grep -m5 'level=\(warn\|error\)' >&2
fi

# --- report ------------------------------------------------------------------------

per() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.0f", a / b; else print "–" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1f", a / b; else print "–" }'; }

bits_pu=$(per "$bits_bytes" "$USERS")
rel_pu=$(per "$rel_bytes" "$USERS")
sub_push_pu=$(per "$sub_push_bits" "$ROW_USERS")
sub_rel_pu=$(per "$sub_rel" "$ROW_USERS")
raw_pu=$(per "$raw_sub" "$ROW_USERS")
row_pu=$(per "$row_rel" "$ROW_USERS")
ids_pu=$(per "$sub_ids" "$ROW_USERS")
all_ids_pu=$(per "$SEED_IDS" "$USERS")

total_non2xx=0
for w in "${WORKLOADS[@]}"; do total_non2xx=$((total_non2xx + ${R[$w.non2xx]:-0})); done

load_table() {
  echo "| workload | requests/s | p50 ms | p90 ms | p99 ms | max ms | requests | non-2xx | socket errors c/r/w/t | bitmapd CPU | machine CPU |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
  for w in "${WORKLOADS[@]}"; do
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%% | %s%% |\n' "${DESC[$w]}" \
      "$(thousands "$(printf '%.0f' "${R[$w.rps]}")")" "${R[$w.p50_ms]}" "${R[$w.p90_ms]}" "${R[$w.p99_ms]}" \
      "${R[$w.max_ms]}" "$(thousands "${R[$w.requests]}")" "${R[$w.non2xx]} (${R[$w.statuses]})" \
      "${R[$w.sock_errors]}" "${R[$w.svc_cpu]}" "${R[$w.machine]}"
  done
}

storage_table() {
  if ((ROW_USERS > 0)); then
    echo "| users 0–$(thousands $((ROW_USERS - 1))), $(thousands "$ids_pu") ids each, stored as … | bytes per user | relative to bitmapd |"
    echo "|---|---:|---:|"
    printf '| bitmapd: the push bitmap alone, as stored (Roaring or dense; `octet_length(bits)`) | %s | |\n' \
      "$(thousands "$sub_push_pu")"
    printf '| **bitmapd: the rows as stored** (a copy of these users'"'"' %s rows of `bitmapd.bitmaps`; `pg_total_relation_size`: heap, TOAST, key index) | **%s** | 1× |\n' \
      "$(thousands "$sub_rows")" "$(thousands "$sub_rel_pu")"
    printf '| a raw bitmap, as Redis `SETBIT` stores it (max id / 8 + 1 bytes) | %s | %s× |\n' \
      "$(thousands "$raw_pu")" "$(ratio "$raw_pu" "$sub_rel_pu")"
    printf '| a row per event, `(user_id bigint, message_id int)` + primary key on both (%s rows; `pg_total_relation_size`) | %s | %s× |\n' \
      "$(thousands "$row_n")" "$(thousands "$row_pu")" "$(ratio "$row_pu" "$sub_rel_pu")"
    echo
  fi
  echo "| the whole \`bitmapd.bitmaps\` after seeding: $(thousands "$USERS") users, $(thousands "$all_ids_pu") ids each on average | bytes per user |"
  echo "|---|---:|"
  printf '| `sum(octet_length(bits))` / users (%s rows) | %s |\n' "$(thousands "$all_rows")" "$(thousands "$bits_pu")"
  printf '| `pg_total_relation_size('"'"'bitmapd.bitmaps'"'"')` / users | %s |\n' "$(thousands "$rel_pu")"
}

CMD="${CMD_ENV}make bench"
REDIS_VERSION=$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')
PG_VERSION=$(sql -c "SHOW server_version")
PG_SETTINGS=$(sql -c "SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name)
  FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'max_wal_size')")
POOL=$(awk -F= '/^[[:space:]]*pool_size[[:space:]]*=/{gsub(/[[:space:]]/, "", $2); print $2}' service.ini 2>/dev/null)
MEM=$(awk '/^MemTotal/{printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
CPU_MODEL=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
REV=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git status --porcelain -- src 2>/dev/null) ]]; then
  REV="$REV (with uncommitted changes in src/)"
fi
WRK_VERSION=$( (wrk -v 2>&1 || true) | awk 'NR == 1 {print $2}')
TOTAL_S=$(($(date +%s) - START_S))

{
  echo "# Benchmarks"
  echo
  echo "Figures of one run of \`$CMD\` ($(date -u '+%Y-%m-%d %H:%M UTC'), ${TOTAL_S}s in all). The script,"
  echo "\`bench/run.sh\`, rewrites this file on every run; what it runs is in \`bench/\` (wrk's Lua scripts,"
  echo "\`resp.sh\`, \`naive.c\`, \`hotkey.sh\`, \`hotkey.c\`, \`http_scale.sh\`, \`storage.sh\`, \`chart.gp\`)."
  if ((QUICK)); then
    echo
    echo "**This is a smoke run (\`BENCH_QUICK=1\`)**: short measurements, fewer client counts, one repeat,"
    echo "small workloads. It shows that the benchmark works end to end; its figures are not to be quoted."
  fi
  echo
  echo "## Targets"
  echo
  if [[ -s $WORK/tmp/resp/targets.md ]]; then
    cat -- "$WORK/tmp/resp/targets.md"
  else
    echo "bench/resp.sh wrote no table of targets (see \"Steps\" in the notes)."
  fi
  echo
  echo "The targets of fan-out, deep pages and storage are in the sections of \`http_scale.sh\` and"
  echo "\`storage.sh\` below, when they ran."
  echo
  echo "## Machine"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| CPU | $(nproc) × $CPU_MODEL |"
  echo "| memory | $MEM |"
  echo "| kernel | $(uname -r) |"
  echo "| PostgreSQL | $PG_VERSION on loopback, a throwaway cluster of \`scripts/pg.sh\` with default settings ($PG_SETTINGS) |"
  echo "| bitmapd | \`$BIN\` at $REV, configuration of \`service.ini\` (pool of ${POOL:-4} PostgreSQL connections) |"
  echo "| load generator | wrk $WRK_VERSION, $THREADS threads, $CONNS connections, ${SECS}s per workload, \`--latency\`; redis-benchmark $REDIS_VERSION (\`bench/resp.sh\`) |"
  echo "| Redis | redis-server $REDIS_VERSION on loopback: one in memory (\`--save '' --appendonly no\`), one with \`--appendonly yes --appendfsync always --auto-aof-rewrite-percentage 0\` |"
  echo "| load average at start | $LOAD_AT_START |"
  echo
  echo "## HTTP message box (wrk)"
  echo
  echo "### Workload"
  echo
  echo "The message box of seed 000: $SEED_DESC. A user receives five messages a day for a year,"
  echo "one id in each $(thousands "$SLOTS")th of a global sequence of $(thousands $((SLOTS * SLOT_WIDTH))) ids (\`bench/common.lua\`); a user"
  echo "with fewer ids has them spread evenly over the same year. Seeded through the API, one"
  echo "\`POST /v1/users/{u}/pushes\` per user with all its ids, in ${SEED_S}s ($(thousands "$SEED_IDS") ids; statuses $SEED_STATUSES)."
  echo
  echo "Each load request picks a user at random among all $(thousands "$USERS"). push sends a random id of the"
  echo "year (almost always new to that user); read and half of the isReadable lookups name an id pushed to that"
  echo "user, the other isReadable lookups a random id; page asks for a random page of 20 within the user's box."
  if ((FULL < USERS)); then
    echo
    echo "**Scaled down:** only users 0–$(thousands $((FULL - 1))) hold a full year ($FULL_HOW)."
    echo "So $(( (USERS - FULL) * 100 / USERS ))% of the load requests hit a box of $IDS ids, which is cheaper to load and decode"
    echo "than a full year's; \`BENCH_FULL_USERS=$USERS make bench\` forces the full workload."
  elif [[ -n ${PROJECTED_S:-} ]]; then
    echo
    echo "Every user holds a full year: $FULL_HOW."
  fi
  echo
  echo "### Throughput and latency"
  echo
  load_table
  echo
  echo "### Bytes stored per user"
  echo
  storage_table
  echo
  for st in "${STEPS[@]}"; do
    if [[ -s $WORK/fragment-$st.md ]]; then
      cat -- "$WORK/fragment-$st.md"
      echo
    fi
    if [[ ${STEP_RC[$st]} != 0 && ${STEP_RC[$st]} != absent ]]; then
      if [[ ! -s $WORK/fragment-$st.md ]]; then
        echo "## bench/$st.sh"
        echo
      fi
      echo "**bench/$st.sh failed** (exit ${STEP_RC[$st]}$( ((STEP_RC[$st] == 124)) && echo ", stopped after ${STEP_TIMEOUT}s")); the figures above from it, if any, are incomplete. Its last lines on stderr:"
      echo
      echo '```'
      tail -n 8 "$WORK/$st.err" 2>/dev/null || true
      echo '```'
      echo
    fi
  done
  echo "## Notes"
  echo
  printf -- '- Steps after the wrk phases, in this order:'
  for st in "${STEPS[@]}"; do
    case ${STEP_RC[$st]} in
      absent) printf ' `bench/%s.sh` absent;' "$st" ;;
      0) printf ' `bench/%s.sh` %ss;' "$st" "${STEP_S[$st]}" ;;
      *) printf ' `bench/%s.sh` **failed** (exit %s) after %ss;' "$st" "${STEP_RC[$st]}" "${STEP_S[$st]}" ;;
    esac
  done
  echo " each in at most ${STEP_TIMEOUT}s."
  echo "- PostgreSQL, bitmapd and wrk share the same $(nproc) cores, so every figure is lower than with the"
  echo "  load generator on another machine; \"machine CPU\" is how busy all cores were during the phase and"
  echo "  \"bitmapd CPU\" is the service's own share (100% = one core)."
  echo "- fsync and synchronous_commit are on: every acknowledged write is durable, which bounds write throughput."
  echo "- A push or a read is a compare-and-swap write of the user's bitmap rows; isReadable and page load the"
  echo "  user's rows and answer from the decoded bitmaps."
  if ((all_rows == 2 * USERS)); then
    echo "- The service keeps two rows per user, \`message:push:{u}\` and \`message:read:{u}\`; after seeding"
    echo "  the table held both for every user (the read rows empty)."
  else
    echo "- The service keeps a user's box in the rows \`message:push:{u}\` and \`message:read:{u}\`; after"
    echo "  seeding the table held $(thousands "$all_rows") rows for $(thousands "$USERS") users."
  fi
  echo "  The relation size counts tuple headers, the TOAST table (a full year's push bitmap is above the"
  echo "  2 kB TOAST threshold) and the key index."
  echo "- Storage is measured after seeding, before the load phases (which add ids and read marks)."
  echo "- The row-per-event table holds the same users' ids as \`(user_id bigint, message_id int)\` rows with a"
  echo "  primary key on both, built in the same database (${ROW_S}s) and vacuumed, like the copy of the bitmap rows."
  if ((total_non2xx > 0)); then
    echo "- **Errors: $total_non2xx non-2xx answers during the load phases** (see the statuses column)."
  else
    echo "- Every load-phase answer was a 2xx."
  fi
  echo "- Other processes on the machine count in \"machine CPU\" too (see the load average at start)."
  if [[ -n $CHECKPOINTS ]]; then
    echo "- PostgreSQL checkpoints started during (phase: cause) — $CHECKPOINTS."
  else
    echo "- No PostgreSQL checkpoint started during the run."
  fi
  if ((svc_warnings > 0)); then
    echo "- bitmapd logged $svc_warnings warning or error lines during the run."
  fi
} >"$WORK/report.md"

mkdir -p -- "$(dirname -- "$OUT")"
cp -- "$WORK/report.md" "$OUT"
if [[ -s $BENCH_CHART ]]; then
  cp -- "$BENCH_CHART" "$CHART"
else
  rm -f -- "$CHART" # not a chart of another run next to this report
fi
echo
[[ ! -s $WORK/tmp/resp/targets.md ]] || sed -n '/^|/p' "$WORK/tmp/resp/targets.md"
echo
load_table
echo
storage_table
echo
log "done in ${TOTAL_S}s; wrote $OUT$([[ -s $BENCH_CHART ]] && echo " and $CHART")"
