// Notes written without a connection: kept on this device (localStorage) with their place, heading
// and time of writing, and sent when the connection returns, each with the Idempotency-Key it was
// given when written, so however often it is tried (a reload, two tabs, an answer lost on the way)
// the board makes it once. The person is told it is waiting, then when it went out.
import { APIError, postJSON } from "./api.js";
import { humanError } from "./errors.js";
import { degreesText, markLanguage, onLanguage, t } from "./i18n.js";
import { shortDateTime } from "./render.js";
import { announce } from "./state.js";

const STORAGE_KEY = "noticeboard-outbox";
const RETRY = 20_000; // ms between tries while notes wait and the browser says nothing
const section = document.getElementById("outbox");
const list = document.getElementById("outbox-list");
const sentLine = document.getElementById("outbox-sent");
const deliveredListeners = new Set();
let sending = false;
let retryTimer = null;
let lastSent = null; // {item, post, at}: said until the next note is written

function load() {
  try {
    const items = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(items) ? items.filter((item) => item && item.key && item.body) : [];
  } catch {
    return [];
  }
}

function save(items) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(items));
  } catch {
    // No storage: the note waits in this page only (kept in `memory`).
  }
  memory = items;
}

let memory = load();
const waiting = () => (hasStorage() ? load() : memory);

function hasStorage() {
  try {
    localStorage.setItem(`${STORAGE_KEY}-probe`, "1");
    localStorage.removeItem(`${STORAGE_KEY}-probe`);
    return true;
  } catch {
    return false;
  }
}

/** The notes waiting to go out, oldest first. */
export const waitingNotes = () => waiting();

/** `listener(post, item)` runs when a waiting note went out (the views add it). */
export function onDelivered(listener) {
  deliveredListeners.add(listener);
}

/** Whether a failed post is worth keeping for later: the board could not be reached at all. */
export function unreachable(error) {
  if (error instanceof APIError) return error.status === 502 || error.status === 503 || error.status === 504;
  return error instanceof TypeError || error?.name === "TypeError" || navigator.onLine === false;
}

/** Keeps a note to send when the connection returns; `about` is what to say of it (place, heading). */
export function keepForLater(body, key, about = {}) {
  const item = { key, body, writtenAt: new Date().toISOString(), place: about.place ?? null, failed: null };
  save([...waiting(), item]);
  lastSent = null;
  render();
  scheduleRetry();
  return item;
}

function describe(item) {
  const when = shortDateTime(item.writtenAt);
  const heading = item.body.heading === undefined || item.body.heading === null ? "" : t("outbox.facing", { degrees: degreesText(item.body.heading) });
  return item.place ? t("outbox.writtenIn", { when, place: item.place, heading }) : t("outbox.written", { when, heading });
}

function render() {
  if (!section) return;
  const items = waiting();
  section.hidden = items.length === 0 && !lastSent;
  document.getElementById("outbox-heading").hidden = items.length === 0;
  list.replaceChildren(...items.map((item) => {
    const entry = document.createElement("li");
    entry.className = "outbox-item";
    entry.dataset.key = item.key;
    const message = document.createElement("p");
    message.className = "message";
    message.textContent = item.body.message;
    markLanguage(message, item.body.message);
    const meta = document.createElement("p");
    meta.className = "meta";
    meta.textContent = item.failed ? `${describe(item)} ${item.failed}` : `${describe(item)} ${t("outbox.waiting")}`;
    const discard = document.createElement("button");
    discard.type = "button";
    discard.className = "secondary";
    discard.textContent = t("outbox.discard");
    discard.setAttribute("aria-label", t("outbox.discardLabel", { message: [...item.body.message].slice(0, 40).join("") }));
    discard.addEventListener("click", () => {
      save(waiting().filter((other) => other.key !== item.key));
      render();
      announce(t("outbox.discarded"));
      (section.querySelector(".outbox-item button") ?? document.getElementById("message"))?.focus();
    });
    entry.append(message, meta, discard);
    return entry;
  }));
  sentLine.hidden = !lastSent;
  if (lastSent) sentLine.textContent = sentText(lastSent);
}

function sentText({ item, at }) {
  return t("outbox.sent", { written: shortDateTime(item.writtenAt), sent: shortDateTime(at) });
}

function scheduleRetry() {
  clearTimeout(retryTimer);
  if (waiting().some((item) => !item.failed)) retryTimer = setTimeout(sendWaiting, RETRY);
}

/** Sends one note; true when it went out (or cannot ever, and was set aside with the reason). */
async function sendOne(item) {
  try {
    const post = await postJSON("/api/v1/posts", item.body, { "Idempotency-Key": item.key });
    // Taken off the list before anything else: it is never sent under another key.
    save(waiting().filter((other) => other.key !== item.key));
    lastSent = { item, post, at: new Date().toISOString() };
    announce(sentText(lastSent));
    deliveredListeners.forEach((listener) => listener(post, item));
    return true;
  } catch (error) {
    if (unreachable(error) || (error instanceof APIError && error.status === 429)) return false;
    // The board answered no (a lifetime that has passed, a rule broken): kept, with the reason, to discard.
    save(waiting().map((other) => (other.key === item.key ? { ...other, failed: humanError(error, "posts") } : other)));
    return true;
  }
}

/** Sends every waiting note, oldest first, one page at a time (a lock keeps two tabs from racing). */
export async function sendWaiting() {
  if (sending || waiting().every((item) => item.failed)) return;
  sending = true;
  const run = async () => {
    for (const item of waiting()) {
      if (item.failed) continue;
      if (!(await sendOne(item))) break;
    }
  };
  try {
    if (navigator.locks?.request) await navigator.locks.request(STORAGE_KEY, run);
    else await run();
  } finally {
    sending = false;
    render();
    scheduleRetry();
  }
}

export function setUpOutbox() {
  window.addEventListener("online", sendWaiting);
  // Another tab sent or kept a note: this one shows the same list.
  window.addEventListener("storage", (event) => { if (event.key === STORAGE_KEY) render(); });
  onLanguage(render);
  render();
  sendWaiting();
}
