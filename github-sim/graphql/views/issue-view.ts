/**
 * The GraphQL view of an issue: the fields of gh's IssueByNumber / IssueList / issue --json.
 */
import { authorAssociation } from "../../core/derived-state.js";
import type { SimIssue, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, emptyConnection } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, labelsOf, labelView, type UserView, usersOf, type View } from "./actors.js";
import { issueCommentView } from "./comment-views.js";

export class IssueView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #issue: SimIssue;

  constructor(ctx: GqlContext, repo: SimRepo, issue: SimIssue) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#issue = issue;
  }

  get __typename(): string {
    return "Issue";
  }
  get id(): string {
    return this.#issue.nodeId;
  }
  get databaseId(): number {
    return this.#issue.id;
  }
  get fullDatabaseId(): string {
    return String(this.#issue.id);
  }
  get number(): number {
    return this.#issue.number;
  }
  get title(): string {
    return this.#issue.title;
  }
  get titleHTML(): string {
    return this.#issue.title;
  }
  get body(): string {
    return this.#issue.body;
  }
  get bodyText(): string {
    return this.#issue.body;
  }
  get bodyHTML(): string {
    return `<p>${this.#issue.body}</p>`;
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/issues/${this.#issue.number}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
  get state(): string {
    return this.#issue.state.toUpperCase();
  }
  get stateReason(): string | null {
    return this.#issue.stateReason;
  }
  get closed(): boolean {
    return this.#issue.state === "closed";
  }
  get locked(): boolean {
    return this.#issue.locked;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#issue.createdAt);
  }
  get publishedAt(): string {
    return this.#ctx.iso(this.#issue.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#issue.updatedAt);
  }
  get closedAt(): string | null {
    return this.#ctx.iso(this.#issue.closedAt);
  }
  get includesCreatedEdit(): boolean {
    return false;
  }
  get author(): UserView | null {
    return actorView(this.#ctx, this.#issue.author);
  }
  get authorAssociation(): string {
    return authorAssociation(this.#repo, this.#issue.author);
  }
  get repository(): View {
    return this.#ctx.links.repository(this.#ctx, this.#repo);
  }
  labels(args: PageArgs) {
    return connection(labelsOf(this.#repo, this.#issue.labels), args, (l) =>
      labelView(this.#ctx, this.#repo, l),
    );
  }
  assignees(args: PageArgs) {
    return connection(usersOf(this.#ctx, this.#issue.assignees), args, (u) => u);
  }
  participants(args: PageArgs) {
    const logins = [...new Set([this.#issue.author, ...this.#issue.comments.map((c) => c.author)])];
    return connection(usersOf(this.#ctx, logins), args, (u) => u);
  }
  comments(args: PageArgs) {
    return connection(this.#issue.comments, args, (c) =>
      issueCommentView(this.#ctx, this.#repo, this.#issue.number, false, c),
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
  trackedIssues() {
    return emptyConnection();
  }
  subIssues() {
    return emptyConnection();
  }
  get reactionGroups(): never[] {
    return [];
  }
  get viewerDidAuthor(): boolean {
    return this.#issue.author.toLowerCase() === this.#ctx.world.viewer.toLowerCase();
  }
  get viewerCanUpdate(): boolean {
    return true;
  }
  get viewerSubscription(): string {
    return "SUBSCRIBED";
  }
}

export function issueView(ctx: GqlContext, repo: SimRepo, issue: SimIssue): IssueView {
  return new IssueView(ctx, repo, issue);
}
