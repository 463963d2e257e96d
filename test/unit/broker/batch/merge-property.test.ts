/**
 * The batching property: for gh's real queries (every distinct query in the 2.23 traffic captures)
 * merged in random combinations with random variables, each member's split answer equals the
 * answer to its query executed alone, byte for byte after key-order normalization: data, errors
 * (messages, paths, locations, extensions), pageInfo and cursors. Executed with graphql-js on
 * GitHub's schema and a deterministic world (support/deterministic-executor.ts) until the
 * simulator can stand in. Seeded: a failure prints its seed and reproduces.
 */
import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import {
  type EligibleMember,
  injectRateLimit,
  mergeQueries,
  prepareMember,
  splitMergedResponse,
  stripRateLimit,
} from "../../../../broker/batch/index.js";
import { computeQueryCost, loadGitHubSchema, validateGitHubDocument } from "../../../../github/index.js";
import { distinctCapturedQueries, documentOperationName } from "./support/captured-queries.js";
import { executeDeterministic, normalizeJson } from "./support/deterministic-executor.js";
import { pick, randomVariables, seededRng } from "./support/random-variables.js";

const schema = loadGitHubSchema();
const captured = distinctCapturedQueries();

function prepared(id: string, query: string, variables: unknown, operationName?: string) {
  return prepareMember({ id, query, variables, operationName }, { schema });
}

const pool = captured
  .map((request, i) => ({ request, member: prepared(`c${i}`, request.query, request.variables) }))
  .filter(
    (entry): entry is { request: (typeof captured)[number]; member: EligibleMember } => entry.member.eligible,
  );

async function alone(member: EligibleMember) {
  return executeDeterministic(schema, {
    query: member.source,
    variables: member.variables,
    operationName: member.operationName,
  });
}

async function mergedAndSplit(members: readonly EligibleMember[]) {
  const merged = mergeQueries(
    members.map((m) => ({ id: m.id, source: m.source, plan: m.plan, variables: m.variables })),
  );
  const document = parse(merged.query);
  const response = await executeDeterministic(schema, {
    query: document,
    variables: merged.variables,
    operationName: merged.operationName,
  });
  return { merged, document, response, split: splitMergedResponse(merged, response) };
}

describe("batch merge property", () => {
  describe("when every distinct captured gh query is merged into one", () => {
    it("has 40 eligible queries out of 47, the rest being mutations and introspection", () => {
      expect(captured.length).toBe(47);
      expect(pool.length).toBe(40);
    });

    it("validates, costs the sum of the parts, and splits to each answer alone", async () => {
      const members = pool.map((entry) => entry.member);
      const { merged, document, response, split } = await mergedAndSplit(members);
      expect(validateGitHubDocument(schema, document)).toEqual([]);
      const cost = computeQueryCost({ schema, document, variables: merged.variables });
      expect(cost.requests).toBe(members.reduce((sum, m) => sum + m.requests, 0));
      expect(cost.nodeCount).toBe(members.reduce((sum, m) => sum + m.nodeCount, 0));
      expect(response.data).not.toBeNull();
      expect(split.rateLimit?.cost).toEqual(expect.any(Number));
      for (const [i, outcome] of split.members.entries()) {
        expect(outcome.kind).toBe("answer");
        if (outcome.kind !== "answer") continue;
        expect(normalizeJson(outcome.body)).toBe(normalizeJson(await alone(members[i] as EligibleMember)));
      }
    });
  });

  describe("when random combinations with random variables are merged", () => {
    const SEED = 20_240_601;
    const COMBINATIONS = 300;

    it(`splits to each member's answer alone (${COMBINATIONS} combinations, seed ${SEED})`, async () => {
      const rng = seededRng(SEED);
      let compared = 0;
      let withErrors = 0;
      let retried = 0;
      for (let round = 0; round < COMBINATIONS; round++) {
        const size = 2 + Math.floor(rng() * 7);
        const members: EligibleMember[] = [];
        for (let j = 0; j < size; j++) {
          const { request, member } = pick(rng, pool);
          const variables = randomVariables(schema, member.plan.operation, rng, request.variables);
          const name = rng() < 0.3 ? documentOperationName(request) : undefined;
          const next = prepared(`r${round}m${j}`, request.query, variables, name);
          // Random variables never break GitHub's rules for these queries: all stay eligible.
          expect(next.eligible, `round ${round} member ${j}: ${next.eligible ? "" : next.message}`).toBe(
            true,
          );
          if (next.eligible) members.push(next);
        }
        const { response, split } = await mergedAndSplit(members);
        for (const [i, outcome] of split.members.entries()) {
          const member = members[i] as EligibleMember;
          const expected = await alone(member);
          if (outcome.kind === "retry-alone") {
            // Only a root-level null (a failed non-null root field) may force a retry.
            expect(outcome.reason, `round ${round}`).toBe("data-null");
            expect(response.data).toBeNull();
            retried += 1;
            continue;
          }
          compared += 1;
          if (expected.errors) withErrors += 1;
          expect(normalizeJson(outcome.body), `seed ${SEED} round ${round} member ${i} (${member.id})`).toBe(
            normalizeJson(expected),
          );
        }
      }
      // The world must have exercised the error paths, not only happy data.
      expect(compared).toBeGreaterThan(COMBINATIONS * 3);
      expect(withErrors).toBeGreaterThan(50);
      expect(retried).toBeGreaterThan(0);
    });
  });

  describe("when rateLimit is injected into a single captured query", () => {
    it.each(captured.map((request) => ({ name: `${request.file}#${request.index}`, request })))(
      "strips to the answer without it ($name)",
      async ({ request }) => {
        const injection = injectRateLimit(request.query);
        const expected = await executeDeterministic(schema, {
          query: request.query,
          variables: request.variables,
        });
        if (!injection) {
          // Only documents whose operation is not a query are left untouched.
          expect(
            parse(request.query).definitions.some((d) => "operation" in d && d.operation !== "query"),
          ).toBe(true);
          return;
        }
        expect(validateGitHubDocument(schema, parse(injection.query))).toEqual([]);
        const response = await executeDeterministic(schema, {
          query: injection.query,
          variables: request.variables,
        });
        const stripped = stripRateLimit(injection, response);
        expect(stripped.injectionRefused).toBe(false);
        expect(stripped.rateLimit?.cost).toEqual(expect.any(Number));
        expect(normalizeJson(stripped.body)).toBe(normalizeJson(expected));
      },
    );

    it("strips to the answer alone with random variables, errors included", async () => {
      const rng = seededRng(7);
      let withErrors = 0;
      for (let round = 0; round < 150; round++) {
        const { request, member } = pick(rng, pool);
        const variables = randomVariables(schema, member.plan.operation, rng, request.variables);
        const injection = injectRateLimit(request.query);
        expect(injection).toBeDefined();
        if (!injection) continue;
        const expected = await executeDeterministic(schema, { query: request.query, variables });
        const response = await executeDeterministic(schema, { query: injection.query, variables });
        if (expected.errors) withErrors += 1;
        expect(normalizeJson(stripRateLimit(injection, response).body), `round ${round}`).toBe(
          normalizeJson(expected),
        );
      }
      expect(withErrors).toBeGreaterThan(10);
    });
  });
});
