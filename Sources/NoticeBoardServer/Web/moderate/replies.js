// Replies, for moderators: each shown beside the note it answers, with the notes' own actions —
// hide (a reason is required), restore (a reason of its own, or none), delete (confirmed, with a
// reason). Two places show them, both in the Notes view: under a note ("Replies" opens them
// there), and the view's Replies side, every reply newest first, filtered by note, status,
// reports or client.
import { dateTimeText, t } from "../i18n.js";
import { $, button, cardRow, cell, element, statusCell } from "./dom.js";
import { announcerFor, call, showView } from "./desk.js";
import { askDeletion, openNote, setMode } from "./notes.js";
import { askReason } from "./reason-dialog.js";

const announce = announcerFor("notes");
const notes = new Map(); // post id → Promise of the note as moderators see it (null when it cannot be read)
let cursor = null;
let loads = 0;
let highlighted = null; // a reply id to mark (from the audit log)

/** The note a reply answers, in whatever status it is (null if it cannot be read). */
function noteOf(postId) {
  if (!notes.has(postId)) {
    notes.set(postId, call("GET", `/api/v1/moderation/posts/${postId}`).catch(() => null));
  }
  return notes.get(postId);
}

function noteExcerpt(post) {
  if (!post) return t("mod.r.noteUnknown");
  if (post.status === "deleted") return t("mod.r.noteDeleted");
  return post.status === "hidden" ? t("mod.r.noteHidden", { message: post.message }) : post.message;
}

function noteCell(reply) {
  const td = cell("", "on-note", t("mod.on_note"));
  const link = button(t("mod.audit.NoteN", { id: String(reply.postId) }), () => openNote(reply.postId), "link");
  link.setAttribute("aria-label", t("mod.audit.showNote", { id: String(reply.postId) }));
  const excerpt = element("span", { className: "note-excerpt" });
  td.append(link, excerpt);
  noteOf(reply.postId).then((post) => {
    excerpt.textContent = noteExcerpt(post);
    if (post?.status !== "visible") excerpt.classList.add("none");
  });
  return td;
}

/**
 * A reply as a row of a card table. `context` says where it is shown: its reason fields, how to
 * reload after an action, where to speak, and whether the row names its note (the Replies view).
 */
export function replyRow(reply, context) {
  const actions = element("td", { className: "actions" });
  const named = (label, onClick, className) => {
    const action = button(label, onClick, className);
    action.setAttribute("aria-label", t("mod.r.actionOn", { action: label.replace("…", ""), id: String(reply.id) }));
    return action;
  };
  if (reply.status === "visible") actions.append(named(t("mod.hide"), () => act(reply, "hide", context)));
  if (reply.status === "hidden") actions.append(named(t("mod.restore"), () => act(reply, "restore", context)));
  if (reply.status !== "deleted") {
    actions.append(named(t("mod.deleteAsk"), () => askDeletion({
      kind: "reply", id: reply.id, message: reply.message, path: `/api/v1/moderation/replies/${reply.id}`,
      after: context.reload, say: context.say,
    }), "danger"));
  }
  const message = cell(reply.message, "message");
  if (reply.byAuthor) {
    const badge = element("span", { className: "badge author", text: t("thread.author") });
    badge.title = t("mod.r.authorTitle");
    message.prepend(badge, " ");
  }
  const client = cell("", "client", t("mod.client"));
  if (reply.clientId) {
    const link = button(reply.clientId.slice(0, 8), () => showReplies({ clientId: reply.clientId }), "link");
    link.setAttribute("aria-label", t("mod.r.otherFromClient", { id: reply.clientId.slice(0, 8) }));
    client.append(link);
  }
  const cells = [cell(String(reply.id), "id", t("mod.reply")), cell(dateTimeText(reply.createdAt), "when", t("mod.when"))];
  if (context.withNote) cells.push(noteCell(reply));
  cells.push(message, statusCell(reply.status), cell(String(reply.reportCount), "reports", t("mod.reports")), client, actions);
  const row = cardRow(cells, reply.status);
  row.dataset.replyId = String(reply.id);
  if (highlighted === reply.id) row.classList.add("focused");
  return row;
}

