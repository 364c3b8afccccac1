#!/usr/bin/env bash
# Key expiry over RESP (issue 16), with the real redis-cli: EXPIRE PEXPIRE EXPIREAT
# PEXPIREAT with NX/XX/GT/LT, TTL PTTL EXPIRETIME PEXPIRETIME, PERSIST, GETEX, SET's
# EX/PX/EXAT/PXAT/KEEPTTL, Redis 7.0's error texts and order of checks, which writes
# keep, clear or carry a deadline, deadlines in the past deleting, and keys actually
# expiring: absent at once for every command and on every instance.
set -uo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

# in_range NAME LO HI redis-cli-args... — an integer reply within [LO, HI]
in_range() {
  local name=$1 lo=$2 hi=$3 got
  shift 3
  got=$(rcli "$@" 2>&1)
  check "$name ($got in $lo..$hi)" yes \
    "$([[ $got =~ ^-?[0-9]+$ ]] && ((got >= lo && got <= hi)) && echo yes || echo no)"
}

start_service || finish

NOW=$(date +%s)
FAR=$((NOW + 100000000))        # about three years ahead: EXPIREAT, EXAT
FAR_MS=$((FAR * 1000 + 123))    # PEXPIREAT, PXAT, exact to the ms
rcli DEL x:nokey >/dev/null

echo "# argument errors: options first, then their combinations, then the number"
rc "EXPIRE with an unknown option: Redis's text, as given" "ERR Unsupported option foo" EXPIRE x:k 10 foo
rc "an unknown option before incompatible ones" "ERR Unsupported option BAR" EXPIRE x:k 10 NX XX BAR
rc "NX and XX" "ERR NX and XX, GT or LT options at the same time are not compatible" EXPIRE x:k 10 nx Xx
rc "NX and GT" "ERR NX and XX, GT or LT options at the same time are not compatible" PEXPIRE x:k 10 NX GT
rc "NX and LT" "ERR NX and XX, GT or LT options at the same time are not compatible" EXPIREAT x:k 10 LT NX
rc "GT and LT" "ERR GT and LT options at the same time are not compatible" PEXPIREAT x:k 10 GT LT
rc "XX and GT go together" 0 EXPIRE x:nokey 10 XX GT
rc "incompatible options before a bad number" "ERR GT and LT options at the same time are not compatible" \
  EXPIRE x:k abc GT LT
rc "not an integer" "ERR value is not an integer or out of range" EXPIRE x:k abc
rc "not an integer (1.5)" "ERR value is not an integer or out of range" PEXPIRE x:k 1.5
rc "EXPIRE 2^63-1 s overflows" "ERR invalid expire time in 'expire' command" EXPIRE x:nokey 9223372036854775807
rc "EXPIRE -2^63 s overflows" "ERR invalid expire time in 'expire' command" EXPIRE x:nokey -9223372036854775808
rc "PEXPIRE 2^63-1 ms overflows with now added" "ERR invalid expire time in 'pexpire' command" \
  PEXPIRE x:nokey 9223372036854775807
rc "EXPIREAT 2^63-1 s overflows" "ERR invalid expire time in 'expireat' command" EXPIREAT x:nokey 9223372036854775807
rc "PEXPIREAT 2^63-1 ms is a time (missing key: 0)" 0 PEXPIREAT x:nokey 9223372036854775807
rc "EXPIRE without a time: arity" "ERR wrong number of arguments for 'expire' command" EXPIRE x:k
rc "TTL with two keys: arity" "ERR wrong number of arguments for 'ttl' command" TTL a b

echo "# a missing key"
rc "EXPIRE of a missing key" 0 EXPIRE x:nokey 100
rc "PEXPIREAT of a missing key" 0 PEXPIREAT x:nokey "$FAR_MS"
rc "TTL of a missing key" -2 TTL x:nokey
rc "PTTL of a missing key" -2 PTTL x:nokey
rc "EXPIRETIME of a missing key" -2 EXPIRETIME x:nokey
rc "PEXPIRETIME of a missing key" -2 PEXPIRETIME x:nokey
rc "PERSIST of a missing key" 0 PERSIST x:nokey
rc "EXPIRE of a missing key created nothing" 0 EXISTS x:nokey

