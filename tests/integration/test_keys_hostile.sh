#!/usr/bin/env bash
# Hostile keys: every SQL statement of bitmapd takes keys and ids as parameters, so
# keys full of single and double quotes, backslashes, NUL bytes, percent signs and
# printf directives, SQL fragments ('; DROP TABLE …), RESP framing, UTF-8, invalid
# UTF-8 (0xFF …), glob characters, and a key of exactly [resp] max_key_bytes must
# round-trip unchanged:
#  - over RESP (binary-safe bulk strings sent by a small client of our own, below):
#    SETBIT, GETBIT, BITCOUNT, GET, EXISTS (one and many keys), BITOP into a hostile
#    key, KEYS and SCAN (the bytes read back equal the bytes written), DEL;
#  - in PostgreSQL: the stored key bytes (bitmapd.bitmaps.key, bytea) equal them;
#  - a key one byte over max_key_bytes is refused with an error and stores nothing;
#  - over HTTP, the string path parameters (red dot names, periods) and the integer
#    ids of the other routes refuse quotes, NUL, %s, SQL and UTF-8 cleanly with 400;
#  - at the end the schema is intact and bitmapd.bitmaps has exactly the rows it had
#    plus one per key written (RESP DEL empties a row, it does not remove it).
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

T=$BITMAPD_TEST_TMP
OWNER_DSN=${BITMAPD_OWNER_DSN:-$BITMAPD_DSN}
sql() { psql "$OWNER_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1; }
MAXK=1024
RUN=$$$RANDOM
PREFIX="hostile:$RUN:"

rows_before=$(sql "SELECT count(*) FROM bitmapd.bitmaps")
schema_before=$(sql "SELECT string_agg(c.relname || ':' || c.relkind, ',' ORDER BY c.relname) FROM pg_class c
                      WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'S')")

start_service --set "resp.max_key_bytes=$MAXK" || finish

# ---- RESP, with a client that sends and reads raw bytes -----------------------------------------
# It writes one line per check to $T/resp.checks: NAME <tab> EXPECTED <tab> ACTUAL (bytes
# shown as Python bytes literals), and the hex of every key it left in $T/keys.hex.
cat >"$T/hostile.py" <<'PY'
import socket, sys

port, prefix, maxk, out_checks, out_hex = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4], sys.argv[5]

class Err(bytes):
    pass

class Resp:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("connection closed")
        self.buf += data

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return Err(rest)
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ValueError("unexpected reply %r" % line)

    def cmd(self, *args):
        args = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        self.sock.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
        return self._reply()

checks = []
def check(name, expected, actual):
    checks.append((name, repr(expected), repr(actual)))

hostile = [
    b"q'single'quote''",
    b'd"double"quote""',
    b"back\\slash\\\\ and \\x00 \\' \\\"",
    b"nul\x00in\x00the\x00middle",
    b"\x00",
    b"\x00\x00leading nul",
    b"trailing nul\x00",
    b"percent %s %n %d %x %p %% %",
    b"'; DROP TABLE bitmapd.bitmaps; --",
    b"\"); DELETE FROM bitmapd.bitmaps; --",
    b"' OR '1'='1",
    b"$1 $2 ::bytea E'\\x41' \\gexec",
    "ключ:日本語:🙂:é".encode(),
    b"\xff\xfe\xfd\x80 not UTF-8 \xc3\x28",
    b"\xff" * 16,
    b"\r\n*3\r\n$3\r\nDEL\r\n$1\r\nx\r\n",
    b"tab\tnewline\nspace  cr\r",
    b"glob *?[a-z]\\*",
]
keys = [prefix + h for h in hostile]
filler = b"'\"\\\x00%s\xff"
longest = prefix + (filler * maxk)[: maxk - len(prefix)]
too_long = longest + b"x"
assert len(longest) == maxk
keys.append(longest)

r = Resp(port)
for i, k in enumerate(keys):
    name = "key %d (%d bytes)" % (i, len(k))
    check(name + ": SETBIT 7 then 12 answer 0 0", [0, 0], [r.cmd("SETBIT", k, 7, 1), r.cmd("SETBIT", k, 12, 1)])
    check(name + ": GETBIT 7, 12, 13", [1, 1, 0], [r.cmd("GETBIT", k, 7), r.cmd("GETBIT", k, 12), r.cmd("GETBIT", k, 13)])
    check(name + ": BITCOUNT", 2, r.cmd("BITCOUNT", k))
    check(name + ": GET is the Redis string of bits 7 and 12", b"\x01\x08", r.cmd("GET", k))
    check(name + ": EXISTS", 1, r.cmd("EXISTS", k))
