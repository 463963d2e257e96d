/**
 * Sorts what the broker sends into the three shapes the client handles: a response to one of its
 * calls, a server-pushed notification, or garbage. Pure; takes a value JSON.parse produced.
 */
import type { JsonRpcErrorObject, JsonRpcId } from "../protocol.js";

export type ServerMessage =
  | { readonly kind: "result"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly kind: "error"; readonly id: JsonRpcId; readonly error: JsonRpcErrorObject }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  | { readonly kind: "invalid"; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || typeof value === "number";
}

function isErrorObject(value: unknown): value is JsonRpcErrorObject {
  return (
    isRecord(value) &&
    typeof value.code === "number" &&
    typeof value.message === "string" &&
    (value.data === undefined || isRecord(value.data))
  );
}

export function classifyServerMessage(value: unknown): ServerMessage {
  if (!isRecord(value) || value.jsonrpc !== "2.0")
    return { kind: "invalid", reason: "not a JSON-RPC 2.0 object" };
  if (!("id" in value)) {
    return typeof value.method === "string"
      ? { kind: "notification", method: value.method, params: value.params }
      : { kind: "invalid", reason: "message without id or method" };
  }
  if (!isId(value.id)) return { kind: "invalid", reason: "id is not a string, number or null" };
  if ("error" in value) {
    return isErrorObject(value.error)
      ? { kind: "error", id: value.id, error: value.error }
      : { kind: "invalid", reason: "malformed error object" };
  }
  if ("result" in value) return { kind: "result", id: value.id, result: value.result };
  return { kind: "invalid", reason: "response without result or error" };
}
