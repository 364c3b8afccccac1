#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted backquotes are Markdown code, not expansions
# shellcheck disable=SC2153 # BENCH_* come from the environment
# bench/storage.sh FRAGMENT.md — bytes stored for the seed workloads, side by side:
# bitmapd's rows in PostgreSQL, the same data in Redis (MEMORY USAGE, the seed's
# own key layout), and the same data as a row-per-event table in PostgreSQL.
# Writes a Markdown fragment (starting with "## ") to FRAGMENT.md; exits non-zero
# on any failure. bench/run.sh calls it; it runs alone as well, given the variables
# below. Each load, generated file and measurement is logged to stderr.
#
# Needs (exported by bench/run.sh, or by hand):
#   BENCH_PGURL      libpq URL or DSN of the database the bitmapd under test uses
#   BENCH_HTTP       http://127.0.0.1:PORT of that bitmapd
#   BENCH_RESP_PORT  its RESP port (127.0.0.1)
#   BENCH_REDIS_PORT a redis-server on 127.0.0.1, in memory; this script FLUSHALLs it
#   BENCH_TMP        scratch directory (files go to BENCH_TMP/storage, removed at exit)
#
# Workloads (the seeds of docs/): the data of each is generated once
# (bench/storage_gen.awk, fixed random seed) and loaded into all three stores:
#   checkin  seed 002: N users × one year of check-ins, ~50% of days; and a sparse
#            variant (K random days a month). bitmapd: one R.SETINTARRAY checkin:{u}
#            per user over RESP (the row HTTP check-ins build, docs/checkins.md).
#            Redis: SETBIT user:sign:{u}:{yyyyMM} {day-1} 1.
#   box      seed 000: 1,825 message ids spread over 10,000,000 per user, the ids of
#            bench/common.lua. bitmapd: POST /v1/users/{u}/pushes per user (HTTP),
#            which keeps a push row and an (empty) read row. Redis: SETBIT
#            message:push:{u} {id} 1, for a smaller sample (each user is ~1.3 MB).
#   receipt  seed 001: messages in 200-member groups, each member but the sender
#            has read with probability 1/2. bitmapd: R.SETINTARRAY group:{g}:msg:{m}
#            in the receipts layout (docs/receipts.md), after checking on one message
#            that HTTP (join, send, read) builds the same bytes. Redis: the seed's
#            {u32 maxid, readbit[], quitbit[]} as one bit string per message.
#   notice   seed 004: 100,000 users; notices read by 10%, 90% and 100% of them, then
#            three times 10% and 90% again (by then every reader has a read row,
#            which bitmapd keeps per user who ever read a notice; one such notice adds
#            only a page or two, hence several, reported as a mean). bitmapd: POST /v1/notices with
#            the readers as preread users (HTTP). Redis: SETBIT notice:{platform}:{id}
#            {user} 1.
#
# Check-ins and receipts are measured twice: in rows of their own (the family moved out
# with `bitmapd --buckets out` first, BENCH_BIN, as the owner), then moved into bucket
# rows with `bitmapd --buckets in` (README, "Check-ins and receipts in bucket rows": a
# new database's layout) and measured again. Each family is left in the layout it was
# found in (on for a new database; a family found moving is finished first).
#
# Keys used in bitmapd's database: checkin:{10000000+i} and checkin:{11000000+i},
# message:push|read:{20000000+i}, group:{9000000000+g}:msg:{…}, group members
# 30000000+…, notice:{4000000000+i}:*, notice:audience:65000, notice:{4100000000+i}:*,
# notice:audience:65001.
# They are left in place (loads are idempotent; the notice keys are emptied
# through RESP DEL before they are loaded again).
#
# Environment (defaults in brackets):
#   BENCH_STORAGE_WORKLOADS ["checkin box receipt notice"]
#   BENCH_STORAGE_CHECKIN_USERS [20000]   users per check-in variant (a bucket row holds 16:
#                                         fewer leave the tables' first pages a large share)
#   BENCH_STORAGE_CHECKIN_SPARSE [10]     days a month of the sparse variant (0: skip it)
#   BENCH_STORAGE_YEAR [2025]             the year of check-ins
#   BENCH_STORAGE_BOX_USERS [1000]        message boxes in bitmapd and as rows
#   BENCH_STORAGE_BOX_REDIS_USERS [100]   of those, loaded into Redis (~1.3 MB each)
#   BENCH_STORAGE_GROUPS [30]             200-member groups …
#   BENCH_STORAGE_GROUP_MESSAGES [300]    … with this many messages each
#   BENCH_STORAGE_NOTICE_USERS [100000]   users of the notice workload
#   BENCH_STORAGE_NOTICE_SHARES ["10 90 100 10 90 10 90 10 90"]  percent of the users that read
#                                         each notice, in order
#   BENCH_STORAGE_NOTICE_MANY [1000]      notices of the audience with many notices (0: skip it) …
#   BENCH_STORAGE_NOTICE_MANY_READERS [1000]  … each read by this many of the users
#   BENCH_STORAGE_SEED [1]                random seed of the generated data
#   BENCH_STORAGE_STEP_TIMEOUT [300]      seconds any one load may take
#   BENCH_STORAGE_BUCKETS [1]             measure check-ins and receipts in bucket rows too
#                                         (0: skip). Moving a family needs BENCH_BIN (the
#                                         bitmapd binary): on a new database, whose families
#                                         are in bucket rows, even with 0
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
GEN=$ROOT/bench/storage_gen.awk

