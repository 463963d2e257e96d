/**
 * The shim's slow path (`shim-helper.js session`): runs when the shell shim has no usable cached
 * session token — a session's first gh command, or after the broker restarted or revoked it. It
 * opens (or re-opens) the session over IPC and writes the cache file the shell reads from then on.
 *
 * A session the broker does not know is opened only when auto-registration is on: the
 * AO_BROKER_AUTO_REGISTER environment variable when set, else the broker's own
 * `sessions.autoRegister` (as broker.status reports it), else on for a broker whose gateway is on
 * loopback. Exit codes for the shell: 0 registered, 3 broker unreachable (the shell then applies
 * the fallback policy; this helper has already said why on stderr), 4 refused, 2 bad arguments.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, join } from "node:path";
import { type BrokerClient, connectBroker } from "../client/index.js";
import { isAoError } from "../common/index.js";
import { formatCacheRecord } from "./core/cache-record.js";
import { brokerDownMessage, DIRECT_NOTICE_INTERVAL_MS, type FallbackPolicy } from "./core/fallback-policy.js";
import {
  isSessionId,
  localSessionId,
  normalizeRepo,
  repoFromRemotes,
  worktreeSessionId,
} from "./core/session-identity.js";
import { ShimErrors } from "./errors.js";

export const EXIT_BROKER_DOWN = 3;
export const EXIT_REFUSED = 4;
export const EXIT_BAD_INPUT = 2;
/** The repository recorded for a session whose gh commands name none (e.g. `gh api rate_limit`). */
export const UNKNOWN_REPO = "unknown/unknown";

export interface RegisterSessionOptions {
  /** The cache file to write (the shell's `$state/sessions/<key>`). */
  readonly cache: string;
  /** AO's session id, when AO gave one. */
  readonly id?: string | undefined;
  /** The worktree's top-level directory (session per worktree), when not in AO. */
  readonly toplevel?: string | undefined;
  /** The repository gh was pointed at (-R, GH_REPO), if any. */
  readonly repo?: string | undefined;
  readonly socket: string;
  /** The shim's state directory (for the once-an-hour fallback notice). */
  readonly state: string;
  readonly fallback: FallbackPolicy;
  readonly cwd: string;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** @defaultValue process.stderr.write */
  readonly stderr?: ((text: string) => void) | undefined;
  /** @defaultValue 3000 */
  readonly connectTimeoutMs?: number | undefined;
  /** @defaultValue Date.now */
  readonly now?: (() => number) | undefined;
}

function gitRemotes(cwd: string): Promise<string> {
  return new Promise((resolve) => {
    execFile("git", ["remote", "-v"], { cwd, timeout: 5000 }, (error, stdout) =>
      resolve(error ? "" : stdout),
    );
  });
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || host === "::1" || host.startsWith("127.");
  } catch {
    return false;
  }
}

/** Prints the direct-fallback warning unless it was printed less than an hour ago. */
function sayOncePerHour(state: string, text: string, now: number, write: (text: string) => void): void {
  const marker = join(state, "fallback-notice");
  try {
    if (now - statSync(marker).mtimeMs < DIRECT_NOTICE_INTERVAL_MS) return;
  } catch {
    // no marker yet
  }
  write(`${text}\n`);
  try {
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeFileSync(marker, "");
    utimesSync(marker, now / 1000, now / 1000);
  } catch {
    // a read-only state directory: say it every time rather than never
  }
}

async function autoRegisterAllowed(
  client: BrokerClient,
  env: Readonly<Record<string, string | undefined>>,
): Promise<boolean> {
  const explicit = env.AO_BROKER_AUTO_REGISTER?.trim().toLowerCase();
  if (explicit === "0" || explicit === "false" || explicit === "no") return false;
  if (explicit === "1" || explicit === "true" || explicit === "yes") return true;
  const status = (await client.status()) as Record<string, unknown>;
  const sessions = status.sessionsConfig as { autoRegister?: unknown } | undefined;
  const reported = status.autoRegister ?? sessions?.autoRegister;
  if (typeof reported === "boolean") return reported;
  return isLoopbackUrl(String(status.gatewayUrl ?? ""));
}

