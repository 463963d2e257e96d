/**
 * What a line means: decode, parse, classify, enforce `hello` first, find the method, validate its
 * params, run it, answer. Every failure becomes an AoError and goes through error-reply.ts, so the
 * wire sees exactly one mapping; nothing a client sends can throw out of `handleLine`.
 *
 * `hello` runs synchronously, so a client may pipeline `hello` and its first call without waiting.
 * Calls on one connection run concurrently and may be answered out of order (JSON-RPC matches by
 * id). Notifications (no id) run like calls but are never answered, not even with an error.
 */
import type { z } from "zod";
import {
  type BrokerInfo,
  type HelloResult,
  type JsonRpcErrorObject,
  type JsonRpcId,
  METHOD_NAMES,
  type MethodName,
  type ParamsSchemas,
  PROTOCOL_VERSION,
  RpcErrorCodes,
} from "../../client/index.js";
import { AoError, type Logger } from "../../common/index.js";
import { classifyRequest } from "./core/classify-request.js";
import { toErrorObject } from "./error-reply.js";
import type { IpcErrors } from "./errors.js";
import type { EventHub } from "./event-hub.js";
import type { IpcConnection } from "./ipc-connection.js";
import type { IpcContext, IpcExtraMethod, IpcHandlers } from "./types.js";

export interface IpcDispatcherOptions {
  readonly schemas: ParamsSchemas;
  readonly handlers: IpcHandlers;
  readonly extraMethods: Readonly<Record<string, IpcExtraMethod>>;
  readonly hub: EventHub;
  readonly brokerInfo: () => BrokerInfo;
  readonly logger: Logger;
  readonly secrets: () => readonly string[];
  readonly isClosing: () => boolean;
}

interface Route {
  readonly schema: z.ZodType | undefined;
  /** Built-in methods also get the connection itself (handlers see only the context). */
  readonly run: (params: unknown, context: IpcContext, connection: IpcConnection) => unknown;
  /**
   * Answered synchronously, before any later line or event: an `events.subscribe` reply must
   * reach the client before the first event of that subscription.
   */
  readonly sync?: true;
}

const PROTOCOL_METHODS: ReadonlySet<string> = new Set(METHOD_NAMES);

