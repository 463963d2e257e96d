/**
 * `npm run bench:greedy`: issue 17's greedy first-comer (bench/greedy-scenario.ts) on a private
 * redis-server: a 400-request window compressed to 60 s, a greedy agent looping on uncached reads
 * from t = 0, five modest agents from t = 8 s asking once a second for 12 s. Arms: the broker as
 * configured by default ("paced"), and the same with pacing off ("unpaced": the behaviour before
 * docs/decisions/0008); each with the greedy agent on 1 and on 20 session ids of one checkout.
 * Reported per arm: the median over `--runs` of the modest agents' p50/p95/max latency, their
 * refusals, what the greedy agent had spent when they arrived, and the upstream requests.
 * `--busy` runs `node -e 'for(;;){}'` beside it (one core taken), as docs/BENCHMARKS.md reports.
 * Usage: npm run bench:greedy [-- --runs 3 --busy --arms paced,unpaced --ids 1,20 --json FILE]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedRedis } from "../broker/index.js";
import { type GreedyScenarioResult, runGreedyScenario } from "./greedy-scenario.js";

const ARMS: Record<string, Record<string, unknown>> = {
  paced: {},
  unpaced: { budget: { pace: { burstFraction: 1 } } },
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      busy: { type: "boolean", default: false },
      arms: { type: "string", default: "paced,unpaced" },
      ids: { type: "string", default: "1,20" },
      json: { type: "string" },
    },
  });
  const runs = Number(values.runs);
  if (!(Number.isInteger(runs) && runs > 0)) throw new Error("--runs: expected a positive integer");
  const arms = String(values.arms).split(",");
  for (const arm of arms) if (!ARMS[arm]) throw new Error(`--arms: unknown arm "${arm}" (paced, unpaced)`);
  const idCounts = String(values.ids).split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "aob-bench-greedy-"));
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  let spinner: ChildProcess | undefined;
  if (values.busy) spinner = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
  const report: Record<string, unknown>[] = [];
  try {
    let n = 0;
    for (const arm of arms)
      for (const ids of idCounts) {
        const results: GreedyScenarioResult[] = [];
        for (let run = 0; run < runs; run++) {
          results.push(
            await runGreedyScenario({
              redisUrl: `unix://${redis.socketPath}`,
              prefix: `bench${++n}`,
              greedyIds: ids,
              config: ARMS[arm] as Record<string, unknown>,
            }),
          );
        }
        const row = {
          arm,
          greedyIds: ids,
          runs,
          busy: values.busy,
          modestRequests: median(results.map((r) => r.modest.requests)),
          modestRefusedPct: median(
            results.map((r) => (100 * r.modest.refused) / Math.max(1, r.modest.requests)),
          ),
          modestWithin2sPct: median(
            results.map((r) => (100 * r.modest.within2s) / Math.max(1, r.modest.requests)),
          ),
          modestP50Ms: median(results.map((r) => r.modest.p50Ms)),
          modestP95Ms: median(results.map((r) => r.modest.p95Ms)),
          modestMaxMs: median(results.map((r) => r.modest.maxMs)),
          greedySpentAtArrival: median(results.map((r) => r.greedy.spentAtArrival)),
          greedyAnswered: median(results.map((r) => r.greedy.answered)),
          upstreamUsed: median(results.map((r) => r.upstream.used)),
          upstreamRateLimited: median(results.map((r) => r.upstream.rateLimited)),
        };
        report.push(row);
        process.stdout.write(`${JSON.stringify(row)}\n`);
      }
  } finally {
    spinner?.kill("SIGKILL");
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}

await main();
