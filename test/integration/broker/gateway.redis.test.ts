import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AoError } from "../../../common/index.js";
import { CountingUpstream, RecordingBudget } from "../../support/fake-ports.js";
import { type GatewayStack, rawRequest, startGatewayStack } from "../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const PR1 = "/repos/acme/widgets/pulls/1";
const PR_VIEW = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) { number title state } } }`;

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("gateway", () => {
  let upstream: CountingUpstream;
  let budget: RecordingBudget;
  let stack: GatewayStack;
  let token: string;
  const auth = () => ({ authorization: `token ${token}` });

  beforeEach(async () => {
    upstream = new CountingUpstream();
    budget = new RecordingBudget();
    upstream.set(PR1, { body: { number: 1, title: "Add widgets", state: "open" } });
    upstream.set("/graphql", {
      body: { data: { repository: { pullRequest: { number: 1, title: "Add widgets", state: "OPEN" } } } },
    });
    upstream.set("POST /repos/acme/widgets/issues/1/comments", { status: 201, body: { id: 9, body: "hi" } });
    upstream.set("PATCH /repos/acme/widgets/pulls/1", { status: 200, body: { number: 1, title: "New" } });
    stack = await startGatewayStack({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstream,
      budget,
      freshness: { restFreshMs: 10_000 },
    });
    token = (await stack.store.open({ id: "s1", repo: "acme/widgets" })).token;
  });
  afterEach(async () => {
    await stack.close();
  });

  describe("when a read is repeated within freshness", () => {
    it("answers the first from upstream (MISS, cost 1) and the second from cache (HIT, cost 0)", async () => {
      const first = await rawRequest(stack.port, { path: PR1, headers: auth() });
      const second = await rawRequest(stack.port, { path: PR1, headers: auth() });
      expect(first.status).toBe(200);
      expect(first.headers["x-ao-broker-cache"]).toBe("MISS");
      expect(first.headers["x-ao-broker-cost"]).toBe("1");
      expect(second.headers["x-ao-broker-cache"]).toBe("HIT");
      expect(second.headers["x-ao-broker-cost"]).toBe("0");
      // Why the first went upstream (nothing was cached); a cache answer names no reason.
      expect(first.headers["x-ao-broker-upstream-reason"]).toBe("absent");
      expect(second.headers["x-ao-broker-upstream-reason"]).toBeUndefined();
      expect(second.body.equals(first.body)).toBe(true);
      expect(upstream.count(PR1)).toBe(1);
    });

    it("carries the session's own view of its budget in x-ratelimit-*", async () => {
      const res = await rawRequest(stack.port, { path: PR1, headers: auth() });
      expect(res.headers["x-ratelimit-limit"]).toBe("1000");
      expect(res.headers["x-ratelimit-used"]).toBe("1");
      expect(res.headers["x-ratelimit-remaining"]).toBe("999");
    });
  });

  describe("when 50 identical requests arrive at once", () => {
    it("sends one REST call upstream and splits its cost among the 50", async () => {
      // Long enough that all 50 reach the broker while the one flight is still out, even on a
      // loaded machine (at 100 ms a late arrival found the answer cached: a HIT, not COALESCED).
      upstream.delayMs = 750;
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => rawRequest(stack.port, { path: PR1, headers: auth() })),
      );
      expect(upstream.count(PR1)).toBe(1);
      expect(new Set(answers.map((a) => a.body.toString())).size).toBe(1);
      const modes = answers.map((a) => a.headers["x-ao-broker-cache"]);
      expect(modes.filter((m) => m === "MISS")).toHaveLength(1);
      expect(modes.filter((m) => m === "COALESCED")).toHaveLength(49);
      const total = answers.reduce((sum, a) => sum + Number(a.headers["x-ao-broker-cost"]), 0);
      expect(total).toBeCloseTo(1, 2);
    });

    it("sends one GraphQL query upstream", async () => {
      upstream.delayMs = 100;
      const body = JSON.stringify({
        query: PR_VIEW,
        variables: { owner: "acme", repo: "widgets", pr_number: 1 },
      });
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          rawRequest(stack.port, {
            method: "POST",
            path: "/graphql",
            headers: { ...auth(), "content-type": "application/json" },
            body,
          }),
        ),
      );
      expect(upstream.count("/graphql")).toBe(1);
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers[0]?.json()).toEqual({
        data: { repository: { pullRequest: { number: 1, title: "Add widgets", state: "OPEN" } } },
      });
    });
  });

  describe("when a cached REST answer is past its freshness", () => {
    it("revalidates with If-None-Match and serves the cached body for a free 304", async () => {
      await stack.close();
      stack = await startGatewayStack({
        redisUrl: redis.url,
        prefix: redis.prefix(),
        upstream,
        budget,
        freshness: { restFreshMs: 30 },
      });
      token = (await stack.store.open({ id: "s1", repo: "acme/widgets" })).token;
      const first = await rawRequest(stack.port, { path: PR1, headers: auth() });
      await new Promise((r) => setTimeout(r, 60));
      const second = await rawRequest(stack.port, { path: PR1, headers: auth() });
      expect(upstream.count(PR1)).toBe(2);
      expect(upstream.calls[1]?.headers["if-none-match"]).toBe(first.headers.etag);
      expect(second.status).toBe(200);
      expect(second.headers["x-ao-broker-cache"]).toBe("REVALIDATED");
      expect(second.headers["x-ao-broker-cost"]).toBe("0");
      expect(second.body.equals(first.body)).toBe(true);
      expect(budget.settled).toEqual([1, 0]);
    });

    it("answers a client's own matching If-None-Match with a 304", async () => {
      const first = await rawRequest(stack.port, { path: PR1, headers: auth() });
      const second = await rawRequest(stack.port, {
        path: PR1,
        headers: { ...auth(), "if-none-match": first.headers.etag ?? "" },
      });
      expect(second.status).toBe(304);
      expect(second.body.length).toBe(0);
      expect(upstream.count(PR1)).toBe(1);
    });
  });

  describe("when a session writes to a pull request", () => {
    it("invalidates the cached reads that show what the write changed, REST and GraphQL, and no others", async () => {
      const gql = JSON.stringify({
        query: PR_VIEW,
        variables: { owner: "acme", repo: "widgets", pr_number: 1 },
      });
      const post = {
        method: "POST",
        path: "/graphql",
        headers: { ...auth(), "content-type": "application/json" },
        body: gql,
      };
      await rawRequest(stack.port, { path: PR1, headers: auth() });
      await rawRequest(stack.port, post);
      expect(
        (await rawRequest(stack.port, { path: PR1, headers: auth() })).headers["x-ao-broker-cache"],
      ).toBe("HIT");
      const write = await rawRequest(stack.port, {
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        headers: auth(),
        body: '{"body":"hi"}',
      });
      expect(write.status).toBe(201);
      // pulls/1 shows the comment count; the GraphQL answer (number, title, state) shows nothing
      // a comment changes, so it stays served.
      expect(
        (await rawRequest(stack.port, { path: PR1, headers: auth() })).headers["x-ao-broker-cache"],
      ).not.toBe("HIT");
      expect((await rawRequest(stack.port, post)).headers["x-ao-broker-cache"]).toBe("HIT");
      expect(upstream.count("/graphql")).toBe(1);
      const edit = await rawRequest(stack.port, {
        method: "PATCH",
        path: PR1,
        headers: auth(),
        body: '{"title":"New"}',
      });
      expect(edit.status).toBe(200);
      expect((await rawRequest(stack.port, post)).headers["x-ao-broker-cache"]).toBe("MISS");
      expect(upstream.count("/graphql")).toBe(2);
    });
  });

  describe("when the budget is spent", () => {
    it("serves a stale answer to a caller that allows it, without upstream", async () => {
      await stack.close();
      stack = await startGatewayStack({
        redisUrl: redis.url,
        prefix: redis.prefix(),
        upstream,
        budget,
        freshness: { restFreshMs: 1 },
      });
      token = (await stack.store.open({ id: "s1", repo: "acme/widgets" })).token;
      await rawRequest(stack.port, { path: PR1, headers: auth() });
      budget.wouldWaitUntil = Date.now() + 60_000;
      await new Promise((r) => setTimeout(r, 10));
      const stale = await rawRequest(stack.port, {
        path: PR1,
        headers: { ...auth(), "x-ao-broker-allow-stale": "1" },
      });
      expect(stale.status).toBe(200);
      expect(stale.headers["x-ao-broker-cache"]).toBe("STALE");
      expect(upstream.count(PR1)).toBe(1);
    });

    it("answers a caller past its deadline with GitHub's rate-limit error shapes", async () => {
      budget.spent = () =>
        new AoError("AO_ERR_TEST_DEADLINE", "API rate limit exceeded for session s1", {
          data: { rateLimited: true, resetEpochSeconds: 2_000_000_000 },
        });
      const rest = await rawRequest(stack.port, { path: PR1, headers: auth() });
      expect(rest.status).toBe(403);
      expect(rest.json<{ message: string }>().message).toMatch(/rate limit exceeded/);
      expect(rest.headers["x-ratelimit-remaining"]).toBe("0");
      const gql = await rawRequest(stack.port, {
        method: "POST",
        path: "/graphql",
        headers: auth(),
        body: JSON.stringify({ query: PR_VIEW, variables: { owner: "acme", repo: "widgets", pr_number: 1 } }),
      });
      expect(gql.status).toBe(200);
      expect(gql.json<{ errors: { type: string }[] }>().errors[0]?.type).toBe("RATE_LIMITED");
    });
  });

  describe("proxy mode and host checks", () => {
    it("serves absolute URIs for api.github.localhost (what gh sends through HTTP_PROXY)", async () => {
      const res = await rawRequest(stack.port, {
        path: `http://api.github.localhost${PR1}`,
        headers: { ...auth(), host: "api.github.localhost" },
      });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ number: 1, title: "Add widgets", state: "open" });
    });

    it.each([
      { name: "another host", path: "http://example.com/repos/acme/widgets" },
      { name: "api.github.com itself", path: "https://api.github.com/user" },
      { name: "credentials in the URI", path: "http://user:pass@api.github.localhost/user" },
    ])("refuses $name with 403 and never calls upstream", async ({ path }) => {
      const res = await rawRequest(stack.port, { path, headers: auth() });
      expect(res.status).toBe(403);
      expect(res.json<{ message: string }>().message).toMatch(/not an open proxy/);
      expect(upstream.count()).toBe(0);
    });

    it("refuses CONNECT tunnels", async () => {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(stack.port, "127.0.0.1", () =>
          socket.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
        );
        let data = "";
        socket.on("data", (c) => {
          data += c.toString();
        });
        socket.on("close", () => resolve(data));
      });
      expect(answer).toMatch(/^HTTP\/1.1 403/);
    });

    it.each([
      { name: "dot segments", path: "/repos/acme/widgets/../../_sim/stats" },
      { name: "encoded dot segments", path: "/repos/acme/%2e%2e/x" },
    ])("refuses paths with $name", async ({ path }) => {
      const res = await rawRequest(stack.port, { path, headers: auth() });
      expect(res.status).toBe(400);
      expect(upstream.count()).toBe(0);
    });

    it("rewrites upstream Link headers to the client's base", async () => {
      upstream.set("/repos/acme/widgets/pulls?page=1", {
        body: [],
        headers: { link: '<https://api.github.com/repositories/1/pulls?page=2>; rel="next"' },
      });
      const res = await rawRequest(stack.port, {
        path: "http://api.github.localhost/repos/acme/widgets/pulls?page=1",
        headers: auth(),
      });
      expect(res.headers.link).toBe('<http://api.github.localhost/repositories/1/pulls?page=2>; rel="next"');
    });
  });

  describe("authentication", () => {
    it.each([
      { name: "no token", headers: {}, message: "Requires authentication" },
      {
        name: "an unknown token",
        headers: { authorization: "token aob_s_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
        message: "Bad credentials",
      },
      { name: "a GitHub PAT", headers: { authorization: "token ghp_simulated" }, message: "Bad credentials" },
    ])("answers $name with 401 in GitHub's shape", async ({ headers, message }) => {
      const res = await rawRequest(stack.port, { path: PR1, headers });
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({
        message,
        documentation_url: "https://docs.github.com/rest",
        status: "401",
      });
      expect(upstream.count()).toBe(0);
    });

    it("stops accepting a session's tokens the moment the session is closed", async () => {
      const invocation = await stack.store.issueInvocationToken({
        sessionId: "s1",
        argv: ["pr", "view", "1"],
      });
      expect((await rawRequest(stack.port, { path: PR1, headers: auth() })).status).toBe(200);
      expect(
        (
          await rawRequest(stack.port, {
            path: PR1,
            headers: { authorization: `Bearer ${invocation.token}` },
          })
        ).status,
      ).toBe(200);
      await stack.store.close("s1");
      await new Promise((r) => setTimeout(r, 50));
      expect((await rawRequest(stack.port, { path: PR1, headers: auth() })).status).toBe(401);
      expect(
        (
          await rawRequest(stack.port, {
            path: PR1,
            headers: { authorization: `Bearer ${invocation.token}` },
          })
        ).status,
      ).toBe(401);
    });

    it("keeps a finished invocation's record an hour, not the day an unfinished one keeps", async () => {
      const running = await stack.store.issueInvocationToken({ sessionId: "s1", argv: ["run", "watch"] });
      const done = await stack.store.issueInvocationToken({ sessionId: "s1", argv: ["pr", "view", "1"] });
      await stack.store.finishInvocation({ invocationId: done.invocationId, exitCode: 0, durationMs: 80 });
      const ttl = (id: string) => stack.redis.pttl(`${stack.prefix}:invocation:${id}`);
      expect(await ttl(done.invocationId)).toBeGreaterThan(3_500_000);
      expect(await ttl(done.invocationId)).toBeLessThanOrEqual(3_600_000);
      expect(await ttl(running.invocationId)).toBeGreaterThan(23 * 3_600_000);
      expect((await stack.store.getInvocation(done.invocationId))?.exitCode).toBe(0);
    });

    it("refuses writes on a read-only session with 403", async () => {
      const ro = await stack.store.open({ id: "ro", repo: "acme/widgets", readOnly: true });
      const res = await rawRequest(stack.port, {
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        headers: { authorization: `token ${ro.token}` },
        body: "{}",
      });
      expect(res.status).toBe(403);
      const read = await rawRequest(stack.port, {
        path: PR1,
        headers: { authorization: `token ${ro.token}` },
      });
      expect(read.status).toBe(200);
      expect(upstream.count("/repos/acme/widgets/issues/1/comments")).toBe(0);
    });
  });

  describe("bad input", () => {
    it("answers an oversize body with 413 and stays up", async () => {
      await stack.close();
      stack = await startGatewayStack({
        redisUrl: redis.url,
        prefix: redis.prefix(),
        upstream,
        budget,
        maxBodyBytes: 1024,
      });
      token = (await stack.store.open({ id: "s1", repo: "acme/widgets" })).token;
      const res = await rawRequest(stack.port, {
        method: "POST",
        path: "/graphql",
        headers: auth(),
        body: "x".repeat(5000),
      });
      expect(res.status).toBe(413);
      expect((await rawRequest(stack.port, { path: PR1, headers: auth() })).status).toBe(200);
    });

    it("answers malformed GraphQL JSON with GitHub's 400 and spends nothing", async () => {
      const res = await rawRequest(stack.port, {
        method: "POST",
        path: "/graphql",
        headers: auth(),
        body: "{not json",
      });
      expect(res.status).toBe(400);
      expect(res.json<{ message: string }>().message).toBe("Problems parsing JSON");
      expect(upstream.count()).toBe(0);
      expect(budget.admissions).toHaveLength(0);
    });

    it("answers malformed HTTP with 400 and keeps serving", async () => {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(stack.port, "127.0.0.1", () => socket.write("GARBAGE\r\n\r\n"));
        let data = "";
        socket.on("data", (c) => {
          data += c.toString();
        });
        socket.on("close", () => resolve(data));
      });
      expect(answer).toMatch(/^HTTP\/1.1 400/);
      expect((await rawRequest(stack.port, { path: PR1, headers: auth() })).status).toBe(200);
    });
  });
});

