#!/usr/bin/env bash
# Big bitmaps in chunks (migration 0008, src/store/chunks.c): a bitmap whose encoding is
# longer than 8 KiB keeps a head row in bitmapd.bitmaps (empty bits) and its members
# in rows of bitmapd.chunks. Checks that a client sees exactly what Redis semantics
# say, whatever the layout: GET byte for byte, BITCOUNT, STRLEN, after a restart (cold
# cache), from a second instance (which does not know the chunks of the version it
# writes over), through growing and shrinking across the threshold, DEL, BITOP; that
# a single-bit write rewrites one chunk row and the head, and what it costs in WAL;
# that a damaged chunk is reported, never overwritten, and harms no other key; that
# the psql views read chunked bitmaps; and that `bitmapd --migrate` cuts big rows
# written in the old layout, while the service answers, and can be stopped by
# kill -9 and run again.
# Needs BITMAPD_DSN, BITMAPD_OWNER_DSN, psql, redis-cli, python3.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

OWNER_DSN=${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
P="chunks:$$:" # every key of this run
T=$BITMAPD_TEST_TMP/chunks.$$
mkdir -p "$T"
kb() { printf "convert_to('%s', 'UTF8')" "$P$1"; } # the key NAME of this run, as SQL

# python3 helpers: random bytes, a bit set in a file as Redis numbers bits (MSB first)
randbytes() { python3 -c "import random, sys; sys.stdout.buffer.write(random.Random($2).randbytes($1))"; }
setbit_file() { # FILE OFFSET VALUE
  python3 - "$@" <<'PY'
import sys
path, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(path, 'rb').read())
if off // 8 >= len(b): b.extend(bytes(off // 8 + 1 - len(b)))
mask = 0x80 >> (off % 8)
b[off // 8] = (b[off // 8] | mask) if val else (b[off // 8] & ~mask)
open(path, 'wb').write(bytes(b))
PY
}
popcount_file() { python3 -c "import sys; print(sum(bin(x).count('1') for x in open(sys.argv[1], 'rb').read()))" "$1"; }
get_equals() { # NAME KEY FILE — GET KEY gives FILE's bytes
  rcli --no-raw GET "$2" >/dev/null 2>&1 # a first GET loads it
  redis-cli -h 127.0.0.1 -p "$RPORT" --raw GET "$2" | head -c -1 >"$T/got" # --raw adds one newline
  if cmp -s "$T/got" "$3"; then check "$1" same same; else check "$1" "$(wc -c <"$3") bytes as written" "$(wc -c <"$T/got") bytes, differing"; fi
}
layout() { # NAME → head bits length|chunks|largest chunk|chunk cardinalities sum to the head's
            # (unless the head has flips, which change the count)
  sql "SELECT octet_length(b.bits), count(c.key), coalesce(max(octet_length(c.bits)), 0),
              coalesce(sum(c.cardinality), 0) = b.cardinality OR count(c.key) = 0 OR b.flips IS NOT NULL
         FROM bitmapd.bitmaps b LEFT JOIN bitmapd.chunks c ON c.key = b.key
        WHERE b.key = $(kb "$1") GROUP BY b.key, b.bits, b.cardinality, b.flips"
}
chunk_xmins() { sql "SELECT lo || ':' || xmin FROM bitmapd.chunks WHERE key = $(kb "$1") ORDER BY lo"; }
changed_rows() { # BEFORE AFTER — chunk rows rewritten (new xmin) or added or removed
  comm -3 <(sort <<<"$1") <(sort <<<"$2") | tr -d '\t' | cut -d: -f1 | sort -u | grep -c . || true
}

start_service || finish
A_R=$RPORT

# ---- a 300 KiB value: stored in chunks, read back byte for byte -----------------------
randbytes 307200 11 >"$T/big"
check "SET of 300 KiB of random bytes" OK "$(rcli -x SET "${P}big" <"$T/big" 2>&1)"
IFS='|' read -r head nchunks largest sums <<<"$(layout big)"
check "head row of the 300 KiB value has empty bits" 0 "$head"
check "it is cut into 38 chunks (one bitset container each)" 38 "$nchunks"
# a full container's raw bits are smaller dense (tag, base varint, 8,192 bytes) than
# as a Roaring bitset container (8,208 bytes serialized alone)
check "the longest chunk is one container's raw bits, dense (8,196 bytes)" 8196 "$largest"
check "the chunks' cardinalities add up to the head's" t "$sums"
get_equals "GET gives the 300 KiB back byte for byte" "${P}big" "$T/big"
check "BITCOUNT counts its bits" "$(popcount_file "$T/big")" "$(rcli BITCOUNT "${P}big" 2>&1)"
check "STRLEN is 307200" 307200 "$(rcli STRLEN "${P}big" 2>&1)"
# GETBIT of a cached chunked value reads one container in place (codec_contains)
getbits_equal() { # NAME KEY FILE — 300 GETBITs (some past the end) answer the file's bits
  python3 - "$3" "$2" >"$T/getbit.cmds" 3>"$T/getbit.want" <<'PY'
import os, random, sys
b = open(sys.argv[1], 'rb').read()
want = os.fdopen(3, 'w')
for o in random.Random(7).sample(range(0, 8 * len(b) + 5000), 300):
    print('GETBIT %s %d' % (sys.argv[2], o))
    print((b[o // 8] >> (7 - o % 8)) & 1 if o // 8 < len(b) else 0, file=want)
PY
  rcli <"$T/getbit.cmds" >"$T/getbit.got" 2>&1
  if cmp -s "$T/getbit.got" "$T/getbit.want"; then check "$1" same same
  else check "$1" "300 bits as in the file" "$(diff "$T/getbit.want" "$T/getbit.got" | grep -c '^>') differ"; fi
}
getbits_equal "300 GETBITs of the cached chunked value answer its bits" "${P}big" "$T/big"

# ---- one SETBIT: the head alone, its flips, a few hundred bytes of WAL --------------------
before=$(chunk_xmins big)
flips0=$(metric bitmapd_write_flips_total)
off=1234567
old=$(rcli GETBIT "${P}big" $off)
check "SETBIT flips one bit and answers the old one" "$old" "$(rcli SETBIT "${P}big" $off $((1 - old)) 2>&1)"
setbit_file "$T/big" $off $((1 - old))
after=$(chunk_xmins big)
check "a single-bit write rewrote no chunk row" 0 "$(changed_rows "$before" "$after")"
check "it is the one member of the head's flips (bitmapd_write_flips_total +1)" "$off|1" \
  "$(sql "SELECT string_agg(m::text, ',') FROM bitmapd.members((SELECT flips FROM bitmapd.bitmaps WHERE key = $(kb big))) m")|$(($(metric bitmapd_write_flips_total) - flips0))"
# The LSN is the cluster's (autovacuum, a checkpoint's first page images count too):
# two rounds of 20, and the lower
wal=""
for round in 0 1; do
  lsn0=$(sql "SELECT pg_current_wal_lsn()")
  for i in $(seq 1 20); do
    o=$((((i + 20 * round) * 61813) % 2400000))
    rcli SETBIT "${P}big" $o 1 >/dev/null
    setbit_file "$T/big" $o 1
  done
  lsn1=$(sql "SELECT pg_current_wal_lsn()")
  w=$(sql "SELECT (pg_wal_lsn_diff('$lsn1', '$lsn0') / 20)::bigint")
  [[ -z $wal || $w -lt $wal ]] && wal=$w
done
echo "# WAL per single-bit SETBIT into the 300 KiB chunked value (the lower of two rounds of 20 writes): $wal bytes"
check "WAL per single-bit write is at most 2 KiB (the whole value is 300 KiB, a chunk row 8 KiB)" yes \
  "$([[ $wal -le 2048 ]] && echo yes || echo "no: $wal")"
check "the 40 SETBITs rewrote no chunk row either" 0 "$(changed_rows "$after" "$(chunk_xmins big)")"
get_equals "GET after 41 SETBITs is the file with the same bits set" "${P}big" "$T/big"
members_md5() { # NAME → md5 of the members of bitmapd.value(), as SQL sees them
  sql "SELECT md5(coalesce(string_agg(m::text, ',' ORDER BY m), '')) FROM bitmapd.bitmaps b,
              bitmapd.members(bitmapd.value(b.key, b.bits)) m WHERE b.key = $(kb "$1")"
}
file_md5() { # FILE → md5 of its set bits' offsets, Redis's numbering
  python3 -c "import sys, hashlib; b = open(sys.argv[1], 'rb').read()
print(hashlib.md5(','.join(str(8 * i + j) for i, x in enumerate(b) for j in range(8) if x & (0x80 >> j)).encode()).hexdigest())" "$1"
}
check "psql: bitmapd.value() applies the head's flips (every member, as the file has them)" "$(file_md5 "$T/big")" \
  "$(members_md5 big)"
check "psql: bitmapd.value_bytes() counts the chunks and the flips" yes \
  "$(sql "SELECT CASE WHEN bitmapd.value_bytes(key, bits) = (SELECT sum(octet_length(bits)) FROM bitmapd.chunks c WHERE c.key = b.key) + octet_length(flips) THEN 'yes' ELSE 'no' END FROM bitmapd.bitmaps b WHERE key = $(kb big)")"
check "psql: bitmapd.max_member(bitmapd.value_tail()) is the highest member with the flips" \
  "$(sql "SELECT max(m) FROM bitmapd.members(bitmapd.value($(kb big), ''::bytea)) m")" \
  "$(sql "SELECT bitmapd.max_member(bitmapd.value_tail(key, bits)) FROM bitmapd.bitmaps WHERE key = $(kb big)")"
# the highest member cleared: the flips remove the last chunk's highest member
top=$(sql "SELECT max(m) FROM bitmapd.members(bitmapd.value($(kb big), ''::bytea)) m")
check "SETBIT clears the highest member" 1 "$(rcli SETBIT "${P}big" "$top" 0 2>&1)"
setbit_file "$T/big" "$top" 0
check "psql: with the highest member cleared by the flips, value_tail still finds the highest" \
  "$(sql "SELECT max(m) FROM bitmapd.members(bitmapd.value($(kb big), ''::bytea)) m")|true" \
  "$(sql "SELECT bitmapd.max_member(bitmapd.value_tail(key, bits)) || '|' || (flips IS NOT NULL)::text FROM bitmapd.bitmaps WHERE key = $(kb big)")"

# ---- flips past [postgres] flip_bytes: the chunks they touch are rewritten --------------
# 1,500 SETBITs all over the value, half of them changing a bit (2 bytes or more of
# flips each): the head's flips cross 1,536 bytes at least once, and that write rewrites
# the chunks holding them (and the head's flips start again from none).
rows0=$(metric bitmapd_write_chunk_rows_total)
python3 - "$T/big" "${P}big" >"$T/flipcmds" <<'PY'
import sys
path, key = sys.argv[1], sys.argv[2]
b = bytearray(open(path, 'rb').read())
for i in range(1, 1501):
    o, v = (i * 40009 + 17) % 2457600, i % 2
    print(f"SETBIT {key} {o} {v}")
    mask = 0x80 >> (o % 8)
    b[o // 8] = (b[o // 8] | mask) if v else (b[o // 8] & ~mask)
open(path, 'wb').write(bytes(b))
PY
redis-cli -h 127.0.0.1 -p "$RPORT" <"$T/flipcmds" >/dev/null
check "the writes past flip_bytes rewrote chunk rows (bitmapd_write_chunk_rows_total grew)" yes \
  "$([[ $(($(metric bitmapd_write_chunk_rows_total) - rows0)) -gt 0 ]] && echo yes || echo no)"
check "the head's flips stay within flip_bytes (1,536)" yes \
  "$(sql "SELECT CASE WHEN coalesce(octet_length(flips), 0) <= 1536 THEN 'yes' ELSE octet_length(flips)::text END FROM bitmapd.bitmaps WHERE key = $(kb big)")"
get_equals "GET after 1,500 more SETBITs is the file" "${P}big" "$T/big"
check "psql: every member, chunks and flips together" "$(file_md5 "$T/big")" "$(members_md5 big)"

# ---- a big sparse value keeps more flips: 1/256 of its length --------------------------
# A DAU key (arrays all over) written at random spreads its flips over most chunks; past
# 256 × flip_bytes, a value keeps flips up to 1/256 of its length (out of line, TOAST),
# so those rewrites are rarer. 150,000 members, about 800 KB portable (the chunk rows hold
# them in about 300 KB of gaps): about 3,200 bytes of flips allowed, at most 12,288.
# Scattered flips are written as gaps: about 3 bytes a flip here (one member among 2^32 /
# n), where the portable serialization takes 10 (a container's key, count and offset for
# each), so the head holds three times as many before the chunks are rewritten.
python3 - "$RPORT" "${P}dau" 150000 <<'PY'
import random, socket, sys
port, key, n = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3])
args = [b"R.SETINTARRAY", key] + [str(v).encode() for v in random.Random(5).sample(range(1 << 32), n)]
msg = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
s = socket.create_connection(("127.0.0.1", port)); s.sendall(msg)
r = s.recv(100)
sys.exit(0 if r.startswith(b"+OK") else 1)
PY
check "150,000 members far apart: one R.SETINTARRAY" "0" "$?"
check "... chunked" 0 "$(sql "SELECT octet_length(bits) FROM bitmapd.bitmaps WHERE key = $(kb dau)")"
rows0=$(metric bitmapd_write_chunk_rows_total)
dau_flips() { sql "SELECT coalesce(octet_length(flips), 0) || ' ' || coalesce(get_byte(flips, 0), 0) FROM bitmapd.bitmaps WHERE key = $(kb dau)"; }
dau_setbits() { # SEED COUNT: prints how many of those bits were set already
  python3 -c "
import random
for v in random.Random($1).sample(range(1 << 32), $2): print(f'SETBIT ${P}dau {v} 1')" >"$T/daucmds"
  rcli <"$T/daucmds" | grep -c '^1$'
}
ones=$(dau_setbits 6 250)
check "250 SETBITs of new members, scattered: no chunk row rewritten" 0 \
  "$(($(metric bitmapd_write_chunk_rows_total) - rows0))"
read -r flen ftag < <(dau_flips)
check "... their flips are in the head as gaps (0xB2), 2 to 4 bytes a flip: in line (1,900 bytes at most)" yes \
  "$([[ $ftag == 178 && $flen -ge 500 && $flen -le 1000 ]] && echo yes || echo "no: $flen bytes, first $ftag")"
check "BITCOUNT and the head's cardinality agree: 150,000 + 250 new" "$((150250 - ones))|$((150250 - ones))" \
  "$(rcli BITCOUNT "${P}dau")|$(sql "SELECT cardinality FROM bitmapd.bitmaps WHERE key = $(kb dau)")"
# psql sees the same members: its chunks (gaps) with the head's flips applied (took
# 18 s before bitmapd._assemble computed each chunk's containers once)
dau_members_md5() { # SEED COUNT ...: of the first 150,000 members and those SETBITs
  python3 -c "
import hashlib, random, sys
a = [int(x) for x in sys.argv[1:]]
m = set(random.Random(5).sample(range(1 << 32), 150000))
for i in range(0, len(a), 2): m |= set(random.Random(a[i]).sample(range(1 << 32), a[i + 1]))
print(hashlib.md5(','.join(map(str, sorted(m))).encode()).hexdigest())" "$@"
}
dau_psql_md5() { # of psql's members() of the key, chunks and flips
  sql "SELECT md5(string_agg(m::text, ',' ORDER BY m))
         FROM bitmapd.bitmaps b, bitmapd.members(bitmapd.value(b.key, b.bits)) m WHERE b.key = $(kb dau)"
}
check "psql's members() of the chunked value with its flips: every member, in order" "$(dau_members_md5 6 250)" \
  "$(dau_psql_md5)"
ones2=$(dau_setbits 7 600)
read -r flen ftag < <(dau_flips)
check "600 more: still no chunk row rewritten, the flips (gaps) past 1,900 bytes, within 1/256 of the value" yes \
  "$([[ $(($(metric bitmapd_write_chunk_rows_total) - rows0)) == 0 && $ftag == 178 && $flen -gt 1900 && $flen -le 3300 ]] &&
     echo yes || echo "no: $(($(metric bitmapd_write_chunk_rows_total) - rows0)) chunk rows, $flen bytes, first $ftag")"
check "... psql's members() reads those flips out of line" "$(dau_members_md5 6 250 7 600)" \
  "$(dau_psql_md5)"
ones3=$(dau_setbits 8 800)
check "800 more: past 1/256 of the value, chunk rows rewritten, the flips within it" yes \
  "$([[ $(($(metric bitmapd_write_chunk_rows_total) - rows0)) -gt 0 && $(dau_flips | cut -d' ' -f1) -le 3300 ]] &&
     echo yes || echo no)"
dau_count=$((151650 - ones - ones2 - ones3))
check "BITCOUNT and the head's cardinality agree again" "$dau_count|$dau_count" \
  "$(rcli BITCOUNT "${P}dau")|$(sql "SELECT cardinality FROM bitmapd.bitmaps WHERE key = $(kb dau)")"
check "... and psql's members()" "$(dau_members_md5 6 250 7 600 8 800)" \
  "$(dau_psql_md5)"

# ---- a cold cache, and an instance that knows no chunks of the version ----------------
stop_service
start_service || finish
A_R=$RPORT
A_URL=$BASE_URL
get_equals "after a restart (cold cache) GET is still byte for byte" "${P}big" "$T/big"
check "after a restart, the sparse value's BITCOUNT (its chunks and out-of-line flips)" "$dau_count" "$(rcli BITCOUNT "${P}dau")"
getbits_equal "300 GETBITs after the restart (loaded from its chunks)" "${P}big" "$T/big"
start_service || finish
B_R=$RPORT
RPORT=$B_R
before=$(chunk_xmins big)
old=$(rcli GETBIT "${P}big" 99)
check "instance B: SETBIT answers the old bit" "$old" "$(rcli SETBIT "${P}big" 99 $((1 - old)) 2>&1)"
setbit_file "$T/big" 99 $((1 - old))
check "instance B's SETBIT (decoded, not patched: it knows the bit it flipped) adds to the flips, no chunk row" \
  "0|t" "$(changed_rows "$before" "$(chunk_xmins big)")|$(sql "SELECT flips IS NOT NULL FROM bitmapd.bitmaps WHERE key = $(kb big)")"
# an APPEND says nothing of what it changed: its write cuts the whole value and writes
# the chunks that differ from their rows — those holding flips, and the last one, where
# its byte lands (chunks hold one container each here: random bytes, bitsets) — and
# leaves no flips
flipkeys=$(sql "SELECT count(DISTINCT k) FROM (SELECT m >> 16 AS k FROM bitmapd.members(
                  (SELECT flips FROM bitmapd.bitmaps WHERE key = $(kb big))) m
                UNION SELECT $(( $(wc -c <"$T/big") * 8 >> 16 ))) s")
