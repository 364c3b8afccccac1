#!/usr/bin/env bash
# The seed scenarios through the Redis protocol with redis-cli, as the seeds'
# Redis code runs them: 002 daily check-in (SETBIT per day, BITCOUNT, BITFIELD
# GET uN 0 decoded into a calendar and a streak), 004 announcements (notice
# keys, read/unread counts over a SCAN MATCH cursor loop with GETBIT), and 000
# the message box (the GETBIT walk down from a cursor, the same page by
# R.REVRANGEINTARRAY, and the same page and counts from the HTTP API).
#
# Key names carry a per-run tag, so reruns on the same database do not collide.
set -uo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

RUN=$(($(date +%s) % 100000 * 100 + RANDOM % 100))
echo "# run tag $RUN"

start_service || finish

# ---- seed 002: daily check-in --------------------------------------------------

# days_in_month YYYYMM — 28..31, leap years included (GNU date).
days_in_month() {
  date -d "${1:0:4}-${1:4:2}-01 +1 month -1 day" +%-d
}

# calendar VALUE NDAYS — the signed days, ascending, space-separated. VALUE is
# BITFIELD GET uNDAYS 0: bit offset i is day i+1 and offset 0 is the most
# significant of the NDAYS bits, so day d is value bit NDAYS-d.
calendar() {
  local v=$1 n=$2 i out=()
  for ((i = 0; i < n; i++)); do
    if (((v >> (n - 1 - i)) & 1)); then out+=($((i + 1))); fi
  done
  echo "${out[*]}"
}

# streak VALUE — the seed's loop: while the low bit is 1, count it and shift right.
streak() {
  local v=$1 s=0
  while ((v & 1)); do
    s=$((s + 1))
    v=$((v >> 1))
  done
  echo "$s"
}

