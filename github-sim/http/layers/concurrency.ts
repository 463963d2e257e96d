/**
 * GitHub's secondary limit on concurrent requests (100 by default): a request beyond it is
 * refused at once with the secondary-limit 403 and a retry-after.
 */
import { secondaryRateLimitBody } from "../../../github/index.js";
import type { SimState } from "../../sim-state.js";
import { jsonResponse } from "../respond.js";
import type { SimLayer } from "../types.js";

export function concurrencyLayer(state: SimState): SimLayer {
  return (next) => async (request) => {
    if (!state.secondary.enter()) {
      return jsonResponse(403, secondaryRateLimitBody(request.id), {
        headers: { "retry-after": "1" },
        outcome: "secondary_limited",
      });
    }
    try {
      return await next(request);
    } finally {
      state.secondary.leave();
    }
  };
}
