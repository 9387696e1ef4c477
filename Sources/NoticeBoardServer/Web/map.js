// The map: clusters from /api/v1/posts/clusters when zoomed out (so 100 000 notes stay smooth),
// the notes themselves when zoomed in; a click picks where to look and where to post.
// Leaflet is optional: without it this view says so and the others work.
import { getJSON } from "./api.js";
import { bboxParameter } from "./geo.js";
import { noteContent } from "./render.js";
import { state, update, onChange, filterParameters, passesFilters, announce } from "./state.js";

const NOTES_FROM_ZOOM = 15;
let map = null;
let layer = null;
let here = null;
const markers = new Map(); // post id → marker, at note zoom levels
let generation = 0;

export const mapAvailable = () => map !== null;

export function currentBBox() {
  if (!map) return null;
  const bounds = map.getBounds();
  return bboxParameter(bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth());
}

function noteMarker(post) {
  const marker = L.circleMarker([post.lat, post.lon], { radius: 8, color: "#7a1a12", weight: 2, fillColor: "#e0492f", fillOpacity: 0.9 });
  const content = document.createElement("div");
  content.className = "popup";
  content.append(noteContent(post));
  marker.bindPopup(content);
  marker.bindTooltip(`${post.tag}`, { direction: "top" });
  marker.getElement?.()?.setAttribute("data-id", String(post.id));
  marker.on("add", () => marker.getElement()?.setAttribute("data-id", String(post.id)));
  return marker;
}

function clusterMarker(cluster) {
  const size = cluster.count < 10 ? 30 : cluster.count < 100 ? 38 : cluster.count < 1000 ? 46 : 54;
  const icon = L.divIcon({ className: "cluster", html: "", iconSize: [size, size] });
  const marker = L.marker([cluster.lat, cluster.lon], { icon, keyboard: true, title: `${cluster.count} notes` });
  marker.on("add", () => {
    const element = marker.getElement();
    element.textContent = cluster.count > 9999 ? `${Math.round(cluster.count / 1000)}k` : String(cluster.count);
    element.setAttribute("aria-label", `${cluster.count} notes; zoom in`);
  });
  marker.on("click", () => map.setView([cluster.lat, cluster.lon], Math.min(map.getZoom() + 3, 19)));
  return marker;
}

export async function loadMap() {
  if (!map) return;
  const request = ++generation;
  const bbox = currentBBox();
  try {
    if (map.getZoom() >= NOTES_FROM_ZOOM) {
      const page = await getJSON("/api/v1/posts", { bbox, ...filterParameters(), limit: 500 });
      if (request !== generation) return;
      layer.clearLayers();
      markers.clear();
      for (const post of page.posts) {
        const marker = noteMarker(post);
        markers.set(post.id, marker);
        layer.addLayer(marker);
      }
      if (state.view === "map") announce(`${page.posts.length}${page.nextCursor ? "+" : ""} notes in view.`);
    } else {
      const result = await getJSON("/api/v1/posts/clusters", { bbox, zoom: map.getZoom(), ...filterParameters() });
      if (request !== generation) return;
      layer.clearLayers();
      markers.clear();
      for (const cluster of result.clusters) layer.addLayer(clusterMarker(cluster));
      if (state.view === "map") announce(`${result.total} notes in view.`);
    }
  } catch (error) {
    if (request === generation) announce(error.message);
  }
}

/** A note that appeared: a marker at once when notes are shown, else fresh cluster counts. */
export function addToMap(post) {
  if (!map || !passesFilters(post)) return;
  if (map.getZoom() >= NOTES_FROM_ZOOM) {
    if (markers.has(post.id) || !map.getBounds().contains([post.lat, post.lon])) return;
    const marker = noteMarker(post);
    markers.set(post.id, marker);
    layer.addLayer(marker);
  } else {
    scheduleReload();
  }
}

export function removeFromMap(id) {
  if (!map) return;
  const marker = markers.get(id);
  if (marker) {
    layer.removeLayer(marker);
    markers.delete(id);
  } else {
    scheduleReload();
  }
}

let reloadTimer = null;
function scheduleReload() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(loadMap, 500);
}

function showHere() {
  if (!map || state.lat === null || state.lon === null) return;
  if (!here) {
    here = L.circleMarker([state.lat, state.lon], { radius: 7, color: "#1d4ed8", weight: 3, fillColor: "#60a5fa", fillOpacity: 1, interactive: false });
    here.addTo(map);
  }
  here.setLatLng([state.lat, state.lon]);
}

export async function setUpMap(onMoved) {
  const container = document.getElementById("map");
  if (typeof window.L === "undefined") {
    container.hidden = true;
    document.getElementById("map-offline").hidden = false;
    return;
  }
  let config = { tileURL: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", tileAttribution: "© OpenStreetMap contributors" };
  try {
    config = await getJSON("/config.json");
  } catch {
    // Keep the defaults.
  }
  const center = state.lat !== null ? [state.lat, state.lon] : [20, 0];
  map = L.map(container, { worldCopyJump: true }).setView(center, state.zoom ?? (state.lat !== null ? 16 : 2));
  L.tileLayer(config.tileURL, { attribution: config.tileAttribution, maxZoom: 19 }).addTo(map);
  layer = L.layerGroup().addTo(map);
  map.on("moveend", () => {
    update({ zoom: map.getZoom() });
    loadMap();
    onMoved();
  });
  map.on("click", (event) => {
    const { lat, lng } = event.latlng.wrap();
    update({ lat: Number(lat.toFixed(6)), lon: Number(lng.toFixed(6)) });
    announce(`Position set to ${lat.toFixed(5)}, ${lng.toFixed(5)}: look around or post here.`);
  });
  onChange((changed) => {
    if (["tags", "from", "to"].some((key) => changed.has(key))) loadMap();
    if (changed.has("lat") || changed.has("lon")) showHere();
    if (changed.has("view") && state.view === "map") map.invalidateSize();
  });
  showHere();
  loadMap();
}
