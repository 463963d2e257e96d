/**
 * Decides, for one caller's GraphQL request, whether it may join a merged query, and computes what
 * the scheduler needs to pack it (computed requests, nodes, points). Everything GitHub would refuse
 * is found here, BEFORE merging, so one caller's bad query never fails the others:
 * parse errors, the syntax rules of core/member-plan.ts, validation as GitHub does it
 * (github/ validateGitHubDocument), GitHub's pagination and node-limit rules (computeQueryCost),
 * and variables that do not coerce to their declared types. A refused request is not an error: it
 * is sent alone and gets GitHub's own answer.
 */
import { type DocumentNode, type GraphQLSchema, getVariableValues, parse } from "graphql";
import { AoError } from "../../common/index.js";
import { computeQueryCost, MAX_NODE_LIMIT, validateGitHubDocument } from "../../github/index.js";
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
  let document: DocumentNode;
  try {
    document = parse(input.query);
  } catch (error) {
    return alone("parse-error", error instanceof Error ? error.message : String(error));
  }
  const planned = planMember(document, operationName);
  if (!planned.ok) return alone(planned.reason, planned.message);

  const invalid = validateGitHubDocument(options.schema, document);
  if (invalid.length > 0) return alone("validation-error", invalid[0]?.message ?? "invalid document");
  const cost = computeQueryCost({ schema: options.schema, document, operationName, variables });
  const costed = { requests: cost.requests, cost: cost.cost };
  if (cost.errors.length > 0) return alone("cost-error", cost.errors[0]?.message ?? "cost rules", costed);
  const coerced = getVariableValues(
    options.schema,
    planned.plan.operation.variableDefinitions ?? [],
    variables,
    {
      maxErrors: 1,
    },
  );
  if (coerced.errors) return alone("variable-error", coerced.errors[0]?.message ?? "bad variables", costed);
  if (cost.cost > caps.maxCost || cost.nodeCount > caps.maxNodes) {
    return alone("over-caps", `cost ${cost.cost} points, ${cost.nodeCount} nodes`, costed);
  }
  return {
    ...base,
    eligible: true,
    variables,
    document,
    plan: planned.plan,
    requests: cost.requests,
    cost: cost.cost,
    nodeCount: cost.nodeCount,
  };
}
