/**
 * Merges N callers' query operations into one document GitHub runs as one query (one HTTP request,
 * one point for most gh-sized queries); N mutations merge the same way into one mutation (decision
 * 0023: GitHub runs a mutation's root fields one after another, so each member's run in order). Each caller's root fields get the alias prefix `b<i>_`,
 * its variables the same prefix, and its fragments a canonical name `f<k>_<name>`; fragments whose
 * text is identical and independent of variables and of the root are shared by every caller that
 * has them (gh sends the same fragment text from every session, so N copies shrink to one).
 *
 * Why the answers stay equal to the answers alone:
 * - Prefixing is a bijection on response keys, and names cannot start with a digit, so `b1_` plus
 *   a name never equals `b10_` plus a name: callers' fields never merge with each other, and a
 *   caller's own fields merge exactly as they did (same keys, same arguments, same order).
 * - Variables keep their declared types and default values; a variable the caller did not send
 *   is not sent (a default still applies, and an explicit null stays null).
 * - The text of every caller is copied token for token (see merged-text-builder.ts), so error
 *   locations map back exactly.
 * - Key order: a caller's root keys appear in its own order, contiguous, as GitHub executes them.
 *
 * Sum of requests (and nodes) of the merged query = the sum over members, because connection paths
 * under different root aliases never coincide; callers check caps with that (see batch-scheduler).
 */
import type { LocationMap } from "./location-map.js";
import type { InsertionPoint, MemberPlan, TextSpan } from "./member-plan.js";
import { type Insertion, MergedTextBuilder } from "./merged-text-builder.js";

/** Reserved alias of the injected `rateLimit` selection. */
export const RATE_LIMIT_ALIAS = "aobRateLimit";
/** What the broker asks of `rateLimit` (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api). */
export const RATE_LIMIT_SELECTION = "rateLimit { cost remaining resetAt limit used nodeCount }";
export const MERGED_OPERATION_NAME = "AoBrokerBatch";

export interface MergeMemberInput {
  readonly id: string;
  /** The caller's document text, exactly as sent. */
  readonly source: string;
  readonly plan: MemberPlan;
  readonly variables: Readonly<Record<string, unknown>>;
}

export interface MergeOptions {
  /**
   * Alias under which `rateLimit` is added to the merged query; false adds none.
   * @defaultValue RATE_LIMIT_ALIAS
   */
  readonly rateLimitAlias?: string | false;
}

export interface MergedMember {
  readonly id: string;
  readonly index: number;
  /** Prefix of this member's root response keys and variable names. */
  readonly prefix: string;
  readonly locations: LocationMap;
}

export interface MergedQuery {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string;
  readonly rateLimitAlias: string | undefined;
  readonly members: readonly MergedMember[];
  /** Fragment definitions in the merged document (after sharing). */
  readonly fragmentCount: number;
}

export function memberPrefix(index: number): string {
  return `b${index}_`;
}

interface SharedFragment {
  readonly canonical: string;
  readonly source: string;
  readonly span: TextSpan;
  /** Canonical prefixes of the first owner, used to write the shared text. */
  readonly names: ReadonlyMap<string, string>;
  readonly owners: { member: number; originStart: number }[];
}

function insertionText(point: InsertionPoint, prefix: string, fragmentNames: ReadonlyMap<string, string>) {
  if (point.kind === "variable") return prefix;
  if (point.kind === "root-field") return point.aliased ? prefix : `${prefix}${point.name}: `;
  const canonical = fragmentNames.get(point.name);
  if (canonical === undefined) throw new RangeError(`fragment ${point.name} has no canonical name`);
  return canonical;
}

function insertions(span: TextSpan, prefix: string, names: ReadonlyMap<string, string>): Insertion[] {
  return span.insertions.map((point) => ({
    offset: point.offset,
    text: insertionText(point, prefix, names),
  }));
}

function assignFragments(members: readonly MergeMemberInput[]) {
  const shared = new Map<string, SharedFragment>();
  const namesByMember = members.map((member, index) => {
    const names = new Map<string, string>();
    for (const fragment of member.plan.fragments) {
      const shareable = !fragment.usesVariables && !fragment.rootLevel;
      const key = shareable
        ? `${member.source.slice(fragment.start, fragment.end)}\u0000${fragment.spreads.map((s) => names.get(s)).join(",")}`
        : `\u0001${index}\u0001${fragment.name}`;
      let entry = shared.get(key);
      if (!entry) {
        entry = {
          canonical: `f${shared.size}_`,
          source: member.source,
          span: fragment,
          names,
          owners: [],
        };
        shared.set(key, entry);
      }
      entry.owners.push({ member: index, originStart: fragment.start });
      names.set(fragment.name, entry.canonical);
    }
    return names;
  });
  return { shared: [...shared.values()], namesByMember };
}

