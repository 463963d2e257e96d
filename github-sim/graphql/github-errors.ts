/**
 * GraphQL errors in GitHub's words. GitHub runs graphql-ruby, whose messages differ from
 * graphql-js's: validation errors read "Field 'x' doesn't exist on type 'Y'" and carry
 * `extensions.code` and a `path` of AST names from the operation ("query Q", fields...); parse
 * errors read `Parse error on "}" (RCURLY) at [1, 10]`; execution errors carry a top-level
 * `type` (NOT_FOUND, UNPROCESSABLE, ...). Messages the simulator cannot map keep graphql-js's text.
 */
import {
  type ASTNode,
  type DocumentNode,
  type GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { isWorldError } from "../core/world-error.js";

export interface GitHubGraphQLError {
  readonly type?: string;
  readonly path?: readonly (string | number)[];
  readonly extensions?: Record<string, unknown>;
  readonly locations?: readonly { line: number; column: number }[];
  readonly message: string;
}

const TOKEN_NAMES: Record<string, string> = {
  "}": "RCURLY",
  "{": "LCURLY",
  "(": "LPAREN",
  ")": "RPAREN",
  "[": "LBRACKET",
  "]": "RBRACKET",
  ":": "COLON",
  $: "VAR_SIGN",
  "!": "BANG",
  "=": "EQUALS",
  "@": "DIR_SIGN",
  "...": "ELLIPSIS",
  "|": "PIPE",
  "&": "AMP",
};

function locationsOf(error: GraphQLError) {
  return error.locations?.map((l) => ({ line: l.line, column: l.column }));
}

export function parseErrorToGitHub(error: GraphQLError): GitHubGraphQLError {
  const loc = error.locations?.[0] ?? { line: 1, column: 1 };
  const at = `at [${loc.line}, ${loc.column}]`;
  const locations = [{ line: loc.line, column: loc.column }];
  const found =
    /(?:found|Unexpected) (<EOF>|Name "([^"]*)"|String "[^"]*"|Int "([^"]*)"|Float "([^"]*)"|"([^"]+)")/.exec(
      error.message,
    );
  if (found?.[1] === "<EOF>") return { message: "Unexpected end of document", locations };
  if (found?.[2] !== undefined)
    return { message: `Parse error on "${found[2]}" (IDENTIFIER) ${at}`, locations };
  if (found?.[3] !== undefined) return { message: `Parse error on "${found[3]}" (INT) ${at}`, locations };
  if (found?.[4] !== undefined) return { message: `Parse error on "${found[4]}" (FLOAT) ${at}`, locations };
  if (found?.[5] !== undefined) {
    return {
      message: `Parse error on "${found[5]}" (${TOKEN_NAMES[found[5]] ?? "UNKNOWN_CHAR"}) ${at}`,
      locations,
    };
  }
  if (found) return { message: `Parse error on ${found[1]} (STRING) ${at}`, locations };
  const char = /Unexpected character: (?:"(.+)"|(U\+[0-9A-F]+))/.exec(error.message);
  if (char) {
    const text = char[1] ?? String.fromCodePoint(Number.parseInt((char[2] ?? "U+FFFD").slice(2), 16));
    return { message: `Parse error on "${text}" (UNKNOWN_CHAR) ${at}`, locations };
  }
  // Anything else (unterminated strings, too many tokens, nesting too deep): graphql-js's words.
  return { message: error.message.replace(/^Syntax Error: /, ""), ...(error.locations ? { locations } : {}) };
}

/** Response-path of names for every field/argument node, graphql-ruby style. */
function astPaths(document: DocumentNode): Map<ASTNode, string[]> {
  const paths = new Map<ASTNode, string[]>();
  const walk = (set: SelectionSetNode | undefined, prefix: string[]) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const path = [...prefix, selection.name.value];
        paths.set(selection, path);
        for (const arg of selection.arguments ?? []) paths.set(arg, [...path, arg.name.value]);
        walk(selection.selectionSet, path);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const path = [...prefix, `... on ${selection.typeCondition?.name.value ?? ""}`];
        paths.set(selection, path);
        walk(selection.selectionSet, path);
      } else {
        paths.set(selection, [...prefix, `... ${selection.name.value}`]);
      }
    }
  };
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION) {
      const root = def.name ? `${def.operation} ${def.name.value}` : def.operation;
      paths.set(def, [root]);
      for (const v of def.variableDefinitions ?? []) paths.set(v, [root]);
      walk(def.selectionSet, [root]);
    } else if (def.kind === Kind.FRAGMENT_DEFINITION) {
      const root = `fragment ${def.name.value}`;
      paths.set(def, [root]);
      walk(def.selectionSet, [root]);
    }
  }
  return paths;
}

