/**
 * The scenario clock's agenda: changes scheduled for future instants (CI jobs starting and
 * finishing, timeline events). Nothing runs on a timer: `tick(now)` applies, in order, every
 * item due at or before `now`, each stamped with its own scheduled instant (World.atTime). The
 * simulator ticks before serving each request and when the clock is advanced, so an answer
 * always reflects the world at the moment it is given, and no process keeps timers alive.
 */
import type { World } from "./world.js";

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly label: string;
  readonly apply: () => void;
}

export interface TickReport {
  readonly applied: number;
  /** Items that threw (e.g. an event about a PR a client has since closed); they are dropped. */
  readonly failed: readonly { label: string; message: string }[];
}

export class ScenarioEngine {
  private readonly queue: Scheduled[] = [];
  private seq = 0;
  private readonly world: World;

  constructor(world: World) {
    this.world = world;
  }

  schedule(at: number, label: string, apply: () => void): void {
    const item: Scheduled = { at, seq: this.seq++, label, apply };
    // Binary search for the insertion point keeps the queue ordered by (at, seq).
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.queue[mid] as Scheduled;
      if (other.at <= at) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, item);
  }

  tick(now: number): TickReport {
    let applied = 0;
    const failed: { label: string; message: string }[] = [];
    while (this.queue.length > 0 && (this.queue[0] as Scheduled).at <= now) {
      const item = this.queue.shift() as Scheduled;
      try {
        this.world.atTime(item.at, item.apply);
        applied++;
      } catch (error) {
        failed.push({ label: item.label, message: error instanceof Error ? error.message : String(error) });
      }
    }
    return { applied, failed };
  }

  pending(): number {
    return this.queue.length;
  }

  /** When the next scheduled change happens, or undefined when the world will stand still. */
  nextAt(): number | undefined {
    return this.queue[0]?.at;
  }
}
