/**
 * Counting stand-ins for the pipeline's ports, for tests that isolate the gateway's own layers.
 * The upstream fake answers from a table of routes and counts calls per path, so tests assert exact
 * hit counts ("50 concurrent identical requests → 1 upstream call"), like prow's fakeRequestExecutor.
 */
import { createHash } from "node:crypto";
import type {
  Admission,
  AdmissionDecision,
  AdmissionRequest,
  BudgetPort,
  SettleDetails,
  UpstreamAnswer,
  UpstreamPort,
  UpstreamRequest,
} from "../../broker/pipeline/ports.js";
import type { RateLimitResource, RateLimitSnapshot } from "../../github/index.js";

export interface FakeRoute {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export class CountingUpstream implements UpstreamPort {
  readonly calls: UpstreamRequest[] = [];
  readonly routes = new Map<string, FakeRoute>();
  delayMs = 0;
  failWith: Error | undefined;

  count(path?: string): number {
    return path ? this.calls.filter((c) => c.path === path).length : this.calls.length;
  }

  set(key: string, route: FakeRoute): void {
    this.routes.set(key, route);
  }

  async send(request: UpstreamRequest): Promise<UpstreamAnswer> {
    this.calls.push(request);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failWith) throw this.failWith;
    const route = this.routes.get(`${request.method} ${request.path}`) ?? this.routes.get(request.path);
    if (!route)
      return {
        status: 404,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"message":"Not Found"}'),
      };
    const body = Buffer.from(typeof route.body === "string" ? route.body : JSON.stringify(route.body));
    const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
    if (request.headers["if-none-match"] === etag)
      return { status: 304, headers: { etag }, body: Buffer.alloc(0) };
    return {
      status: route.status ?? 200,
      headers: { "content-type": "application/json; charset=utf-8", etag, ...(route.headers ?? {}) },
      body,
    };
  }
}

export class RecordingBudget implements BudgetPort {
  readonly admissions: AdmissionRequest[] = [];
  readonly settled: number[] = [];
  readonly attributed = new Map<string, number>();
  readonly observed: RateLimitSnapshot[] = [];
  /** When set, admission fails as if the budget were spent. */
  spent: (() => Error) | undefined;
  /** When set (epoch ms), tryAdmit refuses until then: the budget would wait. */
  wouldWaitUntil: number | undefined;

  async admit(request: AdmissionRequest): Promise<Admission> {
    this.admissions.push(request);
    if (this.spent) throw this.spent();
    return this.#admission(request);
  }

  async tryAdmit(request: AdmissionRequest): Promise<AdmissionDecision> {
    this.admissions.push(request);
    if (this.spent) throw this.spent();
    if (this.wouldWaitUntil !== undefined && this.wouldWaitUntil > Date.now())
      return { admitted: false, retryAt: this.wouldWaitUntil };
    return { admitted: true, admission: this.#admission(request) };
  }

  #admission(request: AdmissionRequest): Admission {
    return {
      waitedMs: 0,
      settle: async (cost, details?: SettleDetails) => {
        this.settled.push(cost);
        if (details?.rateLimit) this.observed.push(details.rateLimit);
        for (const charge of details?.charges ?? [{ sessionId: request.sessionId, cost }])
          this.charge(charge.sessionId, charge.cost);
      },
      release: async () => undefined,
    };
  }

  observe(snapshot: RateLimitSnapshot): void {
    this.observed.push(snapshot);
  }

  charge(sessionId: string, amount: number): void {
    this.attributed.set(sessionId, (this.attributed.get(sessionId) ?? 0) + amount);
  }

  sessionView(sessionId: string, resource: RateLimitResource): RateLimitSnapshot {
    const used = this.attributed.get(sessionId) ?? 0;
    return { resource, limit: 1000, remaining: 1000 - used, used, reset: 2_000_000_000 };
  }
}