export async function registerSession(options: RegisterSessionOptions): Promise<number> {
  const env = options.env ?? process.env;
  const write = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const now = options.now ?? Date.now;
  const id = options.id
    ? options.id
    : options.toplevel
      ? worktreeSessionId(options.toplevel)
      : localSessionId(env.USER ?? userInfo().username);
  if (!isSessionId(id)) {
    write(
      `ao-broker shim: "${id}" is not a usable session id (1-128 of A-Z a-z 0-9 . _ : @ + -) (${ShimErrors.AO_ERR_SHIM_BAD_INPUT})\n`,
    );
    return EXIT_BAD_INPUT;
  }

  let client: BrokerClient;
  try {
    client = await connectBroker({
      socketPath: options.socket,
      clientName: "ao-broker-shim",
      connectTimeoutMs: options.connectTimeoutMs ?? 3000,
      timeoutMs: 10_000,
    });
  } catch (error) {
    const reason = isAoError(error) ? error.message : `the broker did not answer on ${options.socket}`;
    const text = brokerDownMessage(options.fallback, reason);
    if (options.fallback === "direct") sayOncePerHour(options.state, text, now(), write);
    else write(`${text}\n`);
    return EXIT_BROKER_DOWN;
  }

  try {
    const { sessions } = await client.listSessions();
    const existing = sessions.find((s) => s.id === id);
    if (!existing && !(await autoRegisterAllowed(client, env))) {
      write(
        `ao-broker shim: session "${id}" is not open on the broker and auto-registration is off; gh was not run. Open it first (\`ao-broker session open ${id} --repo OWNER/NAME\`), or set AO_BROKER_AUTO_REGISTER=1. (${ShimErrors.AO_ERR_SHIM_SESSION_REFUSED})\n`,
      );
      return EXIT_REFUSED;
    }
    let repo = existing?.repo ?? (options.repo ? normalizeRepo(options.repo) : undefined);
    if (!repo) repo = repoFromRemotes(await gitRemotes(options.toplevel || options.cwd));
    const opened = await client.openSession({
      id,
      repo: repo ?? UNKNOWN_REPO,
      ...(env.AO_PROJECT_ID ? { projectId: env.AO_PROJECT_ID } : {}),
      ...(env.AO_ISSUE_ID ? { issueId: env.AO_ISSUE_ID } : {}),
      ...(options.toplevel ? { worktree: options.toplevel } : {}),
      // One agent naming itself many times stays one fair share (docs/decisions/0008).
      ...(existing ? {} : { autoRegistered: true }),
    });
    const gateway = opened.env.HTTP_PROXY ?? client.broker.gatewayUrl;
    mkdirSync(options.state, { recursive: true, mode: 0o700 });
    mkdirSync(dirname(options.cache), { recursive: true, mode: 0o700 });
    const temp = `${options.cache}.tmp-${process.pid}`;
    writeFileSync(
      temp,
      formatCacheRecord({
        token: opened.token,
        gateway,
        socket: options.socket,
        session: opened.session.id,
        repo: opened.session.repo,
      }),
      { mode: 0o600 },
    );
    renameSync(temp, options.cache);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    write(
      `ao-broker shim: the broker refused session "${id}": ${message} (${ShimErrors.AO_ERR_SHIM_SESSION_REFUSED})\n`,
    );
    return EXIT_REFUSED;
  } finally {
    await client.close();
  }
}

/** The session id stored in a cache file, if it can be read. */
export function cachedSessionId(cache: string): string | undefined {
  try {
    return /^session=(.+)$/m.exec(readFileSync(cache, "utf8"))?.[1];
  } catch {
    return undefined;
  }
}
