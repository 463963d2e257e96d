/**
 * What a worker does with one upstream job, on whichever broker picked it up:
 *
 *  1. Past its deadline → the caller gets AO_ERR_UPSTREAM_DEADLINE; nothing is sent.
 *  2. takePace-7.lua: a global pause in force → the job goes back to the queue (BullMQ's
 *     RateLimitError, which costs no attempt) and the whole queue stays paused; its resource's
 *     primary bucket known spent, or its endpoint over GitHub's points per minute, or content
 *     creation over 80/min–500/h → the job is delayed until it may go (DelayedError), or, when
 *     that is after its deadline, answered at once: AO_ERR_UPSTREAM_PACED with the seconds to
 *     wait (a 429 with retry-after at the gateway). The script records what the job waits for.
 *  3. A write waits for its spacing and, in the same script, sets its "started" marker
 *     (startWrite-2.lua), immediately before the send: if the marker already exists, an earlier
 *     run of this very job began sending, so the outcome is unknown and it is NOT sent again. A write
 *     whose broker died is run again by a survivor (upstream-queue.ts, WRITE_STALLS_OUTLIVED):
 *     marker absent → it never left, and is sent once; marker present → outcome unknown (checked
 *     first, before the deadline and the pacing).
 *  4. Send; classify GitHub's answer (core/retry-policy.ts): a secondary limit → ONE global pause
 *     for the advised time, then the same job again; a spent primary bucket → that resource waits
 *     for its reset; 5xx on an idempotent request → BullMQ retry with jittered backoff, bounded;
 *     anything else → GitHub's answer to the caller, byte for byte.
 *  5. Transport failures: reads (and writes known never to have left) retry with backoff;
 *     a write that may have been sent → AO_ERR_WRITE_OUTCOME_UNKNOWN, never repeated.
 *
 * Every outcome is published to the submitter (reply-channel.ts) before the job completes. The
 * job's BullMQ return value is a few bytes, so finished jobs hold no bodies.
 */
