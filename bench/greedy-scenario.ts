/**
 * Issue 17's greedy first-comer, end to end: the simulator allows `limit` core requests per
 * `windowSeconds` (400 per 60 s: GitHub's hour compressed 60×), the broker (its own composition
 * root, in this process) on a real redis-server, every session registered the way the shim does
 * it on first use (agents-shim registerSession: one checkout per agent). A greedy agent loops on
 * uncached REST reads (`greedyLoops` at once) from t = 0, over `greedyIds` session ids in ONE
 * checkout (the "twenty AO_SESSION_IDs" case); `modest` agents, each in its own checkout, arrive
 * at t = `leadMs` and ask once every `modestIntervalMs` until `leadMs + modestMs`.
 * Measured: each modest request's latency and status, what the greedy agent had spent when the
 * modest ones arrived, and the simulator's own count. Used by bench/greedy-session.ts and
 * test/e2e/broker/greedy-session.e2e.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCacheRecord, registerSession } from "../agents-shim/index.js";
import { startBroker } from "../broker/index.js";
import { silentLogger } from "../common/index.js";
import { startSimulator } from "../github-sim/index.js";

export interface GreedyScenarioOptions {
  /** A Redis the broker may use (a private redis-server). */
  readonly redisUrl: string;
  readonly prefix: string;
  /** Session ids the greedy agent registers in its one checkout. @defaultValue 1 */
  readonly greedyIds?: number;
  /** @defaultValue 4 */
  readonly greedyLoops?: number;
  /** @defaultValue 5 */
  readonly modest?: number;
  /** @defaultValue 400 */
  readonly limit?: number;
  /** @defaultValue 60 */
  readonly windowSeconds?: number;
  /** @defaultValue 8000 */
  readonly leadMs?: number;
  /** @defaultValue 12000 */
  readonly modestMs?: number;
  /** @defaultValue 1000 */
  readonly modestIntervalMs?: number;
  /** Extra broker config (e.g. `{ budget: { pace: { burstFraction: 1 } } }` for the unpaced arm). */
  readonly config?: Record<string, unknown>;
}

