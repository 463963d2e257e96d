/**
 * Validation as GitHub does it: graphql-js's specified rules, except that GitHub (graphql-ruby)
 * accepts fields of the same response name with different return types when they sit under
 * different concrete types. gh's `issue view` query relies on that (`state` is IssueState on
 * Issue and PullRequestState on PullRequest); a strict validator refuses it, GitHub does not.
 * Conflicts of a different kind (different fields or arguments under one alias) stay errors.
 */
import { type DocumentNode, type GraphQLError, type GraphQLSchema, specifiedRules, validate } from "graphql";

const TYPE_ONLY_CONFLICT = /conflicting types/;
const OTHER_CONFLICT = /different fields|differing arguments|differing/;

function isRelaxedConflict(error: GraphQLError): boolean {
  return (
    TYPE_ONLY_CONFLICT.test(error.message) &&
    !OTHER_CONFLICT.test(error.message.replace(/conflicting types/g, ""))
  );
}

export function validateGitHubDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
): readonly GraphQLError[] {
  return validate(schema, document, specifiedRules, { maxErrors: 50 }).filter((e) => !isRelaxedConflict(e));
}
