/**
 * REST pull request objects: the list item ("Pull Request Simple"), the full object with merge
 * state and counts, review comments, reviews, and the unified diff (`Accept:
 * application/vnd.github.v3.diff`, what `gh pr diff` asks for).
 */
import { authorAssociation, restMergeableState } from "../../core/derived-state.js";
import type { SimPullRequest, SimRepo, SimReview, SimReviewComment } from "../../core/model.js";
import { reactions, restTime, type ShapeContext } from "./context.js";
import { labelShape } from "./issues.js";
import { repository } from "./repos.js";
import { simpleUser } from "./users.js";

function branch(ctx: ShapeContext, repo: SimRepo, ref: string, sha: string) {
  return {
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: simpleUser(ctx, repo.owner),
    repo: repository(ctx, repo),
  };
}

export function pullSimple(ctx: ShapeContext, repo: SimRepo, pr: SimPullRequest) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const url = `${api}/pulls/${pr.number}`;
  const html = `${ctx.web}/${repo.fullName}/pull/${pr.number}`;
  const assignees = pr.assignees.map((a) => simpleUser(ctx, a));
  return {
    url,
    id: pr.id,
    node_id: pr.nodeId,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${pr.number}`,
    number: pr.number,
    state: pr.state,
    locked: pr.locked,
    title: pr.title,
    user: simpleUser(ctx, pr.author),
    body: pr.body || null,
    created_at: restTime(pr.createdAt),
    updated_at: restTime(pr.updatedAt),
    closed_at: restTime(pr.closedAt),
    merged_at: restTime(pr.mergedAt),
    merge_commit_sha: pr.mergeCommitSha,
    assignee: assignees[0] ?? null,
    assignees,
    requested_reviewers: pr.requestedReviewers.map((r) => simpleUser(ctx, r)),
    requested_teams: [],
    labels: repo.labels.filter((l) => pr.labels.includes(l.name)).map((l) => labelShape(ctx, repo, l)),
    milestone: null,
    draft: pr.draft,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${pr.number}/comments`,
    statuses_url: `${api}/statuses/${pr.headSha}`,
    head: branch(ctx, repo, pr.headRef, pr.headSha),
    base: branch(ctx, repo, pr.baseRef, pr.baseSha),
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: `${api}/issues/${pr.number}` },
      comments: { href: `${api}/issues/${pr.number}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${api}/statuses/${pr.headSha}` },
    },
    author_association: authorAssociation(repo, pr.author),
    auto_merge: null,
    active_lock_reason: null,
  };
}

export function pullFull(ctx: ShapeContext, repo: SimRepo, pr: SimPullRequest) {
  const open = pr.state === "open";
  return {
    ...pullSimple(ctx, repo, pr),
    merged: pr.merged,
    mergeable: open ? pr.mergeable === "MERGEABLE" : null,
    rebaseable: open ? pr.mergeable === "MERGEABLE" : null,
    mergeable_state: restMergeableState(repo, pr),
    merged_by: simpleUser(ctx, pr.mergedBy),
    comments: pr.comments.length,
    review_comments: pr.reviewComments.length,
    maintainer_can_modify: pr.maintainerCanModify,
    commits: pr.commits.length,
    additions: pr.files.reduce((n, f) => n + f.additions, 0),
    deletions: pr.files.reduce((n, f) => n + f.deletions, 0),
    changed_files: pr.files.length,
  };
}

export function reviewCommentShape(
  ctx: ShapeContext,
  repo: SimRepo,
  pr: SimPullRequest,
  c: SimReviewComment,
) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  const url = `${api}/pulls/comments/${c.id}`;
  const html = `${ctx.web}/${repo.fullName}/pull/${pr.number}#discussion_r${c.id}`;
  return {
    url,
    pull_request_review_id: c.reviewId,
    id: c.id,
    node_id: c.nodeId,
    diff_hunk: c.diffHunk,
    path: c.path,
    position: c.line,
    original_position: c.line,
    commit_id: c.commitSha,
    original_commit_id: c.commitSha,
    ...(c.inReplyToId !== null ? { in_reply_to_id: c.inReplyToId } : {}),
    user: simpleUser(ctx, c.author),
    body: c.body,
    created_at: restTime(c.createdAt),
    updated_at: restTime(c.updatedAt),
    html_url: html,
    pull_request_url: `${api}/pulls/${pr.number}`,
    author_association: authorAssociation(repo, c.author),
    _links: {
      self: { href: url },
      html: { href: html },
      pull_request: { href: `${api}/pulls/${pr.number}` },
    },
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: c.line,
    original_line: c.line,
    side: c.side,
    subject_type: "line",
    reactions: reactions(url),
  };
}

export function reviewShape(ctx: ShapeContext, repo: SimRepo, pr: SimPullRequest, r: SimReview) {
  const html = `${ctx.web}/${repo.fullName}/pull/${pr.number}#pullrequestreview-${r.id}`;
  const prUrl = `${ctx.api}/repos/${repo.fullName}/pulls/${pr.number}`;
  return {
    id: r.id,
    node_id: r.nodeId,
    user: simpleUser(ctx, r.author),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: prUrl,
    author_association: authorAssociation(repo, r.author),
    _links: { html: { href: html }, pull_request: { href: prUrl } },
    submitted_at: restTime(r.submittedAt),
    commit_id: r.commitSha,
  };
}

/** A unified diff with the PR's files and line counts (content is synthetic). */
export function pullDiff(pr: SimPullRequest): string {
  return pr.files
    .map((f) => {
      const minus = Array.from({ length: f.deletions }, (_, i) => `-old line ${i + 1}`);
      const plus = Array.from({ length: f.additions }, (_, i) => `+new line ${i + 1}`);
      const header =
        f.status === "added"
          ? `diff --git a/${f.path} b/${f.path}\nnew file mode 100644\nindex 0000000..${pr.headSha.slice(0, 7)}\n--- /dev/null\n+++ b/${f.path}\n`
          : `diff --git a/${f.path} b/${f.path}\nindex ${pr.baseSha.slice(0, 7)}..${pr.headSha.slice(0, 7)} 100644\n--- a/${f.path}\n+++ b/${f.path}\n`;
      return `${header}@@ -${f.deletions ? 1 : 0},${f.deletions} +${f.additions ? 1 : 0},${f.additions} @@\n${[...minus, ...plus].join("\n")}\n`;
    })
    .join("");
}
