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

done = dofile("scripts/load/summary.lua")
