#!/usr/bin/env bash
# Every configurable limit of both doors, each set small with --set and each
# answered with a clear error (or, for the pipeline depth, with backpressure that
# loses nothing), and the service serving others afterwards: body, header and id
# counts, page size, offsets and ids out of range, connections, the slow-client
# deadlines (a request or command that trickles in), idle connections, RESP bulk,
# multibulk and inline sizes, pipeline depth, clients, key length, materialised GET
# size, KEYS size, and a client that does not read its replies.
# Needs BITMAPD_DSN, curl, jq, redis-cli, python3.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

P="limits:$$:"
U=$((($(date +%s) % 100000) * 1000000 + 700000))

# raw TCP exchanges the clients of curl/redis-cli cannot produce
probe() { # MODE PORT [ARGS...] — prints what the server answered
  python3 - "$@" <<'PY'
import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
args = sys.argv[3:]

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    return s

def read_all(s, limit=1 << 20):
    out = b""
    try:
        while len(out) < limit:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except socket.timeout:
        out += b"<timeout>"
    except ConnectionResetError:
        out += b"<reset>"
    return out

def show(b):
    sys.stdout.write(b.decode("latin-1").replace("\r", ""))

if mode == "trickle":  # send a part, then wait for the server to act; print answer and elapsed s
    s = conn()
    s.sendall(args[0].encode().decode("unicode_escape").encode("latin-1"))
    t = time.time()
    out = read_all(s)
    show(out)
    print("\nelapsed=%.1f" % (time.time() - t))
elif mode == "idle":  # connect, say nothing; print how long until the server closes
    s = conn()
    t = time.time()
    out = read_all(s)
    show(out)
    print("\nclosed_after=%.1f" % (time.time() - t))
elif mode == "hold":  # open N connections, then one more sending REQUEST; print its answer
    n = int(args[0])
    held = [conn() for _ in range(n)]
    time.sleep(0.5)
    s = conn()
    s.sendall(args[1].encode().decode("unicode_escape").encode("latin-1"))
    show(read_all(s))
    for h in held:
        h.close()
elif mode == "send":  # send bytes, print the whole answer until the server closes
    s = conn()
    s.sendall(args[0].encode().decode("unicode_escape").encode("latin-1"))
    show(read_all(s))
elif mode == "pipeline":  # N pipelined SETBITs on one key in one write; count the replies
    n = int(args[0])
    key = args[1].encode()
    buf = b"".join(b"*4\r\n$6\r\nSETBIT\r\n$%d\r\n%s\r\n$%d\r\n%d\r\n$1\r\n1\r\n" % (len(key), key, len(str(i)), i)
                   for i in range(n))
    s = conn()
    s.sendall(buf)
    got = b""
    deadline = time.time() + 60
    while got.count(b"\r\n") < n and time.time() < deadline:
        d = s.recv(65536)
        if not d:
            break
        got += d
    print("replies=%d zeros=%d" % (got.count(b"\r\n"), got.count(b":0\r\n")))
elif mode == "noread":  # pipeline GETs of a big value and read nothing; print when the server closes
    n = int(args[0])
    key = args[1].encode()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    s.settimeout(15)
    s.connect(("127.0.0.1", port))
    cmd = b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(key), key)
    s.sendall(cmd * n)
    time.sleep(float(args[2]))  # the server's write timeout passes while we do not read
    out = read_all(s, 1 << 30)
    print("got_bytes=%d full=%d" % (len(out), n * int(args[3])))
PY
}

start_service \
  --set http.max_body_bytes=2048 --set http.max_header_bytes=1024 --set http.max_ids_per_request=5 \
  --set http.max_page_limit=50 --set http.max_connections=8 --set http.request_timeout_s=1 \
  --set http.timeout_s=2 \
  --set resp.max_bulk_bytes=1024 --set resp.max_args=16 --set resp.max_inline_bytes=256 \
  --set resp.max_pipeline=4 --set resp.max_clients=6 --set resp.max_key_bytes=32 \
  --set resp.max_value_bytes=2048 --set resp.keys_max=3 --set resp.timeout_s=2 \
  --set resp.command_timeout_s=1 --set resp.write_timeout_s=1 || finish

# ---- HTTP -----------------------------------------------------------------------------------
big=$(python3 -c 'print("{\"messages\":[" + ",".join(["1"] * 1500) + "]}")')
http POST "/v1/users/$U/pushes" "$big"
check "[http] max_body_bytes: a 3 KB body → 413 payload_too_large" "413 payload_too_large" "$HTTP_STATUS $(jget .error.code)"
# past libevent's own cap (the limit + 16 MiB), where it would answer its HTML page:
# refused from the head, before the body is read, in JSON like every other error
head -c 20000000 /dev/zero | tr '\0' a >"$BITMAPD_TEST_TMP/big.json"
for expect in "Expect: 100-continue" "Expect:"; do
  out=$(curl -s -o "$BITMAPD_TEST_TMP/big.out" -w '%{http_code} %{content_type}' -H "$expect" \
    -H 'Content-Type: application/json' --data-binary @"$BITMAPD_TEST_TMP/big.json" "$BASE_URL/v1/users/$U/pushes")
  check "[http] max_body_bytes: a 20 MB body ($expect) → a JSON 413, not libevent's HTML" \
    "413 application/json payload_too_large" "$out $(jq -r .error.code "$BITMAPD_TEST_TMP/big.out" 2>/dev/null)"
