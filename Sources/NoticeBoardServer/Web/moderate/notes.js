// The Notes view: find notes by tag, week or dates, status, reports and client; hide (with a
// reason, undoable for a few seconds) or restore (with a reason of its own, or none) one or many;
// delete one with a reason; show one note alone (from the audit log or the reported queue);
// download what the filters find as CSV; open a note's replies beneath it, with the same actions
// (replies.js). On a phone each row is a card (moderate.css).
import { dateTimeText, t } from "../i18n.js";
import { $, button, cardRow, cell, element, statusCell } from "./dom.js";
import { announce as announceAnywhere, announcerFor, call, fetchBlob, showView } from "./desk.js";
import { askReason } from "./reason-dialog.js";
import { loadReplies, showRepliesOf } from "./replies.js";

const announce = announcerFor("notes");
const shown = new Map(); // id → moderated post in the table
const UNDO_SECONDS = 8;
let notesCursor = null;
let focused = null; // {id, createdAt}: the one note shown alone, or null for the filters' list
let loads = 0; // only the latest load fills the table
const expanded = new Set(); // notes whose replies are open beneath them
const COLUMNS = 9;

function localDayStart(dateText, plusDays = 0) {
  const [year, month, day] = dateText.split("-").map(Number);
  return new Date(year, month - 1, day + plusDays).toISOString();
}

/** `2026-W47` → the Monday and Sunday of that ISO week. */
function weekDays(weekText) {
  const [year, week] = weekText.split("-W").map(Number);
  const fourth = new Date(year, 0, 4);
  const monday = new Date(year, 0, 4 - ((fourth.getDay() + 6) % 7) + (week - 1) * 7);
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  const text = (date) => `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  return [text(monday), text(sunday)];
}

/** The list's query: the filters, or the focused note's exact time (`from <= createdAt < to`). */
function noteFilters() {
  if (focused) {
    const at = new Date(focused.createdAt).getTime();
    return { from: new Date(at).toISOString(), to: new Date(at + 1).toISOString(), status: "all" };
  }
  return {
    tag: $("#f-tag").value.trim(),
    from: $("#f-from").value ? localDayStart($("#f-from").value) : null,
    to: $("#f-to").value ? localDayStart($("#f-to").value, 1) : null,
    status: $("#f-status").value,
    reported: $("#f-reported").checked ? "true" : null,
    clientId: $("#f-client").value.trim(),
  };
}

function noteRow(post) {
  const select = element("td", { className: "select" });
  const box = element("input", { className: "pick", attributes: { type: "checkbox", "aria-label": t("mod.n.select", { id: String(post.id) }) } });
  select.append(box);
  const client = cell("", "client", t("mod.client"));
  if (post.clientId) {
    const link = button(post.clientId.slice(0, 8), () => {
      $("#f-client").value = post.clientId;
      focused = null;
      loadNotes();
    }, "link");
    link.setAttribute("aria-label", t("mod.n.otherFromClient", { id: post.clientId.slice(0, 8) }));
    client.append(link);
  }
  const actions = element("td", { className: "actions" });
  const named = (label, onClick, className) => {
    const action = button(label, onClick, className);
    action.setAttribute("aria-label", t("mod.n.actionOn", { action: label.replace("…", ""), id: String(post.id) }));
    return action;
  };
  if (post.status === "visible") actions.append(named(t("mod.hide"), () => hide([post.id], { preview: post.message })));
  if (post.status === "hidden") actions.append(named(t("mod.restore"), () => restore([post.id])));
  if (post.status !== "deleted") actions.append(named(t("mod.deleteAsk"), () => askDelete(post), "danger"));
  const replies = button(repliesLabel(post), () => toggleReplies(post, row, replies), "secondary replies-toggle");
  replies.setAttribute("aria-expanded", "false");
  replies.setAttribute("aria-controls", `replies-of-${post.id}`);
  actions.append(replies);
  const row = cardRow([select, cell(String(post.id), "id", t("mod.id")), cell(dateTimeText(post.createdAt), "when", t("mod.when")),
    cell(post.tag, "tag", t("mod.tag")), cell(post.message, "message"), statusCell(post.status),
    cell(String(post.reportCount), "reports", t("mod.reports")), client, actions], post.status);
  row.dataset.id = String(post.id);
  if (focused?.id === post.id) row.classList.add("focused");
  return row;
}

function repliesLabel(post) {
  const count = post.replyCount ?? 0;
  return count === 0 ? t("mod.n.replies") : t("mod.n.repliesCount", { count });
}

/** Opens (or closes) a note's replies in a row beneath it: each reply beside its note. */
function toggleReplies(post, row, toggle) {
  const open = toggle.getAttribute("aria-expanded") !== "true";
  const existing = document.getElementById(`replies-of-${post.id}`);
  if (!open) {
    existing?.remove();
    expanded.delete(post.id);
    toggle.setAttribute("aria-expanded", "false");
    return Promise.resolve();
  }
  expanded.add(post.id);
  toggle.setAttribute("aria-expanded", "true");
  const td = element("td", { className: "replies-cell", attributes: { colspan: String(COLUMNS) } });
  td.append(element("p", { className: "hint", text: t("mod.n.loadingReplies") }));
  const repliesRow = cardRow([td], "replies-row");
  repliesRow.id = `replies-of-${post.id}`;
  repliesRow.setAttribute("aria-label", t("mod.n.repliesTo", { id: String(post.id) }));
  (existing ?? row).after(repliesRow);
  existing?.remove();
  return showRepliesOf(post.id, td, announce);
}

// The view shows notes, or every reply (each beside its note): a switch at its top.
let mode = "notes";

export function setMode(next) {
  mode = next;
  $("#notes-panel").hidden = next !== "notes";
  $("#replies-panel").hidden = next !== "replies";
  $("#mode-notes").setAttribute("aria-pressed", String(next === "notes"));
  $("#mode-replies").setAttribute("aria-pressed", String(next === "replies"));
}

/** What showing the view loads: the notes, or the replies. */
export function loadNotesView() {
  return mode === "replies" ? loadReplies() : loadNotes();
}

export async function loadNotes(append = false) {
  $("#note-focus").hidden = !focused;
  if (focused) $("#note-focus-text").textContent = t("mod.n.showingOnly", { id: String(focused.id) });
  const load = ++loads;
  try {
    const page = await call("GET", "/api/v1/moderation/posts", { params: { ...noteFilters(), limit: 100, cursor: append ? notesCursor : null } });
    if (load !== loads) return;
    const body = $("#notes-table tbody");
    if (!append) {
      body.replaceChildren();
      shown.clear();
      $("#select-all").checked = false;
    }
    // A focused note is found by its time: others posted in the same millisecond are left out.
    const posts = focused ? page.posts.filter((post) => post.id === focused.id) : page.posts;
    for (const post of posts) {
      shown.set(post.id, post);
      const row = noteRow(post);
      body.append(row);
      if (expanded.has(post.id)) toggleReplies(post, row, row.querySelector(".replies-toggle"));
    }
    notesCursor = focused ? null : page.nextCursor;
    $("#notes-more").hidden = !notesCursor;
    if (focused) announce(t(posts.length ? "mod.n.alone" : "mod.n.notOnBoard", { id: String(focused.id) }));
    else announce(t("mod.n.match", { count: `${shown.size}${notesCursor ? "+" : ""}` }));
  } catch (error) {
    if (load === loads) announce(error.message);
  }
}

/** Shows one note alone in the Notes view (from the reported queue: the post is at hand). */
export async function focusNote(post) {
  focused = { id: post.id, createdAt: post.createdAt };
  setMode("notes");
  await showView("notes");
  // On a phone the filters fill the first screen: the note itself is brought into sight.
  document.querySelector(`#notes-table tr[data-id="${post.id}"]`)?.scrollIntoView({ block: "center" });
}

