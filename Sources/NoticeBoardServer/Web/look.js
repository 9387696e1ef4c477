// "Look around": hold the phone up and read the notes in front of you. The compass (or, on a
// desktop, the dial) sets the facing direction; the notes inside the field of view come from
// nearby's `facing`/`fov` and drift across the screen like the original app's danmaku;
// arrows tell which way to turn toward the others. In the popular order the most liked notes
// in view come first and the top ones stand out.
import { getJSON } from "./api.js";
import { direction, distanceText, signedAngle } from "./geo.js";
import { state, update, onChange, hasPosition, filterParameters, announce } from "./state.js";

const FOV = 60;
const dial = document.getElementById("facing");
const readout = document.getElementById("facing-readout");
const needle = document.getElementById("dial-needle");
const notes = document.getElementById("look-notes");
const turnLeft = document.getElementById("turn-left");
const turnRight = document.getElementById("turn-right");
const behind = document.getElementById("behind");
let generation = 0;
let refreshTimer = null;

function showFacing() {
  const facing = Math.round(state.facing) % 360;
  dial.value = String(facing);
  readout.textContent = `${facing}° ${direction(facing)}`;
  needle.style.transform = `rotate(${facing}deg)`;
}

function noteCard(post, offset, rank) {
  const item = document.createElement("li");
  item.className = state.order === "popular" && rank < 3 && (post.likeCount ?? 0) > 0 ? "note drift top" : "note drift";
  item.dataset.id = String(post.id);
  // Where it stands in the view: -1 at the left edge, 1 at the right.
  const across = Math.max(-1, Math.min(1, offset / (FOV / 2)));
  item.style.setProperty("--across", String(across));
  item.style.setProperty("--lane", String(post.id % 5));
  item.style.setProperty("--delay", `${-(post.id % 7) * 1.3}s`);
  const meta = document.createElement("span");
  meta.className = "meta";
  const likes = post.likeCount ?? 0;
  meta.textContent = `${post.tag} · ${distanceText(post.distance)}${likes ? ` · ${likes} ${likes === 1 ? "like" : "likes"}` : ""}`;
  const message = document.createElement("span");
  message.className = "message";
  message.textContent = post.message;
  item.append(meta, message);
  return item;
}

function plural(count) {
  return count === 1 ? "1 note" : `${count} notes`;
}

export async function loadLook() {
  if (!hasPosition()) {
    notes.replaceChildren();
    [turnLeft, turnRight, behind].forEach((element) => { element.hidden = true; });
    if (state.view === "look") announce("Set your position first: use your location or click the map.");
    return;
  }
  const request = ++generation;
  const base = { lat: state.lat, lon: state.lon, radius: state.radius, ...filterParameters(), limit: 100 };
  try {
    const [inView, all] = await Promise.all([
      getJSON("/api/v1/posts/nearby", { ...base, facing: Math.round(state.facing) % 360, fov: FOV, accuracy: 10, order: state.order }),
      getJSON("/api/v1/posts/nearby", { ...base, limit: 500 }),
    ]);
    if (request !== generation) return;
    notes.replaceChildren(...inView.posts.map((post, rank) => noteCard(post, post.distance <= 10 ? 0 : signedAngle(state.facing, post.bearing), rank)));
    const shown = new Set(inView.posts.map((post) => post.id));
    let left = 0, right = 0, back = 0;
    for (const post of all.posts) {
      if (shown.has(post.id)) continue;
      const offset = signedAngle(state.facing, post.bearing);
      if (Math.abs(offset) > 135) back += 1;
      else if (offset < 0) left += 1;
      else right += 1;
    }
    turnLeft.hidden = left === 0;
    turnLeft.textContent = `← ${plural(left)} to your left`;
    turnRight.hidden = right === 0;
    turnRight.textContent = `${plural(right)} to your right →`;
    behind.hidden = back === 0;
    behind.textContent = `↓ ${plural(back)} behind you`;
    if (state.view === "look") {
      announce(inView.posts.length ? `${plural(inView.posts.length)} in front of you.` : "No notes in front of you: turn around.");
    }
  } catch (error) {
    if (request === generation) announce(error.message);
  }
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(loadLook, 250);
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

function startCompass() {
  const listen = () => {
    const handler = (event) => {
      const heading = headingFrom(event);
      if (heading === null) return;
      update({ facing: Math.round(heading) % 360, compassActive: true });
    };
    window.addEventListener("deviceorientationabsolute", handler);
    window.addEventListener("deviceorientation", handler);
    announce("Compass on: turn around to see the notes in each direction.");
  };
  // iOS asks for permission, and only from a tap.
  if (typeof DeviceOrientationEvent !== "undefined" && typeof DeviceOrientationEvent.requestPermission === "function") {
    DeviceOrientationEvent.requestPermission()
      .then((answer) => (answer === "granted" ? listen() : announce("Compass permission denied: use the dial.")))
      .catch(() => announce("The compass is not available: use the dial."));
  } else if (typeof DeviceOrientationEvent !== "undefined") {
    listen();
  } else {
    announce("This device has no compass: use the dial.");
  }
}

// A note that left the board leaves the view at once, before the next reload.
export function removeFromLook(id) {
  document.querySelector(`#look-notes [data-id="${id}"]`)?.remove();
}

export function setUpLook() {
  dial.addEventListener("input", () => update({ facing: Number(dial.value) }));
  document.getElementById("compass").addEventListener("click", startCompass);
  onChange((changed) => {
    if (changed.has("facing")) showFacing();
    if (["facing", "lat", "lon", "radius", "tags", "from", "to", "place", "order", "asOf"].some((key) => changed.has(key))) scheduleRefresh();
  });
  showFacing();
  loadLook();
}
