// What people do to a note: like it (a toggle with its count), open its replies, and delete
// their own. A note can be shown in several places at once (the list, a map popup, the thread),
// so the counts live here, one record per note, and every control of a note follows it.
// Looking at the past (`asOf`), the counts are shown as text: nothing is liked from there.
import { request } from "./api.js";
import { humanError } from "./errors.js";
import { number, t } from "./i18n.js";
import { icon } from "./render.js";
import { announce, inThePast } from "./state.js";

const known = new Map(); // id → the latest post object seen, with likeCount, likedByMe, replyCount, mine
const confirmed = new Map(); // id → {likeCount, likedByMe} as the server last said
const wishes = new Map(); // id → the number of the latest like/unlike asked for
const queues = new Map(); // id → the like requests in flight, one after another
const countedReplies = new Set(); // reply ids already counted (a reply posted here also arrives live)
const deleting = new Set(); // notes this page is deleting: their card says "Deleted" itself
const FEEDBACK_SECONDS = 6;
let hooks = { openThread: () => {}, gone: () => {} };

/** `openThread(post, opener)` opens a thread; `gone(id)` takes a note away from every view. */
export function setUpReactions(handlers) {
  hooks = { ...hooks, ...handlers };
}

/** Keeps the latest state of a note (from any response) and redraws its controls. */
export function remember(post) {
  const previous = known.get(post.id);
  const merged = { ...previous, ...post };
  // A post from a request without a key (the live stream) knows nothing of this device.
  if (post.likedByMe === undefined && previous) merged.likedByMe = previous.likedByMe;
  if (post.mine === undefined && previous) merged.mine = previous.mine;
  known.set(post.id, merged);
  if (!queues.has(post.id)) confirmed.set(post.id, { likeCount: merged.likeCount ?? 0, likedByMe: Boolean(merged.likedByMe) });
  refresh(post.id);
  return merged;
}

export const knownPost = (id) => known.get(id) ?? null;

/** Whether this page is deleting the note (the live "remove" may come before the answer). */
export const deletingHere = (id) => deleting.has(id);


function controls(id, selectors) {
  return document.querySelectorAll(selectors.split(",").map((selector) => `${selector.trim()}[data-post-id="${id}"]`).join(", "));
}

/** Redraws every like and replies control of a note from what is known of it. */
function refresh(id) {
  const post = known.get(id);
  if (!post) return;
  for (const element of controls(id, ".like, .like-count, .replies")) fillControl(element, post);
}

/** The like toggle (live board) or the like count as text (the past). */
export function likeControl(post) {
  const count = document.createElement("span");
  count.className = "count";
  const unit = document.createElement("span");
  unit.className = "unit visually-hidden";
  if (inThePast()) {
    const text = document.createElement("span");
    text.className = "like-count";
    text.dataset.postId = String(post.id);
    text.append(icon("heart"), count, unit);
    fillControl(text, known.get(post.id) ?? post);
    return text;
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "like";
  button.dataset.postId = String(post.id);
  const label = document.createElement("span");
  label.className = "visually-hidden";
  label.textContent = t("like.label");
  button.append(icon("heart"), label, count, unit);
  button.addEventListener("click", () => toggleLike(post.id));
  fillControl(button, known.get(post.id) ?? post);
  return button;
}

function repliesButton(post) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "replies";
  button.dataset.postId = String(post.id);
  button.setAttribute("aria-haspopup", "dialog");
  const label = document.createElement("span");
  label.className = "label";
  button.append(icon("reply"), label);
  button.addEventListener("click", () => hooks.openThread(known.get(post.id) ?? post, button));
  fillControl(button, known.get(post.id) ?? post);
  return button;
}

function deleteButton(post, row) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "delete";
  button.append(icon("bin"), t("delete.button"));
  button.setAttribute("aria-label", t("delete.label"));
  button.addEventListener("click", () => askDelete(post.id, row, button));
  return button;
}

/** A note's row of actions: like, replies, and delete on this device's own notes (live board only). */
export function noteActions(post) {
  remember(post);
  const row = document.createElement("div");
  row.className = "note-actions";
  row.dataset.postId = String(post.id);
  const buttons = document.createElement("div");
  buttons.className = "buttons";
  buttons.append(likeControl(post), repliesButton(post));
  if (post.mine && !inThePast()) buttons.append(deleteButton(post, row));
  const error = document.createElement("p");
  error.className = "note-error";
  error.dataset.postId = String(post.id);
  error.setAttribute("role", "alert");
  row.append(buttons, error);
  return row;
}

function fillControl(element, post) {
  const likes = post.likeCount ?? 0;
  if (element.classList.contains("replies")) {
    const count = post.replyCount ?? 0;
    // Nobody replies from the past: there it only opens the note to read.
    const none = inThePast() ? t("replies.none") : t("replies.reply");
    element.querySelector(".label").textContent = count === 0 ? none : t("replies.count", { count });
    return;
  }
  element.querySelector(".count").textContent = number(likes);
  element.querySelector(".unit").textContent = t("like.unit", { count: likes });
  if (element.classList.contains("like")) element.setAttribute("aria-pressed", String(Boolean(post.likedByMe)));
}