/** The filters' list again, not one note alone (the Notes tab). */
export function unfocus() { focused = null; }

/** The Notes view with every reported note (the dashboard's queue in full). */
export function showReported() {
  focused = null;
  setMode("notes");
  $("#note-filters").reset();
  $("#f-reported").checked = true;
  return showView("notes");
}

/** Shows a note known only by its id (an audit entry, a reply), in whatever status it is. */
export async function openNote(id) {
  announceAnywhere(t("mod.n.looking", { id: String(id) }));
  let post = null;
  try {
    post = await call("GET", `/api/v1/moderation/posts/${id}`);
  } catch (error) {
    announceAnywhere(error.status === 404 ? t("mod.n.notFound", { id: String(id) }) : error.message);
    return;
  }
  await focusNote(post);
}

function selectedIds() {
  return [...document.querySelectorAll("#notes-table tbody tr[data-id]")].filter((row) => row.querySelector(".pick").checked).map((row) => Number(row.dataset.id));
}

/** One action on many notes; resolves to [done ids, failure lines]. */
async function act(ids, action, reason) {
  const done = [];
  const failures = [];
  for (const id of ids) {
    try {
      await call("POST", `/api/v1/moderation/posts/${id}/${action}`, { body: reason ? { reason } : {} });
      done.push(id);
    } catch (error) {
      failures.push(`${id}: ${error.message}`);
    }
  }
  return [done, failures];
}

const counted = (ids) => (ids.length === 1 ? t("mod.n.one", { id: String(ids[0]) }) : t("mod.n.many", { count: ids.length }));
const failed = (failures) => (failures.length ? t("mod.n.failed", { list: failures.join("; ") }) : "");

/** Hides notes with the reason given (required: asked for when its field is empty); for a few
 *  seconds the status line offers Undo. */
export async function hide(ids, { reasonField = "#bulk-reason", reload = loadNotes, say = announce, preview = "" } = {}) {
  const reason = $(reasonField).value.trim() || await askReason({ heading: t("mod.hideWhat", { what: counted(ids) }), preview });
  if (!reason) return;
  say(t("mod.n.hiding", { what: counted(ids) }));
  const [done, failures] = await act(ids, "hide", reason);
  await reload();
  const undo = done.length ? {
    label: t("mod.undo"), seconds: UNDO_SECONDS, description: t("mod.n.undoRestore", { what: counted(done) }),
    run: async () => {
      say(t("mod.n.restoring", { what: counted(done) }));
      const [restored, undoFailures] = await act(done, "restore", "undo");
      await reload();
      say(`${t("mod.n.undone", { what: counted(restored) })}${failed(undoFailures)}`);
    },
  } : undefined;
  say(`${t("mod.n.hid", { what: counted(done) })}${failed(failures)}`, { action: undo });
}

