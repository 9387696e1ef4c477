// The map: clusters from /api/v1/posts/clusters when zoomed out (so 100 000 notes stay smooth),
// merged on screen where they would overlap, the notes themselves when zoomed in (notes too close
// to tap apart share a stack that zooms in, or lists them at the closest zoom); all are
// buttons for the keyboard (Tab, then Enter or Space). It opens on the person (a locate button
// brings it back); a tap never moves their position: only a long-press, confirmed, does. The
// places meeting the view are drawn under the notes, each named, and reachable with the keyboard.
// Leaflet is optional: without it this view says so and the others work.
import { getJSON } from "./api.js";
import { humanError } from "./errors.js";
import { bboxParameter, unwrapRing } from "./geo.js";
import { t, number, onLanguage } from "./i18n.js";
import { locate, onLocated, onLocationFailed, setByHand } from "./location.js";
import { onPlaceNamed } from "./places.js";
import { noteContent, tagName } from "./render.js";
import { knownPost, noteActions, remember } from "./reactions.js";
import { stackList } from "./stack-list.js";
import { keepMapFitted } from "./map-size.js";
import { openThread } from "./thread.js";
import { busiestSpot } from "./busiest-area.js";
import { speakLeaflet } from "./leaflet-words.js";
import { state, update, onChange, filterParameters, passesFilters, announce, chosenPlace, hasPosition } from "./state.js";

const NOTES_FROM_ZOOM = 15;
const LABELS_FROM_ZOOM = 15; // place names stay on the map from here; below, on hover and focus
let map = null;
let layer = null;
let placesLayer = null;
let placesGeneration = 0;
let resizing = false; // while Leaflet takes in a new height
let owedCount = false; // a load asked to say how many notes are in view has not answered yet
// Drawn places by slug: a shape unchanged by a reload stays, so keyboard focus on it survives.
const drawnPlaces = new Map();
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

/** Makes a marker's element a button for the keyboard: Enter and Space do what a click does. */
function keyboardButton(element, label, onPress) {
  if (!element) return;
  element.setAttribute("role", "button");
  element.setAttribute("tabindex", "0");
  element.setAttribute("aria-label", label);
  element.removeAttribute("title");
  if (element.dataset.keys) return;
  element.dataset.keys = "1";
  element.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    event.stopPropagation();
    onPress();
  });
}

// The map is fed positions, ids and tags only (`fields`): a note's text comes when its popup opens.
const MAP_FIELDS = "id,lat,lon,tag";
const fullNote = (post) => typeof post.message === "string";

/** The whole note for a popup: known already (a live note, one read before), or asked for now. */
async function wholeNote(id) {
  const known = knownPost(id);
  if (known && fullNote(known)) return known;
  return remember(await getJSON(`/api/v1/posts/${id}`));
}

function notePopup(post) {
  const content = document.createElement("div");
  content.className = "popup";
  content.append(noteContent(post), noteActions(post));
  return content;
}

/** A closed popup gives the focus back to its marker when the focus was in it (it fades out for a
 *  moment, so the focus is still inside then) or had fallen to the page. */
function focusBack(marker, popup) {
  const element = marker.getElement();
  const active = document.activeElement;
  const inside = popup?.getElement()?.contains(active);
  if (element && (inside || !active || active === document.body)) element.focus?.({ preventScroll: true });
}

function noteMarker(post) {
  const icon = L.divIcon({ className: "note-marker", html: "", iconSize: [44, 44] }); // a thumb's target around a small dot
  const marker = L.marker([post.lat, post.lon], { icon, keyboard: false });
  if (fullNote(post)) remember(post);
  // Built when opened, so its like and reply counts are the latest known; a note the map knows
  // only by its position is fetched then.
  marker.bindPopup(() => {
    const current = knownPost(post.id);
    if (current && fullNote(current)) return notePopup(current);
    const waiting = document.createElement("p");
    waiting.className = "popup popup-loading";
    waiting.textContent = t("map.noteLoading");
    wholeNote(post.id).then((whole) => {
      marker.setPopupContent(notePopup(whole));
      if (waiting.contains(document.activeElement) || marker.getElement() === document.activeElement) {
        marker.getPopup()?.getElement()?.querySelector("button")?.focus();
      }
    }, (error) => { waiting.textContent = humanError(error); });
    return waiting;
  });
  marker.on("add", () => {
    const element = marker.getElement();
    element.dataset.id = String(post.id);
    const label = fullNote(post)
      ? t("map.noteLabel", { tag: tagName(post.tag), message: [...post.message].slice(0, 60).join("") })
      : t("map.noteLabelShort", { tag: tagName(post.tag) });
    keyboardButton(element, label, () => {
      marker.openPopup();
      // The popup's first control takes the focus, so its actions are one Tab away.
      setTimeout(() => marker.getPopup()?.getElement()?.querySelector("button")?.focus(), 50);
    });
  });
  marker.on("popupclose", (event) => focusBack(marker, event.popup));
  return marker;
}

