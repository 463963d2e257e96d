/**
 * The detection query: the newest PR (open, merged or closed) of many branches in one aliased
 * query, replacing AO's one `gh pr list --head B --limit 1` per session. One connection per branch
 * (pullRequests(first: 1), nothing nested), so up to 149 branches cost 1 point.
 */
import { rateLimitLine } from "./enrichment-query.js";
import type { PrState } from "./pr-facts.js";
import { asArray, asNumber, asString, asTime, dig } from "./read-json.js";
import { parseRepo } from "./repo-ref.js";

export interface BranchTarget {
  readonly repo: string;
  readonly branch: string;
}

export interface BuiltDetectionQuery {
  readonly query: string;
  readonly paths: readonly {
    readonly target: BranchTarget;
    readonly repoAlias: string;
    readonly branchAlias: string;
  }[];
}

export interface DetectedPr {
  readonly number: number;
  readonly state: PrState;
  readonly headSha: string | null;
  readonly updatedAt: number | null;
}

export interface DetectionResult {
  readonly target: BranchTarget;
  /** null: the answer says there is no PR for the branch; undefined: the answer was unusable. */
  readonly pr: DetectedPr | null | undefined;
}

export function buildDetectionQuery(
  targets: readonly BranchTarget[],
  options: { readonly rateLimit?: boolean } = {},
): BuiltDetectionQuery {
  const repos = new Map<string, { alias: string; branches: Map<string, string> }>();
  const paths: { target: BranchTarget; repoAlias: string; branchAlias: string }[] = [];
  for (const target of targets) {
    if (!parseRepo(target.repo))
      throw new TypeError(`not an owner/name repository: ${JSON.stringify(target.repo)}`);
    const key = target.repo.toLowerCase();
    let entry = repos.get(key);
    if (!entry) {
      entry = { alias: `r${repos.size}`, branches: new Map() };
      repos.set(key, entry);
    }
    let alias = entry.branches.get(target.branch);
    if (!alias) {
      alias = `b${entry.branches.size}`;
      entry.branches.set(target.branch, alias);
    }
    paths.push({ target, repoAlias: entry.alias, branchAlias: alias });
  }
  const blocks = [...repos.entries()].map(([key, entry]) => {
    const ref = parseRepo(key) as { owner: string; name: string };
    const fields = [...entry.branches.entries()].map(
      ([branch, alias]) =>
        `    ${alias}: pullRequests(headRefName: ${JSON.stringify(branch)}, first: 1, states: [OPEN, MERGED, CLOSED], orderBy: {field: CREATED_AT, direction: DESC}) { nodes { number url title state isDraft headRefName headRefOid baseRefName updatedAt } }`,
    );
    return `  ${entry.alias}: repository(owner: ${JSON.stringify(ref.owner)}, name: ${JSON.stringify(ref.name)}) {\n${fields.join("\n")}\n  }`;
  });
  return { query: `query LifecycleDetect {\n${rateLimitLine(options)}${blocks.join("\n")}\n}`, paths };
}

export function parseDetectionAnswer(data: unknown, built: BuiltDetectionQuery): DetectionResult[] {
  return built.paths.map(({ target, repoAlias, branchAlias }) => {
    const connection = dig(data, repoAlias, branchAlias);
    if (connection === undefined || connection === null) return { target, pr: undefined };
    const node = asArray(dig(connection, "nodes"))[0];
    if (node === undefined) return { target, pr: null };
    const number = asNumber(dig(node, "number"));
    const state = asString(dig(node, "state")) as PrState | undefined;
    if (number === undefined || (state !== "OPEN" && state !== "CLOSED" && state !== "MERGED")) {
      return { target, pr: undefined };
    }
    return {
      target,
      pr: {
        number,
        state,
        headSha: asString(dig(node, "headRefOid")) ?? null,
        updatedAt: asTime(dig(node, "updatedAt")),
      },
    };
  });
}
