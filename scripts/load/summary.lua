-- wrk's closing line for the load scripts: one JSON object of throughput, latency and errors.
-- Loaded with dofile from the repository root, where the scripts run.
return function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.1f, "rps": %.1f, "p50_ms": %.2f, "p99_ms": %.2f, "non_2xx": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
