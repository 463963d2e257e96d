/**
 * The gateway's connection bounds (decision 0012): at most `maxConnections` sockets at once, so
 * the broker stays inside the 1024 file descriptors a systemd service gets by default, and a flood
 * of idle or slow connections cannot crowd out the agents.
 *
 * - A new connection at the bound evicts one in EvictionOrder's order: never-authenticated ones
 *   first (oldest first), then ones busy with an unauthenticated request, then authenticated
 *   keep-alive ones waiting for their next request. An authenticated request in progress is never
 *   cut; when every connection is one, the new connection gets a 503 and is closed.
 * - Time: a connection that has not completed a request's headers `headerTimeoutMs` after it
 *   opened (or after its last answer, while no valid token has been seen on it) is closed; an
 *   authenticated keep-alive connection idle for `idleTimeoutMs` is closed. One sweep timer for all.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "../../common/index.js";
import { EvictionOrder, EvictionTier } from "./core/eviction-order.js";

export interface ConnectionBoundsOptions {
  readonly maxConnections: number;
  readonly headerTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly logger: Logger;
}

interface SocketState {
  authenticated: boolean;
  requests: number;
}

export interface ConnectionCounts {
  readonly open: number;
  readonly evicted: number;
  readonly refused: number;
  readonly timedOut: number;
}

const REFUSAL_BODY = JSON.stringify({
  message: "ao-broker is at its connection limit and every connection is busy: retry shortly",
  status: "503",
});
const REFUSAL = [
  "HTTP/1.1 503 Service Unavailable",
  "Content-Type: application/json; charset=utf-8",
  "Retry-After: 1",
  "Connection: close",
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}`,
  "",
  REFUSAL_BODY,
].join("\r\n");

export class ConnectionBounds {
  readonly #options: ConnectionBoundsOptions;
  readonly #order = new EvictionOrder<Socket>();
  readonly #states = new WeakMap<Socket, SocketState>();
  #sweep: NodeJS.Timeout | undefined;
  #evicted = 0;
  #refused = 0;
  #timedOut = 0;
  #lastWarning = 0;

  constructor(options: ConnectionBoundsOptions) {
    this.#options = options;
  }

  /** Starts bounding `server`'s connections (call before it listens). */
  attach(server: Server): void {
    server.on("connection", (socket: Socket) => this.#admit(socket));
    const every = Math.max(
      50,
      Math.min(1000, this.#options.headerTimeoutMs / 4, this.#options.idleTimeoutMs / 4),
    );
    this.#sweep = setInterval(() => this.#expire(), every);
    this.#sweep.unref();
  }

  stop(): void {
    if (this.#sweep !== undefined) clearInterval(this.#sweep);
    this.#sweep = undefined;
  }

  get counts(): ConnectionCounts {
    return {
      open: this.#order.size,
      evicted: this.#evicted,
      refused: this.#refused,
      timedOut: this.#timedOut,
    };
  }

  /** A request's headers arrived on `socket`. */
  requestStarted(socket: Socket): void {
    const state = this.#states.get(socket);
    if (state === undefined) return;
    state.requests += 1;
    this.#place(socket, state);
  }

  /** A valid broker token was presented on `socket`: from now on it is an agent's connection. */
  authenticated(socket: Socket): void {
    const state = this.#states.get(socket);
    if (state === undefined || state.authenticated) return;
    state.authenticated = true;
    this.#place(socket, state);
  }

  /** A request on `socket` was answered (or abandoned). */
  requestFinished(socket: Socket): void {
    const state = this.#states.get(socket);
    if (state === undefined || state.requests === 0) return;
    state.requests -= 1;
    this.#place(socket, state);
  }

  #place(socket: Socket, state: SocketState): void {
    if (socket.destroyed) return;
    const tier =
      state.requests > 0
        ? state.authenticated
          ? EvictionTier.protected
          : EvictionTier.unauthenticatedBusy
        : state.authenticated
          ? EvictionTier.authenticatedIdle
          : EvictionTier.unauthenticatedIdle;
    if (this.#order.tierOf(socket) !== tier) this.#order.set(socket, tier, Date.now());
  }

  #admit(socket: Socket): void {
    if (this.#order.size >= this.#options.maxConnections) {
      const victim = this.#order.victim();
      if (victim === undefined) {
        this.#refuse(socket);
        return;
      }
      this.#order.delete(victim);
      victim.destroy();
      this.#evicted += 1;
      this.#warn("gateway at its connection limit: evicting the least valuable connection");
    }
    this.#states.set(socket, { authenticated: false, requests: 0 });
    this.#order.set(socket, EvictionTier.unauthenticatedIdle, Date.now());
    socket.once("close", () => this.#order.delete(socket));
  }

  #refuse(socket: Socket): void {
    this.#refused += 1;
    this.#warn("gateway at its connection limit with every connection busy: refusing a connection");
    socket.on("error", () => undefined);
    // Closed as soon as the answer is handed to the kernel: a refused socket must not hold a
    // descriptor for long, or a flood of them would spend what the bound protects.
    socket.end(REFUSAL, () => socket.destroy());
  }

  #expire(): void {
    const now = Date.now();
    const stale = [
      ...this.#order.expired(EvictionTier.unauthenticatedIdle, now - this.#options.headerTimeoutMs),
      ...this.#order.expired(EvictionTier.authenticatedIdle, now - this.#options.idleTimeoutMs),
    ];
    for (const socket of stale) {
      this.#order.delete(socket);
      socket.destroy();
      this.#timedOut += 1;
    }
  }

  /** At most one warning a minute: a flood must not become a log flood. */
  #warn(message: string): void {
    const now = Date.now();
    if (now - this.#lastWarning < 60_000) return;
    this.#lastWarning = now;
    this.#options.logger.warn({ maxConnections: this.#options.maxConnections, ...this.counts }, message);
  }
}
