/**
 * Where the broker's IPC socket lives unless told otherwise: AO_BROKER_SOCKET, else
 * ~/.ao-broker/broker.sock (docs/architecture.md, "Commands and environment"). The CLI, the shim and AO all
 * call this so they agree without configuration. `env` and `home` are parameters for tests.
 */
import { homedir } from "node:os";
import { join } from "node:path";

export interface DefaultSocketPathOptions {
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @defaultValue os.homedir() */
  readonly home?: string;
}

export function defaultSocketPath(options: DefaultSocketPathOptions = {}): string {
  const env = options.env ?? process.env;
  const explicit = env.AO_BROKER_SOCKET;
  if (explicit !== undefined && explicit.length > 0) return explicit;
  return join(options.home ?? homedir(), ".ao-broker", "broker.sock");
}
