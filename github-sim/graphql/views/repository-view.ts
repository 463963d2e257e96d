/**
 * The GraphQL view of a repository: metadata gh's RepositoryInfo asks for, the pullRequests /
 * issues connections with GitHub's filters and orderings, lookups by number (NOT_FOUND in
 * GitHub's words when absent), labels, refs and objects.
 */
import type { SimIssue, SimPullRequest, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { WorldError } from "../../core/world-error.js";
import { connection, emptyConnection } from "../connection.js";
import { type GqlContext, isoTime } from "../context.js";
import { labelView, ownerView, usersOf, type View } from "./actors.js";
import { commitView } from "./commit-view.js";
import { issueView } from "./issue-view.js";
import { pullRequestView, pullState } from "./pull-request-view.js";

interface OrderBy {
  readonly field?: string;
  readonly direction?: "ASC" | "DESC";
}

interface PullsArgs extends PageArgs {
  readonly states?: readonly string[] | null;
  readonly labels?: readonly string[] | null;
  readonly headRefName?: string | null;
  readonly baseRefName?: string | null;
  readonly orderBy?: OrderBy | null;
}

interface IssuesArgs extends PageArgs {
  readonly states?: readonly string[] | null;
  readonly labels?: readonly string[] | null;
  readonly orderBy?: OrderBy | null;
  readonly filterBy?: {
    readonly assignee?: string | null;
    readonly createdBy?: string | null;
    readonly mentioned?: string | null;
    readonly labels?: readonly string[] | null;
    readonly states?: readonly string[] | null;
  } | null;
}

function ordered<T extends SimPullRequest | SimIssue>(items: T[], orderBy: OrderBy | null | undefined): T[] {
  const field = orderBy?.field ?? "CREATED_AT";
  const key = (item: T) =>
    field === "UPDATED_AT" ? item.updatedAt : field === "COMMENTS" ? item.comments.length : item.createdAt;
  const sign = orderBy?.direction === "DESC" ? -1 : 1;
  return items.sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
}

function hasLabels(item: SimPullRequest | SimIssue, labels: readonly string[] | null | undefined): boolean {
  if (!labels || labels.length === 0) return true;
  const own = new Set(item.labels.map((l) => l.toLowerCase()));
  return labels.some((l) => own.has(l.toLowerCase()));
}

function resolveLogin(ctx: GqlContext, login: string | null | undefined): string | undefined {
  if (!login) return undefined;
  return (login === "@me" ? ctx.world.viewer : login).toLowerCase();
}

export function repositoryView(ctx: GqlContext, repo: SimRepo): View {
  const url = `${ctx.webBase}/${repo.fullName}`;
  const pull = (number: number) => pullRequestView(ctx, repo, ctx.world.requirePull(repo, number));
  return {
    __typename: "Repository",
    id: repo.nodeId,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.fullName,
    get owner() {
      return ownerView(ctx, repo);
    },
    description: repo.description,
    url,
    sshUrl: `git@github.localhost:${repo.fullName}.git`,
    resourcePath: `/${repo.fullName}`,
    homepageUrl: null,
    isPrivate: repo.private,
    visibility: repo.private ? "PRIVATE" : "PUBLIC",
    isFork: false,
    isArchived: false,
    isDisabled: false,
    isEmpty: false,
    isTemplate: false,
    isInOrganization: true,
    hasIssuesEnabled: true,
    hasWikiEnabled: false,
    hasProjectsEnabled: false,
    hasDiscussionsEnabled: false,
    viewerPermission: "ADMIN",
    viewerCanAdminister: true,
    viewerDefaultMergeMethod: "MERGE",
    viewerDefaultCommitEmail: null,
    mergeCommitAllowed: repo.mergeCommitAllowed,
    squashMergeAllowed: repo.squashMergeAllowed,
    rebaseMergeAllowed: repo.rebaseMergeAllowed,
    autoMergeAllowed: false,
    deleteBranchOnMerge: false,
    createdAt: isoTime(repo.createdAt),
    updatedAt: isoTime(repo.updatedAt),
    pushedAt: isoTime(repo.pushedAt),
    parent: null,
    templateRepository: null,
    stargazerCount: 0,
    forkCount: 0,
    get defaultBranchRef() {
      return refView(ctx, repo, repo.defaultBranch);
    },
    ref: (args: { qualifiedName: string }) =>
      refView(ctx, repo, args.qualifiedName.replace(/^refs\/heads\//, "")),
    refs: (args: PageArgs & { refPrefix: string }) =>
      connection(args.refPrefix === "refs/heads/" ? [...repo.branches.keys()].sort() : [], args, (name) =>
        refView(ctx, repo, name),
      ),
    object: (args: { oid?: string | null; expression?: string | null }) => {
      const sha =
        args.oid ?? (args.expression ? (repo.branches.get(args.expression) ?? args.expression) : undefined);
      const commit = sha ? repo.commits.get(sha) : undefined;
      return commit ? commitView(ctx, repo, commit) : null;
    },
    pullRequest: (args: { number: number }) => pull(args.number),
    pullRequests: (args: PullsArgs) => {
      const states = args.states ? new Set(args.states) : undefined;
      const items = [...repo.pulls.values()].filter(
        (pr) =>
          (!states || states.has(pullState(pr))) &&
          (!args.headRefName || pr.headRef === args.headRefName) &&
          (!args.baseRefName || pr.baseRef === args.baseRefName) &&
          hasLabels(pr, args.labels),
      );
      return connection(ordered(items, args.orderBy), args, (pr) => pullRequestView(ctx, repo, pr));
    },
    issue: (args: { number: number }) => {
      const issue = repo.issues.get(args.number);
      if (!issue)
        throw new WorldError("NOT_FOUND", `Could not resolve to an Issue with the number of ${args.number}.`);
      return issueView(ctx, repo, issue);
    },
    issueOrPullRequest: (args: { number: number }) => {
      const issue = repo.issues.get(args.number);
      if (issue) return issueView(ctx, repo, issue);
      const pr = repo.pulls.get(args.number);
      if (pr) return pullRequestView(ctx, repo, pr);
      throw new WorldError(
        "NOT_FOUND",
        `Could not resolve to an issue or pull request with the number of ${args.number}.`,
      );
    },
    issues: (args: IssuesArgs) => {
      const states = new Set(args.states ?? args.filterBy?.states ?? ["OPEN", "CLOSED"]);
      const assignee = resolveLogin(ctx, args.filterBy?.assignee);
      const createdBy = resolveLogin(ctx, args.filterBy?.createdBy);
      const mentioned = resolveLogin(ctx, args.filterBy?.mentioned);
      const items = [...repo.issues.values()].filter(
        (issue) =>
          states.has(issue.state.toUpperCase()) &&
          hasLabels(issue, args.labels ?? args.filterBy?.labels) &&
          (!assignee || issue.assignees.some((a) => a.toLowerCase() === assignee)) &&
          (!createdBy || issue.author.toLowerCase() === createdBy) &&
          (!mentioned ||
            `${issue.body}\n${issue.comments.map((c) => c.body).join("\n")}`
              .toLowerCase()
              .includes(`@${mentioned}`)),
      );
      return connection(ordered(items, args.orderBy), args, (issue) => issueView(ctx, repo, issue));
    },
    labels: (args: PageArgs & { orderBy?: OrderBy | null; query?: string | null }) => {
      const query = args.query?.toLowerCase();
      const labels = repo.labels.filter((l) => !query || l.name.toLowerCase().includes(query));
      const sorted =
        args.orderBy?.field === "CREATED_AT"
          ? [...labels]
          : [...labels].sort((a, b) => a.name.localeCompare(b.name));
      if (args.orderBy?.direction === "DESC") sorted.reverse();
      return connection(sorted, args, (l) => labelView(ctx, repo, l));
    },
    label: (args: { name: string }) => {
      const label = repo.labels.find((l) => l.name.toLowerCase() === args.name.toLowerCase());
      return label ? labelView(ctx, repo, label) : null;
    },
    assignableUsers: (args: PageArgs) =>
      connection(
        usersOf(
          ctx,
          [...ctx.world.users.values()].filter((u) => u.type === "User").map((u) => u.login),
        ),
        args,
        (u) => u,
      ),
    mentionableUsers: (args: PageArgs) =>
      connection(
        usersOf(
          ctx,
          [...ctx.world.users.values()].filter((u) => u.type === "User").map((u) => u.login),
        ),
        args,
        (u) => u,
      ),
    milestones: () => emptyConnection(),
    projects: () => emptyConnection(),
    projectsV2: () => emptyConnection(),
    releases: () => emptyConnection(),
    repositoryTopics: () => emptyConnection(),
    languages: () => emptyConnection(),
    primaryLanguage: null,
    licenseInfo: null,
  };
}

export function refView(ctx: GqlContext, repo: SimRepo, name: string): View | null {
  const sha = repo.branches.get(name);
  if (!sha) return null;
  return {
    __typename: "Ref",
    id: `REF_${repo.nodeId}_${name}`,
    name,
    prefix: "refs/heads/",
    get target() {
      const commit = repo.commits.get(sha);
      return commit ? commitView(ctx, repo, commit) : null;
    },
    branchProtectionRule: null,
    get repository() {
      return repositoryView(ctx, repo);
    },
  };
}
