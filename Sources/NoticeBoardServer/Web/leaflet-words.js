// Leaflet's own words (the zoom buttons' "Zoom in" and "Zoom out") in the page's language, on
// the public map and the moderators' maps alike, and again whenever the language changes.
import { onLanguage, t } from "./i18n.js";

function translate(map) {
  const control = map?.zoomControl;
  if (!control) return;
  for (const [button, key] of [[control._zoomInButton, "map.zoomIn"], [control._zoomOutButton, "map.zoomOut"]]) {
    button?.setAttribute("title", t(key));
    button?.setAttribute("aria-label", t(key));
  }
}

/** Says a map's zoom buttons in the page's language, now and after every switch; Leaflet's own
 *  link ("A JS library for interactive maps", in English) goes, as on the public map. */
export function speakLeaflet(map) {
  map?.attributionControl?.setPrefix(false);
  translate(map);
  onLanguage(() => translate(map));
}
