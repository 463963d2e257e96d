/**
 * An in-process broker (startBroker, the daemon's own composition root) in front of a real
 * simulator, on a private Redis with a random key prefix. Several brokers made with the same
 * prefix share one budget, one cache and one queue, like brokers on several hosts.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBroker, startBroker } from "../../broker/index.js";
import { connectBroker } from "../../client/index.js";
import { silentLogger } from "../../common/index.js";

export interface BrokerUnderTest {
  readonly broker: RunningBroker;
  /** Opens a session over IPC and returns its token and agent environment. */
  openSession(
    id: string,
    options?: { readOnly?: boolean; weight?: number; repo?: string },
  ): Promise<{ token: string; env: Record<string, string> }>;
  close(): Promise<void>;
}

export interface BrokerHarnessOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly upstreamUrl: string;
  readonly token?: string;
  /** Config overrides, shaped like the config file. */
  readonly config?: Record<string, unknown>;
  /** Extra environment (OTEL_*, AO_GH_TRACE_FILE). */
  readonly env?: Record<string, string>;
}

export async function startBrokerUnderTest(options: BrokerHarnessOptions): Promise<BrokerUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), "aob-broker-"));
  const broker = await startBroker({
    logger: silentLogger(),
    probeLocalRedis: false,
    env: { GITHUB_TOKEN: options.token ?? "ghp_simulated", ...(options.env ?? {}) },
    overrides: {
      listen: "127.0.0.1:0",
      socket: join(dir, "broker.sock"),
      stateDir: join(dir, "state"),
      upstream: { url: options.upstreamUrl, forwardClientHost: true },
      redis: { url: options.redisUrl, prefix: options.prefix },
      ...(options.config ?? {}),
    },
  });
  return {
    broker,
    openSession: async (id, session = {}) => {
      const client = await connectBroker({ socketPath: broker.socketPath });
      try {
        const opened = await client.openSession({
          id,
          repo: session.repo ?? "acme/widgets",
          ...(session.readOnly ? { readOnly: true } : {}),
          ...(session.weight ? { weight: session.weight } : {}),
        });
        return { token: opened.token, env: opened.env as Record<string, string> };
      } finally {
        await client.close();
      }
    },
    close: () => broker.close(),
  };
}
