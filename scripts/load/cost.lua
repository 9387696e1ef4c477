-- wrk script for the request-cost phase: one kind of request over the anchor benchmark's query
-- points. Usage: wrk -s cost.lua URL -- queries.csv KIND   (KIND: healthz, nearby, browse; fixed:
-- the bare application's fixed answer)
-- nearby asks within 5 km with limit 50, so answers carry up to 50 full posts.
local points = {}
local counter = 0
local kind = "healthz"

function init(args)
  local file = assert(io.open(args[1], "r"))
  local columns, index = {}, 0
  for name in file:read("*l"):gmatch("[^,]+") do index = index + 1; columns[name] = index end
  for line in file:lines() do
    local cells = {}
    for cell in line:gmatch("[^,]+") do cells[#cells + 1] = cell end
    points[#points + 1] = { lat = tonumber(cells[columns.lat]), lon = tonumber(cells[columns.lon]) }
  end
  file:close()
  kind = args[2] or "healthz"
  counter = math.random(1, #points)
end

function request()
  if kind == "healthz" then return wrk.format("GET", "/healthz") end
  if kind == "fixed" then return wrk.format("GET", "/fixed") end
  counter = counter + 1
  local p = points[(counter % #points) + 1]
  if kind == "browse" then
    local d = 0.05
    return wrk.format("GET", string.format("/api/v1/posts?bbox=%.5f,%.5f,%.5f,%.5f&limit=50",
      math.max(-180, p.lon - d), math.max(-90, p.lat - d), math.min(180, p.lon + d), math.min(90, p.lat + d)))
  end
  return wrk.format("GET", string.format("/api/v1/posts/nearby?lat=%.6f&lon=%.6f&radius=5000&limit=50", p.lat, p.lon))
end

done = dofile("scripts/load/summary.lua")
