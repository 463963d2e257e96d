/**
 * The human scorecard: a table like the seed's scaling table (one row per arm and session count)
 * followed by sessions-to-budget per arm and the calibration figure. Plain text, aligned. Pure.
 */
import type { BenchReport, StepResult } from "./report-types.js";

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const pct = (n: number, of: number): string => `${Math.round((n / of) * 100)}%`;

function ms(n: number | null): string {
  if (n === null) return "-";
  if (n < 1000) return `${Math.round(n)}ms`;
  return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}s`;
}

function seconds(n: number | null): string {
  return n === null ? "-" : `${n < 10 ? n.toFixed(1) : Math.round(n)}s`;
}

function ratio(n: number | null): string {
  return n === null ? "-" : `${Math.round(n * 100)}%`;
}

export function alignTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export const TABLE_HEADERS = [
  "arm",
  "sessions",
  "GraphQL pts/h",
  "REST req/h",
  "upstream",
  "RL errors",
  "imposed wait p50/p95",
  "machine p95",
  "stale p99 (worst fact)",
  "visible p50/p99",
  "writes ok/all p95",
  "content/h",
  "pts/merged PR",
  "poll cycle p50/p95",
  "hit/coal/batch",
  "scale",
  "window",
  "within",
] as const;

/** The kind of fact with the highest p99 staleness, "kind p99". */
function worstFact(run: StepResult): string {
  let worst: [string, number] | undefined;
  for (const [kind, f] of Object.entries(run.stalenessByFact))
    if (f.p99 !== null && (worst === undefined || f.p99 > worst[1])) worst = [kind, f.p99];
  return worst ? `${worst[0]} ${ms(worst[1])}` : "-";
}

export function stepRow(run: StepResult, budget = 5000): string[] {
  return [
    run.arm,
    String(run.sessions),
    `${int(run.graphqlPointsPerHour)} (${pct(run.graphqlPointsPerHour, budget)})`,
    `${int(run.restCorePerHour)} (${pct(run.restCorePerHour, budget)})`,
    int(run.upstreamRequests),
    int(run.agentRateLimitErrors),
    `${ms(run.imposedWaitMs.p50)}/${ms(run.imposedWaitMs.p95)}`,
    ms(run.machineLatencyMs.p95),
    `${ms(run.stalenessMs.p99)} (${worstFact(run)})`,
    `${ms(run.changeVisibilityMs.p50)}/${ms(run.changeVisibilityMs.p99)}`,
    `${int(run.writes.succeeded)}/${int(run.writes.attempted)} ${ms(run.writes.p95Ms)}`,
    run.contentCreatingPerHour.toFixed(0),
    run.pointsPerMergedPr === null ? "-" : int(run.pointsPerMergedPr),
    `${seconds(run.pollCycleSeconds.p50)}/${seconds(run.pollCycleSeconds.p95)}`,
    run.cache.labelled === 0
      ? "-"
      : `${ratio(run.cache.hitRatio)}/${ratio(run.cache.coalescedRatio)}/${ratio(run.cache.batchedRatio)}`,
    `×${run.timeScale}`,
    // A scouting step (quick runs' short windows) only guides the search; the others decide it.
    `${run.windowSeconds}s${run.tier === "scout" ? " scout" : ""}`,
    run.withinBudget ? "yes" : "no",
  ];
}

export function renderScorecardTable(report: BenchReport): string {
  const runs = [...report.runs].sort((a, b) => a.arm.localeCompare(b.arm) || a.sessions - b.sessions);
  const lines = [
    alignTable(
      TABLE_HEADERS,
      runs.map((r) => stepRow(r)),
    ),
  ];
  const why = runs.filter((r) => !r.withinBudget);
  if (why.length > 0) {
    lines.push("", "Over budget because:");
    for (const r of why) lines.push(`  ${r.arm} @ ${r.sessions}: ${r.reasons.join("; ")}`);
  }
  lines.push(
    "",
    "Sessions to budget (largest count within both budgets, 0 RL errors, imposed wait p95 ≤ 1 s, every fact's stale p99 ≤ 30 s, change visible p99 ≤ 60 s, no write lost, write p95 ≤ 10 s; only steps judged on the full run's window count, never a scouting step):",
  );
  for (const [arm, n] of Object.entries(report.sessionsToBudget)) {
    const bound = report.sessionsToBudgetBound[arm as keyof typeof report.sessionsToBudgetBound];
    const of = report.ofCeiling[arm as keyof typeof report.ofCeiling];
    const armRuns = runs.filter((r) => r.arm === arm && r.mergedPrs > 0);
    const perMerged =
      armRuns.length === 0
        ? ""
        : `; points per merged PR ${armRuns.map((r) => `${int(r.pointsPerMergedPr ?? 0)}@${r.sessions}`).join(", ")}`;
    lines.push(
      `  ${arm.padEnd(7)} ${bound === "at-least" ? "≥ " : ""}${n}${of === undefined ? "" : ` (${Math.round(of * 100)}% of the ceiling)`}${perMerged}`,
    );
  }
  const ceiling = report.ceiling;
  if (ceiling) {
    lines.push(
      "",
      `Ceiling (any broker, one token, this profile's model): ${int(ceiling.sessions)} sessions, bound by ${ceiling.binding}; ` +
        `per session-hour at the least: ${ceiling.perSessionHour.contentCreating} content-creating, ` +
        `${ceiling.perSessionHour.graphqlPoints} GraphQL points, ${ceiling.perSessionHour.restRequests} REST requests`,
    );
    lines.push(
      `  limits alone: ${Object.entries(ceiling.byLimit)
        .map(([name, n]) => `${name} → ${int(n)}`)
        .join("; ")}`,
    );
    for (const line of ceiling.derivation) lines.push(`  ${line}`);
  }
  const measured = runs.filter((r) => r.broker !== null);
  if (measured.length > 0) {
    lines.push("", "Broker process (CPU in % of one core over the window, peak RSS):");
    for (const r of measured) {
      lines.push(
        `  ${r.sessions} sessions: ${r.broker?.cpuPercent}% CPU, ${r.broker?.rssMb} MB (bench process: ${r.benchProcess.cpuPercent}%, ${r.benchProcess.rssMb} MB)`,
      );
    }
  }
  const c = report.calibration;
  if (c.directPointsPerHourAt5Active !== null) {
    const dev = (c.directPointsPerHourAt5Active - c.target) / c.target;
    lines.push(
      "",
      `Calibration: direct arm at 5 active sessions spends ${int(c.directPointsPerHourAt5Active)} GraphQL pts/h ` +
        `(seed: ${int(c.target)}; ${dev >= 0 ? "+" : ""}${Math.round(dev * 100)}%, tolerance ±${Math.round(c.tolerance * 100)}%: ` +
        `${c.withinTolerance ? "ok" : "OUT OF TOLERANCE"})`,
    );
  }
  if (report.notes.length > 0) {
    lines.push("", "Notes:");
    for (const note of report.notes) lines.push(`  ${note}`);
  }
  if (report.realGh) {
    const g = report.realGh;
    lines.push(
      "",
      `Replay vs real gh ${g.ghVersion}: ${int(g.replayCost)} vs ${int(g.realCost)} (points + REST requests) over ` +
        `${g.commands.length} commands: ${(g.deviation * 100).toFixed(1)}% apart (goal ≤ 5%: ${g.withinGoal ? "ok" : "MISSED"})`,
    );
  }
  return lines.join("\n");
}
