/**
 * The plot: GraphQL points per simulated hour against sessions, one line per arm, log–log, with
 * the 5,000-point budget as a dashed line. Filled markers are steps within budget (all criteria),
 * hollow ones are not. Hand-written SVG (no dependency); every text is XML-escaped. Pure.
 */
import type { ArmName, StepResult } from "./report-types.js";

export interface PlotOptions {
  /** @defaultValue 5000 */
  readonly budget?: number;
  /** @defaultValue "GraphQL points per hour vs sessions" */
  readonly title?: string;
  readonly subtitle?: string;
  /** @defaultValue 800 */
  readonly width?: number;
  /** @defaultValue 500 */
  readonly height?: number;
}

export const ARM_COLORS: Readonly<Record<ArmName, string>> = {
  direct: "#c0392b",
  proxy: "#e67e22",
  broker: "#2471a3",
};

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const num = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

function decades(min: number, max: number): [number, number] {
  const lo = 10 ** Math.floor(Math.log10(Math.max(min, 1e-9)));
  let hi = 10 ** Math.ceil(Math.log10(Math.max(max, lo * 10)));
  if (hi <= lo) hi = lo * 10;
  return [lo, hi];
}

function label(n: number): string {
  if (n >= 1_000_000) return `${n / 1_000_000}M`;
  if (n >= 1000) return `${n / 1000}k`;
  return String(n);
}

export function renderPlot(runs: readonly StepResult[], options: PlotOptions = {}): string {
  const budget = options.budget ?? 5000;
  const width = options.width ?? 800;
  const height = options.height ?? 500;
  const m = { left: 80, right: 150, top: 60, bottom: 60 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const points = runs.filter((r) => r.sessions > 0);
  const [x0, x1] = decades(
    Math.min(1, ...points.map((r) => r.sessions)),
    Math.max(10, ...points.map((r) => r.sessions)),
  );
  const ys = points.map((r) => Math.max(1, r.graphqlPointsPerHour));
  const [y0, y1] = decades(Math.min(budget / 10, ...ys), Math.max(budget * 2, ...ys));
  const sx = (v: number) =>
    m.left + ((Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * plotW;
  const sy = (v: number) =>
    m.top +
    plotH -
    ((Math.log10(Math.max(v, y0)) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * plotH;

  const out: string[] = [];
  const title = escapeXml(options.title ?? "GraphQL points per hour vs sessions");
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    // The accessible name: what screen readers and image-less viewers show.
    `<title>${title}${options.subtitle ? ` — ${escapeXml(options.subtitle)}` : ""}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${m.left}" y="24" font-size="16" font-weight="bold">${title}</text>`,
  );
  if (options.subtitle)
    out.push(`<text x="${m.left}" y="42" fill="#555555">${escapeXml(options.subtitle)}</text>`);
  out.push(`<g stroke="#e5e5e5" stroke-width="1">`);
  for (let d = x0; d < x1; d *= 10) {
    for (let k = 1; k < 10; k++) {
      const x = num(sx(d * k));
      out.push(`<line x1="${x}" y1="${m.top}" x2="${x}" y2="${m.top + plotH}"/>`);
    }
  }
  for (let d = y0; d < y1; d *= 10) {
    for (let k = 1; k < 10; k++) {
      const y = num(sy(d * k));
      out.push(`<line x1="${m.left}" y1="${y}" x2="${m.left + plotW}" y2="${y}"/>`);
    }
  }
  out.push(`</g>`);
  out.push(
    `<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`,
    `<g text-anchor="middle" fill="#333333">`,
  );
  for (let d = x0; d <= x1; d *= 10)
    out.push(`<text x="${num(sx(d))}" y="${m.top + plotH + 18}">${label(d)}</text>`);
  out.push(`<text x="${num(m.left + plotW / 2)}" y="${height - 16}">sessions (log scale)</text>`, `</g>`);
  out.push(`<g text-anchor="end" fill="#333333">`);
  for (let d = y0; d <= y1; d *= 10)
    out.push(`<text x="${m.left - 8}" y="${num(sy(d) + 4)}">${label(d)}</text>`);
  out.push(
    `</g>`,
    `<text transform="translate(20 ${num(m.top + plotH / 2)}) rotate(-90)" text-anchor="middle" fill="#333333">GraphQL points per hour (log scale)</text>`,
  );
  const by = num(sy(budget));
  out.push(
    `<line x1="${m.left}" y1="${by}" x2="${m.left + plotW}" y2="${by}" stroke="#000000" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    `<text x="${m.left + plotW - 4}" y="${num(sy(budget) - 6)}" text-anchor="end">${escapeXml(`budget ${budget.toLocaleString("en-US")} pts/h`)}</text>`,
  );
  const arms = [...new Set(points.map((r) => r.arm))];
  arms.forEach((arm, i) => {
    const color = ARM_COLORS[arm];
    const series = points.filter((r) => r.arm === arm).sort((a, b) => a.sessions - b.sessions);
    const path = series
      .map((r) => `${num(sx(r.sessions))},${num(sy(Math.max(1, r.graphqlPointsPerHour)))}`)
      .join(" ");
    out.push(`<g>`, `<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const r of series) {
      const fill = r.withinBudget ? color : "#ffffff";
      out.push(
        `<circle cx="${num(sx(r.sessions))}" cy="${num(sy(Math.max(1, r.graphqlPointsPerHour)))}" r="4.5" fill="${fill}" stroke="${color}" stroke-width="2"><title>${escapeXml(
          `${arm} @ ${r.sessions} sessions: ${Math.round(r.graphqlPointsPerHour).toLocaleString("en-US")} pts/h${r.withinBudget ? " (within budget)" : ` (${r.reasons.join("; ")})`}`,
        )}</title></circle>`,
      );
    }
    const ly = m.top + 10 + i * 22;
    out.push(
      `<line x1="${m.left + plotW + 16}" y1="${ly}" x2="${m.left + plotW + 40}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${m.left + plotW + 46}" y="${ly + 4}">${escapeXml(arm)}</text>`,
      `</g>`,
    );
  });
  const ly = m.top + 10 + arms.length * 22 + 8;
  out.push(
    `<circle cx="${m.left + plotW + 22}" cy="${ly}" r="4.5" fill="#777777" stroke="#777777"/>`,
    `<text x="${m.left + plotW + 32}" y="${ly + 4}">within budget</text>`,
    `<circle cx="${m.left + plotW + 22}" cy="${ly + 18}" r="4.5" fill="#ffffff" stroke="#777777" stroke-width="2"/>`,
    `<text x="${m.left + plotW + 32}" y="${ly + 22}">over a limit</text>`,
    `</svg>`,
  );
  return `${out.join("\n")}\n`;
}
