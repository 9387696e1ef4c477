// The moderators' places: draw a polygon on a map (a click adds a corner, corners are draggable
// markers, a dot between two corners inserts one), name it, give it floors, save it; the places
// already made are listed (edit, delete) and drawn faintly; each place carries announcements.
// Every text from the board is shown as text, never HTML.
import { speakLeaflet } from "../leaflet-words.js";
import { dateTimeText, t } from "../i18n.js";
import { getJSON } from "../api.js";
import { unwrapRing } from "../geo.js";
import { openOnBusiestArea } from "./busiest.js";
import { button, cardRow, cell } from "./dom.js";

const $ = (selector) => document.querySelector(selector);
const FIELDS = ["name", "slug", "description", "floors", "polygon"];
const MIDPOINTS_UP_TO = 200;

let call = null; // the moderator's authenticated request, from moderate.js
let announce = () => {};
let map = null;
let othersLayer = null;
let editLayer = null;
let outline = null;
let corners = []; // L.marker, in ring order
let midpoints = [];
let problemEdges = null;
let editing = null; // the saved place being edited, or null for a new one
let slugTouched = false;
let draggedAt = 0; // when a corner was last let go: the click that ends a drag adds no corner
let placesCursor = null;
const known = new Map(); // slug → place, as listed

// The drawing

const cornerIcon = () => L.divIcon({ className: "vertex", iconSize: [18, 18] });
const midpointIcon = () => L.divIcon({ className: "midpoint", iconSize: [14, 14] });

function ringLatLngs() {
  return corners.map((corner) => corner.getLatLng());
}

function countText() {
  const count = corners.length;
  if (count === 0) return t("mod.p.noCorners");
  return `${t("mod.p.corners", { count })}${count < 3 ? t("mod.p.atLeast3") : ""}`;
}

function redraw() {
  const latLngs = ringLatLngs();
  outline.setLatLngs(latLngs);
  problemEdges?.remove();
  problemEdges = null;
  midpoints.forEach((marker) => marker.remove());
  midpoints = [];
  // Dots between corners for up to MIDPOINTS_UP_TO corners; a bigger ring is edited by its corners.
  const edges = corners.length > MIDPOINTS_UP_TO ? 0 : corners.length >= 3 ? corners.length : corners.length - 1;
  for (let index = 0; index < edges; index += 1) {
    const a = latLngs[index];
    const b = latLngs[(index + 1) % latLngs.length];
    const middle = L.latLng((a.lat + b.lat) / 2, (a.lng + b.lng) / 2);
    const marker = L.marker(middle, { icon: midpointIcon(), keyboard: true });
    marker.on("click", () => {
      addCorner(middle, index + 1);
      corners[index + 1].getElement()?.focus();
    });
    marker.on("add", () => labelMarker(marker, t("mod.p.addBetween", { a: index + 1, b: (index + 1) % latLngs.length + 1 })));
    midpoints.push(marker.addTo(editLayer));
  }
  corners.forEach((corner, index) => labelMarker(corner, t("mod.p.cornerLabel", { n: index + 1, count: corners.length })));
  $("#vertex-count").textContent = countText();
}

function labelMarker(marker, text) {
  const element = marker.getElement();
  if (!element) return;
  element.setAttribute("role", "button");
  element.setAttribute("aria-label", text);
}

function addCorner(latLng, at = corners.length, { redrawn = true } = {}) {
  const corner = L.marker(latLng, { icon: cornerIcon(), draggable: true, keyboard: true, autoPan: true });
  // Leaflet hands a click on a marker without a click listener to the map: a click on a
  // corner would add another one there.
  corner.on("click", () => corner.getElement()?.focus());
  corner.on("drag", redrawOutline);
  corner.on("dragend", () => {
    draggedAt = Date.now();
    redraw();
  });
  corner.on("add", () => {
    corner.getElement()?.addEventListener("keydown", (event) => nudge(corner, event));
  });
  corners.splice(at, 0, corner);
  corner.addTo(editLayer);
  clearFieldError("polygon");
  if (redrawn) redraw();
}

function redrawOutline() {
  outline.setLatLngs(ringLatLngs());
  problemEdges?.remove();
  problemEdges = null;
  const latLngs = ringLatLngs();
  midpoints.forEach((marker, index) => {
    const a = latLngs[index];
    const b = latLngs[(index + 1) % latLngs.length];
    marker.setLatLng([(a.lat + b.lat) / 2, (a.lng + b.lng) / 2]);
  });
}

