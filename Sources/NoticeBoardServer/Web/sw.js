// The page's service worker. Offline it keeps the page working: the page's files are cached when
// it installs (and refreshed whenever they are fetched online), and the board's answers the page
// last read are kept, each with the time it was saved (`X-NoticeBoard-Saved-At`), so a reload
// without a connection shows the last board seen and says how old it is. Online, everything comes
// from the network first. It also turns Web Push messages into notifications: a new note in an
// area (`{"post": …}`) or a reply to one of this device's notes (`{"reply": …, "post": {id, message}}`),
// and a tap on one into the note's page (#/note/ID), in a tab of the board already open if any.

const SHELL = "noticeboard-shell-v2";
const BOARD = "noticeboard-board-v1";
const WORDS = "/__noticeboard/words.json"; // the page's words for notifications, in its language
const BOARD_ENTRIES = 80; // answers kept: the newest ones, the board last seen

// The page's own files (the language catalogs come as the page asks for them).
const SHELL_FILES = [
  "/", "/style.css", "/manifest.webmanifest", "/favicon.svg", "/icons/icon-192.png", "/icons/icon.svg",
  "/app.js", "/api.js", "/busiest-area.js", "/camera.js", "/compose.js", "/device.js", "/errors.js", "/filters.js", "/geo.js",
  "/i18n.js", "/leaflet-words.js", "/list.js", "/live.js", "/location.js", "/look.js", "/look-loader.js", "/look-since.js", "/map.js", "/map-size.js", "/mine.js", "/mine-loader.js", "/outbox.js",
  "/past.js", "/places.js", "/push.js", "/reactions.js", "/render.js", "/reply-push.js", "/stack-list.js", "/state.js", "/thread.js", "/top-bars.js",
  "/offline.js", "/walk.js",
];
// Leaflet is optional (a server without it still serves the list and look around): kept when there.
const OPTIONAL_FILES = ["/vendor/leaflet/leaflet.css", "/vendor/leaflet/leaflet.min.js"];

self.addEventListener("install", (event) => {
  // `no-cache` revalidates with the server: an unchanged file costs a 304, not its bytes again.
  const fresh = (url) => new Request(url, { cache: "no-cache" });
  event.waitUntil(caches.open(SHELL).then((cache) => Promise.all([
    cache.addAll(SHELL_FILES.map(fresh)),
    Promise.allSettled(OPTIONAL_FILES.map((url) => cache.add(fresh(url)))),
  ])).then(() => self.skipWaiting()));
});

// Controlling the open pages at once lets a tap on a notification reach the tab already open,
// and lets a first visit's page be served offline on its next load.
self.addEventListener("activate", (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) {
    if (name.startsWith("noticeboard-shell-") && name !== SHELL) await caches.delete(name);
  }
  await self.clients.claim();
})()));

/** The board's answers worth keeping: reads of notes, places and tags (not streams, not moderation). */
function boardAnswer(url) {
  if (!url.pathname.startsWith("/api/v1/")) return url.pathname === "/config.json";
  if (url.pathname.startsWith("/api/v1/moderation/") || url.pathname.startsWith("/api/v1/auth/")) return false;
  return !url.pathname.endsWith("/stream") && url.pathname !== "/api/v1/walk";
}

/** A copy of `response` saying when it was saved, so the page can say how old it is. */
async function stamped(response) {
  const headers = new Headers(response.headers);
  headers.set("X-NoticeBoard-Saved-At", new Date().toISOString());
  return new Response(await response.clone().blob(), { status: response.status, statusText: response.statusText, headers });
}

/** Keeps the newest `BOARD_ENTRIES` answers: a map panned all day does not fill the phone. */
async function trim(cache) {
  const keys = await cache.keys();
  for (const request of keys.slice(0, Math.max(0, keys.length - BOARD_ENTRIES))) await cache.delete(request);
}

async function fromBoard(request) {
  const cache = await caches.open(BOARD);
  try {
    const response = await fetch(request);
    if (response.ok) {
      await cache.delete(request); // re-added last: the cache's order is the order of saving
      await cache.put(request, await stamped(response));
      trim(cache);
    }
    return response;
  } catch (error) {
    // Only the same question's answer: another filter's or place's notes would pass for these.
    const saved = await cache.match(request);
    if (saved) return saved;
    throw error;
  }
}

