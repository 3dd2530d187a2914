-- Catastrophic regexes (nested repetition), anonymous, each with a different skip so no cache helps.
local patterns = {
    { "/parse/classes/StudentLocation", '{"mapString":{"$regex":"^(a+)+b?$"}}' },
    { "/v1/StudentLocation", '{"mediaURL":{"$regex":"(.*.){6}!"}}' },
    { "/parse/classes/StudentLocation", '{"mapString":{"$regex":"^(a|aa)+$"}}' },
    { "/v1/StudentLocation", '{"mapString":{"$regex":"^(\\\\w+\\\\s?)*$"}}' },
}
local headers = {
    ["X-Parse-Application-Id"] = "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
    ["X-Parse-REST-API-Key"] = "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY",
}
local threads = {}
function setup(thread) table.insert(threads, thread) end
local n = 0
function init(args) ok, timeout, other = 0, 0, 0 end
local function encode(text)
    return (text:gsub("[^%w]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
function request()
    n = n + 1
    local p = patterns[(n % #patterns) + 1]
    return wrk.format("GET", p[1] .. "?limit=1&skip=" .. n .. "&where=" .. encode(p[2]), headers)
end
function response(status, headers, body)
    if status == 200 then ok = ok + 1
    elseif body:find('"code":124', 1, true) then timeout = timeout + 1
    else other = other + 1 end
end
function done(summary, latency, requests)
    local a, b, c = 0, 0, 0
    for _, t in ipairs(threads) do a = a + t:get("ok"); b = b + t:get("timeout"); c = c + t:get("other") end
    io.write(string.format("RESULT requests=%d answered=%d timeout124=%d other=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n",
        summary.requests, a, b, c, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
