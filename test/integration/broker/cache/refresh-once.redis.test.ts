/**
 * Refresh once, for everyone (decision 0014), against real Redis and the real simulator (github-sim),
 * through the real pipeline (cache, coalescing, cache fill, batching with the real scheduler,
 * budget) and gh 2.23's exact queries:
 * - after a signal moves PR 1, the broker fetches the variants agents read of PR 1 again in ONE
 *   merged GraphQL query (plus a conditional GET for the REST variant), and every agent's next read
 *   of them is a HIT; PR 2's answers are untouched;
 * - while that refresh is in flight an agent is served the old answer as STALE_REVALIDATING, never
 *   once the change is known for longer than the bound;
 * - a session's own write is never answered with its pre-write answer, refresh pending or not.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fillPath, fillValue, type JsonValue } from "../../../../bench/core/capture-template.js";
import { GH_223_CAPTURES } from "../../../../bench/replay/gh-2.23-requests.generated.js";
import { BatchScheduler, RepeatTracker } from "../../../../broker/batch/index.js";
import { GraphQLAnalyzer } from "../../../../broker/cache/graphql-analyzer.js";
import { RefreshRegistry } from "../../../../broker/cache/refresh-registry.js";
import { ResponseCache } from "../../../../broker/cache/response-cache.js";
import { createRedisClient } from "../../../../broker/index.js";
import { createLifecyclePorts } from "../../../../broker/lifecycle/lifecycle-ports.js";
import { buildApiRequest } from "../../../../broker/pipeline/api-request.js";
import { batchLayer } from "../../../../broker/pipeline/batch-layer.js";
import { UPSTREAM_REASON_HEADER, type UpstreamRead } from "../../../../broker/pipeline/cache-layer.js";
import { classifyRequest, type FreshnessPolicy } from "../../../../broker/pipeline/classify.js";
import { createGatewayPipeline } from "../../../../broker/pipeline/create-gateway-pipeline.js";
import type { UpstreamPort, UpstreamRequest } from "../../../../broker/pipeline/ports.js";
import { RefreshRunner } from "../../../../broker/pipeline/refresh-runner.js";
import type { Caller, GhRequest, GhResponse, Handler } from "../../../../broker/pipeline/types.js";
import { UpstreamClient } from "../../../../broker/upstream/index.js";
import { silentLogger } from "../../../../common/index.js";
import { loadGitHubSchema } from "../../../../github/index.js";
import { type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { buildEnrichmentQuery, DEFAULT_LIFECYCLE_CONFIG } from "../../../../lifecycle/index.js";
import { RecordingBudget } from "../../../support/fake-ports.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const schema = loadGitHubSchema();
const analyzer = new GraphQLAnalyzer({ schema });
// Long plain freshness: a HIT after the signal can only come from the refresh.
const policy: FreshnessPolicy = {
  restFreshMs: 600_000,
  graphqlFreshMs: { checks: 600_000, pullRequest: 600_000, issue: 600_000, other: 600_000 },
};
const classify = (input: Parameters<typeof classifyRequest>[0]) => classifyRequest(input, analyzer, policy);

let redis: TestRedis;
let sim: RunningSimulator;
let client: UpstreamClient;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  client = new UpstreamClient({ baseUrl: sim.url, token: sim.token });
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
  await redis?.stop();
});

/** The simulator behind a gate: requests matching `hold` wait until `release()`. */
class GatedSim implements UpstreamPort {
  hold: ((r: UpstreamRequest) => boolean) | undefined;
  #released: Promise<void> = Promise.resolve();
  #release: () => void = () => undefined;
  readonly held: UpstreamRequest[] = [];

  close(predicate: (r: UpstreamRequest) => boolean): void {
    this.hold = predicate;
    this.#released = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.hold = undefined;
    this.#release();
  }

  async send(r: UpstreamRequest) {
    if (this.hold?.(r)) {
      this.held.push(r);
      await this.#released;
    }
    const a = await client.send({ method: r.method, path: r.path, headers: r.headers, body: r.body });
    return { status: a.status, headers: a.headers, body: a.body };
  }
}

