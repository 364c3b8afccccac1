#!/usr/bin/env bash
# test_sql_members.sh — checks the SQL decoder (sql/010_codec.sql) against the C codec,
# for the stored encodings (Roaring portable, dense, and gaps for chunk rows): every fixture printed by
# tests/gen_fixtures.c (Roaring layouts) and by the dense generator below is decoded
# in PostgreSQL and compared with the values computed in C; malformed inputs must
# raise an error; rows written by a running bitmapd read back the same from SQL.
# bitmapd.to_roaring (the export for other Roaring readers) is checked on every
# fixture and on rows the service wrote over HTTP and RESP: in SQL (Roaring, same
# members) and in C by check_roaring below (codec_validate, same bitmap, and the very
# bytes CRoaring writes without run containers). check_roaring is built here with
# cc against the codec (src/store/codec*.c), like the generators: tools in tests/tools/
# are linked with -lhiredis only by the Makefile.
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

#include "store/codec.h"

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

/* one key of 4096 members (an array when exported) next to one of 4097 (a bitset),
 * each spanning its whole key, so raw bits stay smaller than Roaring */
static void card_4096_4097(roaring_bitmap_t *bm)
{
    for (uint32_t k = 7; k <= 8; k++) {
        roaring_bitmap_add(bm, k << 16);
        roaring_bitmap_add(bm, k << 16 | 0xFFFF);
        while (roaring_bitmap_range_cardinality(bm, (uint64_t)k << 16, ((uint64_t)k + 1) << 16) < (k == 7 ? 4096u : 4097u))
            roaring_bitmap_add(bm, k << 16 | (lcg() & 0xFFFF));
    }
}
/* 512 KiB of raw bits holding 64 keys of 4096 members: the most array members a
 * dense value of that size can have (with more it would be a bitset or Roaring) */
static void arrays_512k(roaring_bitmap_t *bm)
{
    for (uint32_t k = 16; k < 16 + 64; k++) {
        roaring_bitmap_add(bm, k << 16);
        roaring_bitmap_add(bm, k << 16 | 0xFFFF);
        while (roaring_bitmap_range_cardinality(bm, (uint64_t)k << 16, ((uint64_t)k + 1) << 16) < 4096)
            roaring_bitmap_add(bm, k << 16 | (lcg() & 0xFFFF));
    }
}

/* gaps (chunk rows): 10% of one key (a bitset when exported), 90% across two keys
 * (complement), 90% up to 2^32 - 1, 300 members over the whole range (arrays), single
 * members at both ends */
static void tenth(roaring_bitmap_t *bm)
{
    for (uint32_t v = 0; v < 65536; v++)
        if (lcg() % 10 == 0) roaring_bitmap_add(bm, v);
    roaring_bitmap_add(bm, 0);
}
static void ninety_two_keys(roaring_bitmap_t *bm)
{
    for (uint32_t v = 3 * 65536 + 100; v < 4 * 65536 + 30000; v++)
        if (lcg() % 10) roaring_bitmap_add(bm, v);
}
static void ninety_top(roaring_bitmap_t *bm)
{
    for (uint64_t v = 4294967296u - 70000; v < 4294967296u; v++)
        if (lcg() % 10) roaring_bitmap_add(bm, (uint32_t)v);
    roaring_bitmap_add(bm, 4294967295u);
}
static void wide(roaring_bitmap_t *bm)
{
    for (int i = 0; i < 300; i++) roaring_bitmap_add(bm, lcg() * 256u + (lcg() & 255));
}

