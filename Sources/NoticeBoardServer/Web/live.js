// Live updates: one Server-Sent Events stream for the area in view (the map's box, or the
// circle around the person); new notes appear and hidden ones vanish without reloading.
// EventSource reconnects by itself and resumes with Last-Event-ID.
import { streamURL } from "./api.js";

let source = null;
let currentURL = null;

/** Follows `params` (a bbox or lat/lon/radius, plus tags); the same area keeps its stream. */
export function follow(params, { onPost, onRemove }) {
  const url = streamURL(params);
  if (url === currentURL) return;
  source?.close();
  currentURL = url;
  source = new EventSource(url);
  source.addEventListener("post", (event) => onPost(JSON.parse(event.data)));
  source.addEventListener("remove", (event) => onRemove(JSON.parse(event.data).id));
}
