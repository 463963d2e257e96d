/**
 * Measures what deadline-aware batching costs in latency and saves in points, by class, at low and
 * high load. Run: `npx tsx test/integration/broker/batch/measure-batching.ts [--json]`.
 *
 * A discrete-event run on a virtual clock (the scheduler's injectable clock), so two simulated
 * minutes take seconds and the figures do not depend on this machine's load: added latency is the
 * time each query waited in the batcher before its upstream request left (GitHub's own latency is
 * the same with and without batching, except that a merged query is larger; that part needs the
 * simulator and the real bench). Upstream is the counting fake GitHub of the unit tests: it
 * validates, charges computeQueryCost points per query and executes on GitHub's schema.
 *
 * Workload `mixed`, per session (phases random, so sessions are not in step):
 * - repeat: `gh pr checks` run by the agent every 10 s (PullRequestStatusChecks, class repeat),
 * - watch: one session in four runs `gh pr checks --watch` instead (same query, class watch),
 * - lifecycle: the broker's PR poller asks each session's PR every 30 s (AO's per-PR fields,
 *   class lifecycle, budget 5 s),
 * - interactive: `gh pr view N` about once a minute per session (PullRequestByNumber, 5 ms).
 * Workload `pr-checks`: the scenario, each session running `gh pr checks N` every 10 s
 * (PullRequestByNumber, then PullRequestStatusChecks once the first is answered; class repeat).
 * Also reported (measureCpu): the real CPU time the batcher itself spends per member and per batch.
 */
import { performance } from "node:perf_hooks";
import {
  BATCH_CLASSES,
  type BatchClass,
  type BatchClock,
  BatchScheduler,
  DEFAULT_BATCH_BUDGETS_MS,
  DocumentAnalysisCache,
  type EligibleMember,
  mergeQueries,
  prepareMember,
  splitMergedResponse,
} from "../../../../broker/batch/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { capturedGraphQLRequests } from "../../../support/traffic.js";
import { createFakeGitHub } from "../../../unit/broker/batch/support/fake-github.js";
import { seededRng } from "../../../unit/broker/batch/support/random-variables.js";

const LIFECYCLE_QUERY = `query PullRequestState($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      title state additions deletions isDraft mergeable mergeStateStatus reviewDecision headRefName headRefOid
      commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 11) { nodes {
        ... on CheckRun { name status conclusion detailsUrl }
        ... on StatusContext { context state targetUrl }
      } } } } } }
    }
  }
}`;

class VirtualClock implements BatchClock {
  #now = 0;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; run: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(run: () => void, ms: number): unknown {
    this.#seq += 1;
    this.#timers.set(this.#seq, { at: this.#now + Math.max(0, ms), run });
    return this.#seq;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Runs timers in time order until none is left before `end`, letting promises settle between. */
  async runUntil(end: number): Promise<void> {
    for (;;) {
      let next: [number, { at: number; run: () => void }] | undefined;
      for (const entry of this.#timers) if (!next || entry[1].at < next[1].at) next = entry;
      if (!next || next[1].at > end) break;
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].run();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.#now = end;
  }
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export interface LoadResult {
  readonly workload: Workload;
  readonly sessions: number;
  readonly durationS: number;
  readonly submitted: number;
  readonly upstreamQueries: number;
  readonly pointsBatched: number;
  readonly pointsAlone: number;
  readonly byClass: Record<
    string,
    { n: number; p50: number; p99: number; batchedShare: number; meanBatch: number }
  >;
}

export type Workload = "mixed" | "pr-checks";

export async function measure(
  sessions: number,
  workload: Workload = "mixed",
  durationS = 120,
  seed = 1,
): Promise<LoadResult> {
  const schema = loadGitHubSchema();
  const captured = capturedGraphQLRequests();
  const find = (file: string, operation: string) =>
    captured.find((r) => r.file === file && r.operationName === operation);
  const prView = find("pr_view.md", "PullRequestByNumber");
  const checks = find("tty_pr_checks.md", "PullRequestStatusChecks");
  const checksPr = find("tty_pr_checks.md", "PullRequestByNumber");
  if (!prView || !checks || !checksPr) throw new Error("traffic captures missing pr_view / tty_pr_checks");
  const clock = new VirtualClock();
  const github = createFakeGitHub({ schema });
  const scheduler = new BatchScheduler({ schema, send: github.send, clock });
  const rng = seededRng(seed);
  const samples = new Map<BatchClass, { waited: number[]; batched: number; sizes: number[] }>();
  const pending: Promise<void>[] = [];
  const end = durationS * 1000;

  type Request = { query: string; variables: unknown };
  let ids = 0;
  /** Submits dependent queries one after another, as gh sends the next after the previous answer. */
  const run = async (requests: readonly Request[], batchClass: BatchClass) => {
    for (const request of requests) {
      ids += 1;
      const o = await scheduler.submit({ id: `q${ids}`, ...request }, { batchClass });
      const entry = samples.get(batchClass) ?? { waited: [], batched: 0, sizes: [] };
      entry.waited.push(o.waitedMs);
      entry.sizes.push(o.batchSize);
      if (o.batched) entry.batched += 1;
      samples.set(batchClass, entry);
    }
  };
  const every = (periodMs: number, make: () => readonly Request[], batchClass: BatchClass) => {
    for (let at = rng() * periodMs; at < end; at += periodMs * (0.9 + rng() * 0.2)) {
      clock.setTimeout(() => pending.push(run(make(), batchClass)), at);
    }
  };

  for (let s = 0; s < sessions; s++) {
    const number = s + 1;
    const statusChecks = { query: checks.query, variables: { id: `PR_kwDO${number}` } };
    if (workload === "pr-checks") {
      const byNumber = { query: checksPr.query, variables: { ...checksPr.variables, pr_number: number } };
      every(10_000, () => [byNumber, statusChecks], "repeat");
      continue;
    }
    every(10_000, () => [statusChecks], s % 4 === 0 ? "watch" : "repeat");
    every(
      30_000,
      () => [{ query: LIFECYCLE_QUERY, variables: { owner: "acme", repo: "widgets", number } }],
      "lifecycle",
    );
    every(
      60_000,
      () => [{ query: prView.query, variables: { ...prView.variables, pr_number: number } }],
      "interactive",
    );
  }
  await clock.runUntil(end + 10_000);
  await Promise.all(pending);
  await scheduler.close();
  const stats = scheduler.stats();
  const byClass: LoadResult["byClass"] = {};
  for (const batchClass of BATCH_CLASSES) {
    const entry = samples.get(batchClass);
    if (!entry) continue;
    byClass[batchClass] = {
      n: entry.waited.length,
      p50: percentile(entry.waited, 50),
      p99: percentile(entry.waited, 99),
      batchedShare: entry.batched / entry.waited.length,
      meanBatch: entry.sizes.reduce((a, b) => a + b, 0) / entry.sizes.length,
    };
  }
  return {
    workload,
    sessions,
    durationS,
    submitted: stats.submitted,
    upstreamQueries: stats.upstreamQueries,
    pointsBatched: github.points(),
    pointsAlone: stats.pointsAlone,
    byClass,
  };
}

function table(results: readonly LoadResult[]): string {
  const lines = [
    "| workload | sessions | class | budget ms | queries | added p50 ms | added p99 ms | answered batched | mean batch |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    for (const [name, c] of Object.entries(r.byClass)) {
      lines.push(
        `| ${r.workload} | ${r.sessions} | ${name} | ${DEFAULT_BATCH_BUDGETS_MS[name as BatchClass]} | ${c.n} | ${c.p50.toFixed(0)} | ${c.p99.toFixed(0)} | ${(100 * c.batchedShare).toFixed(0)} % | ${c.meanBatch.toFixed(1)} |`,
      );
    }
  }
  lines.push(
    "",
    "| workload | sessions | simulated | queries | upstream requests | points alone | points batched | saved |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    lines.push(
      `| ${r.workload} | ${r.sessions} | ${r.durationS} s | ${r.submitted} | ${r.upstreamQueries} | ${r.pointsAlone} | ${r.pointsBatched} | ${(r.pointsAlone / Math.max(1, r.pointsBatched)).toFixed(1)}× |`,
    );
  }
  return lines.join("\n");
}

