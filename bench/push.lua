-- bench/push.lua — POST /v1/users/{u}/pushes {"messages": [id]}: a random user of the
-- seeded set gets a random message id of the year's range (almost always a new one,
-- so almost every request is a real compare-and-swap write).
local B = dofile("bench/common.lua")
setup, done = B.setup, B.done

function init(args) B.init() end

function request()
    local u = B.random_user()
    local id = math.random(0, B.ID_RANGE - 1)
    return wrk.format("POST", "/v1/users/" .. u .. "/pushes", B.json_headers,
                      '{"messages":[' .. id .. ']}')
end

function response(status) B.count(status) end
