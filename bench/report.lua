-- wrk script for bench/compare.sh: prints one machine-readable line with what the table needs.
-- RESULT <requests> <bytes> <duration-us> <p99-us> <errors> <socket-errors>
-- wrk counts an answer with a status above 399 as an error (summary.errors.status), so the module download's
-- 204 (no body, X-Terraform-Get) counts as answered, as a 200 does.
-- Requests carry the User-Agent of the CLI the README tests with, as every request a mirror answers does: both
-- servers write it into their access log.
wrk.headers["User-Agent"] = "Terraform/1.11.4 (+https://www.terraform.io)"

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
