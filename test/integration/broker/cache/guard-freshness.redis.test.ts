/**
 * Fresh answers for AO's guards (issue 14): AO's ETag guards send conditional GETs through the
 * broker. While the cached answer is good they get a 304 from the cache; once a signal saw the
 * resource change (here the lifecycle's check-runs guard, through the broker's lifecycle ports),
 * the next conditional GET gets the new answer at once, not a 304 from the fresh window. Real
 * Redis, the real gateway and pipeline; a counting fake GitHub.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLifecyclePorts } from "../../../../broker/lifecycle/lifecycle-ports.js";
import { CountingUpstream, RecordingBudget } from "../../../support/fake-ports.js";
import { type GatewayStack, rawRequest, startGatewayStack } from "../../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const SHA = "b".repeat(40);
const CHECKS = `/repos/acme/widgets/commits/${SHA}/check-runs?per_page=100`;
const OTHER = "/repos/acme/widgets/pulls/2";
const running = { total_count: 1, check_runs: [{ name: "ci", status: "in_progress", conclusion: null }] };
const done = { total_count: 1, check_runs: [{ name: "ci", status: "completed", conclusion: "success" }] };

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("AO's conditional guards through the broker", () => {
  let upstream: CountingUpstream;
  let stack: GatewayStack;
  let token: string;
  const auth = () => ({ authorization: `token ${token}` });

  beforeEach(async () => {
    upstream = new CountingUpstream();
    upstream.set(CHECKS, { body: running });
    upstream.set(OTHER, { body: { number: 2, title: "other" } });
    stack = await startGatewayStack({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstream,
      budget: new RecordingBudget(),
      // A long fresh window: what is asserted cannot come from freshness running out.
      freshness: { restFreshMs: 600_000 },
    });
    token = (await stack.store.open({ id: "ao", repo: "acme/widgets" })).token;
  });
  afterEach(async () => {
    await stack.close();
  });

  it("get a 304 while nothing moved, and the new answer as soon as a signal saw the checks move", async () => {
    const first = await rawRequest(stack.port, { path: CHECKS, headers: auth() });
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    await rawRequest(stack.port, { path: OTHER, headers: auth() });

    const unchanged = await rawRequest(stack.port, {
      path: CHECKS,
      headers: { ...auth(), "if-none-match": etag },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers["x-ao-broker-cache"]).toBe("HIT");
    expect(upstream.count(CHECKS)).toBe(1);

    // CI finishes; the lifecycle's guard sees it and tells the cache through its port.
    upstream.set(CHECKS, { body: done });
    const ports = createLifecyclePorts({
      pipeline: async () => {
        throw new Error("not used");
      },
      classify: () => {
        throw new Error("not used");
      },
      cache: stack.cache,
      gate: {} as never,
      redis: stack.redis,
      prefix: stack.prefix,
    });
    await ports.invalidate({
      repo: "acme/widgets",
      pr: 1,
      reason: "lifecycle:checks-changed",
      facets: ["checks"],
      headSha: SHA,
    });

    const moved = await rawRequest(stack.port, {
      path: CHECKS,
      headers: { ...auth(), "if-none-match": etag },
    });
    expect(moved.status).toBe(200);
    expect(JSON.parse(moved.body.toString("utf8"))).toEqual(done);
    expect(moved.headers.etag).not.toBe(etag);
    expect(upstream.count(CHECKS)).toBe(2);
    // The change moved checks only: another PR's answer is still served from the cache.
    expect(
      (await rawRequest(stack.port, { path: OTHER, headers: auth() })).headers["x-ao-broker-cache"],
    ).toBe("HIT");
    expect(upstream.count(OTHER)).toBe(1);
    // And with the new ETag, AO's guard is back to free 304s from the cache.
    const again = await rawRequest(stack.port, {
      path: CHECKS,
      headers: { ...auth(), "if-none-match": moved.headers.etag as string },
    });
    expect(again.status).toBe(304);
    expect(upstream.count(CHECKS)).toBe(2);
  });
});
