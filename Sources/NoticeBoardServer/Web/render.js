// How a note looks wherever it is shown. Messages are always text (textContent), never HTML;
// times are relative ("5 min ago", the full date on hover and in `datetime`; dates when looking
// at the past), distances and compass words in the page's language, and the message carries the
// `lang` its script suggests.
import { compassWord, dateTimeText, distanceText, hasText, markLanguage, relativeTime, t, formatLocale } from "./i18n.js";
import { inThePast } from "./state.js";

export function dateTime(text) {
  return dateTimeText(text);
}

/** A tag as shown: a preset tag in the page's language with its stored name beside it ("美食 ·
 *  food": "美食" alone could be a tag of its own), any other tag as stored. */
export function tagName(tag) {
  return hasText(`tag.${tag}`) ? t(`tag.${tag}`) : tag;
}

/** How long ago, or the date itself when looking at the past (where "3 days ago" would be
 *  counted from today, not from the day looked at). */
function agoText(text) {
  return inThePast() ? shortDateTime(text) : relativeTime(text);
}

/** A <time> saying how long ago, with the full date and time as its title. */
export function agoElement(text) {
  const time = document.createElement("time");
  time.dateTime = text;
  time.className = "ago";
  time.textContent = agoText(text);
  time.title = dateTimeText(text);
  return time;
}

/** A date and time without the year when it is this year's: "26 Nov, 17:17". */
export function shortDateTime(text) {
  const date = new Date(text);
  const options = { day: "numeric", month: "short", hour: "numeric", minute: "2-digit" };
  if (date.getFullYear() !== new Date().getFullYear()) options.year = "numeric";
  return date.toLocaleString(formatLocale, options);
}

export function when(post) {
  return dateTime(post.createdAt);
}

const SVG = "http://www.w3.org/2000/svg";
const PATHS = {
  heart: "M12 21s-7.5-4.6-9.6-9.2C.9 8.4 3 4.5 6.8 4.5c2.1 0 3.6 1.1 5.2 3 1.6-1.9 3.1-3 5.2-3 3.8 0 5.9 3.9 4.4 7.3C19.5 16.4 12 21 12 21z",
  reply: "M4 5h16a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H10l-5 4v-4H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z",
  bin: "M9 3h6l1 2h4v2H4V5h4l1-2zM6 8h12l-1 13H7L6 8z",
};

/** A small icon drawn from a path (no markup strings): decorative, hidden from screen readers. */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("icon", `icon-${name}`);
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", PATHS[name]);
  svg.append(path);
  return svg;
}

/** Every relative time on the page said again (a minute later "just now" is "1 minute ago"). */
export function refreshTimes(root = document) {
  root.querySelectorAll("time.ago").forEach((time) => {
    time.textContent = agoText(time.dateTime);
    time.title = dateTimeText(time.dateTime);
  });
}

/** Tag and date as the title and subtitle, like the original app's pins, then the message. */
export function noteContent(post, place) {
  const fragment = document.createDocumentFragment();
  const title = document.createElement("p");
  title.className = "note-title";
  const tag = document.createElement("span");
  tag.className = "tag";
  tag.textContent = tagName(post.tag);
  // The time links to the note's own page (#/note/ID), which can be shared.
  const link = document.createElement("a");
  link.href = `#/note/${post.id}`;
  link.className = "note-link";
  link.append(agoElement(post.createdAt));
  title.append(tag, " · ", link);
  if (place && place.distance !== undefined) {
    const where = document.createElement("span");
    where.className = "place";
    // A note within a metre has no direction worth saying ("0 m, north"): it is here.
    where.textContent = ` · ${place.distance < 1 ? t("note.here") : t("note.where", { distance: distanceText(place.distance), direction: compassWord(place.bearing) })}`;
    title.append(where);
  }
  if (post.expiresAt) {
    // A note with a lifetime says until when it stays.
    const until = document.createElement("span");
    until.className = "until";
    const end = document.createElement("time");
    end.dateTime = post.expiresAt;
    end.textContent = shortDateTime(post.expiresAt);
    until.append(` · ${t("note.until")} `, end);
    title.append(until);
  }
  const message = document.createElement("p");
  message.className = "message";
  message.textContent = post.message;
  markLanguage(message, post.message);
  fragment.append(title, message);
  return fragment;
}

export function noteItem(post, place) {
  const item = document.createElement("li");
  item.className = "note";
  item.dataset.id = String(post.id);
  if (place) item.dataset.distance = String(place.distance);
  item.append(noteContent(post, place));
  return item;
}
