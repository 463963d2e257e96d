/**
 * The broker's IPC server: JSON-RPC 2.0, newline-delimited, on a Unix socket (decision 0001).
 * This file owns the lifecycle (listen, accept, close) and the connection count; framing and
 * per-connection bounds are in ipc-connection.ts, call semantics in ipc-dispatcher.ts, the socket
 * file's safety in socket-file.ts, events in event-hub.ts.
 *
 * Shutdown order (close): stop accepting; answer new calls with -32004; let calls in flight finish
 * for up to `closeGraceMs`; end every connection (their `signal`s abort, subscriptions end);
 * remove the socket file if it is still ours.
 *
 * Bound (decision 0012): at `maxConnections` a new connection is not refused while an existing one
 * is worth less: one that never said hello goes first, then the longest idle (#evictee). So a
 * flood of connections that never say hello cannot lock a real client out.
 */
import { createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type BrokerInfo, loadProtocolSchemas } from "../../client/index.js";
import { type Logger, silentLogger } from "../../common/index.js";
import { EventHub } from "./event-hub.js";
import { IpcConnection } from "./ipc-connection.js";
import { IpcDispatcher } from "./ipc-dispatcher.js";
import { IPC_DEFAULTS } from "./ipc-settings.js";
import { listenOnSocketFile, type SocketFile } from "./socket-file.js";
import type { IpcExtraMethod, IpcHandlers } from "./types.js";

export interface IpcServerOptions {
  /** Where to listen. The parent directory is created 0700 if missing. */
  readonly socketPath: string;
  /** Socket file mode. @defaultValue 0o600 */
  readonly mode?: number;
  /** Group name or gid for the socket (the hardened deployment uses mode 0o660 and a group). */
  readonly group?: string | number;
  /** Longest accepted line in bytes; longer ones get -32600 and the connection closes. @defaultValue 1048576 */
  readonly maxLineBytes?: number;
  /**
   * Connections served at once. One more evicts a connection that never said hello (oldest
   * first), else the longest-idle one with no call in flight and no subscription; only when none
   * is evictable does the new one get -32003 and close. @defaultValue 256
   */
  readonly maxConnections?: number;
  /** Calls running at once per connection before it stops being read. @defaultValue 64 */
  readonly maxInFlightPerConnection?: number;
  /** Unsent output above which notifications to a connection are dropped. @defaultValue 1048576 */
  readonly notifyHighWaterBytes?: number;
  /** Unsent output above which a connection that is due a reply is closed. @defaultValue 16777216 */
  readonly maxBufferedBytes?: number;
  /** Time a new connection has to send `hello`. @defaultValue 10000 */
  readonly helloTimeoutMs?: number;
  /** How long close() lets calls in flight finish. @defaultValue 5000 */
  readonly closeGraceMs?: number;
  /** How long a socket file left by another process is given to answer. @defaultValue 1000 */
  readonly socketProbeTimeoutMs?: number;
  /** The broker's methods. @defaultValue {} (every broker method answers -32601) */
  readonly handlers?: IpcHandlers;
  /** Methods outside the protocol, e.g. a test harness. @defaultValue {} */
  readonly extraMethods?: Readonly<Record<string, IpcExtraMethod>>;
  /** What `hello` reports; a function when it is known only after start (the gateway's port). */
  readonly brokerInfo: BrokerInfo | (() => BrokerInfo);
  /** @defaultValue silentLogger() */
  readonly logger?: Logger;
  /** Strings scrubbed from every error sent (the PAT). @defaultValue () => [] */
  readonly secrets?: () => readonly string[];
}

export class IpcServer {
  readonly #options: IpcServerOptions;
  readonly #logger: Logger;
  readonly #hub: EventHub;
  readonly #connections = new Map<string, IpcConnection>();
  #server: Server | undefined;
  #socketFile: SocketFile | undefined;
  #dispatcher: IpcDispatcher | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;
  #nextConnection = 1;
  #lastWarning = 0;

  constructor(options: IpcServerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger();
    this.#hub = new EventHub(this.#logger);
  }

  /** The socket path, absolute, once started. */
  get socketPath(): string {
    return this.#socketFile?.path ?? this.#options.socketPath;
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  get subscriptionCount(): number {
    return this.#hub.size;
  }

  async start(): Promise<void> {
    if (this.#server !== undefined) throw new Error("IpcServer.start() called twice");
    const { paramsSchemas } = await loadProtocolSchemas();
    const options = this.#options;
    const brokerInfo = options.brokerInfo;
    this.#dispatcher = new IpcDispatcher({
      schemas: paramsSchemas,
      handlers: options.handlers ?? {},
      extraMethods: options.extraMethods ?? {},
      hub: this.#hub,
      brokerInfo: typeof brokerInfo === "function" ? brokerInfo : () => brokerInfo,
      logger: this.#logger,
      secrets: options.secrets ?? (() => []),
      isClosing: () => this.#closing,
    });
    const server = createServer((socket) => this.#accept(socket));
    this.#server = server;
    this.#socketFile = await listenOnSocketFile({
      server,
      path: options.socketPath,
      mode: options.mode ?? 0o600,
      group: options.group,
      probeTimeoutMs: options.socketProbeTimeoutMs,
    });
    server.on("error", (error) => this.#logger.error({ err: error }, "IPC server error"));
    this.#logger.info({ socket: this.#socketFile.path }, "IPC server listening");
  }

