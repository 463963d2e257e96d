/**
 * The shim's Node helper commands, as the installed shell shim calls them (`node shim-helper.js
 * <command> --flag value ...`) and as `ao-broker shim <command>` exposes them: `session` (register
 * and cache the session token), `auth-status`, `notice` (budget-wait notice) and `flush` (send
 * finished invocations without curl). Returns the process exit code; never throws.
 */
import { authStatus } from "./auth-status.js";
import { budgetWaitNotice } from "./budget-wait-notice.js";
import { DEFAULT_FALLBACK, parseFallback } from "./core/fallback-policy.js";
import { parseHelperArgs } from "./core/parse-flags.js";
import { ShimErrors } from "./errors.js";
import { flushSpool } from "./flush-spool.js";
import { EXIT_BAD_INPUT, registerSession } from "./register-session.js";

const FLAGS: Readonly<Record<string, readonly string[]>> = {
  session: ["cache", "key", "id", "toplevel", "repo", "socket", "state", "fallback", "cwd"],
  "auth-status": ["gateway", "socket", "session", "cache"],
  notice: ["socket", "pid"],
  flush: ["spool", "cache"],
};

function need(flags: Readonly<Record<string, string>>, name: string): string {
  const value = flags[name];
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

export async function runHelper(argv: readonly string[]): Promise<number> {
  const command = argv[0] ?? "";
  const allowed = FLAGS[command];
  if (!allowed) {
    process.stderr.write(
      `ao-broker shim: unknown helper command "${command}" (${Object.keys(FLAGS).join(", ")}) (${ShimErrors.AO_ERR_SHIM_BAD_INPUT})\n`,
    );
    return EXIT_BAD_INPUT;
  }
  let flags: Readonly<Record<string, string>>;
  try {
    flags = parseHelperArgs(argv, allowed).flags;
    if (command === "session") {
      return await registerSession({
        cache: need(flags, "cache"),
        id: flags.id || undefined,
        toplevel: flags.toplevel || undefined,
        repo: flags.repo || undefined,
        socket: need(flags, "socket"),
        state: need(flags, "state"),
        fallback: parseFallback(flags.fallback) ?? DEFAULT_FALLBACK,
        cwd: flags.cwd || process.cwd(),
      });
    }
    if (command === "auth-status") {
      return await authStatus({
        gateway: need(flags, "gateway"),
        socket: need(flags, "socket"),
        session: flags.session ?? "",
        cache: flags.cache || undefined,
      });
    }
    if (command === "notice") {
      const pid = Number(need(flags, "pid"));
      if (!Number.isInteger(pid) || pid <= 0) throw new Error("--pid must be a process id");
      return await budgetWaitNotice({ socket: need(flags, "socket"), pid });
    }
    return await flushSpool({ spool: need(flags, "spool"), cache: flags.cache || undefined });
  } catch (error) {
    process.stderr.write(
      `ao-broker shim: ${command}: ${error instanceof Error ? error.message : String(error)} (${ShimErrors.AO_ERR_SHIM_BAD_INPUT})\n`,
    );
    return EXIT_BAD_INPUT;
  }
}
