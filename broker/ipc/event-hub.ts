/**
 * Server-pushed events: connections subscribe to topics, broker modules `publish(topic, event)`,
 * and every matching subscription gets an `event` notification (client/protocol.ts
 * EventNotificationParams) in publish order.
 *
 * Slow consumers cannot grow the broker's memory: a notification is dropped for a connection whose
 * unsent output is over its high-water mark (ipc-connection.ts), and the subscription's `seq`
 * still advances, so the next delivered notification shows the gap and carries `dropped: n`.
 * Subscriptions belong to their connection and end when it closes.
 */

import { EVENT_NOTIFICATION } from "../../client/index.js";
import type { Logger } from "../../common/index.js";
import { normalizeTopics, topicMatches } from "./core/topic-match.js";

/** What the hub needs from a connection. */
export interface EventSink {
  readonly id: string;
  /** Queues a complete line; false when it was dropped. */
  sendLine(line: string, droppable: boolean): boolean;
  onClose(cleanup: () => void): void;
}

interface Subscription {
  readonly id: string;
  readonly topics: readonly string[];
  readonly sink: EventSink;
  seq: number;
  dropped: number;
}

export class EventHub {
  readonly #logger: Logger;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #bySink = new Map<string, Set<string>>();
  #nextId = 1;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  subscribe(
    sink: EventSink,
    topics: readonly string[] | undefined,
  ): { subscriptionId: string; topics: string[] } {
    const id = `s${this.#nextId++}`;
    const normalized = normalizeTopics(topics);
    this.#subscriptions.set(id, { id, topics: normalized, sink, seq: 0, dropped: 0 });
    let ids = this.#bySink.get(sink.id);
    if (ids === undefined) {
      ids = new Set();
      this.#bySink.set(sink.id, ids);
      sink.onClose(() => this.#removeSink(sink.id));
    }
    ids.add(id);
    return { subscriptionId: id, topics: normalized };
  }

  /** How many subscriptions connection `sinkId` holds (a subscribed connection is never evicted). */
  subscriptionsOf(sinkId: string): number {
    return this.#bySink.get(sinkId)?.size ?? 0;
  }

  /** Idempotent; a connection can only end its own subscriptions. */
  unsubscribe(sink: EventSink, subscriptionId: string): boolean {
    const subscription = this.#subscriptions.get(subscriptionId);
    if (subscription === undefined || subscription.sink.id !== sink.id) return false;
    this.#subscriptions.delete(subscriptionId);
    this.#bySink.get(sink.id)?.delete(subscriptionId);
    return true;
  }

  /**
   * Delivers `event` to every subscription whose topics match; returns how many received it.
   * The event must be JSON-serializable; one that is not is logged and delivered to nobody.
   */
  publish(topic: string, event: unknown): number {
    if (this.#subscriptions.size === 0) return 0;
    let eventJson: string | undefined;
    try {
      eventJson = JSON.stringify(event ?? null) ?? "null";
    } catch (error) {
      this.#logger.error({ err: error, topic }, "event is not JSON-serializable; not published");
      return 0;
    }
    const topicJson = JSON.stringify(topic);
    let delivered = 0;
    for (const subscription of this.#subscriptions.values()) {
      if (!topicMatches(subscription.topics, topic)) continue;
      subscription.seq += 1;
      const dropped = subscription.dropped > 0 ? `,"dropped":${subscription.dropped}` : "";
      // Built by hand so a large event is serialized once, not once per subscriber.
      const line = `{"jsonrpc":"2.0","method":"${EVENT_NOTIFICATION}","params":{"subscriptionId":"${subscription.id}","topic":${topicJson},"seq":${subscription.seq}${dropped},"event":${eventJson}}}\n`;
      if (subscription.sink.sendLine(line, true)) {
        subscription.dropped = 0;
        delivered += 1;
      } else {
        subscription.dropped += 1;
      }
    }
    return delivered;
  }

  #removeSink(sinkId: string): void {
    for (const id of this.#bySink.get(sinkId) ?? []) this.#subscriptions.delete(id);
    this.#bySink.delete(sinkId);
  }
}
