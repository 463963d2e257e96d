import { linkSync, renameSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { HandledMethod, IpcHandlers } from "../../../broker/ipc/index.js";
import {
  type BrokerClient,
  type BrokerClientOptions,
  connectBroker,
  type EventNotificationParams,
} from "../../../client/index.js";
import { AoError, isAoError } from "../../../common/index.js";
import { eventually, startTestServer, type TestServer, tempDir } from "./harness.js";

const servers: TestServer[] = [];
const clients: BrokerClient[] = [];
const rawServers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
  for (const raw of rawServers.splice(0)) raw.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function server(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(overrides);
  servers.push(s);
  return s;
}

async function client(socketPath: string, options: BrokerClientOptions = {}): Promise<BrokerClient> {
  const c = await connectBroker({
    socketPath,
    clientName: "client-test",
    clientVersion: "1.2.3",
    ...options,
  });
  clients.push(c);
  return c;
}

async function rawServer(onLine: (socket: Socket, line: string) => void): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const path = join(dir, "fake.sock");
  const raw = createServer((socket) => {
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      for (const line of text.split("\n").filter(Boolean)) onLine(socket, line);
    });
    socket.on("error", () => undefined);
  });
  rawServers.push(raw);
  await new Promise<void>((resolve) => raw.listen(path, resolve));
  return path;
}

