/**
 * The upstream queue: every request that must reach GitHub goes through it (BullMQ on the shared
 * Redis), so ALL brokers together respect GitHub's limits.
 *
 * - Two lanes. `reads`: priorities lifecycle > interactive > write > background, with aging so
 *   nothing starves. `writes` (mutations): one at a time across all brokers, ≥ mutationSpacingMs
 *   apart (BullMQ's limiter), and never sent twice: a write whose broker died is run again by a
 *   survivor, and its "started" marker (set immediately before the send) turns a re-run of a
 *   write that may have left into AO_ERR_WRITE_OUTCOME_UNKNOWN.
 * - A global concurrency cap across brokers (BullMQ global concurrency): concurrency − 1 reads,
 *   1 write; GitHub allows 100.
 * - Workers run on every broker; the submitter gets the result wherever the job ran, through its
 *   own reply channel (reply-channel.ts).
 * - Deadlines: a job not yet running at its caller's deadline is removed and the caller gets
 *   AO_ERR_UPSTREAM_DEADLINE; a running one is given its timeout to answer.
 * - close() drains: no new submissions, this broker's submitted jobs get drainTimeoutMs to
 *   finish, workers finish what they run, then connections close.
 * - Redis restarts: a reply missed during a reconnect, or a job Redis lost (it came back empty),
 *   is found within replySweepMs (reply-sweep.ts): lost reads run again, lost writes are reported
 *   as outcome unknown. BullMQ's global concurrency (a Redis setting) is applied again on every
 *   reconnect, since an emptied Redis forgets it.
 */
