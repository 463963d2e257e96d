/**
 * Identical in-flight reads share one upstream call — within this broker, and across brokers on
 * the same Redis.
 *
 * In process: the first request for a key (the leader) runs the rest of the pipeline; requests for
 * the same key arriving before it completes (followers) await the leader's answer and are labelled
 * COALESCED. The upstream cost is split evenly among everyone who shared the call (leader
 * included): followers join the flight's sharing list (only this layer changes it; the request
 * below carries a read-only view, `participants()`), which the budget layer reads when it settles,
 * so each session is charged its share.
 * A leader whose budget would wait (it had a stale answer; budget-layer.ts) gets a `wouldWait`
 * response: followers with a stale answer of their own take it too (and are served STALE above);
 * the others run again as a new flight that waits for the budget; remote followers lead.
 * Across brokers: the leader also takes a Redis lock `p:inflight:<hash>` (SET NX PX). A broker that
 * finds the lock taken waits for the leader's answer on the `p:coalesced` channel (the leader
 * publishes it when the waiter counter says someone is listening), and becomes a leader itself if the
 * lock vanishes without an answer (the other broker crashed) or its own deadline nears. The lock is
 * short (6 s) and the leader renews it every third of that while its flight lasts
 * (extendLock-1.lua), so a crashed leader's followers take over within seconds, not at a long TTL.
 * Invariants: a leader's error is its followers' error; nothing is cached from an error (the cache
 * layer above decides); writes are never coalesced; a read joins only a flight that read the same
 * tag generations (so no read made after a write gets an answer fetched before it).
 * A lock whose release failed (Redis went away as the flight ended) would make every later request
 * for the key wait out the lock's TTL for an answer nobody will publish. So lock values name this
 * broker: a lock of ours with no flight of ours behind it is stale and taken over at once, and
 * releases that failed are retried until they succeed or the lock has expired anyway.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import { ResponseCache } from "../cache/response-cache.js";
import { BrokerErrors } from "../errors.js";
import { LuaScripts } from "../redis/lua-scripts.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { COALESCE_DEFAULTS } from "./pipeline-settings.js";
import type { CostParticipant, CostSharing, GhRequest, GhResponse, Handler, Layer } from "./types.js";

export interface CoalesceLayerOptions {
  readonly logger: Logger;
  /** Cross-broker coalescing; omit for in-process only. */
  readonly shared?: {
    readonly redis: Redis;
    readonly pubsub: PubSubHub;
    readonly prefix: string;
    /** Answers larger than this are not published; remote followers then go upstream. @defaultValue 2 MiB */
    readonly maxPublishBytes?: number;
  };
  /** Lock lifetime, renewed by the leader every third of it. @defaultValue 6000 */
  readonly lockTtlMs?: number;
  /** How often a lock release that failed (Redis away) is tried again. @defaultValue 500 */
  readonly releaseRetryMs?: number;
}

interface Flight {
  readonly promise: Promise<GhResponse>;
  readonly sharing: SharingList;
}

/**
 * A flight's cost-sharing list. Only this layer adds to it (a follower joining); the layers below
 * see it through `participants()`, a frozen snapshot taken when they ask (the budget layer, when
 * it settles), never the list itself.
 */
class SharingList implements CostSharing {
  readonly #list: CostParticipant[];
  #snapshot: readonly CostParticipant[] | undefined;

  constructor(first: CostParticipant) {
    this.#list = [first];
  }

  add(participant: CostParticipant): void {
    this.#list.push(participant);
    this.#snapshot = undefined;
  }

  get size(): number {
    return this.#list.length;
  }

  participants(): readonly CostParticipant[] {
    this.#snapshot ??= Object.freeze(this.#list.map((p) => Object.freeze({ ...p })));
    return this.#snapshot;
  }
}

interface PublishedAnswer {
  readonly key: string;
  readonly ok: boolean;
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly resource?: string;
  readonly upstreamCost?: number;
}