die() {
  echo "storage: $*" >&2
  exit 1
}
[[ $# -eq 1 && -n $1 ]] || die "usage: bench/storage.sh FRAGMENT.md"
OUT=$(realpath -m -- "$1")   # relative to where the script was started
for v in BENCH_PGURL BENCH_HTTP BENCH_RESP_PORT BENCH_REDIS_PORT BENCH_TMP; do
  [[ -n ${!v:-} ]] || die "$v is not set (see the head of bench/storage.sh)"
done
BENCH_TMP=$(realpath -m -- "$BENCH_TMP")
cd -- "$ROOT"
for tool in psql redis-cli curl jq awk timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (make deps installs it)"
done

num() { # NAME VALUE MIN MAX: a bounded integer setting, or exit
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    echo "storage: $1 must be an integer in $3..$4, not '$2'" >&2
    exit 2
  fi
}
WORKLOADS=${BENCH_STORAGE_WORKLOADS:-checkin box receipt notice}
CI_USERS=${BENCH_STORAGE_CHECKIN_USERS:-20000}
CI_SPARSE=${BENCH_STORAGE_CHECKIN_SPARSE:-10}
YEAR=${BENCH_STORAGE_YEAR:-2025}
BOX_USERS=${BENCH_STORAGE_BOX_USERS:-1000}
BOX_REDIS=${BENCH_STORAGE_BOX_REDIS_USERS:-100}
GROUPS_N=${BENCH_STORAGE_GROUPS:-30}
GROUP_MSGS=${BENCH_STORAGE_GROUP_MESSAGES:-300}
NOTICE_USERS=${BENCH_STORAGE_NOTICE_USERS:-100000}
NOTICE_SHARES=${BENCH_STORAGE_NOTICE_SHARES:-10 90 100 10 90 10 90 10 90}
NOTICE_MANY=${BENCH_STORAGE_NOTICE_MANY:-1000}
NOTICE_MANY_READERS=${BENCH_STORAGE_NOTICE_MANY_READERS:-1000}
SEED=${BENCH_STORAGE_SEED:-1}
STEP_TIMEOUT=${BENCH_STORAGE_STEP_TIMEOUT:-300}
BUCKETS=${BENCH_STORAGE_BUCKETS:-1}
num BENCH_STORAGE_CHECKIN_USERS "$CI_USERS" 1 1000000
num BENCH_STORAGE_CHECKIN_SPARSE "$CI_SPARSE" 0 28
num BENCH_STORAGE_YEAR "$YEAR" 1970 9999
num BENCH_STORAGE_BOX_USERS "$BOX_USERS" 1 100000
num BENCH_STORAGE_BOX_REDIS_USERS "$BOX_REDIS" 1 "$BOX_USERS"
num BENCH_STORAGE_GROUPS "$GROUPS_N" 1 1000
num BENCH_STORAGE_GROUP_MESSAGES "$GROUP_MSGS" 1 100000
num BENCH_STORAGE_NOTICE_USERS "$NOTICE_USERS" 10 1000000
num BENCH_STORAGE_NOTICE_MANY "$NOTICE_MANY" 0 100000
num BENCH_STORAGE_NOTICE_MANY_READERS "$NOTICE_MANY_READERS" 1 "$NOTICE_USERS"
num BENCH_STORAGE_SEED "$SEED" 0 2147483647
num BENCH_STORAGE_STEP_TIMEOUT "$STEP_TIMEOUT" 10 3600
num BENCH_STORAGE_BUCKETS "$BUCKETS" 0 1
for w in $WORKLOADS; do
  [[ $w =~ ^(checkin|box|receipt|notice)$ ]] || die "unknown workload '$w' in BENCH_STORAGE_WORKLOADS"
done
for s in $NOTICE_SHARES; do
  num "a share of BENCH_STORAGE_NOTICE_SHARES" "$s" 1 100
  ((NOTICE_USERS * s / 100 > 0)) || die "a share of $s% of $NOTICE_USERS users reads no notice"
done

log() { printf '[storage %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
thousands() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta' <<<"$1"; }
per() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.0f", a / b; else print "–" }'; }
ratio() { # A B: A / B with 2 significant decimals below 10, 1 below 100, none above
  awk -v a="$1" -v b="$2" 'BEGIN{ if (b <= 0) { print "–"; exit } r = a / b
    if (r < 10) printf "%.2f", r; else if (r < 100) printf "%.1f", r; else printf "%.0f", r }'
}
START_S=$(date +%s)

W=$BENCH_TMP/storage
rm -rf -- "$W"
mkdir -p -- "$W"
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
  psql "$BENCH_PGURL" -X -q -c "DROP SCHEMA IF EXISTS storage_bench CASCADE" >/dev/null 2>&1 || true
  redis-cli -p "$BENCH_REDIS_PORT" FLUSHALL >/dev/null 2>&1 || true
  rm -rf -- "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

sql() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql "$BENCH_PGURL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
rcli() { redis-cli -p "$BENCH_REDIS_PORT" "$@"; }

sql -c "SELECT 1" >/dev/null || die "cannot connect to BENCH_PGURL"
[[ $(rcli PING) == PONG ]] || die "no redis-server answers on 127.0.0.1:$BENCH_REDIS_PORT"
[[ $(redis-cli -p "$BENCH_RESP_PORT" PING) == PONG ]] || die "bitmapd's RESP port $BENCH_RESP_PORT does not answer"
[[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$BENCH_HTTP/healthz" || true) == 200 ]] ||
  die "bitmapd at $BENCH_HTTP is not healthy"
REDIS_VERSION=$(rcli INFO server | sed -n 's/^redis_version:\([^[:space:]]*\).*/\1/p')
# what the server holds before its first key (its own fixed cost)
REDIS_STARTUP=$(rcli INFO memory | sed -n 's/^used_memory_startup:\([0-9]*\).*/\1/p')
sql <<'EOF'
DROP SCHEMA IF EXISTS storage_bench CASCADE;
CREATE SCHEMA storage_bench;
-- Bytes of a table as stored: the main forks of its heap, its TOAST table and all
-- their indexes (pg_total_relation_size less the free-space and visibility maps).
CREATE FUNCTION storage_bench.bytes(t regclass) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT pg_relation_size(c.oid) + coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0)
         + coalesce((SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i
                      WHERE i.indrelid IN (c.oid, c.reltoastrelid)), 0)
    FROM pg_class c WHERE c.oid = t
$$;
EOF

# --- measuring ------------------------------------------------------------------------

# pipe PORT FILE WHAT: sends a RESP command file with redis-cli --pipe; fails unless
# every command was answered without an error.
pipe() {
  local port=$1 file=$2 what=$3 expect out errors replies t0=$SECONDS
  expect=$(grep -c '^\*' "$file" || true)
  out=$(timeout "$STEP_TIMEOUT" redis-cli -p "$port" --pipe --pipe-timeout "$STEP_TIMEOUT" <"$file" 2>&1) ||
    die "loading $what on port $port failed or took over ${STEP_TIMEOUT}s: $(tail -n 3 <<<"$out")"
  read -r errors replies < <(sed -n 's/^errors: \([0-9]*\), replies: \([0-9]*\).*/\1 \2/p' <<<"$out")
  [[ ${errors:-x} == 0 && ${replies:-x} == "$expect" ]] ||
    die "loading $what on port $port: $(tail -n 1 <<<"$out") (expected $expect replies, no error)"
  log "  $what: $(thousands "$expect") commands in $((SECONDS - t0))s"
}

# redis_load FILE WHAT PATTERN: FLUSHALL, load, then prints
# "keys sum_of_MEMORY_USAGE used_memory_growth" for the keys matching PATTERN.
redis_used() { rcli INFO memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p'; }
redis_load() {
  local file=$1 what=$2 pattern=$3 m0 m1 keys usage
  rcli FLUSHALL >/dev/null
  m0=$(redis_used)
  pipe "$BENCH_REDIS_PORT" "$file" "$what into Redis"
  m1=$(redis_used)
  # shellcheck disable=SC2046
  read -r keys usage < <(rcli EVAL "local s = 0 local ks = redis.call('KEYS', ARGV[1])
      for _, k in ipairs(ks) do s = s + redis.call('MEMORY', 'USAGE', k) end
      return tostring(#ks) .. ' ' .. tostring(s)" 0 "$pattern")
  echo "$keys $usage $((m1 - m0))"
}

# bitmapd_copy KEYS_SQL: copies the rows of bitmapd.bitmaps that hold the keys in
# KEYS_SQL (a query of one bytea column k): a key's own row, or the bucket row that
# holds it when its family is in buckets (migrations/0015; each bucket once), and the
# chunk rows of those that are chunked (bitmapd.chunks, migration 0008), into fresh
# tables of the same definitions (columns, constraints, indexes), vacuums them and
# prints "keys bits sum(cardinality) bytes": keys found, bits the encoded bitmaps
# (bitmapd.value_bytes: a key's bits, or its chunks'), bytes storage_bench.bytes of
# both copies.
bitmapd_copy() {
  sql -F ' ' <<EOF
DROP TABLE IF EXISTS storage_bench.copy;
DROP TABLE IF EXISTS storage_bench.copy_chunks;
CREATE TABLE storage_bench.copy (LIKE bitmapd.bitmaps INCLUDING ALL);
CREATE TABLE storage_bench.copy_chunks (LIKE bitmapd.chunks INCLUDING ALL);
INSERT INTO storage_bench.copy
  SELECT DISTINCT ON (b.key) b.*
    FROM (SELECT b.* FROM ($1) s JOIN bitmapd.bitmaps b ON b.key = s.k AND (b.bucket IS NULL OR b.bucket < 0)
          UNION ALL
          SELECT b.* FROM ($1) s CROSS JOIN LATERAL bitmapd.bucket_of(s.k) r
            JOIN bitmapd.bitmaps b ON b.key = r.bucket_key AND b.bucket = r.family) b
   ORDER BY b.key;
INSERT INTO storage_bench.copy_chunks
  SELECT c.* FROM storage_bench.copy b JOIN bitmapd.chunks c ON c.key = b.key
   WHERE octet_length(b.bits) = 0 ORDER BY c.key, c.lo;
VACUUM (ANALYZE) storage_bench.copy;
VACUUM (ANALYZE) storage_bench.copy_chunks;
SELECT count(*), coalesce(sum(bitmapd.value_bytes(v.key, v.bits)), 0), coalesce(sum(v.cardinality), 0),
       storage_bench.bytes('storage_bench.copy') + storage_bench.bytes('storage_bench.copy_chunks')
  FROM ($1) s CROSS JOIN LATERAL bitmapd.value_of(s.k) v;
DROP TABLE storage_bench.copy;
DROP TABLE storage_bench.copy_chunks;
EOF
}
keys_of() { # PREFIX FROM COUNT [SUFFIX]: SQL for the keys PREFIX{FROM…FROM+COUNT-1}SUFFIX
  echo "SELECT convert_to('$1' || u || '${4:-}', 'UTF8') AS k FROM generate_series($2::bigint, $2::bigint + $3 - 1) u"
}

# --- bucket rows (migrations/0015, 0016) ------------------------------------------------

family_state() { sql -c "SELECT state FROM bitmapd.bucket_state WHERE name = '$1'"; }
# buckets in|out FAMILY: moves FAMILY's keys into bucket rows or out of them with
# `bitmapd --buckets` (as the owner, while the service under test serves), unless the
# family is already there; fails unless the family ends in the state asked for.
buckets() {
  local dir=$1 fam=$2 want=off state out t0=$SECONDS
  [[ $dir == in ]] && want=on
  state=$(family_state "$fam")
  [[ -n $state ]] || die "no family '$fam' in bitmapd.bucket_state (is the database migrated?)"
  [[ $state == "$want" ]] && return 0
  [[ -n ${BENCH_BIN:-} && -x $BENCH_BIN ]] ||
    die "family $fam is '$state' and moving it needs BENCH_BIN (the bitmapd binary), which is not set"
  out=$(BITMAPD_DSN=$BENCH_PGURL timeout "$STEP_TIMEOUT" "$BENCH_BIN" --buckets "$dir" "$fam" 2>&1) ||
    die "bitmapd --buckets $dir $fam failed or took over ${STEP_TIMEOUT}s: $(tail -n 3 <<<"$out")"
  state=$(family_state "$fam")
  [[ $state == "$want" ]] || die "after bitmapd --buckets $dir $fam the family is '$state', not '$want'"
  log "  bitmapd --buckets $dir $fam: $((SECONDS - t0))s"
}
# layout_of STATE: the direction that leaves a family as STATE found it (in: on or
# moving in; out: off or moving out); layout_words STATE says it for the notes.
layout_of() { [[ $1 == on || $1 == moving_in ]] && echo in || echo out; }
layout_words() { [[ $(layout_of "$1") == in ]] && echo "bucket rows" || echo "rows of their own"; }
# bucket_rows KEYS_SQL: prints "own buckets": how many of the keys have rows of their
# own (spilled ones included), and how many distinct bucket rows hold the others.
bucket_rows() {
  sql -F ' ' -c "SELECT (SELECT count(*) FROM ($1) s JOIN bitmapd.bitmaps b ON b.key = s.k),
    (SELECT count(DISTINCT r.bucket_key) FROM ($1) s CROSS JOIN LATERAL bitmapd.bucket_of(s.k) r
       JOIN bitmapd.bitmaps b ON b.key = r.bucket_key AND b.bucket = r.family)"
}

# rows_table NAME "COLUMNS" FILE "COPY COLUMNS" "CONSTRAINTS": a row-per-event table
# loaded from FILE (space-separated), then its keys/constraints, vacuumed; prints
# "rows bytes" (storage_bench.bytes). The table is dropped.
rows_table() {
  sql -F ' ' <<EOF
CREATE TABLE storage_bench.$1 ($2);
\\copy storage_bench.$1 ($4) FROM '$3' WITH (DELIMITER ' ')
ALTER TABLE storage_bench.$1 $5;
VACUUM (ANALYZE) storage_bench.$1;
SELECT count(*), storage_bench.bytes('storage_bench.$1') FROM storage_bench.$1;
DROP TABLE storage_bench.$1;
EOF
}

# Results: one line per workload row, in order.
RESULTS=()  # "label|unit|bitmapd|redis|rows" (bytes per unit)
FIRST_NOTICE="" # "share|bitmapd|redis|rows" of the first notice, then "|the same for a later notice of that share|count"
DETAILS=()  # markdown rows of the detail table
LOADED=()   # markdown bullets: what was loaded and how

result() { # LABEL UNIT BITMAPD REDIS ROWS
  RESULTS+=("$1|$2|$3|$4|$5")
}

# --- check-ins (seed 002) ---------------------------------------------------------------

FIRST_DAY=$(($(date -u -d "$YEAR-01-01" +%s) / 86400))
NDAYS=$((($(date -u -d "$((YEAR + 1))-01-01" +%s) / 86400) - FIRST_DAY))

checkin_variant() { # LABEL BASE RATE PERMONTH
  local label=$1 base=$2 rate=$3 permonth=$4 ev=$W/checkin.ev events bm rd rw bm_rows bm_bits bm_card bm_size
  local r_keys r_usage r_used rw_n rw_size u0 year_count
  awk -f "$GEN" -v mode=checkin_events -v n="$CI_USERS" -v base="$base" -v first_day="$FIRST_DAY" \
    -v ndays="$NDAYS" -v rate="$rate" -v permonth="$permonth" -v seed="$SEED" >"$ev"
  events=$(wc -l <"$ev")
  log "check-ins, $label: $(thousands "$CI_USERS") users, $(thousands "$events") check-ins"

  awk -f "$GEN" -v mode=checkin_bitmapd <"$ev" >"$W/checkin.bitmapd"
  pipe "$BENCH_RESP_PORT" "$W/checkin.bitmapd" "check-ins into bitmapd"
  read -r bm_rows bm_bits bm_card bm_size < <(bitmapd_copy "$(keys_of checkin: "$base" "$CI_USERS")")
  [[ $bm_rows == "$CI_USERS" && $bm_card == "$events" ]] ||
    die "bitmapd holds $bm_rows check-in rows with $bm_card days, expected $CI_USERS with $events"
  u0=$base
  year_count=$(curl -sf "$BENCH_HTTP/v1/users/$u0/checkins?year=$YEAR" | jq -r .count)
  [[ $year_count == $(awk -v u="$u0" '$1 == u' "$ev" | wc -l) ]] ||
    die "GET /v1/users/$u0/checkins?year=$YEAR counts $year_count days, the generated data another number"

  awk -f "$GEN" -v mode=checkin_redis <"$ev" >"$W/checkin.redis"
  read -r r_keys r_usage r_used < <(redis_load "$W/checkin.redis" "check-ins" 'user:sign:*')

  awk -f "$GEN" -v mode=checkin_rows <"$ev" >"$W/checkin.rows"
  read -r rw_n rw_size < <(rows_table checkin_rows \
    "id bigint GENERATED ALWAYS AS IDENTITY, user_id bigint NOT NULL, sign_date date NOT NULL, amount integer NOT NULL" \
    "$W/checkin.rows" "user_id, sign_date, amount" "ADD PRIMARY KEY (id), ADD UNIQUE (user_id, sign_date)")
  [[ $rw_n == "$events" ]] || die "the check-in rows table has $rw_n rows, expected $events"

  result "check-ins (002), $label, in rows of their own" "user" "$(per "$bm_size" "$CI_USERS")" "$(per "$r_usage" "$CI_USERS")" \
    "$(per "$rw_size" "$CI_USERS")"
  CV+=("$label|$base|$events|$year_count|$(per "$r_usage" "$CI_USERS")|$(per "$rw_size" "$CI_USERS")")
  DETAILS+=("| check-ins, $label | $(thousands "$CI_USERS") users, $(thousands "$events") check-ins | $(thousands "$bm_rows") keys, bits $(thousands "$(per "$bm_bits" "$CI_USERS")") B/user | $(thousands "$r_keys") keys, \`used_memory\` +$(thousands "$(per "$r_used" "$CI_USERS")") B/user | $(thousands "$rw_n") rows |")
  rm -f -- "$ev" "$W"/checkin.*
}

if [[ " $WORKLOADS " == *" checkin "* ]]; then
  CI_FOUND=$(family_state checkin)
  buckets out checkin
  CV=() # "label|base|events|year count of user base|redis per user|rows per user" of each variant
  checkin_variant "~50% of days" 10000000 0.5 0
  if ((CI_SPARSE > 0)); then
    checkin_variant "$CI_SPARSE days a month" 11000000 0 "$CI_SPARSE"
  fi
  if ((BUCKETS)); then # the same keys again, moved into bucket rows
    log "check-ins: moving the family into bucket rows"
    buckets in checkin
    for v in "${CV[@]}"; do
      IFS='|' read -r label base events year_count rd_per rw_per <<<"$v"
      ks=$(keys_of checkin: "$base" "$CI_USERS")
      read -r bm_rows bm_bits bm_card bm_size < <(bitmapd_copy "$ks")
      read -r own nbuckets < <(bucket_rows "$ks")
      [[ $bm_rows == "$CI_USERS" && $bm_card == "$events" && $own == 0 && $nbuckets -gt 0 ]] ||
        die "in bucket rows, bitmapd holds $bm_rows check-in keys with $bm_card days ($own in rows of their own, $nbuckets bucket rows), expected $CI_USERS with $events in bucket rows"
      [[ $(curl -sf "$BENCH_HTTP/v1/users/$base/checkins?year=$YEAR" | jq -r .count) == "$year_count" ]] ||
        die "in bucket rows, GET /v1/users/$base/checkins?year=$YEAR no longer counts $year_count days"
      result "check-ins (002), $label, in bucket rows (a new database's layout)" "user" "$(per "$bm_size" "$CI_USERS")" "$rd_per" "$rw_per"
      DETAILS+=("| check-ins, $label, in bucket rows | the same keys after \`bitmapd --buckets in checkin\` | $(thousands "$bm_rows") keys in $(thousands "$nbuckets") bucket rows, bits $(thousands "$(per "$bm_bits" "$CI_USERS")") B/user | as above | as above |")
    done
  fi
  buckets "$(layout_of "$CI_FOUND")" checkin
  sparse_what=""
  ((CI_SPARSE == 0)) || sparse_what=" and from 11,000,000 (exactly $CI_SPARSE random days in each month)"
  LOADED+=("- **check-ins (seed 002)**: users from 10,000,000 (~50% of the days of $YEAR, each day" \
    "  independently)$sparse_what. bitmapd:" \
    "  one \`R.SETINTARRAY checkin:{user} {day numbers}\` per user on the RESP port (the row the HTTP" \
    "  check-in API builds, docs/checkins.md; checked with \`GET …/checkins?year=\` for one user)." \
    "  Redis: \`SETBIT user:sign:{user}:{yyyyMM} {day of month − 1} 1\`. Rows: the seed's \`t_user_sign\`," \
    "  \`(id bigint identity PRIMARY KEY, user_id bigint, sign_date date, amount int /* streak */," \
    "  UNIQUE (user_id, sign_date))\`.")
  ((BUCKETS == 0)) || LOADED+=("  Then the same keys were moved into bucket rows (\`bitmapd --buckets in checkin\`, README: 16 users a" \
    "  row), measured again (\"in bucket rows\"; the Redis and row figures are the same data's), and left in" \
    "  the layout the family was found in ($(layout_words "$CI_FOUND")).")
fi

# --- sparse message box (seed 000) ----------------------------------------------------------

if [[ " $WORKLOADS " == *" box "* ]]; then
  BOX_BASE=20000000
  ev=$W/box.ev
  awk -f "$GEN" -v mode=box_events -v n="$BOX_USERS" -v base="$BOX_BASE" >"$ev"
  events=$(wc -l <"$ev")
  log "message box: $(thousands "$BOX_USERS") users × 1,825 ids through POST /v1/users/{u}/pushes"
  mkdir -p -- "$W/box"
  awk -f "$GEN" -v mode=box_bodies -v dir="$W/box" -v url="$BENCH_HTTP" <"$ev" >"$W/box.curl"
  timeout "$STEP_TIMEOUT" curl -s --parallel --parallel-max 4 -K "$W/box.curl" >"$W/box.codes" 2>"$W/curl.err" ||
    die "pushing the message boxes failed or took over ${STEP_TIMEOUT}s: $(tail -n 3 "$W/curl.err")"
  [[ $(grep -c '^200$' "$W/box.codes") == "$BOX_USERS" ]] ||
    die "pushing the message boxes: statuses $(sort "$W/box.codes" | uniq -c | tr '\n' ' ')"
  read -r bm_rows bm_bits bm_card bm_size < <(bitmapd_copy "$(keys_of message:push: "$BOX_BASE" "$BOX_USERS") UNION ALL $(keys_of message:read: "$BOX_BASE" "$BOX_USERS")")
  # a push row per user, and a read row if the service keeps one for a user who read nothing
  push_rows=$(sql -c "SELECT count(*) FROM ($(keys_of message:push: "$BOX_BASE" "$BOX_USERS")) s JOIN bitmapd.bitmaps b ON b.key = s.k")
  [[ $push_rows == "$BOX_USERS" && $bm_card == "$events" ]] ||
    die "bitmapd holds $push_rows push rows and $bm_card ids, expected $BOX_USERS and $events"

  awk -v last=$((BOX_BASE + BOX_REDIS)) '$1 < last' "$ev" | awk -f "$GEN" -v mode=box_redis >"$W/box.redis"
  read -r r_keys r_usage r_used < <(redis_load "$W/box.redis" "message boxes" 'message:push:*')
  # what one key grown in id order (as a year of pushes grows it) holds instead
  awk -v u="$BOX_BASE" '$1 == u' "$ev" | sort -k2,2n | awk '{print "SETBIT grown:" $1 " " $2 " 1"}' |
    timeout "$STEP_TIMEOUT" redis-cli -p "$BENCH_REDIS_PORT" >/dev/null
  BOX_GROWN=$(rcli MEMORY USAGE "grown:$BOX_BASE")
  BOX_STRLEN=$(rcli STRLEN "message:push:$BOX_BASE")

  read -r rw_n rw_size < <(rows_table box_rows "user_id bigint NOT NULL, message_id integer NOT NULL" \
    "$ev" "user_id, message_id" "ADD PRIMARY KEY (user_id, message_id)")
  [[ $rw_n == "$events" ]] || die "the message rows table has $rw_n rows, expected $events"
  result "sparse message box (000), 1,825 ids over 10,000,000" "user" "$(per "$bm_size" "$BOX_USERS")" \
    "$(per "$r_usage" "$BOX_REDIS")" "$(per "$rw_size" "$BOX_USERS")"
  DETAILS+=("| sparse message box | $(thousands "$BOX_USERS") users × 1,825 ids ($(thousands "$BOX_REDIS") of them in Redis) | $(thousands "$bm_rows") rows ($(thousands "$push_rows") push rows, $(thousands $((bm_rows - push_rows))) read rows), bits $(thousands "$(per "$bm_bits" "$BOX_USERS")") B/user | $(thousands "$r_keys") keys, \`used_memory\` +$(thousands "$(per "$r_used" "$BOX_REDIS")") B/user; string $(thousands "$BOX_STRLEN") B; one key grown in id order: $(thousands "$BOX_GROWN") B | $(thousands "$rw_n") rows |")
  LOADED+=("- **sparse message box (seed 000)**: users from $BOX_BASE, the ids of \`bench/common.lua\` (user" \
    "  $BOX_BASE + i gets user i's ids of \`make bench\`). bitmapd: one \`POST /v1/users/{u}/pushes\` per user" \
    "  (its push row, and its read row if the service keeps an empty one, as \`make bench\` measures)." \
    "  Redis: \`SETBIT message:push:{u} {id} 1\` for the first $(thousands "$BOX_REDIS") users. Rows:" \
    "  \`(user_id bigint, message_id int, PRIMARY KEY (user_id, message_id))\`.")
  rcli FLUSHALL >/dev/null
  rm -rf -- "$ev" "$W"/box*
fi

# --- group read receipts (seed 001) ----------------------------------------------------------

if [[ " $WORKLOADS " == *" receipt "* ]]; then
  G_BASE=9000000000
  M_BASE=9000000000000
  U_BASE=30000000
  MEMBERS=200
  MSGS=$((GROUPS_N * GROUP_MSGS))
  ev=$W/receipt.ev
  awk -f "$GEN" -v mode=receipt_events -v groups="$GROUPS_N" -v msgs="$GROUP_MSGS" -v members=$MEMBERS \
    -v gbase=$G_BASE -v mbase=$M_BASE -v rate=0.5 -v seed="$SEED" >"$ev"
  reads=$(grep -c ' R$' "$ev" || true)
  RC_FOUND=$(family_state receipt)
  buckets out receipt
  log "receipts: $(thousands "$GROUPS_N") groups × $(thousands "$GROUP_MSGS") messages, $(thousands "$reads") read marks"

  # One message through HTTP first: members join group G_BASE in member-id order,
  # the first message is sent and its readers mark it; the RESP load below must
  # then leave the row's bytes as they are.
  rm -f -- "$W/join.curl" "$W/reads.curl"
  sender=$(awk -f "$GEN" -v mode=receipt_http -v dir="$W" -v url="$BENCH_HTTP" -v gbase=$G_BASE -v mbase=$M_BASE \
    -v ubase=$U_BASE <"$ev")
  timeout "$STEP_TIMEOUT" curl -s -K "$W/join.curl" >"$W/join.codes" 2>"$W/curl.err" ||
    die "joining group $G_BASE failed: $(tail -n 3 "$W/curl.err")"
  [[ $(grep -c '^20[01]$' "$W/join.codes") == "$MEMBERS" ]] ||
    die "joining group $G_BASE: statuses $(sort "$W/join.codes" | uniq -c | tr '\n' ' ')"
  code=$(curl -s -o "$W/send.json" -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
    -d "{\"message\":$M_BASE,\"sender\":$sender}" "$BENCH_HTTP/v1/groups/$G_BASE/messages")
  [[ $code == 201 || $code == 200 ]] || die "sending message $M_BASE through HTTP: $code $(cat "$W/send.json")"
  timeout "$STEP_TIMEOUT" curl -s -K "$W/reads.curl" >"$W/reads.codes" 2>"$W/curl.err" ||
    die "marking message $M_BASE read failed: $(tail -n 3 "$W/curl.err")"
  [[ $(grep -vc '^200$' "$W/reads.codes" || true) == 0 ]] ||
    die "marking message $M_BASE read: statuses $(sort "$W/reads.codes" | uniq -c | tr '\n' ' ')"
  RKEY="group:$G_BASE:msg:$M_BASE"
  http_bits=$(sql -c "SELECT encode(bitmapd.value(key, bits), 'hex') FROM bitmapd.bitmaps WHERE key = convert_to('$RKEY', 'UTF8')")

  awk -f "$GEN" -v mode=receipt_bitmapd -v members=$MEMBERS <"$ev" >"$W/receipt.bitmapd"
  pipe "$BENCH_RESP_PORT" "$W/receipt.bitmapd" "receipts into bitmapd"
  [[ $(sql -c "SELECT encode(bitmapd.value(key, bits), 'hex') FROM bitmapd.bitmaps WHERE key = convert_to('$RKEY', 'UTF8')") == "$http_bits" ]] ||
    die "the receipts row $RKEY built through HTTP differs from the same bitmap loaded through RESP"
  read -r elig rd < <(curl -sf "$BENCH_HTTP/v1/groups/$G_BASE/messages/$M_BASE/receipts?list=read&limit=1" | jq -r '"\(.eligible) \(.read)"')
  [[ "$elig $rd" == "$((MEMBERS - 1)) $(grep -c "^$G_BASE $M_BASE [0-9]* R\$" "$ev")" ]] ||
    die "receipts of $RKEY over HTTP: eligible $elig read $rd, not what was generated"
  read -r bm_rows bm_bits bm_card bm_size < <(bitmapd_copy "SELECT convert_to('group:' || g || ':msg:' || m, 'UTF8') AS k
      FROM generate_series($G_BASE::bigint, $G_BASE::bigint + $GROUPS_N - 1) g,
           generate_series($M_BASE::bigint, $M_BASE::bigint + $GROUP_MSGS - 1) m")
  [[ $bm_rows == "$MSGS" && $bm_card == $((MSGS * MEMBERS + reads)) ]] ||
    die "bitmapd holds $bm_rows receipt rows with $bm_card members, expected $MSGS with $((MSGS * MEMBERS + reads))"

  awk -f "$GEN" -v mode=receipt_redis -v members=$MEMBERS <"$ev" >"$W/receipt.redis"
  read -r r_keys r_usage r_used < <(redis_load "$W/receipt.redis" "receipts" 'group:*')
  r_strlen=$(rcli STRLEN "$RKEY")

  awk -f "$GEN" -v mode=receipt_rows -v members=$MEMBERS -v gbase=$G_BASE -v ubase=$U_BASE <"$ev" >"$W/receipt.rows"
  read -r rw_n rw_size < <(rows_table receipt_rows \
    "group_id bigint NOT NULL, message_id bigint NOT NULL, user_id bigint NOT NULL, read_at timestamptz" \
    "$W/receipt.rows" "group_id, message_id, user_id, read_at" "ADD PRIMARY KEY (group_id, message_id, user_id)")
  [[ $rw_n == $((MSGS * (MEMBERS - 1))) ]] || die "the receipt rows table has $rw_n rows, expected $((MSGS * (MEMBERS - 1)))"
  result "200-member group receipts (001), ~half read, in rows of their own" "message" "$(per "$bm_size" "$MSGS")" \
    "$(per "$r_usage" "$MSGS")" "$(per "$rw_size" "$MSGS")"
  DETAILS+=("| group receipts | $(thousands "$MSGS") messages in $(thousands "$GROUPS_N") groups of $MEMBERS, $(thousands "$reads") read marks | $(thousands "$bm_rows") keys, bits $(thousands "$(per "$bm_bits" "$MSGS")") B/message | $(thousands "$r_keys") keys of $r_strlen B, \`used_memory\` +$(thousands "$(per "$r_used" "$MSGS")") B/message | $(thousands "$rw_n") rows |")
  if ((BUCKETS)); then # the same keys again, moved into bucket rows
    log "receipts: moving the family into bucket rows"
    buckets in receipt
    ks="SELECT convert_to('group:' || g || ':msg:' || m, 'UTF8') AS k
      FROM generate_series($G_BASE::bigint, $G_BASE::bigint + $GROUPS_N - 1) g,
           generate_series($M_BASE::bigint, $M_BASE::bigint + $GROUP_MSGS - 1) m"
    read -r bm_rows bm_bits bm_card bm_size < <(bitmapd_copy "$ks")
    read -r own nbuckets < <(bucket_rows "$ks")
    [[ $bm_rows == "$MSGS" && $bm_card == $((MSGS * MEMBERS + reads)) && $own == 0 && $nbuckets -gt 0 ]] ||
      die "in bucket rows, bitmapd holds $bm_rows receipt keys with $bm_card members ($own in rows of their own, $nbuckets bucket rows), expected $MSGS with $((MSGS * MEMBERS + reads)) in bucket rows"
    read -r elig2 rd2 < <(curl -sf "$BENCH_HTTP/v1/groups/$G_BASE/messages/$M_BASE/receipts?list=read&limit=1" | jq -r '"\(.eligible) \(.read)"')
    [[ "$elig2 $rd2" == "$elig $rd" ]] ||
      die "in bucket rows, receipts of $RKEY over HTTP: eligible $elig2 read $rd2, before the move $elig $rd"
    result "200-member group receipts (001), ~half read, in bucket rows (a new database's layout)" "message" "$(per "$bm_size" "$MSGS")" \
      "$(per "$r_usage" "$MSGS")" "$(per "$rw_size" "$MSGS")"
    DETAILS+=("| group receipts, in bucket rows | the same keys after \`bitmapd --buckets in receipt\` | $(thousands "$bm_rows") keys in $(thousands "$nbuckets") bucket rows, bits $(thousands "$(per "$bm_bits" "$MSGS")") B/message | as above | as above |")
  fi
  buckets "$(layout_of "$RC_FOUND")" receipt
  LOADED+=("- **group receipts (seed 001)**: groups from $G_BASE with members $U_BASE + …, every member but the" \
    "  sender counted, each read with probability ½. bitmapd: \`R.SETINTARRAY group:{g}:msg:{m}\` with the" \
    "  receipts layout (bit 2k counted, 2k+1 read, 2s+1 the sender); the first message was built first through" \
    "  HTTP (200 joins, a send, its read marks) and the RESP load left its bytes unchanged. Redis: the seed's" \
    "  \`{u32 maxid, readbit[200], quitbit[200]}\` as one string per message under the same key (\`SETBIT\`," \
    "  \`BITFIELD SET u32 0 200\`). Rows: \`(group_id, message_id, user_id bigint, read_at timestamptz NULL," \
    "  PRIMARY KEY (group_id, message_id, user_id))\`, one per counted member.")
  ((BUCKETS == 0)) || LOADED+=("  Then moved into bucket rows (\`bitmapd --buckets in receipt\`), measured again and left as found ($(layout_words "$RC_FOUND")), as the check-ins.")
  rcli FLUSHALL >/dev/null
  rm -f -- "$ev" "$W"/receipt.* "$W"/*.curl "$W"/*.codes
fi

# --- notices (seed 004) ------------------------------------------------------------------------

if [[ " $WORKLOADS " == *" notice "* ]]; then
  # notice_load NBASE AUD EVENTS LABEL: empties what an earlier run left of the
  # notices in EVENTS ("nid uid", sorted), creates them through HTTP (readers as
  # preread), loads them into Redis, and measures. Sets NL_BM (the copy of the
  # notices' rows and the audience index), NL_RD (sum of MEMORY USAGE), NL_RW (the
  # row table), NL_OWN (sum of the readers bitmaps' bytes), NL_USED (Redis
  # used_memory growth), NL_N (notices).
  notice_load() {
    local nbase=$1 aud=$2 ev=$3 label=$4 each=${5:-} nn stale nid readers st f k prev_bm prev_rw m0 m1 rw
    nn=$(awk '{print $1}' "$ev" | sort -u | wc -l)
    own_sql() { # the keys of notices nbase … nbase+$1-1 and the index
      echo "SELECT convert_to('notice:' || n || ':' || p, 'UTF8') AS k
        FROM generate_series($nbase::bigint, $nbase::bigint + $1 - 1) n, unnest(ARRAY['audiences', 'readers']) p
      UNION ALL SELECT convert_to('notice:audience:$aud', 'UTF8')"
    }
    stale=$(sql -c "SELECT convert_from(b.key, 'UTF8') FROM ($(own_sql "$nn")) s JOIN bitmapd.bitmaps b ON b.key = s.k
                     WHERE b.cardinality > 0")
    if [[ -n $stale ]]; then
      log "$label: emptying the $(wc -l <<<"$stale") notice keys an earlier run left (RESP DEL)"
      awk '{ k[++n] = $0 } n == 1000 { printf "DEL"; for (i = 1; i <= n; i++) printf " %s", k[i]; print ""; n = 0 }
           END { if (n) { printf "DEL"; for (i = 1; i <= n; i++) printf " %s", k[i]; print "" } }' <<<"$stale" |
        timeout "$STEP_TIMEOUT" redis-cli -p "$BENCH_RESP_PORT" >"$W/del.out"
      ! grep -qv '^[0-9]*$' "$W/del.out" || die "emptying the notice keys: $(grep -v '^[0-9]*$' "$W/del.out" | head -n 3)"
    fi
    rm -rf -- "$W/notice"
    mkdir -p -- "$W/notice"
    awk -f "$GEN" -v mode=notice_bodies -v dir="$W/notice" -v aud="$aud" <"$ev" >"$W/notice.files"
    rcli FLUSHALL >/dev/null
    if [[ -n $each ]]; then # one notice at a time, each measured
      NL_EACH_BM=() NL_EACH_RD=() NL_EACH_RW=() NL_EACH_OWN=()
      read -r _ _ _ prev_bm < <(bitmapd_copy "$(own_sql 0) WHERE false")
      sql -c "CREATE TABLE storage_bench.notice_rows (notice_id bigint NOT NULL, user_id bigint NOT NULL,
                read_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (notice_id, user_id))"
      prev_rw=$(sql -c "VACUUM storage_bench.notice_rows" -c "SELECT storage_bench.bytes('storage_bench.notice_rows')")
      k=0
      while read -r f; do
        nid=${f##*/notice-}
        nid=${nid%.json}
        ((nid == nbase + k)) || die "$label: notice body $f out of order (expected notice $((nbase + k)))"
        st=$(timeout "$STEP_TIMEOUT" curl -s -o "$W/notice.out" -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
          --data-binary "@$f" "$BENCH_HTTP/v1/notices" || true)
        [[ $st == 201 ]] || die "$label: creating notice $nid: $st $(head -c 300 "$W/notice.out" 2>/dev/null)"
        read -r _ _ _ NL_BM < <(bitmapd_copy "$(own_sql $((k + 1)))")
        NL_EACH_BM[k]=$((NL_BM - prev_bm))
        prev_bm=$NL_BM
        NL_EACH_OWN[k]=$(sql -c "SELECT bitmapd.value_bytes(key, bits) FROM bitmapd.bitmaps WHERE key = convert_to('notice:$nid:readers', 'UTF8')")
        awk -v n="$nid" '$1 == n' "$ev" >"$W/notice.rows"
        awk -f "$GEN" -v mode=notice_redis -v aud="$aud" <"$W/notice.rows" >"$W/notice.one"
        pipe "$BENCH_REDIS_PORT" "$W/notice.one" "notice $nid into Redis"
        NL_EACH_RD[k]=$(rcli MEMORY USAGE "notice:$aud:$nid")
        rw=$(sql -c "\\copy storage_bench.notice_rows (notice_id, user_id) FROM '$W/notice.rows' WITH (DELIMITER ' ')" \
          -c "VACUUM (ANALYZE) storage_bench.notice_rows" -c "SELECT storage_bench.bytes('storage_bench.notice_rows')")
        NL_EACH_RW[k]=$((rw - prev_rw))
        prev_rw=$rw
        k=$((k + 1))
      done <"$W/notice.files"
      sql -c "DROP TABLE storage_bench.notice_rows"
    else # all at once, measured together
      : >"$W/notice.cfg"
      while read -r f; do
        printf 'url = "%s/v1/notices"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata-binary = "@%s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
          "$BENCH_HTTP" "$f" >>"$W/notice.cfg"
        echo next >>"$W/notice.cfg"
      done <"$W/notice.files"
      sed -i '$d' "$W/notice.cfg" # no "next" after the last entry
      timeout "$STEP_TIMEOUT" curl -s -K "$W/notice.cfg" >"$W/notice.codes" || true
      [[ $(grep -c '^201$' "$W/notice.codes") == "$nn" ]] ||
        die "$label: creating $nn notices answered $(sort "$W/notice.codes" | uniq -c | tr '\n' ' ')"
      read -r _ _ _ NL_BM < <(bitmapd_copy "$(own_sql "$nn")")
      NL_OWN=$(sql -c "SELECT sum(bitmapd.value_bytes(b.key, b.bits)) FROM ($(own_sql "$nn")) s JOIN bitmapd.bitmaps b ON b.key = s.k
                        WHERE convert_from(b.key, 'UTF8') LIKE '%:readers'")
      awk -f "$GEN" -v mode=notice_redis -v aud="$aud" <"$ev" >"$W/notice.redis"
      m0=$(redis_used)
      pipe "$BENCH_REDIS_PORT" "$W/notice.redis" "$label into Redis"
      m1=$(redis_used)
      NL_USED=$((m1 - m0))
      NL_RD=$(for ((nid = nbase; nid < nbase + nn; nid++)); do echo "MEMORY USAGE notice:$aud:$nid"; done |
        redis-cli -p "$BENCH_REDIS_PORT" | awk '{ s += $1 } END { printf "%.0f", s }')
      read -r _ NL_RW < <(rows_table notice_rows "notice_id bigint NOT NULL, user_id bigint NOT NULL,
        read_at timestamptz NOT NULL DEFAULT now()" "$ev" "notice_id, user_id" "ADD PRIMARY KEY (notice_id, user_id)")
    fi
    for nid in $nbase $((nbase + nn - 1)); do # the first and the last notice, checked
      readers=$(awk -v n="$nid" '$1 == n' "$ev" | wc -l)
      st=$(curl -sf "$BENCH_HTTP/v1/notices/$nid/stats" | jq -r .readers) || die "$label: stats of notice $nid failed"
      [[ $st == "$readers" ]] || die "$label: notice $nid: stats say $st readers, expected $readers"
    done
    NL_N=$nn
    rcli FLUSHALL >/dev/null
  }

  # (a) notices read by 10%, 90%, 100% of the users, created one after the other in
  # one audience. After each, a copy of the rows of the notices so far (and the
  # index) is measured: its growth is that notice's cost. The first notice also pays
  # the first pages of every table and index, so it is reported apart; the others
  # are averaged per share.
  N_BASE=4000000000
  AUD=65000
  read -ra SHARES <<<"$NOTICE_SHARES"
  NN=${#SHARES[@]}
  ev=$W/notice.ev
  awk -f "$GEN" -v mode=notice_events -v n="$NOTICE_USERS" -v nbase=$N_BASE -v shares="$NOTICE_SHARES" \
    -v seed="$SEED" >"$ev"
  log "notices: $(thousands "$NOTICE_USERS") users, $NN notices read by ${NOTICE_SHARES// /%, }%"
  notice_load "$N_BASE" "$AUD" "$ev" "$NN notices" each
  declare -A S_N=() S_BM=() S_RD=() S_RW=() S_OWN=()
  for ((i = 1; i < NN; i++)); do
    sh=${SHARES[$i]}
    S_N[$sh]=$((${S_N[$sh]:-0} + 1)) S_BM[$sh]=$((${S_BM[$sh]:-0} + NL_EACH_BM[i]))
    S_RD[$sh]=$((${S_RD[$sh]:-0} + NL_EACH_RD[i])) S_RW[$sh]=$((${S_RW[$sh]:-0} + NL_EACH_RW[i]))
    S_OWN[$sh]=$((${S_OWN[$sh]:-0} + NL_EACH_OWN[i]))
  done
  # The first notice is not an event like the others: its copy starts the tables, so
  # it pays their first pages, once. It is set apart (the fragment's "paid once"),
  # next to a later notice of the same share, whose mean is the per-notice figure.
  FIRST_NOTICE="${SHARES[0]}|${NL_EACH_BM[0]}|${NL_EACH_RD[0]}|${NL_EACH_RW[0]}"
  DETAILS+=("| notice 1, ${SHARES[0]}% | $(thousands $((NOTICE_USERS * SHARES[0] / 100))) readers | its readers bitmap: $(thousands "${NL_EACH_OWN[0]}") B; the copy grew by $(thousands "${NL_EACH_BM[0]}") B | 1 key | $(thousands $((NOTICE_USERS * SHARES[0] / 100))) rows |")
  for sh in $(printf '%s\n' "${!S_N[@]}" | sort -n); do
    n=${S_N[$sh]}
    [[ $sh == "${SHARES[0]}" ]] &&
      FIRST_NOTICE+="|$(per "${S_BM[$sh]}" "$n")|$(per "${S_RD[$sh]}" "$n")|$(per "${S_RW[$sh]}" "$n")|$n"
    result "notice (004) read by $sh% of $(thousands "$NOTICE_USERS") users (mean of $n)" "notice" \
      "$(per "${S_BM[$sh]}" "$n")" "$(per "${S_RD[$sh]}" "$n")" "$(per "${S_RW[$sh]}" "$n")"
    DETAILS+=("| $n notices of $sh% | $(thousands $((NOTICE_USERS * sh / 100))) readers each | readers bitmaps: $(thousands "$(per "${S_OWN[$sh]}" "$n")") B a notice; the copy grew by $(thousands "$(per "${S_BM[$sh]}" "$n")") B a notice | $n keys | $(thousands $((NOTICE_USERS * sh / 100))) rows each |")
  done
  LOADED+=("- **notices (seed 004)**: users 0 … $(thousands $((NOTICE_USERS - 1))), notices $N_BASE + i in audience $AUD, read by" \
    "  exactly ${NOTICE_SHARES// /%, }% of the users (chosen at random, independently per notice), in that order." \
    "  bitmapd: one \`POST /v1/notices\` per notice with the readers as \`preread\`: the notice's rows and the" \
    "  audience index (docs/notices.md: nothing is kept per user); after each notice, a copy of the rows of the" \
    "  notices so far and the index is measured, and its growth is the notice's figure. Redis:" \
    "  \`SETBIT notice:{platform}:{id} {user} 1\`, \`MEMORY USAGE\` of the notice's key. Rows: \`(notice_id, user_id" \
    "  bigint, read_at timestamptz, PRIMARY KEY (notice_id, user_id))\`, one per reader, the growth of that table.")

  # (b) an audience with many notices, each read by a few of the users
  if ((NOTICE_MANY > 0)); then
    M_BASE=4100000000
    awk -f "$GEN" -v mode=notice_many -v n="$NOTICE_USERS" -v nbase=$M_BASE -v count="$NOTICE_MANY" \
      -v readers="$NOTICE_MANY_READERS" -v seed="$SEED" | sort -n -k1,1 -k2,2 >"$W/notice.many"
    log "notices: $(thousands "$NOTICE_MANY") notices in one audience, each read by $(thousands "$NOTICE_MANY_READERS") users"
    notice_load "$M_BASE" 65001 "$W/notice.many" "$NOTICE_MANY notices"
    result "notice (004): an audience of $(thousands "$NOTICE_MANY") notices, each read by $(thousands "$NOTICE_MANY_READERS") of $(thousands "$NOTICE_USERS") users" \
      "notice" "$(per "$NL_BM" "$NL_N")" "$(per "$NL_RD" "$NL_N")" "$(per "$NL_RW" "$NL_N")"
    DETAILS+=("| $(thousands "$NOTICE_MANY") notices | $(thousands $((NOTICE_MANY * NOTICE_MANY_READERS))) reads | readers bitmaps: $(thousands "$(per "$NL_OWN" "$NL_N")") B a notice; the copy of all the notices' rows and the index: $(thousands "$NL_BM") B | $(thousands "$NL_N") keys; \`used_memory\` +$(thousands "$(per "$NL_USED" "$NL_N")") B a notice | $(thousands $((NOTICE_MANY * NOTICE_MANY_READERS))) rows |")
    LOADED+=("- **an audience of $(thousands "$NOTICE_MANY") notices (seed 004)**: notices $M_BASE + i in audience 65001, each read" \
      "  by $(thousands "$NOTICE_MANY_READERS") users of 0 … $(thousands $((NOTICE_USERS - 1))) chosen at random; loaded and measured as above.")
  fi
  rm -rf -- "$ev" "$W"/notice*
fi

# --- the fragment -------------------------------------------------------------------------------

TOTAL_S=$(($(date +%s) - START_S))
verdict() { # OK? as a mark
  if awk "BEGIN{exit !($1)}"; then echo "yes"; else echo "**no**"; fi
}
{
  echo "## Storage: bytes per user, bitmapd against Redis and a row per event"
  echo
  echo "\`bench/storage.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), ${TOTAL_S}s). Each workload's data is generated once"
  echo "(\`bench/storage_gen.awk\`, seed $SEED) and loaded into the three stores, then measured:"
  echo
  echo "- bitmapd: exactly the workload's rows of \`bitmapd.bitmaps\` (its keys' own rows, or the bucket rows that"
  echo "  hold them when their family is in buckets, migrations/0015; and the chunk rows of those longer than"
  echo "  8 KiB, \`bitmapd.chunks\`), copied into fresh tables of the same definitions and vacuumed; their heap,"
  echo "  TOAST tables and indexes (the primary key and the expiry index, which holds only keys with a deadline;"
  echo "  the chunks' key and range)."
  echo "- Redis $REDIS_VERSION: the sum of \`MEMORY USAGE\` of the workload's keys."
  echo "- row per event: a table of the schema below in the same database, vacuumed; its heap, TOAST"
  echo "  table and indexes."
  echo
  echo "Table sizes are \`pg_total_relation_size\` without the free-space and visibility maps (about 32 KB"
  echo "per table whatever its size, which would make a per-user figure depend on the sample size)."
  echo
  echo "| workload (seed) | per | bitmapd in PostgreSQL | Redis \`MEMORY USAGE\` | row per event | Redis ÷ bitmapd | rows ÷ bitmapd | bitmapd ≤ Redis | bitmapd ≤ rows ÷ 20 |"
  echo "|---|---|---:|---:|---:|---:|---:|---|---|"
  for r in "${RESULTS[@]}"; do
    IFS='|' read -r label unit bm rd rw <<<"$r"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$unit" "$(thousands "$bm")" \
      "$(thousands "$rd")" "$(thousands "$rw")" "$(ratio "$rd" "$bm")" "$(ratio "$rw" "$bm")" \
      "$(verdict "$bm <= $rd")" "$(verdict "$bm * 20 <= $rw")"
  done
  if [[ $(tr -cd '|' <<<"$FIRST_NOTICE" | wc -c) == 7 ]]; then
    IFS='|' read -r sh fbm frd frw lbm lrd lrw ln <<<"$FIRST_NOTICE"
    echo
    echo "**Paid once: the first notice.** It is not in the table above. The copy of its rows starts"
    echo "the copied tables, so its growth holds the first page (8 KiB) of each table and index"
    echo "that a notice uses. A database pays these pages once, for whatever it stores first; in a"
    echo "live database other keys have started those tables already. Here it is beside the later"
    echo "notices of the same share:"
    echo
    echo "| store | the first notice, read by $sh% | a later notice read by $sh% (mean of $ln) | paid once |"
    echo "|---|---:|---:|---:|"
    echo "| bitmapd | $(thousands "$fbm") | $(thousands "$lbm") | $(thousands $((fbm - lbm))) |"
    echo "| Redis \`MEMORY USAGE\` | $(thousands "$frd") | $(thousands "$lrd") | $(thousands $((frd - lrd))); the server holds $(thousands "${REDIS_STARTUP:-0}") B (\`used_memory_startup\`) before its first key |"
    echo "| row per event | $(thousands "$frw") | $(thousands "$lrw") | $(thousands $((frw - lrw))) |"
  fi
  echo
  echo "What was loaded:"
  echo
  printf '%s\n' "${LOADED[@]}"
  echo
  echo "| workload | data | bitmapd | Redis | row per event |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${DETAILS[@]}"
  echo
  echo "- Redis keys were written highest bit first, so each string was allocated once, at its final length:"
  echo "  the Redis column is the least memory Redis holds the data in. A key that \`SETBIT\` grows bit by bit,"
  echo "  as a live system grows it, can hold more (see \"grown in id order\" above for one message box)."
  echo "- \"bits\" is \`sum(bitmapd.value_bytes(key, bits))\`: the encoded bitmaps alone (a row's bits, or its chunks') (Roaring, or raw bits where"
  echo "  smaller, docs/design.md). The rest of a bitmapd row is the tuple header, the key (in the heap and"
  echo "  in the primary key), version, cardinality, checksum and timestamps; a bucket row pays them once for"
  echo "  up to 16 keys, whose versions and lengths sit in a directory in its value."
  echo "- A notice's Redis key is a string of the seed's layout: one bit per user up to its highest reader, so"
  echo "  about 12.5 KB at 100,000 users however few read it. bitmapd keeps a notice's readers in its smaller"
  echo "  encoding (Roaring containers for few readers, raw bits for many; chunk rows past 8 KiB) and nothing"
  echo "  per user (docs/notices.md)."
} >"$W/fragment.md"
mkdir -p -- "$(dirname -- "$OUT")"
cp -- "$W/fragment.md" "$OUT"
log "done in ${TOTAL_S}s; wrote $OUT"