export interface GreedyScenarioResult {
  readonly modest: {
    readonly requests: number;
    readonly answered: number;
    /** Statuses other than 200. */
    readonly refused: number;
    readonly p50Ms: number;
    readonly p95Ms: number;
    readonly maxMs: number;
    readonly within2s: number;
  };
  readonly greedy: {
    readonly answered: number;
    readonly refused: number;
    /** Upstream core requests spent when the modest agents arrived. */
    readonly spentAtArrival: number;
  };
  readonly upstream: { readonly used: number; readonly rateLimited: number };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runGreedyScenario(options: GreedyScenarioOptions): Promise<GreedyScenarioResult> {
  const limit = options.limit ?? 400;
  const windowSeconds = options.windowSeconds ?? 60;
  const leadMs = options.leadMs ?? 8_000;
  const modestMs = options.modestMs ?? 12_000;
  const modestIntervalMs = options.modestIntervalMs ?? 1_000;
  const dir = mkdtempSync(join(tmpdir(), "aob-greedy-"));
  const sim = await startSimulator({
    port: 0,
    limits: { core: limit, graphql: 5000, search: 30 },
    windowSeconds,
  });
  const broker = await startBroker({
    logger: silentLogger(),
    probeLocalRedis: false,
    env: { GITHUB_TOKEN: "ghp_simulated" },
    overrides: {
      listen: "127.0.0.1:0",
      socket: join(dir, "broker.sock"),
      stateDir: join(dir, "state"),
      upstream: { url: sim.url, forwardClientHost: true },
      redis: { url: options.redisUrl, prefix: options.prefix },
      cache: { restFreshMs: 0 },
      lifecycle: { enabled: false },
      ...options.config,
      budget: { windowSeconds, ...((options.config?.budget as object | undefined) ?? {}) },
    },
  });
  try {
    // Registered exactly as the shim's helper does on a session's first gh command.
    const register = async (id: string, checkout: string): Promise<string> => {
      mkdirSync(join(dir, checkout), { recursive: true });
      const cache = join(dir, "shim", "sessions", id);
      const code = await registerSession({
        cache,
        id,
        toplevel: join(dir, checkout),
        repo: "acme/widgets",
        socket: broker.socketPath,
        state: join(dir, "shim"),
        fallback: "fail",
        cwd: join(dir, checkout),
        env: { AO_BROKER_AUTO_REGISTER: "1" },
        stderr: () => undefined,
      });
      if (code !== 0) throw new Error(`the shim's registration of ${id} exited ${code}`);
      const token = parseCacheRecord(readFileSync(cache, "utf8")).token;
      if (!token) throw new Error(`no token cached for ${id}`);
      return token;
    };
    const greedyTokens: string[] = [];
    for (let i = 0; i < (options.greedyIds ?? 1); i++)
      greedyTokens.push(await register(`greedy-${i}`, "greedy"));
    const modestTokens: string[] = [];
    for (let i = 0; i < (options.modest ?? 5); i++)
      modestTokens.push(await register(`modest-${i}`, `modest-${i}`));

    let page = 0;
    const get = async (token: string, timeoutMs = 120_000): Promise<{ status: number; ms: number }> => {
      const started = performance.now();
      const res = await fetch(
        `${broker.gatewayUrl}/repos/acme/widgets/pulls?state=all&per_page=1&page=${++page}`,
        {
          headers: { authorization: `token ${token}`, accept: "application/vnd.github+json" },
          signal: AbortSignal.timeout(timeoutMs),
        },
      );
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - started };
    };

    const startedAt = Date.now();
    const endAt = startedAt + leadMs + modestMs;
    let greedyAnswered = 0;
    let greedyRefused = 0;
    let turn = 0;
    const greedyLoop = async () => {
      while (Date.now() < endAt) {
        const token = greedyTokens[turn++ % greedyTokens.length] as string;
        // The agent stops when the scenario ends, its request still waiting or not.
        const r = await get(token, Math.max(1, endAt - Date.now())).catch(() => ({ status: 0, ms: 0 }));
        if (r.status === 200) greedyAnswered++;
        else if (Date.now() < endAt) {
          greedyRefused++;
          await sleep(100); // a refused agent's retry, not a hot loop
        }
      }
    };
    const greedy = Array.from({ length: options.greedyLoops ?? 4 }, greedyLoop);
    await sleep(leadMs);
    const spentAtArrival = sim.stats().resources.core.used;
    const modest: { status: number; ms: number }[] = [];
    const modestLoop = async (token: string, offset: number) => {
      await sleep(offset);
      for (let next = Date.now(); next < endAt; next += modestIntervalMs) {
        await sleep(Math.max(0, next - Date.now()));
        modest.push(await get(token).catch(() => ({ status: 0, ms: Number.POSITIVE_INFINITY })));
      }
    };
    // Phases spread over the interval, as independent agents are.
    await Promise.all([
      ...modestTokens.map((t, i) => modestLoop(t, (i * modestIntervalMs) / modestTokens.length)),
      ...greedy,
    ]);
    const latencies = modest.map((m) => m.ms).sort((a, b) => a - b);
    const stats = sim.stats();
    return {
      modest: {
        requests: modest.length,
        answered: modest.filter((m) => m.status === 200).length,
        refused: modest.filter((m) => m.status !== 200).length,
        p50Ms: Math.round(quantile(latencies, 0.5)),
        p95Ms: Math.round(quantile(latencies, 0.95)),
        maxMs: Math.round(latencies.at(-1) ?? 0),
        within2s: modest.filter((m) => m.status === 200 && m.ms <= 2_000).length,
      },
      greedy: { answered: greedyAnswered, refused: greedyRefused, spentAtArrival },
      upstream: { used: stats.resources.core.used, rateLimited: stats.requests.rateLimited },
    };
  } finally {
    await broker.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
