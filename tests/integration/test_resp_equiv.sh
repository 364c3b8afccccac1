#!/usr/bin/env bash
# bitmapd against a real redis-server, byte for byte: build/tools/resp_equiv
# sends the same seeded random bitmap, string, keyspace and expiry commands to both
# (3 fixed seeds and one from $RANDOM, printed so a failure can be replayed), and
# after every write compares each key's deadline on both; then build/tools/
# resp_stress (deep pipeline, concurrent writers, dropped connections) and a
# 5,000-command redis-cli --pipe. Bounded: well under 90 s.
set -uo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

TOOLS=${BITMAPD_TOOLS:-$BITMAPD_ROOT/build/tools}
T=$BITMAPD_TEST_TMP
REDIS_PID_FILE=$T/redis-server.pid # the runner kills what *.pid names if we die

stop_redis() {
  local pid i
  [[ -f $REDIS_PID_FILE ]] || return 0
  pid=$(<"$REDIS_PID_FILE")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$REDIS_PID_FILE"
}
trap stop_redis EXIT

# run_tool NAME EXPECTED_STATUS CMD... — a check on the exit status; the
# tool's output is shown when it fails, and kept in $TOOL_OUT.
run_tool() {
  local name=$1 want=$2 status=0
  shift 2
  TOOL_OUT=$("$@" 2>&1) || status=$?
  check "$name (exit status)" "$want" "$status"
  if [[ $status != "$want" ]]; then
    printf '%s\n' "$TOOL_OUT" | tail -n 40 | _diag
  fi
}

for tool in resp_equiv resp_stress; do
  if [[ ! -x $TOOLS/$tool ]]; then
    check "$TOOLS/$tool is built (make all)" yes no
    finish
  fi
done

REDIS_PORT=$(free_port) || finish
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
  --daemonize yes --pidfile "$REDIS_PID_FILE" --dir "$T" --logfile "$T/redis-server.log" >/dev/null
for ((i = 0; i < 50; i++)); do
  [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" PING 2>/dev/null) == PONG ]] && break
  sleep 0.1
done
check "reference redis-server on port $REDIS_PORT answers PING" PONG \
  "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" PING 2>&1)"
echo "# reference: $(redis-server --version | cut -d' ' -f1-3)"

start_service || finish

echo "# resp_equiv: the same seeded commands to redis-server (A) and bitmapd (B)"
RANDOM_SEED=$((RANDOM * 32768 + RANDOM))
echo "# random seed of this run: $RANDOM_SEED"
for seed in 1 20240229 987654321 "$RANDOM_SEED"; do
  run_tool "resp_equiv seed $seed, 4000 commands" 0 \
    "$TOOLS/resp_equiv" --a "127.0.0.1:$REDIS_PORT" --b "127.0.0.1:$RPORT" \
    --prefix "eq$seed:" --seed "$seed" --count 4000
  check_match "resp_equiv seed $seed reports 0 mismatches" '4000 commands, 0 mismatches' "$TOOL_OUT"
done

echo "# resp_stress"
STRESS=("$TOOLS/resp_stress" --host 127.0.0.1 --port "$RPORT" --timeout 30)
run_tool "pipeline 10000" 0 "${STRESS[@]}" pipeline 10000 stress:pipe
check_match "pipeline: 10000 replies in order, 0 wrong" '10000 replies in order, 0 wrong' "$TOOL_OUT"
check "pipeline: BITCOUNT is the 5000 SETBITs" 5000 "$(rcli BITCOUNT stress:pipe)"

run_tool "concurrent 8 x 300" 0 "${STRESS[@]}" concurrent 8 300 stress:conc
check "concurrent: BITCOUNT is 8 x 300 distinct offsets" 2400 "$(rcli BITCOUNT stress:conc)"

