/**
 * One lifecycle poller per Redis, whatever the number of brokers: polling and events are not
 * idempotent work (several pollers would spend the budget twice and raise every event twice).
 * Brokers compete for a lease (`p:lifecycle:leader`, SET NX PX, renewed every third of its life);
 * the holder runs the LifecycleService, which loads every watch and state from the shared Redis
 * store, so a new leader continues where a dead one stopped. A broker that is not the leader
 * forwards watch, unwatch, status and webhook refreshes to the leader over Redis pub/sub and waits
 * for its reply; with no leader reachable, the call fails with a clear error after a timeout.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { AoError, type Logger } from "../../common/index.js";
import type { LifecycleService, RefreshTarget } from "../../lifecycle/index.js";
import { BrokerErrors } from "../errors.js";
import { LuaScripts } from "../redis/lua-scripts.js";
import type { PubSubHub } from "../redis/pubsub-hub.js";
import { LIFECYCLE_DEFAULTS } from "./lifecycle-settings.js";

type Command =
  | { readonly op: "watch"; readonly args: { id: string; repo: string; branch: string; pr?: number } }
  | { readonly op: "unwatch"; readonly args: { id: string } }
  | { readonly op: "status"; readonly args: Record<string, never> }
  | { readonly op: "refresh"; readonly args: { targets: readonly RefreshTarget[] } };

interface Envelope {
  readonly id: string;
  readonly from: string;
  readonly command: Command;
}

interface Reply {
  readonly id: string;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { code: string; message: string };
}

export interface LifecycleLeaderOptions {
  readonly redis: Redis;
  readonly pubsub: PubSubHub;
  readonly prefix: string;
  readonly createService: () => LifecycleService;
  readonly logger: Logger;
  /** @defaultValue 15000 */
  readonly leaseMs?: number;
  /** How long a forwarded call waits for the leader. @defaultValue 10000 */
  readonly forwardTimeoutMs?: number;
}

export class LifecycleLeader {
  readonly #o: LifecycleLeaderOptions;
  readonly #id = randomUUID();
  readonly #leaseKey: string;
  readonly #commands: string;
  readonly #replies: string;
  readonly #pending = new Map<string, (reply: Reply) => void>();
  #service: LifecycleService | undefined;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>)[] = [];
  #closed = false;
  readonly #scripts: LuaScripts;

  constructor(options: LifecycleLeaderOptions) {
    this.#o = options;
    this.#scripts = new LuaScripts(
      options.redis,
      ["holdLease-1.lua", "releaseLease-1.lua"],
      BrokerErrors.AO_ERR_LIFECYCLE_DISABLED,
    );
    this.#leaseKey = `${options.prefix}:lifecycle:leader`;
    this.#commands = `${options.prefix}:lifecycle:commands`;
    this.#replies = `${options.prefix}:lifecycle:replies:${this.#id}`;
  }

  get isLeader(): boolean {
    return this.#service !== undefined;
  }

  async start(): Promise<void> {
    this.#unsubscribe.push(await this.#o.pubsub.subscribe(this.#replies, (m) => this.#onReply(m)));
    this.#unsubscribe.push(await this.#o.pubsub.subscribe(this.#commands, (m) => void this.#onCommand(m)));
    await this.#tick();
    const leaseMs = this.#o.leaseMs ?? LIFECYCLE_DEFAULTS.leaseMs;
    this.#timer = setInterval(() => void this.#tick(), Math.max(500, Math.floor(leaseMs / 3)));
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const unsubscribe of this.#unsubscribe) await unsubscribe();
    if (this.#service) {
      await this.#service.close();
      this.#service = undefined;
      // Hand the lease over at once rather than after it expires.
      await this.#scripts.run("releaseLease", [this.#leaseKey], [this.#id]).catch(() => 0);
    }
  }

  watch(args: { id: string; repo: string; branch: string; pr?: number }): Promise<unknown> {
    return this.#call({ op: "watch", args });
  }

  async unwatch(id: string): Promise<boolean> {
    return (await this.#call({ op: "unwatch", args: { id } })) as boolean;
  }

  status(): Promise<unknown> {
    return this.#call({ op: "status", args: {} });
  }

  refresh(targets: readonly RefreshTarget[]): Promise<{ readonly sessions: readonly string[] }> {
    return this.#call({ op: "refresh", args: { targets } }) as Promise<{ sessions: string[] }>;
  }

  async #tick(): Promise<void> {
    if (this.#closed) return;
    const leaseMs = this.#o.leaseMs ?? LIFECYCLE_DEFAULTS.leaseMs;
    try {
      const held = (await this.#scripts.run("holdLease", [this.#leaseKey], [this.#id, leaseMs])) as number;
      if (held === 1 && !this.#service) {
        const service = this.#o.createService();
        this.#service = service;
        await service.start();
        this.#o.logger.info("this broker runs the lifecycle poller (leader)");
      } else if (held !== 1 && this.#service) {
        const service = this.#service;
        this.#service = undefined;
        await service.close();
        this.#o.logger.warn("lost the lifecycle lease; another broker polls now");
      }
    } catch (error) {
      this.#o.logger.debug({ err: error }, "lifecycle lease renewal failed");
    }
  }

  async #run(command: Command): Promise<unknown> {
    const service = this.#service;
    if (!service)
      throw new AoError(BrokerErrors.AO_ERR_LIFECYCLE_DISABLED, "this broker is not the lifecycle leader");
    switch (command.op) {
      case "watch":
        return service.watch(command.args);
      case "unwatch":
        return service.unwatch(command.args.id);
      case "status":
        return service.status();
      case "refresh":
        return service.refresh(command.args.targets);
    }
  }

  async #call(command: Command): Promise<unknown> {
    if (this.#service) return this.#run(command);
    const id = randomUUID();
    const reply = new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(
          new AoError(
            BrokerErrors.AO_ERR_LIFECYCLE_DISABLED,
            "no broker answered as the lifecycle leader; retry shortly",
            { httpStatus: 503 },
          ),
        );
      }, this.#o.forwardTimeoutMs ?? LIFECYCLE_DEFAULTS.forwardTimeoutMs);
      this.#pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
    const envelope: Envelope = { id, from: this.#replies, command };
    await this.#o.redis.publish(this.#commands, JSON.stringify(envelope));
    const answer = await reply;
    if (!answer.ok)
      throw new AoError(
        answer.error?.code ?? BrokerErrors.AO_ERR_LIFECYCLE_DISABLED,
        answer.error?.message ?? "lifecycle call failed",
      );
    return answer.result;
  }

  #onReply(message: Buffer): void {
    try {
      const reply = JSON.parse(message.toString("utf8")) as Reply;
      this.#pending.get(reply.id)?.(reply);
      this.#pending.delete(reply.id);
    } catch {
      // a malformed reply is ignored; its caller times out
    }
  }

  async #onCommand(message: Buffer): Promise<void> {
    if (!this.#service) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message.toString("utf8")) as Envelope;
    } catch {
      return;
    }
    let reply: Reply;
    try {
      reply = { id: envelope.id, ok: true, result: await this.#run(envelope.command) };
    } catch (error) {
      reply = {
        id: envelope.id,
        ok: false,
        error: {
          code: error instanceof AoError ? error.code : "AO_ERR_LIFECYCLE_DISABLED",
          message: (error as Error).message,
        },
      };
    }
    await this.#o.redis.publish(envelope.from, JSON.stringify(reply)).catch(() => 0);
  }
}
