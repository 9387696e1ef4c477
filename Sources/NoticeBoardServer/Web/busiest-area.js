// Where the board is busiest, for a map that would otherwise open on an empty world (no position):
// the public clusters of the whole world, then of the busiest cluster's surroundings at closer
// zooms, so the map opens on the busiest street rather than a continent. No moderator endpoint.
import { getJSON } from "./api.js";
import { bboxParameter } from "./geo.js";

// Each step zooms in on the busiest cluster of the step before, in a box this many degrees wide.
const STEPS = [{ zoom: 2, span: null }, { zoom: 7, span: 8 }, { zoom: 11, span: 0.6 }, { zoom: 14, span: 0.06 }];

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

function boxAround({ lat, lon }, span) {
  const half = span / 2;
  return bboxParameter(clamp(lon - half, -180, 180), clamp(lat - half, -90, 90), clamp(lon + half, -180, 180), clamp(lat + half, -90, 90));
}

/** The busiest spot of the board (`{lat, lon, count}`), or null for a board without notes. */
export async function busiestSpot(filters = {}) {
  let best = null;
  for (const { zoom, span } of STEPS) {
    const bbox = span === null ? "-180,-90,180,90" : boxAround(best, span);
    const { clusters } = await getJSON("/api/v1/posts/clusters", { bbox, zoom, ...filters });
    if (!clusters.length) break;
    best = clusters.reduce((most, cluster) => (cluster.count > most.count ? cluster : most));
  }
  return best;
}