import { randomUUID } from "node:crypto";
import { type Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { AoError, type Logger, silentLogger } from "../../common/index.js";
import { LuaScripts } from "../redis/lua-scripts.js";
import { createRedisClient } from "../redis/redis-url.js";
import { agingMember, promoteAgedJobs } from "./aging-pass.js";
import { BULLMQ_PRIORITY, promoteAt } from "./core/priority.js";
import { isStaleWait, type PacedWait, parseWait, windowSum } from "./core/secondary-window.js";
import { DeadlineWatch } from "./deadline-watch.js";
import { UpstreamErrors } from "./errors.js";
import { type Expectation, ReplyChannel } from "./reply-channel.js";
import { ReplySweep, type SweptJob } from "./reply-sweep.js";
import type { UpstreamClient } from "./upstream-client.js";
import {
  type Lane,
  resultFromReply,
  toJobData,
  type UpstreamJob,
  type UpstreamJobData,
  type UpstreamResult,
} from "./upstream-job.js";
import { type UpstreamKeys, upstreamKeys } from "./upstream-keys.js";
import { resolveUpstreamPolicy, type UpstreamPolicy, type UpstreamPolicyInput } from "./upstream-policy.js";
import {
  createFailureReporter,
  createProcessor,
  type JobOutcome,
  type ProcessorStats,
  paceArgs,
  pacedRefusal,
  RetryableUpstreamError,
} from "./upstream-processor.js";
import { UPSTREAM_DEFAULTS } from "./upstream-settings.js";

export interface UpstreamQueueOptions {
  /** Redis location (redis://, rediss://, unix://). */
  readonly redis: string;
  /** Key prefix; brokers sharing one queue use the same. @defaultValue "aob" */
  readonly prefix?: string;
  /** Sends the requests; required when this instance runs workers. The queue does not close it. */
  readonly client?: UpstreamClient;
  /** Run workers here (every broker does; a submit-only instance is for tools and tests). @defaultValue true */
  readonly workers?: boolean;
  readonly policy?: UpstreamPolicyInput;
  readonly logger?: Logger;
  /** Jitter source, uniform in [0, 1). @defaultValue Math.random */
  readonly rng?: () => number;
  /** @defaultValue a random id; shown as the `worker` of results and in BullMQ. */
  readonly instanceId?: string;
  /** Per-attempt timeout when a job names none; also bounds how long a running job may take. @defaultValue 30000 */
  readonly requestTimeoutMs?: number;
}

export interface UpstreamQueueStats {
  readonly instanceId: string;
  /** Submitted here and not answered yet. */
  readonly pending: number;
  readonly submitted: number;
  readonly answered: number;
  readonly failed: number;
  /** Requests this instance's workers sent (attempts). */
  readonly sent: number;
  readonly retries: number;
  readonly delayed: number;
  /** Fresh global pauses started by this instance / by all brokers. */
  readonly pausesStarted: number;
  readonly pausesStartedAllBrokers: number;
  /** Jobs this instance found lost by Redis (re-queued reads, writes reported unknown). */
  readonly lostJobs: number;
  /** Epoch ms until which upstream traffic is paused (0 = not paused). */
  readonly pausedUntil: number;
  readonly lanes: Readonly<Record<Lane, Readonly<Record<string, number>>>>;
}

/** GitHub's own secondary limits, shown beside the broker's paced ones. */
export const GITHUB_SECONDARY = Object.freeze({
  concurrent: 100,
  restPointsPerMinute: 900,
  graphqlPointsPerMinute: 2_000,
  contentCreationPerMinute: 80,
  contentCreationPerHour: 500,
});

export interface SecondaryCount {
  readonly used: number;
  /** What the broker paces to. */
  readonly limit: number;
  /** GitHub's limit. */
  readonly githubLimit: number;
}

export interface SecondaryLimitsView {
  /** Redis time, epoch ms. */
  readonly now: number;
  /** The limits' minute (60 s unless a simulator compresses time). */
  readonly minuteMs: number;
  readonly contentCreation: { readonly minute: SecondaryCount; readonly hour: SecondaryCount };
  readonly graphql: { readonly points: number; readonly limit: number; readonly githubLimit: number };
  /** The busiest REST endpoints of the last minute, most points first. */
  readonly endpoints: readonly {
    readonly endpoint: string;
    readonly points: number;
    readonly limit: number;
    readonly githubLimit: number;
  }[];
  readonly concurrency: { readonly inFlight: number; readonly limit: number; readonly githubLimit: number };
  /** Epoch ms until which GitHub asked for a pause (0 = none). */
  readonly pausedUntil: number;
  /** Jobs held back by a limit, oldest first. */
  readonly waiting: readonly PacedWait[];
}

/** A recorded wait whose job neither went nor asked again this long after it was due is dropped. */
const STALE_WAIT_MS = 10_000;

const LANES: readonly Lane[] = ["reads", "writes"];
const BACKOFF_TYPE = "ao-upstream";
/**
 * How long an idle worker sleeps in one go while the queue is paused. BullMQ's default (30 s)
 * also bounds how long Worker.close() can hang when it races a pause (the sleep it starts after
 * close() began is not cancelled), so shutdown during a minute-long secondary-limit pause would
 * stall; one second costs one Redis call per worker per second of pause.
 */
const PAUSE_RECHECK_MS = 1_000;
/**
 * How many times a write job may be found stalled (its broker died, or froze past its lock,
 * while running it) and still be run again by a surviving broker. Re-running is safe: the
 * processor sets the write's "started" marker immediately before the send, so a re-run that
 * finds it answers AO_ERR_WRITE_OUTCOME_UNKNOWN and never sends twice, and one that does not
 * find it knows nothing left and sends the write once. Failing a stalled write outright (0) told
 * callers "outcome unknown" for writes that had only waited for their spacing. The bound is
 * there for a job that itself kills its broker: past it BullMQ fails the job and the failure
 * reporter answers outcome unknown. Ten outlives a crash test's ten kills of one broker.
 */
const WRITE_STALLS_OUTLIVED = 10;

/** Errors that only say Redis is away; ioredis reconnects, so they are not worth an error line each. */
function isConnectionError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    code === "ECONNREFUSED" ||
    code === "ECONNRESET" ||
    code === "ENOENT" ||
    code === "EPIPE" ||
    code === "ETIMEDOUT" ||
    /Connection is closed|Stream isn't writeable|LOADING/.test(err.message)
  );
}

interface Submitted extends SweptJob {
  readonly data: UpstreamJobData;
  readonly expectation: Expectation;
  addedAtMs: number | undefined;
}

export class UpstreamQueue {
  readonly instanceId: string;
  readonly policy: UpstreamPolicy;
  readonly #options: UpstreamQueueOptions;
  readonly #keys: UpstreamKeys;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #redis: Redis | undefined;
  #scripts: LuaScripts | undefined;
  #sub: Redis | undefined;
  #replies: ReplyChannel | undefined;
  readonly #queues = new Map<Lane, Queue<UpstreamJobData>>();
  readonly #workers: Worker<UpstreamJobData, JobOutcome>[] = [];
  #deadlines: DeadlineWatch | undefined;
  #sweep: ReplySweep | undefined;
  readonly #submittedJobs = new Map<string, Submitted>();
  #agingTimer: NodeJS.Timeout | undefined;
  #agingRun: Promise<void> | undefined;
  #state: "new" | "running" | "closing" | "closed" = "new";
  readonly #stats: ProcessorStats = { sent: 0, retries: 0, pausesStarted: 0, delayed: 0 };
  #submitted = 0;
  #answered = 0;
  #failed = 0;

