/**
 * Sessions for the composition root: the session store, the call statistics, and the caller
 * resolver (broker tokens → callers, kept in step across brokers over pub/sub), with the restore of
 * recently seen sessions after Redis loses its data. Each part adds its own stop step.
 */
import type { BrokerContext } from "../broker-context.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import { CallerResolver, type CallerResolverOptions } from "./caller-resolver.js";
import { restoreSessionsAfterDataLoss } from "./restore-after-data-loss.js";
import { SessionStats } from "./session-stats.js";
import { SessionStore } from "./session-store.js";

export interface BrokerSessions {
  readonly store: SessionStore;
  readonly stats: SessionStats;
  readonly resolver: CallerResolver;
}

/** The store and the statistics: needed by observability before the resolver starts. */
export function createSessionRecords(
  context: BrokerContext,
  r: BrokerRedis,
): Pick<BrokerSessions, "store" | "stats"> {
  const { config, shutdown } = context;
  const store = new SessionStore({
    redis: r.redis,
    prefix: r.prefix,
    sessionTokenTtlSeconds: config.sessions.sessionTokenTtlSeconds,
    invocationTokenTtlSeconds: config.sessions.invocationTokenTtlSeconds,
    known: {
      maxSessions: config.sessions.knownSessionsMax,
      maxTokensPerSession: config.sessions.knownTokensPerSession,
      retainMs: config.sessions.knownRetainMs,
    },
  });
  const stats = new SessionStats({
    redis: r.redis,
    prefix: r.prefix,
    callsRetained: config.sessions.callsRetained,
  });
  shutdown.add("session stats", () => stats.close(), r.stepTimeout());
  return { store, stats };
}

export async function startSessions(
  context: BrokerContext,
  r: BrokerRedis,
  records: Pick<BrokerSessions, "store" | "stats">,
  onInvocation: NonNullable<CallerResolverOptions["onInvocation"]>,
): Promise<BrokerSessions> {
  const { store, stats } = records;
  // Bound below, once the data-loss watch exists (it needs the resolver to restore from).
  let checkForDataLoss: (() => Promise<void>) | undefined;
  const resolver = new CallerResolver({
    store,
    pubsub: r.pubsub,
    cacheTtlMs: context.config.sessions.callerCacheTtlMs,
    maxCached: context.config.sessions.callerMaxCached,
    staleGraceMs: context.config.sessions.callerStaleGraceMs,
    unverifiedWaitMs: context.config.sessions.unverifiedWaitMs,
    onVanished: () => checkForDataLoss?.() ?? Promise.resolve(),
    onInvocation: (invocation) => {
      stats.recordInvocation(invocation.caller.sessionId);
      onInvocation(invocation);
    },
  });
  await resolver.start();
  context.shutdown.add("caller resolver", () => resolver.close(), r.stepTimeout());
  checkForDataLoss = await restoreSessionsAfterDataLoss({
    redis: r.redis,
    prefix: r.prefix,
    health: r.health,
    resolver,
    store,
    logger: context.logger,
  });
  return { store, stats, resolver };
}
