#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# bench/hotkey.sh FRAGMENT.md — one key written by many clients (issue 13), side by
# side in one run against bitmapd's RESP port and redis-server --appendfsync always:
#   small   50 clients, SETBIT of distinct offsets of one key of 10,000 bits
#   big     the same on one key of 2,000,000 bits (250,000 random bytes, about half set)
#   huge    the same on one key of 16,000,000 bits (2,000,000 random bytes)
#   scatter the 250 KB key again, offsets scattered over it (hotkey -x): the ids of a
#           day's active users, which land all over a big bitmap
#   dau     50 clients, scattered SETBITs into a sparse key: 1,000,000 random members
#           among 100,000,000 ids (a big service's daily active users; array containers,
#           about 2 MB portable, which a write cannot patch in place)
#   million 1,000,000 (quick: 100,000) SETBITs into one key from one client, 1,000 in flight
# and, for bitmapd alone, the WAL one single-bit SETBIT writes into keys of 1 KB,
# 100 KB, 1 MB and 16 MB (pg_current_wal_lsn() around 20 SETBITs, one at a time).
# The load generator is bench/hotkey.c (BENCH_HOTKEY), the same command stream for
# both servers. Writes a Markdown fragment (starting with "## ") to FRAGMENT.md.
#
# Needs (exported by bench/run.sh): BENCH_PGURL, BENCH_RESP_PORT,
# BENCH_REDIS_FSYNC_PORT, BENCH_HOTKEY, BENCH_TMP. Environment: BENCH_QUICK [0],
# BENCH_HOT_REPEAT [3 / 1], BENCH_HOT_SECONDS [5 / 2], BENCH_HOT_MILLION [1000000 / 100000].
# The keys hot:* are removed from both servers at the end.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$ROOT"
die() {
  echo "hotkey: $*" >&2
  exit 1
}
[[ $# -eq 1 && -n $1 ]] || die "usage: bench/hotkey.sh FRAGMENT.md"
OUT=$1
for v in BENCH_PGURL BENCH_RESP_PORT BENCH_REDIS_FSYNC_PORT BENCH_HOTKEY BENCH_TMP; do
  [[ -n ${!v:-} ]] || die "$v is not set"
done
[[ -x $BENCH_HOTKEY ]] || die "$BENCH_HOTKEY is not built (make bench builds it)"

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  REPEAT=${BENCH_HOT_REPEAT:-1} SECS=${BENCH_HOT_SECONDS:-2} MILLION=${BENCH_HOT_MILLION:-100000}
else
  REPEAT=${BENCH_HOT_REPEAT:-3} SECS=${BENCH_HOT_SECONDS:-5} MILLION=${BENCH_HOT_MILLION:-1000000}
fi
T=$BENCH_TMP/hotkey
mkdir -p -- "$T"
declare -A PORT=([bitmapd]=$BENCH_RESP_PORT [redis-fsync]=$BENCH_REDIS_FSYNC_PORT)
TARGETS=(bitmapd redis-fsync)
log() { printf '[hotkey %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
sql() { psql "$BENCH_PGURL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
rcli() { redis-cli -h 127.0.0.1 -p "${PORT[$1]}" "${@:2}"; }

# run TARGET NAME ARGS... — one hotkey run; its rate on stdout ("" when it failed)
run() {
  local t=$1 name=$2 line
  shift 2
  if ! line=$(timeout $((SECS * 4 + 300)) "$BENCH_HOTKEY" -p "${PORT[$t]}" "$@" 2>"$T/$name-$t.err"); then
    log "$name on $t failed: $(tail -n 2 "$T/$name-$t.err")"
    echo ""
    return
  fi
  sed -n 's/.*: \([0-9]*\)\/s, errors 0$/\1/p' <<<"$line"
}
median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.2f×", a / b; else print "n/a"}'; }

# prefill KEY BYTES TARGET... — the same random value (made once per key) in each
# target (SETRANGE from offset 0)
prefill() {
  local key=$1 bytes=$2 t
  shift 2
  [[ -s $T/value.$key ]] || head -c "$bytes" /dev/urandom >"$T/value.$key"
  for t in "$@"; do
    rcli "$t" DEL "$key" >/dev/null
    [[ $(rcli "$t" -x SETRANGE "$key" 0 <"$T/value.$key") == "$bytes" ]] || die "prefilling $key on $t failed"
  done
}

declare -A RATE=() SEC=() CARD=() WAL=() WALR=() STORED=()
measure() { # NAME HOTKEY-ARGS...
  local name=$1 r t rates
  shift
  for t in "${TARGETS[@]}"; do RATE[$name,$t]=""; done
  for ((r = 0; r < REPEAT; r++)); do
    for t in "${TARGETS[@]}"; do
      [[ -n ${PREP:-} ]] && $PREP "$t"
      RATE[$name,$t]+=" $(run "$t" "$name" "$@")"
    done
  done
  for t in "${TARGETS[@]}"; do
    rates=${RATE[$name,$t]}
    RATE[$name,$t]=$(median <<<"$rates")
    log "$name $t: ${RATE[$name,$t]:-failed}/s (runs:$rates)"
  done
}

log "hot small key: 50 clients, ${SECS}s per run, $REPEAT run(s) per target"
measure small -c 50 -r 10000 -n 10000000 -s "$SECS" -k hot:small
log "hot 250 KB key: prefilled before every run"
# Every run starts from the same random value: a run over offsets an earlier run
# already set would change nothing, and an unchanged bit costs bitmapd only a
# version check.
prefill_big() { prefill hot:big 250000 "$1"; }
PREP=prefill_big measure big -c 50 -r 2000000 -n 10000000 -s "$SECS" -k hot:big
log "hot 250 KB key, scattered offsets: prefilled before every run"
# consecutive offsets (above) change one or two containers per batch of writes; these
# change most of the key's containers in every batch
PREP=prefill_big measure scatter -c 50 -r 2000000 -n 10000000 -s "$SECS" -k hot:big -x
log "hot 2 MB key: prefilled before every run"
# how a write's cost grows with its bitmap (not a target of issue 13: the 250 KB key is)
prefill_huge() { prefill hot:huge 2000000 "$1"; }
PREP=prefill_huge measure huge -c 50 -r 16000000 -n 10000000 -s "$SECS" -k hot:huge
log "sparse DAU key, scattered offsets: prefilled before every run"
# 1,000,000 distinct random ids below 100,000,000, as a Redis string (bit i of the
# string is id i, the most significant bit of each byte first), made once
[[ -s $T/value.hot:dau ]] || python3 -c '
import random, sys
b = bytearray(12500000)
for i in random.Random(20261124).sample(range(100000000), 1000000):
    b[i >> 3] |= 0x80 >> (i & 7)
sys.stdout.buffer.write(bytes(b))' >"$T/value.hot:dau"
prefill_dau() { prefill hot:dau 12500000 "$1"; }
PREP=prefill_dau measure dau -c 50 -r 100000000 -n 10000000 -s "$SECS" -k hot:dau -x
log "$(thousands "$MILLION") pipelined SETBITs into one key"
for t in "${TARGETS[@]}"; do
  t0=$(date +%s.%N)
  rate=$(run "$t" million -c 1 -P 1000 -n "$MILLION" -r "$MILLION" -s 600 -k hot:million)
  RATE[million,$t]=$rate
  SEC[$t]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  CARD[$t]=$(rcli "$t" BITCOUNT hot:million)
  log "million $t: ${rate:-failed}/s, BITCOUNT ${CARD[$t]}"
done

# WAL of one single-bit write, by the size of the key (bitmapd only)
for size in 1000 100000 1000000 16000000; do
  key=hot:wal:$size
  head -c "$size" /dev/urandom >"$T/value"
  rcli bitmapd DEL "$key" >/dev/null
  [[ $(rcli bitmapd -x SETRANGE "$key" 0 <"$T/value") == "$size" ]] || die "writing $key failed"
  # The LSN is the cluster's: whatever else writes meanwhile (autovacuum of the chunk
  # rows the hot-key runs churned, a checkpoint's first full-page images) counts too,
  # so three rounds of 20, their median, and each round waits (up to 30 s) until no
  # autovacuum worker runs (in the run of 2026-11-27 13:16 every round of the 1 KB key
  # gave 2.1 KB a SETBIT, against 0.6-0.9 KB with the same binary on an idle cluster,
  # and one of the 16 MB key 223 KB: something else was writing)
  rounds=""
  for ((r = 0; r < 3; r++)); do
    for ((w = 0; w < 300; w++)); do
      [[ $(sql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'") == 0 ]] && break
      sleep 0.1
    done
    lsn0=$(sql -c "SELECT pg_current_wal_lsn()")
    for ((i = 0; i < 20; i++)); do rcli bitmapd SETBIT "$key" $((i * 8 * size / 20 + r)) $((i % 2)) >/dev/null; done
    rounds+=" $(sql -c "SELECT round((pg_current_wal_lsn() - '$lsn0'::pg_lsn) / 20)")"
  done
  WAL[$size]=$(median <<<"$rounds")
  WALR[$size]=$rounds
  STORED[$size]=$(sql -c "SELECT bitmapd.value_bytes(key, bits) || CASE WHEN octet_length(bits) = 0
                                 THEN ' in ' || (SELECT count(*) FROM bitmapd.chunks c WHERE c.key = b.key) || ' chunks'
                                 ELSE ' in one row' END
                            FROM bitmapd.bitmaps b WHERE key = convert_to('$key', 'UTF8')")
  log "WAL per SETBIT into a $size-byte key: ${WAL[$size]} bytes (rounds:${WALR[$size]})"
done

{
  echo "## One key, many writers (bench/hotkey.sh)"
  echo
  echo "\`bench/hotkey.c\` sends the same command stream to both servers: client threads with one connection each,"
  echo "command j being \`SETBIT KEY (OFFSET + j mod RANGE) ((j div RANGE + 1) mod 2)\` (distinct offsets within a"
  echo "pass; the first pass sets, the next clears); \"scattered\" (\`-x\`) spreads each pass's offsets over the whole"
  echo "key (offset OFFSET + (j × S) mod RANGE, S coprime with RANGE), as a day's active users spread over a big bitmap."
  echo "Rates are the median of $REPEAT run(s) of ${SECS}s per target,"
  echo "the targets taking turns; bitmapd answers a SETBIT after its commit, redis-server fsyncs its AOF before"
  echo "answering."
  echo
  echo "| workload | bitmapd | redis-server, appendfsync always | bitmapd ÷ redis |"
  echo "|---|---:|---:|---:|"
  echo "| SETBIT, 50 clients, one key of 10,000 bits | $(thousands "${RATE[small,bitmapd]:-0}")/s | $(thousands "${RATE[small,redis-fsync]:-0}")/s | $(ratio "${RATE[small,bitmapd]}" "${RATE[small,redis-fsync]}") |"
  echo "| SETBIT, 50 clients, one key of 2,000,000 bits (250 KB) | $(thousands "${RATE[big,bitmapd]:-0}")/s | $(thousands "${RATE[big,redis-fsync]:-0}")/s | $(ratio "${RATE[big,bitmapd]}" "${RATE[big,redis-fsync]}") |"
  echo "| SETBIT, 50 clients, the 250 KB key, scattered offsets | $(thousands "${RATE[scatter,bitmapd]:-0}")/s | $(thousands "${RATE[scatter,redis-fsync]:-0}")/s | $(ratio "${RATE[scatter,bitmapd]}" "${RATE[scatter,redis-fsync]}") |"
  echo "| SETBIT, 50 clients, one key of 16,000,000 bits (2 MB) | $(thousands "${RATE[huge,bitmapd]:-0}")/s | $(thousands "${RATE[huge,redis-fsync]:-0}")/s | $(ratio "${RATE[huge,bitmapd]}" "${RATE[huge,redis-fsync]}") |"
  echo "| SETBIT, 50 clients, scattered, a sparse key of 1,000,000 members among 100,000,000 ids (DAU) | $(thousands "${RATE[dau,bitmapd]:-0}")/s | $(thousands "${RATE[dau,redis-fsync]:-0}")/s | $(ratio "${RATE[dau,bitmapd]}" "${RATE[dau,redis-fsync]}") |"
  echo "| $(thousands "$MILLION") SETBITs into one key, 1 client, 1,000 in flight | $(thousands "${RATE[million,bitmapd]:-0}")/s (${SEC[bitmapd]} s) | $(thousands "${RATE[million,redis-fsync]:-0}")/s (${SEC[redis-fsync]} s) | $(ratio "${RATE[million,bitmapd]}" "${RATE[million,redis-fsync]}") |"
  echo
  echo "BITCOUNT after the pipelined run: bitmapd $(thousands "${CARD[bitmapd]}"), redis $(thousands "${CARD[redis-fsync]}")."
  echo
  echo "WAL written per single-bit SETBIT (bitmapd, \`pg_current_wal_lsn()\` around 20 SETBITs sent one at a time"
  echo "into a key made of random bytes with \`SETRANGE\`; the median of 3 rounds, since the LSN counts whatever else"
  echo "the cluster writes meanwhile, such as autovacuum after the runs above; the rounds in brackets):"
  echo
  echo "| key (Redis length) | stored bytes | WAL per SETBIT |"
  echo "|---:|---:|---:|"
  for size in 1000 100000 1000000 16000000; do
    echo "| $(thousands "$size") B | $(thousands "${STORED[$size]}") | $(thousands "${WAL[$size]}") B (${WALR[$size]# }) |"
  done
} >"$OUT"

for t in "${TARGETS[@]}"; do
  rcli "$t" DEL hot:small hot:big hot:huge hot:dau hot:million hot:wal:1000 hot:wal:100000 hot:wal:1000000 hot:wal:16000000 >/dev/null || true
done
for k in small big scatter huge dau million; do
  for t in "${TARGETS[@]}"; do [[ -n ${RATE[$k,$t]} ]] || die "the $k measurement failed on $t"; done
done
