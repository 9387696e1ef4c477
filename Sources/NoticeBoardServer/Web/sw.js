// The page's service worker: it only turns a Web Push message ({"post": …}, the message perhaps
// shortened with "truncated": true) into a notification, and a tap on it into the note's page
// (#/note/ID), in a tab of the board that is already open when there is one.

self.addEventListener("install", () => self.skipWaiting());
// Controlling the open pages at once lets a tap on a notification reach the tab already open.
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** The language of a note's text from its script (as the page guesses it), or undefined. */
function textLanguage(text) {
  if (/[\u3040-\u30ff]/u.test(text)) return "ja";
  if (/\p{Script=Han}/u.test(text)) return "zh";
  if (/\p{Script=Hangul}/u.test(text)) return "ko";
  if (/\p{Script=Latin}/u.test(text)) return "en";
  return undefined;
}

self.addEventListener("push", (event) => {
  let data = null;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null;
  }
  const post = data?.post;
  // The browser requires a notification for every push; without a note it names the board only.
  if (!post || typeof post.id !== "number") {
    event.waitUntil(self.registration.showNotification("NoticeBoard", { icon: "/favicon.svg", data: { url: "/" } }));
    return;
  }
  const message = String(post.message ?? "");
  const body = data.truncated && !message.endsWith("…") ? `${message}…` : message;
  const options = {
    body,
    tag: `note-${post.id}`, // the same note pushed twice replaces its notification
    icon: "/favicon.svg",
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
