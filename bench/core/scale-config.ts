/**
 * Scales a component's time constants for a compressed step (time-scale.ts): every numeric setting
 * whose key (or enclosing key) ends in `Ms` is divided by the scale — cache freshness, batching
 * latency budgets, poll intervals, budget-wait deadlines — except timeouts and the other liveness
 * and housekeeping constants (NOT_SCALED), which do not shape behaviour; rates per minute or hour (`…PerMinute`) are multiplied. Values stay integers ≥ 1 (a 5 ms window at ×30 becomes
 * 1 ms, never 0: rounding up can only make batching wait longer, never shorter). Pure.
 */

/**
 * Timeouts guard against a dead peer; leases, claim and cache TTLs, grace periods, retention,
 * retry pauses and gauge sampling keep the machinery alive and tidy. None of them shapes what the
 * workload sees, and shrinking them only risks false failovers, expired claims (two upstream calls
 * for one read) or values below their schema's minimum.
 */
const NOT_SCALED = /timeout|lease|ttl|grace|retain|retry|gaugeinterval/i;

export interface ScaledConfig {
  /** Overrides shaped like the config (only the scaled keys). */
  readonly overrides: Record<string, unknown>;
  /** Dotted paths of what was scaled, with before → after, for the report. */
  readonly scaled: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

export function scaleTimeConstants(defaults: Readonly<Record<string, unknown>>, scale: number): ScaledConfig {
  const scaled: string[] = [];
  const walk = (
    node: Readonly<Record<string, unknown>>,
    path: string,
    inMs: boolean,
  ): Record<string, unknown> | undefined => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const full = path ? `${path}.${key}` : key;
      if (NOT_SCALED.test(key)) continue;
      // The unit the secondary rates are counted in: its rates (…PerMinute, …PerHour) are already
      // multiplied below, so shrinking their minute as well would compress them twice.
      if (key === "secondaryMinuteMs") continue;
      const msKey = inMs || /Ms$/.test(key);
      if (isObject(value)) {
        const inner = walk(value, full, msKey);
        if (inner) out[key] = inner;
      } else if (msKey && typeof value === "number" && value > 0) {
        const next = Math.max(1, Math.round(value / scale));
        out[key] = next;
        scaled.push(`${full} ${value}→${next}`);
      } else if (/Per(Minute|Hour)$/.test(key) && typeof value === "number" && value > 0) {
        // A rate over a wall-clock minute or hour: compressed time packs `scale` times more in.
        const next = Math.max(1, Math.round(value * scale));
        out[key] = next;
        scaled.push(`${full} ${value}→${next}`);
      }
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  return { overrides: walk(defaults, "", false) ?? {}, scaled };
}
