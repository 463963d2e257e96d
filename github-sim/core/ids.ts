/**
 * Deterministic identifiers: the same scenario always yields the same SHAs and global node ids,
 * so two simulators built from one scenario answer byte-for-byte alike (ETags included).
 *
 * Node ids imitate GitHub's current format (`PR_kwDO…`): a type prefix and an opaque base64url
 * tail. They are looked up in the World's node table, never decoded.
 */
import { createHash } from "node:crypto";

/** GitHub's node id prefixes for the types the simulator serves. */
export const NODE_PREFIX = {
  Repository: "R_kgDO",
  PullRequest: "PR_kwDO",
  Issue: "I_kwDO",
  User: "U_kgDO",
  Bot: "BOT_kgDO",
  Organization: "O_kgDO",
  Label: "LA_kwDO",
  Milestone: "MI_kwDO",
  IssueComment: "IC_kwDO",
  PullRequestReview: "PRR_kwDO",
  PullRequestReviewComment: "PRRC_kwDO",
  PullRequestReviewThread: "PRRT_kwDO",
  Commit: "C_kwDO",
  CheckRun: "CR_kwDO",
  CheckSuite: "CS_kwDO",
  StatusContext: "SC_kwDO",
  Workflow: "W_kwDO",
  WorkflowRun: "WFR_kwDO",
  Artifact: "MDg6QXJ0aWZhY3Q",
} as const;

export type NodeType = keyof typeof NODE_PREFIX;

export function makeNodeId(type: NodeType, key: string): string {
  return `${NODE_PREFIX[type]}${Buffer.from(key).toString("base64url")}`;
}

/** A 40-hex-digit SHA derived from a seed string. */
export function fakeSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}
