/**
 * Names for gh invocations, in AO's convention: `gh.<subcommand>.<first positional>` (gh.pr.view,
 * gh.api.graphql, gh.api.repos), the `operation` field of AO's trace rows. Two uses with different
 * needs: trace rows and CallRecords keep the exact operation; metric labels and span names need a
 * bounded set, so `commandLabel` maps anything outside a fixed vocabulary to "other".
 *
 * Flags that take a separate value are skipped together with their value, so `gh api -X POST graphql`
 * is gh.api.graphql, not gh.api.POST. For gh api the positional is an endpoint path; only its first
 * segment is kept (repos/acme/widgets/pulls → repos) to keep cardinality bounded, as AO does.
 */

/** Flags (of the gh commands agents use) that consume the following argument as their value. */
const FLAGS_WITH_VALUE = new Set([
  "-X",
  "--method",
  "-H",
  "--header",
  "-f",
  "--raw-field",
  "-F",
  "--field",
  "--input",
  "-t",
  "--template",
  "-q",
  "--jq",
  "-R",
  "--repo",
  "--hostname",
  "-p",
  "--preview",
  "--cache",
]);

/** Operations the broker itself originates (not a gh subprocess). */
export const BROKER_OPERATIONS = {
  lifecycle: "ao.lifecycle",
  ipcGraphql: "ao.ipc.graphql",
  ipcRest: "ao.ipc.rest",
  webhook: "ao.webhook",
  /** The broker re-fetching answers agents read after a signal or a write moved them. */
  refresh: "ao.refresh",
} as const;

/**
 * The bounded vocabulary of command labels (metrics, span names). Everything agents and AO are
 * known to run (test/fixtures/gh-2.23-traffic), plus the broker's own operations.
 */
export const COMMAND_VOCABULARY: readonly string[] = [
  "gh.pr.view",
  "gh.pr.checks",
  "gh.pr.list",
  "gh.pr.create",
  "gh.pr.status",
  "gh.pr.merge",
  "gh.pr.diff",
  "gh.pr.comment",
  "gh.pr.review",
  "gh.pr.edit",
  "gh.pr.ready",
  "gh.pr.close",
  "gh.pr.reopen",
  "gh.pr.checkout",
  "gh.issue.view",
  "gh.issue.list",
  "gh.issue.create",
  "gh.issue.comment",
  "gh.issue.edit",
  "gh.issue.close",
  "gh.run.list",
  "gh.run.view",
  "gh.run.watch",
  "gh.run.rerun",
  "gh.run.download",
  "gh.repo.view",
  "gh.api.graphql",
  "gh.api.repos",
  "gh.api.rate_limit",
  "gh.api.user",
  "gh.api.search",
  "gh.api.notifications",
  "gh.auth.status",
  "gh.auth.token",
  BROKER_OPERATIONS.lifecycle,
  BROKER_OPERATIONS.ipcGraphql,
  BROKER_OPERATIONS.ipcRest,
  BROKER_OPERATIONS.webhook,
  BROKER_OPERATIONS.refresh,
];

export const OTHER_COMMAND = "other";

/** AO's operation name for a gh argv (the arguments after `gh`). */
export function ghOperation(args: readonly string[]): string {
  const subcommand = args[0];
  if (subcommand === undefined || subcommand === "") return "gh";
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("-")) {
      if (FLAGS_WITH_VALUE.has(arg)) i++;
      continue;
    }
    const firstSegment = arg.replace(/^\/+/, "").split("/")[0]?.split("?")[0] ?? "";
    return firstSegment === "" ? `gh.${subcommand}` : `gh.${subcommand}.${firstSegment}`;
  }
  return `gh.${subcommand}`;
}

/** The first positional of `gh api ...` (the endpoint as typed), or undefined for other commands. */
export function ghApiEndpoint(args: readonly string[]): string | undefined {
  if (args[0] !== "api") return undefined;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("-")) {
      if (FLAGS_WITH_VALUE.has(arg)) i++;
      continue;
    }
    return arg;
  }
  return undefined;
}

/**
 * The HTTP method `gh api` uses: -X/--method when given, else POST when any field or --input is
 * given (gh's documented default), else GET. Undefined for other commands.
 */
export function ghApiMethod(args: readonly string[]): string | undefined {
  if (args[0] !== "api") return undefined;
  let hasBody = false;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-X" || arg === "--method") return (args[i + 1] ?? "GET").toUpperCase();
    if (arg.startsWith("--method=")) return arg.slice("--method=".length).toUpperCase();
    if (arg.startsWith("-X") && arg.length > 2) return arg.slice(2).toUpperCase();
    if (["-f", "--raw-field", "-F", "--field", "--input"].includes(arg)) hasBody = true;
    if (arg.startsWith("--raw-field=") || arg.startsWith("--field=") || arg.startsWith("--input="))
      hasBody = true;
  }
  return hasBody ? "POST" : "GET";
}

/** A metric/span-safe label: the operation if it is in the vocabulary, else "other". */
export function commandLabel(operation: string | undefined): string {
  return operation !== undefined && COMMAND_VOCABULARY.includes(operation) ? operation : OTHER_COMMAND;
}

/** Span name for a gh invocation: "gh pr checks" (bounded by the vocabulary). */
export function invocationSpanName(operation: string | undefined): string {
  const label = commandLabel(operation);
  return label === OTHER_COMMAND ? "gh" : label.replace(/\./g, " ");
}
