/**
 * Smoke test of client/'s public face, plus compile-only checks of its types: tsc fails this file
 * if a `@ts-expect-error` line stops being an error (the typed API got looser) or a typed call
 * stops compiling.
 */
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { BrokerClient, MethodParams, MethodResult, SessionInfo } from "../../../client/index.js";
import * as client from "../../../client/index.js";

describe("client exports", () => {
  it("exports VERSION equal to the package version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(client.VERSION).toBe(pkg.version);
  });

  it("exports the connection API, the protocol constants and the error codes", () => {
    expect(typeof client.connectBroker).toBe("function");
    expect(typeof client.BrokerClient.connect).toBe("function");
    expect(typeof client.defaultSocketPath).toBe("function");
    expect(typeof client.loadProtocolSchemas).toBe("function");
    expect(client.PROTOCOL_VERSION).toBe(1);
    expect(client.METHOD_NAMES).toContain("hello");
    expect(client.EVENT_NOTIFICATION).toBe("event");
    expect(client.RpcErrorCodes.INVALID_PARAMS).toBe(-32602);
    expect(client.ClientErrors.AO_ERR_BROKER_NOT_RUNNING).toBe("AO_ERR_BROKER_NOT_RUNNING");
  });

  it("types calls from the protocol", () => {
    const compileOnly = async (c: BrokerClient) => {
      const opened = await c.call("session.open", { id: "s", repo: "o/r" });
      expectTypeOf(opened.token).toEqualTypeOf<string>();
      expectTypeOf(opened.session).toEqualTypeOf<SessionInfo>();
      expectTypeOf(await c.call("stats")).toEqualTypeOf<MethodResult<"stats">>();
      expectTypeOf(await c.graphql({ sessionId: "s", query: "{a}" })).toEqualTypeOf<
        MethodResult<"graphql">
      >();
      expectTypeOf<MethodParams<"rest">["method"]>().toEqualTypeOf<
        "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE"
      >();
      // @ts-expect-error repo is required
      await c.call("session.open", { id: "s" });
      // @ts-expect-error no such method
      await c.call("session.nope", {});
      // @ts-expect-error params are required for session.close
      await c.call("session.close");
      // @ts-expect-error priority is a closed set
      await c.graphql({ sessionId: "s", query: "{a}", priority: "urgent" });
      // @ts-expect-error results are typed: token is a string
      const n: number = opened.token;
      return n;
    };
    expect(typeof compileOnly).toBe("function");
  });
});
