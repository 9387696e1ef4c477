// The map: clusters from /api/v1/posts/clusters when zoomed out (so 100 000 notes stay smooth),
// the notes themselves when zoomed in; a click picks where to look and where to post. The places
// meeting the view are drawn under the notes, each named, and reachable with the keyboard.
// Leaflet is optional: without it this view says so and the others work.
import { getJSON } from "./api.js";
import { bboxParameter, unwrapRing } from "./geo.js";
import { noteContent } from "./render.js";
import { knownPost, noteActions, remember } from "./reactions.js";
import { state, update, onChange, filterParameters, passesFilters, announce, chosenPlace } from "./state.js";

const NOTES_FROM_ZOOM = 15;
const LABELS_FROM_ZOOM = 15; // place names stay on the map from here; below, on hover and focus
let map = null;
let layer = null;
let placesLayer = null;
let placesGeneration = 0;
let here = null;
const markers = new Map(); // post id → marker, at note zoom levels
let generation = 0;

export const mapAvailable = () => map !== null;

/** Where the map looks, for "which place am I in" when the viewer has no position. */
export function mapCentre() {
  if (!map) return null;
  const centre = map.getCenter();
  return { lat: centre.lat, lon: centre.lng };
}

export function currentBBox() {
  if (!map) return null;
  const bounds = map.getBounds();
  return bboxParameter(bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth());
}

function noteMarker(post) {
  const marker = L.circleMarker([post.lat, post.lon], { radius: 8, color: "#7a1a12", weight: 2, fillColor: "#e0492f", fillOpacity: 0.9 });
  remember(post);
  // Built when opened, so its like and reply counts are the latest known.
  marker.bindPopup(() => {
    const current = knownPost(post.id) ?? post;
    const content = document.createElement("div");
    content.className = "popup";
    content.append(noteContent(current), noteActions(current));
    return content;
  });
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
      if (state.view === "map") announce(`${page.posts.length}${page.nextCursor ? "+" : ""} notes${inPlace()} in view.`);
    } else {
      const result = await getJSON("/api/v1/posts/clusters", { bbox, zoom: map.getZoom(), ...filterParameters() });
      if (request !== generation) return;
      layer.clearLayers();
      markers.clear();
      for (const cluster of result.clusters) layer.addLayer(clusterMarker(cluster));
      if (state.view === "map") announce(`${result.total} notes${inPlace()} in view.`);
    }
  } catch (error) {
    if (request === generation) announce(error.message);
  }
}

const inPlace = () => (state.place ? ` in ${chosenPlace.slug === state.place && chosenPlace.name ? chosenPlace.name : state.place}` : "");

function placeShape(place) {
  // Unwrapped longitudes draw a ring across the antimeridian the short way; the copy nearest
  // the view's centre is the one drawn.
  const ring = unwrapRing(place.polygon);
  const middle = ring.reduce((sum, [lon]) => sum + lon, 0) / ring.length;
  const shift = Math.round((map.getCenter().lng - middle) / 360) * 360;
  const chosen = place.slug === state.place;
  const shape = L.polygon(ring.map(([lon, lat]) => [lat, lon + shift]), {
    color: "#6d28d9", weight: chosen ? 3 : 2, opacity: 0.85, fillColor: "#8b5cf6", fillOpacity: chosen ? 0.14 : 0.07,
    dashArray: chosen ? null : "6 4", pane: "places",
  });
  // Leaflet reads a string as HTML: a node keeps the name text.
  const label = document.createElement("span");
  label.textContent = place.name;
  // A lasting label stands on the top edge, outside, so it never hides the notes inside.
  const permanent = map.getZoom() >= LABELS_FROM_ZOOM;
  shape.bindTooltip(label, { permanent, direction: permanent ? "top" : "center", offset: [0, permanent ? -2 : 0], className: "place-label" });
  const top = Math.max(...ring.map(([, lat]) => lat));
  const west = Math.min(...ring.map(([lon]) => lon)), east = Math.max(...ring.map(([lon]) => lon));
  shape.on("add", () => {
    if (permanent) shape.openTooltip(L.latLng(top, (west + east) / 2 + shift));
    const element = shape.getElement();
    if (!element) return;
    element.dataset.place = place.slug;
    element.setAttribute("tabindex", "0");
    element.setAttribute("role", "button");
    element.setAttribute("aria-label", `${place.name}, ${place.postCount} note${place.postCount === 1 ? "" : "s"}: show the whole place`);
    element.addEventListener("focus", () => { if (!permanent) shape.openTooltip(); });
    element.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      map.fitBounds(shape.getBounds(), { padding: [24, 24], maxZoom: 19 });
      announce(`${place.name}: click inside it to stand there.`);
    });
  });
  return shape;
}

/** The places meeting the view, drawn under the notes. */
export async function loadPlaces() {
  if (!map) return;
  const request = ++placesGeneration;
  try {
    const page = await getJSON("/api/v1/places", { bbox: currentBBox(), limit: 200 });
    if (request !== placesGeneration) return;
    placesLayer.clearLayers();
    for (const place of page.places) placesLayer.addLayer(placeShape(place));
  } catch {
    // The notes matter more: a failed places request leaves the last ones drawn.
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
  map.createPane("places").style.zIndex = "350"; // under the notes (the overlay pane is 400)
  placesLayer = L.layerGroup().addTo(map);
  layer = L.layerGroup().addTo(map);
  map.on("moveend", () => {
    update({ zoom: map.getZoom() });
    loadMap();
    loadPlaces();
    onMoved();
  });
  map.on("click", (event) => {
    const { lat, lng } = event.latlng.wrap();
    update({ lat: Number(lat.toFixed(6)), lon: Number(lng.toFixed(6)) });
    announce(`Position set to ${lat.toFixed(5)}, ${lng.toFixed(5)}: look around or post here.`);
  });
  onChange((changed) => {
    if (["tags", "from", "to", "place", "asOf"].some((key) => changed.has(key))) loadMap();
    if (changed.has("place")) loadPlaces();
    if (changed.has("lat") || changed.has("lon")) showHere();
    if (changed.has("view") && state.view === "map") map.invalidateSize();
  });
  showHere();
  loadMap();
  loadPlaces();
}
