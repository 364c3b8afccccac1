#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# shellcheck disable=SC2153 # BENCH_* come from the environment
# bench/http_scale.sh FRAGMENT.md — the message box at scale, over HTTP:
#   1. a newest-first page at depth 1,000,000 against the first page, both by page
#      number and by cursor, in one box of more than 1,000,000 message ids
#      (GET /v1/users/{u}/messages; latency with 1 connection, throughput with
#      several; target: the deep page within 2× of the first);
#   2. one message fanned out to 1,000,000 users (POST /v1/pushes) that have no
#      row yet, then a second message to the same users, which now exist
#      (target: ≥ 200,000 users a second).
# Writes a Markdown fragment (starting with "## ") to FRAGMENT.md and exits
# non-zero on any failure. bench/run.sh calls it; it runs alone as well.
#
# Needs (exported by bench/run.sh, or by hand):
#   BENCH_PGURL   libpq URL or DSN of the database the bitmapd under test uses
#   BENCH_HTTP    http://127.0.0.1:PORT of that bitmapd
#   BENCH_TMP     scratch directory (files go to BENCH_TMP/scale, removed at exit)
#
# Keys written: message:push:{7000000000 + STEP·10^9 + BOX_IDS} (the deep box) and
# message:push:{BENCH_SCALE_FANOUT_BASE + 0 … users-1}. They are left in place.
# The fan-out messages get ids from the clock, so a second run on the same
# database still adds a new message (but its "new users" then exist already:
# the report says how many did).
#
# Environment (defaults in brackets):
#   BENCH_SCALE_WORKLOADS ["depth fanout"]
#   BENCH_SCALE_DEPTH [1000000]          rank (from the newest) of the deep page
#   BENCH_SCALE_BOX_IDS [DEPTH + 100000] message ids in the deep box …
#   BENCH_SCALE_ID_STEP [3]              … STEP·i + i mod STEP for i = 0 … BOX_IDS-1: with 3, a third
#                                        of the ids (stored dense); with 1000, sparse (Roaring arrays)
#   BENCH_SCALE_LIMIT [20]               page size
#   BENCH_SCALE_SECONDS [5]              seconds of each wrk run
#   BENCH_SCALE_CONNECTIONS [16]         connections of the throughput runs (2 wrk threads)
#   BENCH_SCALE_FANOUT_USERS [1000000]   users of each fan-out
#   BENCH_SCALE_FANOUT_CHUNK [1000000]   users per request (at most [http] max_ids_per_request,
#                                        and the body must fit [http] max_body_bytes: ~11 B a user)
#   BENCH_SCALE_FANOUT_PARALLEL [1]      requests in flight at once
#   BENCH_SCALE_FANOUT_BASE [6000000000] first user id of the fan-out
#   BENCH_SCALE_TIMEOUT [300]            seconds any one load or fan-out may take
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)

