// The filters every view follows: tags (multi-select chips, counted for the area and time in
// view from /api/v1/tags), and a time range (presets that show which is on, and a two-thumb
// slider stepping by day, by week with Page Up/Down, by month with Shift+arrow). On a phone they
// fold into one bar (the tag chips scroll sideways; "Filters" opens the rest); on a desktop
// they stand open beside the views.
import { getJSON } from "./api.js";
import { dateText, t, onLanguage } from "./i18n.js";
import { tagName } from "./render.js";
import { state, update, onChange, announce } from "./state.js";

const DAY = 86_400_000;
const DAYS = 3 * 365; // the slider spans three years up to the end of today, one step a day
const SUGGESTED = ["food", "fashion", "lifestyle", "entertainment"];
const chips = document.getElementById("tag-chips");
const fromRange = document.getElementById("range-from");
const toRange = document.getElementById("range-to");
const rangeLabel = document.getElementById("range-label");
const toggle = document.getElementById("filters-toggle");
const panel = document.getElementById("filter-panel");
const filterCount = document.getElementById("filter-count");
const presets = [...document.querySelectorAll("[data-preset]")];
let area = () => null; // the bbox of what is in view, given by the page

function endOfToday() {
  const end = new Date();
  end.setHours(24, 0, 0, 0);
  return end;
}

/** The local midnight `days` days after the slider's start. */
function dayAt(days) {
  const date = endOfToday();
  date.setDate(date.getDate() - DAYS + days);
  return date;
}

/** The slider step of an instant: whole local days since the start. */
function stepAt(time) {
  const start = dayAt(0);
  return Math.round((new Date(time).setHours(0, 0, 0, 0) - start.getTime()) / DAY);
}

function describeRange() {
  if (!state.from && !state.to) return t("range.all");
  if (state.from && !state.to) return t("range.since", { date: dateText(Date.parse(state.from)) });
  if (!state.from) return t("range.before", { date: dateText(Date.parse(state.to)) });
  return t("range.between", { from: dateText(Date.parse(state.from)), to: dateText(Date.parse(state.to) - 1) });
}

function presetStart(name) {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  if (name === "week") start.setDate(start.getDate() - ((start.getDay() + 6) % 7)); // Monday
  if (name === "month") start.setDate(1);
  return name === "all" ? null : start.toISOString();
}

/** Which preset the current range is, if any (a preset is "from its start until now"). */
function activePreset() {
  if (state.to) return null;
  return ["today", "week", "month", "all"].find((name) => presetStart(name) === state.from) ?? null;
}

function showRange() {
  fromRange.value = state.from ? Math.max(0, stepAt(Date.parse(state.from))) : 0;
  toRange.value = state.to ? Math.min(DAYS, stepAt(Date.parse(state.to))) : DAYS;
  rangeLabel.textContent = describeRange();
  fromRange.setAttribute("aria-valuetext", state.from ? dateText(Date.parse(state.from)) : t("range.beginning"));
  toRange.setAttribute("aria-valuetext", state.to ? dateText(Date.parse(state.to) - 1) : t("range.now"));
  const active = activePreset();
  presets.forEach((button) => button.setAttribute("aria-pressed", String(button.dataset.preset === active)));
  showFilterCount();
}

function showFilterCount() {
  const count = state.tags.length + (state.from || state.to ? 1 : 0) + (state.asOf ? 1 : 0);
  filterCount.textContent = count ? String(count) : "";
  filterCount.hidden = count === 0;
  toggle.setAttribute("aria-label", count ? t("filters.toggleCount", { count }) : t("filters.toggle"));
}

function rangeMoved(event) {
  let low = Number(fromRange.value);
  let high = Number(toRange.value);
  if (low > high) {
    // The thumbs never cross: the one being moved stops at the other.
    if (event.target === fromRange) low = high; else high = low;
    fromRange.value = low;
    toRange.value = high;
  }
  update({
    from: low <= 0 ? null : dayAt(low).toISOString(),
    to: high >= DAYS ? null : dayAt(high + 1).toISOString(),
  });
}

/** Page Up/Down step a week and Shift+arrows a month, beside the arrows' single day. */
function rangeKeys(event) {
  const steps = { PageUp: 7, PageDown: -7 };
  let step = steps[event.key];
  if (event.shiftKey && (event.key === "ArrowRight" || event.key === "ArrowUp")) step = 30;
  if (event.shiftKey && (event.key === "ArrowLeft" || event.key === "ArrowDown")) step = -30;
  if (!step) return;
  event.preventDefault();
  const input = event.target;
  input.value = String(Math.max(0, Math.min(DAYS, Number(input.value) + step)));
  rangeMoved({ target: input });
}

