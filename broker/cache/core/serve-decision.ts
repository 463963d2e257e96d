/**
 * What the cache layer does with an agent's read, and when it goes upstream, why. Pure: the cache
 * layer looks the answer, its tags' generations, the vouches and any pending refresh up, and hands
 * the facts in.
 *
 *   fresh (within freshMs, no tag moved)                     → HIT
 *   vouched (tags current, a covering vouch < guardedFreshMs) → HIT
 *   moved only by a signal whose refresh is pending, the      → STALE_REVALIDATING (served; the
 *     change known < staleWhileRevalidateMs, no If-None-Match   refresh brings the new answer)
 *   otherwise upstream, because:
 *     revalidate   a REST conditional request (the stored ETag / Last-Modified is sent)
 *     absent       nothing stored under the key
 *     moved        a tag it read moved (a write, or a signal without a usable pending refresh)
 *     vouch-old    tags current, past freshness, a vouch exists but is older than guardedFreshMs
 *     unvouched    tags current, past freshness, no vouch covers it
 * `bypass` (not cacheable), `refresh` (the broker's own refresh of answers agents read) and
 * `signal` (the lifecycle's own guards and enrichment) are decided before this.
 */

export const UPSTREAM_REASONS = [
  "absent",
  "moved",
  "unvouched",
  "vouch-old",
  "revalidate",
  "bypass",
  "refresh",
  "signal",
] as const;
export type UpstreamReason = (typeof UPSTREAM_REASONS)[number];

/** A refresh the broker has scheduled for this key after a signal moved tags it read. */
export interface PendingRefresh {
  /** When the broker learned of the change (the signal's detection), epoch ms. */
  readonly knownAt: number;
  /**
   * The moves of the key's tags that were the signal's: tag → [generation before, after]. A tag
   * that moved twice in a row by signals spans both; a move by anything else breaks the chain.
   */
  readonly moves: Readonly<Record<string, readonly [number, number]>>;
}

export interface ServeFacts {
  readonly now: number;
  /** The stored answer, when there is one. */
  readonly answer?:
    | { readonly storedAt: number; readonly generations: Readonly<Record<string, number>> }
    | undefined;
  /** Current generations of the tags the request reads. */
  readonly generations: Readonly<Record<string, number>>;
  readonly freshMs: number;
  /** 0: this answer cannot be vouched for. */
  readonly guardedFreshMs: number;
  /** Oldest covering vouch (0: some tag has none). */
  readonly vouchedAt: number;
  /** The answer can be vouched for at all (its class has vouch groups). */
  readonly vouchable: boolean;
  /** A REST read whose stored answer has a validator: it would be sent as a conditional request. */
  readonly conditional: boolean;
  readonly pending?: PendingRefresh | undefined;
  /** 0 turns stale-while-revalidate off. */
  readonly staleWhileRevalidateMs: number;
  /** The client sent its own If-None-Match: a guard asking whether it changed gets the truth. */
  readonly clientConditional: boolean;
}

export type ServeDecision =
  | { readonly serve: "HIT" | "STALE_REVALIDATING" }
  | { readonly upstream: UpstreamReason };

/** Every tag the answer read is at the generation it was stored with. */
export function tagsCurrent(
  stored: Readonly<Record<string, number>>,
  current: Readonly<Record<string, number>>,
): boolean {
  return Object.keys(current).every((tag) => (stored[tag] ?? 0) === current[tag]);
}

/**
 * The answer moved ONLY by the pending refresh's signals: every tag is either where the answer was
 * stored, or was moved by the signal from exactly the generation the answer was stored with to
 * exactly the current one. Any other move (a write, by anyone, before or after the signal) makes
 * this false, so a write is never answered with the answer from before it.
 */
export function movedOnlyBySignal(
  stored: Readonly<Record<string, number>>,
  current: Readonly<Record<string, number>>,
  pending: PendingRefresh,
): boolean {
  let moved = false;
  for (const [tag, now] of Object.entries(current)) {
    const was = stored[tag] ?? 0;
    if (was === now) continue;
    const move = pending.moves[tag];
    if (!move || move[0] !== was || move[1] !== now) return false;
    moved = true;
  }
  return moved;
}

/**
 * Adds a signal's moves to a pending refresh: a tag whose earlier move ends where this one starts
 * keeps its first generation (two signals in a row); otherwise the new move replaces it (something
 * else moved the tag in between, so answers from before it must not be served). `knownAt` stays
 * the earliest: staleness is counted from the first change the broker knew of.
 */
export function addMoves(
  existing: PendingRefresh | undefined,
  knownAt: number,
  moves: Readonly<Record<string, readonly [number, number]>>,
): PendingRefresh {
  if (!existing) return { knownAt, moves: { ...moves } };
  const merged: Record<string, readonly [number, number]> = { ...existing.moves };
  for (const [tag, move] of Object.entries(moves)) {
    const before = merged[tag];
    merged[tag] = before && before[1] === move[0] ? [before[0], move[1]] : move;
  }
  return { knownAt: Math.min(existing.knownAt, knownAt), moves: merged };
}

export function decideServe(f: ServeFacts): ServeDecision {
  const answer = f.answer;
  if (!answer) return { upstream: "absent" };
  const current = tagsCurrent(answer.generations, f.generations);
  if (current) {
    if (f.now - answer.storedAt < f.freshMs) return { serve: "HIT" };
    if (f.vouchedAt > 0 && f.now - f.vouchedAt < f.guardedFreshMs) return { serve: "HIT" };
  } else if (
    f.pending &&
    f.staleWhileRevalidateMs > 0 &&
    !f.clientConditional &&
    f.now - f.pending.knownAt < f.staleWhileRevalidateMs &&
    movedOnlyBySignal(answer.generations, f.generations, f.pending)
  ) {
    return { serve: "STALE_REVALIDATING" };
  }
  if (f.conditional) return { upstream: "revalidate" };
  if (!current) return { upstream: "moved" };
  if (f.vouchable && f.guardedFreshMs > 0 && f.vouchedAt > 0) return { upstream: "vouch-old" };
  return { upstream: "unvouched" };
}
