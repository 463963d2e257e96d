import { describe, expect, it } from "vitest";
import { applyEvent } from "../../../github-sim/core/apply-event.js";
import { loadScenario } from "../../../github-sim/core/load-scenario.js";
import { parseScenario, parseSimEvent } from "../../../github-sim/core/scenario-schema.js";

const T0 = 1_800_000_000_000;

function moving() {
  let now = T0;
  const parsed = parseScenario({
    repos: [
      {
        owner: "acme",
        name: "widgets",
        workflows: [{ id: 42, name: "CI" }],
        pulls: [
          {
            number: 1,
            title: "Moving",
            head: "feature/moving",
            ci: {
              runId: 1001,
              jobs: [{ id: 2001, name: "build", startAfterS: 5, durationS: 10, conclusion: "failure" }],
            },
          },
        ],
      },
    ],
    timeline: [{ atS: 30, event: { type: "merge", pr: 1 } }],
  });
  if (!parsed.ok) throw new Error(parsed.message);
  const loaded = loadScenario(parsed.value, { now: () => now });
  return { ...loaded, setNow: (t: number) => (now = t) };
}

describe("the scenario engine", () => {
  describe("when CI jobs have timings", () => {
    it("moves them queued → in_progress → completed at the scheduled instants", () => {
      const { world, engine } = moving();
      const repo = world.requireRepo("acme/widgets");
      const job = () => repo.checkRuns.get(2001);
      expect(job()?.status).toBe("queued");
      engine.tick(T0 + 4_999);
      expect(job()?.status).toBe("queued");
      engine.tick(T0 + 5_000);
      expect(job()).toMatchObject({ status: "in_progress", startedAt: T0 + 5_000 });
      engine.tick(T0 + 60_000);
      expect(job()).toMatchObject({ status: "completed", conclusion: "failure", completedAt: T0 + 15_000 });
      expect(repo.runs.get(1001)).toMatchObject({ status: "completed", conclusion: "failure" });
    });

    it("never stamps a change before the one logged ahead of it", () => {
      const { world, engine, setNow } = moving();
      const repo = world.requireRepo("acme/widgets");
      setNow(T0 + 1_000);
      world.touch(repo, "test.now", {});
      // Scheduled for an instant already behind the log (a motion at its run's own start).
      engine.schedule(T0 + 500, "late", () => world.touch(repo, "test.late", {}));
      engine.tick(T0 + 1_000);
      expect(world.changes().find((c) => c.kind === "test.late")?.at).toBe(T0 + 1_000);
      const times = world.changes().map((c) => c.at);
      expect(times).toEqual([...times].sort((x, y) => x - y));
    });

    it("stamps late-applied changes with their scheduled instants", () => {
      const { world, engine } = moving();
      engine.tick(T0 + 100_000);
      const kinds = world.changes().map((c) => [c.kind, c.at - T0]);
      expect(kinds).toContainEqual(["check_run.in_progress", 5_000]);
      expect(kinds).toContainEqual(["check_run.completed", 15_000]);
      expect(kinds).toContainEqual(["pull_request.checks", 15_000]);
      expect(kinds).toContainEqual(["pull_request.merged", 30_000]);
      expect(world.changes(T0 + 20_000).map((c) => c.kind)).toEqual(["push", "pull_request.merged"]);
    });
  });

  describe("when events are injected", () => {
    it("a push moves the PR's head and starts the CI it names", () => {
      const { world, engine } = moving();
      const event = parseSimEvent({
        type: "push",
        branch: "feature/moving",
        ci: { jobs: [{ name: "test", durationS: 1 }] },
      });
      if (!event.ok) throw new Error(event.message);
      const result = applyEvent({ world, engine, defaultRepo: "acme/widgets" }, event.value);
      const pr = world.requireRepo("acme/widgets").pulls.get(1);
      expect(pr?.headSha).toBe(result.sha);
      expect(pr?.commits).toHaveLength(2);
      expect(engine.pending()).toBeGreaterThanOrEqual(2);
    });

    it("dates a run created before the event back, and logs its creation now", () => {
      const { world, engine, setNow } = moving();
      setNow(T0 + 1_000_000);
      const event = parseSimEvent({
        type: "open_pr",
        title: "Born mid-life",
        head: "feature/older",
        ci: { createdAgoS: 600, jobs: [{ name: "build", conclusion: "success" }] },
      });
      if (!event.ok) throw new Error(event.message);
      applyEvent({ world, engine, defaultRepo: "acme/widgets" }, event.value);
      const repo = world.requireRepo("acme/widgets");
      const run = [...repo.runs.values()].find((r) => r.headBranch === "feature/older");
      expect(run?.createdAt).toBe(T0 + 400_000);
      const job = repo.checkRuns.get(run?.jobIds[0] ?? -1);
      // The static job finished in the past, not a minute after the event.
      expect(job?.completedAt).toBeLessThan(T0 + 1_000_000);
      const logged = world.changes().find((c) => c.kind === "workflow_run.requested" && c.at > T0);
      expect(logged?.at).toBe(T0 + 1_000_000);
    });

    it("refuses what GitHub refuses, in GitHub's words", () => {
      const { world, engine } = moving();
      const event = parseSimEvent({ type: "review", pr: 1, author: "octocat", state: "APPROVED" });
      if (!event.ok) throw new Error(event.message);
      expect(() => applyEvent({ world, engine, defaultRepo: "acme/widgets" }, event.value)).toThrow(
        "Can not approve your own pull request",
      );
    });
  });

  describe("when a scenario is invalid", () => {
    it.each([
      { name: "no repos", input: { repos: [] }, message: "repos" },
      { name: "unknown key", input: { repos: [{ owner: "a", name: "b", colour: 1 }] }, message: "colour" },
      {
        name: "bad conclusion",
        input: {
          repos: [
            {
              owner: "a",
              name: "b",
              pulls: [{ title: "t", head: "h", ci: { jobs: [{ name: "j", conclusion: "great" }] } }],
            },
          ],
        },
        message: "conclusion",
      },
      {
        name: "run dated too far back",
        input: {
          repos: [
            {
              owner: "a",
              name: "b",
              pulls: [{ title: "t", head: "h", ci: { createdAgoS: 1e12, jobs: [{ name: "j" }] } }],
            },
          ],
        },
        message: "createdAgoS",
      },
    ])("names the problem ($name)", ({ input, message }) => {
      const parsed = parseScenario(input);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? "" : parsed.message).toContain(message);
    });
  });
});
