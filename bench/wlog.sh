#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/wlog.sh FRAGMENT.md — the write-behind log (docs/design.md, "Write-behind log"):
# durable SETBIT over 1,000,000 random keys, side by side in one run, against
#   in place     bitmapd's main instance (BENCH_RESP_PORT, [wlog] off: one
#                compare-and-swap of the rows per batch)
#   log          a second bitmapd on the same database with [wlog] enabled = 1
#                (acknowledged after one append per batch, folded behind)
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
# BENCH_RESP_PORT, BENCH_REDIS_FSYNC_PORT, BENCH_TMP.
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
HP=$(free_port)
RP=$(free_port)
"$BENCH_BIN" --set http.address=127.0.0.1 --set "http.port=$HP" --set resp.address=127.0.0.1 \
  --set "resp.port=$RP" --set wlog.enabled=1 --set wlog.cooldown_s=0 --set service.shutdown_timeout_s=60 \
  >"$T/bitmapd.log" 2>&1 </dev/null &
LOG_PID=$!
trap 'kill -TERM $LOG_PID 2>/dev/null; wait $LOG_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HP/healthz") == 200 ]] && break
  sleep 0.1
done

metric() { curl -s "http://127.0.0.1:$HP/metrics" | awk -v n="$1" '$1 == n {print $2}'; }
q() { psql "$BENCH_PGURL" -XAtq -c "$1"; }

# every measurement starts with the log folded and no key:* row
clean() {
  local i
  q "SELECT bitmapd.wlog_fold()" >/dev/null
  for i in $(seq 300); do
    [[ $(q "SELECT count(*) FROM bitmapd.wlog") == 0 ]] && q "DELETE FROM bitmapd.bitmaps WHERE key LIKE 'key:%'" \
      >/dev/null 2>&1 && break
    sleep 0.1
  done
  ((i < 300)) || die "could not fold the log and delete the keys"
  redis-cli -p "$BENCH_REDIS_FSYNC_PORT" FLUSHALL >/dev/null
  # the deleted rows (the last measurement's, and resp.sh's million before the first)
  # would otherwise stay in the table and its indexes until autovacuum comes: every
  # new key's insert would walk past them
  q "VACUUM bitmapd.bitmaps" >/dev/null
  q "CHECKPOINT" >/dev/null 2>&1 || true
}

rate() { # PORT CLIENTS PIPELINE N
  redis-benchmark -h 127.0.0.1 -p "$1" -c "$2" -P "$3" -n "$4" -r 1000000 -q SETBIT key:__rand_int__ 7 1 2>/dev/null |
    tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -n 1 | awk '{printf "%.0f", $1}'
}

measure() { # WHO CLIENTS PIPELINE N
  local port=$BENCH_RESP_PORT
  clean
  case $1 in
  log)
    port=$RP
    for _ in $(seq 100); do # the lease first: the burst is measured through the log
      redis-cli -p "$RP" SETBIT key:warm 1 1 >/dev/null
      [[ $(metric bitmapd_wlog_holder) == 1 ]] && break
      sleep 0.05
    done
    [[ $(metric bitmapd_wlog_holder) == 1 ]] || die "the log instance did not take the lease"
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
    for who in place log redis; do
      v=$(measure "$who" "$c" "$p" "$N") || v=0
      R[$who.$c.$p]+=" $v"
      echo "wlog: round $((r + 1)) $who c$c P$p: $v/s" >&2
    done
  done
done
declare -A S=()
for who in place log redis; do
  S[$who]=$(measure "$who" 100 1 $((10 * N))) || S[$who]=0
  echo "wlog: sustained $who: ${S[$who]}/s" >&2
done
folds=$(metric bitmapd_wlog_folds_total)
folded=$(metric bitmapd_wlog_folded_keys_total)
appended=$(metric bitmapd_wlog_append_keys_total)
clean

thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }'; }
{
  echo "## The write-behind log: random keys, durable"
  echo
  echo "Durable SETBIT of new keys (\`redis-benchmark -r 1000000 SETBIT key:__rand_int__ 7 1\`), each row the"
  echo "median of $ROUNDS measurement(s) of $(thousands "$N") requests taken in turn; bitmapd in place ([wlog] off),"
  echo "bitmapd with the write-behind log ([wlog] enabled = 1, defaults otherwise) and redis-server"
  echo "\`--appendfsync always\`, on the same machine and disk. Before each measurement the log is folded, the key:* rows"
  echo "are deleted and \`VACUUM bitmapd.bitmaps\` clears them away (redis: FLUSHALL). Targets of issue 13: 0.6× at 50 and 100 clients, 0.3× with \`-P 16\`."
  echo
  echo "| clients | in place | log | redis fsync | in place / redis | log / redis |"
  echo "|---|---:|---:|---:|---:|---:|"
  for w in "${WORK[@]}"; do
    read -r c p <<<"$w"
    a=$(median <<<"${R[place.$c.$p]}")
    b=$(median <<<"${R[log.$c.$p]}")
    x=$(median <<<"${R[redis.$c.$p]}")
    label="$c"
    ((p > 1)) && label="$c, \`-P $p\`"
    echo "| $label | $(thousands "$a") | $(thousands "$b") | $(thousands "$x") | $(ratio "$a" "$x") | **$(ratio "$b" "$x")** |"
  done
  echo "| 100, sustained ($(thousands $((10 * N))) requests) | $(thousands "${S[place]}") | $(thousands "${S[log]}") | $(thousands "${S[redis]}") | $(ratio "${S[place]}" "${S[redis]}") | **$(ratio "${S[log]}" "${S[redis]}")** |"
  echo
  echo "The log instance appended $(thousands "${appended:-0}") images and folded $(thousands "${folded:-0}") in $(thousands "${folds:-0}") folds over the run"
  echo "(a key written twice before a fold is folded once). The burst rows measure what a client sees while the"
  echo "log absorbs the writes; the sustained row, where the folds run alongside, what the machine can keep up."
} >"$OUT"
