/**
 * `--target` against a stand-in for GitHub (the simulator at a URL, with its PAT in an env var):
 * the run polls the repository's open PRs through the capped upstream and can never spend more
 * than --max-points; past the cap the command fails with AO_ERR_BENCH_CAP_REACHED.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchCommand } from "../../../bench/index.js";
import { isAoError } from "../../../common/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";

describe("bench --target", () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, prs: 4 });
  });

  afterAll(async () => {
    await sim.close();
  });

  it("stops at the cap: the target is never charged more than --max-points", async () => {
    let out = "";
    const before = sim.stats().graphqlPoints;
    const run = runBenchCommand(
      {
        target: sim.url,
        tokenEnv: "BENCH_TEST_PAT",
        maxPoints: "3",
        repo: "acme/widgets",
        arms: "direct",
        sessions: "4",
        windowS: "10",
        warmupS: "1",
        profile: "quiet",
        progress: false,
      },
      { env: { BENCH_TEST_PAT: sim.token }, write: (t) => (out += t) },
    );
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAoError(error, "AO_ERR_BENCH_CAP_REACHED")).toBe(true);
    expect(sim.stats().graphqlPoints - before).toBeLessThanOrEqual(3);
    expect(out).toMatch(/cap \(3\) was reached/);
  }, 60_000);

  it("refuses an active profile against a real repository", async () => {
    const error = await runBenchCommand(
      {
        target: sim.url,
        tokenEnv: "BENCH_TEST_PAT",
        maxPoints: "3",
        repo: "acme/widgets",
        profile: "active",
        progress: false,
      },
      { env: { BENCH_TEST_PAT: sim.token }, write: () => undefined },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAoError(error, "AO_ERR_BENCH_OPTIONS_INVALID")).toBe(true);
  });
});
