/**
 * Reads the `rateLimit { cost limit remaining used resetAt }` object the broker injects into a
 * forwarded GraphQL query under a reserved alias (the pipeline injects and strips it), so the
 * real point cost of each query is known even when GitHub's headers are missing. The object itself
 * is read by the batcher's readRateLimit, the one reader of GitHub's `rateLimit` fields.
 */
import { readRateLimit } from "../../batch/core/graphql-response.js";

export interface GraphQLRateLimit {
  readonly cost: number;
  readonly limit?: number | undefined;
  readonly remaining?: number | undefined;
  readonly used?: number | undefined;
  /** Epoch ms. */
  readonly resetAt?: number | undefined;
}

export function extractGraphQLRateLimit(body: Buffer, alias: string): GraphQLRateLimit | undefined {
  if (body.length === 0 || body.length > 16 * 1024 * 1024) return undefined;
  if (!body.includes(alias)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  const data = (parsed as { data?: Record<string, unknown> } | null)?.data;
  const rl = readRateLimit(data?.[alias]);
  if (!rl) return undefined;
  const num = (v: number) => (Number.isFinite(v) ? v : undefined);
  const resetAt = rl.resetAt === "" ? Number.NaN : Date.parse(rl.resetAt);
  return {
    cost: rl.cost,
    limit: num(rl.limit),
    remaining: num(rl.remaining),
    used: num(rl.used),
    resetAt: Number.isFinite(resetAt) ? resetAt : undefined,
  };
}
