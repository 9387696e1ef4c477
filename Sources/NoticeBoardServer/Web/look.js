// "Look around": hold the phone up and read the notes in front of you, as the original app did.
// The compass (or the dial) sets the facing direction; every note around is placed across the
// view by its bearing (so turning moves them), at most ten readable cards in lanes that never
// overlap, the nearest largest. Notes left by someone facing the way you face come first
// ("Posted facing: My way"; "Any way" adds the others); a note closer than the position's accuracy has no
// meaningful bearing and stands where its poster faced. Cards drift gently (Pause stops them);
// a tap opens the note with its distance and time. Screen readers hear the count, not the cards.
// While the view is open the notes come over the walk socket (walk.js) as the person walks: the
// device's position is followed, and the notes entering and leaving the circle slide in and out.
import { getJSON } from "./api.js";
import { humanError } from "./errors.js";
import { bearing, distance, signedAngle } from "./geo.js";
import { compassWord, degreesText, distanceText, markLanguage, t, onLanguage } from "./i18n.js";
import { tagName } from "./render.js";
import { remember } from "./reactions.js";
import { state, update, onChange, hasPosition, filterParameters, passesFilters, announce } from "./state.js";
import { startWalk, stopWalk, walkOpen, walkTo } from "./walk.js";

export const FOV = 60; // degrees of view, about a phone camera's
export const MAX_CARDS = 10;
export const HEADING_TOLERANCE = 45; // a poster "faced your way" within this many degrees
export const ACCURACY = 10; // metres: closer than this a bearing says nothing, the poster's heading does
export const WALK_RADIUS = 500; // the walk socket's largest circle: wider views load over HTTP
const WALK_LIMIT = 200; // the walk socket's nearest notes at a time (API.md, "Walking")
const GAP = 14; // px between cards in a lane: more than twice the drift, so drifting never overlaps
const dial = document.getElementById("facing");
const readout = document.getElementById("facing-readout");
const needle = document.getElementById("dial-needle");
const stage = document.getElementById("look-stage");
const notes = document.getElementById("look-notes");
const empty = document.getElementById("look-empty");
const turnLeft = document.getElementById("turn-left");
const turnRight = document.getElementById("turn-right");
const behind = document.getElementById("behind");
const pause = document.getElementById("look-pause");
const modeButtons = [...document.querySelectorAll("#look-mode [data-mode]")];
let generation = 0;
let refreshTimer = null;
let announceTimer = null;
let around = []; // every note within the radius, in the chosen order
let mode = "facing";
let failed = false;
const lanesOf = new Map(); // id → the lane it stood in, so turning moves cards sideways, not up and down
let openNote = () => {};
const entered = new Map(); // id → note, as the walk socket said it entered the circle
let walkSettled = false; // the socket has answered since it opened: `entered` is the view
let settleTimer = null;
let drawFrame = 0;
let watchId = null;

const angleDifference = (a, b) => Math.abs(signedAngle(a, b));

/** Where a note stands around the person: its bearing, or its poster's heading when it is too close for one. */
export function directionOf(post) {
  if (post.distance <= ACCURACY && post.heading !== null && post.heading !== undefined) return post.heading;
  return post.bearing;
}

/** 0: left by someone facing your way; 1: no direction recorded; 2: facing elsewhere. */
function facingRank(post) {
  if (post.heading === null || post.heading === undefined) return 1;
  return angleDifference(post.heading, state.facing) <= HEADING_TOLERANCE ? 0 : 2;
}

function showFacing() {
  const facing = Math.round(state.facing) % 360;
  dial.value = String(facing);
  const text = `${degreesText(facing)} ${compassWord(facing)}`;
  readout.textContent = text;
  dial.setAttribute("aria-valuetext", text);
  needle.style.transform = `rotate(${facing}deg)`;
}

