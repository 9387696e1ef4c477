// Places: named areas drawn by moderators (the canteen, the hall, the campus). The page asks
// which places hold the viewer (their position, or the map's centre without one) and shows the
// innermost one in a banner: its name, its current announcements, and "This place only", which
// adds place=<slug> to every query and to the live stream.
import { getJSON } from "./api.js";
import { ringArea } from "./geo.js";
import { dateTimeText, markLanguage, t, onLanguage } from "./i18n.js";
import { state, update, onChange, hasPosition, chosenPlace, announce } from "./state.js";

const REFRESH = 60_000; // announcements end by themselves: they are asked for again this often
const banner = document.getElementById("place-banner");
const heading = document.getElementById("place-heading");
const kicker = document.getElementById("place-kicker");
const description = document.getElementById("place-description");
const list = document.getElementById("place-announcements");
const others = document.getElementById("place-others");
const only = document.getElementById("place-only");
const fold = document.getElementById("place-fold");
const FOLD_KEY = "noticeboard-place-folded";

let around = []; // the places holding the viewer, innermost first
let shown = null; // the place in the banner
let announcements = [];
let centre = () => null; // the map's centre, once there is a map
let generation = 0;
let announcementGeneration = 0;
let locateTimer = null;
let refreshTimer = null;

const namedListeners = new Set();
const shownListeners = new Set();

/** The place in the banner (the innermost one holding the viewer), or null. */
export const placeHere = () => shown;

/** `listener()` runs when the place in the banner changes (the post form names it). */
export function onPlaceShown(listener) {
  shownListeners.add(listener);
}

/** `listener()` runs when a shared link's place gets its name: messages said with the slug are said again. */
export function onPlaceNamed(listener) {
  namedListeners.add(listener);
}

/** The filtered place's name, for messages ("No notes in the Canteen…"). */
export function placeName(slug) {
  return chosenPlace.slug === slug && chosenPlace.name ? chosenPlace.name : slug;
}

function choose(place) {
  Object.assign(chosenPlace, place
    ? { slug: place.slug, name: place.name, polygon: place.polygon, floors: place.floors }
    : { slug: null, name: null, polygon: null, floors: null });
}

const wrapLon = (lon) => ((((lon + 180) % 360) + 360) % 360) - 180;

async function locatePlaces() {
  const point = hasPosition() ? { lat: state.lat, lon: state.lon } : centre();
  if (!point) return; // nowhere yet: wait for a position or the map
  const request = ++generation;
  try {
    const { places } = await getJSON("/api/v1/places", { lat: Number(point.lat.toFixed(7)), lon: Number(wrapLon(point.lon).toFixed(7)), limit: 50 });
    if (request !== generation) return;
    const areas = new Map(places.map((place) => [place.slug, ringArea(place.polygon)]));
    show(places.sort((a, b) => areas.get(a.slug) - areas.get(b.slug)));
  } catch {
    // Places are extra: the board works without the banner.
  }
}

function scheduleLocate(delay = 250) {
  clearTimeout(locateTimer);
  locateTimer = setTimeout(locatePlaces, delay);
}

function show(places) {
  around = places;
  const filtered = state.place ? places.find((place) => place.slug === state.place) : null;
  if (state.place && !filtered) {
    // Left the filtered place: the filter goes with its banner.
    const name = placeName(state.place);
    choose(null);
    update({ place: null });
    announce(t("place.left", { name }));
  }
  const next = filtered ?? places.find((place) => place.slug === shown?.slug) ?? places[0] ?? null;
  if (filtered) choose(filtered);
  const changed = next?.slug !== shown?.slug;
  shown = next;
  render();
  if (changed) shownListeners.forEach((listener) => listener());
  if (changed) {
    announcements = [];
    renderAnnouncements();
    loadAnnouncements();
  }
}

/** Folded, the banner is one row (where you are, "This place only"); it stays as the person left it.
 *  Phones start folded: unfolded it took the first screen. */
function folded() {
  try {
    const kept = localStorage.getItem(FOLD_KEY);
    if (kept !== null) return kept === "1";
  } catch {
    // No storage: the default below.
  }
  return window.matchMedia("(max-width: 899px)").matches;
}

function showFold() {
  const count = state.asOf ? 0 : visibleAnnouncements().length;
  const extra = Boolean(shown?.description) || count > 0 || around.length > 1;
  fold.hidden = !extra;
  const isFolded = extra && folded();
  banner.classList.toggle("folded", isFolded);
  fold.setAttribute("aria-expanded", String(!isFolded));
  fold.textContent = count ? t("place.announcementCount", { count }) : t("place.more");
  fold.setAttribute("aria-label", isFolded ? t("place.unfold", { name: shown?.name ?? "" }) : t("place.fold", { name: shown?.name ?? "" }));
}

