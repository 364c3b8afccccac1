#!/usr/bin/env bash
# The RESP front end with the real redis-cli: connection commands, every bitmap,
# string and keyspace command, Redis's error texts, RESP3, inline commands, AUTH,
# big offsets, and the same bitmaps seen from HTTP and from psql.
set -uo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

start_service || finish

echo "# connection commands"
rc "PING" PONG PING
rc "PING msg" hello PING hello
rc "ECHO" "a b" ECHO "a b"
rc "SELECT 0" OK SELECT 0
rc "SELECT 1 is a clear error" "ERR DB index is out of range (bitmapd has one database, 0)" SELECT 1
rc "CLIENT SETNAME" OK CLIENT SETNAME tester
check_match "CLIENT ID is a number" '^[0-9]+$' "$(rcli CLIENT ID)"
check "CLIENT SETNAME then GETNAME on one connection" "$(printf 'OK\nme')" \
  "$(printf 'CLIENT SETNAME me\nCLIENT GETNAME\n' | rcli 2>&1)"
rc "CLIENT SETINFO" OK CLIENT SETINFO LIB-NAME bitmapd-test
rc "CLIENT bad subcommand" "ERR unknown subcommand 'nope'. Try CLIENT HELP." CLIENT nope
check_match "COMMAND COUNT" '^[0-9]+$' "$(rcli COMMAND COUNT)"
check_match "COMMAND DOCS lists setbit" 'Sets or clears the bit' "$(rcli COMMAND DOCS setbit)"
check_match "COMMAND INFO bitcount" 'bitcount' "$(rcli COMMAND INFO bitcount)"
check "INFO: Redis 7's default sections, in its order" \
  "Server Clients Memory Persistence Stats Replication CPU Modules Cluster Keyspace " \
  "$(rcli INFO | tr -d '\r' | sed -n 's/^# //p' | tr '\n' ' ')"
check_match "INFO server: redis_version" 'redis_version:7' "$(rcli INFO server)"
check_match "INFO server: a 40-digit run_id" '^run_id:[0-9a-f]{40}$' "$(rcli INFO server | tr -d '\r' | grep '^run_id:')"
check "INFO server: the same run_id each time" "$(rcli INFO server | tr -d '\r' | grep '^run_id:')" \
  "$(rcli INFO server | tr -d '\r' | grep '^run_id:')"
# clients that pick a cluster or a standalone client read this (redis-py's harness among them)
check "INFO cluster: cluster_enabled:0 alone" "$(printf '# Cluster\ncluster_enabled:0')" "$(rcli INFO cluster | tr -d '\r')"
check "INFO replication: a master with no replicas" "role:master connected_slaves:0 " \
  "$(rcli INFO replication | tr -d '\r' | grep -E '^(role|connected_slaves):' | tr '\n' ' ')"
check "INFO persistence: nothing left unsaved, no AOF" "rdb_changes_since_last_save:0 aof_enabled:0 " \
  "$(rcli INFO persistence | tr -d '\r' | grep -E '^(rdb_changes_since_last_save|aof_enabled):' | tr '\n' ' ')"
check_match "INFO memory: used_memory_human" '^used_memory_human:[0-9.]+[BKMG]$' \
  "$(rcli INFO memory | tr -d '\r' | grep '^used_memory_human:')"
check_match "INFO cpu: used_cpu_user" '^used_cpu_user:[0-9]+\.[0-9]{6}$' "$(rcli INFO cpu | tr -d '\r' | grep '^used_cpu_user:')"
check "INFO of two sections: those two" "Clients Cluster " \
  "$(rcli INFO clients cluster | tr -d '\r' | sed -n 's/^# //p' | tr '\n' ' ')"
check_match "INFO all: the bitmapd section too" 'Cluster Bitmapd Keyspace' \
  "$(rcli INFO all | tr -d '\r' | sed -n 's/^# //p' | tr '\n' ' ')"
