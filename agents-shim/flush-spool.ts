/**
 * `shim-helper.js flush`: sends a spool of finished gh invocations to the broker where curl is not
 * installed (the shell shim uses curl when it can: it starts faster). Each spool line is
 * `<exit code> <duration ms> <signal or -> <gateway> <invocation token>`; each becomes a
 * `POST <gateway>/_aob/invocation/finish` authenticated by that invocation's token. A 401, or no
 * answer at all, means the session or the broker is gone: the cached session token is dropped so
 * the next gh command registers again.
 */
import { readFileSync, rmSync } from "node:fs";

export interface FlushSpoolOptions {
  readonly spool: string;
  readonly cache?: string | undefined;
  /** @defaultValue 10000 */
  readonly timeoutMs?: number | undefined;
}

export async function flushSpool(options: FlushSpoolOptions): Promise<number> {
  let text: string;
  try {
    text = readFileSync(options.spool, "utf8");
  } catch {
    return 0;
  }
  rmSync(options.spool, { force: true });
  let stale = false;
  for (const line of text.split("\n")) {
    const [code, ms, signal, gateway, token] = line.trim().split(" ");
    if (!token || !gateway || !/^-?\d+$/.test(code ?? "") || !/^\d+$/.test(ms ?? "")) continue;
    const body = {
      exitCode: Number(code),
      durationMs: Number(ms),
      ...(signal && signal !== "-" ? { signal } : {}),
    };
    try {
      const response = await fetch(`${gateway.replace(/\/+$/, "")}/_aob/invocation/finish`, {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      await response.arrayBuffer();
      if (response.status === 401) stale = true;
    } catch {
      stale = true;
    }
  }
  if (stale && options.cache) rmSync(options.cache, { force: true });
  return 0;
}
