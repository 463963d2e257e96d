/**
 * GitHub's x-ratelimit-limit/-remaining/-used/-reset/-resource on every answer (errors and 304s
 * included): the snapshot the handler took when it charged, or else the bucket's current state.
 * Also the headers every GitHub answer has (request id, API version, media type).
 */
import { rateLimitHeaders } from "../../../github/index.js";
import type { SimState } from "../../sim-state.js";
import type { SimLayer } from "../types.js";

export function rateLimitHeadersLayer(state: SimState): SimLayer {
  return (next) => async (request) => {
    const response = await next(request);
    const resource = response.resource ?? "core";
    const snapshot = response.rateLimit ?? state.primary.snapshot(resource, state.now());
    return {
      ...response,
      headers: {
        ...response.headers,
        ...rateLimitHeaders(snapshot),
        "x-github-request-id": request.id,
        "x-github-api-version-selected": "2022-11-28",
        "x-github-media-type": "github.v3; format=json",
      },
    };
  };
}
