// Posting a note: message (counted in Unicode scalars, as the server counts), a tag chip or a
// custom tag, how long it stays (a lifetime, sent as `expiresAt`), the position from geolocation
// or a map click, and the facing direction when asked. Errors from the API appear next to the
// field they name. Looking at the past, the form says the note goes on the board of now.
import { postJSON } from "./api.js";
import { randomToken } from "./device.js";
import { humanError } from "./errors.js";
import { degreesText, number, t, onLanguage } from "./i18n.js";
import { dateTime, tagName } from "./render.js";
import { pastText } from "./past.js";
import { onPlaceShown, placeHere } from "./places.js";
import { keepForLater, onDelivered, unreachable } from "./outbox.js";
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
    pastNotice.textContent = t("compose.past", { when: pastText(state.asOf) });
  }
}

// What each line says, as a function of the page's language, so a new language says it again.
const said = new Map(); // line → () => text
const doneLine = document.getElementById("compose-done");

function say(line, words) {
  said.set(line, words);
  line.textContent = words();
}

function clearErrors() {
  Object.values(errorLines).forEach((line) => { line.textContent = ""; said.delete(line); });
  doneLine.textContent = "";
  said.delete(doneLine);
  Object.values(fieldInputs).forEach((input) => input.removeAttribute("aria-invalid"));
}

function showError(field, words) {
  const key = field === "message" || field === "tag" ? field : ["lat", "lon", "floor", "accuracy", "beacon"].includes(field) ? "location" : "other";
  say(errorLines[key], words);
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
  counter.textContent = `${number(count, { useGrouping: false })} / ${number(2000, { useGrouping: false })}`;
  counter.classList.toggle("over", count > 2000);
}

function showWhere() {
  // Without a compass there is no direction to record: 0° (north) would be a guess, so none is sent.
  withHeading.disabled = !state.compassActive;
  if (!state.compassActive) withHeading.checked = false;
  headingHint.textContent = state.compassActive ? "" : t("compose.noCompass");
  if (!hasPosition()) {
    whereLine.textContent = t("compose.noPosition");
    return;
  }
  // The place's name says where better than coordinates; these stay in the line's title.
  const place = placeHere();
  const base = { hand: "compose.whereHand", link: "compose.whereLink" }[state.source] ?? "compose.whereDevice";
  const facing = withHeading.checked ? t("compose.facing", { degrees: degreesText(state.facing) }) : "";
  whereLine.textContent = t(place ? `${base}Place` : base, { place: place?.name, facing });
  whereLine.title = `${state.lat.toFixed(5)}, ${state.lon.toFixed(5)}`;
}

function chosenTag() {
  const picked = form.querySelector("input[name=tag]:checked")?.value;
  return picked === "custom" ? customTag.value : picked;
}
const headingHint = document.getElementById("heading-hint");

/** A fresh note starts fresh: the message and a typed tag are cleared, the first tag and no end chosen. */
function clearForm() {
  message.value = "";
  customTag.value = "";
  form.querySelector("input[name=tag]").checked = true;
  form.querySelector("input[name=lifetime][value=never]").checked = true;
  showCounter();
}

/** The server's rule for a tag (trimmed, lower-cased: 1 to 80 letters with their marks, digits, space, - and _),
 *  checked before sending so a typo is said at once, offline too. */
function validTag(raw) {
  const tag = raw.trim().toLowerCase();
  const length = [...tag].length;
  return length >= 1 && length <= 80 && /^[\p{L}\p{M}\p{Nd} _-]+$/u.test(tag);
}

export function setUpCompose(onPosted) {
  message.addEventListener("input", showCounter);
  // Enter in the one-line tag box chooses the tag; it does not post the note half written.
  customTag.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    if (customTag.value.trim()) form.querySelector("input[value=custom]").checked = true;
  });
  onPlaceShown(showWhere);
  // "Kept on this phone" is no longer true once it went out: the outbox's line says when it did.
  onDelivered(() => {
    if (said.get(doneLine)?.() === t("compose.queued")) {
      said.delete(doneLine);
      doneLine.textContent = "";
    }
  });
  // Typing a tag chooses "other"; merely passing through the box with Tab changes nothing.
  customTag.addEventListener("input", () => {
    if (customTag.value.trim()) form.querySelector("input[value=custom]").checked = true;
  });
  withHeading.addEventListener("change", showWhere);
  onChange((changed) => {
    if (changed.has("compassActive") && state.compassActive) withHeading.checked = true;
    if (["lat", "lon", "facing", "compassActive", "source"].some((key) => changed.has(key))) showWhere();
    // Looking at the past, the form says at once that a note goes on the board of now.
    if (changed.has("asOf")) showPast();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    announce(""); // an earlier "Posted…" must not stand beside this attempt's outcome
    if (!hasPosition()) {
      showError("lat", () => t("compose.needPosition"));
      return;
    }
    if (countScalars(message.value) === 0) {
      showError("message", () => t("compose.empty"));
      return;
    }
    if (countScalars(message.value) > 2000) {
      showError("message", () => t("error.field.message"));
      return;
    }
    if (form.querySelector("input[name=tag]:checked")?.value === "custom" && !customTag.value.trim()) {
      showError("tag", () => t("compose.needTag"));
      return;
    }
    if (form.querySelector("input[name=tag]:checked")?.value === "custom" && !validTag(customTag.value)) {
      showError("tag", () => t("error.field.tag"));
      return;
    }
    const body = { lat: state.lat, lon: state.lon, message: message.value, tag: chosenTag() ?? "" };
    if (withHeading.checked && state.compassActive) body.heading = Math.round(state.facing) % 360;
    const until = expiresAt();
    if (until) body.expiresAt = until;
    const button = document.getElementById("post-button");
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    // The key is the note's from its writing: sent now or kept for later, the board makes it once.
    const key = randomToken(32);
    const keep = () => {
      keepForLater(body, key, { place: placeHere()?.name ?? null });
      clearForm();
      const queued = () => t("compose.queued");
      announce(queued());
      say(doneLine, queued);
      doneLine.focus();
    };
    if (navigator.onLine === false) {
      keep();
      button.removeAttribute("aria-disabled");
      return;
    }
    try {
      const post = await postJSON("/api/v1/posts", body, { "Idempotency-Key": key });
      clearForm();
      const posted = () => (post.expiresAt
        ? t("compose.postedUntil", { tag: tagName(post.tag), until: dateTime(post.expiresAt) }) : t("compose.posted", { tag: tagName(post.tag) }));
      announce(posted());
      // Said beside the button too: on a phone the status line is scrolled away above.
      say(doneLine, posted);
      doneLine.scrollIntoView({ block: "center" });
      doneLine.focus(); // the focus stays by the button, on the words saying it went out
      onPosted(post);
    } catch (error) {
      if (unreachable(error)) keep();
      else showError(error.field, () => humanError(error, "posts"));
    } finally {
      button.removeAttribute("aria-disabled");
    }
  });
  onLanguage(() => {
    showCounter();
    showWhere();
    showPast();
    for (const [line, words] of said) line.textContent = words();
  });
  showCounter();
  showWhere();
  showPast();
}