done
# a chunked body has no length up front: one just past the limit is read and refused,
# one heading for libevent's cap is refused while it arrives; both in JSON
head -c 3000 "$BITMAPD_TEST_TMP/big.json" >"$BITMAPD_TEST_TMP/small.json"
for f in small big; do
  out=$(curl -s -o "$BITMAPD_TEST_TMP/chunked.out" -w '%{http_code} %{content_type}' -H 'Transfer-Encoding: chunked' \
    -H 'Content-Type: application/json' --data-binary @"$BITMAPD_TEST_TMP/$f.json" "$BASE_URL/v1/users/$U/pushes")
  check "[http] max_body_bytes: a chunked body of $(stat -c %s "$BITMAPD_TEST_TMP/$f.json") bytes → a JSON 413" \
    "413 application/json payload_too_large" "$out $(jq -r .error.code "$BITMAPD_TEST_TMP/chunked.out" 2>/dev/null)"
done
http GET /healthz
check "[http] served again after the refused bodies" 200 "$HTTP_STATUS"
http GET "/v1/users/$U/messages" "" -H "X-Filler: $(head -c 2000 /dev/zero | tr '\0' a)"
check "[http] max_header_bytes: 2 KB of headers → 400 (libevent's own answer), not served" 400 "$HTTP_STATUS"
http POST "/v1/users/$U/pushes" '{"messages":[1,2,3,4,5,6]}'
check "[http] max_ids_per_request: 6 ids → 413 too_many_ids" "413 too_many_ids" "$HTTP_STATUS $(jget .error.code)"
http POST "/v1/users/$U/pushes" '{"messages":[1,2,3,4,5]}'
check "[http] max_ids_per_request: 5 ids → 200" 200 "$HTTP_STATUS"
http GET "/v1/users/$U/messages?limit=51"
check "[http] max_page_limit: limit=51 → 400 invalid_parameter" "400 invalid_parameter" "$HTTP_STATUS $(jget .error.code)"
http GET "/v1/users/$U/messages/4294967296"
check "offsets: message id 2^32 → 400 invalid_id" "400 invalid_id" "$HTTP_STATUS $(jget .error.code)"
http GET "/v1/users/9223372036854775808/messages/1"
check "offsets: user id 2^63 → 400 invalid_id" "400 invalid_id" "$HTTP_STATUS $(jget .error.code)"
http POST "/v1/users/$U/pushes" '{"messages":[4294967296]}'
check "offsets: message id 2^32 in a body → 400 invalid_id" "400 invalid_id" "$HTTP_STATUS $(jget .error.code)"

