// Posting a note: message (counted in Unicode scalars, as the server counts), a tag chip or a
// custom tag, how long it stays (a lifetime, sent as `expiresAt`), the position from geolocation
// or a map click, and the facing direction when asked. Errors from the API appear next to the
// field they name. Looking at the past, the form says the note goes on the board of now.
import { postJSON } from "./api.js";
import { randomToken } from "./device.js";
import { dateTime } from "./render.js";
import { pastText } from "./past.js";
import { state, onChange, hasPosition, announce } from "./state.js";

const form = document.getElementById("compose");
const message = document.getElementById("message");
const counter = document.getElementById("counter");
const customTag = document.getElementById("custom-tag");
const whereLine = document.getElementById("compose-where");
const withHeading = document.getElementById("with-heading");
const errorLines = {
  message: document.getElementById("message-error"),
  tag: document.getElementById("tag-error"),
  location: document.getElementById("location-error"),
  other: document.getElementById("compose-error"),
};
const fieldInputs = { message, tag: customTag };
const pastNotice = document.getElementById("compose-past");
const DAY = 86_400_000;
const LIFETIMES = { day: DAY, week: 7 * DAY, month: 30 * DAY, never: null };

/** The chosen lifetime as an `expiresAt` from now, or null for a note that stays. */
function expiresAt() {
  const span = LIFETIMES[form.querySelector("input[name=lifetime]:checked")?.value ?? "never"];
  return span ? new Date(Date.now() + span).toISOString() : null;
}

function showPast() {
  pastNotice.hidden = state.asOf === null;
  if (state.asOf) {
    pastNotice.textContent = `You are looking at the board as it stood ${pastText(state.asOf)}. A note you post goes on the board of now, not back then.`;
  }
}

function clearErrors() {
  Object.values(errorLines).forEach((line) => { line.textContent = ""; });
  Object.values(fieldInputs).forEach((input) => input.removeAttribute("aria-invalid"));
}

function showError(field, text) {
  const key = field === "message" || field === "tag" ? field : ["lat", "lon", "floor", "accuracy", "beacon"].includes(field) ? "location" : "other";
  errorLines[key].textContent = text;
  const input = fieldInputs[key];
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

function countScalars(text) {
  return [...text.trim()].length;
}

function showCounter() {
  const count = countScalars(message.value);
  counter.textContent = `${count} / 2000`;
  counter.classList.toggle("over", count > 2000);
}

function showWhere() {
  whereLine.textContent = hasPosition()
    ? `Posting at ${state.lat.toFixed(5)}, ${state.lon.toFixed(5)}${withHeading.checked ? `, facing ${Math.round(state.facing)}°` : ""}.`
    : "No position yet: use your location (Around me) or click the map.";
}

function chosenTag() {
  const picked = form.querySelector("input[name=tag]:checked")?.value;
  return picked === "custom" ? customTag.value : picked;
}

export function setUpCompose(onPosted) {
  message.addEventListener("input", showCounter);
  customTag.addEventListener("focus", () => { form.querySelector("input[value=custom]").checked = true; });
  withHeading.addEventListener("change", showWhere);
  onChange((changed) => {
    if (changed.has("compassActive") && state.compassActive) withHeading.checked = true;
    if (["lat", "lon", "facing", "compassActive"].some((key) => changed.has(key))) showWhere();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    if (!hasPosition()) {
      showError("lat", "Set your position first: use your location or click the map.");
      return;
    }
    if (countScalars(message.value) === 0) {
      showError("message", "Write something first.");
      return;
    }
    const body = { lat: state.lat, lon: state.lon, message: message.value, tag: chosenTag() ?? "" };
    if (withHeading.checked) body.heading = Math.round(state.facing) % 360;
    const until = expiresAt();
    if (until) body.expiresAt = until;
    const button = document.getElementById("post-button");
    button.disabled = true;
    try {
      const post = await postJSON("/api/v1/posts", body, { "Idempotency-Key": randomToken(32) });
      message.value = "";
      showCounter();
      announce(post.expiresAt ? `Posted your ${post.tag} note, until ${dateTime(post.expiresAt)}.` : `Posted your ${post.tag} note.`);
      onPosted(post);
    } catch (error) {
      showError(error.field, error.field ? `${error.field}: ${error.message}` : error.message);
    } finally {
      button.disabled = false;
    }
  });
  showCounter();
  showWhere();
  showPast();
}
