/**
 * Applies every scheduled scenario change due by now before the request is served, so each
 * answer reflects the world at the instant it is computed (the scenario engine has no timers).
 */
import type { SimState } from "../../sim-state.js";
import type { SimLayer } from "../types.js";

export function tickLayer(state: SimState): SimLayer {
  return (next) => (request) => {
    state.tick();
    return next(request);
  };
}