out=$(probe hold "$PORT" 8 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n')
check_match "[http] max_connections: the 9th connection → 503 too_many_connections" \
  '^HTTP/1.1 503 .*"code":"too_many_connections"' "$(tr '\n' ' ' <<<"$out")"
http GET /healthz
check "[http] max_connections: served again once connections close" 200 "$HTTP_STATUS"
check "metrics count the refused connection" 1 "$(metric bitmapd_http_connections_rejected_total)"

out=$(probe trickle "$PORT" 'GET /v1/users/1/messages HTTP/1.1\r\nHost: t\r\n')
check_match "[http] request_timeout_s: headers that never end → 408 request_timeout" \
  '^HTTP/1.1 408 .*"code":"request_timeout"' "$(tr '\n' ' ' <<<"$out")"
check_match "[http] request_timeout_s: answered after the 1 s deadline, not the 2 s idle timeout" \
  'elapsed=1\.' "$out"
out=$(probe trickle "$PORT" "POST /v1/users/$U/pushes HTTP/1.1\\r\\nHost: t\\r\\nContent-Type: application/json\\r\\nContent-Length: 100\\r\\n\\r\\n{\"messages\":")
check_match "[http] request_timeout_s: a body that never ends → 408" '^HTTP/1.1 408 ' "$out"
out=$(probe idle "$PORT")
check_match "[http] timeout_s: an idle connection is closed" 'closed_after=[0-9]' "$out"
check "metrics count the request timeouts" 2 "$(metric bitmapd_http_request_timeouts_total)"
http GET "/v1/users/$U/messages"
check "HTTP serves after every limit above" "200 5" "$HTTP_STATUS $(jget '.messages | length')"

# ---- RESP -------------------------------------------------------------------------------------
out=$(probe send "$RPORT" '*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$2000\r\n')
check "[resp] max_bulk_bytes: a 2000-byte argument → protocol error" \
  "-ERR Protocol error: invalid bulk length" "$(head -n 1 <<<"$out")"
out=$(probe send "$RPORT" '*17\r\n')
check "[resp] max_args: 17 arguments → protocol error" \
  "-ERR Protocol error: invalid multibulk length" "$(head -n 1 <<<"$out")"
out=$(probe send "$RPORT" "PING $(head -c 300 /dev/zero | tr '\0' x)\\r\\n")
check_match "[resp] max_inline_bytes: a 300-byte inline command → protocol error" \
  '^-ERR Protocol error: too big inline request' "$out"
out=$(probe pipeline "$RPORT" 200 "${P}pipe")
check "[resp] max_pipeline 4: 200 pipelined SETBITs all answered, each new" "replies=200 zeros=200" "$out"
check "[resp] max_pipeline: all 200 bits stored" 200 "$(rcli bitcount "${P}pipe")"
out=$(probe hold "$RPORT" 6 'PING\r\n')
check "[resp] max_clients: the 7th client → -ERR max number of clients reached" \
  "-ERR max number of clients reached" "$(head -n 1 <<<"$out")"
k32=$P$(head -c $((32 - ${#P})) /dev/zero | tr '\0' k)
check_match "[resp] max_key_bytes: a 33-byte key is refused" '^ERR .*32' "$(rcli setbit "${k32}x" 1 1)"
check "[resp] max_key_bytes: a 32-byte key is served" 0 "$(rcli setbit "$k32" 1 1)"
check "offsets: SETBIT at 2^32 → out of range" "ERR bit offset is not an integer or out of range" \
  "$(rcli setbit "${P}off" 4294967296 1)"
check "offsets: SETBIT at 2^32-1 is served" 0 "$(rcli setbit "${P}off" 4294967295 1)"
rcli setbit "${P}big" 20000 1 >/dev/null
check_match "[resp] max_value_bytes: GET of a 2,501-byte value → a clear error" '^ERR .*2048' \
  "$(rcli get "${P}big")"
check "[resp] max_value_bytes: GETBIT of that key is still served" 1 "$(rcli getbit "${P}big" 20000)"
for i in 1 2 3 4; do rcli setbit "${P}kx$i" 1 1 >/dev/null; done
check_match "[resp] keys_max 3: KEYS matching 4 → an error suggesting SCAN" 'SCAN' "$(rcli keys "${P}kx*")"
out=$(probe trickle "$RPORT" '*3\r\n$6\r\nSETBIT\r\n$1\r\nk')
check "[resp] command_timeout_s: a command that never ends → -ERR and close" \
  "-ERR command not received in full within 1 s" "$(head -n 1 <<<"$out")"
out=$(probe idle "$RPORT")
check_match "[resp] timeout_s: an idle client is closed" 'closed_after=[0-9]' "$out"
rcli setbit "${P}mid" 16383 1 >/dev/null # a 2,048-byte value
out=$(probe noread "$RPORT" 3000 "${P}mid" 3 2055)
check_match "[resp] write_timeout_s: a client that reads no reply is closed before all is sent" \
  'got_bytes=[0-9]+ full=6165000' "$out"
got=$(sed -n 's/got_bytes=\([0-9]*\).*/\1/p' <<<"$out")
check "[resp] write_timeout_s: the closed client got less than it asked for" 1 "$((got < 6165000))"
check_match "metrics count RESP timeouts (command, idle, write)" '^[3-9]$' "$(metric bitmapd_resp_timeouts_total)"
check "RESP serves after every limit above" 200 "$(rcli bitcount "${P}pipe")"
stop_service

# ---- SIGTERM while a big reply is still being written --------------------------------------
# The reply leaves the service's buffers over many loop turns; shutdown must wait for
# it (a slowly reading client) instead of dropping what is left when the loop ends.
start_service || finish
rcli setbit "${P}huge" 33554431 1 >/dev/null # a 4 MiB value
out=$(python3 - "$RPORT" "$SERVICE_PID" "${P}huge" <<'PY'
import os, signal, socket, sys, time
port, pid, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.settimeout(20)
s.connect(("127.0.0.1", port))
s.sendall(b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(key), key))
first = s.recv(65536)        # the reply has started
os.kill(pid, signal.SIGTERM)  # ... and most of it is still in the service's buffers
got = len(first)
while True:
    time.sleep(0.001)          # a slow reader
    d = s.recv(65536)
    if not d:
        break
    got += len(d)
print("got=%d want=%d" % (got, 4194304 + len(b"$4194304\r\n\r\n")))
PY
)
check_match "SIGTERM during a 4 MiB reply: the whole reply arrives before the close" 'got=([0-9]+) want=\1$' "$out"
stop_service
check "SIGTERM during a big reply: exit 0" 0 "$SERVICE_EXIT"

finish
