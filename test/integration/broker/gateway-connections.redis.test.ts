/**
 * The gateway's connection bounds and the token-before-body rule (issue 17, decision 0012), on
 * real sockets against the real gateway, sessions and Redis: which connection goes first at the
 * bound, what never goes, slowloris clients timed out, and an unknown caller's body never read.
 */
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GatewayConnectionLimits } from "../../../broker/gateway/gateway-server.js";
import { CountingUpstream, RecordingBudget } from "../../support/fake-ports.js";
import { type GatewayStack, startGatewayStack } from "../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const PR1 = "/repos/acme/widgets/pulls/1";
const PR2 = "/repos/acme/widgets/pulls/2";
const PR3 = "/repos/acme/widgets/pulls/3";
const MIB = 1024 * 1024;

/** A client socket that records what it receives and when it was closed. */
class Peer {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  received = "";
  written = 0;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => {
      this.received += text;
    });
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static open(port: number): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new Peer(socket));
      });
    });
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  get(path: string, token: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${token}\r\n\r\n`);
  }

  /** Resolves once `count` complete responses (status line to end of body) have arrived. */
  async responses(count: number, timeoutMs = 5000): Promise<number[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const statuses = this.#complete();
      if (statuses.length >= count) return statuses.slice(0, count);
      if (Date.now() > deadline)
        throw new Error(`no ${count} responses; got: ${this.received.slice(0, 400)}`);
      if (this.isClosed) throw new Error(`closed; got: ${this.received.slice(0, 400)}`);
      await sleep(5);
    }
  }

  /** Statuses of the responses received in full so far (head, then content-length bytes). */
  #complete(): number[] {
    const statuses: number[] = [];
    let at = 0;
    for (;;) {
      const headEnd = this.received.indexOf("\r\n\r\n", at);
      if (headEnd === -1) return statuses;
      const head = this.received.slice(at, headEnd);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headEnd + 4 + length;
      if (this.received.length < end) return statuses;
      statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
      at = end;
    }
  }

  end(): void {
    this.socket.destroy();
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(5);
  }
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe("gateway connection bounds", () => {
  let upstream: CountingUpstream;
  let stack: GatewayStack | undefined;
  let token: string;
  const peers: Peer[] = [];

  async function start(connections: GatewayConnectionLimits, maxBodyBytes = MIB): Promise<GatewayStack> {
    upstream = new CountingUpstream();
    for (const path of [PR1, PR2, PR3]) upstream.set(path, { body: { path } });
    upstream.set("POST /repos/acme/widgets/issues", { status: 201, body: { number: 7 } });
    const started = await startGatewayStack({
      redisUrl: redis.url,
      prefix: redis.prefix(),
      upstream,
      budget: new RecordingBudget(),
      maxBodyBytes,
      connections,
    });
    stack = started;
    token = (await started.store.open({ id: "s1", repo: "acme/widgets" })).token;
    return started;
  }

  async function peer(port: number): Promise<Peer> {
    const p = await Peer.open(port);
    peers.push(p);
    return p;
  }

  afterEach(async () => {
    for (const p of peers.splice(0)) p.end();
    await stack?.close();
    stack = undefined;
  });

  describe("when a connection arrives at the bound", () => {
    it("evicts a never-authenticated one first, then the oldest authenticated keep-alive one, never an authenticated request in progress", async () => {
      const s = await start({ maxConnections: 3, headerTimeoutMs: 60_000, idleTimeoutMs: 60_000 });
      const keepAlive = await peer(s.port);
      keepAlive.get(PR1, token);
      expect(await keepAlive.responses(1)).toEqual([200]);

      upstream.delayMs = 1500;
      const inFlight = await peer(s.port);
      inFlight.get(PR2, token);
      await eventually(() => upstream.count(PR2) === 1, "the slow request reached the upstream");
      upstream.delayMs = 0;

      const idle = await peer(s.port); // connects and never sends a byte
      await eventually(() => s.gateway.connectionCounts.open === 3, "three connections open");

      const newcomer = await peer(s.port);
      await within(idle.closed, 2000, "the unauthenticated idle connection evicted");
      expect(keepAlive.isClosed).toBe(false);
      expect(inFlight.isClosed).toBe(false);

      // The newcomer authenticates and goes idle: now two authenticated keep-alive connections.
      newcomer.get(PR3, token);
      expect(await newcomer.responses(1)).toEqual([200]);
      const another = await peer(s.port);
      await within(keepAlive.closed, 2000, "the oldest authenticated keep-alive connection evicted");
      expect(newcomer.isClosed).toBe(false);
      expect(inFlight.isClosed).toBe(false);

      // The one that has not shown a token goes before the authenticated newcomer, though younger.
      await peer(s.port);
      await within(
        another.closed,
        2000,
        "the unauthenticated connection evicted before an authenticated one",
      );
      expect(newcomer.isClosed).toBe(false);

      expect(await inFlight.responses(1)).toEqual([200]);
      expect(s.gateway.connectionCounts.evicted).toBe(3);
    });

    it("answers 503 and closes the newcomer when every connection is an authenticated request in progress", async () => {
      const s = await start({ maxConnections: 1, headerTimeoutMs: 60_000, idleTimeoutMs: 60_000 });
      upstream.delayMs = 1000;
      const busy = await peer(s.port);
      busy.get(PR1, token);
      await eventually(() => upstream.count(PR1) === 1, "the slow request reached the upstream");

      const refused = await peer(s.port);
      await within(refused.closed, 2000, "the refused connection closed");
      expect(refused.received).toMatch(/^HTTP\/1\.1 503 /);
      expect(refused.received).toContain("Retry-After: 1");
      expect(await busy.responses(1)).toEqual([200]);
      expect(s.gateway.connectionCounts.refused).toBe(1);
    });
  });

  describe("when a client trickles its headers (slowloris)", () => {
    it("closes it headerTimeoutMs after it connected, though bytes keep arriving", async () => {
      const s = await start({ maxConnections: 64, headerTimeoutMs: 300, idleTimeoutMs: 60_000 });
      const slow = await peer(s.port);
      const started = Date.now();
      const text = `GET ${PR1} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${"a".repeat(200)}`;
      const trickle = (async () => {
        for (const byte of text) {
          if (slow.isClosed) return;
          slow.socket.write(byte);
          await sleep(20);
        }
      })();
      await within(slow.closed, 2500, "the slowloris connection closed");
      await trickle;
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(s.gateway.connectionCounts.timedOut).toBe(1);
    });
  });

  describe("when an unknown caller sends a large body", () => {
    it("answers GitHub's 401 at the headers and closes the socket without waiting for the body", async () => {
      const s = await start({}, 25 * MIB);
      const caller = await peer(s.port);
      caller.socket.write(
        `POST /repos/acme/widgets/issues HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token not-a-broker-token\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${25 * MIB}\r\n\r\n{"title":"`,
      );
      // Only the first bytes of the body are sent: a broker that reads the body first never answers.
      await within(caller.closed, 2000, "the refused socket closed");
      expect(caller.received).toMatch(/^HTTP\/1\.1 401 /);
      const body = JSON.parse(caller.received.slice(caller.received.indexOf("\r\n\r\n") + 4)) as {
        message: string;
      };
      expect(body.message).toBe("Bad credentials");
      expect(upstream.count()).toBe(0);
    });

    it("stops the sender long before 25 MiB are through", async () => {
      const s = await start({}, 25 * MIB);
      const caller = await peer(s.port);
      caller.socket.write(
        `POST /repos/acme/widgets/issues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${25 * MIB}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      while (caller.written < 25 * MIB && !caller.isClosed) {
        caller.written += chunk.length;
        if (!caller.socket.write(chunk))
          await Promise.race([new Promise((r) => caller.socket.once("drain", r)), caller.closed]);
      }
      await within(caller.closed, 2000, "the refused socket closed");
      expect(caller.received).toMatch(/^HTTP\/1\.1 401 /);
      expect(caller.received).toContain("Requires authentication");
      expect(caller.written).toBeLessThan(25 * MIB);
    });

    it("still reads an authenticated caller's body and refuses one over maxBodyBytes with 413", async () => {
      const s = await start({}, 64 * 1024);
      const caller = await peer(s.port);
      const body = Buffer.alloc(100 * 1024, 0x61);
      caller.socket.write(
        `POST /repos/acme/widgets/issues HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${token}\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      caller.socket.write(body);
      expect(await caller.responses(1)).toEqual([413]);
      expect(upstream.count()).toBe(0);
    });
  });
});
