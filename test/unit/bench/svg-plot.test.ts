import { describe, expect, it } from "vitest";
import { escapeXml, renderPlot } from "../../../bench/core/svg-plot.js";
import { assertWellFormed, stepResult } from "./support.js";

const runs = [
  stepResult({ arm: "direct", sessions: 1, graphqlPointsPerHour: 1900, withinBudget: true }),
  stepResult({ arm: "direct", sessions: 5, graphqlPointsPerHour: 9572, withinBudget: false }),
  stepResult({ arm: "broker", sessions: 5, graphqlPointsPerHour: 600, withinBudget: true }),
  stepResult({ arm: "broker", sessions: 80, graphqlPointsPerHour: 4200, withinBudget: true }),
];

describe("renderPlot", () => {
  it("is well-formed SVG with a line per arm, a marker per step and the budget line", () => {
    const svg = renderPlot(runs, { title: 't <&> "q"', subtitle: "s" });
    assertWellFormed(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle cx/g)?.length).toBeGreaterThanOrEqual(4);
    expect(svg).toContain("stroke-dasharray");
    expect(svg).toContain("budget 5,000 pts/h");
  });

  it("draws within-budget steps filled and the others hollow", () => {
    const svg = renderPlot(runs);
    expect(svg).toMatch(/<circle [^>]*fill="#ffffff"[^>]*><title>direct @ 5 sessions/);
    expect(svg).toMatch(/<circle [^>]*fill="#2471a3"[^>]*><title>broker @ 80 sessions/);
  });

  it("places larger values higher (y grows downward in SVG)", () => {
    const svg = renderPlot(runs);
    const y = (label: string) => Number(new RegExp(`cy="([\\d.]+)"[^>]*><title>${label}`).exec(svg)?.[1]);
    expect(y("direct @ 5 sessions")).toBeLessThan(y("broker @ 5 sessions"));
  });

  it("escapes text", () => {
    expect(escapeXml(`a<b&"c'`)).toBe("a&#60;b&#38;&#34;c&#39;");
  });

  describe("when there are no runs", () => {
    it("still renders axes and the budget line", () => {
      const svg = renderPlot([]);
      assertWellFormed(svg);
      expect(svg).toContain("budget 5,000 pts/h");
    });
  });
});
