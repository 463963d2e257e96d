/**
 * The requests AO's lifecycle loop sends (docs/architecture.md, "AO's lifecycle
 * loop"), rebuilt for the `direct` and `proxy` arms: the two ETag guards, the aliased enrichment
 * query (≤ 25 PRs → 1 point), `gh pr list --head` detection (gh 2.23's PullRequestList document
 * with AO's --json fields and --head), and the review check (REST comments guard + reviewThreads
 * query). AO runs all of these through `gh` subprocesses, one after another. Pure.
 */

export interface AoPrRef {
  readonly number: number;
}

/** Guard 1, per repo: did any PR change? (AO sends it with If-None-Match.) */
export function prListGuardPath(owner: string, repo: string): string {
  return `/repos/${owner}/${repo}/pulls?state=open&sort=updated&direction=desc&per_page=1`;
}

/** Guard 2, per PR: did its head commit's checks change? */
export function checkRunsGuardPath(owner: string, repo: string, sha: string): string {
  return `/repos/${owner}/${repo}/commits/${sha}/check-runs?per_page=1`;
}

/** The review check's REST guard, per PR. */
export function reviewCommentsPath(owner: string, repo: string, pr: number): string {
  return `/repos/${owner}/${repo}/pulls/${pr}/comments`;
}

const ENRICH_FIELDS = `title state additions deletions isDraft mergeable mergeStateStatus reviewDecision headRefName headRefOid
      commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 11) { nodes { __typename
        ... on CheckRun { name status conclusion detailsUrl }
        ... on StatusContext { context state targetUrl } } } } } } }`;

/** One aliased query for up to 25 PRs of one repository, with `rateLimit` at the root. */
export function enrichmentQuery(
  owner: string,
  repo: string,
  prs: readonly AoPrRef[],
): { query: string; aliases: string[] } {
  const aliases = prs.map((_, i) => `pr${i}`);
  const parts = prs.map(
    (pr, i) =>
      `  pr${i}: repository(owner: ${JSON.stringify(owner)}, name: ${JSON.stringify(repo)}) {\n    pullRequest(number: ${pr.number}) {\n      ${ENRICH_FIELDS}\n    }\n  }`,
  );
  return { query: `query {\n${parts.join("\n")}\n  rateLimit { cost remaining resetAt }\n}`, aliases };
}

/**
 * `gh pr list --repo R --head B --json number,url,title,headRefName,baseRefName,isDraft --limit 1`:
 * gh 2.23 builds PullRequestList with a fragment of the --json fields, in the order given.
 * `capturedDocument` is the captured `gh pr list --json ...` document; its fragment is swapped.
 */
export function detectionDocument(capturedDocument: string): string {
  return capturedDocument.replace(
    /fragment pr on PullRequest\{[^}]*\}/,
    "fragment pr on PullRequest{number,url,title,headRefName,baseRefName,isDraft}",
  );
}

export function detectionVariables(owner: string, repo: string, branch: string): Record<string, unknown> {
  return { headBranch: branch, limit: 1, owner, repo, state: ["OPEN"] };
}

/** AO's review query, per PR: the last 100 threads with their first comment, the last 5 reviews. */
export function reviewThreadsQuery(owner: string, repo: string, pr: number): string {
  return `query {
  repository(owner: ${JSON.stringify(owner)}, name: ${JSON.stringify(repo)}) {
    pullRequest(number: ${pr}) {
      reviewThreads(last: 100) { nodes { isResolved isOutdated path line comments(first: 1) { nodes { author { login } body createdAt } } } }
      reviews(last: 5) { nodes { state author { login } submittedAt } }
    }
  }
}`;
}
