import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventually, HELLO, RawPeer, startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
const peers: RawPeer[] = [];
beforeEach(async () => {
  t = await startTestServer({ maxLineBytes: 1024 });
});
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.end();
  await t.close();
});

async function peer(): Promise<RawPeer> {
  const p = await RawPeer.ready(t.path);
  peers.push(p);
  return p;
}

const echo = (id: number, text = `m${id}`) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params: { text } })}`;

describe("IPC framing", () => {
  describe("when a line arrives in pieces", () => {
    it("answers once the line is complete, byte by byte", async () => {
      const p = await peer();
      const bytes = Buffer.from(`${echo(1, "héllo ✓")}\n`);
      for (const byte of bytes) {
        p.write(Buffer.from([byte]));
        await sleep(0);
      }
      expect(await p.waitFor(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: { text: "héllo ✓" } }]);
    });

    it("reassembles a multi-byte UTF-8 character split across chunks", async () => {
      const p = await peer();
      const bytes = Buffer.from(`${echo(2, "€")}\n`);
      const euro = bytes.indexOf(0xe2);
      p.write(bytes.subarray(0, euro + 1));
      await sleep(10);
      p.write(bytes.subarray(euro + 1));
      expect(await p.waitFor(1)).toEqual([{ jsonrpc: "2.0", id: 2, result: { text: "€" } }]);
    });
  });

  describe("when one chunk holds many lines", () => {
    it("answers every call", async () => {
      const p = await peer();
      const lines = Array.from({ length: 200 }, (_, i) => echo(i)).join("\n");
      p.write(`${lines}\n`);
      const messages = (await p.waitFor(200)) as { id: number; result: { text: string } }[];
      expect(messages.map((m) => m.id).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => i),
      );
      expect(messages.every((m) => m.result.text === `m${m.id}`)).toBe(true);
    });
  });

  describe("when lines end with CRLF or are empty", () => {
    it("strips the CR and skips empty lines without answering them", async () => {
      const p = await peer();
      p.write(`\r\n\n${echo(1)}\r\n\r\n\n${echo(2)}\r`);
      await sleep(10);
      p.write("\n");
      const messages = (await p.waitFor(2)) as { id: number }[];
      await sleep(30);
      expect(messages.map((m) => m.id)).toEqual([1, 2]);
    });
  });

  describe("when a line is longer than maxLineBytes", () => {
    it("answers -32600 with id null and closes the connection", async () => {
      const p = await peer();
      p.write(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"${"x".repeat(5000)}"}}\n`);
      await p.closed;
      const last = p.messages.at(-1) as { id: unknown; error: { code: number; data: { aoCode: string } } };
      expect(p.messages).toHaveLength(1);
      expect(last.id).toBeNull();
      expect(last.error.code).toBe(-32600);
      expect(last.error.data).toMatchObject({ aoCode: "AO_ERR_IPC_LINE_TOO_LONG", maxLineBytes: 1024 });
    });

    it("closes without waiting for the end of an endless line", async () => {
      const p = await peer();
      // No newline ever: the server must give up at the limit, not buffer until one arrives.
      for (let i = 0; i < 20; i += 1) p.write("y".repeat(512));
      await p.closed;
      expect(p.messages).toHaveLength(1);
      expect(p.messages[0]).toMatchObject({ id: null, error: { code: -32600 } });
      await eventually(() => t.server.connectionCount === 0);
    });

    it("accepts a line of exactly maxLineBytes", async () => {
      const p = await peer();
      const base = echo(7, "");
      const line = echo(7, "z".repeat(1024 - base.length));
      expect(Buffer.byteLength(line)).toBe(1024);
      p.write(`${line}\r\n`);
      expect(await p.waitFor(1)).toMatchObject([{ id: 7, result: { text: expect.any(String) } }]);
    });
  });

  describe("when a line is not valid UTF-8", () => {
    it("answers -32700 and keeps the connection", async () => {
      const p = await peer();
      p.write(
        Buffer.concat([
          Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"t":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}}\n'),
        ]),
      );
      p.write(`${echo(2)}\n`);
      const [first, second] = (await p.waitFor(2)) as Record<string, unknown>[];
      expect(first).toMatchObject({
        id: null,
        error: { code: -32700, data: { aoCode: "AO_ERR_IPC_PARSE_ERROR" } },
      });
      expect(String((first as { error: { message: string } }).error.message)).toMatch(/UTF-8/);
      expect(second).toMatchObject({ id: 2, result: { text: "m2" } });
    });
  });

  describe("when the client half-closes after sending", () => {
    it("closes the connection and aborts calls still running", async () => {
      const p = await RawPeer.ready(t.path);
      peers.push(p);
      p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "slow", params: { ms: 5000 } })}\n`);
      await eventually(() => t.slow.running === 1);
      p.socket.end();
      await p.closed;
      await eventually(() => t.slow.aborted === 1);
      expect(p.messages).toEqual([]);
    });
  });

  describe("when hello is pipelined with the first call", () => {
    it("answers both in one round trip", async () => {
      const p = await RawPeer.open(t.path);
      peers.push(p);
      p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "hello", params: HELLO })}\n${echo(1)}\n`);
      const messages = (await p.waitFor(2)) as Record<string, unknown>[];
      expect(messages[0]).toMatchObject({ id: 0, result: { protocol: 1 } });
      expect(messages[1]).toMatchObject({ id: 1, result: { text: "m1" } });
    });
  });
});
