/**
 * Results travel from whichever broker's worker ran a job back to the broker that submitted it:
 * the worker SETs the reply under a short-lived key and PUBLISHes it on the submitter's own
 * channel, all in one MULTI. The submitter normally takes it from the message (one hop, no
 * polling) and deletes the key; the key is the fallback for a message lost while the subscriber
 * was reconnecting. After a reconnect the channel is subscribed again and only THEN are the keys
 * of pending replies read: ioredis announces "ready" before its own re-subscription reaches Redis,
 * and a reply published between a read made at "ready" and the subscription would be lost. The
 * upstream queue also sweeps pending replies every few seconds (reply-sweep.ts), so a reply lost
 * any other way waits seconds, not until its deadline.
 *
 * Why not BullMQ's QueueEvents: its completed events carry the return value in a Redis stream
 * that keeps thousands of entries, so bodies would linger; and every broker would read every
 * other broker's events. Here a body lives in Redis only until its submitter takes it (or
 * resultTtlMs at most), and each broker hears only its own results.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../common/index.js";
import type { ReplyPayload } from "./upstream-job.js";
import type { UpstreamKeys } from "./upstream-keys.js";

interface Pending {
  resolve(payload: ReplyPayload): void;
  reject(err: unknown): void;
}

export interface Expectation {
  readonly promise: Promise<ReplyPayload>;
  reject(err: unknown): void;
}

export async function publishReply(
  redis: Redis,
  keys: UpstreamKeys,
  replyTo: string,
  payload: ReplyPayload,
  ttlMs: number,
): Promise<void> {
  const text = JSON.stringify(payload);
  await redis.multi().set(keys.result(payload.id), text, "PX", ttlMs).publish(replyTo, text).exec();
}

export class ReplyChannel {
  readonly channel: string;
  readonly #redis: Redis;
  readonly #sub: Redis;
  readonly #keys: UpstreamKeys;
  readonly #logger: Logger;
  readonly #pending = new Map<string, Pending>();
  #idle: (() => void) | undefined;

  constructor(options: {
    redis: Redis;
    subscriber: Redis;
    keys: UpstreamKeys;
    instanceId: string;
    logger: Logger;
  }) {
    this.#redis = options.redis;
    this.#sub = options.subscriber;
    this.#keys = options.keys;
    this.#logger = options.logger;
    this.channel = options.keys.replyChannel(options.instanceId);
  }

  async start(): Promise<void> {
    this.#sub.on("message", (_channel: string, text: string) => this.#onMessage(text));
    // Replies published while the subscriber was away are in their keys: read them once the
    // channel is subscribed again (waiting for Redis' confirmation, so nothing falls in between).
    this.#sub.on("ready", () => {
      this.#sub.subscribe(this.channel).then(
        () => this.recover(),
        (err: unknown) => this.#logger.warn({ err }, "could not re-subscribe to upstream replies"),
      );
    });
    await this.#sub.subscribe(this.channel);
  }

  /** Ids of the replies this broker is waiting for. */
  pendingIds(): string[] {
    return [...this.#pending.keys()];
  }

  /** Delivers a reply text read from its key. */
  deliver(text: string): void {
    this.#onMessage(text);
  }

  get size(): number {
    return this.#pending.size;
  }

  expect(id: string): Expectation {
    let pending!: Pending;
    const promise = new Promise<ReplyPayload>((resolve, reject) => {
      pending = { resolve, reject };
    });
    this.#pending.set(id, pending);
    // A rejection nobody awaits yet (the job could not even be added) must not crash the process.
    promise.catch(() => undefined);
    return {
      promise,
      reject: (err) => this.#settle(id, (p) => p.reject(err)),
    };
  }

  /** Looks for a reply whose message was missed; true when one was delivered. */
  async fetch(id: string): Promise<boolean> {
    const text = await this.#redis.get(this.#keys.result(id));
    if (text === null) return false;
    this.#onMessage(text);
    return true;
  }

  async recover(): Promise<void> {
    const ids = [...this.#pending.keys()];
    if (ids.length === 0) return;
    try {
      const texts = await this.#redis.mget(ids.map((id) => this.#keys.result(id)));
      for (const text of texts) if (text !== null) this.#onMessage(text);
    } catch (err) {
      this.#logger.warn({ err }, "could not recover upstream replies");
    }
  }

  /** Resolves when nothing is pending. */
  async idle(): Promise<void> {
    if (this.#pending.size === 0) return;
    await new Promise<void>((resolve) => {
      this.#idle = resolve;
    });
  }

  rejectAll(err: unknown): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, (p) => p.reject(err));
  }

  #onMessage(text: string): void {
    let payload: ReplyPayload;
    try {
      payload = JSON.parse(text) as ReplyPayload;
    } catch {
      this.#logger.warn("unreadable upstream reply dropped");
      return;
    }
    this.#redis.unlink(this.#keys.result(payload.id)).catch(() => undefined);
    this.#settle(payload.id, (p) => p.resolve(payload));
  }

  #settle(id: string, action: (p: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    action(pending);
    if (this.#pending.size === 0 && this.#idle) {
      this.#idle();
      this.#idle = undefined;
    }
  }
}
