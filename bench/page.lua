-- bench/page.lua — GET /v1/users/{u}/messages?limit=20&page=P: a newest-first page at a
-- random depth of a random user's box (P up to the last page of a seeded user).
local B = dofile("bench/common.lua")
setup, done = B.setup, B.done

function init(args) B.init() end

local LIMIT = 20

function request()
    local u = B.random_user()
    local pages = math.max(1, math.ceil(B.nids(u) / LIMIT))
    return wrk.format("GET", "/v1/users/" .. u .. "/messages?limit=" .. LIMIT .. "&page=" .. math.random(1, pages))
end

function response(status) B.count(status) end
