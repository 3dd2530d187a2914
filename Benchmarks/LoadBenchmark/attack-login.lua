-- A login flood: the demo account's real password, so every attempt costs a full bcrypt.
wrk.method = "POST"
wrk.body = '{"udacity":{"username":"demo@onthemap.local","password":"onthemap-demo"}}'
wrk.headers["Content-Type"] = "application/json"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok, busy, other = 0, 0, 0 end
function response(status, headers, body)
    if status == 200 then ok = ok + 1 elseif status == 503 then busy = busy + 1 else other = other + 1 end
end
function done(summary, latency, requests)
    local a, b, c = 0, 0, 0
    for _, t in ipairs(threads) do a = a + t:get("ok"); b = b + t:get("busy"); c = c + t:get("other") end
    io.write(string.format("RESULT requests=%d ok=%d busy503=%d other=%d p50_ms=%.1f p99_ms=%.1f\n",
        summary.requests, a, b, c, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
