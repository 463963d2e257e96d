/**
 * The broker's side of lifecycle/'s ports: the poller's GraphQL and conditional REST reads go
 * through the same pipeline as everyone's (coalesced, batched, budgeted, queued) at lifecycle
 * priority — the reserve docs/architecture.md "Policies" keeps for it — as the broker's own "ao-lifecycle" session. Its
 * GraphQL never comes from the cache (it is what tells the cache that PR data changed); its REST
 * guards are always revalidated upstream (a 304 costs nothing), and the PRs (and the repositories'
 * lists, workflow runs and covered heads) they saw unchanged are vouched for in the cache
 * (lifecycle/vouch.ts). Observed changes invalidate the cached answers of that PR;
 * events go to Redis pub/sub (`<prefix>:events`), from which every broker relays them to its own IPC
 * subscribers (topic `lifecycle.<type>`) — the poller runs on one broker, subscribers may be on any.
 */
import type { Redis } from "ioredis";
import type {
  LifecycleBudget,
  LifecycleEvent,
  LifecyclePorts,
  RefreshHoldPort,
} from "../../lifecycle/index.js";
import type { BudgetGate } from "../budget/index.js";
import {
  actionsRunVouchKey,
  actionsTag,
  actionsVouchKey,
  checksMovedTags,
  createdTags,
  FACETS,
  type Facet,
  listVouchKey,
  objectKey,
  runsMovedTags,
  shaChecksTag,
  shaVouchKey,
} from "../cache/core/facets.js";
import { aliasesNeeded, resolveWrite } from "../cache/core/resolve-write.js";
import { NO_WRITE } from "../cache/core/rest-facets.js";
import { runsRepoKey } from "../cache/core/runs-page.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { buildApiRequest } from "../pipeline/api-request.js";
import type { ClassifyInput, RequestClass } from "../pipeline/classify.js";
import type { Caller, GhRequest, GhResponse, Handler } from "../pipeline/types.js";
import { LIFECYCLE_DEFAULTS } from "./lifecycle-settings.js";

export const LIFECYCLE_SESSION_ID = "ao-lifecycle";

export function lifecycleEventChannel(prefix: string): string {
  return `${prefix}:events`;
}

export interface LifecyclePortsOptions {
  readonly pipeline: Handler;
  readonly classify: (input: ClassifyInput) => RequestClass;
  readonly cache: ResponseCache;
  readonly gate: BudgetGate;
  readonly redis: Redis;
  readonly prefix: string;
  /** Runs a request inside the broker's instrumentation and accounting. */
  readonly run?: (request: GhRequest, send: () => Promise<GhResponse>) => Promise<GhResponse>;
  /** @defaultValue 60000 */
  readonly deadlineMs?: number;
  /** The refresh runner (decision 0025: a poll cycle holds its refreshes); absent: no holding. */
  readonly refresh?: { hold(): RefreshHoldPort } | undefined;
}

/**
 * The preview headers gh 2.23 sends with every GraphQL query (test/fixtures/gh-2.23-traffic): the
 * batch layer merges only queries GitHub would shape alike (same Accept, GraphQL-Features and API
 * version: pipeline/batch-layer.ts batchMergeKey), so the lifecycle's enrichment and detection
 * queries carry them too and leave in the same upstream request as agents' queries and refreshes.
 */
export const GH_GRAPHQL_HEADERS: Readonly<Record<string, string>> = {
  accept: "application/vnd.github.merge-info-preview+json, application/vnd.github.nebula-preview",
  "graphql-features": "merge_queue",
};

const CALLER: Caller = {
  sessionId: LIFECYCLE_SESSION_ID,
  readOnly: true,
  weight: 1,
  command: "ao lifecycle",
  operation: "ao.lifecycle",
};