function cardFor(post, rank, tier) {
  const item = document.createElement("li");
  item.className = `note look-card tier-${tier}`;
  if (state.order === "popular" && rank < 3 && (post.likeCount ?? 0) > 0) item.classList.add("top");
  item.dataset.id = String(post.id);
  item.style.setProperty("--drift-delay", `${-(post.id % 9) * 0.9}s`);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card-open";
  button.setAttribute("aria-haspopup", "dialog");
  const meta = document.createElement("span");
  meta.className = "meta";
  const likes = post.likeCount ?? 0;
  // The distance first: on a narrow card a long tag name is what gets cut, not how far the note is.
  meta.textContent = [distanceText(post.distance), tagName(post.tag), likes ? t("look.likes", { count: likes }) : null].filter(Boolean).join(" · ");
  const message = document.createElement("span");
  message.className = "message";
  message.textContent = post.message;
  markLanguage(message, post.message);
  button.append(meta, message);
  button.addEventListener("click", () => openNote(post, button));
  item.append(button);
  return item;
}

/** Cards per tier, in px, for a stage `width` wide: large for the nearest three, then medium, then small. */
function cardWidth(tier, width) {
  const share = { large: 0.6, medium: 0.5, small: 0.44 }[tier];
  const most = { large: 340, medium: 280, small: 230 }[tier];
  return Math.round(Math.min(width * share, most));
}

/** Which notes show and where: the notes within the view, ranked, laid into non-overlapping lanes. */
export function layout() {
  const width = stage.clientWidth;
  // The arrows stand over the stage's foot: the cards keep above them.
  const hints = document.getElementById("look-hints");
  const height = stage.clientHeight - (hints ? hints.offsetHeight : 0);
  const laneHeight = width < 600 ? 84 : 100;
  const lanes = Math.max(1, Math.floor((height - 8) / laneHeight));
  const inView = around
    .map((post, index) => ({ post, index, offset: signedAngle(state.facing, directionOf(post)) }))
    .filter(({ offset }) => Math.abs(offset) <= FOV / 2)
    .filter(({ post }) => mode === "all" || facingRank(post) < 2)
    .sort((a, b) => facingRank(a.post) - facingRank(b.post) || a.index - b.index);
  // Nearest largest: the first ten by rank, sized by distance.
  const first = inView.slice(0, MAX_CARDS).map(({ post }) => post).sort((a, b) => a.distance - b.distance);
  const tiers = new Map(first.map((post, order) => [post.id, order < 3 ? "large" : order < 6 ? "medium" : "small"]));
  const occupied = Array.from({ length: lanes }, () => []);
  const placed = [];
  const far = Math.max(...first.map((post) => post.distance), 1);
  const place = (entry, tier) => {
    const narrow = width < 600;
    const half = (width - 12 - GAP) / 2;
    const cardWidthPx = narrow ? Math.min(cardWidth(tier, width), Math.floor(half)) : cardWidth(tier, width);
    const fraction = entry.offset / (FOV / 2); // -1 at the left edge of the view, 1 at the right
    // On a phone the view's left half holds the notes left of straight ahead, the right half the others,
    // so two readable cards share a lane; on a wide screen the bearing maps straight across.
    const left = narrow
      ? (Math.abs(entry.offset) <= 3 ? (width - cardWidthPx) / 2 : fraction < 0 ? 6 + (1 + fraction) * (half - cardWidthPx) : 6 + half + GAP + fraction * (half - cardWidthPx))
      : Math.max(6, Math.min(width - cardWidthPx - 6, width / 2 + fraction * (width / 2 - cardWidthPx / 2 - 6) - cardWidthPx / 2));
    // A card nudged aside to find room never crosses the middle: left of straight ahead stays left.
    const rightSide = (x) => x + cardWidthPx / 2 >= width / 2;
    const sideKept = (x) => Math.abs(entry.offset) <= 3 || rightSide(x) === entry.offset > 0;
    const fits = (lane, x) => x >= 6 && x + cardWidthPx <= width - 6 && sideKept(x)
      && occupied[lane].every(([start, end]) => x + cardWidthPx + GAP <= start || x >= end + GAP);
    // Farther notes higher up, nearer ones lower, like looking across a square; a card keeps its lane while it can.
    const wanted = lanesOf.get(entry.post.id) ?? Math.round((1 - entry.post.distance / far) * (lanes - 1));
    let best = null;
    for (let lane = 0; lane < lanes; lane += 1) {
      // Where it would stand, or just beside a card already in the lane: the nearest free spot to its bearing.
      const spots = [left, ...occupied[lane].flatMap(([start, end]) => [end + GAP, start - GAP - cardWidthPx])];
      for (const x of spots) {
        if (!fits(lane, x)) continue;
        const score = Math.abs(x - left) + Math.abs(lane - wanted) * 24;
        if (Math.abs(x - left) <= width * 0.6 && (!best || score < best.score)) best = { lane, x, score };
      }
    }
    if (!best) return false;
    occupied[best.lane].push([best.x, best.x + cardWidthPx]);
    placed.push({ ...entry, tier, left: best.x, top: 4 + best.lane * laneHeight, width: cardWidthPx, height: laneHeight - 12, lane: best.lane });
    return true;
  };
  for (const entry of inView) {
    if (placed.length >= MAX_CARDS) break;
    // A card that finds no room at its size tries again small before it is left out.
    const tier = tiers.get(entry.post.id) ?? "small";
    if (!place(entry, tier) && tier !== "small") place(entry, "small");
  }
  return { inView, placed };
}

