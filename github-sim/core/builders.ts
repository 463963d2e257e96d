/**
 * Constructors for world records. They insert a record with consistent ids, node ids and cross
 * references, but record no change: scenario loading uses them to lay out the starting world
 * silently, and the actions (actions-*.ts) call them and then `world.touch()`.
 */
import { fakeSha, makeNodeId } from "./ids.js";
import type {
  SimCommit,
  SimFile,
  SimIssue,
  SimLabel,
  SimPullRequest,
  SimRepo,
  SimUser,
  UserType,
} from "./model.js";
import type { World } from "./world.js";
import { WorldError } from "./world-error.js";

export function buildUser(
  world: World,
  input: {
    login: string;
    id?: number | undefined;
    name?: string | null | undefined;
    type?: UserType | undefined;
    at: number;
  },
): SimUser {
  const existing = world.user(input.login);
  if (existing) return existing;
  const id = input.id !== undefined ? world.reserveId("user", input.id) : world.nextId("user");
  const type = input.type ?? (input.login.endsWith("[bot]") ? "Bot" : "User");
  return world.addUser({
    id,
    nodeId: makeNodeId(type, `user:${input.login}`),
    login: input.login,
    name: input.name === undefined ? null : input.name,
    email: null,
    type,
    createdAt: input.at,
  });
}

export interface RepoInput {
  readonly owner: string;
  readonly name: string;
  readonly id?: number | undefined;
  readonly description?: string | null | undefined;
  readonly defaultBranch?: string | undefined;
  readonly private?: boolean | undefined;
  readonly requireReviews?: boolean | undefined;
  readonly at: number;
}

export function buildRepo(world: World, input: RepoInput): SimRepo {
  const fullName = `${input.owner}/${input.name}`;
  if (world.repo(fullName)) throw new WorldError("CONFLICT", `repository ${fullName} already exists`);
  buildUser(world, { login: input.owner, type: "Organization", at: input.at });
  const id = input.id !== undefined ? world.reserveId("repo", input.id) : world.nextId("repo");
  const defaultBranch = input.defaultBranch ?? "main";
  const repo: SimRepo = {
    id,
    nodeId: makeNodeId("Repository", `repo:${fullName}`),
    owner: input.owner,
    name: input.name,
    fullName,
    description: input.description ?? null,
    defaultBranch,
    private: input.private ?? false,
    createdAt: input.at,
    pushedAt: input.at,
    updatedAt: input.at,
    labels: [],
    milestones: [],
    branches: new Map(),
    commits: new Map(),
    pulls: new Map(),
    issues: new Map(),
    workflows: new Map(),
    runs: new Map(),
    checkRuns: new Map(),
    checkSuites: new Map(),
    nextNumber: 1,
    requireReviews: input.requireReviews ?? true,
    mergeCommitAllowed: true,
    squashMergeAllowed: true,
    rebaseMergeAllowed: true,
  };
  world.addRepo(repo);
  buildCommit(world, repo, {
    branch: defaultBranch,
    message: "Initial commit",
    author: input.owner,
    at: input.at,
  });
  return repo;
}

export function buildLabel(
  world: World,
  repo: SimRepo,
  input: { name: string; color?: string | undefined; description?: string | null | undefined; at: number },
): SimLabel {
  const existing = repo.labels.find((l) => l.name.toLowerCase() === input.name.toLowerCase());
  if (existing) return existing;
  const label: SimLabel = {
    id: world.nextId("label"),
    nodeId: makeNodeId("Label", `label:${repo.fullName}:${input.name}`),
    name: input.name,
    color: input.color ?? "ededed",
    description: input.description ?? null,
    isDefault: false,
    createdAt: input.at,
  };
  repo.labels.push(label);
  world.registerNode(label.nodeId, { type: "Label", repo: repo.fullName, name: label.name });
  return label;
}

export interface CommitInput {
  readonly branch: string;
  readonly message: string;
  readonly author: string;
  readonly sha?: string | undefined;
  readonly at: number;
}

/** Adds a commit on top of `branch` (creating the branch from the default branch if needed). */
export function buildCommit(world: World, repo: SimRepo, input: CommitInput): SimCommit {
  const parent = repo.branches.get(input.branch) ?? repo.branches.get(repo.defaultBranch);
  const sha = input.sha ?? fakeSha(`${repo.fullName}:${input.branch}:${repo.commits.size}:${input.message}`);
  const user = buildUser(world, { login: input.author, at: input.at });
  const commit: SimCommit = {
    sha,
    nodeId: makeNodeId("Commit", `commit:${repo.fullName}:${sha}`),
    treeSha: fakeSha(`tree:${sha}`),
    message: input.message,
    author: user.login,
    authorName: user.name ?? user.login,
    authorEmail: `${user.login}@users.noreply.github.com`,
    authoredAt: input.at,
    committedAt: input.at,
    parents: parent ? [parent] : [],
    statuses: [],
    checkRunIds: [],
    checkSuiteIds: [],
    version: 0,
  };
  repo.commits.set(sha, commit);
  world.registerNode(commit.nodeId, { type: "Commit", repo: repo.fullName, sha });
  repo.branches.set(input.branch, sha);
  repo.pushedAt = input.at;
  return commit;
}

