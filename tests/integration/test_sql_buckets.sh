#!/usr/bin/env bash
# test_sql_buckets.sh — bucket rows (migrations/0015, sql/016_buckets.sql,
# src/store/bucket.h), in whatever layout the suite runs (a new database's families are
# in bucket rows; make integration-own-rows moves them out):
#  1. C and SQL agree: every name tests/gen_buckets.c prints (edges, hostile bytes and
#     300 random ones) maps to the same family, bucket and slot, and the same names
#     are reserved; every bucket value C accepts is read by bitmapd._bucket_entries
#     to the same entries, and every one C refuses (truncated, a bit changed, a byte
#     more) raises 22P03 in SQL, unless only a member's checksum broke (SQL does not
#     check those: it must then read the same entries as C does);
#  2. bucket rows made by hand in bitmapd.bitmaps (as an operator could; not while
#     a family is off after a move) are left alone by everything that takes a row for a key: the sweep of
#     expired keys (a deadline long past), the cut into chunks of `--migrate` (one
#     bigger than a chunk), SCAN, KEYS, DBSIZE and bitmapd.keys; RESP refuses their
#     names for reads and writes; bitmapd.values and bitmapd.value_of list their
#     members, and bitmapd.encoding names them while members() refuses to read one as
#     one bitmap;
#  3. keys of the families keep working as rows of their own (checkin:{id} over RESP).
# Needs BITMAPD_DSN (and BITMAPD_OWNER_DSN for psql) as scripts/test_integration.sh
# sets them. Prints `ok - name` / `not ok - name: ...`; exits 1 on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/integration/lib.sh # start_service, rcli, stop_service; finish is redefined below

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
finish() {
    [ -n "${PORT:-}" ] && stop_service "$PORT"
    echo "test_sql_buckets: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2' got '$3'"; fi
}
expect_match() { # NAME REGEX ACTUAL
    if [[ $3 =~ $2 ]]; then ok "$1"; else not_ok "$1: expected to match '$2', got '$3'"; fi
}

if [ -z "${BITMAPD_DSN:-}" ]; then
    not_ok "environment: BITMAPD_DSN is not set"
    finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sql() {
    psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -F '|' 2>"$tmp/psql.err"
}

# ---- 1. C and SQL agree ---------------------------------------------------------------
CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -Isrc -Itests -O1 -g"
# shellcheck disable=SC2086  # CFLAGS is a list of words
if ! cc $CFLAGS -o "$tmp/gen_buckets" tests/gen_buckets.c src/store/bucket.c src/store/codec.c \
    src/store/codec_portable.c src/store/codec_dense.c src/store/codec_patch.c src/store/codec_gaps.c \
    -lroaring 2>"$tmp/cc.err"; then
    not_ok "build gen_buckets: $(tr '\n' ' ' <"$tmp/cc.err")"
    finish
fi
if ! "$tmp/gen_buckets" >"$tmp/lines" || [ ! -s "$tmp/lines" ]; then
    not_ok "run gen_buckets"
    finish
fi
nnames=$(grep -c '^N|' "$tmp/lines")
nvalues=$(grep -c '^B|' "$tmp/lines")
nbad=$(grep -c '^X|' "$tmp/lines")
ok "gen_buckets: $nnames names, $nvalues bucket values, $nbad refused byte strings"

# Names: one statement over all of them, printed in the generator's line format.
{
    echo "SELECT 'N|' || h || '|' || coalesce(r.family::text, '') || '|' || coalesce(encode(r.bucket_key, 'hex'), '')"
    echo "       || '|' || coalesce(r.slot::text, '') || '|' || coalesce(bitmapd.bucket_family_of(k)::text, '')"
    echo "  FROM unnest(ARRAY["
    grep '^N|' "$tmp/lines" | cut -d'|' -f2 | sed "s/.*/'&'/" | paste -sd,
    echo "]::text[]) WITH ORDINALITY AS u(h, o)"
    echo " CROSS JOIN LATERAL (SELECT decode(u.h, 'hex') AS k) kk"
    echo " CROSS JOIN LATERAL bitmapd.bucket_of(kk.k) r ORDER BY u.o;"
} >"$tmp/names.sql"
if sql <"$tmp/names.sql" >"$tmp/names.sql.out"; then
    grep '^N|' "$tmp/lines" >"$tmp/names.c"
    if cmp -s "$tmp/names.c" "$tmp/names.sql.out"; then
        ok "bucket_of and bucket_family_of agree with C on all $nnames names"
    else
        not_ok "names: C and SQL differ: $(diff "$tmp/names.c" "$tmp/names.sql.out" | head -6 | tr '\n' ' ')"
    fi
