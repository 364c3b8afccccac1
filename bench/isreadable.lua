-- bench/isreadable.lua — GET /v1/users/{u}/messages/{id} (isReadable + hasBeenRead):
-- half the lookups name a message pushed to that user, half a random id of the year.
local B = dofile("bench/common.lua")
setup, done = B.setup, B.done

function init(args) B.init() end

function request()
    local u = B.random_user()
    local id
    if math.random() < 0.5 then
        id = B.random_pushed(u)
    else
        id = math.random(0, B.ID_RANGE - 1)
    end
    return wrk.format("GET", "/v1/users/" .. u .. "/messages/" .. id)
end

function response(status) B.count(status) end
