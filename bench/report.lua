-- wrk script for bench/compare.sh: prints one machine-readable line with what the table needs.
-- RESULT <requests> <bytes> <duration-us> <p99-us> <non-2xx> <socket-errors>
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
