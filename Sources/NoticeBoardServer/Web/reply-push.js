// "Tell me when someone replies" in My notes: a Web Push subscription for replies to this device's
// notes (POST /api/v1/push/subscriptions with {"subscription", "replies": true} and the device's
// key), kept per device like the area's; it shares the browser's push subscription with "Notify me".
import { humanError } from "./errors.js";
import { onLanguage, t } from "./i18n.js";
import {
  browserSubscription, createSubscription, deleteSubscription, releaseBrowserSubscription, sharesBrowserSubscription, supported,
} from "./push.js";
import { announce } from "./state.js";

const STORAGE_KEY = "noticeboard-push-replies";
const start = document.getElementById("replies-notify-on");
const on = document.getElementById("replies-notify-state");
const stop = document.getElementById("replies-notify-stop");
const progress = document.getElementById("replies-notify-progress");
const problem = document.getElementById("replies-notify-problem");
let problemWords = null; // () => text, said again in another language
let progressKey = null;
let slowTimer = null;

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null");
    return value && Number.isInteger(value.id) ? value : null;
  } catch {
    return null;
  }
}

let current = stored();
const inUse = () => Boolean(current);

function store(value) {
  try {
    if (value) localStorage.setItem(STORAGE_KEY, JSON.stringify(value));
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Kept for this page only.
  }
  current = value;
}

function say(words) {
  problemWords = words;
  problem.textContent = words ? words() : "";
  problem.hidden = !words;
}

function sayProgress(key) {
  progressKey = key;
  progress.textContent = key ? t(key) : "";
}

function busy(value) {
  start.disabled = value;
  stop.disabled = value;
  clearTimeout(slowTimer);
  if (value) {
    sayProgress("notify.working");
    slowTimer = setTimeout(() => sayProgress("notify.slow"), 3000);
  } else {
    sayProgress(null);
  }
}

function render() {
  start.hidden = Boolean(current);
  on.hidden = !current;
}

async function turnOn() {
  say(null);
  if (!supported()) {
    say(() => t("notify.unsupported"));
    return;
  }
  if (Notification.permission === "denied") {
    say(() => t("notify.denied"));
    return;
  }
  busy(true);
  let made = false;
  try {
    const got = await browserSubscription();
    made = got.made;
    const body = { subscription: got.subscription.toJSON(), replies: true };
    const { id } = await createSubscription(body);
    store({ id });
    render();
    announce(t("mine.notifyTurnedOn"));
    on.focus();
  } catch (error) {
    if (made) releaseBrowserSubscription(inUse).catch(() => {});
    if (error?.status) say(() => humanError(error));
    else if (error?.name === "NotAllowedError") say(() => t(error.permission === "default" ? "notify.notAllowed" : "notify.denied"));
    else if (error?.name === "TimeoutError") say(() => t("notify.noAnswer"));
    else say(() => t("notify.failed"));
  } finally {
    busy(false);
  }
}

async function turnOff() {
  if (!current) return;
  say(null);
  busy(true);
  try {
    await deleteSubscription(current.id);
    store(null);
    await releaseBrowserSubscription(inUse);
    render();
    announce(t("mine.notifyStopped"));
  } catch (error) {
    say(() => humanError(error));
  } finally {
    busy(false);
  }
  if (!current) start.focus();
}

export function setUpReplyPush() {
  if (!start) return;
  sharesBrowserSubscription(inUse);
  start.addEventListener("click", turnOn);
  stop.addEventListener("click", turnOff);
  onLanguage(() => {
    if (problemWords) problem.textContent = problemWords();
    if (progressKey) progress.textContent = t(progressKey);
  });
  render();
}
