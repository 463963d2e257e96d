/**
 * The session cache file the shim reads on every gh command with shell builtins only: one
 * `key=value` per line (`token`, `gateway`, `socket`, `session`, `repo`). The shell splits each
 * line at the first `=`, so values may hold `=` but never a newline. The file is 0600 in a 0700
 * directory: it holds a broker session token (never the PAT).
 */
export interface SessionCacheRecord {
  readonly token: string;
  readonly gateway: string;
  readonly socket: string;
  readonly session: string;
  readonly repo: string;
}

const FIELDS = ["token", "gateway", "socket", "session", "repo"] as const;

export function formatCacheRecord(record: SessionCacheRecord): string {
  return FIELDS.map((field) => {
    const value = record[field];
    if (/[\n\r\0]/.test(value)) throw new Error(`cache field ${field} contains a newline`);
    return `${field}=${value}\n`;
  }).join("");
}

export function parseCacheRecord(text: string): Partial<SessionCacheRecord> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    if ((FIELDS as readonly string[]).includes(key)) out[key] = line.slice(eq + 1);
  }
  return out as Partial<SessionCacheRecord>;
}
