// Where the board is busiest, for maps that would otherwise open on the whole world: the
// statistics' busiest cells (notes of the last 26 weeks), narrowed to the busiest cell and asked
// again, three times, so the cells end about a kilometre across, around the busiest street.

const LEVELS = 3;
let found = null;

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** The box of the cell holding a cell's mean position (the server's grid: from -90, -180). */
function cellBox({ lat, lon }, size) {
  const south = Math.floor((lat + 90) / size) * size - 90;
  const west = Math.floor((lon + 180) / size) * size - 180;
  return [clamp(west, -180, 180), clamp(south, -90, 90), clamp(west + size, -180, 180), clamp(south + size, -90, 90)];
}

async function narrow(call) {
  let bbox = null;
  let cells = [];
  for (let level = 0; level < LEVELS; level += 1) {
    const stats = await call("GET", "/api/v1/moderation/stats", { params: { bucket: "week", bbox } });
    if (!stats.topCells.length) break;
    cells = stats.topCells;
    bbox = cellBox(cells[0], stats.cellDegrees).join(",");
  }
  return cells;
}

/** The busiest cells, busiest first ([] for a board without recent notes); found once a session. */
export function busiestCells(call) {
  // An answer with no cells (no notes yet) or an error is not kept: the next map asks again.
  found ??= narrow(call).then((cells) => {
    if (!cells.length) found = null;
    return cells;
  }, (error) => {
    found = null;
    throw error;
  });
  return found;
}

/** Opens a map on the busiest cells (or, with `zoom`, on the busiest one at that zoom). */
export async function openOnBusiestArea(map, call, { zoom = null, maxZoom = 17, unless = () => false } = {}) {
  const cells = await busiestCells(call);
  if (!cells.length || unless()) return false;
  if (zoom !== null || cells.length === 1) map.setView([cells[0].lat, cells[0].lon], zoom ?? maxZoom);
  else map.fitBounds(cells.map((item) => [item.lat, item.lon]), { maxZoom, padding: [30, 30] });
  return true;
}
