/**
 * Final answers (cache/core/final-answers.ts): an answer about finished CI is served from the cache
 * whatever moves afterwards, while the same endpoint's answers about running CI stay ordinary and
 * follow the Actions guard's moves. Real Redis, the real gateway and pipeline; a counting fake
 * GitHub; the moves are the ones the lifecycle's Actions guard makes (runsMovedTags).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runsMovedTags } from "../../../../broker/cache/core/facets.js";
import { CountingUpstream, RecordingBudget } from "../../../support/fake-ports.js";
import { type GatewayStack, rawRequest, startGatewayStack } from "../../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const R = "/repos/acme/widgets";
const JOBS = `${R}/actions/runs/42/jobs`;
const RUN = `${R}/actions/runs/42`;
const ANNOTATIONS = `${R}/check-runs/7/annotations`;
const JOB = `${R}/actions/jobs/7`;
const annotations = [{ path: "a.ts", message: "boom", annotation_level: "failure" }];

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("final answers through the broker", () => {
  let upstream: CountingUpstream;
  let stack: GatewayStack;
  let token: string;
  const auth = () => ({ authorization: `token ${token}` });
  const get = (path: string) => rawRequest(stack.port, { path, headers: auth() });
  /** What the Actions guard does when it sees run 42 (or another run) move. */
  const runMoved = (id: number) =>
    stack.cache.invalidate(runsMovedTags("acme", "widgets", [{ id, headSha: "a".repeat(40), branch: "b" }]), {
      origin: "signal",
    });
  const pastFreshness = () => new Promise((r) => setTimeout(r, 30));

  beforeEach(async () => {
    upstream = new CountingUpstream();
    stack = await startGatewayStack({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstream,
      budget: new RecordingBudget(),
      // Plain freshness runs out at once: a later HIT can only be a final answer.
      freshness: { restFreshMs: 10, finalAnswerMs: 600_000 },
    });
    token = (await stack.store.open({ id: "agent", repo: "acme/widgets" })).token;
  });
  afterEach(async () => {
    await stack.close();
  });

  it("serves a finished check run's annotations and job from the cache after every move, never a run", async () => {
    upstream.set(JOBS, {
      body: { total_count: 1, jobs: [{ id: 7, status: "completed", conclusion: "failure" }] },
    });
    upstream.set(RUN, { body: { id: 42, status: "completed", conclusion: "failure" } });
    upstream.set(ANNOTATIONS, { body: annotations });
    upstream.set(JOB, { body: { id: 7, status: "completed", conclusion: "failure" } });
    for (const path of [RUN, JOBS, ANNOTATIONS, JOB]) expect((await get(path)).status).toBe(200);

    // Other runs of the repository move (the jobs tag, the run lists), and time passes.
    await runMoved(43);
    await runMoved(44);
    await pastFreshness();
    for (const path of [ANNOTATIONS, JOB]) {
      const again = await get(path);
      expect(again.headers["x-ao-broker-cache"], path).toBe("HIT");
      expect(upstream.count(path), path).toBe(1);
    }
    expect(JSON.parse((await get(ANNOTATIONS)).body.toString("utf8"))).toEqual(annotations);

    // A completed run's record and jobs list stay ordinary (a re-run is the same run id): past
    // their freshness they are asked again, and a re-run moves them as well.
    for (const path of [RUN, JOBS]) {
      expect((await get(path)).headers["x-ao-broker-cache"], path).not.toBe("HIT");
      expect(upstream.count(path), path).toBe(2);
    }
    await runMoved(42);
    await pastFreshness();
    for (const path of [RUN, JOBS, ANNOTATIONS, JOB]) await get(path);
    expect(upstream.count(RUN)).toBe(3);
    expect(upstream.count(JOBS)).toBe(3);
    expect(upstream.count(ANNOTATIONS)).toBe(1);
    expect(upstream.count(JOB)).toBe(1);
  });

  it("keeps answers about running CI ordinary: they follow the moves", async () => {
    upstream.set(JOBS, {
      body: { total_count: 1, jobs: [{ id: 7, status: "in_progress", conclusion: null }] },
    });
    upstream.set(RUN, { body: { id: 42, status: "in_progress", conclusion: null } });
    upstream.set(ANNOTATIONS, { body: [] });
    // gh run watch: the run, its jobs, then the annotations, while the run is running.
    for (const path of [RUN, JOBS, ANNOTATIONS]) await get(path);
    await runMoved(43);
    await pastFreshness();
    for (const path of [RUN, JOBS, ANNOTATIONS]) {
      const again = await get(path);
      expect(again.headers["x-ao-broker-cache"], path).not.toBe("HIT");
      expect(upstream.count(path), path).toBe(2);
    }

    // The job finishes; the next jobs list shows it, so the annotations read after it are final.
    upstream.set(JOBS, {
      body: { total_count: 1, jobs: [{ id: 7, status: "completed", conclusion: "failure" }] },
    });
    upstream.set(ANNOTATIONS, { body: annotations });
    await runMoved(42);
    await get(JOBS);
    expect(JSON.parse((await get(ANNOTATIONS)).body.toString("utf8"))).toEqual(annotations);
    expect(upstream.count(ANNOTATIONS)).toBe(3);
    await runMoved(42);
    await pastFreshness();
    expect((await get(ANNOTATIONS)).headers["x-ao-broker-cache"]).toBe("HIT");
    expect(upstream.count(ANNOTATIONS)).toBe(3);
  });
});
