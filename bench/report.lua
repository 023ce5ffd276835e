-- wrk script for bench/compare.sh: prints one machine-readable line with what the table needs.
-- RESULT <requests> <bytes> <duration-us> <p99-us> <errors> <socket-errors>
-- wrk counts an answer with a status above 399 as an error (summary.errors.status), so the module download's
-- 204 (no body, X-Terraform-Get) counts as answered, as a 200 does.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