check "CONFIG GET databases" "$(printf 'databases\n1')" "$(rcli CONFIG GET databases)"
check "CONFIG GET of an unknown parameter: empty" "" "$(rcli CONFIG GET no-such-thing)"
check_match "TIME: seconds and microseconds" '^[0-9]+ [0-9]+ $' "$(rcli TIME | tr '\n' ' ')"
rc "unknown command: Redis's text" "ERR unknown command 'FOO', with args beginning with: 'a' 'b' " FOO a b
rc "wrong arity: Redis's text" "ERR wrong number of arguments for 'setbit' command" SETBIT k
rc "wrong arity GET" "ERR wrong number of arguments for 'get' command" GET
check "HELLO 3 answers a map with proto 3" "proto 3" "$(rcli -3 HELLO 3 | grep '^proto')"
rc "HELLO 4 is refused" "NOPROTO unsupported protocol version" HELLO 4

echo "# SETBIT / GETBIT"
rcli DEL sb >/dev/null
rc "SETBIT new key answers the old bit 0" 0 SETBIT sb 7 1
rc "SETBIT again answers 1" 1 SETBIT sb 7 1
rc "GETBIT set" 1 GETBIT sb 7
rc "GETBIT unset" 0 GETBIT sb 6
rc "GETBIT past the end" 0 GETBIT sb 100000
rc "GETBIT missing key" 0 GETBIT nosuchkey 3
rc "STRLEN after SETBIT 7" 1 STRLEN sb
rc "SETBIT k 100 0 grows the value" 0 SETBIT sb 100 0
rc "STRLEN grew to 13" 13 STRLEN sb
rc "bit offset error" "ERR bit offset is not an integer or out of range" SETBIT sb -1 1
rc "bit offset 2^32 error" "ERR bit offset is not an integer or out of range" SETBIT sb 4294967296 1
rc "bit offset not a number" "ERR bit offset is not an integer or out of range" GETBIT sb abc
rc "bit value error" "ERR bit is not an integer or out of range" SETBIT sb 1 2
rc "bit value not a number" "ERR bit is not an integer or out of range" SETBIT sb 1 x

echo "# offsets up to 2^32-1 cost a few bytes"
rcli DEL big >/dev/null
rc "SETBIT big 4294967295 1" 0 SETBIT big 4294967295 1
rc "STRLEN is 512 MB" 536870912 STRLEN big
rc "BITCOUNT big" 1 BITCOUNT big
rc "BITPOS big 1" 4294967295 BITPOS big 1
rc "BITCOUNT of the last byte (negative range)" 1 BITCOUNT big -1 -1
rc "BITPOS big 0" 0 BITPOS big 0
check_match "GET of 512 MB refuses with a clear error" '^ERR bitmapd: the answer is 536870912 bytes, more than \[resp\] max_value_bytes' \
  "$(rcli GET big 2>&1)"
check "GETRANGE of the last 2 bytes (bytes)" "0001" "$(rcli GETRANGE big -2 -1 | head -c 2 | od -An -tx1 | tr -d ' \n')"
wlog_fold
stored=$(psql "$BITMAPD_DSN" -Atc "SELECT octet_length(bits) FROM bitmapd.bitmaps WHERE key = 'big'")
check_match "the 512 MB value is stored in a few bytes ($stored)" '^[0-9]{1,2}$' "$stored"

echo "# BITCOUNT"
rcli DEL bc >/dev/null
rcli SET bc foobar >/dev/null
rc "BITCOUNT foobar" 26 BITCOUNT bc
rc "BITCOUNT 0 0" 4 BITCOUNT bc 0 0
rc "BITCOUNT 1 1" 6 BITCOUNT bc 1 1
rc "BITCOUNT 1 1 BYTE" 6 BITCOUNT bc 1 1 BYTE
rc "BITCOUNT 5 30 BIT" 17 BITCOUNT bc 5 30 BIT
rc "BITCOUNT -2 -1" 7 BITCOUNT bc -2 -1
rc "BITCOUNT -1 -2 (start > end)" 0 BITCOUNT bc -1 -2
rc "BITCOUNT missing key" 0 BITCOUNT nosuch
rc "BITCOUNT missing key ignores bad arguments, as Redis 7.0 does" 0 BITCOUNT nosuch a b
rc "BITCOUNT with only a start" "ERR syntax error" BITCOUNT bc 1
rc "BITCOUNT bad unit" "ERR syntax error" BITCOUNT bc 0 1 WORD
rc "BITCOUNT non-integer" "ERR value is not an integer or out of range" BITCOUNT bc a 1