check("EXISTS of every key at once (and one absent)", len(keys), r.cmd("EXISTS", *keys, prefix + b"absent'\x00"))

dest = prefix + b"dest '\x00\"\\%s\xff"
check("BITOP OR into a hostile key: the result's length", 2, r.cmd("BITOP", "OR", dest, keys[0], keys[4]))
check("GET of the BITOP result", b"\x01\x08", r.cmd("GET", dest))
keys.append(dest)

def listed_keys():
    return sorted(r.cmd("KEYS", prefix + b"*"))

def scanned_keys():
    # SCAN walks every key of the database in hash order (the suite's holds many)
    found, cursor = set(), b"0"
    for _ in range(100000):
        cursor, batch = r.cmd("SCAN", cursor, "MATCH", prefix + b"*", "COUNT", 1000)
        found.update(batch)
        if cursor == b"0":
            return sorted(found)
    return "SCAN did not finish in 100,000 calls"

check("KEYS returns exactly the bytes written", sorted(keys), listed_keys())
check("SCAN returns exactly the bytes written", sorted(keys), scanned_keys())
# glob metacharacters inside the key match themselves when escaped
check("KEYS with an escaped glob pattern finds the glob key", [prefix + b"glob *?[a-z]\\*"],
      r.cmd("KEYS", prefix + b"glob \\*\\?\\[a-z\\]\\\\\\*"))

# one byte over [resp] max_key_bytes: refused, nothing stored
for cmd in (("SETBIT", too_long, 7, 1), ("GETBIT", too_long, 7), ("GET", too_long), ("DEL", too_long),
            ("EXISTS", too_long)):
    rep = r.cmd(*cmd)
    check("%s of a key of %d bytes (max_key_bytes + 1) is refused" % (cmd[0], len(too_long)),
          "error naming max_key_bytes",
          "error naming max_key_bytes" if isinstance(rep, Err) and b"max_key_bytes" in rep else rep)

# DEL half of them (one at a time and several in one command)
gone = keys[0:4]
check("DEL of one hostile key", 1, r.cmd("DEL", gone[0]))
check("DEL of three hostile keys in one command", 3, r.cmd("DEL", *gone[1:4]))
check("the deleted keys no longer exist", 0, r.cmd("EXISTS", *gone))
left = [k for k in keys if k not in gone]
check("KEYS after DEL: exactly the others", sorted(left), listed_keys())
check("SCAN after DEL: exactly the others", sorted(left), scanned_keys())
check("the others still read back", [b"\x01\x08"] * len(left), [r.cmd("GET", k) for k in left])

with open(out_checks, "w") as f:
    for name, exp, act in checks:
        f.write("%s\t%s\t%s\n" % (name, exp.replace("\t", "\\t"), act.replace("\t", "\\t")))
with open(out_hex, "w") as f:
    f.write("".join(k.hex() + "\n" for k in sorted(keys)))
with open(out_hex + ".left", "w") as f:
    f.write("".join(k.hex() + "\n" for k in sorted(left)))
with open(out_hex + ".toolong", "w") as f:
    f.write(too_long.hex() + "\n")
PY
rc=0
python3 "$T/hostile.py" "$RPORT" "$PREFIX" "$MAXK" "$T/resp.checks" "$T/keys.hex" >"$T/hostile.out" 2>&1 || rc=$?
check "the RESP client ran to the end" 0 "$rc$( ((rc)) && tail -n 5 "$T/hostile.out")"
while IFS=$'\t' read -r name expected actual; do
  check "RESP: $name" "$expected" "$actual"
done <"$T/resp.checks"
check "(checks read from the RESP client)" yes "$([[ $(wc -l <"$T/resp.checks") -gt 100 ]] && echo yes || echo no)"

# ---- the bytes PostgreSQL holds ---------------------------------------------------------------------
prefix_hex=$(printf '%s' "$PREFIX" | od -An -tx1 | tr -d ' \n')
stored() { # SQL condition on the row
  sql "SELECT encode(key, 'hex') FROM bitmapd.bitmaps
        WHERE substring(key FROM 1 FOR length(decode('$prefix_hex', 'hex'))) = decode('$prefix_hex', 'hex') AND $1
        ORDER BY key"
}
# LC_ALL=C sort: hex of bytes sorts like the bytes (PostgreSQL orders bytea bytewise)
check "PostgreSQL holds exactly the key bytes written (one row each)" "$(LC_ALL=C sort "$T/keys.hex")" "$(stored true)"
check "... the keys still set are the rows with members" "$(LC_ALL=C sort "$T/keys.hex.left")" "$(stored "cardinality > 0")"
check "... and each of them holds bits 7 and 12 (cardinality 2)" "$(wc -l <"$T/keys.hex.left")" \
  "$(stored "cardinality = 2" | wc -l)"
