/**
 * Throws a few thousand random and malformed frames at one server, over several connections,
 * then checks it still answers a fresh hello and a call: nothing a client sends may crash it.
 * The generator is seeded so a failure reproduces.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HELLO, RawPeer, startTestServer, type TestServer } from "./harness.js";

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** mulberry32: small, fast, seedable. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = [
  "hello",
  "echo",
  "echo.strict",
  "slow",
  "throw.ao",
  "throw.type",
  "events.subscribe",
  "events.unsubscribe",
  "session.open",
  "graphql",
  "rest",
  "nope",
  "",
  "rpc.x",
  "__proto__",
  "constructor",
];
const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  "",
  "x",
  [],
  {},
  [1, [2]],
  { a: { b: null } },
  "\u0000",
  "\ud800",
  { protocol: 1, client: { name: "f", version: "1" } },
  { __proto__: { polluted: 1 } },
  { ms: 0 },
  { topics: ["*"] },
  { subscriptionId: "s1" },
  { id: "x", repo: "a/b" },
];

function frame(next: () => number): Buffer {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const kind = Math.floor(next() * 8);
  switch (kind) {
    case 0: // random bytes, possibly with newlines inside
      return Buffer.from(Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
    case 1: // random printable text
      return Buffer.from(
        Array.from({ length: Math.floor(next() * 100) }, () =>
          String.fromCharCode(32 + Math.floor(next() * 95)),
        ).join(""),
      );
    case 2: // a JSON value that is not a request
      return Buffer.from(JSON.stringify(pick(VALUES)) ?? "null");
    case 3: // truncated request
      return Buffer.from(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: pick(METHODS), params: pick(VALUES) }).slice(
          0,
          Math.floor(next() * 40),
        ),
      );
    case 4: // a batch of junk
      return Buffer.from(JSON.stringify([pick(VALUES), { jsonrpc: "2.0", id: 2, method: pick(METHODS) }]));
    default: {
      // a plausible request with random members
      const request: Record<string, unknown> = {
        jsonrpc: next() < 0.9 ? "2.0" : pick(VALUES),
        method: pick(METHODS),
      };
      if (next() < 0.8) request.id = next() < 0.8 ? Math.floor(next() * 1e6) : pick(VALUES);
      if (next() < 0.8) request.params = pick(VALUES);
      return Buffer.from(JSON.stringify(request));
    }
  }
}

describe("IPC server under fuzzing", () => {
  it("survives thousands of garbage frames and still answers a valid hello", async () => {
    t = await startTestServer({ maxLineBytes: 4096 });
    const next = rng(20_240_601);
    let sent = 0;
    let answered = 0;
    for (let connection = 0; connection < 8; connection += 1) {
      const peer = await RawPeer.open(t.path);
      if (next() < 0.5) peer.send({ jsonrpc: "2.0", id: "h", method: "hello", params: HELLO });
      const chunks: Buffer[] = [];
      for (let i = 0; i < 500; i += 1) {
        chunks.push(frame(next), Buffer.from(next() < 0.9 ? "\n" : "\r\n"));
        sent += 1;
      }
      const stream = Buffer.concat(chunks);
      // Deliver in random-sized pieces so lines split across chunks.
      for (let offset = 0; offset < stream.length; ) {
        const size = 1 + Math.floor(next() * 3000);
        peer.write(stream.subarray(offset, offset + size));
        offset += size;
      }
      // A last, well-formed call: its answer (a result or -32001) shows the whole stream was read.
      const end = await peer.call("end", "echo", {});
      expect(end.id).toBe("end");
      answered += peer.messages.length;
      peer.end();
      await peer.closed;
    }
    expect(sent).toBe(4000);
    // Most frames are answered (errors included): the server parsed them rather than giving up.
    expect(answered).toBeGreaterThan(2500);
    const fresh = await RawPeer.open(t.path);
    const hello = await fresh.call(1, "hello", HELLO);
    expect(hello).toMatchObject({ result: { protocol: 1 } });
    expect(await fresh.call(2, "echo", { alive: true })).toMatchObject({ result: { alive: true } });
    fresh.end();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
