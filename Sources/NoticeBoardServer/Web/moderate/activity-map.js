// The dashboard's map of activity, a heat layer without a plugin: the period's busiest cells as
// circles, bigger and redder for more notes. It opens on the board's busiest cells and, as the
// map moves, asks for the cells of its view again, so they stay about a 32nd of the view across.
// The same cells are a table one click away.
import { speakLeaflet } from "../leaflet-words.js";
import { distanceText, t } from "../i18n.js";
import { humanError } from "../errors.js";
import { getJSON } from "../api.js";
import { $, element } from "./dom.js";

// Light yellow to dark red, by share of the busiest cell.
const HEAT = ["#fed976", "#feb24c", "#fd8d3c", "#f03b20", "#bd0026"];
const MAX_ZOOM = 16;

let map = null;
let layer = null;
let call = null;
let bucket = "day";
let requests = 0;
let timer = null;
let positioned = false;

const wrap = (lon) => ((((lon + 180) % 360) + 360) % 360) - 180;
const round = (value) => Number(value.toFixed(6));

/** The map's view as a bbox (`west,south,east,north`, west > east across ±180), null for the world. */
function viewBox() {
  const bounds = map.getBounds();
  if (bounds.getEast() - bounds.getWest() >= 360) return null;
  const south = Math.max(-90, bounds.getSouth());
  const north = Math.min(90, bounds.getNorth());
  let west = wrap(bounds.getWest());
  let east = wrap(bounds.getEast());
  if (east === -180 && bounds.getEast() > bounds.getWest()) east = 180;
  if (west === 180) west = -180;
  return [west, south, east, north].map(round).join(",");
}

/** A cell's side in the page's language ("1.2 km", "1.2公里"): a degree of latitude is 111 195 m. */
const sizeText = (degrees) => distanceText(degrees * 111_195);

function draw(stats, bbox) {
  layer.clearLayers();
  const cells = stats.topCells;
  const most = Math.max(1, ...cells.map((item) => item.count));
  // The biggest first, so smaller circles stay on top and can be hovered.
  for (const item of [...cells].sort((a, b) => b.count - a.count)) {
    const share = item.count / most;
    const colour = HEAT[Math.min(HEAT.length - 1, Math.floor(share * HEAT.length))];
    const circle = L.circleMarker([item.lat, item.lon], {
      radius: 5 + 20 * Math.sqrt(share), color: "#7a1a12", weight: 1, fillColor: colour, fillOpacity: 0.7,
    });
    circle.bindTooltip(element("span", { text: t("mod.cellNotes", { count: item.count }) }));
    layer.addLayer(circle);
  }
  const container = map.getContainer();
  container.dataset.bbox = bbox ?? "";
  container.dataset.bucket = stats.bucket;
  container.dataset.cells = String(cells.length);
  $("#d-map-legend").textContent = cells.length
    ? t("mod.mapLegend", { count: cells.length, size: sizeText(stats.cellDegrees) })
    : t("mod.mapNone");
  const rows = cells.map((item, index) => {
    const row = element("tr");
    row.append(element("td", { className: "number", text: String(index + 1) }), element("td", { className: "number", text: item.lat.toFixed(5) }),
      element("td", { className: "number", text: item.lon.toFixed(5) }), element("td", { className: "number", text: String(item.count) }));
    return row;
  });
  $("#table-cells tbody").replaceChildren(...rows);
}

async function refresh() {
  const request = ++requests;
  const bbox = viewBox();
  try {
    const stats = await call("GET", "/api/v1/moderation/stats", { params: { bucket, bbox } });
    if (request === requests) draw(stats, bbox);
  } catch (error) {
    if (request === requests) $("#d-map-legend").textContent = t("mod.mapFailed", { reason: humanError(error) });
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 200);
}

function ensureMap() {
  if (map || typeof window.L === "undefined") return;
  map = L.map("dash-map", { maxZoom: 19 }).setView([20, 0], 2);
  speakLeaflet(map);
  new ResizeObserver(() => map.invalidateSize()).observe(map.getContainer());
  getJSON("/config.json").then((config) => {
    L.tileLayer(config.tileURL, { attribution: config.tileAttribution, maxZoom: 19 }).addTo(map);
  }).catch(() => {});
  layer = L.layerGroup().addTo(map);
  map.on("moveend", schedule);
}

/**
 * Shows the period's activity. The first time, the map opens on the busiest cells of the whole
 * board (the dashboard's `stats`); after that it keeps the moderator's view.
 */
export function showActivity(stats, { callWithToken }) {
  call = callWithToken;
  bucket = stats.bucket;
  ensureMap();
  if (!map) return;
  if (!positioned && stats.topCells.length) {
    positioned = true;
    const cells = stats.topCells;
    if (cells.length === 1) {
      // One cell: its square, so the next answer splits it into finer cells.
      const size = stats.cellDegrees;
      const south = Math.floor((cells[0].lat + 90) / size) * size - 90;
      const west = Math.floor((cells[0].lon + 180) / size) * size - 180;
      map.fitBounds([[south, west], [south + size, west + size]], { maxZoom: MAX_ZOOM });
    } else {
      map.fitBounds(cells.map((item) => [item.lat, item.lon]), { maxZoom: MAX_ZOOM, padding: [20, 20] });
    }
  }
  schedule();
}