# Writes of one key from many connections are merged into one commit (wpath trains);
# each must still see the ones sent before it on its connection, and add a version.
merged_extra() { # units beyond the first of every merged write so far
  http GET /metrics
  awk '$1 == "bitmapd_write_merged_units_sum" {s = $2} $1 == "bitmapd_write_merged_units_count" {c = $2} END {print s - c}' <<<"$HTTP_BODY"
}
merged_before=$(merged_extra)
run_tool "merge 40 x 200" 0 "${STRESS[@]}" merge 40 200 stress:merge
check_match "merge: replies 0, 1, 1, 0 per offset on every connection" '40 connections x 800 SETBITs, BITCOUNT stress:merge = 8000 \(expected 8000\), 0 wrong replies, 0 broken' "$TOOL_OUT"
wlog_fold
check "merge: the row's version is one per change (3 x 8000)" 24000 \
  "$(psql "$BITMAPD_DSN" -XAtq -c "SELECT version FROM bitmapd.bitmaps WHERE key = 'stress:merge'::bytea")"
merged_after=$(merged_extra)
check "merge: some writes were merged with others (bitmapd_write_merged_units)" yes \
  "$(awk -v a="$merged_before" -v b="$merged_after" 'BEGIN {print (b > a) ? "yes" : "no"}')"

run_tool "disconnect 1000" 0 "${STRESS[@]}" disconnect 1000 stress:drop
n=$(rcli BITCOUNT stress:drop)
check_match "disconnect: BITCOUNT is a number" '^[0-9]+$' "$n"
check "disconnect: BITCOUNT $n ≤ 1000 (no bit that was never sent)" yes "$([[ $n =~ ^[0-9]+$ ]] && ((n <= 1000)) && echo yes || echo no)"
check "disconnect: a fresh connection answers PING" PONG "$(rcli PING 2>&1)"

echo "# redis-cli --pipe: 5,000 mixed commands"
# 1000 rounds of: SETBIT, GETBIT, BITCOUNT, PING, and a fifth command that is a
# SETBIT with a bad offset on every 10th round (100 errors) and GETBIT otherwise.
resp() { # ARGS... — one command in RESP
  printf '*%d\r\n' $#
  local a
  for a; do printf '$%d\r\n%s\r\n' "${#a}" "$a"; done
}
{
  resp DEL pipe:mix
  for ((i = 0; i < 1000; i++)); do
    resp SETBIT pipe:mix $((i * 7)) 1
    resp GETBIT pipe:mix $((i * 7))
    resp BITCOUNT pipe:mix
    resp PING
    if ((i % 10 == 9)); then resp SETBIT pipe:mix -1 1; else resp GETBIT pipe:mix $((i * 7 + 1)); fi
  done
} >"$T/pipe.resp"
out=$(redis-cli -h 127.0.0.1 -p "$RPORT" --pipe <"$T/pipe.resp" 2>&1)
check_match "--pipe: 5001 replies, 100 errors" 'errors: 100, replies: 5001' "$out"
[[ $out =~ errors:\ 100,\ replies:\ 5001 ]] || printf '%s\n' "$out" | _diag
check "--pipe: BITCOUNT after 1000 SETBITs" 1000 "$(rcli BITCOUNT pipe:mix)"
check "--pipe: the last offset set" 6993 "$(rcli BITPOS pipe:mix 1 -1)"
check "--pipe: the same file to redis-server gives the same counts" \
  "$(grep -o 'errors: [0-9]*, replies: [0-9]*' <<<"$out")" \
  "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" --pipe <"$T/pipe.resp" 2>&1 | grep -o 'errors: [0-9]*, replies: [0-9]*')"
check "--pipe: GET of the value equals redis-server's" \
  "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" GET pipe:mix | od -An -tx1 | tr -d ' \n' | md5sum)" \
  "$(rcli GET pipe:mix | od -An -tx1 | tr -d ' \n' | md5sum)"

