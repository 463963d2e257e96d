/**
 * Which Redis namespace a broker's state lives in. Everything a broker keeps in Redis — sessions,
 * tokens, the cache, the budget windows, the BullMQ queue — is keyed under one prefix; two brokers
 * with the same prefix share all of it, including the queue whose workers send jobs with their own
 * token. So the prefix a broker uses is the configured one plus a fingerprint of WHO the token is
 * (the authenticated user's id) and WHERE it is sent (the upstream URL): brokers of one identity
 * land in one namespace and share one budget; brokers of different identities can never meet.
 *
 * Invariant: the token itself never enters the fingerprint (it is derived from public facts: the
 * user id and the URL), so a Redis dump reveals nothing usable.
 */
import { createHash } from "node:crypto";

/** The authenticated user behind the token, as GET /user answered. */
export interface TokenIdentity {
  /** GitHub's numeric user id, as text (stable across renames). */
  readonly userId: string;
  readonly login: string;
}

/** Hex characters of the fingerprint that go into the key prefix (64 bits). */
export const NAMESPACE_FINGERPRINT_CHARS = 16;

/** https://api.github.com, https://API.github.com/ and https://api.github.com:443 are one upstream. */
export function normalizeUpstreamUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    parsed.search = "";
    parsed.username = "";
    parsed.password = "";
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return url.trim().replace(/\/+$/, "").toLowerCase();
  }
}

/** The full fingerprint (64 hex): sha256 over a version tag, the upstream and the user id. */
export function identityFingerprint(upstreamUrl: string, identity: Pick<TokenIdentity, "userId">): string {
  return createHash("sha256")
    .update(`ao-broker identity v1\n${normalizeUpstreamUrl(upstreamUrl)}\n${identity.userId}`)
    .digest("hex");
}

/** `aob` + fingerprint → `aob:3f9a0c…` (the prefix every key of this identity starts with). */
export function namespaceFor(basePrefix: string, fingerprint: string): string {
  return `${basePrefix}:${fingerprint.slice(0, NAMESPACE_FINGERPRINT_CHARS)}`;
}

/** What a namespace's claim key holds: enough for a person to see whose it is, nothing secret. */
export interface NamespaceClaim {
  readonly fingerprint: string;
  readonly login: string;
  readonly upstream: string;
  readonly claimedAt: number;
}

export function parseClaim(raw: Record<string, string>): NamespaceClaim | undefined {
  if (!raw.fingerprint) return undefined;
  return {
    fingerprint: raw.fingerprint,
    login: raw.login ?? "",
    upstream: raw.upstream ?? "",
    claimedAt: Number(raw.claimedAt ?? 0),
  };
}
