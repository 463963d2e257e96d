/**
 * Agents' REST reads of a PR are vouched for by the lifecycle's repository guards instead of being
 * revalidated upstream (cache/core/facets.ts vouchGroups): a watched PR's `pulls/N` by its guards,
 * and any PR's `pulls/N/comments` and `pulls/N/reviews` by the PR-list guard
 * (`pulls?state=all&sort=updated&direction=desc`), whose 304s say no PR's updated_at moved. Once the
 * PR moves, the guard sees it and the next read goes upstream. Real Redis, the real broker, the
 * simulator.
 */
import { Octokit } from "@octokit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker } from "../../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: BrokerClient;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      // Plain REST freshness far below the vouch window: a HIT past it can only come from a vouch.
      cache: { restFreshMs: 300, guardedFreshMs: 5_000 },
      lifecycle: {
        settings: {
          cycleIntervalMs: 500,
          repoIntervalMs: 500,
          activeIntervalMs: 500,
          quietIntervalMs: 500,
          idleIntervalMs: 500,
          // The watched PR's review-comments guard reads pulls/2/comments, the operation counted
          // below for PR 3; under load its first run fell inside the counted stretch. PR 3's
          // comments are vouched by the PR-list guard, which this test is about.
          commentsIntervalMs: 0,
        },
      },
    },
  });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const upstreamCount = (op: string) => sim.stats().requests.byOperation[op] ?? 0;
const PULL = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
const COMMENTS = "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments";
const REVIEWS = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews";

describe("agents' REST reads of PRs, vouched by the lifecycle's guards", () => {
  it("serve repeated pulls/N, pulls/N/comments and pulls/N/reviews from the cache while the guards see nothing move, and go upstream once the PR moves", {
    timeout: 60_000,
  }, async () => {
    // The lifecycle watches PR 2 (its session's branch); PR 3 only sits in the repository's PR list.
    await broker.openSession("s-typo");
    await ipc.watch({ sessionId: "s-typo", repo: "acme/widgets", branch: "docs/readme-typo" });
    const { token } = await broker.openSession("agent-rest");
    const agent = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: token });
    const read = async (path: string) => {
      const r = await agent.request(`GET ${path}`);
      return { cache: String(r.headers["x-ao-broker-cache"]), data: r.data as unknown };
    };
    const reads = [
      "/repos/acme/widgets/pulls/2",
      "/repos/acme/widgets/pulls/3/comments",
      "/repos/acme/widgets/pulls/3/reviews",
    ];
    // Wait until the lifecycle vouches (its guards confirmed everything once), then read once.
    await until(async () => {
      for (const path of reads) await read(path);
      await new Promise((r) => setTimeout(r, 1_200));
      const served = await Promise.all(reads.map(read));
      return served.every((s) => s.cache === "HIT") ? true : undefined;
    }, 20_000);
    const before = [PULL, COMMENTS, REVIEWS].map(upstreamCount);
    // Past plain freshness (300 ms), many times over: every read is a HIT and none goes upstream.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 400));
      for (const path of reads) expect((await read(path)).cache, path).toBe("HIT");
    }
    expect([PULL, COMMENTS, REVIEWS].map(upstreamCount)).toEqual(before);

    // PR 3 moves (a label: its updated_at moves, so the PR list does): its answers go upstream again.
    sim.inject({ type: "labels", number: 3, add: ["ready"] });
    await until(async () => {
      await read("/repos/acme/widgets/pulls/3/comments");
      await read("/repos/acme/widgets/pulls/3/reviews");
      return upstreamCount(COMMENTS) > (before[1] ?? 0) && upstreamCount(REVIEWS) > (before[2] ?? 0)
        ? true
        : undefined;
    }, 10_000);
    // And PR 2 moves: its pulls/N is fetched again and shows the change.
    sim.inject({ type: "labels", number: 2, add: ["ready"] });
    const changed = await until(async () => {
      const r = await read("/repos/acme/widgets/pulls/2");
      const labels = (r.data as { labels: { name: string }[] }).labels.map((l) => l.name);
      return labels.includes("ready") ? labels : undefined;
    }, 10_000);
    expect(changed).toContain("ready");
    expect(upstreamCount(PULL)).toBeGreaterThan(before[0] ?? 0);
  });
});
