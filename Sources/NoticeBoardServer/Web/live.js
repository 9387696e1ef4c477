// Live updates: one Server-Sent Events stream for the area in view (the map's box, or the
// circle around the person); new notes appear, hidden, deleted and expired ones vanish, and
// replies to the notes in the area are counted (and shown in an open thread, or taken out of it
// when hidden) without reloading.
// EventSource reconnects by itself and resumes with Last-Event-ID (an `event: reset` when it
// missed more than the server replays reloads the view); whether it is connected is
// told to the page, which says "live updates paused" while it is not.
import { streamURL } from "./api.js";

let source = null;
let currentURL = null;
let currentParams = null;
let currentHandlers = null;
const statusListeners = new Set();
let live = true;

export const isLive = () => live;
export function onLiveChange(listener) {
  statusListeners.add(listener);
}
function setLive(value) {
  if (value === live) return;
  live = value;
  statusListeners.forEach((listener) => listener(value));
}

/** Follows `params` (a bbox or lat/lon/radius, plus tags); the same area keeps its stream unless `force`. */
export function follow(params, handlers, force = false) {
  const url = streamURL(params);
  if (url === currentURL && !force && source && source.readyState !== EventSource.CLOSED) return;
  source?.close();
  currentURL = url;
  currentParams = params;
  currentHandlers = handlers;
  const { onPost, onRemove, onReply, onReplyRemove, onReset } = handlers;
  const opened = new EventSource(url);
  source = opened;
  opened.addEventListener("open", () => { if (source === opened) setLive(true); });
  opened.addEventListener("error", () => { if (source === opened) setLive(false); });
  opened.addEventListener("post", (event) => onPost(JSON.parse(event.data)));
  opened.addEventListener("remove", (event) => onRemove(JSON.parse(event.data).id));
  opened.addEventListener("reply", (event) => onReply(JSON.parse(event.data)));
  opened.addEventListener("reply-remove", (event) => onReplyRemove(JSON.parse(event.data)));
  // More was missed than the server replays (or it restarted): the view is loaded afresh.
  opened.addEventListener("reset", () => onReset?.());
}

/** Opens the stream again at once (the "Try again" button), instead of waiting for EventSource's own retry. */
export function reconnect() {
  if (currentParams) follow(currentParams, currentHandlers, true);
}
