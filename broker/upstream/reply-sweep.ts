/**
 * The safety net under the reply channel. Every `intervalMs`, for the jobs this broker submitted
 * and still waits for (added to the queue at least `intervalMs` ago):
 *  1. a reply already in its key was missed (a message lost in a reconnect): deliver it;
 *  2. otherwise, if the job no longer exists in BullMQ and still has no reply, Redis lost it (it
 *     came back without its data, or lost the last second of its append-only file): a read is
 *     queued again under the same id; a write is answered AO_ERR_WRITE_OUTCOME_UNKNOWN — it may
 *     have been sent before the loss, and a write is never repeated on a guess.
 * The reply is read again after the existence check, because a worker SETs the reply before
 * BullMQ finishes (and may remove) the job: "no job and no reply" seen in that order means lost.
 * Without this, either case would leave its caller waiting until the job's deadline.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import type { ReplyChannel } from "./reply-channel.js";
import type { Lane } from "./upstream-job.js";
import type { UpstreamKeys } from "./upstream-keys.js";

export interface SweptJob {
  readonly id: string;
  readonly lane: Lane;
  /** Epoch ms the job was (last) added to the queue; undefined while it is being added or removed. */
  readonly addedAt: () => number | undefined;
}

export interface ReplySweepOptions {
  readonly redis: Redis;
  readonly keys: UpstreamKeys;
  readonly replies: ReplyChannel;
  /** The jobs this broker waits for, by id. */
  readonly jobs: () => ReadonlyMap<string, SweptJob>;
  /** Called for a job Redis lost; the queue re-adds a read or fails a write. */
  readonly lost: (job: SweptJob) => Promise<void>;
  readonly intervalMs: number;
  readonly logger: Logger;
}

export class ReplySweep {
  readonly #options: ReplySweepOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lost = 0;

  constructor(options: ReplySweepOptions) {
    this.#options = options;
  }

  /** Jobs found lost since start. */
  get lostJobs(): number {
    return this.#lost;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#running ??= this.sweep()
        .catch((err: unknown) => this.#options.logger.debug({ err }, "reply sweep failed"))
        .finally(() => {
          this.#running = undefined;
        });
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass (also called by tests). */
  async sweep(): Promise<void> {
    const { redis, keys, replies, intervalMs } = this.#options;
    const jobs = this.#options.jobs();
    const now = Date.now();
    const due = replies.pendingIds().flatMap((id) => {
      const job = jobs.get(id);
      const addedAt = job?.addedAt();
      return job && addedAt !== undefined && now - addedAt >= intervalMs ? [job] : [];
    });
    if (due.length === 0) return;
    const unanswered = await this.#deliverStored(due);
    if (unanswered.length === 0) return;
    const exists = redis.pipeline();
    for (const job of unanswered) exists.exists(`${keys.bullPrefix}:${job.lane}:${job.id}`);
    const found = (await exists.exec()) ?? [];
    const gone = unanswered.filter((_, i) => found[i]?.[0] === null && found[i]?.[1] === 0);
    if (gone.length === 0) return;
    for (const job of await this.#deliverStored(gone)) {
      // Added again meanwhile (a previous pass): judge it on the next pass.
      if (job.addedAt() !== undefined && Date.now() - (job.addedAt() ?? 0) < intervalMs) continue;
      this.#lost += 1;
      this.#options.logger.warn({ jobId: job.id, lane: job.lane }, "upstream job lost by Redis");
      await this.#options.lost(job);
    }
  }

  /** Delivers the replies waiting in their keys; returns the jobs that have none. */
  async #deliverStored(jobs: readonly SweptJob[]): Promise<SweptJob[]> {
    const { redis, keys, replies } = this.#options;
    const texts = await redis.mget(jobs.map((job) => keys.result(job.id)));
    const unanswered: SweptJob[] = [];
    jobs.forEach((job, i) => {
      const text = texts[i];
      if (text === null || text === undefined) unanswered.push(job);
      else replies.deliver(text);
    });
    return unanswered;
  }
}
