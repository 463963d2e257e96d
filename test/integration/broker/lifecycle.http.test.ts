/**
 * The lifecycle service as it runs inside the broker: watched over IPC, fed by the pipeline, events
 * pushed to IPC subscribers, cached answers invalidated when a PR changes, webhooks verified.
 */
import { createHmac } from "node:crypto";
import { Octokit } from "@octokit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker, type EventNotificationParams } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const SECRET = "webhook-secret-for-tests";
let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: BrokerClient;
const events: EventNotificationParams[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    env: { AO_BROKER_WEBHOOK_SECRET: SECRET },
    config: {
      // Plain freshness far below the vouch window, so a HIT past it can only come from a vouch.
      cache: { graphqlFreshMs: { pullRequest: 300 }, guardedFreshMs: 5_000 },
      lifecycle: {
        settings: {
          cycleIntervalMs: 500,
          repoIntervalMs: 500,
          activeIntervalMs: 500,
          quietIntervalMs: 500,
          idleIntervalMs: 500,
          // Deliveries are gathered 5 s by default before the re-read they ask for.
          webhookGatherMs: 200,
        },
      },
    },
  });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
  await ipc.subscribe(["lifecycle.*"], (event) => events.push(event));
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

interface Summary {
  id: string;
  status: string;
  prKey: string | null;
  pr: { state: string } | null;
}

async function sessionStatus(id: string): Promise<Summary | undefined> {
  const status = (await ipc.lifecycleStatus()) as unknown as { sessions: Summary[] };
  return status.sessions.find((s) => s.id === id);
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const event = (session: string, type: string) =>
  events.find(
    (e) =>
      (e.event as { sessionId?: string; type?: string }).sessionId === session &&
      (e.event as { type?: string }).type === type,
  );

function sign(body: string): string {
  return `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
}

describe("the broker's lifecycle service", () => {
  it("finds a session's PR by its branch, decides its status, and tells IPC subscribers", async () => {
    await broker.openSession("s-frob");
    await ipc.watch({ sessionId: "s-frob", repo: "acme/widgets", branch: "feature/frobnicator" });
    const summary = await until(async () => {
      const s = await sessionStatus("s-frob");
      // The PR is found first, then read: wait until its state is decided.
      return s?.prKey && s.status !== "detecting" && s.status !== "pr_open" ? s : undefined;
    });
    expect(summary.prKey).toBe("acme/widgets#1");
    expect(summary.status).toBe("ci_failed");
    await until(async () => event("s-frob", "pr-detected"));
    expect(event("s-frob", "ci-failed")?.topic).toBe("lifecycle.ci-failed");
  });

  it("invalidates an agent's cached answer when it sees the PR change, so the agent sees it at once", {
    timeout: 40_000,
  }, async () => {
    const { token } = await broker.openSession("agent");
    const agent = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: token });
    const read = () =>
      agent.request("POST /graphql", {
        query: 'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { state } } }',
      });
    const before = await read();
    expect((await read()).headers["x-ao-broker-cache"]).toBe("HIT");
    sim.inject({ type: "merge", pr: 1, method: "SQUASH" });
    await until(async () => event("s-frob", "pr-merged"), 20_000);
    // Once the lifecycle saw the change, the old answer is served only as STALE_REVALIDATING
    // (while the broker refreshes it for everyone, decision 0014), and soon the new one.
    const labels: string[] = [];
    const after = await until(async () => {
      const r = await read();
      const merged = (r.data as { data: { repository: { pullRequest: { state: string } } } }).data.repository
        .pullRequest.state;
      if (merged === "MERGED") return r;
      labels.push(String(r.headers["x-ao-broker-cache"]));
      return undefined;
    }, 3_000);
    expect(labels.every((l) => l === "STALE_REVALIDATING")).toBe(true);
    expect(before.data).toEqual({ data: { repository: { pullRequest: { state: "OPEN" } } } });
    expect(after.data).toEqual({ data: { repository: { pullRequest: { state: "MERGED" } } } });
    expect((await sessionStatus("s-frob"))?.status).toBe("merged");
  });

  it("keeps serving a watched PR's cached answer while its guards see nothing change, and drops it when they do", {
    timeout: 40_000,
  }, async () => {
    await broker.openSession("s-typo");
    await ipc.watch({ sessionId: "s-typo", repo: "acme/widgets", branch: "docs/readme-typo" });
    await until(async () => {
      const s = await sessionStatus("s-typo");
      return s?.prKey && s.status !== "detecting" && s.status !== "pr_open" ? s : undefined;
    });
    const { token } = await broker.openSession("agent-typo");
    const agent = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: token });
    const read = async () => {
      const r = await agent.request("POST /graphql", {
        query:
          'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 2) { title labels(first: 5) { nodes { name } } } } }',
      });
      const labels = (
        r.data as { data: { repository: { pullRequest: { labels: { nodes: { name: string }[] } } } } }
      ).data.repository.pullRequest.labels.nodes;
      return { cache: r.headers["x-ao-broker-cache"], labels: labels.map((l) => l.name) };
    };
    await read();
    // Past plain freshness (300 ms) the answer is still served while the lifecycle keeps vouching.
    await new Promise((r) => setTimeout(r, 1_500));
    const served = [];
    for (let i = 0; i < 5; i++) {
      served.push(await read());
      await new Promise((r) => setTimeout(r, 400));
    }
    expect(served.map((r) => r.cache)).toEqual(["HIT", "HIT", "HIT", "HIT", "HIT"]);
    expect(served[0]?.labels).toEqual(["documentation"]);
    // A change the lifecycle keeps no fact about still moves its PR-list guard: the answer goes.
    sim.inject({ type: "labels", number: 2, add: ["ready"] });
    const changed = await until(async () => {
      const r = await read();
      return r.labels.includes("ready") ? r : undefined;
    }, 5_000);
    // Served from upstream, or already from the broker's own refresh (a HIT with the new labels).
    expect(changed.labels).toEqual(["documentation", "ready"]);
  });

  it("refuses a webhook with a bad signature (401) and acts on a good one within 2 s", async () => {
    await broker.openSession("s-dash");
    await ipc.watch({ sessionId: "s-dash", repo: "acme/widgets", branch: "feature/dashboard" });
    await until(async () => ((await sessionStatus("s-dash"))?.prKey ? true : undefined));
    const payload = JSON.stringify({
      action: "closed",
      number: 3,
      pull_request: {
        number: 3,
        state: "closed",
        merged: false,
        head: { ref: "feature/dashboard", sha: "x" },
      },
      repository: { full_name: "acme/widgets", name: "widgets", owner: { login: "acme" } },
    });
    const post = (signature: string, delivery: string) =>
      fetch(`${broker.broker.gatewayUrl}/webhooks/github`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "pull_request",
          "x-github-delivery": delivery,
          "x-hub-signature-256": signature,
        },
        body: payload,
      });
    const bad = await post("sha256=0000", "d-1");
    expect(bad.status).toBe(401);
    sim.inject({ type: "close", number: 3 });
    const sent = Date.now();
    const good = await post(sign(payload), "d-2");
    expect(good.status).toBeLessThan(300);
    await until(async () => event("s-dash", "pr-closed"), 2_000);
    expect(Date.now() - sent).toBeLessThan(2_000);
  });
});
