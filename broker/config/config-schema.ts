/**
 * The broker's configuration: one zod schema, validated once at the edge (CLI flags, environment,
 * config file) and deep-frozen. Defaults live here and nowhere else; `.describe()` texts generate
 * docs/config.md (scripts/gen-config-docs.mjs, checked by a test). Internal modules take typed
 * options derived from this and never re-validate.
 */
import { z } from "zod";
import { DEFAULT_BATCH_BUDGETS_MS } from "../batch/core/batch-class.js";
import { DEFAULT_UPSTREAM_POLICY } from "../upstream/upstream-policy.js";

const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "expected HOST:PORT, e.g. 127.0.0.1:7878");

const fraction = z.number().min(0).max(0.9);
const ms = z.number().int().min(0);

export const configSchema = z.strictObject({
  listen: hostPort
    .default("127.0.0.1:7878")
    .describe("Gateway HTTP listener (HOST:PORT). Loopback unless told otherwise."),
  socket: z
    .string()
    .optional()
    .describe("IPC Unix socket path. Default: $AO_BROKER_SOCKET or ~/.ao-broker/broker.sock."),
  stateDir: z
    .string()
    .optional()
    .describe("State directory (the private redis-server lives here). Default: ~/.ao-broker."),
  simulate: z.boolean().default(false).describe("Run an embedded github-sim as upstream; no PAT needed."),
  upstream: z
    .strictObject({
      url: z.url().default("https://api.github.com").describe("GitHub API base URL."),
      tokenFile: z.string().optional().describe("File holding the PAT (else GITHUB_TOKEN or GH_TOKEN)."),
      timeoutMs: ms.default(30_000).describe("Per-request upstream timeout."),
      forwardClientHost: z
        .boolean()
        .default(false)
        .describe(
          "Send X-Forwarded-Host/-Proto with the host the client used, so an upstream that builds URLs from it (the simulator) answers as if asked directly. On with --simulate.",
        ),
    })
    .prefault({}),
  redis: z
    .strictObject({
      url: z
        .string()
        .optional()
        .describe(
          "redis://, rediss:// or unix:// location. Default: REDIS_URL, else 127.0.0.1:6379 if it answers, else a private redis-server.",
        ),
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,32}$/)
        .default("aob")
        .describe(
          "Key prefix. Keys live under <prefix>:<fingerprint of the token's user id and the upstream URL>, so only brokers of one identity share a budget; they use the same prefix.",
        ),
    })
    .prefault({}),
  gateway: z
    .strictObject({
      publicHost: z
        .string()
        .default("api.github.localhost")
        .describe("API host gh uses in proxy mode (GH_HOST=github.localhost)."),
      maxBodyBytes: z
        .number()
        .int()
        .min(1024)
        .default(25 * 1024 * 1024)
        .describe("Largest request body accepted (413 beyond)."),
      maxConnections: z
        .number()
        .int()
        .min(8)
        .default(512)
        .describe(
          "Gateway connections open at once. One more evicts, in order: connections that have not shown a valid broker token, then authenticated keep-alive ones waiting for their next request; an authenticated request in progress is never cut (503 when all are). With ipc.maxConnections (256) it leaves ~256 of a 1024 file-descriptor limit for upstream, Redis and files.",
        ),
      headerTimeoutMs: ms
        .min(100)
        .default(10_000)
        .describe(
          "Time a connection has to complete a request's headers, from connect (or from its last answer while no valid token was seen on it); then it is closed. Stops slowloris clients.",
        ),
      idleTimeoutMs: ms
        .min(100)
        .default(65_000)
        .describe("How long an authenticated keep-alive connection may wait for its next request."),
      defaultDeadlineMs: ms
        .default(10 * 60_000)
        .describe("How long a request may wait for budget before the caller gets GitHub's rate-limit error."),
      allowRemoteMetrics: z
        .boolean()
        .default(false)
        .describe("Serve /metrics to non-loopback peers (for Prometheus in a container)."),
      blobHosts: z
        .array(z.string())
        .default([
          "pipelines.actions.githubusercontent.com",
          "results-receiver.actions.githubusercontent.com",
          "productionresultssa0.blob.core.windows.net",
        ])
        .describe(
          "Hosts of pre-signed artifact/log downloads that gh follows after a redirect; fetched without the PAT.",
        ),
    })
    .prefault({}),
  ipc: z
    .strictObject({
      maxConnections: z
        .number()
        .int()
        .min(4)
        .default(256)
        .describe(
          "IPC connections open at once. One more evicts a connection that has not said hello (oldest first), else the longest-idle one with no call in flight and no event subscription; only when none is evictable is it refused (-32003).",
        ),
      helloTimeoutMs: ms
        .min(100)
        .default(10_000)
        .describe("Time a new IPC connection has to send hello before it is closed."),
    })
    .prefault({}),
  sessions: z
    .strictObject({
      sessionTokenTtlSeconds: z
        .number()
        .int()
        .min(60)
        .default(7 * 24 * 3600)
        .describe("Lifetime of a session token."),
      invocationTokenTtlSeconds: z
        .number()
        .int()
        .min(10)
        .default(6 * 3600)
        .describe("Lifetime of a per-invocation (one gh command) token."),
      autoRegister: z
        .boolean()
        .default(true)
        .describe("Open a session on first use by the shim when none exists (local brokers)."),
    })
    .prefault({}),
  cache: z
    .strictObject({
      restFreshMs: ms
        .default(10_000)
        .describe(
          "REST reads served without any upstream call for this long; then revalidated with If-None-Match (a 304 is free).",
        ),
      graphqlFreshMs: z
        .strictObject({
          checks: ms
            .default(10_000)
            .describe("Queries touching CI state (statusCheckRollup, checkRuns, checkSuites)."),
          pullRequest: ms.default(15_000).describe("Queries about pull requests."),
          issue: ms.default(30_000).describe("Queries about issues and their comments."),
          other: ms.default(15_000).describe("Anything else."),
        })
        .prefault({}),
      guardedFreshMs: ms
        .default(20_000)
        .describe(
          "GraphQL answers about PRs the lifecycle watches stay served this long after its guards last saw nothing change (each change it sees invalidates them first); 0 turns it off.",
        ),
      maxBytes: z
        .number()
        .int()
        .min(1024 * 1024)
        .default(256 * 1024 * 1024)
        .describe("Memory bound of the cache in Redis; least recently used entries are evicted beyond it."),
      maxEntryBytes: z
        .number()
        .int()
        .min(1024)
        .default(8 * 1024 * 1024)
        .describe("Answers larger than this are not cached."),
      localBytes: z
        .number()
        .int()
        .min(0)
        .default(64 * 1024 * 1024)
        .describe(
          "Fresh answers also kept in this broker's memory (no Redis round trip on a hit); 0 disables. Invalidations reach it through Redis pub/sub.",
        ),
      retainSeconds: z
        .number()
        .int()
        .min(60)
        .default(3600)
        .describe("How long entries stay (for revalidation and stale serving) after they stop being fresh."),
    })
    .prefault({}),
  budget: z
    .strictObject({
      reserve: z
        .strictObject({
          lifecycle: fraction.default(0.1).describe("Share of each window kept for the lifecycle poller."),
          interactive: fraction.default(0.05).describe("Further share kept for interactive agent reads."),
        })
        .prefault({}),
      pace: z
        .strictObject({
          burstFraction: z
            .number()
            .positive()
            .max(1)
            .default(0.1)
            .describe(
              "Share of a window that may be spent at once; the rest no faster than GitHub refills it. 1 = no pacing.",
            ),
          burstMin: z
            .number()
            .int()
            .min(0)
            .default(100)
            .describe("Smallest burst, in points or requests; windows this small are not paced."),
          keepFraction: fraction
            .default(0.02)
            .describe(
              "Share of a window a session beyond its fair share (or past this much spend) leaves in the paced budget for lighter ones.",
            ),
        })
        .prefault({}),
      windowSeconds: z
        .number()
        .positive()
        .default(3600)
        .describe(
          "Length of GitHub's core and graphql windows; change only for a simulator with compressed time.",
        ),
    })
    .prefault({}),
  batching: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .describe("Merge compatible GraphQL queries from different sessions into one aliased query."),
      latencyBudgetMs: z
        .strictObject({
          interactive: ms
            .default(DEFAULT_BATCH_BUDGETS_MS.interactive)
            .describe("How long a first-time interactive query may wait for partners."),
          repeat: ms
            .default(DEFAULT_BATCH_BUDGETS_MS.repeat)
            .describe("A query the same session sent within the last minute (a polling loop)."),
          watch: ms
            .default(DEFAULT_BATCH_BUDGETS_MS.watch)
            .describe("Watch loops: gh pr checks --watch, gh run watch."),
          lifecycle: ms
            .default(DEFAULT_BATCH_BUDGETS_MS.lifecycle)
            .describe("The lifecycle poller's queries."),
          background: ms.default(DEFAULT_BATCH_BUDGETS_MS.background).describe("Background work."),
        })
        .prefault({}),
      maxMembers: z.number().int().min(2).max(100).default(50).describe("Queries merged into one."),
      maxCost: z
        .number()
        .int()
        .min(1)
        .max(500)
        .default(20)
        .describe("Largest computed point cost of a merged query."),
    })
    .prefault({}),
  lifecycle: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .describe("Run the lifecycle poller (PR state for watched sessions, events, webhooks)."),
      settings: z
        .record(z.string(), z.union([z.number(), z.boolean()]))
        .default({})
        .describe(
          'Overrides of the lifecycle\'s settings (docs/lifecycle.md), e.g. {"cycleIntervalMs": 10000, "enrichmentBatchSize": 25}.',
        ),
    })
    .prefault({}),
  queue: z
    .strictObject({
      concurrency: z
        .number()
        .int()
        .min(1)
        .max(99)
        .default(50)
        .describe("Upstream requests in flight across all brokers (GitHub allows 100)."),
      pacing: z
        .strictObject({
          mutationSpacingMs: ms
            .default(DEFAULT_UPSTREAM_POLICY.mutationSpacingMs)
            .describe("Least time between two mutations sent upstream (any broker)."),
          graphqlPointsPerMinute: z
            .number()
            .int()
            .positive()
            .default(DEFAULT_UPSTREAM_POLICY.graphqlPointsPerMinute)
            .describe("GraphQL points sent per minute at most (GitHub's secondary limit is 2,000)."),
          restPointsPerMinute: z
            .number()
            .int()
            .positive()
            .default(DEFAULT_UPSTREAM_POLICY.restPointsPerMinute)
            .describe("REST points sent per minute at most (GitHub's secondary limit is 900)."),
          contentCreationPerMinute: z
            .number()
            .int()
            .positive()
            .default(DEFAULT_UPSTREAM_POLICY.contentCreationPerMinute)
            .describe("Content-creating requests per minute at most (GitHub allows 80)."),
          contentCreationPerHour: z
            .number()
            .int()
            .positive()
            .default(DEFAULT_UPSTREAM_POLICY.contentCreationPerHour)
            .describe("Content-creating requests per hour at most (GitHub allows 500)."),
          secondaryMinuteMs: z
            .number()
            .int()
            .min(600)
            .multipleOf(60)
            .default(DEFAULT_UPSTREAM_POLICY.secondaryMinuteMs)
            .describe(
              "Length of the secondary limits' minute (the hour is 60 of them); change only for a simulator with compressed time (its secondaryMinuteMs must match).",
            ),
        })
        .prefault({})
        .describe(
          "The upstream queue's pacing below GitHub's secondary limits; the benchmark scales these with its time compression.",
        ),
    })
    .prefault({}),
  webhooks: z
    .strictObject({
      secret: z
        .string()
        .optional()
        .describe(
          "Webhook secret for X-Hub-Signature-256 (or AO_BROKER_WEBHOOK_SECRET). Without it the endpoint answers 404.",
        ),
    })
    .prefault({}),
  logLevel: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level."),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
