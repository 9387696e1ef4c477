// The moderation page: log in, find notes by tag, week or dates, status and reports, hide or
// restore many at once, delete one with a reason, follow a client, read the audit log,
// place beacons on a map, and draw places with their announcements (places.js). Every text from the board is shown as text, never HTML.
import { getJSON, request } from "../api.js";
import { setUpPlaceEditor, loadPlaces } from "./places.js";

const $ = (selector) => document.querySelector(selector);
const status = $("#status");
let token = sessionStorage.getItem("noticeboard-token");
let notesCursor = null;
let auditCursor = null;
const shown = new Map(); // id → moderated post in the table

function announce(text) { status.textContent = text; }

// A moderator's call: with the session's token; a 401 means the session is over.
async function call(method, path, { params, body } = {}) {
  try {
    return await request(method, path, { params, body, headers: { Authorization: `Bearer ${token}` } });
  } catch (error) {
    if (error.status === 401 && path !== "/api/v1/auth/token") loggedOut("Your session ended: log in again.");
    throw error;
  }
}

// Sessions

function loggedIn(name) {
  $("#login").hidden = true;
  $("#mod-nav").hidden = false;
  $("#who").hidden = false;
  $("#who-name").textContent = name ? `Logged in as ${name}` : "Logged in";
  showView("notes");
  loadNotes();
}