  /** Creates and starts a queue. */
  static async create(options: UpstreamQueueOptions): Promise<UpstreamQueue> {
    const queue = new UpstreamQueue(options);
    await queue.start();
    return queue;
  }

  constructor(options: UpstreamQueueOptions) {
    this.#options = options;
    this.instanceId = options.instanceId ?? `b-${randomUUID().slice(0, 8)}`;
    this.policy = resolveUpstreamPolicy(options.policy);
    this.#keys = upstreamKeys(options.prefix ?? "aob");
    this.#logger = (options.logger ?? silentLogger()).child({
      component: "upstream-queue",
      instance: this.instanceId,
    });
    this.#timeoutMs = options.requestTimeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs;
    if ((options.workers ?? true) && !options.client) {
      throw new AoError(UpstreamErrors.AO_ERR_UPSTREAM_BAD_REQUEST, "upstream queue: workers need a client");
    }
  }

  async start(): Promise<void> {
    if (this.#state !== "new") return;
    const policy = this.policy;
    // BullMQ needs maxRetriesPerRequest: null on connections its workers block on.
    const redis = createRedisClient(this.#options.redis, {
      connectionName: `aob:upstream:${this.instanceId}`,
      maxRetriesPerRequest: null,
    });
    this.#redis = redis;
    this.#sub = createRedisClient(this.#options.redis, {
      connectionName: `aob:upstream:${this.instanceId}:sub`,
    });
    const scripts = new LuaScripts(
      redis,
      ["takePace-7.lua", "holdUntil-1.lua", "startWrite-2.lua"],
      UpstreamErrors.AO_ERR_UPSTREAM_SCRIPT_FAILED,
    );
    this.#scripts = scripts;
    this.#replies = new ReplyChannel({
      redis,
      subscriber: this.#sub,
      keys: this.#keys,
      instanceId: this.instanceId,
      logger: this.#logger,
    });
    await this.#replies.start();
    this.#deadlines = new DeadlineWatch({
      replies: this.#replies,
      remove: async (lane, id) => {
        // The deadline takes this job out of the queue: the sweep must not mistake its absence
        // for a loss (it would report a removed write as "outcome unknown").
        const submitted = this.#submittedJobs.get(id);
        if (submitted) submitted.addedAtMs = undefined;
        const removed = await this.#queue(lane).remove(id);
        if (removed === 1) await redis.zrem(this.#keys.aging, agingMember(lane, id));
        return removed;
      },
      timeoutMs: this.#timeoutMs,
      graceMs: policy.deadlineGraceMs,
      logger: this.#logger,
    });

    for (const lane of LANES) {
      const queue = new Queue<UpstreamJobData>(lane, {
        connection: redis,
        prefix: this.#keys.bullPrefix,
        streams: { events: { maxLen: 1_000 } },
      });
      this.#queues.set(lane, queue);
    }
    for (const queue of this.#queues.values()) {
      queue.on("error", (err: Error) => {
        if (isConnectionError(err)) this.#logger.debug({ err }, "upstream queue: Redis connection error");
        else this.#logger.error({ err }, "upstream queue error");
      });
    }
    await this.#applyGlobalConcurrency();
    // A Redis that restarted empty has forgotten the global caps: set them again on every reconnect.
    redis.on("ready", () => {
      if (this.#state !== "running") return;
      this.#applyGlobalConcurrency().catch((err: unknown) =>
        this.#logger.warn({ err }, "could not restore the upstream concurrency caps"),
      );
    });

    if ((this.#options.workers ?? true) && this.#options.client) {
      const deps = {
        redis,
        scripts,
        client: this.#options.client,
        keys: this.#keys,
        policy,
        instanceId: this.instanceId,
        logger: this.#logger,
        rng: this.#options.rng ?? Math.random,
        pauseQueues: (ms: number) => this.#pauseQueues(ms),
        stats: this.#stats,
      };
      const processor = createProcessor(deps);
      const reportFailure = createFailureReporter(deps);
      for (const lane of LANES) {
        const worker = new Worker<UpstreamJobData, JobOutcome>(lane, processor, {
          connection: redis,
          prefix: this.#keys.bullPrefix,
          name: this.instanceId,
          concurrency: lane === "reads" ? policy.concurrency - 1 : 1,
          limiter:
            lane === "reads"
              ? { max: policy.maxStartsPerSecond, duration: 1_000 }
              : { max: 1, duration: policy.mutationSpacingMs },
          // A read whose broker died is simply run again; so is a write, which its "started"
          // marker keeps from being sent twice.
          maxStalledCount: lane === "writes" ? WRITE_STALLS_OUTLIVED : 1,
          maximumRateLimitDelay: PAUSE_RECHECK_MS,
          // An idle worker long-polls this many seconds. Jobs sent back by a pause do not always
          // wake a worker that is already polling, so BullMQ's 5 s default let them sit up to 5 s
          // past the pause; 1 s bounds that at the price of one poll a second per idle lane.
          drainDelay: 1,
          lockDuration: policy.lockDurationMs,
          stalledInterval: policy.stalledIntervalMs,
          removeOnComplete: policy.keepCompleted,
          removeOnFail: policy.keepFailed,
          settings: {
            backoffStrategy: (_attempts: number, _type?: string, err?: Error) =>
              err instanceof RetryableUpstreamError ? err.delayMs : policy.backoffBaseMs,
          },
        });
        worker.on("failed", (job: Job<UpstreamJobData> | undefined, err: Error) => {
          reportFailure(job, err).catch((e: unknown) =>
            this.#logger.error({ err: e }, "could not report a failed job"),
          );
        });
        worker.on("error", (err: Error) => {
          if (isConnectionError(err))
            this.#logger.debug({ err, lane }, "upstream worker: Redis connection error");
          else this.#logger.error({ err, lane }, "upstream worker error");
        });
        this.#workers.push(worker);
      }
      this.#agingTimer = setInterval(() => {
        this.#agingRun ??= promoteAgedJobs({
          redis,
          keys: this.#keys,
          instanceId: this.instanceId,
          tickMs: policy.agingTickMs,
          // Not lifo: aged jobs queue behind those that aged before them.
          changePriority: (lane, id, priority) =>
            this.#queue(lane).getBackend().changePriority(id, priority, false),
        })
          .then(() => undefined)
          .catch((err: unknown) => {
            if (this.#state === "running") this.#logger.warn({ err }, "aging pass failed");
          })
          .finally(() => {
            this.#agingRun = undefined;
          });
      }, policy.agingTickMs);
      this.#agingTimer.unref();
    }
    this.#sweep = new ReplySweep({
      redis,
      keys: this.#keys,
      replies: this.#replies,
      jobs: () => this.#submittedJobs,
      lost: (job) => this.#lost(job as Submitted),
      intervalMs: policy.replySweepMs,
      logger: this.#logger,
    });
    this.#sweep.start();
    this.#state = "running";
  }

  /** Sends `job` through the queue; resolves with GitHub's answer, whichever broker sent it. */
  async submit(job: UpstreamJob): Promise<UpstreamResult> {
    if (this.#state !== "running") {
      throw new AoError(UpstreamErrors.AO_ERR_UPSTREAM_CLOSED, "upstream queue is not running", {
        httpStatus: 503,
      });
    }
    const replies = this.#replies!;
    const submittedAt = Date.now();
    const data = toJobData(
      { ...job, timeoutMs: job.timeoutMs ?? this.#timeoutMs },
      replies.channel,
      submittedAt,
    );
    if (data.contentCreation) await this.#refuseIfPredictable(data);
    const id = randomUUID();
    const expectation = replies.expect(id);
    const submitted: Submitted = {
      id,
      lane: data.lane,
      data,
      expectation,
      addedAtMs: undefined,
      addedAt: () => submitted.addedAtMs,
    };
    this.#submittedJobs.set(id, submitted);
    let added = false;
    const disarm = this.#deadlines!.arm({ id, data, expectation, added: () => added });
    // Not awaited directly: if Redis hangs, the deadline still answers the caller.
    const adding = this.#add(submitted, submittedAt).then(() => {
      added = true;
      this.#submitted++;
    });
    adding.catch((err: unknown) => expectation.reject(err));
    try {
      const result = resultFromReply(
        await expectation.promise,
        data,
        submittedAt,
        this.policy.graphqlRateLimitAlias,
      );
      this.#answered++;
      return result;
    } catch (err) {
      this.#failed++;
      throw err;
    } finally {
      disarm();
      this.#submittedJobs.delete(id);
    }
  }

  /**
   * A content-creating write that GitHub's limits (80 a minute, 500 an hour) would let go only
   * after its caller's deadline is refused now, with the seconds to wait, instead of after the
   * writes queued ahead of it (a dry run of the pacing: nothing is recorded). One that may go
   * before its deadline waits its turn in the queue.
   */
  async #refuseIfPredictable(data: UpstreamJobData): Promise<void> {
    const call = paceArgs(this.#keys, this.policy, data, "", true);
    const pace = (await this.#scripts!.run("takePace", call.keys, call.args)) as string[];
    const code = pace[0] ?? "0";
    if (!["3", "4", "5"].includes(code)) return;
    const until = Number(pace[1]);
    if (until < data.deadlineAt) return;
    const refusal = pacedRefusal(code, until, Number(pace[2]), data, this.policy);
    this.#failed++;
    throw new AoError(UpstreamErrors.AO_ERR_UPSTREAM_PACED, refusal.message, {
      httpStatus: 429,
      data: { ...refusal.data, requestId: data.requestId, predicted: true },
    });
  }

  /**
   * GitHub's secondary limits as the pacing counts them now, across all brokers: content
   * creation this minute and this hour, GraphQL points this minute, the busiest REST endpoints'
   * points this minute, requests in flight, and the jobs waiting for a limit (and which).
   */
  async secondaryView(options: { endpoints?: number } = {}): Promise<SecondaryLimitsView> {
    const redis = this.#live();
    const keys = this.#keys;
    const minuteMs = this.policy.secondaryMinuteMs;
    const secondMs = minuteMs / 60;
    const [time] = (await redis.multi().time().exec()) ?? [];
    const t = (time?.[1] as [string, string] | undefined) ?? [String(Date.now() / 1000), "0"];
    const now = Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000);
    const recent = await redis.zrangebyscore(keys.endpoints, now - minuteMs, "+inf");
    const rest = recent.filter((e) => e !== "graphql");
    const pipeline = redis.multi();
    pipeline.hgetall(keys.contentPerMinute);
    pipeline.hgetall(keys.contentPerHour);
    pipeline.hgetall(keys.points("graphql"));
    for (const endpoint of rest) pipeline.hgetall(keys.points(endpoint));
    pipeline.hgetall(keys.waits);
    pipeline.get(keys.pause);
    const replies = ((await pipeline.exec()) ?? []).map(([, v]) => v);
    const hash = (i: number) => (replies[i] ?? {}) as Record<string, string>;
    const endpoints = rest
      .map((endpoint, i) => ({
        endpoint,
        points: windowSum(hash(3 + i), now, secondMs),
        limit: this.policy.restPointsPerMinute,
        githubLimit: GITHUB_SECONDARY.restPointsPerMinute,
      }))
      .filter((e) => e.points > 0)
      .sort((a, b) => b.points - a.points || a.endpoint.localeCompare(b.endpoint))
      .slice(0, options.endpoints ?? 10);
    const waitsRaw = hash(3 + rest.length);
    const waiting: PacedWait[] = [];
    const gone: string[] = [];
    for (const [jobId, value] of Object.entries(waitsRaw)) {
      const wait = parseWait(jobId, value);
      if (!wait || isStaleWait(wait, now, STALE_WAIT_MS)) gone.push(jobId);
      else waiting.push(wait);
    }
    if (gone.length > 0) await redis.hdel(keys.waits, ...gone);
    waiting.sort((a, b) => a.since - b.since);
    const counts = await Promise.all(LANES.map((lane) => this.#queue(lane).getJobCounts("active")));
    const pausedUntil = Number(replies[4 + rest.length] ?? 0);
    return {
      now,
      minuteMs,
      contentCreation: {
        minute: {
          used: windowSum(hash(0), now, secondMs),
          limit: this.policy.contentCreationPerMinute,
          githubLimit: GITHUB_SECONDARY.contentCreationPerMinute,
        },
        hour: {
          used: windowSum(hash(1), now, minuteMs),
          limit: this.policy.contentCreationPerHour,
          githubLimit: GITHUB_SECONDARY.contentCreationPerHour,
        },
      },
      graphql: {
        points: windowSum(hash(2), now, secondMs),
        limit: this.policy.graphqlPointsPerMinute,
        githubLimit: GITHUB_SECONDARY.graphqlPointsPerMinute,
      },
      endpoints,
      concurrency: {
        inFlight: counts.reduce((sum, c) => sum + (c.active ?? 0), 0),
        limit: this.policy.concurrency,
        githubLimit: GITHUB_SECONDARY.concurrent,
      },
      pausedUntil: pausedUntil > now ? pausedUntil : 0,
      waiting,
    };
  }

  /** Puts a submitted job into its lane (again, after Redis lost it) under its own id. */
  async #add(job: Submitted, submittedAt: number): Promise<void> {
    const { data, id } = job;
    job.addedAtMs = undefined;
    const promote = promoteAt(data.priority, submittedAt, this.policy.agingMs);
    if (promote !== undefined) await this.#redis!.zadd(this.#keys.aging, promote, agingMember(data.lane, id));
    await this.#queue(data.lane).add(data.kind, data, {
      jobId: id,
      priority: BULLMQ_PRIORITY[data.priority],
      attempts: data.lane === "writes" ? this.policy.writeAttempts : this.policy.readAttempts,
      backoff: { type: BACKOFF_TYPE },
    });
    job.addedAtMs = Date.now();
  }

  /** A job Redis lost: a read runs again; a write may have been sent, so its caller is told so. */
  async #lost(job: Submitted): Promise<void> {
    if (job.lane === "reads") {
      await this.#add(job, job.data.submittedAt);
      return;
    }
    job.expectation.reject(
      new AoError(
        UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN,
        "write outcome unknown: the queue lost this write (its Redis lost its data); it may or may not have been sent",
        {
          httpStatus: 502,
          data: { requestId: job.data.requestId, method: job.data.method, path: job.data.path.split("?")[0] },
        },
      ),
    );
  }

  async #applyGlobalConcurrency(): Promise<void> {
    await this.#queue("reads").setGlobalConcurrency(this.policy.concurrency - 1);
    await this.#queue("writes").setGlobalConcurrency(1);
  }

  async stats(): Promise<UpstreamQueueStats> {
    const redis = this.#live();
    const [pausedUntil, pausesAll] = await redis.mget(this.#keys.pause, this.#keys.pauses);
    const lanes = {} as Record<Lane, Record<string, number>>;
    for (const lane of LANES) {
      lanes[lane] = await this.#queue(lane).getJobCounts(
        "active",
        "waiting",
        "prioritized",
        "delayed",
        "failed",
        "completed",
      );
    }
    const until = Number(pausedUntil ?? 0);
    return {
      instanceId: this.instanceId,
      pending: this.#replies?.size ?? 0,
      submitted: this.#submitted,
      answered: this.#answered,
      failed: this.#failed,
      sent: this.#stats.sent,
      retries: this.#stats.retries,
      delayed: this.#stats.delayed,
      pausesStarted: this.#stats.pausesStarted,
      pausesStartedAllBrokers: Number(pausesAll ?? 0),
      lostJobs: this.#sweep?.lostJobs ?? 0,
      pausedUntil: until > Date.now() ? until : 0,
      lanes,
    };
  }

  /** Stops taking jobs, lets this broker's submissions and running jobs finish, then disconnects. */
  async close(): Promise<void> {
    if (this.#state === "closing" || this.#state === "closed") return;
    const wasRunning = this.#state === "running";
    this.#state = "closing";
    if (this.#agingTimer) clearInterval(this.#agingTimer);
    if (wasRunning && this.#replies) {
      // The sweep keeps running during the drain, so jobs Redis lost still get their answer.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#replies.idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.policy.drainTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.#agingRun;
    await this.#sweep?.close();
    await Promise.allSettled(this.#workers.map((w) => w.close()));
    this.#replies?.rejectAll(
      new AoError(UpstreamErrors.AO_ERR_UPSTREAM_CLOSED, "upstream queue closed before the answer came", {
        httpStatus: 503,
      }),
    );
    this.#deadlines?.clear();
    await Promise.allSettled([...this.#queues.values()].map((q) => q.close()));
    await Promise.allSettled([this.#sub?.quit(), this.#redis?.quit()]);
    this.#state = "closed";
  }

  #queue(lane: Lane): Queue<UpstreamJobData> {
    return this.#queues.get(lane)!;
  }

  #live(): Redis {
    if (!this.#redis || this.#state === "closed") {
      throw new AoError(UpstreamErrors.AO_ERR_UPSTREAM_CLOSED, "upstream queue is not running", {
        httpStatus: 503,
      });
    }
    return this.#redis;
  }

  async #pauseQueues(ms: number): Promise<void> {
    await Promise.all(LANES.map((lane) => this.#queue(lane).rateLimit(Math.ceil(ms))));
  }
}