import { DelayedError, type Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { isAoError, type Logger } from "../../common/index.js";
import type { LuaScripts } from "../redis/lua-scripts.js";
import { backoffDelay, classifyResponse, shouldRetry } from "./core/retry-policy.js";
import { endpointKey, secondaryPoints } from "./core/secondary-points.js";
import { PACE_LIMITS } from "./core/secondary-window.js";
import { type UpstreamErrorCode, UpstreamErrors } from "./errors.js";
import { publishReply } from "./reply-channel.js";
import type { UpstreamClient, UpstreamResponse } from "./upstream-client.js";
import type { ReplyPayload, UpstreamJobData } from "./upstream-job.js";
import type { UpstreamKeys } from "./upstream-keys.js";
import type { UpstreamPolicy } from "./upstream-policy.js";

/** Thrown to make BullMQ retry a job; carries the backoff the processor chose. */
export class RetryableUpstreamError extends Error {
  readonly delayMs: number;
  constructor(message: string, delayMs: number) {
    super(message);
    this.name = "RetryableUpstreamError";
    this.delayMs = delayMs;
  }
}

export interface ProcessorStats {
  sent: number;
  retries: number;
  pausesStarted: number;
  delayed: number;
}

export interface ProcessorDeps {
  readonly redis: Redis;
  readonly scripts: LuaScripts;
  readonly client: UpstreamClient;
  readonly keys: UpstreamKeys;
  readonly policy: UpstreamPolicy;
  readonly instanceId: string;
  readonly logger: Logger;
  readonly rng: () => number;
  /** BullMQ's queue-level rate limit on every lane, for `ms`. */
  readonly pauseQueues: (ms: number) => Promise<void>;
  readonly stats: ProcessorStats;
}

export interface JobOutcome {
  readonly status?: number;
  readonly code?: string;
}

/**
 * How long a write's "started" marker outlives its deadline: long enough for any broker that takes
 * the job over (a stalled write is re-run within BullMQ's stall checks) to find it.
 */
const STARTED_MARKER_GRACE_MS = 600_000;

const PACE_GO = "0";
const PACE_PAUSED = "1";
const PACE_BLOCKED = "2";

/** The takePace-7.lua call for a job: its keys and arguments (`dryRun`: answer, record nothing). */
export function paceArgs(
  keys: UpstreamKeys,
  policy: UpstreamPolicy,
  data: UpstreamJobData,
  jobId: string,
  dryRun = false,
): { keys: string[]; args: (string | number)[] } {
  const endpoint = endpointKey(data.kind, data.path);
  return {
    keys: [
      keys.pause,
      // A free request is never held by a spent bucket: its block key is one nobody sets.
      data.free ? keys.block("-free") : keys.block(data.resource),
      keys.points(endpoint),
      keys.contentPerMinute,
      keys.contentPerHour,
      keys.endpoints,
      keys.waits,
    ],
    args: [
      0,
      secondaryPoints(data.kind, data.method, data.mutation),
      data.kind === "graphql" ? policy.graphqlPointsPerMinute : policy.restPointsPerMinute,
      data.contentCreation ? (data.contentCreations ?? 1) : 0,
      policy.contentCreationPerMinute,
      policy.contentCreationPerHour,
      policy.secondaryMinuteMs,
      endpoint,
      jobId,
      data.sessionId,
      dryRun ? 1 : 0,
    ],
  };
}

const PACE_REASONS: Readonly<Record<string, string>> = {
  "3": "points per minute on this endpoint",
  "4": "content-creating requests per minute",
  "5": "content-creating requests per hour",
};

/**
 * The refusal for a request the pacing can only send after its caller's deadline: nothing was
 * sent, and the caller is told at once how long to wait (GitHub's secondary-limit shape).
 */
export function pacedRefusal(
  code: string,
  until: number,
  now: number,
  data: Pick<UpstreamJobData, "kind" | "path">,
  policy: UpstreamPolicy,
): { message: string; data: Record<string, unknown> } {
  const retryAfterSeconds = Math.max(1, Math.ceil((until - now) / 1000));
  const limit = PACE_LIMITS[code as keyof typeof PACE_LIMITS] ?? "secondary-limit-pause";
  const allowed =
    code === "3"
      ? data.kind === "graphql"
        ? policy.graphqlPointsPerMinute
        : policy.restPointsPerMinute
      : code === "4"
        ? policy.contentCreationPerMinute
        : policy.contentCreationPerHour;
  return {
    message: `You have exceeded a secondary rate limit: ao-broker paces GitHub's ${PACE_REASONS[code] ?? "secondary limits"} (at most ${allowed}); retry after ${retryAfterSeconds}s.`,
    data: {
      limit,
      endpoint: endpointKey(data.kind, data.path),
      retryAfterSeconds,
      retryAt: until,
      allowed,
    },
  };
}

export function createProcessor(deps: ProcessorDeps) {
  const { redis, keys, policy } = deps;

  const reply = (data: UpstreamJobData, payload: ReplyPayload) =>
    publishReply(redis, keys, data.replyTo, payload, policy.resultTtlMs);

  const answer = async (job: Job<UpstreamJobData>, res: UpstreamResponse): Promise<JobOutcome> => {
    await reply(job.data, {
      id: job.id!,
      ok: true,
      status: res.status,
      headers: res.headers,
      body: res.body.toString("base64"),
      attempts: job.attemptsMade + 1,
      upstreamMs: res.upstreamMs,
      worker: deps.instanceId,
    });
    return { status: res.status };
  };

  const fail = async (
    job: Job<UpstreamJobData>,
    code: UpstreamErrorCode,
    message: string,
    data?: Record<string, unknown>,
  ): Promise<JobOutcome> => {
    await reply(job.data, {
      id: job.id!,
      ok: false,
      code,
      message,
      data,
      attempts: job.attemptsMade + 1,
      worker: deps.instanceId,
    });
    return { code };
  };

  /** Extends a hold (pause or block) to `until`; returns when it now ends. */
  const hold = async (
    key: string,
    until: number,
  ): Promise<{ fresh: boolean; until: number; now: number }> => {
    const r = (await deps.scripts.run("holdUntil", [key], [0, Math.ceil(until)])) as string[];
    return { fresh: r[0] === "2", until: Number(r[1]), now: Number(r[2]) };
  };

  const pauseAll = async (pauseMs: number): Promise<number> => {
    const h = await hold(keys.pause, Date.now() + pauseMs);
    if (h.fresh) {
      deps.stats.pausesStarted++;
      await redis.incr(keys.pauses);
      deps.logger.warn({ pauseMs }, "GitHub secondary rate limit: pausing all upstream traffic");
    }
    await deps.pauseQueues(Math.max(1, h.until - h.now));
    return h.until;
  };

  /**
   * Waits until the last write (any broker) started at least mutationSpacingMs ago, then records
   * this start and sets the job's "started" marker in the same script (startWrite-2.lua). False
   * when the marker was already there: an earlier run of this job began sending.
   */
  const startWrite = async (id: string, deadlineAt: number): Promise<boolean> => {
    for (;;) {
      const ttl = Math.max(0, deadlineAt - Date.now()) + STARTED_MARKER_GRACE_MS;
      const r = (await deps.scripts.run(
        "startWrite",
        [keys.lastMutation, keys.started(id)],
        [0, policy.mutationSpacingMs, ttl, deps.instanceId],
      )) as string[];
      if (r[0] === "0") return true;
      if (r[0] === "2") return false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Number(r[1]) - Number(r[2]))));
    }
  };

  /** An earlier run of this write set its "started" marker: it may have been sent, so it is not. */
  const unknownRerun = (job: Job<UpstreamJobData>): Promise<JobOutcome> =>
    fail(
      job,
      UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN,
      "an earlier run of this write began sending; it is not sent again",
      { method: job.data.method, path: job.data.path.split("?")[0] },
    );

  const retryOrAnswer = (job: Job<UpstreamJobData>, why: string): RetryableUpstreamError | undefined => {
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.data.lane === "writes" ? policy.writeAttempts : policy.readAttempts;
    const delayMs = backoffDelay({
      attempt,
      baseMs: policy.backoffBaseMs,
      maxMs: policy.backoffMaxMs,
      rng: deps.rng,
    });
    if (!shouldRetry({ attempt, maxAttempts, delayMs, now: Date.now(), deadlineAt: job.data.deadlineAt })) {
      return undefined;
    }
    deps.stats.retries++;
    return new RetryableUpstreamError(why, delayMs);
  };

  return async (job: Job<UpstreamJobData>, token?: string): Promise<JobOutcome> => {
    const data = job.data;
    const id = job.id!;
    // A write taken over from a dead broker (BullMQ found it stalled) that had already begun
    // sending: its outcome is unknown, whatever its deadline or the pacing now says.
    if (data.lane === "writes" && job.stalledCounter > 0 && (await redis.exists(keys.started(id))) === 1) {
      await redis.hdel(keys.waits, id);
      return unknownRerun(job);
    }
    if (Date.now() >= data.deadlineAt) {
      await redis.hdel(keys.waits, id);
      return fail(
        job,
        UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE,
        "deadline passed before the request could be sent",
      );
    }
    redis.zrem(keys.aging, `${data.lane}:${id}`).catch(() => undefined);

    const call = paceArgs(keys, policy, data, id);
    const pace = (await deps.scripts.run("takePace", call.keys, call.args)) as string[];
    if (pace[0] === PACE_PAUSED) {
      await deps.pauseQueues(Math.max(1, Number(pace[1]) - Number(pace[2])));
      throw Worker.RateLimitError();
    }
    if (pace[0] !== PACE_GO) {
      const until = Number(pace[1]);
      if (until >= data.deadlineAt) {
        await redis.hdel(keys.waits, id);
        if (pace[0] === PACE_BLOCKED)
          return fail(
            job,
            UpstreamErrors.AO_ERR_UPSTREAM_RATE_LIMITED,
            `GitHub's ${data.resource} budget is spent`,
            {
              resource: data.resource,
              reset: Math.ceil(until / 1000),
            },
          );
        const refusal = pacedRefusal(pace[0]!, until, Number(pace[2]), data, policy);
        return fail(job, UpstreamErrors.AO_ERR_UPSTREAM_PACED, refusal.message, refusal.data);
      }
      deps.stats.delayed++;
      await job.moveToDelayed(until, token);
      throw new DelayedError();
    }

    // Last thing before the wire, so the gap holds where GitHub measures it; the marker goes on
    // in the same script, with nothing left between it and the send: a broker that dies while
    // pacing (above) has sent nothing, and the run that takes its job over must send it.
    if (data.lane === "writes" && !(await startWrite(id, data.deadlineAt))) return unknownRerun(job);
    const notPerformed = async () => {
      if (data.lane === "writes") await redis.del(keys.started(id));
    };

    let response: UpstreamResponse;
    try {
      deps.stats.sent++;
      response = await deps.client.send({
        method: data.method,
        path: data.path,
        headers: data.headers,
        body: data.body === undefined ? undefined : Buffer.from(data.body, "base64"),
        timeoutMs: data.timeoutMs,
      });
    } catch (err) {
      const code = (
        isAoError(err) ? err.code : UpstreamErrors.AO_ERR_UPSTREAM_CONNECTION
      ) as UpstreamErrorCode;
      const sent = isAoError(err) ? err.data?.sent : "unknown";
      const message = err instanceof Error ? err.message : "upstream request failed";
      if (data.lane === "writes" && sent !== false) {
        return fail(job, UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN, `write outcome unknown: ${message}`, {
          cause: code,
          method: data.method,
          path: data.path.split("?")[0],
        });
      }
      await notPerformed();
      if (data.idempotent || sent === false) {
        const retry = retryOrAnswer(job, code);
        if (retry) throw retry;
      }
      return fail(job, code, message, { sent });
    }

    const verdict = classifyResponse({
      status: response.status,
      headers: response.headers,
      bodyText: response.body.subarray(0, 4096).toString("utf8"),
      idempotent: data.idempotent,
      now: Date.now(),
      secondaryPauseMs: policy.secondaryPauseMs,
    });
    switch (verdict.kind) {
      case "secondary-limit": {
        const until = await pauseAll(verdict.pauseMs);
        await notPerformed();
        if (until >= data.deadlineAt) return answer(job, response);
        throw Worker.RateLimitError();
      }
      case "primary-exhausted": {
        const h = await hold(keys.block(data.resource), verdict.resetAt + policy.resetMarginMs);
        await notPerformed();
        if (h.until >= data.deadlineAt) return answer(job, response);
        deps.stats.delayed++;
        await job.moveToDelayed(h.until, token);
        throw new DelayedError();
      }
      case "retry": {
        const retry = retryOrAnswer(job, `upstream answered ${response.status}`);
        if (retry) throw retry;
        return answer(job, response);
      }
      default:
        if (verdict.exhausted && !data.free)
          await hold(keys.block(data.resource), verdict.exhausted.resetAt + policy.resetMarginMs);
        return answer(job, response);
    }
  };
}