const clusterSize = (count) => (count < 10 ? 32 : count < 100 ? 40 : count < 1000 ? 48 : 56);

const STACK_GAP = 44; // px: pins nearer than this on screen are one stack (their thumb-sized targets would overlap)
const MAX_ZOOM = 19;

/** The notes as the pins they make: notes whose pins would overlap on screen share a stack at
 *  their middle, merged again until no two stacks or pins overlap (each keeps the order given). */
export function stacks(posts, project) {
  let groups = posts.map((post, index) => ({ lat: post.lat, lon: post.lon, members: [[index, post]] }));
  for (let round = 0; round < 10; round += 1) {
    const placed = [];
    const cells = new Map(); // a grid of STACK_GAP squares: a group looks at its neighbours only
    for (const group of groups) {
      const point = project(group);
      const cx = Math.floor(point.x / STACK_GAP), cy = Math.floor(point.y / STACK_GAP);
      let near = null;
      for (let dx = -1; dx <= 1 && !near; dx += 1) {
        for (let dy = -1; dy <= 1 && !near; dy += 1) {
          near = (cells.get(`${cx + dx},${cy + dy}`) ?? [])
            .find((other) => Math.abs(other.point.x - point.x) < STACK_GAP && Math.abs(other.point.y - point.y) < STACK_GAP) ?? null;
        }
      }
      if (near) {
        const total = near.members.length + group.members.length;
        near.lat = (near.lat * near.members.length + group.lat * group.members.length) / total;
        near.lon = (near.lon * near.members.length + group.lon * group.members.length) / total;
        near.members.push(...group.members);
        continue;
      }
      const kept = { ...group, members: [...group.members], point };
      placed.push(kept);
      const key = `${cx},${cy}`;
      cells.set(key, [...(cells.get(key) ?? []), kept]);
    }
    const settled = placed.length === groups.length;
    groups = placed;
    if (settled) break;
  }
  return groups.map((group) => ({
    lat: group.lat, lon: group.lon, posts: group.members.sort((a, b) => a[0] - b[0]).map(([, post]) => post),
  }));
}

/** The first zoom above `from` at which a stack's notes part into two stacks or pins, or null
 *  when they never do (they share one spot, or stand closer than a thumb even at the closest zoom). */
export function partingZoom(posts, from) {
  for (let zoom = Math.floor(from) + 1; zoom <= MAX_ZOOM; zoom += 1) {
    if (stacks(posts, (at) => map.project([at.lat, at.lon], zoom)).length > 1) return zoom;
  }
  return null;
}

/** Full notes for a stack's list: the notes of the view the map knows only by position are
 *  asked for in one request, for the small box around them. */
async function wholeNotes(posts) {
  if (posts.every((post) => fullNote(knownPost(post.id) ?? post))) return posts.map((post) => knownPost(post.id) ?? post);
  const bounds = L.latLngBounds(posts.map((post) => [post.lat, post.lon])).pad(0.01);
  const margin = 1e-6;
  const bbox = bboxParameter(bounds.getWest() - margin, bounds.getSouth() - margin, bounds.getEast() + margin, bounds.getNorth() + margin);
  const page = await getJSON("/api/v1/posts", { bbox, ...filterParameters(), limit: 500 });
  const byId = new Map(page.posts.map((post) => [post.id, remember(post)]));
  return posts.map((post) => byId.get(post.id) ?? knownPost(post.id) ?? post).filter(fullNote);
}

/** A stack of notes too close to tell apart: a press always zooms in, to the first zoom at which
 *  they part (closer still when they fit), centred on them; notes that never part (one spot)
 *  open as a list with their distance and direction from the person. */
