/**
 * Issue 14, item 4: the x-ratelimit-* headers and GET /rate_limit tell one story — GitHub's window
 * as the session sees it (docs/decisions/0010-ao-end-to-end.md): `limit` is GitHub's limit and
 * never moves, remaining is what the session may still spend, used = limit − remaining, a served
 * answer never says remaining 0, and /rate_limit's body carries the numbers its headers carry. 200
 * consecutive answers to one session — fresh reads, cache hits, the broker's own 304s, /rate_limit —
 * while another session spends beside it (what used to move `limit` between 4500 and 4501).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

interface Answer {
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
const answers: Answer[] = [];

async function get(token: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${broker.broker.gatewayUrl}${path}`, {
    headers: { authorization: `token ${token}`, ...headers },
  });
  return { path, status: res.status, headers: res.headers, body: await res.text() };
}

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({ redisUrl: redis.url, prefix: redis.prefix(), upstreamUrl: sim.url });
  const steady = (await broker.openSession("steady")).token;
  const other = (await broker.openSession("other")).token;
  let etag: string | undefined;
  for (let i = 0; i < 200; i++) {
    // The other session spends between the steady one's answers: shares and reservations move.
    const beside = get(other, `/repos/acme/widgets/issues/${(i % 7) + 10}?n=${i}`);
    let answer: Answer;
    if (i % 20 === 0) answer = await get(steady, "/rate_limit");
    else if (i % 5 === 1) answer = await get(steady, `/repos/acme/widgets/pulls/${(i % 3) + 1}?fresh=${i}`);
    else if (i % 5 === 2 && etag)
      answer = await get(steady, "/repos/acme/widgets/pulls/1", { "if-none-match": etag });
    else answer = await get(steady, "/repos/acme/widgets/pulls/1");
    if (answer.path === "/repos/acme/widgets/pulls/1") etag ??= answer.headers.get("etag") ?? undefined;
    answers.push(answer);
    await beside;
  }
}, 120_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

const n = (a: Answer, name: string) => Number(a.headers.get(name));

describe("x-ratelimit-* over 200 answers to one session", () => {
  it("were 200 served answers of every kind", () => {
    expect(answers).toHaveLength(200);
    expect(answers.every((a) => a.status === 200 || a.status === 304)).toBe(true);
    expect(answers.filter((a) => a.status === 304).length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.headers.get("x-ao-broker-cache") === "HIT").length).toBeGreaterThan(10);
  });

  it("keep x-ratelimit-limit constant: GitHub's limit for the window", () => {
    const limits = new Set(answers.map((a) => a.headers.get("x-ratelimit-limit")));
    expect([...limits]).toEqual([String(sim.stats().resources.core.limit)]);
    expect(new Set(answers.map((a) => a.headers.get("x-ratelimit-resource")))).toEqual(new Set(["core"]));
  });

  it("have used + remaining = limit, and remaining above 0 on every served answer", () => {
    for (const a of answers) {
      expect(n(a, "x-ratelimit-used") + n(a, "x-ratelimit-remaining"), a.path).toBe(
        n(a, "x-ratelimit-limit"),
      );
      expect(n(a, "x-ratelimit-remaining"), a.path).toBeGreaterThan(0);
      expect(n(a, "x-ratelimit-reset"), a.path).toBeGreaterThan(Date.now() / 1000 - 5);
    }
  });

  it("/rate_limit's body agrees with its own headers", () => {
    const rateLimits = answers.filter((a) => a.path === "/rate_limit");
    expect(rateLimits).toHaveLength(10);
    for (const a of rateLimits) {
      const body = JSON.parse(a.body) as {
        resources: Record<string, { limit: number; remaining: number; used: number; reset: number }>;
        rate: { limit: number; remaining: number; used: number };
      };
      const fromHeaders = {
        limit: n(a, "x-ratelimit-limit"),
        remaining: n(a, "x-ratelimit-remaining"),
        used: n(a, "x-ratelimit-used"),
        reset: n(a, "x-ratelimit-reset"),
      };
      expect(body.resources.core).toMatchObject(fromHeaders);
      expect(body.rate).toMatchObject(fromHeaders);
      expect(body.resources.graphql?.limit).toBe(sim.stats().resources.graphql.limit);
    }
  });

  it("every answer, the broker's own 304s and hits included, carries an x-github-request-id", () => {
    for (const a of answers)
      expect(a.headers.get("x-github-request-id"), `${a.status} ${a.path}`).toMatch(/\S/);
    const made = answers.filter(
      (a) => a.status === 304 && a.headers.get("x-ao-broker-cache") !== "REVALIDATED",
    );
    expect(made.length).toBeGreaterThan(0);
  });
});
