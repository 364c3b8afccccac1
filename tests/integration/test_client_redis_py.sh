#!/usr/bin/env bash
# bitmapd driven by a real client library: redis-py (Debian's python3-redis), as
# application code uses it. The seeds' commands through the client's own methods
# (check-ins, the message box, daily active users), pipelines, SCAN iteration,
# INFO as clients read it, the string commands next to bitmaps, expiry (SET ex=,
# EXPIRE gt=, GETEX, PERSIST), and the errors a client must be able to parse. Each
# check is printed by the Python side as NAME<TAB>EXPECTED<TAB>ACTUAL and checked here.
set -uo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

if ! /usr/bin/python3 -c 'import redis' 2>/dev/null; then
  check "redis-py is installed (python3-redis, scripts/deps.sh)" yes no
  finish
fi
start_service || finish

P="pyc$$:"
out=$(/usr/bin/python3 - "$RPORT" "$P" <<'PY' 2>&1
import datetime
import sys
import time
import redis

port, p = int(sys.argv[1]), sys.argv[2]
r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=30)

def out(name, expected, actual):
    print(f"{name}\t{expected}\t{actual}")

def error_of(fn):
    try:
        fn()
    except redis.exceptions.ResponseError as e:
        return f"ResponseError: {e}"
    except Exception as e:  # anything else is not what a client expects
        return f"{type(e).__name__}: {e}"
    return "no error"

# seed 002: a month of check-ins in one key, bit i = day i + 1
sign = p + "user:sign:98:202204"
for day in (1, 2, 3, 5, 6, 7, 8, 30):
    r.setbit(sign, day - 1, 1)
out("check-ins: GETBIT of a day checked in", 1, r.getbit(sign, 5))
out("check-ins: GETBIT of a day missed", 0, r.getbit(sign, 3))
out("check-ins: BITCOUNT of the month", 8, r.bitcount(sign))
# the seed's streak: BITFIELD GET u<day> 0, then count the trailing ones
v = r.bitfield(sign).get("u30", 0).execute()[0]
streak = 0
for i in range(30):
    if v & (1 << (i)) == 0:
        break
    streak += 1
out("check-ins: BITFIELD u30 reads the month", "1", "1" if v == int("111011110000000000000000000001", 2) else f"{v:030b}")
out("check-ins: the streak ending on day 30", 1, streak)
out("check-ins: BITPOS of the first day missed", 3, r.bitpos(sign, 0))

# seed 000: the message box's push record, ids as bits
box = p + "message:push:42"
with r.pipeline(transaction=False) as pipe:
    for mid in (2, 3, 4, 6, 8, 10, 11):
        pipe.setbit(box, mid, 1)
    answers = pipe.execute()
out("message box: a pipeline of SETBIT answers each old bit, in order", [0] * 7, answers)
out("message box: R.CARD", 7, r.execute_command("R.CARD", box))
out("message box: R.REVRANGEINTARRAY newest three", [11, 10, 8],
    r.execute_command("R.REVRANGEINTARRAY", box, 0, 2))

# daily active users: one key per day, BITOP over the week
days = [p + f"dau:2026112{d}" for d in range(4)]
with r.pipeline(transaction=False) as pipe:
    for d, key in enumerate(days):
        for user in range(d, 100, 4 - d if d < 3 else 1):
            pipe.setbit(key, user, 1)
    pipe.execute()
out("DAU: BITOP OR into the week answers the length", r.strlen(days[3]), r.bitop("OR", p + "dau:week", *days))
out("DAU: users active some day", 100, r.bitcount(p + "dau:week"))
r.bitop("AND", p + "dau:all", *days)
out("DAU: users active every day", r.bitcount(p + "dau:all"),
    sum(1 for u in range(100) if all(r.getbit(k, u) for k in days)))

# a pipeline of 2,000 commands: every reply in order
with r.pipeline(transaction=False) as pipe:
    for i in range(1000):
        pipe.setbit(p + "pipe", i * 7, 1)
        pipe.getbit(p + "pipe", i * 7)
    replies = pipe.execute()
out("pipeline: 2,000 replies, each in its place", "ok",
    "ok" if replies == [0, 1] * 1000 else f"first wrong at {next(i for i, x in enumerate(replies) if x != [0, 1][i % 2])}")
out("pipeline: BITCOUNT after it", 1000, r.bitcount(p + "pipe"))

# a transaction: MULTI is not a bitmapd command; the client must get a clear error
def transaction():
    with r.pipeline(transaction=True) as pipe:
        pipe.setbit(p + "tx", 1, 1)
        pipe.execute()
err = error_of(transaction)
out("transactions: MULTI is refused with an error the client raises", "ResponseError",
    err.split(":")[0])
out("transactions: nothing of the refused transaction was written", 0, r.exists(p + "tx"))

# SCAN iteration through the client's iterator: every key once
keys = {f"{p}scan:{i}".encode() for i in range(250)}
with r.pipeline(transaction=False) as pipe:
    for k in keys:
        pipe.setbit(k, 1, 1)
    pipe.execute()
seen = list(r.scan_iter(match=p + "scan:*", count=37))
out("SCAN: scan_iter returns every key", 250, len(set(seen) & keys))
out("SCAN: and no other", 0, len(set(seen) - keys))

