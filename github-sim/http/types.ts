/**
 * The simulator's request pipeline seam, the same shape as the gateway's (broker/pipeline):
 * a SimHandler answers a SimRequest, a SimLayer wraps a handler with one job (faults,
 * concurrency, latency, rate-limit headers, stats, auth, classification, secondary limits).
 * Layers are assembled in one place (pipeline.ts), outermost first.
 */
import type { PrimaryResource, PrimarySnapshot } from "../core/primary-limits.js";
import type { PreparedDocument } from "../graphql/document-cache.js";

export interface GraphQLRequestInfo {
  /** The JSON body could not be read as `{query, variables?, operationName?}`. */
  readonly bodyError?: string;
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string | undefined;
  readonly prepared: PreparedDocument | undefined;
  /** The operation that will run, when it can be determined. */
  readonly kind: "query" | "mutation" | "subscription" | undefined;
  /** Operation name or "anonymous". */
  readonly label: string;
  readonly createsContent: boolean;
}

export interface RestRouteInfo {
  /** e.g. `GET /repos/{owner}/{repo}/pulls/{pull_number}`, or undefined for an unknown route. */
  readonly template: string | undefined;
  readonly params: Readonly<Record<string, string>>;
  readonly createsContent: boolean;
}

export interface Classification {
  readonly kind: "graphql" | "rest";
  /** Key for stats.byOperation and the per-endpoint secondary limit. */
  readonly operation: string;
  readonly secondaryPoints: number;
  readonly graphql?: GraphQLRequestInfo;
  readonly rest?: RestRouteInfo;
}

export interface SimRequest {
  /** Unique per request; sent back as x-github-request-id. */
  readonly id: string;
  /** Upper-case. */
  readonly method: string;
  /** Path without the query string, e.g. `/repos/acme/widgets/pulls`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Base for API links in answers: `http://api.github.localhost` in proxy form, else the Host. */
  readonly apiBase: string;
  /** Scenario-clock instant the request arrived. */
  readonly receivedAt: number;
  readonly classification?: Classification;
}

export type ResponseOutcome =
  | "ok"
  | "not_modified"
  | "rate_limited"
  | "secondary_limited"
  | "unauthorized"
  | "client_error"
  | "server_error";

export interface SimResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer | string | undefined;
  /** Bucket for the x-ratelimit-* headers. @defaultValue "core" */
  readonly resource?: PrimaryResource | undefined;
  /** The bucket's state right after this request was charged (or refused). */
  readonly rateLimit?: PrimarySnapshot | undefined;
  /** GraphQL points charged by this request. */
  readonly graphqlPoints?: number | undefined;
  readonly outcome?: ResponseOutcome | undefined;
  /** How the request was classified (set on the way out by the classify layer). */
  readonly classification?: Classification | undefined;
  /** Fault seam: drop the connection instead of answering. */
  readonly destroy?: boolean | undefined;
}

export type SimHandler = (request: SimRequest) => Promise<SimResponse>;
export type SimLayer = (next: SimHandler) => SimHandler;

export function composeSimLayers(layers: readonly SimLayer[], terminal: SimHandler): SimHandler {
  return layers.reduceRight<SimHandler>((next, layer) => layer(next), terminal);
}
