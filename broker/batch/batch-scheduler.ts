/**
 * The deadline-aware batcher: callers' GraphQL queries wait, each within its latency budget, for
 * compatible partners; a group leaves as ONE merged query when its earliest member's deadline
 * arrives or when it is full (members, computed points, nodes). Merged queries go out through the
 * injected `send` (the broker's upstream queue); answers are split back per member.
 *
 * Guarantees:
 * - Each member receives exactly its answer alone (core/split-response.ts), or, when that cannot
 *   be derived from the merged answer, its answer from being sent alone (reported as
 *   `retriedAlone`). GitHub refusing a merged query retries every member alone; a rate-limited
 *   reply is handed to every member as is (alone they would get the same).
 * - Members GitHub would refuse (validation, cost rules, variables) never join a group:
 *   prepare-member.ts sends them alone at once, so they cannot fail the others.
 * - Groups are keyed by `mergeKey` (upstream, Accept, GraphQL-Features...): only members with the
 *   same key share a query.
 * - Every forwarded query carries an injected `rateLimit` (unless disabled) and its real cost is
 *   split among the members by computed requests (core/cost-sharing.ts).
 * - close() flushes what waits (or rejects it with AO_ERR_BATCH_CLOSED) and waits for answers in
 *   flight; it never leaves a promise pending.
 */
import type { GraphQLSchema } from "graphql";
import { AoError } from "../../common/index.js";
import {
  MAX_NODE_LIMIT,
  parseRateLimitHeaders,
  pointsForRequests,
  type RateLimitSnapshot,
} from "../../github/index.js";
import { spendPressure } from "../budget/core/projection.js";
import { PRIORITY_CLASSES, type PriorityClass } from "../pipeline/types.js";
import { ArrivalTracker } from "./arrival-tracker.js";
import {
  type BatchClock,
  type BatchOutcome,
  type BatchSchedulerOptions,
  type BatchSchedulerStats,
  type SubmitOptions,
  SYSTEM_BATCH_CLOCK,
  type UpstreamGraphQLRequest,
} from "./batch-types.js";
import { type BatchClass, DEFAULT_BATCH_BUDGETS_MS } from "./core/batch-class.js";
import { shareCost } from "./core/cost-sharing.js";
import { mergeQueries, RATE_LIMIT_ALIAS } from "./core/merge-queries.js";
import { partnerHoldMs } from "./core/partner-hold.js";
import { type RetryReason, splitMergedResponse } from "./core/split-response.js";
import { tightBudgetWindowMs } from "./core/tight-budget.js";
import { judgeUpstreamReply } from "./core/upstream-reply.js";
import { BatchErrors } from "./errors.js";
import {
  type BatchMemberInput,
  DEFAULT_MEMBER_CAPS,
  DocumentAnalysisCache,
  type EligibleMember,
  prepareMember,
} from "./prepare-member.js";
import {
  type AloneContext,
  type AloneJob,
  answerHeaders,
  bodyText,
  parseJson,
  sendAlone,
  type UpstreamAccount,
} from "./send-alone.js";

interface Pending {
  readonly member: EligibleMember;
  readonly options: SubmitOptions;
  readonly submittedAt: number;
  readonly deadline: number;
  readonly resolve: (outcome: BatchOutcome) => void;
  readonly reject: (error: unknown) => void;
}

interface Group {
  readonly key: string;
  readonly members: Pending[];
  requests: number;
  nodes: number;
  deadline: number;
  timer: unknown;
}

/** Checks one numeric option; `fallback` applies when it is absent. */
function checked(option: {
  name: string;
  value: number | undefined;
  fallback: number;
  allowZero?: boolean;
}): number {
  const { name, fallback, allowZero = false } = option;
  const v = option.value ?? fallback;
  if (!Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
    throw new AoError(
      BatchErrors.AO_ERR_BATCH_INVALID_OPTIONS,
      `${name} must be a positive number, got ${v}`,
    );
  }
  return v;
}

function highestPriority(members: readonly Pending[]): PriorityClass {
  let best = PRIORITY_CLASSES.length - 1;
  for (const m of members)
    best = Math.min(best, PRIORITY_CLASSES.indexOf(m.options.priority ?? "interactive"));
  return PRIORITY_CLASSES[best] ?? "interactive";
}