before=$(chunk_xmins big)
printf Z >>"$T/big"
check "instance B: APPEND of one byte" "$(wc -c <"$T/big")" "$(rcli APPEND "${P}big" Z 2>&1)"
check "it wrote the chunks of the head's flips and of its byte, and no flips" \
  "$flipkeys|" "$(changed_rows "$before" "$(chunk_xmins big)")|$(sql "SELECT flips FROM bitmapd.bitmaps WHERE key = $(kb big)")"
RPORT=$A_R
get_equals "instance A sees instance B's write (its cache dropped the old copy)" "${P}big" "$T/big"

# ---- a sparse big value (array containers, portable): its SETBITs are flips too -------
# Each SETBIT reports the bit it flipped (wp_key_flipped), so a value that cannot be
# patched in place (an array grows by two bytes) still writes only its head.
python3 -c "
for i in range(4000): print(f'SETBIT ${P}sp {(i * 1000003) % 4294967296} 1')" >"$T/spcmds"
redis-cli -h 127.0.0.1 -p "$RPORT" <"$T/spcmds" >/dev/null
check "4,000 members far apart: chunked, portable" "0|roaring" \
  "$(sql "SELECT octet_length(bits) || '|' || bitmapd.encoding(bitmapd.value(key, bits)) FROM bitmapd.bitmaps WHERE key = $(kb sp)")"
