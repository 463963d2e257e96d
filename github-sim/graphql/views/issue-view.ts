/**
 * The GraphQL view of an issue: the fields of gh's IssueByNumber / IssueList / issue --json.
 */
import type { SimIssue, SimRepo } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, emptyConnection } from "../connection.js";
import { type GqlContext, isoTime } from "../context.js";
import { actorView, authorAssociation, labelsOf, labelView, usersOf, type View } from "./actors.js";
import { issueCommentView } from "./comment-views.js";
import { repositoryView } from "./repository-view.js";

export function issueView(ctx: GqlContext, repo: SimRepo, issue: SimIssue): View {
  const url = `${ctx.webBase}/${repo.fullName}/issues/${issue.number}`;
  return {
    __typename: "Issue",
    id: issue.nodeId,
    databaseId: issue.id,
    fullDatabaseId: String(issue.id),
    number: issue.number,
    title: issue.title,
    titleHTML: issue.title,
    body: issue.body,
    bodyText: issue.body,
    bodyHTML: `<p>${issue.body}</p>`,
    url,
    resourcePath: `/${repo.fullName}/issues/${issue.number}`,
    state: issue.state.toUpperCase(),
    stateReason: issue.stateReason,
    closed: issue.state === "closed",
    locked: issue.locked,
    activeLockReason: null,
    createdAt: isoTime(issue.createdAt),
    updatedAt: isoTime(issue.updatedAt),
    publishedAt: isoTime(issue.createdAt),
    closedAt: isoTime(issue.closedAt),
    lastEditedAt: null,
    includesCreatedEdit: false,
    author: actorView(ctx, issue.author),
    authorAssociation: authorAssociation(repo, issue.author),
    editor: null,
    milestone: null,
    get repository() {
      return repositoryView(ctx, repo);
    },
    labels: (args: PageArgs) =>
      connection(labelsOf(repo, issue.labels), args, (l) => labelView(ctx, repo, l)),
    assignees: (args: PageArgs) => connection(usersOf(ctx, issue.assignees), args, (u) => u),
    participants: (args: PageArgs) =>
      connection(
        usersOf(ctx, [...new Set([issue.author, ...issue.comments.map((c) => c.author)])]),
        args,
        (u) => u,
      ),
    comments: (args: PageArgs) =>
      connection(issue.comments, args, (c) => issueCommentView(ctx, repo, issue.number, false, c)),
    projectCards: () => emptyConnection(),
    projectItems: () => emptyConnection(),
    projectsV2: () => emptyConnection(),
    timelineItems: () => emptyConnection(),
    trackedIssues: () => emptyConnection(),
    subIssues: () => emptyConnection(),
    reactions: () => emptyConnection(),
    reactionGroups: [],
    viewerDidAuthor: issue.author.toLowerCase() === ctx.world.viewer.toLowerCase(),
    viewerCanUpdate: true,
    viewerCanReact: true,
    viewerSubscription: "SUBSCRIBED",
  };
}
