#!/usr/bin/env bash
# Expiry in the store (docs/design.md, "Expiry"), with two bitmapd instances on one
# PostgreSQL: a deadline set on one instance makes the key absent on both at once,
# with no statement and no notification at the deadline (each compares it with its
# clock, whatever its cache holds); writes keep it; a write over an expired key —
# also a big chunked one — starts from nothing; the rows are removed by the sweep of
# the instance that sweeps (grace, batches, SKIP LOCKED), every cache told; the views
# show the deadlines; deadlines survive a restart and a kill -9.
# Needs BITMAPD_DSN, psql, redis-cli.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

PSQL=(psql "${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}" -XAtq -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }
P="exp:$$:" # every key of this run
rows() { sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key = convert_to('$1', 'UTF8')"; }
info() { redis-cli -p "$1" info bitmapd | tr -d '\r' | sed -n "s/^$2://p"; }

# A sweeps often and removes a row 3 s after its deadline; B never sweeps
start_service --set expire.sweep_ms=100 --set expire.sweep_grace_ms=3000 --set expire.sweep_keys=300 || finish
A=$PORT A_R=$RPORT A_URL=$BASE_URL
start_service --set expire.sweep_ms=0 || finish
B=$PORT B_R=$RPORT
ra() { redis-cli -p "$A_R" "$@"; }
rb() { redis-cli -p "$B_R" "$@"; }
wait_for "instance A listens for changes" '[[ $(info $A_R cache_enabled) == 1 ]]'
wait_for "instance B listens for changes" '[[ $(info $B_R cache_enabled) == 1 ]]'

echo "# a deadline set on A: both instances read the key until it, neither after"
ra setbit "${P}k" 7 1 >/dev/null
check "B reads the key (and caches it)" 1 "$(rb getbit "${P}k" 7)"
check "PEXPIRE on A" 1 "$(ra pexpire "${P}k" 1500)"
check_match "B sees the deadline (its cache was told of the write)" '^(1|2)$' "$(rb ttl "${P}k")"
check "a SETBIT on B keeps the deadline" 0 "$(rb setbit "${P}k" 9 1)"
wlog_fold
check "the row holds the deadline after B's write" t \
  "$(sql "SELECT expire_ms IS NOT NULL FROM bitmapd.bitmaps WHERE key = convert_to('${P}k', 'UTF8')")"
check "bitmapd.keys shows expires_at" t \
  "$(sql "SELECT expires_at > now() FROM bitmapd.keys WHERE key = '${P}k'")"
loads_b=$(info "$B_R" load_statements)
wait_for "the key is gone for A" "[[ \$(ra exists '${P}k') == 0 ]]"
check "gone for B at the same moment (its cache holds the row)" 0 "$(rb exists "${P}k")"
check "B answered from its cache: no load statement" "$loads_b" "$(info "$B_R" load_statements)"
check "GETBIT on B" 0 "$(rb getbit "${P}k" 7)"
check "TTL on B: -2" -2 "$(rb ttl "${P}k")"
check "TYPE on A: none" none "$(ra type "${P}k")"
wlog_fold
check "the row waits for the sweep's grace" 1 "$(rows "${P}k")"
check "bitmapd.keys leaves it out" 0 "$(sql "SELECT count(*) FROM bitmapd.keys WHERE key = '${P}k'")"
check "bitmapd.key_expiry shows it expired" t "$(sql "SELECT expired FROM bitmapd.key_expiry WHERE key = '${P}k'")"
check "SCAN leaves it out" "" "$(ra --scan --pattern "${P}k")"
check "KEYS leaves it out" "" "$(ra keys "${P}k")"
removed0=$(metric bitmapd_expired_keys_removed_total "$A_URL")
wait_for "A's sweep removes the row after the grace" "[[ \$(rows '${P}k') == 0 ]]"
check_match "A counts the removal" '^[0-9]+$' "$(metric bitmapd_expired_keys_removed_total "$A_URL")"
check "removed rows counted" 1 $(($(metric bitmapd_expired_keys_removed_total "$A_URL") > removed0))
check_match "INFO stats counts the removal" '^[1-9][0-9]*$' \
  "$(redis-cli -p "$A_R" info stats | tr -d '\r' | sed -n 's/^expired_keys://p')"
check "B never swept" 0 "$(metric bitmapd_expire_sweeps_total "http://127.0.0.1:$B")"
check "a new key of that name starts from nothing" "0 1" "$(rb setbit "${P}k" 7 1) $(rb bitcount "${P}k")"
check "with no deadline" -1 "$(ra ttl "${P}k")"

echo "# a write over an expired key that no sweep has removed replaces it whole"
head -c 300000 /dev/urandom | ra -x setrange "${P}big" 0 >/dev/null
wlog_fold
check "the big value is in chunk rows" 1 \
  "$(sql "SELECT (count(*) > 10)::int FROM bitmapd.chunks WHERE key = convert_to('${P}big', 'UTF8')")"
check "PEXPIRE the big key (on B)" 1 "$(rb pexpire "${P}big" 300)"
wait_for "the big key is gone" "[[ \$(rb strlen '${P}big') == 0 ]]"
check "SETBIT on the expired big key (before its sweep)" 0 "$(rb setbit "${P}big" 100 1)"
check "BITCOUNT: only the new bit" 1 "$(ra bitcount "${P}big")"
check "STRLEN: as a new key" 13 "$(ra strlen "${P}big")"
wlog_fold
check "its chunk rows went with the old value" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.chunks WHERE key = convert_to('${P}big', 'UTF8')")"
check "and the deadline" "" "$(sql "SELECT expire_ms FROM bitmapd.bitmaps WHERE key = convert_to('${P}big', 'UTF8')")"

echo "# the sweep works in batches and skips a row a writer holds"
for ((i = 0; i < 1000; i++)); do printf 'SET %sm:%d v PX 200\r\n' "$P" "$i"; done | rb --pipe >/dev/null
ra set "${P}held" v px 200 >/dev/null
wlog_fold
lock_open "SELECT 1 FROM bitmapd.bitmaps WHERE key = convert_to('${P}held', 'UTF8') FOR UPDATE;"
wait_for "the 1,000 expired keys are removed (batches of 300)" \
  "[[ \$(sql \"SELECT count(*) FROM bitmapd.bitmaps WHERE substring(key from 1 for length('${P}m:')) = convert_to('${P}m:', 'UTF8')\") == 0 ]]"
check "the locked row is still there" 1 "$(rows "${P}held")"
check "it reads as absent all the same" 0 "$(rb exists "${P}held")"
lock_close
wait_for "the locked row is removed once let go" "[[ \$(rows '${P}held') == 0 ]]"

echo "# deadlines are durable: a restart, and a kill -9 after the answer"
check "EXPIRE of a key that does not exist" 0 "$(ra expire "${P}d1" 1000)"
ra set "${P}d1" v ex 1000 >/dev/null
ra setbit "${P}d2" 3 1 >/dev/null
check "EXPIRE acknowledged" 1 "$(ra expire "${P}d2" 2000)"
kill -KILL "${_SERVICE_PIDS[$A]}"
wait "${_SERVICE_PIDS[$A]}" 2>/dev/null
unset "_SERVICE_PIDS[$A]"
start_service --set expire.sweep_ms=100 --set expire.sweep_grace_ms=3000 || finish
A=$PORT A_R=$RPORT A_URL=$BASE_URL
check_match "after kill -9: TTL of the SET EX key" '^(99[0-9]|1000)$' "$(ra ttl "${P}d1")"
check_match "after kill -9: TTL of the EXPIREd key" '^(199[0-9]|2000)$' "$(ra ttl "${P}d2")"
check "and B agrees" "$(ra ttl "${P}d2")" "$(rb ttl "${P}d2")"
check_match "INFO keyspace counts keys with a deadline and their mean time to live" \
  '^db0:keys=[0-9]+,expires=[1-9][0-9]*,avg_ttl=[1-9][0-9]*$' "$(ra info keyspace | tr -d '\r' | grep '^db0:')"
check "PERSIST on B" 1 "$(rb persist "${P}d2")"
check "A sees no deadline" -1 "$(ra ttl "${P}d2")"

stop_service "$A"
stop_service "$B"
sql "DELETE FROM bitmapd.bitmaps WHERE substring(key from 1 for length('$P')) = convert_to('$P', 'UTF8')" >/dev/null 2>&1
finish
