// My notes' code (the view and its reply-push switch) is fetched the first time the view opens:
// most visits never open it.
import { state } from "./state.js";

let loading = null;
let openNote = () => {};

/** The My notes module, set up once; loaded now if it was not. */
function mineModule() {
  loading ??= Promise.all([import("./mine.js"), import("./reply-push.js")]).then(([mine, replyPush]) => {
    replyPush.setUpReplyPush();
    mine.setUpMine(openNote);
    return mine;
  });
  return loading;
}

/** Loads the view's lists (fetching its code first if need be). */
export function loadMine() {
  return mineModule().then((mine) => mine.loadMine());
}

/** `open(post, opener)` opens a note's page from the view. */
export function setUpMineLoader(open) {
  openNote = open;
  if (state.view === "mine") mineModule();
}