function stackMarker({ lat, lon, posts }) {
  const size = Math.max(STACK_GAP, clusterSize(posts.length));
  const icon = L.divIcon({ className: "cluster stack", html: "", iconSize: [size, size] });
  const marker = L.marker([lat, lon], { icon, keyboard: false });
  posts.filter(fullNote).forEach(remember);
  const bounds = L.latLngBounds(posts.map((post) => [post.lat, post.lon]));
  const parting = partingZoom(posts, map.getZoom());
  const zooms = parting !== null;
  if (!zooms) {
    marker.bindPopup(() => {
      const waiting = document.createElement("p");
      waiting.className = "popup popup-loading";
      waiting.textContent = t("map.noteLoading");
      wholeNotes(posts).then((whole) => {
        marker.setPopupContent(stackList(whole, openThread));
        marker.getPopup()?.getElement()?.querySelector(".stack-note")?.focus({ preventScroll: true });
      }, (error) => { waiting.textContent = humanError(error); });
      return waiting;
    }, { maxWidth: 320, minWidth: 260, autoPanPaddingTopLeft: [8, 8] });
  }
  const press = () => {
    if (!zooms) {
      marker.openPopup();
      return;
    }
    // Fitting the stack's box is the closest view that shows them all; it may not zoom in at all
    // (a stack as wide as the screen), so the zoom at which they part is the least it goes to.
    const fits = Math.min(map.getBoundsZoom(bounds, false, L.point(STACK_GAP * 2, STACK_GAP * 2)), MAX_ZOOM);
    map.setView(bounds.getCenter(), Math.max(parting, fits));
  };
  marker.on("add", () => {
    const element = marker.getElement();
    // The count stands on the stack's edge, where the person's own dot (drawn above) cannot hide it.
    const count = document.createElement("span");
    count.className = "stack-count";
    count.textContent = number(posts.length);
    element.replaceChildren(count);
    element.dataset.ids = posts.map((post) => post.id).join(",");
    element.dataset.parts = zooms ? String(parting) : "never";
    keyboardButton(element, t(zooms ? "map.stackLabel" : "map.stackListLabel", { count: posts.length }), () => {
      press();
      // The focus goes to the first note or stack where this one was (the list focuses its first note).
      if (zooms) map.once("moveend", () => afterLoad(() => focusNearest({ lat, lon })));
    });
  });
  if (zooms) marker.on("click", press);
  marker.on("popupclose", (event) => focusBack(marker, event.popup));
  for (const post of posts) markers.set(post.id, marker);
  return marker;
}

/** Clusters whose circles would overlap on screen are merged (counts summed, centroids weighted),
 *  biggest first, so no count hides behind another at any zoom. */
export function mergeOverlapping(clusters, project) {
  let current = clusters;
  // A merged cluster grows and moves, so it is checked again until nothing overlaps.
  for (let round = 0; round < 10; round += 1) {
    const placed = [];
    for (const cluster of [...current].sort((a, b) => b.count - a.count)) {
      const point = project(cluster);
      const near = placed.find((other) => {
        const gap = (clusterSize(other.count) + clusterSize(cluster.count)) / 2 + 4;
        return Math.abs(other.point.x - point.x) < gap && Math.abs(other.point.y - point.y) < gap;
      });
      if (near) {
        const total = near.count + cluster.count;
        near.lat = (near.lat * near.count + cluster.lat * cluster.count) / total;
        near.lon = (near.lon * near.count + cluster.lon * cluster.count) / total;
        near.count = total;
        near.postId = undefined;
        near.point = project(near);
      } else {
        placed.push({ ...cluster, point });
      }
    }
    if (placed.length === current.length) return placed;
    current = placed;
  }
  return current;
}

function clusterMarker(cluster) {
  const size = clusterSize(cluster.count);
  const icon = L.divIcon({ className: "cluster", html: "", iconSize: [size, size] });
  const marker = L.marker([cluster.lat, cluster.lon], { icon, keyboard: false });
  const zoomIn = () => map.setView([cluster.lat, cluster.lon], Math.min(map.getZoom() + 3, MAX_ZOOM));
  marker.on("add", () => {
    const element = marker.getElement();
    element.textContent = cluster.count > 9999 ? `${number(Math.round(cluster.count / 1000))}k` : number(cluster.count);
    keyboardButton(element, t("map.clusterLabel", { count: cluster.count }), () => {
      zoomIn();
      // After the zoom the focus goes to the first note or group where the cluster was.
      map.once("moveend", () => afterLoad(() => focusNearest(cluster)));
    });
  });
  marker.on("click", zoomIn);
  return marker;
}

