#!/usr/bin/env bash
# test_sql_members.sh — checks the SQL decoder (sql/010_codec.sql) against the C codec,
# for both stored encodings (Roaring portable and dense): every fixture printed by
# tests/gen_fixtures.c (Roaring layouts) and by the dense generator below is decoded
# in PostgreSQL and compared with the values computed in C; malformed inputs must
# raise an error; rows written by a running bitmapd read back the same from SQL.
# Needs BITMAPD_DSN: a libpq conninfo for a database with migrations/0001_bitmaps.sql
# and sql/*.sql applied. Prints `ok - name` / `not ok - name: ...`; exits 1 on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/integration/lib.sh # start_service, rcli, stop_service; finish is redefined below

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
finish() {
    [ -n "${PORT:-}" ] && stop_service "$PORT"
    echo "test_sql_members: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

# expect NAME EXPECTED GOT
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected $2 got $3"; fi
}

if [ -z "${BITMAPD_DSN:-}" ]; then
    not_ok "environment: BITMAPD_DSN is not set"
    finish
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Dense fixtures: bitmaps for which codec_encode (what the service stores) picks the
# dense encoding, in the line format of tests/gen_fixtures.c plus the encoding.
cat >"$tmp/gen_dense.c" <<'C'
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

static uint32_t lcg_state = 777;
static uint32_t lcg(void) { return (lcg_state = lcg_state * 1103515245u + 12345u) >> 8; }

static void empty(roaring_bitmap_t *bm) { (void)bm; }
static void single_zero(roaring_bitmap_t *bm) { roaring_bitmap_add(bm, 0); }
static void single_max(roaring_bitmap_t *bm) { roaring_bitmap_add(bm, 4294967295u); }
/* a year of check-ins on every other day, days numbered from 1970 (day 20000 = 2024-10-04) */
static void checkin_year(roaring_bitmap_t *bm) { for (uint32_t d = 0; d < 365; d += 2) roaring_bitmap_add(bm, 20000 + d); }
static void checkin_30_days(roaring_bitmap_t *bm) { for (uint32_t d = 0; d < 30; d++) roaring_bitmap_add(bm, 20000 + d); }
/* a 200-member group receipt: read bit 2i, quit bit 2i + 1 */
static void receipt_200(roaring_bitmap_t *bm)
{
    for (uint32_t m = 0; m < 200; m++) {
        if (m % 3) roaring_bitmap_add(bm, 2 * m);
        if (m % 11 == 0) roaring_bitmap_add(bm, 2 * m + 1);
    }
}
/* two bitset-sized keys: dense raw bits cross a 65536 boundary */
static void two_keys(roaring_bitmap_t *bm)
{
    for (uint32_t v = 3 * 65536 + 5; v < 5 * 65536 - 3; v++)
        if (v % 3) roaring_bitmap_add(bm, v);
}
/* random half of the last 100,000 values, up to 2^32 - 1 (a 5-byte base varint) */
static void top(roaring_bitmap_t *bm)
{
    for (uint64_t v = 4294967296u - 100000; v < 4294967296u; v++)
        if (lcg() & 1) roaring_bitmap_add(bm, (uint32_t)v);
    roaring_bitmap_add(bm, 4294967295u);
}
/* 512 KiB of raw bits, half of them set, from 1,000,000 */
static void big(roaring_bitmap_t *bm)
{
    for (uint32_t v = 1000000; v < 1000000 + 8 * 524288; v++)
        if (lcg() & 1) roaring_bitmap_add(bm, v);
}

static const struct {
    const char *name;
    void (*build)(roaring_bitmap_t *bm);
    uint64_t lo, hi; /* count_range bounds, cutting through bytes on purpose */
} fixtures[] = {
    {"dense_empty", empty, 0, 100},
    {"dense_single_zero", single_zero, 0, 1},
    {"dense_single_max", single_max, 4294967290u, 4294967296u},
    {"dense_checkin_year", checkin_year, 20003, 20101},
    {"dense_checkin_year_in_one_byte", checkin_year, 20002, 20005},
    {"dense_checkin_year_whole_bytes", checkin_year, 20008, 20080},
    {"dense_checkin_year_outside", checkin_year, 0, 19999},
    {"dense_checkin_30_days", checkin_30_days, 20005, 20006},
    {"dense_receipt_200", receipt_200, 3, 397},
    {"dense_two_keys", two_keys, 3 * 65536 + 1234, 4 * 65536 + 77},
    {"dense_top", top, 4294967296u - 5001, 4294967296u},
    {"dense_big_512k", big, 1000003, 3000001},
};