function plural(key, count) {
  return t(key, { count });
}

/** A hint's short words on screen and its whole sentence for screen readers. */
function sayHint(element, short, whole) {
  const shown = document.createElement("span");
  shown.setAttribute("aria-hidden", "true");
  shown.textContent = short;
  const read = document.createElement("span");
  read.className = "visually-hidden";
  read.textContent = whole;
  element.replaceChildren(shown, read);
  element.title = whole;
}

function render() {
  const { inView, placed } = layout();
  lanesOf.clear();
  const existing = new Map([...notes.children].map((item) => [item.dataset.id, item]));
  const items = placed.map((entry, rank) => {
    lanesOf.set(entry.post.id, entry.lane);
    const old = existing.get(String(entry.post.id));
    const focused = old?.contains(document.activeElement);
    // A card already shown moves (the CSS animates it) rather than being made again; a focused one keeps its focus.
    const item = old && (old.classList.contains(`tier-${entry.tier}`) || focused) ? old : cardFor(entry.post, rank, entry.tier);
    item.style.left = `${entry.left}px`;
    item.style.top = `${entry.top}px`;
    item.style.width = `${entry.width}px`;
    item.style.height = `${entry.height}px`;
    return item;
  });
  notes.replaceChildren(...items);
  const shown = new Set(placed.map((entry) => entry.post.id));
  let left = 0, right = 0, back = 0;
  for (const post of around) {
    if (shown.has(post.id)) continue;
    const offset = signedAngle(state.facing, directionOf(post));
    if (Math.abs(offset) <= FOV / 2) continue;
    if (Math.abs(offset) > 135) back += 1;
    else if (offset < 0) left += 1;
    else right += 1;
  }
  // Short on screen ("← 29 left", one line over the stage's foot), the whole sentence for screen readers.
  turnLeft.hidden = left === 0;
  sayHint(turnLeft, plural("look.leftShort", left), `${plural("look.left", left)}: ${t("look.turnLeft")}`);
  turnRight.hidden = right === 0;
  sayHint(turnRight, plural("look.rightShort", right), `${plural("look.right", right)}: ${t("look.turnRight")}`);
  behind.hidden = back === 0;
  sayHint(behind, plural("look.behindShort", back), plural("look.behind", back));
  const hiddenByFacing = mode === "facing"
    ? around.filter((post) => facingRank(post) === 2 && Math.abs(signedAngle(state.facing, directionOf(post))) <= FOV / 2).length : 0;
  let emptyText = "";
  if (around.length === 0) emptyText = t(filtered() ? "look.emptyFiltered" : "look.emptyNothing", { within: distanceText(state.radius) });
  else if (placed.length === 0 && hiddenByFacing) emptyText = t("look.emptyOtherWay", { count: hiddenByFacing });
  else if (placed.length === 0) emptyText = t("look.emptyTurn");
  empty.textContent = emptyText;
  empty.hidden = !emptyText;
  stage.dataset.count = String(placed.length);
  scheduleAnnounce(emptyText || countText(placed.length, inView.length));
}

const filtered = () => state.tags.length > 0 || state.from !== null || state.to !== null;

