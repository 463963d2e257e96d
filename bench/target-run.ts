/**
 * `ao-broker bench --target URL --token-env VAR --max-points N --repo OWNER/NAME`: the quiet
 * profile against a real GitHub, in real time (GitHub's clock cannot be compressed), on the open
 * PRs of one repository, every arm behind the capped upstream (capped-upstream.ts). Nothing is
 * pushed, reviewed or merged: a real repository is only read. Staleness cannot be judged (the
 * truth is GitHub's), so it is reported as absent.
 */
import { setMaxListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedRedis } from "../broker/index.js";
import { AoError } from "../common/index.js";
import type { ArmEnv } from "./arms/arm-env.js";
import type { ArmInstance } from "./arms/arm-types.js";
import { startBrokerArm } from "./arms/broker-arm.js";
import { startTokenArm } from "./arms/token-arm.js";
import type { TargetOptions } from "./bench-flags.js";
import { type BenchOptions, machine, methodText } from "./bench-runner.js";
import { CappedUpstream } from "./capped-upstream.js";
import { ARMS, type BenchReport, type StepResult, unmeasuredFigures } from "./core/report-types.js";
import { SpendCap } from "./core/spend-cap.js";
import { QUICK_PLAN } from "./core/step-plan.js";
import { perHour } from "./core/time-scale.js";
import { judgeStep } from "./core/verdict.js";
import { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import { HttpTransport, parseJson } from "./http-transport.js";
import { loadProfile } from "./load-profile.js";
import { SelfSampler } from "./resource-sampler.js";
import { StepClock } from "./step-clock.js";
import { StepRecorder } from "./step-recorder.js";

const DUMMY_TOKEN = "ghp_bench_target_placeholder";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openPulls(upstream: string, transport: HttpTransport, repo: string, count: number) {
  const [owner, name] = repo.split("/");
  const answer = await transport.send({
    url: `${upstream}/graphql`,
    method: "POST",
    headers: { authorization: `token ${DUMMY_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      query:
        "query($owner:String!,$name:String!,$n:Int!){repository(owner:$owner,name:$name){pullRequests(states:OPEN,first:$n,orderBy:{field:UPDATED_AT,direction:DESC}){nodes{number headRefName}}}}",
      variables: { owner, name, n: count },
    }),
  });
  const json = parseJson(answer.body, answer.headers) as
    | { data?: { repository?: { pullRequests?: { nodes?: { number: number; headRefName: string }[] } } } }
    | undefined;
  return json?.data?.repository?.pullRequests?.nodes ?? [];
}

export async function runTargetBench(
  options: BenchOptions,
  target: TargetOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<BenchReport> {
  const profile = loadProfile(options.profile ?? "quiet");
  if (profile.agents) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_OPTIONS_INVALID,
      "--target runs placeholder sessions only (--profile quiet): it never pushes, opens or merges anything on a real repository",
    );
  }
  const started = new Date();
  const cap = new SpendCap({ maxPoints: target.maxPoints });
  const transport = new HttpTransport({ connections: 16 });
  const costs = new CostEstimator();
  const upstream = new CappedUpstream({
    target: target.url,
    token: () => env[target.tokenEnv] ?? "",
    cap,
    transport,
    costs,
  });
  const upstreamUrl = await upstream.start();
  const redisDir = mkdtempSync(join(tmpdir(), "aob-bench-target-"));
  const arms = options.arms ?? ARMS;
  const redis = arms.includes("broker")
    ? await startEmbeddedRedis({ dir: join(redisDir, "redis"), persist: false, detached: false })
    : undefined;
  const runs: StepResult[] = [];
  const notes: string[] = [
    `target ${target.url}, repository ${target.repo}, cap ${target.maxPoints} points (and as many REST requests)`,
  ];
  const windowS = options.windowS ?? 120;
  const warmupS = options.plan?.warmupS ?? 30;
  try {
    const limits = await transport.send({
      url: `${upstreamUrl}/rate_limit`,
      method: "GET",
      headers: { authorization: `token ${DUMMY_TOKEN}` },
    });
    const resources = (
      parseJson(limits.body, limits.headers) as
        | { resources?: Record<string, { used: number; reset: number }> }
        | undefined
    )?.resources;
    for (const resource of ["graphql", "core"] as const) {
      const r = resources?.[resource];
      if (r) cap.baseline({ resource, used: r.used, reset: r.reset });
    }
    const counts =
      options.sessions === undefined || options.sessions === "auto" ? [10] : [...options.sessions];
    const pulls = await openPulls(upstreamUrl, transport, target.repo, Math.min(100, Math.max(...counts)));
    if (pulls.length === 0) notes.push(`${target.repo} has no open pull requests: nothing to poll`);
    let step = 0;
    outer: for (const arm of arms) {
      for (const wanted of counts) {
        const sessions = Math.min(wanted, pulls.length);
        if (sessions === 0 || cap.closed) break outer;
        const clock = new StepClock(1);
        const recorder = new StepRecorder({ scale: 1, simLatencyRealMs: 0, truth: undefined, costs });
        const stop = new AbortController();
        setMaxListeners(0, stop.signal);
        const stateDir = mkdtempSync(join(redisDir, "step-"));
        const armEnv: ArmEnv = {
          now: () => Date.now(),
          upstreamUrl,
          token: DUMMY_TOKEN,
          transport,
          clock,
          recorder,
          profile,
          repo: target.repo,
          ghCache: { introspected: true },
          redisUrl: redis?.url ?? "",
          stateDir,
          stepId: `t${process.pid}x${step++}`,
          signal: stop.signal,
        };
        let instance: ArmInstance | undefined;
        try {
          instance = arm === "broker" ? (await startBrokerArm(armEnv)).arm : await startTokenArm(arm, armEnv);
          for (const [i, pr] of pulls.slice(0, sessions).entries()) {
            await instance.orchestrator.watch(
              { id: `t${i}`, index: i, issue: 0, branch: pr.headRefName },
              pr.number,
            );
          }
          await sleep(warmupS * 1000);
          const before = { points: cap.spent("graphql"), rest: cap.spent("core"), ...upstream.counts() };
          const sampler = new SelfSampler();
          sampler.start();
          recorder.measuring = true;
          const t0 = performance.now();
          while (performance.now() - t0 < windowS * 1000 && !cap.closed) await sleep(500);
          recorder.measuring = false;
          const measured = (performance.now() - t0) / 1000;
          const self = sampler.stop();
          const after = { points: cap.spent("graphql"), rest: cap.spent("core"), ...upstream.counts() };
          const summary = recorder.summary();
          const figures = {
            graphqlPointsPerHour: perHour(after.points - before.points, measured),
            restCorePerHour: perHour(after.rest - before.rest, measured),
            agentRateLimitErrors: 0,
            addedWaitMs: { p95: null },
            stalenessMs: { p99: null },
          };
          const verdict = judgeStep(figures);
          runs.push({
            arm,
            profile: profile.name,
            sessions,
            windowSeconds: Math.round(measured),
            warmupSeconds: warmupS,
            timeScale: 1,
            realSeconds: Math.round(measured),
            stepSeconds: Math.round(warmupS + measured),
            graphqlPointsPerHour: Math.round(figures.graphqlPointsPerHour),
            restCorePerHour: Math.round(figures.restCorePerHour),
            graphqlPointsCharged: after.points - before.points,
            restCoreCharged: after.rest - before.rest,
            graphqlPointsRefused: 0,
            restCoreRefused: 0,
            upstreamRequests: after.requests - before.requests,
            upstreamNotModified: after.notModified - before.notModified,
            upstreamSecondaryLimited: 0,
            agentRequests: 0,
            agentRequestsPerWallSecond: 0,
            agentCommands: 0,
            agentRateLimitErrors: 0,
            agentOtherErrors: 0,
            agentErrorsByOperation: {},
            addedWaitMs: { p50: null, p95: null, p99: null },
            stalenessMs: { p50: null, p99: null },
            answersJudged: 0,
            answersStale: 0,
            answersUnknown: 0,
            pollCycleSeconds: summary.pollCycleSeconds,
            cache: summary.cache,
            broker: null,
            benchProcess: self,
            redisCpuSeconds: null,
            withinBudget: verdict.withinBudget && !cap.closed,
            reasons: cap.closed
              ? [...verdict.reasons, "the --max-points cap was reached during the window"]
              : verdict.reasons,
            upstreamByOperation: {},
            upstreamRestByOperation: {},
            commandsByName: {},
            sessionFailures: 0,
            ...unmeasuredFigures(),
          });
        } finally {
          stop.abort();
          await instance?.close().catch(() => undefined);
          rmSync(stateDir, { recursive: true, force: true });
        }
      }
    }
    if (cap.closed)
      notes.push(`the --max-points cap (${target.maxPoints}) was reached; the run stopped there`);
  } finally {
    await upstream.close();
    await redis?.stop();
    await transport.close();
    rmSync(redisDir, { recursive: true, force: true });
  }
  return {
    tool: "ao-broker bench",
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: machine(),
    command: options.commandLine ?? "ao-broker bench --target",
    options: { target: target.url, repo: target.repo, maxPoints: target.maxPoints, arms, windowS },
    method: [
      ...methodText(profile, { ...QUICK_PLAN, maxScale: 1, warmupS }, false).slice(0, 1),
      "Real time (no compression); spending read from the target's own x-ratelimit-used headers through a capped proxy.",
    ],
    runs,
    sessionsToBudget: {},
    sessionsToBudgetBound: {},
    calibration: { target: 9572, tolerance: 0.25, directPointsPerHourAt5Active: null, withinTolerance: null },
    ceiling: null,
    ofCeiling: {},
    notes,
    realGh: null,
  };
}
