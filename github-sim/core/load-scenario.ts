/**
 * Builds a World and its ScenarioEngine from a parsed scenario. Static records get deterministic
 * timestamps derived from the scenario's epoch (so the same scenario always answers the same,
 * ETags included); moving CI and timeline events are scheduled from `startAt`, the instant the
 * scenario was loaded or reset.
 */
import { applyEvent } from "./apply-event.js";
import { buildCommit, buildIssue, buildLabel, buildPull, buildRepo, buildUser } from "./builders.js";
import { buildStatus } from "./builders-ci.js";
import { buildComment, buildReview } from "./builders-social.js";
import { startChecks, startCi } from "./ci-motion.js";
import { makeNodeId } from "./ids.js";
import type { SimRepo } from "./model.js";
import { ScenarioEngine } from "./scenario-engine.js";
import type { IssueSpec, ParsedScenario, PullSpec, RepoSpec } from "./scenario-schema.js";
import { World } from "./world.js";

export const DEFAULT_EPOCH = "2026-01-05T09:00:00Z";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface LoadOptions {
  /** Scenario clock. */
  readonly now: () => number;
  /** Instant the scenario starts (timeline `atS` is relative to it). @defaultValue now() */
  readonly startAt?: number;
}

export interface LoadedScenario {
  readonly world: World;
  readonly engine: ScenarioEngine;
  readonly defaultRepo: string;
}

/** Generated PRs are numbered from here up (101, 102, ...). */
export const GENERATED_PR_BASE = 100;

function generatedPulls(count: number, viewer: string): PullSpec[] {
  return Array.from({ length: count }, (_, i) => {
    const number = GENERATED_PR_BASE + i + 1;
    return {
      number,
      title: `Generated change ${number}`,
      body: `Generated pull request ${number} for load tests.`,
      author: viewer,
      head: `gen/pr-${number}`,
      files: [{ path: `src/generated/change-${number}.ts`, additions: 10, deletions: 2, status: "modified" }],
      ci: {
        jobs: [
          { name: "build", conclusion: "success" },
          { name: "test", conclusion: "success" },
        ],
      },
    };
  });
}

function loadPull(
  world: World,
  engine: ScenarioEngine,
  repo: SimRepo,
  spec: PullSpec,
  createdAt: number,
  startAt: number,
): void {
  const author = spec.author ?? world.viewer;
  const commits = spec.commits ?? [{ message: spec.title }];
  commits.forEach((c, i) => {
    const at = createdAt - (commits.length - i) * 10 * MINUTE;
    buildCommit(world, repo, { branch: spec.head, message: c.message, author: c.author ?? author, at });
  });
  const pr = buildPull(world, repo, {
    number: spec.number,
    title: spec.title,
    body: spec.body,
    author,
    head: spec.head,
    base: spec.base,
    draft: spec.draft,
    labels: spec.labels,
    assignees: spec.assignees,
    reviewers: spec.reviewers,
    files: spec.files,
    mergeable: spec.mergeable,
    at: createdAt,
  });
  if (spec.mergeState) pr.mergeStateOverride = spec.mergeState;
  for (const ci of spec.ci === undefined ? [] : Array.isArray(spec.ci) ? spec.ci : [spec.ci]) {
    const moving = ci.jobs.some((j) => j.startAfterS !== undefined || j.durationS !== undefined);
    startCi(world, engine, repo, {
      sha: pr.headSha,
      branch: pr.headRef,
      spec: ci,
      at: moving ? startAt : createdAt,
      record: false,
    });
  }
  if (spec.checks) {
    const moving = spec.checks.some((c) => c.startAfterS !== undefined || c.durationS !== undefined);
    startChecks(world, engine, repo, {
      sha: pr.headSha,
      branch: pr.headRef,
      checks: spec.checks,
      at: moving ? startAt : createdAt,
      record: false,
    });
  }
  spec.statuses?.forEach((s, i) => {
    buildStatus(world, repo, pr.headSha, { ...s, at: createdAt + (i + 2) * MINUTE });
  });
  spec.reviews?.forEach((r, i) => {
    buildReview(world, repo, pr, { ...r, at: createdAt + (i + 1) * 20 * MINUTE });
  });
  spec.comments?.forEach((c, i) => {
    buildComment(world, repo, pr, {
      author: c.author ?? author,
      body: c.body,
      at: createdAt + (i + 1) * 15 * MINUTE,
    });
  });
  const last = Math.max(
    createdAt,
    ...pr.comments.map((c) => c.createdAt),
    ...pr.reviews.map((r) => r.submittedAt),
  );
  pr.updatedAt = last;
  if (spec.state === "closed" || spec.state === "merged") {
    pr.state = "closed";
    pr.closedAt = last + HOUR;
    pr.updatedAt = last + HOUR;
    if (spec.state === "merged") {
      pr.merged = true;
      pr.mergedAt = pr.closedAt;
      pr.mergedBy = world.viewer;
      const merge = buildCommit(world, repo, {
        branch: pr.baseRef,
        message: `${pr.title} (#${pr.number})`,
        author: world.viewer,
        at: last + HOUR,
      });
      pr.mergeCommitSha = merge.sha;
    }
  }
}

