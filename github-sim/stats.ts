/**
 * The simulator's own accounting, served as `GET /_sim/stats` and `RunningSimulator.stats()`:
 * per-resource primary windows, request counts by kind and outcome, and counts per operation
 * (GraphQL operation name or "anonymous"; REST route template such as
 * `GET /repos/{owner}/{repo}/pulls/{pull_number}`). This is the ground truth benchmarks read.
 */
import type { PrimaryResource, PrimarySnapshot } from "./core/primary-limits.js";
import type { Classification, SimResponse } from "./http/types.js";

export interface ResourceStats {
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** Epoch seconds. */
  readonly reset: number;
}

export interface SimStats {
  readonly resources: Readonly<Record<PrimaryResource, ResourceStats>>;
  readonly requests: {
    readonly total: number;
    readonly graphql: number;
    readonly rest: number;
    /** 304 answers to conditional requests (free). */
    readonly notModified: number;
    readonly secondaryLimited: number;
    /** Primary budget spent: REST 403 or GraphQL RATE_LIMITED. */
    readonly rateLimited: number;
    readonly unauthorized: number;
    readonly byOperation: Readonly<Record<string, number>>;
    /** Of byOperation, the 304 answers (free) per operation: the rest of each count were fetched. */
    readonly notModifiedByOperation: Readonly<Record<string, number>>;
  };
  /** Of graphqlPoints, the points each GraphQL operation (by name, or "anonymous") was charged. */
  readonly graphqlPointsByOperation: Readonly<Record<string, number>>;
  /** GraphQL points charged since start/reset, across windows. */
  readonly graphqlPoints: number;
  /** REST core requests charged since start/reset, across windows. */
  readonly restCharged: number;
  readonly world: {
    readonly version: number;
    /** Scheduled changes not yet applied. */
    readonly pendingEvents: number;
    /** Epoch ms of the next scheduled change, or null when the world stands still. */
    readonly nextEventAt: number | null;
  };
  /** Scenario clock, epoch ms. */
  readonly now: number;
}

export class StatsCollector {
  private total = 0;
  private graphql = 0;
  private rest = 0;
  private notModified = 0;
  private secondaryLimited = 0;
  private rateLimited = 0;
  private unauthorized = 0;
  private graphqlPoints = 0;
  private restCharged = 0;
  private byOperation = new Map<string, number>();
  private notModifiedByOperation = new Map<string, number>();
  private pointsByOperation = new Map<string, number>();

  record(classification: Classification | undefined, response: SimResponse): void {
    this.total++;
    if (classification?.kind === "graphql") this.graphql++;
    else if (classification?.kind === "rest") this.rest++;
    if (classification) {
      this.byOperation.set(
        classification.operation,
        (this.byOperation.get(classification.operation) ?? 0) + 1,
      );
    }
    switch (response.outcome) {
      case "not_modified":
        this.notModified++;
        if (classification) {
          this.notModifiedByOperation.set(
            classification.operation,
            (this.notModifiedByOperation.get(classification.operation) ?? 0) + 1,
          );
        }
        break;
      case "secondary_limited":
        this.secondaryLimited++;
        break;
      case "rate_limited":
        this.rateLimited++;
        break;
      case "unauthorized":
        this.unauthorized++;
        break;
      default:
        break;
    }
    this.graphqlPoints += response.graphqlPoints ?? 0;
    if (classification && response.graphqlPoints) {
      this.pointsByOperation.set(
        classification.operation,
        (this.pointsByOperation.get(classification.operation) ?? 0) + response.graphqlPoints,
      );
    }
  }

  /** Counts one charged REST request. */
  chargedRest(): void {
    this.restCharged++;
  }

  snapshot(
    resources: Readonly<Record<PrimaryResource, PrimarySnapshot>>,
    world: SimStats["world"],
    now: number,
  ): SimStats {
    const strip = (s: PrimarySnapshot): ResourceStats => ({
      limit: s.limit,
      used: s.used,
      remaining: s.remaining,
      reset: s.reset,
    });
    return {
      resources: {
        core: strip(resources.core),
        graphql: strip(resources.graphql),
        search: strip(resources.search),
      },
      requests: {
        total: this.total,
        graphql: this.graphql,
        rest: this.rest,
        notModified: this.notModified,
        secondaryLimited: this.secondaryLimited,
        rateLimited: this.rateLimited,
        unauthorized: this.unauthorized,
        byOperation: Object.fromEntries([...this.byOperation].sort(([a], [b]) => a.localeCompare(b))),
        notModifiedByOperation: Object.fromEntries(
          [...this.notModifiedByOperation].sort(([a], [b]) => a.localeCompare(b)),
        ),
      },
      graphqlPoints: this.graphqlPoints,
      graphqlPointsByOperation: Object.fromEntries(
        [...this.pointsByOperation].sort(([a], [b]) => a.localeCompare(b)),
      ),
      restCharged: this.restCharged,
      world,
      now,
    };
  }

  reset(): void {
    this.total = 0;
    this.graphql = 0;
    this.rest = 0;
    this.notModified = 0;
    this.secondaryLimited = 0;
    this.rateLimited = 0;
    this.unauthorized = 0;
    this.graphqlPoints = 0;
    this.restCharged = 0;
    this.byOperation = new Map();
    this.notModifiedByOperation = new Map();
    this.pointsByOperation = new Map();
  }
}
