import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, RawPeer, startTestServer, type TestServer } from "./harness.js";

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("IpcServer.close", () => {
  describe("when calls are in flight", () => {
    it("lets them finish and answer, then ends the connections", async () => {
      t = await startTestServer();
      const a = await RawPeer.ready(t.path);
      const b = await RawPeer.ready(t.path);
      a.send({ jsonrpc: "2.0", id: 1, method: "slow", params: { ms: 100, value: "a" } });
      b.send({ jsonrpc: "2.0", id: 2, method: "slow", params: { ms: 50, value: "b" } });
      await sleep(10);
      await t.server.close({ graceMs: 2000 });
      await Promise.all([a.closed, b.closed]);
      expect(a.messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { slept: 100, value: "a" } }]);
      expect(b.messages).toEqual([{ jsonrpc: "2.0", id: 2, result: { slept: 50, value: "b" } }]);
      expect(t.server.connectionCount).toBe(0);
    });

    it("gives up on calls that outlast the grace period and aborts their signal", async () => {
      t = await startTestServer();
      const a = await RawPeer.ready(t.path);
      a.send({ jsonrpc: "2.0", id: 1, method: "slow", params: { ms: 10_000 } });
      await sleep(10);
      const started = Date.now();
      await t.server.close({ graceMs: 100 });
      await a.closed;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(a.messages).toEqual([]);
      await eventually(() => t?.slow.aborted === 1);
    });
  });

  describe("when it is called twice or before start", () => {
    it("is idempotent", async () => {
      t = await startTestServer();
      const first = t.server.close();
      const second = t.server.close();
      expect(first).toBe(second);
      await first;
    });
  });

  describe("when clients connect after close began", () => {
    it("refuses them", async () => {
      t = await startTestServer();
      await t.server.close();
      const error = await RawPeer.open(t.path).catch((e: NodeJS.ErrnoException) => e);
      expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
    });
  });
});