/** A type name without list/non-null wrappers. */
const bare = (type: string | undefined): string => (type ?? "").replace(/[![\]]/g, "");

interface Rewrite {
  readonly re: RegExp;
  readonly to: (m: RegExpExecArray) => { message: string; extensions: Record<string, unknown> };
}

const REWRITES: readonly Rewrite[] = [
  {
    re: /^Cannot query field "([^"]+)" on type "([^"]+)"/,
    to: (m) => ({
      message: `Field '${m[1]}' doesn't exist on type '${m[2]}'`,
      extensions: { code: "undefinedField", typeName: m[2], fieldName: m[1] },
    }),
  },
  {
    re: /^Unknown argument "([^"]+)" on field "[^".]+\.([^"]+)"/,
    to: (m) => ({
      message: `Field '${m[2]}' doesn't accept argument '${m[1]}'`,
      extensions: { code: "argumentNotAccepted", name: m[2], typeName: "Field", argumentName: m[1] },
    }),
  },
  {
    re: /^Field "(?:[^"]*\.)?([^".]+)" argument "([^"]+)" of type "([^"]+)" is required, but it was not provided/,
    to: (m) => ({
      message: `Field '${m[1]}' is missing required arguments: ${m[2]}`,
      extensions: { code: "missingRequiredArguments", className: "Field", name: m[1], arguments: m[2] },
    }),
  },
  {
    re: /^Field "([^"]+)" of type "([^"]+)" must have a selection of subfields/,
    to: (m) => ({
      message: `Field must have selections (field '${m[1]}' returns ${bare(m[2])} but has no selections. Did you mean '${m[1]} { ... }'?)`,
      extensions: { code: "selectionMismatch", nodeName: `field '${m[1]}'`, typeName: bare(m[2]) },
    }),
  },
  {
    re: /^Field "([^"]+)" must not have a selection since type "([^"]+)" has no subfields/,
    to: (m) => ({
      message: `Selections can't be made on scalars (field '${m[1]}' returns ${bare(m[2])} but has selections [...])`,
      extensions: { code: "selectionMismatch", nodeName: `field '${m[1]}'`, typeName: bare(m[2]) },
    }),
  },
  {
    re: /^Variable "\$([^"]+)" is never used in operation "([^"]+)"/,
    to: (m) => ({
      message: `Variable $${m[1]} is declared by ${m[2]} but not used`,
      extensions: { code: "variableNotUsed", variableName: m[1] },
    }),
  },
  {
    re: /^Variable "\$([^"]+)" is never used/,
    to: (m) => ({
      message: `Variable $${m[1]} is declared by anonymous query but not used`,
      extensions: { code: "variableNotUsed", variableName: m[1] },
    }),
  },
  {
    re: /^Variable "\$([^"]+)" is not defined by operation "([^"]+)"/,
    to: (m) => ({
      message: `Variable $${m[1]} is used by ${m[2]} but not declared`,
      extensions: { code: "variableNotDefined", variableName: m[1] },
    }),
  },
  {
    re: /^Variable "\$([^"]+)" is not defined/,
    to: (m) => ({
      message: `Variable $${m[1]} is used by anonymous query but not declared`,
      extensions: { code: "variableNotDefined", variableName: m[1] },
    }),
  },
  {
    re: /^Fragment "([^"]+)" is never used/,
    to: (m) => ({
      message: `Fragment ${m[1]} was defined, but not used`,
      extensions: { code: "useAndDefineFragment", fragmentName: m[1] },
    }),
  },
  {
    re: /^Unknown fragment "([^"]+)"/,
    to: (m) => ({
      message: `Fragment ${m[1]} was used, but not defined`,
      extensions: { code: "useAndDefineFragment", fragmentName: m[1] },
    }),
  },
  {
    re: /^Unknown type "([^"]+)"/,
    to: (m) => ({
      message: `No such type ${m[1]}, so it can't be a fragment condition`,
      extensions: { code: "undefinedType", typeName: m[1] },
    }),
  },
  {
    re: /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"/,
    to: (m) => ({
      message: `Nullability mismatch on variable $${m[1]} and argument (${m[2]} / ${m[3]})`,
      extensions: { code: "variableMismatch", variableName: m[1], typeName: m[2] },
    }),
  },
  {
    re: /^(?:Int|Float|String|Boolean|ID) cannot represent|^Expected value of type "([^"]+)", found (.+?)[;.]|^Enum "([^"]+)" cannot represent/,
    to: () => ({ message: "", extensions: { code: "argumentLiteralsIncompatible" } }),
  },
];