// Arrow keys move a focused corner (Shift: further); Delete or Backspace removes it.
function nudge(corner, event) {
  if (event.key === "Delete" || event.key === "Backspace") {
    event.preventDefault();
    const index = corners.indexOf(corner);
    corners.splice(index, 1);
    corner.remove();
    redraw();
    (corners[Math.min(index, corners.length - 1)]?.getElement() ?? $("#place-map")).focus();
    announce(t("mod.p.removedCorner", { n: index + 1 }));
    return;
  }
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
  if (!steps) return;
  event.preventDefault();
  event.stopPropagation(); // the map would pan
  const size = event.shiftKey ? 20 : 4;
  const point = map.latLngToContainerPoint(corner.getLatLng()).add([steps[0] * size, steps[1] * size]);
  corner.setLatLng(map.containerPointToLatLng(point));
  redraw();
  corner.getElement()?.focus();
}

function clearDrawing() {
  corners.forEach((corner) => corner.remove());
  corners = [];
  redraw();
}

function showProblemEdges(message) {
  // "polygon must not cross itself (edges 0 and 2 meet)": those two edges drawn in red.
  const match = /edges (\d+) and (\d+)/.exec(message);
  if (!match || corners.length < 3) return;
  const latLngs = ringLatLngs();
  const edge = (index) => [latLngs[index % latLngs.length], latLngs[(index + 1) % latLngs.length]];
  problemEdges = L.polyline([edge(Number(match[1])), edge(Number(match[2]))], { color: "#b42318", weight: 5, interactive: false }).addTo(map);
}

/** The ring to send: longitudes wrapped back into [-180, 180] (the server joins across ±180). */
function ringToSend() {
  const wrap = (lon) => ((((lon + 180) % 360) + 360) % 360) - 180;
  return ringLatLngs().map(({ lat, lng }) => [Number(wrap(lng).toFixed(7)), Number(lat.toFixed(7))]);
}

function ensureMap() {
  if (map || typeof window.L === "undefined") return;
  map = L.map("place-map", { doubleClickZoom: false }).setView([20, 0], 2);
  speakLeaflet(map);
  // Leaflet notices only the window's resizing; the layout around the map can change it too,
  // and a map that misjudges its size puts corners where the pointer was not.
  new ResizeObserver(() => map.invalidateSize()).observe(map.getContainer());
  getJSON("/config.json").then((config) => {
    L.tileLayer(config.tileURL, { attribution: config.tileAttribution, maxZoom: 21 }).addTo(map);
  }).catch(() => {});
  othersLayer = L.layerGroup().addTo(map);
  editLayer = L.layerGroup().addTo(map);
  outline = L.polygon([], { color: "#1d4ed8", weight: 3, fillColor: "#60a5fa", fillOpacity: 0.2, interactive: false }).addTo(editLayer);
  map.on("click", (event) => {
    // A drag that panned the map (near its edge) ends with a click on the map itself.
    if (Date.now() - draggedAt < 400) return;
    addCorner(event.latlng);
    announce(`${countText()}.`);
  });
  // Drawing starts at street level on the board's busiest spot, unless a drawing has begun.
  openOnBusiestArea(map, call, { zoom: 17, unless: () => corners.length > 0 || editing !== null }).catch(() => {});
}

// The form

function clearFieldError(field) {
  const line = $(`#p-${field}-error`);
  if (line) line.textContent = "";
  const input = { name: "#p-name", slug: "#p-slug", description: "#p-description", floors: "#p-floor-min" }[field];
  if (input) $(input).removeAttribute("aria-invalid");
}

function clearErrors() {
  FIELDS.forEach(clearFieldError);
  $("#place-error").textContent = "";
  problemEdges?.remove();
  problemEdges = null;
}

function showFieldError(field, message) {
  const key = FIELDS.find((name) => field === name || field?.startsWith(`${name}[`) || field?.startsWith(`${name}.`));
  if (!key) {
    $("#place-error").textContent = field ? `${field}: ${message}` : message;
    return;
  }
  $(`#p-${key}-error`).textContent = message;
  const input = { name: "#p-name", slug: "#p-slug", description: "#p-description", floors: "#p-floor-min" }[key];
  if (input) {
    $(input).setAttribute("aria-invalid", "true");
    $(input).focus();
  }
  if (key === "polygon") showProblemEdges(message);
}

function slugFrom(name) {
  return name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
}

function startNew() {
  editing = null;
  slugTouched = false;
  $("#place-form").reset();
  $("#place-form-heading").textContent = t("mod.p.newPlace");
  $("#p-slug").readOnly = false;
  $("#announcements-section").hidden = true;
  clearErrors();
  clearDrawing();
}

