// A note's thread: the note, its replies oldest first (a page at a time, "More replies"), and
// a box to reply. It opens over the view it was asked from (a dialog: full screen on a phone)
// and gives the focus back there when closed. Replies are text, never HTML; the note's
// author's replies carry an "author" badge. Looking at the past, the thread is read-only.
import { getJSON, postJSON, request } from "./api.js";
import { randomToken } from "./device.js";
import { humanError } from "./errors.js";
import { markLanguage, number, t, onLanguage } from "./i18n.js";
import { agoElement, noteContent, refreshTimes } from "./render.js";
import { pastText } from "./past.js";
import { failure, knownPost, likeControl, remember, repliesSeen, replyAdded, replyRemoved } from "./reactions.js";
import { state, update, inThePast } from "./state.js";

const PAGE = 20;
const dialog = document.getElementById("thread");
const noteBox = document.getElementById("thread-note");
const list = document.getElementById("replies");
const empty = document.getElementById("replies-empty");
const more = document.getElementById("replies-more");
const loadError = document.getElementById("replies-error");
const form = document.getElementById("reply-form");
const box = document.getElementById("reply-message");
const counter = document.getElementById("reply-counter");
const replyError = document.getElementById("reply-error");
const pastNote = document.getElementById("thread-past");
const sendButton = document.getElementById("reply-send");

// What each line says, as a function of the page's language, so a new language says it again.
const said = new Map(); // element → () => text
function say(element, words) {
  if (words) said.set(element, words);
  else said.delete(element);
  element.textContent = words ? words() : "";
}

let current = null; // {id, cursor, shown: Set of reply ids, opener, loading}
let generation = 0;

const countScalars = (text) => [...text.trim()].length;

function replyItem(reply) {
  const item = document.createElement("li");
  item.className = "reply";
  item.dataset.id = String(reply.id);
  item.reply = reply; // drawn again in another language
  if (reply.mine !== undefined) item.dataset.mine = String(reply.mine);
  const meta = document.createElement("p");
  meta.className = "reply-meta";
  // Relative, as the notes' times are ("5 min ago"), the full date in its title.
  meta.append(agoElement(reply.createdAt));
  if (reply.byAuthor) {
    const badge = document.createElement("span");
    badge.className = "badge author";
    badge.textContent = t("thread.author");
    badge.title = t("thread.authorTitle");
    meta.append(" ", badge);
  }
  if (reply.mine) {
    const badge = document.createElement("span");
    badge.className = "badge you";
    badge.textContent = t("thread.you");
    meta.append(" ", badge);
  }
  const message = document.createElement("p");
  message.className = "message";
  message.textContent = reply.message;
  markLanguage(message, reply.message);
  item.append(meta, message);
  return item;
}

function showEmpty() {
  empty.hidden = list.children.length > 0 || current?.loading || Boolean(current?.cursor);
}

/** Adds replies not shown yet, keeping oldest-first order by time then id. */
function addReplies(replies, { fresh = false } = {}) {
  for (const reply of replies) {
    if (current.shown.has(reply.id)) {
      // The live copy came first; this one (the POST's answer, a page read with the key) knows
      // whether the reply is this device's.
      const shown = list.querySelector(`[data-id="${reply.id}"]`);
      if (shown && reply.mine !== undefined && shown.dataset.mine === undefined) shown.replaceWith(replyItem(reply));
      continue;
    }
    current.shown.add(reply.id);
    const item = replyItem(reply);
    if (fresh) item.classList.add("fresh");
    const key = (element) => [Date.parse(element.querySelector("time").dateTime), Number(element.dataset.id)];
    const [time, id] = [Date.parse(reply.createdAt), reply.id];
    const after = [...list.children].find((child) => {
      const [childTime, childId] = key(child);
      return childTime > time || (childTime === time && childId > id);
    });
    list.insertBefore(item, after ?? null);
  }
  showEmpty();
}

async function loadReplies() {
  if (!current) return;
  const request = ++generation;
  const { id } = current;
  current.loading = true;
  more.disabled = true;
  say(loadError, null);
  try {
    const page = await getJSON(`/api/v1/posts/${id}/replies`, { limit: PAGE, cursor: current.cursor });
    if (request !== generation || current?.id !== id) return;
    repliesSeen(page.replies);
    current.cursor = page.nextCursor;
    current.loading = false;
    addReplies(page.replies);
  } catch (error) {
    if (request !== generation || current?.id !== id) return;
    current.loading = false;
    say(loadError, () => failure(id, error, "requests"));
    if (error.status === 404) noteGone();
  } finally {
    if (request === generation && current?.id === id) {
      more.hidden = !current.cursor;
      more.disabled = false;
      showEmpty();
    }
  }
}