/**
 * Leading and trailing white space of a body is dropped (gh indents with tabs); what stays starts
 * and ends on a token or comment, and every piece is followed by a line break, so a trailing
 * comment cannot swallow what comes next.
 */
function trimmed(source: string, start: number, end: number): { start: number; end: number } {
  while (start < end && WHITE_SPACE.has(source.charCodeAt(start))) start += 1;
  while (end > start && WHITE_SPACE.has(source.charCodeAt(end - 1))) end -= 1;
  return { start, end };
}

/** Tab, line feed, carriage return, space, and the byte-order mark: ignored tokens of GraphQL. */
const WHITE_SPACE = new Set([0x09, 0x0a, 0x0d, 0x20, 0xfeff]);

export function mergeQueries(members: readonly MergeMemberInput[], options: MergeOptions = {}): MergedQuery {
  if (members.length === 0) throw new RangeError("mergeQueries needs at least one member");
  // One operation type for all: queries merge with queries, mutations with mutations.
  const operationType = members[0]?.plan.operation.operation ?? "query";
  if (members.some((m) => m.plan.operation.operation !== operationType))
    throw new RangeError("mergeQueries cannot merge a query with a mutation");
  if (operationType === "subscription") throw new RangeError("subscriptions are never merged");
  // rateLimit is a Query field: a mutation cannot select it, whatever the caller asked.
  const rateLimitAlias =
    options.rateLimitAlias === false || operationType === "mutation"
      ? undefined
      : (options.rateLimitAlias ?? RATE_LIMIT_ALIAS);
  const { shared, namesByMember } = assignFragments(members);
  const builder = new MergedTextBuilder();
  const variables: Record<string, unknown> = {};

  builder.appendSynthetic(`${operationType} ${MERGED_OPERATION_NAME}`);
  let firstDefinition = true;
  members.forEach((member, index) => {
    const prefix = memberPrefix(index);
    const names = namesByMember[index] ?? new Map<string, string>();
    for (const span of member.plan.variableDefinitions) {
      builder.appendSynthetic(firstDefinition ? "(" : ", ");
      firstDefinition = false;
      builder.appendSlice({
        source: member.source,
        start: span.start,
        end: span.end,
        insertions: insertions(span, prefix, names),
        owners: [{ member: index, originStart: span.start }],
      });
    }
    for (const definition of member.plan.operation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      if (Object.hasOwn(member.variables, name)) variables[`${prefix}${name}`] = member.variables[name];
    }
  });
  builder.appendSynthetic(firstDefinition ? " {" : ") {");

  members.forEach((member, index) => {
    const { body } = member.plan;
    const { start, end } = trimmed(member.source, body.start, body.end);
    builder.appendSynthetic("\n");
    builder.appendSlice({
      source: member.source,
      start,
      end,
      insertions: insertions(body, memberPrefix(index), namesByMember[index] ?? new Map()),
      owners: [{ member: index, originStart: start }],
    });
  });
  if (rateLimitAlias !== undefined) builder.appendSynthetic(`\n${rateLimitAlias}: ${RATE_LIMIT_SELECTION}`);
  builder.appendSynthetic("\n}");

  for (const fragment of shared) {
    const firstOwner = fragment.owners[0]?.member ?? 0;
    builder.appendSynthetic("\n");
    builder.appendSlice({
      source: fragment.source,
      start: fragment.span.start,
      end: fragment.span.end,
      insertions: insertions(fragment.span, memberPrefix(firstOwner), fragment.names),
      owners: fragment.owners,
    });
  }
  builder.appendSynthetic("\n");

  const { text, maps } = builder.build(members.map((m) => m.source));
  return {
    query: text,
    variables,
    operationName: MERGED_OPERATION_NAME,
    rateLimitAlias,
    fragmentCount: shared.length,
    members: members.map((member, index) => ({
      id: member.id,
      index,
      prefix: memberPrefix(index),
      locations: maps[index]!,
    })),
  };
}