let loadedGeneration = 0;
let loadedBounds = null; // the area the notes drawn were fetched for
/** Runs `then` once the load started by the latest move has drawn its markers. */
function afterLoad(then, tries = 40) {
  const target = generation;
  const check = (left) => {
    if (loadedGeneration >= target) then();
    else if (left > 0) setTimeout(() => check(left - 1), 100);
  };
  check(tries);
}

/** Where the keyboard's focus stands on a marker, so a redraw can give it back near there. */
function focusedMarkerPlace() {
  const active = document.activeElement;
  if (!active?.classList?.contains("leaflet-marker-icon")) return null;
  let place = null;
  layer.eachLayer((marker) => {
    if (marker.getElement() === active) place = { lat: marker.getLatLng().lat, lon: marker.getLatLng().lng };
  });
  return place;
}

/** Focuses the marker nearest to where a cluster stood (keyboard users keep their place). */
function focusNearest(cluster) {
  const centre = map.latLngToContainerPoint([cluster.lat, cluster.lon]);
  let best = null;
  let bestDistance = Infinity;
  layer.eachLayer((marker) => {
    const point = map.latLngToContainerPoint(marker.getLatLng());
    const gap = Math.hypot(point.x - centre.x, point.y - centre.y);
    if (gap < bestDistance) {
      bestDistance = gap;
      best = marker;
    }
  });
  best?.getElement()?.focus({ preventScroll: true });
}

/** Draws the notes of the view afresh. A redraw closes an open popup, so unless the filters or
 *  the language changed (`evenIfReading`), it waits until the person closes the popup. `quiet`
 *  when only the map's size changed: the status line keeps what it said. */
export async function loadMap({ evenIfReading = false, quiet = false } = {}) {
  if (!map) return;
  if (!quiet) owedCount = true; // a quiet load that overtakes this one says the count in its place
  const request = ++generation;
  const bbox = currentBBox();
  const bounds = map.getBounds();
  try {
    if (map.getZoom() >= NOTES_FROM_ZOOM) {
      const page = await getJSON("/api/v1/posts", { bbox, ...filterParameters(), limit: 500, fields: MAP_FIELDS });
      if (request !== generation) return;
      if (deferredForReader(evenIfReading)) return;
      const focusedAt = focusedMarkerPlace();
      layer.clearLayers();
      markers.clear();
      for (const stack of stacks(page.posts, (at) => map.latLngToLayerPoint([at.lat, at.lon]))) {
        if (stack.posts.length > 1) {
          layer.addLayer(stackMarker(stack));
          continue;
        }
        const marker = noteMarker(stack.posts[0]);
        markers.set(stack.posts[0].id, marker);
        layer.addLayer(marker);
      }
      // A live note or a pan redraws the pins under a keyboard user: the focus stays where it was.
      if (focusedAt) focusNearest(focusedAt);
      if (state.view === "map" && owedCount) announce(mapCount(page.posts.length, Boolean(page.nextCursor)));
    } else {
      const result = await getJSON("/api/v1/posts/clusters", { bbox, zoom: map.getZoom(), ...filterParameters() });
      if (request !== generation) return;
      if (deferredForReader(evenIfReading)) return;
      const focusedAt = focusedMarkerPlace();
      layer.clearLayers();
      markers.clear();
      const merged = mergeOverlapping(result.clusters, (cluster) => map.latLngToLayerPoint([cluster.lat, cluster.lon]));
      for (const cluster of merged) layer.addLayer(clusterMarker(cluster));
      if (focusedAt) focusNearest(focusedAt);
      if (state.view === "map" && owedCount) announce(mapCount(result.total, false));
    }
    container.classList.remove("stale");
    loadedGeneration = request;
    loadedBounds = bounds;
    owedCount = false;
  } catch (error) {
    if (request !== generation) return;
    container.classList.add("stale");
    if (state.view === "map") announce(humanError(error));
  }
}