function render() {
  banner.hidden = !shown;
  clearInterval(refreshTimer);
  if (!shown) return;
  refreshTimer = setInterval(loadAnnouncements, REFRESH);
  heading.textContent = shown.name;
  // Without the person's position the place is the one at the map's centre, not where they are.
  kicker.dataset.i18n = hasPosition() ? "place.kicker" : "place.kickerMap";
  kicker.textContent = t(kicker.dataset.i18n);
  description.textContent = shown.description ?? "";
  description.hidden = !shown.description;
  only.checked = state.place === shown.slug;
  list.setAttribute("aria-label", t("place.announcementsFor", { name: shown.name }));
  const rest = around.filter((place) => place.slug !== shown.slug);
  others.hidden = rest.length === 0;
  if (rest.length) {
    const label = document.createElement("span");
    label.textContent = t("place.alsoHere");
    others.replaceChildren(label, ...rest.map((place) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "chip";
      button.textContent = place.name;
      button.setAttribute("aria-label", t("place.showInstead", { name: place.name }));
      button.addEventListener("click", () => {
        shown = place;
        if (state.place) {
          choose(place);
          update({ place: place.slug });
        }
        render();
        loadAnnouncements();
        heading.focus();
      });
      return button;
    }));
  }
  showFold();
}

/** Today's announcements: looking at the past, none (the API has only those current now). */
function visibleAnnouncements() {
  if (state.asOf) return [];
  const now = Date.now();
  return announcements.filter((item) => Date.parse(item.until) > now)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id);
}

function renderAnnouncements() {
  const current = visibleAnnouncements();
  list.hidden = current.length === 0;
  list.replaceChildren(...current.map((item) => {
    const entry = document.createElement("li");
    entry.className = "announcement";
    const message = document.createElement("p");
    message.className = "message";
    message.textContent = item.message;
    markLanguage(message, item.message);
    const until = document.createElement("p");
    until.className = "until";
    const time = document.createElement("time");
    time.dateTime = item.until;
    time.textContent = dateTimeText(item.until);
    until.append(`${t("place.until")} `, time);
    entry.append(message, until);
    return entry;
  }));
  showFold();
}

async function loadAnnouncements() {
  if (!shown) return;
  const request = ++announcementGeneration;
  const slug = shown.slug;
  try {
    const body = await getJSON(`/api/v1/places/${encodeURIComponent(slug)}/announcements`);
    if (request !== announcementGeneration || shown?.slug !== slug) return;
    announcements = body.announcements;
  } catch (error) {
    if (error.status === 404) scheduleLocate(0); // the place is gone
    return;
  }
  renderAnnouncements();
}

/** Called when the map moved: without a position of their own the viewer is where the map is. */
export function mapMoved() {
  if (!hasPosition()) scheduleLocate();
}

export function setUpPlaces(mapCentre) {
  centre = mapCentre;
  heading.tabIndex = -1; // focus lands here when another place is picked
  fold.addEventListener("click", () => {
    const nowFolded = !banner.classList.contains("folded");
    try {
      localStorage.setItem(FOLD_KEY, nowFolded ? "1" : "0");
    } catch {
      // Kept for this page only: the class below is the state.
    }
    banner.classList.toggle("folded", nowFolded);
    showFold();
  });
  only.addEventListener("change", () => {
    if (!shown) return;
    if (only.checked) {
      choose(shown);
      update({ place: shown.slug });
      announce(t("place.onlyOn", { name: shown.name }));
    } else {
      choose(null);
      update({ place: null });
      announce(t("place.onlyOff"));
    }
  });
  onChange((changed) => {
    if (changed.has("lat") || changed.has("lon")) scheduleLocate();
    if (changed.has("place")) only.checked = Boolean(shown) && state.place === shown.slug;
    if (changed.has("asOf")) renderAnnouncements();
  });
  if (state.place) {
    // A shared link with the filter on: its shape is needed before live notes are checked.
    getJSON(`/api/v1/places/${encodeURIComponent(state.place)}`).then((place) => {
      if (state.place !== place.slug || chosenPlace.polygon) return;
      choose(place);
      namedListeners.forEach((listener) => listener());
    }).catch(() => {
      choose(null);
      update({ place: null });
    });
  }
  onLanguage(() => {
    render();
    renderAnnouncements();
  });
  scheduleLocate(0);
}
