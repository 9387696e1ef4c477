// Look around's code (the view, its walk socket and its time slider) is fetched the first time the
// view opens, not on every visit to the map: most visits never open it.
import { onChange, state } from "./state.js";

let loading = null;
let module = null;
let openNote = () => {};

/** The look-around module, set up once; loaded now if it was not. */
export function lookModule() {
  loading ??= Promise.all([import("./look.js"), import("./look-since.js")]).then(([look, since]) => {
    look.setUpLook(openNote);
    since.setUpLookSince();
    module = look;
    return look;
  });
  return loading;
}

/** Loads the view's notes (fetching its code first if need be). */
export function loadLook() {
  return lookModule().then((look) => look.loadLook());
}

/** A note that left the board leaves the view, if the view was ever opened. */
export function removeFromLook(id) {
  module?.removeFromLook(id);
}

/** `open(post, opener)` opens a note's page from a card; the view's code comes when it opens. */
export function setUpLookLoader(open) {
  openNote = open;
  if (state.view === "look") lookModule();
  onChange((changed) => { if (changed.has("view") && state.view === "look") lookModule(); });
}
