/**
 * What a REST route handler gets and gives. Handlers are pure reads of the world (or one
 * action for writes) returning a RestResult; the REST handler (rest-handler.ts) adds what every
 * GitHub answer has: ETag/Last-Modified with conditional 304s, Link pagination, the charge.
 */
import type { SimRepo } from "../core/model.js";
import type { SimRequest } from "../http/types.js";
import type { SimState } from "../sim-state.js";
import type { ShapeContext } from "./shapes/context.js";

export interface RestContext {
  readonly state: SimState;
  readonly request: SimRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly shape: ShapeContext;
  /** The repository named by {owner}/{repo}; a 404 when there is none. */
  repo(): SimRepo;
}

export interface PageMeta {
  readonly page: number;
  readonly perPage: number;
  readonly total: number;
}

export type RestResult =
  | {
      readonly type: "json";
      readonly body: unknown;
      readonly status?: number;
      /** Epoch ms of the newest change the representation reflects. */
      readonly lastModified?: number | undefined;
      readonly page?: PageMeta | undefined;
    }
  | {
      readonly type: "text";
      readonly body: string | Buffer;
      readonly contentType: string;
      readonly lastModified?: number | undefined;
    }
  | { readonly type: "redirect"; readonly location: string }
  | { readonly type: "empty"; readonly status: number };

export type RestRouteHandler = (ctx: RestContext) => RestResult;

export interface RestRoute {
  readonly method: string;
  /** `/repos/{owner}/{repo}/git/refs/{ref+}`: `{x}` is one segment, `{x+}` the rest of the path. */
  readonly pattern: string;
  readonly handler: RestRouteHandler;
  /** Counts toward the secondary content-creation limit. */
  readonly createsContent?: boolean;
  /** Costs nothing (GET /rate_limit). */
  readonly free?: boolean;
  /** Primary bucket. @defaultValue "core" */
  readonly resource?: "core" | "search";
}
