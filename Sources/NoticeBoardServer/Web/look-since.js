// The time slider under look around (the original app's): how far back the notes in front of you
// go, from the last hour to all time. It sets the same "from" filter as the filters' time range,
// so every view agrees on it.
import { onLanguage, t } from "./i18n.js";
import { state, update, onChange } from "./state.js";

const HOUR = 3_600_000;
const STEPS = [
  { key: "hour", span: HOUR }, { key: "day", span: 24 * HOUR }, { key: "week", span: 7 * 24 * HOUR },
  { key: "month", span: 30 * 24 * HOUR }, { key: "year", span: 365 * 24 * HOUR }, { key: "all", span: null },
];
const slider = document.getElementById("look-since");
const readout = document.getElementById("look-since-readout");

/** The step showing the filter now: the shortest span reaching back to `from` (all time without one). */
function stepNow() {
  if (!state.from) return STEPS.length - 1;
  const age = Date.now() - Date.parse(state.from);
  const index = STEPS.findIndex((step) => step.span !== null && step.span >= age - 60_000);
  return index === -1 ? STEPS.length - 1 : index;
}

function show() {
  const index = stepNow();
  slider.value = String(index);
  const text = t(`look.since.${STEPS[index].key}`);
  readout.textContent = text;
  slider.setAttribute("aria-valuetext", text);
}

export function setUpLookSince() {
  if (!slider) return;
  slider.max = String(STEPS.length - 1);
  slider.addEventListener("input", () => {
    const step = STEPS[Number(slider.value)];
    update({ from: step.span === null ? null : new Date(Date.now() - step.span).toISOString(), to: null });
  });
  onChange((changed) => { if (changed.has("from") || changed.has("to")) show(); });
  onLanguage(show);
  show();
}
