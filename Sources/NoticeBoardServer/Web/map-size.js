// The map's height: what the bars and banners above it leave of the screen, so that its own
// buttons (locate, notify) and its foot stay in reach whatever a place's banner or a notice adds.

const SMALLEST = 320; // below this a map is no use: the page scrolls instead
const SLACK = 24; // px either way: the locate button sits 34 px above the map's foot
const ABOVE = ["#filters", "#place-banner", "#location-problem", "#link-problem", "#status", "#notify", ".brand", "#past-banner", "#offline"];

/** Keeps `container` fitted; `resized` is called after each change of its height (Leaflet must be told). */
export function keepMapFitted(container, resized) {
  const fit = () => {
    if (container.offsetParent === null) return; // another view is open: measured when the map's is
    const height = fittedHeight(container);
    // A status line wrapping to two lines is no reason to fetch the notes again.
    if (Math.abs(container.getBoundingClientRect().height - height) <= SLACK) return;
    container.style.height = `${height}px`;
    resized();
  };
  const observer = new ResizeObserver(fit);
  for (const selector of ABOVE) {
    const element = document.querySelector(selector);
    if (element) observer.observe(element);
  }
  window.addEventListener("resize", fit);
  return fit;
}

function fittedHeight(container) {
  const scroller = document.querySelector(".layout");
  const box = container.getBoundingClientRect();
  // Where the map starts with nothing scrolled: on a phone the board's column scrolls, on a desktop the window.
  const top = box.top + (scroller?.scrollTop ?? 0) + window.scrollY;
  // On a phone the tab bar is the screen's foot; on a desktop it is in the header.
  const tabbar = document.querySelector(".tabbar")?.getBoundingClientRect();
  const bottom = tabbar && tabbar.top > window.innerHeight / 2 ? tabbar.top : window.innerHeight;
  // The line under the map (how to set a position by hand) stays on the first screen too.
  const hint = container.closest(".view")?.querySelector(".hint")?.getBoundingClientRect();
  const below = hint && hint.height > 0 ? hint.bottom - box.bottom : 0;
  return Math.max(SMALLEST, Math.floor(bottom - top - below - 8));
}