function loggedOut(message) {
  token = null;
  sessionStorage.removeItem("noticeboard-token");
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
    token = body.token;
    sessionStorage.setItem("noticeboard-token", token);
    sessionStorage.setItem("noticeboard-moderator", username);
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

// Views

function showView(view) {
  document.querySelectorAll("#mod-tabs [role=tab]").forEach((tab) => {
    const selected = tab.dataset.view === view;
    tab.setAttribute("aria-selected", String(selected));
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
  });
  if (view === "audit") loadAudit();
  if (view === "beacons") loadBeacons();
  if (view === "places") loadPlaces();
}
document.querySelectorAll("#mod-tabs [role=tab]").forEach((tab) => tab.addEventListener("click", () => showView(tab.dataset.view)));

// Notes

function localDayStart(dateText, plusDays = 0) {
  const [year, month, day] = dateText.split("-").map(Number);
  return new Date(year, month - 1, day + plusDays).toISOString();
}

/** `2026-W47` → the Monday and Sunday of that ISO week. */
function weekDays(weekText) {
  const [year, week] = weekText.split("-W").map(Number);
  const fourth = new Date(year, 0, 4);
  const monday = new Date(year, 0, 4 - ((fourth.getDay() + 6) % 7) + (week - 1) * 7);
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  const text = (date) => `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  return [text(monday), text(sunday)];
}

$("#f-week").addEventListener("change", () => {
  if (!$("#f-week").value) return;
  const [monday, sunday] = weekDays($("#f-week").value);
  $("#f-from").value = monday;
  $("#f-to").value = sunday;
});

function noteFilters() {
  return {
    tag: $("#f-tag").value.trim(),
    from: $("#f-from").value ? localDayStart($("#f-from").value) : null,
    to: $("#f-to").value ? localDayStart($("#f-to").value, 1) : null,
    status: $("#f-status").value,
    reported: $("#f-reported").checked ? "true" : null,
    clientId: $("#f-client").value.trim(),
  };
}

function cell(text, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  td.textContent = text;
  return td;
}

function button(label, onClick, className) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
}

function noteRow(post) {
  const row = document.createElement("tr");
  row.dataset.id = String(post.id);
  row.className = post.status;
  const select = document.createElement("td");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "pick";
  box.setAttribute("aria-label", `Select note ${post.id}`);
  select.append(box);
  const client = document.createElement("td");
  if (post.clientId) {
    client.append(button(post.clientId.slice(0, 8), () => {
      $("#f-client").value = post.clientId;
      loadNotes();
    }, "link"));
    client.firstChild.setAttribute("aria-label", `Other notes from client ${post.clientId.slice(0, 8)}`);
  }
  const actions = document.createElement("td");
  if (post.status === "visible") actions.append(button("Hide", () => changeStatus([post.id], "hide")));
  if (post.status === "hidden") actions.append(button("Restore", () => changeStatus([post.id], "restore")));
  if (post.status !== "deleted") actions.append(button("Delete…", () => askDelete(post), "danger"));
  row.append(select, cell(String(post.id)), cell(new Date(post.createdAt).toLocaleString()), cell(post.tag),
    cell(post.message, "message"), cell(post.status, "status"), cell(String(post.reportCount)), client, actions);
  return row;
}

async function loadNotes(append = false) {
  try {
    const page = await call("GET", "/api/v1/moderation/posts", { params: { ...noteFilters(), limit: 100, cursor: append ? notesCursor : null } });
    const body = $("#notes-table tbody");
    if (!append) {
      body.replaceChildren();
      shown.clear();
      $("#select-all").checked = false;
    }
    for (const post of page.posts) {
      shown.set(post.id, post);
      body.append(noteRow(post));
    }
    notesCursor = page.nextCursor;
    $("#notes-more").hidden = !notesCursor;
    announce(`${shown.size}${notesCursor ? "+" : ""} notes match.`);
  } catch (error) {
    announce(error.message);
  }
}

function selectedIds() {
  return [...document.querySelectorAll("#notes-table tbody tr")].filter((row) => row.querySelector(".pick").checked).map((row) => Number(row.dataset.id));
}

async function changeStatus(ids, action) {
  const reason = $("#bulk-reason").value.trim();
  if (action === "hide" && !reason) {
    announce("Give a reason to hide notes.");
    $("#bulk-reason").focus();
    return;
  }
  let done = 0;
  const failures = [];
  for (const id of ids) {
    try {
      await call("POST", `/api/v1/moderation/posts/${id}/${action}`, { body: reason ? { reason } : {} });
      done += 1;
    } catch (error) {
      failures.push(`${id}: ${error.message}`);
    }
  }
  const verb = action === "hide" ? "Hid" : "Restored";
  await loadNotes();
  announce(`${verb} ${done} note${done === 1 ? "" : "s"}.${failures.length ? ` Failed: ${failures.join("; ")}` : ""}`);
}

$("#note-filters").addEventListener("submit", (event) => { event.preventDefault(); loadNotes(); });
$("#notes-more").addEventListener("click", () => loadNotes(true));
$("#select-all").addEventListener("change", () => {
  document.querySelectorAll("#notes-table .pick").forEach((box) => { box.checked = $("#select-all").checked; });
});
$("#hide-selected").addEventListener("click", () => {
  const ids = selectedIds().filter((id) => shown.get(id)?.status === "visible");
  ids.length ? changeStatus(ids, "hide") : announce("Nothing to hide: select visible notes first.");
});
$("#restore-selected").addEventListener("click", () => {
  const ids = selectedIds().filter((id) => shown.get(id)?.status === "hidden");
  ids.length ? changeStatus(ids, "restore") : announce("Nothing to restore: select hidden notes first.");
});

// Deleting: always confirmed, always with a reason.

const dialog = $("#delete-dialog");
let deleting = null;

function askDelete(post) {
  deleting = post;
  $("#delete-id").textContent = String(post.id);
  $("#delete-preview").textContent = post.message;
  $("#delete-reason").value = "";
  $("#delete-error").textContent = "";
  dialog.showModal();
  $("#delete-reason").focus();
}

$("#delete-cancel").addEventListener("click", () => dialog.close());
$("#delete-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reason = $("#delete-reason").value.trim();
  if (!reason) {
    $("#delete-error").textContent = "A reason is required.";
    return;
  }
  try {
    await call("DELETE", `/api/v1/moderation/posts/${deleting.id}`, { body: { reason } });
    dialog.close();
    await loadNotes();
    announce(`Deleted note ${deleting.id}.`);
  } catch (error) {
    $("#delete-error").textContent = error.message;
  }
});

// Audit log

async function loadAudit(append = false) {
  try {
    const page = await call("GET", "/api/v1/moderation/audit", { params: { limit: 100, cursor: append ? auditCursor : null } });
    const body = $("#audit-table tbody");
    if (!append) body.replaceChildren();
    for (const entry of page.entries) {
      const row = document.createElement("tr");
      row.append(cell(new Date(entry.at).toLocaleString()), cell(entry.actor), cell(entry.action),
        cell(entry.postId === null ? "" : String(entry.postId)), cell(entry.reason ?? ""));
      body.append(row);
    }
    auditCursor = page.nextCursor;
    $("#audit-more").hidden = !auditCursor;
    announce(`${body.children.length}${auditCursor ? "+" : ""} audit entries.`);
  } catch (error) {
    announce(error.message);
  }
}
$("#audit-more").addEventListener("click", () => loadAudit(true));

// Beacons: a table, a form, and a map where a click places the beacon being edited.

let beaconMap = null;
let beaconLayer = null;
let placing = null;

function ensureBeaconMap() {
  if (beaconMap || typeof window.L === "undefined") return;
  beaconMap = L.map("beacon-map").setView([20, 0], 2);
  getJSON("/config.json").then((config) => {
    L.tileLayer(config.tileURL, { attribution: config.tileAttribution, maxZoom: 21 }).addTo(beaconMap);
  }).catch(() => {});
  beaconLayer = L.layerGroup().addTo(beaconMap);
  beaconMap.on("click", (event) => {
    const { lat, lng } = event.latlng.wrap();
    $("#b-lat").value = lat.toFixed(7);
    $("#b-lon").value = lng.toFixed(7);
    placing?.setLatLng([lat, lng]);
    if (!placing) placing = L.circleMarker([lat, lng], { radius: 9, color: "#1d4ed8" }).addTo(beaconMap);
    announce("Position set from the map: save the beacon to keep it.");
  });
}

function editBeacon(beacon) {
  $("#b-uuid").value = beacon.uuid;
  $("#b-major").value = beacon.major;
  $("#b-minor").value = beacon.minor;
  $("#b-lat").value = beacon.lat;
  $("#b-lon").value = beacon.lon;
  $("#b-floor").value = beacon.floor ?? "";
  $("#b-name").value = beacon.name;
  beaconMap?.setView([beacon.lat, beacon.lon], 19);
  announce(`Editing ${beacon.name || beacon.uuid}: click the map to move it.`);
}

async function loadBeacons() {
  ensureBeaconMap();
  try {
    const { beacons } = await call("GET", "/api/v1/moderation/beacons");
    const body = $("#beacons-table tbody");
    body.replaceChildren();
    beaconLayer?.clearLayers();
    placing = null;
    for (const beacon of beacons) {
      const row = document.createElement("tr");
      const actions = document.createElement("td");
      const id = `${beacon.uuid}/${beacon.major}/${beacon.minor}`;
      actions.append(button("Edit / move", () => editBeacon(beacon)), button("Remove", async () => {
        if (!confirm(`Remove beacon ${beacon.name || id}? Posts placed by it keep their position.`)) return;
        try {
          await call("DELETE", `/api/v1/moderation/beacons/${id}`);
          loadBeacons();
        } catch (error) { announce(error.message); }
      }, "danger"));
      row.append(cell(beacon.name), cell(`${beacon.uuid}:${beacon.major}:${beacon.minor}`),
        cell(`${beacon.lat.toFixed(6)}, ${beacon.lon.toFixed(6)}`), cell(beacon.floor === null ? "" : String(beacon.floor)), actions);
      body.append(row);
      if (beaconLayer) {
        const marker = L.circleMarker([beacon.lat, beacon.lon], { radius: 7, color: "#7a1a12", fillColor: "#e0492f", fillOpacity: 0.9 });
        // Leaflet reads a string as HTML: a node keeps the name text.
        const label = document.createElement("span");
        label.textContent = beacon.name || id;
        marker.bindTooltip(label);
        marker.on("click", () => editBeacon(beacon));
        beaconLayer.addLayer(marker);
      }
    }
    if (beaconMap && beacons.length) beaconMap.fitBounds(beacons.map((b) => [b.lat, b.lon]), { maxZoom: 18, padding: [30, 30] });
    announce(`${beacons.length} beacons registered.`);
  } catch (error) {
    announce(error.message);
  }
}

$("#beacon-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#beacon-error").textContent = "";
  const path = `/api/v1/moderation/beacons/${encodeURIComponent($("#b-uuid").value.trim())}/${$("#b-major").value}/${$("#b-minor").value}`;
  const body = { lat: Number($("#b-lat").value), lon: Number($("#b-lon").value), name: $("#b-name").value };
  if ($("#b-floor").value !== "") body.floor = Number($("#b-floor").value);
  try {
    await call("PUT", path, { body });
    await loadBeacons();
  } catch (error) {
    $("#beacon-error").textContent = error.field ? `${error.field}: ${error.message}` : error.message;
  }
});

setUpPlaceEditor({ call, announce });
if (token) loggedIn(sessionStorage.getItem("noticeboard-moderator")); else loggedOut("Log in to moderate.");
