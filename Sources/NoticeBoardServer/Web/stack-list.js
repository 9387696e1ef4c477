// The notes of a stack that never parts (they share one spot): a compact list in the map's popup,
// each note one button with its distance and direction from the person, its tag, its age and the
// start of its message; pressing one opens the note's page (likes, replies, report).
import { bearing, distance } from "./geo.js";
import { compassWord, distanceText, markLanguage, t } from "./i18n.js";
import { agoElement, tagName } from "./render.js";
import { knownPost } from "./reactions.js";
import { state, hasPosition } from "./state.js";

/** Where a note is from the person, in words ("35 m north-east", "here"), or "" without a position. */
export function whereFromYou(post) {
  if (!hasPosition()) return "";
  const metres = distance(state.lat, state.lon, post.lat, post.lon);
  if (metres < 1) return t("note.here");
  return t("note.where", { distance: distanceText(metres), direction: compassWord(bearing(state.lat, state.lon, post.lat, post.lon)) });
}

function row(post, openNote) {
  const current = knownPost(post.id) ?? post;
  const item = document.createElement("li");
  item.dataset.id = String(post.id);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "stack-note";
  button.setAttribute("aria-haspopup", "dialog");
  const meta = document.createElement("span");
  meta.className = "meta";
  const where = whereFromYou(current);
  meta.append([where, tagName(current.tag)].filter(Boolean).join(" · "), " · ", agoElement(current.createdAt));
  const message = document.createElement("span");
  message.className = "message";
  message.textContent = current.message ?? "";
  markLanguage(message, current.message ?? "");
  button.append(meta, message);
  button.addEventListener("click", () => openNote(knownPost(post.id) ?? current, button));
  item.append(button);
  return item;
}

/** The popup's content: "N notes at this spot", where that is, then one row per note. */
export function stackList(posts, openNote) {
  const content = document.createElement("div");
  content.className = "popup stack-list";
  const heading = document.createElement("p");
  heading.className = "stack-heading";
  const words = document.createElement("span");
  words.className = "stack-words";
  words.textContent = t("map.stackHere", { count: posts.length });
  heading.append(words);
  const where = whereFromYou(posts[0]);
  if (where) {
    const from = document.createElement("span");
    from.className = "stack-where";
    from.textContent = ` · ${where}`;
    heading.append(from);
  }
  const list = document.createElement("ul");
  list.append(...posts.map((post) => row(post, openNote)));
  content.append(heading, list);
  return content;
}