static const struct {
    const char *name;
    void (*build)(roaring_bitmap_t *bm);
    uint64_t lo, hi; /* count_range bounds, cutting through bytes on purpose */
    bool gaps;       /* written in the gaps encoding (as chunk rows are), not codec_encode's */
} fixtures[] = {
    {"dense_empty", empty, 0, 100, false},
    {"dense_single_zero", single_zero, 0, 1, false},
    {"dense_single_max", single_max, 4294967290u, 4294967296u, false},
    {"dense_checkin_year", checkin_year, 20003, 20101, false},
    {"dense_checkin_year_in_one_byte", checkin_year, 20002, 20005, false},
    {"dense_checkin_year_whole_bytes", checkin_year, 20008, 20080, false},
    {"dense_checkin_year_outside", checkin_year, 0, 19999, false},
    {"dense_checkin_30_days", checkin_30_days, 20005, 20006, false},
    {"dense_receipt_200", receipt_200, 3, 397, false},
    {"dense_two_keys", two_keys, 3 * 65536 + 1234, 4 * 65536 + 77, false},
    {"dense_top", top, 4294967296u - 5001, 4294967296u, false},
    {"dense_big_512k", big, 1000003, 3000001, false},
    {"dense_card_4096_4097", card_4096_4097, 7 * 65536 + 4321, 8 * 65536 + 1234, false},
    {"dense_arrays_512k", arrays_512k, 20 * 65536 + 17, 70 * 65536 - 17, false},
    {"gaps_tenth", tenth, 1234, 40001, true},
    {"gaps_ninety_two_keys", ninety_two_keys, 3 * 65536 + 5000, 4 * 65536 + 77, true},
    {"gaps_ninety_top", ninety_top, 4294967296u - 5001, 4294967296u, true},
    {"gaps_wide", wide, 1000000, 3000000000u, true},
    {"gaps_single_zero", single_zero, 0, 1, true},
    {"gaps_single_max", single_max, 4294967290u, 4294967296u, true},
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
        struct codec_gaps g;
        if (fixtures[f].gaps) {
            if (!codec_gaps_plan(bm, &g) || !(buf = malloc(g.size)) || !codec_write_gaps(bm, &g, buf)) {
                fprintf(stderr, "%s: not encoded as gaps\n", fixtures[f].name);
                return 1;
            }
            len = g.size;
        } else if (!codec_encode(bm, &buf, &len) || strcmp(codec_encoding_name(buf, len), "dense") != 0) {
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
        printf("\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", t.in_range, t.lo, t.hi,
               fixtures[f].gaps ? "gaps" : "dense");
        free(buf);
        roaring_bitmap_free(bm);
    }
    return ferror(stdout) ? 1 : 0;
}
C

# The proof for bitmapd.to_roaring: C's validator and CRoaring judge what SQL exports.
cat >"$tmp/check_roaring.c" <<'C'
/* Reads lines "name TAB stored_hex TAB exported_hex" (exported = bitmapd.to_roaring
 * of stored) and prints "name TAB verdict TAB cardinality", verdict "ok" or why not:
 * exported must pass codec_validate, be Roaring, decode to the stored bitmap, and be
 * byte-identical to the stored bytes (Roaring rows) or to what CRoaring's portable
 * serialization gives for the stored bitmap without run containers (dense rows). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Hex in s[0..n) into a new buffer; NULL on a bad digit or odd length. */
static uint8_t *unhex(const char *s, size_t n, size_t *len)
{
    if (n % 2)
        return NULL;
    uint8_t *out = malloc(n / 2 + 1);
    for (size_t i = 0; out && i < n / 2; i++) {
        int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return out;
}

static const char *check(const uint8_t *stored, size_t slen, const uint8_t *exp, size_t elen,
                         uint64_t *card)
{
    static char why[300];
    char err[200] = "";
    if (!codec_validate(exp, elen, err, sizeof(err))) {
        snprintf(why, sizeof(why), "export fails codec_validate: %s", err);
        return why;
    }
    const char *name = codec_encoding_name(exp, elen);
    if (!name || strcmp(name, "roaring") != 0)
        return "export is not roaring";
    roaring_bitmap_t *a = codec_decode(stored, slen, err, sizeof(err));
    if (!a) {
        snprintf(why, sizeof(why), "stored bytes do not decode: %s", err);
        return why;
    }
    roaring_bitmap_t *b = codec_decode(exp, elen, NULL, 0);
    const char *verdict = NULL;
    *card = roaring_bitmap_get_cardinality(a);
    if (!b || !roaring_bitmap_equals(a, b))
        verdict = "export decodes to another bitmap";
    else if (strcmp(codec_encoding_name(stored, slen), "roaring") == 0) {
        if (slen != elen || memcmp(stored, exp, slen) != 0)
            verdict = "Roaring row not returned unchanged";
    } else {
        roaring_bitmap_remove_run_compression(a);
        size_t want = roaring_bitmap_portable_size_in_bytes(a);
        char *ref = malloc(want);
        if (!ref || roaring_bitmap_portable_serialize(a, ref) != want)
            verdict = "reference serialization failed";
        else if (want != elen || memcmp(ref, exp, elen) != 0) {
            size_t i = 0;
            while (i < want && i < elen && (uint8_t)ref[i] == exp[i])
                i++;
            snprintf(why, sizeof(why), "differs from the no-run portable serialization (%zu bytes, export %zu) at byte %zu",
                     want, elen, i);
            verdict = why;
        }
        free(ref);
    }
    roaring_bitmap_free(a);
    if (b)
        roaring_bitmap_free(b);
    return verdict ? verdict : "ok";
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2) {
            printf("?\tmalformed input line\t\n");
            continue;
        }
        *t1 = *t2 = '\0';
        size_t slen, elen;
        uint8_t *s = unhex(t1 + 1, (size_t)(t2 - t1 - 1), &slen);
        uint8_t *e = unhex(t2 + 1, strlen(t2 + 1), &elen);
        uint64_t card = 0;
        const char *verdict = s && e ? check(s, slen, e, elen, &card) : "bad hex";
        printf("%s\t%s\t%" PRIu64 "\n", line, verdict, card);
        free(s);
        free(e);
    }
    free(line);
    return ferror(stdout) ? 1 : 0;
}
C

CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Isrc -g"
# The codec's files (as FUZZ_CODEC_SRCS in tests/fuzz/fuzz.mk), joined into one object.
CODEC_SRCS="src/store/codec.c src/store/codec_portable.c src/store/codec_dense.c src/store/codec_patch.c
            src/store/codec_gaps.c"
build_codec() {
    local f objs=()
    for f in $CODEC_SRCS; do
        # shellcheck disable=SC2086  # CFLAGS is a list of words
        cc $CFLAGS -O2 -c -o "$tmp/part_$(basename "$f" .c).o" "$f" || return 1
        objs+=("$tmp/part_$(basename "$f" .c).o")
    done
    ld -r -o "$tmp/codec.o" "${objs[@]}"
}
# shellcheck disable=SC2086  # CFLAGS is a list of words
if ! { build_codec &&
    cc $CFLAGS -o "$tmp/gen_fixtures" tests/gen_fixtures.c "$tmp/codec.o" -lroaring &&
    cc $CFLAGS -O2 -o "$tmp/gen_dense" "$tmp/gen_dense.c" "$tmp/codec.o" -lroaring &&
    cc $CFLAGS -O2 -o "$tmp/check_roaring" "$tmp/check_roaring.c" "$tmp/codec.o" -lroaring; } 2>"$tmp/cc.err"; then
    not_ok "build gen_fixtures, gen_dense and check_roaring: $(tr '\n' ' ' <"$tmp/cc.err")"
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
    psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -F '|' 2>"$tmp/psql.err"
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
    ["gaps: tag alone"]="'\\xb2'::bytea"
    ["gaps: non-minimal varint"]="'\\xb280000000010180'::bytea"
    ["gaps: base + span past 2^32 - 1"]="'\\xb2ffffffff0f01000180'::bytea"
    ["gaps: reserved mode bits"]="'\\xb20000200101'::bytea"
    ["gaps: complement over 2^20"]="'\\xb200808040800101'::bytea"
    ["gaps: no listed value"]="'\\xb200000000'::bytea"
    ["gaps: more values than bits"]="'\\xb20000000901'::bytea"
    ["gaps: trailing byte"]="'\\xb2000000010100'::bytea"
    ["gaps: padding bits"]="'\\xb20000000103'::bytea"
    ["gaps: last member not base + span"]="'\\xb20001000101'::bytea"
    ["gaps: past the span"]="'\\xb20001000205'::bytea"
    ["gaps: complement lists base"]="'\\xb20002800101'::bytea"
    ["gaps: complement lists the last"]="'\\xb20002800104'::bytea"
    ["gaps: no terminating bit"]="'\\xb20000000100'::bytea"
)
for what in "${!bad[@]}"; do
    expect_error "members rejects $what" "SELECT count(*) FROM bitmapd.members(${bad[$what]});"
    expect_error "count_range rejects $what" "SELECT bitmapd.count_range(${bad[$what]}, 0, 4294967296);"
    expect_error "max_member rejects $what" "SELECT bitmapd.max_member(${bad[$what]});"
    expect_error "containers rejects $what" "SELECT count(*) FROM bitmapd.containers(${bad[$what]});"
    expect_error "encoding rejects $what" "SELECT bitmapd.encoding(${bad[$what]});"
    expect_error "to_roaring rejects $what" "SELECT bitmapd.to_roaring(${bad[$what]});"
