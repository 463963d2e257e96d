import { redactArgs, scrubText } from "../../../otel/index.js";

/**
 * Shapes of the identifiers sessions are made of, checked before anything touches Redis: session
 * ids become key segments and repos become GitHub paths, so both are restricted to what GitHub
 * and AO actually produce.
 */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/;
/** https://docs.github.com/en/repositories/creating-and-managing-repositories/creating-a-new-repository (owner/name charset) */
const REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

export function isValidRepo(repo: string): boolean {
  return REPO.test(repo) && !repo.endsWith("/.") && !repo.endsWith("/..");
}

export const TOKEN_PREFIX = { session: "aob_s_", invocation: "aob_i_" } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

/** Broker tokens look like `aob_s_<43 base64url chars>`; anything else is not ours. */
export function tokenKind(token: string): TokenKind | undefined {
  if (!/^aob_[si]_[A-Za-z0-9_-]{32,64}$/.test(token)) return undefined;
  return token.startsWith(TOKEN_PREFIX.session) ? "session" : "invocation";
}

/**
 * gh arguments as the broker may keep them (invocation records, recent commands, the call stream):
 * the trace file's rules (otel/core/redact-args.ts: Authorization headers, credential fields and
 * flags, `gh secret set --body/-b`, anything token-shaped).
 */
export function redactGhArgs(args: readonly string[]): string[] {
  return redactArgs(args);
}

/** "gh pr checks 12 --watch" from argv, with values of secret-looking flags dropped. */
export function summarizeArgv(argv: readonly string[], maxLength = 200): string {
  const parts: string[] = [];
  let redactNext = false;
  // With the command word, the positional rules (`secret set NAME --body VALUE`) apply too.
  const redacted = argv[0] === "gh" ? ["gh", ...redactArgs(argv.slice(1))] : argv.map((a) => scrubText(a));
  for (const arg of redacted) {
    if (redactNext) {
      parts.push("[REDACTED]");
      redactNext = false;
      continue;
    }
    if (/^--?(token|password|secret|auth)/i.test(arg)) {
      if (arg.includes("=")) parts.push(`${arg.split("=")[0]}=[REDACTED]`);
      else {
        parts.push(arg);
        redactNext = true;
      }
      continue;
    }
    if (/^(authorization|x-api-key):/i.test(arg)) {
      parts.push(`${arg.split(":")[0]}: [REDACTED]`);
      continue;
    }
    parts.push(/\s/.test(arg) ? JSON.stringify(arg) : arg);
  }
  const text = parts.join(" ");
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
