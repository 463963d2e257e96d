/**
 * What can go wrong at GitHub, as data: a fault plan is a list of rules; each GitHub-facing
 * request is checked against them in order and the first rule that fires decides its fate.
 *
 *   status           a 5xx (or any status) in GitHub's error shape — bursts with `count`
 *   timeout          no answer; the connection is dropped after `afterMs` (the client times out first)
 *   slow             answered normally, `delayMs` late
 *   reset            the connection is dropped without an answer
 *   secondary-limit  403 "You have exceeded a secondary rate limit" with `retry-after` (a storm
 *                    with `count`)
 *   exhaust          the resource's window is marked spent before the request is served, so it
 *                    (and every later one) meets a spent budget the last headers did not announce
 *
 * A rule fires for matching requests after skipping `after` of them, at most `count` times, each
 * time with `probability` (drawn from the plan's seeded generator, so a run can be replayed).
 * Pure: no I/O; the random source is a parameter.
 */
import { z } from "zod";

const resource = z.enum(["core", "graphql", "search"]);

const action = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("status"),
    status: z.int().min(400).max(599).default(502),
    message: z.string().max(1000).optional(),
  }),
  z.strictObject({ type: z.literal("timeout"), afterMs: z.int().min(0).max(3_600_000).default(60_000) }),
  z.strictObject({ type: z.literal("slow"), delayMs: z.int().min(0).max(600_000) }),
  z.strictObject({ type: z.literal("reset") }),
  z.strictObject({
    type: z.literal("secondary-limit"),
    retryAfterSeconds: z.int().min(0).max(3600).default(60),
  }),
  z.strictObject({ type: z.literal("exhaust"), resource: resource.optional() }),
]);

const rule = z.strictObject({
  /** Which requests: GraphQL, REST or both; an upper-case method; a path prefix. */
  match: z
    .strictObject({
      kind: z.enum(["graphql", "rest", "any"]).default("any"),
      method: z
        .string()
        .regex(/^[A-Z]{3,7}$/)
        .optional(),
      pathPrefix: z.string().startsWith("/").max(1000).optional(),
    })
    .prefault({}),
  action,
  after: z.int().min(0).default(0),
  count: z.int().min(1).optional(),
  probability: z.number().min(0).max(1).default(1),
});

export const faultPlanSchema = z.strictObject({
  rules: z.array(rule).max(100),
  /** Seed of the generator behind `probability`. @defaultValue 1 */
  seed: z.int().default(1),
});

export type FaultPlanInput = z.input<typeof faultPlanSchema>;
export type FaultPlan = z.output<typeof faultPlanSchema>;
export type FaultRule = FaultPlan["rules"][number];
export type FaultAction = FaultRule["action"];

export function parseFaultPlan(
  input: unknown,
): { ok: true; value: FaultPlan } | { ok: false; message: string } {
  const parsed = faultPlanSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    message: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("\n"),
  };
}

export interface FaultRuleReport {
  readonly rule: FaultRule;
  /** Matching requests seen. */
  readonly matched: number;
  /** Times the rule fired. */
  readonly fired: number;
}

/** A deterministic uniform [0, 1) generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The plan's counters: which rule fires for the next request. */
export class FaultRuleSet {
  readonly #rules: readonly FaultRule[];
  readonly #matched: number[];
  readonly #fired: number[];
  readonly #random: () => number;

  constructor(plan: FaultPlan, random: () => number = seededRandom(plan.seed)) {
    this.#rules = plan.rules;
    this.#matched = plan.rules.map(() => 0);
    this.#fired = plan.rules.map(() => 0);
    this.#random = random;
  }

  /** The action for a request, or undefined to serve it normally. */
  decide(method: string, path: string): FaultAction | undefined {
    const kind = path === "/graphql" ? "graphql" : "rest";
    for (const [i, r] of this.#rules.entries()) {
      const m = r.match;
      if (m.kind !== "any" && m.kind !== kind) continue;
      if (m.method && m.method !== method) continue;
      if (m.pathPrefix && !path.startsWith(m.pathPrefix)) continue;
      const seen = (this.#matched[i] ?? 0) + 1;
      this.#matched[i] = seen;
      if (seen <= r.after) continue;
      if (r.count !== undefined && (this.#fired[i] ?? 0) >= r.count) continue;
      if (r.probability < 1 && this.#random() >= r.probability) continue;
      this.#fired[i] = (this.#fired[i] ?? 0) + 1;
      return r.action;
    }
    return undefined;
  }

  report(): FaultRuleReport[] {
    return this.#rules.map((rule, i) => ({
      rule,
      matched: this.#matched[i] ?? 0,
      fired: this.#fired[i] ?? 0,
    }));
  }
}
