/**
 * CallRecord: the broker's own record of one request it served, stored (e.g. in a capped Redis
 * stream) so that `ao-broker trace report` can say who spent the budget. Unlike metric labels it
 * keeps every session id and command verbatim; unlike AO's trace rows it exists for every request,
 * whoever asked (agents through the shim, AO through IPC, the lifecycle poller).
 *
 * Encoding is compact JSON with short keys (a stream of 100k records should stay small); decoding
 * validates, so a corrupt or foreign entry is skipped instead of breaking a report.
 */
import { z } from "zod";

export interface CallRecord {
  /** Epoch ms at which the broker received the request. */
  readonly at: number;
  readonly sessionId: string;
  readonly projectId?: string | undefined;
  readonly invocationId?: string | undefined;
  /** AO-style operation: gh.pr.checks, gh.api.graphql, ao.lifecycle, ... (core/command-name.ts). */
  readonly command: string;
  readonly method: string;
  /** Path as GitHub sees it, without query credentials. */
  readonly path: string;
  readonly operationName?: string | undefined;
  /** Rate-limit bucket: core, graphql, search, ... */
  readonly resource: string;
  /** Points (GraphQL) or requests (REST) charged to this caller. */
  readonly cost: number;
  /** How it was served: HIT, REVALIDATED, MISS, COALESCED, BATCHED, STALE, STALE_REVALIDATING, BYPASS. */
  readonly cache: string;
  readonly status: number;
  readonly durationMs: number;
  /** Time spent waiting for budget or the upstream queue. */
  readonly waitedMs: number;
  readonly batched: boolean;
  readonly coalesced: boolean;
}

const wireSchema = z.object({
  t: z.number().finite(),
  s: z.string(),
  p: z.string().optional(),
  i: z.string().optional(),
  c: z.string(),
  m: z.string(),
  u: z.string(),
  o: z.string().optional(),
  r: z.string(),
  $: z.number().finite().min(0),
  k: z.string(),
  h: z.number().int(),
  d: z.number().finite().min(0),
  w: z.number().finite().min(0),
  b: z.union([z.literal(0), z.literal(1)]),
  l: z.union([z.literal(0), z.literal(1)]),
});

export function encodeCallRecord(record: CallRecord): string {
  return JSON.stringify({
    t: record.at,
    s: record.sessionId,
    p: record.projectId,
    i: record.invocationId,
    c: record.command,
    m: record.method,
    u: record.path,
    o: record.operationName,
    r: record.resource,
    $: record.cost,
    k: record.cache,
    h: record.status,
    d: Math.round(record.durationMs),
    w: Math.round(record.waitedMs),
    b: record.batched ? 1 : 0,
    l: record.coalesced ? 1 : 0,
  });
}

/** The record, or undefined when `text` is not an encoded CallRecord. */
export function decodeCallRecord(text: string): CallRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = wireSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const w = parsed.data;
  return {
    at: w.t,
    sessionId: w.s,
    projectId: w.p,
    invocationId: w.i,
    command: w.c,
    method: w.m,
    path: w.u,
    operationName: w.o,
    resource: w.r,
    cost: w.$,
    cache: w.k,
    status: w.h,
    durationMs: w.d,
    waitedMs: w.w,
    batched: w.b === 1,
    coalesced: w.l === 1,
  };
}
