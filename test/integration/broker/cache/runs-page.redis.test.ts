/**
 * Answers from the runs page (cache/core/runs-page.ts): once the repository's runs page has been
 * read through the broker, `gh run watch`'s run record and `gh run list --branch`'s list are built
 * from it (no upstream request), after the Actions guard's own invalidation of a moved run (through
 * the broker's lifecycle port) too; a
 * move the page did not make (a re-run written through the broker, a webhook) sends them upstream.
 * Real Redis, the real gateway and pipeline; a counting fake GitHub.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runsMovedTags } from "../../../../broker/cache/core/facets.js";
import { createLifecyclePorts } from "../../../../broker/lifecycle/lifecycle-ports.js";
import { CountingUpstream, RecordingBudget } from "../../../support/fake-ports.js";
import { type GatewayStack, rawRequest, startGatewayStack } from "../../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const R = "/repos/acme/widgets";
const PAGE = `${R}/actions/runs?per_page=100&exclude_pull_requests=true`;
const RUN = `${R}/actions/runs/42?exclude_pull_requests=true`;
const BRANCH = `${R}/actions/runs?per_page=20&exclude_pull_requests=true&branch=feat`;
const RERUN = `${R}/actions/runs/42/rerun`;
const run = (id: number, branch: string, status: string) => ({
  id,
  head_branch: branch,
  head_sha: String(id).repeat(40).slice(0, 40),
  status,
  conclusion: null,
  run_attempt: 1,
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("answers from the runs page", () => {
  let upstream: CountingUpstream;
  let stack: GatewayStack;
  let token: string;
  const auth = () => ({ authorization: `token ${token}` });
  const get = (path: string) => rawRequest(stack.port, { path, headers: auth() });
  const json = async (path: string) => JSON.parse((await get(path)).body.toString("utf8")) as unknown;
  const setPage = (runs: ReturnType<typeof run>[]) =>
    upstream.set(PAGE, { body: { total_count: runs.length, workflow_runs: runs } });
  /** Past the page's plain freshness (the lifecycle's guard is always revalidated upstream). */
  const pastFreshness = () => new Promise((r) => setTimeout(r, 20));
  /** The Actions guard saw run 42 move on its page and tells the cache through the broker's port. */
  const guardMoved = () =>
    createLifecyclePorts({
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
    }).invalidate({
      repo: "acme/widgets",
      reason: "lifecycle:runs-moved",
      runs: [{ id: 42, headSha: "4".repeat(40), branch: "feat" }],
    });

  beforeEach(async () => {
    upstream = new CountingUpstream();
    stack = await startGatewayStack({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstream,
      budget: new RecordingBudget(),
      // Plain freshness runs out at once: a later answer is the page's or upstream's.
      freshness: { restFreshMs: 10, guardedFreshMs: 60_000 },
    });
    token = (await stack.store.open({ id: "agent", repo: "acme/widgets" })).token;
    upstream.set(RUN, { body: { id: 42, status: "from-upstream" } });
    upstream.set(BRANCH, { body: { total_count: 0, workflow_runs: [] } });
    upstream.set(`POST ${RERUN}`, { status: 201, body: {} });
  });
  afterEach(async () => {
    await stack.close();
  });

  it("builds the run and the branch's list from the page, and again after the guard's own move", async () => {
    setPage([run(43, "main", "queued"), run(42, "feat", "in_progress"), run(41, "feat", "completed")]);
    expect((await get(PAGE)).status).toBe(200);

    const first = await get(RUN);
    expect(first.headers["x-ao-broker-cache"]).toBe("HIT");
    expect(JSON.parse(first.body.toString("utf8"))).toEqual(run(42, "feat", "in_progress"));
    expect(await json(BRANCH)).toEqual({
      total_count: 2,
      workflow_runs: [run(42, "feat", "in_progress"), run(41, "feat", "completed")],
    });

    // The guard reads the page again and invalidates what it saw move: still nothing upstream.
    setPage([run(43, "main", "queued"), run(42, "feat", "completed"), run(41, "feat", "completed")]);
    await pastFreshness();
    expect((await get(PAGE)).status).toBe(200);
    await guardMoved();
    await new Promise((r) => setTimeout(r, 20));
    expect(await json(RUN)).toEqual(run(42, "feat", "completed"));
    expect(upstream.count(RUN)).toBe(0);
    expect(upstream.count(BRANCH)).toBe(0);
  });

  it("goes upstream once a move the page did not make happened", async () => {
    setPage([run(42, "feat", "completed")]);
    expect((await get(PAGE)).status).toBe(200);
    // A webhook (not the page) says the run moved.
    await stack.cache.invalidate(
      runsMovedTags("acme", "widgets", [{ id: 42, headSha: "4".repeat(40), branch: "feat" }]),
      { origin: "signal" },
    );
    expect(await json(RUN)).toEqual({ id: 42, status: "from-upstream" });
    expect(upstream.count(RUN)).toBe(1);
  });

  it("never answers a re-run written through the broker from the page read before it", async () => {
    setPage([run(42, "feat", "completed")]);
    expect((await get(PAGE)).status).toBe(200);
    expect(
      (await rawRequest(stack.port, { method: "POST", path: RERUN, headers: auth(), body: "{}" })).status,
    ).toBe(201);
    expect(await json(RUN)).toEqual({ id: 42, status: "from-upstream" });
    expect(await json(BRANCH)).toEqual({ total_count: 0, workflow_runs: [] });
    expect(upstream.count(RUN)).toBe(1);
    expect(upstream.count(BRANCH)).toBe(1);
  });

  it("derives a branch's list from a cut page once its complete list stored before is all on it", async () => {
    const at = (id: number, branch: string, minute: number) => ({
      ...run(id, branch, "completed"),
      created_at: `2026-12-02T10:${String(minute).padStart(2, "0")}:00Z`,
    });
    upstream.set(PAGE, {
      body: { total_count: 250, workflow_runs: [at(41, "feat", 20), at(40, "main", 10)] },
    });
    expect((await get(PAGE)).status).toBe(200);
    upstream.set(BRANCH, { body: { total_count: 1, workflow_runs: [at(41, "feat", 20)] } });
    expect(await json(BRANCH)).toEqual({ total_count: 1, workflow_runs: [at(41, "feat", 20)] });
    expect(upstream.count(BRANCH)).toBe(1);

    // A push makes run 42 of the branch; the guard reads the page and moves the branch's lists.
    const page = [{ ...at(42, "feat", 30), status: "queued" }, at(41, "feat", 20), at(40, "main", 10)];
    upstream.set(PAGE, { body: { total_count: 251, workflow_runs: page } });
    await pastFreshness();
    expect((await get(PAGE)).status).toBe(200);
    await guardMoved();
    await new Promise((r) => setTimeout(r, 20));
    expect(await json(BRANCH)).toEqual({ total_count: 2, workflow_runs: [page[0], page[1]] });
    expect(upstream.count(BRANCH)).toBe(1);
  });

  it("derives no list from a page that does not hold every run", async () => {
    upstream.set(PAGE, { body: { total_count: 250, workflow_runs: [run(42, "feat", "queued")] } });
    expect((await get(PAGE)).status).toBe(200);
    expect(await json(BRANCH)).toEqual({ total_count: 0, workflow_runs: [] });
    expect(upstream.count(BRANCH)).toBe(1);
    // A run on it is still its own entry.
    expect(await json(RUN)).toEqual(run(42, "feat", "queued"));
    expect(upstream.count(RUN)).toBe(0);
  });
});
