/**
 * The seam between the gh 2.23 command replays (gh-commands.ts) and whatever carries their
 * requests (an arm's transport plus the measurements): a command prepares requests from the
 * captured templates and hands them to `ReplayContext.send`; it never knows which arm it runs in.
 */
import type { Bindings } from "../core/capture-template.js";
import type { AnswerSubject } from "../core/facts.js";

export interface PreparedRequest {
  readonly method: string;
  /** Path and query, filled. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  /** GraphQL operation name, or a REST kind: "run", "jobs", or the route template. */
  readonly operation: string;
  /** What the answer is about (for staleness). */
  readonly subject: AnswerSubject;
  /** Present for GraphQL: the document and variables (for the refused-request cost estimate). */
  readonly graphql?:
    | { readonly query: string; readonly variables: Readonly<Record<string, unknown>> }
    | undefined;
}

export interface ReplayAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body when the body is JSON. */
  readonly json: unknown;
  /** A primary or secondary rate-limit refusal, in either API's shape. */
  readonly rateLimited: boolean;
  /** 2xx/304 and, for GraphQL, no `errors`. */
  readonly ok: boolean;
}

export interface ReplayContext {
  readonly bindings: Bindings;
  send(request: PreparedRequest): Promise<ReplayAnswer>;
  /** Waits simulated milliseconds; rejects when the session is stopped. */
  sleep(simMs: number): Promise<void>;
  /** gh's $TMPDIR cache: true once a `gh pr merge` has introspected PullRequest's fields. */
  readonly ghCache: { introspected: boolean };
}

export interface CommandOutcome<T = undefined> {
  /** gh's exit status would be 0. */
  readonly ok: boolean;
  /** The command failed on a rate-limit answer. */
  readonly rateLimited: boolean;
  readonly value?: T | undefined;
}