function noteGone() {
  form.hidden = true;
  more.hidden = true;
}

function showCounter() {
  const count = countScalars(box.value);
  counter.textContent = `${number(count, { useGrouping: false })} / ${number(2000, { useGrouping: false })}`;
  counter.classList.toggle("over", count > 2000);
}

function pastLine() {
  return t("thread.past", { when: pastText(state.asOf) });
}

/** Opens the thread of `post`, from `opener` (which gets the focus back on close). */
export function openThread(post, opener) {
  const known = knownPost(post.id) ?? remember(post);
  current = { id: post.id, cursor: null, shown: new Set(), opener, loading: true };
  noteBox.replaceChildren(noteContent(known, known.distance !== undefined ? known : undefined));
  const likes = document.createElement("div");
  likes.className = "note-actions";
  const buttons = document.createElement("div");
  buttons.className = "buttons";
  buttons.append(likeControl(known));
  likes.append(buttons);
  const error = document.createElement("p");
  error.className = "note-error";
  error.dataset.postId = String(known.id);
  error.setAttribute("role", "alert");
  likes.append(error);
  noteBox.append(likes);
  list.replaceChildren();
  empty.hidden = true;
  more.hidden = true;
  say(loadError, null);
  say(replyError, null);
  box.removeAttribute("aria-invalid");
  form.hidden = inThePast();
  pastNote.hidden = !inThePast();
  if (inThePast()) pastNote.querySelector("span").textContent = pastLine();
  resetTools();
  // The note's own link stands in the address bar while it is open.
  if (location.hash !== `#/note/${post.id}`) history.replaceState(history.state, "", `${location.pathname}${location.search}#/note/${post.id}`);
  if (!dialog.open) dialog.showModal();
  dialog.querySelector(".thread-body").scrollTop = 0;
  loadReplies();
}

export const openNoteId = () => current?.id ?? null;

// Sharing and reporting the open note: its own link (#/note/ID), through the system's share
// sheet where there is one, else copied, else shown to copy by hand; a report with a reason.
const shareButton = document.getElementById("share-note");
const shareStatus = document.getElementById("share-status");
const shareFallback = document.getElementById("share-fallback");
const shareLink = document.getElementById("share-link");
const reportButton = document.getElementById("report-note");
const reportForm = document.getElementById("report-form");
const reportError = document.getElementById("report-error");

export const noteURL = (id) => `${location.origin}/#/note/${id}`;

function resetTools() {
  shareStatus.textContent = "";
  shareFallback.hidden = true;
  reportForm.hidden = true;
  reportButton.setAttribute("aria-expanded", "false");
  reportButton.disabled = inThePast();
  reportError.textContent = "";
  reportForm.reset();
}

