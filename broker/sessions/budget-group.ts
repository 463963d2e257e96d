/**
 * The parent budget of an auto-registered session (docs/decisions/0008): every session the shim
 * opened on first use in one checkout takes part in fair share as one participant, so an agent
 * that sets twenty AO_SESSION_IDs still gets one share. Sessions opened on purpose (AO, `ao-broker
 * session open`) keep their own. The id is a digest, so no path reaches the budget keys.
 */
import { createHash } from "node:crypto";

export function autoRegisteredGroup(worktree: string | undefined): string {
  const where = worktree ?? "outside-any-checkout";
  return `auto:${createHash("sha256").update(where).digest("hex").slice(0, 16)}`;
}
