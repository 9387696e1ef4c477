// "Notify me about new notes here": Web Push for the circle around the person (or the place they
// keep to) and the chosen tags. Permission is asked only when the button is tapped; the service
// worker (sw.js) shows each pushed note. The subscription's id and what it covers are kept in
// localStorage, so "Stop" works after a reload; "Stop" ends it on the server and in the browser.
import { getJSON, request } from "./api.js";
import { deviceKey } from "./device.js";
import { humanError } from "./errors.js";
import { distanceText, t, onLanguage } from "./i18n.js";
import { placeName } from "./places.js";
import { tagName } from "./render.js";
import { state, hasPosition, announce } from "./state.js";

const STORAGE_KEY = "noticeboard-push";
export const PUSH_RADIUS = 5000; // the server's largest push circle
const box = document.getElementById("notify"); // what is on, and what went wrong
const start = document.getElementById("notify-on");
const on = document.getElementById("notify-state");
const onText = document.getElementById("notify-text");
const stop = document.getElementById("notify-stop");
const problem = document.getElementById("notify-problem");
const progress = document.getElementById("notify-progress");
const mapButton = document.getElementById("notify-map");
let problemKey = null; // what went wrong, kept as words to say again in another language
let problemText = "";

export const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null");
    return value && Number.isInteger(value.id) ? value : null;
  } catch {
    return null;
  }
}

function store(value) {
  try {
    if (value) localStorage.setItem(STORAGE_KEY, JSON.stringify(value));
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Without storage the subscription lasts until the page closes, as far as this page knows.
  }
  current = value;
}

let current = stored();
const areaInUse = () => Boolean(current);

/** "Notifying you about new notes within 500 m of here" (or in a place, or tagged…). */
function describe(subscription) {
  const tags = (subscription.tags ?? []).map(tagName).join(", ");
  if (subscription.area.place) {
    const place = subscription.placeName ?? subscription.area.place;
    return tags ? t("notify.onPlaceTagged", { place, tags }) : t("notify.onPlace", { place });
  }
  const within = distanceText(subscription.area.radius);
  return tags ? t("notify.onTagged", { within, tags }) : t("notify.on", { within });
}

function showProblem(key, text = null) {
  problemKey = key;
  problemText = text ?? "";
  problem.textContent = key ? t(key) : problemText;
  problem.hidden = !key && !problemText;
  box.hidden = !current && problem.hidden;
}

function render() {
  box.dataset.state = current ? "on" : "off";
  // Nothing to say takes no room: the button alone sits in the order bar.
  box.hidden = !current && problem.hidden && !progress.textContent;
  start.hidden = Boolean(current);
  if (mapButton) {
    // The map's bell is a switch: on, a press stops what it turned on.
    mapButton.setAttribute("aria-pressed", String(Boolean(current)));
    const label = current ? `${describe(current)}: ${t("notify.stop")}` : t("notify.button");
    mapButton.setAttribute("aria-label", label);
    mapButton.title = label;
  }
  on.hidden = !current;
  if (current) onText.textContent = describe(current);
  if (problemKey) problem.textContent = t(problemKey);
}

// Said at once on a tap, then again if the browser is slow: a grey button alone said nothing for 15 s.
let progressKey = null;
let slowTimer = null;
function sayProgress(key) {
  progressKey = key;
  progress.textContent = key ? t(key) : "";
  box.hidden = !current && problem.hidden && !key;
}

function busy(value) {
  start.disabled = value;
  stop.disabled = value;
  if (mapButton) mapButton.disabled = value;
  box.setAttribute("aria-busy", String(value));
  clearTimeout(slowTimer);
  if (value) {
    sayProgress("notify.working");
    slowTimer = setTimeout(() => sayProgress("notify.slow"), 3000);
  } else {
    sayProgress(null);
  }
}

/** A browser step that may never answer (its push service out of reach): given up after `ms`. */
export const PUSH_STEP_TIMEOUT = 8_000;
function within(promise, ms = PUSH_STEP_TIMEOUT) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new DOMException("the browser did not answer", "TimeoutError")), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function applicationServerKey(base64url) {
  const text = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}

let mapCentre = () => null;

/** The area the person means by "here": the place they keep to, the circle around them, or, on
 *  the map without a position, the circle around the map's centre. */
function areaHere() {
  if (state.place) return { place: state.place };
  const centre = hasPosition() ? { lat: state.lat, lon: state.lon } : (state.view === "map" ? mapCentre() : null);
  if (!centre) return null;
  return { lat: Number(centre.lat.toFixed(6)), lon: Number(centre.lon.toFixed(6)), radius: Math.min(state.radius, PUSH_RADIUS) };
}

/** The browser's push subscription with the board's key, made if there is none: permission is
 *  asked here, from a tap, never as the page opens. Throws a NotAllowedError when refused (its
 *  `permission` says how) and a TimeoutError when the browser does not answer. */