echo "# deadlines, absolute and relative"
rcli SET x:a v >/dev/null
rc "TTL without a deadline" -1 TTL x:a
rc "PTTL without a deadline" -1 PTTL x:a
rc "EXPIRETIME without a deadline" -1 EXPIRETIME x:a
rc "PEXPIRETIME without a deadline" -1 PEXPIRETIME x:a
rc "PERSIST without a deadline" 0 PERSIST x:a
rc "EXPIREAT far ahead" 1 EXPIREAT x:a "$FAR"
rc "EXPIRETIME answers it" "$FAR" EXPIRETIME x:a
rc "PEXPIRETIME in ms" "$((FAR * 1000))" PEXPIRETIME x:a
in_range "TTL counts down to it" $((FAR - $(date +%s) - 2)) $((FAR - NOW + 1)) TTL x:a
rc "PEXPIREAT exact to the ms" 1 PEXPIREAT x:a "$FAR_MS"
rc "PEXPIRETIME exact" "$FAR_MS" PEXPIRETIME x:a
rc "EXPIRETIME rounds to the nearest second" "$FAR" EXPIRETIME x:a
rc "the same deadline again: 1" 1 PEXPIREAT x:a "$FAR_MS"
rc "EXPIRE 1000" 1 EXPIRE x:a 1000
rc "TTL right after EXPIRE 1000 is 1000" 1000 TTL x:a
in_range "PTTL right after EXPIRE 1000" 990000 1000000 PTTL x:a
rc "PEXPIRE 100499" 1 PEXPIRE x:a 100499
rc "TTL rounds 100.4 s to 100" 100 TTL x:a
rcli SET x:a v PXAT "$((FAR_MS + 400))" >/dev/null
rc "EXPIRETIME rounds .523 up" "$((FAR + 1))" EXPIRETIME x:a
rc "the value is still there" v GET x:a

echo "# NX XX GT LT"
rcli SET x:f v >/dev/null
rc "XX without a deadline: 0" 0 EXPIRE x:f 100 XX
rc "GT without a deadline (infinite): 0" 0 EXPIRE x:f 100 GT
rc "TTL still none" -1 TTL x:f
rc "LT without a deadline sets one" 1 EXPIRE x:f 100 LT
in_range "TTL after LT" 99 100 TTL x:f
rc "NX with a deadline: 0" 0 EXPIRE x:f 200 NX
rc "XX with a deadline" 1 EXPIRE x:f 200 xx
rc "GT with a smaller one: 0" 0 EXPIRE x:f 100 GT
rc "GT with a larger one" 1 EXPIRE x:f 300 gt
rc "LT with a larger one: 0" 0 EXPIRE x:f 400 LT
rc "LT with a smaller one" 1 EXPIRE x:f 50 lt
in_range "TTL is the last one set" 49 50 TTL x:f
rc "XX GT together" 1 EXPIRE x:f 60 XX GT
rc "PEXPIREAT exact" 1 PEXPIREAT x:f "$FAR_MS"
rc "GT with the same deadline: 0" 0 PEXPIREAT x:f "$FAR_MS" GT
rc "LT with the same deadline: 0" 0 PEXPIREAT x:f "$FAR_MS" LT
rc "GT one ms later" 1 PEXPIREAT x:f "$((FAR_MS + 1))" GT
rc "PEXPIRETIME moved by 1 ms" "$((FAR_MS + 1))" PEXPIRETIME x:f
rcli SET x:n v >/dev/null
rc "NX without a deadline sets one" 1 PEXPIRE x:n 100000 NX
in_range "its TTL" 99 100 TTL x:n

echo "# a deadline at or before now deletes the key (and answers 1)"
rcli SET x:p v >/dev/null
rc "EXPIRE 0" 1 EXPIRE x:p 0
rc "the key is gone" 0 EXISTS x:p
rcli SET x:p v >/dev/null
rc "EXPIRE -10" 1 EXPIRE x:p -10
rc "gone" "" GET x:p
rcli SET x:p v >/dev/null
rc "EXPIREAT 1 (1970)" 1 EXPIREAT x:p 1
rc "gone" 0 EXISTS x:p
rcli SET x:p v >/dev/null
rc "PEXPIREAT -5" 1 PEXPIREAT x:p -5
rc "gone" 0 EXISTS x:p
rcli SET x:p v >/dev/null
rc "GT with a past deadline on a key without one: 0, kept" 0 EXPIRE x:p -1 GT
rc "still there" 1 EXISTS x:p
rc "LT with a past deadline on a key without one: deleted" 1 EXPIRE x:p -1 LT
rc "gone" 0 EXISTS x:p
rcli SET x:p v EX 100 >/dev/null
rc "XX with a past deadline on a key with one: deleted" 1 EXPIREAT x:p 100 XX
rc "gone, and TTL says so" -2 TTL x:p

