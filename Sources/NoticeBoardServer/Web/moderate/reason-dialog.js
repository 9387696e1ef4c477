// A hide needs a reason. When its field is empty the reason is asked for in a dialog over the
// list: on a phone the field sits at the top of a long list of cards, out of sight.
import { t } from "../i18n.js";
import { $ } from "./dom.js";

let pending = null; // the resolve of the question being asked

function answer(reason) {
  const resolve = pending;
  pending = null;
  if ($("#reason-dialog").open) $("#reason-dialog").close();
  resolve?.(reason);
}

/** Resolves to the reason typed (trimmed, not empty), or null when the moderator cancels. */
export function askReason({ heading, preview = "" }) {
  if (pending) answer(null);
  $("#reason-heading").textContent = heading;
  $("#reason-preview").textContent = preview;
  $("#reason-preview").hidden = !preview;
  $("#reason-input").value = "";
  $("#reason-error").textContent = "";
  $("#reason-dialog").showModal();
  $("#reason-input").focus();
  return new Promise((resolve) => { pending = resolve; });
}

export function setUpReasonDialog() {
  $("#reason-cancel").addEventListener("click", () => answer(null));
  $("#reason-dialog").addEventListener("close", () => { if (pending) answer(null); }); // Escape
  $("#reason-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const reason = $("#reason-input").value.trim();
    if (!reason) {
      $("#reason-error").textContent = t("mod.n.reasonRequired");
      return;
    }
    answer(reason);
  });
}