export async function browserSubscription() {
  const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  if (permission !== "granted") {
    const refused = new DOMException("notifications not allowed", "NotAllowedError");
    refused.permission = permission;
    throw refused;
  }
  const registration = await within(navigator.serviceWorker.register("/sw.js"));
  await within(navigator.serviceWorker.ready);
  const { publicKey } = await getJSON("/api/v1/push/key");
  const key = applicationServerKey(publicKey);
  let subscription = await within(registration.pushManager.getSubscription());
  const sameKey = (existing) => {
    const used = existing.options?.applicationServerKey;
    if (!used) return true;
    const bytes = new Uint8Array(used);
    return bytes.length === key.length && bytes.every((byte, index) => byte === key[index]);
  };
  if (subscription && !sameKey(subscription)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  let made = false;
  if (!subscription) {
    subscription = await within(registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
    made = true;
  }
  return { subscription, made };
}

// The browser has one push subscription for the page: the board's subscriptions for an area and
// for replies share it, so it is ended only when neither is left.
const stillUsed = new Set();
/** `inUse()` tells whether another part of the page still needs the browser's subscription. */
export function sharesBrowserSubscription(inUse) {
  stillUsed.add(inUse);
}

/** Ends the browser's subscription unless the board still has one on it (for `except`, the caller). */
export async function releaseBrowserSubscription(except) {
  if ([...stillUsed].some((inUse) => inUse !== except && inUse())) return;
  const registration = supported() ? await navigator.serviceWorker.getRegistration() : null;
  const subscription = await registration?.pushManager.getSubscription();
  await subscription?.unsubscribe();
}

async function turnOn() {
  showProblem(null);
  if (!supported()) {
    showProblem("notify.unsupported");
    return;
  }
  const area = areaHere();
  if (!area) {
    showProblem("notify.noPosition");
    return;
  }
  if (Notification.permission === "denied") {
    showProblem("notify.denied");
    return;
  }
  busy(true);
  let subscription = null;
  let made = false;
  try {
    ({ subscription, made } = await browserSubscription());
    const tags = [...state.tags];
    const body = { subscription: subscription.toJSON(), area, ...(tags.length ? { tags } : {}) };
    const { id } = await createSubscription(body);
    store({ id, area, tags, placeName: area.place ? placeName(area.place) : null });
    render();
    // The banner says what is on; the status line only confirms it, not the same words twice.
    announce(t("notify.turnedOn"));
    if (state.view === "map" && mapButton) mapButton.focus();
    else on.focus(); // the button tapped is gone: the focus goes to what replaced it
  } catch (error) {
    // A browser subscription the board does not know of would only wake the phone for nothing.
    if (made) releaseBrowserSubscription(areaInUse).catch(() => {});
    if (error?.status) showProblem(null, humanError(error));
    else if (error?.name === "NotAllowedError") showProblem(error.permission === "default" ? "notify.notAllowed" : "notify.denied");
    else if (error?.name === "TimeoutError") showProblem("notify.noAnswer");
    else if (error instanceof TypeError) showProblem(null, humanError(error));
    else showProblem("notify.failed");
  } finally {
    busy(false);
  }
}

async function turnOff() {
  if (!current) return;
  showProblem(null);
  busy(true);
  try {
    await deleteSubscription(current.id);
    await releaseBrowserSubscription(areaInUse);
    store(null);
    render();
    announce(t("notify.stopped"));
  } catch (error) {
    showProblem(null, humanError(error));
  } finally {
    busy(false);
  }
  // The focus goes where the Stop button was, now "Notify me" again (enabled only now).
  if (!current) (state.view === "map" && mapButton ? mapButton : start).focus();
}

/** `centre()` gives the map's centre, the "here" of the map's bell without a position. */
export function setUpPush(centre = () => null) {
  if (!box) return;
  mapCentre = centre;
  sharesBrowserSubscription(areaInUse);
  // Reply pushes (My notes, whose code may not be loaded yet) keep the browser's subscription too.
  sharesBrowserSubscription(() => {
    try {
      return Boolean(localStorage.getItem("noticeboard-push-replies"));
    } catch {
      return false;
    }
  });
  start.addEventListener("click", turnOn);
  mapButton?.addEventListener("click", () => (current ? turnOff() : turnOn()));
  stop.addEventListener("click", turnOff);
  // A tap on a notification in a tab already open: the worker asks the page to open the note.
  navigator.serviceWorker?.addEventListener("message", (event) => {
    if (event.data?.type === "open-note" && Number.isInteger(event.data.id)) location.hash = `#/note/${event.data.id}`;
  });
  onLanguage(() => {
    render();
    if (progressKey) progress.textContent = t(progressKey);
  });
  render();
}

/** Registers a subscription on the board (an area, or `replies: true`) for this device. */
export function createSubscription(body) {
  return request("POST", "/api/v1/push/subscriptions", { body, headers: { "X-Device-Key": deviceKey() } });
}

/** Ends a subscription on the board; one already gone (the push service ended it) is stopped all the same. */
export async function deleteSubscription(id) {
  try {
    await request("DELETE", `/api/v1/push/subscriptions/${id}`, { headers: { "X-Device-Key": deviceKey() } });
  } catch (error) {
    if (error?.status !== 404) throw error;
  }
}
