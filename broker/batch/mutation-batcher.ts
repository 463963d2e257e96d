/**
 * The write batcher (decision 0023): GraphQL mutations from different sessions that arrive within
 * one window go upstream as ONE aliased mutation, the way the query scheduler merges queries.
 * GitHub runs a mutation's root fields one after another, in document order, and charges the
 * request its computed cost (1 point for gh's `addComment`, however many aliases), so N comments
 * cost one point instead of N and take one place in the serial write lane.
 *
 * Invariants (the write path's rules, docs/reliability.md):
 * - A member is sent at most once. Nothing here ever re-sends a member: a merged answer that
 *   cannot be split for a member, or a send that failed, is that member's outcome, never a retry.
 * - A window opens only when another session wrote within `busyWithinMs`: one session's writes
 *   (gh waits for each) never wait for partners that cannot come.
 * - A member alone (no partner in its window, or not mergeable: validation, a non-null root
 *   field, a root fragment) is handed back (`{ kind: "alone" }`) for the caller to send as
 *   written, exactly as without this batcher.
 * - Members are merged in arrival order, so GitHub runs them in the order the broker received them.
 * - Only members with equal `mergeKey` (Accept, GraphQL-Features, API version) share a request.
 * - The merged request is one write job upstream: one "started" marker, one send. If it may have
 *   left and no answer came, every member learns AO_ERR_WRITE_OUTCOME_UNKNOWN from the queue.
 */
import type { GraphQLSchema } from "graphql";
import type { PriorityClass } from "../pipeline/types.js";
import {
  type BatchClock,
  type BatchResponse,
  SYSTEM_BATCH_CLOCK,
  type UpstreamGraphQLRequest,
  type UpstreamReply,
} from "./batch-types.js";
import { mergeQueries } from "./core/merge-queries.js";
import { splitMergedResponse } from "./core/split-response.js";
import { judgeUpstreamReply } from "./core/upstream-reply.js";
import {
  type BatchMemberInput,
  DEFAULT_MEMBER_CAPS,
  DocumentAnalysisCache,
  type EligibleMember,
  prepareMember,
} from "./prepare-member.js";
import { answerHeaders, bodyText, parseJson } from "./send-alone.js";

export interface MutationBatcherOptions {
  /** Sends the merged mutation upstream (down the pipeline: budget, the write lane). */
  readonly send: (request: UpstreamGraphQLRequest) => Promise<UpstreamReply>;
  readonly schema: GraphQLSchema;
  /** How long the first mutation of a group waits for partners, ms (0: never merge). */
  readonly windowMs: number;
  /**
   * A mutation opens a window only when another session sent one within this long, ms: a
   * partner is then likely. A lone writer's mutation (one session's sequential writes) goes at
   * once, with no wait.
   */
  readonly busyWithinMs: number;
  /** Members per merged mutation. */
  readonly maxMembers: number;
  /** @defaultValue the global timers and Date.now */
  readonly clock?: BatchClock | undefined;
}

export interface MutationSubmitOptions {
  /** The caller's session: only other sessions' recent mutations make a partner likely. */
  readonly sessionId: string;
  /** Only members with equal keys share a request. */
  readonly mergeKey: string;
  readonly priority: PriorityClass;
  /** Forwarded with the request (the first member's, for a merged one). */
  readonly headers: Readonly<Record<string, string>>;
}

export type MutationOutcome =
  /** Send it yourself, as written: no partner came, or it cannot be merged. */
  | { readonly kind: "alone" }
  | {
      readonly kind: "merged";
      readonly response: BatchResponse;
      readonly batchSize: number;
      /** Time from submit until the merged request was handed to `send`, ms. */
      readonly waitedMs: number;
    }
  /**
   * The merged request was answered, but this member's part cannot be told apart (no data, an
   * error naming no member, a location outside its text): it may have run. Never re-sent.
   */
  | { readonly kind: "unsplit"; readonly reason: string; readonly batchSize: number };

export interface MutationBatcherStats {
  readonly submitted: number;
  readonly alone: number;
  readonly merged: number;
  readonly mergedRequests: number;
  readonly unsplit: number;
}

interface Pending {
  readonly member: EligibleMember;
  readonly options: MutationSubmitOptions;
  readonly submittedAt: number;
  readonly resolve: (outcome: MutationOutcome) => void;
  readonly reject: (error: unknown) => void;
}

interface Group {
  readonly key: string;
  readonly members: Pending[];
  timer: unknown;
}

export class MutationBatcher {
  readonly #o: MutationBatcherOptions;
  readonly #clock: BatchClock;
  readonly #open = new Map<string, Group>();
  readonly #analyses = new DocumentAnalysisCache();
  readonly #inFlight = new Set<Promise<void>>();
  /** The latest mutation of the two sessions that wrote last, newest first. */
  #recent: { sessionId: string; at: number }[] = [];
  #closed = false;
  #stats = { submitted: 0, alone: 0, merged: 0, mergedRequests: 0, unsplit: 0 };

  constructor(options: MutationBatcherOptions) {
    if (!(Number.isFinite(options.windowMs) && options.windowMs >= 0))
      throw new RangeError(`windowMs must be a number ≥ 0, got ${options.windowMs}`);
    if (!(Number.isFinite(options.busyWithinMs) && options.busyWithinMs >= 0))
      throw new RangeError(`busyWithinMs must be a number ≥ 0, got ${options.busyWithinMs}`);
    if (!(Number.isInteger(options.maxMembers) && options.maxMembers >= 1))
      throw new RangeError(`maxMembers must be an integer ≥ 1, got ${options.maxMembers}`);
    this.#o = options;
    this.#clock = options.clock ?? SYSTEM_BATCH_CLOCK;
  }

