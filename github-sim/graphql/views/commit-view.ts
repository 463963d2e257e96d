/**
 * GraphQL views of commits and their CI: Commit, StatusCheckRollup (check runs first, then
 * commit statuses, newest per name/context), CheckRun with steps and annotations, CheckSuite,
 * WorkflowRun, Workflow and StatusContext. Enum values are GitHub's upper-case names.
 */
import {
  checkRunState,
  effectiveStatuses,
  latestCheckRuns,
  rollupState,
  statusState,
} from "../../core/derived-state.js";
import type {
  SimCheckRun,
  SimCheckSuite,
  SimCommit,
  SimRepo,
  SimStatus,
  SimWorkflowRun,
} from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, connectionWith } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, type View } from "./actors.js";
import { repositoryView } from "./repository-view.js";

const upper = (value: string | null): string | null => (value === null ? null : value.toUpperCase());

function gitActor(ctx: GqlContext, commit: SimCommit) {
  return {
    __typename: "GitActor",
    name: commit.authorName,
    email: commit.authorEmail,
    date: ctx.iso(commit.authoredAt),
    get user() {
      return actorView(ctx, commit.author);
    },
    avatarUrl: "https://avatars.githubusercontent.com/u/0?v=4",
  };
}

export class CommitView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #commit: SimCommit;

  constructor(ctx: GqlContext, repo: SimRepo, commit: SimCommit) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#commit = commit;
  }

  get __typename(): string {
    return "Commit";
  }
  get id(): string {
    return this.#commit.nodeId;
  }
  get oid(): string {
    return this.#commit.sha;
  }
  get abbreviatedOid(): string {
    return this.#commit.sha.slice(0, 7);
  }
  get message(): string {
    return this.#commit.message;
  }
  get messageHeadline(): string {
    return this.#commit.message.split("\n")[0] ?? "";
  }
  get messageBody(): string {
    return this.#commit.message.split("\n").slice(1).join("\n").trim();
  }
  get committedDate(): string {
    return this.#ctx.iso(this.#commit.committedAt);
  }
  get authoredDate(): string {
    return this.#ctx.iso(this.#commit.authoredAt);
  }
  get pushedDate(): string {
    return this.#ctx.iso(this.#commit.committedAt);
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/commit/${this.#commit.sha}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
  get commitUrl(): string {
    return this.url;
  }
  get author() {
    return gitActor(this.#ctx, this.#commit);
  }
  get committer() {
    return gitActor(this.#ctx, this.#commit);
  }
  authors(args: PageArgs) {
    return connection([this.#commit], args, (c) => gitActor(this.#ctx, c));
  }
  get tree() {
    return { __typename: "Tree", id: `T_${this.#commit.treeSha}`, oid: this.#commit.treeSha };
  }
  parents(args: PageArgs) {
    const parents = this.#commit.parents
      .map((sha) => this.#repo.commits.get(sha))
      .filter((c): c is SimCommit => c !== undefined);
    return connection(parents, args, (c) => new CommitView(this.#ctx, this.#repo, c));
  }
  get statusCheckRollup(): RollupView | null {
    return rollupView(this.#ctx, this.#repo, this.#commit);
  }
  get status() {
    const statuses = effectiveStatuses(this.#commit);
    if (statuses.length === 0) return null;
    const states = statuses.map(statusState);
    return {
      __typename: "Status",
      id: `S_${this.#commit.sha}`,
      state: states.includes("FAILURE")
        ? "FAILURE"
        : states.includes("ERROR")
          ? "ERROR"
          : states.includes("PENDING")
            ? "PENDING"
            : "SUCCESS",
      contexts: statuses.map((s) => new StatusContextView(this.#ctx, this.#repo, this.#commit, s)),
    };
  }
  checkSuites(args: PageArgs) {
    const suites = this.#commit.checkSuiteIds
      .map((id) => this.#repo.checkSuites.get(id))
      .filter((s): s is SimCheckSuite => s !== undefined);
    return connection(suites, args, (s) => new CheckSuiteView(this.#ctx, this.#repo, s));
  }
  get repository() {
    return repositoryView(this.#ctx, this.#repo);
  }
}

export function commitView(ctx: GqlContext, repo: SimRepo, commit: SimCommit): CommitView {
  return new CommitView(ctx, repo, commit);
}

function countsByState(states: readonly string[]): { state: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([state, count]) => ({ state, count }));
}

export class RollupView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #commit: SimCommit;
  readonly state: string;

  constructor(ctx: GqlContext, repo: SimRepo, commit: SimCommit, state: string) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#commit = commit;
    this.state = state;
  }

  get __typename(): string {
    return "StatusCheckRollup";
  }
  get id(): string {
    return `SCR_${this.#commit.sha}`;
  }
  get commit(): CommitView {
    return new CommitView(this.#ctx, this.#repo, this.#commit);
  }
  contexts(args: PageArgs) {
    const checks = latestCheckRuns(this.#repo, this.#commit);
    const statuses = effectiveStatuses(this.#commit);
    const items: (SimCheckRun | SimStatus)[] = [...checks, ...statuses];
    return connectionWith(
      items,
      args,
      (item): View =>
        "context" in item
          ? new StatusContextView(this.#ctx, this.#repo, this.#commit, item)
          : new CheckRunView(this.#ctx, this.#repo, item),
      {
        checkRunCount: checks.length,
        checkRunCountsByState: countsByState(
          checks.map((c) =>
            c.status === "completed" ? (upper(c.conclusion) ?? "") : (upper(c.status) ?? ""),
          ),
        ),
        statusContextCount: statuses.length,
        statusContextCountsByState: countsByState(statuses.map(statusState)),
      },
    );
  }
}

export function rollupView(ctx: GqlContext, repo: SimRepo, commit: SimCommit): RollupView | null {
  const state = rollupState(repo, commit);
  return state === null ? null : new RollupView(ctx, repo, commit, state);
}

export function checkRunUrl(ctx: GqlContext, repo: SimRepo, run: SimCheckRun): string {
  return run.runId !== null
    ? `${ctx.webBase}/${repo.fullName}/actions/runs/${run.runId}/job/${run.id}`
    : `${ctx.webBase}/${repo.fullName}/runs/${run.id}`;
}

export class CheckRunView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #run: SimCheckRun;

  constructor(ctx: GqlContext, repo: SimRepo, run: SimCheckRun) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#run = run;
  }

  get __typename(): string {
    return "CheckRun";
  }
  get id(): string {
    return this.#run.nodeId;
  }
  get databaseId(): number {
    return this.#run.id;
  }
  get name(): string {
    return this.#run.name;
  }
  get status(): string | null {
    return upper(this.#run.status);
  }
  get conclusion(): string | null {
    return upper(this.#run.conclusion);
  }
  get startedAt(): string | null {
    return this.#ctx.iso(this.#run.startedAt);
  }
  get completedAt(): string | null {
    return this.#ctx.iso(this.#run.completedAt);
  }
  get url(): string {
    return checkRunUrl(this.#ctx, this.#repo, this.#run);
  }
  get permalink(): string {
    return this.url;
  }
  get detailsUrl(): string {
    return this.#run.detailsUrl ?? this.url;
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/runs/${this.#run.id}`;
  }
  get title(): string | null {
    return this.#run.title;
  }
  get summary(): string | null {
    return this.#run.summary;
  }
  isRequired(): boolean {
    return this.#run.isRequired;
  }
  get checkSuite(): CheckSuiteView | null {
    const suite = this.#repo.checkSuites.get(this.#run.suiteId);
    return suite ? new CheckSuiteView(this.#ctx, this.#repo, suite) : null;
  }
  annotations(args: PageArgs) {
    const run = this.#run;
    const web = this.#ctx.webBase;
    const repo = this.#repo;
    return connection(run.annotations, args, (a) => ({
      __typename: "CheckAnnotation",
      path: a.path,
      message: a.message,
      title: a.title,
      annotationLevel: a.level.toUpperCase(),
      location: { start: { line: a.startLine, column: null }, end: { line: a.endLine, column: null } },
      blobUrl: `${web}/${repo.fullName}/blob/${run.headSha}/${a.path}`,
      rawDetails: null,
    }));
  }
  steps(args: PageArgs) {
    return connection(this.#run.steps, args, (s) => ({
      __typename: "CheckStep",
      name: s.name,
      number: s.number,
      status: upper(s.status),
      conclusion: upper(s.conclusion),
      startedAt: this.#ctx.iso(s.startedAt),
      completedAt: this.#ctx.iso(s.completedAt),
      externalId: null,
      secondsToCompletion:
        s.startedAt !== null && s.completedAt !== null
          ? Math.round((s.completedAt - s.startedAt) / 1000)
          : null,
    }));
  }
  get state(): string {
    return checkRunState(this.#run);
  }
  get repository() {
    return repositoryView(this.#ctx, this.#repo);
  }
}

export function checkRunView(ctx: GqlContext, repo: SimRepo, run: SimCheckRun): CheckRunView {
  return new CheckRunView(ctx, repo, run);
}

export class CheckSuiteView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #suite: SimCheckSuite;

  constructor(ctx: GqlContext, repo: SimRepo, suite: SimCheckSuite) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#suite = suite;
  }

  #runs(): SimCheckRun[] {
    return [...this.#repo.checkRuns.values()].filter((r) => r.suiteId === this.#suite.id);
  }
  #workflowRun(): SimWorkflowRun | undefined {
    return this.#suite.runId !== null ? this.#repo.runs.get(this.#suite.runId) : undefined;
  }

  get __typename(): string {
    return "CheckSuite";
  }
  get id(): string {
    return this.#suite.nodeId;
  }
  get databaseId(): number {
    return this.#suite.id;
  }
  get app() {
    return {
      __typename: "App",
      id: "A_github_actions",
      databaseId: 15368,
      name: this.#suite.appSlug === "github-actions" ? "GitHub Actions" : this.#suite.appSlug,
      slug: this.#suite.appSlug,
    };
  }
  get status(): string | null {
    const run = this.#workflowRun();
    return upper(
      run?.status ?? (this.#runs().every((r) => r.status === "completed") ? "completed" : "in_progress"),
    );
  }
  get conclusion(): string | null {
    return upper(this.#workflowRun()?.conclusion ?? null);
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#suite.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#suite.updatedAt);
  }
  get branch() {
    return this.#suite.headBranch
      ? { __typename: "Ref", name: this.#suite.headBranch, prefix: "refs/heads/" }
      : null;
  }
  get workflowRun(): WorkflowRunView | null {
    const run = this.#workflowRun();
    return run ? new WorkflowRunView(this.#ctx, this.#repo, run) : null;
  }
  checkRuns(args: PageArgs) {
    return connection(this.#runs(), args, (r) => new CheckRunView(this.#ctx, this.#repo, r));
  }
  get commit(): CommitView | null {
    const commit = this.#repo.commits.get(this.#suite.headSha);
    return commit ? new CommitView(this.#ctx, this.#repo, commit) : null;
  }
  get url(): string {
    return `${this.#ctx.webBase}/${this.#repo.fullName}/commit/${this.#suite.headSha}/checks`;
  }
}

export class WorkflowRunView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #run: SimWorkflowRun;

  constructor(ctx: GqlContext, repo: SimRepo, run: SimWorkflowRun) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#run = run;
  }

  get __typename(): string {
    return "WorkflowRun";
  }
  get id(): string {
    return this.#run.nodeId;
  }
  get databaseId(): number {
    return this.#run.id;
  }
  get runNumber(): number {
    return this.#run.runNumber;
  }
  get event(): string {
    return this.#run.event;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#run.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#run.updatedAt);
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/actions/runs/${this.#run.id}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
  get workflow() {
    const workflow = this.#repo.workflows.get(this.#run.workflowId);
    if (!workflow) return null;
    const file = workflow.path.split("/").pop() ?? workflow.path;
    return {
      __typename: "Workflow",
      id: workflow.nodeId,
      databaseId: workflow.id,
      name: workflow.name,
      resourcePath: `/${this.#repo.fullName}/actions/workflows/${file}`,
      url: `${this.#ctx.webBase}/${this.#repo.fullName}/actions/workflows/${file}`,
      state: "ACTIVE",
      createdAt: this.#ctx.iso(workflow.createdAt),
      updatedAt: this.#ctx.iso(workflow.createdAt),
    };
  }
}

export class StatusContextView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #commit: SimCommit;
  readonly #status: SimStatus;

  constructor(ctx: GqlContext, repo: SimRepo, commit: SimCommit, status: SimStatus) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#commit = commit;
    this.#status = status;
  }

  get __typename(): string {
    return "StatusContext";
  }
  get id(): string {
    return this.#status.nodeId;
  }
  get context(): string {
    return this.#status.context;
  }
  get state(): string {
    return this.#status.state.toUpperCase();
  }
  get description(): string | null {
    return this.#status.description;
  }
  get targetUrl(): string | null {
    return this.#status.targetUrl;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#status.createdAt);
  }
  get creator() {
    return actorView(this.#ctx, this.#status.creator);
  }
  get avatarUrl(): string {
    return "https://avatars.githubusercontent.com/u/0?v=4";
  }
  isRequired(): boolean {
    return false;
  }
  get commit(): CommitView {
    return new CommitView(this.#ctx, this.#repo, this.#commit);
  }
}
