/**
 * Holding a first-time read for a partner (issue 16): a GraphQL miss sent alone costs GitHub's
 * minimum of one point, while a merged query costs about one point for many members (GitHub's
 * cost: connection requests / 100, at least 1 per document,
 * https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#calculating-points).
 * An interactive read normally waits only a few ms, which at tens of sessions almost never finds a
 * partner: most first reads went alone. Waiting `windowMs` instead pays when a partner is likely,
 * so the hold is taken only when the recent arrivals of OTHER sessions' queries predict at least
 * `minExpectedPartners` within the window (arrivals per ms × windowMs); a lone session, or a quiet
 * broker, keeps the short window and its latency. Pure.
 */

export interface PartnerHoldSettings {
  /** How long a first-time read waits when a partner is likely, ms. */
  readonly windowMs: number;
  /** The least expected partners (other sessions' queries within windowMs) worth the wait. */
  readonly minExpectedPartners: number;
  /** Arrivals are counted over this long, ms. */
  readonly rateWindowMs: number;
}

/** Other sessions' queries expected within `windowMs`, from `arrivals` over the last rateWindowMs. */
export function expectedPartners(arrivals: number, settings: PartnerHoldSettings): number {
  if (!(arrivals > 0) || !(settings.rateWindowMs > 0)) return 0;
  return (arrivals * settings.windowMs) / settings.rateWindowMs;
}

/** The window of a first-time read: the hold when a partner is likely, else its normal window. */
export function partnerHoldMs(normalMs: number, arrivals: number, settings: PartnerHoldSettings): number {
  if (settings.windowMs <= normalMs) return normalMs;
  return expectedPartners(arrivals, settings) >= settings.minExpectedPartners ? settings.windowMs : normalMs;
}
