// The Dashboard, the moderation page's first view: the board at a glance for a period (48 hours
// by hour, 30 days by day, 26 weeks by week, in UTC like the server's buckets): totals, notes and
// moderation over time, tags over time, a map of activity, the reported queue (most reported
// first, to open or hide), and the latest actions of the audit log.
import { dateTimeText, t } from "../i18n.js";
import { humanError } from "../errors.js";
import { $, bucketLabel, button, element } from "./dom.js";
import { announcerFor, call, showView } from "./desk.js";
import { drawChart, fillTable, OTHER_COLOUR, PALETTE } from "./charts.js";
import { showActivity } from "./activity-map.js";
import { auditRow } from "./audit.js";
import { focusNote, hide, showReported } from "./notes.js";

const announce = announcerFor("dashboard");
const TAGS_DRAWN = 8; // more tags than this are summed as "other tags"
const QUEUE_LENGTH = 10;
const RECENT_ACTIONS = 10;
let loads = 0;

const ACTIVITY = [
  { key: "posts", label: "mod.series.posts", colour: "#0072B2", point: "circle" },
  { key: "reports", label: "mod.series.reports", colour: "#D55E00", dash: [6, 4], point: "triangle" },
  { key: "hidden", label: "mod.series.hidden", colour: "#9A6700", dash: [2, 3], point: "rect" },
  { key: "deleted", label: "mod.series.deleted", colour: "#4b4b55", dash: [10, 3, 2, 3], point: "crossRot" },
];

const TOTALS = [
  ["posts", "notes"], ["reports", "reports"], ["hidden", "hidden"], ["deleted", "deleted"], ["devices", "posting addresses"],
  ["replies", "replies"], ["likes", "likes"],
];

function renderSummary(stats) {
  const { totals } = stats;
  const range = $("#d-range");
  range.textContent = t("mod.range", { from: bucketLabel(stats.from, "hour"), to: bucketLabel(stats.to, "hour"), bucket: t(`mod.bucket.${stats.bucket}`) });
  range.dataset.from = stats.from; // the exact range asked for, so the numbers can be checked
  range.dataset.to = stats.to;
  $("#d-totals").replaceChildren(...TOTALS.map(([key, name]) => {
    const item = element("li", { className: key === "replies" || key === "likes" ? "quiet" : "" });
    item.dataset.key = key;
    item.append(element("strong", { text: String(totals[key] ?? 0) }), ` ${t(`mod.total.${key}`, { count: totals[key] ?? 0 })}`);
    return item;
  }));
}

function renderActivity(stats) {
  const starts = stats.buckets.map((bucket) => bucket.start);
  const series = ACTIVITY.map((item) => ({ ...item, label: t(item.label), data: stats.buckets.map((bucket) => bucket[item.key]) }));
  const labels = starts.map((start) => bucketLabel(start, stats.bucket));
  drawChart($("#chart-activity"), { type: "line", labels, series });
  fillTable($("#table-activity"), { starts, bucket: stats.bucket, series });
}

/** The tags of the period, busiest first; past the first few, one "other tags" series. */
function tagSeries(stats) {
  const tags = Object.entries(stats.totals.byTag ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([tag]) => tag);
  const drawn = tags.length > TAGS_DRAWN ? tags.slice(0, TAGS_DRAWN - 1) : tags;
  const series = drawn.map((tag, index) => ({
    key: tag, label: tag, colour: PALETTE[index % PALETTE.length], data: stats.buckets.map((bucket) => (Object.hasOwn(bucket.byTag, tag) ? bucket.byTag[tag] : 0)),
  }));
  if (drawn.length < tags.length) {
    const rest = new Set(drawn);
    series.push({
      key: "", label: t("mod.otherTags", { count: tags.length - drawn.length }), colour: OTHER_COLOUR,
      data: stats.buckets.map((bucket) => Object.entries(bucket.byTag).reduce((sum, [tag, count]) => sum + (rest.has(tag) ? 0 : count), 0)),
    });
  }
  return series;
}