echo "# PERSIST"
rcli SET x:q v EX 100 >/dev/null
rc "PERSIST of a key with a deadline" 1 PERSIST x:q
rc "TTL is none" -1 TTL x:q
rc "PERSIST again" 0 PERSIST x:q
rc "the value is kept" v GET x:q

echo "# SET EX PX EXAT PXAT KEEPTTL"
rc "SET EX" OK SET x:s v EX 100
in_range "TTL after SET EX 100" 99 100 TTL x:s
rc "SET PX" OK SET x:s v PX 200000
in_range "TTL after SET PX 200000" 199 200 TTL x:s
rc "SET EXAT" OK SET x:s v EXAT "$FAR"
rc "EXPIRETIME after SET EXAT" "$FAR" EXPIRETIME x:s
rc "SET PXAT" OK SET x:s v1 PXAT "$FAR_MS"
rc "PEXPIRETIME after SET PXAT" "$FAR_MS" PEXPIRETIME x:s
rc "SET KEEPTTL" OK SET x:s v2 KEEPTTL
rc "KEEPTTL kept the deadline" "$FAR_MS" PEXPIRETIME x:s
rc "and set the value" v2 GET x:s
rc "SET GET KEEPTTL answers the old value" v2 SET x:s v3 GET KEEPTTL
rc "the deadline is still kept" "$FAR_MS" PEXPIRETIME x:s
rc "a plain SET clears it" OK SET x:s v4
rc "TTL none after a plain SET" -1 TTL x:s
rc "KEEPTTL on a key without one" OK SET x:s v5 KEEPTTL
rc "still none" -1 TTL x:s
rc "the same option twice: the last wins" OK SET x:s v EX 10 EX 1000
rc "TTL 1000" 1000 TTL x:s
rc "SET PXAT 2^63-1 is a deadline" OK SET x:s v PXAT 9223372036854775807
rc "PEXPIRETIME 2^63-1" 9223372036854775807 PEXPIRETIME x:s
rc "EXPIRETIME of it rounds without overflow, as Redis" 9223372036854776 EXPIRETIME x:s
check_match "TTL of it: some 292 million years" '^9223[0-9]{12}$' "$(rcli TTL x:s)"
rc "SET NX EX on a missing key" OK SET x:sn v NX EX 100
in_range "its TTL" 99 100 TTL x:sn
rc "SET XX PX on an existing key" OK SET x:sn w XX PX 50000
in_range "its TTL" 49 50 TTL x:sn
rc "SET NX EX on an existing key: nil, unchanged" "" SET x:sn z NX EX 1000
in_range "TTL unchanged" 49 50 TTL x:sn
rc "SET EXAT in the past: OK" OK SET x:sp v EXAT 1
rc "and the key is absent at once" 0 EXISTS x:sp
rcli SET x:sp old >/dev/null
rc "SET PXAT in the past with GET: the old value" old SET x:sp new PXAT 1000 GET
rc "and the key is absent" "" GET x:sp
rc "SET EX 0" "ERR invalid expire time in 'set' command" SET x:s v EX 0
rc "SET EX -1" "ERR invalid expire time in 'set' command" SET x:s v EX -1
rc "SET PX 0" "ERR invalid expire time in 'set' command" SET x:s v PX 0
rc "SET EXAT 0" "ERR invalid expire time in 'set' command" SET x:s v EXAT 0
rc "SET EX not a number" "ERR value is not an integer or out of range" SET x:s v EX ten
rc "SET EX 2^63-1 s" "ERR invalid expire time in 'set' command" SET x:s v EX 9223372036854775807
rc "SET PX 2^63-1 ms overflows with now added" "ERR invalid expire time in 'set' command" \
  SET x:s v PX 9223372036854775807
rc "SET EXAT 2^63/1000 s" "ERR invalid expire time in 'set' command" SET x:s v EXAT 9223372036854776
rc "the time is checked before XX on a missing key" "ERR invalid expire time in 'set' command" \
  SET x:nokey v XX EX 0
