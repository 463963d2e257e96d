/**
 * Decides, for one caller's GraphQL request, whether it may join a merged query, and computes what
 * the scheduler needs to pack it (computed requests, nodes, points). Everything GitHub would refuse
 * is found here, BEFORE merging, so one caller's bad query never fails the others:
 * parse errors, the syntax rules of core/member-plan.ts, validation as GitHub does it
 * (github/ validateGitHubDocument), GitHub's pagination and node-limit rules (computeQueryCost),
 * and variables that do not coerce to their declared types. A refused request is not an error: it
 * is sent alone and gets GitHub's own answer.
 */
import { type DocumentNode, type GraphQLSchema, getVariableValues, isNonNullType, parse } from "graphql";
import { AoError } from "../../common/index.js";
import { computeQueryCost, MAX_NODE_LIMIT, validateGitHubDocument } from "../../github/index.js";
import { BATCHING_DEFAULTS } from "./batch-settings.js";
import type { AloneReason } from "./core/alone-reason.js";
import { isJsonObject } from "./core/graphql-response.js";
import { type MemberPlan, planMember } from "./core/member-plan.js";
import { BatchErrors } from "./errors.js";

/** One caller's GraphQL request, as the gateway received it. */
export interface BatchMemberInput {
  /** Unique per submission (the gateway's request id). */
  readonly id: string;
  readonly query: string;
  /** The JSON `variables` member as sent (null and absent both mean none). */
  readonly variables?: unknown;
  readonly operationName?: string | null | undefined;
  /** The document parsed from `query` at classification, so it is not parsed again here. */
  readonly document?: DocumentNode | undefined;
}

export interface MemberCaps {
  /** Largest computed point cost of one merged query. @defaultValue 20 */
  readonly maxCost: number;
  /** Largest node count of one merged query. @defaultValue MAX_NODE_LIMIT (500,000) */
  readonly maxNodes: number;
}

export const DEFAULT_MEMBER_CAPS: MemberCaps = { maxCost: 20, maxNodes: MAX_NODE_LIMIT };

interface MemberBase {
  readonly id: string;
  readonly source: string;
  readonly operationName: string | undefined;
  /** Computed Σ connection requests, when the query could be costed. */
  readonly requests: number | undefined;
  /** Computed points (github/ pointsForRequests), when the query could be costed. */
  readonly cost: number | undefined;
}

export interface EligibleMember extends MemberBase {
  readonly eligible: true;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly document: DocumentNode;
  readonly plan: MemberPlan;
  readonly requests: number;
  readonly cost: number;
  readonly nodeCount: number;
}

export interface AloneMember extends MemberBase {
  readonly eligible: false;
  /** Forwarded verbatim. */
  readonly variables: unknown;
  readonly reason: AloneReason;
  /** Human-readable detail (first validation error, and so on). */
  readonly message: string;
}

export type PreparedMember = EligibleMember | AloneMember;

export interface PrepareMemberOptions {
  readonly schema: GraphQLSchema;
  /** @defaultValue DEFAULT_MEMBER_CAPS */
  readonly caps?: Partial<MemberCaps> | undefined;
  /** Reuses the analysis of query texts seen before. @defaultValue none */
  readonly cache?: DocumentAnalysisCache | undefined;
  /**
   * Accept mutations (the write batcher, decision 0023) — only those whose every root field is
   * nullable, so one member's failure nulls its own field and never the others' (a non-null root
   * field that fails nulls the whole `data`). @defaultValue false
   */
  readonly mutations?: boolean | undefined;
}

/** What does not depend on the variables: parse, plan, validation. Cached per query text. */
type Analysis =
  | { readonly ok: true; readonly document: DocumentNode; readonly plan: MemberPlan }
  | { readonly ok: false; readonly reason: AloneReason; readonly message: string };

/**
 * Remembers the analysis of recent query texts: gh sends a few dozen distinct texts, and
 * validating one against GitHub's schema costs milliseconds, so repeats skip it. Bounded (least
 * recently used go first); owned by one scheduler, never shared through module state.
 */
export class DocumentAnalysisCache {
  readonly #entries = new Map<string, Analysis>();
  readonly #maxEntries: number;

