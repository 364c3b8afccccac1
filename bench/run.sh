#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/run.sh — what `make bench` runs after building build/bitmapd.
#
# On loopback only: creates a throwaway PostgreSQL cluster and a bitmapd in front
# of it, seeds the message boxes of BENCH_USERS users through the HTTP API (the
# seed-000 workload: five messages a day for a year from a global sequence of ~10M
# ids, see bench/common.lua), measures the bytes stored per user against a raw
# bitmap and a row-per-event table, load-tests push / read / isReadable / a
# newest-first page with wrk, prints a Markdown table and writes it with the
# machine and the command to docs/benchmarks.md (BENCH_OUT). The service and the
# cluster are always stopped and removed at exit.
#
# Scale: seeding goes through the API, one request per user, at roughly 500-1,100
# users/s on 2 shared cores. Users 0-9,999 always get a full year (1,825 ids);
# the other 90,000 get a full year too when the rate of those first 10,000
# projects the whole seeding within BENCH_SEED_BUDGET seconds, else BENCH_IDS ids
# each (the report says which happened and why).
#
# Environment (defaults in brackets):
#   BENCH_SECONDS [10]        duration of each wrk load phase
#   BENCH_CONNECTIONS [16]    wrk connections;  BENCH_THREADS [2] wrk threads
#   BENCH_USERS [100000]      users seeded; every load request picks one at random
#   BENCH_FULL_USERS [auto]   users 0…N-1 get all 1,825 ids of the year …
#   BENCH_IDS [50]            … the others this many, spread over the year
#   BENCH_SEED_BUDGET [120]   seconds a full seeding may be projected to take (auto)
#   BENCH_SEED_TIMEOUT [240]  seconds the whole seeding may take before the run fails
#   BENCH_ROW_USERS [≤10000]  users (from 0, full ones) of the storage comparison
#   BENCH_BIN [build/bitmapd] the binary;  BENCH_OUT [docs/benchmarks.md]
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"

num() { # NAME VALUE MIN MAX: a bounded integer setting, or exit
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    echo "bench: $1 must be an integer in $3..$4, not '$2'" >&2
    exit 2
  fi
}

SLOTS=1825
SLOT_WIDTH=5479
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
OUT=${BENCH_OUT:-docs/benchmarks.md}
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

for tool in wrk psql curl jq ss; do
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

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  local i
  if [[ -n $WRK_PID ]] && kill -0 "$WRK_PID" 2>/dev/null; then
    kill -TERM "$WRK_PID" 2>/dev/null || true
  fi
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

port_free() { [[ -z $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }
pick_port() { # first free port in 57200-57299 other than $1
  local p
  for ((p = 57200; p <= 57299; p++)); do
    if [[ $p != "${1:-}" ]] && port_free "$p"; then
      echo "$p"
      return
    fi
  done
  echo "bench: no free port in 57200-57299" >&2
  exit 1
}

PG_PORT=$(pick_port)
bash scripts/pg.sh start "$PGDIR" "$PG_PORT" >/dev/null
BITMAPD_DSN=$(<"$PGDIR/dsn")
export BITMAPD_DSN
sql() { psql "$BITMAPD_DSN" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
"$BIN" --migrate 2>"$WORK/migrate.log" || {
  cat "$WORK/migrate.log" >&2
  exit 1
}

HTTP_PORT=$(pick_port "$PG_PORT")
URL=http://127.0.0.1:$HTTP_PORT
"$BIN" --set http.address=127.0.0.1 --set "http.port=$HTTP_PORT" >"$WORK/bitmapd.log" 2>&1 &
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
log "postgres on 127.0.0.1:$PG_PORT, bitmapd (pid $SVC_PID) on $URL"
LOG_LINES_AT_START=$(wc -l <"$WORK/bitmapd.log") # warnings before it was healthy do not count

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
  SELECT count(*), sum(octet_length(bits)), pg_total_relation_size('bitmapd.bitmaps') FROM bitmapd.bitmaps")

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

CMD="make bench"
[[ -z ${BENCH_SECONDS:-} ]] || CMD="BENCH_SECONDS=$SECS $CMD"
PG_VERSION=$(sql -c "SHOW server_version")
PG_SETTINGS=$(sql -c "SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name)
  FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'max_wal_size')")
POOL=$(awk -F= '/^[[:space:]]*pool_size[[:space:]]*=/{gsub(/[[:space:]]/, "", $2); print $2}' service.ini 2>/dev/null)
MEM=$(awk '/^MemTotal/{printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
CPU_MODEL=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
REV=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git status --porcelain -- src include 2>/dev/null) ]]; then
  REV="$REV (with uncommitted changes in src/ or include/)"
fi
WRK_VERSION=$( (wrk -v 2>&1 || true) | awk 'NR == 1 {print $2}')
TOTAL_S=$(($(date +%s) - START_S))

{
  echo "# Benchmarks"
  echo
  echo "Figures of one run of \`$CMD\` ($(date -u '+%Y-%m-%d %H:%M UTC'), ${TOTAL_S}s in all). The script,"
  echo "\`bench/run.sh\`, rewrites this file on every run; the Lua scripts of wrk are in \`bench/\`."
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
  echo "| load generator | wrk $WRK_VERSION, $THREADS threads, $CONNS connections, ${SECS}s per workload, \`--latency\` |"
  echo "| load average at start | $LOAD_AT_START |"
  echo
  echo "## Workload"
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
  echo "## Throughput and latency"
  echo
  load_table
  echo
  echo "## Bytes stored per user"
  echo
  storage_table
  echo
  echo "## Notes"
  echo
  echo "- PostgreSQL, bitmapd and wrk share the same $(nproc) cores, so every figure is lower than with the"
  echo "  load generator on another machine; \"machine CPU\" is how busy all cores were during the phase and"
  echo "  \"bitmapd CPU\" is the service's own share (100% = one core)."
  echo "- fsync and synchronous_commit are on: every acknowledged write is durable, which bounds write throughput."
  echo "- A push or a read is a compare-and-swap write of the user's bitmap row; isReadable and page load the"
  echo "  user's two rows and answer from the decoded bitmaps."
  echo "- The service keeps two rows per user, \`message:push:{u}\` and \`message:read:{u}\`; a push creates"
  echo "  both, so after seeding each user has an empty read row. The relation size counts tuple headers,"
  echo "  the TOAST table (a full year's push bitmap is above the 2 kB TOAST threshold) and the key index."
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
echo
load_table
echo
storage_table
echo
log "done in ${TOTAL_S}s; wrote $OUT"