async function act(reply, action, context) {
  const field = $(action === "hide" ? context.hideReason : context.restoreReason);
  let reason = field.value.trim();
  if (action === "hide" && !reason) {
    reason = await askReason({ heading: t("mod.r.hideWhat", { id: String(reply.id) }), preview: reply.message });
    if (!reason) return;
  }
  try {
    await call("POST", `/api/v1/moderation/replies/${reply.id}/${action}`, { body: reason ? { reason } : {} });
    if (action === "restore") field.value = ""; // one restore's reason is not the next one's
    await context.reload();
    context.say(t(action === "hide" ? "mod.r.hid" : "mod.r.restored", { id: String(reply.id) }));
  } catch (error) {
    context.say(t("mod.r.failed", { id: String(reply.id), reason: error.message }));
  }
}

function repliesTable(caption, withNote) {
  const table = element("table", { className: "cards replies-table", attributes: { role: "table" } });
  const head = element("thead", { attributes: { role: "rowgroup" } });
  const headings = ["mod.reply", "mod.when", ...(withNote ? ["mod.on_note"] : []), "mod.message", "mod.status", "mod.reports", "mod.client", "mod.actions"].map((key) => t(key));
  const row = element("tr", { attributes: { role: "row" } });
  row.append(...headings.map((text) => element("th", { text, attributes: { scope: "col", role: "columnheader" } })));
  head.append(row);
  table.append(element("caption", { className: "visually-hidden", text: caption }), head, element("tbody", { attributes: { role: "rowgroup" } }));
  return table;
}

// Under a note in the Notes view.

/**
 * Fills `container` with a note's replies (every status, newest first) and their actions; the
 * Notes view's reason fields serve them too.
 */
export async function showRepliesOf(postId, container, say) {
  const context = {
    withNote: false, hideReason: "#bulk-reason", restoreReason: "#restore-reason", say,
    reload: () => showRepliesOf(postId, container, say),
  };
  try {
    const page = await call("GET", "/api/v1/moderation/replies", { params: { postId, status: "all", limit: 100 } });
    if (page.replies.length === 0) {
      container.replaceChildren(element("p", { className: "hint", text: t("mod.r.noneFor", { id: String(postId) }) }));
      return;
    }
    const table = repliesTable(t("mod.r.tableOf", { id: String(postId) }), false);
    table.querySelector("tbody").append(...page.replies.map((reply) => replyRow(reply, context)));
    const parts = [table];
    if (page.nextCursor) {
      parts.push(element("p", { className: "hint", text: t("mod.r.latest100") }));
    }
    container.replaceChildren(...parts);
  } catch (error) {
    container.replaceChildren(element("p", { className: "error", text: error.message }));
  }
}

// The Replies side of the Notes view.

function replyFilters() {
  const postId = $("#r-post").value.trim();
  return {
    postId: /^\d+$/.test(postId) ? postId : null,
    status: $("#r-status").value,
    reported: $("#r-reported").checked ? "true" : null,
    clientId: $("#r-client").value.trim(),
  };
}

const viewContext = {
  withNote: true, hideReason: "#reply-hide-reason", restoreReason: "#reply-restore-reason",
  say: (text) => announce(text), reload: () => loadReplies(),
};

export async function loadReplies(append = false) {
  const load = ++loads;
  if (!append) notes.clear(); // notes may have been hidden or restored since
  try {
    const page = await call("GET", "/api/v1/moderation/replies", { params: { ...replyFilters(), limit: 100, cursor: append ? cursor : null } });
    if (load !== loads) return;
    const body = $("#replies-table tbody");
    if (!append) body.replaceChildren();
    body.append(...page.replies.map((reply) => replyRow(reply, viewContext)));
    cursor = page.nextCursor;
    $("#replies-more").hidden = !cursor;
    const count = body.children.length;
    announce(count ? t("mod.r.match", { count: `${count}${cursor ? "+" : ""}` }) : t("mod.r.none"));
  } catch (error) {
    if (load === loads) announce(error.message);
  }
}

/** The replies with the given filters (a note's, a client's), the rest reset. */
export function showReplies({ postId = null, clientId = null, replyId = null } = {}) {
  $("#reply-filters").reset();
  if (postId !== null) $("#r-post").value = String(postId);
  if (clientId) $("#r-client").value = clientId;
  highlighted = replyId;
  setMode("replies");
  return showView("notes");
}

export function setUpReplies() {
  $("#reply-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    highlighted = null;
    loadReplies();
  });
  $("#replies-more").addEventListener("click", () => loadReplies(true));
}
