#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/resp.sh FRAGMENT.md — SETBIT and GETBIT side by side, in one run, against
#   bitmapd          bitmapd's RESP port (every SETBIT acknowledged after its commit)
#   redis-fsync      redis-server --appendonly yes --appendfsync always
#   redis-memory     redis-server in memory (--save '' --appendonly no)
#   naive (SETBIT)   bench/naive: the seed-000 design, a blocking SELECT and UPDATE
#                    of a Roaring blob per SETBIT, on bitmapd's database
# over 1,000,000 random keys (redis-benchmark -r), at several client counts, each
# measurement repeated BENCH_REPEAT times; reports medians, the ratios of the
# targets of issue 5, and a PNG chart of throughput against client count.
#
# Writes a Markdown fragment (starting with "## ") to FRAGMENT.md, the targets
# table to BENCH_TMP/resp/targets.md (bench/run.sh puts it at the top of the
# report) and the chart to BENCH_CHART. Exits non-zero when a measurement failed
# (the fragment says which). bench/run.sh calls it after its own load phases; it
# runs alone as well, given the variables below.
#
# Needs (exported by bench/run.sh, or by hand):
#   BENCH_PGURL             libpq URL of bitmapd's database, as its owner role
#   BENCH_RESP_PORT         bitmapd's RESP port on 127.0.0.1
#   BENCH_REDIS_PORT        redis-server in memory on 127.0.0.1 (FLUSHALLed at the end)
#   BENCH_REDIS_FSYNC_PORT  redis-server --appendonly yes --appendfsync always
#   BENCH_NAIVE             the bench/naive binary
#   BENCH_TMP               scratch directory (files in BENCH_TMP/resp)
#
# State it leaves: the prefilled keys are removed again (rows key:* and
# bench:prefill of bitmapd.bitmaps deleted, table bench_naive dropped, both
# redis-servers flushed), so later phases measure a database without them.
#
# Environment (defaults in brackets; BENCH_QUICK=1 changes the defaults to the
# values after the slash):
#   BENCH_CLIENTS ["1 10 50 100" / "1 50"]   client counts
#   BENCH_REPEAT [3 / 1]                     measurements per point; the median is reported
#   BENCH_RESP_SECONDS [2 / 1]               target length of one measurement
#   BENCH_KEYS [1000000]                     key space (-r of redis-benchmark)
#   BENCH_CHART [docs/bench-throughput.png]  the chart
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"

