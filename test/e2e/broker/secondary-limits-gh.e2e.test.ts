/**
 * GitHub's content-creation limit (80 a minute) under a burst of real `gh pr comment`s from
 * several sessions, through the broker to a simulator that enforces it: every comment lands
 * exactly once, none fails, GitHub (the simulator) never refuses one, and no minute holds more
 * than 80 — the broker paces them (72 a minute) instead of failing them. `ao-broker budget` shows
 * the counts against GitHub's limits, and over IPC a session is seen waiting for that limit.
 * GitHub's numbers on an 18 s "minute" (the simulator's and the broker's secondary minute alike, so
 * the test waits one short minute, not a real one); the mutation spacing is lowered to 50 ms so
 * the content limit, not the spacing, is what holds the burst back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BudgetResult, connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { runCli, runProcess } from "../../support/cli-process.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const SESSIONS = 5;
const PER_SESSION = 20;
const PRS = [1, 2, 3];
/** The secondary limits' minute, for the simulator and the broker alike. */
const MINUTE_MS = 18_000; // a multiple of 60: the broker keeps the minute in 60 buckets

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-secondary-"));
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0, secondary: { minuteMs: MINUTE_MS } });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      lifecycle: { enabled: false },
      queue: { pacing: { mutationSpacingMs: 50, secondaryMinuteMs: MINUTE_MS } },
    },
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Most comments created within any `spanMs` (sliding over the creation times). */
function busiestSpan(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= spanMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

describe("a burst of 100 gh pr comments from five sessions", () => {
  it("lands every comment exactly once, none refused by GitHub, at most 80 in any minute, and shows the counts", async () => {
    const envs = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const { env } = await broker.openSession(`s${i}`);
        return { ...env, GH_CONFIG_DIR: join(dir, `gh-${i}`) };
      }),
    );
    const client = await connectBroker({ socketPath: broker.broker.socketPath });
    let maxMinute = 0;
    const waitsSeen = new Set<string>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const budget: BudgetResult = await client.budget();
        maxMinute = Math.max(maxMinute, budget.secondary?.contentCreation.minute.used ?? 0);
        for (const w of budget.waiting ?? []) waitsSeen.add(`${w.sessionId}:${w.limit}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();

    const bodies: string[] = [];
    const failures: string[] = [];
    const started = Date.now();
    await Promise.all(
      envs.map(async (env, s) => {
        // Two gh at a time per session: ten in flight, a burst two cores can still start.
        const lanes = [0, 1].map(async (lane) => {
          for (let n = lane; n < PER_SESSION; n += 2) {
            const body = `c-s${s}-${n}`;
            bodies.push(body);
            const pr = PRS[(s + n) % PRS.length] as number;
            const r = await runProcess("gh", ["pr", "comment", String(pr), "--body", body], env, 300_000);
            if (r.code !== 0) failures.push(`${body}: ${r.stderr.trim()}`);
          }
        });
        await Promise.all(lanes);
      }),
    );
    const elapsed = Date.now() - started;
    sampling = false;
    await sampler;
    await client.close();

    expect(failures).toEqual([]);
    const repo = sim.world.repo("acme/widgets");
    const comments = PRS.flatMap((n) => repo?.pulls.get(n)?.comments ?? []).filter((c) =>
      c.body.startsWith("c-s"),
    );
    expect(comments.map((c) => c.body).sort()).toEqual([...bodies].sort());
    expect(new Set(comments.map((c) => c.body)).size).toBe(SESSIONS * PER_SESSION);
    expect(sim.stats().requests.secondaryLimited).toBe(0);
    // Paced to 72 a minute (Redis time, at the take): the 73rd waited until the first left the
    // minute. Arrival at GitHub adds up to a send's latency, so GitHub's 80 holds over the minute
    // and the pace over the minute less a second of arrival times.
    const created = comments.map((c) => c.createdAt);
    expect(busiestSpan(created, MINUTE_MS)).toBeLessThanOrEqual(80);
    expect(busiestSpan(created, MINUTE_MS - 1_000)).toBeLessThanOrEqual(72);
    expect(busiestSpan(created, MINUTE_MS)).toBeGreaterThan(60); // the burst did reach the limit
    expect(elapsed).toBeGreaterThanOrEqual(MINUTE_MS - 2_000);
    expect(maxMinute).toBeLessThanOrEqual(72);
    expect([...waitsSeen].some((w) => w.endsWith(":content-creation-per-minute"))).toBe(true);

    const shown = await runCli(["budget", "--socket", broker.broker.socketPath]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/content creation this hour\s+100\s+450\s+500/);
    expect(shown.stdout).toMatch(/content creation this minute \(18s, compressed\)\s+\d+\s+72\s+80/);
    expect(shown.stdout).toMatch(/REST .* this minute|GraphQL points this minute/);
    const json = JSON.parse(
      (await runCli(["budget", "--json", "--socket", broker.broker.socketPath])).stdout,
    );
    expect(json.secondary.contentCreation.hour).toEqual({ used: 100, limit: 450, githubLimit: 500 });
  }, 240_000);
});