function mapCount(count, more) {
  const place = state.place ? (chosenPlace.slug === state.place && chosenPlace.name ? chosenPlace.name : state.place) : null;
  const key = place ? (more ? "map.countPlaceMore" : "map.countPlace") : (more ? "map.countMore" : "map.count");
  return t(key, { count, place });
}

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
  shape.bindTooltip(label, { permanent, direction: permanent ? "top" : "center", offset: [0, permanent ? -2 : 0], className: "place-label", pane: permanent ? "placeLabels" : "tooltipPane" });
  const top = Math.max(...ring.map(([, lat]) => lat));
  const west = Math.min(...ring.map(([lon]) => lon)), east = Math.max(...ring.map(([lon]) => lon));
  shape.on("add", () => {
    if (permanent) shape.openTooltip(L.latLng(top, (west + east) / 2 + shift));
    const element = shape.getElement();
    if (!element) return;
    element.dataset.place = place.slug;
    element.setAttribute("tabindex", "0");
    element.setAttribute("role", "button");
    labelPlace(shape, place);
    element.addEventListener("focus", () => { if (!permanent) shape.openTooltip(); });
    element.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      map.fitBounds(shape.getBounds(), { padding: [24, 24], maxZoom: MAX_ZOOM });
      announce(t("map.placeShown", { name: place.name }));
    });
  });
  shape.drawnAs = JSON.stringify([place.polygon, place.name, chosen, permanent, shift]);
  return shape;
}

function labelPlace(shape, place) {
  shape.getElement()?.setAttribute("aria-label", t("map.placeLabel", { name: place.name, count: place.postCount }));
}

/** The places meeting the view, drawn under the notes. */
export async function loadPlaces() {
  if (!map) return;
  const request = ++placesGeneration;
  try {
    const page = await getJSON("/api/v1/places", { bbox: currentBBox(), limit: 200 });
    if (request !== placesGeneration) return;
    const shown = new Set();
    for (const place of page.places) {
      shown.add(place.slug);
      const drawn = drawnPlaces.get(place.slug);
      const shape = placeShape(place);
      if (drawn && drawn.drawnAs === shape.drawnAs) {
        labelPlace(drawn, place);
        continue;
      }
      const focused = drawn !== undefined && drawn.getElement() === document.activeElement;
      if (drawn) placesLayer.removeLayer(drawn);
      drawnPlaces.set(place.slug, shape);
      placesLayer.addLayer(shape);
      if (focused) shape.getElement()?.focus({ preventScroll: true });
    }
    for (const [slug, drawn] of drawnPlaces) {
      if (shown.has(slug)) continue;
      placesLayer.removeLayer(drawn);
      drawnPlaces.delete(slug);
    }
  } catch {
    // The notes matter more: a failed places request leaves the last ones drawn.
  }
}

/** A note that appeared: a marker at once when notes are shown, else fresh cluster counts. */
export function addToMap(post) {
  if (!map || !passesFilters(post)) return;
  if (map.getZoom() >= NOTES_FROM_ZOOM) {
    if (markers.has(post.id) || !map.getBounds().contains([post.lat, post.lon])) return;
    // A note landing on another's pin joins a stack: the notes are drawn again.
    const point = map.latLngToLayerPoint([post.lat, post.lon]);
    const crowded = [...new Set(markers.values())].some((other) => {
      const at = map.latLngToLayerPoint(other.getLatLng());
      return Math.abs(at.x - point.x) < STACK_GAP && Math.abs(at.y - point.y) < STACK_GAP;
    });
    if (crowded) {
      scheduleReload();
      return;
    }
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
  if (marker && marker.getElement()?.dataset.ids) {
    // One of a stack: it leaves an open list at once, and the stack is drawn again without it.
    leaveStackList(marker, id);
    scheduleReload();
  } else if (marker) {
    layer.removeLayer(marker);
    markers.delete(id);
  } else {
    scheduleReload();
  }
}

// A popup being read is not closed under the reader by a redraw that a pan or a live note
// would start: the notes are drawn again once it closes.
let popupOpen = false;
let reloadWhenPopupCloses = false;
/** Whether a redraw waits for the open popup to close (and is then done). */
function deferredForReader(evenIfReading) {
  if (!popupOpen || evenIfReading) return false;
  reloadWhenPopupCloses = true;
  return true;
}

function reloadUnlessReading({ quiet = false } = {}) {
  if (!deferredForReader(false)) loadMap({ quiet });
}

/** Takes a note out of its stack's open list, with the count; an emptied list closes. */
function leaveStackList(marker, id) {
  const list = marker.getPopup()?.getElement()?.querySelector(".stack-list");
  const item = list?.querySelector(`li[data-id="${id}"]`);
  if (!item) return;
  const hadFocus = item.contains(document.activeElement);
  item.remove();
  const left = list.querySelectorAll("li[data-id]").length;
  if (left === 0) {
    marker.closePopup();
    return;
  }
  list.querySelector(".stack-heading .stack-words").textContent = t("map.stackHere", { count: left });
  if (hadFocus) list.querySelector("li[data-id] button")?.focus();
}

let reloadTimer = null;
function scheduleReload() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(reloadUnlessReading, 500);
}

