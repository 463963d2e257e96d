/**
 * Counts every GitHub-facing answer in the simulator's stats: kind and operation (from the
 * classification the answer carries), outcome, GraphQL points.
 */
import type { SimState } from "../../sim-state.js";
import type { SimLayer } from "../types.js";

export function statsLayer(state: SimState): SimLayer {
  return (next) => async (request) => {
    const response = await next(request);
    state.stats.record(response.classification, response);
    return response;
  };
}
