/**
 * Recognises token-shaped strings so that no PAT or broker token ever leaves the process in a span
 * attribute, a metric label or an AO trace row. Two nets, like common/logger.ts: shapes (GitHub's
 * documented token prefixes, https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/,
 * and the broker's own aob_ tokens) and registered values (the PAT itself, the webhook secret),
 * because a PAT of an older format or a custom secret has no recognisable shape.
 *
 * Invariant: registered secrets shorter than 8 characters are ignored (replacing every "a" in
 * every attribute would make the output useless and protects nothing real).
 */

export const REDACTED = "[REDACTED]";

/** ghp_/gho_/ghu_/ghs_/ghr_ tokens, fine-grained github_pat_ tokens, the broker's aob_ tokens. */
const TOKEN_SHAPE = /gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}|aob_[A-Za-z0-9_-]{8,}/;
/** `Authorization: <scheme> <credentials>` inside free text (a header echoed into a message). */
const AUTHORIZATION_TEXT = /(authorization\s*[:=]\s*)("?)(?:(?:bearer|token|basic)\s+)?[^\s",;]+/i;

const MIN_SECRET_LENGTH = 8;

function hasRegisteredSecret(text: string, secrets: readonly string[]): boolean {
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && text.includes(secret)) return true;
  }
  return false;
}

/** True when `text` holds something token-shaped or one of `secrets`. */
export function containsSecret(text: string, secrets: readonly string[] = []): boolean {
  if (text.length < MIN_SECRET_LENGTH) return false;
  return TOKEN_SHAPE.test(text) || AUTHORIZATION_TEXT.test(text) || hasRegisteredSecret(text, secrets);
}

/** `text` with every token-shaped run and every registered secret replaced by [REDACTED]. */
export function scrubText(text: string, secrets: readonly string[] = []): string {
  if (!containsSecret(text, secrets)) return text;
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // Global copies are made per call: a shared /g regex carries lastIndex state between callers.
  out = out.replace(new RegExp(TOKEN_SHAPE.source, "g"), REDACTED);
  out = out.replace(
    new RegExp(AUTHORIZATION_TEXT.source, "gi"),
    (_match, prefix: string, quote: string) => `${prefix}${quote}${REDACTED}`,
  );
  return out;
}