echo "# BITPOS"
printf '\xff\xf0\x00' | rcli -x SET bp >/dev/null
rc "BITPOS 0" 12 BITPOS bp 0
rc "BITPOS 1 2" -1 BITPOS bp 1 2
printf '\x00\xff\xf0' | rcli -x SET bp >/dev/null
rc "BITPOS 1 0" 8 BITPOS bp 1 0
rc "BITPOS 1 2 -1 BYTE" 16 BITPOS bp 1 2 -1 BYTE
rc "BITPOS 1 7 15 BIT" 8 BITPOS bp 1 7 15 BIT
rcli SET bp "$(printf '\xff\xff\xff')" >/dev/null
rc "BITPOS 0 without end: zero padding" 24 BITPOS bp 0
rc "BITPOS 0 0 (start, no end): zero padding" 24 BITPOS bp 0 0
rc "BITPOS 0 0 -1 (explicit end): -1" -1 BITPOS bp 0 0 -1
rc "BITPOS missing key, bit 0" 0 BITPOS nosuch 0
rc "BITPOS missing key, bit 1" -1 BITPOS nosuch 1
rc "BITPOS bad bit" "ERR The bit argument must be 1 or 0." BITPOS bp 2

echo "# BITOP"
rcli DEL o1 o2 od >/dev/null
rcli SET o1 foobar >/dev/null
rcli SET o2 abcdef >/dev/null
rc "BITOP AND answers the length" 6 BITOP AND od o1 o2
rc "BITOP AND value" '`bc`ab' GET od
rc "BITOP OR" 6 BITOP OR od o1 o2
rc "BITOP OR value" goofev GET od
rc "BITOP XOR" 6 BITOP XOR od o1 o2
check "BITOP XOR value" "070d0c060414" "$(rcli GET od | head -c 6 | od -An -tx1 | tr -d ' \n')"
rc "BITOP NOT" 6 BITOP NOT od o1
check "BITOP NOT value" "9990909d9e8d" "$(rcli GET od | head -c 6 | od -An -tx1 | tr -d ' \n')"
rc "BITOP NOT with two sources" "ERR BITOP NOT must be called with a single source key." BITOP NOT od o1 o2
rc "BITOP unknown op" "ERR syntax error" BITOP NAND od o1 o2
rcli SET b1 "$(printf '\xf0')" >/dev/null
rcli SET b2 "$(printf '\x3c')" >/dev/null
rcli SET b3 "$(printf '\x0f')" >/dev/null
rc "BITOP DIFF (Redis 8.2)" 1 BITOP DIFF od b1 b2 b3
check "DIFF = b1 AND NOT (b2 OR b3)" "c0" "$(rcli GET od | head -c 1 | od -An -tx1 | tr -d ' \n')"
rcli BITOP DIFF1 od b1 b2 b3 >/dev/null
check "DIFF1 = NOT b1 AND (b2 OR b3)" "0f" "$(rcli GET od | head -c 1 | od -An -tx1 | tr -d ' \n')"
rcli BITOP ANDOR od b1 b2 b3 >/dev/null
check "ANDOR = b1 AND (b2 OR b3)" "30" "$(rcli GET od | head -c 1 | od -An -tx1 | tr -d ' \n')"
rcli BITOP ONE od b1 b2 b3 >/dev/null
check "ONE = bits in exactly one source" "c3" "$(rcli GET od | head -c 1 | od -An -tx1 | tr -d ' \n')"
rc "BITOP DIFF needs two sources" "ERR BITOP DIFF must be called with at least two source keys." BITOP DIFF od b1
rc "BITOP of missing keys deletes the destination" 0 BITOP OR od nosuch1 nosuch2
rc "the destination is gone" 0 EXISTS od

