// NoticeBoard's page: wires the views (map, around me, look around, post) to the shared
// state and the live stream, the note links (#/note/ID), the offline banner and the language.
// Plain ES modules, no build step.
import { sendWith, getJSON, onConnection, boardReachable, shownFromSaved } from "./api.js";
import { deviceKey } from "./device.js";
import { humanError } from "./errors.js";
import { startI18n, setUpLanguagePicker, onLanguage, relativeTime, t } from "./i18n.js";
import { setUpOffline } from "./offline.js";
import { onDelivered, sendWaiting, setUpOutbox } from "./outbox.js";
import { locate } from "./location.js";
import { state, loadFromURL, saveToURL, update, onChange, hasPosition, announce } from "./state.js";
import { setUpFilters, refreshTagCounts, setTagArea } from "./filters.js";
import { setUpList, loadList, addToList, removeFromList } from "./list.js";
import { setUpMap, loadMap, addToMap, removeFromMap, currentBBox, mapAvailable, mapCentre } from "./map.js";
import { distance } from "./geo.js";
import { setUpPlaces, mapMoved } from "./places.js";
import { setUpLookLoader, loadLook, removeFromLook } from "./look-loader.js";
import { setUpCamera } from "./camera.js";
import { setUpCompose } from "./compose.js";
import { setUpPast } from "./past.js";
import { keepLookBelowTopBars } from "./top-bars.js";
import { remember, setUpReactions } from "./reactions.js";
import { refreshTimes } from "./render.js";
import { openThread, openNoteId, replyArrived, replyGone, setUpThread, threadNoteGone } from "./thread.js";
import { follow, isLive, onLiveChange, reconnect } from "./live.js";
import { setUpPush } from "./push.js";
import { loadMine, setUpMineLoader } from "./mine-loader.js";

startI18n();
// Every request says which device it comes from: the notes then tell whether this device liked
// them and whether they are its own.
sendWith({ "X-Device-Key": deviceKey() });

const tabs = [...document.querySelectorAll("[role=tab]")];

function showView() {
  for (const tab of tabs) {
    const selected = tab.dataset.view === state.view;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
  }
  document.body.dataset.view = state.view;
  document.getElementById("filters").hidden = state.view === "post" || state.view === "mine";
}

function setUpTabs() {
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => update({ view: tab.dataset.view }));
    // Arrow keys, Home and End move between tabs, as the ARIA tabs pattern expects.
    tab.addEventListener("keydown", (event) => {
      const target = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (target === undefined) return;
      event.preventDefault();
      const next = tabs[(target + tabs.length) % tabs.length];
      update({ view: next.dataset.view });
      next.focus();
    });
  });
}

let tagRefresh = null;
function noteAppeared(post) {
  addToList(post);
  addToMap(post);
  if (state.view === "look") loadLook();
  clearTimeout(tagRefresh);
  tagRefresh = setTimeout(refreshTagCounts, 1000);
}

function noteVanished(id) {
  removeFromList(id);
  removeFromMap(id);
  removeFromLook(id);
  threadNoteGone(id);
}

/** A live "remove": looking at the past, a note that merely expired now was still there back
 *  then, so only a note that left the board for good (hidden, deleted: 404) goes. */
async function noteRemoved(id) {
  if (state.asOf) {
    try {
      await getJSON(`/api/v1/posts/${id}`);
      return;
    } catch (error) {
      if (error.status !== 404) return;
    }
  }
  noteVanished(id);
}

const handlers = {
  onPost: noteAppeared, onRemove: noteRemoved, onReply: replyArrived, onReplyRemove: replyGone,
  onReset: () => { refreshView[state.view](); refreshTagCounts(); },
};
function followArea(force = false) {
  if (state.place) {
    // The place alone is the subscription: each view keeps what falls in its own area.
    follow({ place: state.place, tag: state.tags }, handlers, force);
  } else if (state.view === "map" && mapAvailable()) {
    const bbox = currentBBox();
    follow(bbox ? { bbox, tag: state.tags } : { bbox: "-180,-90,180,90", tag: state.tags }, handlers, force);
  } else if (hasPosition()) {
    followedCentre = { lat: state.lat, lon: state.lon };
    follow({ lat: state.lat, lon: state.lon, radius: state.radius, tag: state.tags }, handlers, force);
  }
}

let followedCentre = null;
/** Walking in look around moves the position every few metres: the stream is opened again only once
 *  the person is a quarter of the radius from where it was opened (the walk socket brings the notes). */
function smallStep(changed) {
  if (state.view !== "look" || !followedCentre || !hasPosition()) return false;
  if (!["lat", "lon"].some((key) => changed.has(key)) || ["view", "radius", "tags", "place"].some((key) => changed.has(key))) return false;
  return distance(followedCentre.lat, followedCentre.lon, state.lat, state.lon) < state.radius / 4;
}

