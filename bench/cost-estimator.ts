/**
 * GitHub's documented cost of a GraphQL request (github/ arithmetic on the real schema), for the
 * requests GitHub REFUSED for the primary limit: they were not charged, but the arm asked for them,
 * so "points per hour" (what an arm needs) counts them at this cost. Documents are parsed once.
 */
import { parse } from "graphql";
import { computeQueryCost, loadGitHubSchema } from "../github/index.js";

export class CostEstimator {
  readonly #schema = loadGitHubSchema();
  readonly #documents = new Map<string, ReturnType<typeof parse> | null>();

  graphqlPoints(query: string, variables: Readonly<Record<string, unknown>>): number {
    let document = this.#documents.get(query);
    if (document === undefined) {
      try {
        document = parse(query);
      } catch {
        document = null;
      }
      this.#documents.set(query, document);
    }
    if (!document) return 1;
    return computeQueryCost({ schema: this.#schema, document, variables }).cost;
  }
}