  /**
   * Sends `event` to every subscription whose topics match `topic` (an `event` notification).
   * Returns how many subscriptions received it; never throws, never blocks on a slow reader.
   */
  publish(topic: string, event: unknown): number {
    return this.#hub.publish(topic, event);
  }

  /** Pushes a notification to one connection; false when it is gone or reading too slowly. */
  notify(connectionId: string, method: string, params: unknown): boolean {
    return this.#connections.get(connectionId)?.notify(method, params) ?? false;
  }

  /**
   * Stops the server (see the file comment for the order). Idempotent. A handler must not await
   * this (its own call would hold it for the whole grace period): schedule it instead.
   */
  close(options: { readonly graceMs?: number } = {}): Promise<void> {
    this.#closed ??= this.#close(options.graceMs ?? this.#options.closeGraceMs ?? IPC_DEFAULTS.closeGraceMs);
    return this.#closed;
  }

  async #close(graceMs: number): Promise<void> {
    this.#closing = true;
    const server = this.#server;
    if (server === undefined) return;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    const idle = Promise.all([...this.#connections.values()].map((c) => c.whenIdle()));
    const grace = new AbortController();
    await Promise.race([idle, sleep(graceMs, undefined, { signal: grace.signal }).catch(() => undefined)]);
    grace.abort();
    const connections = [...this.#connections.values()];
    for (const connection of connections) connection.end();
    await Promise.all([stopped, ...connections.map((c) => c.whenClosed())]);
    this.#socketFile?.unlinkIfOurs();
    this.#logger.info({ socket: this.socketPath }, "IPC server closed");
  }

  /**
   * Who makes room for a new connection: the oldest that never said hello (the Map keeps connect
   * order), else the longest idle with no call in flight and no subscription; undefined if none.
   */
  #evictee(): IpcConnection | undefined {
    let idlest: IpcConnection | undefined;
    for (const connection of this.#connections.values()) {
      if (connection.closed) continue;
      if (connection.client === undefined) return connection;
      if (connection.inFlight > 0 || this.#hub.subscriptionsOf(connection.id) > 0) continue;
      if (idlest === undefined || connection.lastActiveAt < idlest.lastActiveAt) idlest = connection;
    }
    return idlest;
  }

  /** At most one warning a minute: a flood must not become a log flood. */
  #warn(message: string, maxConnections: number): void {
    const now = Date.now();
    if (now - this.#lastWarning < 60_000) return;
    this.#lastWarning = now;
    this.#logger.warn({ maxConnections, connections: this.#connections.size }, message);
  }

  #accept(socket: Socket): void {
    const dispatcher = this.#dispatcher;
    if (dispatcher === undefined || this.#closing) {
      socket.destroy();
      return;
    }
    socket.on("error", () => undefined);
    const max = this.#options.maxConnections ?? IPC_DEFAULTS.maxConnections;
    if (this.#connections.size >= max) {
      const victim = this.#evictee();
      if (victim === undefined) {
        this.#warn("IPC connection refused: every connection is busy or subscribed", max);
        const error = dispatcher.tooManyConnections(max);
        // Closed once the answer is out: refused sockets must not pile up and spend descriptors.
        socket.end(`${JSON.stringify({ jsonrpc: "2.0", id: null, error })}\n`, () => socket.destroy());
        setTimeout(() => socket.destroy(), 1000).unref();
        return;
      }
      this.#warn("IPC at its connection limit: evicting a connection", max);
      this.#connections.delete(victim.id);
      victim.evict(dispatcher.evicted(max, victim.client === undefined ? "no-hello" : "idle"));
    }
    const maxLineBytes = this.#options.maxLineBytes ?? IPC_DEFAULTS.maxLineBytes;
    const connection = new IpcConnection({
      id: `c${this.#nextConnection++}`,
      socket,
      logger: this.#logger,
      limits: {
        maxLineBytes,
        maxInFlight: this.#options.maxInFlightPerConnection ?? IPC_DEFAULTS.maxInFlightPerConnection,
        notifyHighWaterBytes: this.#options.notifyHighWaterBytes ?? IPC_DEFAULTS.notifyHighWaterBytes,
        maxBufferedBytes: this.#options.maxBufferedBytes ?? IPC_DEFAULTS.maxBufferedBytes,
        helloTimeoutMs: this.#options.helloTimeoutMs ?? IPC_DEFAULTS.helloTimeoutMs,
      },
      onLine: (conn, line) => dispatcher.handleLine(conn, line),
      fatalError: (reason) => dispatcher.fatalError(reason, maxLineBytes),
    });
    this.#connections.set(connection.id, connection);
    connection.onClose(() => this.#connections.delete(connection.id));
  }
}
