/**
 * The IPC server's connection bound and eviction order (issue 17, decision 0012) on real Unix
 * sockets: connections that never say hello cannot lock a client out, and at the bound the one
 * evicted is the least valuable (no hello, then the longest idle), never one with a call in flight
 * or an event subscription.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import { eventually, RawPeer, startTestServer, type TestServer } from "./harness.js";

let t: TestServer | undefined;
const peers: RawPeer[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) p.end();
  await t?.close();
  t = undefined;
});

/** Resolves when `peer` is closed; fails after `ms`. */
async function closedWithin(peer: RawPeer, ms: number): Promise<void> {
  await eventually(() => peer.isClosed, ms);
}

async function open(path: string, hello: boolean): Promise<RawPeer> {
  const p = hello ? await RawPeer.ready(path) : await RawPeer.open(path);
  peers.push(p);
  return p;
}

describe("IPC connection bounds", () => {
  describe("when the bound is full of connections that never said hello", () => {
    it("admits a new client, which says hello and is answered", async () => {
      t = await startTestServer({ maxConnections: 32, helloTimeoutMs: 60_000 });
      const silent: RawPeer[] = [];
      for (let i = 0; i < 64; i++) silent.push(await open(t.path, false));
      await eventually(() => t?.server.connectionCount === 32);

      for (let round = 0; round < 3; round++) {
        const client = await connectBroker({ socketPath: t.path, connectTimeoutMs: 2000 });
        try {
          expect(await client.callUnchecked("echo", { round })).toEqual({ round });
        } finally {
          await client.close();
        }
      }
      // Evicted ones were told why.
      const evicted = silent.filter((p) => p.messages.length > 0);
      expect(evicted.length).toBeGreaterThan(0);
      expect(evicted[0]?.messages[0]).toMatchObject({
        id: null,
        error: { code: -32003, data: { aoCode: "AO_ERR_IPC_TOO_MANY_CONNECTIONS", evicted: true } },
      });
    });
  });

  describe("when a connection arrives at the bound", () => {
    it("evicts one that never said hello before an idle one that did", async () => {
      t = await startTestServer({ maxConnections: 2, helloTimeoutMs: 60_000 });
      const idle = await open(t.path, true);
      const silent = await open(t.path, false);
      await eventually(() => t?.server.connectionCount === 2);
      const newcomer = await open(t.path, true);
      await closedWithin(silent, 2000);
      expect(idle.isClosed).toBe(false);
      expect(await newcomer.call(1, "echo", { n: 1 })).toMatchObject({ result: { n: 1 } });
      expect(await idle.call(2, "echo", { n: 2 })).toMatchObject({ result: { n: 2 } });
    });

    it("then evicts the longest idle, never one with a call in flight or a subscription", async () => {
      t = await startTestServer({ maxConnections: 3, helloTimeoutMs: 60_000 });
      const subscribed = await open(t.path, true);
      expect(await subscribed.call("s", "events.subscribe", {})).toMatchObject({ result: {} });
      const busy = await open(t.path, true);
      busy.send({ jsonrpc: "2.0", id: "slow", method: "slow", params: { ms: 800, value: "done" } });
      await eventually(() => t?.slow.running === 1);
      const idle = await open(t.path, true);

      const newcomer = await open(t.path, true);
      await closedWithin(idle, 2000);
      expect(idle.messages).toMatchObject([{ id: null, error: { code: -32003, data: { evicted: true } } }]);
      expect(subscribed.isClosed).toBe(false);
      expect(busy.isClosed).toBe(false);
      await busy.waitFor(1, 3000);
      expect(busy.messages).toMatchObject([{ id: "slow", result: { slept: 800, value: "done" } }]);
      expect(t.slow.aborted).toBe(0);
      expect(await newcomer.call(1, "echo", { n: 1 })).toMatchObject({ result: { n: 1 } });
    });
  });
});
