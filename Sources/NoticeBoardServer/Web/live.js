// Live updates: one Server-Sent Events stream for the area in view (the map's box, or the
// circle around the person); new notes appear, hidden, deleted and expired ones vanish, and
// replies to the notes in the area are counted (and shown in an open thread) without reloading.
// EventSource reconnects by itself and resumes with Last-Event-ID.
import { streamURL } from "./api.js";

let source = null;
let currentURL = null;

/** Follows `params` (a bbox or lat/lon/radius, plus tags); the same area keeps its stream. */
export function follow(params, { onPost, onRemove, onReply }) {
  const url = streamURL(params);
  if (url === currentURL) return;
  source?.close();
  currentURL = url;
  source = new EventSource(url);
  source.addEventListener("post", (event) => onPost(JSON.parse(event.data)));
  source.addEventListener("remove", (event) => onRemove(JSON.parse(event.data).id));
  source.addEventListener("reply", (event) => onReply(JSON.parse(event.data)));
}
