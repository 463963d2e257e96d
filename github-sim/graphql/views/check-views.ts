/**
 * GraphQL views of CI on a commit: CheckRun (with steps and annotations), CheckSuite,
 * WorkflowRun with its Workflow, and StatusContext. Enum values are GitHub's upper-case names.
 */
import { checkRunState } from "../../core/derived-state.js";
import type {
  SimCheckRun,
  SimCheckSuite,
  SimCommit,
  SimRepo,
  SimStatus,
  SimWorkflowRun,
} from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, type View } from "./actors.js";

const upper = (value: string | null): string | null => (value === null ? null : value.toUpperCase());

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
    return this.#ctx.links.repository(this.#ctx, this.#repo);
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
  get commit(): View | null {
    const commit = this.#repo.commits.get(this.#suite.headSha);
    return commit ? this.#ctx.links.commit(this.#ctx, this.#repo, commit) : null;
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
  get commit(): View {
    return this.#ctx.links.commit(this.#ctx, this.#repo, this.#commit);
  }
}