export function applyPreset(name) {
  update({ from: presetStart(name), to: null });
  showRange();
  announce(t("range.showing", { range: describeRange() }));
}

/** `provider()` gives where the tag counts are for, as parameters: `{bbox}` (the map's view) or `{lat, lon, radius}` (the list's circle). */
export function setTagArea(provider) {
  area = provider;
}

let tagRequest = 0;
let lastCounts = null; // null: no area to count in
export async function refreshTagCounts() {
  const request = ++tagRequest;
  const where = area();
  if (where === undefined) {
    // No area yet (no position, no map): counts would be the whole world's, so none are shown.
    lastCounts = null;
    drawChips();
    return;
  }
  try {
    lastCounts = (await getJSON("/api/v1/tags", { ...where, from: state.from, to: state.to, place: state.place, asOf: state.asOf })).tags;
  } catch {
    // The chips keep their last counts; the offline banner says the board cannot be reached.
  }
  if (request !== tagRequest) return;
  drawChips();
}

function drawChips() {
  // Counted, a tag with no notes here is no choice at all and is left out, unless it is chosen
  // (so it can be unchosen); not counted yet, the suggested tags are offered.
  const shown = new Map((lastCounts ?? []).filter(({ count }) => count > 0).map(({ tag, count }) => [tag, count]));
  for (const tag of state.tags) if (!shown.has(tag)) shown.set(tag, 0);
  if (!lastCounts) for (const tag of SUGGESTED) if (!shown.has(tag)) shown.set(tag, 0);
  // The chosen tags stay in sight first; then the area's busiest.
  const entries = [...shown.entries()].sort(([a], [b]) => Number(state.tags.includes(b)) - Number(state.tags.includes(a)));
  const focused = document.activeElement?.closest?.("#tag-chips button")?.dataset.tag;
  const buttons = entries.slice(0, 30).map(([tag, count]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chip";
    button.dataset.tag = tag;
    button.setAttribute("aria-pressed", String(state.tags.includes(tag)));
    const name = document.createElement("span");
    name.textContent = tagName(tag);
    const number = document.createElement("span");
    number.className = "count";
    number.textContent = String(count);
    button.setAttribute("aria-label", lastCounts ? t("filters.tagChip", { tag: tagName(tag), count }) : tagName(tag));
    button.append(name);
    if (lastCounts) button.append(" ", number);
    return button;
  });
  chips.replaceChildren(...buttons);
  // A chip that had the focus and is gone (unchosen, with no notes here) hands it to the bar.
  if (focused) (chips.querySelector(`button[data-tag="${CSS.escape(focused)}"]`) ?? chips.querySelector("button") ?? toggle).focus();
}

function setOpen(open) {
  toggle.setAttribute("aria-expanded", String(open));
  panel.classList.toggle("open", open);
}

export function setUpFilters() {
  chips.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tag]");
    if (!button) return;
    const tag = button.dataset.tag;
    const tags = state.tags.includes(tag) ? state.tags.filter((other) => other !== tag) : [...state.tags, tag];
    update({ tags });
  });
  fromRange.max = String(DAYS);
  toRange.max = String(DAYS);
  fromRange.addEventListener("input", rangeMoved);
  toRange.addEventListener("input", rangeMoved);
  fromRange.addEventListener("keydown", rangeKeys);
  toRange.addEventListener("keydown", rangeKeys);
  presets.forEach((button) => button.addEventListener("click", () => applyPreset(button.dataset.preset)));
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && toggle.getAttribute("aria-expanded") === "true") {
      setOpen(false);
      toggle.focus();
    }
  });
  onChange((changed) => {
    if (["from", "to", "place", "asOf"].some((key) => changed.has(key))) {
      showRange();
      refreshTagCounts();
    }
    if (changed.has("tags")) {
      chips.querySelectorAll("button[data-tag]").forEach((button) => {
        button.setAttribute("aria-pressed", String(state.tags.includes(button.dataset.tag)));
      });
      showFilterCount();
    }
  });
  onLanguage(() => {
    showRange();
    drawChips();
  });
  showRange();
  refreshTagCounts();
}
