/**
 * Budgets spent for real, with the real gh: what gh prints when GitHub's primary limits run out
 * (GraphQL: 200 + RATE_LIMITED; REST: 403), that the window resets on time (moved with advance()
 * so the test takes seconds, not an hour), secondary limits, bad credentials, and free 304s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { gh, ghEnv, scratch } from "./support.js";

let work: { dir: string; cleanup: () => void };
const sims: RunningSimulator[] = [];

async function sim(options: Parameters<typeof startSimulator>[0]): Promise<RunningSimulator> {
  const s = await startSimulator(options);
  sims.push(s);
  return s;
}

/** Time stands still unless advance() moves it, so slow gh start-ups cannot roll a window early. */
function frozenClock() {
  const t = Date.now();
  return { now: () => t };
}

beforeAll(() => {
  work = scratch("aob-gh-rl-");
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  work?.cleanup();
});

describe("real gh 2.23 when budgets run out", () => {
  describe("when the GraphQL budget is 5 points per 10 s", () => {
    it("prints gh's rate-limit error on the sixth gh pr view and works again when the window resets", async () => {
      const s = await sim({ limits: { graphql: 5 }, windowSeconds: 10, clock: frozenClock() });
      const env = ghEnv(s, work.dir);
      for (let i = 0; i < 5; i++) expect((await gh(["pr", "view", "1"], { env })).code).toBe(0);
      const sixth = await gh(["pr", "view", "1"], { env });
      expect(sixth.code).toBe(1);
      expect(sixth.stderr.trim()).toBe("GraphQL: API rate limit exceeded for user ID 1.");
      expect(s.stats().resources.graphql).toMatchObject({ used: 5, remaining: 0 });
      await s.advance(9_000);
      expect((await gh(["pr", "view", "1"], { env })).code).toBe(1);
      await s.advance(1_000);
      const after = await gh(["pr", "view", "1"], { env });
      expect(after.code).toBe(0);
      expect(after.stdout).toContain("title:\tAdd widget frobnicator");
      expect(s.stats().resources.graphql).toMatchObject({ used: 1, remaining: 4 });
    });
  });

  describe("when the REST budget is 2 requests per 10 s", () => {
    it("prints gh's 403 for gh run list and gh api, and recovers after the window", async () => {
      const s = await sim({ limits: { core: 2 }, windowSeconds: 10, clock: frozenClock() });
      const env = ghEnv(s, work.dir);
      expect((await gh(["run", "list"], { env })).code).toBe(0);
      const runList = await gh(["run", "list"], { env });
      expect(runList.code).toBe(1);
      expect(runList.stderr.trim()).toBe(
        "failed to get runs: HTTP 403: API rate limit exceeded for user ID 1. (http://api.github.localhost/repos/acme/widgets/actions/runs?per_page=20&exclude_pull_requests=true)",
      );
      const api = await gh(["api", "repos/acme/widgets/pulls/1"], { env });
      expect(api.code).toBe(1);
      expect(api.stderr).toContain("gh: API rate limit exceeded for user ID 1. (HTTP 403)");
      const report = await gh(["api", "rate_limit", "--jq", ".resources.core.remaining"], { env });
      expect(report.stdout.trim()).toBe("0");
      await s.advance(10_000);
      expect(
        (await gh(["api", "repos/acme/widgets/pulls/1", "--jq", ".number"], { env })).stdout.trim(),
      ).toBe("1");
    });
  });

  describe("when a conditional request matches", () => {
    it("answers 304 and leaves core.used unchanged", async () => {
      const s = await sim({});
      const env = ghEnv(s, work.dir);
      const first = await gh(["api", "-i", "repos/acme/widgets/pulls/1"], { env });
      const etag = /^Etag: (.+)$/im.exec(first.stdout)?.[1]?.trim();
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const used = s.stats().resources.core.used;
      const again = await gh(["api", "-i", "-H", `If-None-Match: ${etag}`, "repos/acme/widgets/pulls/1"], {
        env,
      });
      expect(again.stdout).toMatch(/^HTTP\/1\.1 304 Not Modified/);
      expect(s.stats().resources.core.used).toBe(used);
      expect(s.stats().requests.notModified).toBe(1);
    });
  });

  describe("when a secondary limit is hit", () => {
    it("prints GitHub's secondary-limit message", async () => {
      const s = await sim({ secondary: { restPointsPerMinute: 1 } });
      const env = ghEnv(s, work.dir);
      expect((await gh(["api", "repos/acme/widgets/pulls/1"], { env })).code).toBe(0);
      const limited = await gh(["api", "repos/acme/widgets/pulls/1"], { env });
      expect(limited.code).toBe(1);
      expect(limited.stderr).toMatch(
        /^gh: You have exceeded a secondary rate limit\. Please wait a few minutes before you try again\./,
      );
      expect(limited.stderr).toContain("(HTTP 403)");
    });
  });

  describe("when the token is wrong", () => {
    it("answers 401 Bad credentials and charges nothing", async () => {
      const s = await sim({});
      const result = await gh(["pr", "view", "1"], {
        env: ghEnv(s, work.dir, { GH_TOKEN: "ghp_not_the_token" }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("Bad credentials");
      expect(s.stats().resources.graphql.used).toBe(0);
      expect(s.stats().requests.unauthorized).toBe(1);
    });
  });
});
