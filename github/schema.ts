/**
 * GitHub's public GraphQL schema, from the npm package @octokit/graphql-schema (the introspection
 * JSON: its SDL twin declares a few fields twice and graphql-js refuses it). Building it takes
 * ~100 ms, so one immutable instance is made on first use and shared by the process.
 */
import { readFileSync } from "node:fs";
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";

let cached: GraphQLSchema | undefined;

export function loadGitHubSchema(): GraphQLSchema {
  if (!cached) {
    const url = new URL("./schema.json", import.meta.resolve("@octokit/graphql-schema"));
    const introspection = JSON.parse(readFileSync(url, "utf8")) as {
      data?: IntrospectionQuery;
    } & IntrospectionQuery;
    cached = buildClientSchema(introspection.data ?? introspection, { assumeValid: true });
  }
  return cached;
}