echo "# BITFIELD"
rcli DEL bf >/dev/null
check "BITFIELD SET then GET" "$(printf '0\n100')" "$(rcli BITFIELD bf SET u8 0 100 GET u8 0)"
check "BITFIELD INCRBY wraps" "$(printf '%s\n' -128)" "$(rcli BITFIELD bf SET i8 8 127 INCRBY i8 8 1 | tail -1)"
check "BITFIELD OVERFLOW SAT" "127" "$(rcli BITFIELD bf OVERFLOW SAT SET i8 8 0 INCRBY i8 8 200 | tail -1)"
check "BITFIELD OVERFLOW FAIL answers nil" "" "$(rcli BITFIELD bf OVERFLOW FAIL INCRBY i8 8 1)"
check "BITFIELD #N offsets" "$(printf '0\n7')" "$(rcli BITFIELD bf SET u4 '#5' 7 GET u4 '#5')"
check "BITFIELD i64" "$(printf '0\n-9223372036854775808')" \
  "$(rcli BITFIELD bf64 SET i64 0 9223372036854775807 INCRBY i64 0 1 | tail -2)"
rc "BITFIELD u64 is refused" "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is." BITFIELD bf GET u64 0
rc "BITFIELD bad OVERFLOW" "ERR Invalid OVERFLOW type specified" BITFIELD bf OVERFLOW NOPE GET u8 0
rc "BITFIELD bad offset" "ERR bit offset is not an integer or out of range" BITFIELD bf GET u8 -1
rc "BITFIELD syntax" "ERR syntax error" BITFIELD bf FOO
rc "BITFIELD_RO GET" 100 BITFIELD_RO bf GET u8 0
rc "BITFIELD_RO refuses SET" "ERR BITFIELD_RO only supports the GET subcommand" BITFIELD_RO bf SET u8 0 1

echo "# strings"
rcli DEL s1 >/dev/null
rc "SET" OK SET s1 "Hello World"
rc "GET" "Hello World" GET s1
rc "STRLEN" 11 STRLEN s1
rc "GETRANGE 0 4" Hello GETRANGE s1 0 4
rc "GETRANGE -3 -1" rld GETRANGE s1 -3 -1
rc "GETRANGE 5 3 (empty)" "" GETRANGE s1 5 3
rc "SETRANGE" 11 SETRANGE s1 6 Redis
rc "after SETRANGE" "Hello Redis" GET s1
rc "SETRANGE past the end pads with zeros" 14 SETRANGE s1 12 xy
check "padding byte is a zero" "00" "$(rcli GETRANGE s1 11 11 | head -c 1 | od -An -tx1 | tr -d ' \n')"
rc "SETRANGE negative offset" "ERR offset is out of range" SETRANGE s1 -1 x
rc "SETRANGE past 512 MB" "ERR string exceeds maximum allowed size (proto-max-bulk-len)" SETRANGE s1 536870911 xy
rc "SETRANGE of an empty value on a missing key creates nothing" 0 SETRANGE nosuch 5 ""
rc "... and the key does not exist" 0 EXISTS nosuch
rc "APPEND to a missing key" 5 APPEND ap hello
rc "APPEND again" 11 APPEND ap " world"
rc "APPEND result" "hello world" GET ap
rc "GET missing key is nil" "" GET nosuch
rc "SET NX on an existing key" "" SET ap x NX
rc "SET XX on a missing key" "" SET nosuch x XX
rc "SET GET answers the old value" "hello world" SET ap new GET
rc "SET with EX sets a deadline (test_resp_expiry.sh has the rest)" OK SET ap v EX 1000
rc "... that TTL answers" 1000 TTL ap
rc "SET of an empty string" OK SET empty ""
rc "an empty string exists" 1 EXISTS empty
rc "its length is 0" 0 STRLEN empty
rc "binary value with a tab" OK SET bin "$(printf 'a\tb')"

