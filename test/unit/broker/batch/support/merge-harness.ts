/** Prepare → merge → execute → split, and the same query alone, for the batching unit tests. */
import { type GraphQLSchema, parse } from "graphql";
import {
  type EligibleMember,
  type MergedQuery,
  type MergeOptions,
  mergeQueries,
  prepareMember,
  type SplitResult,
  splitMergedResponse,
} from "../../../../../broker/batch/index.js";
import { executeDeterministic } from "./deterministic-executor.js";

export interface MemberSpec {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

export function eligible(schema: GraphQLSchema, spec: MemberSpec, id: string): EligibleMember {
  const member = prepareMember({ id, ...spec }, { schema });
  if (!member.eligible)
    throw new Error(`expected ${id} to be eligible, got ${member.reason}: ${member.message}`);
  return member;
}

export function merge(
  schema: GraphQLSchema,
  specs: readonly MemberSpec[],
  options?: MergeOptions,
): { members: EligibleMember[]; merged: MergedQuery } {
  const members = specs.map((spec, i) => eligible(schema, spec, `m${i}`));
  const merged = mergeQueries(
    members.map((m) => ({ id: m.id, source: m.source, plan: m.plan, variables: m.variables })),
    options,
  );
  return { members, merged };
}

export async function runMerged(
  schema: GraphQLSchema,
  merged: MergedQuery,
): Promise<{ response: Record<string, unknown>; split: SplitResult }> {
  const response = await executeDeterministic(schema, {
    query: parse(merged.query),
    variables: merged.variables,
    operationName: merged.operationName,
  });
  return { response, split: splitMergedResponse(merged, response) };
}

export function runAlone(schema: GraphQLSchema, spec: MemberSpec) {
  return executeDeterministic(schema, spec);
}
