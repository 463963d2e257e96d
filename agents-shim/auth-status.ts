/**
 * `gh auth status` through the shim. Real gh would report on the PAT (or fail confusingly for
 * github.com, which the shim's proxy set-up makes unreachable); through the shim there is no PAT,
 * so this says how gh is authenticated instead: through which broker, as which session, with a
 * broker token whose value is never printed. Printed on stderr like gh's own report; exit 0 when
 * the broker knows the session, 1 otherwise.
 */
import { connectBroker } from "../client/index.js";
import { isAoError } from "../common/index.js";
import { cachedSessionId } from "./register-session.js";

export interface AuthStatusOptions {
  readonly gateway: string;
  readonly socket: string;
  /** A session id, or the shim's cache key when only the cache file knows the id. */
  readonly session: string;
  readonly cache?: string | undefined;
  /** @defaultValue process.stderr.write */
  readonly stderr?: ((text: string) => void) | undefined;
}

export async function authStatus(options: AuthStatusOptions): Promise<number> {
  const write = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const sessionId = (options.cache ? cachedSessionId(options.cache) : undefined) ?? options.session;
  const lines = ["github.com (through ao-broker)"];
  let ok = false;
  try {
    const client = await connectBroker({
      socketPath: options.socket,
      clientName: "ao-broker-shim",
      connectTimeoutMs: 3000,
    });
    try {
      const { sessions } = await client.listSessions();
      const session = sessions.find((s) => s.id === sessionId);
      if (session) {
        ok = true;
        lines.push(`  ✓ Logged in through ao-broker as session ${session.id} (repository ${session.repo})`);
      } else {
        lines.push(
          `  X The broker has no open session "${sessionId}"; the next gh command registers it again`,
        );
      }
    } finally {
      await client.close();
    }
  } catch (error) {
    lines.push(
      `  X The broker does not answer on ${options.socket}: ${isAoError(error) ? error.message : String(error)}`,
    );
  }
  lines.push(
    `  ✓ API requests go to the broker's gateway ${options.gateway} (gh sees the host github.localhost)`,
  );
  lines.push(
    "  ✓ Token: aob_s_******************** (a broker session token; the GitHub token stays inside the broker)",
  );
  write(`${lines.join("\n")}\n`);
  return ok ? 0 : 1;
}