export class IpcDispatcher {
  readonly #options: IpcDispatcherOptions;
  readonly #routes = new Map<string, Route>();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(options: IpcDispatcherOptions) {
    this.#options = options;
    const { hub, schemas } = options;
    for (const [name, handler] of Object.entries(options.handlers)) {
      if (typeof handler !== "function") continue;
      const schema = schemas[name as MethodName] as z.ZodType;
      this.#routes.set(name, { schema, run: handler as Route["run"] });
    }
    this.#routes.set("events.subscribe", {
      schema: schemas["events.subscribe"],
      sync: true,
      run: (params, _context, connection) =>
        hub.subscribe(connection, (params as { topics?: string[] | undefined }).topics),
    });
    this.#routes.set("events.unsubscribe", {
      schema: schemas["events.unsubscribe"],
      sync: true,
      run: (params, _context, connection) => ({
        unsubscribed: hub.unsubscribe(connection, (params as { subscriptionId: string }).subscriptionId),
      }),
    });
    for (const [name, method] of Object.entries(options.extraMethods)) {
      if (PROTOCOL_METHODS.has(name))
        throw new TypeError(`extra method "${name}" clashes with a protocol method`);
      this.#routes.set(name, { schema: method.params, run: method.handler });
    }
  }

  /** Methods this server answers, `hello` included, sorted. */
  get methods(): string[] {
    return ["hello", ...this.#routes.keys()].sort();
  }

  handleLine(connection: IpcConnection, line: Buffer): void {
    let value: unknown;
    try {
      value = JSON.parse(this.#decoder.decode(line));
    } catch (error) {
      const reason = error instanceof SyntaxError ? "not valid JSON" : "not valid UTF-8";
      this.#fail(connection, null, ipcError("AO_ERR_IPC_PARSE_ERROR", `parse error: the line is ${reason}`));
      return;
    }
    const message = classifyRequest(value);
    if (message.kind === "batch") {
      const text =
        "batch requests are not supported: send one request per line (calls on a connection run concurrently)";
      this.#fail(connection, null, ipcError("AO_ERR_IPC_BATCH_UNSUPPORTED", text));
    } else if (message.kind === "invalid") {
      const text = `invalid request: ${message.reason}`;
      this.#fail(connection, message.id, ipcError("AO_ERR_IPC_INVALID_REQUEST", text));
    } else if (message.kind === "call") {
      this.#run(connection, message.method, message.params, message.id, true);
    } else {
      this.#run(connection, message.method, message.params, null, false);
    }
  }

  /** The error object for a connection-ending condition (built here: one mapping place). */
  fatalError(reason: "line-too-long" | "hello-timeout", maxLineBytes: number): JsonRpcErrorObject {
    const error =
      reason === "line-too-long"
        ? ipcError("AO_ERR_IPC_LINE_TOO_LONG", `line exceeds ${maxLineBytes} bytes; closing the connection`, {
            maxLineBytes,
          })
        : ipcError("AO_ERR_IPC_HELLO_REQUIRED", "no hello received in time; closing the connection");
    return this.#errorObject(error, "fatal");
  }

  /** The error object sent to a connection refused for being over maxConnections. */
  tooManyConnections(maxConnections: number): JsonRpcErrorObject {
    return this.#errorObject(
      ipcError("AO_ERR_IPC_TOO_MANY_CONNECTIONS", `the broker already serves ${maxConnections} connections`, {
        maxConnections,
      }),
      "refused",
    );
  }

  /** The error object sent to a connection closed to make room for a new one. */
  evicted(maxConnections: number, reason: "no-hello" | "idle"): JsonRpcErrorObject {
    const why =
      reason === "no-hello"
        ? "this connection had not said hello"
        : "this connection was the longest idle, with no call in flight and no subscription";
    return this.#errorObject(
      ipcError(
        "AO_ERR_IPC_TOO_MANY_CONNECTIONS",
        `the broker is at its ${maxConnections} connections and ${why}; closing it to admit a new one`,
        { maxConnections, evicted: true },
      ),
      "evicted",
    );
  }

  #run(connection: IpcConnection, method: string, params: unknown, id: JsonRpcId, answer: boolean): void {
    let route: Route;
    let parsed: unknown;
    try {
      if (this.#options.isClosing())
        throw ipcError("AO_ERR_IPC_SHUTTING_DOWN", "the broker is shutting down");
      if (method === "hello") {
        const result = this.#hello(connection, params);
        if (answer) this.#reply(connection, id, result);
        return;
      }
      if (connection.client === undefined) {
        throw ipcError("AO_ERR_IPC_HELLO_REQUIRED", `call "hello" first (got "${truncate(method)}")`);
      }
      const found = this.#routes.get(method);
      if (found === undefined) {
        throw ipcError(
          "AO_ERR_IPC_METHOD_NOT_FOUND",
          PROTOCOL_METHODS.has(method)
            ? `method "${method}" is not implemented by this broker`
            : `method "${truncate(method)}" does not exist`,
        );
      }
      route = found;
      parsed = validateParams(route.schema, params, method);
      if (route.sync) {
        const result = route.run(parsed, connection.context, connection);
        if (answer) this.#reply(connection, id, result);
        return;
      }
    } catch (error) {
      if (answer) this.#fail(connection, id, error);
      return;
    }
    const work = new Promise<unknown>((resolve) =>
      resolve(route.run(parsed, connection.context, connection)),
    ).then(
      (result) => {
        if (answer) this.#reply(connection, id, result);
      },
      (error: unknown) => {
        if (answer) this.#fail(connection, id, error);
        else this.#errorObject(error, connection.nextRef()); // unanswered, but a bug is still logged
      },
    );
    connection.track(work);
  }

  #hello(connection: IpcConnection, params: unknown): HelloResult {
    const { protocol, client } = validateParams(this.#options.schemas.hello, params, "hello") as z.output<
      ParamsSchemas["hello"]
    >;
    if (protocol !== PROTOCOL_VERSION) {
      throw ipcError(
        "AO_ERR_IPC_PROTOCOL_UNSUPPORTED",
        `protocol version ${protocol} is not supported: this broker speaks version ${PROTOCOL_VERSION}; use a client and broker from the same release`,
        { requested: protocol, supported: [PROTOCOL_VERSION] },
      );
    }
    const broker = this.#options.brokerInfo();
    connection.helloDone({ name: client.name, version: client.version, pid: client.pid });
    return { protocol: PROTOCOL_VERSION, broker, methods: this.methods };
  }

  #reply(connection: IpcConnection, id: JsonRpcId, result: unknown): void {
    try {
      connection.sendResult(id, result);
    } catch (error) {
      this.#fail(connection, id, error);
    }
  }

  #fail(connection: IpcConnection, id: JsonRpcId, error: unknown): void {
    connection.sendError(id, this.#errorObject(error, connection.nextRef()));
  }

  #errorObject(error: unknown, ref: string): JsonRpcErrorObject {
    return toErrorObject(error, { ref, logger: this.#options.logger, secrets: this.#options.secrets() });
  }
}

