/**
 * The per-repository spend of the last months as an inline SVG stacked column chart (pure): one column per
 * month, one colour per repository (the eight that spent most, the rest as "other repositories"), each
 * segment a link to the pull requests that spent it. The numbers are in the table beside it
 * (`./render-page.ts`), which screen readers read: the chart is one labelled image.
 */
import type { SpendSection } from "./page-model.js";
import { escapeHtml, formatCredits } from "../render/html.js";

/** Colours of the repositories, in order of spend (Primer's data-visualisation palette). */
const COLOURS = ["#0969da", "#1a7f37", "#bf8700", "#8250df", "#cf222e", "#1b7c83", "#bc4c00", "#4d2d8f"];
const OTHER_COLOUR = "#8c959f";
const WIDTH = 560;
const HEIGHT = 240;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 12;

/** One stacked segment: a repository (or the rest) in one month. */
interface Segment {
  label: string;
  colour: string;
  credits: number;
  /** the in-page anchor listing the pull requests behind the figure; none for "other repositories" */
  href?: string;
}

/**
 * The chart's `<svg>` element.
 * @param anchorOf the in-page anchor (without `#`) of a repository's figure in a month
 */
export function renderSpendChart(
  spend: SpendSection,
  anchorOf: (repositoryIndex: number, month: string) => string,
): string {
  const columns = spend.months.map((month, m) => segmentsOf(spend, m, month, anchorOf));
  const max = Math.max(1, ...columns.map((c) => c.reduce((n, s) => n + s.credits, 0)));
  const plotH = HEIGHT - TOP - BOTTOM;
  const step = (WIDTH - LEFT) / Math.max(1, spend.months.length);
  const barW = Math.min(48, step * 0.6);
  const body = columns.map((segments, m) => {
    const x = LEFT + m * step + (step - barW) / 2;
    let y = TOP + plotH;
    const rects = segments.map((s) => {
      const h = (s.credits / max) * plotH;
      y -= h;
      const rect = `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${s.colour}"><title>${escapeHtml(`${s.label}, ${spend.months[m]}: ${formatCredits(s.credits)} credits`)}</title></rect>`;
      return s.href ? `<a href="#${escapeHtml(s.href)}">${rect}</a>` : rect;
    });
    const label = `<text x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${escapeHtml(spend.months[m]!)}</text>`;
    return rects.join("") + label;
  });
  const axis = [0, 0.5, 1]
    .map((f) => {
      const y = TOP + plotH - f * plotH;
      return `<line x1="${LEFT}" x2="${WIDTH}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#d8dee4"/><text x="${LEFT - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${formatCredits(max * f)}</text>`;
    })
    .join("");
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="spend-chart-title" font-size="11" fill="#59636e"><title id="spend-chart-title">Credits spent per repository and month, ${escapeHtml(spend.months[0] ?? "")} to ${escapeHtml(spend.month)}; the numbers are in the table beside the chart</title>${axis}${body.join("")}</svg>`;
}

/** The chart's legend: each repository's colour. */
export function renderSpendLegend(spend: SpendSection): string {
  const named = spend.repositories.slice(0, COLOURS.length);
  const items = named.map(
    (r, i) =>
      `<span><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${COLOURS[i]}"/></svg> ${escapeHtml(r.repository)}</span>`,
  );
  if (spend.repositories.length > COLOURS.length)
    items.push(
      `<span><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${OTHER_COLOUR}"/></svg> other repositories</span>`,
    );
  return `<p class="muted" style="display:flex;flex-wrap:wrap;gap:4px 12px">${items.join("")}</p>`;
}

/** The segments of month `m`, bottom first (repositories in order of total spend). */
function segmentsOf(
  spend: SpendSection,
  m: number,
  month: string,
  anchorOf: (repositoryIndex: number, month: string) => string,
): Segment[] {
  const segments: Segment[] = [];
  let other = 0;
  spend.repositories.forEach((r, i) => {
    const credits = r.months[m]?.credits ?? 0;
    if (credits <= 0) return;
    if (i >= COLOURS.length) other += credits;
    else segments.push({ label: r.repository, colour: COLOURS[i]!, credits, href: anchorOf(i, month) });
  });
  if (other > 0) segments.push({ label: "other repositories", colour: OTHER_COLOUR, credits: other });
  return segments;
}
