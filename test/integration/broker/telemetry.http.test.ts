/**
 * What an operator sees: one `gh pr checks 1` of an agent, as a span tree in a real OTLP/HTTP
 * receiver (invocation → gateway requests → upstream calls), as counters at /metrics, as one row in
 * AO's trace file, and in `trace report` — with no secret anywhere.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invocationSuffix } from "../../../broker/index.js";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { findSamples, parsePrometheusText, sumSamples } from "../../../otel/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { runProcess } from "../../support/cli-process.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp-receiver.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const PAT = "ghp_telemetryTestSecretValue0123456789ab";

let redis: TestRedis;
let sim: RunningSimulator;
let receiver: OtlpReceiver;
let broker: BrokerUnderTest;
let dir: string;
let traceFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-otel-"));
  traceFile = join(dir, "gh-trace.jsonl");
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0, token: PAT });
  receiver = await startOtlpReceiver();
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    token: PAT,
    // Batches long enough for two sessions' queries sent together to share one merged query;
    // lifecycle cycles every second, so a watched PR's guards show up soon.
    config: {
      batching: { latencyBudgetMs: { interactive: 200 } },
      lifecycle: { settings: { cycleIntervalMs: 1_000, activeIntervalMs: 1_000 } },
    },
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_SAMPLER: "always_on",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      AO_GH_TRACE_FILE: traceFile,
    },
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await receiver?.close();
  await sim?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("telemetry of one gh invocation", () => {
  it("exports invocation → request → upstream spans, counts it, and writes AO's row, with no secret", async () => {
    const { token, env } = await broker.openSession("agent-7");
    const invocationId = randomUUID();
    const argv = ["pr", "checks", "1"];
    const derived = `${token}.${invocationSuffix({ id: invocationId, argv, cwd: "/work/tree" })}`;
    const started = Date.now();
    const gh = await runProcess("gh", argv, { ...env, GH_TOKEN: derived, GH_CONFIG_DIR: join(dir, "gh") });
    expect(gh.code).toBe(1);
    expect(gh.stdout).toMatch(/fail/);
    const finish = await fetch(`${broker.broker.gatewayUrl}/_aob/invocation/finish`, {
      method: "POST",
      headers: { authorization: `token ${derived}` },
      body: JSON.stringify({ exitCode: gh.code, durationMs: Date.now() - started }),
    });
    expect(finish.status).toBe(204);

    // Then the lifecycle watches its PR, so its cycles send guard requests too. Only after the
    // invocation: the lifecycle's queries may share a merged query with an agent's (broker/batch/README.md),
    // which would make this invocation's answers BATCHED rather than the MISS this test follows.
    const ipc = await connectBroker({ socketPath: broker.broker.socketPath });
    const headRef = sim.world.repo("acme/widgets")?.pulls.get(1)?.headRef ?? "";
    await ipc.watch({ sessionId: "agent-7", repo: "acme/widgets", branch: headRef, pr: 1 });
    await ipc.close();

    const spans = await receiver.waitForSpans((all) => {
      const root = all.find(
        (s) => s.attributes["ao.invocation.id"] === invocationId && s.parentSpanId === undefined,
      );
      const guardIds = new Set(all.filter((s) => s.name === "ao.lifecycle.guard").map((s) => s.spanId));
      return (
        root !== undefined &&
        all.filter((s) => s.parentSpanId === root.spanId).length >= 2 &&
        all.some((s) => s.parentSpanId !== undefined && guardIds.has(s.parentSpanId))
      );
    }, 15_000);
    const root = spans.find(
      (s) => s.attributes["ao.invocation.id"] === invocationId && s.parentSpanId === undefined,
    );
    expect(root?.attributes["ao.session.id"]).toBe("agent-7");
    const requests = spans.filter((s) => s.parentSpanId === root?.spanId);
    expect(requests.map((s) => s.attributes["graphql.operation.name"]).sort()).toEqual([
      "PullRequestByNumber",
      "PullRequestStatusChecks",
    ]);
    for (const request of requests) {
      expect(request.traceId).toBe(root?.traceId);
      expect(request.attributes["ao.session.id"]).toBe("agent-7");
      expect(request.attributes["ao.cache.result"]).toBe("MISS");
      expect(request.attributes["ao.cost.charged"]).toBe(1);
      const upstream = spans.filter(
        (s) => s.parentSpanId === request.spanId && s.kind === 3 && s.attributes["url.full"] !== undefined,
      );
      expect(upstream).toHaveLength(1);
      expect(upstream[0]?.attributes["http.response.status_code"]).toBe(200);
    }
    // The lifecycle poller's cycles are traced too (one root span per cycle, guard/batch children).
    const cycles = spans.filter((s) => s.name === "ao.lifecycle.cycle");
    expect(cycles.length).toBeGreaterThan(0);
    expect(spans.some((s) => s.name === "ao.lifecycle.guard" && s.parentSpanId === cycles[0]?.spanId)).toBe(
      true,
    );
    // … and the guard's requests are its children, each with its upstream call beneath it.
    const guards = new Set(spans.filter((s) => s.name === "ao.lifecycle.guard").map((s) => s.spanId));
    const guardRequests = spans.filter((s) => s.parentSpanId !== undefined && guards.has(s.parentSpanId));
    expect(guardRequests.length).toBeGreaterThan(0);
    expect(
      guardRequests.every((r) => spans.some((s) => s.parentSpanId === r.spanId && s.attributes["url.full"])),
    ).toBe(true);
    for (const body of receiver.rawBodies()) {
      expect(body).not.toContain(PAT);
      expect(body).not.toContain(token);
    }

    const scrape = await (await fetch(`${broker.broker.gatewayUrl}/metrics`)).text();
    expect(scrape).not.toContain(PAT);
    const families = parsePrometheusText(scrape);
    expect(sumSamples(families, "ao_broker_requests_total", { session: "agent-7" })).toBeGreaterThanOrEqual(
      2,
    );
    expect(findSamples(families, "ao_broker_upstream_requests_total").length).toBeGreaterThan(0);

    const rows = readFileSync(traceFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const row = rows.find((r) => r.sessionId === "agent-7");
    expect(row).toMatchObject({ operation: "gh.pr.checks", exitCode: 1, ok: false });
    expect(readFileSync(traceFile, "utf8")).not.toContain(PAT);
  }, 60_000);

  it("puts a merged query in a flush span linked to each member request, with the upstream call beneath it", async () => {
    const sessions = ["agent-a", "agent-b"];
    const tokens = await Promise.all(sessions.map(async (id) => (await broker.openSession(id)).token));
    const query = `query PrTitle($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { title } } }`;
    const answers = await Promise.all(
      tokens.map((token, i) =>
        fetch(`${broker.broker.gatewayUrl}/graphql`, {
          method: "POST",
          headers: { authorization: `token ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ query, variables: { n: i + 1 }, operationName: "PrTitle" }),
        }),
      ),
    );
    expect(answers.map((a) => a.headers.get("x-ao-broker-cache"))).toEqual(["BATCHED", "BATCHED"]);

    const isMember = (s: { attributes: Record<string, unknown> }) =>
      s.attributes["graphql.operation.name"] === "PrTitle" &&
      sessions.includes(String(s.attributes["ao.session.id"]));
    const spans = await receiver.waitForSpans(
      (all) =>
        all.filter(isMember).length === 2 &&
        all.some((s) => s.name === "ao.batch.flush" && s.links.length === 2),
      15_000,
    );
    const members = spans.filter(isMember);
    const flush = spans.find(
      (s) => s.name === "ao.batch.flush" && s.links.some((l) => members.some((m) => m.spanId === l.spanId)),
    );
    expect(flush?.parentSpanId).toBeUndefined();
    expect(flush?.links.map((l) => l.spanId).sort()).toEqual(members.map((m) => m.spanId).sort());
    for (const member of members) expect(member.links.map((l) => l.spanId)).toContain(flush?.spanId);
    const upstream = spans.filter(
      (s) => s.parentSpanId === flush?.spanId && s.attributes["url.full"] !== undefined,
    );
    expect(upstream).toHaveLength(1);
    expect(upstream[0]?.traceId).toBe(flush?.traceId);
  }, 30_000);
});