  /** @param maxEntries @defaultValue 500 */
  constructor(maxEntries = BATCHING_DEFAULTS.analysisCacheEntries) {
    this.#maxEntries = Math.max(1, maxEntries);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Analysis | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, analysis: Analysis): void {
    this.#entries.set(key, analysis);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

function analyzeUncached(
  query: string,
  operationName: string | undefined,
  schema: GraphQLSchema,
  parsed: DocumentNode | undefined,
  mutations: boolean,
): Analysis {
  let document: DocumentNode;
  try {
    document = parsed && parsed.loc?.source.body === query ? parsed : parse(query);
  } catch (error) {
    return {
      ok: false,
      reason: "parse-error",
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const planned = planMember(document, operationName, { mutations });
  if (!planned.ok) return planned;
  const invalid = validateGitHubDocument(schema, document);
  if (invalid.length > 0) {
    return { ok: false, reason: "validation-error", message: invalid[0]?.message ?? "invalid document" };
  }
  if (planned.plan.operation.operation === "mutation") {
    const fields = schema.getMutationType()?.getFields() ?? {};
    const nonNull = planned.plan.body.insertions.find(
      (point) =>
        point.kind === "root-field" && (!fields[point.name] || isNonNullType(fields[point.name]?.type)),
    );
    if (nonNull) return { ok: false, reason: "mutation", message: "a mutation with a non-null root field" };
    // Root fields reached through a fragment are not checked above: such a mutation goes alone.
    if (planned.plan.fragments.some((f) => f.rootLevel))
      return { ok: false, reason: "mutation", message: "a mutation with root fields in a fragment" };
  }
  return { ok: true, document, plan: planned.plan };
}

function analyzeDocument(
  query: string,
  operationName: string | undefined,
  options: PrepareMemberOptions,
  document: DocumentNode | undefined,
): Analysis {
  const mutations = options.mutations === true;
  // The write batcher's analyses (which plan mutations) are kept apart from the query scheduler's.
  const key = `${mutations ? "mutations\u0001" : ""}${operationName ?? ""}\u0000${query}`;
  const cached = options.cache?.get(key);
  if (cached) return cached;
  const analysis = analyzeUncached(query, operationName, options.schema, document, mutations);
  options.cache?.set(key, analysis);
  return analysis;
}

export function prepareMember(input: BatchMemberInput, options: PrepareMemberOptions): PreparedMember {
  if (typeof input?.id !== "string" || input.id === "" || typeof input.query !== "string") {
    throw new AoError(
      BatchErrors.AO_ERR_BATCH_INVALID_MEMBER,
      "a batch member needs a non-empty string id and a string query",
      { httpStatus: 400 },
    );
  }
  const caps = { ...DEFAULT_MEMBER_CAPS, ...options.caps };
  const operationName = input.operationName || undefined;
  const base = { id: input.id, source: input.query, operationName };
  const alone = (
    reason: AloneReason,
    message: string,
    costed?: { requests: number; cost: number },
  ): AloneMember => ({
    ...base,
    eligible: false,
    variables: input.variables,
    reason,
    message,
    requests: costed?.requests,
    cost: costed?.cost,
  });

  const variables = input.variables ?? {};
  if (!isJsonObject(variables)) return alone("invalid-variables", "variables must be a JSON object");
  const analysis = analyzeDocument(input.query, operationName, options, input.document);
  if (!analysis.ok) return alone(analysis.reason, analysis.message);
  const { document, plan } = analysis;
  const cost = computeQueryCost({ schema: options.schema, document, operationName, variables });
  const costed = { requests: cost.requests, cost: cost.cost };
  if (cost.errors.length > 0) return alone("cost-error", cost.errors[0]?.message ?? "cost rules", costed);
  const coerced = getVariableValues(options.schema, plan.operation.variableDefinitions ?? [], variables, {
    maxErrors: 1,
  });
  if (coerced.errors) return alone("variable-error", coerced.errors[0]?.message ?? "bad variables", costed);
  if (cost.cost > caps.maxCost || cost.nodeCount > caps.maxNodes) {
    return alone("over-caps", `cost ${cost.cost} points, ${cost.nodeCount} nodes`, costed);
  }
  return {
    ...base,
    eligible: true,
    variables,
    document,
    plan,
    requests: cost.requests,
    cost: cost.cost,
    nodeCount: cost.nodeCount,
  };
}
