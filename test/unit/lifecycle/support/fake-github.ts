/**
 * A small fake GitHub behind LifecyclePorts for lifecycle tests: GraphQL is validated and executed
 * with graphql-js against GitHub's real schema (plain-object resolvers over an in-memory world) and
 * charged with github/'s computeQueryCost; REST guards answer with ETags (a hash of the body) and
 * free 304s. Tests change PRs through the helpers, which bump updatedAt exactly when GitHub would
 * (PR-level changes, not check runs). Everything is counted so tests can assert exact costs.
 */
import { createHash } from "node:crypto";
import { graphql, parse } from "graphql";
import { computeQueryCost, loadGitHubSchema, validateGitHubDocument } from "../../../../github/index.js";
import type { LifecycleEvent } from "../../../../lifecycle/core/lifecycle-event.js";
import type {
  ActionsVouchTarget,
  InvalidateTarget,
  LifecyclePorts,
  VouchTarget,
} from "../../../../lifecycle/ports.js";

export interface FakeCheck {
  name: string;
  /** The check's app; GitHub Actions (a job of the head's workflow run) when absent. */
  app?: string;
  status: "QUEUED" | "IN_PROGRESS" | "COMPLETED";
  conclusion: string | null;
  startedAt: number;
  completedAt: number | null;
}

