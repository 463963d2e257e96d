/**
 * A session born mid-CI: its run started part-way through, so jobs already finished are completed
 * at real past-or-present instants and the rest finish in what is left of their time, not a whole
 * CI duration later.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffFacts, jobsKey } from "../../../bench/core/facts.js";
import { createRng } from "../../../bench/core/rng.js";
import { loadProfile } from "../../../bench/load-profile.js";
import { TruthTracker } from "../../../bench/truth-tracker.js";
import { benchScenario, WorldDriver } from "../../../bench/world-driver.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";

interface Job {
  name: string;
  status: string;
  conclusion: string | null;
  completed_at: string | null;
}

describe("WorldDriver.openPull mid-CI", () => {
  let sim: RunningSimulator;
  let world: WorldDriver;
  const profile = loadProfile("active");
  // 1 simulated second = 1 wall ms: the active profile's 315 s CI lasts 315 ms of scenario time.
  const scale = 1000;

  beforeAll(async () => {
    // A frozen clock: only advance() moves time, so the check does not race the wall clock.
    const frozen = Date.now();
    sim = await startSimulator({ port: 0, scenario: benchScenario(2), clock: { now: () => frozen } });
    world = new WorldDriver({ sim, world: profile.world, scale });
  });

  afterAll(async () => {
    world.close();
    await sim.close();
  });

  async function jobs(branch: string): Promise<Job[]> {
    const headers = { authorization: `token ${sim.token}` };
    const runs = (await (
      await fetch(`${sim.url}/repos/acme/widgets/actions/runs?branch=${branch}`, { headers })
    ).json()) as { workflow_runs: { id: number }[] };
    const id = runs.workflow_runs[0]?.id;
    const body = (await (
      await fetch(`${sim.url}/repos/acme/widgets/actions/runs/${id}/jobs`, { headers })
    ).json()) as { jobs: Job[] };
    return body.jobs;
  }

  it("finishes the jobs already behind it at once and the rest in their remaining time", async () => {
    // 200 s into the run: lint (15 + 60 s) and build (15 + 120 s) are done, test (15 + 300 s) has 115 s left.
    world.openPull({
      branch: "ao/mid",
      issue: 1,
      ciRunning: true,
      ciFailed: false,
      ciElapsedSimMs: 200_000,
      rng: createRng(1),
    });
    await sim.advance(1);
    const now = sim.now();
    const early = await jobs("ao/mid");
    const byName = new Map(early.map((j) => [j.name, j]));
    for (const name of ["lint", "build"]) {
      expect(byName.get(name)?.status).toBe("completed");
      expect(Date.parse(byName.get(name)?.completed_at ?? "")).toBeLessThanOrEqual(now);
    }
    expect(byName.get("test")?.status).toBe("in_progress");

    await sim.advance(100);
    expect((await jobs("ao/mid")).find((j) => j.name === "test")?.status).toBe("in_progress");
    await sim.advance(20);
    const late = await jobs("ao/mid");
    expect(late.every((j) => j.status === "completed" && j.conclusion === "success")).toBe(true);
  });

  it("opens a PR with a diff the bench can judge", async () => {
    const pr = world.openPull({
      branch: "ao/diff",
      issue: 2,
      ciRunning: false,
      ciFailed: false,
      rng: createRng(4),
    });
    const answer = await fetch(`${sim.url}/repos/acme/widgets/pulls/${pr}`, {
      headers: { authorization: `token ${sim.token}`, accept: "application/vnd.github.v3.diff" },
    });
    const facts = diffFacts("acme/widgets", pr, await answer.text());
    expect(facts).toHaveLength(1);
    expect(facts[0]?.value).toMatch(/^[0-9a-f]{7}:1$/);
  });

  it("starts a run from the beginning when nothing of it has passed", async () => {
    world.openPull({ branch: "ao/new", issue: 2, ciRunning: true, ciFailed: false, rng: createRng(2) });
    await sim.advance(1);
    expect((await jobs("ao/new")).every((j) => j.status === "queued")).toBe(true);
  });

  it("leaves the truth of a run born mid-CI at what the simulator answers", async () => {
    // A clock that moves a millisecond per reading: the run's creation and the motion of its
    // finished jobs (scheduled at the run's own start) land on different milliseconds, as they do
    // on the real clock. The truth must still end at the jobs' real state, not at "queued".
    let t = Date.now();
    const ticking = await startSimulator({ port: 0, scenario: benchScenario(2), clock: { now: () => t++ } });
    const truth = new TruthTracker(ticking, "acme/widgets");
    truth.start();
    const driver = new WorldDriver({ sim: ticking, world: profile.world, scale });
    try {
      driver.openPull({
        branch: "ao/tick",
        issue: 1,
        ciRunning: true,
        ciFailed: false,
        ciElapsedSimMs: 200_000,
        rng: createRng(3),
      });
      await ticking.advance(1);
      await truth.sync();
      const headers = { authorization: `token ${ticking.token}` };
      const runs = (await (
        await fetch(`${ticking.url}/repos/acme/widgets/actions/runs?branch=ao/tick`, { headers })
      ).json()) as { workflow_runs: { id: number }[] };
      const id = runs.workflow_runs[0]?.id ?? 0;
      const value = truth.history.valueAt(jobsKey("acme/widgets", id), ticking.now());
      expect(value).toBe("build:completed:success|lint:completed:success|test:in_progress:");
    } finally {
      driver.close();
      truth.close();
      await ticking.close();
    }
  });
});