echo "# the string commands next to bitmaps: MGET MSET MSETNX SETNX GETSET GETDEL INCR…"
rcli DEL sc:a sc:b sc:c sc:n >/dev/null
rc "MSET: a key named twice takes its last value" OK MSET sc:a 1 sc:b x sc:a 5
check "MGET: values, nil for a missing key" "$(printf '5\nx\n')" "$(rcli MGET sc:a sc:b sc:c)"
rc "MSETNX: nothing when one key exists" 0 MSETNX sc:c 1 sc:a 2
rc "MSET with a key and no value: Redis's arity text" "ERR wrong number of arguments for 'mset' command" MSET sc:a
rc "SETNX on an existing key" 0 SETNX sc:a 9
rc "GETSET answers the old value" 5 GETSET sc:a 10
rc "INCR of a number" 11 INCR sc:a
rc "INCRBY a negative amount" -9 INCRBY sc:a -20
rc "INCR of a missing key starts at 0" 1 INCR sc:n
rc "INCR of text: Redis's error" "ERR value is not an integer or out of range" INCR sc:b
rc "DECRBY the smallest integer: Redis's error" "ERR decrement would overflow" DECRBY sc:a -9223372036854775808
rcli SET sc:c 9223372036854775807 >/dev/null
rc "INCR past 2^63-1: Redis's error" "ERR increment or decrement would overflow" INCR sc:c
rc "GETDEL answers the value" -9 GETDEL sc:a
rc "GETDEL deleted the key" 0 EXISTS sc:a
check "GET of a counter: its decimal text" 1 "$(rcli GET sc:n)"

echo "# transactions: refused whole, nothing inside runs"
rcli DEL txk >/dev/null
check "MULTI, SETBIT, EXEC in one pipeline: an error each, EXECABORT" \
  "$(printf '%s\n' "ERR bitmapd does not run transactions (MULTI/EXEC): the commands up to EXEC or DISCARD are refused and none of them is run" \
    "ERR bitmapd does not run transactions: refused inside MULTI, not run" \
    "EXECABORT Transaction discarded because of previous errors.")" \
  "$(printf 'MULTI\nSETBIT txk 1 1\nEXEC\n' | rcli 2>&1 | grep -v '^$')"
rc "the SETBIT inside the refused MULTI did not run" 0 EXISTS txk
check "MULTI then DISCARD: OK, and the connection runs commands again" "$(printf 'OK\n0')" \
  "$(printf 'MULTI\nDISCARD\nSETBIT txk 5 1\n' | rcli 2>&1 | grep -v '^$' | tail -n 2)"
check "MULTI with an argument: Redis's arity error, no transaction begun" \
  "$(printf '%s\n' "ERR wrong number of arguments for 'multi' command" 0)" \
  "$(printf 'MULTI x\nSETBIT txk 9 1\n' | rcli 2>&1 | grep -v '^$')"
check "EXEC with an argument inside MULTI: arity error, the transaction still refused" \
  "$(printf '%s\n' "ERR wrong number of arguments for 'exec' command" \
    "ERR bitmapd does not run transactions: refused inside MULTI, not run" \
    "EXECABORT Transaction discarded because of previous errors.")" \
  "$(printf 'MULTI\nEXEC x\nSETBIT txk 10 1\nEXEC\n' | rcli 2>&1 | grep -v '^$' | tail -n 3)"
rc "EXEC without MULTI: Redis's text" "ERR EXEC without MULTI" EXEC
rc "DISCARD without MULTI: Redis's text" "ERR DISCARD without MULTI" DISCARD

