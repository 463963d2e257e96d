/**
 * What an agent (gh) makes of an answer: success, a rate-limit refusal (primary: REST 403/429
 * "API rate limit exceeded" or GraphQL 200 with errors[{type: RATE_LIMITED}]; secondary: the
 * words "secondary rate limit", https://docs.github.com/rest/overview/rate-limits-for-the-rest-api),
 * or another failure. Pure.
 */

export type RateLimitKind = "primary" | "secondary";

export interface AnswerKind {
  readonly ok: boolean;
  readonly rateLimit: RateLimitKind | null;
}

function message(json: unknown): string {
  if (json && typeof json === "object" && "message" in json) {
    const m = (json as { message: unknown }).message;
    return typeof m === "string" ? m : "";
  }
  return "";
}

export function classifyAnswer(status: number, json: unknown, graphql: boolean): AnswerKind {
  if (status === 403 || status === 429) {
    const text = message(json).toLowerCase();
    if (text.includes("secondary rate limit")) return { ok: false, rateLimit: "secondary" };
    if (text.includes("rate limit")) return { ok: false, rateLimit: "primary" };
    return { ok: false, rateLimit: null };
  }
  if (status === 304) return { ok: true, rateLimit: null };
  if (status < 200 || status >= 300) return { ok: false, rateLimit: null };
  if (graphql && json && typeof json === "object" && Array.isArray((json as { errors?: unknown }).errors)) {
    const errors = (json as { errors: { type?: unknown; message?: unknown }[] }).errors;
    if (errors.some((e) => e?.type === "RATE_LIMITED")) return { ok: false, rateLimit: "primary" };
    if (
      errors.some(
        (e) => typeof e?.message === "string" && e.message.toLowerCase().includes("secondary rate limit"),
      )
    )
      return { ok: false, rateLimit: "secondary" };
    // gh treats partial data with errors as a failure too.
    return { ok: false, rateLimit: null };
  }
  return { ok: true, rateLimit: null };
}