async function share() {
  if (!current) return;
  const url = noteURL(current.id);
  const post = knownPost(current.id);
  if (navigator.share) {
    try {
      await navigator.share({ title: t("share.title"), text: post ? [...post.message].slice(0, 100).join("") : "", url });
      return;
    } catch (error) {
      if (error.name === "AbortError") return; // the person closed the share sheet
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    shareStatus.textContent = t("share.copied");
    shareFallback.hidden = true;
  } catch {
    // No clipboard (permission, an old browser): the link is shown, selected, to copy by hand.
    shareLink.value = url;
    shareFallback.hidden = false;
    shareLink.focus();
    shareLink.select();
    shareStatus.textContent = t("share.manual");
  }
}

async function sendReport(event) {
  event.preventDefault();
  if (!current) return;
  const { id } = current;
  const choice = reportForm.querySelector("input[name=reason]:checked")?.value ?? "other";
  const detail = document.getElementById("report-detail").value.trim();
  if (choice === "other" && !detail) {
    reportError.textContent = t("report.needDetail");
    document.getElementById("report-detail").focus();
    return;
  }
  // Moderators read the reason: the chosen words in English (their working language) and the person's own.
  const reason = [t(`report.reasonFor.${choice}`), detail].filter(Boolean).join(": ").slice(0, 500);
  const send = document.getElementById("report-send");
  send.disabled = true;
  reportError.textContent = "";
  try {
    const answer = await request("POST", `/api/v1/posts/${id}/reports`, { body: { reason }, raw: true });
    if (current?.id !== id) return;
    reportForm.hidden = true;
    reportButton.setAttribute("aria-expanded", "false");
    reportButton.disabled = true;
    shareStatus.textContent = answer === 200 ? t("report.again") : t("report.thanks");
    reportButton.focus();
  } catch (error) {
    reportError.textContent = error.status === 404 ? failure(id, error, "reports") : humanError(error, "reports");
  } finally {
    send.disabled = false;
  }
}

/** A reply heard live: counted on its note, and shown when its thread is open. */
export function replyArrived(reply) {
  replyAdded(reply);
  if (current && current.id === reply.postId) addReplies([reply], { fresh: true });
}

/** A reply hidden or deleted by a moderator (live): it leaves the open thread at once. */
export function replyGone(removal) {
  replyRemoved(removal);
  if (!current || current.id !== removal.postId) return;
  current.shown.delete(removal.id);
  list.querySelector(`[data-id="${removal.id}"]`)?.remove();
  showEmpty();
}

/** A note that left the board (hidden, deleted, expired): its open thread says so. */
export function threadNoteGone(id) {
  if (!current || current.id !== id) return;
  say(loadError, () => t("error.notFound"));
  noteGone();
}

async function sendReply(event) {
  event.preventDefault();
  if (!current) return;
  say(replyError, null);
  say(document.getElementById("thread-status"), null); // an earlier "Reply posted." must not stand beside this attempt's outcome
  box.removeAttribute("aria-invalid");
  const count = countScalars(box.value);
  if (count === 0 || count > 2000) {
    say(replyError, count === 0 ? () => t("compose.empty") : () => t("error.field.reply"));
    box.setAttribute("aria-invalid", "true");
    box.focus();
    return;
  }
  const { id } = current;
  sendButton.disabled = true;
  try {
    const reply = await postJSON(`/api/v1/posts/${id}/replies`, { message: box.value }, { "Idempotency-Key": randomToken(32) });
    box.value = "";
    showCounter();
    replyAdded(reply);
    if (current?.id === id) {
      addReplies([reply], { fresh: true });
      list.querySelector(`[data-id="${reply.id}"]`)?.scrollIntoView({ block: "nearest" });
      say(replyError, null);
      say(document.getElementById("thread-status"), () => t("thread.posted"));
    }
  } catch (error) {
    if (error.field === "message") {
      say(replyError, () => t("error.field.reply"));
      box.setAttribute("aria-invalid", "true");
      box.focus();
    } else {
      say(replyError, error.status === 429 ? () => humanError(error, "posts") : () => failure(id, error, "requests"));
      if (error.status === 404) noteGone();
    }
  } finally {
    sendButton.disabled = false;
  }
}

export function setUpThread() {
  document.getElementById("thread-close").addEventListener("click", () => dialog.close());
  // "Reply posted." is about the reply: it goes once the person turns to something else.
  const replyNewsDone = () => say(document.getElementById("thread-status"), null);
  shareButton.addEventListener("click", replyNewsDone);
  reportButton.addEventListener("click", replyNewsDone);
  shareButton.addEventListener("click", share);
  reportButton.addEventListener("click", () => {
    const open = reportForm.hidden;
    reportForm.hidden = !open;
    reportButton.setAttribute("aria-expanded", String(open));
    if (open) reportForm.querySelector("input[name=reason]:checked")?.focus();
  });
  reportForm.addEventListener("submit", sendReport);
  onLanguage(() => {
    showCounter();
    if (!current) return;
    const known = knownPost(current.id);
    if (known) noteBox.querySelector(".note-title")?.replaceWith(noteContent(known, known.distance !== undefined ? known : undefined).firstChild);
    if (inThePast()) pastNote.querySelector("span").textContent = pastLine();
    for (const item of list.querySelectorAll("li[data-id]")) {
      if (!item.reply) continue;
      const again = replyItem(item.reply);
      again.className = item.className;
      item.replaceWith(again);
    }
    for (const [element, words] of said) element.textContent = words();
    refreshTimes(dialog);
  });
  more.addEventListener("click", loadReplies);
  box.addEventListener("input", () => {
    showCounter();
    say(document.getElementById("thread-status"), null);
  });
  form.addEventListener("submit", sendReply);
  document.getElementById("thread-now").addEventListener("click", () => {
    const post = current && knownPost(current.id);
    const opener = current?.opener;
    update({ asOf: null });
    if (post) openThread(post, opener); // again, live: with the reply box
  });
  dialog.addEventListener("close", () => {
    const opener = current?.opener;
    current = null;
    generation += 1;
    say(document.getElementById("thread-status"), null);
    if (opener?.isConnected) opener.focus();
  });
  // A tap on the backdrop (outside the sheet) closes it, as people expect of a sheet.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  showCounter();
}
