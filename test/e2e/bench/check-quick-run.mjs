// End-to-end check of the README's main job, kept out of the normal suite because it takes
// minutes:  node test/e2e/bench/check-quick-run.mjs   (after `npm ci`, which builds dist/)
// Runs `ao-broker bench --quick --json out.json --svg out.svg` exactly as a user would, then checks
// that it finished within 5 minutes, that the JSON has the fields issue 8 names, and that the SVG
// is well-formed. Exits 1 with the reasons when anything is off.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const dir = mkdtempSync(join(tmpdir(), "aob-bench-e2e-"));
const json = join(dir, "out.json");
const svg = join(dir, "out.svg");
const problems = [];
const started = performance.now();

const code = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    [join(ROOT, "dist", "cli.js"), "bench", "--quick", "--json", json, "--svg", svg],
    {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  child.on("exit", (c) => resolve(c ?? 1));
});
const seconds = (performance.now() - started) / 1000;
if (code !== 0) problems.push(`exit code ${code}`);
if (seconds > 300) problems.push(`took ${Math.round(seconds)} s (limit 300 s)`);

let report;
try {
  report = JSON.parse(readFileSync(json, "utf8"));
} catch (error) {
  problems.push(`out.json unreadable: ${error.message}`);
}
if (report) {
  const runFields = [
    "arm",
    "profile",
    "sessions",
    "windowSeconds",
    "graphqlPointsPerHour",
    "restCorePerHour",
    "upstreamRequests",
    "agentRateLimitErrors",
    "addedWaitMs",
    "stalenessMs",
    "pollCycleSeconds",
    "withinBudget",
    // issue 13
    "imposedWaitMs",
    "machineLatencyMs",
    "writes",
    "contentCreatingPerHour",
    "pointsPerMergedPr",
    "stalenessByFact",
    "changeVisibilityMs",
  ];
  if (!Array.isArray(report.runs) || report.runs.length === 0) problems.push("runs[] is empty");
  for (const run of report.runs ?? []) {
    for (const f of runFields)
      if (!(f in run)) problems.push(`runs[].${f} missing (${run.arm} @ ${run.sessions})`);
    for (const p of ["p50", "p95", "p99"])
      if (!(p in (run.addedWaitMs ?? {}))) problems.push(`addedWaitMs.${p} missing`);
    for (const p of ["p50", "p99"])
      if (!(p in (run.stalenessMs ?? {}))) problems.push(`stalenessMs.${p} missing`);
    for (const p of ["p50", "p95"])
      if (!(p in (run.pollCycleSeconds ?? {}))) problems.push(`pollCycleSeconds.${p} missing`);
    for (const f of ["attempted", "succeeded", "failed", "p95Ms"])
      if (!(f in (run.writes ?? {}))) problems.push(`writes.${f} missing`);
    for (const p of ["p50", "p99"])
      if (!(p in (run.changeVisibilityMs ?? {}))) problems.push(`changeVisibilityMs.${p} missing`);
    const kinds = Object.values(run.stalenessByFact ?? {});
    if (kinds.length < 8) problems.push(`stalenessByFact has ${kinds.length} kinds (at least 8)`);
    for (const k of kinds)
      if (!("p50" in k && "p99" in k && "judged" in k))
        problems.push("stalenessByFact.<kind> lacks p50/p99/judged");
  }
  const c = report.ceiling;
  if (!c || typeof c.sessions !== "number" || typeof c.binding !== "string")
    problems.push("ceiling.sessions/binding missing");
  for (const f of ["contentCreating", "graphqlPoints", "restRequests"])
    if (typeof c?.perSessionHour?.[f] !== "number") problems.push(`ceiling.perSessionHour.${f} missing`);
  for (const arm of ["direct", "proxy", "broker"])
    if (report.sessionsToBudget?.[arm] === 0) problems.push(`${arm} says 0 sessions`);
  for (const arm of ["direct", "proxy", "broker"]) {
    if (typeof report.sessionsToBudget?.[arm] !== "number") problems.push(`sessionsToBudget.${arm} missing`);
  }
  // docs/decisions/0015: a quick run reports only a count a step on the full run's window passed
  // (0024: 36,000 session-seconds within 240 s and, for quick, 600 s).
  const fullWindow = (n) => Math.min(600, Math.max(240, 36_000 / n));
  for (const arm of ["direct", "proxy", "broker"]) {
    const n = report.sessionsToBudget?.[arm];
    const confirmed = (report.runs ?? []).some(
      (r) =>
        r.arm === arm &&
        r.sessions === n &&
        r.tier === "confirm" &&
        r.withinBudget &&
        r.windowSeconds >= fullWindow(n) - 1e-6,
    );
    if (n > 0 && !confirmed) problems.push(`${arm}: ${n} sessions is not a confirmed count`);
  }
  // Issue 16: every broker step carries the per-answer breakdown.
  for (const run of (report.runs ?? []).filter((r) => r.arm === "broker"))
    if (!run.explain || !("identicalPointsShare" in run.explain) || !run.explain.byReason)
      problems.push(`broker @ ${run.sessions}: explain {byReason, identicalPointsShare} missing`);
  const cal = report.calibration?.directPointsPerHourAt5Active;
  if (typeof cal !== "number") problems.push("calibration.directPointsPerHourAt5Active missing");
  else if (Math.abs(cal - 9572) > 9572 * 0.25) problems.push(`calibration ${cal} is outside 9,572 ±25 %`);
}

let text = "";
try {
  text = readFileSync(svg, "utf8");
} catch (error) {
  problems.push(`out.svg unreadable: ${error.message}`);
}
if (text) {
  if (!text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'))
    problems.push("out.svg does not start with an <svg> root");
  const stack = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const m of text.matchAll(tag)) {
    if (/[<>]|&(?!#\d+;|amp;|lt;|gt;|quot;)/.test(text.slice(last, m.index)))
      problems.push(`stray markup before ${m[0]}`);
    last = m.index + m[0].length;
    if (m[4]) continue;
    if (m[1]) {
      if (stack.pop() !== m[2]) problems.push(`unbalanced </${m[2]}>`);
    } else stack.push(m[2]);
  }
  if (stack.length > 0 || text.slice(last).trim() !== "") problems.push("out.svg is not well-formed");
  if (!text.includes("<polyline")) problems.push("out.svg has no data lines");
}

if (problems.length > 0) {
  process.stderr.write(`bench e2e: FAILED after ${Math.round(seconds)} s\n  ${problems.join("\n  ")}\n`);
  process.exit(1);
}
process.stdout.write(
  `bench e2e: ok in ${Math.round(seconds)} s (${report.runs.length} steps; files in ${dir})\n`,
);
