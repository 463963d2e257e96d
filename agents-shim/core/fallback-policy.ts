/**
 * What the shim does when the broker cannot be reached. `fail` (the default) stops gh with a clear
 * message; `direct` runs the real gh as if the shim were not there, saying so on stderr at most
 * once an hour. docs/integrations/agent-orchestrator.md gives the reasons for the default: a
 * broker that is down must not let every agent spend the shared token unaccounted (the failure
 * the broker exists to prevent), and the message names the two ways out.
 */
export type FallbackPolicy = "fail" | "direct";

export const DEFAULT_FALLBACK: FallbackPolicy = "fail";

/** How long one "gh talks to GitHub directly" warning covers. */
export const DIRECT_NOTICE_INTERVAL_MS = 3600_000;

export function parseFallback(value: string | undefined): FallbackPolicy | undefined {
  const v = value?.trim().toLowerCase();
  return v === "fail" || v === "direct" ? v : undefined;
}

export function brokerDownMessage(policy: FallbackPolicy, reason: string): string {
  return policy === "direct"
    ? `ao-broker shim: ${reason}; gh talks to GitHub directly (unaccounted by the broker) until it is back. This is said at most once an hour; AO_BROKER_FALLBACK=fail makes gh stop instead.`
    : `ao-broker shim: ${reason}; gh was not run. (AO_BROKER_FALLBACK=direct lets gh talk to GitHub directly while the broker is down.)`;
}
