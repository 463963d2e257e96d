/**
 * Issue 17, item 1: brokers of two identities on one Redis with the default prefix never share a
 * queue, a cache entry or a budget — so no write accepted by one is sent with the other's token —
 * and brokers of one identity still share everything (one budget, one session table).
 */
import { Octokit } from "@octokit/core";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityFingerprint, namespaceFor } from "../../../../broker/redis/core/identity-fingerprint.js";
import { connectBroker } from "../../../../client/index.js";
import { AoError } from "../../../../common/index.js";
import { DEFAULT_SCENARIO, type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

const TOKEN_A = "ghp_identityAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const TOKEN_B = "ghp_identityBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
const COMMENTS = 20;

let redis: TestRedis;
let inspect: Redis;
let simA: RunningSimulator;
let simB: RunningSimulator;
const brokers: BrokerUnderTest[] = [];

const fresh = { cache: { restFreshMs: 0 } };

async function start(sim: RunningSimulator, token: string, prefix = "aob"): Promise<BrokerUnderTest> {
  const broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix,
    upstreamUrl: sim.url,
    token,
    config: fresh,
  });
  brokers.push(broker);
  return broker;
}

async function commentBodies(sim: RunningSimulator): Promise<string[]> {
  const answer = await fetch(`${sim.url}/repos/acme/widgets/issues/1/comments?per_page=100`, {
    headers: { authorization: `token ${sim.token}` },
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { body: string }[]).map((c) => c.body);
}

beforeAll(async () => {
  redis = await startTestRedis();
  inspect = new Redis(redis.url);
  simA = await startSimulator({ port: 0, token: TOKEN_A });
  // Another person: another PAT, another user (hubot, id 2), another upstream.
  simB = await startSimulator({
    port: 0,
    token: TOKEN_B,
    scenario: { ...DEFAULT_SCENARIO, viewer: { login: "hubot", id: 2, name: "Hubot" } },
  });
}, 60_000);

afterAll(async () => {
  for (const broker of brokers) await broker.close();
  inspect?.disconnect();
  await simA?.close();
  await simB?.close();
  await redis?.stop();
});

describe("identity-scoped Redis namespaces", () => {
  it("two identities on one Redis and the default prefix: every write goes out with its own broker's token", async () => {
    const a = await start(simA, TOKEN_A);
    const b = await start(simB, TOKEN_B);
    expect(a.broker.redis.namespace).toMatch(/^aob:[0-9a-f]{16}$/);
    expect(b.broker.redis.namespace).toMatch(/^aob:[0-9a-f]{16}$/);
    expect(a.broker.redis.namespace).not.toBe(b.broker.redis.namespace);

    // The same session id on both: it must be two sessions, not one shared record.
    const clientA = new Octokit({ baseUrl: a.broker.gatewayUrl, auth: (await a.openSession("agent")).token });
    const clientB = new Octokit({ baseUrl: b.broker.gatewayUrl, auth: (await b.openSession("agent")).token });
    const post = (client: Octokit, body: string) =>
      client.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: "acme",
        repo: "widgets",
        issue_number: 1,
        body,
      });
    const answers = await Promise.all(
      Array.from({ length: COMMENTS }, (_, i) => [
        post(clientA, `from-A-${i}`),
        post(clientB, `from-B-${i}`),
      ]).flat(),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(2 * COMMENTS).fill(201));

    const atA = (await commentBodies(simA)).filter((body) => body.startsWith("from-"));
    const atB = (await commentBodies(simB)).filter((body) => body.startsWith("from-"));
    expect(atA.sort()).toEqual(Array.from({ length: COMMENTS }, (_, i) => `from-A-${i}`).sort());
    expect(atB.sort()).toEqual(Array.from({ length: COMMENTS }, (_, i) => `from-B-${i}`).sort());

    // A's token is not usable on B's broker: the token tables are separate too.
    const crossed = await fetch(`${b.broker.gatewayUrl}/repos/acme/widgets`, {
      headers: { authorization: `token ${(await a.openSession("other")).token}` },
    });
    expect(crossed.status).toBe(401);

    // Every key either broker wrote is inside its own namespace; the claims say whose it is.
    const keys = await inspect.keys("*");
    const inside = (key: string, ns: string) => key.startsWith(`${ns}:`) || key.startsWith(`{${ns}:`);
    expect(
      keys.filter((key) => !inside(key, a.broker.redis.namespace) && !inside(key, b.broker.redis.namespace)),
    ).toEqual([]);
    expect(await inspect.hget(`${a.broker.redis.namespace}:identity`, "login")).toBe("octocat");
    expect(await inspect.hget(`${b.broker.redis.namespace}:identity`, "login")).toBe("hubot");
    const claimA = JSON.stringify(await inspect.hgetall(`${a.broker.redis.namespace}:identity`));
    expect(claimA).not.toContain(TOKEN_A);

    const ipc = await connectBroker({ socketPath: b.broker.socketPath });
    const status = (await ipc.status()) as unknown as {
      identity: { login: string };
      redis: { namespace: string };
    };
    await ipc.close();
    expect(status.identity.login).toBe("hubot");
    expect(status.redis.namespace).toBe(b.broker.redis.namespace);
  }, 90_000);

  it("refuses to join a namespace recorded for another identity, with a message naming it", async () => {
    const namespace = namespaceFor("aobclash", identityFingerprint(simB.url, { userId: "2" }));
    await inspect.hset(`${namespace}:identity`, {
      fingerprint: identityFingerprint(simA.url, { userId: "1" }),
      login: "octocat",
      upstream: simA.url,
    });
    const failure = await start(simB, TOKEN_B, "aobclash").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AoError);
    expect((failure as AoError).code).toBe("AO_ERR_NAMESPACE_OTHER_IDENTITY");
    expect((failure as AoError).message).toContain("octocat");
    expect((failure as AoError).message).toContain(namespace);
    // Nothing of B's went into the foreign namespace.
    expect((await inspect.keys(`${namespace}:*`)).sort()).toEqual([`${namespace}:identity`]);
  }, 60_000);

  it("a token GitHub rejects stops the start with a clear error", async () => {
    const failure = await start(simA, "ghp_notTheRightTokenXXXXXXXXXXXXXXXXXXXXXX", "aobbad").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as AoError).code).toBe("AO_ERR_IDENTITY_REJECTED");
  }, 60_000);

  it("three brokers of one identity share one namespace, one session table and one budget", async () => {
    const [one, two, three] = [
      await start(simA, TOKEN_A),
      await start(simA, TOKEN_A),
      await start(simA, TOKEN_A),
    ];
    expect(new Set([one, two, three].map((b) => b?.broker.redis.namespace)).size).toBe(1);
    // One session opened on the first broker works on all three.
    const { token } = await (one as BrokerUnderTest).openSession("shared-budget");
    const perBroker = 4;
    for (const broker of [one, two, three]) {
      const client = new Octokit({ baseUrl: broker?.broker.gatewayUrl, auth: token });
      for (let i = 0; i < perBroker; i++) {
        // A query of its own per request: each one is a miss that GitHub charges.
        const r = await client.request(
          `GET /repos/acme/widgets/pulls/1?probe=${broker?.broker.gatewayUrl}-${i}`,
        );
        expect(r.status).toBe(200);
      }
    }
    // Every broker's budget report shows the session's whole spend: the windows are one.
    const reports = [];
    for (const broker of [one, two, three]) {
      const ipc = await connectBroker({ socketPath: broker?.broker.socketPath as string });
      reports.push(await ipc.budget());
      await ipc.close();
    }
    const spent = reports.map((r) => r.sessions.find((s) => s.id === "shared-budget")?.spent.core ?? 0);
    expect(spent[0]).toBeGreaterThanOrEqual(3 * perBroker);
    expect(spent).toEqual([spent[0], spent[0], spent[0]]);
  }, 90_000);
});