echo "# keyspace"
rcli DEL k1 k2 k3 >/dev/null
rcli SETBIT k1 1 1 >/dev/null
rcli SETBIT k2 1 1 >/dev/null
rc "EXISTS counts repeats" 3 EXISTS k1 k2 k1 k3
rc "TYPE string" string TYPE k1
rc "TYPE none" none TYPE k3
rc "DEL answers how many existed" 1 DEL k1 k3
rc "UNLINK" 1 UNLINK k2
rc "deleted keys do not exist" 0 EXISTS k1 k2
rc "GETBIT of a deleted key" 0 GETBIT k1 1
rcli SET r1 v1 >/dev/null
rc "RENAME" OK RENAME r1 r2
rc "RENAME moved the value" v1 GET r2
rc "RENAME left no source" 0 EXISTS r1
rc "RENAME of a missing key" "ERR no such key" RENAME r1 r3
rc "COPY" 1 COPY r2 r4
rc "COPY onto an existing key without REPLACE" 0 COPY r2 r4
rc "COPY REPLACE" 1 COPY r2 r4 REPLACE
rc "COPY to itself" "ERR source and destination objects are the same" COPY r2 r2
rc "COPY DB 1" "ERR DB index is out of range (bitmapd has one database, 0)" COPY r2 r5 DB 1
rc "RENAMENX onto an existing key" 0 RENAMENX r2 r4

echo "# SCAN and KEYS"
rcli DEL scan:a scan:b >/dev/null
for i in $(seq 1 25); do printf 'SETBIT scan:%d 1 1\n' "$i"; done | rcli >/dev/null
# the database is shared with the other tests (100,000-user fan-outs): COUNT keeps
# the rounds few; a cursor that never ends fails the check below
scan_walk 'scan:*'
check "SCAN MATCH finds all 25 keys" 25 "$(grep -c '^scan:' <<<"$SCAN_SEEN" | tr -d ' ')"
check "SCAN ends with cursor 0" 0 "$SCAN_CURSOR"
check "KEYS scan:2*" "$(printf 'scan:2\nscan:20\nscan:21\nscan:22\nscan:23\nscan:24\nscan:25')" "$(rcli KEYS 'scan:2*' | sort)"
rc "SCAN bad cursor" "ERR invalid cursor" SCAN abc
check_match "DBSIZE is a number" '^[0-9]+$' "$(rcli DBSIZE)"

echo "# R.* commands (redis-roaring style)"
rcli DEL ra >/dev/null
rc "R.SETINTARRAY" OK R.SETINTARRAY ra 5 1 9 3
check "R.GETINTARRAY is ascending" "$(printf '1\n3\n5\n9')" "$(rcli R.GETINTARRAY ra)"
rc "R.APPENDINTARRAY" OK R.APPENDINTARRAY ra 4000000000 2
rc "R.CARD" 6 R.CARD ra
rc "R.MIN" 1 R.MIN ra
rc "R.MAX" 4000000000 R.MAX ra
check "R.RANGEINTARRAY by rank" "$(printf '2\n3\n5')" "$(rcli R.RANGEINTARRAY ra 1 3)"
check "R.REVRANGEINTARRAY newest first" "$(printf '4000000000\n9\n5')" "$(rcli R.REVRANGEINTARRAY ra 0 2)"
rc "R.MIN of a missing key" -1 R.MIN nosuch

echo "# inline commands and RESP3"
check "inline command over a raw socket" "+PONG" "$(exec 3<>/dev/tcp/127.0.0.1/$RPORT; printf 'PING\r\n' >&3; timeout 2 head -c 7 <&3 | tr -d '\r\n')"
check "inline with quotes" '$5hello' "$(exec 3<>/dev/tcp/127.0.0.1/$RPORT; printf 'ECHO "hel\\x6co"\r\n' >&3; timeout 2 head -c 11 <&3 | tr -d '\r\n')"
check "RESP3 nil is _" "_" "$(exec 3<>/dev/tcp/127.0.0.1/$RPORT; printf 'HELLO 3\r\nGET nosuch\r\nQUIT\r\n' >&3; timeout 2 cat <&3 | tr -d '\r' | tail -2 | head -1)"
check "protocol error: Redis's text, then close" "-ERR Protocol error: invalid multibulk length" \
  "$(exec 3<>/dev/tcp/127.0.0.1/$RPORT; printf '*abc\r\n' >&3; timeout 2 cat <&3 | tr -d '\r')"

