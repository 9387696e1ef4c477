// Look around through the camera, as the original app did: the rear camera (getUserMedia,
// facingMode "environment") fills the view behind the notes, which drift where they were left;
// turning the phone to landscape opens it. A device without a camera, or a person who refuses it,
// keeps the dial view, and is told why. The camera stops whenever the view closes.
import { onLanguage, t } from "./i18n.js";
import { state, update, onChange, announce } from "./state.js";

const button = document.getElementById("look-camera");
const stage = document.getElementById("look-stage");
const note = document.getElementById("camera-note");
let video = null;
let stream = null;
let starting = null;
let noteKey = null;

export const cameraOn = () => stream !== null;

function show() {
  const on = cameraOn();
  // The pressed state says whether it is on: the name stays "Camera" (a name saying "on" would be said twice).
  button.setAttribute("aria-pressed", String(on));
  stage.classList.toggle("camera", on);
}

function sayNote(key) {
  noteKey = key;
  note.textContent = key ? t(key) : "";
  note.hidden = !key;
}

/** Starts the rear camera behind the notes; resolves to whether it runs. */
export function startCamera() {
  if (stream) return Promise.resolve(true);
  if (starting) return starting;
  if (!navigator.mediaDevices?.getUserMedia) {
    sayNote("look.cameraMissing");
    announce(t("look.cameraMissing"));
    return Promise.resolve(false);
  }
  starting = navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false })
    .then((got) => {
      // The view closed while the camera was asked for: it is not kept running unseen.
      if (state.view !== "look") {
        got.getTracks().forEach((track) => track.stop());
        return false;
      }
      stream = got;
      video = document.createElement("video");
      video.id = "look-video";
      video.className = "look-video";
      video.muted = true;
      video.autoplay = true;
      video.playsInline = true;
      video.setAttribute("aria-hidden", "true");
      video.srcObject = got;
      stage.prepend(video);
      video.play().catch(() => {});
      sayNote(null);
      show();
      announce(t("look.cameraStarted"));
      return true;
    }, (error) => {
      const key = error?.name === "NotAllowedError" || error?.name === "SecurityError" ? "look.cameraDenied" : "look.cameraMissing";
      sayNote(key);
      announce(t(key));
      return false;
    })
    .finally(() => { starting = null; });
  return starting;
}

export function stopCamera() {
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  video?.remove();
  video = null;
  show();
}

/** Turning a phone (a touch screen) to landscape opens look around through the camera, as the
 *  original app's gesture did; back to portrait leaves the view as it is. */
function watchLandscape() {
  const landscape = window.matchMedia("(orientation: landscape)");
  landscape.addEventListener("change", () => {
    if (!landscape.matches || navigator.maxTouchPoints === 0) return;
    if (state.view !== "look") update({ view: "look" });
    startCamera();
  });
}

export function setUpCamera() {
  if (!button) return;
  button.addEventListener("click", () => {
    if (cameraOn()) {
      stopCamera();
      announce(t("look.cameraStopped"));
    } else {
      startCamera();
    }
  });
  onChange((changed) => { if (changed.has("view") && state.view !== "look") stopCamera(); });
  // A page hidden (another app in front) lets the camera go; it is asked again only by a press.
  document.addEventListener("visibilitychange", () => { if (document.hidden) stopCamera(); });
  onLanguage(() => {
    show();
    if (noteKey) note.textContent = t(noteKey);
  });
  watchLandscape();
  show();
}
