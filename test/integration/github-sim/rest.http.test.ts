import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { proxied, rest } from "./support.js";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

const coreUsed = () => sim.stats().resources.core.used;
const R = "/repos/acme/widgets";

describe("the simulator's REST API", () => {
  describe("when listing with pagination", () => {
    it("links to the next and last pages on the host the client used (plain form)", async () => {
      const reply = await rest<{ number: number }[]>(sim, `${R}/pulls?per_page=1&state=open`);
      expect(reply.json.map((p) => p.number)).toEqual([3]);
      expect(reply.headers.link).toBe(
        `<${sim.url}${R}/pulls?per_page=1&state=open&page=2>; rel="next", <${sim.url}${R}/pulls?per_page=1&state=open&page=3>; rel="last"`,
      );
    });

    it("links on api.github.localhost in proxy form, so gh api --paginate can follow", async () => {
      const reply = await proxied<{ number: number }[]>(
        sim,
        "GET",
        `http://api.github.localhost${R}/pulls?per_page=2&page=2`,
      );
      expect(reply.json.map((p) => p.number)).toEqual([1]);
      expect(reply.headers.link).toContain(
        `<http://api.github.localhost${R}/pulls?per_page=2&page=1>; rel="prev"`,
      );
      const run = await proxied<{ jobs_url: string }>(
        sim,
        "GET",
        `http://api.github.localhost${R}/actions/runs/1001`,
      );
      expect(run.json.jobs_url).toBe(`http://api.github.localhost${R}/actions/runs/1001/jobs`);
    });
  });

  describe("when a gateway forwards in reverse mode", () => {
    it("builds API links on X-Forwarded-Host, so bodies match the proxy form", async () => {
      const forwarded = await rest(sim, `${R}/actions/runs/1001`, {
        headers: { "x-forwarded-host": "api.github.localhost" },
      });
      const viaProxy = await proxied(sim, "GET", `http://api.github.localhost${R}/actions/runs/1001`);
      expect(forwarded.text).toBe(viaProxy.text);
      expect(forwarded.headers.etag).toBe(viaProxy.headers.etag);
    });
  });

  describe("when latency and the concurrency limit are configured", () => {
    it("delays every answer and refuses requests beyond the concurrent limit", async () => {
      const slow = await startSimulator({ latencyMs: 150, secondary: { concurrent: 2 } });
      try {
        const started = performance.now();
        const replies = await Promise.all([1, 2, 3].map((n) => rest(slow, `${R}/pulls/${n}`)));
        expect(performance.now() - started).toBeGreaterThanOrEqual(140);
        expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 403]);
        const refused = replies.find((r) => r.status === 403);
        expect(refused?.json).toMatchObject({ message: expect.stringContaining("secondary rate limit") });
        expect(refused?.headers["retry-after"]).toBe("1");
      } finally {
        await slow.close();
      }
    });
  });

  describe("when a request is conditional", () => {
    it("answers 304 with no body for a matching ETag, free of charge", async () => {
      const first = await rest(sim, `${R}/pulls/1`);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const used = coreUsed();
      const again = await rest(sim, `${R}/pulls/1`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers["x-ratelimit-used"]).toBe(String(used));
      expect(coreUsed()).toBe(used);
      expect(sim.stats().requests.notModified).toBe(1);
    });

    it("changes the ETag exactly when the representation changes", async () => {
      const etagOf = async (path: string) => (await rest(sim, path)).headers.etag;
      const comments = await etagOf(`${R}/issues/1/comments`);
      const pull = await etagOf(`${R}/pulls/2`);
      expect(await etagOf(`${R}/issues/1/comments`)).toBe(comments);
      sim.inject({ type: "comment", number: 1, body: "new comment" });
      expect(await etagOf(`${R}/issues/1/comments`)).not.toBe(comments);
      expect(await etagOf(`${R}/pulls/2`)).toBe(pull);
    });

    it("honours If-Modified-Since against Last-Modified", async () => {
      const first = await rest(sim, `${R}/issues/10`);
      const lastModified = first.headers["last-modified"] as string;
      expect(
        (await rest(sim, `${R}/issues/10`, { headers: { "if-modified-since": lastModified } })).status,
      ).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      expect((await rest(sim, `${R}/issues/10`, { headers: { "if-modified-since": earlier } })).status).toBe(
        200,
      );
    });
  });

  describe("when the core budget is spent", () => {
    it("answers 403 with GitHub's message and remaining 0, keeps /rate_limit and 304s free, and recovers after the window", async () => {
      const t0 = Date.now();
      const small = await startSimulator({
        limits: { core: 2 },
        windowSeconds: 10,
        clock: { now: () => t0 },
      });
      try {
        const first = await rest(small, `${R}/pulls/1`);
        expect(first.status).toBe(200);
        expect((await rest(small, `${R}/pulls/2`)).status).toBe(200);
        const revalidated = await rest(small, `${R}/pulls/1`, {
          headers: { "if-none-match": first.headers.etag as string },
        });
        expect(revalidated.status).toBe(304);
        const spent = await rest(small, `${R}/pulls/3`);
        expect(spent.status).toBe(403);
        expect(spent.json).toMatchObject({ message: "API rate limit exceeded for user ID 1." });
        expect(spent.headers).toMatchObject({
          "x-ratelimit-remaining": "0",
          "x-ratelimit-used": "2",
          "x-ratelimit-resource": "core",
        });
        const report = await rest<{ resources: Record<string, { used: number; remaining: number }> }>(
          small,
          "/rate_limit",
        );
        expect(report.status).toBe(200);
        expect(report.json.resources.core).toMatchObject({ used: 2, remaining: 0 });
        expect(report.json.resources.graphql).toMatchObject({ used: 0, remaining: 5000 });
        await small.advance(10_000);
        expect((await rest(small, `${R}/pulls/3`)).status).toBe(200);
      } finally {
        await small.close();
      }
    });
  });

  describe("when secondary limits are hit", () => {
    it("answers 403 mentioning the secondary rate limit with retry-after, per endpoint", async () => {
      const small = await startSimulator({ secondary: { restPointsPerMinute: 2 } });
      try {
        await rest(small, `${R}/pulls/1`);
        await rest(small, `${R}/pulls/1`);
        const limited = await rest<{ message: string }>(small, `${R}/pulls/1`);
        expect(limited.status).toBe(403);
        expect(limited.json.message).toContain("secondary rate limit");
        expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
        expect((await rest(small, `${R}/pulls/2`)).status).toBe(403);
        expect((await rest(small, `${R}/issues/10`)).status).toBe(200);
        expect(small.stats().requests.secondaryLimited).toBe(2);
      } finally {
        await small.close();
      }
    });

    it("counts a 304 toward the endpoint's points, though it is free on the primary budget", async () => {
      const small = await startSimulator({ secondary: { restPointsPerMinute: 3 } });
      try {
        const first = await rest(small, `${R}/pulls/1`);
        const conditional = { headers: { "if-none-match": first.headers.etag as string } };
        expect((await rest(small, `${R}/pulls/1`, conditional)).status).toBe(304);
        expect((await rest(small, `${R}/pulls/1`, conditional)).status).toBe(304);
        const limited = await rest(small, `${R}/pulls/1`, conditional);
        expect(limited.status).toBe(403);
        expect(small.stats().requests.notModified).toBe(2);
        expect(small.stats().requests.secondaryLimited).toBe(1);
      } finally {
        await small.close();
      }
    });

    it("counts content creation per hour, with the hour 60 of a compressed minute", async () => {
      // A 600 ms minute: the hour is 36 s. Two comments an hour at most.
      const small = await startSimulator({ secondary: { minuteMs: 600, contentCreationPerHour: 2 } });
      const comment = () =>
        rest<{ message?: string }>(small, `${R}/issues/10/comments`, {
          method: "POST",
          body: JSON.stringify({ body: "hi" }),
        });
      try {
        expect((await comment()).status).toBe(201);
        await new Promise((r) => setTimeout(r, 700)); // past the compressed minute, within the hour
        expect((await comment()).status).toBe(201);
        const limited = await comment();
        expect(limited.status).toBe(403);
        expect(limited.json.message).toContain("secondary rate limit");
        expect(Number(limited.headers["retry-after"])).toBeGreaterThan(30);
        expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(36);
      } finally {
        await small.close();
      }
    });
  });

  describe("when input is bad", () => {
    it.each([
      {
        name: "an unknown token",
        path: "/user",
        token: "ghp_wrong",
        status: 401,
        message: "Bad credentials",
      },
      { name: "no token", path: "/user", token: null, status: 401, message: "Requires authentication" },
      {
        name: "an unknown route",
        path: "/repos/acme/widgets/nothing-here",
        token: undefined,
        status: 404,
        message: "Not Found",
      },
      {
        name: "an unknown repository",
        path: "/repos/acme/nope/pulls",
        token: undefined,
        status: 404,
        message: "Not Found",
      },
      { name: "an unknown PR", path: `${R}/pulls/999`, token: undefined, status: 404, message: "Not Found" },
      {
        name: "a bad escape",
        path: `${R}/commits/%E0%A4%A/status`,
        token: undefined,
        status: 404,
        message: "Not Found",
      },
    ])("answers $name with $status in GitHub's shape", async ({ path, token, status, message }) => {
      const reply = await rest<{ message: string; documentation_url: string }>(sim, path, { token });
      expect(reply.status).toBe(status);
      expect(reply.json).toMatchObject({
        message,
        documentation_url: expect.stringContaining("docs.github.com"),
      });
      expect(reply.headers["x-ratelimit-limit"]).toBe("5000");
    });

    it("answers malformed JSON with 400, an oversize body with 413, and keeps serving", async () => {
      const bad = await rest(sim, `${R}/issues/10/comments`, { method: "POST", body: "{oops" });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ message: "Problems parsing JSON" });
      const big = await rest(sim, `${R}/issues/10/comments`, {
        method: "POST",
        body: JSON.stringify({ body: "x".repeat(100_000) }),
      });
      expect(big.status).toBe(413);
      expect(big.headers["x-ratelimit-resource"]).toBe("core");
      expect((await rest(sim, `${R}/pulls/1`)).status).toBe(200);
    });
  });

  describe("when logs are downloaded", () => {
    it("redirects to a zip on the same host with one folder per job", async () => {
      const reply = await rest(sim, `${R}/actions/runs/1001/logs`);
      expect(reply.status).toBe(302);
      const location = reply.headers.location as string;
      expect(location.startsWith(`${sim.url}/_sim/blobs/`)).toBe(true);
      const zip = Buffer.from(await (await fetch(location)).arrayBuffer());
      const names: string[] = [];
      let p = zip.readUInt32LE(zip.length - 22 + 16);
      let failing = "";
      for (let i = 0; i < zip.readUInt16LE(zip.length - 22 + 10); i++) {
        const nameLen = zip.readUInt16LE(p + 28);
        const name = zip.subarray(p + 46, p + 46 + nameLen).toString();
        names.push(name);
        if (name === "test/4_Run tests.txt") {
          const local = zip.readUInt32LE(p + 42);
          const start = local + 30 + zip.readUInt16LE(local + 26);
          failing = inflateRawSync(zip.subarray(start, start + zip.readUInt32LE(p + 20))).toString();
        }
        p += 46 + nameLen;
      }
      expect(names).toContain("build/1_Set up job.txt");
      expect(names).toContain("0_build.txt");
      expect(failing).toContain("AssertionError: expected 41 to be 42");
    });

    it("serves a job's log as text", async () => {
      const reply = await rest(sim, `${R}/actions/jobs/2002/logs`);
      const text = await (await fetch(reply.headers.location as string)).text();
      expect(text).toContain("FAIL  test/frobnicator.test.ts");
    });
  });

  describe("when a branch is deleted", () => {
    it("removes it and answers 204; a second delete is a 422", async () => {
      expect((await rest(sim, `${R}/git/refs/heads/docs/readme-typo`, { method: "DELETE" })).status).toBe(
        204,
      );
      expect(sim.world.repo("acme/widgets")?.branches.has("docs/readme-typo")).toBe(false);
      const again = await rest(sim, `${R}/git/refs/heads/docs/readme-typo`, { method: "DELETE" });
      expect(again.status).toBe(422);
      expect(again.json).toMatchObject({ message: "Reference does not exist" });
    });
  });

  it("filters workflow runs by branch and status", async () => {
    const reply = await rest<{ total_count: number; workflow_runs: { id: number }[] }>(
      sim,
      `${R}/actions/runs?branch=feature/frobnicator&status=failure&per_page=20`,
    );
    expect(reply.json.workflow_runs.map((r) => r.id)).toEqual([1001]);
    const none = await rest<{ total_count: number }>(
      sim,
      `${R}/actions/runs?branch=feature/frobnicator&status=success`,
    );
    expect(none.json.total_count).toBe(0);
  });

  it("reports the latest check runs for a ref", async () => {
    const pr = sim.world.repo("acme/widgets")?.pulls.get(1);
    const reply = await rest<{ total_count: number; check_runs: { name: string; conclusion: string }[] }>(
      sim,
      `${R}/commits/${pr?.headSha}/check-runs?per_page=100`,
    );
    expect(reply.json.check_runs.map((c) => `${c.name}:${c.conclusion}`).sort()).toEqual([
      "build:success",
      "lint:success",
      "test:failure",
    ]);
    const status = await rest<{ state: string }>(sim, `${R}/commits/feature/frobnicator/status`);
    expect(status.status).toBe(404);
    const byBranch = await rest<{ state: string }>(
      sim,
      `${R}/commits/${encodeURIComponent("feature/frobnicator")}/status`,
    );
    expect(byBranch.json.state).toBe("success");
  });

  it("names each check run's own app (GitHub Actions jobs, and another app's checks by its slug)", async () => {
    const pr = sim.world.repo("acme/widgets")?.pulls.get(3);
    const reply = await rest<{ check_runs: { name: string; app: { slug: string } }[] }>(
      sim,
      `${R}/commits/${pr?.headSha}/check-runs?per_page=100`,
    );
    expect(reply.json.check_runs.map((c) => `${c.name}:${c.app.slug}`).sort()).toEqual([
      "build:github-actions",
      "deploy-preview:preview-bot",
      "test:github-actions",
    ]);
  });
});
