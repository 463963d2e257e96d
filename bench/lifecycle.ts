/**
 * `npm run bench:lifecycle`: the lifecycle service against an AO-style sequential loop
 * (bench/lifecycle-ao-loop.ts), side by side on the same simulator workload, at 50, 200, 500 and
 * 1,000 sessions. Reported per arm: the first (cold) cycle, quiet cycles and active cycles (wall
 * time with the simulator's latency), GraphQL points and charged REST requests per hour, and for
 * the lifecycle how many CI completions (of a PR's current head, in the active window) were
 * raised as ci-passed / ci-failed and how late after CI finished.
 *
 * Time: both arms run on the simulator's scenario clock. A cycle takes the wall time it takes;
 * the clock is then moved on to the arm's next start (lifecycle: every 10 s; AO: every 30 s, or
 * back to back when a cycle is slower than that, as AO's loop is), so an hour of polling is
 * measured in minutes while secondary limits and CI timings still see scenario minutes.
 * Phases: one cold cycle (everything read once), a warm-up (every guard's first read; not
 * counted), a quiet phase (nothing changes), an active phase.
 * Active workload: every scenario minute `--churn` of the PRs get a push whose CI (build, test)
 * runs 35–155 s and fails one time in five. One in ten sessions starts without its PR number.
 */
import { parseArgs } from "node:util";
import { type RunningSimulator, startSimulator } from "../github-sim/index.js";
import {
  createDirectPorts,
  createLifecycleService,
  createManualClock,
  createMemoryWatchStore,
  type LifecycleEvent,
} from "../lifecycle/index.js";
import { percentile } from "./core/percentiles.js";
import { createRng } from "./core/rng.js";
import { createAoStyleLoop } from "./lifecycle-ao-loop.js";

const REPO = "acme/widgets";
const FIRST = 101;

interface Options {
  sizes: number[];
  warmupMin: number;
  quietMin: number;
  activeMin: number;
  latencyMs: number;
  jitterMs: number;
  churn: number;
  seed: number;
  json: boolean;
}

interface ArmResult {
  arm: "lifecycle" | "ao-sequential";
  sessions: number;
  coldMs: number;
  coldPoints: number;
  quietCycleMs: number | null;
  activeCycleP50Ms: number | null;
  activeCycleP95Ms: number | null;
  cycles: number;
  pointsPerHourQuiet: number;
  pointsPerHourActive: number;
  restPerHourActive: number;
  ciResults?: { raised: number; completed: number; lateP50S: number | null; lateP95S: number | null };
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "50,200,500,1000" },
      quick: { type: "boolean", default: false },
      "warmup-min": { type: "string", default: "4" },
      "quiet-min": { type: "string", default: "2" },
      "active-min": { type: "string", default: "5" },
      latency: { type: "string", default: "10" },
      jitter: { type: "string", default: "10" },
      churn: { type: "string", default: "0.02" },
      seed: { type: "string", default: "7" },
      json: { type: "boolean", default: false },
    },
  });
  const num = (name: string, value: string | undefined, min: number) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min)
      throw new Error(`bench:lifecycle: --${name} must be a number >= ${min}`);
    return n;
  };
  return {
    sizes: values.quick ? [50, 200] : (values.sizes ?? "").split(",").map((s) => num("sizes", s, 1)),
    warmupMin: num("warmup-min", values["warmup-min"], 0),
    quietMin: num("quiet-min", values["quiet-min"], 0.5),
    activeMin: values.quick ? 2 : num("active-min", values["active-min"], 1),
    latencyMs: num("latency", values.latency, 0),
    jitterMs: num("jitter", values.jitter, 0),
    churn: num("churn", values.churn, 0),
    seed: num("seed", values.seed, 0),
    json: values.json ?? false,
  };
}

