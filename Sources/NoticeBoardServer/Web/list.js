// "Around me": the notes near the person's position, with distance and direction, nearest,
// newest or most popular first; each with its like button, its replies, and "delete" on the
// notes this device posted.
import { getJSON } from "./api.js";
import { distance, bearing, distanceText } from "./geo.js";
import { noteItem } from "./render.js";
import { deletingHere, noteActions } from "./reactions.js";
import { placeName } from "./places.js";
import { state, update, onChange, hasPosition, filterParameters, passesFilters, announce } from "./state.js";

const list = document.getElementById("posts");
const more = document.getElementById("more");
const form = document.getElementById("where");
let nextCursor = null;
let generation = 0;

function fillForm() {
  form.lat.value = state.lat ?? "";
  form.lon.value = state.lon ?? "";
  const radius = form.radius;
  if (![...radius.options].some((option) => Number(option.value) === state.radius)) {
    radius.append(new Option(`${state.radius} m`, String(state.radius)));
  }
  radius.value = String(state.radius);
}

export async function loadList(append = false) {
  if (!hasPosition()) {
    list.replaceChildren();
    more.hidden = true;
    announce("Where are you? Use your location, type a position, or click the map.");
    return;
  }
  const request = ++generation;
  try {
    const page = await getJSON("/api/v1/posts/nearby", {
      lat: state.lat, lon: state.lon, radius: state.radius, ...filterParameters(), order: state.order, cursor: append ? nextCursor : null,
    });
    if (request !== generation) return;
    if (!append) list.replaceChildren();
    list.append(...page.posts.map((post) => listItem(post)));
    nextCursor = page.nextCursor;
    more.hidden = !nextCursor;
    if (state.view === "list") {
      const count = list.querySelectorAll("li[data-id]").length;
      const notes = count === 1 && !nextCursor ? "1 note" : `${count}${nextCursor ? "+" : ""} notes`;
      announce(count ? `${notes} around you${state.asOf ? " back then" : ""}.` : nothingFound());
    }
  } catch (error) {
    if (request === generation) announce(error.message);
  }
}

function listItem(post, place = post) {
  const item = noteItem(post, place);
  item.dataset.created = String(Date.parse(post.createdAt));
  item.dataset.likes = String(post.likeCount ?? 0);
  item.append(noteActions(post));
  return item;
}

/** The popular order's score at `now` (the server's formula), for a note added here. */
function popularity(likes, created, now) {
  const hours = Math.max(0, (now - created) / 3_600_000);
  return (likes + 1) / (hours + 2) ** 1.5;
}

/** Where a note added here goes among those shown, in the list's order. */
function placeBefore(post, place) {
  const children = [...list.children].filter((child) => child.dataset.id);
  if (state.order === "newest") return children[0] ?? null;
  if (state.order === "popular") {
    const now = Date.now();
    const score = popularity(post.likeCount ?? 0, Date.parse(post.createdAt), now);
    return children.find((child) => popularity(Number(child.dataset.likes ?? 0), Number(child.dataset.created), now) < score) ?? null;
  }
  return children.find((child) => Number(child.dataset.distance ?? Infinity) > place.distance) ?? null;
}

/** What an empty list means, honestly: nothing at all here, or nothing that passes the filters. */
function nothingFound() {
  const filtered = state.tags.length > 0 || state.from !== null || state.to !== null;
  const within = `within ${distanceText(state.radius)}`;
  if (state.asOf) return filtered ? `No notes ${within} matched these filters back then.` : `No notes ${within} back then.`;
  if (state.place) {
    const name = placeName(state.place);
    return filtered ? `No notes in ${name} ${within} match these filters.` : `No notes in ${name} ${within} yet: leave the first.`;
  }
  return filtered ? `No notes ${within} match these filters.` : "No notes here yet: leave the first.";
}

/** A note that appeared (posted here or live): shown at once if it is around and passes the filters. */
export function addToList(post) {
  if (!hasPosition() || !passesFilters(post) || list.querySelector(`[data-id="${post.id}"]`)) return;
  const place = { distance: distance(state.lat, state.lon, post.lat, post.lon), bearing: bearing(state.lat, state.lon, post.lat, post.lon) };
  if (place.distance > state.radius) return;
  const item = listItem(post, place);
  item.classList.add("fresh");
  item.dataset.distance = String(place.distance);
  // Kept in the list's order among what is shown.
  list.insertBefore(item, placeBefore(post, place));
}

export function removeFromList(id) {
  if (deletingHere(id)) return; // its card says "Deleted" once the server has answered
  list.querySelector(`[data-id="${id}"]`)?.remove();
}

export function locate() {
  if (!navigator.geolocation) {
    announce("This browser cannot tell where you are: type a position or click the map.");
    return;
  }
  announce("Finding where you are…");
  navigator.geolocation.getCurrentPosition(
    (position) => update({ lat: position.coords.latitude, lon: position.coords.longitude }),
    () => announce("Location permission denied: type a position or click the map to choose one."),
    { enableHighAccuracy: true, timeout: 15000, maximumAge: 30000 },
  );
}

export function setUpList() {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const lat = Number(form.lat.value);
    const lon = Number(form.lon.value);
    if (form.lat.value === "" || form.lon.value === "" || !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180)) {
      announce("Latitude must be between -90 and 90 and longitude between -180 and 180.");
      return;
    }
    update({ lat, lon, radius: Number(form.radius.value) });
  });
  form.radius.addEventListener("change", () => update({ radius: Number(form.radius.value) }));
  document.getElementById("locate").addEventListener("click", locate);
  more.addEventListener("click", () => loadList(true));
  onChange((changed) => {
    if (["lat", "lon", "radius"].some((key) => changed.has(key))) fillForm();
    if (["lat", "lon", "radius", "tags", "from", "to", "place", "order", "asOf"].some((key) => changed.has(key))) loadList();
  });
  fillForm();
  loadList();
}
