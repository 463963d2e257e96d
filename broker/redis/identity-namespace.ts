/**
 * Chooses the Redis namespace of this broker at start (see core/identity-fingerprint.ts for why):
 * asks the upstream who the token is (GET /user), derives the namespace from that user's id and
 * the upstream URL, and claims it with a record `<namespace>:identity`. A namespace whose record
 * names another identity is never joined (decision docs/decisions/0009-identity-namespace.md).
 *
 * Also: connecting the main Redis connection with an error that names the Redis it could not reach.
 */
import { createHmac } from "node:crypto";
import type { Redis } from "ioredis";
import { AoError, type Logger } from "../../common/index.js";
import { UpstreamClient } from "../upstream/index.js";
import {
  identityFingerprint,
  type NamespaceClaim,
  namespaceFor,
  normalizeUpstreamUrl,
  parseClaim,
  type TokenIdentity,
} from "./core/identity-fingerprint.js";
import { RedisErrors } from "./errors.js";
import { REDIS_DEFAULTS } from "./redis-settings.js";
import { describeRedisUrl } from "./redis-url.js";

export interface IdentityNamespace {
  /** The key prefix everything of this broker lives under. */
  readonly namespace: string;
  readonly login: string;
  readonly fingerprint: string;
  /** How the identity was learnt: GET /user, or a keyed hash for tokens GET /user refuses. */
  readonly source: "user" | "token-hash";
}

export interface ClaimIdentityNamespaceOptions {
  readonly redis: Redis;
  readonly basePrefix: string;
  readonly upstreamUrl: string;
  /**
   * The upstream as the identity names it, when that is not its URL: the embedded simulator
   * (--simulate) gets a new port every start, yet is the same upstream. @defaultValue upstreamUrl
   */
  readonly identityUpstream?: string | undefined;
  readonly token: string | undefined;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Attempts at GET /user before start fails. @defaultValue 3 */
  readonly attempts?: number;
  /** @defaultValue 1000 */
  readonly retryDelayMs?: number;
}

/** Asks the upstream who the token belongs to. */
async function whoAmI(
  options: ClaimIdentityNamespaceOptions,
): Promise<TokenIdentity & { source: IdentityNamespace["source"] }> {
  const client = new UpstreamClient({
    baseUrl: options.upstreamUrl,
    token: () => options.token,
    timeoutMs: Math.min(options.timeoutMs, 10_000),
  });
  const attempts = options.attempts ?? REDIS_DEFAULTS.identityAttempts;
  let lastProblem = "";
  try {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const answer = await client.send({ method: "GET", path: "/user" });
        if (answer.status === 200) {
          const body = JSON.parse(answer.body.toString("utf8")) as { id?: unknown; login?: unknown };
          if ((typeof body.id === "number" || typeof body.id === "string") && String(body.id).length > 0)
            return {
              userId: String(body.id),
              login: typeof body.login === "string" ? body.login : "",
              source: "user",
            };
          lastProblem = "GET /user answered without a user id";
        } else if (answer.status === 401) {
          throw new AoError(
            RedisErrors.AO_ERR_IDENTITY_REJECTED,
            `${normalizeUpstreamUrl(options.upstreamUrl)} rejected the token (GET /user answered 401 Bad credentials): check GITHUB_TOKEN / upstream.tokenFile`,
          );
        } else if (answer.status === 403 || answer.status === 404) {
          // A GitHub App installation token has no user; its identity is the token's keyed hash
          // (never the token), so one installation token still means one namespace.
          if (!options.token) throw new Error(`GET /user answered ${answer.status} and there is no token`);
          const digest = createHmac(
            "sha256",
            `ao-broker identity ${normalizeUpstreamUrl(options.upstreamUrl)}`,
          )
            .update(options.token)
            .digest("hex");
          options.logger.warn(
            { status: answer.status },
            "GET /user does not name a user for this token (an installation token?): its Redis namespace is derived from a keyed hash of the token",
          );
          return { userId: `token:${digest}`, login: "", source: "token-hash" };
        } else {
          lastProblem = `GET /user answered ${answer.status}`;
        }
      } catch (error) {
        if (error instanceof AoError && error.code === RedisErrors.AO_ERR_IDENTITY_REJECTED) throw error;
        lastProblem = error instanceof Error ? error.message : String(error);
      }
      if (attempt < attempts)
        await new Promise((r) =>
          setTimeout(r, (options.retryDelayMs ?? REDIS_DEFAULTS.identityRetryDelayMs) * attempt),
        );
    }
  } finally {
    await client.close();
  }
  throw new AoError(
    RedisErrors.AO_ERR_IDENTITY_UNVERIFIED,
    `cannot learn whose token this is from ${normalizeUpstreamUrl(options.upstreamUrl)}/user (${lastProblem}); the broker needs it to choose its Redis namespace — retry once the upstream answers`,
  );
}

/** Learns the token's identity and claims its namespace; throws when the namespace is another's. */
export async function claimIdentityNamespace(
  options: ClaimIdentityNamespaceOptions,
): Promise<IdentityNamespace> {
  const identity = await whoAmI(options);
  const named = options.identityUpstream ?? options.upstreamUrl;
  const fingerprint = identityFingerprint(named, identity);
  const namespace = namespaceFor(options.basePrefix, fingerprint);
  const key = `${namespace}:identity`;
  const upstream = normalizeUpstreamUrl(named);
  const created = await options.redis.hsetnx(key, "fingerprint", fingerprint);
  if (created === 1) {
    await options.redis.hset(key, { login: identity.login, upstream, claimedAt: String(Date.now()) });
  } else {
    const claim = parseClaim(await options.redis.hgetall(key));
    if (claim && claim.fingerprint !== fingerprint) throw otherIdentity(namespace, claim);
  }
  return { namespace, login: identity.login, fingerprint, source: identity.source };
}

function otherIdentity(namespace: string, claim: NamespaceClaim): AoError {
  return new AoError(
    RedisErrors.AO_ERR_NAMESPACE_OTHER_IDENTITY,
    `the Redis namespace "${namespace}" is recorded for another GitHub identity (${claim.login || "unknown user"} at ${claim.upstream || "an unknown upstream"}); this broker does not join it — set redis.prefix to a prefix of its own`,
  );
}

/**
 * Connects the main connection; a failure names the Redis (password masked) instead of ioredis's
 * bare "Connection is closed.".
 */
export async function connectRedis(redis: Redis, url: string): Promise<void> {
  let lastError: Error | undefined;
  const onError = (error: Error) => {
    lastError = error;
  };
  redis.on("error", onError);
  try {
    await redis.connect();
  } catch (error) {
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new AoError(
      RedisErrors.AO_ERR_REDIS_UNREACHABLE,
      `cannot reach Redis at ${describeRedisUrl(url)} (${reason}): start it, or point redis.url / REDIS_URL at one that runs`,
      { cause: error },
    );
  } finally {
    redis.off("error", onError);
  }
}
