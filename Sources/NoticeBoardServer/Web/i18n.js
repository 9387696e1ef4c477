// The page's words in English, 繁體中文 and 简体中文: every string comes from a catalog
// (web/i18n/*.js), dates, relative times, numbers and distances from Intl, and the choice is
// kept in localStorage so it survives a reload; the browser's language is the default. Only the
// chosen language's catalog is fetched (each is about 30 KB), another one when it is chosen.
export const LANGUAGE_NAMES = { en: "English", "zh-Hant": "繁體中文", "zh-Hans": "简体中文" };
const STORAGE_KEY = "noticeboard-language";
const listeners = new Set();

/** The catalog language closest to a BCP 47 tag: Taiwan, Hong Kong and Macau read Traditional. */
export function matchLanguage(tag) {
  const lower = String(tag || "").toLowerCase();
  if (!lower.startsWith("zh")) return lower.startsWith("en") ? "en" : null;
  if (lower.includes("hant") || /-(tw|hk|mo)\b/.test(lower)) return "zh-Hant";
  return "zh-Hans";
}

function initialLanguage() {
  try {
    const kept = localStorage.getItem(STORAGE_KEY);
    if (kept && LANGUAGE_NAMES[kept]) return kept;
  } catch {
    // No storage: fall back to the browser's languages.
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const match = matchLanguage(tag);
    if (match) return match;
  }
  return "en";
}

/** A language's catalog, fetched when first needed (every module waits for the first one). A page
 *  with `data-catalog="moderate"` on its root adds the moderation page's words (`i18n/moderate/`). */
const loaded = new Map();
const extra = document.documentElement.dataset.catalog;
export function loadCatalog(code) {
  if (!loaded.has(code)) {
    const parts = [import(`./i18n/${code}.js`), ...(extra ? [import(`./i18n/${extra}/${code}.js`)] : [])];
    loaded.set(code, Promise.all(parts).then((modules) => Object.assign({}, ...modules.map((module) => module.default))));
  }
  return loaded.get(code);
}

export let language = initialLanguage();
let catalog = await loadCatalog(language).catch(() => {
  // A catalog that cannot load (offline, not cached) falls back to English, which may be cached.
  language = "en";
  return loadCatalog("en");
});

/** Dates and numbers in the reader's own variant of the chosen language (en-GB writes "27 Nov 2026",
 *  zh-HK its own), when the browser names one; the words stay the catalog's. */
export let formatLocale = regionalVariant(language);
function regionalVariant(code) {
  try {
    const chosen = new Intl.Locale(code).maximize();
    for (const candidate of navigator.languages ?? []) {
      const found = new Intl.Locale(candidate).maximize();
      if (found.language === chosen.language && found.script === chosen.script) return candidate;
    }
  } catch {
    // A malformed browser language: the chosen language's own formats.
  }
  return code;
}

/** Whether the catalog has words for `key` (a preset tag has; a tag someone made up has not). */
export const hasText = (key) => catalog[key] !== undefined;

/** The text of `key` with `{name}` filled in; a `{one, other}` entry follows `count` by Intl's plural rules. */
export function t(key, params = {}) {
  let entry = catalog[key];
  if (entry === undefined) {
    console.warn(`i18n: no text for "${key}"`);
    return key;
  }
  if (typeof entry === "object") {
    const rule = new Intl.PluralRules(language).select(params.count ?? 0);
    entry = entry[rule] ?? entry.other;
  }
  return entry.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === "number" ? number(value) : String(value);
  });
}

export const number = (value, options) => new Intl.NumberFormat(formatLocale, options).format(value);

/** Metres as people read them: "40 m", "1.2 km" (公尺/米 in Chinese). */
export function distanceText(metres) {
  if (metres < 1000) return number(Math.round(metres), { style: "unit", unit: "meter", unitDisplay: "short" });
  return number(metres / 1000, { style: "unit", unit: "kilometer", unitDisplay: "short", maximumFractionDigits: 1 });
}

export const degreesText = (degrees) => number(Math.round(degrees) % 360, { style: "unit", unit: "degree", unitDisplay: "narrow" });

const COMPASS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];
/** The compass word of a bearing, from the catalog ("north", "北"). */
export const compassWord = (bearing) => t(`compass.${COMPASS[Math.round((((bearing % 360) + 360) % 360) / 45) % 8]}`);

export const dateText = (time, options = { day: "numeric", month: "short", year: "numeric" }) => new Date(time).toLocaleDateString(formatLocale, options);
export const dateTimeText = (time, options = { dateStyle: "medium", timeStyle: "short" }) => new Date(time).toLocaleString(formatLocale, options);

/** "5 min ago", "yesterday", "in 3 days": the nearest unit, with Intl's words. */
export function relativeTime(time, now = Date.now()) {
  const seconds = (new Date(time).getTime() - now) / 1000;
  const format = new Intl.RelativeTimeFormat(formatLocale, { numeric: "auto", style: "long" });
  const steps = [["year", 31_536_000], ["month", 2_592_000], ["week", 604_800], ["day", 86_400], ["hour", 3_600], ["minute", 60]];
  for (const [unit, size] of steps) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return t("time.justNow");
}

/** The language of a note's text, guessed from its script: Han → zh (kana → ja), Hangul → ko;
 *  Latin text on a Chinese page → en, so a screen reader does not read it with a Chinese voice. */
export function guessTextLanguage(text) {
  if (/[\u3040-\u30ff]/u.test(text)) return "ja";
  if (/\p{Script=Han}/u.test(text)) return "zh";
  if (/\p{Script=Hangul}/u.test(text)) return "ko";
  if (language !== "en" && /\p{Script=Latin}/u.test(text)) return "en";
  return null;
}

/** Sets `lang` on an element holding a note's text (left unset when the script says nothing). */
export function markLanguage(element, text) {
  const guess = guessTextLanguage(text);
  if (guess) element.lang = guess; else element.removeAttribute("lang");
}

/** Fills every `data-i18n` element's text and every `data-i18n-attr="attr:key;attr:key"` attribute. */
export function translatePage(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((element) => { element.textContent = t(element.dataset.i18n); });
  root.querySelectorAll("[data-i18n-attr]").forEach((element) => {
    for (const pair of element.dataset.i18nAttr.split(";")) {
      const [attribute, key] = pair.split(":").map((part) => part.trim());
      if (attribute && key) element.setAttribute(attribute, t(key));
    }
  });
}

export function onLanguage(listener) {
  listeners.add(listener);
}

/** Switches the language on the fly once its catalog is here: the page's `lang`, its static
 *  words, then each view redraws. */
export async function setLanguage(code) {
  if (!LANGUAGE_NAMES[code]) return;
  let words;
  try {
    words = await loadCatalog(code);
  } catch {
    loaded.delete(code); // offline: the next choice tries again
    return;
  }
  catalog = words;
  language = code;
  formatLocale = regionalVariant(code);
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Kept for this page only.
  }
  document.documentElement.lang = code;
  translatePage();
  listeners.forEach((listener) => listener(code));
}

/** A language picker (a <select>) wired to setLanguage; each option is named in its own language. */
export function setUpLanguagePicker(select) {
  select.replaceChildren(...Object.entries(LANGUAGE_NAMES).map(([code, name]) => {
    const option = new Option(name, code);
    option.lang = code;
    return option;
  }));
  select.value = language;
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    select.value = language; // a catalog that could not load leaves the language as it was
  });
  onLanguage(() => { select.value = language; });
}

/** Applies the chosen language to the page as it loads. */
export function startI18n() {
  document.documentElement.lang = language;
  translatePage();
}
