/**
 * Folds one observation of a PR into what is already known, refusing stale and repeated ones.
 * Observations arrive out of order: a poll answer requested before a webhook-triggered refresh
 * can land after it, GitHub redelivers webhooks, and a check_run webhook can overtake the
 * pull_request webhook of the push that created it. The rules:
 *
 * - snapshot (a full GraphQL read): stale when its updatedAt is older than what is known, or the
 *   same updatedAt requested earlier than the snapshot already applied. Accepted snapshots replace
 *   everything, except checks of the same head that a webhook reported as further along (a check
 *   never moves backwards: a re-run starts later, then queued < in progress < completed).
 * - pr-event (a pull_request webhook): applies only when its updatedAt is strictly newer. A new
 *   head SHA clears the checks (they belong to the old head) and marks mergeability unknown.
 * - check (check_run or status webhook): applies only to the current head and only when newer
 *   than the same check already held; the rollup is recomputed from the checks.
 *
 * Applying the same observation twice changes nothing the second time (`changed: false`).
 */
import {
  type CheckFact,
  checkKey,
  compareCheckVersions,
  factsFingerprint,
  type PrFacts,
  type PrState,
  recomputeRollup,
} from "./pr-facts.js";
import { normalizeRepo } from "./repo-ref.js";

export interface SnapshotObservation {
  readonly kind: "snapshot";
  readonly facts: PrFacts;
}

export interface PrEventObservation {
  readonly kind: "pr-event";
  readonly repo: string;
  readonly number: number;
  readonly state: PrState;
  readonly updatedAt: number;
  readonly isDraft?: boolean;
  readonly headSha?: string;
  readonly title?: string;
  readonly observedAt: number;
}

export interface CheckObservation {
  readonly kind: "check";
  readonly repo: string;
  readonly headSha: string;
  /** `seenAt` should be set to the local time the webhook arrived. */
  readonly check: CheckFact;
}

export type PrObservation = SnapshotObservation | PrEventObservation | CheckObservation;

export type MergeOutcome = "applied" | "unchanged" | "stale" | "no-base" | "other-head";

export interface MergeResult {
  readonly facts: PrFacts | undefined;
  readonly outcome: MergeOutcome;
  /** True when the facts differ from before in anything a consumer can see. */
  readonly changed: boolean;
}

function finish(current: PrFacts | undefined, next: PrFacts): MergeResult {
  const changed = current === undefined || factsFingerprint(current) !== factsFingerprint(next);
  return { facts: next, outcome: changed ? "applied" : "unchanged", changed };
}

function mergeSnapshot(current: PrFacts | undefined, snapshot: PrFacts): MergeResult {
  if (
    current === undefined ||
    current.number !== snapshot.number ||
    normalizeRepo(current.repo) !== normalizeRepo(snapshot.repo)
  ) {
    return finish(current, snapshot);
  }
  if (snapshot.updatedAt < current.updatedAt) return { facts: current, outcome: "stale", changed: false };
  if (snapshot.updatedAt === current.updatedAt && snapshot.observedAt < current.observedAt) {
    return { facts: current, outcome: "stale", changed: false };
  }
  if (snapshot.headSha !== current.headSha) return finish(current, snapshot);

  const held = new Map(current.checks.map((c) => [checkKey(c), c]));
  let keptNewer = false;
  const checks: CheckFact[] = snapshot.checks.map((fromSnapshot) => {
    const known = held.get(checkKey(fromSnapshot));
    held.delete(checkKey(fromSnapshot));
    if (known && compareCheckVersions(known, fromSnapshot) > 0) {
      keptNewer = true;
      return known;
    }
    return fromSnapshot;
  });
  for (const onlyKnown of held.values()) {
    if (onlyKnown.seenAt !== undefined && onlyKnown.seenAt > snapshot.observedAt) {
      keptNewer = true;
      checks.push(onlyKnown);
    }
  }
  const complete = Math.max(snapshot.checksTotal, checks.length) <= checks.length;
  const next: PrFacts = keptNewer
    ? {
        ...snapshot,
        checks,
        checksTotal: Math.max(snapshot.checksTotal, checks.length),
        rollupState: recomputeRollup(checks, snapshot.rollupState, complete),
      }
    : snapshot;
  return finish(current, next);
}

function mergePrEvent(current: PrFacts | undefined, event: PrEventObservation): MergeResult {
  if (
    current === undefined ||
    current.number !== event.number ||
    normalizeRepo(current.repo) !== normalizeRepo(event.repo)
  ) {
    return { facts: current, outcome: "no-base", changed: false };
  }
  if (event.updatedAt <= current.updatedAt) return { facts: current, outcome: "stale", changed: false };
  const headMoved = event.headSha !== undefined && event.headSha !== current.headSha;
  const hadCi = current.checks.length > 0 || current.rollupState !== null;
  const next: PrFacts = {
    ...current,
    state: event.state,
    updatedAt: event.updatedAt,
    ...(event.isDraft === undefined ? {} : { isDraft: event.isDraft }),
    ...(event.title === undefined ? {} : { title: event.title }),
    ...(headMoved
      ? {
          headSha: event.headSha as string,
          checks: [],
          checksTotal: 0,
          rollupState: hadCi ? "PENDING" : null,
          mergeable: "UNKNOWN",
          mergeStateStatus: "UNKNOWN",
        }
      : {}),
  };
  return finish(current, next);
}

function mergeCheck(current: PrFacts | undefined, observation: CheckObservation): MergeResult {
  if (current === undefined || normalizeRepo(current.repo) !== normalizeRepo(observation.repo)) {
    return { facts: current, outcome: "no-base", changed: false };
  }
  if (current.headSha !== observation.headSha)
    return { facts: current, outcome: "other-head", changed: false };
  const key = checkKey(observation.check);
  const known = current.checks.find((c) => checkKey(c) === key);
  if (known) {
    const order = compareCheckVersions(observation.check, known);
    if (order < 0) return { facts: current, outcome: "stale", changed: false };
    if (order === 0) return { facts: current, outcome: "unchanged", changed: false };
  }
  const checks = known
    ? current.checks.map((c) => (checkKey(c) === key ? observation.check : c))
    : [...current.checks, observation.check];
  const checksTotal = Math.max(current.checksTotal + (known ? 0 : 1), checks.length);
  const next: PrFacts = {
    ...current,
    checks,
    checksTotal,
    rollupState: recomputeRollup(checks, current.rollupState, checksTotal <= checks.length),
  };
  return finish(current, next);
}

export function mergeObservation(current: PrFacts | undefined, observation: PrObservation): MergeResult {
  switch (observation.kind) {
    case "snapshot":
      return mergeSnapshot(current, observation.facts);
    case "pr-event":
      return mergePrEvent(current, observation);
    case "check":
      return mergeCheck(current, observation);
  }
}
