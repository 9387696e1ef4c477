// Small builders for the moderation page: every text goes in as text, never as HTML.
import { formatLocale, t } from "../i18n.js";

export const $ = (selector) => document.querySelector(selector);

/** An element with a class, a text and attributes. */
export function element(tag, { className, text, attributes = {} } = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** A table cell; `label` names its column on a phone, where rows become cards. */
export function cell(text, className, label) {
  const td = element("td", { className, text });
  if (label) td.dataset.label = label;
  return td;
}

/** A note's or reply's status in words (the code kept as data-status). */
export function statusCell(status) {
  const td = cell(t(`mod.${status}`), "status", t("mod.status"));
  td.dataset.status = status;
  return td;
}

/**
 * A row of a table that becomes cards on a phone (class `cards`). Its roles are explicit: a
 * table shown as blocks keeps its rows and cells for screen readers.
 */
export function cardRow(cells, className) {
  const row = element("tr", { className, attributes: { role: "row" } });
  for (const td of cells) td.setAttribute("role", "cell");
  row.append(...cells);
  return row;
}

export function button(label, onClick, className) {
  const node = element("button", { className, text: label, attributes: { type: "button" } });
  node.addEventListener("click", onClick);
  return node;
}

// Made for the page's language when first asked, and again after a switch.
const formats = (locale) => ({
  hour: new Intl.DateTimeFormat(locale, { timeZone: "UTC", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }),
  day: new Intl.DateTimeFormat(locale, { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" }),
  week: new Intl.DateTimeFormat(locale, { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" }),
});
let made = { locale: null, formats: null };

/** A bucket's start as people read it, in UTC like the buckets themselves. */
export function bucketLabel(start, bucket) {
  if (made.locale !== formatLocale) made = { locale: formatLocale, formats: formats(formatLocale) };
  const text = made.formats[bucket].format(new Date(start));
  return bucket === "week" ? t("mod.weekOf", { date: text }) : text;
}