interface Stack {
  readonly pipeline: Handler;
  readonly cache: ResponseCache;
  readonly redis: ReturnType<typeof createRedisClient>;
  readonly runner: RefreshRunner;
  readonly budget: RecordingBudget;
  readonly upstream: GatedSim;
  readonly reads: UpstreamRead[];
  close(): Promise<void>;
}

async function startStack(staleWhileRevalidateMs: number, windowMs = 20, maxHoldMs = 2_000): Promise<Stack> {
  const prefix = redis.prefix();
  const r = createRedisClient(redis.url);
  const cache = new ResponseCache({
    redis: r,
    prefix,
    maxBytes: 64 * 1024 * 1024,
    maxEntryBytes: 4 * 1024 * 1024,
    retainSeconds: 3600,
  });
  const registry = new RefreshRegistry({ redis: r, prefix, recentReadMs: 60_000 });
  const budget = new RecordingBudget();
  const upstream = new GatedSim();
  const reads: UpstreamRead[] = [];
  let scheduler: BatchScheduler | undefined;
  const pipeline = createGatewayPipeline({
    cache,
    budget,
    upstream,
    logger: silentLogger(),
    registry,
    staleWhileRevalidateMs,
    onUpstreamRead: (read) => reads.push(read),
    batch: batchLayer({
      repeats: new RepeatTracker(),
      createScheduler: (send) => {
        scheduler = new BatchScheduler({ send, schema });
        return scheduler;
      },
    }),
  });
  const runner = new RefreshRunner({
    cache,
    registry,
    pipeline,
    classify,
    logger: silentLogger(),
    windowMs,
    recentReadMs: 60_000,
    maxAnswers: 100,
    maxHoldMs,
    staleWhileRevalidateMs,
  });
  runner.start();
  return {
    pipeline,
    cache,
    redis: r,
    runner,
    budget,
    upstream,
    reads,
    close: async () => {
      upstream.release();
      await runner.close();
      await scheduler?.close({ flush: true });
      await cache.close();
      r.disconnect();
    },
  };
}

const caller = (sessionId: string): Caller => ({ sessionId, readOnly: false, weight: 1 });
const PR1 = { owner: "acme", repo: "widgets", pr: 1 };
const PR2 = { owner: "acme", repo: "widgets", pr: 2 };

/** One of gh 2.23's requests for `command` (its `index`-th), as the gateway would hand it over. */
function ghRequest(
  command: string,
  index: number,
  sessionId: string,
  bindings: Record<string, string | number>,
) {
  const captured = GH_223_CAPTURES[command]?.[index];
  if (!captured) throw new Error(`no capture ${command}#${index}`);
  const headers = Object.fromEntries(
    Object.entries(captured.headers ?? {}).filter(([, v]) => v !== ""),
  ) as Record<string, string>;
  return buildApiRequest(
    captured.path === "/graphql"
      ? {
          method: "POST",
          path: "/graphql",
          headers,
          graphql: {
            query: captured.query as string,
            variables: fillValue(captured.variables as JsonValue, bindings) as Record<string, unknown>,
            operationName: captured.operationName,
          },
          caller: caller(sessionId),
          deadlineMs: 20_000,
        }
      : {
          method: captured.method,
          path: fillPath(captured.path, bindings),
          headers,
          caller: caller(sessionId),
          deadlineMs: 20_000,
        },
    classify,
  );
}

/** A signal, as the lifecycle reports one through its port (a PR guard saw PR 1 move). */
async function signalPr1(stack: Stack): Promise<void> {
  const ports = createLifecyclePorts({
    pipeline: stack.pipeline,
    classify,
    cache: stack.cache,
    gate: {} as never,
    redis: stack.redis,
    prefix: "unused",
  });
  await ports.invalidate({ repo: "acme/widgets", pr: 1, reason: "lifecycle:pr-changed" });
}

const json = (response: GhResponse) => JSON.parse(response.body.toString("utf8")) as Record<string, unknown>;

/** What the simulator has answered so far: GraphQL requests and REST requests. */
const simCounts = () => {
  const { graphql, rest } = sim.stats().requests;
  return { graphql, rest };
};