/** Loads a place into the editor; after a save the drawing (and the view) stay as they are. */
function edit(place, { keepDrawing = false } = {}) {
  editing = place;
  slugTouched = true;
  clearErrors();
  $("#place-form-heading").textContent = t("mod.p.editingHeading", { name: place.name });
  $("#p-name").value = place.name;
  $("#p-slug").value = place.slug;
  $("#p-description").value = place.description ?? "";
  $("#p-floor-min").value = place.floors ? place.floors[0] : "";
  $("#p-floor-max").value = place.floors ? place.floors[1] : "";
  if (map && !keepDrawing) {
    clearDrawing();
    const ring = unwrapRing(place.polygon);
    ring.forEach(([lon, lat]) => addCorner(L.latLng(lat, lon), corners.length, { redrawn: false }));
    redraw();
    map.fitBounds(outline.getBounds(), { padding: [30, 30], maxZoom: 19 });
  }
  $("#p-slug").readOnly = true; // another slug would be another place: "New place" starts one
  $("#announcements-section").hidden = false;
  $("#announcements-heading").textContent = t("mod.p.announcementsFor", { name: place.name });
  loadAnnouncements();
  if (!keepDrawing) announce(t("mod.p.editing", { name: place.name }));
}

async function save(event) {
  event.preventDefault();
  clearErrors();
  const slug = $("#p-slug").value.trim();
  const low = $("#p-floor-min").value;
  const high = $("#p-floor-max").value;
  if (!/^[a-z0-9-]{1,64}$/.test(slug)) {
    showFieldError("slug", t("mod.p.slugRule"));
    return;
  }
  if ((low === "") !== (high === "")) {
    showFieldError("floors", t("mod.p.floorsBoth"));
    return;
  }
  if (low !== "" && Number(low) > Number(high)) {
    showFieldError("floors", t("mod.p.floorsOrder"));
    return;
  }
  const body = {
    name: $("#p-name").value,
    polygon: ringToSend(),
    floors: low === "" ? null : [Number(low), Number(high)],
    description: $("#p-description").value,
  };
  const button = $("#save-place");
  button.disabled = true;
  try {
    const place = await call("PUT", `/api/v1/moderation/places/${slug}`, { body });
    await loadPlaces();
    edit(place, { keepDrawing: true });
    announce(t("mod.p.saved", { name: place.name }));
  } catch (error) {
    showFieldError(error.field, error.message);
    announce(t("mod.p.notSaved", { reason: error.message }));
  } finally {
    button.disabled = false;
  }
}

async function remove(place) {
  if (!confirm(t("mod.p.confirmDelete", { name: place.name }))) return;
  try {
    await call("DELETE", `/api/v1/moderation/places/${place.slug}`);
    if (editing?.slug === place.slug) startNew();
    await loadPlaces();
    announce(t("mod.p.deleted", { name: place.name }));
  } catch (error) {
    announce(error.message);
  }
}

// The list

function placeRow(place) {
  const actions = cell("", "actions");
  const editButton = button(t("mod.p.edit"), () => edit(place));
  editButton.setAttribute("aria-label", t("mod.p.editLabel", { name: place.name }));
  const deleteButton = button(t("mod.deleteAsk"), () => remove(place), "danger");
  deleteButton.setAttribute("aria-label", t("mod.p.deleteLabel", { name: place.name }));
  actions.append(editButton, deleteButton);
  const row = cardRow([cell(place.name, "name", t("mod.name")), cell(place.slug, "slug", t("mod.slug")),
    cell(String(unwrapRing(place.polygon).length), "corners", t("mod.corners")),
    cell(place.floors ? t("mod.p.floorRange", { low: String(place.floors[0]), high: String(place.floors[1]) }) : t("mod.all"), "floors", t("mod.floors")),
    cell(String(place.postCount), "count", t("mod.notes")), actions]);
  row.dataset.slug = place.slug;
  return row;
}

function drawOther(place) {
  const ring = unwrapRing(place.polygon);
  // Clicks go on to the map (a corner there), so drawing next to a place is not hindered.
  const shape = L.polygon(ring.map(([lon, lat]) => [lat, lon]), { color: "#6d28d9", weight: 1.5, dashArray: "5 4", fillOpacity: 0.05 });
  const label = document.createElement("span");
  label.textContent = place.name;
  shape.bindTooltip(label, { sticky: true });
  othersLayer.addLayer(shape);
}

