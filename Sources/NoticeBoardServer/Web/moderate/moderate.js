// The moderation page: log in, then a dashboard of the board (dashboard.js), notes to find, hide,
// restore, delete and export (notes.js) with their replies beside them (replies.js), the audit log
// (audit.js), beacons (beacons.js), and places with their announcements (places.js). Every text
// from the board is shown as text, never HTML.
import { request } from "../api.js";
import { humanError } from "../errors.js";
import { onLanguage, setUpLanguagePicker, startI18n, t } from "../i18n.js";
import { $ } from "./dom.js";
import { announce, announcerFor, call, currentView, endSession, hasSession, onSessionEnd, registerView, showView, startSession } from "./desk.js";
import { loadDashboard, setUpDashboard } from "./dashboard.js";
import { loadNotesView, setUpNotes, unfocus } from "./notes.js";
import { setUpReasonDialog } from "./reason-dialog.js";
import { setUpReplies } from "./replies.js";
import { loadAudit, setUpAudit } from "./audit.js";
import { loadBeacons, setUpBeacons } from "./beacons.js";
import { loadPlaces, setUpPlaceEditor } from "./places.js";

// Sessions

let moderatorName = null;
const showWho = () => { $("#who-name").textContent = moderatorName ? t("mod.loggedInAs", { name: moderatorName }) : t("mod.loggedIn"); };

function loggedIn(name) {
  moderatorName = name;
  $("#login").hidden = true;
  $("#mod-nav").hidden = false;
  $("#who").hidden = false;
  showWho();
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
    $("#login-error").textContent = error.status === 401 ? t("mod.loginWrong") : humanError(error);
  }
});

$("#logout").addEventListener("click", async () => {
  try { await call("DELETE", "/api/v1/auth/token"); } catch { /* the token is dropped either way */ }
  loggedOut(t("mod.loggedOut"));
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

// The page's words in the chosen language (kept with the public page's choice), switched on the fly.
startI18n();
setUpLanguagePicker($("#language"));
// A switch redraws the view in front in the new words (its lists, dates and counts).
onLanguage(() => {
  showWho();
  if (hasSession() && currentView()) showView(currentView());
});
onSessionEnd(loggedOut);
setUpDashboard();
setUpNotes();
setUpReplies();
setUpReasonDialog();
setUpAudit();
setUpBeacons();
setUpPlaceEditor({ call, announce: announcerFor("places") });
if (hasSession()) loggedIn(sessionStorage.getItem("noticeboard-moderator")); else loggedOut(t("mod.logInToModerate"));
