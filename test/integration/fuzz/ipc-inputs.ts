/**
 * IPC inputs: what one connection sends, line by line — hello or not, real methods with fuzzed
 * params, unknown methods, JSON-RPC shapes that are not requests (batches, wrong versions, odd
 * ids), invalid UTF-8, NUL bytes, deep nesting and lines over the size limit. `broker.shutdown`
 * is never sent with valid params (it would end the run), nor any call that could close the
 * fuzzer's own session.
 */
import { METHOD_NAMES } from "../../../client/index.js";
import { graphqlDocument, graphqlVariables } from "./graphql-inputs.js";
import type { Rng } from "./rng.js";

export interface IpcCase {
  readonly lines: Buffer[];
  /** Ids of the requests sent (each must get an answer, unless the server closes the connection). */
  readonly ids: (string | number)[];
}

export interface IpcContext {
  /** A session the fuzzer owns (never closed by the fuzz). */
  readonly sessionId: string;
  /** The broker's line limit, to cross it. */
  readonly maxLineBytes: number;
}

const HELLO = {
  jsonrpc: "2.0",
  id: 0,
  method: "hello",
  params: { protocol: 1, client: { name: "fuzz", version: "1" } },
};

function fuzzParams(rng: Rng, method: string, ctx: IpcContext): unknown {
  const sid = rng.chance(0.7)
    ? ctx.sessionId
    : rng.pick(["", "x", "a".repeat(200), "../x", "fuzz-other", "é", 42 as unknown as string]);
  switch (method) {
    case "session.open":
      return {
        id: rng.chance(0.5) ? `fuzz-${rng.int(0, 50)}` : rng.text(rng.length(140), true),
        repo: rng.pick(["acme/widgets", "acme", "a/b/c", "", "-x/y"]),
        ...(rng.chance(0.3) ? { weight: rng.pick([0, -1, 1, 1000, 1001, 0.5, "1"]) } : {}),
        ...(rng.chance(0.3) ? { readOnly: rng.pick([true, false, "yes"]) } : {}),
        ...(rng.chance(0.2) ? { ttlSeconds: rng.pick([0, 1, 1e9]) } : {}),
      };
    case "session.close":
      // Only sessions the fuzz itself opened, never the fuzzer's own.
      return { id: rng.chance(0.5) ? `fuzz-${rng.int(0, 50)}` : rng.text(rng.length(40)) };
    case "token.issue":
      return {
        sessionId: sid,
        argv: rng.chance(0.5) ? ["pr", "view", rng.text(5)] : rng.json(2),
        ttlSeconds: rng.pick([undefined, 1, 0, -5, 1e12]),
      };
    case "invocation.finish":
      return {
        invocationId: rng.text(rng.length(300)),
        exitCode: rng.pick([0, 1, -1, 1.5, "0"]),
        durationMs: rng.pick([0, -1, 1e300]),
      };
    case "graphql":
      return {
        sessionId: sid,
        query: graphqlDocument(rng),
        variables: graphqlVariables(rng) ?? {},
        deadlineMs: rng.pick([1, 500, 2_000, 0, -1]),
      };
    case "rest":
      return {
        sessionId: sid,
        method: rng.pick(["GET", "GET", "GET", "HEAD", "POST", "TRACE", "get"]),
        path: rng.pick([
          "/repos/acme/widgets",
          "/repos/acme/widgets/pulls/1",
          "/user",
          "/../x",
          "x",
          "//evil",
          `/${rng.text(rng.length(200))}`,
        ]),
        ...(rng.chance(0.3) ? { headers: rng.json(1) } : {}),
        ...(rng.chance(0.3)
          ? { body: rng.text(rng.length(1_000), true), bodyEncoding: rng.pick(["utf8", "base64", "hex"]) }
          : {}),
        deadlineMs: rng.pick([1, 500, 2_000]),
      };
    case "lifecycle.watch":
      return {
        sessionId: sid,
        repo: rng.pick(["acme/widgets", "nope/none", "x"]),
        branch: rng.text(rng.length(300)),
        pr: rng.pick([undefined, 1, 0, -1, 1e12]),
      };
    case "lifecycle.unwatch":
      return { sessionId: rng.pick([`fuzz-${rng.int(0, 5)}`, "", 1]) };
    case "events.subscribe":
      return rng.chance(0.5)
        ? { topics: Array.from({ length: rng.length(40) }, () => rng.text(rng.length(80))) }
        : rng.json(2);
    case "events.unsubscribe":
      return { subscriptionId: rng.text(rng.length(100)) };
    case "broker.shutdown":
      // Never valid: unknown keys make the params fail validation.
      return { please: rng.json(1) };
    case "trace.report":
      return {
        since: rng.pick(["1h", "5m", "abc", "-1h", "99999999999h", ""]),
        top: rng.pick([1, 0, 1000, 1001]),
      };
    default:
      return rng.json(3);
  }
}

