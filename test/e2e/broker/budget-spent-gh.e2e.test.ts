/**
 * When the shared budget is spent and its reset comes after a request's deadline, gh's request
 * fails at once (the broker can predict it: docs/decisions/0008) rather than after its whole
 * deadline, in GitHub's own shape, so gh prints it as it prints GitHub's rate-limit error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { runProcess } from "../../support/cli-process.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-spent-"));
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0, limits: { graphql: 2 }, windowSeconds: 600 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      gateway: { defaultDeadlineMs: 1500 },
      budget: { reserve: { lifecycle: 0, interactive: 0 } },
      lifecycle: { enabled: false },
      batching: { enabled: false },
    },
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a spent budget", () => {
  it("makes gh print GitHub's rate-limit error at once when the reset is past its deadline, without spending more", async () => {
    const { env } = await broker.openSession("s1");
    const ghEnv = { ...env, GH_CONFIG_DIR: join(dir, "gh") };
    for (const pr of [1, 2])
      expect((await runProcess("gh", ["pr", "view", String(pr), "--json", "title"], ghEnv)).code).toBe(0);
    const started = Date.now();
    const third = await runProcess("gh", ["pr", "view", "3", "--json", "title"], ghEnv);
    // The reset is 10 min away, the deadline 1.5 s: no wait could help, so none is made.
    expect(Date.now() - started).toBeLessThan(1400);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(
      /GraphQL: API rate limit exceeded: ao-broker's shared graphql budget is spent/,
    );
    expect(sim.stats().requests.rateLimited).toBe(0);
    expect(sim.stats().resources.graphql.used).toBe(2);
  });
});