/** Says so over the map when a batch of its tiles failed (offline, or the tile server down), so a
 *  blank grey map is not taken for a place without streets; the next batch that loads clears it. */
function watchTiles(tiles) {
  const notice = document.getElementById("map-tiles-problem");
  let failures = 0;
  tiles.on("loading", () => { failures = 0; });
  tiles.on("tileerror", () => {
    failures += 1;
    notice.hidden = false;
  });
  tiles.on("load", () => { notice.hidden = failures === 0; });
}

function showHere() {
  if (!map || state.lat === null || state.lon === null) return;
  if (!here) {
    here = L.circleMarker([state.lat, state.lon], { radius: 9, color: "white", weight: 3, fillColor: "#1d4ed8", fillOpacity: 1, interactive: false, pane: "here" });
    here.addTo(map);
  }
  here.setLatLng([state.lat, state.lon]);
  here.getElement?.()?.classList.toggle("by-hand", state.source === "hand");
}

/** Centres the map on the person (after a locate), close enough to see the notes around. */
function centreOnPerson() {
  if (!map || state.lat === null) return;
  map.setView([state.lat, state.lon], Math.max(map.getZoom(), 16));
}

let container = null;
let pending = null; // the long-pressed point waiting for confirmation

/** A long-press (or a right-click) asks before moving the person's position there. */
function askToSetPosition(latlng) {
  const { lat, lng } = latlng.wrap();
  pending = { lat, lon: lng };
  const dialog = document.getElementById("position-dialog");
  document.getElementById("position-text").textContent = t("position.text", { lat: lat.toFixed(5), lon: lng.toFixed(5) });
  dialog.showModal();
  document.getElementById("position-cancel").focus();
}

let lastLongPress = 0;
/** A finger held still on the map for 600 ms is a long-press (iOS Safari sends no contextmenu for it). */
function watchLongPress(element) {
  let timer = null;
  let start = null;
  const cancel = () => { clearTimeout(timer); timer = null; };
  element.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "touch" || !event.isPrimary) return;
    start = { x: event.clientX, y: event.clientY };
    cancel();
    timer = setTimeout(() => {
      timer = null;
      lastLongPress = Date.now();
      const box = element.getBoundingClientRect();
      askToSetPosition(map.containerPointToLatLng([start.x - box.left, start.y - box.top]));
    }, 600);
  });
  element.addEventListener("pointermove", (event) => {
    if (timer && start && Math.hypot(event.clientX - start.x, event.clientY - start.y) > 10) cancel();
  });
  ["pointerup", "pointercancel", "pointerleave"].forEach((type) => element.addEventListener(type, cancel));
  map.on("movestart zoomstart", cancel);
}

function setUpPositionDialog() {
  const dialog = document.getElementById("position-dialog");
  document.getElementById("position-cancel").addEventListener("click", () => dialog.close());
  document.getElementById("position-confirm").addEventListener("click", () => {
    if (pending) {
      setByHand(pending.lat, pending.lon);
      announce(t("position.set"));
    }
    dialog.close();
  });
  dialog.addEventListener("close", () => { pending = null; });
}

/** Without a position the map would open on an empty world: it opens on the board's busiest
 *  area instead (found from the public clusters) and says how to set a position. Only a map the
 *  person has not moved yet, and not one a link placed (a zoom in the address). */
let movedByPerson = false;
let openedFromLink = false;
let locationFailed = false; // it may fail before the map is set up: the map then opens there itself
async function openOnBusiest() {
  locationFailed = true;
  if (!map || hasPosition() || movedByPerson || openedFromLink) return;
  const note = document.getElementById("map-busiest");
  try {
    const spot = await busiestSpot({ tag: state.tags, place: state.place });
    if (!spot || hasPosition() || movedByPerson) return;
    map.setView([spot.lat, spot.lon], 16);
    note.hidden = false;
  } catch {
    // The empty world stays: the location box already says how to set a position.
  }
}

