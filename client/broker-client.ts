/**
 * The TypeScript client of the broker's IPC protocol, used by AO, the `ao-broker` CLI and the gh
 * shim. `connectBroker()` connects and says `hello`; `call()` is typed from client/protocol.ts;
 * the named methods are thin conveniences over it. Broker errors come back as the AoError the
 * broker threw (same `code`), so callers branch on `isAoError(e, "AO_ERR_...")`.
 *
 * With `reconnect: true` a lost connection is re-established in the background (backoff from
 * `reconnectDelayMs` doubling to `maxReconnectDelayMs`), `hello` is repeated, subscriptions are
 * renewed and `onReconnect` is called (events may have been missed meanwhile). Calls made while
 * reconnecting wait for it within their timeout; calls in flight when the connection dropped are
 * rejected with AO_ERR_IPC_DISCONNECTED, never retried (they may have run) — or, for a write (a
 * non-GET `rest` call, a GraphQL mutation), AO_ERR_WRITE_OUTCOME_UNKNOWN: the broker may still
 * run it from its queue.
 *
 * Startup cost matters (the shim runs once per gh command): this module loads node:net and
 * common/, never zod.
 */
import { AoError } from "../common/index.js";
import { isWriteCall } from "./core/write-call.js";
import { defaultSocketPath } from "./default-socket-path.js";
import { ClientErrors } from "./errors.js";
import {
  EVENT_NOTIFICATION,
  type EventNotificationParams,
  type MethodName,
  type MethodParams,
  type MethodResult,
  PROTOCOL_VERSION,
} from "./protocol.js";
import type { BrokerInfo, HelloResult } from "./protocol-results.js";
import { RpcConnection } from "./rpc-connection.js";
import { VERSION } from "./version.js";

export interface BrokerClientOptions {
  /** @defaultValue defaultSocketPath(): AO_BROKER_SOCKET, else ~/.ao-broker/broker.sock */
  readonly socketPath?: string;
  /** Sent in `hello`, shown in the broker's logs. @defaultValue "ao-broker-client" */
  readonly clientName?: string;
  /** @defaultValue VERSION */
  readonly clientVersion?: string;
  /** Default time a call may take before it fails with AO_ERR_IPC_TIMEOUT. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** Time to connect and complete `hello`. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** Re-establish a lost connection in the background. @defaultValue false */
  readonly reconnect?: boolean;
  /** First reconnect delay; doubles on each failure. @defaultValue 100 */
  readonly reconnectDelayMs?: number;
  /** @defaultValue 5000 */
  readonly maxReconnectDelayMs?: number;
  /** Called after a reconnect completed (hello done, subscriptions renewed). */
  readonly onReconnect?: () => void;
  /** Called when the connection is lost; with `reconnect`, a reconnect follows. */
  readonly onDisconnect?: (reason: AoError) => void;
  /** Server-pushed notifications other than `event`. */
  readonly onNotification?: (method: string, params: unknown) => void;
  /** Longest line accepted from the broker. @defaultValue 268435456 */
  readonly maxLineBytes?: number;
}

export interface CallOptions {
  /** @defaultValue the client's `timeoutMs` */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Params may be omitted for methods whose params are all optional. */
export type CallArgs<M extends MethodName> =
  Record<string, never> extends MethodParams<M>
    ? [params?: MethodParams<M>, options?: CallOptions]
    : [params: MethodParams<M>, options?: CallOptions];

export type EventHandler = (notification: EventNotificationParams) => void;
export type Unsubscribe = () => Promise<void>;

interface LocalSubscription {
  readonly topics: readonly string[] | undefined;
  readonly onEvent: EventHandler;
  serverId: string;
  active: boolean;
}

/** Time added to a request's own deadline before the client gives up on the answer. */
const DEADLINE_SLACK_MS = 5000;

export class BrokerClient {
  readonly socketPath: string;
  readonly #options: BrokerClientOptions;
  readonly #timeoutMs: number;
  readonly #subscriptions = new Set<LocalSubscription>();
  readonly #byServerId = new Map<string, LocalSubscription>();
  #connection: RpcConnection | undefined;
  #hello: HelloResult | undefined;
  #reconnecting: Promise<void> | undefined;
  #wakeReconnect: (() => void) | undefined;
  #closed = false;

