/**
 * `--real-gh` on a few commands: the real gh 2.23 binary and the replay, each on an identical fresh
 * world, directly and through a broker, cost the simulator exactly the same. (`gh run view` is
 * compared directly only: through the gateway, real gh follows the run's `jobs_url`, which still
 * names the upstream, and fails there — a broker finding the check reports, not a replay error.)
 */
import { describe, expect, it } from "vitest";
import { CostEstimator } from "../../../bench/cost-estimator.js";
import { HttpTransport } from "../../../bench/http-transport.js";
import { CHECKED_COMMANDS, runRealGhCheck } from "../../../bench/real-gh-check.js";

describe("runRealGhCheck", () => {
  it("finds the replay's cost equal to real gh's for pr checks, run view --log-failed and issue view --comments", async () => {
    const transport = new HttpTransport({ connections: 8 });
    try {
      const names = new Set(["pr checks", "run view --log-failed", "issue view --comments"]);
      const result = await runRealGhCheck({
        transport,
        costs: new CostEstimator(),
        commands: CHECKED_COMMANDS.filter((c) => names.has(c.name)),
      });
      expect(result.ghVersion).toMatch(/gh version 2\.23/);
      expect(result.commands).toHaveLength(6);
      for (const c of result.commands) {
        if (c.path === "broker" && c.command.startsWith("run view")) continue;
        expect(c.replayGraphqlPoints, `${c.command} via ${c.path}`).toBe(c.realGraphqlPoints);
        expect(c.replayRestCore, `${c.command} via ${c.path}`).toBe(c.realRestCore);
        expect(c.replayOperations, `${c.command} via ${c.path}`).toEqual(c.realOperations);
      }
      expect(result.realCost).toBeGreaterThan(0);
      const direct = result.commands.filter((c) => c.path === "direct");
      expect(direct.reduce((n, c) => n + c.replayGraphqlPoints + c.replayRestCore, 0)).toBe(
        direct.reduce((n, c) => n + c.realGraphqlPoints + c.realRestCore, 0),
      );
    } finally {
      await transport.close();
    }
  }, 60_000);
});
