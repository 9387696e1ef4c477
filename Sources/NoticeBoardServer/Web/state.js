// What the person is looking at, kept in the URL so a view can be shared or reloaded:
// ?view=map&tag=food&tag=fashion&from=…&to=…&lat=…&lon=…&radius=…&zoom=…&facing=…&place=…&order=…&asOf=…
import { ringContains } from "./geo.js";

const listeners = new Set();

export const state = {
  view: "map",
  tags: [],
  from: null, // RFC 3339 or null (unbounded)
  to: null,
  lat: null,
  lon: null,
  radius: 200,
  zoom: null,
  facing: 0,
  compassActive: false,
  source: null, // where the position came from: "device" (geolocation), "hand" (long-press or typed) or "link" (the URL)
  place: null, // slug of the place the "This place only" filter keeps to, or null
  order: "distance", // the list's and look-around's order: distance, newest or popular
  asOf: null, // RFC 3339: the board as it stood then ("board on this day"), or null for now
};

export const ORDERS = ["distance", "newest", "popular"];

/** An instant from the URL, kept only when it is one and not later than now. */
function pastInstant(text) {
  if (!text) return null;
  const time = Date.parse(text);
  return Number.isFinite(time) && time <= Date.now() ? new Date(time).toISOString() : null;
}

// The filtered place's shape once loaded (places.js keeps it), so notes the page adds itself
// (a fresh post, a live event) are checked against it like the server checks the others.
export const chosenPlace = { slug: null, name: null, polygon: null, floors: null };

/** A tag as the API stores it: trimmed and lower-cased (Unicode-aware). */
export const normaliseTag = (tag) => String(tag ?? "").trim().toLowerCase();

export function loadFromURL() {
  const params = new URLSearchParams(location.search);
  const number = (name) => (params.has(name) && params.get(name) !== "" && Number.isFinite(Number(params.get(name))) ? Number(params.get(name)) : null);
  if (["map", "list", "look", "mine", "post"].includes(params.get("view"))) state.view = params.get("view");
  // Normalised as the server normalises them, so ?tag=FOOD selects the "food" chip and nothing else.
  state.tags = [...new Set(params.getAll("tag").map(normaliseTag).filter(Boolean))];
  state.from = params.get("from") || null;
  state.to = params.get("to") || null;
  state.lat = number("lat");
  state.lon = number("lon");
  state.source = state.lat !== null && state.lon !== null ? "link" : null;
  state.radius = number("radius") ?? state.radius;
  state.zoom = number("zoom");
  state.facing = ((number("facing") ?? 0) % 360 + 360) % 360;
  state.place = /^[a-z0-9-]{1,64}$/.test(params.get("place") ?? "") ? params.get("place") : null;
  state.order = ORDERS.includes(params.get("order")) ? params.get("order") : "distance";
  state.asOf = pastInstant(params.get("asOf"));
}

export function saveToURL() {
  const params = new URLSearchParams();
  params.set("view", state.view);
  state.tags.forEach((tag) => params.append("tag", tag));
  if (state.from) params.set("from", state.from);
  if (state.to) params.set("to", state.to);
  if (state.lat !== null && state.lon !== null) {
    params.set("lat", state.lat.toFixed(6));
    params.set("lon", state.lon.toFixed(6));
  }
  params.set("radius", String(state.radius));
  if (state.zoom !== null) params.set("zoom", String(state.zoom));
  if (state.facing) params.set("facing", String(Math.round(state.facing)));
  if (state.place) params.set("place", state.place);
  if (state.order !== "distance") params.set("order", state.order);
  if (state.asOf) params.set("asOf", state.asOf);
  history.replaceState(history.state, "", `${location.pathname}?${params}${location.hash}`);
}

/** Changes the state, records it in the URL and tells every listener what changed. */
export function update(changes) {
  const changed = Object.keys(changes).filter((key) => state[key] !== changes[key]);
  if (changed.length === 0) return;
  Object.assign(state, changes);
  saveToURL();
  listeners.forEach((listener) => listener(new Set(changed)));
}

export function onChange(listener) {
  listeners.add(listener);
}

export function hasPosition() {
  return state.lat !== null && state.lon !== null;
}

/** The filters every view applies, as API parameters (the board of `asOf` when one is set). */
export function filterParameters() {
  return { tag: state.tags, from: state.from, to: state.to, place: state.place, asOf: state.asOf };
}

/** Whether the person is looking at the past: nothing new arrives, nothing is liked or posted there. */
export const inThePast = () => state.asOf !== null;

/** Whether a post (say from the live stream) passes the current tag, time and place filters. */
export function passesFilters(post) {
  if (state.asOf) return false; // a note that appears now was not on the board back then
  if (state.tags.length && !state.tags.includes(post.tag)) return false;
  const created = Date.parse(post.createdAt);
  if (state.from && created < Date.parse(state.from)) return false;
  if (state.to && created >= Date.parse(state.to)) return false;
  if (state.place) {
    if (chosenPlace.slug !== state.place || !chosenPlace.polygon) return false; // not known yet: the reload brings it
    if (!ringContains(chosenPlace.polygon, post.lat, post.lon)) return false;
    const floors = chosenPlace.floors;
    if (floors && (post.floor === null || post.floor === undefined || post.floor < floors[0] || post.floor > floors[1])) return false;
  }
  return true;
}

let lastAnnounced = "";
/** The status line (a polite live region): the same words twice are not read again. */
export function announce(text) {
  lastAnnounced = text;
  document.getElementById("status").textContent = text;
}

/** Whether the status line still says `text` (so a later message is not wiped by an older one's timer). */
export const announcing = (text) => lastAnnounced === text;
