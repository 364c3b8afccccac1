-- bench/scale_fixed.lua — wrk script of bench/http_scale.sh: every request is the
-- same GET of SCALE_PATH (path and query). done() prints one line for the script:
--   SCALE requests=N seconds=S rps=R p50_ms=… p90_ms=… p99_ms=… max_ms=… non2xx=N statuses=200:N,… sock_errors=c/r/w/t

local path = os.getenv("SCALE_PATH") or "/healthz"
local threads = {}
local req

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    req = wrk.format("GET", path)
    statuses = {}
end

function request()
    return req
end

function response(status)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local by, codes, parts, non2xx = {}, {}, {}, 0
    for _, t in ipairs(threads) do
        for code, n in pairs(t:get("statuses") or {}) do by[code] = (by[code] or 0) + n end
    end
    for code in pairs(by) do table.insert(codes, code) end
    table.sort(codes)
    for _, code in ipairs(codes) do
        table.insert(parts, string.format("%d:%d", code, by[code]))
        if code < 200 or code > 299 then non2xx = non2xx + by[code] end
    end
    local e = summary.errors
    local secs = summary.duration / 1e6
    io.write(string.format(
        "SCALE requests=%d seconds=%.2f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f" ..
        " non2xx=%d statuses=%s sock_errors=%d/%d/%d/%d\n",
        summary.requests, secs, summary.requests / secs,
        latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
        latency.max / 1000, non2xx, #parts > 0 and table.concat(parts, ",") or "none",
        e.connect, e.read, e.write, e.timeout))
end
