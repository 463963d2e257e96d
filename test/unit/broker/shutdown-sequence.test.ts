import { describe, expect, it } from "vitest";
import { ShutdownSequence } from "../../../broker/shutdown-sequence.js";
import { createLogger } from "../../../common/index.js";

function recordingLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "warn",
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines };
}

describe("ShutdownSequence", () => {
  it("runs the steps last-added first, each once, even when one throws", async () => {
    const { logger, lines } = recordingLogger();
    const sequence = new ShutdownSequence({ stepTimeoutMs: 1_000, logger });
    const order: string[] = [];
    sequence.add("redis", () => void order.push("redis"));
    sequence.add("queue", async () => {
      order.push("queue");
      throw new Error("queue already closed");
    });
    sequence.add("gateway", async () => void order.push("gateway"));
    expect(await sequence.run()).toEqual([]);
    expect(order).toEqual(["gateway", "queue", "redis"]);
    expect(lines.join("")).toContain("queue already closed");
    expect(await sequence.run()).toEqual([]);
    expect(order).toHaveLength(3);
  });

  it("leaves a step behind at its deadline and goes on with the rest", async () => {
    const { logger, lines } = recordingLogger();
    const sequence = new ShutdownSequence({ stepTimeoutMs: 50, logger });
    const order: string[] = [];
    const redisHealthy = false;
    sequence.add("embedded redis", () => void order.push("embedded redis"));
    sequence.add(
      "budget gate",
      () => new Promise(() => undefined),
      () => (redisHealthy ? 10_000 : 20),
    );
    sequence.add("gateway", () => new Promise(() => undefined));
    const started = Date.now();
    expect(await sequence.run()).toEqual(["gateway", "budget gate"]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(order).toEqual(["embedded redis"]);
    const warnings = lines.map((l) => JSON.parse(l) as { step: string; timeoutMs: number });
    expect(warnings.map((w) => [w.step, w.timeoutMs])).toEqual([
      ["gateway", 50],
      ["budget gate", 20],
    ]);
  });
});