function coalesceKey(request: GhRequest): string | undefined {
  const c = request.classification;
  if (!c.cacheKey || (c.kind !== "rest-read" && c.kind !== "graphql-query")) return undefined;
  // The generations the cache layer read: a read made after a write (or a signal) moved a tag
  // never joins a flight that started before it, whose answer may predate the change (a refresh
  // in flight while a session writes must not answer that session's next read).
  const generations = request.cacheContext
    ? Object.entries(request.cacheContext.generations)
        .map(([tag, g]) => `${tag}=${g}`)
        .sort()
        .join(",")
    : "";
  // The validator the cache layer attached is part of the request GitHub sees.
  const key = `${c.cacheKey}\u0000${request.headers["if-none-match"] ?? ""}\u0000${request.headers["if-modified-since"] ?? ""}`;
  return generations ? `${key}\u0000${generations}` : key;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export function coalesceLayer(options: CoalesceLayerOptions): Layer {
  const flights = new Map<string, Flight>();
  const remoteWaiters = new Map<string, Set<(answer: PublishedAnswer | undefined) => void>>();
  const lockTtl = options.lockTtlMs ?? COALESCE_DEFAULTS.lockTtlMs;
  const releaseRetryMs = options.releaseRetryMs ?? COALESCE_DEFAULTS.releaseRetryMs;
  const shared = options.shared;
  const scripts = shared
    ? new LuaScripts(shared.redis, ["extendLock-1.lua"], BrokerErrors.AO_ERR_STATE_UNAVAILABLE)
    : undefined;
  const channel = shared ? `${shared.prefix}:coalesced` : "";
  let subscribed: Promise<unknown> | undefined;
  // Lock values are `<this layer's id>:<flight id>`, so a stale lock of ours can be recognised.
  const owner = randomUUID();
  const orphans = new Map<string, { readonly token: string; readonly until: number }>();
  let orphanTimer: NodeJS.Timeout | undefined;

  /** Deletes `lockKey` (and its waiter counter) if it still holds `token`. */
  const releaseIfOurs = async (lockKey: string, token: string): Promise<void> => {
    if (!shared) return;
    if ((await shared.redis.get(lockKey)) === token) await shared.redis.del(lockKey, `${lockKey}:w`);
  };

  const retryOrphans = () => {
    orphanTimer = undefined;
    const now = Date.now();
    void Promise.all(
      [...orphans].map(async ([lockKey, orphan]) => {
        if (orphan.until <= now) {
          orphans.delete(lockKey);
          return;
        }
        try {
          await releaseIfOurs(lockKey, orphan.token);
          orphans.delete(lockKey);
        } catch {
          // Redis still away: try again on the next tick.
        }
      }),
    ).finally(() => {
      if (orphans.size > 0 && !orphanTimer) {
        orphanTimer = setTimeout(retryOrphans, releaseRetryMs);
        orphanTimer.unref();
      }
    });
  };

  const orphan = (lockKey: string, token: string) => {
    orphans.set(lockKey, { token, until: Date.now() + lockTtl });
    if (!orphanTimer) {
      orphanTimer = setTimeout(retryOrphans, releaseRetryMs);
      orphanTimer.unref();
    }
  };

  const ensureSubscribed = () => {
    if (!shared) return Promise.resolve();
    subscribed ??= shared.pubsub.subscribe(channel, (message) => {
      let answer: PublishedAnswer;
      try {
        answer = JSON.parse(message.toString("utf8")) as PublishedAnswer;
      } catch {
        return;
      }
      const waiters = remoteWaiters.get(answer.key);
      if (!waiters) return;
      remoteWaiters.delete(answer.key);
      for (const resolve of waiters) resolve(answer);
    });
    return subscribed;
  };

  const share = (response: GhResponse, sharedBy: number, role: "leader" | "follower"): GhResponse => {
    const upstreamCost = response.upstreamCost ?? response.cost;
    const each = sharedBy > 0 ? upstreamCost / sharedBy : upstreamCost;
    return {
      ...response,
      cost: round3(each),
      sharedBy,
      ...(role === "follower" ? { cache: "COALESCED" as const, waitedMs: undefined } : {}),
    };
  };

  /**
   * Follows `flight`. A leader whose budget would wait (it had a stale answer to fall back on) is
   * followed only by those with a stale answer of their own; the others run again (`retry`), as a
   * new flight that waits for the budget.
   */
  const join = async (
    flight: Flight,
    key: string,
    request: GhRequest,
    retry: () => Promise<GhResponse>,
  ): Promise<GhResponse> => {
    flight.sharing.add({ sessionId: request.caller.sessionId, basis: 1 });
    const response = await flight.promise;
    if (response.wouldWait && !request.staleAvailable) {
      // The leader has removed its flight by now (it awaited first); never rejoin an ended one.
      if (flights.get(key) === flight) flights.delete(key);
      return retry();
    }
    return share(response, flight.sharing.size, "follower");
  };

  const waitRemote = async (request: GhRequest, hashed: string): Promise<PublishedAnswer | undefined> => {
    if (!shared) return undefined;
    await ensureSubscribed();
    const lockKey = `${shared.prefix}:inflight:${hashed}`;
    await shared.redis.multi().incr(`${lockKey}:w`).pexpire(`${lockKey}:w`, lockTtl).exec();
    return new Promise<PublishedAnswer | undefined>((resolve) => {
      let settled = false;
      const finish = (answer: PublishedAnswer | undefined) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(deadline);
        remoteWaiters.get(hashed)?.delete(finish);
        resolve(answer);
      };
      let set = remoteWaiters.get(hashed);
      if (!set) {
        set = new Set();
        remoteWaiters.set(hashed, set);
      }
      set.add(finish);
      // The lock vanishing without an answer means the leader died (or finished just as we joined):
      // allow the message a moment to arrive, then lead ourselves.
      const poll = setInterval(() => {
        shared.redis.exists(lockKey).then(
          (exists) => {
            if (!exists) setTimeout(() => finish(undefined), 50);
          },
          () => undefined,
        );
      }, 250);
      const deadline = setTimeout(
        () => finish(undefined),
        Math.max(0, request.deadlineAt - Date.now() - 1000),
      );
    });
  };

  // Publish before releasing the lock: a follower that sees the lock gone must be able to assume
  // the answer, if there was one for it, has already been sent.
  const publish = async (hashed: string, answer: PublishedAnswer, token: string | undefined) => {
    if (!shared || token === undefined) return;
    const lockKey = `${shared.prefix}:inflight:${hashed}`;
    try {
      const waiters = await shared.redis.get(`${lockKey}:w`);
      if (Number(waiters ?? 0) > 0) await shared.redis.publish(channel, JSON.stringify(answer));
      await shared.redis.del(lockKey, `${lockKey}:w`);
    } catch (error) {
      options.logger.debug({ err: error }, "coalescing publish failed; remote followers will go upstream");
      orphan(lockKey, token);
    }
  };

  const lead = async (
    request: GhRequest,
    key: string,
    next: Handler,
    token?: string,
  ): Promise<GhResponse> => {
    const sharing = new SharingList({ sessionId: request.caller.sessionId, basis: 1 });
    const hashed = ResponseCache.hashKey(key);
    const lockKey = shared ? `${shared.prefix}:inflight:${hashed}` : "";
    const renew =
      token !== undefined && scripts
        ? setInterval(() => {
            scripts.run("extendLock", [lockKey], [token, lockTtl]).catch(() => undefined);
            // The followers' counter lives as long as the lock, or the answer would not be published.
            shared?.redis.pexpire(`${lockKey}:w`, lockTtl).catch(() => undefined);
          }, lockTtl / 3)
        : undefined;
    renew?.unref();
    const promise = (async () => {
      let answer: GhResponse;
      try {
        answer = await next({ ...request, sharing });
      } catch (error) {
        clearInterval(renew);
        await publish(hashed, { key: hashed, ok: false }, token);
        throw error;
      }
      clearInterval(renew);
      const maxBytes = shared?.maxPublishBytes ?? COALESCE_DEFAULTS.maxPublishBytes;
      await publish(
        hashed,
        // "Would wait" is no answer: remote followers lead themselves.
        !answer.wouldWait && answer.body.length <= maxBytes
          ? {
              key: hashed,
              ok: true,
              status: answer.status,
              headers: { ...answer.headers },
              body: answer.body.toString("base64"),
              resource: answer.resource,
              upstreamCost: 0,
            }
          : { key: hashed, ok: false },
        token,
      );
      return answer;
    })();
    flights.set(key, { promise, sharing });
    try {
      const response = await promise;
      return share(response, sharing.size, "leader");
    } finally {
      if (flights.get(key)?.sharing === sharing) flights.delete(key);
    }
  };

  return (next) => {
    const handle: Handler = async (request) => {
      const key = coalesceKey(request);
      if (!key) return next(request);
      const retry = () => handle(request);

      const flight = flights.get(key);
      if (flight) return join(flight, key, request, retry);

      if (!shared) return lead(request, key, next);

      const hashed = ResponseCache.hashKey(key);
      const lockKey = `${shared.prefix}:inflight:${hashed}`;
      const token = `${owner}:${randomUUID()}`;
      for (let attempt = 0; attempt < 3; attempt++) {
        let acquired: string | null = "OK";
        let held: string | null = null;
        try {
          acquired = await shared.redis.set(lockKey, token, "PX", lockTtl, "NX");
          if (acquired !== "OK") held = await shared.redis.get(lockKey);
        } catch (error) {
          options.logger.debug({ err: error }, "coalescing lock unavailable; leading locally");
          acquired = "LOCAL";
        }
        if (acquired === "OK") return lead(request, key, next, token);
        if (acquired === "LOCAL") return lead(request, key, next);
        // Another broker is fetching the same answer: wait for it, unless a local flight started meanwhile.
        const local = flights.get(key);
        if (local) return join(local, key, request, retry);
        if (held === null) continue; // released in between: try to take it
        if (held.startsWith(`${owner}:`)) {
          // Ours, yet no flight of ours runs: its release failed while Redis was away. Take it over.
          await releaseIfOurs(lockKey, held).catch(() => undefined);
          orphans.delete(lockKey);
          continue;
        }
        const answer = await waitRemote(request, hashed);
        if (answer?.ok && answer.status !== undefined && answer.body !== undefined) {
          return {
            status: answer.status,
            headers: answer.headers ?? {},
            body: Buffer.from(answer.body, "base64"),
            cache: "COALESCED",
            cost: 0,
            upstreamCost: 0,
            resource: answer.resource ?? request.classification.resource,
          };
        }
        if (answer && !answer.ok) break;
      }
      return lead(request, key, next);
    };
    return handle;
  };
}
