// The audit log: who did what, why, and to what. An entry links to what it concerns: a note
// (shown alone in Notes), a beacon (edited in Beacons), a place or its announcement (opened in
// Places). The dashboard shows the latest entries with the same rows.
import { dateTimeText, t } from "../i18n.js";
import { $, button, cardRow, cell } from "./dom.js";
import { announcerFor, call, showView } from "./desk.js";
import { openNote } from "./notes.js";
import { showReplies } from "./replies.js";
import { focusBeacon } from "./beacons.js";
import { openPlace } from "./places.js";

const announce = announcerFor("audit");
let auditCursor = null;

const BEACON_ACTIONS = new Set(["beacon_put", "beacon_delete"]);
const PLACE_ACTIONS = new Set(["place_put", "place_delete"]);
const ANNOUNCEMENT_ACTIONS = new Set(["announcement_post", "announcement_delete"]);

/** What an entry concerns, as a link-like button (or a text when there is nothing to open). */
function concerns(entry) {
  const td = cell("", "concerns", t("mod.concerns"));
  const link = (label, description, open) => {
    const opener = button(label, open, "link");
    opener.setAttribute("aria-label", description);
    td.append(opener);
  };
  if (entry.replyId !== null && entry.replyId !== undefined) {
    // A reply's action: the reply among its note's replies, and the note itself.
    link(t("mod.audit.replyN", { id: String(entry.replyId) }), t("mod.audit.showReply", { id: String(entry.replyId) }), () => showReplies({ postId: entry.postId ?? null, replyId: entry.replyId }));
    if (entry.postId !== null && entry.postId !== undefined) {
      td.append(` ${t("mod.audit.on")} `);
      link(t("mod.audit.noteN", { id: String(entry.postId) }), t("mod.audit.showNote", { id: String(entry.postId) }), () => openNote(entry.postId));
    }
  } else if (entry.postId !== null && entry.postId !== undefined) {
    link(t("mod.audit.NoteN", { id: String(entry.postId) }), t("mod.audit.showNote", { id: String(entry.postId) }), () => openNote(entry.postId));
  } else if (BEACON_ACTIONS.has(entry.action) && entry.reason) {
    link(t("mod.audit.beaconN", { id: entry.reason }), t("mod.audit.showBeacon", { id: entry.reason }), async () => {
      await showView("beacons");
      focusBeacon(entry.reason);
    });
  } else if ((PLACE_ACTIONS.has(entry.action) || ANNOUNCEMENT_ACTIONS.has(entry.action)) && entry.reason) {
    const slug = entry.reason.split(" ")[0];
    link(t("mod.audit.placeN", { id: slug }), t("mod.audit.showPlace", { id: slug }), async () => {
      await showView("places");
      openPlace(slug);
    });
  }
  return td;
}

/** The action in words; a code this page does not know yet is shown as it is. */
function actionCell(action) {
  const key = `mod.audit.action.${action}`;
  const words = t(key);
  const td = cell(words === key ? action : words, "action", t("mod.action"));
  td.dataset.action = action;
  return td;
}

/** An audit row: When, Who, Action, Concerns, Reason (“(none)” when none was given). */
export function auditRow(entry) {
  const reason = cell(entry.reason ?? t("mod.audit.noReason"), entry.reason === null ? "reason none" : "reason", t("mod.reason"));
  return cardRow([cell(dateTimeText(entry.at), "when", t("mod.when")), cell(entry.actor, "actor", t("mod.who")),
    actionCell(entry.action), concerns(entry), reason]);
}

export async function loadAudit(append = false) {
  try {
    const page = await call("GET", "/api/v1/moderation/audit", { params: { limit: 100, cursor: append ? auditCursor : null } });
    const body = $("#audit-table tbody");
    if (!append) body.replaceChildren();
    body.append(...page.entries.map(auditRow));
    auditCursor = page.nextCursor;
    $("#audit-more").hidden = !auditCursor;
    announce(t(auditCursor ? "mod.audit.countMore" : "mod.audit.count", { count: body.children.length }));
  } catch (error) {
    announce(error.message);
  }
}

export function setUpAudit() {
  $("#audit-more").addEventListener("click", () => loadAudit(true));
}
