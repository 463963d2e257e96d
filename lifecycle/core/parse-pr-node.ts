/**
 * A PullRequest node of the lifecycle's GraphQL queries (the LifecyclePr fragment) → PrFacts.
 * Returns undefined when the node lacks what the lifecycle cannot do without (number, state,
 * head SHA, updatedAt); optional parts default to "nothing known" rather than failing the node.
 */
import type { CheckFact, PrFacts, PrState, ReviewFact } from "./pr-facts.js";
import { asArray, asBoolean, asNumber, asObject, asString, asTime, dig } from "./read-json.js";

const PR_STATES = new Set<PrState>(["OPEN", "CLOSED", "MERGED"]);

function parseContext(node: unknown): CheckFact | undefined {
  const object = asObject(node);
  if (!object) return undefined;
  if (object.__typename === "StatusContext" || typeof object.context === "string") {
    const name = asString(object.context);
    const state = asString(object.state);
    if (!name || !state) return undefined;
    const created = asTime(object.createdAt);
    const final = state === "SUCCESS" || state === "FAILURE" || state === "ERROR";
    return {
      kind: "status-context",
      name,
      status: state,
      conclusion: final ? state : null,
      url: asString(object.targetUrl) ?? null,
      startedAt: created,
      completedAt: final ? created : null,
    };
  }
  const name = asString(object.name);
  const status = asString(object.status);
  if (!name || !status) return undefined;
  return {
    kind: "check-run",
    name,
    status,
    conclusion: asString(object.conclusion) ?? null,
    url: asString(object.detailsUrl) ?? null,
    startedAt: asTime(object.startedAt),
    completedAt: asTime(object.completedAt),
  };
}

function parseReview(node: unknown): ReviewFact | undefined {
  const state = asString(dig(node, "state"));
  if (!state) return undefined;
  return {
    author: asString(dig(node, "author", "login")) ?? null,
    state,
    submittedAt: asTime(dig(node, "submittedAt")),
  };
}

export function parsePrNode(repo: string, node: unknown, observedAt: number): PrFacts | undefined {
  const pr = asObject(node);
  if (!pr) return undefined;
  const number = asNumber(pr.number);
  const state = asString(pr.state) as PrState | undefined;
  const headSha = asString(pr.headRefOid);
  const updatedAt = asTime(pr.updatedAt);
  if (number === undefined || !state || !PR_STATES.has(state) || !headSha || updatedAt === null)
    return undefined;
  const lastCommit = asArray(dig(pr, "commits", "nodes"))[0];
  const rollup = asObject(dig(lastCommit, "commit", "statusCheckRollup"));
  const contexts = asObject(rollup?.contexts);
  const nodes = asArray(contexts?.nodes);
  const checks = nodes.map(parseContext).filter((c): c is CheckFact => c !== undefined);
  // Known only when every check run node carries its app (the enrichment asks; other queries may not).
  const runApps = nodes
    .filter((n) => asObject(n)?.__typename === "CheckRun")
    .map((n) => asString(dig(n, "checkSuite", "app", "slug")));
  const checksAllActions = runApps.every((slug) => slug !== undefined)
    ? runApps.every((slug) => slug === "github-actions")
    : undefined;
  const threads = asArray(dig(pr, "reviewThreads", "nodes"));
  const unresolvedThreadIds = threads
    .filter((t) => asBoolean(dig(t, "isResolved")) === false)
    .map((t) => asString(dig(t, "id")))
    .filter((id): id is string => id !== undefined);
  const totalCommentsCount = asNumber(pr.totalCommentsCount);
  return {
    repo,
    number,
    url: asString(pr.url) ?? null,
    title: asString(pr.title) ?? "",
    state,
    isDraft: asBoolean(pr.isDraft) ?? false,
    additions: asNumber(pr.additions) ?? 0,
    deletions: asNumber(pr.deletions) ?? 0,
    mergeable: asString(pr.mergeable) ?? "UNKNOWN",
    mergeStateStatus: asString(pr.mergeStateStatus) ?? null,
    reviewDecision: asString(pr.reviewDecision) ?? null,
    headRefName: asString(pr.headRefName) ?? "",
    baseRefName: asString(pr.baseRefName) ?? null,
    headSha,
    updatedAt,
    rollupState: asString(rollup?.state) ?? null,
    checks,
    checksTotal: Math.max(asNumber(contexts?.totalCount) ?? checks.length, checks.length),
    unresolvedThreadIds,
    reviews: asArray(dig(pr, "reviews", "nodes"))
      .map(parseReview)
      .filter((r): r is ReviewFact => r !== undefined),
    ...(totalCommentsCount !== undefined ? { totalCommentsCount } : {}),
    ...(checksAllActions !== undefined ? { checksAllActions } : {}),
    observedAt,
  };
}
