/**
 * One client connection: bytes in → lines (LineSplitter) → the dispatcher; replies and
 * notifications out. It owns every bound on what a connection may cost the broker:
 *
 * - input: one unfinished line of at most `maxLineBytes`; a longer line gets a -32600 error and the
 *   connection is closed without reading the rest (the socket is paused, never drained);
 * - concurrency: at most `maxInFlight` calls run at once; past that the socket is paused (the
 *   kernel's buffer and then the client's writes block) until calls finish;
 * - output: notifications are dropped while unsent output exceeds `notifyHighWaterBytes`, and a
 *   connection whose unsent output exceeds `maxBufferedBytes` when a reply is due is destroyed
 *   (it asked and does not read: a slow or stuck consumer);
 * - time: `hello` must arrive within `helloTimeoutMs`, or the connection is closed;
 * - count: the server evicts connections at its bound (ipc-server.ts); `lastActiveAt` is what
 *   "longest idle" means there, and `evict()` closes at once so the descriptor is free again.
 * No half-open connections: when the client ends its side the connection closes and calls still
 * running see their `signal` abort (a client that went away should not hold a budget or queue slot).
 */
import type { Socket } from "node:net";
import { type JsonRpcErrorObject, type JsonRpcId, LineSplitter } from "../../client/index.js";
import type { Logger } from "../../common/index.js";
import type { HelloClientInfo, IpcContext } from "./types.js";

export interface ConnectionLimits {
  readonly maxLineBytes: number;
  readonly maxInFlight: number;
  readonly notifyHighWaterBytes: number;
  readonly maxBufferedBytes: number;
  readonly helloTimeoutMs: number;
}

export interface IpcConnectionOptions {
  readonly id: string;
  readonly socket: Socket;
  readonly limits: ConnectionLimits;
  readonly logger: Logger;
  /** Called for every complete, non-empty line, in order. */
  readonly onLine: (connection: IpcConnection, line: Buffer) => void;
  /** Builds the error sent before closing for an oversize line or a missing hello. */
  readonly fatalError: (reason: "line-too-long" | "hello-timeout") => JsonRpcErrorObject;
}

/** How long a closing connection may take to flush before it is destroyed. */
const END_GRACE_MS = 1000;

export class IpcConnection {
  readonly id: string;
  readonly #socket: Socket;
  readonly #limits: ConnectionLimits;
  readonly #logger: Logger;
  readonly #splitter: LineSplitter;
  readonly #abort = new AbortController();
  readonly #cleanups: (() => void)[] = [];
  readonly #idleWaiters: (() => void)[] = [];
  readonly #context: IpcContext;
  readonly #onLine: IpcConnectionOptions["onLine"];
  /** Lines read but not yet dispatched because maxInFlight calls are running (at most one chunk's worth). */
  readonly #queue: Buffer[] = [];
  #client: HelloClientInfo | undefined;
  #helloTimer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #ending = false;
  #closed = false;
  #calls = 0;
  #lastActiveAt = Date.now();

