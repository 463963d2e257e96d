import { describe, expect, it } from "vitest";
import { ghcacheKey, resolveUpstream, upstreamHeaders } from "../../../bench/core/ghcache-policy.js";

const stored = {
  etag: '"v1"',
  status: 200,
  headers: { "content-type": "application/json", etag: '"v1"' },
  body: Buffer.from("{}"),
};

describe("ghcache policy", () => {
  it("caches GETs only, partitioned by token and Accept", () => {
    expect(ghcacheKey("POST", "/graphql", {})).toBeUndefined();
    const a = ghcacheKey("GET", "/repos/o/r", { authorization: "token a" });
    expect(a).not.toBe(ghcacheKey("GET", "/repos/o/r", { authorization: "token b" }));
    expect(a).not.toBe(ghcacheKey("GET", "/repos/o/r", { authorization: "token a", accept: "x" }));
    expect(a).not.toContain("token a");
  });

  it("revalidates every GET with the stored ETag, keeping the client's own If-None-Match", () => {
    expect(upstreamHeaders({ accept: "a" }, stored)["if-none-match"]).toBe('"v1"');
    expect(upstreamHeaders({ "if-none-match": '"mine"' }, stored)["if-none-match"]).toBe('"mine"');
    expect(upstreamHeaders({}, undefined)["if-none-match"]).toBeUndefined();
  });

  describe("when GitHub answers 304 to our revalidation", () => {
    it("serves the stored 200 with GitHub's fresh rate-limit headers", () => {
      const r = resolveUpstream({
        clientIfNoneMatch: undefined,
        stored,
        upstream: { status: 304, headers: { "x-ratelimit-remaining": "42" }, body: Buffer.alloc(0) },
      });
      expect(r.mode).toBe("REVALIDATED");
      expect(r.answer.status).toBe(200);
      expect(r.answer.body.toString()).toBe("{}");
      expect(r.answer.headers["x-ratelimit-remaining"]).toBe("42");
    });

    it("passes the 304 on when the client asked with the same ETag (AO's guards)", () => {
      const r = resolveUpstream({
        clientIfNoneMatch: '"v1"',
        stored,
        upstream: { status: 304, headers: {}, body: Buffer.alloc(0) },
      });
      expect(r.answer.status).toBe(304);
    });
  });

  it("stores a fresh 200 with an ETag and never stores errors", () => {
    const fresh = resolveUpstream({
      clientIfNoneMatch: undefined,
      stored: undefined,
      upstream: { status: 200, headers: { etag: '"v2"' }, body: Buffer.from("[]") },
    });
    expect(fresh.mode).toBe("MISS");
    expect(fresh.store?.etag).toBe('"v2"');
    const error = resolveUpstream({
      clientIfNoneMatch: undefined,
      stored,
      upstream: { status: 500, headers: {}, body: Buffer.alloc(0) },
    });
    expect(error.store).toBeUndefined();
    expect(error.answer.status).toBe(500);
  });
});
