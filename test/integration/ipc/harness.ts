/**
 * Test harness for the IPC server and client: a server on a fresh temp socket with test methods
 * (echo, slow, throwing), and a raw socket client that sends exact bytes and reads exact lines,
 * for the framing and error-code tests that a well-behaved client could never produce.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { type IpcExtraMethod, IpcServer, type IpcServerOptions } from "../../../broker/ipc/index.js";
import { AoError } from "../../../common/index.js";

export interface TestServer {
  readonly server: IpcServer;
  readonly path: string;
  readonly dir: string;
  /** How many `slow` calls are running right now, and the most seen at once. */
  readonly slow: { running: number; maxRunning: number; finished: number; aborted: number };
  close(): Promise<void>;
}

/** A short temp dir: Unix socket paths are limited to 107 bytes. */
export function tempDir(): string {
  return mkdtempSync(join("/tmp", "aob-ipc-"));
}

export function testMethods(slow: TestServer["slow"]): Record<string, IpcExtraMethod> {
  return {
    echo: { handler: (params) => params },
    "echo.strict": {
      params: z.strictObject({ text: z.string(), nested: z.object({ n: z.int().min(1) }).optional() }),
      handler: (params) => params,
    },
    slow: {
      params: z.object({ ms: z.int().min(0), value: z.unknown().optional() }),
      handler: async (params, context) => {
        const { ms, value } = params as { ms: number; value?: unknown };
        slow.running += 1;
        slow.maxRunning = Math.max(slow.maxRunning, slow.running);
        try {
          await sleep(ms, undefined, { signal: context.signal });
          slow.finished += 1;
          return { slept: ms, value };
        } catch (error) {
          slow.aborted += 1;
          throw error;
        } finally {
          slow.running -= 1;
        }
      },
    },
    "throw.ao": {
      handler: () => {
        throw new AoError("AO_ERR_TEST_FAILURE", "the test asked for a failure", {
          httpStatus: 409,
          data: { detail: "abc", count: 2 },
        });
      },
    },
    "throw.ao-rpc": {
      handler: async () => {
        throw new AoError("AO_ERR_TEST_CUSTOM", "custom rpc code", { rpcCode: -32042 });
      },
    },
    "throw.type": {
      handler: () => {
        throw new TypeError("secret internals: /home/user/.config ghp_supersecret123");
      },
    },
    "throw.async-type": {
      handler: async () => {
        await sleep(1);
        throw new TypeError("async internals");
      },
    },
    "return.undefined": { handler: () => undefined },
    "return.bigint": { handler: () => ({ big: 10n }) },
    "notify.me": {
      handler: (params, context) => {
        const { count } = params as { count: number };
        for (let i = 0; i < count; i += 1) context.notify("test.tick", { i });
        return { sent: count };
      },
    },
    whoami: {
      handler: (_params, context) => ({ connectionId: context.connectionId, client: context.client }),
    },
  };
}

export async function startTestServer(overrides: Partial<IpcServerOptions> = {}): Promise<TestServer> {
  const dir = tempDir();
  const path = join(dir, "broker.sock");
  const slow = { running: 0, maxRunning: 0, finished: 0, aborted: 0 };
  const server = new IpcServer({
    socketPath: path,
    brokerInfo: { version: "0.0.0-test", pid: process.pid, gatewayUrl: "http://127.0.0.1:9", socket: path },
    extraMethods: testMethods(slow),
    closeGraceMs: 2000,
    ...overrides,
  });
  await server.start();
  return {
    server,
    path,
    dir,
    slow,
    async close() {
      await server.close({ graceMs: 0 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A raw JSON-lines peer: sends exact bytes, collects every line the server sends. */
export class RawPeer {
  readonly socket: Socket;
  readonly messages: unknown[] = [];
  readonly closed: Promise<void>;
  #buffer = "";
  #waiters: (() => void)[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      this.#buffer += text;
      let nl = this.#buffer.indexOf("\n");
      while (nl !== -1) {
        this.messages.push(JSON.parse(this.#buffer.slice(0, nl)));
        this.#buffer = this.#buffer.slice(nl + 1);
        nl = this.#buffer.indexOf("\n");
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
    void this.closed.then(() => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static open(path: string): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new RawPeer(socket));
      });
    });
  }

  /** Opens a connection and completes hello. */
  static async ready(path: string): Promise<RawPeer> {
    const peer = await RawPeer.open(path);
    peer.send({ jsonrpc: "2.0", id: "hello", method: "hello", params: HELLO });
    await peer.waitFor(1);
    peer.messages.length = 0;
    return peer;
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  send(message: unknown): void {
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves once `count` messages arrived in total; rejects on timeout or early close. */
  async waitFor(count: number, timeoutMs = 2000): Promise<unknown[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      if (this.socket.destroyed && this.messages.length < count) {
        throw new Error(`connection closed after ${this.messages.length} of ${count} messages`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out with ${this.messages.length} of ${count} messages`);
      await Promise.race([new Promise<void>((wake) => this.#waiters.push(wake)), sleep(left)]);
    }
    return this.messages;
  }

  /** Sends one call and returns its answer (the next message with that id). */
  async call(id: string | number, method: string, params?: unknown): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    const deadline = Date.now() + 2000;
    for (;;) {
      const found = this.messages.find((m) => (m as { id?: unknown }).id === id);
      if (found !== undefined) {
        this.messages.splice(this.messages.indexOf(found), 1);
        return found as Record<string, unknown>;
      }
      if (Date.now() > deadline) throw new Error(`no answer to ${method} (${String(id)})`);
      await this.waitFor(this.messages.length + 1, deadline - Date.now()).catch(() => undefined);
    }
  }

  end(): void {
    this.socket.destroy();
  }
}

export const HELLO = { protocol: 1, client: { name: "raw-test", version: "0" } };

/** Polls `check` until it holds; fails the test after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms: ${check.toString()}`);
    await sleep(5);
  }
}
