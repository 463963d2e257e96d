/**
 * AO's lifecycle loop, as the `direct` and `proxy` arms run it (docs/architecture.md,
 * "AO's lifecycle loop"): every 30 s, ONE AFTER ANOTHER — the repo's PR-list guard; the per-PR check-run
 * guards when the list did not move; aliased enrichment queries (≤ 25 PRs each) for PRs whose guard
 * moved or that are not cached; `gh pr list --head` for every session without a PR when the list
 * moved; and each PR's review check at most every 2 min. Each call pays gh's subprocess overhead
 * (simulated), and a cycle that runs long delays the next: the seed saw 66 s cycles at 50 sessions.
 */

import { classifyAnswer } from "./core/answer-kind.js";
import {
  checkRunsGuardPath,
  detectionDocument,
  detectionVariables,
  enrichmentQuery,
  prListGuardPath,
  reviewCommentsPath,
  reviewThreadsQuery,
} from "./core/ao-queries.js";
import type { Profile } from "./core/profile-schema.js";
import { type HttpTransport, parseJson } from "./http-transport.js";
import { GH_223_CAPTURES } from "./replay/gh-2.23-requests.generated.js";
import { isStepStopped, type StepClock } from "./step-clock.js";
import type { StepRecorder } from "./step-recorder.js";

interface AoSession {
  readonly id: string;
  readonly branch: string;
  pr: number | undefined;
  headSha: string | undefined;
  cached: boolean;
  lastReviewCheckSimMs: number;
}

export interface AoLoopOptions {
  readonly transport: HttpTransport;
  readonly baseUrl: string;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  readonly config: Profile["orchestrator"]["ao"];
  readonly clock: StepClock;
  readonly recorder: StepRecorder;
}

const GH_HEADERS = { "user-agent": "GitHub CLI 2.23.0", "content-type": "application/json; charset=utf-8" };

export class AoLoop {
  readonly #o: AoLoopOptions;
  readonly #sessions = new Map<string, AoSession>();
  readonly #etags = new Map<string, string>();
  readonly #abort = new AbortController();
  #running: Promise<void> | undefined;
  readonly #detectionDocument: string;

  constructor(options: AoLoopOptions) {
    this.#o = options;
    const captured = GH_223_CAPTURES.pr_list_json?.[0]?.query;
    if (!captured) throw new Error("AO loop: the pr_list_json capture is missing");
    this.#detectionDocument = detectionDocument(captured);
  }