struct totals { uint64_t sum, in_range, lo, hi; };

static bool accumulate(uint32_t value, void *param)
{
    struct totals *t = param;
    t->sum += value;
    t->in_range += value >= t->lo && value < t->hi;
    return true;
}

int main(void)
{
    for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        uint8_t *buf;
        size_t len;
        fixtures[f].build(bm);
        if (!codec_encode(bm, &buf, &len) || strcmp(codec_encoding_name(buf, len), "dense") != 0) {
            fprintf(stderr, "%s: not encoded as dense\n", fixtures[f].name);
            return 1;
        }
        struct totals t = {0, 0, fixtures[f].lo, fixtures[f].hi};
        roaring_iterate(bm, accumulate, &t);
        printf("%s\t", fixtures[f].name);
        for (size_t i = 0; i < len; i++)
            printf("%02x", buf[i]);
        printf("\t%" PRIu64 "\t", roaring_bitmap_get_cardinality(bm));
        if (roaring_bitmap_is_empty(bm))
            printf("\t\t");
        else
            printf("%" PRIu64 "\t%" PRIu32 "\t%" PRIu32, t.sum, roaring_bitmap_minimum(bm),
                   roaring_bitmap_maximum(bm));
        printf("\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\tdense\n", t.in_range, t.lo, t.hi);
        free(buf);
        roaring_bitmap_free(bm);
    }
    return ferror(stdout) ? 1 : 0;
}
C

CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Iinclude -g"
# gen_fixtures.c checks each fixture's Roaring cookie: those fixtures are there to
# cover the Roaring layouts, so they are built with codec_encode_roaring (codec_encode
# would store some of them as dense, and those are covered by gen_dense below).
# shellcheck disable=SC2086  # CFLAGS is a list of words
if ! { cc $CFLAGS -O2 -c -o "$tmp/codec.o" src/codec.c &&
    cc $CFLAGS -Dcodec_encode=codec_encode_roaring -o "$tmp/gen_fixtures" tests/gen_fixtures.c "$tmp/codec.o" -lroaring &&
    cc $CFLAGS -O2 -o "$tmp/gen_dense" "$tmp/gen_dense.c" "$tmp/codec.o" -lroaring; } 2>"$tmp/cc.err"; then
    not_ok "build gen_fixtures and gen_dense: $(tr '\n' ' ' <"$tmp/cc.err")"
    finish
fi
if ! "$tmp/gen_fixtures" | sed 's/$/\troaring/' >"$tmp/fixtures" || [ ! -s "$tmp/fixtures" ]; then
    not_ok "run gen_fixtures"
    finish
fi
if ! "$tmp/gen_dense" >>"$tmp/fixtures"; then
    not_ok "run gen_dense"
    finish
fi
ok "build and run gen_fixtures and gen_dense ($(wc -l <"$tmp/fixtures") fixtures)"

# The SQL goes through stdin: a fixture's hex can be longer than an argument may be.
sql() {
    psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1 -F '|' 2>"$tmp/psql.err"
}

