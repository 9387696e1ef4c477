// The dashboard's charts (Chart.js 3, the global `Chart` from /vendor/chartjs) and, for each, the
// same numbers in a real table one click away. Series differ by colour and by dash or point
// shape, so no one needs to tell colours apart. No animation: the numbers are there at once.
import { t } from "../i18n.js";
import { bucketLabel, element } from "./dom.js";

// Okabe and Ito's colours, told apart with any colour vision; grey for the tags not drawn alone.
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#9A6700", "#000000", "#E69F00"];
export const OTHER_COLOUR = "#8a8a94";

const baseOptions = {
  responsive: true,
  maintainAspectRatio: false,
  animation: false,
  interaction: { mode: "index", intersect: false },
  plugins: { legend: { position: "bottom", labels: { usePointStyle: true, boxWidth: 8, color: "#1d1d1f" } } },
};

function scales(stacked) {
  return {
    x: { stacked, ticks: { color: "#4b4b55", maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
    y: { stacked, beginAtZero: true, ticks: { color: "#4b4b55", precision: 0 }, grid: { color: "#e6e6ea" } },
  };
}

/**
 * Draws (or redraws) a chart on a canvas. `series` are {key, label, data, colour, dash, point}.
 * Each dataset keeps its `key` (a count's name or a tag), so the page's numbers can be read back.
 */
export function drawChart(canvas, { type, labels, series, stacked = false }) {
  if (typeof window.Chart === "undefined") return null; // without Chart.js the tables still tell
  Chart.getChart(canvas)?.destroy();
  const datasets = series.map((item) => ({
    key: item.key,
    label: item.label,
    data: item.data,
    borderColor: item.colour,
    backgroundColor: item.colour,
    borderWidth: type === "line" ? 2 : 0,
    borderDash: item.dash ?? [],
    pointStyle: item.point ?? "circle",
    pointRadius: type === "line" ? 2.5 : 0,
    tension: 0,
  }));
  return new Chart(canvas, { type, data: { labels, datasets }, options: { ...baseOptions, scales: scales(stacked) } });
}

/**
 * The chart's numbers as a table: one row per bucket (its UTC start in a <time>), one column
 * per series, and the totals in the footer.
 */
export function fillTable(table, { starts, bucket, series, firstColumn = t("mod.period") }) {
  const head = element("tr");
  head.append(element("th", { text: firstColumn, attributes: { scope: "col" } }),
    ...series.map((item) => element("th", { text: item.label, attributes: { scope: "col" } })));
  const rows = starts.map((start, index) => {
    const row = element("tr");
    const when = element("th", { attributes: { scope: "row" } });
    when.append(element("time", { text: bucketLabel(start, bucket), attributes: { datetime: start } }));
    row.append(when, ...series.map((item) => element("td", { className: "number", text: String(item.data[index]) })));
    return row;
  });
  const total = element("tr");
  total.append(element("th", { text: t("mod.total"), attributes: { scope: "row" } }),
    ...series.map((item) => element("td", { className: "number", text: String(item.data.reduce((sum, value) => sum + value, 0)) })));
  table.querySelector("thead").replaceChildren(head);
  table.querySelector("tbody").replaceChildren(...rows);
  table.querySelector("tfoot").replaceChildren(total);
}
