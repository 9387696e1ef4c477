-- wrk script: 90 % reads (nearby 60 %, browse by box 30 %) and 10 % posts, over the anchor
-- benchmark's query points. Usage: wrk -s mix.lua URL -- queries.csv [POSTS_IN_10=1]
-- (POSTS_IN_10=0: reads only, nearby two thirds and browse one third).
local points = {}
local counter = 0
local posts_in_10 = 1

function init(args)
  local file = assert(io.open(args[1], "r"))
  local columns = {}
  local index = 0
  for name in file:read("*l"):gmatch("[^,]+") do -- the header: qid,lat,lon,radius_m,kind
    index = index + 1
    columns[name] = index
  end
  for line in file:lines() do
    local cells = {}
    for cell in line:gmatch("[^,]+") do cells[#cells + 1] = cell end
    points[#points + 1] = {
      lat = tonumber(cells[columns.lat]), lon = tonumber(cells[columns.lon]), radius = tonumber(cells[columns.radius_m]),
    }
  end
  file:close()
  posts_in_10 = tonumber(args[2] or "1")
  counter = math.random(1, #points)
end

function request()
  counter = counter + 1
  local p = points[(counter % #points) + 1]
  local kind = counter % 10
  if kind < posts_in_10 then
    local body = string.format('{"lat":%.6f,"lon":%.6f,"message":"load test note %d","tag":"food"}', p.lat, p.lon, counter)
    return wrk.format("POST", "/api/v1/posts", { ["Content-Type"] = "application/json" }, body)
  elseif kind <= 3 then
    local d = 0.01
    return wrk.format("GET", string.format("/api/v1/posts?bbox=%.5f,%.5f,%.5f,%.5f&limit=50",
      math.max(-180, p.lon - d), math.max(-90, p.lat - d), math.min(180, p.lon + d), math.min(90, p.lat + d)))
  end
  return wrk.format("GET", string.format("/api/v1/posts/nearby?lat=%.6f&lon=%.6f&radius=%d&limit=50", p.lat, p.lon, p.radius))
end

done = dofile("scripts/load/summary.lua")