check_fixture() {
    local name=$1 hex=$2 card=$3 sum=$4 min=$5 max=$6 in_range=$7 lo=$8 hi=$9 encoding=${10} out
    local bits="decode('$hex', 'hex')"
    if ! out=$(sql <<SQL
SELECT count(*), sum(m), min(m), max(m),
       coalesce(bool_and(d > 0), true),
       bitmapd.count_range($bits, $lo, $hi),
       bitmapd.count_range($bits, 0, 4294967296),
       bitmapd.count_range($bits, $lo, $lo),
       bitmapd.max_member($bits),
       bitmapd.encoding($bits),
       (SELECT coalesce(sum(cardinality), 0) FROM bitmapd.containers($bits))
FROM (SELECT m, m - lag(m) OVER () AS d FROM bitmapd.members($bits) AS m) AS s;
SQL
    ); then
        not_ok "$name: query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
        return
    fi
    local got_count got_sum got_min got_max got_asc got_range got_all got_none got_max_member
    local got_encoding got_containers
    IFS='|' read -r got_count got_sum got_min got_max got_asc got_range got_all got_none got_max_member \
        got_encoding got_containers <<<"$out"
    expect "$name count(members)" "$card" "$got_count"
    expect "$name sum(members)" "$sum" "$got_sum"
    expect "$name min(members)" "$min" "$got_min"
    expect "$name max(members)" "$max" "$got_max"
    expect "$name members ascending" "t" "$got_asc"
    expect "$name count_range [$lo, $hi)" "$in_range" "$got_range"
    expect "$name count_range everything" "$card" "$got_all"
    expect "$name count_range empty range" "0" "$got_none"
    expect "$name max_member" "$max" "$got_max_member"
    expect "$name encoding" "$encoding" "$got_encoding"
    expect "$name containers() add up to the cardinality" "$card" "$got_containers"
}

# expect_error NAME SQL: the statement must fail with the decoder's error.
expect_error() {
    if sql <<<"$2" >/dev/null; then
        not_ok "$1: expected an error, got none"
    elif grep -q 'malformed bitmap' "$tmp/psql.err"; then
        ok "$1"
    else
        not_ok "$1: expected 'malformed bitmap' got $(tr '\n' ' ' <"$tmp/psql.err")"
    fi
}

# Tabs are IFS whitespace, which would merge the empty fields of the empty bitmap.
while IFS='|' read -r name hex card sum min max in_range lo hi encoding; do
    check_fixture "$name" "$hex" "$card" "$sum" "$min" "$max" "$in_range" "$lo" "$hi" "$encoding"
done < <(tr '\t' '|' <"$tmp/fixtures")

# Malformed inputs, each through every public function.
mixed=$(awk -F'\t' '$1 == "mixed" { print $2 }' "$tmp/fixtures")
declare -A bad=(
    ["two zero bytes"]="'\\x0000'::bytea"
    ["empty bytea"]="''::bytea"
    ["bad cookie"]="'\\x3c30000000000000'::bytea"
    ["container count > 65536"]="'\\x3a30000001000100'::bytea"
    ["truncated header"]="'\\x3a30000002000000000000000100'::bytea"
    ["truncated last container"]="substring(decode('$mixed', 'hex') from 1 for $((${#mixed} / 2 - 1)))"
    ["trailing byte"]="decode('${mixed}00', 'hex')"
    ["dense: bad tag"]="'\\xb00001'::bytea"
    ["dense: tag alone"]="'\\xb1'::bytea"
    ["dense: truncated varint"]="'\\xb1ffff'::bytea"
    ["dense: non-minimal varint"]="'\\xb1800001'::bytea"
    ["dense: varint longer than 5 bytes"]="'\\xb180808080800101'::bytea"
    ["dense: base 2^32"]="'\\xb18080808002'::bytea"
    ["dense: empty with a base"]="'\\xb101'::bytea"
    ["dense: zero first raw byte"]="'\\xb1000001'::bytea"
    ["dense: zero last raw byte"]="'\\xb1000100'::bytea"
    ["dense: raw bits past 2^32"]="'\\xb1ffffffff010101'::bytea"
)
for what in "${!bad[@]}"; do
    expect_error "members rejects $what" "SELECT count(*) FROM bitmapd.members(${bad[$what]});"
    expect_error "count_range rejects $what" "SELECT bitmapd.count_range(${bad[$what]}, 0, 4294967296);"
    expect_error "max_member rejects $what" "SELECT bitmapd.max_member(${bad[$what]});"
    expect_error "containers rejects $what" "SELECT count(*) FROM bitmapd.containers(${bad[$what]});"
    expect_error "encoding rejects $what" "SELECT bitmapd.encoding(${bad[$what]});"
done

# STRICT: NULL in, nothing out.
expect "NULL bitmap has no members" "0" "$(sql <<<'SELECT count(*) FROM bitmapd.members(NULL);')"
expect "NULL bitmap has no encoding" "" "$(sql <<<'SELECT bitmapd.encoding(NULL);')"

