// NoticeBoard's page: wires the views (map, around me, look around, post) to the shared
// state and the live stream. Plain ES modules, no build step.
import { sendWith, getJSON } from "./api.js";
import { deviceKey } from "./device.js";
import { state, loadFromURL, update, onChange, hasPosition, announce } from "./state.js";
import { setUpFilters, refreshTagCounts } from "./filters.js";
import { setUpList, loadList, addToList, removeFromList, locate } from "./list.js";
import { setUpMap, loadMap, addToMap, removeFromMap, currentBBox, mapAvailable, mapCentre } from "./map.js";
import { setUpPlaces, mapMoved } from "./places.js";
import { setUpLook, loadLook, removeFromLook } from "./look.js";
import { setUpCompose } from "./compose.js";
import { setUpPast } from "./past.js";
import { setUpReactions } from "./reactions.js";
import { openThread, replyArrived, setUpThread, threadNoteGone } from "./thread.js";
import { follow } from "./live.js";

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
  document.getElementById("filters").hidden = state.view === "post";
  document.getElementById("order-field").hidden = state.view === "map"; // the map has no order
}

function setUpTabs() {
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => update({ view: tab.dataset.view }));
    // Arrow keys move between tabs, as the ARIA tabs pattern expects.
    tab.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
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

function followArea() {
  const handlers = { onPost: noteAppeared, onRemove: noteRemoved, onReply: replyArrived };
  if (state.place) {
    // The place alone is the subscription: each view keeps what falls in its own area.
    follow({ place: state.place, tag: state.tags }, handlers);
  } else if (state.view === "map" && mapAvailable()) {
    const bbox = currentBBox();
    follow(bbox ? { bbox, tag: state.tags } : { bbox: "-180,-90,180,90", tag: state.tags }, handlers);
  } else if (hasPosition()) {
    follow({ lat: state.lat, lon: state.lon, radius: state.radius, tag: state.tags }, handlers);
  }
}

loadFromURL();
setUpTabs();
showView();
setUpReactions({ openThread, gone: noteVanished });
setUpThread();
setUpPast();
setUpFilters();
setUpList();
setUpLook();
setUpPlaces(mapCentre);
setUpCompose((post) => {
  noteAppeared(post);
  loadList();
});
// The status line speaks for the view in front: each view says again what it shows.
const refreshView = { map: () => loadMap(), list: () => loadList(), look: () => loadLook(), post: () => announce("") };

onChange((changed) => {
  if (changed.has("view")) {
    showView();
    refreshView[state.view]();
  }
  if (["view", "lat", "lon", "radius", "tags", "place"].some((key) => changed.has(key))) followArea();
});
const mapSettled = () => {
  followArea();
  mapMoved();
};
setUpMap(mapSettled).finally(mapSettled);
if (!hasPosition() && state.view !== "map") locate();
