/**
 * Turns the token on a gateway request into a Caller, on the hot path of every request.
 *
 * Resolved callers are cached in process for a short time (default 2 s) so a burst of requests
 * costs one Redis round trip, not one each. Revocation must still be immediate: the resolver listens
 * on the store's revocation channel (through the broker's shared subscriber) and drops revoked
 * hashes from its cache the moment any broker revokes them. Expiry is checked on every use against the token's own expiresAt.
 */
import type { Caller } from "../pipeline/types.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { hashToken, type SessionStore } from "./session-store.js";

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
}

export interface ResolvedCaller {
  readonly caller: Caller;
  readonly expiresAt: number;
  readonly kind: "session" | "invocation";
}

interface CacheEntry {
  readonly value: ResolvedCaller | undefined;
  readonly until: number;
}

export class CallerResolver {
  readonly #options: CallerResolverOptions;
  readonly #cache = new Map<string, CacheEntry>();
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

  async resolve(token: string): Promise<ResolvedCaller | undefined> {
    const hash = hashToken(token);
    const now = this.#now();
    const cached = this.#cache.get(hash);
    if (cached && cached.until > now) {
      return cached.value && cached.value.expiresAt > now ? cached.value : undefined;
    }
    const value = await this.#lookup(token);
    if (this.#cache.size >= (this.#options.maxCached ?? 10_000)) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(hash, { value, until: now + (this.#options.cacheTtlMs ?? 2000) });
    return value;
  }

  async #lookup(token: string): Promise<ResolvedCaller | undefined> {
    const record = await this.#options.store.resolveToken(token);
    if (!record) return undefined;
    const session = await this.#options.store.get(record.sessionId);
    if (!session) return undefined;
    const invocation = record.invocationId
      ? await this.#options.store.getInvocation(record.invocationId)
      : undefined;
    return {
      kind: record.kind,
      expiresAt: record.expiresAt,
      caller: {
        sessionId: session.id,
        projectId: session.projectId,
        issueId: session.issueId,
        invocationId: record.invocationId,
        command: invocation?.command,
        readOnly: record.readOnly || session.readOnly,
        weight: session.weight,
      },
    };
  }
}