function loadIssue(world: World, repo: SimRepo, spec: IssueSpec, createdAt: number): void {
  const issue = buildIssue(world, repo, { ...spec, author: spec.author ?? world.viewer, at: createdAt });
  spec.comments?.forEach((c, i) => {
    buildComment(world, repo, issue, {
      author: c.author ?? issue.author,
      body: c.body,
      at: createdAt + (i + 1) * 15 * MINUTE,
    });
  });
  issue.updatedAt = Math.max(createdAt, ...issue.comments.map((c) => c.createdAt));
  if (issue.closedAt !== null) issue.closedAt = issue.updatedAt;
}

function loadRepo(
  world: World,
  engine: ScenarioEngine,
  spec: RepoSpec,
  epoch: number,
  startAt: number,
): SimRepo {
  const repo = buildRepo(world, { ...spec, at: epoch - 30 * DAY });
  for (const label of spec.labels ?? []) buildLabel(world, repo, { ...label, at: epoch - 30 * DAY });
  for (const wf of spec.workflows ?? []) {
    world.reserveId("workflow", wf.id);
    repo.workflows.set(wf.id, {
      id: wf.id,
      nodeId: makeNodeId("Workflow", `workflow:${wf.id}`),
      name: wf.name,
      path: wf.path ?? `.github/workflows/${wf.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.yml`,
      createdAt: epoch - 30 * DAY,
    });
  }
  const pulls = [...(spec.pulls ?? []), ...generatedPulls(spec.generatedPulls ?? 0, world.viewer)];
  const issues = spec.issues ?? [];
  // Explicit numbers first, so unnumbered records take numbers after every explicit one.
  const explicit = [...pulls, ...issues].map((r) => r.number ?? 0);
  repo.nextNumber = Math.max(1, ...explicit.map((n) => n + 1));
  pulls.forEach((p, i) => {
    const createdAt = p.createdAt ? Date.parse(p.createdAt) : epoch + i * HOUR;
    loadPull(world, engine, repo, p, createdAt, startAt);
  });
  issues.forEach((issue, i) => {
    const createdAt = issue.createdAt ? Date.parse(issue.createdAt) : epoch - 2 * DAY + i * HOUR;
    loadIssue(world, repo, issue, createdAt);
  });
  repo.updatedAt = epoch;
  return repo;
}

export function loadScenario(scenario: ParsedScenario, options: LoadOptions): LoadedScenario {
  const epoch = Date.parse(scenario.epoch ?? DEFAULT_EPOCH);
  const startAt = options.startAt ?? options.now();
  const viewer = scenario.viewer ?? { login: "octocat", id: 1, name: "The Octocat" };
  const world = new World({ now: options.now, viewer: viewer.login });
  const engine = new ScenarioEngine(world);
  buildUser(world, { login: viewer.login, id: viewer.id ?? 1, name: viewer.name, at: epoch - 365 * DAY });
  for (const user of scenario.users ?? []) buildUser(world, { ...user, at: epoch - 365 * DAY });
  const repos = scenario.repos.map((spec) => loadRepo(world, engine, spec, epoch, startAt));
  const defaultRepo = (repos[0] as SimRepo).fullName;
  for (const entry of scenario.timeline ?? []) {
    engine.schedule(startAt + entry.atS * 1000, `timeline ${entry.event.type}`, () => {
      applyEvent({ world, engine, defaultRepo }, entry.event);
    });
  }
  return { world, engine, defaultRepo };
}
