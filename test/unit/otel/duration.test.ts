import { describe, expect, it } from "vitest";
import { isAoError } from "../../../common/index.js";
import { formatDurationMs, OtelErrors, parseDuration } from "../../../otel/index.js";

describe("parseDuration", () => {
  it.each([
    { text: "15m", ms: 900_000 },
    { text: "90s", ms: 90_000 },
    { text: "1h30m", ms: 5_400_000 },
    { text: "2d", ms: 172_800_000 },
    { text: "1w", ms: 604_800_000 },
    { text: "250ms", ms: 250 },
    { text: "1.5h", ms: 5_400_000 },
    { text: " 30 ", ms: 30_000 },
  ])("$text → $ms ms", ({ text, ms }) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "abc", "15x", "-5m", "0m", "1h 30m", "m15"])(
    "rejects %j with AO_ERR_OTEL_DURATION_INVALID",
    (text) => {
      let caught: unknown;
      try {
        parseDuration(text);
      } catch (error) {
        caught = error;
      }
      expect(isAoError(caught, OtelErrors.AO_ERR_OTEL_DURATION_INVALID)).toBe(true);
      expect((caught as Error).message).toContain("15m");
    },
  );

  it("formats durations back", () => {
    expect(formatDurationMs(5_400_000)).toBe("1h30m");
    expect(formatDurationMs(250)).toBe("250ms");
    expect(formatDurationMs(90_061_000)).toBe("1d1h1m1s");
  });
});