function injectChurn(
  sim: RunningSimulator,
  size: number,
  churn: number,
  rng: ReturnType<typeof createRng>,
): number {
  const count = Math.max(1, Math.round(size * churn));
  for (let i = 0; i < count; i++) {
    const n = FIRST + rng.int(0, size - 1);
    const conclusion = rng.chance(0.2) ? "failure" : "success";
    sim.inject({
      type: "push",
      repo: REPO,
      branch: `gen/pr-${n}`,
      ci: {
        jobs: [
          { name: "build", conclusion: "success", startAfterS: 5, durationS: rng.int(30, 90) },
          { name: "test", conclusion, startAfterS: 5, durationS: rng.int(60, 150) },
        ],
      },
    });
  }
  return count;
}

async function runArm(arm: ArmResult["arm"], size: number, opts: Options): Promise<ArmResult> {
  const rng = createRng(opts.seed);
  const sim = await startSimulator({
    prs: size,
    latencyMs: opts.latencyMs,
    jitterMs: opts.jitterMs,
    random: () => rng.next(),
  });
  const completions = new Map<string, number>();
  /** Head SHA → scenario ms of the first ci-passed / ci-failed raised for it. */
  const raisedAt = new Map<string, number>();
  // CI completions of a PR's current head (a run superseded by a later push raises nothing, as
  // it should), by head SHA, in scenario time.
  const unsubscribe = sim.world.subscribe((change) => {
    if (change.kind !== "workflow_run.completed" || change.id === undefined) return;
    const repo = sim.world.repo(REPO);
    const run = repo?.runs.get(change.id);
    if (!run) return;
    const pr = [...(repo?.pulls.values() ?? [])].find((p) => p.headRef === run.headBranch);
    if (pr?.headSha === run.headSha) completions.set(run.headSha, change.at);
  });
  const onEvent = (event: LifecycleEvent) => {
    if (
      (event.type === "ci-failed" || event.type === "ci-passed") &&
      event.headSha &&
      !raisedAt.has(event.headSha)
    ) {
      raisedAt.set(event.headSha, event.at);
    }
  };
  const ports = createDirectPorts({ baseUrl: sim.url, token: sim.token, publish: onEvent });
  const clock = createManualClock(sim.now());
  const sessions = Array.from({ length: size }, (_, i) => {
    const n = FIRST + i;
    return {
      id: `s${n}`,
      owner: "acme",
      repo: "widgets",
      branch: `gen/pr-${n}`,
      ...(n % 10 === 0 ? {} : { pr: n }),
    };
  });
  let runCycle: () => Promise<unknown>;
  let period: number;
  let close = async () => {};
  if (arm === "ao-sequential") {
    runCycle = createAoStyleLoop({ ports, sessions, now: () => sim.now() }).runCycle;
    period = 30_000;
  } else {
    const service = createLifecycleService({ ports, store: createMemoryWatchStore(), clock });
    for (const s of sessions)
      await service.watch({ id: s.id, repo: REPO, branch: s.branch, ...(s.pr ? { pr: s.pr } : {}) });
    runCycle = () => service.runCycle();
    period = 10_000;
    close = () => service.close();
  }
  const step = async (): Promise<{ ms: number; points: number }> => {
    const startedAt = sim.now();
    const points = sim.stats().graphqlPoints;
    const wall = performance.now();
    await runCycle();
    const ms = performance.now() - wall;
    const next = startedAt + Math.max(period, ms);
    await sim.advance(Math.max(0, next - sim.now()));
    clock.set(sim.now());
    return { ms, points: sim.stats().graphqlPoints - points };
  };
  const phase = async (minutes: number, churn: boolean) => {
    const end = sim.now() + minutes * 60_000;
    let nextChurn = sim.now();
    const before = sim.stats();
    const durations: number[] = [];
    while (sim.now() < end) {
      while (churn && sim.now() >= nextChurn) {
        injectChurn(sim, size, opts.churn, rng);
        nextChurn += 60_000;
      }
      durations.push((await step()).ms);
    }
    const after = sim.stats();
    const hours = minutes / 60;
    return {
      durations: durations.sort((a, b) => a - b),
      pointsPerHour: (after.graphqlPoints - before.graphqlPoints) / hours,
      restPerHour: (after.restCharged - before.restCharged) / hours,
    };
  };

  const cold = await step();
  // Every guard's first read (and AO's first review round) happens here, outside the figures.
  if (opts.warmupMin > 0) await phase(opts.warmupMin, false);
  const quiet = await phase(opts.quietMin, false);
  completions.clear();
  raisedAt.clear();
  const active = await phase(opts.activeMin, true);
  // Completions in the window's last moments are raised by the cycles right after it: run them
  // (their cost is not counted), then stop counting completions.
  const lastCounted = sim.now();
  while (sim.now() < lastCounted + 2 * period) await step();
  for (const [sha, at] of completions) if (at > lastCounted) completions.delete(sha);
  unsubscribe();
  await close();
  await sim.close();
  const late = [...completions]
    .map(([sha, done]) => {
      const at = raisedAt.get(sha);
      return at === undefined ? undefined : (at - done) / 1000;
    })
    .filter((s): s is number => s !== undefined)
    .sort((a, b) => a - b);
  return {
    arm,
    sessions: size,
    coldMs: cold.ms,
    coldPoints: cold.points,
    quietCycleMs: percentile(quiet.durations, 50),
    activeCycleP50Ms: percentile(active.durations, 50),
    activeCycleP95Ms: percentile(active.durations, 95),
    cycles: quiet.durations.length + active.durations.length + 1,
    pointsPerHourQuiet: quiet.pointsPerHour,
    pointsPerHourActive: active.pointsPerHour,
    restPerHourActive: active.restPerHour,
    ...(arm === "lifecycle"
      ? {
          ciResults: {
            raised: late.length,
            completed: completions.size,
            lateP50S: percentile(late, 50),
            lateP95S: percentile(late, 95),
          },
        }
      : {}),
  };
}

