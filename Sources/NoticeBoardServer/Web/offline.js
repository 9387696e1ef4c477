// The page offline: registers the service worker (sw.js) once the page has loaded, so a reload
// without a connection still opens the page and the last board seen; tells the worker the words
// of its notifications and the language catalog in use (kept for offline too).
import { language, onLanguage, t } from "./i18n.js";

export const workerSupported = () => "serviceWorker" in navigator && window.isSecureContext;

/** The worker's registration, once registered (null where there is none). */
let registered = null;
export const registration = () => registered ?? Promise.resolve(null);

async function tellWorker() {
  const worker = (await navigator.serviceWorker.ready).active;
  worker?.postMessage({ type: "words", words: { replyTitle: t("push.replyTitle") } });
  worker?.postMessage({ type: "keep", urls: [`/i18n/${language}.js`] });
}

/** Registers the worker after the page's own loading, so it takes nothing from the first screen. */
export function setUpOffline() {
  if (!workerSupported()) return;
  const start = () => {
    registered = navigator.serviceWorker.register("/sw.js").catch(() => null);
    registered.then((value) => { if (value) tellWorker(); });
  };
  if (document.readyState === "complete") setTimeout(start, 1000);
  else window.addEventListener("load", () => setTimeout(start, 1000), { once: true });
  onLanguage(() => { if (navigator.serviceWorker.controller) tellWorker(); });
}