# A big value (1 MB of random bytes: chunked, dense) written by mixed SETBIT, SETRANGE
# and BITFIELD commands, one at a time (each train re-encodes only the containers its
# command names: codec_encode_patch) and then by 8 pipelining clients on disjoint byte
# ranges (trains of many): every reply and the value stay redis-server's, also after a
# restart (read back from the chunk rows).
echo "# a chunked 1 MB value: mixed writes, one at a time and from 8 pipelining clients"
python3 - "$T/bigeq" <<'PY'
import random, sys
out = sys.argv[1]
r = random.Random(2026)
open(out + ".value", "wb").write(r.randbytes(1000000))
def cmd(base, span):
    k = r.randrange(4)
    if k == 0:
        return f"SETBIT big:eq {(base + r.randrange(span)) * 8 + r.randrange(8)} {r.randrange(2)}"
    if k == 1:
        return f"SETRANGE big:eq {base + r.randrange(span - 64)} {r.randbytes(1 + r.randrange(30)).hex()}"
    if k == 2:
        t = r.choice(["u8", "i16", "u31", "i64", "u1"])
        return (f"BITFIELD big:eq SET {t} {(base + r.randrange(span - 64)) * 8 + r.randrange(8)} {r.randrange(1 << 30)}"
                f" INCRBY u8 {(base + r.randrange(span - 64)) * 8} {r.randrange(300)}")
    return f"BITFIELD big:eq OVERFLOW SAT INCRBY i16 {(base + r.randrange(span - 64)) * 8 + 3} -{r.randrange(5000)} GET u4 {(base + 10) * 8}"
with open(out + ".seq", "w") as f:
    for _ in range(300): f.write(cmd(0, 1000000) + "\n")
for n in range(8):
    with open(f"{out}.pipe{n}", "w") as f:
        for _ in range(300): f.write(cmd(n * 125000, 125000) + "\r\n")
PY
bigeq_load() { # PORT
  redis-cli -h 127.0.0.1 -p "$1" DEL big:eq >/dev/null
  redis-cli -h 127.0.0.1 -p "$1" -x SET big:eq <"$T/bigeq.value" >/dev/null
  redis-cli -h 127.0.0.1 -p "$1" <"$T/bigeq.seq" >"$T/bigeq.seq.$1"
}
bigeq_pipes() { # PORT — the 8 clients at once; their outputs' summary lines
  local pids=() n
  for n in 0 1 2 3 4 5 6 7; do
    timeout 60 redis-cli -h 127.0.0.1 -p "$1" --pipe <"$T/bigeq.pipe$n" >"$T/bigeq.pipe$n.$1" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || true # (not a bare wait: the service is a child of this shell)
  cat "$T"/bigeq.pipe?."$1" | grep -o 'errors: [0-9]*, replies: [0-9]*' | sort | uniq -c
}
bigeq_md5() { redis-cli -h 127.0.0.1 -p "$1" GET big:eq | md5sum; }
bigeq_load "$REDIS_PORT"
bigeq_load "$RPORT"
check "big value: bitmapd holds it chunked, 1,000,000 bytes long" 1000000 "$(rcli STRLEN big:eq)"
nref=$(grep -c . <"$T/bigeq.seq.$REDIS_PORT")
check "big value: both answered all 300 (BITFIELD's arrays take a line per field)" "yes $nref" \
  "$( ((nref >= 300)) && echo yes || echo no) $(grep -c . <"$T/bigeq.seq.$RPORT")"
check "big value: 300 mixed writes one at a time answer as redis-server's" same \
  "$(cmp -s "$T/bigeq.seq.$REDIS_PORT" "$T/bigeq.seq.$RPORT" && echo same || echo differ)"
check "big value: then the value is redis-server's" "$(bigeq_md5 "$REDIS_PORT")" "$(bigeq_md5 "$RPORT")"
check "big value: 8 pipelining clients' 2,400 writes answered as redis-server's" \
  "$(bigeq_pipes "$REDIS_PORT")" "$(bigeq_pipes "$RPORT")"
check "big value: then the value is redis-server's" "$(bigeq_md5 "$REDIS_PORT")" "$(bigeq_md5 "$RPORT")"
stop_service
start_service || finish
check "big value: after a restart (read back from its chunks) still redis-server's" \
  "$(bigeq_md5 "$REDIS_PORT")" "$(bigeq_md5 "$RPORT")"
check "bitmapd still answers PING" PONG "$(rcli PING 2>&1)"

stop_redis
finish
