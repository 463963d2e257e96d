import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { AoError } from "../../../common/index.js";
import { HELLO, RawPeer, startTestServer, type TestServer } from "./harness.js";

let t: TestServer | undefined;
const peers: RawPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.end();
  await t?.close();
  t = undefined;
});

async function setup(overrides: Parameters<typeof startTestServer>[0] = {}) {
  t = await startTestServer(overrides);
  const p = await RawPeer.ready(t.path);
  peers.push(p);
  return { server: t, p };
}

describe("IPC server errors", () => {
  describe("when the envelope is wrong", () => {
    it.each([
      {
        name: "invalid JSON",
        line: '{"jsonrpc":"2.0","id":1,',
        code: -32700,
        id: null,
        aoCode: "AO_ERR_IPC_PARSE_ERROR",
      },
      {
        name: "a JSON string",
        line: '"hello"',
        code: -32600,
        id: null,
        aoCode: "AO_ERR_IPC_INVALID_REQUEST",
      },
      { name: "a number", line: "42", code: -32600, id: null, aoCode: "AO_ERR_IPC_INVALID_REQUEST" },
      { name: "null", line: "null", code: -32600, id: null, aoCode: "AO_ERR_IPC_INVALID_REQUEST" },
      {
        name: "wrong jsonrpc",
        line: '{"jsonrpc":"1.0","id":5,"method":"echo"}',
        code: -32600,
        id: 5,
        aoCode: "AO_ERR_IPC_INVALID_REQUEST",
      },
      {
        name: "missing jsonrpc",
        line: '{"id":"a","method":"echo"}',
        code: -32600,
        id: "a",
        aoCode: "AO_ERR_IPC_INVALID_REQUEST",
      },
      {
        name: "object id",
        line: '{"jsonrpc":"2.0","id":{},"method":"echo"}',
        code: -32600,
        id: null,
        aoCode: "AO_ERR_IPC_INVALID_REQUEST",
      },
      {
        name: "method not a string",
        line: '{"jsonrpc":"2.0","id":6,"method":7}',
        code: -32600,
        id: 6,
        aoCode: "AO_ERR_IPC_INVALID_REQUEST",
      },
      {
        name: "a batch",
        line: '[{"jsonrpc":"2.0","id":1,"method":"echo"}]',
        code: -32600,
        id: null,
        aoCode: "AO_ERR_IPC_BATCH_UNSUPPORTED",
      },
      { name: "an empty batch", line: "[]", code: -32600, id: null, aoCode: "AO_ERR_IPC_BATCH_UNSUPPORTED" },
    ])("answers $code for $name and keeps the connection", async ({ line, code, id, aoCode }) => {
      const { p } = await setup();
      p.write(`${line}\n`);
      const [reply] = (await p.waitFor(1)) as {
        id: unknown;
        error: { code: number; data: { aoCode: string } };
      }[];
      expect(reply?.id).toEqual(id);
      expect(reply?.error.code).toBe(code);
      expect(reply?.error.data.aoCode).toBe(aoCode);
      expect(await p.call(99, "echo", { still: "alive" })).toMatchObject({ result: { still: "alive" } });
    });
  });

  describe("when the method does not exist", () => {
    it("answers -32601 naming it", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "no.such.method");
      expect(reply.error).toMatchObject({ code: -32601, data: { aoCode: "AO_ERR_IPC_METHOD_NOT_FOUND" } });
      expect(String((reply.error as { message: string }).message)).toMatch(/no\.such\.method/);
    });

    it("says when a protocol method is not implemented by this broker", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "session.list", {});
      expect(reply.error).toMatchObject({
        code: -32601,
        message: 'method "session.list" is not implemented by this broker',
      });
    });
  });

  describe("when params are invalid", () => {
    it("answers -32602 with the zod issue paths in the message and data", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "echo.strict", { text: 3, nested: { n: 0 }, extra: true });
      const error = reply.error as {
        code: number;
        message: string;
        data: { aoCode: string; issues: { path: string }[] };
      };
      expect(error.code).toBe(-32602);
      expect(error.data.aoCode).toBe("AO_ERR_IPC_INVALID_PARAMS");
      expect(error.message).toMatch(/^invalid params for echo\.strict: /);
      expect(error.message).toMatch(/text: /);
      expect(error.message).toMatch(/nested\.n: /);
      expect(error.message).toMatch(/extra/);
      expect(error.data.issues.map((issue) => issue.path)).toEqual(
        expect.arrayContaining(["text", "nested.n"]),
      );
    });

    it("rejects by-position params", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "echo", [1, 2]);
      expect(reply.error).toMatchObject({ code: -32602, message: expect.stringMatching(/named params/) });
    });

    it("validates protocol methods against the protocol schemas", async () => {
      const { p } = await setup({
        handlers: {
          "session.open": async () => {
            throw new Error("must not run");
          },
        },
      });
      const reply = await p.call(1, "session.open", { id: "has space", repo: "nope", weight: -1 });
      const message = (reply.error as { message: string }).message;
      expect(reply.error).toMatchObject({ code: -32602 });
      expect(message).toMatch(/id: must be 1-128 characters/);
      expect(message).toMatch(/repo: must be owner\/name/);
      expect(message).toMatch(/weight: /);
    });
  });

  describe("when a handler throws", () => {
    it("maps an AoError to -32000 with aoCode, httpStatus and data", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "throw.ao");
      expect(reply.error).toEqual({
        code: -32000,
        message: "the test asked for a failure",
        data: { aoCode: "AO_ERR_TEST_FAILURE", httpStatus: 409, detail: "abc", count: 2 },
      });
    });

    it("keeps an AoError's own rpcCode", async () => {
      const { p } = await setup();
      const reply = await p.call(1, "throw.ao-rpc");
      expect(reply.error).toMatchObject({ code: -32042, data: { aoCode: "AO_ERR_TEST_CUSTOM" } });
    });

    it.each([
      { name: "synchronously", method: "throw.type" },
      { name: "asynchronously", method: "throw.async-type" },
      { name: "with an unserializable result", method: "return.bigint" },
    ])("answers -32603 without internals when it fails $name", async ({ method }) => {
      const { p } = await setup();
      const reply = await p.call(1, method);
      const error = reply.error as { code: number; message: string; data: { aoCode: string; ref: string } };
      expect(error.code).toBe(-32603);
      expect(error.data.aoCode).toBe("AO_ERR_IPC_INTERNAL");
      expect(error.message).toMatch(/^internal error \(ref c\d+-\d+;/);
      expect(JSON.stringify(reply)).not.toMatch(/secret|internals|home|TypeError|BigInt/);
    });

    it("scrubs registered secrets from AoError messages and data", async () => {
      const { p } = await setup({
        secrets: () => ["ghp_supersecret123"],
        extraMethods: {
          leak: {
            handler: () => {
              throw new AoError("AO_ERR_TEST_LEAK", "upstream said ghp_supersecret123", {
                data: { url: "https://x/?t=ghp_supersecret123" },
              });
            },
          },
        },
      });
      const reply = await p.call(1, "leak");
      expect(JSON.stringify(reply)).not.toContain("ghp_supersecret123");
      expect(reply.error).toMatchObject({
        message: "upstream said [REDACTED]",
        data: { url: "https://x/?t=[REDACTED]" },
      });
    });
  });

  describe("when results are unusual", () => {
    it("sends null for a handler that returns undefined", async () => {
      const { p } = await setup();
      expect(await p.call(1, "return.undefined")).toEqual({ jsonrpc: "2.0", id: 1, result: null });
    });

    it("echoes string, numeric and null ids", async () => {
      const { p } = await setup();
      expect(await p.call("abc", "echo", { a: 1 })).toMatchObject({ id: "abc", result: { a: 1 } });
      expect(await p.call(-3.5, "echo", { a: 2 })).toMatchObject({ id: -3.5, result: { a: 2 } });
      expect(await p.call(null as unknown as number, "echo", { a: 3 })).toMatchObject({
        id: null,
        result: { a: 3 },
      });
    });
  });

  describe("when the client sends notifications", () => {
    it("runs them and answers nothing, not even errors", async () => {
      const { server, p } = await setup();
      p.send({ jsonrpc: "2.0", method: "slow", params: { ms: 1 } });
      p.send({ jsonrpc: "2.0", method: "no.such.method" });
      p.send({ jsonrpc: "2.0", method: "throw.type" });
      p.send({ jsonrpc: "2.0", method: "echo.strict", params: { bad: 1 } });
      expect(await p.call(1, "echo", { after: true })).toMatchObject({ result: { after: true } });
      await sleep(20);
      expect(p.messages).toEqual([]);
      expect(server.slow.finished).toBe(1);
    });
  });

  describe("when hello is missing or wrong", () => {
    it("refuses any other method before hello with -32001", async () => {
      t = await startTestServer();
      const p = await RawPeer.open(t.path);
      peers.push(p);
      const reply = await p.call(1, "echo", {});
      expect(reply.error).toMatchObject({ code: -32001, data: { aoCode: "AO_ERR_IPC_HELLO_REQUIRED" } });
      expect(await p.call(2, "hello", HELLO)).toMatchObject({ result: { protocol: 1 } });
      expect(await p.call(3, "echo", { ok: 1 })).toMatchObject({ result: { ok: 1 } });
    });

    it("refuses an unsupported protocol version with -32002 naming the supported one", async () => {
      t = await startTestServer();
      const p = await RawPeer.open(t.path);
      peers.push(p);
      const reply = await p.call(1, "hello", { protocol: 2, client: { name: "future", version: "9" } });
      expect(reply.error).toMatchObject({
        code: -32002,
        data: { aoCode: "AO_ERR_IPC_PROTOCOL_UNSUPPORTED", requested: 2, supported: [1] },
      });
      expect((reply.error as { message: string }).message).toMatch(
        /version 2 is not supported.*speaks version 1/,
      );
      expect(await p.call(2, "echo", {})).toMatchObject({ error: { code: -32001 } });
    });

    it("answers hello with the broker info and the implemented methods", async () => {
      t = await startTestServer({ handlers: { stats: () => ({}) } });
      const p = await RawPeer.open(t.path);
      peers.push(p);
      const reply = await p.call(1, "hello", {
        ...HELLO,
        client: { ...HELLO.client, pid: 1234, extra: "ok" },
      });
      expect(reply.result).toMatchObject({
        protocol: 1,
        broker: { version: "0.0.0-test", pid: process.pid, socket: t.path },
        methods: expect.arrayContaining(["hello", "stats", "events.subscribe", "echo"]),
      });
      expect(await p.call(2, "whoami")).toMatchObject({
        result: { client: { name: "raw-test", version: "0", pid: 1234 } },
      });
    });

    it("closes a connection that sends no hello in time", async () => {
      t = await startTestServer({ helloTimeoutMs: 50 });
      const p = await RawPeer.open(t.path);
      peers.push(p);
      await p.closed;
      expect(p.messages).toMatchObject([{ id: null, error: { code: -32001 } }]);
    });
  });

  describe("when the server is full", () => {
    it("answers -32003 to the connection over maxConnections and closes it when none can be evicted", async () => {
      t = await startTestServer({ maxConnections: 2 });
      const a = await RawPeer.ready(t.path);
      const b = await RawPeer.ready(t.path);
      // Subscribed connections are never evicted (AO's event stream).
      expect(await a.call("s", "events.subscribe", {})).toMatchObject({ result: {} });
      expect(await b.call("s", "events.subscribe", {})).toMatchObject({ result: {} });
      const c = await RawPeer.open(t.path);
      peers.push(a, b, c);
      await c.closed;
      expect(c.messages).toMatchObject([
        { id: null, error: { code: -32003, data: { aoCode: "AO_ERR_IPC_TOO_MANY_CONNECTIONS" } } },
      ]);
      a.end();
      await a.closed;
      await sleep(20);
      const d = await RawPeer.ready(t.path);
      peers.push(d);
      expect(await d.call(1, "echo", { d: 1 })).toMatchObject({ result: { d: 1 } });
    });
  });

  describe("when the server is closing", () => {
    it("answers -32004 to new calls while in-flight calls finish", async () => {
      const { server, p } = await setup();
      p.send({ jsonrpc: "2.0", id: 1, method: "slow", params: { ms: 150, value: "done" } });
      await sleep(20);
      const closing = server.server.close({ graceMs: 2000 });
      const refused = await p.call(2, "echo", {});
      expect(refused.error).toMatchObject({ code: -32004, data: { aoCode: "AO_ERR_IPC_SHUTTING_DOWN" } });
      await closing;
      expect(p.messages).toContainEqual({ jsonrpc: "2.0", id: 1, result: { slept: 150, value: "done" } });
    });
  });
});