/** Restores notes with the restore's own reason (optional: none is sent as none). */
async function restore(ids) {
  const reason = $("#restore-reason").value.trim();
  announce(t("mod.n.restoring", { what: counted(ids) }));
  const [done, failures] = await act(ids, "restore", reason);
  $("#restore-reason").value = ""; // one restore's reason is not the next one's
  await loadNotes();
  announce(`${t("mod.n.restored", { what: counted(done), reason: reason ? ` (${reason})` : "" })}${failed(failures)}`);
}

// Deleting: always confirmed, always with a reason. Notes and replies share the dialog.

let deleting = null; // {kind, id, message, path, after, say}

/** Asks to delete a note or a reply (`kind`) at `path`; `after` reloads what showed it. */
export function askDeletion(item) {
  deleting = item;
  $("#delete-kind").textContent = t(`mod.kind.${item.kind}`);
  $("#delete-id").textContent = String(item.id);
  $("#delete-preview").textContent = item.message;
  $("#delete-reason").value = "";
  $("#delete-error").textContent = "";
  $("#delete-dialog").showModal();
  $("#delete-reason").focus();
}

function askDelete(post) {
  askDeletion({ kind: "note", id: post.id, message: post.message, path: `/api/v1/moderation/posts/${post.id}`, after: loadNotes, say: announce });
}

async function confirmDelete(event) {
  event.preventDefault();
  const reason = $("#delete-reason").value.trim();
  if (!reason) {
    $("#delete-error").textContent = t("mod.n.reasonRequired");
    return;
  }
  const item = deleting;
  try {
    await call("DELETE", item.path, { body: { reason } });
    $("#delete-dialog").close();
    await item.after();
    item.say(t("mod.n.deleted", { kind: t(`mod.kind.${item.kind}`), id: String(item.id) }));
  } catch (error) {
    $("#delete-error").textContent = error.message;
  }
}

// The filtered list as CSV, the columns `noticeboard import` reads. The endpoint wants the
// token, so the file is fetched and handed to the browser as a download.

function csvName(filters) {
  const parts = ["noticeboard-notes"];
  if (filters.tag) parts.push(filters.tag.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "") || "tag");
  if (filters.status && filters.status !== "all") parts.push(filters.status);
  parts.push(new Date().toISOString().slice(0, 10));
  return `${parts.join("-")}.csv`;
}

async function downloadCSV() {
  const filters = noteFilters();
  const link = $("#download-csv");
  link.disabled = true;
  announce(t("mod.n.preparing"));
  try {
    const blob = await fetchBlob("/api/v1/moderation/posts.csv", filters);
    const url = URL.createObjectURL(blob);
    const anchor = element("a", { attributes: { href: url, download: csvName(filters), hidden: "" } });
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    announce(t("mod.n.downloaded", { file: anchor.download, only: focused ? t("mod.n.onlyNote", { id: String(focused.id) }) : "" }));
  } catch (error) {
    announce(t("mod.n.noCsv", { reason: error.message }));
  } finally {
    link.disabled = false;
  }
}

export function setUpNotes() {
  $("#mode-notes").addEventListener("click", () => {
    setMode("notes");
    loadNotes();
  });
  $("#mode-replies").addEventListener("click", () => {
    setMode("replies");
    loadReplies();
  });
  $("#f-week").addEventListener("change", () => {
    if (!$("#f-week").value) return;
    const [monday, sunday] = weekDays($("#f-week").value);
    $("#f-from").value = monday;
    $("#f-to").value = sunday;
  });
  $("#note-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    focused = null;
    loadNotes();
  });
  $("#note-focus-clear").addEventListener("click", () => {
    focused = null;
    loadNotes();
  });
  $("#notes-more").addEventListener("click", () => loadNotes(true));
  $("#note-filters").addEventListener("reset", () => expanded.clear());
  $("#select-all").addEventListener("change", () => {
    document.querySelectorAll("#notes-table .pick").forEach((box) => { box.checked = $("#select-all").checked; });
  });
  $("#hide-selected").addEventListener("click", () => {
    const ids = selectedIds().filter((id) => shown.get(id)?.status === "visible");
    ids.length ? hide(ids) : announce(t("mod.n.nothingToHide"));
  });
  $("#restore-selected").addEventListener("click", () => {
    const ids = selectedIds().filter((id) => shown.get(id)?.status === "hidden");
    ids.length ? restore(ids) : announce(t("mod.n.nothingToRestore"));
  });
  $("#download-csv").addEventListener("click", downloadCSV);
  $("#delete-cancel").addEventListener("click", () => $("#delete-dialog").close());
  $("#delete-form").addEventListener("submit", confirmDelete);
}