function countText(shown, total) {
  if (shown < total) return t("look.countOf", { count: total, shown });
  return t(state.asOf ? "look.countPast" : "look.count", { count: shown });
}

/** The count is said once the turning settles, not at every degree. */
function scheduleAnnounce(text) {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { if (state.view === "look") announce(text); }, 700);
}

export async function loadLook() {
  if (!hasPosition()) {
    around = [];
    notes.replaceChildren();
    [turnLeft, turnRight, behind].forEach((element) => { element.hidden = true; });
    empty.hidden = false;
    empty.textContent = t("look.noPosition");
    if (state.view === "look") announce(t("look.noPosition"));
    return;
  }
  if (walkOpen() && walkSettled) {
    showWalked();
    return;
  }
  const request = ++generation;
  // Where the walk socket serves, HTTP brings what the socket would (its 200 nearest) and the
  // page orders them, so the view does not change when the socket takes over.
  const walkable = walkableCircle();
  try {
    const page = await getJSON("/api/v1/posts/nearby", {
      lat: state.lat, lon: state.lon, radius: state.radius, ...filterParameters(),
      order: walkable ? "distance" : state.order, limit: walkable ? WALK_LIMIT : 500,
    });
    if (request !== generation) return;
    failed = false;
    stage.classList.remove("stale");
    around = walkable ? inChosenOrder(page.posts) : page.posts;
    around.forEach(remember);
    if (state.view === "look") render();
  } catch (error) {
    if (request !== generation) return;
    failed = true;
    stage.classList.add("stale");
    if (state.view === "look") announce(humanError(error));
  }
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(loadLook, 250);
}

/** Whether the view can walk: shown, somewhere, on the board of now, in a circle the socket serves
 *  (a place or a past day is loaded over HTTP, as before). */
function canWalk() {
  return state.view === "look" && walkableCircle() && typeof WebSocket === "function";
}

/** A circle the socket serves: somewhere, on the board of now, not kept to a place, 500 m at most. */
function walkableCircle() {
  return hasPosition() && !state.asOf && !state.place && state.radius <= WALK_RADIUS;
}

