// Geometry the page needs on its own side: the contract's formulas, for notes it adds itself
// (a fresh post, a live event) and for placing notes in the look-around view.

const EARTH_RADIUS = 6371008.8;
const radians = (degrees) => (degrees * Math.PI) / 180;
const degrees = (radiansValue) => (radiansValue * 180) / Math.PI;
const compass = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];

export function distance(lat1, lon1, lat2, lon2) {
  const dLat = radians(lat2 - lat1);
  const dLon = radians(lon2 - lon1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function bearing(lat1, lon1, lat2, lon2) {
  const y = Math.sin(radians(lon2 - lon1)) * Math.cos(radians(lat2));
  const x = Math.cos(radians(lat1)) * Math.sin(radians(lat2)) - Math.sin(radians(lat1)) * Math.cos(radians(lat2)) * Math.cos(radians(lon2 - lon1));
  return (degrees(Math.atan2(y, x)) + 360) % 360;
}

/** Signed difference b - a in (-180, 180]: negative means "to the left". */
export function signedAngle(a, b) {
  const d = (((b - a) % 360) + 540) % 360 - 180;
  return d === -180 ? 180 : d;
}

export function direction(bearingValue) {
  return compass[Math.round(bearingValue / 45) % 8];
}

export function distanceText(metres) {
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(1)} km`;
}

/** A Leaflet-style box as the API's `west,south,east,north`, or null for the whole world. */
export function bboxParameter(west, south, east, north) {
  if (east - west >= 360) return null;
  const wrap = (lon) => ((((lon + 180) % 360) + 360) % 360) - 180;
  const clampLat = (lat) => Math.max(-90, Math.min(90, lat));
  const fixed = (value) => Number(value.toFixed(6));
  return [fixed(wrap(west)), fixed(clampLat(south)), fixed(east === 180 ? 180 : wrap(east)), fixed(clampLat(north))].join(",");
}

/** A place's ring `[[lon, lat], …]` with longitudes unwrapped (±360 where a step exceeds 180°),
 *  so it draws and tests the short way across the antimeridian, as the server joins it. */
export function unwrapRing(ring) {
  const points = [];
  for (const [lon, lat] of ring) {
    let unwrapped = lon;
    if (points.length) {
      const previous = points[points.length - 1][0];
      while (unwrapped - previous > 180) unwrapped -= 360;
      while (previous - unwrapped > 180) unwrapped += 360;
    }
    points.push([unwrapped, lat]);
  }
  const [firstLon, firstLat] = points[0] ?? [];
  const [lastLon, lastLat] = points[points.length - 1] ?? [];
  if (points.length > 3 && firstLon === lastLon && firstLat === lastLat) points.pop(); // the repeated first vertex
  return points;
}

/** Whether a point is inside a ring or on its edge (the server's rule), for notes the page adds
 *  itself; the server answers every query. */
export function ringContains(ring, lat, lon) {
  const points = unwrapRing(ring);
  return [lon, lon - 360, lon + 360].some((x) => planarContains(points, x, lat));
}

function planarContains(points, x, y) {
  const epsilon = 1e-9;
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const [xi, yi] = points[i];
    const [xj, yj] = points[j];
    const cross = (xj - xi) * (y - yi) - (yj - yi) * (x - xi);
    const onSegment = Math.abs(cross) <= epsilon * Math.max(1, Math.hypot(xj - xi, yj - yi))
      && x >= Math.min(xi, xj) - epsilon && x <= Math.max(xi, xj) + epsilon
      && y >= Math.min(yi, yj) - epsilon && y <= Math.max(yi, yj) + epsilon;
    if (onSegment) return true;
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** A ring's area in square degrees (unwrapped), to pick the innermost of nested places. */
export function ringArea(ring) {
  const points = unwrapRing(ring);
  let twice = 0;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) twice += points[j][0] * points[i][1] - points[i][0] * points[j][1];
  return Math.abs(twice) / 2;
}
