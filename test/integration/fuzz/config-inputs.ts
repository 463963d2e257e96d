/**
 * Config file inputs for loadConfig: real keys with wrong types and out-of-range values, unknown
 * keys, prototype tricks, deep nesting, non-JSON text and binary, plus the environment variables
 * the loader reads. Each input must load or fail with an AoError naming the problem.
 */
import type { Rng } from "./rng.js";

function value(rng: Rng, good: () => unknown): unknown {
  return rng.chance(0.5) ? good() : rng.json(2);
}

export interface ConfigCase {
  /** The file's bytes. */
  readonly file: Buffer;
  readonly env: Record<string, string>;
}

export function configCase(rng: Rng): ConfigCase {
  const env: Record<string, string> = { GITHUB_TOKEN: rng.chance(0.9) ? "ghp_fuzz000000000000" : "" };
  if (rng.chance(0.2))
    env.REDIS_URL = rng.pick(["redis://x", "unix:///tmp/x.sock", "nope://", rng.text(rng.length(100), true)]);
  if (rng.chance(0.2)) env.LOG_LEVEL = rng.pick(["debug", "loud", "", "info"]);
  if (rng.chance(0.1)) env.AO_BROKER_STATE_DIR = rng.text(rng.length(100));
  if (rng.chance(0.1)) env.AO_BROKER_WEBHOOK_SECRET = rng.text(rng.length(50));
  const kind = rng.int(0, 9);
  if (kind === 0) return { file: rng.bytes(rng.length(2_000)), env };
  if (kind === 1) return { file: Buffer.from(rng.text(rng.length(500), true)), env };
  if (kind === 2) return { file: Buffer.from(JSON.stringify(rng.json(4)) ?? ""), env };
  if (kind === 3) return { file: Buffer.from(`${"[".repeat(rng.pick([10, 5_000, 100_000]))}`), env };
  if (kind === 4)
    return {
      file: Buffer.from('{"__proto__": {"simulate": true}, "constructor": {"prototype": {"x": 1}}}'),
      env,
    };
  const config: Record<string, unknown> = {};
  if (rng.chance(0.5))
    config.listen = value(rng, () => rng.pick(["127.0.0.1:0", "0.0.0.0:7878", "[::1]:1", "host:99999", "x"]));
  if (rng.chance(0.3)) config.simulate = value(rng, () => rng.chance(0.5));
  if (rng.chance(0.5))
    config.upstream = value(rng, () => ({
      url: rng.pick(["https://api.github.com", "not a url", "file:///etc/passwd", "http://127.0.0.1:1"]),
      ...(rng.chance(0.3) ? { timeoutMs: rng.pick([0, -1, 1.5, 1e12, "30"]) } : {}),
      ...(rng.chance(0.2)
        ? { tokenFile: rng.pick(["/nonexistent/pat", "/dev/null", "/etc/hostname", ""]) }
        : {}),
    }));
  if (rng.chance(0.4))
    config.redis = value(rng, () => ({ prefix: rng.pick(["aob", "", "a b", "x".repeat(40), "{tag}"]) }));
  if (rng.chance(0.4))
    config.gateway = value(rng, () => ({
      maxBodyBytes: rng.pick([0, 1023, 1024, 1e15, -5]),
      defaultDeadlineMs: rng.pick([0, 1, -1, 1e20]),
      blobHosts: rng.pick([[], ["x"], "x", [1]]),
    }));
  if (rng.chance(0.3))
    config.sessions = value(rng, () => ({ sessionTokenTtlSeconds: rng.pick([59, 60, 1e10, -1]) }));
  if (rng.chance(0.3))
    config.cache = value(rng, () => ({
      graphqlFreshMs: { checks: rng.pick([0, -1, "x"]) },
      maxBytes: rng.pick([1, 1e9]),
    }));
  if (rng.chance(0.3))
    config.budget = value(rng, () => ({ reserve: { lifecycle: rng.pick([0, 0.9, 0.95, -0.1]) } }));
  if (rng.chance(0.3))
    config.batching = value(rng, () => ({
      maxMembers: rng.pick([1, 2, 100, 101]),
      latencyBudgetMs: { repeat: rng.pick([0, -1]) },
    }));
  if (rng.chance(0.3)) config.queue = value(rng, () => ({ concurrency: rng.pick([0, 1, 99, 100]) }));
  if (rng.chance(0.2))
    config.lifecycle = value(rng, () => ({
      enabled: rng.chance(0.5),
      pollIntervalMs: rng.pick([999, 1000]),
    }));
  if (rng.chance(0.2)) config.webhooks = value(rng, () => ({ secret: rng.pick(["", "s", 42]) }));
  if (rng.chance(0.2)) config.logLevel = value(rng, () => rng.pick(["debug", "verbose"]));
  if (rng.chance(0.2)) config[rng.pick(["unknown", "Listen", "__proto__", ""])] = rng.json(1);
  return { file: Buffer.from(JSON.stringify(config)), env };
}