describe("refresh once, for everyone", () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  /** Agents read PR 1 (pr view, pr checks' status query, REST pulls/1) and PR 2 (pr view). */
  async function agentsRead(sessions: readonly string[]) {
    const first = await stack.pipeline(ghRequest("pr_checks", 0, sessions[0] as string, PR1));
    const prNodeId = (json(first).data as { repository: { pullRequest: { id: string } } }).repository
      .pullRequest.id;
    const variants = (session: string) => [
      ghRequest("pr_view", 0, session, PR1),
      ghRequest("pr_checks", 1, session, { ...PR1, prNodeId }),
      ghRequest("api_rest", 0, session, PR1),
      ghRequest("pr_view", 0, session, PR2),
    ];
    const answers: GhResponse[][] = [];
    for (const session of sessions)
      answers.push(await Promise.all(variants(session).map((q) => stack.pipeline(q))));
    return { variants, answers };
  }

  it("re-fetches every variant agents read of the moved PR in one merged query; their next reads are HITs", async () => {
    stack = await startStack(10_000);
    const { variants, answers } = await agentsRead(["a", "b"]);
    expect(answers[0]?.map((x) => x.cache)).not.toContain("HIT");
    expect(answers[1]?.map((x) => x.cache)).toEqual(["HIT", "HIT", "HIT", "HIT"]);
    const before = simCounts();

    await signalPr1(stack);
    await stack.runner.settled();

    const after = simCounts();
    // pr view and pr checks of PR 1 in ONE merged GraphQL query; pulls/1 as one conditional GET.
    expect(after.graphql - before.graphql).toBe(1);
    expect(after.rest - before.rest).toBe(1);
    expect(stack.runner.stats).toMatchObject({ rounds: 1, graphqlAnswers: 2, restAnswers: 1, failed: 0 });
    // Charged to the budget as the lifecycle's (the broker's) session.
    expect(stack.budget.admissions.filter((a) => a.sessionId === "ao-lifecycle").length).toBeGreaterThan(0);
    expect(stack.reads.filter((x) => x.reason === "refresh")).toHaveLength(3);
    // Nothing changed in the world (the signal here is a test's): every refreshed body is identical.
    expect(stack.reads.filter((x) => x.reason === "refresh").map((x) => x.identical)).toEqual([
      true,
      true,
      true,
    ]);

    for (const session of ["a", "b", "c"]) {
      const next = await Promise.all(variants(session).map((q) => stack.pipeline(q)));
      expect(next.map((x) => x.cache)).toEqual(["HIT", "HIT", "HIT", "HIT"]);
      expect(next.map((x) => x.headers[UPSTREAM_REASON_HEADER])).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    }
    expect(simCounts()).toEqual(after);
  });

  it("without a refresh the moved answers would go upstream, labelled moved", async () => {
    stack = await startStack(10_000);
    const { variants } = await agentsRead(["a"]);
    await stack.runner.close(); // no refresh this time
    await signalPr1(stack);
    const next = await Promise.all(variants("a").map((q) => stack.pipeline(q)));
    expect(next.slice(0, 3).map((x) => x.headers[UPSTREAM_REASON_HEADER])).toEqual([
      "moved",
      "moved",
      "revalidate",
    ]);
    // PR 2 did not move.
    expect(next[3]?.cache).toBe("HIT");
  });

  it("serves the old answer as STALE_REVALIDATING while the refresh is in flight, never past the bound", async () => {
    const bound = 1_500;
    stack = await startStack(bound);
    const { variants, answers } = await agentsRead(["a"]);
    const oldView = answers[0]?.[0]?.body.toString("utf8");
    // The world moves (a new title) and the refresh's upstream call is held.
    sim.inject({ type: "labels", repo: "acme/widgets", number: 1, add: ["bug"] });
    stack.upstream.close((r) => r.path === "/graphql");
    const signalled = Date.now();
    await signalPr1(stack);
    await until(() => stack.upstream.held.length > 0);

    const during = await stack.pipeline(variants("b")[0] as GhRequest);
    expect(during.cache).toBe("STALE_REVALIDATING");
    expect(during.body.toString("utf8")).toBe(oldView);
    expect(Date.now() - signalled).toBeLessThan(bound);

    // Past the bound the cached answer is no longer served: the read goes upstream (it waits
    // for the gate like any upstream read), labelled why.
    await new Promise((resolve) => setTimeout(resolve, bound + 100 - (Date.now() - signalled)));
    const late = stack.pipeline(variants("b")[0] as GhRequest);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stack.upstream.release();
    const lateAnswer = await late;
    expect(lateAnswer.cache).not.toBe("STALE_REVALIDATING");
    expect(lateAnswer.cache).not.toBe("HIT");
    expect(lateAnswer.headers[UPSTREAM_REASON_HEADER]).toBe("moved");
    expect(lateAnswer.body.toString("utf8")).toContain('"bug"');
    // The refresh (which that read joined, or went beside) brought a new body: not identical.
    expect(stack.reads.some((x) => (x.reason === "refresh" || x.reason === "moved") && !x.identical)).toBe(
      true,
    );
    await stack.runner.settled();
  });

  it("never answers a session's own write with its pre-write answer, even with a refresh pending", async () => {
    stack = await startStack(10_000);
    const read = () => ghRequest("pr_view_comments", 0, "writer", PR1);
    const before = await stack.pipeline(read());
    expect((await stack.pipeline(read())).cache).toBe("HIT");
    // A signal moves PR 1; its refresh is held, so it is pending while the session writes.
    stack.upstream.close((r) => r.path === "/graphql");
    await signalPr1(stack);
    await until(() => stack.upstream.held.length > 0);
    expect((await stack.pipeline(read())).cache).toBe("STALE_REVALIDATING");

    const comment = buildApiRequest(
      {
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify({ body: "written by the session" })),
        caller: caller("writer"),
        deadlineMs: 20_000,
      },
      classify,
    );
    expect((await stack.pipeline(comment)).status).toBe(201);

    const afterWrite = stack.pipeline(read());
    await new Promise((resolve) => setTimeout(resolve, 100));
    stack.upstream.release();
    const answer = await afterWrite;
    expect(answer.cache).not.toBe("STALE_REVALIDATING");
    expect(answer.cache).not.toBe("HIT");
    expect(answer.body.toString("utf8")).not.toBe(before.body.toString("utf8"));
    expect(answer.body.toString("utf8")).toContain("written by the session");
    await stack.runner.settled();
    // And once everything settled, what is served contains the write.
    const settled = await stack.pipeline(read());
    expect(settled.body.toString("utf8")).toContain("written by the session");
  });
});