export interface CpuResult {
  readonly members: number;
  readonly prepareMsPerMember: number;
  readonly mergeMsPerBatch: number;
  readonly splitMsPerBatch: number;
  readonly mergedQueryBytes: number;
}

/** Real CPU cost of the batcher's own work for one batch of `members` gh pr view queries. */
export async function measureCpu(members = 50, rounds = 20): Promise<CpuResult> {
  const schema = loadGitHubSchema();
  const prView = capturedGraphQLRequests().find((r) => r.file === "pr_view.md");
  if (!prView) throw new Error("traffic capture pr_view missing");
  const github = createFakeGitHub({ schema });
  const cache = new DocumentAnalysisCache();
  let prepare = 0;
  let merge = 0;
  let split = 0;
  let bytes = 0;
  for (let round = 0; round < rounds; round++) {
    const t0 = performance.now();
    const prepared = Array.from({ length: members }, (_, i) =>
      prepareMember(
        { id: `m${i}`, query: prView.query, variables: { ...prView.variables, pr_number: i + 1 } },
        { schema, cache },
      ),
    ).filter((m): m is EligibleMember => m.eligible);
    const t1 = performance.now();
    const merged = mergeQueries(
      prepared.map((m) => ({ id: m.id, source: m.source, plan: m.plan, variables: m.variables })),
    );
    const t2 = performance.now();
    const reply = await github.send({
      query: merged.query,
      variables: merged.variables,
      operationName: merged.operationName,
      priority: "interactive",
      mergeKey: "",
      headers: {},
      memberIds: [],
      kind: "merged",
    });
    const t3 = performance.now();
    const parts = splitMergedResponse(merged, JSON.parse(String(reply.body)));
    for (const part of parts.members) if (part.kind === "answer") JSON.stringify(part.body);
    const t4 = performance.now();
    if (round > 0) {
      prepare += t1 - t0;
      merge += t2 - t1;
      split += t4 - t3;
    }
    bytes = merged.query.length;
  }
  const n = rounds - 1;
  return {
    members,
    prepareMsPerMember: prepare / n / members,
    mergeMsPerBatch: merge / n,
    splitMsPerBatch: split / n,
    mergedQueryBytes: bytes,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = [
    await measure(10),
    await measure(50),
    await measure(200),
    await measure(50, "pr-checks"),
    await measure(200, "pr-checks"),
  ];
  const cpu = await measureCpu();
  if (process.argv.includes("--json")) console.log(JSON.stringify({ results, cpu }, null, 2));
  else {
    console.log(table(results));
    console.log(
      `\nCPU per batch of ${cpu.members} gh pr view queries: prepare ${cpu.prepareMsPerMember.toFixed(2)} ms/member, merge ${cpu.mergeMsPerBatch.toFixed(1)} ms, split+serialize ${cpu.splitMsPerBatch.toFixed(1)} ms; merged query ${cpu.mergedQueryBytes} bytes`,
    );
  }
}
