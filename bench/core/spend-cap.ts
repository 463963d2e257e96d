/**
 * The hard cap of a `--target` run (real GitHub): every request passes the cap before it is sent,
 * and every answer's rate-limit headers update what has been spent. Spending is read from GitHub's
 * own numbers (x-ratelimit-used per resource and window), so it counts what any client of the
 * token spent meanwhile too — the cap errs on the side of stopping early. A request is refused when
 * what is spent plus what it may cost would pass the cap, and once refused the cap stays closed.
 * Pure: the adapter (target-proxy.ts) does the I/O.
 */

export interface SpendCapOptions {
  /** GraphQL points the run may spend. */
  readonly maxPoints: number;
  /** REST core requests the run may spend. @defaultValue maxPoints */
  readonly maxRest?: number;
}

export interface Observation {
  readonly resource: string;
  readonly used: number;
  /** Epoch seconds of the window's reset. */
  readonly reset: number;
}

interface WindowSpend {
  baseline: number;
  last: number;
}

export class SpendCap {
  readonly #maxPoints: number;
  readonly #maxRest: number;
  /** resource → window reset → spend seen in that window. */
  readonly #windows = new Map<string, Map<number, WindowSpend>>();
  #closed = false;
  #requests = 0;

  constructor(options: SpendCapOptions) {
    if (!(Number.isInteger(options.maxPoints) && options.maxPoints > 0))
      throw new Error("maxPoints must be a positive integer");
    this.#maxPoints = options.maxPoints;
    this.#maxRest = options.maxRest ?? options.maxPoints;
  }

  /** Records the token's state before the run (GET /rate_limit is free), so the first answer's own cost counts. */
  baseline(observation: Observation): void {
    this.#window(observation).baseline = observation.used;
    this.#window(observation).last = Math.max(this.#window(observation).last, observation.used);
  }

  #window(o: Observation): WindowSpend {
    let byReset = this.#windows.get(o.resource);
    if (!byReset) {
      byReset = new Map();
      this.#windows.set(o.resource, byReset);
    }
    let w = byReset.get(o.reset);
    if (!w) {
      // A window first seen through an answer: that answer's cost is in `used`, so start at 0.
      w = { baseline: 0, last: 0 };
      byReset.set(o.reset, w);
    }
    return w;
  }

  observe(observation: Observation): void {
    const w = this.#window(observation);
    w.last = Math.max(w.last, observation.used);
  }

  spent(resource: "graphql" | "core"): number {
    let total = 0;
    for (const w of this.#windows.get(resource)?.values() ?? []) total += Math.max(0, w.last - w.baseline);
    return total;
  }

  /** May a request that costs up to `cost` of `resource` be sent now? */
  allow(resource: "graphql" | "core", cost: number): boolean {
    if (this.#closed) return false;
    const limit = resource === "graphql" ? this.#maxPoints : this.#maxRest;
    // Requests in flight have not reported yet: count each as at least one unit.
    if (this.spent(resource) + Math.max(1, cost) + this.#requests > limit) {
      this.#closed = true;
      return false;
    }
    this.#requests++;
    return true;
  }

  /** An answer arrived for an allowed request. */
  settle(observation: Observation | undefined): void {
    this.#requests = Math.max(0, this.#requests - 1);
    if (observation) this.observe(observation);
  }

  get closed(): boolean {
    return this.#closed;
  }
}

/** x-ratelimit-* headers → an observation (GitHub sends them on every API answer). */
export function observationFromHeaders(headers: Readonly<Record<string, string>>): Observation | undefined {
  const used = Number(headers["x-ratelimit-used"]);
  const reset = Number(headers["x-ratelimit-reset"]);
  const resource = headers["x-ratelimit-resource"];
  if (!resource || !Number.isFinite(used) || !Number.isFinite(reset)) return undefined;
  return { resource, used, reset };
}
