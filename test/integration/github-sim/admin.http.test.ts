import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, type SimStats, startSimulator } from "../../../github-sim/index.js";
import { gql, rest } from "./support.js";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

const post = <T = unknown>(path: string, body: unknown) =>
  rest<T>(sim, path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    token: null,
  });

const MOVING_SCENARIO = {
  name: "moving",
  repos: [
    {
      owner: "acme",
      name: "gadgets",
      workflows: [{ id: 7, name: "CI" }],
      pulls: [
        {
          number: 4,
          title: "Gadget",
          head: "feature/gadget",
          ci: { jobs: [{ name: "build", startAfterS: 0, durationS: 30, conclusion: "success" }] },
        },
      ],
    },
  ],
  timeline: [{ atS: 60, event: { type: "review", pr: 4, author: "hubot", state: "APPROVED" } }],
};

describe("the simulator's admin API", () => {
  it("reports stats with per-resource windows, request counts by operation and the world's state", async () => {
    await gql(sim, "query Probe { viewer { login } }");
    await rest(sim, "/repos/acme/widgets/pulls/1");
    const stats = (await rest<SimStats>(sim, "/_sim/stats", { token: null })).json;
    expect(stats.resources.graphql).toMatchObject({ limit: 5000, used: 1, remaining: 4999 });
    expect(stats.resources.core).toMatchObject({ used: 1 });
    expect(stats.requests).toMatchObject({ total: 2, graphql: 1, rest: 1 });
    expect(stats.requests.byOperation).toEqual({
      Probe: 1,
      "GET /repos/{owner}/{repo}/pulls/{pull_number}": 1,
    });
    expect(stats.world).toEqual({ version: 0, pendingEvents: 0, nextEventAt: null });
    expect(sim.stats().requests.total).toBe(2);
  });

  it("counts 304 answers per operation beside the requests", async () => {
    const before = sim.stats().requests;
    const first = await rest(sim, "/repos/acme/widgets/pulls/1");
    await rest(sim, "/repos/acme/widgets/pulls/1", {
      headers: { "if-none-match": first.headers.etag ?? "" },
    });
    const after = (await rest<SimStats>(sim, "/_sim/stats", { token: null })).json.requests;
    const op = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
    expect((after.byOperation[op] ?? 0) - (before.byOperation[op] ?? 0)).toBe(2);
    // Of the two reads of the PR, the conditional one was a 304.
    expect((after.notModifiedByOperation[op] ?? 0) - (before.notModifiedByOperation[op] ?? 0)).toBe(1);
  });

  it("resets the world, the counters and the windows", async () => {
    await post("/_sim/events", { type: "comment", number: 10, body: "temporary" });
    await gql(sim, "{ viewer { login } }");
    const reset = await post<SimStats>("/_sim/reset", {});
    expect(reset.json.requests.total).toBe(0);
    expect(reset.json.resources.graphql.used).toBe(0);
    expect(sim.world.repo("acme/widgets")?.issues.get(10)?.comments).toHaveLength(2);
  });

  describe("when events are injected", () => {
    it("applies one event or a list and reports what changed", async () => {
      const one = await post<{ type: string; number: number }>("/_sim/events", {
        type: "comment",
        number: 10,
        body: "hello",
      });
      expect(one.json).toMatchObject({ type: "comment", repo: "acme/widgets", number: 10 });
      const many = await post<unknown[]>("/_sim/events", [
        { type: "labels", number: 12, add: ["bug"] },
        { type: "close", number: 11 },
      ]);
      expect(many.json).toHaveLength(2);
      expect(sim.world.repo("acme/widgets")?.issues.get(11)?.state).toBe("closed");
    });

    it.each([
      { name: "malformed JSON", body: "{", status: 400, message: "Problems parsing JSON" },
      { name: "an unknown type", body: { type: "explode" }, status: 400, message: "type" },
      { name: "a missing field", body: { type: "comment", number: 10 }, status: 400, message: "body" },
      {
        name: "an unknown PR",
        body: { type: "merge", pr: 77 },
        status: 404,
        message: "Could not resolve to a PullRequest with the number of 77.",
      },
      {
        name: "a refused merge",
        body: { type: "merge", pr: 3 },
        status: 422,
        message: "Pull request is in draft state",
      },
    ])("answers $name with $status", async ({ body, status, message }) => {
      const reply = await post<{ message: string }>("/_sim/events", body);
      expect(reply.status).toBe(status);
      expect(reply.json.message).toContain(message);
    });
  });

  describe("when a scenario is loaded", () => {
    afterAll(async () => {
      await post("/_sim/scenario", (await rest(sim, "/_sim/scenario", { token: null })).json);
    });

    it("replaces the world, schedules its motion, and advance() moves it", async () => {
      const original = (await rest(sim, "/_sim/scenario", { token: null })).json;
      const loaded = await post<{ loaded: string }>("/_sim/scenario", MOVING_SCENARIO);
      expect(loaded.json.loaded).toBe("moving");
      expect(sim.world.repo("acme/widgets")).toBeUndefined();
      const check = () => [...(sim.world.repo("acme/gadgets")?.checkRuns.values() ?? [])][0];
      expect(check()?.status).toBe("queued");
      const start = sim.now();
      const advanced = await post<{ applied: number }>("/_sim/advance", { ms: 40_000 });
      expect(advanced.json.applied).toBe(2);
      expect(check()).toMatchObject({ status: "completed", conclusion: "success" });
      const changes = await rest<{ changes: { kind: string; at: number }[] }>(
        sim,
        `/_sim/changes?since=${start + 10_000}`,
        { token: null },
      );
      expect(changes.json.changes.map((c) => c.kind)).toEqual([
        "check_run.completed",
        "workflow_run.completed",
        "pull_request.checks",
      ]);
      const resumed = await rest<{ changes: { kind: string; version: number }[] }>(
        sim,
        "/_sim/changes?afterVersion=3",
        { token: null },
      );
      expect(resumed.json.changes.map((c) => c.version)).toEqual([4, 5, 6]);
      await sim.advance(30_000);
      expect(sim.world.repo("acme/gadgets")?.pulls.get(4)?.reviews).toHaveLength(1);
      await post("/_sim/scenario", original);
      expect(sim.world.repo("acme/widgets")?.pulls.size).toBe(3);
    });

    it("moves the runs list's ETag when a job moves inside a run that stays in_progress (as GitHub does)", async () => {
      const original = (await rest(sim, "/_sim/scenario", { token: null })).json;
      await post("/_sim/scenario", {
        name: "two-jobs",
        repos: [
          {
            owner: "acme",
            name: "gadgets",
            workflows: [{ id: 7, name: "CI" }],
            pulls: [
              {
                number: 4,
                title: "Gadget",
                head: "feature/gadget",
                ci: {
                  jobs: [
                    { name: "lint", startAfterS: 0, durationS: 10, conclusion: "success" },
                    { name: "test", startAfterS: 0, durationS: 60, conclusion: "success" },
                  ],
                },
              },
            ],
          },
        ],
      });
      const list = "/repos/acme/gadgets/actions/runs?per_page=100&exclude_pull_requests=true";
      await sim.advance(1_000); // both jobs in progress
      const first = await rest<{ workflow_runs: { status: string; updated_at: string }[] }>(sim, list);
      expect(first.json.workflow_runs[0]?.status).toBe("in_progress");
      const unchanged = await rest(sim, list, { headers: { "if-none-match": first.headers.etag ?? "" } });
      expect(unchanged.status).toBe(304);
      await sim.advance(15_000); // lint finished, test still running: the run is still in_progress
      const moved = await rest<{ workflow_runs: { status: string; updated_at: string }[] }>(sim, list, {
        headers: { "if-none-match": first.headers.etag ?? "" },
      });
      expect(moved.status).toBe(200);
      expect(moved.json.workflow_runs[0]?.status).toBe("in_progress");
      expect(moved.json.workflow_runs[0]?.updated_at).not.toBe(first.json.workflow_runs[0]?.updated_at);
      await post("/_sim/scenario", original);
    });

    it("refuses an invalid scenario with a 400 naming the problem and keeps the world", async () => {
      const reply = await post<{ message: string }>("/_sim/scenario", {
        repos: [{ owner: "acme", name: "x", pulls: [{ head: "h" }] }],
      });
      expect(reply.status).toBe(400);
      expect(reply.json.message).toContain("repos[0].pulls[0].title");
      expect(sim.world.repo("acme/widgets")).toBeDefined();
    });
  });

  it("refuses a bad advance, unknown endpoints and a fault plan without rules", async () => {
    expect((await post("/_sim/advance", { ms: -1 })).status).toBe(400);
    expect((await rest(sim, "/_sim/nothing", { token: null })).status).toBe(404);
    expect((await post("/_sim/faults", {})).status).toBe(400);
  });
});
