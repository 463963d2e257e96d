import { describe, expect, it } from "vitest";
import { scaleTimeConstants } from "../../../bench/core/scale-config.js";

describe("scaleTimeConstants", () => {
  const defaults = {
    upstream: { url: "https://api.github.com", timeoutMs: 30_000 },
    cache: { restFreshMs: 10_000, graphqlFreshMs: { checks: 10_000, issue: 30_000 }, retainSeconds: 3600 },
    batching: { enabled: true, latencyBudgetMs: { interactive: 5, repeat: 1500 } },
    queue: { concurrency: 50 },
  };

  it("divides every *Ms setting (and the entries of *Ms objects) by the scale, leaving the rest alone", () => {
    const { overrides, scaled } = scaleTimeConstants(defaults, 30);
    expect(overrides).toEqual({
      cache: { restFreshMs: 333, graphqlFreshMs: { checks: 333, issue: 1000 } },
      batching: { latencyBudgetMs: { interactive: 1, repeat: 50 } },
    });
    expect(scaled).toContain("cache.restFreshMs 10000→333");
  });

  it("never scales timeouts (they guard against a dead peer) and never rounds to 0", () => {
    const { overrides } = scaleTimeConstants(defaults, 1000);
    expect(JSON.stringify(overrides)).not.toContain("timeout");
    expect(
      (overrides.batching as { latencyBudgetMs: { interactive: number } }).latencyBudgetMs.interactive,
    ).toBe(1);
  });

  it("multiplies rates per minute or hour (a compressed minute holds more requests)", () => {
    expect(
      scaleTimeConstants(
        {
          lifecycle: {
            settings: { maxRestPerMinute: 600, cycleIntervalMs: 10_000, enrichmentBatchSize: 25 },
          },
        },
        20,
      ).overrides,
    ).toEqual({
      lifecycle: { settings: { maxRestPerMinute: 12_000, cycleIntervalMs: 500 } },
    });
  });

  it("leaves the secondary limits' minute alone: its per-minute rates are what is scaled", () => {
    expect(
      scaleTimeConstants(
        {
          queue: {
            pacing: { secondaryMinuteMs: 60_000, contentCreationPerMinute: 72, mutationSpacingMs: 1000 },
          },
        },
        7,
      ).overrides,
    ).toEqual({ queue: { pacing: { contentCreationPerMinute: 504, mutationSpacingMs: 143 } } });
  });

  it("leaves liveness and housekeeping constants alone (leases, claim TTLs, grace, retries, gauges)", () => {
    expect(
      scaleTimeConstants(
        {
          lifecycle: { leaseMs: 15_000, requestDeadlineMs: 60_000 },
          coalesce: { lockTtlMs: 6000, releaseRetryMs: 500 },
          ipc: { closeGraceMs: 5000 },
          observability: { gaugeIntervalMs: 5000 },
        },
        30,
      ).overrides,
    ).toEqual({ lifecycle: { requestDeadlineMs: 2000 } });
  });

  it("stretches them when time is dilated", () => {
    expect(scaleTimeConstants({ cache: { restFreshMs: 10_000 } }, 0.5).overrides).toEqual({
      cache: { restFreshMs: 20_000 },
    });
  });
});
