// The Beacons view: a table, a form, and a map (opened on the board's busiest area) where a
// click places the beacon being edited. A beacon's name is text in its tooltip, never HTML.
import { speakLeaflet } from "../leaflet-words.js";
import { t } from "../i18n.js";
import { getJSON } from "../api.js";
import { $, button, cardRow, cell } from "./dom.js";
import { announcerFor, call } from "./desk.js";
import { openOnBusiestArea } from "./busiest.js";

const announce = announcerFor("beacons");
let beaconMap = null;
let beaconLayer = null;
let placing = null;
let known = []; // the beacons listed

const key = (beacon) => `${beacon.uuid}:${beacon.major}:${beacon.minor}`;

function ensureBeaconMap() {
  if (beaconMap || typeof window.L === "undefined") return;
  beaconMap = L.map("beacon-map").setView([20, 0], 2);
  speakLeaflet(beaconMap);
  new ResizeObserver(() => beaconMap.invalidateSize()).observe(beaconMap.getContainer());
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
    announce(t("mod.b.fromMap"));
  });
  // With no beacon yet, the map opens where the notes are, not on the world.
  openOnBusiestArea(beaconMap, call, { unless: () => known.length > 0 || placing !== null }).catch(() => {});
}

function editBeacon(beacon) {
  $("#b-uuid").value = beacon.uuid;
  $("#b-major").value = beacon.major;
  $("#b-minor").value = beacon.minor;
  $("#b-lat").value = beacon.lat;
  $("#b-lon").value = beacon.lon;
  $("#b-floor").value = beacon.floor ?? "";
  $("#b-name").value = beacon.name;
  $("#beacon-error").textContent = "";
  beaconMap?.setView([beacon.lat, beacon.lon], 19);
  announce(t("mod.b.editing", { name: beacon.name || key(beacon) }));
}

/** Edits the beacon `uuid:major:minor` (from the audit log), or says it is gone. */
export function focusBeacon(reference) {
  const beacon = known.find((item) => key(item) === reference.toLowerCase());
  if (beacon) {
    editBeacon(beacon);
    document.querySelector(`#beacons-table tr[data-beacon="${CSS.escape(key(beacon))}"]`)?.scrollIntoView({ block: "nearest" });
    return;
  }
  const [uuid, major, minor] = reference.split(":");
  $("#b-uuid").value = uuid ?? "";
  $("#b-major").value = major ?? "";
  $("#b-minor").value = minor ?? "";
  announce(t("mod.b.gone", { id: reference }));
}

export async function loadBeacons() {
  ensureBeaconMap();
  try {
    const { beacons } = await call("GET", "/api/v1/moderation/beacons");
    known = beacons;
    const body = $("#beacons-table tbody");
    body.replaceChildren();
    beaconLayer?.clearLayers();
    placing = null;
    for (const beacon of beacons) {
      const actions = cell("", "actions");
      const id = `${beacon.uuid}/${beacon.major}/${beacon.minor}`;
      const edit = button(t("mod.b.edit"), () => editBeacon(beacon));
      edit.setAttribute("aria-label", t("mod.b.editLabel", { name: beacon.name || key(beacon) }));
      const remove = button(t("mod.b.remove"), async () => {
        if (!confirm(t("mod.b.confirmRemove", { name: beacon.name || id }))) return;
        try {
          await call("DELETE", `/api/v1/moderation/beacons/${id}`);
          loadBeacons();
        } catch (error) { announce(error.message); }
      }, "danger");
      remove.setAttribute("aria-label", t("mod.b.removeLabel", { name: beacon.name || key(beacon) }));
      actions.append(edit, remove);
      const row = cardRow([cell(beacon.name, "name", t("mod.name")), cell(key(beacon), "beacon", t("mod.beacon")),
        cell(`${beacon.lat.toFixed(6)}, ${beacon.lon.toFixed(6)}`, "position", t("mod.position")),
        cell(beacon.floor === null ? "" : String(beacon.floor), "floor", t("mod.floor")), actions]);
      row.dataset.beacon = key(beacon);
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
    announce(t("mod.b.count", { count: beacons.length }));
  } catch (error) {
    announce(error.message);
  }
}

async function saveBeacon(event) {
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
}

export function setUpBeacons() {
  $("#beacon-form").addEventListener("submit", saveBeacon);
}
