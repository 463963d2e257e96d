/**
 * Webhooks as the primary signal (decision 0021): the simulator delivers a check run's completion
 * to the broker's gateway; the broker patches the cached REST answer from the payload (an agent's
 * next read is a HIT with the new body, no upstream request) and moves exactly the checks facets,
 * so the agent's GraphQL answer about the PR's checks is fetched again once and is right — all
 * without a lifecycle poll cycle (the cycle is an hour). A delivery with a bad signature is refused
 * 401 and changes nothing. Real Redis, the real broker, the simulator.
 */
import { Octokit } from "@octokit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, signWebhook, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const SECRET = "test-webhook-secret";
let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    config: {
      webhooks: { secret: SECRET },
      // Gathering deliveries is a setting (5 s by default): short here so the test stays quick.
      lifecycle: { settings: { cycleIntervalMs: 3_600_000, webhookGatherMs: 200 } },
    },
  });
  // The gateway is the API base the agents reach: payload URLs are built on it, as answers' are.
  await sim.setWebhooks({
    url: `${broker.broker.gatewayUrl}/webhooks/github`,
    secret: SECRET,
    apiBase: broker.broker.gatewayUrl,
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

const CHECK = "/repos/acme/widgets/check-runs/2008";
const ROLLUP = `query { repository(owner: "acme", name: "widgets") { pullRequest(number: 3) {
  commits(last: 1) { nodes { commit { statusCheckRollup { state } } } } } } }`;
const upstream = (op: string) => sim.stats().requests.byOperation[op] ?? 0;
const GET_CHECK = "GET /repos/{owner}/{repo}/check-runs/{check_run_id}";

type Rollup = {
  repository: { pullRequest: { commits: { nodes: { commit: { statusCheckRollup: { state: string } } }[] } } };
};

describe("webhooks patching cached answers", () => {
  it("a check run completing in the simulator reaches the agent's cached REST and GraphQL answers without a poll cycle; a bad signature changes nothing", {
    timeout: 30_000,
  }, async () => {
    const { token } = await broker.openSession("agent-ci");
    const agent = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: token });
    const readCheck = async () => {
      const r = await agent.request(`GET ${CHECK}`);
      return {
        cache: String(r.headers["x-ao-broker-cache"]),
        data: r.data as { status: string; conclusion: string | null },
      };
    };
    const readRollup = async () => {
      const r = await agent.request("POST /graphql", { query: ROLLUP });
      const data = (r.data as { data: Rollup }).data;
      return data.repository.pullRequest.commits.nodes[0]?.commit.statusCheckRollup.state;
    };
    expect((await readCheck()).data.status).toBe("in_progress");
    expect(await readRollup()).toBe("PENDING");
    // Read again so both are registered as recently read (and served from the cache).
    expect((await readCheck()).cache).toBe("HIT");
    await readRollup();

    // A forged delivery: signed with another secret. Refused, and nothing moves.
    const forged = JSON.stringify({
      action: "completed",
      check_run: { id: 2008, status: "completed", conclusion: "failure", head_sha: "x" },
      repository: { full_name: "acme/widgets" },
    });
    const refused = await fetch(`${broker.broker.gatewayUrl}/webhooks/github`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "check_run",
        "x-github-delivery": "forged-1",
        "x-hub-signature-256": signWebhook("not-the-secret", forged),
      },
      body: forged,
    });
    expect(refused.status).toBe(401);
    const afterForged = await readCheck();
    expect(afterForged.cache).toBe("HIT");
    expect(afterForged.data.status).toBe("in_progress");

    // The real change: the check completes in the world; the simulator delivers check_run.completed.
    const checkReadsBefore = upstream(GET_CHECK);
    sim.inject({ type: "check", id: 2008, status: "completed", conclusion: "success" });
    await sim.flushWebhooks();
    expect(sim.webhookStats()?.delivered).toBeGreaterThan(0);
    expect(sim.webhookStats()?.failed).toBe(0);
    // The broker answers a delivery at once and moves and patches after gathering
    // (lifecycle.webhookGatherMs, 200 ms here): give it that and a little more.
    await new Promise((r) => setTimeout(r, 1_000));

    // REST: patched from the payload — a HIT with the new body, and no request upstream.
    const patched = await readCheck();
    expect(patched.cache).toBe("HIT");
    expect(patched.data.status).toBe("completed");
    expect(patched.data.conclusion).toBe("success");
    expect(upstream(GET_CHECK)).toBe(checkReadsBefore);
    const truth = await fetch(`${sim.url}${CHECK}`, {
      headers: {
        authorization: `token ${sim.token}`,
        "x-forwarded-host": new URL(broker.broker.gatewayUrl).host,
      },
    });
    expect(patched.data).toEqual(await truth.json());

    // GraphQL: the checks facet moved; the refresher (or the agent's own read) brings the new state.
    let state: string | undefined;
    for (let i = 0; i < 30 && state !== "SUCCESS"; i++) {
      state = await readRollup();
      if (state !== "SUCCESS") await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe("SUCCESS");
  });
  it("the webhook of the broker's own comment moves nothing again: the agent's re-read after the write stays a HIT", {
    timeout: 30_000,
  }, async () => {
    const { token } = await broker.openSession("agent-comment");
    const agent = new Octokit({ baseUrl: broker.broker.gatewayUrl, auth: token });
    const COMMENTS = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
    const readComments = async () => {
      const r = await agent.request("GET /repos/acme/widgets/issues/3/comments");
      return { cache: String(r.headers["x-ao-broker-cache"]), count: (r.data as unknown[]).length };
    };
    await readComments();
    const delivered = sim.webhookStats()?.delivered ?? 0;
    await agent.request("POST /repos/acme/widgets/issues/3/comments", { body: "from the broker" });
    // The write moved the PR's comments: the agent's next read fetches them, with the new comment.
    const after = await readComments();
    expect(after.cache).not.toBe("HIT");
    const fetched = upstream(COMMENTS);
    // The simulator delivers issue_comment.created for that comment: the write's own webhook.
    await sim.flushWebhooks();
    expect(sim.webhookStats()?.delivered).toBeGreaterThan(delivered);
    await new Promise((r) => setTimeout(r, 1_000));
    const again = await readComments();
    expect(again).toEqual({ cache: "HIT", count: after.count });
    expect(upstream(COMMENTS)).toBe(fetched);
  });
});
