-- wrk script: every request a post (one per request, no idempotency key), at points spread
-- over a city so the index is not one hot spot. Usage: wrk -s posts.lua URL
local counter = 0

function init(args)
  counter = math.random(1, 1000000)
end

function request()
  counter = counter + 1
  local lat = 48.80 + (counter * 7919 % 10000) / 100000
  local lon = 2.30 + (counter * 104729 % 10000) / 100000
  local body = string.format('{"lat":%.6f,"lon":%.6f,"message":"write load note %d","tag":"food"}', lat, lon, counter)
  return wrk.format("POST", "/api/v1/posts", { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.1f, "rps": %.1f, "p50_ms": %.2f, "p99_ms": %.2f, "non_2xx": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
