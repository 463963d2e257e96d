/**
 * GraphQL views of a commit and its CI roll-up: Commit and StatusCheckRollup (check runs first,
 * then commit statuses, newest per name/context). The CI items themselves are in check-views.ts.
 */
import { effectiveStatuses, latestCheckRuns, rollupState, statusState } from "../../core/derived-state.js";
import type { SimCheckRun, SimCheckSuite, SimCommit, SimRepo, SimStatus } from "../../core/model.js";
import type { PageArgs } from "../../core/paginate.js";
import { connection, connectionWith } from "../connection.js";
import type { GqlContext } from "../context.js";
import { actorView, type View } from "./actors.js";
import { CheckRunView, CheckSuiteView, StatusContextView } from "./check-views.js";

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
    return this.#ctx.links.repository(this.#ctx, this.#repo);
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
