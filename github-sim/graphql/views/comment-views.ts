/**
 * GraphQL views of the conversation: IssueComment, PullRequestReview, PullRequestReviewComment
 * and PullRequestReviewThread. Reactions are not modelled (empty groups), edits never happened
 * (includesCreatedEdit false), nothing is minimized.
 */
import { authorAssociation } from "../../core/derived-state.js";
import type {
  SimComment,
  SimPullRequest,
  SimRepo,
  SimReview,
  SimReviewComment,
  SimReviewThread,
} from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, type UserView, type View } from "./actors.js";

function html(body: string): string {
  return `<p>${body.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</p>`;
}

/** Fields every comment-like node shares. */
abstract class CommentLike implements View {
  protected readonly ctx: GqlContext;
  protected readonly repo: SimRepo;
  abstract get __typename(): string;
  protected abstract record(): {
    readonly id: number;
    readonly nodeId: string;
    readonly author: string;
    readonly body: string;
  };
  protected abstract created(): number;
  abstract get url(): string;

  constructor(ctx: GqlContext, repo: SimRepo) {
    this.ctx = ctx;
    this.repo = repo;
  }

  get id(): string {
    return this.record().nodeId;
  }
  get databaseId(): number {
    return this.record().id;
  }
  get fullDatabaseId(): string {
    return String(this.record().id);
  }
  get author(): UserView | null {
    return actorView(this.ctx, this.record().author);
  }
  get authorAssociation(): string {
    return authorAssociation(this.repo, this.record().author);
  }
  get body(): string {
    return this.record().body;
  }
  get bodyText(): string {
    return this.record().body;
  }
  get bodyHTML(): string {
    return html(this.record().body);
  }
  get createdAt(): string {
    return this.ctx.iso(this.created());
  }
  get publishedAt(): string {
    return this.ctx.iso(this.created());
  }
  get resourcePath(): string {
    return this.url.slice(this.ctx.webBase.length);
  }
  get viewerDidAuthor(): boolean {
    return this.record().author.toLowerCase() === this.ctx.world.viewer.toLowerCase();
  }
  get includesCreatedEdit(): boolean {
    return false;
  }
  get lastEditedAt(): null {
    return null;
  }
  get isMinimized(): boolean {
    return false;
  }
  get minimizedReason(): null {
    return null;
  }
  get reactionGroups(): never[] {
    return [];
  }
  get viewerCanUpdate(): boolean {
    return true;
  }
  get viewerCanDelete(): boolean {
    return true;
  }
  get viewerCanReact(): boolean {
    return true;
  }
}

export class IssueCommentView extends CommentLike {
  readonly #number: number;
  readonly #isPull: boolean;
  readonly #comment: SimComment;

  constructor(ctx: GqlContext, repo: SimRepo, number: number, isPull: boolean, comment: SimComment) {
    super(ctx, repo);
    this.#number = number;
    this.#isPull = isPull;
    this.#comment = comment;
  }
  get __typename(): string {
    return "IssueComment";
  }
  protected record() {
    return this.#comment;
  }
  protected created(): number {
    return this.#comment.createdAt;
  }
  get updatedAt(): string {
    return this.ctx.iso(this.#comment.updatedAt);
  }
  get url(): string {
    return `${this.ctx.webBase}/${this.repo.fullName}/${this.#isPull ? "pull" : "issues"}/${this.#number}#issuecomment-${this.#comment.id}`;
  }
}

export function issueCommentView(
  ctx: GqlContext,
  repo: SimRepo,
  number: number,
  isPull: boolean,
  comment: SimComment,
): IssueCommentView {
  return new IssueCommentView(ctx, repo, number, isPull, comment);
}

export class ReviewView extends CommentLike {
  readonly #pr: SimPullRequest;
  readonly #review: SimReview;

