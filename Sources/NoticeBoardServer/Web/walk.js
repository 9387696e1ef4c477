// Walking: the look-around view's WebSocket (GET /api/v1/walk). The page says where it stands (at
// most four updates a second, only when something changed) and hears the notes that come into its
// circle (`enter`, with distance and bearing) and leave it (`leave`), new notes included. When the
// socket drops it tries again after a growing pause; the view loads over HTTP meanwhile.

const MIN_INTERVAL = 250; // ms between updates: four a second, well under the server's ten
const FIRST_RETRY = 1000;
const LAST_RETRY = 30_000;

let socket = null;
let handlers = null;
let wanted = false; // whether the view wants a socket (it is shown and can walk)
let open = false;
let retry = FIRST_RETRY;
let retryTimer = null;
let sendTimer = null;
let lastSentAt = 0;
let pending = null; // the newest update not yet sent
let sentText = null; // what the open socket was last told, so an unchanged position is not sent again
let openedAt = 0;

export const walkOpen = () => open;

function walkURL() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/api/v1/walk`;
}

function flush() {
  sendTimer = null;
  if (!open || !pending) return;
  const wait = lastSentAt + MIN_INTERVAL - performance.now();
  if (wait > 0) {
    // Too soon after the last one: the newest position goes when the interval is up.
    sendTimer = setTimeout(flush, wait);
    return;
  }
  const text = JSON.stringify(pending);
  pending = null;
  if (text === sentText) return;
  socket.send(text);
  sentText = text;
  lastSentAt = performance.now();
}

/** Tells the server where the walker is now (`{lat, lon, radius, tag}`); sent at most four times a second. */
export function walkTo(update) {
  pending = update;
  if (open && !sendTimer) flush();
}

function connect() {
  clearTimeout(retryTimer);
  retryTimer = null;
  let opened;
  try {
    opened = new WebSocket(walkURL());
  } catch {
    scheduleRetry();
    return;
  }
  socket = opened;
  opened.addEventListener("open", () => {
    if (socket !== opened) return;
    open = true;
    openedAt = performance.now();
    sentText = null;
    handlers.onOpen();
    flush();
  });
  opened.addEventListener("message", (event) => {
    if (socket !== opened) return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "enter" && message.post) handlers.onEnter(message.post);
    else if (message.type === "leave") handlers.onLeave(message.id);
    else if (message.type === "error") handlers.onError(message.error);
  });
  opened.addEventListener("close", () => {
    if (socket !== opened) return;
    socket = null;
    const was = open;
    open = false;
    clearTimeout(sendTimer);
    sendTimer = null;
    // A socket that lasted a while starts the pauses afresh; one closed at once (a server that
    // refuses the walk) keeps them growing.
    if (was && performance.now() - openedAt > 10_000) retry = FIRST_RETRY;
    if (was) handlers.onClose();
    scheduleRetry();
  });
}

function scheduleRetry() {
  if (!wanted || retryTimer) return;
  // A little randomness, so phones that lost the same server do not all come back at once.
  retryTimer = setTimeout(() => { retryTimer = null; if (wanted) connect(); }, retry * (0.8 + Math.random() * 0.4));
  retry = Math.min(retry * 2, LAST_RETRY);
}

/** Opens the socket (if not open) with `{onOpen, onEnter(post), onLeave(id), onError(error), onClose}`. */
export function startWalk(listeners) {
  handlers = listeners;
  wanted = true;
  if (!socket && !retryTimer) connect();
}

/** Closes the socket and stops trying again (leaving the view, or a filter walking cannot follow). */
export function stopWalk() {
  wanted = false;
  clearTimeout(retryTimer);
  clearTimeout(sendTimer);
  retryTimer = null;
  sendTimer = null;
  pending = null;
  retry = FIRST_RETRY;
  const closing = socket;
  const was = open;
  socket = null;
  open = false;
  closing?.close(1000);
  if (was) handlers?.onClose();
}
