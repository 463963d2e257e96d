/**
 * Delivers webhooks like GitHub: one POST per event to the configured URL with X-GitHub-Event,
 * X-GitHub-Delivery (a fresh GUID), X-Hub-Signature-256 (`sha256=` + HMAC-SHA256 of the raw body
 * with the secret; https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries)
 * and a JSON body.
 *
 * Off the request path: the world's listener only enqueues; a pump sends one delivery at a time,
 * in the order the changes happened (a receiver that patches cached answers from payloads then
 * never sees an older object after a newer one from this simulator). A failed delivery (network
 * error, timeout, a 5xx) is retried a bounded number of times with a growing pause, then counted
 * as failed and dropped; a 4xx is final (GitHub does not retry on its own either). The queue is
 * bounded: past `maxQueue` the oldest pending delivery is dropped and counted. Nothing here can
 * block or throw into the simulator.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { WebhookDelivery } from "./webhook-payloads.js";

export interface WebhookTarget {
  /** Where deliveries are POSTed, e.g. `http://127.0.0.1:8080/webhooks/github`. */
  readonly url: string;
  /** The shared secret for X-Hub-Signature-256. */
  readonly secret: string;
  /** Events to send. @defaultValue every event the simulator produces */
  readonly events?: readonly string[];
  /** Attempts per delivery (the first included). @defaultValue 3 */
  readonly maxAttempts?: number;
  /** Pause before the first retry, doubled on each. @defaultValue 200 */
  readonly retryDelayMs?: number;
  /** One attempt's time limit. @defaultValue 5000 */
  readonly timeoutMs?: number;
  /** Pending deliveries kept; past this the oldest is dropped. @defaultValue 10000 */
  readonly maxQueue?: number;
  /** API base of the URLs inside payloads. @defaultValue "http://api.github.localhost" */
  readonly apiBase?: string;
}

export interface WebhookStats {
  readonly queued: number;
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
  readonly dropped: number;
  /** Deliveries made, by `event.action`. */
  readonly byName: Readonly<Record<string, number>>;
}

export const WEBHOOK_TARGET_DEFAULTS = {
  maxAttempts: 3,
  retryDelayMs: 200,
  timeoutMs: 5000,
  maxQueue: 10_000,
  apiBase: "http://api.github.localhost",
} as const;

export function signWebhook(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export class WebhookSender {
  readonly #target: Required<Omit<WebhookTarget, "events">> & { events: Set<string> | undefined };
  readonly #queue: WebhookDelivery[] = [];
  #pumping: Promise<void> | undefined;
  #closed = false;
  #stats = { queued: 0, delivered: 0, retried: 0, failed: 0, dropped: 0 };
  readonly #byName: Record<string, number> = {};

  constructor(target: WebhookTarget) {
    this.#target = {
      ...WEBHOOK_TARGET_DEFAULTS,
      ...target,
      events: target.events ? new Set(target.events) : undefined,
    };
  }

  /** Queues deliveries; returns at once. */
  enqueue(deliveries: readonly WebhookDelivery[]): void {
    if (this.#closed) return;
    for (const delivery of deliveries) {
      if (this.#target.events && !this.#target.events.has(delivery.event)) continue;
      this.#queue.push(delivery);
      this.#stats.queued += 1;
      if (this.#queue.length > this.#target.maxQueue) {
        this.#queue.shift();
        this.#stats.dropped += 1;
      }
    }
    if (this.#queue.length > 0 && !this.#pumping) {
      this.#pumping = this.#pump().finally(() => {
        this.#pumping = undefined;
      });
    }
  }

  stats(): WebhookStats {
    return { ...this.#stats, byName: { ...this.#byName } };
  }

  /** Resolves once every delivery queued so far was sent (or given up). */
  async flush(): Promise<void> {
    for (let pump = this.#pumping; pump !== undefined; pump = this.#pumping) await pump;
  }

  /** Stops sending; pending deliveries are dropped (counted), one in flight finishes. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stats.dropped += this.#queue.length;
    this.#queue.length = 0;
    await this.flush();
  }

  async #pump(): Promise<void> {
    // Yield first: the change that enqueued this is still being applied.
    await new Promise((resolve) => setImmediate(resolve));
    for (let next = this.#queue.shift(); next; next = this.#queue.shift()) await this.#deliver(next);
  }

  async #deliver(delivery: WebhookDelivery): Promise<void> {
    const body = JSON.stringify(delivery.payload);
    const headers = {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/github-sim",
      "x-github-event": delivery.event,
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": signWebhook(this.#target.secret, body),
    };
    for (let attempt = 1; attempt <= this.#target.maxAttempts; attempt++) {
      if (attempt > 1) {
        this.#stats.retried += 1;
        await new Promise((resolve) => setTimeout(resolve, this.#target.retryDelayMs * 2 ** (attempt - 2)));
      }
      try {
        const response = await fetch(this.#target.url, {
          method: "POST",
          headers,
          body,
          signal: AbortSignal.timeout(this.#target.timeoutMs),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.status < 500) {
          if (response.status < 400) {
            this.#stats.delivered += 1;
            this.#byName[delivery.name] = (this.#byName[delivery.name] ?? 0) + 1;
          } else this.#stats.failed += 1;
          return;
        }
      } catch {
        // a network error or a timeout: retried below
      }
    }
    this.#stats.failed += 1;
  }
}
