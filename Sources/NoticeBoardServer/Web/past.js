// "Board on this day": the board as it stood at the end of a past day (`asOf`, kept in the URL
// like the other filters). While it is set a banner says so on every view, with a way back to now;
// the views show the notes of then, and nothing new arrives live.
import { dateText, dateTimeText, t, onLanguage } from "./i18n.js";
import { state, update, onChange, announce } from "./state.js";

const input = document.getElementById("as-of");
const banner = document.getElementById("past-banner");
const text = document.getElementById("past-text");

const pad = (number) => String(number).padStart(2, "0");
const dayValue = (date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/** The last millisecond of a local day `YYYY-MM-DD`. */
function endOfDay(value) {
  const [year, month, day] = value.split("-").map(Number);
  return new Date(year, month - 1, day + 1, 0, 0, 0, -1);
}

/** When the board stood, in words: "at the end of Sun 23 Nov 2026" for a day's end, else
 *  "on 23 Nov 2026, 14:05" (a shared link can hold any instant). */
export function pastText(asOf) {
  const date = new Date(asOf);
  const day = dateText(date, { weekday: "short", day: "numeric", month: "short", year: "numeric" });
  if (endOfDay(dayValue(date)).getTime() === date.getTime()) return t("past.endOf", { day });
  return t("past.on", { when: dateTimeText(date) });
}

function show() {
  input.max = dayValue(new Date());
  input.value = state.asOf ? dayValue(new Date(state.asOf)) : "";
  banner.hidden = state.asOf === null;
  if (state.asOf) text.textContent = t("past.banner", { when: pastText(state.asOf) });
}

function chosen() {
  if (!input.value) {
    update({ asOf: null });
    return;
  }
  const end = endOfDay(input.value);
  if (end.getTime() >= Date.now()) {
    // Today, or a day still to come: that is the board now.
    update({ asOf: null });
    show();
    announce(t("past.now"));
    return;
  }
  update({ asOf: end.toISOString() });
}

export function setUpPast() {
  input.addEventListener("change", chosen);
  document.getElementById("back-to-now").addEventListener("click", () => {
    update({ asOf: null });
    if (input.offsetParent !== null) input.focus(); // the filters are hidden while posting
  });
  onChange((changed) => {
    if (!changed.has("asOf")) return;
    show();
    announce(state.asOf ? t("past.showing", { when: pastText(state.asOf) }) : t("past.backNow"));
  });
  onLanguage(show);
  show();
}