describe("two brokers on one Redis", () => {
  it("coalesce identical requests into one upstream call across brokers", async () => {
    const prefix = redis.prefix();
    const upstream = new CountingUpstream();
    upstream.set(PR1, { body: { number: 1 } });
    upstream.delayMs = 300;
    const a = await startGatewayStack({
      redisUrl: redis.url,
      prefix,
      upstream,
      budget: new RecordingBudget(),
    });
    const b = await startGatewayStack({
      redisUrl: redis.url,
      prefix,
      upstream,
      budget: new RecordingBudget(),
    });
    try {
      const { token } = await a.store.open({ id: "s1", repo: "acme/widgets" });
      const headers = { authorization: `token ${token}` };
      const first = rawRequest(a.port, { path: PR1, headers });
      // The others arrive while the leader's upstream call is in flight.
      while (upstream.count(PR1) === 0) await new Promise((r) => setTimeout(r, 5));
      const others = await Promise.all(
        Array.from({ length: 10 }, (_, i) => rawRequest((i % 2 ? a : b).port, { path: PR1, headers })),
      );
      const all = [await first, ...others];
      expect(upstream.count(PR1)).toBe(1);
      expect(all.every((r) => r.status === 200 && r.body.toString() === '{"number":1}')).toBe(true);
      expect(all.filter((r) => r.headers["x-ao-broker-cache"] === "COALESCED").length).toBe(10);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
