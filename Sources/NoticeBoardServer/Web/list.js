// "Around me": the notes near the person's position, with distance and direction, nearest,
// newest or most popular first; each with its like button, its replies, and "delete" on the
// notes this device posted. An empty list says whether the place or the filters are empty.
import { getJSON } from "./api.js";
import { distance, bearing } from "./geo.js";
import { humanError } from "./errors.js";
import { distanceText, t, onLanguage } from "./i18n.js";
import { locate, setByHand } from "./location.js";
import { noteItem } from "./render.js";
import { deletingHere, noteActions } from "./reactions.js";
import { onPlaceNamed, placeName } from "./places.js";
import { state, update, onChange, hasPosition, filterParameters, passesFilters, announce, ORDERS } from "./state.js";

const list = document.getElementById("posts");
const more = document.getElementById("more");
const form = document.getElementById("where");
const empty = document.getElementById("list-empty");
const emptyText = document.getElementById("list-empty-text");
const clearFilters = document.getElementById("list-clear-filters");
const postFirst = document.getElementById("list-post-first");
const orderButtons = [...document.querySelectorAll("#order [data-order]")];
let nextCursor = null;
let generation = 0;

function fillForm() {
  form.lat.value = state.lat ?? "";
  form.lon.value = state.lon ?? "";
  const radius = form.radius;
  if (![...radius.options].some((option) => Number(option.value) === state.radius)) {
    radius.append(new Option(distanceText(state.radius), String(state.radius)));
  }
  [...radius.options].forEach((option) => { option.textContent = distanceText(Number(option.value)); });
  radius.value = String(state.radius);
}

const filtered = () => state.tags.length > 0 || state.from !== null || state.to !== null;
// Whether the filters hide notes that are here: an empty filtered list asks the board without them.
let filtersHideNotes = true;

function showEmpty(count) {
  empty.hidden = count > 0 || !hasPosition();
  if (empty.hidden) return;
  emptyText.textContent = nothingFound();
  clearFilters.hidden = !filtered();
  postFirst.hidden = (filtered() && filtersHideNotes) || Boolean(state.asOf);
}

async function anyNotesUnfiltered() {
  try {
    const page = await getJSON("/api/v1/posts/nearby", {
      lat: state.lat, lon: state.lon, radius: state.radius, place: state.place, asOf: state.asOf, limit: 1,
    });
    return page.posts.length > 0;
  } catch {
    return true; // unknown: the filters are named as the reason, as they may be
  }
}

export async function loadList(append = false) {
  if (!hasPosition()) {
    list.replaceChildren();
    more.hidden = true;
    empty.hidden = true;
    if (state.view === "list") announce(t("list.noPosition"));
    return;
  }
  const request = ++generation;
  more.disabled = append;
  try {
    const page = await getJSON("/api/v1/posts/nearby", {
      lat: state.lat, lon: state.lon, radius: state.radius, ...filterParameters(), order: state.order, cursor: append ? nextCursor : null,
    });
    if (request !== generation) return;
    list.classList.remove("stale");
    if (!append) list.replaceChildren();
    // A note that arrived live is shown already: the page that brings it again is not to repeat it.
    const fresh = page.posts.filter((post) => !list.querySelector(`li[data-id="${post.id}"]`));
    list.append(...fresh.map((post) => listItem(post)));
    nextCursor = page.nextCursor;
    more.hidden = !nextCursor;
    const count = list.querySelectorAll("li[data-id]").length;
    if (count === 0 && filtered()) {
      const hidden = await anyNotesUnfiltered();
      if (request !== generation) return;
      filtersHideNotes = hidden;
    }
    showEmpty(count);
    if (state.view === "list") {
      const key = nextCursor ? "list.countMore" : "list.count";
      announce(count ? t(state.asOf ? `${key}Past` : key, { count }) : nothingFound());
    }
  } catch (error) {
    if (request !== generation) return;
    // What is shown no longer matches the filters: it is dimmed and the reason said.
    list.classList.add("stale");
    if (state.view === "list") announce(`${humanError(error)} ${t("list.stale")}`);
  } finally {
    more.disabled = false;
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

/** Where a note added here goes among those shown, in the list's order (null: after the last). */
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
  const within = distanceText(state.radius);
  const byFilters = filtered() && filtersHideNotes;
  if (state.asOf) return t(byFilters ? "empty.pastFiltered" : "empty.past", { within });
  if (state.place) return t(byFilters ? "empty.placeFiltered" : "empty.place", { within, place: placeName(state.place) });
  return t(byFilters ? "empty.filtered" : "empty.nothing", { within });
}

/** A note that appeared (posted here or live): shown at once if it is around and passes the filters. */
export function addToList(post) {
  if (!hasPosition() || !passesFilters(post) || list.querySelector(`[data-id="${post.id}"]`)) return;
  const place = { distance: distance(state.lat, state.lon, post.lat, post.lon), bearing: bearing(state.lat, state.lon, post.lat, post.lon) };
  if (place.distance > state.radius) return;
  const before = placeBefore(post, place);
  // Its place is beyond what is loaded: "More notes" brings it in order, once.
  if (before === null && nextCursor) return;
  const item = listItem(post, place);
  item.classList.add("fresh");
  item.dataset.distance = String(place.distance);
  list.insertBefore(item, before);
  showEmpty(1);
}

export function removeFromList(id) {
  if (deletingHere(id)) return; // its card says "Deleted" once the server has answered
  list.querySelector(`[data-id="${id}"]`)?.remove();
}

function showOrder() {
  orderButtons.forEach((button) => button.setAttribute("aria-pressed", String(button.dataset.order === state.order)));
}

export function setUpList() {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const lat = Number(form.lat.value);
    const lon = Number(form.lon.value);
    if (form.lat.value === "" || form.lon.value === "" || !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180)) {
      announce(t("where.invalid"));
      return;
    }
    update({ radius: Number(form.radius.value) });
    setByHand(lat, lon);
  });
  form.radius.addEventListener("change", () => update({ radius: Number(form.radius.value) }));
  document.getElementById("locate").addEventListener("click", () => locate());
  more.addEventListener("click", () => loadList(true));
  clearFilters.addEventListener("click", () => {
    update({ tags: [], from: null, to: null });
    document.getElementById("posts").focus?.();
  });
  postFirst.addEventListener("click", () => update({ view: "post" }));
  orderButtons.forEach((button) => button.addEventListener("click", () => {
    if (!ORDERS.includes(button.dataset.order)) return;
    update({ order: button.dataset.order });
  }));
  // A hidden list is not fetched: walking in look around moves the position at every step, and
  // opening the list's tab loads it for where the person is then.
  onChange((changed) => {
    if (["lat", "lon", "radius"].some((key) => changed.has(key))) fillForm();
    if (changed.has("order")) showOrder();
    const shown = state.view === "list";
    if (shown && ["lat", "lon", "radius", "tags", "from", "to", "place", "order", "asOf"].some((key) => changed.has(key))) loadList();
  });
  onLanguage(() => {
    fillForm();
    if (state.view === "list") loadList();
  });
  onPlaceNamed(() => {
    if (empty.hidden) return;
    showEmpty(0);
    if (state.view === "list") announce(nothingFound());
  });
  fillForm();
  showOrder();
  if (state.view === "list") loadList();
}