else
    not_ok "names query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi
# bucket_member_key is bucket_of's inverse on every member name above
if out=$(sql <<'SQL'
SELECT count(*) FILTER (WHERE r.family IS NOT NULL AND bitmapd.bucket_member_key(r.bucket_key, r.slot) IS DISTINCT FROM k),
       count(*) FILTER (WHERE r.family IS NOT NULL),
       count(*) FILTER (WHERE bitmapd.bucket_member_key(k, 0) IS NOT NULL AND bitmapd.bucket_family_of(k) IS NULL),
       (SELECT count(*) FROM generate_series(-1, 16) s
         WHERE bitmapd.bucket_member_key('checkin:~3', s) IS NOT NULL)
  FROM (VALUES ('checkin:0'::bytea), ('checkin:9223372036854775807'), ('group:7:msg:130'),
               ('group:9223372036854775807:msg:64'), ('checkin:~5'), ('x')) v(k)
 CROSS JOIN LATERAL bitmapd.bucket_of(k) r;
SQL
); then
    expect "bucket_member_key(bucket_of(k)) = k for members; NULL for other names and slots outside 0..15" \
        "0|4|0|16" "$out"
else
    not_ok "bucket_member_key query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi

# Values C accepts: the same entries, in one statement.
{
    echo "SELECT 'B|' || u.name || '|' || u.h || '|' || get_byte(b, 1) || '|'"
    echo "       || coalesce((SELECT string_agg(format('%s/%s/%s/%s/%s/%s/%s', e.slot, CASE WHEN e.stub THEN 't' ELSE 'f' END,"
    echo "                                            e.version, e.cardinality, coalesce(e.nbytes::text, ''),"
    echo "                                            coalesce(e.expire_ms::text, ''), encode(e.value, 'hex')), ' ' ORDER BY e.slot)"
    echo "                      FROM bitmapd._bucket_entries(b) e), '')"
    echo "  FROM (VALUES"
    grep '^B|' "$tmp/lines" | awk -F'|' '{ printf "%s('\''%s'\'', '\''%s'\'', %d)\n", (NR > 1 ? "," : ""), $2, $3, NR }'
    echo ") AS u(name, h, o) CROSS JOIN LATERAL (SELECT decode(u.h, 'hex') AS b) bb"
    echo " WHERE bitmapd.encoding(b) = 'bucket' ORDER BY u.o;"
} >"$tmp/values.sql"
if sql <"$tmp/values.sql" >"$tmp/values.sql.out"; then
    grep '^B|' "$tmp/lines" >"$tmp/values.c"
    if cmp -s "$tmp/values.c" "$tmp/values.sql.out"; then
        ok "_bucket_entries reads all $nvalues values as C does (encoding 'bucket')"
    else
        not_ok "values: C and SQL differ: $(diff "$tmp/values.c" "$tmp/values.sql.out" | head -4 | cut -c1-300 | tr '\n' ' ')"
    fi
else
    not_ok "values query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi

# Values C refuses: each raises 22P03 in SQL.
{
    echo "CREATE FUNCTION pg_temp.verdict(b bytea) RETURNS text LANGUAGE plpgsql AS \$\$"
    echo "BEGIN PERFORM count(*) FROM bitmapd._bucket_entries(b); RETURN 'accepted';"
    echo "EXCEPTION WHEN invalid_binary_representation THEN RETURN 'malformed'; END \$\$;"
    echo "SELECT u.name || '|' || pg_temp.verdict(decode(u.h, 'hex')) FROM (VALUES"
    grep '^X|' "$tmp/lines" | awk -F'|' '{ printf "%s('\''%s'\'', '\''%s'\'', %d)\n", (NR > 1 ? "," : ""), $2, $3, NR }'
    echo ") AS u(name, h, o) ORDER BY u.o;"
} >"$tmp/bad.sql"
if sql <"$tmp/bad.sql" >"$tmp/bad.out"; then
    accepted=$(grep -c '|accepted$' "$tmp/bad.out")
    expect "every one of the $nbad byte strings C refuses raises 22P03 in SQL" 0 "$accepted"
    [ "$accepted" -gt 0 ] && grep '|accepted$' "$tmp/bad.out" | head -3
