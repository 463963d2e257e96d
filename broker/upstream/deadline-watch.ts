/**
 * Holds each submitted job to its caller's deadline. At the deadline (plus a grace):
 * - a job not yet in the queue (Redis slow or down) or still waiting in it is removed and the
 *   caller gets AO_ERR_UPSTREAM_DEADLINE — nothing was sent, and a job added late finds its
 *   deadline passed and sends nothing either;
 * - a job already running gets its request timeout to answer; if no answer comes (its broker
 *   died) the caller gets AO_ERR_UPSTREAM_LOST, or AO_ERR_WRITE_OUTCOME_UNKNOWN for a write.
 * Before giving up, the reply key is checked once more, in case the message was missed.
 */
import { AoError, type Logger } from "../../common/index.js";
import { UpstreamErrors } from "./errors.js";
import type { Expectation, ReplyChannel } from "./reply-channel.js";
import type { Lane, UpstreamJobData } from "./upstream-job.js";

export interface DeadlineWatchOptions {
  readonly replies: ReplyChannel;
  /** Removes a job that is not running; 1 when removed. */
  readonly remove: (lane: Lane, id: string) => Promise<number>;
  /** How long a running job may still take when it names no timeout. */
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly logger: Logger;
}

export interface Watched {
  readonly id: string;
  readonly data: UpstreamJobData;
  readonly expectation: Expectation;
  /** False while the job is still being added to the queue. */
  readonly added: () => boolean;
}

export class DeadlineWatch {
  readonly #options: DeadlineWatchOptions;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(options: DeadlineWatchOptions) {
    this.#options = options;
  }

  /** Starts watching; the returned function stops it (call it once the job is answered). */
  arm(job: Watched): () => void {
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, run: () => Promise<void>) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        run().catch((err: unknown) => this.#options.logger.error({ err }, "deadline handling failed"));
      }, ms);
      timer.unref();
      this.#timers.add(timer);
      timers.push(timer);
    };
    later(Math.max(0, job.data.deadlineAt - Date.now()) + this.#options.graceMs, () =>
      this.#expire(job, later),
    );
    return () => {
      for (const timer of timers) {
        clearTimeout(timer);
        this.#timers.delete(timer);
      }
    };
  }

  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  async #expire(job: Watched, later: (ms: number, run: () => Promise<void>) => void): Promise<void> {
    const { replies } = this.#options;
    const { data, expectation } = job;
    const tooLate = () =>
      new AoError(
        UpstreamErrors.AO_ERR_UPSTREAM_DEADLINE,
        "deadline passed before the request could be sent",
        {
          httpStatus: 504,
          data: { requestId: data.requestId },
        },
      );
    if (!job.added()) {
      expectation.reject(tooLate());
      return;
    }
    if (await replies.fetch(job.id)) return;
    if ((await this.#options.remove(data.lane, job.id)) === 1) {
      expectation.reject(tooLate());
      return;
    }
    later((data.timeoutMs ?? this.#options.timeoutMs) + this.#options.graceMs, async () => {
      if (await replies.fetch(job.id)) return;
      const write = data.lane === "writes";
      expectation.reject(
        new AoError(
          write ? UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN : UpstreamErrors.AO_ERR_UPSTREAM_LOST,
          write
            ? "write outcome unknown: no answer from the broker running it"
            : "no answer from the broker running the request",
          { httpStatus: 502, data: { requestId: data.requestId } },
        ),
      );
    });
  }
}