# INFO as clients read it
info = r.info()
out("INFO: cluster_enabled (how clients pick standalone)", 0, info.get("cluster_enabled"))
out("INFO: role", "master", info.get("role"))
out("INFO: redis_version", "7", str(info.get("redis_version", "")).split(".")[0])
out("INFO keyspace: db0 counts keys", True, r.info("keyspace").get("db0", {}).get("keys", 0) >= 250)

# the string commands next to bitmaps
r.mset({p + "a": "1", p + "b": "x"})
out("MSET/MGET", [b"1", b"x", None], r.mget(p + "a", p + "b", p + "missing"))
out("INCR", 2, r.incr(p + "a"))
out("INCRBY", 12, r.incrby(p + "a", 10))
out("DECR", 11, r.decr(p + "a"))
out("SETNX on an existing key", False, r.setnx(p + "a", "z"))
out("GETSET", b"11", r.getset(p + "a", "5"))
out("GETDEL", b"5", r.getdel(p + "a"))
out("GET after GETDEL", None, r.get(p + "a"))
out("SET NX then GET", b"v", (r.set(p + "n", "v", nx=True), r.get(p + "n"))[1])

# expiry as application code uses it: a session with a time to live
k = p + "session"
out("SET ex=100", True, r.set(k, "token", ex=100))
ttl = r.ttl(k)
out("TTL after SET ex=100", "99..100", "99..100" if 99 <= ttl <= 100 else ttl)
pttl = r.pttl(k)
out("PTTL after SET ex=100", "98000..100000", "98000..100000" if 98000 <= pttl <= 100000 else pttl)
out("EXPIRE gt=True with a shorter time: unchanged", False, r.expire(k, 10, gt=True))
out("EXPIRE gt=True with a longer time", True, r.expire(k, 1000, gt=True))
out("EXPIRE lt=True with a timedelta", True, r.expire(k, datetime.timedelta(seconds=500), lt=True))
ttl = r.ttl(k)
out("TTL after it", "499..500", "499..500" if 499 <= ttl <= 500 else ttl)
out("EXPIRE nx=True on a key with a deadline", False, r.expire(k, 10, nx=True))
out("EXPIREAT a datetime", True, r.expireat(k, datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc)))
out("EXPIRETIME", 4102444800, r.expiretime(k))
out("PEXPIREAT xx=True", True, r.pexpireat(k, 4102444800123, xx=True))
out("PEXPIRETIME", 4102444800123, r.pexpiretime(k))
out("GETEX ex=60 answers the value", b"token", r.getex(k, ex=60))
ttl = r.ttl(k)
out("TTL after GETEX ex=60", "59..60", "59..60" if 59 <= ttl <= 60 else ttl)
out("GETEX persist=True", b"token", r.getex(k, persist=True))
out("TTL after GETEX persist=True", -1, r.ttl(k))
r.set(k, "t2", px=50000)
out("SET keepttl=True", True, r.set(k, "t3", keepttl=True))
ttl = r.ttl(k)
out("the deadline kept", "49..50", "49..50" if 49 <= ttl <= 50 else ttl)
out("SET get=True ex= answers the old value", b"t3", r.set(k, "t4", get=True, ex=30))
out("PERSIST", True, r.persist(k))
out("TTL after PERSIST", -1, r.ttl(k))
out("PERSIST again", False, r.persist(k))
out("TTL of a missing key", -2, r.ttl(p + "missing"))
out("SET exat= in the past answers OK", True, r.set(k, "gone", exat=1))
out("and the key is absent at once", 0, r.exists(k))
r.set(k, "short", px=200)
t0 = time.monotonic()
while r.exists(k) and time.monotonic() - t0 < 3:
    time.sleep(0.05)
out("a key set with px=200 expires (within 3 s)", 0, r.exists(k))
out("GET of the expired key", None, r.get(k))
out("error: SET EX 0", "ResponseError: invalid expire time in 'set' command",
    error_of(lambda: r.execute_command("SET", k, "v", "EX", 0)))
out("error: EXPIRE nx=True xx=True", "ResponseError: NX and XX, GT or LT options at the same time are not compatible",
    error_of(lambda: r.expire(k, 10, nx=True, xx=True)))

# errors a client must be able to parse
out("error: a negative bit offset", "ResponseError: bit offset is not an integer or out of range",
    error_of(lambda: r.setbit(p + "e", -1, 1)))
out("error: a bit value other than 0 or 1", "ResponseError: bit is not an integer or out of range",
    error_of(lambda: r.execute_command("SETBIT", p + "e", 1, 2)))  # r.setbit() sends 0 or 1 itself
out("error: INCR of text", "ResponseError: value is not an integer or out of range",
    error_of(lambda: r.incr(p + "b")))
out("error: an unknown command", "ResponseError: unknown command 'NOPE', with args beginning with: 'x' ",
    error_of(lambda: r.execute_command("NOPE", "x")))
out("error: BITOP NOT with two sources", "ResponseError: BITOP NOT must be called with a single source key.",
    error_of(lambda: r.bitop("NOT", p + "d", p + "a", p + "b")))
out("the connection still answers after the errors", True, r.ping())
PY
)
rc=$?
check "redis-py script ran to its end" 0 "$rc"
while IFS=$'\t' read -r name expected actual; do
  [[ -n $name ]] || continue
  if [[ -z ${actual+x} || $name == Traceback* || $name == " "* ]]; then
    check "redis-py: output line" "NAME<TAB>EXPECTED<TAB>ACTUAL" "$name"
    continue
  fi
  check "redis-py: $name" "$expected" "$actual"
done <<<"$out"
finish
