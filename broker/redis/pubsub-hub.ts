/**
 * One Redis subscriber connection per broker, shared by every component that listens to a channel
 * (token revocations, coalescing results, cache invalidations, lifecycle events). A subscribed
 * ioredis client can run no other command, so each listener getting its own would multiply
 * connections for nothing. Listeners are dispatched by channel; re-subscription after a reconnect
 * is ioredis' job (autoResubscribe).
 */
import type { Redis } from "ioredis";

export type ChannelListener = (message: Buffer, channel: string) => void;

export class PubSubHub {
  readonly #subscriber: Redis;
  readonly #listeners = new Map<string, Set<ChannelListener>>();
  readonly #onMessage = (channel: Buffer | string, message: Buffer) => {
    const name = channel.toString();
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        listener(message, name);
      } catch {
        // A faulty listener must not starve the others.
      }
    }
  };

  constructor(subscriber: Redis) {
    this.#subscriber = subscriber;
    this.#subscriber.on("messageBuffer", this.#onMessage);
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      await this.#subscriber.subscribe(channel);
    }
    set.add(listener);
    return async () => {
      const current = this.#listeners.get(channel);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.#listeners.delete(channel);
        await this.#subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.#subscriber.off("messageBuffer", this.#onMessage);
    this.#listeners.clear();
  }
}