  stats(): MutationBatcherStats {
    return { ...this.#stats };
  }

  pendingCount(): number {
    let n = 0;
    for (const group of this.#open.values()) n += group.members.length;
    return n;
  }

  /** Waits up to the window for partners; answers how this member's mutation was (or is to be) sent. */
  submit(input: BatchMemberInput, options: MutationSubmitOptions): Promise<MutationOutcome> {
    this.#stats.submitted += 1;
    if (this.#closed || this.#o.windowMs === 0 || this.#o.maxMembers === 1) return this.#alone();
    const member = prepareMember(input, {
      schema: this.#o.schema,
      caps: DEFAULT_MEMBER_CAPS,
      cache: this.#analyses,
      mutations: true,
    });
    if (!member.eligible || member.plan.operation.operation !== "mutation") return this.#alone();
    const submittedAt = this.#clock.now();
    const busy = this.#noteWriter(options.sessionId, submittedAt);
    if (!busy && !this.#open.has(options.mergeKey)) return this.#alone();
    return new Promise<MutationOutcome>((resolve, reject) => {
      let group = this.#open.get(options.mergeKey);
      if (!group) {
        const created: Group = { key: options.mergeKey, members: [], timer: undefined };
        created.timer = this.#clock.setTimeout(() => this.#flush(created), this.#o.windowMs);
        this.#open.set(options.mergeKey, created);
        group = created;
      }
      group.members.push({ member, options, submittedAt, resolve, reject });
      if (group.members.length >= this.#o.maxMembers) this.#flush(group);
    });
  }

  /** Sends what waits and waits for every answer in flight; submit() after it sends alone. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const group of [...this.#open.values()]) this.#flush(group);
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Records this session's mutation; answers whether another session wrote within busyWithinMs. */
  #noteWriter(sessionId: string, now: number): boolean {
    const other = this.#recent.find((r) => r.sessionId !== sessionId);
    this.#recent = [{ sessionId, at: now }, ...this.#recent.filter((r) => r.sessionId !== sessionId)].slice(
      0,
      2,
    );
    return other !== undefined && now - other.at <= this.#o.busyWithinMs;
  }

  #alone(): Promise<MutationOutcome> {
    this.#stats.alone += 1;
    return Promise.resolve({ kind: "alone" });
  }

  #flush(group: Group): void {
    if (this.#open.get(group.key) !== group) return;
    this.#open.delete(group.key);
    this.#clock.clearTimeout(group.timer);
    const members = group.members;
    if (members.length === 1) {
      this.#stats.alone += 1;
      members[0]?.resolve({ kind: "alone" });
      return;
    }
    const running = this.#dispatch(members).catch((error: unknown) => {
      for (const p of members) p.reject(error);
    });
    this.#inFlight.add(running);
    void running.then(() => this.#inFlight.delete(running));
  }

  async #dispatch(members: readonly Pending[]): Promise<void> {
    let merged: ReturnType<typeof mergeQueries>;
    try {
      merged = mergeQueries(
        members.map((p) => ({
          id: p.member.id,
          source: p.member.source,
          plan: p.member.plan,
          variables: p.member.variables,
        })),
        { rateLimitAlias: false },
      );
    } catch {
      // Nothing was sent: each member goes its own way, as it would have without this batcher.
      this.#stats.alone += members.length;
      for (const p of members) p.resolve({ kind: "alone" });
      return;
    }
    const first = members[0] as Pending;
    const request: UpstreamGraphQLRequest = {
      query: merged.query,
      variables: merged.variables,
      operationName: merged.operationName,
      priority: first.options.priority,
      mergeKey: first.options.mergeKey,
      headers: first.options.headers,
      memberIds: members.map((p) => p.member.id),
      kind: "merged",
    };
    const sentAt = this.#clock.now();
    this.#stats.mergedRequests += 1;
    // A throw (outcome unknown, deadline, paced) reaches every member through #flush's catch.
    const reply = await this.#o.send(request);
    const text = bodyText(reply.body);
    const json = parseJson(text);
    const verdict = judgeUpstreamReply({ status: reply.status, headers: reply.headers, json });
    const whole = (p: Pending): MutationOutcome => ({
      kind: "merged",
      response: { status: reply.status, headers: answerHeaders(reply.headers), body: text },
      batchSize: members.length,
      waitedMs: sentAt - p.submittedAt,
    });
    if (verdict === "rate-limited" || reply.status !== 200) {
      // GitHub refused the request as a whole (an HTTP error, a rate limit): each member gets
      // that refusal as is, as it would alone (a 5xx on a write goes to its caller as GitHub sent
      // it, docs/upstream.md). Nothing is re-sent.
      this.#stats.merged += members.length;
      for (const p of members) p.resolve(whole(p));
      return;
    }
    const split =
      verdict === "ok"
        ? splitMergedResponse(merged, json)
        : {
            members: merged.members.map((m) => ({
              kind: "retry-alone" as const,
              id: m.id,
              reason: "no-data",
            })),
          };
    split.members.forEach((outcome, i) => {
      const p = members[i] as Pending;
      if (outcome.kind === "retry-alone") {
        this.#stats.unsplit += 1;
        p.resolve({ kind: "unsplit", reason: outcome.reason, batchSize: members.length });
        return;
      }
      this.#stats.merged += 1;
      p.resolve({
        kind: "merged",
        response: {
          status: reply.status,
          headers: answerHeaders(reply.headers),
          body: JSON.stringify(outcome.body),
        },
        batchSize: members.length,
        waitedMs: sentAt - p.submittedAt,
      });
    });
  }
}