function fmtS(ms: number | null): string {
  return ms === null ? "-" : (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
}

function table(results: readonly ArmResult[], opts: Options): string {
  const rows = [
    "| sessions | arm | cold cycle s (points) | quiet cycle s | active cycle p50 / p95 s | points/h quiet | points/h active | REST/h active | CI results raised (late p50 / p95 s) |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ...results
      .map((r) =>
        [
          r.sessions,
          r.arm,
          `${fmtS(r.coldMs)} (${r.coldPoints})`,
          fmtS(r.quietCycleMs),
          `${fmtS(r.activeCycleP50Ms)} / ${fmtS(r.activeCycleP95Ms)}`,
          Math.round(r.pointsPerHourQuiet),
          Math.round(r.pointsPerHourActive),
          Math.round(r.restPerHourActive),
          r.ciResults
            ? `${r.ciResults.raised} of ${r.ciResults.completed} (${r.ciResults.lateP50S?.toFixed(1) ?? "-"} / ${r.ciResults.lateP95S?.toFixed(1) ?? "-"})`
            : "not tracked",
        ].join(" | "),
      )
      .map((line) => `| ${line} |`),
  ];
  return `${rows.join("\n")}\n\nwarm-up ${opts.warmupMin} min; simulator latency ${opts.latencyMs} ms + U[0, ${opts.jitterMs}) ms; quiet ${opts.quietMin} min, active ${opts.activeMin} min at ${opts.churn * 100}% of PRs pushed per minute (scenario time)\n`;
}

async function main(): Promise<void> {
  const opts = options();
  const results: ArmResult[] = [];
  for (const size of opts.sizes) {
    for (const arm of ["ao-sequential", "lifecycle"] as const) {
      process.stderr.write(`bench:lifecycle: ${size} sessions, ${arm}...\n`);
      results.push(await runArm(arm, size, opts));
    }
  }
  process.stdout.write(opts.json ? `${JSON.stringify(results, null, 2)}\n` : table(results, opts));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