async function fromShell(request) {
  const cache = await caches.open(SHELL);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") cache.put(request, response.clone());
    return response;
  } catch (error) {
    // A page address keeps its query (?view=list&lat=…): the one page answers them all.
    const saved = await cache.match(request, { ignoreSearch: request.mode === "navigate" })
      ?? (request.mode === "navigate" ? await cache.match("/") : undefined);
    if (saved) return saved;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.headers.get("Accept")?.includes("text/event-stream")) return;
  if (url.pathname.startsWith("/moderate") || url.pathname.startsWith("/__noticeboard/")) return;
  if (boardAnswer(url)) event.respondWith(fromBoard(request));
  else if (!url.pathname.startsWith("/api/")) event.respondWith(fromShell(request));
});

// The page tells the worker its words for notifications, and which files it loaded (its language's catalog).
self.addEventListener("message", (event) => {
  const data = event.data ?? {};
  if (data.type === "words" && data.words) {
    event.waitUntil(caches.open(SHELL).then((cache) => cache.put(WORDS, new Response(JSON.stringify(data.words), {
      headers: { "Content-Type": "application/json" },
    }))));
  } else if (data.type === "keep" && Array.isArray(data.urls)) {
    event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(data.urls.map((url) => new Request(url, { cache: "no-cache" }))))
      .catch(() => {}));
  }
});

async function words() {
  try {
    const saved = await (await caches.open(SHELL)).match(WORDS);
    return saved ? await saved.json() : {};
  } catch {
    return {};
  }
}

/** The language of a note's text from its script (as the page guesses it), or undefined. */
function textLanguage(text) {
  if (/[\u3040-\u30ff]/u.test(text)) return "ja";
  if (/\p{Script=Han}/u.test(text)) return "zh";
  if (/\p{Script=Hangul}/u.test(text)) return "ko";
  if (/\p{Script=Latin}/u.test(text)) return "en";
  return undefined;
}

async function notifyReply(data) {
  const { reply, post } = data;
  const said = await words();
  const message = String(reply.message ?? "");
  const options = {
    body: message,
    tag: `reply-${reply.id}`,
    icon: "/icons/icon-192.png",
    data: { url: `/#/note/${post.id}`, id: post.id },
    timestamp: Date.parse(reply.createdAt) || Date.now(),
  };
  const lang = textLanguage(message);
  if (lang) options.lang = lang;
  const note = [...String(post.message ?? "")].slice(0, 40).join("");
  const title = (said.replyTitle ?? "A reply to your note “{note}”").replace("{note}", note);
  await self.registration.showNotification(title, options);
}

self.addEventListener("push", (event) => {
  let data = null;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null;
  }
  if (data?.reply && typeof data.post?.id === "number") {
    event.waitUntil(notifyReply(data));
    return;
  }
  const post = data?.post;
  // The browser requires a notification for every push; without a note it names the board only.
  if (!post || typeof post.id !== "number") {
    event.waitUntil(self.registration.showNotification("NoticeBoard", { icon: "/icons/icon-192.png", data: { url: "/" } }));
    return;
  }
  const message = String(post.message ?? "");
  const body = data.truncated && !message.endsWith("…") ? `${message}…` : message;
  const options = {
    body,
    tag: `note-${post.id}`, // the same note pushed twice replaces its notification
    icon: "/icons/icon-192.png",
    data: { url: `/#/note/${post.id}`, id: post.id },
    timestamp: Date.parse(post.createdAt) || Date.now(),
  };
  const lang = textLanguage(message);
  if (lang) options.lang = lang;
  // The title is the note's tag, as its poster wrote it: no words of the page's own to translate.
  event.waitUntil(self.registration.showNotification(`#${post.tag} · NoticeBoard`, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? "/", self.location.origin);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const board = windows.find((client) => new URL(client.url).origin === url.origin);
    if (board) {
      await board.focus();
      // The open page routes #/note/ID itself, keeping its view, position and filters.
      board.postMessage({ type: "open-note", id: event.notification.data?.id });
      return;
    }
    await self.clients.openWindow(url.href);
  })());
});