export interface FakePr {
  repo: string;
  number: number;
  title: string;
  state: "OPEN" | "CLOSED" | "MERGED";
  isDraft: boolean;
  headRef: string;
  headSha: string;
  updatedAt: number;
  createdAt: number;
  mergeable: "MERGEABLE" | "CONFLICTING" | "UNKNOWN";
  mergeStateStatus: string;
  reviewDecision: "APPROVED" | "CHANGES_REQUESTED" | "REVIEW_REQUIRED" | null;
  checks: FakeCheck[];
  threads: { id: string; isResolved: boolean }[];
  comments: { id: number; updatedAt: number }[];
  /** Submitted reviews, oldest first (a review comment belongs to one, as on GitHub). */
  reviews: { author: string; state: string; submittedAt: number }[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function rollup(checks: readonly FakeCheck[]): string | null {
  if (checks.length === 0) return null;
  if (
    checks.some(
      (c) => c.status === "COMPLETED" && !["SUCCESS", "SKIPPED", "NEUTRAL"].includes(c.conclusion ?? ""),
    )
  ) {
    return "FAILURE";
  }
  if (checks.some((c) => c.status !== "COMPLETED")) return "PENDING";
  return "SUCCESS";
}

export interface FakeGitHub {
  readonly ports: LifecyclePorts;
  readonly prs: Map<string, FakePr>;
  readonly events: LifecycleEvent[];
  readonly invalidations: InvalidateTarget[];
  readonly vouches: VouchTarget[];
  /** What ports.vouchActions was told (only with the actionsVouches option). */
  readonly actionsVouches: ActionsVouchTarget[];
  /** What ports.agentReads answers, by "repo#number" (absent: never read). */
  readonly agentReads: Map<string, number>;
  readonly counts: {
    graphqlQueries: number;
    graphqlPoints: number;
    rest: number;
    rest304: number;
    queries: string[];
    /** Most REST guards in flight at once. */
    maxRestInFlight: number;
    /** Every REST path asked for. */
    paths: string[];
  };
  /** What ports.budget answers (undefined: the broker knows no budget). */
  budget: { remaining: number; resetAt: number } | undefined;
  /** Fails the next n GraphQL calls with HTTP 502. */
  failGraphQL(n: number): void;
  /** Fails the next n invalidations (the cache unreachable). */
  failInvalidate(n: number): void;
  /** Answers the next n REST calls with GitHub's secondary-limit 403. */
  rateLimitRest(n: number): void;
  /** While held, the repository issues list answers 503 (its guard has not read it yet). */
  holdIssuesList(held: boolean): void;
  addPr(pr: Partial<FakePr> & { repo: string; number: number; headRef: string }): FakePr;
  pr(repo: string, number: number): FakePr;
  /** A PR-level change: bumps updatedAt. */
  update(repo: string, number: number, change: Partial<FakePr>): void;
  /** A check-run change: does not bump updatedAt (as on GitHub). */
  setCheck(repo: string, number: number, check: Partial<FakeCheck> & { name: string }): void;
  push(repo: string, number: number, sha: string): void;
  resetCounts(): void;
}

/**
 * listVouches: the cache listens for list vouches (ports.vouchLists), so the issues-list guard runs.
 * actionsVouches: it listens for Actions vouches (ports.vouchActions), so the Actions guard runs;
 * each head's Actions checks form one workflow run whose updated_at follows its jobs, as on GitHub.
 */
export function createFakeGitHub(
  now: () => number,
  options: { listVouches?: boolean; actionsVouches?: boolean } = {},
): FakeGitHub {
  const schema = loadGitHubSchema();
  const prs = new Map<string, FakePr>();
  const events: LifecycleEvent[] = [];
  const invalidations: InvalidateTarget[] = [];
  const vouches: VouchTarget[] = [];
  const actionsVouches: ActionsVouchTarget[] = [];
  /** Workflow run ids by head SHA (one run per head), in creation order. */
  const runIds = new Map<string, number>();
  let invalidateFailures = 0;
  const agentReads = new Map<string, number>();
  const counts = {
    graphqlQueries: 0,
    graphqlPoints: 0,
    rest: 0,
    rest304: 0,
    queries: [] as string[],
    maxRestInFlight: 0,
    paths: [] as string[],
  };
  let failures = 0;
  let restLimited = 0;
  let issuesHeld = false;
  let inFlight = 0;
  const state: { budget: { remaining: number; resetAt: number } | undefined } = { budget: undefined };
  const key = (repo: string, n: number) => `${repo.toLowerCase()}#${n}`;

  const prNode = (pr: FakePr) => ({
    number: pr.number,
    url: `https://github.com/${pr.repo}/pull/${pr.number}`,
    title: pr.title,
    state: pr.state,
    isDraft: pr.isDraft,
    additions: 1,
    deletions: 1,
    mergeable: pr.mergeable,
    mergeStateStatus: pr.mergeStateStatus,
    reviewDecision: pr.reviewDecision,
    headRefName: pr.headRef,
    headRefOid: pr.headSha,
    baseRefName: "main",
    updatedAt: iso(pr.updatedAt),
    commits: () => ({
      nodes: [
        {
          commit: {
            oid: pr.headSha,
            statusCheckRollup:
              pr.checks.length === 0
                ? null
                : {
                    state: rollup(pr.checks),
                    contexts: () => ({
                      totalCount: pr.checks.length,
                      nodes: pr.checks.map((c) => ({
                        __typename: "CheckRun",
                        name: c.name,
                        status: c.status,
                        conclusion: c.conclusion,
                        detailsUrl: `https://ci.example/${c.name}`,
                        startedAt: iso(c.startedAt),
                        completedAt: iso(c.completedAt),
                        checkSuite: { app: { slug: c.app ?? "github-actions" } },
                      })),
                    }),
                  },
          },
        },
      ],
    }),
    reviewThreads: () => ({ totalCount: pr.threads.length, nodes: pr.threads }),
    reviews: ({ last }: { last?: number }) => ({
      nodes: pr.reviews.slice(Math.max(0, pr.reviews.length - (last ?? pr.reviews.length))).map((r) => ({
        author: { __typename: "User", login: r.author },
        state: r.state,
        submittedAt: iso(r.submittedAt),
      })),
    }),
  });

  const root = {
    rateLimit: () => ({
      cost: 1,
      remaining: 5000 - counts.graphqlPoints,
      limit: 5000,
      resetAt: iso(now() + 3_600_000),
    }),
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = `${owner}/${name}`.toLowerCase();
      return {
        pullRequest: ({ number }: { number: number }) => {
          const pr = prs.get(key(repo, number));
          return pr ? prNode(pr) : null;
        },
        pullRequests: ({ headRefName }: { headRefName: string }) => ({
          nodes: [...prs.values()]
            .filter((p) => p.repo.toLowerCase() === repo && p.headRef === headRefName)
            .sort((a, b) => b.createdAt - a.createdAt)
            .slice(0, 1)
            .map(prNode),
        }),
      };
    },
  };

  const restBody = (path: string): { status: number; body?: unknown } => {
    const url = new URL(path, "http://x");
    const parts = url.pathname.split("/").filter(Boolean); // repos, o, r, ...
    const repo = `${parts[1]}/${parts[2]}`.toLowerCase();
    const inRepo = [...prs.values()].filter((p) => p.repo.toLowerCase() === repo);
    if (parts[3] === "pulls" && parts.length === 4) {
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const page = Number(url.searchParams.get("page") ?? 1);
      const sorted = inRepo.sort((a, b) => b.updatedAt - a.updatedAt);
      return {
        status: 200,
        body: sorted.slice((page - 1) * perPage, page * perPage).map((p) => ({
          number: p.number,
          state: p.state === "OPEN" ? "open" : "closed",
          merged_at: p.state === "MERGED" ? iso(p.updatedAt) : null,
          updated_at: iso(p.updatedAt),
          head: { ref: p.headRef, sha: p.headSha, repo: { full_name: p.repo } },
        })),
      };
    }
    if (parts[3] === "issues" && parts.length === 4) {
      if (issuesHeld) return { status: 503 };
      const sorted = inRepo.sort((a, b) => b.updatedAt - a.updatedAt);
      return {
        status: 200,
        body: sorted
          .slice(0, Number(url.searchParams.get("per_page") ?? 30))
          .map((p) => ({ number: p.number, updated_at: iso(p.updatedAt), pull_request: {} })),
      };
    }
    if (parts[3] === "actions" && parts[4] === "runs" && parts.length === 5) {
      const runs = inRepo
        .map((pr) => ({
          pr,
          jobs: pr.checks.filter((c) => (c.app ?? "github-actions") === "github-actions"),
        }))
        .filter(({ jobs }) => jobs.length > 0)
        .map(({ pr, jobs }) => {
          let id = runIds.get(pr.headSha);
          if (id === undefined) {
            id = 5000 + runIds.size;
            runIds.set(pr.headSha, id);
          }
          const done = jobs.every((j) => j.status === "COMPLETED");
          const failed = jobs.some((j) => j.status === "COMPLETED" && j.conclusion !== "SUCCESS");
          const times = jobs.flatMap((j) => [j.startedAt, j.completedAt ?? 0]);
          return {
            id,
            head_sha: pr.headSha,
            head_branch: pr.headRef,
            status: done ? "completed" : jobs.some((j) => j.status !== "QUEUED") ? "in_progress" : "queued",
            conclusion: done ? (failed ? "failure" : "success") : null,
            run_attempt: 1,
            created_at: iso(Math.min(...jobs.map((j) => j.startedAt))),
            updated_at: iso(Math.max(...times)),
          };
        })
        .sort((a, b) => b.id - a.id);
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      return { status: 200, body: { total_count: runs.length, workflow_runs: runs.slice(0, perPage) } };
    }
    if (parts[3] === "commits") {
      const pr = inRepo.find((p) => p.headSha === parts[4]);
      if (!pr) return { status: 422 };
      if (parts[5] === "check-runs") {
        return {
          status: 200,
          body: {
            total_count: pr.checks.length,
            check_runs: pr.checks.map((c) => ({
              name: c.name,
              status: c.status.toLowerCase(),
              conclusion: c.conclusion?.toLowerCase() ?? null,
              started_at: iso(c.startedAt),
              completed_at: iso(c.completedAt),
              details_url: `https://ci.example/${c.name}`,
              app: { slug: c.app ?? "github-actions" },
            })),
          },
        };
      }
      return { status: 200, body: { state: "pending", statuses: [] } };
    }
    if (parts[3] === "pulls" && parts[5] === "comments") {
      const pr = inRepo.find((p) => p.number === Number(parts[4]));
      if (!pr) return { status: 404 };
      const sorted = [...pr.comments].sort((a, b) => b.updatedAt - a.updatedAt);
      return {
        status: 200,
        body: sorted.slice(0, 1).map((c) => ({ id: c.id, updated_at: iso(c.updatedAt) })),
      };
    }
    return { status: 404 };
  };

  const ports: LifecyclePorts = {
    async graphql({ query }) {
      if (failures > 0) {
        failures -= 1;
        return { status: 502, cost: 0 };
      }
      const document = parse(query);
      const errors = validateGitHubDocument(schema, document);
      if (errors.length > 0) throw new Error(`invalid query: ${errors.map((e) => e.message).join("; ")}`);
      const cost = computeQueryCost({ schema, document }).cost;
      counts.graphqlQueries += 1;
      counts.graphqlPoints += cost;
      counts.queries.push(query);
      const result = await graphql({ schema, source: query, rootValue: root });
      if (result.errors)
        throw new Error(`execution failed: ${result.errors.map((e) => e.message).join("; ")}`);
      return { status: 200, data: result.data, cost };
    },
    async restConditional({ path, etag }) {
      counts.rest += 1;
      counts.paths.push(path);
      inFlight += 1;
      counts.maxRestInFlight = Math.max(counts.maxRestInFlight, inFlight);
      // A real round trip yields to the event loop; so does this, letting concurrency show.
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      if (restLimited > 0) {
        restLimited -= 1;
        return { status: 403, body: { message: "You have exceeded a secondary rate limit." }, cost: 0 };
      }
      const { status, body } = restBody(path);
      if (status !== 200) return { status, cost: 1 };
      const tag = `W/"${createHash("sha1").update(JSON.stringify(body)).digest("hex")}"`;
      if (etag === tag) {
        counts.rest304 += 1;
        return { status: 304, etag: tag, cost: 0 };
      }
      return { status: 200, etag: tag, body, cost: 1 };
    },
    async invalidate(target) {
      if (invalidateFailures > 0) {
        invalidateFailures -= 1;
        throw new Error("cache unreachable");
      }
      invalidations.push(target);
    },
    async vouch(targets) {
      vouches.push(...targets);
    },
    ...(options.listVouches ? { async vouchLists() {} } : {}),
    ...(options.actionsVouches
      ? {
          async vouchActions(targets: readonly ActionsVouchTarget[]) {
            actionsVouches.push(...targets);
          },
        }
      : {}),
    async agentReads(list) {
      return list.map(({ repo, pr }) => agentReads.get(key(repo, pr)) ?? null);
    },
    async publish(event) {
      events.push(event);
    },
    async budget() {
      return state.budget ? { graphql: state.budget } : undefined;
    },
  };

  return {
    ports,
    prs,
    events,
    invalidations,
    vouches,
    actionsVouches,
    agentReads,
    counts,
    get budget() {
      return state.budget;
    },
    set budget(value) {
      state.budget = value;
    },
    failGraphQL: (n) => {
      failures = n;
    },
    failInvalidate: (n) => {
      invalidateFailures = n;
    },
    rateLimitRest: (n) => {
      restLimited = n;
    },
    addPr(input) {
      const pr: FakePr = {
        title: `PR ${input.number}`,
        state: "OPEN",
        isDraft: false,
        headSha: createHash("sha1").update(`${input.repo}#${input.number}`).digest("hex"),
        updatedAt: now(),
        createdAt: now(),
        mergeable: "MERGEABLE",
        mergeStateStatus: "CLEAN",
        reviewDecision: null,
        checks: [
          { name: "build", status: "COMPLETED", conclusion: "SUCCESS", startedAt: now(), completedAt: now() },
        ],
        threads: [],
        comments: [],
        reviews: [],
        ...input,
      };
      prs.set(key(pr.repo, pr.number), pr);
      return pr;
    },
    pr(repo, number) {
      const pr = prs.get(key(repo, number));
      if (!pr) throw new Error(`no fake PR ${repo}#${number}`);
      return pr;
    },
    update(repo, number, change) {
      Object.assign(this.pr(repo, number), change, {
        updatedAt: Math.max(now(), this.pr(repo, number).updatedAt + 1000),
      });
    },
    setCheck(repo, number, change) {
      const pr = this.pr(repo, number);
      const existing = pr.checks.find((c) => c.name === change.name);
      if (existing) Object.assign(existing, change);
      else
        pr.checks.push({
          status: "QUEUED",
          conclusion: null,
          startedAt: now(),
          completedAt: null,
          ...change,
        });
    },
    push(repo, number, sha) {
      this.update(repo, number, {
        headSha: sha,
        checks: [{ name: "build", status: "QUEUED", conclusion: null, startedAt: now(), completedAt: null }],
      });
    },
    holdIssuesList(held) {
      issuesHeld = held;
    },
    resetCounts() {
      counts.graphqlQueries = 0;
      counts.graphqlPoints = 0;
      counts.rest = 0;
      counts.rest304 = 0;
      counts.queries.length = 0;
      counts.maxRestInFlight = 0;
      counts.paths.length = 0;
      events.length = 0;
      invalidations.length = 0;
      vouches.length = 0;
      actionsVouches.length = 0;
    },
  };
}
