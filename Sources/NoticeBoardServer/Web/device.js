// This browser's device key: a random value made once and kept in localStorage, sent as
// `X-Device-Key` on every API request so the server can tell which notes are this device's
// (`mine`: it may delete them) and which it liked (`likedByMe`). The server keeps only a hash.

const STORAGE_KEY = "noticeboard-device-key";
const VALID = /^[A-Za-z0-9_-]{16,128}$/;

/** `length` random characters of the URL-safe base64 alphabet (A-Z a-z 0-9 - _). */
export function randomToken(length = 32) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return [...bytes].map((byte) => alphabet[byte & 63]).join("");
}

let key = null;

/** The key, made and stored on first use. Without storage (a private window that refuses it)
 *  the key lasts as long as the page. */
export function deviceKey() {
  if (key) return key;
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && VALID.test(stored)) {
      key = stored;
      return key;
    }
  } catch {
    // No storage: a key for this page only.
  }
  key = randomToken(32);
  try {
    localStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Kept in memory only.
  }
  return key;
}
