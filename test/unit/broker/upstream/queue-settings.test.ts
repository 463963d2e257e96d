import { describe, expect, it } from "vitest";
import { configSchema } from "../../../../broker/index.js";
import { resolveUpstreamPolicy } from "../../../../broker/upstream/index.js";

describe("queue.concurrency", () => {
  const parse = (concurrency: number) => configSchema.safeParse({ queue: { concurrency } });

  it("refuses 1 in the config itself: the write lane takes one slot and the read lane needs another", () => {
    const one = parse(1);
    expect(one.success).toBe(false);
    expect(one.error?.issues.map((i) => i.path.join("."))).toEqual(["queue.concurrency"]);
    // The queue refuses it as well, so the schema now says at load what the broker said at start.
    expect(() => resolveUpstreamPolicy({ concurrency: 1 })).toThrow(/concurrency/);
  });

  it("accepts 2 to 99 and defaults to 50", () => {
    expect(parse(2).data?.queue.concurrency).toBe(2);
    expect(parse(99).data?.queue.concurrency).toBe(99);
    expect(parse(100).success).toBe(false);
    expect(configSchema.parse({}).queue.concurrency).toBe(50);
    expect(resolveUpstreamPolicy({ concurrency: 2 }).concurrency).toBe(2);
  });
});