function validateParams(schema: z.ZodType | undefined, params: unknown, method: string): unknown {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw ipcError(
      "AO_ERR_IPC_INVALID_PARAMS",
      `invalid params for ${method}: params must be an object (named params)`,
    );
  }
  if (schema === undefined) return params;
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 10).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  const text = issues
    .map((issue) => `${issue.path === "" ? "params" : issue.path}: ${issue.message}`)
    .join("; ");
  throw ipcError("AO_ERR_IPC_INVALID_PARAMS", `invalid params for ${method}: ${text}`, { issues });
}

const RPC_CODES: Record<keyof typeof IpcErrors, number> = {
  AO_ERR_IPC_PARSE_ERROR: RpcErrorCodes.PARSE_ERROR,
  AO_ERR_IPC_INVALID_REQUEST: RpcErrorCodes.INVALID_REQUEST,
  AO_ERR_IPC_BATCH_UNSUPPORTED: RpcErrorCodes.INVALID_REQUEST,
  AO_ERR_IPC_LINE_TOO_LONG: RpcErrorCodes.INVALID_REQUEST,
  AO_ERR_IPC_METHOD_NOT_FOUND: RpcErrorCodes.METHOD_NOT_FOUND,
  AO_ERR_IPC_INVALID_PARAMS: RpcErrorCodes.INVALID_PARAMS,
  AO_ERR_IPC_INTERNAL: RpcErrorCodes.INTERNAL_ERROR,
  AO_ERR_IPC_HELLO_REQUIRED: RpcErrorCodes.HELLO_REQUIRED,
  AO_ERR_IPC_PROTOCOL_UNSUPPORTED: RpcErrorCodes.PROTOCOL_UNSUPPORTED,
  AO_ERR_IPC_TOO_MANY_CONNECTIONS: RpcErrorCodes.TOO_MANY_CONNECTIONS,
  AO_ERR_IPC_SHUTTING_DOWN: RpcErrorCodes.SHUTTING_DOWN,
  AO_ERR_IPC_SOCKET_IN_USE: RpcErrorCodes.APPLICATION_ERROR,
  AO_ERR_IPC_SOCKET_UNUSABLE: RpcErrorCodes.APPLICATION_ERROR,
};

function ipcError(code: keyof typeof IpcErrors, message: string, data?: Record<string, unknown>): AoError {
  return new AoError(code, message, { rpcCode: RPC_CODES[code], ...(data === undefined ? {} : { data }) });
}

/** Method names are echoed in messages; a hostile one must not make the reply huge. */
function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}