/** Says what went wrong next to every copy of the note's controls (empty text clears it). */
export function showNoteError(id, text) {
  for (const line of controls(id, ".note-error")) line.textContent = text;
}

/** Why a request on a note failed, in words; a vanished note is taken off the board. */
export function failure(id, error, action) {
  if (error.status === 404) {
    noteVanished(id);
    return t("error.notFound");
  }
  return humanError(error, action);
}

async function toggleLike(id) {
  const post = known.get(id);
  if (!post) return;
  const like = !post.likedByMe;
  const wish = (wishes.get(id) ?? 0) + 1;
  wishes.set(id, wish);
  // Shown at once; the server's answer settles the count.
  known.set(id, { ...post, likedByMe: like, likeCount: Math.max(0, (post.likeCount ?? 0) + (like ? 1 : -1)) });
  refresh(id);
  showNoteError(id, "");
  const previous = queues.get(id) ?? Promise.resolve();
  const next = previous.then(async () => {
    try {
      const result = await request(like ? "PUT" : "DELETE", `/api/v1/posts/${id}/like`);
      confirmed.set(id, result);
      if (wishes.get(id) === wish && known.has(id)) {
        known.set(id, { ...known.get(id), ...result });
        refresh(id);
      }
    } catch (error) {
      const settled = confirmed.get(id);
      if (wishes.get(id) === wish && settled && known.has(id)) {
        known.set(id, { ...known.get(id), ...settled });
        refresh(id);
      }
      showNoteError(id, failure(id, error, "likes"));
    }
  });
  queues.set(id, next);
  await next;
  if (queues.get(id) === next) queues.delete(id);
}

/** A reply that appeared (posted here or live): counted once for its note. */
export function replyAdded(reply) {
  if (countedReplies.has(reply.id)) return;
  countedReplies.add(reply.id);
  const post = known.get(reply.postId);
  if (!post) return;
  known.set(reply.postId, { ...post, replyCount: (post.replyCount ?? 0) + 1 });
  refresh(reply.postId);
}

/** A reply hidden or deleted (live): its note's count is the server's, and a restored reply counts again. */
export function replyRemoved(removal) {
  countedReplies.delete(removal.id);
  const post = known.get(removal.postId);
  if (!post || !Number.isInteger(removal.replyCount)) return;
  known.set(removal.postId, { ...post, replyCount: removal.replyCount });
  refresh(removal.postId);
}

/** Replies the thread has loaded are counted already in the note's replyCount. */
export function repliesSeen(replies) {
  replies.forEach((reply) => countedReplies.add(reply.id));
}

// Deleting your own note: asked once more in place, then gone with a word of feedback.

function askDelete(id, row, button) {
  const buttons = row.querySelector(".buttons");
  const question = document.createElement("div");
  question.className = "confirm";
  question.setAttribute("role", "group");
  question.setAttribute("aria-label", t("delete.question"));
  const text = document.createElement("p");
  text.textContent = t("delete.confirmText");
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "delete confirm-delete";
  yes.textContent = t("delete.button");
  const no = document.createElement("button");
  no.type = "button";
  no.className = "secondary";
  no.textContent = t("delete.keep");
  question.append(text, yes, no);
  buttons.hidden = true;
  row.insertBefore(question, buttons);
  no.addEventListener("click", () => {
    question.remove();
    buttons.hidden = false;
    button.focus();
  });
  yes.addEventListener("click", async () => {
    yes.disabled = true;
    no.disabled = true;
    deleting.add(id);
    try {
      await request("DELETE", `/api/v1/posts/${id}`);
      deleted(id, row);
    } catch (error) {
      deleting.delete(id);
      question.remove();
      buttons.hidden = false;
      button.focus();
      showNoteError(id, error.status === 403 ? t("delete.forbidden") : failure(id, error, "requests"));
    }
  });
  no.focus();
}

/** The note's card says "Deleted" for a few seconds; every other view drops it at once. */
function deleted(id, row) {
  const item = row.closest("li.note, .note");
  known.delete(id);
  if (item) {
    delete item.dataset.id; // the live "remove" that follows leaves the feedback alone
    item.classList.add("deleted");
    const feedback = document.createElement("p");
    feedback.className = "feedback";
    feedback.setAttribute("role", "status");
    feedback.textContent = t("delete.done");
    item.replaceChildren(feedback);
    setTimeout(() => item.remove(), FEEDBACK_SECONDS * 1000);
  }
  announce(t("delete.announced"));
  deleting.delete(id);
  hooks.gone(id);
}

/** A note that answered 404: greyed out with its controls off, then taken away. */
function noteVanished(id) {
  known.delete(id);
  for (const row of controls(id, ".note-actions")) {
    row.querySelectorAll("button").forEach((button) => { button.disabled = true; });
    const item = row.closest("#posts li.note");
    if (item) {
      delete item.dataset.id;
      item.classList.add("gone");
      setTimeout(() => item.remove(), FEEDBACK_SECONDS * 1000);
    }
  }
  hooks.gone(id);
}