function renderTags(stats) {
  const starts = stats.buckets.map((bucket) => bucket.start);
  const series = tagSeries(stats);
  drawChart($("#chart-tags"), { type: "bar", labels: starts.map((start) => bucketLabel(start, stats.bucket)), series, stacked: true });
  fillTable($("#table-tags"), { starts, bucket: stats.bucket, series });
  $("#d-tags-none").hidden = series.length > 0;
}

function queueItem(post) {
  const item = element("li", { className: `queue-item ${post.status}` });
  item.dataset.id = String(post.id);
  const count = element("p", { className: "count" });
  count.append(element("strong", { text: String(post.reportCount) }), t("mod.queue.reports", { count: post.reportCount }));
  const meta = element("p", {
    className: "meta",
    text: `${t("mod.queue.meta", { id: String(post.id), tag: post.tag, when: dateTimeText(post.createdAt) })}${post.status === "visible" ? "" : ` · ${t(`mod.${post.status}`)}`}`,
  });
  const actions = element("p", { className: "queue-actions" });
  const open = button(t("mod.open"), () => focusNote(post), "secondary");
  open.setAttribute("aria-label", t("mod.openNote", { id: String(post.id) }));
  actions.append(open);
  if (post.status === "visible") {
    const hideButton = button(t("mod.hide"), () => hide([post.id], { reasonField: "#queue-reason", reload: loadDashboard, say: announce, preview: post.message }));
    hideButton.setAttribute("aria-label", t("mod.hideNote", { id: String(post.id) }));
    actions.append(hideButton);
  }
  item.append(count, element("p", { className: "message", text: post.message }), meta, actions);
  return item;
}

function renderQueue(posts) {
  const queue = posts.filter((post) => post.status !== "deleted" && post.reportCount > 0)
    .sort((a, b) => b.reportCount - a.reportCount || b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
  $("#report-queue").replaceChildren(...queue.slice(0, QUEUE_LENGTH).map(queueItem));
  $("#d-queue-count").textContent = queue.length === 0 ? t("mod.queue.none")
    : queue.length > QUEUE_LENGTH ? t("mod.queue.top", { shown: QUEUE_LENGTH, count: `${queue.length}${posts.length >= 500 ? "+" : ""}` })
      : t("mod.queue.count", { count: queue.length });
}

export async function loadDashboard() {
  const load = ++loads;
  const section = $("#view-dashboard");
  section.setAttribute("aria-busy", "true");
  section.dataset.loaded = "";
  const bucket = $("#d-period").value;
  try {
    const [stats, reported, audit] = await Promise.all([
      call("GET", "/api/v1/moderation/stats", { params: { bucket } }),
      call("GET", "/api/v1/moderation/posts", { params: { reported: "true", status: "all", limit: 500 } }),
      call("GET", "/api/v1/moderation/audit", { params: { limit: RECENT_ACTIONS } }),
    ]);
    if (load !== loads) return;
    renderSummary(stats);
    renderActivity(stats);
    renderTags(stats);
    showActivity(stats, { callWithToken: call });
    renderQueue(reported.posts);
    $("#recent-audit tbody").replaceChildren(...audit.entries.map(auditRow));
    $("#d-audit-none").hidden = audit.entries.length > 0;
    section.dataset.loaded = bucket;
  } catch (error) {
    if (load === loads) announce(t("mod.dashboardFailed", { reason: humanError(error) }));
  } finally {
    if (load === loads) section.removeAttribute("aria-busy");
  }
}

export function setUpDashboard() {
  $("#d-period").addEventListener("change", loadDashboard);
  $("#d-refresh").addEventListener("click", loadDashboard);
  $("#d-all-reported").addEventListener("click", showReported);
  $("#d-full-audit").addEventListener("click", () => showView("audit"));
}
