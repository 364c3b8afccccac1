-- bench/scale_fixed.lua — wrk script of bench/http_scale.sh: every request is the
-- same GET of SCALE_PATH (path and query). done() is bench/common.lua's, one line:
--   BENCH name=… requests=N seconds=S rps=R p50_ms=… p90_ms=… p99_ms=… max_ms=… non2xx=N statuses=200:N,… sock_errors=c/r/w/t

local B = dofile("bench/common.lua")
local path = os.getenv("SCALE_PATH") or "/healthz"
local req

setup = B.setup
response = B.count
done = B.done

function init(args)
    req = wrk.format("GET", path)
end

function request()
    return req
end