/** Maps graphql-js validation errors to graphql-ruby's phrasing, codes and paths. */
export function validationErrorsToGitHub(
  document: DocumentNode,
  errors: readonly GraphQLError[],
): GitHubGraphQLError[] {
  const paths = astPaths(document);
  return errors.map((error) => {
    const node = error.nodes?.[0];
    const path = node ? paths.get(node) : undefined;
    let message = error.message;
    let extensions: Record<string, unknown> | undefined;
    for (const rewrite of REWRITES) {
      const m = rewrite.re.exec(error.message);
      if (!m) continue;
      const out = rewrite.to(m);
      extensions = out.extensions;
      if (out.message) message = out.message;
      else if (node?.kind === Kind.ARGUMENT && path) {
        const field = path[path.length - 2] ?? "";
        message = `Argument '${node.name.value}' on Field '${field}' has an invalid value. Expected type '${/"([^"]+)"/.exec(error.message)?.[1] ?? "unknown"}'.`;
        extensions = { ...extensions, typeName: "Field", argumentName: node.name.value };
      }
      break;
    }
    const locations = locationsOf(error);
    return {
      ...(path ? { path } : {}),
      ...(extensions ? { extensions } : {}),
      ...(locations ? { locations } : {}),
      message,
    };
  });
}

/** Errors raised while executing: World refusals get GitHub's `type`; variable problems its wording. */
export function executionErrorToGitHub(
  error: GraphQLError,
  operation: OperationDefinitionNode | undefined,
): GitHubGraphQLError {
  const original = error.originalError;
  const locations = locationsOf(error);
  const path = error.path ? [...error.path] : undefined;
  if (isWorldError(original)) {
    const type = original.kind === "INVALID" ? "INVALID_CURSOR_ARGUMENTS" : original.kind;
    return {
      type,
      ...(path ? { path } : {}),
      ...(locations ? { locations } : {}),
      message: original.message,
    };
  }
  const variable =
    /^Variable "\$([^"]+)" (?:got invalid value|of required type "([^"]+)" was not provided|of non-null type "([^"]+)" must not be null)/.exec(
      error.message,
    );
  if (variable) {
    const name = variable[1] as string;
    const declared = operation?.variableDefinitions?.find((d) => d.variable.name.value === name);
    const typeText = declared ? printType(declared.type) : (variable[2] ?? variable[3] ?? "unknown");
    return {
      extensions: {
        value: null,
        problems: [{ path: [], explanation: error.message.replace(/^Variable "[^"]+" /, "") }],
      },
      ...(locations ? { locations } : {}),
      message: `Variable $${name} of type ${typeText} was provided invalid value`,
    };
  }
  return { ...(path ? { path } : {}), ...(locations ? { locations } : {}), message: error.message };
}

function printType(type: { kind: string; type?: unknown; name?: { value: string } }): string {
  if (type.kind === Kind.NON_NULL_TYPE) return `${printType(type.type as typeof type)}!`;
  if (type.kind === Kind.LIST_TYPE) return `[${printType(type.type as typeof type)}]`;
  return type.name?.value ?? "";
}