done

# STRICT: NULL in, nothing out.
expect "NULL bitmap has no members" "0" "$(sql <<<'SELECT count(*) FROM bitmapd.members(NULL);')"
expect "NULL bitmap has no encoding" "" "$(sql <<<'SELECT bitmapd.encoding(NULL);')"
expect "NULL bitmap has no to_roaring" "" "$(sql <<<'SELECT bitmapd.to_roaring(NULL);')"

# ---- bitmapd.to_roaring: the export for other Roaring readers ----------------------
# export_query SOURCE: for each row (name, bits) of SOURCE, prints
#   name|stored hex|to_roaring hex|encoding of the export|same members
# "same members" compares members() of both (for a Roaring row, whose export must be
# the row itself, the bytes). MATERIALIZED: to_roaring runs once per row.
export_query() {
    cat <<SQL
WITH e AS MATERIALIZED (SELECT name, bits, bitmapd.to_roaring(bits) AS r FROM $1)
SELECT name, encode(bits, 'hex'), encode(r, 'hex'), bitmapd.encoding(r),
       CASE WHEN bitmapd.encoding(bits) = 'roaring' THEN r = bits
            ELSE (SELECT array_agg(m) FROM bitmapd.members(bits) AS m)
                 IS NOT DISTINCT FROM (SELECT array_agg(m) FROM bitmapd.members(r) AS m) END
FROM e ORDER BY name;
SQL
}

# check_exports LABEL FILE: FILE holds export_query's output. In SQL each export must
# be Roaring with the row's members; then check_roaring (C) must find it valid, equal
# to the row's bitmap, and byte-identical to the row (Roaring) or to CRoaring's
# portable serialization of the bitmap without run containers (dense).
check_exports() {
    local label=$1 file=$2 name encoding same verdict card
    awk -F'|' '{ print $1 "|" $4 "|" $5 }' "$file" >"$tmp/export_sql"
    awk -F'|' -v OFS='\t' '{ print $1, $2, $3 }' "$file" >"$tmp/export_c"
    while IFS='|' read -r name encoding same; do
        expect "$label $name: encoding(to_roaring(bits))" roaring "$encoding"
        expect "$label $name: to_roaring(bits) has the same members" t "$same"
    done <"$tmp/export_sql"
    "$tmp/check_roaring" <"$tmp/export_c" >"$tmp/export_verdicts"
    while IFS=$'\t' read -r name verdict card; do
        expect "$label $name: to_roaring(bits) is what CRoaring writes ($card members)" ok "$verdict"
    done <"$tmp/export_verdicts"
    expect "$label: check_roaring judged every export" "$(wc -l <"$file")" "$(wc -l <"$tmp/export_verdicts")"
}

cut -f1,2 "$tmp/fixtures" >"$tmp/fixture_bits"
# Valid dense bytes codec_encode would not write (Roaring is smaller): members 0 and
# 3 * 65536, so keys 1 and 2 of the raw bits are empty and must not become containers.
printf 'handmade_dense_empty_keys\tb10001%s01\n' "$(printf '%049150d' 0)" >>"$tmp/fixture_bits"
if sql >"$tmp/fixture_exports" <<SQL
CREATE TEMP TABLE fixture_bits (name text, hex text);
\copy fixture_bits FROM '$tmp/fixture_bits'
$(export_query "(SELECT name, decode(hex, 'hex') AS bits FROM fixture_bits) AS f")
SQL
then
    expect "to_roaring: one export per fixture" "$(wc -l <"$tmp/fixture_bits")" "$(wc -l <"$tmp/fixture_exports")"
    check_exports "fixture" "$tmp/fixture_exports"
