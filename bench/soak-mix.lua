-- wrk script for bench/soak.sh: a mix of warm index, version and archive requests and cold misses.
-- WARM providers p0000.. are warmed before the run; every cold request names a provider nobody asked for
-- before (c<thread>-<n>), which the bench origin publishes on demand.
local warm = tonumber(os.getenv("WARM") or "20")
local threads = {}
local counter = 0
local cold = 0
local id = 0
local base = "/providers/example.test/acme/"

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  id = tonumber(wrk.thread:get("id")) or 0
  e5 = 0
  refused = 0
  e4 = 0
  ok = 0
end

local function name(i)
  return string.format("p%04d", i)
end

request = function()
  counter = counter + 1
  local r = counter % 20
  local p = name(math.floor(counter / 20) % warm)
  local path
  if r < 8 then
    path = base .. p .. "/index.json"
  elseif r < 14 then
    path = base .. p .. "/1.0.0.json"
  elseif r < 19 then
    path = base .. p .. "/terraform-provider-" .. p .. "_1.0.0_linux_amd64.zip"
  else
    cold = cold + 1
    local c = "c" .. id .. "-" .. cold
    path = base .. c .. "/terraform-provider-" .. c .. "_1.0.0_linux_amd64.zip"
  end
  return wrk.format("GET", path)
end

response = function(status, headers, body)
  if status == 503 and (headers["retry-after"] or headers["Retry-After"]) then
    -- A bound refusing more cold archives at once than it allows (upstream.maxConcurrentFills, ...PerHost).
    refused = refused + 1
  elseif status >= 500 then
    e5 = e5 + 1
  elseif status >= 400 then
    e4 = e4 + 1
  else
    ok = ok + 1
  end
end

done = function(summary, latency, requests)
  local t5, tr, t4, tok = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    t5 = t5 + thread:get("e5")
    tr = tr + thread:get("refused")
    t4 = t4 + thread:get("e4")
    tok = tok + thread:get("ok")
  end
  io.write(string.format("SOAK_RESULT ok=%d 4xx=%d 5xx=%d refused=%d p99_ms=%.1f\n",
    tok, t4, t5, tr, latency:percentile(99) / 1000))
end
