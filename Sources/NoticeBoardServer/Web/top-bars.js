// Looking around on a phone takes the screen above the tab bar; the bars that say the board is
// offline or in the past stay above it (`--look-top`), so they never lie over its controls.

const BARS = ["#offline", "#past-banner"];

export function keepLookBelowTopBars() {
  const bars = BARS.map((selector) => document.querySelector(selector)).filter(Boolean);
  const place = () => {
    const bottom = Math.max(0, ...bars.map((bar) => bar.getBoundingClientRect().bottom));
    document.documentElement.style.setProperty("--look-top", `${Math.ceil(bottom)}px`);
  };
  const observer = new ResizeObserver(place);
  for (const element of [...bars, document.querySelector(".brand")]) if (element) observer.observe(element);
  window.addEventListener("resize", place);
  place();
}