describe("refresh after a write", () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it("is not sent for an answer the writer fetched again after its write", async () => {
    stack = await startStack(10_000, 300);
    const read = () => ghRequest("pr_view_comments", 0, "w", PR1);
    await stack.pipeline(read());
    const comment = buildApiRequest(
      {
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify({ body: "second comment" })),
        caller: caller("w"),
        deadlineMs: 20_000,
      },
      classify,
    );
    expect((await stack.pipeline(comment)).status).toBe(201);
    const own = await stack.pipeline(read());
    expect(own.headers[UPSTREAM_REASON_HEADER]).toBe("moved");
    expect(own.body.toString("utf8")).toContain("second comment");
    const before = simCounts();
    await stack.runner.settled();
    // Already current when the refresh looked, or still in flight and joined: never sent again.
    const stats = stack.runner.stats;
    expect(stats).toMatchObject({ rounds: 1, answers: 0, failed: 0 });
    expect(stats.alreadyCurrent + stats.coalesced).toBe(1);
    expect(stack.reads.filter((x) => x.reason === "refresh")).toHaveLength(0);
    expect(simCounts()).toEqual(before);
  });
});

describe("the lifecycle's GraphQL and agents' GraphQL", () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it("leave in one upstream request: the lifecycle sends gh 2.23's preview headers, no rateLimit", async () => {
    stack = await startStack(10_000);
    const ports = createLifecyclePorts({
      pipeline: stack.pipeline,
      classify,
      cache: stack.cache,
      gate: {} as never,
      redis: stack.redis,
      prefix: "unused",
    });
    // As the lifecycle builds it inside the broker (its budget port answers: no rateLimit selection).
    const enrichment = buildEnrichmentQuery([{ repo: "acme/widgets", number: 1 }], {
      ...DEFAULT_LIFECYCLE_CONFIG,
      rateLimit: false,
    });
    const before = simCounts();
    const [lifecycle, agent] = await Promise.all([
      ports.graphql({ query: enrichment.query }, { priority: "lifecycle" }),
      stack.pipeline(ghRequest("pr_view", 0, "a", PR2)),
    ]);
    expect(lifecycle.status).toBe(200);
    expect((lifecycle.data as { r0: { p1: { number: number } } } | undefined)?.r0.p1.number).toBe(1);
    expect(agent.status).toBe(200);
    expect(JSON.stringify(json(agent))).toContain('"number":2');
    // One merged query upstream, not the lifecycle's beside the agent's.
    expect(simCounts().graphql - before.graphql).toBe(1);
  });
});

