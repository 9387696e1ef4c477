// What every part of the moderation page shares: the session's token and its calls, the status
// line (with an optional action, such as Undo, for a few seconds), and which view is shown.
import { request, query } from "../api.js";
import { t } from "../i18n.js";
import { $, button } from "./dom.js";

const status = $("#status");
const views = new Map(); // name → what showing it loads
let token = sessionStorage.getItem("noticeboard-token");
let shownView = null;
let sessionEnded = () => {};
let actionTimer = null;

export const hasSession = () => Boolean(token);

export function startSession(newToken, name) {
  token = newToken;
  sessionStorage.setItem("noticeboard-token", token);
  sessionStorage.setItem("noticeboard-moderator", name);
}

export function endSession() {
  token = null;
  shownView = null;
  sessionStorage.removeItem("noticeboard-token");
}

export function onSessionEnd(handler) { sessionEnded = handler; }

// A moderator's call: with the session's token; a 401 means the session is over.
export async function call(method, path, { params, body } = {}) {
  try {
    return await request(method, path, { params, body, headers: { Authorization: `Bearer ${token}` } });
  } catch (error) {
    if (error.status === 401 && path !== "/api/v1/auth/token") sessionEnded(t("mod.sessionEnded"));
    throw error;
  }
}

/** A moderator's download (not JSON): the response as a Blob. */
export async function fetchBlob(path, params = {}) {
  const response = await fetch(path + query(params), { headers: { Authorization: `Bearer ${token}` } });
  if (response.status === 401) sessionEnded(t("mod.sessionEnded"));
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  }
  return response.blob();
}

/**
 * Says what happened on the status line, replacing what it said before. With `action`
 * ({label, run, seconds}) a button follows the text for that many seconds.
 */
export function announce(text, { action } = {}) {
  clearTimeout(actionTimer);
  status.replaceChildren(text);
  status.classList.remove("floating");
  if (!action) return;
  const ended = () => { actionButton.remove(); status.classList.remove("floating"); };
  const actionButton = button(action.label, () => {
    clearTimeout(actionTimer);
    ended();
    action.run();
  }, "status-action");
  if (action.description) actionButton.setAttribute("aria-label", action.description);
  status.append(" ", actionButton);
  // The line sits above the lists: when the page is scrolled past it, it floats at the foot of
  // the screen while its action lasts, so an Undo is never offered out of sight.
  const { top, bottom } = status.getBoundingClientRect();
  if (bottom < 0 || top > window.innerHeight) status.classList.add("floating");
  actionTimer = setTimeout(ended, (action.seconds ?? 8) * 1000);
}

/** An announce that keeps quiet once another view is shown: a late answer leaves no stale line. */
export function announcerFor(view) {
  return (text, options) => { if (shownView === view) announce(text, options); };
}

export const currentView = () => shownView;

export function registerView(name, load) { views.set(name, load); }

/** Shows one view (its tab selected), clears what the last one said, and loads it. */
export function showView(view) {
  const changed = view !== shownView;
  shownView = view;
  document.querySelectorAll("#mod-tabs [role=tab]").forEach((tab) => {
    const selected = tab.dataset.view === view;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
  });
  if (changed) {
    announce("");
    document.querySelectorAll("[role=tabpanel] .error").forEach((line) => { line.textContent = ""; });
  }
  return views.get(view)?.();
}
