// The JSON API, with its errors turned into exceptions that keep the contract's `field`.

export class APIError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.field = body?.error?.field ?? null;
    this.code = body?.error?.code ?? null;
  }
}

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) value.forEach((item) => search.append(key, item));
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

async function parse(response) {
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new APIError(response.status, body);
  return body;
}

export async function getJSON(path, params = {}, options = {}) {
  return parse(await fetch(path + query(params), { headers: { Accept: "application/json" }, ...options }));
}

export async function postJSON(path, body, headers = {}) {
  return parse(await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
    body: JSON.stringify(body),
  }));
}

export function streamURL(params) {
  return "/api/v1/posts/stream" + query(params);
}
