// The moderation page: log in, then a dashboard of the board (dashboard.js), notes to find, hide,
// restore, delete and export (notes.js) with their replies beside them (replies.js), the audit log
// (audit.js), beacons (beacons.js), and places with their announcements (places.js). Every text
// from the board is shown as text, never HTML.
import { request } from "../api.js";
import { $ } from "./dom.js";
import { announce, announcerFor, call, endSession, hasSession, onSessionEnd, registerView, showView, startSession } from "./desk.js";
import { loadDashboard, setUpDashboard } from "./dashboard.js";
import { loadNotesView, setUpNotes, unfocus } from "./notes.js";
import { setUpReplies } from "./replies.js";
import { loadAudit, setUpAudit } from "./audit.js";
import { loadBeacons, setUpBeacons } from "./beacons.js";
import { loadPlaces, setUpPlaceEditor } from "./places.js";

// Sessions

function loggedIn(name) {
  $("#login").hidden = true;
  $("#mod-nav").hidden = false;
  $("#who").hidden = false;
  $("#who-name").textContent = name ? `Logged in as ${name}` : "Logged in";
  showView("dashboard");
}

function loggedOut(message) {
  endSession();
  $("#login").hidden = false;
  $("#mod-nav").hidden = true;
  $("#who").hidden = true;
  document.querySelectorAll("[role=tabpanel]").forEach((panel) => { panel.hidden = true; });
  announce(message);
}

$("#login").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#login-error").textContent = "";
  const username = $("#username").value;
  try {
    const body = await request("POST", "/api/v1/auth/token", { body: { username, password: $("#password").value } });
    startSession(body.token, username);
    $("#password").value = "";
    loggedIn(username);
  } catch (error) {
    $("#login-error").textContent = error.message;
  }
});

$("#logout").addEventListener("click", async () => {
  try { await call("DELETE", "/api/v1/auth/token"); } catch { /* the token is dropped either way */ }
  loggedOut("Logged out.");
});

// Views: tabs chosen by click, or by the arrow keys, Home and End within the tab list.

const tabs = [...document.querySelectorAll("#mod-tabs [role=tab]")];
function choose(view) {
  if (view === "notes") unfocus(); // the tab shows the filters' list; links show one note
  showView(view);
}

tabs.forEach((tab, index) => {
  tab.addEventListener("click", () => choose(tab.dataset.view));
  tab.addEventListener("keydown", (event) => {
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length];
    target.focus();
    choose(target.dataset.view);
  });
});

registerView("dashboard", loadDashboard);
registerView("notes", () => loadNotesView());
registerView("audit", () => loadAudit());
registerView("beacons", loadBeacons);
registerView("places", () => loadPlaces());

onSessionEnd(loggedOut);
setUpDashboard();
setUpNotes();
setUpReplies();
setUpAudit();
setUpBeacons();
setUpPlaceEditor({ call, announce: announcerFor("places") });
if (hasSession()) loggedIn(sessionStorage.getItem("noticeboard-moderator")); else loggedOut("Log in to moderate.");