rc "... and before GET" "ERR invalid expire time in 'set' command" SET x:s v GET PX -5
rc "nothing changed by the failed SETs" v GET x:s
rc "SET EX without its value" "ERR syntax error" SET x:s v EX
rc "SET EX PX" "ERR syntax error" SET x:s v EX 10 PX 10000
rc "SET EXAT PXAT" "ERR syntax error" SET x:s v EXAT "$FAR" PXAT "$FAR_MS"
rc "SET EX KEEPTTL" "ERR syntax error" SET x:s v EX 10 KEEPTTL
rc "SET KEEPTTL PXAT" "ERR syntax error" SET x:s v KEEPTTL PXAT "$FAR_MS"
rc "SET PERSIST is GETEX's" "ERR syntax error" SET x:s v PERSIST
rc "SET NX XX" "ERR syntax error" SET x:s v NX XX
rc "SET EX 0 then a syntax error: the syntax error" "ERR syntax error" SET x:s v EX 0 FOO

echo "# GETEX"
rcli SET x:g hello >/dev/null
rc "GETEX without an option is GET" hello GETEX x:g
rc "and sets nothing" -1 TTL x:g
rc "GETEX EX" hello GETEX x:g EX 100
in_range "TTL after GETEX EX 100" 99 100 TTL x:g
rc "GETEX with no option keeps the deadline" hello GETEX x:g
in_range "TTL kept" 98 100 TTL x:g
rc "GETEX PX" hello GETEX x:g PX 200000
in_range "TTL after GETEX PX 200000" 199 200 TTL x:g
rc "GETEX EXAT" hello GETEX x:g exat "$FAR"
rc "EXPIRETIME after GETEX EXAT" "$FAR" EXPIRETIME x:g
rc "GETEX PXAT" hello GETEX x:g PXAT "$FAR_MS"
rc "PEXPIRETIME after GETEX PXAT" "$FAR_MS" PEXPIRETIME x:g
rc "GETEX PERSIST" hello GETEX x:g persist
rc "TTL none after GETEX PERSIST" -1 TTL x:g
rc "GETEX EX twice: the last wins" hello GETEX x:g EX 10 EX 1000
rc "TTL 1000" 1000 TTL x:g
rc "GETEX of a missing key: nil" "" GETEX x:nokey EX 100
rc "GETEX of a missing key with a bad time: nil" "" GETEX x:nokey EX abc
rc "GETEX of a missing key with time 0: nil" "" GETEX x:nokey PX 0
rc "GETEX EX not a number" "ERR value is not an integer or out of range" GETEX x:g EX abc
rc "GETEX EX 0" "ERR invalid expire time in 'getex' command" GETEX x:g EX 0
rc "GETEX EX -5" "ERR invalid expire time in 'getex' command" GETEX x:g EX -5
rc "GETEX PXAT 0" "ERR invalid expire time in 'getex' command" GETEX x:g PXAT 0
rc "GETEX EX 2^63-1 s" "ERR invalid expire time in 'getex' command" GETEX x:g EX 9223372036854775807
rc "GETEX PX 2^63-1 ms overflows with now added" "ERR invalid expire time in 'getex' command" \
  GETEX x:g PX 9223372036854775807
in_range "the deadline unchanged by the failed GETEXs" 999 1000 TTL x:g
rc "GETEX EX without its value" "ERR syntax error" GETEX x:g EX
rc "GETEX EX PX" "ERR syntax error" GETEX x:g EX 10 PX 10
rc "GETEX PERSIST EX" "ERR syntax error" GETEX x:g PERSIST EX 10
rc "GETEX EX PERSIST" "ERR syntax error" GETEX x:g EX 10 PERSIST
rc "GETEX NX is SET's" "ERR syntax error" GETEX x:g NX
rc "GETEX KEEPTTL is SET's" "ERR syntax error" GETEX x:g KEEPTTL
rc "GETEX GET is SET's" "ERR syntax error" GETEX x:g GET
rc "GETEX EXAT in the past answers the value" hello GETEX x:g EXAT 1
rc "and deletes the key" 0 EXISTS x:g
rc "GETEX without a key: arity" "ERR wrong number of arguments for 'getex' command" GETEX

echo "# writes that keep the deadline: SETBIT SETRANGE APPEND INCR BITFIELD R.APPENDINTARRAY SETNX"
for cmd in "SETBIT x:w 0 1" "SETRANGE x:w 1 ab" "APPEND x:w cd" "BITFIELD x:w SET u8 0 65" \
  "R.APPENDINTARRAY x:w 100" "SETNX x:w other" "SET x:w 5 KEEPTTL" "INCR x:w" "DECRBY x:w 2"; do
  rcli SET x:w 1 PXAT "$FAR_MS" >/dev/null
  # shellcheck disable=SC2086 # the command's words
  rcli $cmd >/dev/null
  rc "$cmd keeps the deadline" "$FAR_MS" PEXPIRETIME x:w