/**
 * BullMQ failed a job without the processor answering: a retry failure on the last attempt, or a
 * job found stalled more often than its lane allows (the brokers running it died each time; see
 * WRITE_STALLS_OUTLIVED in upstream-queue.ts). Its submitter still gets an answer.
 */
export function createFailureReporter(
  deps: Pick<ProcessorDeps, "redis" | "keys" | "policy" | "instanceId" | "logger">,
) {
  return async (job: Job<UpstreamJobData> | undefined, err: Error): Promise<void> => {
    if (!job?.id || typeof job.finishedOn !== "number") return; // BullMQ will retry it
    const data = job.data;
    const write = data.lane === "writes";
    const payload: ReplyPayload = {
      id: job.id,
      ok: false,
      code: write ? UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN : UpstreamErrors.AO_ERR_UPSTREAM_LOST,
      message: write
        ? `write outcome unknown: the job failed after it may have been sent (${err.message})`
        : `upstream request failed: ${err.message}`,
      data: { method: data.method, path: data.path.split("?")[0] },
      attempts: job.attemptsMade,
      worker: deps.instanceId,
    };
    deps.logger.warn(
      { jobId: job.id, lane: data.lane, reason: err.message },
      "upstream job failed in the queue",
    );
    await publishReply(deps.redis, deps.keys, data.replyTo, payload, deps.policy.resultTtlMs);
  };
}