  constructor(options: IpcConnectionOptions) {
    this.id = options.id;
    this.#socket = options.socket;
    this.#limits = options.limits;
    this.#logger = options.logger;
    this.#splitter = new LineSplitter({ maxLineBytes: options.limits.maxLineBytes });
    const connection = this;
    this.#context = {
      connectionId: this.id,
      get client() {
        return connection.#client;
      },
      signal: this.#abort.signal,
      onClose: (cleanup) => this.onClose(cleanup),
      notify: (method, params) => this.notify(method, params),
    };
    this.#helloTimer = setTimeout(() => {
      this.sendError(null, options.fatalError("hello-timeout"));
      this.end();
    }, options.limits.helloTimeoutMs);
    this.#helloTimer.unref();

    this.#onLine = options.onLine;
    this.#socket.on("data", (chunk: Buffer) => {
      this.#lastActiveAt = Date.now();
      const { lines, overflow } = this.#splitter.push(chunk);
      this.#queue.push(...lines);
      this.#drain();
      if (overflow && !this.#ending) {
        this.sendError(null, options.fatalError("line-too-long"));
        this.end();
      }
    });
    this.#socket.on("error", (error) =>
      this.#logger.debug({ err: error, connection: this.id }, "IPC socket error"),
    );
    this.#socket.on("close", () => this.#onClosed());
  }

  get context(): IpcContext {
    return this.#context;
  }

  get client(): HelloClientInfo | undefined {
    return this.#client;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** When the client last sent something or a call of its finished (ms since the epoch). */
  get lastActiveAt(): number {
    return this.#lastActiveAt;
  }

  /** A new reference for logs, unique within the server: `c3-17`. */
  nextRef(): string {
    this.#calls += 1;
    return `${this.id}-${this.#calls}`;
  }

  helloDone(client: HelloClientInfo): void {
    this.#client = client;
    if (this.#helloTimer !== undefined) clearTimeout(this.#helloTimer);
    this.#helloTimer = undefined;
  }

  onClose(cleanup: () => void): void {
    if (this.#closed) cleanup();
    else this.#cleanups.push(cleanup);
  }

  /** Counts `work` as in flight until it settles; resumes reading when under the limit again. */
  track(work: Promise<unknown>): void {
    this.#inFlight += 1;
    const settle = () => {
      this.#inFlight -= 1;
      this.#lastActiveAt = Date.now();
      this.#drain();
      if (this.#inFlight === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    };
    work.then(settle, settle);
  }

  /** Dispatches queued lines while under maxInFlight; reads from the socket only when all are out. */
  #drain(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#limits.maxInFlight && !this.#ending) {
      this.#onLine(this, this.#queue.shift()!);
    }
    if (this.#ending || this.#closed) return;
    if (this.#queue.length > 0) this.#socket.pause();
    else this.#socket.resume();
  }

  /** Resolves once the socket has closed and the cleanups ran. */
  whenClosed(): Promise<void> {
    return new Promise((resolve) => this.onClose(resolve));
  }

  /** Resolves when no call is in flight. */
  whenIdle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Throws when `result` cannot be serialized (the caller answers with an error instead). */
  sendResult(id: JsonRpcId, result: unknown): void {
    this.sendLine(`${JSON.stringify({ jsonrpc: "2.0", id, result: result ?? null })}\n`, false);
  }

  sendError(id: JsonRpcId, error: JsonRpcErrorObject): void {
    this.sendLine(`${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`, false);
  }

  notify(method: string, params: unknown): boolean {
    let line: string;
    try {
      line = `${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`;
    } catch (error) {
      this.#logger.error({ err: error, method }, "notification is not JSON-serializable; dropped");
      return false;
    }
    return this.sendLine(line, true);
  }

  sendLine(line: string, droppable: boolean): boolean {
    if (this.#closed || this.#socket.destroyed || !this.#socket.writable) return false;
    const buffered = this.#socket.writableLength;
    if (droppable && buffered > this.#limits.notifyHighWaterBytes) return false;
    if (!droppable && buffered > this.#limits.maxBufferedBytes) {
      this.#logger.warn(
        { connection: this.id, bufferedBytes: buffered },
        "IPC client does not read its replies; closing the connection",
      );
      this.destroy();
      return false;
    }
    this.#socket.write(line);
    return true;
  }

  /** Stops reading, flushes what is queued, then closes (destroyed after a short grace). */
  end(): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    this.#socket.pause();
    this.#socket.end();
    setTimeout(() => this.destroy(), END_GRACE_MS).unref();
  }

  /**
   * Closed to make room for a new connection: `error` is written, and the socket is destroyed as
   * soon as it is handed to the kernel (no grace: under a flood, lingering sockets would spend the
   * descriptors the bound is there to keep).
   */
  evict(error: JsonRpcErrorObject): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    this.#socket.pause();
    this.#socket.end(`${JSON.stringify({ jsonrpc: "2.0", id: null, error })}\n`, () =>
      this.#socket.destroy(),
    );
    setTimeout(() => this.destroy(), END_GRACE_MS).unref();
  }

  destroy(): void {
    this.#ending = true;
    this.#socket.destroy();
  }

  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#helloTimer !== undefined) clearTimeout(this.#helloTimer);
    this.#abort.abort();
    for (const cleanup of this.#cleanups.splice(0)) {
      try {
        cleanup();
      } catch (error) {
        this.#logger.error({ err: error, connection: this.id }, "IPC connection cleanup failed");
      }
    }
  }
}