echo "# one store, two doors: RESP and the HTTP message box"
rcli DEL message:push:4242 message:read:4242 >/dev/null
rcli SETBIT message:push:4242 11 1 >/dev/null
rcli SETBIT message:push:4242 12 1 >/dev/null
http GET /v1/users/4242/unread
check "SETBIT message:push:42 is user 42's push record (HTTP unread)" 2 "$(jget .unread)"
http POST /v1/users/4242/reads '{"messages": [11]}'
rc "an HTTP read is visible to GETBIT message:read:…" 1 GETBIT message:read:4242 11
check "R.REVRANGEINTARRAY pages the box newest first" "$(printf '12\n11')" "$(rcli R.REVRANGEINTARRAY message:push:4242 0 9)"
wlog_fold
row=$(psql "$BITMAPD_DSN" -Atc "SELECT key, length, cardinality, version > 0 FROM bitmapd.keys WHERE key = 'message:push:4242'")
check "bitmapd.keys shows the key (key|length|cardinality|versioned)" "message:push:4242|2|2|t" "$row"
row=$(psql "$BITMAPD_DSN" -Atc "SELECT length, cardinality FROM bitmapd.keys WHERE key = 'big'")
check "bitmapd.keys: logical length of the 512 MB key" "536870912|1" "$row"
check "deleted keys are not in bitmapd.keys" 0 "$(psql "$BITMAPD_DSN" -Atc "SELECT count(*) FROM bitmapd.keys WHERE key = 'k1'")"

echo "# a deep pipeline of writes of many keys that share rows"
# 4,000 SETBITs and GETBITs in one pipeline (past the 1,024 commands of a client that run
# at once) over 96 check-in keys (6 bucket rows when the family is in buckets: calls of
# one bucket start together, one slot at most once a batch) and two keys of their own,
# checked against a model of the bits: every reply in order, then every bit.
pipe_out=$(/usr/bin/python3 - "$RPORT" <<'PY'
import random, sys, redis
r = redis.Redis(port=int(sys.argv[1])); rnd = random.Random(13)
keys = ["checkin:%d" % u for u in range(7040, 7136)] + ["pipe:a", "pipe:b"]
r.delete(*keys)
model, ops = {}, []
for _ in range(4000):
    k, off = rnd.choice(keys), rnd.randrange(40)
    if rnd.random() < 0.2:
        ops.append(("get", k, off, model.get((k, off), 0)))
    else:
        v = rnd.randrange(2)
        ops.append(("set", k, off, model.get((k, off), 0)))
        model[(k, off)] = v
        ops[-1] += (v,)
p = r.pipeline(transaction=False)
for op in ops:
    if op[0] == "get": p.getbit(op[1], op[2])
    else: p.setbit(op[1], op[2], op[4])
got = p.execute()
bad = sum(1 for op, g in zip(ops, got) if g != op[3])
p = r.pipeline(transaction=False)
for k in keys:
    for off in range(40): p.getbit(k, off)
bits = p.execute()
want = [model.get((k, off), 0) for k in keys for off in range(40)]
print(len(got), bad, sum(1 for a, b in zip(bits, want) if a != b))
PY
)
check "4,000 pipelined SETBIT/GETBIT over 98 keys: every reply in order, then every bit" "4000 0 0" "$pipe_out"

echo "# AUTH"
stop_service
start_service --set resp.password=s3cret || finish
rc "before AUTH: NOAUTH" "NOAUTH Authentication required." GET x
rc "PING before AUTH: NOAUTH, as in Redis" "NOAUTH Authentication required." PING
rc "SETBIT before AUTH" "NOAUTH Authentication required." SETBIT x 1 1
rc "wrong password" "WRONGPASS invalid username-password pair or user is disabled." AUTH nope
check "AUTH then a command on one connection" "$(printf 'OK\n0')" "$(printf 'AUTH s3cret\nGETBIT x 1\n' | rcli 2>&1)"
check "redis-cli -a" 0 "$(rcli --no-auth-warning -a s3cret GETBIT x 1)"
check "AUTH default user" "OK" "$(rcli AUTH default s3cret)"
check "HELLO 3 AUTH" "proto 3" "$(rcli -3 HELLO 3 AUTH default s3cret | grep '^proto')"

finish