/** Opens the place `slug` in the editor (from the audit log), or says it is gone. */
export async function openPlace(slug) {
  try {
    const place = known.get(slug) ?? await getJSON(`/api/v1/places/${encodeURIComponent(slug)}`);
    edit(place);
    document.querySelector(`#places-table tr[data-slug="${CSS.escape(slug)}"]`)?.scrollIntoView({ block: "nearest" });
  } catch (error) {
    announce(error.status === 404 ? t("mod.p.gone", { slug }) : error.message);
  }
}

export async function loadPlaces(append = false) {
  ensureMap();
  try {
    const page = await getJSON("/api/v1/places", { limit: 100, cursor: append ? placesCursor : null });
    const body = $("#places-table tbody");
    if (!append) {
      body.replaceChildren();
      known.clear();
      othersLayer?.clearLayers();
    }
    for (const place of page.places) {
      known.set(place.slug, place);
      body.append(placeRow(place));
      if (othersLayer) drawOther(place);
    }
    placesCursor = page.nextCursor;
    $("#places-more").hidden = !placesCursor;
    announce(t("mod.p.count", { count: placesCursor ? `${known.size}+` : known.size }));
  } catch (error) {
    announce(error.message);
  }
}

// Announcements of the place being edited

function localInputValue(date) {
  const pad = (value) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

async function loadAnnouncements() {
  if (!editing) return;
  const slug = editing.slug;
  if (!$("#a-until").value) $("#a-until").value = localInputValue(new Date(Date.now() + 7 * 86_400_000));
  try {
    const { announcements } = await getJSON(`/api/v1/places/${slug}/announcements`);
    if (editing?.slug !== slug) return;
    $("#announcement-list").replaceChildren(...announcements.map((item) => {
      const entry = document.createElement("li");
      entry.dataset.id = String(item.id);
      const message = document.createElement("p");
      message.className = "message";
      message.textContent = item.message;
      const until = document.createElement("p");
      until.className = "until";
      until.textContent = t("mod.p.until", { when: dateTimeText(item.until) });
      const removeButton = button(t("mod.delete"), async () => {
        try {
          await call("DELETE", `/api/v1/moderation/announcements/${item.id}`);
          await loadAnnouncements();
          announce(t("mod.p.announcementDeleted"));
        } catch (error) { announce(error.message); }
      }, "danger");
      removeButton.setAttribute("aria-label", t("mod.p.deleteAnnouncement", { text: item.message.slice(0, 40) }));
      entry.append(message, until, removeButton);
      return entry;
    }));
    if (!announcements.length) {
      const none = document.createElement("li");
      none.className = "none";
      none.textContent = t("mod.p.noAnnouncements");
      $("#announcement-list").replaceChildren(none);
    }
  } catch (error) {
    announce(error.message);
  }
}

async function addAnnouncement(event) {
  event.preventDefault();
  $("#a-message-error").textContent = "";
  $("#a-until-error").textContent = "";
  if (!editing) return;
  const untilText = $("#a-until").value;
  const until = untilText ? new Date(untilText) : null; // a datetime-local value is the moderator's local time
  if (!until || Number.isNaN(until.getTime())) {
    $("#a-until-error").textContent = t("mod.p.chooseUntil");
    return;
  }
  try {
    await call("POST", `/api/v1/moderation/places/${editing.slug}/announcements`, { body: { message: $("#a-message").value, until: until.toISOString() } });
    $("#a-message").value = "";
    await loadAnnouncements();
    announce(t("mod.p.announced", { name: editing.name }));
  } catch (error) {
    const line = error.field === "message" ? "#a-message-error" : "#a-until-error";
    $(line).textContent = error.field && error.field !== "message" && error.field !== "until" ? `${error.field}: ${error.message}` : error.message;
  }
}

export function setUpPlaceEditor(options) {
  call = options.call;
  announce = options.announce;
  $("#undo-vertex").addEventListener("click", () => {
    const last = corners.pop();
    last?.remove();
    redraw();
    announce(last ? `${countText()}.` : t("mod.p.nothingToUndo"));
  });
  $("#clear-vertices").addEventListener("click", () => {
    clearDrawing();
    announce(t("mod.p.cleared"));
  });
  $("#p-name").addEventListener("input", () => {
    if (!slugTouched && !editing) $("#p-slug").value = slugFrom($("#p-name").value);
  });
  $("#p-slug").addEventListener("input", () => { slugTouched = true; });
  $("#place-form").addEventListener("submit", save);
  $("#new-place").addEventListener("click", () => {
    startNew();
    announce(t("mod.p.startNew"));
  });
  $("#places-more").addEventListener("click", () => loadPlaces(true));
  $("#announcement-form").addEventListener("submit", addAnnouncement);
}
