/**
 * The GraphQL view of a repository: metadata gh's RepositoryInfo asks for, the pullRequests /
 * issues connections with GitHub's filters and orderings, lookups by number (NOT_FOUND in
 * GitHub's words when absent), labels, refs and objects.
 */
import type { SimIssue, SimPullRequest, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { WorldError } from "../../core/world-error.js";
import { connection, emptyConnection } from "../connection.js";
import type { GqlContext } from "../context.js";
import { labelView, ownerView, type UserView, usersOf, type View } from "./actors.js";
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

export class RepositoryView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;

  constructor(ctx: GqlContext, repo: SimRepo) {
    this.#ctx = ctx;
    this.#repo = repo;
  }

  get __typename(): string {
    return "Repository";
  }
  get id(): string {
    return this.#repo.nodeId;
  }
  get databaseId(): number {
    return this.#repo.id;
  }
  get name(): string {
    return this.#repo.name;
  }
  get nameWithOwner(): string {
    return this.#repo.fullName;
  }
  get owner(): UserView {
    return ownerView(this.#ctx, this.#repo);
  }
  get description(): string | null {
    return this.#repo.description;
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}/${this.#repo.fullName}`;
  }
  get sshUrl(): string {
    return `git@github.localhost:${this.#repo.fullName}.git`;
  }
  get isPrivate(): boolean {
    return this.#repo.private;
  }
  get visibility(): string {
    return this.#repo.private ? "PRIVATE" : "PUBLIC";
  }
  get isInOrganization(): boolean {
    return this.#ctx.world.user(this.#repo.owner)?.type === "Organization";
  }
  get hasIssuesEnabled(): boolean {
    return true;
  }
  get viewerPermission(): string {
    return "ADMIN";
  }
  get viewerCanAdminister(): boolean {
    return true;
  }
  get viewerDefaultMergeMethod(): string {
    return "MERGE";
  }
  get mergeCommitAllowed(): boolean {
    return this.#repo.mergeCommitAllowed;
  }
  get squashMergeAllowed(): boolean {
    return this.#repo.squashMergeAllowed;
  }
  get rebaseMergeAllowed(): boolean {
    return this.#repo.rebaseMergeAllowed;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#repo.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#repo.updatedAt);
  }
  get pushedAt(): string {
    return this.#ctx.iso(this.#repo.pushedAt);
  }
  get defaultBranchRef(): View | null {
    return refView(this.#ctx, this.#repo, this.#repo.defaultBranch);
  }
  ref(args: { qualifiedName: string }): View | null {
    return refView(this.#ctx, this.#repo, args.qualifiedName.replace(/^refs\/heads\//, ""));
  }
  refs(args: PageArgs & { refPrefix: string }) {
    const names = args.refPrefix === "refs/heads/" ? [...this.#repo.branches.keys()].sort() : [];
    return connection(names, args, (name) => refView(this.#ctx, this.#repo, name));
  }
  object(args: { oid?: string | null; expression?: string | null }): View | null {
    const sha =
      args.oid ??
      (args.expression ? (this.#repo.branches.get(args.expression) ?? args.expression) : undefined);
    const commit = sha ? this.#repo.commits.get(sha) : undefined;
    return commit ? commitView(this.#ctx, this.#repo, commit) : null;
  }
  pullRequest(args: { number: number }): View {
    return pullRequestView(this.#ctx, this.#repo, this.#ctx.world.requirePull(this.#repo, args.number));
  }
  pullRequests(args: PullsArgs) {
    const states = args.states ? new Set(args.states) : undefined;
    const items = [...this.#repo.pulls.values()].filter(
      (pr) =>
        (!states || states.has(pullState(pr))) &&
        (!args.headRefName || pr.headRef === args.headRefName) &&
        (!args.baseRefName || pr.baseRef === args.baseRefName) &&
        hasLabels(pr, args.labels),
    );
    return connection(ordered(items, args.orderBy), args, (pr) => pullRequestView(this.#ctx, this.#repo, pr));
  }
  issue(args: { number: number }): View {
    const issue = this.#repo.issues.get(args.number);
    if (!issue)
      throw new WorldError("NOT_FOUND", `Could not resolve to an Issue with the number of ${args.number}.`);
    return issueView(this.#ctx, this.#repo, issue);
  }
  issueOrPullRequest(args: { number: number }): View {
    const issue = this.#repo.issues.get(args.number);
    if (issue) return issueView(this.#ctx, this.#repo, issue);
    const pr = this.#repo.pulls.get(args.number);
    if (pr) return pullRequestView(this.#ctx, this.#repo, pr);
    throw new WorldError(
      "NOT_FOUND",
      `Could not resolve to an issue or pull request with the number of ${args.number}.`,
    );
  }
  issues(args: IssuesArgs) {
    const ctx = this.#ctx;
    const states = new Set(args.states ?? args.filterBy?.states ?? ["OPEN", "CLOSED"]);
    const assignee = resolveLogin(ctx, args.filterBy?.assignee);
    const createdBy = resolveLogin(ctx, args.filterBy?.createdBy);
    const mentioned = resolveLogin(ctx, args.filterBy?.mentioned);
    const items = [...this.#repo.issues.values()].filter(
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
    return connection(ordered(items, args.orderBy), args, (issue) => issueView(ctx, this.#repo, issue));
  }
  labels(args: PageArgs & { orderBy?: OrderBy | null; query?: string | null }) {
    const query = args.query?.toLowerCase();
    const labels = this.#repo.labels.filter((l) => !query || l.name.toLowerCase().includes(query));
    const sorted =
      args.orderBy?.field === "CREATED_AT"
        ? [...labels]
        : [...labels].sort((a, b) => a.name.localeCompare(b.name));
    if (args.orderBy?.direction === "DESC") sorted.reverse();
    return connection(sorted, args, (l) => labelView(this.#ctx, this.#repo, l));
  }
  label(args: { name: string }): View | null {
    const label = this.#repo.labels.find((l) => l.name.toLowerCase() === args.name.toLowerCase());
    return label ? labelView(this.#ctx, this.#repo, label) : null;
  }
  assignableUsers(args: PageArgs) {
    return connection(this.#people(), args, (u) => u);
  }
  mentionableUsers(args: PageArgs) {
    return connection(this.#people(), args, (u) => u);
  }
  #people(): UserView[] {
    const logins = [...this.#ctx.world.users.values()].filter((u) => u.type === "User").map((u) => u.login);
    return usersOf(this.#ctx, logins);
  }
  milestones() {
    return emptyConnection();
  }
  projects() {
    return emptyConnection();
  }
  projectsV2() {
    return emptyConnection();
  }
  releases() {
    return emptyConnection();
  }
  repositoryTopics() {
    return emptyConnection();
  }
  languages() {
    return emptyConnection();
  }
}

export function repositoryView(ctx: GqlContext, repo: SimRepo): RepositoryView {
  return new RepositoryView(ctx, repo);
}

export function refView(
  ctx: GqlContext,
  repo: SimRepo,
  name: string,
): (View & Record<string, unknown>) | null {
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