before=$(chunk_xmins sp)
flips0=$(metric bitmapd_write_flips_total "$A_URL")
answers=""
for o in 17 2000000011 4000000007 1000003; do answers+=$(rcli SETBIT "${P}sp" $o $((o == 1000003 ? 0 : 1))); done
check "four SETBITs (three sets, one clear) answer the old bits" 0001 "$answers"
check "they rewrote no chunk row: four writes of the head's flips" "0|4" \
  "$(changed_rows "$before" "$(chunk_xmins sp)")|$(($(metric bitmapd_write_flips_total "$A_URL") - flips0))"
check "BITCOUNT and the members in psql agree" "4002|4002" \
  "$(rcli BITCOUNT "${P}sp")|$(sql "SELECT count(*) FROM bitmapd.bitmaps b, bitmapd.members(bitmapd.value(b.key, b.bits)) m WHERE b.key = $(kb sp)")"
check "psql sees the three new members and not the cleared one" "3|0" \
  "$(sql "SELECT count(*) FILTER (WHERE m IN (17, 2000000011, 4000000007)) || '|' || count(*) FILTER (WHERE m = 1000003)
            FROM bitmapd.bitmaps b, bitmapd.members(bitmapd.value(b.key, b.bits)) m WHERE b.key = $(kb sp)")"

