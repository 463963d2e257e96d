/**
 * What to do with an upstream answer or failure — pure, so every branch is table-tested.
 *
 * GitHub's guidance (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit):
 * a 403/429 with `retry-after` means wait that many seconds; with `x-ratelimit-remaining: 0`
 * wait until `x-ratelimit-reset`; a secondary-limit message without either means wait at least a
 * minute. Retrying sooner can get the token banned, so:
 * - secondary limit → ONE global pause of all upstream traffic, then the same request again
 *   (GitHub did not perform it, so this is safe for writes too);
 * - primary bucket spent → only that resource waits for its reset (the others keep flowing);
 * - 5xx on an idempotent request → retry with exponential backoff and jitter, bounded;
 * - anything else → the caller gets GitHub's answer byte for byte.
 * GraphQL reports a spent budget as 200 with errors[].type RATE_LIMITED.
 */

export type ResponseVerdict =
  | { readonly kind: "final"; readonly exhausted?: { readonly resetAt: number } | undefined }
  | { readonly kind: "secondary-limit"; readonly pauseMs: number }
  | { readonly kind: "primary-exhausted"; readonly resetAt: number }
  | { readonly kind: "retry" };

export interface ClassifyInput {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The start of the body (a few KB is enough to find GitHub's messages). */
  readonly bodyText: string;
  readonly idempotent: boolean;
  readonly now: number;
  /** Pause when GitHub names a secondary limit but no time. @defaultValue 60000 */
  readonly secondaryPauseMs: number;
}

/** `retry-after` as delta-seconds or an HTTP date, in ms from now; undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function resetAtOf(headers: Readonly<Record<string, string>>): number | undefined {
  const reset = Number(headers["x-ratelimit-reset"]);
  return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined;
}

export function classifyResponse(input: ClassifyInput): ResponseVerdict {
  const { status, headers, now } = input;
  const spent = headers["x-ratelimit-remaining"] === "0";
  const resetAt = resetAtOf(headers);
  if (status === 403 || status === 429) {
    const retryAfter = parseRetryAfter(headers["retry-after"], now);
    if (retryAfter !== undefined) return { kind: "secondary-limit", pauseMs: retryAfter };
    if (/secondary rate limit|abuse detection/i.test(input.bodyText)) {
      return { kind: "secondary-limit", pauseMs: input.secondaryPauseMs };
    }
    if (spent && resetAt !== undefined) return { kind: "primary-exhausted", resetAt };
    return { kind: "final" };
  }
  if (status === 200 && spent && resetAt !== undefined && input.bodyText.includes('"RATE_LIMITED"')) {
    return { kind: "primary-exhausted", resetAt };
  }
  if (status >= 500 && status !== 501 && status !== 505 && input.idempotent) return { kind: "retry" };
  return spent && resetAt !== undefined ? { kind: "final", exhausted: { resetAt } } : { kind: "final" };
}

export interface BackoffInput {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  readonly baseMs: number;
  readonly maxMs: number;
  /** Uniform in [0, 1). */
  readonly rng: () => number;
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, capped. */
export function backoffDelay(input: BackoffInput): number {
  const step = Math.min(input.maxMs, input.baseMs * 2 ** (input.attempt - 1));
  return Math.round(step / 2 + input.rng() * (step / 2));
}

export interface RetryDecisionInput {
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly delayMs: number;
  readonly now: number;
  readonly deadlineAt: number;
}

/** A retry is worth it only if attempts remain and it would start before the caller's deadline. */
export function shouldRetry(input: RetryDecisionInput): boolean {
  return input.attempt < input.maxAttempts && input.now + input.delayMs < input.deadlineAt;
}
