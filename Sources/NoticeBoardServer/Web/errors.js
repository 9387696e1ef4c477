// What went wrong, in words people understand and in their language: the API's error codes and
// fields become sentences from the catalog; its raw English texts are never shown.
import { t } from "./i18n.js";

const FIELD_KEYS = {
  message: "error.field.message", tag: "error.field.tag", lat: "error.field.position", lon: "error.field.position",
  heading: "error.field.heading", expiresAt: "error.field.expiresAt", reason: "error.field.reason",
  accuracy: "error.field.position", radius: "error.field.radius", from: "error.field.time", to: "error.field.time",
  asOf: "error.field.asOf", place: "error.field.place",
  "area.radius": "error.field.radius", "area.place": "error.field.place", "area.lat": "error.field.position", "area.lon": "error.field.position",
  "subscription.endpoint": "error.field.pushService", "subscription.keys.p256dh": "error.field.pushService", "subscription.keys.auth": "error.field.pushService",
};

/** A sentence for a failed request; `action` names what was tried ("posts", "likes", "reports"…) for 429s. */
export function humanError(error, action = "requests") {
  if (!error) return "";
  if (error instanceof TypeError || error.name === "TypeError") return t("error.offline");
  if (error.status === 429) return t(`error.rateLimited.${action}`, { seconds: error.retryAfter ?? 30 });
  if (error.status === 404) return t("error.notFound");
  if (error.status === 413) return t("error.field.message");
  if (error.status === 503) return t("error.unavailable");
  if (error.status >= 500) return t("error.server");
  if (error.status === 400 || error.status === 409) {
    if (error.field && FIELD_KEYS[error.field]) return t(FIELD_KEYS[error.field]);
    return t("error.invalid");
  }
  if (error.status === 403) return t("error.forbidden");
  return t("error.unknown");
}
