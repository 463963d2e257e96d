/**
 * Header hygiene shared by the gateway and the cache: which headers never cross a hop (RFC 9110
 * §7.6.1 plus proxy and credential headers), and which GitHub headers describe the moment rather
 * than the resource (rate limits, request ids) and so are not stored with a cached answer.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "authorization",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "cookie",
  "set-cookie",
]);

export function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name);
}

export function withoutHopByHop(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Headers of an answer worth storing: the resource's, not the moment's. */
export function storableHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      HOP_BY_HOP.has(name) ||
      name.startsWith("x-ratelimit-") ||
      name === "x-github-request-id" ||
      name === "date"
    )
      continue;
    if (name.startsWith("x-ao-broker-")) continue;
    out[name] = value;
  }
  return out;
}