export function requireCommit(repo: SimRepo, sha: string): SimCommit {
  const commit = repo.commits.get(sha);
  if (!commit) throw new WorldError("UNPROCESSABLE", `No commit found for SHA: ${sha}`);
  return commit;
}

export interface PullInput {
  readonly number?: number | undefined;
  readonly title: string;
  readonly body?: string | undefined;
  readonly author: string;
  readonly head: string;
  readonly base?: string | undefined;
  readonly draft?: boolean | undefined;
  readonly labels?: readonly string[] | undefined;
  readonly assignees?: readonly string[] | undefined;
  readonly reviewers?: readonly string[] | undefined;
  readonly files?: readonly SimFile[] | undefined;
  readonly mergeable?: SimPullRequest["mergeable"] | undefined;
  readonly at: number;
}

export function takeNumber(repo: SimRepo, wanted?: number): number {
  if (wanted !== undefined) {
    if (repo.pulls.has(wanted) || repo.issues.has(wanted)) {
      throw new WorldError("CONFLICT", `number ${wanted} is already taken in ${repo.fullName}`);
    }
    repo.nextNumber = Math.max(repo.nextNumber, wanted + 1);
    return wanted;
  }
  return repo.nextNumber++;
}

export function buildPull(world: World, repo: SimRepo, input: PullInput): SimPullRequest {
  const base = input.base ?? repo.defaultBranch;
  const headSha = repo.branches.get(input.head);
  const baseSha = repo.branches.get(base);
  if (!headSha || !baseSha || input.head === base) {
    throw new WorldError(
      "UNPROCESSABLE",
      `Head sha can't be blank, Base sha can't be blank, No commits between ${base} and ${input.head}, Head ref must be a branch`,
    );
  }
  const number = takeNumber(repo, input.number);
  buildUser(world, { login: input.author, at: input.at });
  for (const name of input.labels ?? []) buildLabel(world, repo, { name, at: input.at });
  const commits = branchCommits(repo, headSha, baseSha);
  const pr: SimPullRequest = {
    kind: "pr",
    number,
    id: world.nextId("pull"),
    nodeId: makeNodeId("PullRequest", `pr:${repo.fullName}#${number}`),
    title: input.title,
    body: input.body ?? "",
    state: "open",
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    closedAt: null,
    draft: input.draft ?? false,
    author: input.author,
    headRef: input.head,
    headSha,
    baseRef: base,
    baseSha,
    labels: [...(input.labels ?? [])],
    assignees: [...(input.assignees ?? [])],
    requestedReviewers: [...(input.reviewers ?? [])],
    reviews: [],
    comments: [],
    reviewComments: [],
    reviewThreads: [],
    commits,
    files: [...(input.files ?? [])],
    mergeable: input.mergeable ?? "MERGEABLE",
    mergeStateOverride: null,
    maintainerCanModify: true,
    milestone: null,
    locked: false,
    createdAt: input.at,
    updatedAt: input.at,
    version: 0,
  };
  repo.pulls.set(number, pr);
  world.registerNode(pr.nodeId, { type: "PullRequest", repo: repo.fullName, number });
  return pr;
}

/** Commits reachable from `head` that are not reachable from `base`, oldest first. */
export function branchCommits(repo: SimRepo, head: string, base: string): string[] {
  const baseSet = new Set<string>();
  for (let sha: string | undefined = base; sha; sha = repo.commits.get(sha)?.parents[0]) baseSet.add(sha);
  const out: string[] = [];
  for (
    let sha: string | undefined = head;
    sha && !baseSet.has(sha);
    sha = repo.commits.get(sha)?.parents[0]
  ) {
    out.unshift(sha);
  }
  return out.length > 0 ? out : [head];
}

export interface IssueInput {
  readonly number?: number | undefined;
  readonly title: string;
  readonly body?: string | undefined;
  readonly author: string;
  readonly labels?: readonly string[] | undefined;
  readonly assignees?: readonly string[] | undefined;
  readonly state?: "open" | "closed" | undefined;
  readonly at: number;
}

export function buildIssue(world: World, repo: SimRepo, input: IssueInput): SimIssue {
  const number = takeNumber(repo, input.number);
  buildUser(world, { login: input.author, at: input.at });
  for (const name of input.labels ?? []) buildLabel(world, repo, { name, at: input.at });
  const closed = input.state === "closed";
  const issue: SimIssue = {
    kind: "issue",
    number,
    id: world.nextId("issue"),
    nodeId: makeNodeId("Issue", `issue:${repo.fullName}#${number}`),
    title: input.title,
    body: input.body ?? "",
    state: closed ? "closed" : "open",
    stateReason: closed ? "COMPLETED" : null,
    author: input.author,
    labels: [...(input.labels ?? [])],
    assignees: [...(input.assignees ?? [])],
    comments: [],
    milestone: null,
    locked: false,
    createdAt: input.at,
    updatedAt: input.at,
    closedAt: closed ? input.at : null,
    version: 0,
  };
  repo.issues.set(number, issue);
  world.registerNode(issue.nodeId, { type: "Issue", repo: repo.fullName, number });
  return issue;
}
