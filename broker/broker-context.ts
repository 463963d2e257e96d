/**
 * What every subsystem builder of the composition root (create-broker.ts) is handed: the resolved
 * configuration, the root logger, the environment, the secrets to redact, and the shutdown sequence
 * each builder adds its own stop steps to as it starts its parts (so stopping runs in reverse).
 */
import type { Logger } from "../common/index.js";
import type { ResolvedConfig } from "./config/load-config.js";
import type { ShutdownSequence } from "./shutdown-sequence.js";

export const BROKER_VERSION = "0.1.0";

export interface BrokerContext {
  readonly resolved: ResolvedConfig;
  readonly config: ResolvedConfig["config"];
  readonly logger: Logger;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The PAT and the webhook secret, for redaction by value. */
  readonly secrets: () => string[];
  readonly shutdown: ShutdownSequence;
}

/**
 * How long one shutdown step may take before the broker goes on without it (ShutdownSequence),
 * beyond the drain time of its own that a step like the gateway or the queue is given.
 */
export const SHUTDOWN_STEP_TIMEOUT_MS = 5_000;
/** The same for a step that needs Redis while Redis is unreachable. */
export const REDIS_DOWN_STEP_TIMEOUT_MS = 500;
/** How long the gateway lets in-flight requests finish at shutdown. */
export const GATEWAY_DRAIN_MS = 30_000;

/**
 * An upstream the caller starts for the broker: with `simulate` set, the broker asks its caller's
 * `startSimulator` for one (the CLI's `ao-broker start` passes github-sim's; broker/ imports neither
 * github-sim/ nor bench/) and uses its URL and token. The broker closes it after everything that
 * could still send to it.
 */
export interface ProvidedUpstream {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}
