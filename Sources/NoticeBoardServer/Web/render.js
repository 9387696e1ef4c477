// How a note looks wherever it is shown. Messages are always text (textContent), never HTML.
import { direction, distanceText } from "./geo.js";

export function when(post) {
  return new Date(post.createdAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** Tag and date as the title and subtitle, like the original app's pins, then the message. */
export function noteContent(post, place) {
  const fragment = document.createDocumentFragment();
  const title = document.createElement("p");
  title.className = "note-title";
  const tag = document.createElement("span");
  tag.className = "tag";
  tag.textContent = post.tag;
  const date = document.createElement("time");
  date.dateTime = post.createdAt;
  date.textContent = when(post);
  title.append(tag, " · ", date);
  if (place) {
    const where = document.createElement("span");
    where.className = "place";
    where.textContent = ` · ${distanceText(place.distance)}, ${direction(place.bearing)}`;
    title.append(where);
  }
  const message = document.createElement("p");
  message.className = "message";
  message.textContent = post.message;
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