else
    not_ok "to_roaring of the fixtures: query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi

# check_roaring must be able to say no: a dense row as its own export, a changed
# byte, and a valid Roaring serialization of the same bitmap that is not the one
# CRoaring writes without runs (days 20000-20029 as one run container, cookie 12347).
month=$(awk -F'\t' '$1 == "dense_checkin_30_days" { print $2 }' "$tmp/fixtures")
month_export=$(awk -F'|' '$1 == "dense_checkin_30_days" { print $3 }' "$tmp/fixture_exports")
# cookie 3b30 + (count - 1 = 0), run flags 01, key 0, cardinality - 1 = 29, one run
# starting at 20000 (0x4e20) of length - 1 = 29; no offsets below 4 containers
month_run=3b3000000100001d000100204e1d00
verdict_of() { printf 'x\t%s\t%s\n' "$1" "$2" | "$tmp/check_roaring" | cut -f2; }
expect "check_roaring refuses a dense export" "export is not roaring" "$(verdict_of "$month" "$month")"
# expect_prefix NAME PREFIX GOT
expect_prefix() {
    if [[ $3 == "$2"* ]]; then ok "$1"; else not_ok "$1: expected $2... got $3"; fi
}
expect_prefix "check_roaring refuses a changed byte" "export fails codec_validate:" \
    "$(verdict_of "$month" "${month_export%??}00")"
expect_prefix "check_roaring refuses an equal bitmap in another Roaring layout" \
    "differs from the no-run portable serialization" "$(verdict_of "$month" "$month_run")"
expect "to_roaring returns a Roaring value with runs unchanged" "$month_run|30|20000|20029" \
    "$(sql <<<"SELECT encode(bitmapd.to_roaring('\\x$month_run'), 'hex'), count(*), min(m), max(m) FROM bitmapd.members('\\x$month_run') AS m;")"
expect "to_roaring of the empty dense bitmap" "3a30000000000000" "$(sql <<<"SELECT encode(bitmapd.to_roaring('\\xb100'), 'hex');")"

# A stored (TOASTed) 512 KiB dense value of bitsets, and one of 64 array containers
# (the most array members a dense value of that size can hold): timings, not checks.
for f in dense_big_512k dense_arrays_512k; do
    hex=$(awk -F'\t' -v f=$f '$1 == f { print $2 }' "$tmp/fixtures")
    timing=$(sql <<SQL
CREATE TEMP TABLE t AS SELECT decode('$hex', 'hex') AS bits;
\timing on
SELECT octet_length(bits), octet_length(bitmapd.to_roaring(bits)) FROM t;
SELECT octet_length(bitmapd.to_roaring(bits)) FROM t;
SQL
    )
    echo "# to_roaring of a stored $f value (bytes stored|exported, then times of 2 runs): $(tr '\n' ' ' <<<"$timing")"
done

# A stored (TOASTed) 512 KiB dense value decodes completely; its time is printed as
# a figure, not asserted (shared machines): seconds, not minutes, is the expectation
# of the performance note at the top of sql/010_codec.sql.
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

# ---- to_roaring of rows the service wrote over HTTP and RESP ------------------------
# Users of this run: a block of ids of our own, so reruns on one database do not mix.
RUN_BASE=$((($(date +%s) % 1000000 * 1000 + RANDOM % 1000) * 1000))
u_dense=$((RUN_BASE + 1)) u_run=$((RUN_BASE + 2)) u_sparse=$((RUN_BASE + 3)) u_checkin=$((RUN_BASE + 4))
# expect_http NAME METHOD PATH [BODY]: the answer must be 200.
expect_http() {
    http "${@:2}"
    expect "$1: HTTP $2 ${3%%\?*}" 200 "$HTTP_STATUS"
}
expect_http "service: every other message id" POST "/v1/users/$u_dense/pushes" \
    "{\"messages\": [$(seq -s, 1 2 599)]}"
expect_http "service: read marks" POST "/v1/users/$u_dense/reads" '{"messages": [1, 3, 5, 99, 599]}'
expect_http "service: 300 consecutive ids (one run)" POST "/v1/users/$u_run/pushes" \
    "{\"messages\": [$(seq -s, 1000 1299)]}"
