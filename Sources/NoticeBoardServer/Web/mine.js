// "My notes": the notes and replies made with this device's key (GET /api/v1/me/posts and
// /api/v1/me/replies, newest first), each note with its likes and replies, and whether it was
// taken down (its lifetime ended) or hidden by moderators for review; each reply with the note it
// answers. Loaded only while the view is open.
import { getJSON } from "./api.js";
import { humanError } from "./errors.js";
import { markLanguage, number, t } from "./i18n.js";
import { agoElement, noteItem, shortDateTime } from "./render.js";
import { noteActions, remember } from "./reactions.js";
import { state, update, announce } from "./state.js";

const posts = document.getElementById("mine-posts");
const replies = document.getElementById("mine-replies");
const empty = document.getElementById("mine-empty");
const repliesEmpty = document.getElementById("mine-replies-empty");
const morePosts = document.getElementById("mine-more-posts");
const moreReplies = document.getElementById("mine-more-replies");
let cursors = { posts: null, replies: null };
let generation = 0;
let openNote = () => {};

const expired = (post) => post.expiresAt && Date.parse(post.expiresAt) <= Date.now();

function badge(className, text) {
  const element = document.createElement("span");
  element.className = `badge ${className}`;
  element.textContent = text;
  return element;
}

/** A note of mine: as elsewhere with its actions while it is on the board; taken down or hidden,
 *  its counts in words and a button to read its replies (likes and replies are closed then). */
function myNote(post) {
  const item = noteItem(post);
  item.dataset.status = post.status ?? "visible";
  const badges = document.createElement("p");
  badges.className = "badges";
  if (post.status === "hidden") badges.append(badge("hidden-note", t("mine.hidden")));
  if (expired(post)) badges.append(badge("expired", t("mine.expired", { when: shortDateTime(post.expiresAt) })));
  if (badges.childElementCount) item.append(badges);
  if (post.status !== "hidden" && !expired(post)) {
    item.append(noteActions(remember(post)));
    return item;
  }
  const counts = document.createElement("p");
  counts.className = "counts";
  counts.textContent = t("mine.counts", { likes: number(post.likeCount ?? 0), replies: number(post.replyCount ?? 0) });
  const read = document.createElement("button");
  read.type = "button";
  read.className = "secondary";
  read.textContent = t("mine.readReplies");
  read.addEventListener("click", () => openNote(post, read));
  item.append(counts, read);
  return item;
}

function myReply(reply) {
  const item = document.createElement("li");
  item.className = "note reply-mine";
  item.dataset.id = String(reply.id);
  const on = document.createElement("p");
  on.className = "reply-on";
  const link = document.createElement("a");
  link.href = `#/note/${reply.postId}`;
  link.textContent = t("mine.onNote", { id: reply.postId });
  on.append(agoElement(reply.createdAt), " · ", link);
  const message = document.createElement("p");
  message.className = "message";
  message.textContent = reply.message;
  markLanguage(message, reply.message);
  item.append(on, message);
  return item;
}

/** Loads the view (or the next page of one of its lists). */
export async function loadMine(which = null) {
  const request = ++generation;
  const wanted = which ? [which] : ["posts", "replies"];
  try {
    const [postPage, replyPage] = await Promise.all([
      wanted.includes("posts") ? getJSON("/api/v1/me/posts", { limit: 20, cursor: which ? cursors.posts : null }) : null,
      wanted.includes("replies") ? getJSON("/api/v1/me/replies", { limit: 20, cursor: which ? cursors.replies : null }) : null,
    ]);
    if (request !== generation) return;
    if (postPage) {
      if (!which) posts.replaceChildren();
      posts.append(...postPage.posts.map(myNote));
      cursors.posts = postPage.nextCursor;
      morePosts.hidden = !postPage.nextCursor;
    }
    if (replyPage) {
      if (!which) replies.replaceChildren();
      replies.append(...replyPage.replies.map(myReply));
      cursors.replies = replyPage.nextCursor;
      moreReplies.hidden = !replyPage.nextCursor;
    }
    const count = posts.querySelectorAll("li[data-id]").length;
    empty.hidden = count > 0;
    repliesEmpty.hidden = replies.querySelectorAll("li[data-id]").length > 0;
    posts.classList.remove("stale");
    if (state.view === "mine") announce(count ? t("mine.count", { count }) : t("mine.none"));
  } catch (error) {
    if (request !== generation) return;
    posts.classList.add("stale");
    // A board without this part of the API yet says so, rather than "not found".
    if (state.view === "mine") announce(error.status === 404 ? t("mine.unavailable") : humanError(error));
  }
}

/** `open(post, opener)` opens a note's page. */
export function setUpMine(open) {
  openNote = open;
  morePosts.addEventListener("click", () => loadMine("posts"));
  moreReplies.addEventListener("click", () => loadMine("replies"));
  document.getElementById("mine-post-first").addEventListener("click", () => update({ view: "post" }));
  // Opening the view (and a new language) loads it: app.js's refreshView, through mine-loader.js.
}