# ---- bitmapd --fold-flips: the way back to a bitmapd older than flips -----------------
randbytes 200000 11 >"$T/ff"
rcli -x SET "${P}ff" <"$T/ff" >/dev/null
for o in 3 70001 900000 1599999; do
  rcli SETBIT "${P}ff" $o 1 >/dev/null
  setbit_file "$T/ff" $o 1
done
v0=$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = $(kb ff)")
check "four SETBITs left flips in the head" t "$(sql "SELECT flips IS NOT NULL FROM bitmapd.bitmaps WHERE key = $(kb ff)")"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --fold-flips >"$T/fold.log" 2>&1)
check "bitmapd --fold-flips exits 0 while the service runs" 0 "$?"
check "no chunked head has flips left, and the key's version did not move" "0|$v0" \
  "$(sql "SELECT count(*) FILTER (WHERE flips IS NOT NULL) || '|' || max(version) FILTER (WHERE key = $(kb ff)) FROM bitmapd.bitmaps")"
check "psql: the same members, from the chunks alone" "$(file_md5 "$T/ff")" "$(members_md5 ff)"
sleep 0.3 # the head's update reaches the instance's cache
get_equals "GET after --fold-flips is the file" "${P}ff" "$T/ff"
rcli SETBIT "${P}ff" 8 1 >/dev/null
setbit_file "$T/ff" 8 1
get_equals "a SETBIT after it (the instance's chunk directory is stale: retried) and GET" "${P}ff" "$T/ff"
sql "DELETE FROM bitmapd.chunks WHERE key = $(kb ff); DELETE FROM bitmapd.bitmaps WHERE key = $(kb ff)"

