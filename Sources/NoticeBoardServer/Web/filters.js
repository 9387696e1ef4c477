// The filters every view follows: tags (multi-select chips with counts from /api/v1/tags),
// a time range (a two-thumb slider, like the original app's range bar, plus presets), and the
// order of the list and the look-around view (nearest, newest or popular first).
import { getJSON } from "./api.js";
import { state, update, onChange, announce, ORDERS } from "./state.js";

const DAY = 86_400_000;
const SLIDER_MAX = 1000;
const chips = document.getElementById("tag-chips");
const fromRange = document.getElementById("range-from");
const toRange = document.getElementById("range-to");
const rangeLabel = document.getElementById("range-label");
const order = document.getElementById("order");
const ORDER_NAMES = { distance: "nearest first", newest: "newest first", popular: "most popular first" };

// The slider spans three years up to the end of today; a thumb at an end means "unbounded".
function domain() {
  const end = new Date();
  end.setHours(24, 0, 0, 0);
  return { start: end.getTime() - 3 * 365 * DAY, end: end.getTime() };
}

function timeAt(value) {
  const { start, end } = domain();
  return start + ((end - start) * value) / SLIDER_MAX;
}

function valueAt(time) {
  const { start, end } = domain();
  return Math.round(((time - start) / (end - start)) * SLIDER_MAX);
}

const dateText = (time) => new Date(time).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });

function describeRange() {
  if (!state.from && !state.to) return "All time";
  if (state.from && !state.to) return `Since ${dateText(Date.parse(state.from))}`;
  if (!state.from) return `Before ${dateText(Date.parse(state.to))}`;
  return `${dateText(Date.parse(state.from))} – ${dateText(Date.parse(state.to) - 1)}`;
}

function showRange() {
  fromRange.value = state.from ? Math.max(0, valueAt(Date.parse(state.from))) : 0;
  toRange.value = state.to ? Math.min(SLIDER_MAX, valueAt(Date.parse(state.to))) : SLIDER_MAX;
  const text = describeRange();
  rangeLabel.textContent = text;
  fromRange.setAttribute("aria-valuetext", state.from ? dateText(Date.parse(state.from)) : "the beginning");
  toRange.setAttribute("aria-valuetext", state.to ? dateText(Date.parse(state.to)) : "now");
}

function rangeMoved(event) {
  let low = Number(fromRange.value);
  let high = Number(toRange.value);
  if (low > high) {
    // The thumbs never cross: the one being dragged stops at the other.
    if (event.target === fromRange) low = high; else high = low;
    fromRange.value = low;
    toRange.value = high;
  }
  const dayStart = (time) => {
    const date = new Date(time);
    date.setHours(0, 0, 0, 0);
    return date.getTime();
  };
  update({
    from: low <= 0 ? null : new Date(dayStart(timeAt(low))).toISOString(),
    to: high >= SLIDER_MAX ? null : new Date(dayStart(timeAt(high)) + DAY).toISOString(),
  });
}

export function applyPreset(name) {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  if (name === "week") start.setDate(start.getDate() - ((start.getDay() + 6) % 7)); // Monday
  if (name === "month") start.setDate(1);
  update({ from: name === "all" ? null : start.toISOString(), to: null });
  announce(`Showing ${describeRange().toLowerCase()}.`);
}

let tagRequest = 0;
export async function refreshTagCounts() {
  const request = ++tagRequest;
  let counts = [];
  try {
    counts = (await getJSON("/api/v1/tags", { from: state.from, to: state.to, place: state.place, asOf: state.asOf })).tags;
  } catch {
    // The chips keep their last counts; the status line reports errors from the views.
  }
  if (request !== tagRequest) return;
  const shown = new Map(counts.map(({ tag, count }) => [tag, count]));
  for (const tag of state.tags) if (!shown.has(tag)) shown.set(tag, 0);
  for (const tag of ["food", "fashion", "lifestyle", "entertainment"]) if (!shown.has(tag)) shown.set(tag, 0);
  const buttons = [...shown.entries()].slice(0, 30).map(([tag, count]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chip";
    button.dataset.tag = tag;
    button.setAttribute("aria-pressed", String(state.tags.includes(tag)));
    const name = document.createElement("span");
    name.textContent = tag;
    const number = document.createElement("span");
    number.className = "count";
    number.textContent = String(count);
    number.setAttribute("aria-label", `${count} notes`);
    button.append(name, " ", number);
    return button;
  });
  chips.replaceChildren(...buttons);
}

export function setUpFilters() {
  chips.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tag]");
    if (!button) return;
    const tag = button.dataset.tag;
    const tags = state.tags.includes(tag) ? state.tags.filter((t) => t !== tag) : [...state.tags, tag];
    update({ tags });
  });
  fromRange.addEventListener("input", rangeMoved);
  toRange.addEventListener("input", rangeMoved);
  document.querySelectorAll("[data-preset]").forEach((button) => {
    button.addEventListener("click", () => applyPreset(button.dataset.preset));
  });
  order.addEventListener("change", () => {
    if (!ORDERS.includes(order.value)) return;
    update({ order: order.value });
    announce(`Notes ${ORDER_NAMES[order.value]}.`);
  });
  onChange((changed) => {
    if (changed.has("order")) order.value = state.order;
    if (changed.has("from") || changed.has("to") || changed.has("place") || changed.has("asOf")) {
      showRange();
      refreshTagCounts();
    }
    if (changed.has("tags")) {
      chips.querySelectorAll("button[data-tag]").forEach((button) => {
        button.setAttribute("aria-pressed", String(state.tags.includes(button.dataset.tag)));
      });
    }
  });
  order.value = state.order;
  showRange();
  refreshTagCounts();
}
