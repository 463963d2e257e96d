/**
 * Assembles the request pipeline, outermost first:
 *   faults → stats → rate-limit headers → concurrency → latency → tick → auth → classify →
 *   secondary limits → route (GraphQL | REST)
 * and routes /_sim/* (the simulator's own API and log blobs) around all of it. A bug in a
 * handler becomes a 500 in GitHub's shape, never a crash.
 */
import { handleGraphQL } from "../graphql/graphql-handler.js";
import { handleRest } from "../rest/rest-handler.js";
import type { SimState } from "../sim-state.js";
import { handleAdmin } from "./admin-routes.js";
import { authLayer } from "./layers/auth.js";
import { classifyLayer } from "./layers/classify.js";
import { concurrencyLayer } from "./layers/concurrency.js";
import { type FaultInjector, faultLayer } from "./layers/faults.js";
import { type LatencyOptions, latencyLayer } from "./layers/latency.js";
import { rateLimitHeadersLayer } from "./layers/rate-limit-headers.js";
import { statsLayer } from "./layers/record-stats.js";
import { secondaryLayer } from "./layers/secondary.js";
import { tickLayer } from "./layers/tick.js";
import { errorResponse } from "./respond.js";
import { composeSimLayers, type SimHandler } from "./types.js";

export interface PipelineOptions {
  readonly latency: LatencyOptions;
  readonly faults: () => FaultInjector | undefined;
}

export function createPipeline(state: SimState, options: PipelineOptions): SimHandler {
  const route: SimHandler = (request) =>
    request.classification?.kind === "graphql" ? handleGraphQL(state, request) : handleRest(state, request);
  const github = composeSimLayers(
    [
      faultLayer(options.faults),
      statsLayer(state),
      rateLimitHeadersLayer(state),
      concurrencyLayer(state),
      latencyLayer(options.latency),
      tickLayer(state),
      authLayer(() => state.token),
      classifyLayer(state),
      secondaryLayer(state),
    ],
    route,
  );
  return async (request) => {
    try {
      if (request.path.startsWith("/_sim/")) return handleAdmin(state, request);
      return await github(request);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return errorResponse(500, `Server Error: ${message}`);
    }
  };
}