expect_http "service: ids over the whole 32-bit range" POST "/v1/users/$u_sparse/pushes" \
    "{\"messages\": [$(seq -s, 7 40000003 4294967295), 4294967295]}"
expect_http "service: a check-in today" POST "/v1/users/$u_checkin/checkins"
expect_http "service: a back-filled check-in" POST "/v1/users/$u_checkin/checkins" \
    "{\"date\": \"$(date -u -d '-3 days' +%F)\"}"
rcli DEL sqlm:max >/dev/null 2>&1
expect "service: SETBIT at 2^32 - 1" 0 "$(rcli SETBIT sqlm:max 4294967295 1 2>&1)"
# 512 KiB of pseudo-random bytes through SET: Redis numbers bits from the top of each
# byte, so the service stores other raw bits than these bytes. Its encoding is longer
# than 8 KiB, so it is stored in chunks (migration 0008): an empty bits in the head
# row, and bitmapd.value(key, bits) gives the whole bitmap back.
python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(512).randbytes(524288))' >"$tmp/big.bin"
expect "service: SET of a 512 KiB value" OK "$(rcli -x SET sqlm:big <"$tmp/big.bin" 2>&1)"
expect "service: STRLEN of the 512 KiB value" 524288 "$(rcli STRLEN sqlm:big 2>&1)"

keys=(sqlm:checkin sqlm:month sqlm:receipt sqlm:sparse sqlm:max sqlm:big
    "message:push:$u_dense" "message:read:$u_dense" "message:push:$u_run" "message:push:$u_sparse"
    "checkin:$u_checkin")
key_list=$(printf "convert_to('%s', 'UTF8')," "${keys[@]}")
expect "service: rows of every key, dense and Roaring" "${#keys[@]}|t|t" "$(sql <<SQL
SELECT count(*), bool_or(bitmapd.encoding(bitmapd.value(key, bits)) = 'dense'),
       bool_or(bitmapd.encoding(bitmapd.value(key, bits)) = 'roaring')
FROM unnest(ARRAY[${key_list%,}]) u(k) CROSS JOIN LATERAL bitmapd.value_of(u.k);
SQL
)"
expect "service: the 512 KiB value is stored in chunks of one container's raw bits, dense (head bits empty)" \
    "0|64|8196|roaring|t" "$(sql <<<"SELECT octet_length(b.bits), count(*), max(octet_length(c.bits)),
       bitmapd.encoding(bitmapd.value(b.key, b.bits)),
       sum(c.cardinality) = b.cardinality AND b.cardinality = (SELECT count(*) FROM bitmapd.members(bitmapd.value(b.key, b.bits)))
  FROM bitmapd.bitmaps b JOIN bitmapd.chunks c ON c.key = b.key WHERE b.key = 'sqlm:big'::bytea
 GROUP BY b.key, b.bits, b.cardinality;")"
echo "# SETBIT sqlm:max 4294967295 1 stores (encoding|bytes): $(sql <<<"SELECT bitmapd.encoding(bits), octet_length(bits) FROM bitmapd.bitmaps WHERE key = 'sqlm:max'::bytea;")"
if sql >"$tmp/service_exports" <<SQL; then
$(export_query "(SELECT convert_from(key, 'UTF8') AS name, bitmapd.value(key, bits) AS bits
                   FROM unnest(ARRAY[${key_list%,}]) u(k) CROSS JOIN LATERAL bitmapd.value_of(u.k)) AS k")
SQL
    check_exports "service" "$tmp/service_exports"
else
    not_ok "to_roaring of the service's rows: query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi
echo "# to_roaring of the stored 512 KiB chunked value sqlm:big (bytes stored|exported, times of 2 runs): $(sql <<SQL | tr '\n' ' '
\timing on
SELECT bitmapd.value_bytes(key, bits), octet_length(bitmapd.to_roaring(bitmapd.value(key, bits))) FROM bitmapd.bitmaps WHERE key = 'sqlm:big'::bytea;
SELECT octet_length(bitmapd.to_roaring(bitmapd.value(key, bits))) FROM bitmapd.bitmaps WHERE key = 'sqlm:big'::bytea;
SQL
)"

finish
