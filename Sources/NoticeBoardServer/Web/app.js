// NoticeBoard's first page: nearby notes and a form to leave one. Messages are always
// rendered as text (textContent), never as HTML.

const $ = (selector) => document.querySelector(selector);
const where = $("#where");
const list = $("#posts");
const status = $("#status");
const more = $("#more");
let nextCursor = null;

const compass = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];

export function direction(bearing) {
  return compass[Math.round(bearing / 45) % 8];
}

export function distanceText(metres) {
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(1)} km`;
}

function renderPost(post) {
  const item = document.createElement("li");
  const meta = document.createElement("p");
  meta.className = "meta";
  const when = new Date(post.createdAt).toLocaleString();
  meta.textContent = `${post.tag} · ${when} · ${distanceText(post.distance)}, ${direction(post.bearing)}`;
  const message = document.createElement("p");
  message.className = "message";
  message.textContent = post.message;
  item.append(meta, message);
  return item;
}

async function load(append) {
  const form = new FormData(where);
  const params = new URLSearchParams({ lat: form.get("lat"), lon: form.get("lon"), radius: form.get("radius") });
  if (append && nextCursor) params.set("cursor", nextCursor);
  status.textContent = "Looking…";
  const response = await fetch(`/api/v1/posts/nearby?${params}`);
  const body = await response.json();
  if (!response.ok) {
    status.textContent = body.error.message;
    return;
  }
  if (!append) list.replaceChildren();
  list.append(...body.posts.map(renderPost));
  nextCursor = body.nextCursor;
  more.hidden = !nextCursor;
  status.textContent = list.children.length ? `${list.children.length} notes here` : "No notes here yet: leave the first.";
}

where.addEventListener("submit", (event) => {
  event.preventDefault();
  load(false);
});
more.addEventListener("click", () => load(true));

$("#locate").addEventListener("click", () => {
  if (!navigator.geolocation) {
    status.textContent = "This browser cannot tell where you are; type a position.";
    return;
  }
  navigator.geolocation.getCurrentPosition(
    (position) => {
      where.lat.value = position.coords.latitude.toFixed(6);
      where.lon.value = position.coords.longitude.toFixed(6);
      load(false);
    },
    () => { status.textContent = "Location permission denied; type a position."; },
  );
});

const message = $("#message");
message.addEventListener("input", () => {
  $("#counter").textContent = `${[...message.value.trim()].length} / 2000`;
});

$("#compose").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const errorLine = $("#compose-error");
  errorLine.textContent = "";
  if (!where.lat.value || !where.lon.value) {
    errorLine.textContent = "Set your position first (Use my location).";
    return;
  }
  const response = await fetch("/api/v1/posts", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({
      lat: Number(where.lat.value), lon: Number(where.lon.value),
      message: form.get("message"), tag: form.get("tag"),
    }),
  });
  const body = await response.json();
  if (!response.ok) {
    errorLine.textContent = body.error.field ? `${body.error.field}: ${body.error.message}` : body.error.message;
    return;
  }
  event.target.message.value = "";
  load(false);
});