# ---- one client after another: each write takes the copy the one before kept ---------
# A write into a big value keeps its decoded copy with the cache's bits of the version
# it committed (kept.h); the next write whose cached row is that very version takes the
# copy instead of decoding, and re-encodes only the containers it changed
# (codec_encode_patch, chunks_cut_since). A's first write here decodes (its cache holds
# what it loaded after B's write); each of the four after it takes a kept copy.
kept0=$(metric bitmapd_write_kept_copies_total "$A_URL")
RPORT=$A_R
answers=""
for off in 5 70001 1300007 2457599 9; do
  old=$(rcli GETBIT "${P}big" $off)
  [[ $(rcli SETBIT "${P}big" $off $((1 - old)) 2>&1) == "$old" ]] && answers+=o || answers+=x
  setbit_file "$T/big" $off $((1 - old))
done
check "five SETBITs one after another answered the old bits" ooooo "$answers"
check "each write after the first took the copy the write before it kept" 4 \
  "$(awk -v a="${kept0:-0}" -v b="$(metric bitmapd_write_kept_copies_total "$A_URL")" 'BEGIN {print b - a}')"
get_equals "GET after the five writes is the file with their bits flipped" "${P}big" "$T/big"

# ---- many clients writing the chunked key at once -------------------------------------
# Eight pipelining clients, each setting and clearing its own bits (offset mod 8 = its
# number) all over the value: their SETBITs merge into trains (how many depends on how
# fast they arrive), each applied to the copy the train before it kept. The value must
# be exactly the file with each client's writes applied in its order, in A's cache and
# in the database (instance B loads it).
python3 - "$T/big" "$T/many" "${P}big" <<'PY'
import random, sys
path, out, key = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(path, 'rb').read())
rnd = random.Random(7)
for n in range(8):
    with open(f"{out}.{n}", "w") as f:
        for _ in range(500):
            off = rnd.randrange(len(b)) * 8 + n
            val = rnd.randrange(2)
            f.write(f"SETBIT {key} {off} {val}\r\n")
            mask = 0x80 >> (off % 8)
            b[off // 8] = (b[off // 8] | mask) if val else (b[off // 8] & ~mask)
open(path, 'wb').write(bytes(b))
PY
pids=()
for n in 0 1 2 3 4 5 6 7; do
  timeout 60 redis-cli -h 127.0.0.1 -p "$A_R" --pipe <"$T/many.$n" >"$T/many.$n.out" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}" || true # (not a bare wait: the services are children of this shell too)
check "8 clients' 4,000 SETBITs answered without an error" 8 "$(grep -l 'errors: 0, replies: 500' "$T"/many.?.out | wc -l)"
RPORT=$A_R
get_equals "GET after them is the file with every client's writes in its order" "${P}big" "$T/big"
RPORT=$B_R
get_equals "instance B loads the same value from the database" "${P}big" "$T/big"
RPORT=$A_R

# ---- a big message box: pushes, reads and a retraction of a few ids --------------------
# The box's push bitmap (half of 800,000 ids, about 100 KB dense) is chunked; each later
# request changes a few containers of it and of the read bitmap, which a train applies
# to the kept copy and re-encodes only there. Checked against the set computed here,
# from the database (every member, through bitmapd.value) and in the answers' counts.
U=$((7000000000 + $$))
python3 - "$T/box" <<'PY'
import json, random, sys
rnd = random.Random(11)
ids = sorted(rnd.sample(range(800000), 400000))
for i in (0, 1):
    json.dump({"messages": ids[i * 200000:(i + 1) * 200000]}, open(f"{sys.argv[1]}.push{i}", "w"))
push, read = set(ids), set()
ops = []
for j in range(30):
    x = rnd.randrange(800000)
    ops.append(("pushes", x)); push.add(x)
    if j % 3 == 0:
        y = rnd.choice(sorted(push)); ops.append(("reads", y)); read.add(y)
gone = rnd.choice(sorted(read)); ops.append(("retract", gone)); push.discard(gone); read.discard(gone)
with open(f"{sys.argv[1]}.ops", "w") as f:
    for op, x in ops: f.write(f"{op} {x}\n")
with open(f"{sys.argv[1]}.want", "w") as f:
    f.write(f"{len(push)}|{sum(push)}|{len(read)}|{sum(read)}\n")
PY
for i in 0 1; do
  curl -s -o /dev/null -w '%{http_code}\n' -X POST -H 'Content-Type: application/json' --data-binary @"$T/box.push$i" \
    "$A_URL/v1/users/$U/pushes" >>"$T/box.codes"
done
while read -r op x; do
  if [[ $op == retract ]]; then
    curl -s -o /dev/null -w '%{http_code}\n' -X DELETE "$A_URL/v1/users/$U/messages/$x" >>"$T/box.codes"
  else
    curl -s -o /dev/null -w '%{http_code}\n' -X POST -H 'Content-Type: application/json' -d "{\"messages\": [$x]}" \
      "$A_URL/v1/users/$U/$op" >>"$T/box.codes"
  fi
