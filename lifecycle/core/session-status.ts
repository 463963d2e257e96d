/**
 * AO's session statuses (agent-orchestrator's lifecycle manager), kept verbatim so the orchestrator
 * can consume ao-broker's events without a translation table. Terminal statuses absorb every later
 * input: once a session is merged or killed nothing a poll or webhook says can move it again.
 */
export const SESSION_STATUSES = [
  "spawning",
  "working",
  "detecting",
  "pr_open",
  "ci_failed",
  "review_pending",
  "changes_requested",
  "approved",
  "mergeable",
  "merged",
  "cleanup",
  "needs_input",
  "stuck",
  "errored",
  "killed",
  "idle",
  "done",
  "terminated",
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  "killed",
  "terminated",
  "done",
  "cleanup",
  "errored",
  "merged",
]);

export function isTerminalStatus(status: SessionStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

export function isSessionStatus(value: unknown): value is SessionStatus {
  return typeof value === "string" && (SESSION_STATUSES as readonly string[]).includes(value);
}
