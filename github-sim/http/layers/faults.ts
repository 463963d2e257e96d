/**
 * The fault-injection seam (5xx bursts, timeouts, slow or reset connections, secondary-limit
 * storms, a budget spent earlier than the headers said). A FaultInjector sees each GitHub-facing
 * request before anything else and may answer instead of the simulator (a SimResponse, one with
 * `destroy: true` to reset the connection, or a promise that settles late or never), or pass it
 * on by returning undefined. `POST /_sim/faults` is where a later change plugs a configurable
 * injector in; until then none is installed and this layer is a pass-through.
 */
import type { SimHandler, SimLayer, SimRequest, SimResponse } from "../types.js";

export interface FaultInjector {
  intercept(request: SimRequest, next: SimHandler): Promise<SimResponse> | undefined;
}

export function faultLayer(current: () => FaultInjector | undefined): SimLayer {
  return (next) => (request) => current()?.intercept(request, next) ?? next(request);
}
