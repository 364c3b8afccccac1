-- bench/read.lua — POST /v1/users/{u}/reads {"messages": [id], "force": true}: a random
-- user marks one of its pushed messages read (a write to the user's read bitmap,
-- unchanged when that message was already marked).
local B = dofile("bench/common.lua")
setup, done = B.setup, B.done

function init(args) B.init() end

function request()
    local u = B.random_user()
    local id = B.random_pushed(u)
    return wrk.format("POST", "/v1/users/" .. u .. "/reads", B.json_headers,
                      '{"messages":[' .. id .. '],"force":true}')
end

function response(status) B.count(status) end
