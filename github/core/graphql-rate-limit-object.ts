/**
 * GitHub's GraphQL `rateLimit { cost remaining resetAt limit used nodeCount }` object, as it
 * appears in an answer: the one reader of its fields in the repository (the batcher's
 * `readRateLimit`, the upstream's `extractGraphQLRateLimit` and the lifecycle's `parseRateLimit`
 * build on it, each with its own rule for what a usable answer needs). A field of the wrong type
 * reads as absent.
 */
export interface RateLimitFields {
  readonly cost?: number | undefined;
  readonly remaining?: number | undefined;
  readonly resetAt?: string | undefined;
  readonly limit?: number | undefined;
  readonly used?: number | undefined;
  readonly nodeCount?: number | undefined;
}

export function readRateLimitFields(value: unknown): RateLimitFields | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { cost, remaining, resetAt, limit, used, nodeCount } = value as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    cost: num(cost),
    remaining: num(remaining),
    resetAt: typeof resetAt === "string" ? resetAt : undefined,
    limit: num(limit),
    used: num(used),
    nodeCount: num(nodeCount),
  };
}
