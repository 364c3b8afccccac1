#!/usr/bin/env bash
# test_sql_members.sh — checks the SQL decoder (sql/010_codec.sql) against the C codec:
# every fixture printed by tests/gen_fixtures.c is decoded in PostgreSQL and compared
# with the values computed in C; malformed inputs must raise an error.
# Needs BITMAPD_DSN: a libpq conninfo for a database with migrations/0001_bitmaps.sql
# and sql/*.sql applied. Prints `ok - name` / `not ok - name: ...`; exits 1 on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
finish() {
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

CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Iinclude -g"
# shellcheck disable=SC2086  # CFLAGS is a list of words
if ! cc $CFLAGS -o "$tmp/gen_fixtures" tests/gen_fixtures.c src/codec.c -lroaring 2>"$tmp/cc.err"; then
    not_ok "build gen_fixtures: $(tr '\n' ' ' <"$tmp/cc.err")"
    finish
fi
if ! "$tmp/gen_fixtures" >"$tmp/fixtures"; then
    not_ok "run gen_fixtures"
    finish
fi
ok "build and run gen_fixtures ($(wc -l <"$tmp/fixtures") fixtures)"

# The SQL goes through stdin: a fixture's hex can be longer than an argument may be.
sql() {
    psql "$BITMAPD_DSN" -XAtq -v ON_ERROR_STOP=1 -F '|' 2>"$tmp/psql.err"
}

check_fixture() {
    local name=$1 hex=$2 card=$3 sum=$4 min=$5 max=$6 in_range=$7 lo=$8 hi=$9 out
    local bits="decode('$hex', 'hex')"
    if ! out=$(sql <<SQL
SELECT count(*), sum(m), min(m), max(m),
       coalesce(bool_and(d > 0), true),
       bitmapd.count_range($bits, $lo, $hi),
       bitmapd.count_range($bits, 0, 4294967296),
       bitmapd.count_range($bits, $lo, $lo),
       bitmapd.max_member($bits)
FROM (SELECT m, m - lag(m) OVER () AS d FROM bitmapd.members($bits) AS m) AS s;
SQL
    ); then
        not_ok "$name: query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
        return
    fi
    local got_count got_sum got_min got_max got_asc got_range got_all got_none got_max_member
    IFS='|' read -r got_count got_sum got_min got_max got_asc got_range got_all got_none got_max_member <<<"$out"
    expect "$name count(members)" "$card" "$got_count"
    expect "$name sum(members)" "$sum" "$got_sum"
    expect "$name min(members)" "$min" "$got_min"
    expect "$name max(members)" "$max" "$got_max"
    expect "$name members ascending" "t" "$got_asc"
    expect "$name count_range [$lo, $hi)" "$in_range" "$got_range"
    expect "$name count_range everything" "$card" "$got_all"
    expect "$name count_range empty range" "0" "$got_none"
    expect "$name max_member" "$max" "$got_max_member"
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
while IFS='|' read -r name hex card sum min max in_range lo hi; do
    check_fixture "$name" "$hex" "$card" "$sum" "$min" "$max" "$in_range" "$lo" "$hi"
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
)
for what in "${!bad[@]}"; do
    expect_error "members rejects $what" "SELECT count(*) FROM bitmapd.members(${bad[$what]});"
    expect_error "count_range rejects $what" "SELECT bitmapd.count_range(${bad[$what]}, 0, 4294967296);"
    expect_error "max_member rejects $what" "SELECT bitmapd.max_member(${bad[$what]});"
done

# STRICT: NULL in, nothing out.
expect "NULL bitmap has no members" "0" "$(sql <<<'SELECT count(*) FROM bitmapd.members(NULL);')"

finish