  constructor(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest, review: SimReview) {
    super(ctx, repo);
    this.#pr = pr;
    this.#review = review;
  }
  get __typename(): string {
    return "PullRequestReview";
  }
  protected record() {
    return this.#review;
  }
  protected created(): number {
    return this.#review.submittedAt;
  }
  get state(): string {
    return this.#review.state;
  }
  get submittedAt(): string {
    return this.ctx.iso(this.#review.submittedAt);
  }
  get updatedAt(): string {
    return this.ctx.iso(this.#review.submittedAt);
  }
  get commit() {
    return {
      __typename: "Commit",
      oid: this.#review.commitSha,
      abbreviatedOid: this.#review.commitSha.slice(0, 7),
    };
  }
  get url(): string {
    return `${this.ctx.webBase}/${this.repo.fullName}/pull/${this.#pr.number}#pullrequestreview-${this.#review.id}`;
  }
  comments(args: PageArgs) {
    const mine = this.#pr.reviewComments.filter((c) => c.reviewId === this.#review.id);
    return connection(mine, args, (c) => new ReviewCommentView(this.ctx, this.repo, this.#pr, c));
  }
}

export function reviewView(
  ctx: GqlContext,
  repo: SimRepo,
  pr: SimPullRequest,
  review: SimReview,
): ReviewView {
  return new ReviewView(ctx, repo, pr, review);
}

export class ReviewCommentView extends CommentLike {
  readonly #pr: SimPullRequest;
  readonly #comment: SimReviewComment;

  constructor(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest, comment: SimReviewComment) {
    super(ctx, repo);
    this.#pr = pr;
    this.#comment = comment;
  }
  get __typename(): string {
    return "PullRequestReviewComment";
  }
  protected record() {
    return this.#comment;
  }
  protected created(): number {
    return this.#comment.createdAt;
  }
  get updatedAt(): string {
    return this.ctx.iso(this.#comment.updatedAt);
  }
  get url(): string {
    return `${this.ctx.webBase}/${this.repo.fullName}/pull/${this.#pr.number}#discussion_r${this.#comment.id}`;
  }
  get path(): string {
    return this.#comment.path;
  }
  get line(): number {
    return this.#comment.line;
  }
  get originalLine(): number {
    return this.#comment.line;
  }
  get position(): number {
    return this.#comment.line;
  }
  get originalPosition(): number {
    return this.#comment.line;
  }
  get diffHunk(): string {
    return this.#comment.diffHunk;
  }
  get outdated(): boolean {
    return false;
  }
  get state(): string {
    return "SUBMITTED";
  }
  get subjectType(): string {
    return "LINE";
  }
  get commit() {
    return {
      __typename: "Commit",
      oid: this.#comment.commitSha,
      abbreviatedOid: this.#comment.commitSha.slice(0, 7),
    };
  }
  get originalCommit() {
    return this.commit;
  }
  get pullRequestReview(): ReviewView | null {
    const review =
      this.#comment.reviewId !== null
        ? this.#pr.reviews.find((r) => r.id === this.#comment.reviewId)
        : undefined;
    return review ? new ReviewView(this.ctx, this.repo, this.#pr, review) : null;
  }
  get replyTo(): ReviewCommentView | null {
    const parent =
      this.#comment.inReplyToId !== null
        ? this.#pr.reviewComments.find((c) => c.id === this.#comment.inReplyToId)
        : undefined;
    return parent ? new ReviewCommentView(this.ctx, this.repo, this.#pr, parent) : null;
  }
}

export class ReviewThreadView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #pr: SimPullRequest;
  readonly #thread: SimReviewThread;

  constructor(ctx: GqlContext, repo: SimRepo, pr: SimPullRequest, thread: SimReviewThread) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#pr = pr;
    this.#thread = thread;
  }
  get __typename(): string {
    return "PullRequestReviewThread";
  }
  get id(): string {
    return this.#thread.nodeId;
  }
  get isResolved(): boolean {
    return this.#thread.isResolved;
  }
  get isOutdated(): boolean {
    return this.#thread.isOutdated;
  }
  get isCollapsed(): boolean {
    return this.#thread.isResolved;
  }
  get path(): string {
    return this.#thread.path;
  }
  get line(): number {
    return this.#thread.line;
  }
  get originalLine(): number {
    return this.#thread.line;
  }
  get diffSide(): string {
    return "RIGHT";
  }
  get subjectType(): string {
    return "LINE";
  }
  get viewerCanResolve(): boolean {
    return true;
  }
  get viewerCanUnresolve(): boolean {
    return true;
  }
  get viewerCanReply(): boolean {
    return true;
  }
  comments(args: PageArgs) {
    const mine = this.#pr.reviewComments.filter((c) => c.threadId === this.#thread.id);
    return connection(mine, args, (c) => new ReviewCommentView(this.#ctx, this.#repo, this.#pr, c));
  }
}

export function reviewThreadView(
  ctx: GqlContext,
  repo: SimRepo,
  pr: SimPullRequest,
  thread: SimReviewThread,
): ReviewThreadView {
  return new ReviewThreadView(ctx, repo, pr, thread);
}