/** The box the tag counts are for: the map's view on the map, else the circle around the person. */
/** Where the tag chips count: the map's view, or the list's own circle (so a chip's count is what choosing it lists). */
function tagArea() {
  if (state.view === "map" && mapAvailable()) return { bbox: currentBBox() };
  if (!hasPosition()) return undefined; // no area: the chips show no counts
  return { lat: state.lat, lon: state.lon, radius: state.radius };
}

// The offline banner: the board unreachable (say what is shown may be old, offer to try
// again) or only the live stream down ("live updates paused").
const offline = document.getElementById("offline");
function showConnection() {
  const reachable = boardReachable() && navigator.onLine !== false;
  const live = isLive();
  offline.hidden = reachable && live;
  document.getElementById("offline-title").hidden = reachable;
  // Unreachable means the stream is down too: "live updates paused" is said either way.
  document.getElementById("offline-live").textContent = live && reachable ? "" : t("offline.live");
  // Offline, what is shown may be the board the service worker saved: how old it is is said.
  const saved = shownFromSaved();
  document.getElementById("offline-title").textContent = saved ? t("offline.saved", { ago: relativeTime(saved) }) : t("offline.title");
}

// The status line speaks for the view in front: each view says again what it shows.
const refreshView = { map: () => loadMap(), list: () => loadList(), look: () => loadLook(), mine: () => loadMine(), post: () => announce("") };

function retry() {
  sendWaiting();
  refreshView[state.view]();
  refreshTagCounts();
  followArea(true);
  reconnect();
}

// A note's own page: #/note/ID opens it over the view (from a shared link, or a card's time).
async function route() {
  const match = /^#\/note\/(\d+)$/.exec(location.hash);
  if (!match) return;
  const id = Number(match[1]);
  if (openNoteId() === id) return;
  const opener = document.activeElement;
  try {
    const post = remember(await getJSON(`/api/v1/posts/${id}`));
    if (hasPosition()) {
      const { distance, bearing } = await import("./geo.js");
      post.distance = distance(state.lat, state.lon, post.lat, post.lon);
      post.bearing = bearing(state.lat, state.lon, post.lat, post.lon);
    }
    openThread(post, opener);
  } catch (error) {
    // Said where it stays in sight: the status line moves on to the view's own news at once.
    showLinkProblem(() => humanError(error));
    history.replaceState(history.state, "", location.pathname + location.search);
  }
}

const linkProblem = document.getElementById("link-problem");
let linkProblemWords = null; // () => text, said again in another language
function showLinkProblem(words) {
  linkProblemWords = words;
  document.getElementById("link-problem-text").textContent = words ? words() : "";
  linkProblem.hidden = !words;
}

function setUpNoteLinks() {
  window.addEventListener("hashchange", route);
  document.getElementById("link-problem-close").addEventListener("click", () => {
    showLinkProblem(null);
    document.getElementById("main").focus();
  });
  onLanguage(() => { if (linkProblemWords) showLinkProblem(linkProblemWords); });
  // Closing the note's page leaves its address, so Back and a reload do not open it again.
  document.getElementById("thread").addEventListener("close", () => {
    if (/^#\/note\//.test(location.hash)) history.replaceState(history.state, "", location.pathname + location.search);
  });
  route();
}

loadFromURL();
saveToURL(); // the address says what is shown: ?tag=FOOD becomes ?tag=food, as the chips do
setUpLanguagePicker(document.getElementById("language"));
setUpTabs();
showView();
setUpReactions({ openThread, gone: noteVanished });
setUpThread();
setUpPast();
keepLookBelowTopBars();
setTagArea(tagArea);
setUpFilters();
setUpList();
setUpLookLoader(openThread);
setUpCamera();
setUpPlaces(mapCentre);
setUpPush(mapCentre);
setUpMineLoader(openThread);
setUpCompose((post) => {
  noteAppeared(post);
  loadList();
});
setUpOutbox();
onDelivered((post) => noteAppeared(post));

onChange((changed) => {
  if (changed.has("view")) {
    showView();
    refreshView[state.view]();
    refreshTagCounts();
  }
  if (["view", "lat", "lon", "radius", "tags", "place"].some((key) => changed.has(key)) && !smallStep(changed)) followArea();
  if (state.view !== "map" && ["lat", "lon", "radius"].some((key) => changed.has(key))) refreshTagCounts();
});
onConnection(showConnection);
onLiveChange(showConnection);
window.addEventListener("online", retry);
window.addEventListener("offline", showConnection);
document.getElementById("offline-retry").addEventListener("click", retry);
onLanguage(() => {
  showConnection();
  refreshTimes();
  refreshView[state.view]();
});
setInterval(() => {
  refreshTimes();
  if (shownFromSaved()) showConnection(); // "as it was 5 minutes ago" grows older too
}, 60_000);

const mapSettled = () => {
  followArea();
  mapMoved();
  if (state.view === "map") refreshTagCounts();
};
setUpMap(mapSettled).finally(mapSettled);
setUpOffline();
setUpNoteLinks();
// Where the person is, asked once as the page opens; the map then opens on them.
if (!hasPosition()) locate();