check "no row was stored for the key over max_key_bytes" 0 \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps WHERE key = decode('$(<"$T/keys.hex.toolong")', 'hex')")"
check "the longest key is exactly max_key_bytes long in PostgreSQL" "$MAXK" \
  "$(sql "SELECT max(octet_length(key)) FROM bitmapd.bitmaps WHERE substring(key FROM 1 FOR length(decode('$prefix_hex', 'hex'))) = decode('$prefix_hex', 'hex')")"

# redis-cli sends its arguments binary-safe too (-x: the last one from stdin)
K2="${PREFIX}cli"
check "redis-cli -x: SET a key whose last argument has quotes, a backslash and a NUL" "OK" \
  "$(printf "v'\"\\\\\0%%s" | rcli -x SET "$K2" 2>&1)"
check "... GET returns those bytes" "76 27 22 5c 00 25 73" "$(rcli GET "$K2" | head -c 7 | od -An -tx1 | xargs)"
check "... and PostgreSQL holds them as its bits' Redis string length" 7 \
  "$(sql "SELECT coalesce(nbytes, -1) FROM bitmapd.bitmaps WHERE key = convert_to('$K2', 'UTF8')")"

# ---- HTTP: string path parameters, and integer ids given strings ---------------------------------------
expect_400() { # METHOD PATH [BODY]
  HTTP_STATUS=""
  http "$1" "$2" "${3:-}" --path-as-is
  check "HTTP $1 $2 → 400 $(jget .error.code)" 400 "$HTTP_STATUS"
}
for name in "a%27b" "a%22b" "a%5Cb" "a%00b" "%25s%25n" "x%27%3B%20DROP%20TABLE%20bitmapd.bitmaps%3B--" "%E2%82%AC" "%FF%FE" "a'b"; do
  expect_400 POST "/v1/reddots/$name"
  expect_400 GET "/v1/users/1/reddots/$name"
  expect_400 POST "/v1/users/1/reddots/$name/click"
done
for period in "2026-01%27" "%27%3B%20DROP%20TABLE%20x" "2026-01%00" "%25s-%25n" "2026%E2%80%9301"; do
  expect_400 PUT "/v1/periods/$period" '{"first_message": 5}'
done
for id in "%27" "1%27" "1%20OR%201=1" "1;DROP" "%00" "1%00" "%25n" "%22" "%5C" "%E2%82%AC" "0x10" "-1"; do
  expect_400 GET "/v1/users/$id/unread"
  expect_400 GET "/v1/users/1/messages/$id"
  expect_400 GET "/v1/notices/$id/stats"
  expect_400 POST "/v1/groups/$id/members" '{"user": 1}'
done
for q in "before=%27" "limit=%25s%25n" "page=1%27"; do expect_400 GET "/v1/users/1/messages?$q"; done
expect_400 GET "/v1/users/1/checkins?month=%27%3B--"
expect_400 GET "/v1/groups/1/messages/2/receipts?cursor=%27"
expect_400 POST /v1/notices '{"id": "1; DROP TABLE bitmapd.bitmaps", "audiences": [1]}'
expect_400 POST /v1/users/1/pushes '{"messages": ["1'"'"'); DROP TABLE bitmapd.bitmaps; --"]}'
http GET /healthz
check "the service is healthy after all of it" 200 "$HTTP_STATUS"

# ---- the table survives ---------------------------------------------------------------------------------
stop_service
written=$(($(wc -l <"$T/keys.hex") + 1)) # and the redis-cli key
check "bitmapd.bitmaps has its rows plus one per key written" $((rows_before + written)) \
  "$(sql "SELECT count(*) FROM bitmapd.bitmaps")"
check "the schema's tables, views and sequences are the same" "$schema_before" \
  "$(sql "SELECT string_agg(c.relname || ':' || c.relkind, ',' ORDER BY c.relname) FROM pg_class c
          WHERE c.relnamespace = 'bitmapd'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'S')")"
check_logs_clean
finish
