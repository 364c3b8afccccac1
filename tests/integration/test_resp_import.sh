#!/usr/bin/env bash
# bitmapd import: a private redis-server is loaded with bitmaps (SETBIT), binary
# strings (SET, redis-cli -x), other types and keys under two prefixes; the import
# copies the strings of one prefix into the store, and every value read back through
# bitmapd's RESP port equals Redis's. Also: --dry-run writes nothing, a re-run writes
# nothing, a corrupt row fails only its key (exit 1), bad URLs and unreachable or
# password-protected servers (exit 2), and the progress bar on a terminal.
set -uo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

: "${BITMAPD_DSN:?set by scripts/test_integration.sh}"
T=$BITMAPD_TEST_TMP
REDIS_PORT=$(free_port) || exit 1
REDIS_PW=
FROM=redis://127.0.0.1:$REDIS_PORT

R() { # redis-cli against the private redis-server (with its password once it has one)
  if [[ -n $REDIS_PW ]]; then
    REDISCLI_AUTH=$REDIS_PW redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"
  else
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"
  fi
}
sql() { psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1 -c "$1"; } # as the administrator (owner role)
# shellcheck disable=SC2317  # invoked by trap
stop_redis() {
  local pid
  pid=$(cat "$T/redis.pid" 2>/dev/null) || return 0
  [[ $pid =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null
  rm -f "$T/redis.pid"
}
trap stop_redis EXIT

# import ARGS... — runs the import; sets OUT (stdout), ERR (stderr), RC
import() {
  RC=0
  "$BITMAPD_BIN" import "$@" >"$T/import.out" 2>"$T/import.err" || RC=$?
  OUT=$(<"$T/import.out")
  ERR=$(<"$T/import.err")
}
# field NAME — the count on the summary line "  NAME   N keys"
field() { sed -n "s/^  $1 *\([0-9][0-9]*\) .*/\1/p" <<<"$OUT"; }
imp_rows() { sql "SELECT count(*) FROM bitmapd.bitmaps WHERE substring(key from 1 for 4) = 'imp:'::bytea"; }
imp_versions() { sql "SELECT coalesce(sum(version), 0) FROM bitmapd.bitmaps WHERE substring(key from 1 for 4) = 'imp:'::bytea"; }

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$T/redis.pid" --dir "$T" --logfile "$T/redis.log"
for ((i = 0; i < 50; i++)); do
  [[ $(R PING 2>/dev/null) == PONG ]] && break
  sleep 0.1
done
check "private redis-server answers PING" PONG "$(R PING 2>&1)"
# shellcheck disable=SC2119  # no extra arguments
start_service || finish

echo "# loading redis"
{
  for ((i = 1; i <= 200; i++)); do
    echo "SETBIT imp:bm:$i $(((i * 7919) % 8000000)) 1"
    echo "SETBIT imp:bm:$i $((i * 13)) 1"
    ((i % 3 == 0)) && echo "SETBIT imp:bm:$i $((i * 1000 + 5)) 0" # a zero bit that grows the value
  done
  for ((i = 1; i <= 50; i++)); do echo "SETBIT other:bm:$i $i 1"; done
  echo "SETBIT imp:big 8000000 1"
  echo "SET imp:text \"hello world\""
  echo "SET \"imp:with space\" abc"
  echo "SET imp:empty \"\""
  echo "RPUSH imp:list a b"
  echo "HSET imp:hash f v"
  echo "SADD imp:set m"
  echo "ZADD imp:zset 1 m"
  echo "PEXPIREAT imp:bm:1 4102444800123" # deadlines travel with the values
  echo "EXPIRE imp:text 100000"
} | R >/dev/null
printf 'a\000b\000\377' | R -x SET imp:bin >/dev/null
head -c 100000 /dev/zero | tr '\0' '\377' | R -x SET imp:dense >/dev/null
head -c 4096 /dev/urandom | R -x SET imp:random >/dev/null
LONG="imp:long:$(head -c 1100 /dev/zero | tr '\0' x)"
R SET "$LONG" v >/dev/null
for ((i = 1; i <= 5000; i++)); do printf 'SETBIT imp:many:%d %d 1\r\n' "$i" $((i % 977)); done | R --pipe >/dev/null
NSTR=$((200 + 7 + 5000)) # imp: strings: bm:*, big text "with space" empty bin dense random, many:*
check "redis holds every key" $((NSTR + 4 + 1 + 50)) "$(R DBSIZE)"

echo "# usage and connection errors: exit 2"
import --from "redis://127.0.0.1:notaport" --dry-run
check "bad port in the URL: exit 2" 2 "$RC"
check_match "bad port: clear message" 'bad --from URL: the port must be a number' "$ERR"
import --from "http://127.0.0.1:$REDIS_PORT" --dry-run
check "not a redis:// URL: exit 2" 2 "$RC"
check_match "not a redis:// URL: clear message" 'must start with redis://' "$ERR"
import --dry-run
check "no --from: exit 2" 2 "$RC"
DEAD=$(free_port)
import --from "redis://127.0.0.1:$DEAD" --dry-run
check "nothing listening: exit 2" 2 "$RC"
check_match "nothing listening: cannot connect to redis at host:port: reason" \
  "cannot connect to redis at 127.0.0.1:$DEAD: Connection refused" "$ERR"
RC=0
"$BITMAPD_BIN" --set postgres.dsn= import --from "$FROM" >"$T/nodsn.out" 2>&1 || RC=$?
check "a real import without a database: exit 2" 2 "$RC"
check_match "without a database: the message says so" 'no database configured' "$(<"$T/nodsn.out")"

echo "# --dry-run: reads and measures, writes nothing, needs no database"
rows0=$(imp_rows)
RC=0
BITMAPD_DSN='' "$BITMAPD_BIN" --set postgres.dsn= import --from "$FROM" --match 'imp:*' --dry-run \
  >"$T/import.out" 2>"$T/import.err" || RC=$?
OUT=$(<"$T/import.out")
check "dry run without a database: exit 0" 0 "$RC"
check "dry run: scanned every imp: key" $((NSTR + 5)) "$(field scanned)"
check_match "dry run: says how many string keys it read" "dry run: nothing written; $NSTR string keys read" "$OUT"
check "dry run: no row written" "$rows0" "$(imp_rows)"
dry_bytes=$(sed -n 's/^  bytes *\(.*\)$/\1/p' <<<"$OUT")
echo "# dry run: $dry_bytes"

echo "# import --match 'imp:*'"
import --from "$FROM" --match 'imp:*'
check "import: exit 0" 0 "$RC"
check "import: scanned" $((NSTR + 5)) "$(field scanned)"
check "import: imported every string key" "$NSTR" "$(field imported)"
check "import: unchanged" 0 "$(field unchanged)"
check "import: failed" 0 "$(field failed)"
check "import: skipped, by type and length" \
  "  skipped    5 keys: 1 list, 1 hash, 1 set, 1 zset, 1 with a name longer than 1024 bytes ([resp] max_key_bytes; e.g. 'imp:long:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...')" \
  "$(grep '^  skipped' <<<"$OUT")"
check "import: the same byte figures as the dry run" "$dry_bytes" "$(sed -n 's/^  bytes *\(.*\)$/\1/p' <<<"$OUT")"
check "import: one row per imported key" $((rows0 + NSTR)) "$(imp_rows)"
check "import: nothing outside the pattern" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE substring(key from 1 for 6) = 'other:'::bytea")"
stored=$(sed -n 's/^  bytes *[0-9]* as Redis values, \([0-9]*\) as stored.*/\1/p' <<<"$OUT")
check "import: the stored-bytes figure is what the rows hold" \
  "$(sql "SELECT sum(octet_length(bits)) FROM bitmapd.bitmaps WHERE substring(key from 1 for 4) = 'imp:'::bytea")" "$stored"
check_match "import: no progress bar when stderr is not a terminal" '^[^\r]*$' "$(<"$T/import.err")"
echo "# $(grep '^  bytes' <<<"$OUT" | sed 's/^ *//')"
echo "# $(grep '^  elapsed' <<<"$OUT" | sed 's/^ *//')"

echo "# values read back through bitmapd's RESP port equal Redis's"
keys=(imp:big imp:text "imp:with space" imp:empty imp:bin imp:dense imp:random)
for ((i = 1; i <= 200; i++)); do keys+=("imp:bm:$i"); done
for ((i = 1; i <= 5000; i++)); do keys+=("imp:many:$i"); done
for cmd in GET STRLEN BITCOUNT; do
  for k in "${keys[@]}"; do printf '%s "%s"\n' "$cmd" "$k"; done >"$T/$cmd.cmds"
  R <"$T/$cmd.cmds" >"$T/$cmd.redis"
  rcli <"$T/$cmd.cmds" >"$T/$cmd.bitmapd"
  check "$cmd of all ${#keys[@]} imported keys: bitmapd = redis" "$(md5sum <"$T/$cmd.redis" | cut -c1-32)" \
    "$(md5sum <"$T/$cmd.bitmapd" | cut -c1-32)"
done
check "STRLEN imp:big (SETBIT 8000000)" 1000001 "$(rcli STRLEN imp:big)"
check "BITCOUNT imp:dense" 800000 "$(rcli BITCOUNT imp:dense)"
check "GET imp:bin keeps its NUL bytes" 61006200ff "$(rcli GET imp:bin | head -c 5 | od -An -tx1 | tr -d ' \n')"
check "imp:empty exists with length 0" "1 0" "$(rcli EXISTS imp:empty) $(rcli STRLEN imp:empty)"
check "GETBIT imp:bm:7 at 7*7919" 1 "$(rcli GETBIT imp:bm:7 $((7 * 7919)))"
check "the skipped list is not in bitmapd" 0 "$(rcli EXISTS imp:list)"
check "a deadline set with PEXPIREAT is imported exactly" 4102444800123 \
  "$(sql "SELECT expire_ms FROM bitmapd.bitmaps WHERE key = 'imp:bm:1'::bytea")"
check "a relative deadline (EXPIRE 100000) is imported within the run's time" t \
  "$(sql "SELECT ttl_ms BETWEEN 90000000 AND 100000000 FROM bitmapd.key_expiry WHERE key = 'imp:text'")"
check "keys without a deadline have none" 2 \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE substring(key from 1 for 4) = 'imp:'::bytea AND expire_ms IS NOT NULL")"

echo "# re-running writes nothing"
v0=$(imp_versions)
import --from "$FROM" --match 'imp:*'
check "re-run: exit 0" 0 "$RC"
check "re-run: 0 imported" 0 "$(field imported)"
check "re-run: all unchanged" "$NSTR" "$(field unchanged)"
check "re-run: no version moved" "$v0" "$(imp_versions)"

echo "# a corrupt row fails its key only, named in the summary: exit 1"
R SETBIT imp:bm:1 5 1 >/dev/null
R SET imp:text "hello again" >/dev/null
sql "UPDATE bitmapd.bitmaps SET checksum = (checksum + 1) % 4294967296 WHERE key = 'imp:text'::bytea"
import --from "$FROM" --match 'imp:*'
check "corrupt row: exit 1" 1 "$RC"
check "corrupt row: the changed key is imported" 1 "$(field imported)"
check "corrupt row: 1 failed" 1 "$(field failed)"
check_match "corrupt row: the error names the key" "stored bitmap for key 'imp:text' is corrupt: checksum mismatch" "$OUT"
check "corrupt row: the other keys are unchanged" $((NSTR - 2)) "$(field unchanged)"
check "GETBIT imp:bm:1 5 after the import" 1 "$(rcli GETBIT imp:bm:1 5)"
sql "DELETE FROM bitmapd.bitmaps WHERE key = 'imp:text'::bytea"
import --from "$FROM" --match 'imp:t*'
check "the key imports again once the row is gone: exit 0, 1 imported" "0 1" "$RC $(field imported)"
check "GET imp:text" "hello again" "$(rcli GET imp:text)"

echo "# a key whose name is reserved for bucket rows fails, named in the summary: exit 1"
R SET checkin:~7 from-redis >/dev/null
import --from "$FROM" --match 'checkin:~*'
check "reserved name: exit 1" 1 "$RC"
check "reserved name: 1 failed" 1 "$(field failed)"
check_match "reserved name: the error names the key and says why" "checkin:~7.*reserved for a bucket row of checkin keys" "$OUT"
check "reserved name: nothing written" 0 "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key = 'checkin:~7'::bytea")"
R DEL checkin:~7 >/dev/null

echo "# progress bar on a terminal"
if command -v script >/dev/null; then
  script -qec "$BITMAPD_BIN import --from $FROM --match 'imp:*' --dry-run" /dev/null >"$T/tty.out" 2>&1 || true
  check_match "a terminal gets a progress bar: done/total, keys/s, ETA" \
    $'\r''\[[#.]{30}\] [0-9]+/[0-9]+ keys +[0-9]+ keys/s +ETA [0-9]+:[0-9]{2}' "$(<"$T/tty.out")"
fi

echo "# a server with a password"
R CONFIG SET requirepass s3cret >/dev/null
REDIS_PW=s3cret
import --from "$FROM" --match 'imp:t*' --dry-run
check "no password given: exit 2" 2 "$RC"
check_match "no password given: the message says so" 'NOAUTH.*--password' "$ERR"
import --from "$FROM" --match 'imp:t*' --dry-run --password s3cret
check "--password: exit 0" 0 "$RC"
import --from "redis://:s3cret@127.0.0.1:$REDIS_PORT" --match 'imp:t*' --dry-run
check "redis://:PASSWORD@HOST:PORT: exit 0" 0 "$RC"
import --from "redis://:wrong@127.0.0.1:$REDIS_PORT" --match 'imp:t*' --dry-run
check "wrong password: exit 2" 2 "$RC"
check_match "wrong password: redis's answer is shown" 'WRONGPASS' "$ERR"
check "wrong password: the password is not echoed" "" "$(grep -o wrong <<<"$ERR")"

stop_redis
finish
