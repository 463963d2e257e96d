/**
 * Which PRs the repository's Actions guard covers. The guard (guard-runner.ts, core/actions-runs.ts)
 * sees every move of the workflow runs on its page; a PR's check runs are then watched by it when
 * they all come from GitHub Actions (the last check-runs page read for the current head said so),
 * that page was read after the guard's first read (nothing could move between unseen), every check
 * run the lifecycle's facts hold was on that page, and the guard's page watches the head's runs (or
 * they have all finished: see below). Such a PR's check-runs guard is only a backstop, and its
 * checks are vouched for as of the Actions guard's last confirmation.
 *
 * "The last check-runs page read for the current head" may also be the lifecycle's own GraphQL
 * snapshot of the head (learnChecksFromSnapshot): it lists every check of the head with each check
 * run's app, which is what that page was read for. A new head is then covered from its first
 * enrichment on, without a charged REST read (its check-runs guard waits for the backstop).
 */
import { watchesHead } from "./core/actions-runs.js";
import type { PrFacts } from "./core/pr-facts.js";
import { normalizeRepo } from "./core/repo-ref.js";
import type { PrTrack, RepoTrack, SessionIndex } from "./session-index.js";

/**
 * Takes what a GraphQL snapshot (read at `observedAt`) says of the head's check runs as a
 * check-runs page read then: when it lists every check (none cut at the page size) and says every
 * check run's app is GitHub Actions. Anything less leaves the track as it was.
 */
export function learnChecksFromSnapshot(track: PrTrack, snapshot: PrFacts, observedAt: number): void {
  if (snapshot.checksAllActions !== true || snapshot.checksTotal > snapshot.checks.length) return;
  if (track.checksSha !== snapshot.headSha) {
    track.checksSha = snapshot.headSha;
    track.checksEtag = undefined; // the ETag was another head's page
  }
  track.checksActionsOnly = true;
  track.checksNames = new Set(snapshot.checks.filter((c) => c.kind === "check-run").map((c) => c.name));
  track.checksConfirmedAt = Math.max(track.checksConfirmedAt ?? observedAt, observedAt);
}

/** The repository's Actions guard answers (so Actions answers follow its moves, not a repo-wide one). */
export function actionsWatching(repo: RepoTrack | undefined): boolean {
  return repo !== undefined && repo.actionsConfirmedAt !== null && repo.actionsCover !== null;
}

/** The time up to which the Actions guard vouches for this PR's check runs; null when it does not cover them. */
export function actionsCoverAt(
  index: SessionIndex,
  track: PrTrack,
  facts: PrFacts | undefined = index.factsFor(track.key),
): number | null {
  const repo = index.repos.get(normalizeRepo(track.repo));
  if (!repo || !actionsWatching(repo) || repo.actionsSince === null || repo.actionsCover === null)
    return null;
  if (facts?.state !== "OPEN" || track.checksSha !== facts.headSha) return null;
  if (track.checksActionsOnly !== true || track.checksConfirmedAt === null) return null;
  if (track.checksConfirmedAt <= repo.actionsSince) return null;
  // A check run GraphQL showed since that the check-runs page did not list may be another app's.
  if (facts.checks.some((c) => c.kind === "check-run" && !track.checksNames.has(c.name))) return null;
  // Off a full page a head's runs are older than every run on it: covered while they are all
  // finished (a new run of the head lands on top of the page; a re-run of an old one is left to
  // the backstop), never while one may still move unseen.
  const finished = facts.checks.every((c) => c.kind !== "check-run" || c.status === "COMPLETED");
  if (!watchesHead(repo.actionsCover, facts.headSha) && !finished) return null;
  return repo.actionsConfirmedAt;
}
