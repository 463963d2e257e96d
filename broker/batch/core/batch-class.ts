/**
 * Latency budgets by class. Agents poll on their own clocks (a watcher every 10 s), so a window of
 * a few milliseconds would rarely find a partner: a query is allowed to wait for partners as long
 * as its class tolerates, and a batch leaves when its earliest member's budget runs out.
 *
 * - interactive: a first-time read someone is waiting on (a few ms: just enough to catch
 *   queries sent in the same instant, such as many sessions' `gh pr view` fired together).
 * - immutable: a first read of immutable facts only (gh's `{number,headRefName,id}` and
 *   `{id,url,number}` PR lookups): asked once per PR per session and kept 5 minutes, so a wait
 *   is paid once, and it costs nothing inside a merged query (no connections). Alone it costs a
 *   point each: the comment fleet's 80 first lookups were 45–63 of the broker's points (decision 0023).
 *   600 ms: the fleet's lookups merge (12.3× at 600 ms). The wait once made a PR's node id known
 *   only after the lifecycle's last vouch for it, which then never reached the id; a learned id
 *   now inherits its PR's vouch (cache/core/facets.ts inheritedVouches).
 * - repeat: the same query again from the same session (a polling loop): up to 1.5 s.
 * - watch: `gh pr checks --watch`, `gh run watch`: they poll every 3–10 s anyway: up to 2 s.
 * - lifecycle: the broker's own PR poller: 50 ms. Its queries carry gh's preview headers and
 *   no rateLimit selection, so they join agents' queries and each other's; a longer wait would be
 *   added to every step of a poll cycle (detection, then enrichment) and age every vouch with it.
 *   Only when an agent's query is likely within the partner hold does it wait that long
 *   (`batching.partnerHold.lifecycle`, decision 0025): alone, the enrichment costs a whole point.
 * - background: anything nobody waits on.
 */

export const BATCH_CLASSES = [
  "interactive",
  "immutable",
  "repeat",
  "watch",
  "lifecycle",
  "background",
] as const;
export type BatchClass = (typeof BATCH_CLASSES)[number];

/**
 * Default latency budgets, ms. Configuration overrides them. An agent's answer may wait its whole
 * budget when no partner comes, so the agent-facing ones stay under the product's target of a p95
 * added wait ≤ 1 s (docs/benchmark-method.md) with room for processing. No agent waits for the
 * lifecycle poller, but its cycle (and every vouch it sends) does.
 */
export const DEFAULT_BATCH_BUDGETS_MS: Readonly<Record<BatchClass, number>> = {
  interactive: 5,
  immutable: 600,
  repeat: 600,
  watch: 800,
  lifecycle: 50,
  background: 800,
};

export interface BatchClassInput {
  /** The pipeline's priority class (`lifecycle`, `interactive`, `write`, `background`). */
  readonly priority?: string | undefined;
  /** argv summary of the gh invocation, e.g. "gh pr checks 12 --watch". */
  readonly command?: string | undefined;
  /** The same session sent the same query (and variables) recently. */
  readonly repeat?: boolean | undefined;
  /** The query reads only immutable facts (classification: no facet tags). */
  readonly immutable?: boolean | undefined;
}

const WATCH_COMMAND = /(^|\s)(--watch|-w)(\s|$)|\brun\s+watch\b/;

export function chooseBatchClass(input: BatchClassInput): BatchClass {
  if (input.priority === "lifecycle") return "lifecycle";
  if (input.command && WATCH_COMMAND.test(input.command)) return "watch";
  if (input.immutable) return "immutable";
  if (input.repeat) return "repeat";
  if (input.priority === "background") return "background";
  return "interactive";
}
