-- bench/seed.lua — seeds the message boxes through the API: one
-- POST /v1/users/{u}/pushes {"messages": [all of u's ids]} per user, for users
-- BENCH_SEED_FROM … BENCH_USERS-1. Thread t of T takes users FROM+t, FROM+t+T,
-- FROM+t+2T, …; when each of those requests has been answered it
-- stops and creates the file $BENCH_SEED_DONE.<t>, which bench/run.sh waits for
-- (wrk itself always runs for its -d duration; run.sh interrupts it then).
local B = dofile("bench/common.lua")
setup, done = B.setup, B.done

local next_user, assigned, answered, marker

function init(args)
    B.init()
    next_user = tonumber(os.getenv("BENCH_SEED_FROM") or "0") + tid
    assigned = 0
    if next_user < B.USERS then assigned = math.floor((B.USERS - 1 - next_user) / B.THREADS) + 1 end
    answered = 0
    marker = (os.getenv("BENCH_SEED_DONE") or "/tmp/bitmapd-bench-seed-done") .. "." .. tid
end

local function body(u)
    local t = {}
    for i = 0, B.nids(u) - 1 do t[i + 1] = B.pushed_id(u, i) end
    return '{"messages":[' .. table.concat(t, ",") .. ']}'
end

-- wrk calls delay() before each request() of a connection, but other connections'
-- calls may come in between, and wrk calls request() once in thread 0 just to check
-- the script. So delay() hands out the users (a FIFO of let-through users) and
-- request() takes one; a request() with none waiting sends GET /healthz, whose
-- answer is not counted. Once every user is handed out, connections are held back.
local queue, qhead, qtail = {}, 1, 0

function delay()
    if next_user >= B.USERS then return 600000 end
    qtail = qtail + 1
    queue[qtail] = next_user
    next_user = next_user + B.THREADS
    return 0
end

function request()
    if qhead > qtail then return wrk.format("GET", "/healthz") end
    local u = queue[qhead]
    queue[qhead] = nil
    qhead = qhead + 1
    return wrk.format("POST", "/v1/users/" .. u .. "/pushes", B.json_headers, body(u))
end

function response(status, headers, body)
    if status == 200 and body:find('"database"', 1, true) then return end -- a /healthz filler
    B.count(status)
    answered = answered + 1
    if answered == assigned then
        local f = io.open(marker, "w")
        if f then f:write(tostring(answered), "\n"); f:close() end
        wrk.thread:stop()
    end
end
