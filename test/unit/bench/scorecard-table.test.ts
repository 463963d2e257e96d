import { describe, expect, it } from "vitest";
import { renderScorecardTable, TABLE_HEADERS } from "../../../bench/core/scorecard-table.js";
import { report, stepResult } from "./support.js";

describe("renderScorecardTable", () => {
  const text = renderScorecardTable(
    report([
      stepResult({
        arm: "broker",
        sessions: 80,
        graphqlPointsPerHour: 4200,
        withinBudget: true,
        reasons: [],
        broker: { cpuSeconds: 30, cpuPercent: 50, rssMb: 210 },
      }),
      stepResult({ arm: "direct", sessions: 5 }),
    ]),
  );

  it("prints one row per step with usage as a share of the budget", () => {
    expect(text).toMatch(new RegExp(TABLE_HEADERS.slice(0, 3).join("\\s+")));
    expect(text).toMatch(/direct\s+5\s+9,572 \(191%\)/);
    expect(text).toMatch(/broker\s+80\s+4,200 \(84%\)/);
  });

  it("says why a step is over budget, sessions to budget per arm (with ≥ for open bounds) and the calibration", () => {
    expect(text).toContain("direct @ 5: GraphQL 9,572 pts/h > 5,000");
    expect(text).toMatch(/direct\s+2/);
    expect(text).toMatch(/broker\s+≥ 80/);
    expect(text).toMatch(/Calibration: direct arm at 5 active sessions spends 9,572 .*\+0%.*ok/);
    expect(text).toContain("broker: a note");
  });

  it("reports a separate broker process's CPU and memory", () => {
    expect(text).toContain("80 sessions: 50% CPU, 210 MB");
  });
});
