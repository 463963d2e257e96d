import type { GhRequest, GhResponse } from "../../broker/pipeline/types.js";

/** What GitHub answers to that read, as the pipeline hands it back. */
export const prReadAnswer: GhResponse = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: Buffer.from('{"number":1}'),
  cache: "MISS",
  cost: 1,
  resource: "core",
};

/** A classified `GET /repos/acme/widgets/pulls/1` as the gateway hands it to the pipeline. */
export function prReadRequest(deadlineMs: number): GhRequest {
  const now = Date.now();
  return {
    id: `r-${now}-${Math.random()}`,
    method: "GET",
    path: "/repos/acme/widgets/pulls/1",
    headers: {},
    caller: { sessionId: "s1", readOnly: false, weight: 1 },
    classification: {
      kind: "rest-read",
      resource: "core",
      cacheable: true,
      cacheKey: "GET /repos/acme/widgets/pulls/1",
      reads: [],
      writes: [],
      writeNodeIds: [],
      freshMs: 0,
      guardedFreshMs: 0,
      vouchTags: [],
      estimatedCost: 1,
      free: false,
      contentCreation: false,
    },
    priority: "interactive",
    deadlineAt: now + deadlineMs,
    allowStale: false,
    receivedAt: now,
  };
}
