/**
 * The broker (startBroker, in process) in front of the real simulator, on a private Redis: what
 * issue 3 requires to be shown, with the simulator's own accounting as the witness.
 */
import { Octokit } from "@octokit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const PR_VIEW = `query PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr_number) { id number title state
    reviews(first: 10) { nodes { state } } } } }`;

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("broker in front of the simulator", () => {
  let sim: RunningSimulator;
  let b: BrokerUnderTest;
  let viaBroker: Octokit;
  let direct: Octokit;

  beforeEach(async () => {
    sim = await startSimulator({ port: 0 });
    b = await startBrokerUnderTest({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstreamUrl: sim.url,
      config: {
        cache: {
          restFreshMs: 1500,
          graphqlFreshMs: { checks: 1500, pullRequest: 1500, issue: 1500, other: 1500 },
        },
      },
    });
    const { token } = await b.openSession("s1");
    viaBroker = new Octokit({ baseUrl: b.broker.gatewayUrl, auth: token });
    direct = new Octokit({ baseUrl: sim.url, auth: "ghp_simulated" });
  });
  afterEach(async () => {
    await b.close();
    await sim.close();
  });

  describe("when octokit asks the gateway and the simulator the same things", () => {
    it.each([
      {
        name: "a pull request",
        route: "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        params: { pull_number: 1 },
      },
      {
        name: "a page of pull requests",
        route: "GET /repos/{owner}/{repo}/pulls",
        params: { per_page: 1, page: 2 },
      },
      {
        name: "check runs of a commit",
        route: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        params: { issue_number: 10 },
      },
      {
        name: "a missing pull request",
        route: "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        params: { pull_number: 999 },
      },
    ])("answers $name with the same status, body and headers", async ({ route, params }) => {
      const ask = (o: Octokit) =>
        o.request(route, { owner: "acme", repo: "widgets", ...params }).then(
          (r) => ({ status: r.status, data: r.data, headers: r.headers as Record<string, string> }),
          (e: { status: number; response?: { data: unknown; headers: Record<string, string> } }) => ({
            status: e.status,
            data: e.response?.data,
            headers: e.response?.headers ?? {},
          }),
        );
      const [a, d] = [await ask(viaBroker), await ask(direct)];
      expect(a.status).toBe(d.status);
      // The gateway passes X-Forwarded-Host, so URLs in bodies name the host each client asked.
      const normalize = (data: unknown, base: string) =>
        JSON.parse(
          JSON.stringify(data ?? null)
            .split(base)
            .join("BASE"),
        );
      expect(normalize(a.data, b.broker.gatewayUrl)).toEqual(normalize(d.data, sim.url));
      // ETags name the representation, and URLs inside differ by host, so only their presence is compared.
      for (const name of ["content-type", "last-modified"]) expect(a.headers[name]).toBe(d.headers[name]);
      expect(a.headers.etag === undefined).toBe(d.headers.etag === undefined);
      expect(a.headers.link?.split(b.broker.gatewayUrl).join("BASE")).toBe(
        d.headers.link?.split(sim.url).join("BASE"),
      );
    });

    it("answers GraphQL identically, errors included", async () => {
      for (const pr of [1, 2, 404]) {
        const body = { query: PR_VIEW, variables: { owner: "acme", repo: "widgets", pr_number: pr } };
        const [a, d] = await Promise.all([
          viaBroker.request("POST /graphql", body),
          direct.request("POST /graphql", body),
        ]);
        expect(a.status).toBe(d.status);
        expect(a.data).toEqual(d.data);
      }
    });
  });

  describe("when many identical requests arrive", () => {
    it("sends 50 concurrent identical REST reads upstream once", async () => {
      const before = sim.stats().requests.rest;
      const beforeOps = { ...sim.stats().requests.byOperation };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          viaBroker.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
            owner: "acme",
            repo: "widgets",
            pull_number: 2,
          }),
        ),
      );
      const ops = Object.fromEntries(
        Object.entries(sim.stats().requests.byOperation)
          .map(([k, v]) => [k, v - (beforeOps[k] ?? 0)])
          .filter(([, v]) => v !== 0),
      );
      expect({ rest: sim.stats().requests.rest - before, ops }).toMatchObject({ rest: 1 });
      expect(new Set(answers.map((a) => JSON.stringify(a.data))).size).toBe(1);
    });

    it("sends 50 concurrent identical GraphQL queries upstream once", async () => {
      const before = sim.stats().requests;
      const body = { query: PR_VIEW, variables: { owner: "acme", repo: "widgets", pr_number: 3 } };
      await Promise.all(Array.from({ length: 50 }, () => viaBroker.request("POST /graphql", body)));
      const after = sim.stats().requests;
      expect({ graphql: after.graphql - before.graphql, ops: after.byOperation }).toMatchObject({
        graphql: 1,
      });
    });

    it("answers a repeat within freshness with no upstream call, then revalidates for a free 304", async () => {
      const read = () =>
        viaBroker.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
          owner: "acme",
          repo: "widgets",
          pull_number: 1,
        });
      const first = await read();
      const afterFirst = sim.stats();
      const second = await read();
      expect(sim.stats().requests.total).toBe(afterFirst.requests.total);
      expect(second.headers["x-ao-broker-cache"]).toBe("HIT");
      await new Promise((r) => setTimeout(r, 1600));
      const third = await read();
      const afterThird = sim.stats();
      expect(third.headers["x-ao-broker-cache"]).toBe("REVALIDATED");
      expect(third.headers["x-ao-broker-cost"]).toBe("0");
      expect(afterThird.requests.notModified - afterFirst.requests.notModified).toBe(1);
      expect(afterThird.resources.core.used).toBe(afterFirst.resources.core.used);
      expect(third.data).toEqual(first.data);
    });

    it("invalidates cached GraphQL reads of PR #1 when a mutation names PR #1 by its node id", async () => {
      const readPr = async () =>
        (
          (
            await viaBroker.request("POST /graphql", {
              query: PR_VIEW,
              variables: { owner: "acme", repo: "widgets", pr_number: 1 },
            })
          ).data as {
            data: { repository: { pullRequest: { id: string; reviews: { nodes: unknown[] } } } };
          }
        ).data.repository.pullRequest;
      const before = await readPr();
      const again = await viaBroker.request("POST /graphql", {
        query: PR_VIEW,
        variables: { owner: "acme", repo: "widgets", pr_number: 1 },
      });
      expect(again.headers["x-ao-broker-cache"]).toBe("HIT");
      const mutation = await viaBroker.request("POST /graphql", {
        query:
          'mutation($id: ID!) { addPullRequestReview(input: {pullRequestId: $id, event: COMMENT, body: "looks right"}) { pullRequestReview { id } } }',
        variables: { id: before.id },
      });
      expect((mutation.data as { errors?: unknown }).errors).toBeUndefined();
      const after = await readPr();
      expect(after.reviews.nodes.length).toBe(before.reviews.nodes.length + 1);
    });

    it("invalidates cached REST reads of an issue when a session comments on it", async () => {
      const list = () =>
        viaBroker.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner: "acme",
          repo: "widgets",
          issue_number: 10,
        });
      const before = (await list()).data as unknown[];
      expect((await list()).headers["x-ao-broker-cache"]).toBe("HIT");
      await viaBroker.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: "acme",
        repo: "widgets",
        issue_number: 10,
        body: "on it",
      });
      const after = await list();
      expect(after.headers["x-ao-broker-cache"]).not.toBe("HIT");
      expect((after.data as unknown[]).length).toBe(before.length + 1);
    });
  });

  describe("tokens", () => {
    it("refuses an unknown token with 401 before any upstream call", async () => {
      const before = sim.stats().requests.total;
      const stranger = new Octokit({
        baseUrl: b.broker.gatewayUrl,
        auth: "aob_s_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      });
      await expect(stranger.request("GET /user")).rejects.toMatchObject({ status: 401 });
      expect(sim.stats().requests.total).toBe(before);
    });

    it("refuses writes on a read-only session with 403, and the world does not change", async () => {
      const { token } = await b.openSession("reader", { readOnly: true });
      const reader = new Octokit({ baseUrl: b.broker.gatewayUrl, auth: token });
      const comments = () => sim.world.changes(0).length;
      const before = comments();
      await expect(
        reader.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner: "acme",
          repo: "widgets",
          issue_number: 10,
          body: "x",
        }),
      ).rejects.toMatchObject({ status: 403 });
      expect(comments()).toBe(before);
    });
  });
});

describe("two brokers on one Redis", () => {
  it("spend one budget together: the simulator is never overdrawn and nobody sees a rate-limit error", async () => {
    const sim = await startSimulator({ port: 0, limits: { graphql: 30, core: 30 }, windowSeconds: 4 });
    const prefix = redis.prefix();
    const config = {
      budget: { reserve: { lifecycle: 0, interactive: 0 } },
      batching: { enabled: false },
      cache: { graphqlFreshMs: { checks: 0, pullRequest: 0, issue: 0, other: 0 }, restFreshMs: 0 },
    };
    const one = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url, config });
    const two = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url, config });
    try {
      const clients = await Promise.all(
        [one, two, one, two].map(
          async (b, i) =>
            new Octokit({ baseUrl: b.broker.gatewayUrl, auth: (await b.openSession(`s${i}`)).token }),
        ),
      );
      const statuses: number[] = [];
      const deadline = Date.now() + 6_000;
      await Promise.all(
        clients.map(async (client, i) => {
          let n = 0;
          while (Date.now() < deadline) {
            n++;
            const r = await client.request("POST /graphql", {
              query:
                'query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { title } } }',
              variables: { n: ((i * 100 + n) % 3) + 1 },
            });
            const errors = (r.data as { errors?: { type?: string }[] }).errors;
            statuses.push(errors?.some((e) => e.type === "RATE_LIMITED") ? 429 : r.status);
          }
        }),
      );
      expect(statuses.length).toBeGreaterThan(30);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(sim.stats().requests.rateLimited).toBe(0);
    } finally {
      await one.close();
      await two.close();
      await sim.close();
    }
  }, 30_000);
});

describe("the in-process cache tier across brokers", () => {
  it("drops an answer on every broker when a write through another broker invalidates it", async () => {
    const sim = await startSimulator({ port: 0 });
    const prefix = redis.prefix();
    const one = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url });
    const two = await startBrokerUnderTest({ redisUrl: redis.url, prefix, upstreamUrl: sim.url });
    try {
      const reader = new Octokit({
        baseUrl: two.broker.gatewayUrl,
        auth: (await two.openSession("reader")).token,
      });
      const writer = new Octokit({
        baseUrl: one.broker.gatewayUrl,
        auth: (await one.openSession("writer")).token,
      });
      const list = () =>
        reader.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner: "acme",
          repo: "widgets",
          issue_number: 11,
        });
      const before = await list();
      expect((await list()).headers["x-ao-broker-cache"]).toBe("HIT");
      await writer.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: "acme",
        repo: "widgets",
        issue_number: 11,
        body: "from the other broker",
      });
      await new Promise((r) => setTimeout(r, 100));
      const after = await list();
      expect(after.headers["x-ao-broker-cache"]).not.toBe("HIT");
      expect((after.data as unknown[]).length).toBe((before.data as unknown[]).length + 1);
    } finally {
      await one.close();
      await two.close();
      await sim.close();
    }
  });
});