done <"$T/box.ops"
check "every push, read and retraction of the big box answered 200" "$(wc -l <"$T/box.codes")" "$(grep -c '^200$' "$T/box.codes")"
members_of() { sql "SELECT count(*) || '|' || coalesce(sum(m), 0) FROM bitmapd.bitmaps b,
                      bitmapd.members(bitmapd.value(b.key, b.bits)) m WHERE b.key = convert_to('$1', 'UTF8')"; }
check "the box's push bitmap is chunked (empty head bits)" 0 \
  "$(sql "SELECT octet_length(bits) FROM bitmapd.bitmaps WHERE key = convert_to('message:push:$U', 'UTF8')")"
check "its pushed and read members in the database are the expected sets" "$(cat "$T/box.want")" \
  "$(members_of "message:push:$U")|$(members_of "message:read:$U")"

# ---- shrinking and growing across the threshold -----------------------------------------
check "SETRANGE into a chunked value" "$(wc -c <"$T/big")" "$(rcli SETRANGE "${P}big" 5 hello 2>&1)"
python3 -c "
import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[5:10] = b'hello'; open(p, 'wb').write(bytes(b))" "$T/big"
get_equals "GET after SETRANGE" "${P}big" "$T/big"
printf 'small' >"$T/small"
check "SET a small value over the chunked key" OK "$(rcli SET "${P}big" small 2>&1)"
check "the key is one row again (bits in the head), its chunks are gone" "t|0" \
  "$(sql "SELECT octet_length(bits) > 0 FROM bitmapd.bitmaps WHERE key = $(kb big)")|$(sql "SELECT count(*) FROM bitmapd.chunks WHERE key = $(kb big)")"
get_equals "GET gives the small value" "${P}big" "$T/small"
check "SETBIT far out grows it past 8 KiB of sparse members" 0 "$(rcli SETBIT "${P}big" 4000000000 1 2>&1)"
for i in $(seq 1 3000); do printf 'SETBIT %s %d 1\n' "${P}big" $((i * 1300017)); done >"$T/cmds"
rcli < "$T/cmds" >/dev/null
IFS='|' read -r head nchunks largest sums <<<"$(layout big)"
check "3,000 sparse members over 4e9 bits: chunked again (empty head bits, more than one chunk)" "0|yes|t" \
  "$head|$([[ $nchunks -gt 1 ]] && echo yes || echo "no: $nchunks")|$sums"
check "BITCOUNT of the sparse value" "$(($(popcount_file "$T/small") + 3001))" "$(rcli BITCOUNT "${P}big" 2>&1)"
check "DEL of a chunked key" 1 "$(rcli DEL "${P}big" 2>&1)"
check "a deleted key is one row B1 00 and no chunk" "b100|0" \
  "$(sql "SELECT encode(bits, 'hex') || '|' || (SELECT count(*) FROM bitmapd.chunks WHERE key = $(kb big)) FROM bitmapd.bitmaps WHERE key = $(kb big)")"
check "EXISTS after DEL" 0 "$(rcli EXISTS "${P}big" 2>&1)"

# BITOP with chunked operands and a chunked destination
randbytes 100000 21 >"$T/x"
randbytes 120000 22 >"$T/y"
rcli -x SET "${P}x" <"$T/x" >/dev/null
rcli -x SET "${P}y" <"$T/y" >/dev/null
check "BITOP XOR of two chunked values answers the longer length" 120000 "$(rcli BITOP XOR "${P}z" "${P}x" "${P}y" 2>&1)"
python3 -c "
import sys; x = open(sys.argv[1], 'rb').read(); y = open(sys.argv[2], 'rb').read(); x = x + bytes(len(y) - len(x))
open(sys.argv[3], 'wb').write(bytes(a ^ b for a, b in zip(x, y)))" "$T/x" "$T/y" "$T/z"
get_equals "BITOP XOR result, chunked, byte for byte" "${P}z" "$T/z"
check "the BITOP destination is chunked" 0 "$(layout z | cut -d'|' -f1)"

# ---- psql: views and functions read chunked bitmaps whole ---------------------------------
check "bitmapd.members(bitmapd.value()) of the chunked XOR has BITCOUNT members" \
  "$(rcli BITCOUNT "${P}z")" "$(sql "SELECT count(*) FROM bitmapd.bitmaps b, bitmapd.members(bitmapd.value(b.key, b.bits)) WHERE b.key = $(kb z)")"
check "bitmapd.keys: bytes stored are the chunks' bytes, length is STRLEN" \
  "$(sql "SELECT sum(octet_length(bits)) FROM bitmapd.chunks WHERE key = $(kb z)")|120000" \
  "$(sql "SELECT bytes_stored || '|' || length FROM bitmapd.keys WHERE key_bytes = $(kb z)")"
check "bitmapd.to_roaring(bitmapd.value()) is a Roaring value of the same members" \
  "roaring|$(rcli BITCOUNT "${P}z")" \
  "$(sql "SELECT bitmapd.encoding(r) || '|' || (SELECT count(*) FROM bitmapd.members(r))
            FROM (SELECT bitmapd.to_roaring(bitmapd.value(key, bits)) AS r FROM bitmapd.bitmaps WHERE key = $(kb z)) s")"

# ---- a damaged chunk ------------------------------------------------------------------------
# the head is touched too, so that the instances' caches drop their copies (a change of
# bitmapd.chunks alone is not announced: only bitmapd writes chunks)
sql "UPDATE bitmapd.chunks SET bits = '\\xdeadbeef' WHERE key = $(kb x) AND lo = (SELECT min(lo) FROM bitmapd.chunks WHERE key = $(kb x));
     UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = $(kb x)"
sleep 0.3
check_match "GETBIT on the damaged key: an error naming the key as corrupt" "corrupt.*${P}x|${P}x.*corrupt" \
  "$(rcli GETBIT "${P}x" 5 2>&1)"
before=$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = $(kb x)")
check_match "SETBIT on the damaged key is refused" "corrupt" "$(rcli SETBIT "${P}x" 5 1 2>&1)"
check "the damaged chunk is not overwritten, the version does not move" "deadbeef|$before" \
  "$(sql "SELECT encode(c.bits, 'hex') || '|' || b.version FROM bitmapd.chunks c JOIN bitmapd.bitmaps b ON b.key = c.key
           WHERE c.key = $(kb x) ORDER BY c.lo LIMIT 1")"
check "the log names the damaged chunk" yes \
  "$(grep -q 'chunked bitmap unreadable.*chunk 0\.\.' "$BITMAPD_TEST_TMP"/bitmapd.*.log && echo yes || echo no)"
get_equals "another chunked key is unaffected" "${P}y" "$T/y"
# a chunk row deleted by hand: the head no longer names the chunks that are left
sql "DELETE FROM bitmapd.chunks WHERE key = $(kb y) AND lo = (SELECT max(lo) FROM bitmapd.chunks WHERE key = $(kb y));
     UPDATE bitmapd.bitmaps SET updated_at = now() WHERE key = $(kb y)"
sleep 0.3
check_match "BITCOUNT of a key missing a chunk: an error naming the key as corrupt" "corrupt.*${P}y|${P}y.*corrupt" \
  "$(rcli BITCOUNT "${P}y" 2>&1)"
check "the log says its chunks are not the ones its head names" yes \
  "$(grep -q "chunked bitmap unreadable.*${P}y.*not the ones its head row names" "$BITMAPD_TEST_TMP"/bitmapd.*.log && echo yes || echo no)"
sql "DELETE FROM bitmapd.chunks WHERE key = $(kb y); DELETE FROM bitmapd.bitmaps WHERE key = $(kb y)"
sql "DELETE FROM bitmapd.chunks WHERE key = $(kb x); DELETE FROM bitmapd.bitmaps WHERE key = $(kb x)"
# a head whose flips were changed by hand: its checksum no longer names them
randbytes 100000 9 >"$T/fl"
rcli -x SET "${P}fl" <"$T/fl" >/dev/null
rcli SETBIT "${P}fl" 12345 "$((1 - $(rcli GETBIT "${P}fl" 12345)))" >/dev/null
check "a few SETBITs leave flips in the head" t "$(sql "SELECT flips IS NOT NULL FROM bitmapd.bitmaps WHERE key = $(kb fl)")"
sql "UPDATE bitmapd.bitmaps SET flips = '\\xb1000f' WHERE key = $(kb fl)"
sleep 0.3
check_match "GETBIT of a key whose flips were damaged: an error naming the key as corrupt" "corrupt.*${P}fl|${P}fl.*corrupt" \
  "$(rcli GETBIT "${P}fl" 5 2>&1)"
check "the log says its chunks and flips are not the ones its head names" yes \
  "$(grep -q "chunked bitmap unreadable.*${P}fl.*chunk rows and flips are not the ones its head row names" "$BITMAPD_TEST_TMP"/bitmapd.*.log && echo yes || echo no)"
sql "DELETE FROM bitmapd.chunks WHERE key = $(kb fl); DELETE FROM bitmapd.bitmaps WHERE key = $(kb fl)"

# ---- bitmapd --migrate cuts big rows of the old layout, online, restartable ----------------
# Old-layout rows are made by hand: the Roaring bytes of a chunked value become its bits
# (with their CRC-32C), its chunks are deleted.
crc_of_hex() { # CRC-32C (Castagnoli) of the hex on stdin
  python3 -c "
import sys
t = []
for i in range(256):
    c = i
    for _ in range(8): c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    t.append(c)
c = 0xFFFFFFFF
for x in bytes.fromhex(sys.stdin.read().strip()): c = t[(c ^ x) & 0xFF] ^ (c >> 8)
print(c ^ 0xFFFFFFFF)"
}
to_one_row() { # NAME — the chunked key NAME rewritten in the layout of before migration 0008
  local hex
  hex=$(sql "SELECT encode(bitmapd.value(key, bits), 'hex') FROM bitmapd.bitmaps WHERE key = $(kb "$1")")
  # through stdin: the statement is longer than one command-line argument may be
  psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 <<SQL
UPDATE bitmapd.bitmaps SET bits = decode('$hex', 'hex'), checksum = $(crc_of_hex <<<"$hex") WHERE key = $(kb "$1");
DELETE FROM bitmapd.chunks WHERE key = $(kb "$1");
SQL
}
NM=30
for i in $(seq 1 $NM); do
  randbytes 100000 $((100 + i)) >"$T/m$i"
  rcli -x SET "${P}m$i" <"$T/m$i" >/dev/null
  to_one_row "m$i"
done
check "$NM big values in the old one-row layout" $NM \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key >= $(kb m) AND key < $(kb n) AND octet_length(bits) > 8192")"
get_equals "an old-layout row reads as before (cache dropped by the UPDATE)" "${P}m3" "$T/m3"
old=$(rcli GETBIT "${P}m3" 7)
check "SETBIT on an old-layout big row answers the old bit" "$old" "$(rcli SETBIT "${P}m3" 7 $((1 - old)) 2>&1)"
setbit_file "$T/m3" 7 $((1 - old))
check "a write cuts an old-layout row into chunks" 0 "$(layout m3 | cut -d'|' -f1)"
# kill -9 the migration once it has cut its first key (if it finished first, the rerun
# has nothing left to do; the count below says which)
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate1.log" 2>&1) &
mpid=$!
for i in $(seq 1 500); do
  [[ $(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key >= $(kb m) AND key < $(kb n) AND octet_length(bits) = 0") -gt 1 ]] && break
  sleep 0.01
done
kill -KILL $mpid 2>/dev/null
wait $mpid 2>/dev/null
echo "# after kill -9 of the first --migrate: $(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key >= $(kb m) AND key < $(kb n) AND octet_length(bits) > 8192") old-layout rows left"
get_equals "during the migration's pause the service answers" "${P}m5" "$T/m5"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate2.log" 2>&1) &
mpid=$!
for i in 1 2 3 4 5; do rcli GETBIT "${P}m$i" 3 >/dev/null; done # served while it runs
wait $mpid
check "the second --migrate exits 0" 0 "$?"
check "no big row is left in the old layout" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE octet_length(bits) > 8192")"
bad=0
for i in $(seq 1 $NM); do
  [[ $(layout "m$i" | cut -d'|' -f1,4) == "0|t" ]] || { bad=$((bad + 1)); echo "# m$i: layout $(layout "m$i")"; }
  redis-cli -h 127.0.0.1 -p "$RPORT" --raw GET "${P}m$i" | head -c -1 >"$T/got"
  cmp -s "$T/got" "$T/m$i" || { bad=$((bad + 1)); echo "# m$i: GET gives $(wc -c <"$T/got") bytes: $(head -c 100 "$T/got")"; }
done
check "all $NM are chunked and GET gives each back byte for byte" 0 "$bad"
check "the versions did not move (only m3 was written)" "1|2" \
  "$(sql "SELECT min(version) || '|' || max(version) FROM bitmapd.bitmaps WHERE key >= $(kb m) AND key < $(kb n)")"

# ---- a head cut behind an instance's back (no notification): the write aborts, is
# retried through the statement that writes chunk rows, and leaves none behind ----------
for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
start_service --set postgres.chunk_bytes=1048576 || finish # one row up to 1 MiB
randbytes 100000 31 >"$T/w"
check "an instance that cuts at 1 MiB keeps 100 KB in one row" OK "$(rcli -x SET "${P}w" <"$T/w" 2>&1)"
check "it is one row" t "$(sql "SELECT octet_length(bits) > 8192 FROM bitmapd.bitmaps WHERE key = $(kb w)")"
get_equals "GET (now cached by that instance)" "${P}w" "$T/w"
sql "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER bitmaps_changed_update"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate3.log" 2>&1)
sql "ALTER TABLE bitmapd.bitmaps ENABLE TRIGGER bitmaps_changed_update"
check "--migrate cut it, same version, and no instance was told" "0|1" \
  "$(sql "SELECT octet_length(bits) || '|' || version FROM bitmapd.bitmaps WHERE key = $(kb w)")"
conflicts() { curl -s "$BASE_URL/metrics" | sed -n 's/^bitmapd_write_conflicts_total //p'; }
c0=$(conflicts)
old=$(rcli GETBIT "${P}w" 8)
check "SETBIT from the instance that still holds the one-row copy" "$old" "$(rcli SETBIT "${P}w" 8 $((1 - old)) 2>&1)"
check "its first attempt met the chunked head and was retried (bitmapd_write_conflicts_total +1)" 1 $(($(conflicts) - c0))
setbit_file "$T/w" 8 $((1 - old))
check "the key is one row again and no chunk row is left behind" "true|0|2" \
  "$(sql "SELECT (octet_length(bits) > 0) || '|' || (SELECT count(*) FROM bitmapd.chunks WHERE key = $(kb w)) || '|' || version
            FROM bitmapd.bitmaps WHERE key = $(kb w)")"
get_equals "GET after the retried write" "${P}w" "$T/w"
# The same behind-the-back cut met by a statement of two keys' writes: the statement
# aborts as a conflict, both are retried, and the chunked key's goes out as chunks.
check "a small key beside it" 0 "$(rcli SETBIT "${P}s" 1 1 2>&1)"
sql "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER bitmaps_changed_update"
(cd "$BITMAPD_ROOT" && BITMAPD_DSN=$OWNER_DSN "$BITMAPD_BIN" --migrate >"$T/migrate4.log" 2>&1)
sql "ALTER TABLE bitmapd.bitmaps ENABLE TRIGGER bitmaps_changed_update"
check "--migrate cut it again behind the instance's back" 0 \
  "$(sql "SELECT octet_length(bits) FROM bitmapd.bitmaps WHERE key = $(kb w)")"
c0=$(conflicts)
old=$(rcli GETBIT "${P}w" 11)
check "one pipeline of SETBITs of both keys answers both old bits" "$old 0" \
  "$(resp_pipeline "$RPORT" "SETBIT ${P}w 11 $((1 - old))" "SETBIT ${P}s 2 1")"
check "the statement met the chunked head and was retried (bitmapd_write_conflicts_total grew)" yes \
  "$(c1=$(conflicts); [[ $((c1 - c0)) -ge 1 ]] && echo yes || echo "no: $c0 -> $c1")"
setbit_file "$T/w" 11 $((1 - old))
get_equals "GET of the chunked key after its retried write" "${P}w" "$T/w"
check "the small key holds both bits" "1 1" "$(rcli GETBIT "${P}s" 1) $(rcli GETBIT "${P}s" 2)"
check "no chunk row is left behind and the key is one row" "true|0" \
  "$(sql "SELECT (octet_length(bits) > 0) || '|' || (SELECT count(*) FROM bitmapd.chunks WHERE key = $(kb w))
            FROM bitmapd.bitmaps WHERE key = $(kb w)")"
stop_service
start_service || finish
get_equals "GET from a fresh instance" "${P}w" "$T/w"

# ---- a chunk directory gone stale behind an instance's back (no notification): the
# short statement for one chunked key matches no head and writes nothing -----------------
old=$(rcli GETBIT "${P}w" 9)
check "SETBIT from an instance that cuts at 8 KiB" "$old" "$(rcli SETBIT "${P}w" 9 $((1 - old)) 2>&1)"
setbit_file "$T/w" 9 $((1 - old))
check "the value is chunked now" 0 "$(layout w | cut -d'|' -f1)"
sql "ALTER TABLE bitmapd.bitmaps DISABLE TRIGGER bitmaps_changed_update;
     UPDATE bitmapd.bitmaps SET updated_at = updated_at WHERE key = $(kb w);
     ALTER TABLE bitmapd.bitmaps ENABLE TRIGGER bitmaps_changed_update"
c0=$(conflicts)
v0=$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = $(kb w)")
old=$(rcli GETBIT "${P}w" 10)
check "SETBIT after the head was rewritten by hand at the same version" "$old" "$(rcli SETBIT "${P}w" 10 $((1 - old)) 2>&1)"
setbit_file "$T/w" 10 $((1 - old))
check "its first attempt found the head written by another transaction and was retried" 1 $(($(conflicts) - c0))
check "the retry wrote one version" $((v0 + 1)) "$(sql "SELECT version FROM bitmapd.bitmaps WHERE key = $(kb w)")"
get_equals "GET after the retried write" "${P}w" "$T/w"
stop_service
start_service || finish
get_equals "GET from a fresh instance: chunks and head agree" "${P}w" "$T/w"
for p in "${!_SERVICE_PIDS[@]}"; do stop_service "$p"; done
sql "DELETE FROM bitmapd.chunks WHERE key >= convert_to('$P', 'UTF8') AND key < convert_to('chunks:$$;', 'UTF8');
     DELETE FROM bitmapd.bitmaps WHERE key >= convert_to('$P', 'UTF8') AND key < convert_to('chunks:$$;', 'UTF8')"
finish
