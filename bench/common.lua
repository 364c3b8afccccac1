-- bench/common.lua — shared by the wrk scripts of bench/ (loaded with dofile from
-- the repository root, in every Lua state wrk creates: setup/done and each thread).
--
-- The synthetic message box (seed 000): BENCH_USERS users, user ids 0 … BENCH_USERS-1.
-- A year of a global message sequence holds ids 0 … SLOTS*SLOT_WIDTH-1 (just under
-- 10,000,000); user u receives message j (j = 0 … SLOTS-1, five a day) with id
--   msg_id(u, j) = j*SLOT_WIDTH + mix(u*SLOTS + j) % SLOT_WIDTH
-- i.e. one id in each 1/SLOTS-th of the year, at a pseudo-random place in it.
-- Seeding gives each user these ids (or an evenly spread subset, see nids()), so
-- the load scripts can recompute a pushed id of any user without state.
-- bench/run.sh has the same formula in SQL (for the row-per-event table) and
-- checks that it agrees with what the service stored.

local B = {}

B.SLOTS = 1825            -- 5 messages a day for 365 days
B.SLOT_WIDTH = 5479       -- floor(10,000,000 / 1825)
B.ID_RANGE = B.SLOTS * B.SLOT_WIDTH
B.USERS = tonumber(os.getenv("BENCH_USERS") or "100000")
-- Users 0 … BENCH_FULL_USERS-1 get all SLOTS ids; the others BENCH_IDS ids each,
-- spread over the year (every SLOTS/BENCH_IDS-th slot). Defaults: everyone full.
B.IDS = tonumber(os.getenv("BENCH_IDS") or tostring(B.SLOTS))
B.FULL = tonumber(os.getenv("BENCH_FULL_USERS") or tostring(B.USERS))
B.NAME = os.getenv("BENCH_NAME") or "bench"

local P = 2147483647      -- Park–Miller modulus; products stay below 2^53 (exact in doubles)

function B.mix(x)
    local h = (x % (P - 1)) + 1
    h = (h * 48271) % P
    h = (h * 48271) % P
    return h
end

function B.msg_id(u, j)
    return j * B.SLOT_WIDTH + B.mix(u * B.SLOTS + j) % B.SLOT_WIDTH
end

-- Number of ids seeded for user u, and its i-th one (i = 0 … nids(u)-1, ascending).
function B.nids(u)
    if u < B.FULL then return B.SLOTS end
    return B.IDS
end

function B.pushed_id(u, i)
    return B.msg_id(u, math.floor(i * B.SLOTS / B.nids(u)))
end

function B.random_pushed(u)
    return B.pushed_id(u, math.random(0, B.nids(u) - 1))
end

B.json_headers = { ["Content-Type"] = "application/json" }

-- Per-thread status counts, gathered by done() through thread:get().
statuses = {}

function B.count(status)
    statuses[status] = (statuses[status] or 0) + 1
end

-- The thread count (wrk -t) as run.sh passes it: wrk starts each thread right
-- after its setup(), before the next thread exists, so it cannot be counted here.
B.THREADS = tonumber(os.getenv("BENCH_THREADS") or "2")

-- setup(): number the threads (seeds the per-thread PRNG, splits seeding work).
local threads = {}
function B.setup(thread)
    thread:set("tid", #threads)
    table.insert(threads, thread)
end

-- done(): one machine-readable line for bench/run.sh.
function B.done(summary, latency, requests)
    local by = {}
    for _, t in ipairs(threads) do
        local st = t:get("statuses") or {}
        for code, n in pairs(st) do by[code] = (by[code] or 0) + n end
    end
    local codes, non2xx = {}, 0
    for code in pairs(by) do table.insert(codes, code) end
    table.sort(codes)
    local parts = {}
    for _, code in ipairs(codes) do
        table.insert(parts, string.format("%d:%d", code, by[code]))
        if code < 200 or code > 299 then non2xx = non2xx + by[code] end
    end
    local e = summary.errors
    local secs = summary.duration / 1e6
    io.write(string.format(
        "BENCH name=%s requests=%d seconds=%.2f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f" ..
        " max_ms=%.3f non2xx=%d statuses=%s sock_errors=%d/%d/%d/%d\n",
        B.NAME, summary.requests, secs, summary.requests / secs,
        latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
        latency.max / 1000, non2xx, #parts > 0 and table.concat(parts, ",") or "none",
        e.connect, e.read, e.write, e.timeout))
end

function B.init()
    math.randomseed(os.time() * 1000 + (tid or 0) * 7919 + 17)
end

function B.random_user()
    return math.random(0, B.USERS - 1)
end

return B