export async function setUpMap(onMoved) {
  container = document.getElementById("map");
  onLocationFailed(() => openOnBusiest());
  setUpPositionDialog();
  document.getElementById("locate-map").addEventListener("click", async () => {
    if (state.source === "device" || await locate()) centreOnPerson();
  });
  if (typeof window.L === "undefined") {
    container.hidden = true;
    document.getElementById("map-offline").hidden = false;
    document.getElementById("locate-map").hidden = true;
    return;
  }
  // The tiles' address is asked for while the map and its notes start (a round trip less before the first pins).
  const defaults = { tileURL: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", tileAttribution: "© OpenStreetMap contributors" };
  const config = getJSON("/config.json").catch(() => defaults);
  // Sized before the map starts, so its first notes are asked for the area it shows.
  const fit = keepMapFitted(container, () => {
    resizing = true; // Leaflet's moveend comes at once: the notes are fetched again, not announced again
    try {
      map?.invalidateSize();
    } finally {
      resizing = false;
    }
  });
  fit();
  const center = state.lat !== null ? [state.lat, state.lon] : [20, 0];
  map = L.map(container, { worldCopyJump: true }).setView(center, state.zoom ?? (state.lat !== null ? 16 : 2));
  config.then((found) => watchTiles(L.tileLayer(found.tileURL, { attribution: found.tileAttribution, maxZoom: MAX_ZOOM }).addTo(map)));
  map.attributionControl.setPrefix(false); // Leaflet's own link adds nothing for people, and a flag icon
  onLocated(centreOnPerson);
  map.createPane("places").style.zIndex = "350"; // under the notes (the overlay pane is 400)
  map.createPane("placeLabels").style.zIndex = "550"; // a place's name under the notes' pins (600), never over a count
  map.createPane("here").style.zIndex = "650"; // the person's own dot stays on top of the notes around them
  map.getPane("here").style.pointerEvents = "none";
  placesLayer = L.layerGroup().addTo(map);
  layer = L.layerGroup().addTo(map);
  openedFromLink = state.zoom !== null && state.zoom !== undefined && new URLSearchParams(location.search).has("zoom");
  update({ zoom: map.getZoom() }); // the opening zoom is in the URL too, like every later one
  speakLeaflet(map);
  // A drag, a pinch or a key moves the map: from then on the person chose where it looks.
  map.on("dragstart", () => { movedByPerson = true; });
  container.addEventListener("wheel", () => { movedByPerson = true; }, { passive: true });
  if (locationFailed) openOnBusiest();
  onLocated(() => { document.getElementById("map-busiest").hidden = true; });
  // Escape closes an open popup wherever the focus is (Leaflet does so only when the map has it).
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !popupOpen || document.querySelector("dialog[open]")) return;
    event.preventDefault();
    map.closePopup();
  });
  // The tiles' notice would cover a popup's heading: it steps aside while one is open.
  map.on("popupopen", () => {
    popupOpen = true;
    container.parentElement.classList.add("reading");
  });
  map.on("popupclose", () => {
    popupOpen = false;
    container.parentElement.classList.remove("reading");
    if (reloadWhenPopupCloses) {
      reloadWhenPopupCloses = false;
      loadMap();
    }
  });
  map.on("moveend", () => {
    // A map made shorter (a banner above it) shows part of what it holds: nothing to fetch.
    if (resizing && loadedBounds?.contains(map.getBounds())) return;
    update({ zoom: map.getZoom() });
    reloadUnlessReading({ quiet: resizing });
    loadPlaces();
    onMoved();
  });
  // A tap only pans and opens notes: the position moves by a long-press, confirmed.
  map.on("contextmenu", (event) => { if (Date.now() - lastLongPress > 1000) askToSetPosition(event.latlng); });
  watchLongPress(container);
  onChange((changed) => {
    if (["tags", "from", "to", "place", "asOf"].some((key) => changed.has(key))) loadMap({ evenIfReading: true });
    if (changed.has("place")) loadPlaces();
    if (changed.has("lat") || changed.has("lon") || changed.has("source")) showHere();
    if (changed.has("view") && state.view === "map") {
      fit();
      map.invalidateSize();
    }
  });
  onLanguage(() => {
    loadMap({ evenIfReading: true });
    loadPlaces(); // the places' spoken labels are in the language too
  });
  onPlaceNamed(() => { if (state.view === "map") reloadUnlessReading(); }); // its count names the place
  showHere();
  loadMap();
  loadPlaces();
}