// Every protocol method, the broker's extension methods, and names no broker knows.
const METHODS = [
  ...METHOD_NAMES,
  "trace.report",
  "nope",
  "",
  "rpc.discover",
  "__proto__",
  "constructor",
  "toString",
];

function call(rng: Rng, ctx: IpcContext, id: string | number): Buffer {
  const method = rng.pick(METHODS);
  const message: Record<string, unknown> = {
    jsonrpc: "2.0",
    id,
    method,
    params: fuzzParams(rng, method, ctx),
  };
  // Params may be left out (the server reads that as {}), except for the one call that would
  // end the run: broker.shutdown with no params is a valid shutdown.
  if (method !== "broker.shutdown" && rng.chance(0.05)) delete message.params;
  return Buffer.from(JSON.stringify(message));
}

/** A line that is not a valid request; answered with a JSON-RPC error (id null when unreadable). */
function junk(rng: Rng, ctx: IpcContext): { line: Buffer } {
  switch (rng.int(0, 9)) {
    case 0:
      return { line: rng.bytes(rng.length(2_000)).filter((b) => b !== 10) as Buffer };
    case 1:
      return { line: Buffer.from(JSON.stringify(rng.json(3)) ?? "null") };
    case 2:
      return {
        line: Buffer.from(
          JSON.stringify({ jsonrpc: rng.pick(["1.0", "2", 2, null]), id: rng.int(1, 1e9), method: "stats" }),
        ),
      };
    case 3:
      return {
        line: Buffer.from(
          JSON.stringify([
            { jsonrpc: "2.0", id: 1, method: "stats" },
            { jsonrpc: "2.0", id: 2, method: "stats" },
          ]),
        ),
      };
    case 4:
      return {
        line: Buffer.from(
          JSON.stringify({
            jsonrpc: "2.0",
            id: rng.pick([{}, [], true, 1.5, "", "x".repeat(1000)]),
            method: "stats",
          }),
        ),
      };
    case 5:
      return {
        line: Buffer.from(
          `${"[".repeat(rng.pick([100, 10_000, 200_000]))}${"]".repeat(rng.chance(0.5) ? 10 : 0)}`,
        ),
      };
    case 6:
      return { line: Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]) };
    case 7:
      return { line: Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"stats","params":{}}\u0000garbage`) };
    case 8: // a line over the limit (the server answers and closes)
      return { line: Buffer.alloc(ctx.maxLineBytes + rng.int(1, 4_096), 0x61) };
    default: // a notification: run, never answered
      return {
        line: Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", method: rng.pick(["stats", "budget.get", "nope"]), params: {} }),
        ),
      };
  }
}

export function ipcCase(rng: Rng, ctx: IpcContext): IpcCase {
  const lines: Buffer[] = [];
  const ids: (string | number)[] = [];
  if (rng.chance(0.85)) {
    lines.push(Buffer.from(JSON.stringify(HELLO)));
    ids.push(0);
  }
  for (let i = rng.int(1, 6); i > 0; i--) {
    if (rng.chance(0.65)) {
      const id = rng.chance(0.5) ? rng.int(1, 1e9) : `c-${rng.int(0, 1e9)}`;
      lines.push(call(rng, ctx, id));
      ids.push(id);
    } else {
      const j = junk(rng, ctx);
      lines.push(j.line);
    }
  }
  return { lines, ids };
}