function parse(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

export function createLifecyclePorts(options: LifecyclePortsOptions): LifecyclePorts {
  const deadlineMs = options.deadlineMs ?? LIFECYCLE_DEFAULTS.requestDeadlineMs;
  const send = (request: GhRequest) =>
    options.run ? options.run(request, () => options.pipeline(request)) : options.pipeline(request);
  const refresh = options.refresh;
  return {
    graphqlCostKnown: true,
    ...(refresh ? { holdRefresh: () => refresh.hold() } : {}),
    async graphql(request, { priority }) {
      const built = buildApiRequest(
        {
          method: "POST",
          path: "/graphql",
          headers: GH_GRAPHQL_HEADERS,
          graphql: { query: request.query, variables: request.variables ?? {} },
          caller: CALLER,
          priority,
          deadlineMs,
        },
        options.classify,
      );
      // Never from the cache: coalescing and batching still apply, storing does not.
      const uncached: GhRequest = { ...built, classification: { ...built.classification, cacheable: false } };
      const response = await send(uncached);
      const body = parse(response.body) as { data?: unknown; errors?: unknown[] } | undefined;
      return {
        status: response.status,
        ...(body?.data !== undefined ? { data: body.data } : {}),
        ...(body?.errors !== undefined ? { errors: body.errors } : {}),
        cost: response.cost,
      };
    },
    async restConditional(request) {
      const built = buildApiRequest(
        {
          method: "GET",
          path: request.path,
          headers: request.etag ? { "if-none-match": request.etag } : {},
          caller: CALLER,
          priority: "lifecycle",
          deadlineMs,
        },
        options.classify,
      );
      // Always revalidated upstream (a 304 is free): a guard answered from the cache could be
      // restFreshMs old, and the guards' answers are what vouches for agents' cached answers.
      // Nor served on a vouch: the guards are what vouch (a guard vouched by itself would never move).
      const revalidated: GhRequest = {
        ...built,
        classification: { ...built.classification, freshMs: 0, guardedFreshMs: 0 },
      };
      const response = await send(revalidated);
      return {
        status: response.status,
        ...(response.headers.etag ? { etag: response.headers.etag } : {}),
        ...(response.status === 304 ? {} : { body: parse(response.body) }),
        cost: response.cost,
      };
    },
    async invalidate(target) {
      const [owner, name] = target.repo.split("/");
      if (!owner || !name) return;
      if (target.pr === undefined && target.runs !== undefined) {
        // Workflow runs moved (the Actions guard): those runs' answers, the run lists, their
        // heads' commit checks, the CI facets of the lists, and the checks of the PRs learned
        // for their branches — no other run's answers.
        // Not the branches whose PRs the lifecycle re-reads and invalidates itself (handledBranches).
        const handled = new Set(target.handledBranches ?? []);
        const branches = [
          ...new Set(target.runs.map((r) => r.branch).filter((b): b is string => !!b && !handled.has(b))),
        ];
        const effect = {
          ...NO_WRITE,
          tags: [
            ...runsMovedTags(owner, name, target.runs),
            ...checksMovedTags(owner, name, undefined, undefined).filter((t) => !t.startsWith("actions:")),
          ],
          branches: branches.map((branch) => ({ owner, name, branch, facets: ["checks"] as Facet[] })),
        };
        const moved = await options.cache.invalidate(
          resolveWrite(effect, await options.cache.aliases(aliasesNeeded(effect))),
        );
        // The moves come from the runs page the guard just read: answers derived from it stay current.
        options.cache.noteRunsPageMoves(runsRepoKey(owner, name), moved);
        return;
      }
      if (target.pr === undefined) {
        // A PR appeared: the repository's lists and that branch's lookup, nothing else.
        await options.cache.invalidate(createdTags(owner, name, "pulls", target.branch), {
          origin: "signal",
        });
        return;
      }
      const facets = (target.facets ?? FACETS).filter((f): f is Facet => FACETS.includes(f as Facet));
      // Checks moved: that commit's checks, and the workflow runs the Actions guard named (all
      // of the repository's when it named none: which runs moved is not known).
      const actions = target.runs ? runsMovedTags(owner, name, target.runs) : [actionsTag(owner, name)];
      const effect = {
        ...NO_WRITE,
        objects: [{ object: objectKey(owner, name, target.pr), facets }],
        tags: facets.includes("checks")
          ? [...actions, ...(target.headSha ? [shaChecksTag(owner, name, target.headSha)] : [])]
          : [],
      };
      const aliases = await options.cache.aliases(aliasesNeeded(effect));
      const known = new Map(aliases.objectBranch);
      if (target.branch) known.set(objectKey(owner, name, target.pr), target.branch);
      // A signal's move: the broker refreshes what agents read of it, serving it meanwhile (0014).
      const moved = await options.cache.invalidate(
        resolveWrite(effect, { ...aliases, objectBranch: known }),
        {
          origin: "signal",
        },
      );
      if (target.runs) options.cache.noteRunsPageMoves(runsRepoKey(owner, name), moved);
    },
    async agentReads(prs) {
      const tags = prs.map(({ repo, pr }) => {
        const [owner = "", name = ""] = repo.split("/");
        return objectKey(owner, name, pr);
      });
      return (await options.cache.agentReads(tags)).map((at) => (at > 0 ? at : null));
    },
    async vouch(targets) {
      const entries = [];
      for (const target of targets) {
        const [owner, name] = target.repo.split("/");
        if (owner && name) entries.push({ tag: objectKey(owner, name, target.pr), at: target.at });
      }
      await options.cache.vouch(entries);
    },
    async vouchLists(targets) {
      const entries = [];
      for (const target of targets) {
        const [owner, name] = target.repo.split("/");
        if (owner && name)
          entries.push({ tag: listVouchKey(owner, name, target.list), at: target.at, since: target.since });
      }
      await options.cache.vouch(entries);
    },
    async vouchActions(targets) {
      const entries = [];
      for (const target of targets) {
        const [owner, name] = target.repo.split("/");
        if (!owner || !name) continue;
        entries.push({ tag: actionsVouchKey(owner, name), at: target.at, since: target.since });
        for (const run of target.runs)
          entries.push({ tag: actionsRunVouchKey(owner, name, run), at: target.at, since: target.since });
        for (const head of target.heads)
          entries.push({ tag: shaVouchKey(owner, name, head.sha), at: head.at, since: target.since });
      }
      await options.cache.vouch(entries);
    },
    async publish(event: LifecycleEvent) {
      await options.redis.publish(lifecycleEventChannel(options.prefix), JSON.stringify(event));
    },
    async budget(): Promise<LifecycleBudget | undefined> {
      const views = await options.gate.globalView();
      const snapshot = (resource: string) => {
        const view = views.find((v) => v.resource === resource);
        return view ? { remaining: view.remaining, resetAt: view.reset * 1000 } : undefined;
      };
      return { graphql: snapshot("graphql"), core: snapshot("core") };
    },
  };
}
