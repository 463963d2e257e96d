/** Staleness against the simulator's truth: answers judged current or stale by the change log. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksValue, prChecksKey, prStateKey } from "../../../bench/core/facts.js";
import { TruthTracker } from "../../../bench/truth-tracker.js";
import { BENCH_WORKFLOW_ID, benchScenario } from "../../../bench/world-driver.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";

describe("TruthTracker", () => {
  let sim: RunningSimulator;
  let truth: TruthTracker;
  let pr: number;
  const REPO = "acme/widgets";

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, scenario: benchScenario(2) });
    truth = new TruthTracker(sim, REPO);
    truth.start();
    pr =
      sim.inject({
        type: "open_pr",
        title: "t",
        head: "ao/t",
        ci: {
          workflowId: BENCH_WORKFLOW_ID,
          jobs: [{ name: "build", conclusion: "success", startAfterS: 0.05, durationS: 0.1 }],
        },
      }).number ?? 0;
  });

  afterAll(async () => {
    truth.close();
    await sim.close();
  });

  it("follows CI as it moves and judges an answer by when the truth left its value", async () => {
    const queued = checksValue([{ name: "build", status: "queued", conclusion: null }]);
    const done = checksValue([{ name: "build", status: "completed", conclusion: "success" }]);
    const t0 = sim.now();
    expect(truth.judge({ key: prChecksKey(REPO, pr), value: queued }, t0)).toEqual({ kind: "current" });
    await new Promise((r) => setTimeout(r, 400));
    await truth.sync();
    const now = sim.now();
    expect(truth.judge({ key: prChecksKey(REPO, pr), value: done }, now)).toEqual({ kind: "current" });
    const stale = truth.judge({ key: prChecksKey(REPO, pr), value: queued }, now);
    expect(stale.kind).toBe("stale");
    if (stale.kind === "stale") {
      expect(stale.staleMs).toBeGreaterThan(150);
      expect(stale.staleMs).toBeLessThanOrEqual(now - t0);
    }
  });

  it("sees a merge through the event API", async () => {
    sim.inject({ type: "merge", pr });
    expect(truth.judge({ key: prStateKey(REPO, pr), value: "MERGED" }, sim.now())).toEqual({
      kind: "current",
    });
    expect(truth.judge({ key: prStateKey(REPO, pr), value: "OPEN" }, sim.now()).kind).toBe("stale");
  });
});
