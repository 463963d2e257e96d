/**
 * One socket to the broker: connect, send calls, match answers by id, time out, and fail every
 * call in flight when the socket goes away. No hello, no reconnect: broker-client.ts adds those.
 *
 * A call whose connection drops is rejected with AO_ERR_IPC_DISCONNECTED (it may or may not have
 * run: callers decide whether it is safe to repeat), unless the broker said why first: an error
 * with id null (too many connections, line too long, no hello in time) becomes the reason.
 */
import { connect, type Socket } from "node:net";
import { AoError } from "../common/index.js";
import { classifyServerMessage } from "./core/classify-message.js";
import { LineSplitter } from "./core/line-splitter.js";
import { ClientErrors } from "./errors.js";
import { rebuildError } from "./rebuild-error.js";

export interface RpcConnectionOptions {
  readonly socketPath: string;
  readonly connectTimeoutMs: number;
  readonly maxLineBytes: number;
  readonly onNotification: (method: string, params: unknown) => void;
  /** Called once when the socket closes for any reason but `close()`. */
  readonly onLost: (reason: AoError) => void;
}

export interface RpcCallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /**
   * Runs synchronously when the result arrives, before any later line is read: a subscription must
   * be registered before the event that may follow its answer in the same chunk.
   */
  readonly onResult?: ((result: unknown) => void) | undefined;
}

interface Pending {
  readonly method: string;
  readonly onResult: ((result: unknown) => void) | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly cleanup: () => void;
}

export class RpcConnection {
  readonly #socket: Socket;
  readonly #options: RpcConnectionOptions;
  readonly #pending = new Map<number, Pending>();
  readonly #decoder = new TextDecoder();
  #nextId = 1;
  #closedByUs = false;
  #lost = false;
  #fatal: AoError | undefined;

  private constructor(socket: Socket, options: RpcConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
    socket.on("data", (chunk: Buffer) => {
      const { lines, overflow } = splitter.push(chunk);
      for (const line of lines) this.#onLine(line);
      if (overflow) this.#breakProtocol(`the broker sent a line over ${options.maxLineBytes} bytes`);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => this.#onClose());
  }

  static open(options: RpcConnectionOptions): Promise<RpcConnection> {
    const path = options.socketPath;
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new AoError(
            ClientErrors.AO_ERR_BROKER_CONNECT_TIMEOUT,
            `the broker at ${path} did not accept the connection within ${options.connectTimeoutMs} ms`,
          ),
        );
      }, options.connectTimeoutMs);
      socket.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(connectError(path, error));
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        resolve(new RpcConnection(socket, options));
      });
    });
  }

  get open(): boolean {
    return !this.#lost && !this.#closedByUs;
  }

  call(method: string, params: unknown, options: RpcCallOptions): Promise<unknown> {
    if (!this.open) {
      return Promise.reject(
        this.#closedByUs
          ? new AoError(ClientErrors.AO_ERR_IPC_CLIENT_CLOSED, `the client is closed; cannot call ${method}`)
          : (this.#fatal ??
              new AoError(
                ClientErrors.AO_ERR_IPC_DISCONNECTED,
                `the connection to the broker at ${this.#options.socketPath} is closed; cannot call ${method}`,
              )),
      );
    }
    const id = this.#nextId++;
    let line: string;
    try {
      line = `${JSON.stringify({ jsonrpc: "2.0", id, method, params: params ?? {} })}\n`;
    } catch (cause) {
      return Promise.reject(cause);
    }
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const onAbort = () => {
        this.#settle(id)?.reject(signal?.reason ?? new Error("aborted"));
      };
      const timer = setTimeout(() => {
        this.#settle(id)?.reject(
          new AoError(
            ClientErrors.AO_ERR_IPC_TIMEOUT,
            `${method} got no answer from the broker within ${options.timeoutMs} ms`,
            { data: { method, timeoutMs: options.timeoutMs } },
          ),
        );
      }, options.timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      if (signal?.aborted) {
        cleanup();
        reject(signal.reason);
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, { method, onResult: options.onResult, resolve, reject, cleanup });
      this.#socket.write(line);
    });
  }

  /** Ends the socket; calls in flight are rejected with AO_ERR_IPC_CLIENT_CLOSED. */
  close(): Promise<void> {
    if (this.#closedByUs) return Promise.resolve();
    this.#closedByUs = true;
    for (const id of [...this.#pending.keys()]) {
      const pending = this.#settle(id);
      pending?.reject(
        new AoError(
          ClientErrors.AO_ERR_IPC_CLIENT_CLOSED,
          `the client was closed while ${pending.method} was in flight`,
        ),
      );
    }
    if (this.#socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once("close", () => resolve());
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 500).unref();
    });
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    pending.cleanup();
    return pending;
  }

  #onLine(line: Buffer): void {
    let value: unknown;
    try {
      value = JSON.parse(this.#decoder.decode(line));
    } catch {
      this.#breakProtocol("the broker sent a line that is not JSON");
      return;
    }
    const message = classifyServerMessage(value);
    switch (message.kind) {
      case "notification":
        this.#options.onNotification(message.method, message.params);
        return;
      case "invalid":
        this.#breakProtocol(`the broker sent an invalid message (${message.reason})`);
        return;
      case "result": {
        const pending = typeof message.id === "number" ? this.#settle(message.id) : undefined;
        if (pending === undefined) return;
        try {
          pending.onResult?.(message.result);
          pending.resolve(message.result);
        } catch (error) {
          pending.reject(error);
        }
        return;
      }
      case "error": {
        const error = rebuildError(message.error);
        if (message.id === null) this.#fatal = error;
        else if (typeof message.id === "number") this.#settle(message.id)?.reject(error);
      }
    }
  }

  #breakProtocol(reason: string): void {
    this.#fatal ??= new AoError(ClientErrors.AO_ERR_IPC_BAD_RESPONSE, reason);
    this.#socket.destroy();
  }

  #lostError(method: string): AoError {
    return (
      this.#fatal ??
      new AoError(
        ClientErrors.AO_ERR_IPC_DISCONNECTED,
        `the connection to the broker at ${this.#options.socketPath} closed while ${method} was in flight; it may or may not have run`,
      )
    );
  }

  #onClose(): void {
    if (this.#lost) return;
    this.#lost = true;
    for (const id of [...this.#pending.keys()]) {
      const pending = this.#settle(id);
      if (pending !== undefined) pending.reject(this.#lostError(pending.method));
    }
    if (!this.#closedByUs) {
      this.#options.onLost(
        this.#fatal ??
          new AoError(
            ClientErrors.AO_ERR_IPC_DISCONNECTED,
            `the broker at ${this.#options.socketPath} closed the connection`,
          ),
      );
    }
  }
}

function connectError(path: string, error: NodeJS.ErrnoException): AoError {
  if (error.code === "EACCES" || error.code === "EPERM") {
    return new AoError(
      ClientErrors.AO_ERR_BROKER_SOCKET_FORBIDDEN,
      `permission denied on ${path}: the broker's socket admits only its owner (mode 0600) or its group; run as that user or join the group`,
      { cause: error },
    );
  }
  return new AoError(
    ClientErrors.AO_ERR_BROKER_NOT_RUNNING,
    `no broker listening on ${path}: start one with \`ao-broker start\`${
      error.code === "ENOENT" || error.code === "ECONNREFUSED" ? "" : ` (${error.code ?? error.message})`
    }`,
    { cause: error, data: { socket: path } },
  );
}
