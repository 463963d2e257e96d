/**
 * Sorts one parsed line into what the server does with it: run a call (answer it), run a
 * notification (answer nothing, per JSON-RPC 2.0), or reject it. Pure: no I/O, no state.
 *
 * JSON-RPC 2.0 rules applied (https://www.jsonrpc.org/specification):
 * - `jsonrpc` must be exactly "2.0", `method` a string, `id` (when present) a string, a number or
 *   null; anything else is an Invalid Request answered with the id when it was usable, else null.
 * - A request without an `id` member is a notification.
 * - `params` may be omitted (treated as `{}`); its shape is the dispatcher's business (by-position
 *   params fail validation there with -32602, or silently for a notification).
 * - A JSON array is a batch, which this server does not take (one request per line instead).
 */

/** Same as client's JsonRpcId; restated because a core imports no other folder. */
export type RequestId = string | number | null;

export type ClassifiedLine =
  | { readonly kind: "call"; readonly id: RequestId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  | { readonly kind: "batch" }
  | { readonly kind: "invalid"; readonly id: RequestId; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

export function classifyRequest(value: unknown): ClassifiedLine {
  if (Array.isArray(value)) return { kind: "batch" };
  if (!isRecord(value)) return invalid(null, "a request must be a JSON object");
  const hasId = "id" in value;
  const id = hasId && isId(value.id) ? value.id : null;
  if (hasId && !isId(value.id)) return invalid(null, "id must be a string, a number or null");
  if (value.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof value.method !== "string" || value.method.length === 0) {
    return invalid(id, "method must be a non-empty string");
  }
  const params = value.params === undefined ? {} : value.params;
  return hasId
    ? { kind: "call", id, method: value.method, params }
    : { kind: "notification", method: value.method, params };
}

function invalid(id: RequestId, reason: string): ClassifiedLine {
  return { kind: "invalid", id, reason };
}