// The popular order's score at `now`, the server's formula (API.md, "Popular order").
const popularity = (post, now) => ((post.likeCount ?? 0) + 1) / ((now - Date.parse(post.createdAt)) / 3_600_000 + 2) ** 1.5;
const ORDERINGS = {
  distance: (a, b) => a.distance - b.distance || a.id - b.id,
  newest: (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id,
};

/** The notes the socket holds, measured from where the person stands now (the socket measured them
 *  where it was last told), kept to the circle and the filters, in the chosen order. */
function walkedNotes() {
  const kept = [];
  for (const post of entered.values()) {
    post.distance = distance(state.lat, state.lon, post.lat, post.lon);
    post.bearing = bearing(state.lat, state.lon, post.lat, post.lon);
    if (post.distance <= state.radius && passesFilters(post)) kept.push(post);
  }
  return inChosenOrder(kept);
}

/** Notes sorted in the order the person chose (the server's rules, ties included). */
function inChosenOrder(posts) {
  const now = Date.now();
  const ordering = ORDERINGS[state.order] ?? ((a, b) => popularity(b, now) - popularity(a, now) || b.id - a.id);
  return posts.sort(ordering);
}

function showWalked() {
  ++generation; // an HTTP load still on its way is older than this
  failed = false;
  stage.classList.remove("stale");
  around = walkedNotes();
  if (state.view === "look") render();
}

/** A burst of enters and leaves is drawn once. */
function scheduleDraw() {
  walkSettled = true;
  clearTimeout(settleTimer);
  if (!drawFrame) drawFrame = setTimeout(() => { drawFrame = 0; if (walkOpen()) showWalked(); }, 30);
}

const walkHandlers = {
  onOpen() {
    entered.clear();
    walkSettled = false;
    stage.dataset.walk = "open";
    // Nothing in the circle means no message at all: after a moment the empty circle is the view.
    clearTimeout(settleTimer);
    settleTimer = setTimeout(scheduleDraw, 800);
  },
  onEnter(post) {
    entered.set(post.id, remember(post));
    scheduleDraw();
  },
  onLeave(id) {
    entered.delete(id);
    scheduleDraw();
  },
  onError(error) {
    if (state.view === "look") announce(humanError({ status: 400, field: error?.field ?? null }));
  },
  onClose() {
    entered.clear();
    walkSettled = false;
    clearTimeout(settleTimer);
    stage.dataset.walk = "closed";
    if (state.view === "look") loadLook(); // over HTTP until the socket is back
  },
};

function walkUpdate() {
  const message = { lat: state.lat, lon: state.lon, radius: state.radius };
  if (state.tags.length) message.tag = state.tags;
  return message;
}

/** Opens, tells or closes the walk socket as the view and its filters now allow. The socket gets the
 *  full circle, not a cone: the view places every note by bearing itself, counts those to the left,
 *  right and behind, and applies "My way" (the socket's `heading` would filter those out). */
function syncWalk() {
  if (!canWalk()) {
    stopWalk();
    return;
  }
  startWalk(walkHandlers);
  walkTo(walkUpdate());
}

/** While the view is open, the device's position is followed as the person walks (a position set by
 *  hand or from a link stays put). */
function followDevice() {
  const follow = state.view === "look" && state.source === "device" && Boolean(navigator.geolocation);
  if (follow && watchId === null) {
    watchId = navigator.geolocation.watchPosition((position) => {
      const { latitude: lat, longitude: lon } = position.coords;
      if (state.source !== "device" || state.view !== "look") return;
      // A metre of trembling is not a step.
      if (hasPosition() && distance(state.lat, state.lon, lat, lon) < 1) return;
      update({ lat, lon, source: "device" });
    }, () => {}, { enableHighAccuracy: true, maximumAge: 5000 });
  } else if (!follow && watchId !== null) {
    navigator.geolocation.clearWatch(watchId);
    watchId = null;
  }
}

let absoluteSeen = false;

/** Compass heading from an orientation event: iOS gives it directly; elsewhere alpha turns
 *  counter-clockwise from north. Absolute readings win; a relative one is used only while the
 *  device has given none (some browsers report absolute angles on the plain event). */
function headingFrom(event) {
  if (typeof event.webkitCompassHeading === "number") return event.webkitCompassHeading;
  if (typeof event.alpha !== "number") return null;
  const absolute = event.absolute || event.type === "deviceorientationabsolute";
  if (absolute) absoluteSeen = true;
  else if (absoluteSeen) return null;
  return (360 - event.alpha) % 360;
}

const compassButton = document.getElementById("compass");
let compassHandler = null;

/** The button's words say the compass's state ("Compass on"); a pressed state as well would have
 *  screen readers say it twice, so the look follows a class. */
function showCompass() {
  const on = compassHandler !== null;
  compassButton.classList.toggle("on", on);
  compassButton.textContent = t(on ? "look.compassIsOn" : "look.compass");
}

/** Says what the compass is doing, to screen readers through the status line. When it cannot
 *  start, the button changes nothing to see, so that is said in the view itself too (full screen
 *  on a phone, the status line out of sight); only then, as the line takes the cards' room. */
function sayCompass(key) {
  const note = document.getElementById("compass-note");
  const failed = key === "look.compassDenied" || key === "look.compassMissing";
  note.dataset.key = failed ? key : "";
  note.textContent = failed ? t(key) : "";
  note.hidden = !failed;
  announce(t(key));
}

function listenToCompass() {
  if (compassHandler) return;
  let lastUpdate = 0;
  let trailing = null;
  const turnTo = (rounded) => {
    lastUpdate = performance.now();
    update({ facing: rounded, compassActive: true });
  };
  compassHandler = (event) => {
    const heading = headingFrom(event);
    if (heading === null) return;
    const rounded = Math.round(heading) % 360;
    // A compass speaks many times a second: small tremors are not worth a redraw, and a burst
    // redraws at most every 80 ms, its last reading kept (a compass that then falls silent
    // must not leave the view on an older one).
    clearTimeout(trailing);
    if (state.compassActive && angleDifference(rounded, state.facing) < 2) return;
    const wait = 80 - (performance.now() - lastUpdate);
    if (state.compassActive && wait > 0) trailing = setTimeout(() => { if (compassHandler) turnTo(rounded); }, wait);
    else turnTo(rounded);
  };
  window.addEventListener("deviceorientationabsolute", compassHandler);
  window.addEventListener("deviceorientation", compassHandler);
  showCompass();
  sayCompass("look.compassOn");
}

/** The compass button is a switch: on, the view turns with the phone; off, the dial turns it. */
function toggleCompass() {
  if (compassHandler) {
    window.removeEventListener("deviceorientationabsolute", compassHandler);
    window.removeEventListener("deviceorientation", compassHandler);
    compassHandler = null;
    absoluteSeen = false;
    update({ compassActive: false });
    showCompass();
    sayCompass("look.compassOff");
    return;
  }
  // iOS asks for permission, and only from a tap.
  if (typeof DeviceOrientationEvent !== "undefined" && typeof DeviceOrientationEvent.requestPermission === "function") {
    DeviceOrientationEvent.requestPermission()
      .then((answer) => (answer === "granted" ? listenToCompass() : sayCompass("look.compassDenied")))
      .catch(() => sayCompass("look.compassMissing"));
  } else if (typeof DeviceOrientationEvent !== "undefined") {
    listenToCompass();
  } else {
    sayCompass("look.compassMissing");
  }
}

// A note that left the board leaves the view at once, before the next reload.
export function removeFromLook(id) {
  entered.delete(id);
  around = around.filter((post) => post.id !== id);
  if (state.view === "look") render();
}

function setMode(next) {
  mode = next;
  modeButtons.forEach((button) => button.setAttribute("aria-pressed", String(button.dataset.mode === mode)));
  if (state.view === "look" && !failed) render();
}

const TURN_STEP = FOV / 2; // a press of an arrow turns the view by half its width

/** The arrows turn the view by hand; the compass, which would turn it straight back, goes off first. */
function turnBy(degrees) {
  if (compassHandler) toggleCompass();
  update({ facing: (((Math.round(state.facing) + degrees) % 360) + 360) % 360 });
}

/** `open(post, opener)` opens a note's page (its thread) from a card. */
export function setUpLook(open) {
  turnLeft.addEventListener("click", () => turnBy(-TURN_STEP));
  turnRight.addEventListener("click", () => turnBy(TURN_STEP));
  openNote = open;
  dial.addEventListener("input", () => update({ facing: Number(dial.value) }));
  compassButton.addEventListener("click", toggleCompass);
  showCompass();
  modeButtons.forEach((button) => button.addEventListener("click", () => setMode(button.dataset.mode)));
  pause.addEventListener("click", () => {
    const paused = pause.getAttribute("aria-pressed") !== "true";
    pause.setAttribute("aria-pressed", String(paused));
    stage.classList.toggle("paused", paused);
  });
  onChange((changed) => {
    if (changed.has("facing")) {
      showFacing();
      if (state.view === "look" && hasPosition()) render();
    }
    if (["view", "source"].some((key) => changed.has(key))) followDevice();
    if (["view", "lat", "lon", "radius", "tags", "place", "asOf"].some((key) => changed.has(key))) syncWalk();
    if (["lat", "lon", "radius", "tags", "from", "to", "place", "order", "asOf"].some((key) => changed.has(key))) {
      // Walking, the notes held are measured again at once; the socket tells what entered and left.
      // A closed view fetches nothing: opening its tab loads it.
      if (walkOpen() && walkSettled) showWalked();
      else if (state.view === "look") scheduleRefresh();
    }
    if (changed.has("view") && state.view === "look") requestAnimationFrame(() => { if (hasPosition() && around.length) render(); });
  });
  new ResizeObserver(() => { if (state.view === "look" && hasPosition()) render(); }).observe(stage);
  onLanguage(() => {
    showFacing();
    showCompass();
    const note = document.getElementById("compass-note");
    if (note.dataset.key) note.textContent = t(note.dataset.key);
    notes.replaceChildren();
    if (state.view === "look" && hasPosition()) render();
  });
  showFacing();
  if (state.view === "look") loadLook();
  followDevice();
  syncWalk();
}
