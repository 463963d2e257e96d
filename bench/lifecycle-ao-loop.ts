/**
 * The baseline of `npm run bench:lifecycle`: AO's lifecycle loop as agent-orchestrator runs it
 * (docs/architecture.md, "AO's lifecycle loop"), one request after another:
 *   1. per repository, the open-PR list guard (per_page=1, If-None-Match);
 *   2. only when no repository guard moved: per PR, its head's check-runs guard (per_page=1);
 *   3. one aliased GraphQL query per ≤ 25 PRs whose guard moved or that are not cached — when a
 *      repository guard moved, every PR of it (the guard cannot say which one changed);
 *   4. per session without a PR, in a repository whose guard moved: `gh pr list --head B --limit 1`
 *      (gh 2.23's PullRequestList document), one per session;
 *   5. per PR at most every 2 min: the review-comments guard, and on a change AO's review query.
 * The requests are AO's own (bench/core/ao-queries.ts); only the sequencing lives here.
 */

import type { LifecyclePorts } from "../lifecycle/index.js";
import {
  checkRunsGuardPath,
  detectionDocument,
  detectionVariables,
  enrichmentQuery,
  prListGuardPath,
  reviewCommentsPath,
  reviewThreadsQuery,
} from "./core/ao-queries.js";
import { GH_223_CAPTURES } from "./replay/gh-2.23-requests.generated.js";

export interface AoLoopSession {
  readonly id: string;
  readonly owner: string;
  readonly repo: string;
  readonly branch: string;
  pr?: number;
}

export interface AoLoopOptions {
  readonly ports: LifecyclePorts;
  readonly sessions: readonly AoLoopSession[];
  /** Scenario-clock ms (the review guard's 2-minute spacing). */
  readonly now: () => number;
  /** @defaultValue 25 */
  readonly batchSize?: number;
  /** @defaultValue 120_000 */
  readonly reviewIntervalMs?: number;
}

export interface AoLoop {
  runCycle(): Promise<void>;
}

function prListDocument(): string {
  const capture = GH_223_CAPTURES.pr_list_json?.find((r) => r.operationName === "PullRequestList");
  if (!capture?.query) throw new Error("bench: the gh 2.23 `pr list --json` capture is missing");
  return detectionDocument(capture.query);
}

export function createAoStyleLoop(options: AoLoopOptions): AoLoop {
  const { ports } = options;
  const batchSize = options.batchSize ?? 25;
  const reviewEvery = options.reviewIntervalMs ?? 120_000;
  const detection = prListDocument();
  const sessions = options.sessions.map((s) => ({ ...s }));
  const repoEtags = new Map<string, string | undefined>();
  const heads = new Map<string, string>();
  const checkEtags = new Map<string, string | undefined>();
  const reviewEtags = new Map<string, string | undefined>();
  const reviewAt = new Map<string, number>();
  let first = true;
  const key = (s: AoLoopSession) => `${s.owner}/${s.repo}#${s.pr}`;

  async function enrich(owner: string, repo: string, prs: AoLoopSession[]): Promise<void> {
    for (let i = 0; i < prs.length; i += batchSize) {
      const chunk = prs.slice(i, i + batchSize);
      const built = enrichmentQuery(
        owner,
        repo,
        chunk.map((s) => ({ number: s.pr as number })),
      );
      const answer = await ports.graphql({ query: built.query }, { priority: "lifecycle" });
      const data = (answer.data ?? {}) as Record<string, { pullRequest?: { headRefOid?: string } } | null>;
      built.aliases.forEach((alias, index) => {
        const sha = data[alias]?.pullRequest?.headRefOid;
        const session = chunk[index];
        if (sha && session) heads.set(key(session), sha);
      });
    }
  }

  return {
    async runCycle() {
      const repos = [...new Set(sessions.map((s) => `${s.owner}/${s.repo}`))];
      const moved = new Set<string>();
      for (const full of repos) {
        const [owner = "", repo = ""] = full.split("/");
        const answer = await ports.restConditional({
          path: prListGuardPath(owner, repo),
          ...etagOf(repoEtags.get(full)),
        });
        if (answer.status === 200) {
          moved.add(full);
          repoEtags.set(full, answer.etag);
        }
      }
      const withPr = sessions.filter((s) => s.pr !== undefined);
      const refresh = new Set<AoLoopSession>(withPr.filter((s) => !heads.has(key(s))));
      if (moved.size > 0) {
        for (const s of withPr) if (moved.has(`${s.owner}/${s.repo}`)) refresh.add(s);
      } else {
        for (const s of withPr) {
          const sha = heads.get(key(s));
          if (!sha) continue;
          const answer = await ports.restConditional({
            path: checkRunsGuardPath(s.owner, s.repo, sha),
            ...etagOf(checkEtags.get(key(s))),
          });
          if (answer.status === 200) {
            checkEtags.set(key(s), answer.etag);
            refresh.add(s);
          }
        }
      }
      for (const full of repos) {
        const [owner = "", repo = ""] = full.split("/");
        const batch = [...refresh].filter((s) => s.owner === owner && s.repo === repo);
        if (batch.length > 0) await enrich(owner, repo, batch);
      }
      for (const s of sessions) {
        if (s.pr !== undefined || !(first || moved.has(`${s.owner}/${s.repo}`))) continue;
        const answer = await ports.graphql(
          { query: detection, variables: detectionVariables(s.owner, s.repo, s.branch) },
          { priority: "lifecycle" },
        );
        const nodes = (
          answer.data as { repository?: { pullRequests?: { nodes?: { number?: number }[] } } } | undefined
        )?.repository?.pullRequests?.nodes;
        const number = nodes?.[0]?.number;
        if (typeof number === "number") s.pr = number;
      }
      const now = options.now();
      for (const s of withPr) {
        const last = reviewAt.get(key(s));
        if (last !== undefined && now - last < reviewEvery) continue;
        reviewAt.set(key(s), now);
        const answer = await ports.restConditional({
          path: reviewCommentsPath(s.owner, s.repo, s.pr as number),
          ...etagOf(reviewEtags.get(key(s))),
        });
        if (answer.status !== 200) continue;
        reviewEtags.set(key(s), answer.etag);
        await ports.graphql(
          { query: reviewThreadsQuery(s.owner, s.repo, s.pr as number) },
          { priority: "lifecycle" },
        );
      }
      first = false;
    },
  };
}

function etagOf(etag: string | undefined): { etag?: string } {
  return etag === undefined ? {} : { etag };
}
