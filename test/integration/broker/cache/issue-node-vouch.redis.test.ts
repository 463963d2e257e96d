/**
 * An issue read by node id (`gh issue view --comments`' CommentsForIssue reads
 * `node:<issue id>:comments`) is vouched for by the repository's issues-list guard: when the guard
 * vouches `issues:o/r`, every id learned in that repository gets the vouch (`nodei:<id>`), and an
 * answer stored before the guard's first read is never covered. Real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vouchGroups } from "../../../../broker/cache/core/facets.js";
import { learnIds } from "../../../../broker/cache/core/graphql-analysis.js";
import { ResponseCache } from "../../../../broker/cache/response-cache.js";
import { createRedisClient } from "../../../../broker/index.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

let redis: TestRedis;
let client: ReturnType<typeof createRedisClient>;
beforeAll(async () => {
  redis = await startTestRedis();
  client = createRedisClient(redis.url);
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

describe("the issues-list guard's vouch for issues read by node id", () => {
  it("covers answers about learned ids of its repository, stored after its first read", async () => {
    const cache = new ResponseCache({
      redis: client,
      prefix: redis.prefix(),
      maxBytes: 1024 * 1024,
      maxEntryBytes: 1024 * 1024,
      retainSeconds: 3600,
    });
    await cache.learnIds(
      learnIds({ repository: { issue: { id: "IS_7", number: 7 } } }, { owner: "acme", name: "widgets" }),
    );
    const reads = ["node:IS_7:comments"];
    const groups = vouchGroups(reads) ?? [];
    const store = (key: string, storedAt: number) =>
      cache.store(key, {
        status: 200,
        headers: {},
        body: Buffer.from("{}"),
        storedAt,
        generations: { "node:IS_7:comments": 0 },
      });
    await store("old", 1_000);
    await store("new", 5_000);
    // Another repository's guard, or nothing at all: no vouch.
    await cache.vouch([{ tag: "issues:acme/other", at: 9_000, since: 2_000 }]);
    expect((await cache.lookup("new", reads, groups)).vouchedAt).toBe(0);
    await cache.vouch([{ tag: "issues:acme/widgets", at: 9_000, since: 2_000 }]);
    expect((await cache.lookup("new", reads, groups)).vouchedAt).toBe(9_000);
    // Stored before the guard's first read: the guard could not have seen a change before it.
    expect((await cache.lookup("old", reads, groups)).vouchedAt).toBe(0);
    // An id nobody learned is not vouched (the guard's invalidations would not move it).
    const unknown = vouchGroups(["node:IS_99:comments"]) ?? [];
    expect((await cache.lookup("new", ["node:IS_99:comments"], unknown)).vouchedAt).toBe(0);
    await cache.close();
  });

  it("a PR id learned after its PR's vouch is covered by that vouch, without a new one", async () => {
    const cache = new ResponseCache({
      redis: client,
      prefix: redis.prefix(),
      maxBytes: 1024 * 1024,
      maxEntryBytes: 1024 * 1024,
      retainSeconds: 3600,
    });
    // The lifecycle vouched for PR 1 before anyone had read its node id.
    await cache.vouch([{ tag: "num:acme/widgets#1", at: 7_000 }]);
    const reads = ["node:PR_1:checks"];
    const groups = vouchGroups(reads) ?? [];
    await cache.store("checks", {
      status: 200,
      headers: {},
      body: Buffer.from("{}"),
      storedAt: 8_000,
      generations: { "node:PR_1:checks": 0 },
    });
    expect((await cache.lookup("checks", reads, groups)).vouchedAt).toBe(0);
    // gh's lookup reveals the id: the PR's vouch now covers answers read by it.
    await cache.learnIds(
      learnIds(
        { repository: { pullRequest: { id: "PR_1", number: 1 } } },
        { owner: "acme", name: "widgets" },
      ),
    );
    expect((await cache.lookup("checks", reads, groups)).vouchedAt).toBe(7_000);
    // A later vouch still moves it on; learning the id again never takes it back.
    await cache.vouch([{ tag: "num:acme/widgets#1", at: 9_000 }]);
    await cache.learnIds(
      learnIds(
        { repository: { pullRequest: { id: "PR_1", number: 1 } } },
        { owner: "acme", name: "widgets" },
      ),
    );
    expect((await cache.lookup("checks", reads, groups)).vouchedAt).toBe(9_000);
    // A PR nobody vouched for gives its id nothing.
    await cache.learnIds(
      learnIds(
        { repository: { pullRequest: { id: "PR_2", number: 2 } } },
        { owner: "acme", name: "widgets" },
      ),
    );
    const other = vouchGroups(["node:PR_2:checks"]) ?? [];
    expect((await cache.lookup("checks", ["node:PR_2:checks"], other)).vouchedAt).toBe(0);
    await cache.close();
  });
});
