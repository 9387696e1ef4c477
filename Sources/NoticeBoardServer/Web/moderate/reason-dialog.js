// A hide needs a reason. When its field is empty the reason is asked for in a dialog over the
// list: on a phone the field sits at the top of a long list of cards, out of sight.
import { t } from "../i18n.js";
import { $ } from "./dom.js";

let pending = null; // {resolve} of the question being asked

function answer(question, reason) {
  if (!question || pending !== question) return;
  pending = null;
  if ($("#reason-dialog").open) $("#reason-dialog").close();
  question.resolve(reason);
}

/** Resolves to the reason typed (trimmed, not empty), or null when the moderator cancels. */
export function askReason({ heading, preview = "" }) {
  if (pending) answer(pending, null);
  $("#reason-heading").textContent = heading;
  $("#reason-preview").textContent = preview;
  $("#reason-preview").hidden = !preview;
  $("#reason-input").value = "";
  $("#reason-error").textContent = "";
  const question = {};
  const asked = new Promise((resolve) => { question.resolve = resolve; });
  pending = question;
  $("#reason-dialog").showModal();
  $("#reason-input").focus();
  return asked;
}

export function setUpReasonDialog() {
  $("#reason-cancel").addEventListener("click", () => answer(pending, null));
  // Escape closes the dialog by itself: its question is cancelled. The event comes after the
  // close, so one that finds the dialog open again belongs to an earlier question, answered.
  $("#reason-dialog").addEventListener("close", () => { if (pending && !$("#reason-dialog").open) answer(pending, null); });
  $("#reason-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const reason = $("#reason-input").value.trim();
    if (!reason) {
      $("#reason-error").textContent = t("mod.n.reasonRequired");
      return;
    }
    answer(pending, reason);
  });
}
