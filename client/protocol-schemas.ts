/**
 * zod schemas for the params of every IPC method: the broker validates each call against these at
 * the edge, and the params types in protocol.ts are inferred from them, so the two cannot drift.
 *
 * This is the only client/ module that loads zod (≈ 60 ms of startup). The client never imports it
 * at run time: protocol.ts takes only types from here, and the server reaches it through
 * `loadProtocolSchemas()` (a dynamic import), which keeps the gh shim's hot path free of zod.
 *
 * Objects are strict (an unknown key is an error that names it) so a typo such as `readonly` for
 * `readOnly` fails loudly instead of being ignored; the client and the broker ship together, and a
 * change that is not backward compatible bumps PROTOCOL_VERSION. `hello.client` is the exception:
 * clients may describe themselves with extra keys.
 */
import { z } from "zod";
import type { MethodName } from "./method-names.js";

const PRIORITIES = ["lifecycle", "interactive", "write", "background"] as const;
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Session ids end up in Redis keys and logs: printable, bounded, no spaces or slashes. */
const sessionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -");
/** GitHub's owner and repository name rules, loosely: `owner/name`. */
const repo = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/, "must be owner/name");
const label = z.string().min(1).max(256);
const ttlSeconds = z
  .int()
  .min(1)
  .max(30 * 24 * 3600);
const deadlineMs = z.int().min(1).max(3_600_000);
const headers = z.record(z.string().min(1).max(256), z.string().max(8192));

export const helloParams = z.strictObject({
  protocol: z.int(),
  client: z.looseObject({
    name: z.string().min(1).max(128),
    version: z.string().min(1).max(64),
    /** Self-declared; for logs only (Node cannot read a Unix socket's peer credentials). */
    pid: z.int().positive().optional(),
  }),
});

export const sessionOpenParams = z.strictObject({
  id: sessionId,
  repo,
  weight: z.number().positive().max(1000).optional(),
  readOnly: z.boolean().optional(),
  projectId: label.optional(),
  issueId: label.optional(),
  worktree: z.string().min(1).max(4096).optional(),
  ttlSeconds: ttlSeconds.optional(),
  /**
   * Set by the shim when it opens a session nobody opened (auto-registration): such sessions of
   * one checkout share one parent budget (docs/decisions/0008).
   */
  autoRegistered: z.boolean().optional(),
});

export const sessionCloseParams = z.strictObject({ id: sessionId });

export const emptyParams = z.strictObject({});

export const tokenIssueParams = z.strictObject({
  sessionId,
  argv: z.array(z.string().max(65_536)).max(1024).optional(),
  cwd: z.string().min(1).max(4096).optional(),
  ttlSeconds: ttlSeconds.optional(),
  readOnly: z.boolean().optional(),
});

export const invocationFinishParams = z.strictObject({
  invocationId: z.string().min(1).max(256),
  exitCode: z.int(),
  signal: z.string().min(1).max(32).optional(),
  durationMs: z.number().min(0),
});

export const graphqlParams = z.strictObject({
  sessionId,
  query: z.string().min(1),
  variables: z.record(z.string(), z.unknown()).optional(),
  operationName: z.string().min(1).max(256).optional(),
  priority: z.enum(PRIORITIES).optional(),
  deadlineMs: deadlineMs.optional(),
  allowStale: z.boolean().optional(),
});

export const restParams = z.strictObject({
  sessionId,
  method: z.enum(HTTP_METHODS),
  path: z.string().regex(/^\/[^\s]*$/, "must be a path starting with / (no host, no spaces)"),
  headers: headers.optional(),
  body: z.string().optional(),
  bodyEncoding: z.enum(["utf8", "base64"]).optional(),
  priority: z.enum(PRIORITIES).optional(),
  deadlineMs: deadlineMs.optional(),
  allowStale: z.boolean().optional(),
});

export const lifecycleWatchParams = z.strictObject({
  sessionId,
  repo,
  branch: z.string().min(1).max(255),
  pr: z.int().positive().optional(),
});

export const lifecycleUnwatchParams = z.strictObject({ sessionId });

export const eventsSubscribeParams = z.strictObject({
  /** Exact topics, `prefix.*` patterns or `*`; absent or empty means every topic. */
  topics: z
    .array(
      z.string().regex(/^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?)$/, "must be a topic, prefix.* or *"),
    )
    .max(64)
    .optional(),
});

export const eventsUnsubscribeParams = z.strictObject({ subscriptionId: z.string().min(1).max(64) });

/** Method name → params schema; `satisfies` makes a method without a schema a compile error. */
export const paramsSchemas = {
  hello: helloParams,
  "session.open": sessionOpenParams,
  "session.close": sessionCloseParams,
  "session.list": emptyParams,
  "token.issue": tokenIssueParams,
  "invocation.finish": invocationFinishParams,
  "budget.get": emptyParams,
  graphql: graphqlParams,
  rest: restParams,
  stats: emptyParams,
  "lifecycle.watch": lifecycleWatchParams,
  "lifecycle.unwatch": lifecycleUnwatchParams,
  "lifecycle.status": emptyParams,
  "events.subscribe": eventsSubscribeParams,
  "events.unsubscribe": eventsUnsubscribeParams,
  "broker.status": emptyParams,
  "broker.shutdown": emptyParams,
} as const satisfies { readonly [M in MethodName]: z.ZodType };

export type ParamsSchemas = typeof paramsSchemas;
