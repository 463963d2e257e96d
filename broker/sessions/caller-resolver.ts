/**
 * Turns the token on a gateway request into a Caller, on the hot path of every request.
 *
 * Resolved callers are cached in process for a short time (default 2 s) so a burst of requests
 * costs one Redis round trip, not one each. Revocation must still be immediate: the resolver listens
 * on the store's revocation channel (through the broker's shared subscriber) and drops revoked
 * hashes from its cache the moment any broker revokes them. Expiry is checked on every use against the token's own expiresAt.
 */

import { AoError } from "../../common/index.js";
import { ghOperation } from "../../otel/index.js";
import { BrokerErrors } from "../errors.js";
import type { Caller } from "../pipeline/types.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { summarizeArgv } from "./core/identifiers.js";
import { hashToken, type SessionRecord, type SessionStore, type TokenRecord } from "./session-store.js";
import { SESSIONS_DEFAULTS } from "./sessions-settings.js";

export interface CallerResolverOptions {
  readonly store: SessionStore;
  /** The broker's shared subscriber connection. */
  readonly pubsub: PubSubHub;
  /** @defaultValue 2000 */
  readonly cacheTtlMs?: number;
  /** @defaultValue 10000 */
  readonly maxCached?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /** How long a recent resolution stands in while Redis is unreachable. @defaultValue 900000 */
  readonly staleGraceMs?: number;
  /**
   * How long a token never seen before waits for an unreachable Redis to come back before the
   * caller gets a 503 (a Redis restart takes a second or two; failing at once would turn every
   * blip into errors for the agents that happened to start a command). @defaultValue 10000
   */
  readonly unverifiedWaitMs?: number;
  /**
   * Called when a token this resolver last saw valid (and unexpired) is not found: Redis may have
   * come back without its data, and the restore that health recovery starts may not have run
   * yet. It checks for that loss (restoring what this resolver knows) before the token is looked
   * up once more, so an agent holding a good token is not told 401 in that gap.
   */
  readonly onVanished?: () => Promise<void>;
  /** Called once per new invocation first seen through a derived token. */
  readonly onInvocation?: (invocation: {
    caller: Caller;
    invocationId: string;
    argv: readonly string[];
    cwd?: string | undefined;
  }) => void;
}

export interface ResolvedCaller {
  readonly caller: Caller;
  readonly expiresAt: number;
  readonly kind: "session" | "invocation";
}

export interface InvocationSuffix {
  readonly id: string;
  readonly argv: readonly string[];
  readonly cwd?: string | undefined;
}

/** Encodes what the shim appends to a session token for one gh invocation. */
export function invocationSuffix(invocation: InvocationSuffix): string {
  return Buffer.from(
    JSON.stringify({
      i: invocation.id,
      a: invocation.argv,
      ...(invocation.cwd ? { c: invocation.cwd } : {}),
    }),
  ).toString("base64url");
}