  private constructor(options: BrokerClientOptions) {
    this.#options = options;
    this.socketPath = options.socketPath ?? defaultSocketPath();
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Connects and completes `hello`; rejects with AO_ERR_BROKER_NOT_RUNNING when nothing listens. */
  static async connect(options: BrokerClientOptions = {}): Promise<BrokerClient> {
    const client = new BrokerClient(options);
    await client.#connectOnce();
    return client;
  }

  /** What the broker said about itself in `hello`. */
  get broker(): BrokerInfo {
    return this.#helloResult().broker;
  }

  /** Methods the broker implements. */
  get methods(): readonly string[] {
    return this.#helloResult().methods;
  }

  get connected(): boolean {
    return this.#connection?.open === true;
  }

  /** A typed call of a protocol method. */
  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<MethodResult<M>> {
    const [params, options] = args;
    return this.#invoke(method, params ?? {}, options) as Promise<MethodResult<M>>;
  }

  /** A call of any method name, unchecked (extensions, test harnesses). */
  callUnchecked(method: string, params?: unknown, options?: CallOptions): Promise<unknown> {
    return this.#invoke(method, params ?? {}, options);
  }

  openSession(params: MethodParams<"session.open">, options?: CallOptions) {
    return this.call("session.open", params, options);
  }

  closeSession(id: string, options?: CallOptions) {
    return this.call("session.close", { id }, options);
  }

  listSessions(options?: CallOptions) {
    return this.call("session.list", {}, options);
  }

  issueToken(params: MethodParams<"token.issue">, options?: CallOptions) {
    return this.call("token.issue", params, options);
  }

  finishInvocation(params: MethodParams<"invocation.finish">, options?: CallOptions) {
    return this.call("invocation.finish", params, options);
  }

  budget(options?: CallOptions) {
    return this.call("budget.get", {}, options);
  }

  /** The call waits at least the request's `deadlineMs` (plus slack) before timing out. */
  graphql(params: MethodParams<"graphql">, options?: CallOptions) {
    return this.call("graphql", params, this.#withDeadline(params.deadlineMs, options));
  }

  rest(params: MethodParams<"rest">, options?: CallOptions) {
    return this.call("rest", params, this.#withDeadline(params.deadlineMs, options));
  }

  stats(options?: CallOptions) {
    return this.call("stats", {}, options);
  }

  watch(params: MethodParams<"lifecycle.watch">, options?: CallOptions) {
    return this.call("lifecycle.watch", params, options);
  }

  unwatch(sessionId: string, options?: CallOptions) {
    return this.call("lifecycle.unwatch", { sessionId }, options);
  }

  lifecycleStatus(options?: CallOptions) {
    return this.call("lifecycle.status", {}, options);
  }

  status(options?: CallOptions) {
    return this.call("broker.status", {}, options);
  }

  shutdown(options?: CallOptions) {
    return this.call("broker.shutdown", {}, options);
  }

  /**
   * Subscribes to topics (exact, `prefix.*` or `*`; none = all) and calls `onEvent` for each event,
   * in the broker's publish order. Resolves to a function that ends the subscription. With
   * `reconnect`, the subscription is renewed after a reconnect.
   */
  async subscribe(topics: readonly string[] | undefined, onEvent: EventHandler): Promise<Unsubscribe> {
    const subscription: LocalSubscription = { topics, onEvent, serverId: "", active: true };
    await this.#invoke("events.subscribe", subscribeParams(topics), undefined, (result) => {
      subscription.serverId = (result as { subscriptionId: string }).subscriptionId;
      this.#subscriptions.add(subscription);
      this.#byServerId.set(subscription.serverId, subscription);
    });
    return async () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.#subscriptions.delete(subscription);
      this.#byServerId.delete(subscription.serverId);
      if (this.connected) await this.call("events.unsubscribe", { subscriptionId: subscription.serverId });
    };
  }

