/**
 * REST repository objects: "Minimal Repository" (actions runs), "Repository" (pull request
 * head/base) and "Full Repository" (`GET /repos/{owner}/{repo}`). All URL templates point at
 * the API base the client used.
 */
import type { SimRepo } from "../../core/model.js";
import { restTime, type ShapeContext } from "./context.js";
import { simpleUser } from "./users.js";

export function minimalRepo(ctx: ShapeContext, repo: SimRepo) {
  const api = `${ctx.api}/repos/${repo.fullName}`;
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: repo.fullName,
    private: repo.private,
    owner: simpleUser(ctx, repo.owner),
    html_url: `${ctx.web}/${repo.fullName}`,
    description: repo.description,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    hooks_url: `${api}/hooks`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
  };
}

export function repository(ctx: ShapeContext, repo: SimRepo) {
  const openIssues = [...repo.issues.values(), ...repo.pulls.values()].filter(
    (i) => i.state === "open",
  ).length;
  return {
    ...minimalRepo(ctx, repo),
    git_url: `git://github.localhost/${repo.fullName}.git`,
    ssh_url: `git@github.localhost:${repo.fullName}.git`,
    clone_url: `${ctx.web}/${repo.fullName}.git`,
    svn_url: `${ctx.web}/${repo.fullName}`,
    mirror_url: null,
    homepage: null,
    language: "TypeScript",
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 1024,
    default_branch: repo.defaultBranch,
    open_issues: openIssues,
    open_issues_count: openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? "private" : "public",
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
    pushed_at: restTime(repo.pushedAt),
    created_at: restTime(repo.createdAt),
    updated_at: restTime(repo.updatedAt),
    permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
    allow_merge_commit: repo.mergeCommitAllowed,
    allow_squash_merge: repo.squashMergeAllowed,
    allow_rebase_merge: repo.rebaseMergeAllowed,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
  };
}

export function fullRepository(ctx: ShapeContext, repo: SimRepo) {
  const owner = ctx.world.user(repo.owner);
  return {
    ...repository(ctx, repo),
    network_count: 0,
    subscribers_count: 0,
    ...(owner?.type === "Organization" ? { organization: simpleUser(ctx, repo.owner) } : {}),
  };
}