die() {
  echo "http_scale: $*" >&2
  exit 1
}
[[ $# -eq 1 && -n $1 ]] || die "usage: bench/http_scale.sh FRAGMENT.md"
OUT=$(realpath -m -- "$1")   # relative to where the script was started
for v in BENCH_PGURL BENCH_HTTP BENCH_TMP; do
  [[ -n ${!v:-} ]] || die "$v is not set (see the head of bench/http_scale.sh)"
done
BENCH_TMP=$(realpath -m -- "$BENCH_TMP")
cd -- "$ROOT"
for tool in psql curl jq awk wrk timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (make deps installs it)"
done

num() { # NAME VALUE MIN MAX: a bounded integer setting, or exit
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    echo "http_scale: $1 must be an integer in $3..$4, not '$2'" >&2
    exit 2
  fi
}
WORKLOADS=${BENCH_SCALE_WORKLOADS:-depth fanout}
DEPTH=${BENCH_SCALE_DEPTH:-1000000}
num BENCH_SCALE_DEPTH "$DEPTH" 1 100000000
BOX_IDS=${BENCH_SCALE_BOX_IDS:-$((DEPTH + 100000))}
LIMIT=${BENCH_SCALE_LIMIT:-20}
STEP=${BENCH_SCALE_ID_STEP:-3}
SECS=${BENCH_SCALE_SECONDS:-5}
CONNS=${BENCH_SCALE_CONNECTIONS:-16}
FAN_USERS=${BENCH_SCALE_FANOUT_USERS:-1000000}
FAN_CHUNK=${BENCH_SCALE_FANOUT_CHUNK:-1000000}
FAN_PAR=${BENCH_SCALE_FANOUT_PARALLEL:-1}
FAN_BASE=${BENCH_SCALE_FANOUT_BASE:-6000000000}
TIMEOUT=${BENCH_SCALE_TIMEOUT:-300}
num BENCH_SCALE_LIMIT "$LIMIT" 1 1000
num BENCH_SCALE_BOX_IDS "$BOX_IDS" $((DEPTH + LIMIT)) 1000000000
num BENCH_SCALE_ID_STEP "$STEP" 1 4294967295
num BENCH_SCALE_SECONDS "$SECS" 1 600
num BENCH_SCALE_CONNECTIONS "$CONNS" 2 1000
num BENCH_SCALE_FANOUT_USERS "$FAN_USERS" 1 100000000
num BENCH_SCALE_FANOUT_CHUNK "$FAN_CHUNK" 1 100000000
num BENCH_SCALE_FANOUT_PARALLEL "$FAN_PAR" 1 64
num BENCH_SCALE_FANOUT_BASE "$FAN_BASE" 0 $((2 ** 62))
num BENCH_SCALE_TIMEOUT "$TIMEOUT" 10 3600
for w in $WORKLOADS; do
  [[ $w =~ ^(depth|fanout)$ ]] || die "unknown workload '$w' in BENCH_SCALE_WORKLOADS"
done
((STEP * BOX_IDS <= 4294967296)) || die "BENCH_SCALE_BOX_IDS × BENCH_SCALE_ID_STEP is past the 32-bit message ids"

log() { printf '[http_scale %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
START_S=$(date +%s)

W=$BENCH_TMP/scale
rm -rf -- "$W"
mkdir -p -- "$W"
WRK_PID=""
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  if [[ -n $WRK_PID ]] && kill -0 "$WRK_PID" 2>/dev/null; then kill -TERM "$WRK_PID" 2>/dev/null || true; fi
  rm -rf -- "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

sql() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql "$BENCH_PGURL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
sql -c "SELECT 1" >/dev/null || die "cannot connect to BENCH_PGURL"
[[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$BENCH_HTTP/healthz" || true) == 200 ]] ||
  die "bitmapd at $BENCH_HTTP is not healthy"

# post PATH BODY_FILE OUT_FILE: POST with a JSON body; prints "status seconds".
post() {
  timeout "$TIMEOUT" curl -s -o "$3" -w '%{http_code} %{time_total}\n' --max-time "$TIMEOUT" -XPOST \
    -H 'Content-Type: application/json' --data-binary "@$2" "$BENCH_HTTP$1" || echo "000 0"
}
field() { grep -m1 '^BENCH ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a / b; else print "–" }'; }
verdict() { if awk "BEGIN{exit !($1)}"; then echo "yes"; else echo "**no**"; fi; }

# --- 1. a page at depth DEPTH ------------------------------------------------------------

declare -A R=()
DEPTH_ROWS=()
if [[ " $WORKLOADS " == *" depth "* ]]; then
  U=$((7000000000 + STEP * 1000000000 + BOX_IDS)) # one box per shape, so a rerun finds the same box
  log "deep box: user $U, $(thousands "$BOX_IDS") ids, through POST /v1/users/$U/pushes"
  awk -v n="$BOX_IDS" -v s="$STEP" 'BEGIN { for (i = 0; i < n; i++) printf "%.0f\n", s * i + i % s }' >"$W/box.ids"
  split -l 200000 -d -a 4 "$W/box.ids" "$W/box.part."
  t0=$(date +%s.%N)
  for part in "$W"/box.part.*; do
    { printf '{"messages":['; paste -sd, "$part" | tr -d '\n'; printf ']}'; } >"$W/body.json"
    read -r code _ < <(post "/v1/users/$U/pushes" "$W/body.json" "$W/push.out")
    [[ $code == 200 ]] || die "pushing to the deep box: $code $(head -c 300 "$W/push.out")"
  done
  LOAD_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
  pushed=$(curl -sf "$BENCH_HTTP/v1/users/$U/messages?limit=1" | jq -r .pushed)
  [[ $pushed == "$BOX_IDS" ]] || die "the deep box holds $pushed ids, expected $BOX_IDS"
  read -r row_bytes encoding < <(sql -F ' ' -c "SELECT bitmapd.value_bytes(key, bits),
           CASE WHEN octet_length(bits) = 0 THEN 'in chunk rows' ELSE bitmapd.encoding(bits) END FROM bitmapd.bitmaps
    WHERE key = convert_to('message:push:$U', 'UTF8')")
  log "loaded in ${LOAD_S}s; the push row holds $(thousands "$row_bytes") bytes ($encoding)"

  # newest first: rank r is the (BOX_IDS-1-r)-th id; the deep page starts at rank DEPTH
  PAGE=$((DEPTH / LIMIT + 1))
  first_rank=$(((PAGE - 1) * LIMIT))
  CURSOR=$(sed -n "$((BOX_IDS - first_rank + 1))p" "$W/box.ids") # the id at rank first_rank - 1
  want_first=$(tail -n "$LIMIT" "$W/box.ids" | sort -rn | paste -sd, -)
  want_deep=$(head -n $((BOX_IDS - first_rank)) "$W/box.ids" | tail -n "$LIMIT" | sort -rn | paste -sd, -)
  declare -A PATHS=(
    [first]="/v1/users/$U/messages?limit=$LIMIT"
    [page]="/v1/users/$U/messages?limit=$LIMIT&page=$PAGE"
    [cursor]="/v1/users/$U/messages?limit=$LIMIT&before=$CURSOR"
  )
  declare -A WANT=([first]=$want_first [page]=$want_deep [cursor]=$want_deep)
  declare -A DESC=(
    [first]="first page: \`?limit=$LIMIT\`"
    [page]="depth $(thousands "$first_rank") by page number: \`?limit=$LIMIT&page=$PAGE\`"
    [cursor]="depth $(thousands "$first_rank") by cursor: \`?limit=$LIMIT&before=$CURSOR\`"
  )
  for k in first page cursor; do
    got=$(curl -sf "$BENCH_HTTP${PATHS[$k]}" | jq -r '[.messages[].id] | join(",")')
    [[ $got == "${WANT[$k]}" ]] || die "${PATHS[$k]} answered ids ${got:0:80}…, expected ${WANT[$k]:0:80}…"
  done
  log "the three pages answer the expected ids; measuring ${SECS}s each, 1 connection then $CONNS"
  for c in 1 "$CONNS"; do
    t=$((c < 2 ? 1 : 2))
    for k in first page cursor; do
      SCALE_PATH=${PATHS[$k]} timeout $((SECS + 60)) wrk -t "$t" -c "$c" -d "${SECS}s" --timeout 10s \
        -s bench/scale_fixed.lua "$BENCH_HTTP" >"$W/wrk.out" 2>&1 &
      WRK_PID=$!
      wait "$WRK_PID" || die "wrk failed for ${PATHS[$k]}: $(tail -n 5 "$W/wrk.out")"
      WRK_PID=""
      for f in rps p50_ms p99_ms non2xx statuses; do R[$k.$c.$f]=$(field "$W/wrk.out" "$f"); done
      [[ ${R[$k.$c.non2xx]} == 0 ]] || die "${PATHS[$k]}: non-2xx answers (${R[$k.$c.statuses]})"
      log "  $k, $c connection(s): $(printf '%.0f' "${R[$k.$c.rps]}") req/s, p50 ${R[$k.$c.p50_ms]} ms, p99 ${R[$k.$c.p99_ms]} ms"
    done
  done
  for k in first page cursor; do
    DEPTH_ROWS+=("$(printf '| %s | %s | %s | %s | %s | %s | %s |' "${DESC[$k]}" \
      "$(thousands "$(printf '%.0f' "${R[$k.1.rps]}")")" "${R[$k.1.p50_ms]}" "${R[$k.1.p99_ms]}" \
      "$(thousands "$(printf '%.0f' "${R[$k.$CONNS.rps]}")")" "${R[$k.$CONNS.p50_ms]}" "${R[$k.$CONNS.p99_ms]}")")
  done
fi

# --- 2. fan-out ---------------------------------------------------------------------------------

FAN_ROWS=()
if [[ " $WORKLOADS " == *" fanout "* ]]; then
  M1=$((4000000000 + 2 * ($(date +%s) % 100000000)))
  USERS_SQL="SELECT convert_to('message:push:' || u, 'UTF8') AS k
    FROM generate_series($FAN_BASE::bigint, $FAN_BASE::bigint + $FAN_USERS - 1) u"
  rows_and_ids() { sql -F ' ' -c "SELECT count(*), coalesce(sum(b.cardinality), 0) FROM ($USERS_SQL) s JOIN bitmapd.bitmaps b ON b.key = s.k"; }
  nreq=$(((FAN_USERS + FAN_CHUNK - 1) / FAN_CHUNK))
  log "fan-out: $(thousands "$FAN_USERS") users from $FAN_BASE, $nreq request(s) of up to $(thousands "$FAN_CHUNK"), $FAN_PAR at a time"
  for pass in 1 2; do
    msg=$((M1 + pass - 1))
    # request bodies, written before the clock starts
    rm -f -- "$W"/fan.*.json
    awk -v base="$FAN_BASE" -v n="$FAN_USERS" -v chunk="$FAN_CHUNK" -v msg="$msg" -v dir="$W" 'BEGIN {
      for (r = 0; r * chunk < n; r++) {
        f = sprintf("%s/fan.%06d.json", dir, r)
        printf "{\"message\":%.0f,\"users\":[", msg > f
        for (i = r * chunk; i < n && i < (r + 1) * chunk; i++) printf "%s%.0f", (i > r * chunk ? "," : ""), base + i > f
        printf "]}" > f
        close(f)
      } }'
    : >"$W/fan.curl"
    first=1
    for f in "$W"/fan.*.json; do
      ((first)) || echo next >>"$W/fan.curl"
      first=0
      printf 'url = "%s/v1/pushes"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata-binary = "@%s"\noutput = "%s.out"\nwrite-out = "%%{http_code} %%{time_total}\\n"\n' \
        "$BENCH_HTTP" "$f" "$f" >>"$W/fan.curl"
    done
    read -r rows0 ids0 < <(rows_and_ids)
    t0=$(date +%s.%N)
    timeout "$TIMEOUT" curl -s --parallel --parallel-max "$FAN_PAR" --max-time "$TIMEOUT" -K "$W/fan.curl" \
      >"$W/fan.codes" 2>"$W/curl.err" || die "fan-out $pass failed or took over ${TIMEOUT}s: $(tail -n 3 "$W/curl.err")"
    t1=$(date +%s.%N)
    bad=$(awk '$1 != 200' "$W/fan.codes" | wc -l)
    ((bad == 0)) || die "fan-out $pass: $bad request(s) did not answer 200: $(cat "$W"/fan.*.json.out | head -c 300)"
    answered=$(cat "$W"/fan.*.json.out | jq -s 'map(.users) | add')
    [[ $answered == "$FAN_USERS" ]] || die "fan-out $pass: the answers count $answered users, expected $FAN_USERS"
    read -r rows1 ids1 < <(rows_and_ids)
    [[ $rows1 == "$FAN_USERS" && $((ids1 - ids0)) == "$FAN_USERS" ]] ||
      die "fan-out $pass: the users hold $rows1 push rows and $((ids1 - ids0)) more ids, expected $FAN_USERS and $FAN_USERS"
    for u in $FAN_BASE $((FAN_BASE + FAN_USERS / 2)) $((FAN_BASE + FAN_USERS - 1)); do
      [[ $(curl -sf "$BENCH_HTTP/v1/users/$u/messages/$msg" | jq -r .readable) == true ]] ||
        die "fan-out $pass: user $u does not have message $msg"
    done
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')
    rate=$(awk -v n="$FAN_USERS" -v s="$secs" 'BEGIN{printf "%.0f", n / s}')
    slowest=$(sort -k2,2n "$W/fan.codes" | tail -n 1 | awk '{printf "%.2f", $2}')
    if ((pass == 1)); then
      what="message $msg to users with no row yet ($(thousands "$rows0") of them had one)"
    else
      what="message $msg to the same users, whose rows now exist"
    fi
    R[fan.$pass.rate]=$rate
    FAN_ROWS+=("| $what | $(thousands "$FAN_USERS") | $nreq × ≤ $(thousands "$FAN_CHUNK"), $FAN_PAR at a time | $secs | $slowest | **$(thousands "$rate")** | $(verdict "$rate >= 200000") |")
    log "  fan-out $pass: $(thousands "$FAN_USERS") users in ${secs}s = $(thousands "$rate") users/s"
  done
fi

# --- the fragment -------------------------------------------------------------------------------

TOTAL_S=$(($(date +%s) - START_S))
{
  echo "## HTTP at scale: a page at depth $(thousands "$DEPTH"), a fan-out to $(thousands "$FAN_USERS") users"
  echo
  echo "\`bench/http_scale.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), ${TOTAL_S}s), against \`$BENCH_HTTP\`."
  if ((${#DEPTH_ROWS[@]} > 0)); then
    echo
    echo "One box of $(thousands "$BOX_IDS") message ids (user $U, ids ${STEP}i + i mod $STEP, loaded with $(( (BOX_IDS + 199999) / 200000 ))"
    echo "\`POST /v1/users/$U/pushes\` of up to 200,000 ids in ${LOAD_S}s; the push row holds $(thousands "$row_bytes") bytes,"
    echo "$encoding). Each request below was checked to answer the expected ids, then repeated by wrk for ${SECS}s"
    echo "(\`bench/scale_fixed.lua\`): once over 1 connection (latency), once over $CONNS (throughput)."
    echo
    echo "| \`GET /v1/users/{u}/messages\` | 1 conn: requests/s | p50 ms | p99 ms | $CONNS conns: requests/s | p50 ms | p99 ms |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${DEPTH_ROWS[@]}"
    echo
    echo "| deep page ÷ first page | p50, 1 conn | p99, 1 conn | p50, $CONNS conns | p99, $CONNS conns | throughput, $CONNS conns (first ÷ deep) | within 2× |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    for k in page cursor; do
      worst=$(awk -v a="${R[$k.1.p50_ms]}" -v b="${R[first.1.p50_ms]}" -v c="${R[$k.$CONNS.p50_ms]}" -v d="${R[first.$CONNS.p50_ms]}" \
        -v e="${R[first.$CONNS.rps]}" -v f="${R[$k.$CONNS.rps]}" 'BEGIN{ x = a / b; if (c / d > x) x = c / d; if (e / f > x) x = e / f; print x }')
      printf '| by %s | %s | %s | %s | %s | %s | %s |\n' "$([[ $k == page ]] && echo "page number" || echo cursor)" \
        "$(ratio "${R[$k.1.p50_ms]}" "${R[first.1.p50_ms]}")" "$(ratio "${R[$k.1.p99_ms]}" "${R[first.1.p99_ms]}")" \
        "$(ratio "${R[$k.$CONNS.p50_ms]}" "${R[first.$CONNS.p50_ms]}")" "$(ratio "${R[$k.$CONNS.p99_ms]}" "${R[first.$CONNS.p99_ms]}")" \
        "$(ratio "${R[first.$CONNS.rps]}" "${R[$k.$CONNS.rps]}")" "$(verdict "$worst <= 2")"
    done
    echo
    echo "\"Within 2×\" looks at the medians and the throughput; p99 over a few seconds on shared cores is noisy."
  fi
  if ((${#FAN_ROWS[@]} > 0)); then
    echo
    echo "Fan-out: \`POST /v1/pushes {\"message\": m, \"users\": [...]}\` to users $FAN_BASE … $((FAN_BASE + FAN_USERS - 1)),"
    echo "request bodies written before the clock starts, sent by one curl; seconds are from the first request"
    echo "sent to the last answer. Checked after each pass: every answer 200, the answers' \`users\` add up, the"
    echo "users' push rows gained exactly one id each (\`sum(cardinality)\`), and three users hold the message."
    echo
    echo "| fan-out | users | requests | seconds | slowest request, s | users/s | ≥ 200,000/s |"
    echo "|---|---:|---|---:|---:|---:|---|"
    printf '%s\n' "${FAN_ROWS[@]}"
  fi
} >"$W/fragment.md"
mkdir -p -- "$(dirname -- "$OUT")"
cp -- "$W/fragment.md" "$OUT"
log "done in ${TOTAL_S}s; wrote $OUT"