# A stored (TOASTed) 512 KiB dense value: members() must take seconds, not minutes
# (see the performance note at the top of sql/010_codec.sql).
big=$(awk -F'\t' '$1 == "dense_big_512k" { print $2 }' "$tmp/fixtures")
big_card=$(awk -F'\t' '$1 == "dense_big_512k" { print $3 }' "$tmp/fixtures")
start_ms=$(date +%s%3N)
out=$(sql <<SQL
CREATE TEMP TABLE big AS SELECT decode('$big', 'hex') AS bits;
SELECT count(*) FROM big, bitmapd.members(big.bits);
SQL
)
took=$(($(date +%s%3N) - start_ms))
echo "# members() of a stored $((${#big} / 2))-byte dense value: ${took} ms"
expect "members() of a stored 512 KiB dense value" "$big_card" "$out"
if [ "$took" -lt 20000 ]; then ok "members() of 512 KiB dense took ${took} ms (< 20 s)"; else not_ok "members() of 512 KiB dense took ${took} ms"; fi

# ---- rows as a running bitmapd stores them ----------------------------------------
# R.SETINTARRAY writes the members through the service's write path; SQL must read
# back the same members from bitmapd.bitmaps, in the encoding the service chose.
if ! start_service >"$tmp/service.out"; then
    not_ok "start bitmapd: $(tr '\n' ' ' <"$tmp/service.out")"
    finish
fi

# service_row NAME KEY ENCODING BYTES LO HI MEMBERS...
service_row() {
    local name=$1 key=$2 encoding=$3 bytes=$4 lo=$5 hi=$6 out
    shift 6
    local want_sum=0 want_range=0 want_max=$1 m
    for m in "$@"; do
        want_sum=$((want_sum + m))
        if [ "$m" -ge "$lo" ] && [ "$m" -lt "$hi" ]; then want_range=$((want_range + 1)); fi
        if [ "$m" -gt "$want_max" ]; then want_max=$m; fi
    done
    expect "$name: R.SETINTARRAY" "OK" "$(rcli R.SETINTARRAY "$key" "$@" 2>&1)"
    out=$(sql <<SQL
SELECT bitmapd.encoding(bits), octet_length(bits), cardinality,
       (SELECT count(*) FROM bitmapd.members(bits)), (SELECT sum(m) FROM bitmapd.members(bits) m),
       bitmapd.count_range(bits, $lo, $hi), bitmapd.max_member(bits)
FROM bitmapd.bitmaps WHERE key = convert_to('$key', 'UTF8');
SQL
    )
    expect "$name: encoding, bytes, cardinality, members, sum, count_range, max_member" \
        "$encoding|$bytes|$#|$#|$want_sum|$want_range|$want_max" "$out"
    expect "$name: BITCOUNT agrees" "$#" "$(rcli BITCOUNT "$key" 2>&1)"
}

mapfile -t year < <(seq 20000 2 20364)
service_row "service: a year of every-other-day check-ins" "sqlm:checkin" dense 49 20003 20101 "${year[@]}"
mapfile -t month < <(seq 20000 20029)
service_row "service: 30 consecutive days" "sqlm:month" dense 7 20005 20006 "${month[@]}"
mapfile -t receipt < <(for m in $(seq 0 199); do echo $((2 * m)); [ $((m % 9)) -eq 0 ] && echo $((2 * m + 1)); done)
service_row "service: a 200-member receipt" "sqlm:receipt" dense 52 3 397 "${receipt[@]}"
mapfile -t sparse < <(seq 11 5479 9999000)
service_row "service: 1825 ids over 10,000,000" "sqlm:sparse" roaring 4882 123456 7654321 "${sparse[@]}"

expect "service: DEL" "1" "$(rcli DEL sqlm:checkin 2>&1)"
expect "service: a deleted key's row is B1 00" "dense|b100|0|0" \
    "$(sql <<<"SELECT bitmapd.encoding(bits), encode(bits, 'hex'), cardinality, (SELECT count(*) FROM bitmapd.members(bits)) FROM bitmapd.bitmaps WHERE key = 'sqlm:checkin'::bytea;")"

finish