  watch(id: string, branch: string, pr?: number): void {
    this.#sessions.set(id, {
      id,
      branch,
      pr,
      headSha: undefined,
      cached: false,
      lastReviewCheckSimMs: Number.NEGATIVE_INFINITY,
    });
  }

  prCreated(id: string, pr: number): void {
    const s = this.#sessions.get(id);
    if (s && s.pr !== pr) {
      s.pr = pr;
      s.cached = false;
    }
  }

  unwatch(id: string): void {
    this.#sessions.delete(id);
  }

  /** Starts the loop on the next turn of the event loop, so sessions registered together are in its first cycle. */
  start(): void {
    this.#running ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#loop())
      .catch((error: unknown) => {
        if (!isStepStopped(error)) throw error;
      });
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#running;
  }

  async #call(
    method: string,
    path: string,
    body?: string,
    etagKey?: string,
  ): Promise<{ status: number; json: unknown }> {
    await this.#o.clock.sleep(this.#o.config.callOverheadMs, this.#abort.signal);
    const headers: Record<string, string> = {
      ...GH_HEADERS,
      accept: "application/vnd.github.merge-info-preview+json, application/vnd.github.nebula-preview",
      authorization: `token ${this.#o.token}`,
    };
    const etag = etagKey ? this.#etags.get(etagKey) : undefined;
    if (etag) headers["if-none-match"] = etag;
    const answer = await this.#o.transport.send({ url: `${this.#o.baseUrl}${path}`, method, headers, body });
    if (etagKey && answer.status === 200 && answer.headers.etag)
      this.#etags.set(etagKey, answer.headers.etag);
    const json = answer.status === 304 ? undefined : parseJson(answer.body, answer.headers);
    const kind = classifyAnswer(answer.status, json, path === "/graphql");
    if (kind.rateLimit === "primary") {
      const payload =
        body === undefined
          ? undefined
          : (JSON.parse(body) as { query: string; variables: Record<string, unknown> });
      this.#o.recorder.recordOrchestratorRefusal(payload);
    }
    return { status: answer.status, json };
  }

  #graphql(query: string, variables: Record<string, unknown> = {}) {
    return this.#call("POST", "/graphql", JSON.stringify({ query, variables }));
  }

  async #loop(): Promise<void> {
    for (;;) {
      const start = this.#o.clock.simElapsedMs();
      try {
        await this.#cycle();
      } catch (error) {
        if (isStepStopped(error)) throw error;
        // AO logs and carries on; a failed cycle is retried by the next one.
      }
      const elapsed = this.#o.clock.simElapsedMs() - start;
      // The period from this cycle's start to the next one's, known as soon as the cycle ends
      // (a cycle longer than a short window is still counted).
      this.#o.recorder.recordPollCycle(Math.max(this.#o.config.cycleS * 1000, elapsed) / 1000);
      await this.#o.clock.sleep(Math.max(0, this.#o.config.cycleS * 1000 - elapsed), this.#abort.signal);
    }
  }

  async #cycle(): Promise<void> {
    const { owner, repo } = this.#o;
    const sessions = [...this.#sessions.values()];
    const listGuard = await this.#call("GET", prListGuardPath(owner, repo), undefined, "pr-list");
    const listMoved = listGuard.status !== 304;
    const stale = new Set<AoSession>();
    for (const s of sessions) if (s.pr !== undefined && (!s.cached || listMoved)) stale.add(s);
    if (!listMoved) {
      for (const s of sessions) {
        if (s.pr === undefined || s.headSha === undefined || stale.has(s)) continue;
        const guard = await this.#call(
          "GET",
          checkRunsGuardPath(owner, repo, s.headSha),
          undefined,
          `checks:${s.pr}`,
        );
        if (guard.status !== 304) stale.add(s);
      }
    }
    const toEnrich = [...stale].filter((s) => s.pr !== undefined);
    for (let i = 0; i < toEnrich.length; i += this.#o.config.batchSize) {
      const batch = toEnrich.slice(i, i + this.#o.config.batchSize);
      const { query, aliases } = enrichmentQuery(
        owner,
        repo,
        batch.map((s) => ({ number: s.pr as number })),
      );
      const answer = await this.#graphql(query);
      const data = (
        answer.json as { data?: Record<string, { pullRequest?: { headRefOid?: string } } | null> } | undefined
      )?.data;
      batch.forEach((s, j) => {
        const pr = data?.[aliases[j] as string]?.pullRequest;
        if (pr?.headRefOid) {
          s.headSha = pr.headRefOid;
          s.cached = true;
        }
      });
    }
    if (listMoved) {
      for (const s of sessions) {
        if (s.pr !== undefined || !this.#sessions.has(s.id)) continue;
        const answer = await this.#graphql(
          this.#detectionDocument,
          detectionVariables(owner, repo, s.branch),
        );
        const number = (
          answer.json as { data?: { repository?: { pullRequests?: { nodes?: { number?: number }[] } } } }
        )?.data?.repository?.pullRequests?.nodes?.[0]?.number;
        if (typeof number === "number") this.prCreated(s.id, number);
      }
    }
    const now = this.#o.clock.simElapsedMs();
    for (const s of sessions) {
      if (s.pr === undefined || now - s.lastReviewCheckSimMs < this.#o.config.reviewCheckS * 1000) continue;
      s.lastReviewCheckSimMs = now;
      const guard = await this.#call(
        "GET",
        reviewCommentsPath(owner, repo, s.pr),
        undefined,
        `comments:${s.pr}`,
      );
      if (this.#o.config.reviewQueryOnEveryCheck || guard.status === 200)
        await this.#graphql(reviewThreadsQuery(owner, repo, s.pr));
    }
  }
}