describe("BrokerClient", () => {
  describe("when no broker is running", () => {
    it("fails with AO_ERR_BROKER_NOT_RUNNING and says how to start one", async () => {
      const dir = tempDir();
      dirs.push(dir);
      const path = join(dir, "absent.sock");
      const error = await connectBroker({ socketPath: path }).catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_BROKER_NOT_RUNNING")).toBe(true);
      expect((error as Error).message).toBe(
        `no broker listening on ${path}: start one with \`ao-broker start\``,
      );
    });

    it("treats a stale socket file the same way", async () => {
      const s = await server();
      const path = s.path;
      await s.server.close();
      // Recreate a socket file that refuses connections.
      const stale = createServer();
      await new Promise<void>((resolve) => stale.listen(path, resolve));
      linkSync(path, `${path}.k`);
      await new Promise<void>((resolve) => stale.close(() => resolve()));
      renameSync(`${path}.k`, path);
      const error = await connectBroker({ socketPath: path }).catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_BROKER_NOT_RUNNING")).toBe(true);
    });

    it("uses AO_BROKER_SOCKET when no socketPath is given", async () => {
      const s = await server();
      const saved = process.env.AO_BROKER_SOCKET;
      process.env.AO_BROKER_SOCKET = s.path;
      try {
        const c = await connectBroker();
        clients.push(c);
        expect(c.socketPath).toBe(s.path);
        expect(c.connected).toBe(true);
      } finally {
        if (saved === undefined) delete process.env.AO_BROKER_SOCKET;
        else process.env.AO_BROKER_SOCKET = saved;
      }
    });
  });

  describe("when it connects", () => {
    it("says hello with its name, version and pid and learns the broker's info", async () => {
      const s = await server();
      const c = await client(s.path);
      expect(c.connected).toBe(true);
      expect(c.broker).toEqual({
        version: "0.0.0-test",
        pid: process.pid,
        gatewayUrl: "http://127.0.0.1:9",
        socket: s.path,
      });
      expect(c.methods).toContain("echo");
      expect(await c.callUnchecked("whoami")).toMatchObject({
        client: { name: "client-test", version: "1.2.3", pid: process.pid },
      });
    });

    it("fails with AO_ERR_BROKER_CONNECT_TIMEOUT when the peer never answers hello", async () => {
      const path = await rawServer(() => undefined);
      const error = await connectBroker({ socketPath: path, connectTimeoutMs: 100 }).catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_BROKER_CONNECT_TIMEOUT")).toBe(true);
    });

    it("reports the broker's reason when it refuses the connection", async () => {
      const s = await server({ maxConnections: 1 });
      const subscribed = await client(s.path);
      await subscribed.subscribe(undefined, () => undefined); // so it is not evictable
      const error = await connectBroker({ socketPath: s.path }).catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_TOO_MANY_CONNECTIONS")).toBe(true);
      expect((error as AoError).rpcCode).toBe(-32003);
    });
  });

  describe("when the broker answers with an error", () => {
    it("rebuilds the AoError with its code, message, httpStatus and data", async () => {
      const s = await server();
      const c = await client(s.path);
      const error = await c.callUnchecked("throw.ao").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AoError);
      expect(isAoError(error, "AO_ERR_TEST_FAILURE")).toBe(true);
      const ao = error as AoError;
      expect(ao.message).toBe("the test asked for a failure");
      expect(ao.httpStatus).toBe(409);
      expect(ao.rpcCode).toBe(-32000);
      expect(ao.data).toEqual({ detail: "abc", count: 2 });
    });

    it.each([
      { name: "unknown method", method: "nope", params: {}, code: "AO_ERR_IPC_METHOD_NOT_FOUND" },
      {
        name: "invalid params",
        method: "echo.strict",
        params: { text: 1 },
        code: "AO_ERR_IPC_INVALID_PARAMS",
      },
      { name: "internal error", method: "throw.type", params: {}, code: "AO_ERR_IPC_INTERNAL" },
    ])("maps a $name to its aoCode", async ({ method, params, code }) => {
      const s = await server();
      const c = await client(s.path);
      const error = await c.callUnchecked(method, params).catch((e: unknown) => e);
      expect(isAoError(error, code)).toBe(true);
    });

    it("marks errors from a foreign server as AO_ERR_IPC_REMOTE", async () => {
      const path = await rawServer((socket, line) => {
        const { id, method } = JSON.parse(line) as { id: number; method: string };
        const reply =
          method === "hello"
            ? { jsonrpc: "2.0", id, result: { protocol: 1, broker: {}, methods: [] } }
            : { jsonrpc: "2.0", id, error: { code: -1, message: "foreign" } };
        socket.write(`${JSON.stringify(reply)}\n`);
      });
      const c = await client(path);
      const error = await c.stats().catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_REMOTE")).toBe(true);
      expect((error as AoError).data).toEqual({ rpcCode: -1 });
    });

    it("fails calls with AO_ERR_IPC_BAD_RESPONSE when the peer sends garbage", async () => {
      const path = await rawServer((socket, line) => {
        const { id, method } = JSON.parse(line) as { id: number; method: string };
        socket.write(
          method === "hello"
            ? `${JSON.stringify({ jsonrpc: "2.0", id, result: { protocol: 1, broker: {}, methods: [] } })}\n`
            : "this is not json\n",
        );
      });
      const c = await client(path);
      const error = await c.stats().catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_BAD_RESPONSE")).toBe(true);
      expect(c.connected).toBe(false);
    });
  });

  describe("when a call takes too long", () => {
    it("rejects with AO_ERR_IPC_TIMEOUT and stays usable", async () => {
      const s = await server();
      const c = await client(s.path, { timeoutMs: 50 });
      const error = await c.callUnchecked("slow", { ms: 500 }).catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_TIMEOUT")).toBe(true);
      expect(await c.callUnchecked("echo", { x: 1 })).toEqual({ x: 1 });
    });

    it("waits at least a graphql or rest request's own deadline", async () => {
      const s = await server({
        handlers: {
          graphql: async () => {
            await sleep(150);
            return { status: 200, headers: {}, body: { data: {} }, cache: "MISS", cost: 1 };
          },
        },
      });
      const c = await client(s.path, { timeoutMs: 50 });
      const result = await c.graphql({ sessionId: "s1", query: "{ viewer { login } }", deadlineMs: 100 });
      expect(result.status).toBe(200);
    });

    it("rejects with the signal's reason when aborted", async () => {
      const s = await server();
      const c = await client(s.path);
      const controller = new AbortController();
      const pending = c.callUnchecked("slow", { ms: 500 }, { signal: controller.signal });
      controller.abort(new Error("stop"));
      await expect(pending).rejects.toThrow("stop");
    });
  });

  describe("when the connection drops", () => {
    it("rejects calls in flight with AO_ERR_IPC_DISCONNECTED and tells onDisconnect", async () => {
      const s = await server();
      const lost: AoError[] = [];
      const c = await client(s.path, { onDisconnect: (reason) => lost.push(reason) });
      const pending = c.callUnchecked("slow", { ms: 5000 }).catch((e: unknown) => e);
      await eventually(() => s.slow.running === 1);
      await s.server.close({ graceMs: 0 });
      const error = await pending;
      expect(isAoError(error, "AO_ERR_IPC_DISCONNECTED")).toBe(true);
      expect((error as Error).message).toMatch(/closed while slow was in flight; it may or may not have run/);
      expect(lost.map((e) => e.code)).toEqual(["AO_ERR_IPC_DISCONNECTED"]);
      const later = await c.stats().catch((e: unknown) => e);
      expect(isAoError(later, "AO_ERR_IPC_DISCONNECTED")).toBe(true);
    });

    it("reconnects, renews subscriptions and serves calls made while it was away", async () => {
      const first = await server();
      let reconnects = 0;
      const c = await client(first.path, {
        reconnect: true,
        reconnectDelayMs: 10,
        maxReconnectDelayMs: 40,
        onReconnect: () => {
          reconnects += 1;
        },
      });
      const events: EventNotificationParams[] = [];
      await c.subscribe(["topic.*"], (event) => events.push(event));
      first.server.publish("topic.a", 1);
      await eventually(() => events.length === 1);

      await first.server.close({ graceMs: 0 });
      const waiting = c.callUnchecked("echo", { while: "away" });
      await sleep(60);
      const second = await server({ socketPath: first.path });
      expect(await waiting).toEqual({ while: "away" });
      expect(reconnects).toBe(1);
      expect(second.server.publish("topic.b", 2)).toBe(1);
      await eventually(() => events.length === 2);
      expect(events.map((e) => [e.topic, e.event])).toEqual([
        ["topic.a", 1],
        ["topic.b", 2],
      ]);
    });

    it("fails a call that waits for a reconnect longer than its timeout", async () => {
      const s = await server();
      const c = await client(s.path, { reconnect: true, reconnectDelayMs: 10, timeoutMs: 100 });
      await s.server.close({ graceMs: 0 });
      const error = await c.stats().catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_TIMEOUT")).toBe(true);
      expect((error as Error).message).toMatch(/not reachable within 100 ms \(reconnecting\)/);
    });
  });

  describe("when it is closed", () => {
    it("rejects calls in flight and later calls with AO_ERR_IPC_CLIENT_CLOSED", async () => {
      const s = await server();
      const c = await connectBroker({ socketPath: s.path });
      const pending = c.callUnchecked("slow", { ms: 5000 }).catch((e: unknown) => e);
      await eventually(() => s.slow.running === 1);
      await c.close();
      expect(isAoError(await pending, "AO_ERR_IPC_CLIENT_CLOSED")).toBe(true);
      expect(isAoError(await c.stats().catch((e: unknown) => e), "AO_ERR_IPC_CLIENT_CLOSED")).toBe(true);
      expect(c.connected).toBe(false);
      await c.close();
    });
  });

  describe("when it subscribes", () => {
    it("delivers events in order until unsubscribed", async () => {
      const s = await server();
      const c = await client(s.path);
      const events: unknown[] = [];
      const unsubscribe = await c.subscribe(undefined, (event) => events.push(event.event));
      for (let i = 0; i < 20; i += 1) s.server.publish(`t.${i % 3}`, i);
      await eventually(() => events.length === 20);
      expect(events).toEqual(Array.from({ length: 20 }, (_, i) => i));
      await unsubscribe();
      expect(s.server.subscriptionCount).toBe(0);
      expect(s.server.publish("t.0", 99)).toBe(0);
      await unsubscribe();
    });
  });

  describe("when an event follows the subscribe answer in the same chunk", () => {
    it("delivers it to the new subscription", async () => {
      const path = await rawServer((socket, line) => {
        const { id, method } = JSON.parse(line) as { id: number; method: string };
        if (method === "hello") {
          socket.write(
            `${JSON.stringify({ jsonrpc: "2.0", id, result: { protocol: 1, broker: {}, methods: [] } })}\n`,
          );
          return;
        }
        const answer = { jsonrpc: "2.0", id, result: { subscriptionId: "s9", topics: ["*"] } };
        const event = {
          jsonrpc: "2.0",
          method: "event",
          params: { subscriptionId: "s9", topic: "t", seq: 1, event: "first" },
        };
        socket.write(`${JSON.stringify(answer)}\n${JSON.stringify(event)}\n`);
      });
      const c = await client(path);
      const events: unknown[] = [];
      await c.subscribe(undefined, (event) => events.push(event.event));
      await eventually(() => events.length === 1);
      expect(events).toEqual(["first"]);
    });
  });

  describe("when it uses the named methods", () => {
    it("sends each to its protocol method with the params given", async () => {
      const seen: { method: string; params: unknown }[] = [];
      const record =
        <M extends HandledMethod>(method: M, result: unknown) =>
        (params: unknown) => {
          seen.push({ method, params });
          return result as never;
        };
      const handlers: IpcHandlers = {
        "session.open": record("session.open", {
          session: { id: "s1" },
          token: "t",
          env: { GH_HOST: "github.localhost" },
        }),
        "session.close": record("session.close", { closed: true, revokedTokens: 2 }),
        "session.list": record("session.list", { sessions: [] }),
        "token.issue": record("token.issue", {
          token: "inv",
          invocationId: "i1",
          expiresAt: "2030-01-01T00:00:00Z",
        }),
        "invocation.finish": record("invocation.finish", { ok: true }),
        "budget.get": record("budget.get", { resources: {}, sessions: [] }),
        graphql: record("graphql", { status: 200, headers: {}, body: {}, cache: "HIT", cost: 0 }),
        rest: record("rest", {
          status: 200,
          headers: {},
          body: "",
          bodyEncoding: "utf8",
          cache: "MISS",
          cost: 1,
        }),
        stats: record("stats", { requests: 1 }),
        "lifecycle.watch": record("lifecycle.watch", { watching: true }),
        "lifecycle.unwatch": record("lifecycle.unwatch", { unwatched: true }),
        "lifecycle.status": record("lifecycle.status", { sessions: [] }),
        "broker.status": record("broker.status", { version: "x" }),
        "broker.shutdown": record("broker.shutdown", { stopping: true }),
      };
      const s = await server({ handlers });
      const c = await client(s.path);
      expect(
        (await c.openSession({ id: "s1", repo: "acme/widgets", weight: 2, readOnly: true })).env,
      ).toEqual({
        GH_HOST: "github.localhost",
      });
      expect(await c.closeSession("s1")).toEqual({ closed: true, revokedTokens: 2 });
      await c.listSessions();
      await c.issueToken({ sessionId: "s1", argv: ["pr", "view", "1"], cwd: "/w" });
      await c.finishInvocation({ invocationId: "i1", exitCode: 0, durationMs: 12.5 });
      await c.budget();
      await c.graphql({ sessionId: "s1", query: "{x}", priority: "interactive", allowStale: true });
      await c.rest({ sessionId: "s1", method: "GET", path: "/repos/acme/widgets" });
      await c.stats();
      await c.watch({ sessionId: "s1", repo: "acme/widgets", branch: "feat", pr: 1 });
      await c.unwatch("s1");
      await c.lifecycleStatus();
      await c.status();
      await c.shutdown();
      expect(seen).toEqual([
        { method: "session.open", params: { id: "s1", repo: "acme/widgets", weight: 2, readOnly: true } },
        { method: "session.close", params: { id: "s1" } },
        { method: "session.list", params: {} },
        { method: "token.issue", params: { sessionId: "s1", argv: ["pr", "view", "1"], cwd: "/w" } },
        { method: "invocation.finish", params: { invocationId: "i1", exitCode: 0, durationMs: 12.5 } },
        { method: "budget.get", params: {} },
        {
          method: "graphql",
          params: { sessionId: "s1", query: "{x}", priority: "interactive", allowStale: true },
        },
        { method: "rest", params: { sessionId: "s1", method: "GET", path: "/repos/acme/widgets" } },
        { method: "stats", params: {} },
        {
          method: "lifecycle.watch",
          params: { sessionId: "s1", repo: "acme/widgets", branch: "feat", pr: 1 },
        },
        { method: "lifecycle.unwatch", params: { sessionId: "s1" } },
        { method: "lifecycle.status", params: {} },
        { method: "broker.status", params: {} },
        { method: "broker.shutdown", params: {} },
      ]);
    });
  });
});