die() {
  echo "resp: $*" >&2
  exit 1
}
[[ $# -eq 1 && -n $1 ]] || die "usage: bench/resp.sh FRAGMENT.md"
OUT=$1
for v in BENCH_PGURL BENCH_RESP_PORT BENCH_REDIS_PORT BENCH_REDIS_FSYNC_PORT BENCH_NAIVE BENCH_TMP; do
  [[ -n ${!v:-} ]] || die "$v is not set"
done
for tool in redis-benchmark redis-cli psql gnuplot awk; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/deps.sh bench installs it)"
done
[[ -x $BENCH_NAIVE ]] || die "$BENCH_NAIVE is not built (make bench builds it)"

num() { # NAME VALUE MIN MAX
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    die "$1 must be an integer in $3..$4, not '$2'"
  fi
}

QUICK=${BENCH_QUICK:-0}
if [[ $QUICK == 1 ]]; then
  CLIENTS=${BENCH_CLIENTS:-1 50}
  REPEAT=${BENCH_REPEAT:-1}
  SECS=${BENCH_RESP_SECONDS:-1}
else
  CLIENTS=${BENCH_CLIENTS:-1 10 50 100}
  REPEAT=${BENCH_REPEAT:-3}
  SECS=${BENCH_RESP_SECONDS:-2}
fi
KEYS=${BENCH_KEYS:-1000000}
CHART=${BENCH_CHART:-docs/bench-throughput.png}
num BENCH_REPEAT "$REPEAT" 1 15
num BENCH_RESP_SECONDS "$SECS" 1 120
num BENCH_KEYS "$KEYS" 1 10000000
read -r -a CLIENTS <<<"$CLIENTS"
((${#CLIENTS[@]} > 0)) || die "BENCH_CLIENTS is empty"
for c in "${CLIENTS[@]}"; do num "a count of BENCH_CLIENTS" "$c" 1 1000; done

T=$BENCH_TMP/resp
mkdir -p -- "$T"
RES=$T/results.tsv # cmd target clients rep requests rps avg p50 p95 p99 max status
: >"$RES"

log() { printf '[resp %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
sql() { psql "$BENCH_PGURL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

declare -A PORT=([bitmapd]=$BENCH_RESP_PORT [redis-fsync]=$BENCH_REDIS_FSYNC_PORT [redis-memory]=$BENCH_REDIS_PORT)
RB_TARGETS=(bitmapd redis-fsync redis-memory)
declare -A LABEL=(
  [bitmapd]='bitmapd (RESP, durable)'
  [redis-fsync]='redis-server, appendfsync always'
  [redis-memory]='redis-server, in memory'
  [naive]='naive seed-000 design (SELECT + UPDATE)'
)
FAILED=0
FAILURES=""
fail() {
  FAILED=$((FAILED + 1))
  FAILURES+="${FAILURES:+; }$1"
  log "FAILED: $1"
}

# --- the same starting state everywhere: every key exists, with bit 7 set -----
# redis: 1,000,000 SETBIT key:NNNNNNNNNNNN 7 1 through redis-cli --pipe.
# bitmapd: one key written through RESP (so the service encodes it), copied in SQL
#          to every key name, before the service has read any of those keys.
# naive: bench_naive rows holding the portable serialization of {7}.
# Each SETBIT measurement then sets a bit of its own (offset 8, 9, …): every
# SETBIT a target acknowledges is a real change, and GETBIT of bit 7 answers 1.

prefill_t0=$(date +%s.%N)
keys_sql="key >= convert_to('key:', 'UTF8') AND key < convert_to('key;', 'UTF8')"
log "prefilling $(thousands "$KEYS") keys in each target"
for t in redis-fsync redis-memory; do
  redis-cli -p "${PORT[$t]}" FLUSHALL >/dev/null
  awk -v n="$KEYS" 'BEGIN {
      for (i = 0; i < n; i++) {
        k = sprintf("key:%012d", i)
        printf "*4\r\n$6\r\nSETBIT\r\n$%d\r\n%s\r\n$1\r\n7\r\n$1\r\n1\r\n", length(k), k
      }
    }' | timeout 300 redis-cli -p "${PORT[$t]}" --pipe >"$T/pipe-$t.out" 2>&1 ||
    die "prefilling $t failed: $(tail -n 3 "$T/pipe-$t.out")"
  grep -q "errors: 0, replies: $KEYS" "$T/pipe-$t.out" || die "prefilling $t: $(tail -n 1 "$T/pipe-$t.out")"
done
[[ $(redis-cli -p "$BENCH_RESP_PORT" SETBIT bench:prefill 7 1) =~ ^[01]$ ]] || die "SETBIT on bitmapd's RESP port failed"
n_existing=$(sql -c "SELECT count(*) FROM bitmapd.bitmaps WHERE $keys_sql")
((n_existing == 0)) || die "bitmapd's database already holds $n_existing keys key:*; use a fresh database"
sql <<EOF
INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes)
SELECT convert_to('key:' || lpad(i::text, 12, '0'), 'UTF8'), t.version, t.bits, t.cardinality, t.checksum, t.nbytes
  FROM bitmapd.bitmaps t, generate_series(0, $KEYS - 1) i
 WHERE t.key = convert_to('bench:prefill', 'UTF8');
VACUUM (ANALYZE) bitmapd.bitmaps;
EOF
"$BENCH_NAIVE" --dsn "$BENCH_PGURL" --prefill "$KEYS" || die "prefilling bench_naive failed"
PREFILL_S=$(awk -v a="$prefill_t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b - a}')
VERSIONS0=$(sql -c "SELECT sum(version) FROM bitmapd.bitmaps WHERE $keys_sql")
for k in 0 $((KEYS / 2)) $((KEYS - 1)); do
  key=$(printf 'key:%012d' "$k")
  for t in "${RB_TARGETS[@]}"; do
    [[ $(redis-cli -p "${PORT[$t]}" GETBIT "$key" 7) == 1 ]] || die "$t: GETBIT $key 7 is not 1 after the prefill"
  done
done

# bitmapd serves reads from its cache of hot bitmaps (docs/design.md): Redis holds
# every key in memory, so bitmapd's cache is warmed the same way, by one GETBIT of
# every key (pipelined), before measuring. The report says how long that took and
# what the cache then held.
warm_t0=$(date +%s.%N)
awk -v n="$KEYS" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = sprintf("key:%012d", i)
      printf "*3\r\n$6\r\nGETBIT\r\n$%d\r\n%s\r\n$1\r\n7\r\n", length(k), k
    }
  }' | timeout 600 redis-cli -p "$BENCH_RESP_PORT" --pipe >"$T/pipe-warm.out" 2>&1 ||
  die "warming bitmapd's cache failed: $(tail -n 3 "$T/pipe-warm.out")"
grep -q "errors: 0, replies: $KEYS" "$T/pipe-warm.out" || die "warming bitmapd's cache: $(tail -n 1 "$T/pipe-warm.out")"
WARM_S=$(awk -v a="$warm_t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b - a}')
WARM_ENTRIES=$(redis-cli -p "$BENCH_RESP_PORT" INFO bitmapd | tr -d '\r' | sed -n 's/^cache_entries://p')
WARM_BYTES=$(redis-cli -p "$BENCH_RESP_PORT" INFO bitmapd | tr -d '\r' | sed -n 's/^cache_bytes://p')
log "bitmapd's cache warmed in ${WARM_S}s: ${WARM_ENTRIES} entries, ${WARM_BYTES} bytes"

# The naive design holds one PostgreSQL connection per client: cap its client
# count to what the server has left (the report shows the count it ran with).
NAIVE_MAX=$(sql -c "SELECT current_setting('max_connections')::int
                         - current_setting('superuser_reserved_connections')::int
                         - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend') - 5")

# --- one measurement ------------------------------------------------------------

# rb TARGET CMD CLIENTS REQUESTS OFFSET -> "rps avg p50 p95 p99 max" on stdout, or fails
rb() {
  local t=$1 cmd=$2 c=$3 n=$4 off=$5 args line
  if [[ $cmd == SETBIT ]]; then args=(SETBIT key:__rand_int__ "$off" 1); else args=(GETBIT key:__rand_int__ 7); fi
  # redis-benchmark cannot be bounded in time itself: -n comes from a measured rate,
  # timeout catches the rest. It exits non-zero on an error reply.
  if ! timeout $((SECS * 5 + 20)) redis-benchmark -h 127.0.0.1 -p "${PORT[$t]}" -c "$c" -n "$n" -r "$KEYS" \
    -q --csv "${args[@]}" >"$T/rb.out" 2>"$T/rb.err"; then
    return 1
  fi
  line=$(tail -n 1 "$T/rb.out" | tr -d '"')
  [[ $line == "$cmd "* ]] || return 1
  awk -F, '{print $2, $3, $5, $6, $7, $8}' <<<"$line"
}

declare -A RATE=()         # measured rate of (target, cmd, clients), to size -n
declare -A SETBITS_SENT=() # SETBITs each target acknowledged, probes included
# size_run TARGET CMD CLIENTS: sets N, the requests of one measurement of about
# SECS seconds, from a short probe run the first time (not in a subshell: it
# keeps RATE and SETBITS_SENT).
size_run() {
  local key="$1 $2 $3" probe out _
  if [[ -z ${RATE[$key]:-} ]]; then
    # 10 requests a client first (a slow target answers that in well under a
    # second); ten times more while the probe took less than 0.3s.
    probe=$((10 * $3 > 200 ? 10 * $3 : 200))
    RATE[$key]=1000
    for _ in 1 2 3; do
      out=$(rb "$1" "$2" "$3" "$probe" 200) || break
      RATE[$key]=${out%% *}
      if [[ $2 == SETBIT ]]; then SETBITS_SENT[$1]=$((${SETBITS_SENT[$1]:-0} + probe)); fi
      awk -v n="$probe" -v r="${RATE[$key]}" 'BEGIN{exit !(r > 0 && n / r < 0.3)}' || break
      probe=$((probe * 10))
    done
  fi
  N=$(awk -v r="${RATE[$key]}" -v s="$SECS" -v c="$3" 'BEGIN{
    n = int(r * s); lo = (c * 20 > 200 ? c * 20 : 200); if (n < lo) n = lo; if (n > 5000000) n = 5000000; print n }')
}

run_point() { # CMD TARGET CLIENTS REP OFFSET
  local cmd=$1 t=$2 c=$3 rep=$4 off=$5 n out st=ok
  if [[ $t == naive ]]; then
    local nc=$c
    ((nc <= NAIVE_MAX)) || nc=$NAIVE_MAX
    if timeout $((SECS * 3 + 60)) "$BENCH_NAIVE" --dsn "$BENCH_PGURL" --clients "$nc" --requests 2000000 \
      --seconds "$SECS" --keys "$KEYS" --offset "$off" >"$T/naive.out" 2>"$T/naive.err"; then
      out=$(awk '/^NAIVE /{for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
                  print v["requests"], v["rps"], "-", v["p50_ms"], v["p95_ms"], v["p99_ms"], v["max_ms"]}' "$T/naive.out")
      printf '%s\t%s\t%s\t%s\t%s\t%s\tok\n' "$cmd" "$t" "$nc" "$rep" "${out%% *}" "$(tr ' ' '\t' <<<"${out#* }")" >>"$RES"
    else
      fail "naive SETBIT at $nc clients (repeat $rep): $(tail -n 2 "$T/naive.err" "$T/naive.out" | tr '\n' ' ')"
      printf '%s\t%s\t%s\t%s\t0\t-\t-\t-\t-\t-\t-\tfailed\n' "$cmd" "$t" "$nc" "$rep" >>"$RES"
    fi
    return
  fi
  size_run "$t" "$cmd" "$c"
  n=$N
  if out=$(rb "$t" "$cmd" "$c" "$n" "$off"); then
    printf '%s\t%s\t%s\t%s\t%s\t%s\tok\n' "$cmd" "$t" "$c" "$rep" "$n" "$(tr ' ' '\t' <<<"$out")" >>"$RES"
  else
    st=failed
    fail "$t $cmd at $c clients (repeat $rep, -n $n): $(grep -v '^WARNING: Could not fetch server CONFIG' "$T/rb.err" | head -n 2 | tr '\n' ' ')"
    printf '%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t%s\n' "$cmd" "$t" "$c" "$rep" "$n" "$st" >>"$RES"
  fi
  if [[ $cmd == SETBIT && $st == ok ]]; then SETBITS_SENT[$t]=$((${SETBITS_SENT[$t]:-0} + n)); fi
}

# --- the measurements -----------------------------------------------------------
# Interleaved: each repeat walks the client counts, and each client count every
# target in turn, so drift on the machine (checkpoints, other processes) falls on
# all targets alike. Each (repeat, client count) SETBIT uses a bit of its own.

meas_t0=$(date +%s.%N)
offset=8
for cmd in SETBIT GETBIT; do
  targets=("${RB_TARGETS[@]}")
  [[ $cmd == GETBIT ]] || targets+=(naive)
  for ((rep = 1; rep <= REPEAT; rep++)); do
    for c in "${CLIENTS[@]}"; do
      log "$cmd, $c client(s), repeat $rep/$REPEAT"
      for t in "${targets[@]}"; do run_point "$cmd" "$t" "$c" "$rep" "$offset"; done
      [[ $cmd != SETBIT ]] || offset=$((offset + 1))
    done
  done
done
MEAS_S=$(awk -v a="$meas_t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b - a}')

# Writes that bitmapd committed: every SETBIT of a measurement sets a bit that was
# clear before it (unless the same key came up twice in one measurement), and
# bitmapd adds 1 to a row's version per committed change.
VERSIONS1=$(sql -c "SELECT sum(version) FROM bitmapd.bitmaps WHERE $keys_sql")
COMMITTED=$((VERSIONS1 - VERSIONS0))
# Rows of the naive table that grew past the prefill's bytes (a set bit more).
NAIVE_DONE=$(awk -F'\t' '$2 == "naive" && $12 == "ok" {n += $5} END {print n + 0}' "$RES")
NAIVE_CHANGED=$(sql -c "SELECT count(*) FROM bench_naive WHERE octet_length(bits) > (SELECT min(octet_length(bits)) FROM bench_naive)")
if ((COMMITTED <= 0 || COMMITTED > ${SETBITS_SENT[bitmapd]:-0})); then
  fail "bitmapd's rows key:* gained $COMMITTED versions for ${SETBITS_SENT[bitmapd]:-0} SETBITs sent"
fi

# --- medians and ratios ------------------------------------------------------------

# med CMD TARGET CLIENTS COLUMN -> median of that column over the successful repeats ("-" if none)
med() {
  awk -F'\t' -v cmd="$1" -v t="$2" -v c="$3" -v col="$4" '
    $1 == cmd && $2 == t && $12 == "ok" && (c == "" || $3 == c) { v[n++] = $col + 0 }
    END {
      if (n == 0) { print "-"; exit }
      for (i = 1; i < n; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      m = (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
      print m
    }' "$RES"
}
# Client counts a target actually ran with (naive may be capped).
counts_of() { awk -F'\t' -v cmd="$1" -v t="$2" '$1 == cmd && $2 == t && !seen[$3]++ {print $3}' "$RES" | sort -n; }
# range CMD TARGET CLIENTS -> "min–max" requests/s over the repeats
spread() {
  awk -F'\t' -v cmd="$1" -v t="$2" -v c="$3" '$1 == cmd && $2 == t && $3 == c && $12 == "ok" {
      if (n++ == 0 || $6 < lo) lo = $6; if ($6 > hi) hi = $6 }
    END { if (n > 1) printf "%.0f–%.0f", lo, hi; else print "" }' "$RES" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta'
}
fmt0() { if [[ $1 == - ]]; then echo "–"; else thousands "$(printf '%.0f' "$1")"; fi; }
fmt3() { if [[ $1 == - ]]; then echo "–"; else printf '%.3f' "$1"; fi; }
div() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.3f", a / b }'; }
fmtx() { if [[ $1 == - ]]; then echo "–"; else awk -v r="$1" 'BEGIN{printf (r < 0.1 ? "%.3f×" : "%.2f×"), r}'; fi; }
# peak CMD TARGET -> "rps clients": the client count with the highest median rate
peak() {
  local best=- bc=- c r
  for c in $(counts_of "$1" "$2"); do
    r=$(med "$1" "$2" "$c" 6)
    if [[ $r != - ]] && { [[ $best == - ]] || awk -v a="$r" -v b="$best" 'BEGIN{exit !(a > b)}'; }; then
      best=$r bc=$c
    fi
  done
  echo "$best $bc"
}
reached() { # RATIO OP LIMIT
  if [[ $1 == - ]]; then
    echo "not measured"
  elif awk -v r="$1" -v l="$3" -v op="$2" 'BEGIN{exit !((op == ">=") ? r >= l : r <= l)}'; then
    echo "**reached**"
  else
    echo "**not reached**"
  fi
}

read -r pk_b_set pk_b_set_c < <(peak SETBIT bitmapd)
read -r pk_f_set pk_f_set_c < <(peak SETBIT redis-fsync)
read -r pk_n_set pk_n_set_c < <(peak SETBIT naive)
read -r pk_b_get pk_b_get_c < <(peak GETBIT bitmapd)
read -r pk_m_get pk_m_get_c < <(peak GETBIT redis-memory)
r_fsync=$(div "$pk_b_set" "$pk_f_set")
r_naive=$(div "$pk_b_set" "$pk_n_set")
r_get=$(div "$pk_b_get" "$pk_m_get")
# p99 of GETBIT at 50 clients, or at the client count nearest to 50 when 50 was not run.
P99C=$(for c in "${CLIENTS[@]}"; do echo "$(((c > 50 ? c - 50 : 50 - c) * 10000 + c)) $c"; done | sort -n | awk 'NR == 1 {print $2}')
p99_get=$(med GETBIT bitmapd "$P99C" 10)

at() { if [[ $1 == - ]]; then echo ""; else echo " at $1 clients"; fi; }
{
  echo "| target (issue 5) | bitmapd | compared with | ratio | target | |"
  echo "|---|---:|---:|---:|---:|---|"
  printf '| durable SETBIT throughput, bitmapd / redis-server `appendfsync always` | %s/s%s | %s/s%s | %s | ≥ 1.0× | %s |\n' \
    "$(fmt0 "$pk_b_set")" "$(at "$pk_b_set_c")" "$(fmt0 "$pk_f_set")" "$(at "$pk_f_set_c")" "$(fmtx "$r_fsync")" "$(reached "$r_fsync" '>=' 1.0)"
  printf '| durable SETBIT throughput, bitmapd / the naive seed-000 design | %s/s%s | %s/s%s | %s | ≥ 10× | %s |\n' \
    "$(fmt0 "$pk_b_set")" "$(at "$pk_b_set_c")" "$(fmt0 "$pk_n_set")" "$(at "$pk_n_set_c")" "$(fmtx "$r_naive")" "$(reached "$r_naive" '>=' 10)"
  printf '| GETBIT throughput, bitmapd / redis-server in memory | %s/s%s | %s/s%s | %s | ≥ 0.8× | %s |\n' \
    "$(fmt0 "$pk_b_get")" "$(at "$pk_b_get_c")" "$(fmt0 "$pk_m_get")" "$(at "$pk_m_get_c")" "$(fmtx "$r_get")" "$(reached "$r_get" '>=' 0.8)"
  printf '| p99 latency of GETBIT at %s client(s)%s, bitmapd | %s ms | | | ≤ 2 ms | %s |\n' \
    "$P99C" "$( ((P99C == 50)) || echo " (50 was not run: the nearest count)")" "$(fmt3 "$p99_get")" "$(reached "$p99_get" '<=' 2)"
  echo
  echo "Throughput ratios compare each system at its best client count (the peaks of the"
  echo "chart; the per-count ratios are in \"Redis protocol side by side\"). Every figure is the"
  echo "median of $REPEAT measurement(s) of ${SECS}s."
  if ((FAILED > 0)); then
    echo
    echo "**$FAILED measurement(s) failed** and are left out of the medians: $FAILURES."
  fi
} >"$T/targets.md"

# --- chart ---------------------------------------------------------------------------

for cmd in SETBIT GETBIT; do
  for t in "${RB_TARGETS[@]}" naive; do
    f=$T/chart-$cmd-$t.dat
    : >"$f"
    for c in $(counts_of "$cmd" "$t"); do
      r=$(med "$cmd" "$t" "$c" 6)
      [[ $r == - ]] || echo "$c $r" >>"$f"
    done
  done
done
mkdir -p -- "$(dirname -- "$CHART")"
if ! gnuplot -c bench/chart.gp "$T" "$CHART" "${CLIENTS[*]}" "$(thousands "$KEYS")" >"$T/gnuplot.out" 2>&1; then
  fail "gnuplot: $(tail -n 3 "$T/gnuplot.out" | tr '\n' ' ')"
fi

# --- the fragment ----------------------------------------------------------------------

RB_VERSION=$(redis-benchmark --version 2>/dev/null | awk '{print $2}')
REDIS_VERSION=$(redis-cli -p "$BENCH_REDIS_PORT" INFO server | tr -d '\r' | sed -n 's/^redis_version://p')
CHART_REL=$(realpath --relative-to="$(dirname -- "$(realpath -m -- "$OUT")")" -- "$(realpath -m -- "$CHART")" 2>/dev/null || echo "$CHART")
# The chart link is relative to docs/benchmarks.md, where run.sh puts the fragment.
[[ -z ${BENCH_CHART_LINK:-} ]] || CHART_REL=$BENCH_CHART_LINK

point_table() { # CMD
  local cmd=$1 t c nc
  local targets=("${RB_TARGETS[@]}")
  [[ $cmd == GETBIT ]] || targets+=(naive)
  echo "| $cmd, clients | target | requests/s (median) | range over repeats | p50 ms | p95 ms | p99 ms | max ms | bitmapd ÷ this |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  for c in "${CLIENTS[@]}"; do
    for t in "${targets[@]}"; do
      nc=$c
      if [[ $t == naive ]] && ((c > NAIVE_MAX)); then nc=$NAIVE_MAX; fi
      local r b
      r=$(med "$cmd" "$t" "$nc" 6)
      b=$(med "$cmd" bitmapd "$c" 6)
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$nc" "${LABEL[$t]}" "$(fmt0 "$r")" "$(spread "$cmd" "$t" "$nc")" \
        "$(fmt3 "$(med "$cmd" "$t" "$nc" 8)")" "$(fmt3 "$(med "$cmd" "$t" "$nc" 9)")" "$(fmt3 "$(med "$cmd" "$t" "$nc" 10)")" \
        "$(fmt3 "$(med "$cmd" "$t" "$nc" 11)")" "$(if [[ $t != bitmapd ]]; then fmtx "$(div "$b" "$r")"; fi)"
    done
  done
}

{
  echo "## Redis protocol side by side: SETBIT and GETBIT"
  echo
  echo "![throughput against client count]($CHART_REL)"
  echo
  echo "One run, ${MEAS_S}s of measurements after a ${PREFILL_S}s prefill and a ${WARM_S}s warm-up of bitmapd's cache"
  echo "(one pipelined GETBIT of every key; the cache then held $(thousands "${WARM_ENTRIES:-0}") entries in $(thousands "${WARM_BYTES:-0}") bytes);"
  echo "every figure is the median of $REPEAT"
  echo "measurement(s) of about ${SECS}s each (latency columns: the median of each percentile)."
  echo
  point_table SETBIT
  echo
  point_table GETBIT
  echo
  echo "What was run:"
  echo
  echo "- \`redis-benchmark -h 127.0.0.1 -p PORT -c C -n N -r $KEYS -q --csv SETBIT key:__rand_int__ OFFSET 1\`, and"
  echo "  \`… GETBIT key:__rand_int__ 7\` (redis-benchmark $RB_VERSION, one thread; it replaces \`__rand_int__\` with a"
  echo "  12-digit random number below $(thousands "$KEYS") in every request). N is the rate a short probe of the same"
  echo "  target, command and client count measured, times ${SECS}s; \`timeout\` bounds each run. Its latency figures"
  echo "  are its own (from a histogram, as it prints them with \`--csv\`)."
  echo "- Targets: bitmapd's RESP port (\`service.ini\` as it is, fsync on, a write answered after its commit);"
  echo "  \`redis-server\` $REDIS_VERSION \`--save '' --appendonly no\` (in memory); \`redis-server --appendonly yes"
  echo "  --appendfsync always --auto-aof-rewrite-percentage 0\`, its AOF on the same disk as PostgreSQL's data; and"
  echo "  \`bench/naive\` (SETBIT only): per SETBIT, \`SELECT bits FROM bench_naive WHERE key=\$1\`, deserialize"
  echo "  the Roaring blob, set the bit, serialize, \`UPDATE bench_naive SET bits=\$2 WHERE key=\$1\`, autocommit,"
  echo "  no version check, one libpq connection per client thread, prepared statements, in bitmapd's database."
  for c in "${CLIENTS[@]}"; do
    if ((c > NAIVE_MAX)); then
      echo "  The naive design ran with $NAIVE_MAX clients where the others ran with more: it needs a PostgreSQL"
      echo "  connection per client, and that is what max_connections left."
      break
    fi
  done
  echo "- Before the first measurement every target holds the same $(thousands "$KEYS") keys \`key:000000000000\` …"
  echo "  with bit 7 set: \`redis-cli --pipe\` for Redis; for bitmapd one \`SETBIT\` through its RESP port, whose row"
  echo "  is then copied in SQL to every key name (the service had not read any of them yet); for the naive table,"
  echo "  rows holding the Roaring bytes of {7}. Each (repeat, client count) SETBIT measurement sets a bit of its"
  echo "  own (offsets 8, 9, …), so an acknowledged SETBIT changed a bit that was clear, except when the same key came"
  echo "  up twice in one measurement. GETBIT reads bit 7 of existing keys (all of them answer 1)."
  echo "- The targets take turns: each repeat walks the client counts, each client count runs every target."
  echo "- bitmapd committed $(thousands "$COMMITTED") changes to the rows \`key:*\` (sum of their versions) for"
  echo "  $(thousands "${SETBITS_SENT[bitmapd]:-0}") SETBITs acknowledged (probes included); the difference is keys drawn twice in one"
  echo "  measurement. The naive table ended with $(thousands "$NAIVE_CHANGED") of $(thousands "$KEYS") rows grown by a bit"
  echo "  after $(thousands "$NAIVE_DONE") SETBITs acknowledged (the difference is keys drawn more than once)."
  echo "- Everything (PostgreSQL, bitmapd, both redis-servers, redis-benchmark, bench/naive) shares the same"
  echo "  $(nproc) cores: a single-threaded redis-benchmark at 50–100 clients is itself near a core's worth."
  echo "- Afterwards the keys were removed from all targets again (rows deleted, table dropped, FLUSHALL)."
  if ((FAILED > 0)); then
    echo "- **$FAILED measurement(s) failed**: $FAILURES."
  fi
} >"$OUT"

# --- leave no trace --------------------------------------------------------------------

log "removing the prefilled keys"
sql <<EOF
DELETE FROM bitmapd.bitmaps WHERE $keys_sql OR key = convert_to('bench:prefill', 'UTF8');
DROP TABLE bench_naive;
VACUUM (ANALYZE) bitmapd.bitmaps;
EOF
for t in redis-fsync redis-memory; do redis-cli -p "${PORT[$t]}" FLUSHALL >/dev/null || true; done

log "done: SETBIT peaks bitmapd ${pk_b_set:-?}/s, redis-fsync ${pk_f_set:-?}/s, naive ${pk_n_set:-?}/s; GETBIT peaks bitmapd ${pk_b_get:-?}/s, redis-memory ${pk_m_get:-?}/s; p99 GETBIT at $P99C clients ${p99_get} ms"
((FAILED == 0))