done

echo "# writes that clear it: SET GETSET MSET MSETNX BITOP R.SETINTARRAY, and DEL GETDEL UNLINK"
clear_check() { # NAME COMMAND... — x:c with a deadline, then COMMAND; TTL must be -1 (or -2)
  local name=$1
  shift
  rcli SET x:c v PXAT "$FAR_MS" >/dev/null
  rcli "$@" >/dev/null
  rc "$name clears the deadline" -1 TTL x:c
}
rcli SET x:src abc >/dev/null
clear_check "SET" SET x:c w
clear_check "GETSET" GETSET x:c w
clear_check "MSET" MSET x:other 1 x:c 2
clear_check "BITOP (destination)" BITOP OR x:c x:src
clear_check "R.SETINTARRAY" R.SETINTARRAY x:c 1 2 3
rcli R.SETINTARRAY x:c 1 2 3 >/dev/null
rcli PEXPIREAT x:c "$FAR_MS" >/dev/null
rc "R.SETINTARRAY of the members it has" OK R.SETINTARRAY x:c 3 2 1
rc "clears the deadline too" -1 TTL x:c
for del in DEL GETDEL UNLINK; do
  rcli SET x:c v PXAT "$FAR_MS" >/dev/null
  rcli "$del" x:c >/dev/null
  rcli SETBIT x:c 1 1 >/dev/null
  rc "$del, then SETBIT: a new key without a deadline" -1 TTL x:c
done
rcli DEL x:c x:m1 >/dev/null
rc "MSETNX on new keys" 1 MSETNX x:c 1 x:m1 2
rc "no deadline" -1 TTL x:c
rcli SET x:c v PXAT "$FAR_MS" >/dev/null
rc "BITOP of missing sources deletes the destination" 0 BITOP AND x:c x:nokey
rcli SETBIT x:c 1 1 >/dev/null
rc "then a SETBIT makes a key without a deadline" -1 TTL x:c

echo "# RENAME RENAMENX COPY carry the source's deadline"
rcli DEL x:r1 x:r2 x:r3 x:r4 x:c1 x:c2 >/dev/null
rcli SET x:r1 one PXAT "$FAR_MS" >/dev/null
rcli SET x:r2 two EX 50 >/dev/null
rc "RENAME onto a key with its own deadline" OK RENAME x:r1 x:r2
rc "the destination has the source's deadline" "$FAR_MS" PEXPIRETIME x:r2
rc "and its value" one GET x:r2
rc "the source is gone" -2 TTL x:r1
rcli SET x:r3 three >/dev/null
rc "RENAME of a key without one onto one with one" OK RENAME x:r3 x:r2
rc "the destination has none" -1 TTL x:r2
rcli SET x:r1 one PXAT "$FAR_MS" >/dev/null
rc "RENAMENX to a free name" 1 RENAMENX x:r1 x:r4
rc "carries the deadline" "$FAR_MS" PEXPIRETIME x:r4
rc "RENAME k k keeps it" OK RENAME x:r4 x:r4
rc "kept" "$FAR_MS" PEXPIRETIME x:r4
rc "COPY" 1 COPY x:r4 x:c1
rc "the copy has the source's deadline" "$FAR_MS" PEXPIRETIME x:c1
rc "the source keeps it" "$FAR_MS" PEXPIRETIME x:r4
rcli SET x:c2 v >/dev/null
rc "COPY REPLACE of a key without one onto one with one" 1 COPY x:c2 x:c1 REPLACE
rc "the copy has none" -1 TTL x:c1

echo "# pipelined writes of one key (merged into one commit) see each other's deadlines"
check "SET, EXPIRE, SETBIT, TTL, PERSIST, TTL, EXPIRE, SET KEEPTTL, TTL, SET, TTL in one pipeline" \
  "OK 1 0 100 1 -1 1 OK 50 OK -1" \
  "$(resp_pipeline "$RPORT" "SET x:pl a" "EXPIRE x:pl 100" "SETBIT x:pl 0 1" "TTL x:pl" "PERSIST x:pl" \
    "TTL x:pl" "EXPIRE x:pl 50" "SET x:pl b KEEPTTL" "TTL x:pl" "SET x:pl c" "TTL x:pl")"
