/**
 * The GraphQL view of a pull request: every field gh 2.23 asks for (pr view/list/status/checks/
 * merge/create, --json fields) and what AO's lifecycle batch asks (reviewDecision, mergeable,
 * mergeStateStatus, headRefOid, the last commit's statusCheckRollup, reviewThreads).
 */
import {
  authorAssociation,
  latestReviews,
  mergeStateStatus,
  reviewDecision,
} from "../../core/derived-state.js";
import type { SimCommit, SimPullRequest, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, emptyConnection } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, labelsOf, labelView, ownerView, type UserView, usersOf, type View } from "./actors.js";
import { issueCommentView, reviewThreadView, reviewView } from "./comment-views.js";
import { CommitView, rollupView } from "./commit-view.js";

export function pullState(pr: SimPullRequest): "OPEN" | "CLOSED" | "MERGED" {
  return pr.merged ? "MERGED" : pr.state === "open" ? "OPEN" : "CLOSED";
}

interface ReviewArgs extends PageArgs {
  readonly states?: readonly string[] | null;
  readonly author?: string | null;
}

export class PullRequestView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #pr: SimPullRequest;

  constructor(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#pr = pr;
  }

  get __typename(): string {
    return "PullRequest";
  }
  get id(): string {
    return this.#pr.nodeId;
  }
  get databaseId(): number {
    return this.#pr.id;
  }
  get fullDatabaseId(): string {
    return String(this.#pr.id);
  }
  get number(): number {
    return this.#pr.number;
  }
  get title(): string {
    return this.#pr.title;
  }
  get titleHTML(): string {
    return this.#pr.title;
  }
  get body(): string {
    return this.#pr.body;
  }
  get bodyText(): string {
    return this.#pr.body;
  }
  get bodyHTML(): string {
    return `<p>${this.#pr.body}</p>`;
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/pull/${this.#pr.number}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
  get permalink(): string {
    return this.url;
  }
  get state(): string {
    return pullState(this.#pr);
  }
  get closed(): boolean {
    return this.#pr.state === "closed";
  }
  get merged(): boolean {
    return this.#pr.merged;
  }
  get isDraft(): boolean {
    return this.#pr.draft;
  }
  get locked(): boolean {
    return this.#pr.locked;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#pr.createdAt);
  }
  get publishedAt(): string {
    return this.#ctx.iso(this.#pr.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#pr.updatedAt);
  }
  get closedAt(): string | null {
    return this.#ctx.iso(this.#pr.closedAt);
  }
  get mergedAt(): string | null {
    return this.#ctx.iso(this.#pr.mergedAt);
  }
  get mergedBy(): UserView | null {
    return actorView(this.#ctx, this.#pr.mergedBy);
  }
  get author(): UserView | null {
    return actorView(this.#ctx, this.#pr.author);
  }
  get authorAssociation(): string {
    return authorAssociation(this.#repo, this.#pr.author);
  }
  get includesCreatedEdit(): boolean {
    return false;
  }
  get headRefName(): string {
    return this.#pr.headRef;
  }
  get headRefOid(): string {
    return this.#pr.headSha;
  }
  get baseRefName(): string {
    return this.#pr.baseRef;
  }
  get baseRefOid(): string {
    return this.#pr.baseSha;
  }
  get headRef(): View | null {
    return this.#ctx.links.ref(this.#ctx, this.#repo, this.#pr.headRef);
  }
  get baseRef(): View | null {
    return this.#ctx.links.ref(this.#ctx, this.#repo, this.#pr.baseRef);
  }
  get headRepository(): View {
    return this.#ctx.links.repository(this.#ctx, this.#repo);
  }
  get headRepositoryOwner(): UserView {
    return ownerView(this.#ctx, this.#repo);
  }
  get baseRepository(): View {
    return this.#ctx.links.repository(this.#ctx, this.#repo);
  }
  get repository(): View {
    return this.#ctx.links.repository(this.#ctx, this.#repo);
  }
  get isCrossRepository(): boolean {
    return false;
  }
  get maintainerCanModify(): boolean {
    return this.#pr.maintainerCanModify;
  }
  get mergeable(): string {
    return this.#pr.state === "open" ? this.#pr.mergeable : "UNKNOWN";
  }
  get mergeStateStatus(): string {
    return mergeStateStatus(this.#repo, this.#pr);
  }
  get reviewDecision(): string | null {
    return reviewDecision(this.#repo, this.#pr);
  }
  get mergeCommit(): CommitView | null {
    const commit = this.#pr.mergeCommitSha ? this.#repo.commits.get(this.#pr.mergeCommitSha) : undefined;
    return commit ? new CommitView(this.#ctx, this.#repo, commit) : null;
  }
  get isInMergeQueue(): boolean {
    return false;
  }
  get isMergeQueueEnabled(): boolean {
    return false;
  }
  get additions(): number {
    return this.#pr.files.reduce((n, f) => n + f.additions, 0);
  }
  get deletions(): number {
    return this.#pr.files.reduce((n, f) => n + f.deletions, 0);
  }
  get changedFiles(): number {
    return this.#pr.files.length;
  }
  get totalCommentsCount(): number {
    return this.#pr.comments.length + this.#pr.reviewComments.length;
  }
  get statusCheckRollup() {
    const head = this.#repo.commits.get(this.#pr.headSha);
    return head ? rollupView(this.#ctx, this.#repo, head) : null;
  }
  commits(args: PageArgs) {
    const commits = this.#pr.commits
      .map((sha) => this.#repo.commits.get(sha))
      .filter((c): c is SimCommit => c !== undefined);
    return connection(commits, args, (c) => new PullRequestCommitView(this.#ctx, this.#repo, this.#pr, c));
  }
  files(args: PageArgs) {
    return connection(this.#pr.files, args, (f) => ({
      __typename: "PullRequestChangedFile",
      path: f.path,
      additions: f.additions,
      deletions: f.deletions,
      changeType: f.status === "removed" ? "DELETED" : f.status.toUpperCase(),
      viewerViewedState: "UNVIEWED",
    }));
  }
  labels(args: PageArgs) {
    return connection(labelsOf(this.#repo, this.#pr.labels), args, (l) =>
      labelView(this.#ctx, this.#repo, l),
    );
  }
  assignees(args: PageArgs) {
    return connection(usersOf(this.#ctx, this.#pr.assignees), args, (u) => u);
  }
  participants(args: PageArgs) {
    const logins = [...new Set([this.#pr.author, ...this.#pr.comments.map((c) => c.author)])];
    return connection(usersOf(this.#ctx, logins), args, (u) => u);
  }
  reviewRequests(args: PageArgs) {
    const nodeId = this.#pr.nodeId;
    return connection(usersOf(this.#ctx, this.#pr.requestedReviewers), args, (u) => ({
      __typename: "ReviewRequest",
      id: `RR_${nodeId}_${u.login}`,
      asCodeOwner: false,
      requestedReviewer: u,
    }));
  }
  reviews(args: ReviewArgs) {
    const states = args.states ? new Set(args.states) : undefined;
    const author = args.author?.toLowerCase();
    const reviews = this.#pr.reviews.filter(
      (r) => (!states || states.has(r.state)) && (!author || r.author.toLowerCase() === author),
    );
    return connection(reviews, args, (r) => reviewView(this.#ctx, this.#repo, this.#pr, r));
  }
  latestReviews(args: PageArgs) {
    return connection(latestReviews(this.#pr), args, (r) => reviewView(this.#ctx, this.#repo, this.#pr, r));
  }
  latestOpinionatedReviews(args: PageArgs) {
    const reviews = latestReviews(this.#pr).filter((r) => r.state !== "COMMENTED");
    return connection(reviews, args, (r) => reviewView(this.#ctx, this.#repo, this.#pr, r));
  }
  comments(args: PageArgs) {
    return connection(this.#pr.comments, args, (c) =>
      issueCommentView(this.#ctx, this.#repo, this.#pr.number, true, c),
    );
  }
  reviewThreads(args: PageArgs) {
    return connection(this.#pr.reviewThreads, args, (t) =>
      reviewThreadView(this.#ctx, this.#repo, this.#pr, t),
    );
  }
  projectCards() {
    return emptyConnection();
  }
  projectItems() {
    return emptyConnection();
  }
  projectsV2() {
    return emptyConnection();
  }
  timelineItems() {
    return emptyConnection();
  }
  closingIssuesReferences() {
    return emptyConnection();
  }
  get reactionGroups(): never[] {
    return [];
  }
  get viewerDidAuthor(): boolean {
    return this.#pr.author.toLowerCase() === this.#ctx.world.viewer.toLowerCase();
  }
  get viewerCanUpdate(): boolean {
    return true;
  }
  get viewerCanReact(): boolean {
    return true;
  }
  get viewerSubscription(): string {
    return "SUBSCRIBED";
  }
}

class PullRequestCommitView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #pr: SimPullRequest;
  readonly #commit: SimCommit;

  constructor(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest, commit: SimCommit) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#pr = pr;
    this.#commit = commit;
  }
  get __typename(): string {
    return "PullRequestCommit";
  }
  get id(): string {
    return `PURC_${this.#pr.nodeId}_${this.#commit.sha}`;
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/pull/${this.#pr.number}/commits/${this.#commit.sha}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
  get commit(): CommitView {
    return new CommitView(this.#ctx, this.#repo, this.#commit);
  }
  get pullRequest(): PullRequestView {
    return new PullRequestView(this.#ctx, this.#repo, this.#pr);
  }
}

export function pullRequestView(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest): PullRequestView {
  return new PullRequestView(ctx, repo, pr);
}
