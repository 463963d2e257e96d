/**
 * The cache layer's decision for an agent's read (broker/cache/core/serve-decision.ts): when it is
 * served (HIT, STALE_REVALIDATING) and, when it goes upstream, the reason it carries in
 * x-ao-broker-upstream-reason. Stale-while-revalidate applies only to answers moved by a signal
 * alone, within the bound, never to a write's moves.
 */
import { describe, expect, it } from "vitest";
import {
  addMoves,
  decideServe,
  movedOnlyBySignal,
  type ServeFacts,
} from "../../../../broker/cache/core/serve-decision.js";

const T = 1_000_000;
const CHECKS = "num:acme/widgets#1:checks";
const CORE = "num:acme/widgets#1:core";

const base: ServeFacts = {
  now: T,
  answer: { storedAt: T - 60_000, generations: { [CHECKS]: 3, [CORE]: 1 } },
  generations: { [CHECKS]: 3, [CORE]: 1 },
  freshMs: 10_000,
  guardedFreshMs: 20_000,
  vouchedAt: 0,
  vouchable: true,
  conditional: false,
  staleWhileRevalidateMs: 10_000,
  clientConditional: false,
};

describe("decideServe", () => {
  it("serves fresh and vouched answers as HIT", () => {
    expect(decideServe({ ...base, answer: { ...base.answer!, storedAt: T - 5_000 } })).toEqual({
      serve: "HIT",
    });
    expect(decideServe({ ...base, vouchedAt: T - 5_000 })).toEqual({ serve: "HIT" });
  });

  it("names why a read goes upstream", () => {
    expect(decideServe({ ...base, answer: undefined })).toEqual({ upstream: "absent" });
    expect(decideServe({ ...base, generations: { [CHECKS]: 4, [CORE]: 1 } })).toEqual({ upstream: "moved" });
    expect(decideServe(base)).toEqual({ upstream: "unvouched" });
    expect(decideServe({ ...base, vouchedAt: T - 25_000 })).toEqual({ upstream: "vouch-old" });
    // Not vouchable at all: unvouched even if some vouch value leaked in.
    expect(decideServe({ ...base, vouchable: false, guardedFreshMs: 0, vouchedAt: T - 25_000 })).toEqual({
      upstream: "unvouched",
    });
    // A REST read with a stored validator goes as a conditional request, moved or not.
    expect(decideServe({ ...base, conditional: true })).toEqual({ upstream: "revalidate" });
    expect(decideServe({ ...base, conditional: true, generations: { [CHECKS]: 4, [CORE]: 1 } })).toEqual({
      upstream: "revalidate",
    });
  });

  const movedBySignal: ServeFacts = {
    ...base,
    generations: { [CHECKS]: 4, [CORE]: 1 },
    pending: { knownAt: T - 2_000, moves: { [CHECKS]: [3, 4] } },
  };

  it("serves an answer a signal moved while its refresh is pending, within the bound", () => {
    expect(decideServe(movedBySignal)).toEqual({ serve: "STALE_REVALIDATING" });
    expect(decideServe({ ...movedBySignal, now: T - 2_000 + 9_999 })).toEqual({
      serve: "STALE_REVALIDATING",
    });
  });

  it("never past the bound, never with SWR off, never to a client's own conditional request", () => {
    expect(decideServe({ ...movedBySignal, now: T - 2_000 + 10_000 })).toEqual({ upstream: "moved" });
    expect(decideServe({ ...movedBySignal, staleWhileRevalidateMs: 0 })).toEqual({ upstream: "moved" });
    expect(decideServe({ ...movedBySignal, clientConditional: true })).toEqual({ upstream: "moved" });
  });

  it("never when something besides the signal moved the answer (a write: read-your-writes)", () => {
    // A write moved core too.
    expect(decideServe({ ...movedBySignal, generations: { [CHECKS]: 4, [CORE]: 2 } })).toEqual({
      upstream: "moved",
    });
    // A write moved checks after the signal (4 → 5).
    expect(decideServe({ ...movedBySignal, generations: { [CHECKS]: 5, [CORE]: 1 } })).toEqual({
      upstream: "moved",
    });
    // A write moved checks before the signal (3 → 4 by the write, 4 → 5 by the signal): the
    // stored answer (at 3) predates the write.
    expect(
      decideServe({
        ...movedBySignal,
        generations: { [CHECKS]: 5, [CORE]: 1 },
        pending: { knownAt: T - 2_000, moves: { [CHECKS]: [4, 5] } },
      }),
    ).toEqual({ upstream: "moved" });
  });
});

describe("addMoves", () => {
  it("chains consecutive signal moves and keeps the first time the change was known", () => {
    const first = addMoves(undefined, T, { [CHECKS]: [3, 4] });
    const second = addMoves(first, T + 5_000, { [CHECKS]: [4, 5], [CORE]: [1, 2] });
    expect(second).toEqual({ knownAt: T, moves: { [CHECKS]: [3, 5], [CORE]: [1, 2] } });
    expect(movedOnlyBySignal({ [CHECKS]: 3, [CORE]: 1 }, { [CHECKS]: 5, [CORE]: 2 }, second)).toBe(true);
  });

  it("breaks the chain when something else moved the tag in between", () => {
    const first = addMoves(undefined, T, { [CHECKS]: [3, 4] });
    // 4 → 5 was a write; the signal then moved 5 → 6.
    const second = addMoves(first, T + 5_000, { [CHECKS]: [5, 6] });
    expect(second.moves[CHECKS]).toEqual([5, 6]);
    expect(movedOnlyBySignal({ [CHECKS]: 3 }, { [CHECKS]: 6 }, second)).toBe(false);
    expect(movedOnlyBySignal({ [CHECKS]: 5 }, { [CHECKS]: 6 }, second)).toBe(true);
  });

  it("an answer nothing moved is not 'moved only by the signal'", () => {
    expect(
      movedOnlyBySignal({ [CHECKS]: 4 }, { [CHECKS]: 4 }, { knownAt: T, moves: { [CHECKS]: [3, 4] } }),
    ).toBe(false);
  });
});
