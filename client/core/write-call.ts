/**
 * Whether an IPC API call changes GitHub: a `rest` call with a method other than GET, HEAD or
 * OPTIONS, or a `graphql` call whose document holds a mutation. When the connection drops while
 * such a call is in flight, its caller must hear "outcome unknown" (the broker may have sent it,
 * or may still send it from its queue), never a retryable-looking disconnect. Conservative: a
 * document that merely mentions a mutation operation anywhere counts as a write.
 */

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Comments and strings removed, so `# mutation` or "mutation" in a value does not count. */
function operationText(query: string): string {
  return query.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n\r]*/g, " ");
}

export function isWriteCall(method: string, params: unknown): boolean {
  const p = (params ?? {}) as { method?: unknown; query?: unknown };
  if (method === "rest") return typeof p.method === "string" && !READ_METHODS.has(p.method.toUpperCase());
  if (method === "graphql")
    return typeof p.query === "string" && /(^|[\s{}])mutation\b/.test(operationText(p.query));
  return false;
}
