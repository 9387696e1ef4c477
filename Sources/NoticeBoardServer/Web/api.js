// The JSON API, with its errors turned into exceptions that keep the contract's `field`.

export class APIError extends Error {
  constructor(status, body, retryAfter = null) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.field = body?.error?.field ?? null;
    this.code = body?.error?.code ?? null;
    this.retryAfter = retryAfter; // seconds, from a 429's Retry-After
  }
}

// Whether the board answers: every request says so, and the page's offline banner listens.
const connectionListeners = new Set();
let reachable = true;
export const boardReachable = () => reachable;
export function onConnection(listener) {
  connectionListeners.add(listener);
}
function setReachable(value) {
  if (value === reachable) return;
  reachable = value;
  connectionListeners.forEach((listener) => listener(value));
}

// Offline, the service worker answers with what it saved of the board, stamped with when: the page
// says the board cannot be reached and how old what it shows is.
let savedAt = null;
export const shownFromSaved = () => savedAt;

// Headers every request of this page carries (the public page's device key).
const always = {};

export function sendWith(headers) {
  Object.assign(always, headers);
}

// Query parameters; empty values are left out, an array repeats its key.
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) value.forEach((item) => search.append(key, item));
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

// One call: `params` go into the query, `body` is sent as JSON. Resolves to the parsed body
// (null for 204), rejects with an APIError.
export async function request(method, path, { params = {}, body, headers = {}, raw = false, ...options } = {}) {
  const sent = { Accept: "application/json", ...always, ...headers };
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path + query(params), {
      method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), ...options,
    });
  } catch (error) {
    if (error.name !== "AbortError") setReachable(false);
    throw error;
  }
  const saved = response.headers.get("X-NoticeBoard-Saved-At");
  savedAt = saved && Number.isFinite(Date.parse(saved)) ? saved : null;
  if (savedAt) {
    // Said as unreachable even when it was already: the age of what is shown is news.
    reachable = true;
    setReachable(false);
  } else {
    setReachable(response.status !== 502 && response.status !== 504);
  }
  if (response.status === 204) return null;
  const parsed = await response.json().catch(() => null);
  if (!response.ok) {
    const retryAfter = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    throw new APIError(response.status, parsed, Number.isFinite(retryAfter) ? retryAfter : null);
  }
  return raw ? response.status : parsed; // `raw`: the status alone, where 200 and 202 mean different things
}

export function getJSON(path, params = {}, options = {}) {
  return request("GET", path, { params, ...options });
}

export function postJSON(path, body, headers = {}) {
  return request("POST", path, { body, headers });
}

export function streamURL(params) {
  return "/api/v1/posts/stream" + query(params);
}
