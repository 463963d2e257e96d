/**
 * DNS rebinding guard for /metrics: a page in a browser can make a name it controls resolve to
 * 127.0.0.1 and read a loopback-only endpoint, but the request then carries that name in `Host`.
 * So /metrics answers only a Host that is a loopback name or address, or the configured listen
 * host (or publicHost), with any port.
 */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** `host:port`, `[v6]:port` or a bare name → the lower-case name (brackets kept off). */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value : value.slice(1, end);
  }
  const colon = value.indexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

export function isAllowedMetricsHost(header: string | undefined, allowed: readonly string[]): boolean {
  if (!header) return false;
  const name = hostName(header);
  if (LOOPBACK_NAMES.has(name) || name.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(name))
    return true;
  return allowed.some((host) => host && hostName(host) === name);
}
