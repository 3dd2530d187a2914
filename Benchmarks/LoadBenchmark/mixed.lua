-- The community's own traffic: 90% reads (first page, later pages, a prefix search), 10%
-- writes (a new location). Every acknowledged write's objectId goes to $IDS_DIR so the run
-- can check afterwards that each one is really stored.
local app_id = "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr"
local rest_key = "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"
local session = os.getenv("SESSION")
local ids_dir = os.getenv("IDS_DIR")
local path = "/parse/classes/StudentLocation"
local letters = { "A", "B", "C", "L", "M", "N", "P", "S", "T" }

local threads = {}
local next_id = 0
function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

local read_headers, write_headers, ids
-- Globals, so done() can read them from each thread.
function init(args)
    read_headers = { ["X-Parse-Application-Id"] = app_id, ["X-Parse-REST-API-Key"] = rest_key }
    write_headers = {
        ["X-Parse-Application-Id"] = app_id, ["X-Parse-REST-API-Key"] = rest_key,
        ["X-Parse-Session-Token"] = session, ["Content-Type"] = "application/json",
    }
    ids = io.open(ids_dir .. "/ids-" .. tid .. ".txt", "w")
    ids:setvbuf("line")
    math.randomseed(os.time() + tid * 7919)
    written = 0
    s2xx, s4xx, s5xx, s124 = 0, 0, 0, 0
end

local function encode(text)
    return (text:gsub("[^%w]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function request()
    local r = math.random(100)
    if r <= 10 then
        local body = string.format(
            '{"firstName":"Load","lastName":"Test","mapString":"Lyon, France","mediaURL":"https://example.com/%d",' ..
            '"latitude":45.76,"longitude":4.84}', math.random(1000000))
        return wrk.format("POST", path, write_headers, body)
    elseif r <= 60 then
        return wrk.format("GET", path .. "?limit=100&order=-updatedAt", read_headers)
    elseif r <= 80 then
        return wrk.format("GET", path .. "?limit=100&order=-updatedAt&skip=" .. (100 * math.random(3)), read_headers)
    else
        local where = '{"mapString":{"$regex":"^' .. letters[math.random(#letters)] .. '","$options":"i"}}'
        return wrk.format("GET", path .. "?limit=100&where=" .. encode(where), read_headers)
    end
end

function response(status, headers, body)
    if status == 201 then
        local id = body:match('"objectId":"(%w+)"')
        if id then ids:write(id, "\n"); written = written + 1 end
    end
    if status < 300 then s2xx = s2xx + 1 elseif status < 500 then s4xx = s4xx + 1 else s5xx = s5xx + 1 end
    -- A search that waited past the deadline for its regex turn (Parse's timeout).
    if status == 400 and body:find('"code":124', 1, true) then s124 = s124 + 1 end
end

function done(summary, latency, requests)
    local a, b, c, w, d = 0, 0, 0, 0, 0
    for _, t in ipairs(threads) do
        a = a + t:get("s2xx"); b = b + t:get("s4xx"); c = c + t:get("s5xx"); w = w + t:get("written"); d = d + t:get("s124")
    end
    io.write(string.format("RESULT requests=%d rps=%.0f p50_ms=%.1f p90_ms=%.1f p99_ms=%.1f max_ms=%.1f " ..
        "s2xx=%d s4xx=%d of_which_124=%d s5xx=%d acked_writes=%d socket_errors=%d timeouts=%d\n",
        summary.requests, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
        a, b, d, c, w,
        summary.errors.connect + summary.errors.read + summary.errors.write, summary.errors.timeout))
end