describe("a poll cycle's hold on the refresh (decision 0025)", () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  const enrichmentOf = (numbers: readonly number[]) =>
    buildEnrichmentQuery(
      numbers.map((number) => ({ repo: "acme/widgets", number })),
      { ...DEFAULT_LIFECYCLE_CONFIG, rateLimit: false },
    );
  const portsOf = (s: Stack) =>
    createLifecyclePorts({
      pipeline: s.pipeline,
      classify,
      cache: s.cache,
      gate: {} as never,
      redis: s.redis,
      prefix: "unused",
      refresh: s.runner,
    });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("keeps the guards' moves back past the window, then sends them in the enrichment's document", async () => {
    stack = await startStack(10_000);
    await stack.pipeline(ghRequest("pr_view", 0, "a", PR1));
    await stack.pipeline(ghRequest("api_rest", 0, "a", PR1));
    const ports = portsOf(stack);
    const hold = ports.holdRefresh?.();
    expect(hold).toBeDefined();
    const before = simCounts();
    await signalPr1(stack);
    await pause(150); // seven refresh windows: nothing leaves while the cycle holds it
    expect(simCounts()).toEqual(before);
    // The agent is served its answer meanwhile (the signal's marker), not sent upstream.
    expect((await stack.pipeline(ghRequest("pr_view", 0, "b", PR1))).cache).toBe("STALE_REVALIDATING");

    await hold?.flush();
    const enrichment = await ports.graphql({ query: enrichmentOf([2]).query }, { priority: "lifecycle" });
    expect(enrichment.status).toBe(200);
    await stack.runner.settled();
    // The refresh of PR 1's pr view and the enrichment of PR 2: ONE GraphQL document; pulls/1 a GET.
    expect(simCounts().graphql - before.graphql).toBe(1);
    expect(simCounts().rest - before.rest).toBe(1);
    expect(stack.runner.stats).toMatchObject({ rounds: 1, graphqlAnswers: 1, restAnswers: 1, failed: 0 });
    expect((await stack.pipeline(ghRequest("pr_view", 0, "c", PR1))).cache).toBe("HIT");

    // What moves after the flush (the enrichment's own findings) waits for the release: one round.
    const mid = simCounts();
    await signalPr1(stack);
    await signalPr1(stack);
    await pause(100);
    expect(simCounts()).toEqual(mid);
    await hold?.release();
    await stack.runner.settled();
    expect(simCounts().graphql - mid.graphql).toBe(1);
    expect(stack.runner.stats.rounds).toBe(2);
  });

  it("never holds a move longer than maxHoldMs", async () => {
    stack = await startStack(10_000, 20, 300);
    await stack.pipeline(ghRequest("pr_view", 0, "a", PR1));
    const hold = stack.runner.hold();
    const before = simCounts();
    const signalled = Date.now();
    await signalPr1(stack);
    await until(() => simCounts().graphql > before.graphql, 3_000);
    const waited = Date.now() - signalled;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1_500);
    await stack.runner.settled();
    expect(stack.runner.stats).toMatchObject({ rounds: 1, graphqlAnswers: 1 });
    await hold.release();
  });

  it("a release with nothing held sends nothing; without holds the window applies as before", async () => {
    stack = await startStack(10_000);
    await stack.pipeline(ghRequest("pr_view", 0, "a", PR1));
    const before = simCounts();
    await stack.runner.hold().release();
    expect(simCounts()).toEqual(before);
    await signalPr1(stack);
    await until(() => simCounts().graphql > before.graphql, 2_000);
    expect(stack.runner.stats.rounds).toBe(1);
  });
});

async function until(probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