  /** Closes the connection; calls in flight fail with AO_ERR_IPC_CLIENT_CLOSED. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeReconnect?.();
    await this.#connection?.close();
  }

  async #connectOnce(): Promise<void> {
    const connectTimeoutMs = this.#options.connectTimeoutMs ?? 5000;
    const connection = await RpcConnection.open({
      socketPath: this.socketPath,
      connectTimeoutMs,
      maxLineBytes: this.#options.maxLineBytes ?? 256 * 1024 * 1024,
      onNotification: (method, params) => this.#onNotification(method, params),
      onLost: (reason) => this.#onLost(connection, reason),
    });
    try {
      const hello = (await connection.call(
        "hello",
        {
          protocol: PROTOCOL_VERSION,
          client: {
            name: this.#options.clientName ?? "ao-broker-client",
            version: this.#options.clientVersion ?? VERSION,
            pid: process.pid,
          },
        },
        { timeoutMs: connectTimeoutMs },
      )) as HelloResult;
      // Server ids belong to a connection: forget the old ones before any new one is known.
      this.#byServerId.clear();
      for (const subscription of this.#subscriptions) {
        await connection.call("events.subscribe", subscribeParams(subscription.topics), {
          timeoutMs: connectTimeoutMs,
          onResult: (result) => {
            subscription.serverId = (result as { subscriptionId: string }).subscriptionId;
            this.#byServerId.set(subscription.serverId, subscription);
          },
        });
      }
      this.#hello = hello;
      this.#connection = connection;
    } catch (error) {
      await connection.close();
      if (error instanceof AoError && error.code === ClientErrors.AO_ERR_IPC_TIMEOUT) {
        throw new AoError(
          ClientErrors.AO_ERR_BROKER_CONNECT_TIMEOUT,
          `the process at ${this.socketPath} accepted the connection but did not answer hello within ${connectTimeoutMs} ms`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  async #invoke(
    method: string,
    params: unknown,
    options: CallOptions | undefined,
    onResult?: (result: unknown) => void,
  ): Promise<unknown> {
    if (this.#closed) {
      throw new AoError(ClientErrors.AO_ERR_IPC_CLIENT_CLOSED, `the client is closed; cannot call ${method}`);
    }
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
    const started = Date.now();
    if (!this.connected && this.#reconnecting !== undefined) {
      await waitFor(this.#reconnecting, timeoutMs, () => this.#unreachable(method, timeoutMs));
      if (this.#closed) {
        throw new AoError(
          ClientErrors.AO_ERR_IPC_CLIENT_CLOSED,
          `the client was closed; cannot call ${method}`,
        );
      }
    }
    const connection = this.#connection;
    if (connection === undefined || !connection.open) {
      throw new AoError(
        ClientErrors.AO_ERR_IPC_DISCONNECTED,
        `not connected to the broker at ${this.socketPath}; cannot call ${method}`,
      );
    }
    const call = connection.call(method, params, {
      timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
      signal: options?.signal,
      onResult,
    });
    if (!isWriteCall(method, params)) return call;
    return call.catch((error: unknown) => {
      if (!(error instanceof AoError && error.code === ClientErrors.AO_ERR_IPC_DISCONNECTED)) throw error;
      throw new AoError(
        ClientErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN,
        `write outcome unknown: ${error.message}; the broker may still send it from its queue, so check GitHub before repeating it`,
        { cause: error },
      );
    });
  }

  #onNotification(method: string, params: unknown): void {
    if (method !== EVENT_NOTIFICATION) {
      this.#options.onNotification?.(method, params);
      return;
    }
    const event = params as EventNotificationParams;
    const subscription = this.#byServerId.get(event?.subscriptionId);
    if (!subscription?.active) return;
    try {
      subscription.onEvent(event);
    } catch (error) {
      // Like a throwing EventEmitter listener, but without abandoning the rest of the chunk's lines.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  #onLost(connection: RpcConnection, reason: AoError): void {
    if (this.#closed || connection !== this.#connection) return;
    this.#options.onDisconnect?.(reason);
    if (this.#options.reconnect === true) this.#reconnecting = this.#reconnectLoop();
  }

  async #reconnectLoop(): Promise<void> {
    let delay = this.#options.reconnectDelayMs ?? 100;
    const maxDelay = this.#options.maxReconnectDelayMs ?? 5000;
    while (!this.#closed) {
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, delay);
        this.#wakeReconnect = () => {
          clearTimeout(timer);
          wake();
        };
      });
      if (this.#closed) break;
      try {
        await this.#connectOnce();
        this.#reconnecting = undefined;
        this.#options.onReconnect?.();
        return;
      } catch {
        delay = Math.min(delay * 2, maxDelay);
      }
    }
  }

  #withDeadline(deadlineMs: number | undefined, options: CallOptions | undefined): CallOptions {
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
    if (deadlineMs === undefined) return { ...options, timeoutMs };
    return { ...options, timeoutMs: Math.max(timeoutMs, deadlineMs + DEADLINE_SLACK_MS) };
  }

  #unreachable(method: string, timeoutMs: number): AoError {
    return new AoError(
      ClientErrors.AO_ERR_IPC_TIMEOUT,
      `${method}: the broker at ${this.socketPath} was not reachable within ${timeoutMs} ms (reconnecting)`,
    );
  }

  #helloResult(): HelloResult {
    if (this.#hello === undefined) throw new Error("BrokerClient is not connected yet");
    return this.#hello;
  }
}

function subscribeParams(topics: readonly string[] | undefined): { topics?: string[] } {
  return topics === undefined ? {} : { topics: [...topics] };
}

/** `connectBroker(options)`: the same as BrokerClient.connect. */
export function connectBroker(options: BrokerClientOptions = {}): Promise<BrokerClient> {
  return BrokerClient.connect(options);
}

function waitFor(promise: Promise<void>, timeoutMs: number, onTimeout: () => AoError): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), timeoutMs);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