/** Parses and bounds an invocation suffix; undefined for anything malformed. */
export function parseInvocationSuffix(suffix: string): InvocationSuffix | undefined {
  if (suffix.length === 0 || suffix.length > 16_384 || !/^[A-Za-z0-9_-]+$/.test(suffix)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(suffix, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const record = parsed as { i?: unknown; a?: unknown; c?: unknown };
  if (typeof record.i !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(record.i)) return undefined;
  if (!Array.isArray(record.a) || record.a.length > 256 || !record.a.every((x) => typeof x === "string"))
    return undefined;
  if (record.c !== undefined && (typeof record.c !== "string" || record.c.length > 4096)) return undefined;
  return { id: record.i, argv: record.a as string[], cwd: record.c as string | undefined };
}

interface CacheEntry {
  readonly value: ResolvedCaller | undefined;
  readonly until: number;
  /** What Redis held for this token, to put back if Redis loses its data. */
  readonly source?: { readonly token: TokenRecord; readonly session: SessionRecord } | undefined;
}

export class CallerResolver {
  readonly #options: CallerResolverOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #seenInvocations = new Set<string>();
  readonly #now: () => number;
  #unsubscribe: (() => Promise<void>) | undefined;
  readonly #onMessage = (message: Buffer) => {
    try {
      for (const hash of JSON.parse(message.toString("utf8")) as string[]) this.#cache.delete(hash);
    } catch {
      this.#cache.clear();
    }
  };

  constructor(options: CallerResolverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#options.pubsub.subscribe(
      this.#options.store.revocationChannel,
      this.#onMessage,
    );
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#cache.clear();
  }

  /** Forget every cached resolution (e.g. after a Redis reconnect, when messages may have been missed). */
  flush(): void {
    this.#cache.clear();
  }

  /**
   * Resolves a broker token. A session token may carry an invocation suffix the shim derives
   * itself — `<session token>.<base64url JSON {i, a, c}>` (invocation id, argv, cwd) — so each gh
   * command is attributed without a round trip to the broker before gh starts. The suffix is
   * self-declared attribution within the session the token already proves; it grants nothing.
   */
  async resolve(token: string): Promise<ResolvedCaller | undefined> {
    const dot = token.indexOf(".");
    const base = dot === -1 ? token : token.slice(0, dot);
    const resolved = await this.#resolveBase(base);
    if (!resolved || dot === -1) return resolved;
    if (resolved.kind !== "session") return undefined;
    const invocation = parseInvocationSuffix(token.slice(dot + 1));
    if (!invocation) return undefined;
    if (!this.#seenInvocations.has(invocation.id)) {
      // Attribution is best effort while Redis is unreachable: the request still proceeds.
      const recorded = await this.#options.store
        .recordInvocation({
          id: invocation.id,
          sessionId: resolved.caller.sessionId,
          argv: invocation.argv,
          cwd: invocation.cwd,
        })
        .catch(() => ({ ok: true, created: false }));
      if (!recorded.ok) return undefined;
      if (recorded.created) {
        this.#options.onInvocation?.({
          caller: resolved.caller,
          invocationId: invocation.id,
          argv: invocation.argv,
          cwd: invocation.cwd,
        });
      }
      if (this.#seenInvocations.size >= 10_000) this.#seenInvocations.clear();
      this.#seenInvocations.add(invocation.id);
    }
    return {
      ...resolved,
      caller: {
        ...resolved.caller,
        invocationId: invocation.id,
        command: summarizeArgv(["gh", ...invocation.argv]),
      },
    };
  }

  async #resolveBase(token: string): Promise<ResolvedCaller | undefined> {
    const hash = hashToken(token);
    const now = this.#now();
    const cached = this.#cache.get(hash);
    if (cached && cached.until > now) {
      return cached.value && cached.value.expiresAt > now ? cached.value : undefined;
    }
    let found: Awaited<ReturnType<CallerResolver["lookupRecords"]>>;
    try {
      found = await this.lookupRecords(token);
    } catch (error) {
      // Redis is unreachable: a token resolved recently keeps working (stale-if-error, up to the
      // grace period); one never seen waits a little for Redis, then the caller is told (503).
      if (
        cached &&
        now - cached.until < (this.#options.staleGraceMs ?? SESSIONS_DEFAULTS.callerStaleGraceMs)
      ) {
        return cached.value && cached.value.expiresAt > now ? cached.value : undefined;
      }
      found = await this.#lookupWhenBack(token, error);
    }
    if (
      !found?.resolved &&
      cached?.source &&
      cached.value &&
      cached.value.expiresAt > now &&
      this.#options.onVanished
    ) {
      await this.#options.onVanished().catch(() => undefined);
      found = await this.lookupRecords(token).catch(() => found);
    }
    if (this.#cache.size >= (this.#options.maxCached ?? SESSIONS_DEFAULTS.callerMaxCached)) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    const value = found?.resolved;
    this.#cache.set(hash, {
      value,
      until: now + (this.#options.cacheTtlMs ?? SESSIONS_DEFAULTS.callerCacheTtlMs),
      source: found ? { token: found.token, session: found.session } : undefined,
    });
    return value;
  }

  /** Retries a lookup until Redis answers or unverifiedWaitMs has passed. */
  async #lookupWhenBack(
    token: string,
    firstError: unknown,
  ): Promise<Awaited<ReturnType<CallerResolver["lookupRecords"]>>> {
    const giveUpAt = Date.now() + (this.#options.unverifiedWaitMs ?? SESSIONS_DEFAULTS.unverifiedWaitMs);
    let error = firstError;
    while (Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      try {
        return await this.lookupRecords(token);
      } catch (next) {
        error = next;
      }
    }
    throw new AoError(
      BrokerErrors.AO_ERR_STATE_UNAVAILABLE,
      "ao-broker cannot verify tokens right now (its Redis is unreachable); retry shortly",
      {
        httpStatus: 503,
        data: { retryAfterSeconds: 5 },
        cause: error,
      },
    );
  }

  /**
   * After Redis lost its data (a restart without persistence), writes back every session and token
   * this broker resolved recently, so agents keep working. Revocations issued while the data was
   * lost cannot be known; a revoked-then-restored token lives at most until its own expiry.
   */
  async restoreInto(store: SessionStore): Promise<number> {
    let restored = 0;
    const now = this.#now();
    for (const [hash, entry] of this.#cache) {
      if (!entry.source || entry.source.token.expiresAt <= now) continue;
      await store.restore(hash, entry.source.token, entry.source.session);
      restored += 1;
    }
    return restored;
  }

  /** Reads a token and its session from Redis (throws when Redis is unreachable). */
  async lookupRecords(
    token: string,
  ): Promise<{ resolved: ResolvedCaller; token: TokenRecord; session: SessionRecord } | undefined> {
    const record = await this.#options.store.resolveToken(token);
    if (!record) return undefined;
    const session = await this.#options.store.get(record.sessionId);
    if (!session) return undefined;
    const invocation = record.invocationId
      ? await this.#options.store.getInvocation(record.invocationId)
      : undefined;
    const resolved: ResolvedCaller = {
      kind: record.kind,
      expiresAt: record.expiresAt,
      caller: {
        sessionId: session.id,
        projectId: session.projectId,
        issueId: session.issueId,
        invocationId: record.invocationId,
        command: invocation?.command,
        operation: invocation ? ghOperation(invocation.argv) : undefined,
        readOnly: record.readOnly || session.readOnly,
        weight: session.weight,
        budgetGroup: session.budgetGroup,
      },
    };
    return { resolved, token: record, session };
  }
}