export class BatchScheduler {
  readonly #send: BatchSchedulerOptions["send"];
  readonly #schema: GraphQLSchema;
  readonly #budgets: Readonly<Record<BatchClass, number>>;
  readonly #maxMembers: number;
  readonly #maxCost: number;
  readonly #maxNodes: number;
  readonly #inject: boolean;
  readonly #observe: BatchSchedulerOptions["observe"];
  readonly #clock: BatchClock;
  readonly #open = new Map<string, Group>();
  readonly #analyses: DocumentAnalysisCache;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #aloneContext: AloneContext;
  readonly #tight: BatchSchedulerOptions["tightBudget"];
  readonly #hold: BatchSchedulerOptions["partnerHold"];
  readonly #arrivals: ArrivalTracker | undefined;
  /** The GraphQL budget as the last upstream answer's x-ratelimit-* headers gave it. */
  #rate: RateLimitSnapshot | undefined;
  #closed = false;
  #stats = {
    submitted: 0,
    batchedMembers: 0,
    aloneMembers: 0,
    retriedAlone: 0,
    mergedQueries: 0,
    upstreamQueries: 0,
    pointsSpent: 0,
    pointsAlone: 0,
  };

  constructor(options: BatchSchedulerOptions) {
    const send = options.send;
    this.#tight = options.tightBudget;
    this.#hold = options.partnerHold;
    this.#arrivals = options.partnerHold
      ? new ArrivalTracker({
          windowMs: options.partnerHold.rateWindowMs,
          maxEntries: options.partnerHold.maxEntries,
        })
      : undefined;
    this.#send = async (request) => {
      const reply = await send(request);
      if (this.#tight) {
        const rate = parseRateLimitHeaders(reply.headers);
        if (rate && rate.resource === "graphql") this.#rate = rate;
      }
      return reply;
    };
    this.#schema = options.schema;
    this.#analyses = new DocumentAnalysisCache(options.analysisCacheEntries);
    const budgets = { ...DEFAULT_BATCH_BUDGETS_MS, ...options.budgetsMs };
    for (const [name, value] of Object.entries(budgets)) {
      checked({ name: `budgetsMs.${name}`, value, fallback: 0, allowZero: true });
    }
    this.#budgets = budgets;
    this.#maxMembers = Math.floor(checked({ name: "maxMembers", value: options.maxMembers, fallback: 50 }));
    this.#maxCost = checked({
      name: "maxCost",
      value: options.maxCost,
      fallback: DEFAULT_MEMBER_CAPS.maxCost,
    });
    this.#maxNodes = checked({ name: "maxNodes", value: options.maxNodes, fallback: MAX_NODE_LIMIT });
    this.#inject = options.injectRateLimit ?? true;
    this.#observe = options.observe;
    this.#clock = options.clock ?? SYSTEM_BATCH_CLOCK;
    this.#aloneContext = {
      send: this.#send,
      injectRateLimit: this.#inject,
      now: () => this.#clock.now(),
      account: (entry) => this.#account(entry),
    };
  }

  stats(): BatchSchedulerStats {
    return { ...this.#stats };
  }

  /** Members waiting for their group to leave. */
  pendingCount(): number {
    let n = 0;
    for (const group of this.#open.values()) n += group.members.length;
    return n;
  }

  async submit(input: BatchMemberInput, options: SubmitOptions = {}): Promise<BatchOutcome> {
    if (this.#closed)
      throw new AoError(BatchErrors.AO_ERR_BATCH_CLOSED, "the batcher is closed", { httpStatus: 503 });
    const submittedAt = this.#clock.now();
    const member = prepareMember(input, {
      schema: this.#schema,
      caps: { maxCost: this.#maxCost, maxNodes: this.#maxNodes },
      cache: this.#analyses,
    });
    this.#stats.submitted += 1;
    this.#stats.pointsAlone += member.cost ?? 0;
    if (!member.eligible) return this.#track(this.#alone({ member, options, submittedAt, kind: "alone" }));

    const batchClass = options.batchClass ?? "interactive";
    const budget = options.maxDelayMs ?? this.#windowFor(batchClass, options.sessionId);
    // Agents' queries are the arrivals a partner hold counts on; the lifecycle's and the
    // refreshes' (their own maxDelayMs) come in bursts of their own at each poll cycle.
    if (options.sessionId !== undefined && options.maxDelayMs === undefined && batchClass !== "lifecycle")
      this.#arrivals?.observe(options.sessionId, submittedAt);
    const deadline = submittedAt + Math.max(0, Number.isFinite(budget) ? budget : 0);
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.#enqueue({ member, options, submittedAt, deadline, resolve, reject });
    });
  }

  /**
   * A class's window: its budget (for a first-time read, the partner hold when other sessions'
   * arrivals make a partner likely), grown by the spend pressure when the budget is tight.
   */
  #windowFor(batchClass: BatchClass, sessionId: string | undefined): number {
    const hold = this.#hold;
    const held = batchClass === "interactive" || (batchClass === "lifecycle" && hold?.lifecycle === true);
    const normal =
      hold && this.#arrivals && held
        ? partnerHoldMs(
            this.#budgets[batchClass],
            this.#arrivals.othersThan(sessionId, this.#clock.now()),
            hold,
          )
        : this.#budgets[batchClass];
    const tight = this.#tight;
    const rate = this.#rate;
    if (!tight || !rate || batchClass === "lifecycle") return normal;
    const pressure = spendPressure({
      used: rate.used,
      remaining: rate.remaining,
      resetAt: rate.reset * 1000,
      windowMs: tight.budgetWindowMs,
      now: this.#clock.now(),
      minPaceMs: tight.minPaceMs,
    });
    return tightBudgetWindowMs(normal, pressure, tight);
  }

  /** Sends what waits (or, with flush: false, rejects it) and waits for every answer in flight. */
  async close(options: { flush?: boolean } = {}): Promise<void> {
    this.#closed = true;
    for (const group of [...this.#open.values()]) {
      if (options.flush === false) {
        this.#open.delete(group.key);
        this.#clock.clearTimeout(group.timer);
        for (const p of group.members) {
          p.reject(
            new AoError(BatchErrors.AO_ERR_BATCH_CLOSED, "the batcher closed before this query was sent"),
          );
        }
      } else this.#flush(group);
    }
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #enqueue(pending: Pending): void {
    const key = pending.options.mergeKey ?? "";
    let group = this.#open.get(key);
    if (group && !this.#fits(group, pending.member)) {
      this.#flush(group);
      group = undefined;
    }
    if (!group) {
      group = {
        key,
        members: [],
        requests: 0,
        nodes: 0,
        deadline: Number.POSITIVE_INFINITY,
        timer: undefined,
      };
      this.#open.set(key, group);
    }
    group.members.push(pending);
    group.requests += pending.member.requests;
    group.nodes += pending.member.nodeCount;
    if (group.members.length >= this.#maxMembers || pending.deadline <= this.#clock.now()) {
      this.#flush(group);
      return;
    }
    if (pending.deadline < group.deadline) {
      group.deadline = pending.deadline;
      this.#clock.clearTimeout(group.timer);
      const target = group;
      group.timer = this.#clock.setTimeout(
        () => {
          if (this.#open.get(target.key) === target) this.#flush(target);
        },
        Math.max(0, pending.deadline - this.#clock.now()),
      );
    }
  }

  #fits(group: Group, member: EligibleMember): boolean {
    return (
      group.members.length + 1 <= this.#maxMembers &&
      pointsForRequests(group.requests + member.requests) <= this.#maxCost &&
      group.nodes + member.nodeCount <= this.#maxNodes
    );
  }

  #flush(group: Group): void {
    if (this.#open.get(group.key) === group) this.#open.delete(group.key);
    this.#clock.clearTimeout(group.timer);
    const members = group.members;
    void this.#track(
      this.#dispatch(group.key, members).catch((error: unknown) => {
        for (const p of members) p.reject(error);
      }),
    );
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return promise;
  }

  async #dispatch(mergeKey: string, members: readonly Pending[]): Promise<void> {
    if (members.length === 1) {
      const [only] = members as [Pending];
      only.resolve(
        await this.#alone({
          member: only.member,
          options: only.options,
          submittedAt: only.submittedAt,
          kind: "alone",
          reason: "no-partner",
        }),
      );
      return;
    }
    let merged: ReturnType<typeof mergeQueries>;
    try {
      merged = mergeQueries(
        members.map((p) => ({
          id: p.member.id,
          source: p.member.source,
          plan: p.member.plan,
          variables: p.member.variables,
        })),
        { rateLimitAlias: this.#inject ? RATE_LIMIT_ALIAS : false },
      );
    } catch {
      // A merge that cannot be built is a bug of ours, never the callers' problem: send them alone.
      await this.#retryAlone(members, "merged-rejected", []);
      return;
    }
    const request: UpstreamGraphQLRequest = {
      query: merged.query,
      variables: merged.variables,
      operationName: merged.operationName,
      priority: highestPriority(members),
      mergeKey,
      headers: members[0]?.options.headers ?? {},
      memberIds: members.map((p) => p.member.id),
      kind: "merged",
    };
    const sentAt = this.#clock.now();
    const reply = await this.#send(request);
    const text = bodyText(reply.body);
    const json = parseJson(text);
    const verdict = judgeUpstreamReply({ status: reply.status, headers: reply.headers, json });
    const requests = members.map((p) => p.member.requests);
    const computed = pointsForRequests(requests.reduce((a, b) => a + b, 0));
    const split = verdict === "ok" ? splitMergedResponse(merged, json) : undefined;
    const realCost = split?.rateLimit?.cost;
    const mergedCost = realCost ?? (verdict === "ok" ? computed : 0);
    this.#account({
      request,
      status: reply.status,
      rateLimit: split?.rateLimit,
      computedCost: computed,
      spent: mergedCost,
    });
    const shares = shareCost(mergedCost, requests).points;
    const costSource = realCost !== undefined ? "rateLimit" : verdict === "ok" ? "computed" : "none";

    if (verdict === "rate-limited") {
      members.forEach((p, i) => {
        p.resolve({
          response: { status: reply.status, headers: answerHeaders(reply.headers), body: text },
          costShare: shares[i] ?? 0,
          costSource,
          batched: true,
          batchSize: members.length,
          waitedMs: sentAt - p.submittedAt,
          retriedAlone: false,
        });
      });
      this.#stats.batchedMembers += members.length;
      return;
    }
    if (!split) {
      await this.#retryAlone(members, "merged-rejected", shares);
      return;
    }
    const retry: { pending: Pending; share: number; reason: RetryReason }[] = [];
    split.members.forEach((outcome, i) => {
      const p = members[i] as Pending;
      if (outcome.kind === "retry-alone") {
        retry.push({ pending: p, share: shares[i] ?? 0, reason: outcome.reason });
        return;
      }
      this.#stats.batchedMembers += 1;
      p.resolve({
        response: {
          status: reply.status,
          headers: answerHeaders(reply.headers),
          body: JSON.stringify(outcome.body),
        },
        costShare: shares[i] ?? 0,
        costSource,
        batched: true,
        batchSize: members.length,
        waitedMs: sentAt - p.submittedAt,
        retriedAlone: false,
      });
    });
    await Promise.all(
      retry.map(async ({ pending, share, reason }) => {
        await this.#retryAlone([pending], reason, [share]);
      }),
    );
  }

  async #retryAlone(
    members: readonly Pending[],
    reason: RetryReason | "merged-rejected",
    shares: readonly number[],
  ): Promise<void> {
    this.#stats.retriedAlone += members.length;
    await Promise.all(
      members.map(async (p, i) => {
        try {
          const outcome = await this.#alone({
            member: p.member,
            options: p.options,
            submittedAt: p.submittedAt,
            kind: "retry",
          });
          p.resolve({
            ...outcome,
            costShare: outcome.costShare + (shares[i] ?? 0),
            retriedAlone: true,
            retryReason: reason,
          });
        } catch (error) {
          p.reject(error);
        }
      }),
    );
  }

  #account(entry: UpstreamAccount): void {
    this.#stats.upstreamQueries += 1;
    if (entry.request.kind === "merged") this.#stats.mergedQueries += 1;
    this.#stats.pointsSpent += entry.spent;
    this.#observe?.({
      request: entry.request,
      status: entry.status,
      rateLimit: entry.rateLimit,
      computedCost: entry.computedCost,
    });
  }

  #alone(job: AloneJob): Promise<BatchOutcome> {
    this.#stats.aloneMembers += 1;
    return sendAlone(this.#aloneContext, job);
  }
}
