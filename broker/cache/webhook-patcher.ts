/**
 * Webhooks as the primary signal (issue 16, decision 0021): a delivery's payload patches the cached
 * REST answers it carries and moves exactly the (object, facet) pairs its event changes.
 *
 *   1. plan (core/webhook-patches.ts): the patches (path → payload object) and the moves;
 *   2. the moves are resolved with the learned aliases (node ids, head branches), gathered with
 *      those of the deliveries of the next `gatherMs`, and invalidated once as a signal's: the refresher (decision 0014) fetches the GraphQL answers agents read of
 *      them once, and serves them STALE_REVALIDATING meanwhile;
 *   3. each cached answer of a patched path that agents read recently (the refresh registry names
 *      them, with their headers) gets the payload's object as its body, under the generations just
 *      moved, as of now: current without a request, so the refresher finds it current and sends
 *      nothing for it. An answer is patched only by an object at least as new as its own
 *      (`patchIsNewer`) and only when it is the same representation (its `url` field, which
 *      carries the API base the client reached, equals the payload's). Diff and patch media types
 *      are never patched.
 * Every step is an optimisation over the lifecycle's refresh: a failure is logged, never thrown
 * into the webhook's answer, and the answer does not wait for the gathered move and patches.
 */
import type { Logger } from "../../common/index.js";
import { aliasesNeeded, resolveWrite } from "./core/resolve-write.js";
import { restReadTags } from "./core/rest-facets.js";
import {
  PATCHING_WEBHOOK_EVENTS,
  patchIsNewer,
  planWebhook,
  type RestPatch,
  withoutOwnWrites,
} from "./core/webhook-patches.js";
import type { RefreshRegistry } from "./refresh-registry.js";
import type { ResponseCache } from "./response-cache.js";
import type { WebhookLiveness } from "./webhook-liveness.js";

export interface WebhookPatcherOptions {
  readonly cache: ResponseCache;
  /** Where agents' recent reads are found; without it nothing is patched (moves still apply). */
  readonly registry: RefreshRegistry | undefined;
  readonly liveness: WebhookLiveness;
  readonly logger: Logger;
  /**
   * Deliveries arriving within this long of the first are moved and patched together (the
   * lifecycle's webhookDebounceMs). @defaultValue 0: each on its own, at once
   */
  readonly gatherMs?: number;
  /**
   * A delivery's tags that a write through this broker moved at most this long before it arrived,
   * or after, are not moved again (the write's own webhook; core/webhook-patches.ts withoutOwnWrites).
   * @defaultValue gatherMs
   */
  readonly ownWriteMs?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface WebhookPatchStats {
  readonly deliveries: number;
  readonly patched: number;
  /** Cached answers of a patched path left alone (older object, other representation, final). */
  readonly notPatched: number;
  readonly tagsMoved: number;
  /** Tags a delivery named that the broker's own write had just moved: not moved again. */
  readonly ownWriteTags: number;
  readonly failed: number;
}

export interface WebhookPatcher {
  readonly events: readonly string[];
  apply(event: string, payload: unknown): Promise<void>;
  stats(): WebhookPatchStats;
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

export function createWebhookPatcher(options: WebhookPatcherOptions): WebhookPatcher {
  const { cache, registry, liveness, logger } = options;
  const stats = { deliveries: 0, patched: 0, notPatched: 0, tagsMoved: 0, ownWriteTags: 0, failed: 0 };
  const gatherMs = Math.max(0, options.gatherMs ?? 0);
  const ownWriteMs = Math.max(0, options.ownWriteMs ?? gatherMs);
  const now = options.now ?? Date.now;
  // tag → when a write through this broker last moved it (only this process's writes: the leader's).
  const writtenAt = new Map<string, number>();
  if (ownWriteMs > 0) {
    cache.onInvalidated((invalidation) => {
      if (invalidation.origin !== "write") return;
      for (const tag of Object.keys(invalidation.moves)) {
        writtenAt.delete(tag);
        writtenAt.set(tag, invalidation.at);
      }
      // Insertion order is age order: forget what no gathered delivery can still be compared with.
      for (const [tag, at] of writtenAt) {
        if (invalidation.at - at <= ownWriteMs + gatherMs) break;
        writtenAt.delete(tag);
      }
    });
  }

  const patchPath = async (patch: RestPatch): Promise<void> => {
    if (!registry) return;
    const tags = restReadTags(patch.path);
    const hits = (await registry.find(tags)).filter(
      (h) =>
        h.spec?.method === "GET" &&
        h.spec.path === patch.path &&
        !/diff|patch/.test(h.spec.headers.accept ?? ""),
    );
    const text = Buffer.from(JSON.stringify(patch.body));
    for (const hit of hits) {
      const done = await cache.patchEntry(hit.hashed, tags, (cached) => {
        const before = parse(cached) as Record<string, unknown> | undefined;
        if (before && typeof before.url === "string" && before.url !== patch.body.url) return undefined;
        return patchIsNewer(before, patch.body) ? text : undefined;
      });
      if (done) stats.patched += 1;
      else stats.notPatched += 1;
    }
  };

  // Deliveries gathered for `gatherMs` leave as ONE move: GitHub sends check_run, workflow_job and
  // workflow_run for the same step of CI back to back, and each move would start its own refresh.
  // Each tag remembers when the first delivery naming it arrived (for withoutOwnWrites).
  let batch: { tags: Map<string, number>; patches: RestPatch[]; done: Promise<void> } | undefined;
  const flush = async (current: NonNullable<typeof batch>) => {
    if (batch === current) batch = undefined;
    const tags = withoutOwnWrites(current.tags, writtenAt, ownWriteMs);
    stats.ownWriteTags += current.tags.size - tags.length;
    const moved = await cache.invalidate(tags, { origin: "signal" });
    stats.tagsMoved += Object.keys(moved?.moves ?? {}).length;
    // In delivery order: a later object of the same path is patched last (patchIsNewer guards the rest).
    for (const patch of current.patches) await patchPath(patch);
  };
  const gather = (tags: readonly string[], patches: readonly RestPatch[]): Promise<void> => {
    if (!batch) {
      const fresh = { tags: new Map<string, number>(), patches: [] as RestPatch[], done: Promise.resolve() };
      fresh.done = new Promise<void>((resolve) => setTimeout(resolve, gatherMs)).then(() => flush(fresh));
      batch = fresh;
    }
    const arrivedAt = now();
    for (const tag of tags) if (!batch.tags.has(tag)) batch.tags.set(tag, arrivedAt);
    batch.patches.push(...patches);
    return batch.done;
  };

  return {
    events: PATCHING_WEBHOOK_EVENTS,
    async apply(event, payload) {
      stats.deliveries += 1;
      try {
        await liveness.noteDelivery();
        const plan = planWebhook(event, payload);
        if (!plan) return;
        const aliases = await cache.aliases(aliasesNeeded(plan.effect));
        const objectBranch = new Map(aliases.objectBranch);
        for (const [object, branch] of plan.branches) objectBranch.set(object, branch);
        // Not awaited: the delivery is answered at once (GitHub wants a quick 2xx), and deliveries
        // sent one after another (in order, as GitHub's and the simulator's are) still gather.
        gather(resolveWrite(plan.effect, { ...aliases, objectBranch }), plan.patches).catch(
          (error: unknown) => {
            stats.failed += 1;
            logger.warn({ err: error, event }, "patching cached answers from a webhook failed");
          },
        );
      } catch (error) {
        stats.failed += 1;
        logger.warn({ err: error, event }, "patching cached answers from a webhook failed");
      }
    },
    stats: () => ({ ...stats }),
  };
}