# checkin_month USER YYYYMM NDAYS "DAYS" STREAK_DAY:EXPECTED...
# Signs DAYS in, then checks the month count, the calendar, and each streak
# ending on STREAK_DAY, both from BITFIELD GET uSTREAK_DAY 0 (the seed) and from
# the whole month's value shifted right.
checkin_month() {
  local user=$1 ym=$2 ndays=$3 days=$4 key d n want v
  shift 4
  key=user:sign:$user:$ym
  check "$ym has $ndays days" "$ndays" "$(days_in_month "$ym")"
  rcli DEL "$key" >/dev/null
  # shellcheck disable=SC2086  # DAYS is a word list
  n=$(set -- $days && echo $#)
  # shellcheck disable=SC2086
  check "$ym: each first SETBIT answers 0" "$(printf '0 %.0s' $days)" \
    "$(for d in $days; do printf 'SETBIT %s %d 1\n' "$key" $((d - 1)); done | rcli | tr '\n' ' ')"
  d=${days%% *}
  rc "$ym: signing day $d again (补签) answers 1" 1 SETBIT "$key" $((d - 1)) 1
  rc "$ym: GETBIT of day $d (已签到)" 1 GETBIT "$key" $((d - 1))
  rc "$ym: BITCOUNT is the month's count" "$n" BITCOUNT "$key"
  v=$(rcli BITFIELD "$key" GET "u$ndays" 0)
  check_match "$ym: BITFIELD GET u$ndays 0 is a number ($v)" '^[0-9]+$' "$v"
  check "$ym: the calendar decoded from u$ndays" "$days" "$(calendar "${v:-0}" "$ndays")"
  for want in "$@"; do
    d=${want%%:*}
    check "$ym: streak ending on day $d (BITFIELD GET u$d 0)" "${want#*:}" \
      "$(streak "$(rcli BITFIELD "$key" GET "u$d" 0)")"
    check "$ym: streak ending on day $d (month value >> $((ndays - d)))" "${want#*:}" \
      "$(streak $((${v:-0} >> (ndays - d))))"
  done
}

echo "# seed 002: check-in, April 2022 (u30)"
checkin_month 98 202204 30 "1 2 3 5 8 9 10 11 12 20 29 30" 12:5 3:3 4:0 13:0 20:1 30:2 1:1
K=user:sign:98:202204
rc "202204: STRLEN is 4 bytes (days 1..30 in 30 bits)" 4 STRLEN "$K"
rcli DEL "$K" >/dev/null
rcli SETBIT "$K" 0 1 >/dev/null
rc "202204: day 1 alone is bit 29 of u30 (2^29)" 536870912 BITFIELD "$K" GET u30 0
rcli SETBIT "$K" 29 1 >/dev/null
rc "202204: days 1 and 30 are 2^29 + 1" 536870913 BITFIELD "$K" GET u30 0
rc "202204: SETBIT day 1 back to 0 answers 1" 1 SETBIT "$K" 0 0
check "202204: then u30 is 1 and BITCOUNT 1" "1 1" "$(rcli BITFIELD "$K" GET u30 0) $(rcli BITCOUNT "$K")"
rcli DEL "$K" >/dev/null
rc "a month with no check-in: BITFIELD GET u30 0 is 0" 0 BITFIELD "$K" GET u30 0
rc "a month with no check-in: BITCOUNT 0" 0 BITCOUNT "$K"

echo "# seed 002: a 31-day month (u31) and February of a leap year (u29)"
checkin_month 98 202205 31 "1 15 28 29 30 31" 31:4 30:3 27:0 15:1 1:1
rc "202205: BITFIELD GET u31 0 of days 1 15 28..31" $(((1 << 30) | (1 << 16) | 15)) BITFIELD user:sign:98:202205 GET u31 0
checkin_month 98 202402 29 "1 2 27 28 29" 29:3 2:2 26:0
rc "202402: BITFIELD GET u29 0 of days 1 2 27 28 29" $(((1 << 28) | (1 << 27) | 7)) BITFIELD user:sign:98:202402 GET u29 0
checkin_month "98$RUN" 202302 28 "28" 28:1 27:0

# ---- seed 004: announcements ------------------------------------------------------

# The database is shared with the other test files (100,000-user fan-outs and
# more), so a SCAN walks all of their keys too: a COUNT that keeps the number of
# rounds (each one redis-cli run) bounded.
SCAN_COUNT=${SCAN_COUNT:-5000}

# notice_counts PLATFORM USER — "unread:read" over every notice:PLATFORM:* key,
# found with a full SCAN cursor loop (never KEYS), each key asked with GETBIT.
notice_counts() {
  local platform=$1 user=$2 read=0 unread=0 b
  local keys=()
  scan_walk "notice:$platform:*" "$SCAN_COUNT" 10001
  if [[ $SCAN_CURSOR != 0 ]]; then
    echo "SCAN did not end (cursor '$SCAN_CURSOR')"
    return
  fi
  # SCAN may answer a key twice; each notice counts once.
  mapfile -t keys < <(sed '/^$/d' <<<"$SCAN_SEEN" | sort -u)
  ((${#keys[@]} > 0)) || {
    echo "0:0"
    return
  }
  for b in $(printf "GETBIT %s $user\n" "${keys[@]}" | rcli); do
    if [[ $b == 1 ]]; then read=$((read + 1)); else unread=$((unread + 1)); fi
  done
  echo "$unread:$read"
}

echo "# seed 004: announcements"
P=$((RUN % 100000 + 100000)) # this run's platform
Q=$((P + 1))                 # another platform, with keys that must not count
A=7
B=100000
C=4294967295
# Six notices on P, two on Q, and names that notice:P:* must not match.
for id in 1 2 3 4 5 6; do
  # The seed's trick: a fixed user (0) marked read so that every notice has a key.
  rc "new notice:$P:$id (fixed user 0 read)" 0 SETBIT "notice:$P:$id" 0 1
done
rcli SETBIT "notice:$Q:1" 0 1 >/dev/null
rcli SETBIT "notice:$Q:2" "$A" 1 >/dev/null
rcli SETBIT "notice:${P}0:1" "$A" 1 >/dev/null
rcli SETBIT "notice:$P" "$A" 1 >/dev/null
rcli SETBIT "xnotice:$P:1" "$A" 1 >/dev/null
check "user $A: 6 unread, 0 read on platform $P" "6:0" "$(notice_counts "$P" "$A")"
check "user $C (largest id): 6 unread" "6:0" "$(notice_counts "$P" "$C")"
check "the fixed user 0 has read all 6" "0:6" "$(notice_counts "$P" 0)"
check "platform $Q counts its own 2 notices" "1:1" "$(notice_counts "$Q" "$A")"
check "a platform with no notice: 0:0" "0:0" "$(notice_counts "$((P + 2))" "$A")"

for id in 1 3 5; do rcli SETBIT "notice:$P:$id" "$A" 1 >/dev/null; done
rc "user $A marks notice 2 read: SETBIT answers the old 0" 0 SETBIT "notice:$P:2" "$A" 1
rcli SETBIT "notice:$P:6" "$B" 1 >/dev/null
rcli SETBIT "notice:$P:4" "$C" 1 >/dev/null
rc "getBit: user $A read notice 1" 1 GETBIT "notice:$P:1" "$A"
rc "getBit: user $A did not read notice 4" 0 GETBIT "notice:$P:4" "$A"
rc "getBit: user $B read notice 6" 1 GETBIT "notice:$P:6" "$B"
check "user $A after reading 1 2 3 5: 2 unread, 4 read" "2:4" "$(notice_counts "$P" "$A")"
check "user $B after reading 6: 5:1" "5:1" "$(notice_counts "$P" "$B")"
check "user $C after reading 4: 5:1" "5:1" "$(notice_counts "$P" "$C")"
check "user 8 (a neighbour bit of $A) read nothing" "6:0" "$(notice_counts "$P" 8)"

rc "user $A un-reads notice 3: SETBIT 0 answers the old 1" 1 SETBIT "notice:$P:3" "$A" 0
check "user $A after un-reading 3: 3:3" "3:3" "$(notice_counts "$P" "$A")"
rc "notice 3 still exists (its fixed user)" 1 EXISTS "notice:$P:3"

rc "DEL notice 1 answers 1" 1 DEL "notice:$P:1"
rc "DEL notice 1 again answers 0" 0 DEL "notice:$P:1"
rc "a deleted notice: GETBIT is 0" 0 GETBIT "notice:$P:1" "$A"
rc "a deleted notice does not exist" 0 EXISTS "notice:$P:1"
check "user $A after notice 1 is deleted: 3:2" "3:2" "$(notice_counts "$P" "$A")"
check "user $B after notice 1 is deleted: 4:1" "4:1" "$(notice_counts "$P" "$B")"
rc "DEL of a list of notices (the seed's delete(Collection))" 2 DEL "notice:$P:5" "notice:$P:6" "notice:$P:99"
check "user $A with notices 2 3 4 left: 2:1" "2:1" "$(notice_counts "$P" "$A")"
check "user $B lost the notice 6 they had read: 3:0" "3:0" "$(notice_counts "$P" "$B")"
check "platform $Q untouched" "1:1" "$(notice_counts "$Q" "$A")"

# A SCAN loop over many matching keys (and, in the shared database, many rounds).
for ((id = 1; id <= 150; id++)); do printf 'SETBIT notice:%s:%d %d 1\n' "$((P + 3))" "$id" $((id % 3 == 0 ? A : 0)); done | rcli >/dev/null
check "150 notices, every 3rd read by $A: 100:50" "100:50" "$(notice_counts "$((P + 3))" "$A")"

# ---- seed 000: the message box --------------------------------------------------

U=$((RUN * 1000 + 1))
PUSH=message:push:$U
READ=message:read:$U
IDS=(2 3 4 6 8 10 11 500 4095 4096 65534 65535 65536 65537 70000)
PAGE=4

# getbit_page KEY FROM SIZE — the seed's Redis loop: GETBIT FROM, FROM-1, … down
# to 1 until SIZE pushed ids are found. The GETBITs go in windows of 5000 per
# redis-cli, so the walk is bounded by FROM commands.
getbit_page() {
  local key=$1 id=$2 size=$3 lo i bits page=()
  while ((size > 0 && id > 0)); do
    lo=$((id > 5000 ? id - 4999 : 1))
    mapfile -t bits < <(seq "$id" -1 "$lo" | sed "s/^/GETBIT $key /" | rcli)
    for ((i = 0; i <= id - lo && size > 0; i++)); do
      if [[ ${bits[i]:-} == 1 ]]; then
        page+=($((id - i)))
        size=$((size - 1))
      fi
    done
    id=$((lo - 1))
  done
  echo "${page[*]}"
}

# revrange_page KEY BEFORE SIZE — the same page by rank: the members at or above
# BEFORE are skipped (card − BITCOUNT of bits 0..BEFORE-1), then SIZE newest.
revrange_page() {
  local key=$1 before=$2 size=$3 card below skip
  card=$(rcli R.CARD "$key")
  below=$(rcli BITCOUNT "$key" 0 $((before - 1)) BIT)
  skip=$((card - below))
  rcli R.REVRANGEINTARRAY "$key" "$skip" $((skip + size - 1)) | tr '\n' ' ' | sed 's/ $//'
}

echo "# seed 000: the message box over RESP, user $U"
rcli DEL "$PUSH" "$READ" >/dev/null
check "pushRecord: each first SETBIT answers 0" "$(printf '0 %.0s' "${IDS[@]}")" \
  "$(printf "SETBIT $PUSH %s 1\n" "${IDS[@]}" | rcli | tr '\n' ' ')"
rc "isReadable(1) is false" 0 GETBIT "$PUSH" 1
rc "isReadable(2) is true" 1 GETBIT "$PUSH" 2
rc "R.CARD of the push record" "${#IDS[@]}" R.CARD "$PUSH"
rc "R.MAX is the newest id" 70000 R.MAX "$PUSH"
rc "R.MIN is the oldest id" 2 R.MIN "$PUSH"
rc "readRecord(8): SETBIT message:read answers 0" 0 SETBIT "$READ" 8 1
rcli SETBIT "$READ" 65536 1 >/dev/null
rc "hasBeenRead(8)" 1 GETBIT "$READ" 8
rc "hasBeenRead(10) is false" 0 GETBIT "$READ" 10
http POST "/v1/users/$U/reads" '{"messages": [4095]}'
check "an HTTP read of 4095 → 200" 200 "$HTTP_STATUS"
rc "the HTTP read is GETBIT message:read:$U 4095" 1 GETBIT "$READ" 4095

# Walk every page newest first: the seed's GETBIT walk, the rank page and the
# HTTP cursor page must agree, and the HTTP read flags must be GETBIT's.
before="" from=$(rcli R.MAX "$PUSH") all="" pages=0
while ((pages++ < 20)); do
  if [[ -z $before ]]; then
    http GET "/v1/users/$U/messages?limit=$PAGE"
    rr=$(rcli R.REVRANGEINTARRAY "$PUSH" 0 $((PAGE - 1)) | tr '\n' ' ' | sed 's/ $//')
    label="first page"
  else
    http GET "/v1/users/$U/messages?limit=$PAGE&before=$before"
    rr=$(revrange_page "$PUSH" "$before" "$PAGE")
    label="page before $before"
  fi
  hp=$(jget '.messages | map(.id) | join(" ")')
  gb=$(getbit_page "$PUSH" "$from" "$PAGE")
  check "$label: HTTP status" 200 "$HTTP_STATUS"
  check "$label: the GETBIT walk from $from equals the HTTP page" "$hp" "$gb"
  check "$label: R.REVRANGEINTARRAY equals the HTTP page" "$hp" "$rr"
  flags=$(for id in $hp; do printf 'GETBIT %s %s\n' "$READ" "$id"; done | rcli | sed 's/1/true/;s/0/false/' | tr '\n' ' ' | sed 's/ $//')
  check "$label: HTTP read flags are GETBIT message:read" "$flags" "$(jget '.messages | map(.read | tostring) | join(" ")')"
  all+="$hp "
  before=$(jget .next_before)
  [[ $before != null ]] || break
  check "$label: next_before is the page's last id" "${hp##* }" "$before"
  from=$((before - 1))
done
check "the pages together are every pushed id, newest first" \
  "$(printf '%s\n' "${IDS[@]}" | sort -rn | tr '\n' ' ')" "$all"
check "the walk below the last id finds nothing" "" "$(getbit_page "$PUSH" 1 "$PAGE")"

http GET "/v1/users/$U/unread"
card_push=$(rcli R.CARD "$PUSH")
card_read=$(rcli R.CARD "$READ")
check "HTTP pushed = R.CARD message:push" "$card_push" "$(jget .pushed)"
check "HTTP read = R.CARD message:read" "$card_read" "$(jget .read)"
check "HTTP unread = R.CARD push − R.CARD read" $((card_push - card_read)) "$(jget .unread)"
check "… which is 15 − 3" 12 "$(jget .unread)"
rcli BITOP AND "msgboth:$U" "$PUSH" "$READ" >/dev/null
rc "BITCOUNT of push AND read is the read count" "$card_read" BITCOUNT "msgboth:$U"
rcli DEL "msgboth:$U" >/dev/null

rc "un-read 8 over RESP: SETBIT 0 answers 1" 1 SETBIT "$READ" 8 0
http GET "/v1/users/$U/unread"
check "after un-reading 8: HTTP unread 13" 13 "$(jget .unread)"
http GET "/v1/users/$U/messages/8"
check "after un-reading 8: HTTP says readable, not read" "true false" "$(jget .readable) $(jget .read)"
http POST "/v1/users/$U/pushes" '{"messages": [70001]}'
rc "an HTTP push of 70001 is GETBIT message:push" 1 GETBIT "$PUSH" 70001
rc "… and R.MAX" 70001 R.MAX "$PUSH"
check "… and the GETBIT walk's first page" "70001 70000 65537 65536" "$(getbit_page "$PUSH" "$(rcli R.MAX "$PUSH")" 4)"
rc "DEL of the read record" 1 DEL "$READ"
http GET "/v1/users/$U/unread"
check "with no read record: HTTP unread = R.CARD push" "$(rcli R.CARD "$PUSH")" "$(jget .unread)"

finish
