/**
 * The pure parts of issue 17's identity and redaction work: the namespace fingerprint (identity and
 * upstream, never the token), the /metrics Host rule, and gh arguments as the broker records them.
 */
import { describe, expect, it } from "vitest";
import { isAllowedMetricsHost } from "../../../../broker/gateway/metrics-host.js";
import {
  identityFingerprint,
  namespaceFor,
  normalizeUpstreamUrl,
} from "../../../../broker/redis/core/identity-fingerprint.js";
import { summarizeArgv } from "../../../../broker/sessions/core/identifiers.js";

describe("identity fingerprint", () => {
  it("is one per user and upstream, and the same for spellings of one upstream", () => {
    const a = identityFingerprint("https://api.github.com", { userId: "1" });
    expect(identityFingerprint("https://API.github.com/", { userId: "1" })).toBe(a);
    expect(identityFingerprint("https://api.github.com", { userId: "2" })).not.toBe(a);
    expect(identityFingerprint("https://ghe.example/api/v3", { userId: "1" })).not.toBe(a);
    expect(normalizeUpstreamUrl("https://user:pw@ghe.example/api/v3/?x=1")).toBe(
      "https://ghe.example/api/v3",
    );
    expect(namespaceFor("aob", a)).toBe(`aob:${a.slice(0, 16)}`);
  });
});

describe("/metrics Host", () => {
  it("allows loopback names and the listen host, nothing else", () => {
    for (const host of ["127.0.0.1:7878", "localhost", "api.github.localhost:7878", "[::1]:9", "127.1.2.3"])
      expect(isAllowedMetricsHost(host, ["127.0.0.1"]), host).toBe(true);
    expect(isAllowedMetricsHost("broker.lan:7878", ["broker.lan"])).toBe(true);
    for (const host of [undefined, "", "evil.example", "localhost.evil.example", "127.0.0.1.evil.example"])
      expect(isAllowedMetricsHost(host, ["127.0.0.1"]), String(host)).toBe(false);
  });
});

describe("recorded gh arguments", () => {
  it("drop secret set bodies, token-shaped strings and Authorization values", () => {
    const pat = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const line = (args: string[]) => summarizeArgv(["gh", ...args]);
    expect(line(["secret", "set", "X", "--body", "plain-canary"])).toBe("gh secret set X --body [REDACTED]");
    expect(line(["secret", "set", "X", "-b", "plain-canary"])).toBe("gh secret set X -b [REDACTED]");
    expect(line(["secret", "set", "X", "--body=plain-canary"])).toBe("gh secret set X --body=[REDACTED]");
    expect(line(["api", "-H", `Authorization: token ${pat}`, "user"])).not.toContain(pat);
    expect(line(["pr", "list", "--search", pat])).toBe("gh pr list --search [REDACTED]");
    expect(line(["pr", "view", "12"])).toBe("gh pr view 12");
  });
});
