/**
 * The upstream path while Redis (and so the shared BullMQ queue) is unreachable: requests go
 * straight to GitHub through this broker's UpstreamClient, under local limits that keep the
 * secondary-limit rules without Redis — at most `concurrency` in flight, writes one at a time and
 * at least `mutationSpacingMs` apart (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#avoid-concurrent-requests).
 * A write that fails after it may have been sent is reported as outcome unknown, never retried.
 */
import { AoError } from "../../common/index.js";
import type { UpstreamAnswer, UpstreamRequest } from "../pipeline/ports.js";
import { type UpstreamClient, UpstreamErrors } from "./index.js";
import { QUEUE_DEFAULTS } from "./upstream-settings.js";

export interface DegradedUpstreamOptions {
  readonly client: UpstreamClient;
  /** @defaultValue 10 */
  readonly concurrency?: number;
  /** @defaultValue 1000 */
  readonly mutationSpacingMs?: number;
}

export class DegradedUpstream {
  readonly #client: UpstreamClient;
  readonly #concurrency: number;
  readonly #spacing: number;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];
  #writeChain: Promise<unknown> = Promise.resolve();
  #lastWriteAt = 0;
  #sent = 0;

  constructor(options: DegradedUpstreamOptions) {
    this.#client = options.client;
    this.#concurrency = options.concurrency ?? QUEUE_DEFAULTS.degradedConcurrency;
    this.#spacing = options.mutationSpacingMs ?? QUEUE_DEFAULTS.pacing.mutationSpacingMs;
  }

  /** Requests sent on this path since start. */
  get sent(): number {
    return this.#sent;
  }

  send(request: UpstreamRequest): Promise<UpstreamAnswer> {
    if (!request.mutation) return this.#withSlot(() => this.#send(request));
    // Writes are serial and spaced, as the queue's write lane does it.
    const run = this.#writeChain.then(async () => {
      const wait = this.#lastWriteAt + this.#spacing - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.#lastWriteAt = Date.now();
      return this.#withSlot(() => this.#send(request));
    });
    this.#writeChain = run.catch(() => undefined);
    return run;
  }

  async #send(request: UpstreamRequest): Promise<UpstreamAnswer> {
    const started = Date.now();
    const timeoutMs = Math.max(1000, request.deadlineAt - started);
    this.#sent += 1;
    try {
      const answer = await this.#client.send({
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        timeoutMs,
      });
      return { status: answer.status, headers: answer.headers, body: answer.body, queueWaitMs: 0 };
    } catch (error) {
      const neverSent = error instanceof AoError && error.code === UpstreamErrors.AO_ERR_UPSTREAM_UNREACHABLE;
      if (request.mutation && !neverSent) {
        throw new AoError(
          UpstreamErrors.AO_ERR_WRITE_OUTCOME_UNKNOWN,
          "the write may or may not have reached GitHub; check before repeating it",
          {
            httpStatus: 502,
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  async #withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.#concurrency)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#inFlight += 1;
    try {
      return await fn();
    } finally {
      this.#inFlight -= 1;
      this.#waiting.shift()?.();
    }
  }
}