else
    not_ok "refused values query failed: $(tr '\n' ' ' <"$tmp/psql.err")"
fi

# ---- 2. bucket rows made by hand are left alone ---------------------------------------
# The integration run shares one database between test files: these rows and keys are
# far from every other test's. Row A: 16 check-in members of ~2,000 days each, a value
# over 8 KiB (a chunk), no deadline (the generator's "bigbucket"). Row B: a small
# receipt bucket whose row has a deadline long past.
big=$(awk -F'|' '$1 == "B" && $2 == "bigbucket" { print $3 }' "$tmp/lines")
bigcrc=$(awk -F'|' '$1 == "C" && $2 == "bigbucket" { print $3 }' "$tmp/lines")
small=$(awk -F'|' '$1 == "B" && $2 == "bucket1" { print $3 }' "$tmp/lines")
if [ -z "$big" ] || [ -z "$small" ] || [ -z "$bigcrc" ]; then
    not_ok "the generator's bigbucket and bucket1 lines"
    finish
fi
A='checkin:~98765432' # members checkin:1580246912 … checkin:1580246927
B='group:5:msg:~7'
biglen=$((${#big} / 2))
K=checkin:1580246000 # a key of the family, far from the other tests' keys
if [[ $(sql <<<"SELECT state FROM bitmapd.bucket_state WHERE name = 'checkin'") == off &&
    $(sql <<<"SELECT bitmapd.bucket_epoch()") -gt 0 ]]; then
    # The families moved out (make integration-own-rows): from the first move on, the
    # guard of migration 0016 refuses a bucket row of a family that is off, so the rows
    # below cannot be made by hand here; the default layout's run makes them.
    sql <<<"INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, bucket)
            VALUES ('$A', 7, decode('$big', 'hex'), 16, $bigcrc, 1)" >/dev/null
    expect_match "moved out: a hand-made bucket row of a family that is off is refused (BMB02)" \
        'a bucket row of a family that is off' "$(cat "$tmp/psql.err")"
    start_service || finish
    rcli DEL "$K" >/dev/null
    rcli SETBIT "$K" 3 1 >/dev/null
    expect "$K, a key of the family, is a row of its own while the family is off" "1|" \
        "$(sql <<<"SELECT cardinality, bucket FROM bitmapd.bitmaps WHERE key = '$K'")"
    expect "every family is off" "checkin=off receipt=off" \
        "$(sql <<<"SELECT string_agg(name || '=' || state, ' ' ORDER BY family) FROM bitmapd.bucket_state")"
    finish
fi
if sql <<SQL >/dev/null; then
DELETE FROM bitmapd.bitmaps WHERE key IN ('$A', '$B');
INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, bucket)
VALUES ('$A', 7, decode('$big', 'hex'), 16, $bigcrc, 1);
INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, expire_ms, bucket)
VALUES ('$B', 2, decode('$small', 'hex'), 1, 0, 1000, 2);
SQL
    ok "hand-made bucket rows $A ($biglen bytes) and $B (deadline long past)"
else
    not_ok "insert bucket rows: $(tr '\n' ' ' <"$tmp/psql.err")"
    finish
fi
[ "$biglen" -gt 8192 ] && ok "$A is bigger than a chunk (8192)" || not_ok "$A of $biglen bytes is not bigger than a chunk"

members=$(sql <<<"SELECT count(*), count(DISTINCT key), min(convert_from(key, 'UTF8')), max(convert_from(key, 'UTF8')), sum(version), count(expire_ms), sum(cardinality)
                  FROM bitmapd.values WHERE bucket_key = '$A'")
cards=$(awk -F'|' '$1 == "B" && $2 == "bigbucket" { print $5 }' "$tmp/lines" | tr ' ' '\n' | awk -F/ '{ s += $4 } END { print s }')
expect "bitmapd.values lists its 16 members under their own keys, with their versions, deadlines and cardinalities" \
    "16|16|checkin:1580246912|checkin:1580246927|136|6|$cards" "$members"
one=$(sql <<<"SELECT convert_from(key, 'UTF8'), bucket_key = '$A', version FROM bitmapd.value_of('checkin:1580246914')")
expect "bitmapd.value_of('checkin:1580246914') finds it in the bucket (slot 2, version 3)" "checkin:1580246914|t|3" "$one"
expect "bitmapd.value_of of a member not stored: no row" "0" "$(sql <<<"SELECT count(*) FROM bitmapd.value_of('checkin:1580246928')")"
expect "bitmapd.encoding of the row: bucket" "bucket" "$(sql <<<"SELECT bitmapd.encoding(bits) FROM bitmapd.bitmaps WHERE key = '$A'")"
if sql <<<"SELECT count(*) FROM bitmapd.members((SELECT bits FROM bitmapd.bitmaps WHERE key = '$A'))" >/dev/null; then
    not_ok "bitmapd.members() of a bucket's bits: expected an error"
else
    grep -q 'bucket of several keys' "$tmp/psql.err" && ok "bitmapd.members() refuses a bucket's bits, saying so" ||
        not_ok "members() error: $(tr '\n' ' ' <"$tmp/psql.err")"
fi
expect "bitmapd.keys does not list them" "0" "$(sql <<<"SELECT count(*) FROM bitmapd.keys WHERE key_bytes IN ('$A', '$B')")"
expect "bitmapd.key_expiry does not list them" "0" "$(sql <<<"SELECT count(*) FROM bitmapd.key_expiry WHERE key_bytes IN ('$A', '$B')")"

# --migrate cuts rows over a chunk into chunks: not this one
if BITMAPD_DSN=${BITMAPD_OWNER_DSN:-$BITMAPD_DSN} "$BITMAPD_BIN" --migrate >"$tmp/migrate.log" 2>&1; then
    ok "--migrate again"
else
    not_ok "--migrate: $(tail -3 "$tmp/migrate.log" | tr '\n' ' ')"
fi
expect "--migrate left $A whole (not cut into chunks)" "$biglen|0" \
    "$(sql <<<"SELECT octet_length(bits), (SELECT count(*) FROM bitmapd.chunks WHERE key = '$A') FROM bitmapd.bitmaps WHERE key = '$A'")"

# A bucket row with no live key among the n + 1 rows a SCAN page reads must not end the
# walk there (found in review): a dead bucket checkin:~98765433, then five keys after it
# (not bucket names), walked with COUNT 3 from a fence at the bucket.
dead=$(awk -F'|' '$1 == "B" && $2 == "deadbucket" { print $3 }' "$tmp/lines")
deadcrc=$(awk -F'|' '$1 == "C" && $2 == "deadbucket" { print $3 }' "$tmp/lines")
walked=$(sql <<SQL
DELETE FROM bitmapd.bitmaps WHERE key >= 'checkin:~98765433' AND key < 'checkin:~98765433b';
INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, bucket)
VALUES ('checkin:~98765433', 2, decode('$dead', 'hex'), 0, $deadcrc, 1);
INSERT INTO bitmapd.bitmaps (key, bits, cardinality, checksum)
SELECT convert_to('checkin:~98765433a' || i, 'UTF8'), '\xb10001', 1, 0 FROM generate_series(1, 5) i;
INSERT INTO bitmapd.scan_fences (key) VALUES ('checkin:~98765433') ON CONFLICT (key) DO NOTHING;
CREATE FUNCTION pg_temp.walk(c bigint) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r record; cur bigint := c; seen text := ''; past boolean := false;
BEGIN
    FOR i IN 1 .. 100 LOOP
        FOR r IN SELECT * FROM bitmapd.scan_page(cur, 3, bitmapd.now_ms()) LOOP
            IF r.scan_key IS NULL THEN cur := r.scan_next;
            ELSIF r.scan_key >= 'checkin:~98765433b' THEN past := true;
            ELSIF r.scan_key >= 'checkin:~98765433a' THEN seen := seen || convert_from(r.scan_key, 'UTF8') || ' ';
            END IF;
        END LOOP;
        EXIT WHEN cur = 0 OR past;
    END LOOP;
    RETURN seen;
END \$\$;
SELECT pg_temp.walk((f.id << 16) | bitmapd._fence_tag(f.key)) FROM bitmapd.scan_fences f WHERE f.key = 'checkin:~98765433';
SQL
)
expect "SCAN pages (COUNT 3) from a bucket row with no live key: every key after it" \
    "checkin:~98765433a1 checkin:~98765433a2 checkin:~98765433a3 checkin:~98765433a4 checkin:~98765433a5 " "$walked"
sql <<<"DELETE FROM bitmapd.bitmaps WHERE key >= 'checkin:~98765433' AND key < 'checkin:~98765433b'" >/dev/null

start_service --set expire.sweep_ms=100 --set expire.sweep_grace_ms=0 || finish
rcli DEL "$K" >/dev/null
rcli SET plain:buckets:gone x PX 1 >/dev/null
rcli SETBIT "$K" 3 1 >/dev/null
for _ in $(seq 1 50); do
    [ "$(sql <<<"SELECT count(*) FROM bitmapd.bitmaps WHERE key = 'plain:buckets:gone'")" = 0 ] && break
    sleep 0.1
done
expect "the sweep removed an expired key's row meanwhile" "0" "$(sql <<<"SELECT count(*) FROM bitmapd.bitmaps WHERE key = 'plain:buckets:gone'")"
expect "and not $B, whose deadline is long past" "1" "$(sql <<<"SELECT count(*) FROM bitmapd.bitmaps WHERE key = '$B'")"
rcli SET 'checkin:~x' plain >/dev/null # not a bucket name: an ordinary key
scan_walk 'checkin:~*'
expect "SCAN lists the ordinary key checkin:~x and not $A (and the walk ends)" "checkin:~x 0" \
    "$(grep -v '^$' <<<"$SCAN_SEEN" | paste -sd' ') $SCAN_CURSOR"
expect "KEYS lists checkin:~x and not $A" "checkin:~x" "$(rcli KEYS 'checkin:~*' | paste -sd' ')"
rcli DEL 'checkin:~x' >/dev/null
buckets_on=$([[ $(sql <<<"SELECT state FROM bitmapd.bucket_state WHERE name = 'checkin'") == on ]] && echo 1)
if [[ -z $buckets_on ]]; then
    rows=$(sql <<<"SELECT count(*), count(*) FILTER (WHERE bucket > 0) FROM bitmapd.bitmaps
                    WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms)")
    expect "DBSIZE counts every live row but the bucket rows ($A)" "$((${rows%|*} - ${rows#*|}))" "$(rcli DBSIZE)"
    [[ ${rows#*|} -ge 1 ]] && ok "($A is one of ${rows#*|} live bucket rows)" || not_ok "$A is not among the live rows"
fi
for cmd in "GET $A" "GETBIT $A 0" "SETBIT $A 0 1" "SET $A x" "DEL $A" "EXISTS $A" "BITCOUNT $B" "MSET a 1 $A 2" \
    "RENAME $K checkin:~0"; do
    # shellcheck disable=SC2086  # the command's words
    out=$(rcli $cmd 2>&1)
    case $out in
    *"key name reserved"*"checkin keys"* | *"key name reserved"*"receipt keys"*) ok "RESP $cmd: refused, the name is reserved" ;;
    *) not_ok "RESP $cmd: expected the reserved-name error, got '$out'" ;;
    esac
done
expect "$A is untouched" "7|$biglen" "$(sql <<<"SELECT version, octet_length(bits) FROM bitmapd.bitmaps WHERE key = '$A'")"
expect "GETBIT $K 3" "1" "$(rcli GETBIT "$K" 3)"
# a key of a reserved name left from before migration 0015 is what the migration refuses
sql <<<"INSERT INTO bitmapd.bitmaps (key, bits, cardinality, checksum) VALUES ('checkin:~424242', '\\xb100', 0, 0)" >/dev/null
expect "bitmapd._reserved_keys (the migration's check) finds a key row with a bucket name" "checkin:~424242" \
    "$(sql <<<"SELECT string_agg(convert_from(k, 'UTF8'), ' ') FROM bitmapd._reserved_keys(10) k")"
sql <<<"DELETE FROM bitmapd.bitmaps WHERE key = 'checkin:~424242'" >/dev/null
if [[ $(sql <<<"SELECT state FROM bitmapd.bucket_state WHERE name = 'checkin'") == on ]]; then
    # the default layout (not make integration-own-rows): the family's keys live in bucket rows
    expect "$K, a key of the family, is in its bucket row checkin:~98765375" "$K|checkin:~98765375|1" \
        "$(sql <<<"SELECT convert_from(key, 'UTF8'), convert_from(bucket_key, 'UTF8'), cardinality FROM bitmapd.value_of('$K')")"
    expect "GETBIT of the bucket's name, now cached: still refused" "reserved" \
        "$(rcli GETBIT checkin:~98765375 0 2>&1 | grep -o reserved)"
    expect "a member of the hand-made $A reads over RESP as bitmapd.value_of says (BITCOUNT)" \
        "$(sql <<<"SELECT cardinality FROM bitmapd.value_of('checkin:1580246914')")" "$(rcli BITCOUNT checkin:1580246914)"
    want="$K $(seq -f 'checkin:%.0f' 1580246912 1580246927 | paste -sd' ')"
    # SCAN's pages (COUNT 5) from a fence at $K's bucket row (members are listed at their
    # bucket's place, after every digit key) to the end of the check-in names (a whole
    # walk with COUNT 5 over the shared database would take too many calls)
    walked=$(sql <<SQL
INSERT INTO bitmapd.scan_fences (key) VALUES ('checkin:~98765375') ON CONFLICT (key) DO NOTHING;
CREATE FUNCTION pg_temp.walk(c bigint) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r record; cur bigint := c; seen text := ''; past boolean := false; big integer := 0; n integer;
BEGIN
    FOR i IN 1 .. 5000 LOOP
        n := 0;
        FOR r IN SELECT * FROM bitmapd.scan_page(cur, 5, bitmapd.now_ms()) LOOP
            IF r.scan_key IS NULL THEN cur := r.scan_next;
            ELSE
                n := n + 1;
                IF r.scan_key >= 'checkin;' THEN past := true;
                ELSIF r.scan_key >= 'checkin:1580246' AND r.scan_key < 'checkin:1580247' THEN
                    seen := seen || convert_from(r.scan_key, 'UTF8') || ' ';
                END IF;
            END IF;
        END LOOP;
        big := greatest(big, n);
        EXIT WHEN cur = 0 OR past;
    END LOOP;
    RETURN seen || 'largest page ' || big;
END \$\$;
SELECT pg_temp.walk((f.id << 16) | bitmapd._fence_tag(f.key)) FROM bitmapd.scan_fences f
 WHERE f.key = 'checkin:~98765375';
SQL
)
    expect "SCAN pages (COUNT 5) list $K and the 16 members of $A, each once; none holds more than 16" \
        "$(tr ' ' '\n' <<<"$want" | sort | paste -sd' ') largest page 16" \
        "$(sed 's/ largest page.*//' <<<"$walked" | tr ' ' '\n' | grep . | sort | paste -sd' ') $(grep -o 'largest page [0-9]*' <<<"$walked")"
    expect "KEYS lists them too (its walk leaves the prefix for the family's bucket rows)" "$want" \
        "$(rcli KEYS 'checkin:1580246*' | sort | paste -sd' ')"
    expect "bitmapd.keys lists them with their versions" "17|$((136 + 1))" \
        "$(sql <<<"SELECT count(*), sum(version) FROM bitmapd.keys WHERE key LIKE 'checkin:1580246%'")"
    # (bitmapd.values reads members without decoding their values: another test's
    # damaged member does not stop it)
    expect "DBSIZE counts the members of bucket rows, as bitmapd.values holds them" \
        "$(sql <<<"SELECT count(*) FROM bitmapd.values WHERE (cardinality > 0 OR nbytes IS NOT NULL) AND bitmapd.live(expire_ms)")" \
        "$(rcli DBSIZE)"
    # $A is over a chunk: a write of one of its members spills the biggest to rows of
    # their own (bucket -1, a stub in the bucket) until the bucket fits in one
    members_of_a() {
        sql <<<"SELECT string_agg(convert_from(key, 'UTF8') || '=' || version || '/' || cardinality, ' ' ORDER BY key)
                  FROM bitmapd.values WHERE key >= 'checkin:1580246912' AND key < 'checkin:1580246928'
                   AND key <> 'checkin:1580246913'"
    }
    before=$(members_of_a)
    expect "DEL of a member of $A (a bucket over [postgres] chunk_bytes)" "1" "$(rcli DEL checkin:1580246913 2>&1)"
    expect "... the member is gone" "0" "$(rcli EXISTS checkin:1580246913)"
    spilled=$(sql <<<"SELECT count(*) FILTER (WHERE bucket = -1), (SELECT octet_length(bits) <= 8192 FROM bitmapd.bitmaps
                                                                     WHERE key = '$A')
                        FROM bitmapd.bitmaps WHERE key >= 'checkin:1580246912' AND key < 'checkin:1580246928'")
    expect_match "... $A fits in a chunk now, its biggest members spilled to rows of their own (bucket -1)" \
        '^([1-9]|1[0-5])\|t$' "$spilled"
    expect "... the other 15 members hold their versions and values (bitmapd.values)" "$before" "$(members_of_a)"
    expect "... SCAN lists each of them once, spilled or not" "15" \
        "$(scan_walk 'checkin:15802469[12]*'; tr ' ' '\n' <<<"$SCAN_SEEN" | grep -c '^checkin:158024691[2-9]$\|^checkin:158024692[0-7]$')"
    expect "DEL of $K (a member of a small bucket)" "1" "$(rcli DEL "$K" 2>&1)"
    expect "a member deleted over RESP leaves SCAN and KEYS" "no no" \
        "$(scan_walk "$K"; [[ $SCAN_SEEN == *checkin* ]] && echo yes || echo no) $(rcli KEYS "$K" | grep -q . && echo yes || echo no)"
    # 20 clients on two instances write the 16 members of one bucket at once: every
    # acknowledged bit is there (writes of one bucket take turns in an instance and
    # conflict across the two; none may be lost)
    R1=$RPORT
    start_service || finish
    out=$(/usr/bin/python3 - "$R1" "$RPORT" <<'PY'
import sys, threading, redis
ports = [int(sys.argv[1]), int(sys.argv[2])]
keys = ["checkin:%d" % (1580246400 + i) for i in range(16)]  # one bucket: checkin:~98765400
acked, errors = [], []
def worker(t):
    r = redis.Redis(port=ports[t % 2])
    for j in range(60):
        k, off = keys[(t + j) % 16], (t * 37 + j) % 3000
        try:
            r.setbit(k, off, 1)
            acked.append((k, off))
        except Exception as e:
            errors.append(str(e))
ts = [threading.Thread(target=worker, args=(t,)) for t in range(20)]
[t.start() for t in ts]
[t.join() for t in ts]
import time
time.sleep(0.5)  # the other instance's notifications arrive
r = redis.Redis(port=ports[1])
missing = [1 for k, off in acked if r.getbit(k, off) != 1]
print(len(acked), len(errors), len(missing))
PY
)
    expect "20 clients, two instances, one bucket: 1200 writes acknowledged, no error, none missing" "1200 0 0" "$out"
    expect "families on" "checkin=on receipt=on" \
        "$(sql <<<"SELECT string_agg(name || '=' || state, ' ' ORDER BY family) FROM bitmapd.bucket_state")"
    finish
fi
expect "$K, a key of the family, is a row of its own while the family is off" "1|" \
    "$(sql <<<"SELECT cardinality, bucket FROM bitmapd.bitmaps WHERE key = '$K'")"
expect "bitmapd.value_of('$K'): its own row" "$K|t" \
    "$(sql <<<"SELECT convert_from(key, 'UTF8'), bucket_key IS NULL FROM bitmapd.value_of('$K')")"
expect "every family is off" "checkin=off receipt=off" \
    "$(sql <<<"SELECT string_agg(name || '=' || state, ' ' ORDER BY family) FROM bitmapd.bucket_state")"
finish