check "SET, PEXPIREAT in the past, EXISTS, SETBIT, TTL, PEXPIREAT, PEXPIRETIME in one pipeline" \
  "OK 1 0 0 -1 1 $FAR_MS" \
  "$(resp_pipeline "$RPORT" "SET x:pl a" "PEXPIREAT x:pl 1" "EXISTS x:pl" "SETBIT x:pl 7 1" "TTL x:pl" \
    "PEXPIREAT x:pl $FAR_MS" "PEXPIRETIME x:pl")"

echo "# keys expire: absent at once, for every command, on every instance"
FIRST_RPORT=$RPORT
start_service || finish
SECOND_RPORT=$RPORT
RPORT=$FIRST_RPORT
rcli DEL x:e x:e2 x:e3 >/dev/null
rcli SET x:e hello >/dev/null
rcli SET x:e2 keep >/dev/null
rcli SET x:e3 bits >/dev/null
check "the second instance reads the key (and caches it)" hello "$(RPORT=$SECOND_RPORT rcli GET x:e)"
size_before=$(rcli DBSIZE)
rc "PEXPIRE 300" 1 PEXPIRE x:e 300
rc "PEXPIRE 300 of a second key" 1 PEXPIRE x:e3 300
in_range "PTTL right after" 1 300 PTTL x:e
gone=no
for ((i = 0; i < 60; i++)); do # up to 3 s
  [[ $(rcli EXISTS x:e x:e3) == 0 ]] && gone=yes && break
  sleep 0.05
done
check "the keys expired (EXISTS 0 within 3 s)" yes "$gone"
rc "GET of the expired key: nil" "" GET x:e
rc "TYPE none" none TYPE x:e
rc "STRLEN 0" 0 STRLEN x:e
rc "GETBIT 0" 0 GETBIT x:e 1
rc "TTL -2" -2 TTL x:e
rc "PEXPIRETIME -2" -2 PEXPIRETIME x:e
rc "EXPIRE of the expired key: 0" 0 EXPIRE x:e 100
rc "PERSIST of the expired key: 0" 0 PERSIST x:e
rc "GETEX of the expired key: nil" "" GETEX x:e PERSIST
rc "RENAME of the expired key" "ERR no such key" RENAME x:e x:e4
check "the other instance finds it absent too" "0|-2" \
  "$(RPORT=$SECOND_RPORT rcli EXISTS x:e)|$(RPORT=$SECOND_RPORT rcli TTL x:e)"
check "KEYS leaves expired keys out" "x:e2" "$(rcli KEYS 'x:e*' | sort | tr '\n' ' ' | sed 's/ $//')"
scan_walk 'x:e*'
check "SCAN leaves expired keys out" "x:e2" "$(grep . <<<"$SCAN_SEEN" | sort | tr '\n' ' ' | sed 's/ $//')"
check "DBSIZE counts two keys fewer" "$((size_before - 2))" "$(rcli DBSIZE)"
rc "SETBIT over the expired key" 0 SETBIT x:e 7 1
check "starts from an empty value" "01" "$(rcli GET x:e | head -c 1 | od -An -tx1 | tr -d ' \n')"
rc "of length 1" 1 STRLEN x:e
rc "with no deadline" -1 TTL x:e
check "the other instance sees the new key" "1|-1" \
  "$(RPORT=$SECOND_RPORT rcli STRLEN x:e)|$(RPORT=$SECOND_RPORT rcli TTL x:e)"
rc "SET NX over an expired key sets it" OK SET x:e3 new NX
rc "with no deadline" -1 TTL x:e3

echo "# the command table"
check_match "COMMAND INFO expire: arity -3, a write" 'expire.*-3.*write' "$(rcli COMMAND INFO expire | tr '\n' ' ')"
check_match "COMMAND INFO ttl: arity 2, read-only" 'ttl 2 readonly' "$(rcli COMMAND INFO ttl | tr '\n' ' ')"
check_match "COMMAND DOCS getex: group string, since 6.2.0" 'since 6.2.0 group string' \
  "$(rcli COMMAND DOCS getex | tr '\n' ' ')"
check_match "COMMAND DOCS pexpiretime: group generic, since 7.0.0" 'since 7.0.0 group generic' \
  "$(rcli COMMAND DOCS pexpiretime | tr '\n' ' ')"

finish
