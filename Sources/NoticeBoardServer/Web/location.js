// Where the person is: asked of the browser once when the page opens (and again only when they
// press a locate button). Each failure says what happened — permission refused, no position
// found, too slow — and what to do instead; "Finding where you are…" goes once it is answered.
import { onLanguage, t } from "./i18n.js";
import { state, update, announce, announcing } from "./state.js";

const listeners = new Set();
const failureListeners = new Set();
let finding = false;

/** `listener(error)` runs when asking for the position failed (the map then opens on the busiest area). */
export function onLocationFailed(listener) {
  failureListeners.add(listener);
}

/** `listener({lat, lon})` runs after each position the device gives (the map centres on it). */
export function onLocated(listener) {
  listeners.add(listener);
}

/** The words for a GeolocationPositionError: denied, unavailable or timed out are different things. */
export function locationErrorText(error) {
  if (!error) return t("location.unsupported");
  if (error.code === 1) return t("location.denied");
  if (error.code === 3) return t("location.timeout");
  return t("location.unavailable");
}

// What went wrong stays in sight (the status line moves on to the next view's news) until a position comes.
const problem = document.getElementById("location-problem");
let problemWords = null; // () => text, said again in another language
function showProblem(words) {
  problemWords = words || null;
  if (!problem) return;
  document.getElementById("location-problem-text").textContent = words ? words() : "";
  problem.hidden = !words;
}
onLanguage(() => { if (problemWords) showProblem(problemWords); });
document.getElementById("location-retry")?.addEventListener("click", () => locate());

/** Asks the browser where the person is; resolves to true when a position came. */
export function locate() {
  if (!navigator.geolocation) {
    showProblem(() => locationErrorText(null));
    failureListeners.forEach((listener) => listener(null));
    return Promise.resolve(false);
  }
  if (finding) return Promise.resolve(false);
  finding = true;
  const findingText = t("location.finding");
  announce(findingText);
  return new Promise((resolve) => {
    navigator.geolocation.getCurrentPosition(
      (position) => {
        finding = false;
        if (announcing(findingText)) announce(t("location.found"));
        const here = { lat: position.coords.latitude, lon: position.coords.longitude };
        showProblem(null);
        update({ ...here, source: "device" });
        listeners.forEach((listener) => listener(here));
        resolve(true);
      },
      (error) => {
        finding = false;
        announce(""); // the box below says it (an alert, read once), so the status line does not repeat it
        showProblem(() => locationErrorText(error));
        failureListeners.forEach((listener) => listener(error));
        resolve(false);
      },
      { enableHighAccuracy: true, timeout: 15000, maximumAge: 30000 },
    );
  });
}

/** A position the person chose themselves (a confirmed long-press, typed coordinates). */
export function setByHand(lat, lon) {
  showProblem(null);
  update({ lat: Number(lat.toFixed(6)), lon: Number(lon.toFixed(6)), source: "hand" });
}

export const positionSource = () => state.source;
