import { describe, expect, it } from "vitest";
import {
  type AoTraceResponse,
  addAoTraceResponse,
  buildAoTraceRow,
  EMPTY_REQUEST_SUMMARY,
  serializeAoTraceRow,
} from "../../../otel/index.js";

const PAT = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const FINISHED = Date.parse("2026-05-01T10:00:01.250Z");

function summary(...responses: AoTraceResponse[]) {
  return responses.reduce(addAoTraceResponse, EMPTY_REQUEST_SUMMARY);
}

const graphqlHeaders = {
  "x-ratelimit-limit": "5000",
  "x-ratelimit-remaining": "4990",
  "x-ratelimit-reset": "1777630000",
  "x-ratelimit-resource": "graphql",
};

describe("buildAoTraceRow", () => {
  describe("when a gh invocation made two GraphQL requests", () => {
    it("fills every AO field from the invocation and its requests", () => {
      const row = buildAoTraceRow({
        component: "ao-broker.shim",
        finishedAt: FINISHED,
        durationMs: 1250.4,
        args: ["pr", "checks", "1"],
        projectId: "widgets",
        sessionId: "ta-12",
        invocationId: "inv-7",
        cwd: "/work/ta-12",
        exitCode: 0,
        stdoutBytes: 812,
        stderrBytes: 0,
        requests: summary(
          {
            method: "POST",
            path: "/graphql",
            status: 200,
            cost: 1,
            cache: "MISS",
            resource: "graphql",
            headers: graphqlHeaders,
            waitedMs: 5,
          },
          {
            method: "POST",
            path: "/graphql",
            status: 200,
            cost: 0,
            cache: "HIT",
            resource: "graphql",
            headers: { ...graphqlHeaders, "x-ratelimit-remaining": "4989", etag: 'W/"abc"' },
          },
        ),
      });
      expect(row).toEqual({
        timestamp: "2026-05-01T10:00:01.250Z",
        component: "ao-broker.shim",
        operation: "gh.pr.checks",
        projectId: "widgets",
        sessionId: "ta-12",
        cwd: "/work/ta-12",
        args: ["pr", "checks", "1"],
        ok: true,
        exitCode: 0,
        durationMs: 1250,
        stdoutBytes: 812,
        stderrBytes: 0,
        statusLine: "HTTP/1.1 200 OK",
        httpStatus: 200,
        etag: 'W/"abc"',
        rateLimitLimit: 5000,
        rateLimitRemaining: 4989,
        rateLimitReset: 1777630000,
        rateLimitResource: "graphql",
        graphqlCost: 1,
        graphqlRemaining: 4989,
        graphqlResetAt: new Date(1777630000 * 1000).toISOString(),
        broker: {
          invocationId: "inv-7",
          requests: 2,
          pointsCharged: 1,
          waitedMs: 5,
          cache: { MISS: 1, HIT: 1 },
        },
      });
      // AO's optional fields are omitted when unknown, never written as null.
      expect(serializeAoTraceRow(row)).not.toContain("null");
      expect(row).not.toHaveProperty("endpoint");
      expect(row).not.toHaveProperty("signal");
    });
  });

  describe("when the invocation is gh api with a token in its arguments", () => {
    it("redacts the arguments and reports the endpoint and method gh used", () => {
      const row = buildAoTraceRow({
        component: "ao-broker.shim",
        finishedAt: FINISHED,
        durationMs: 10,
        args: [
          "api",
          "-H",
          `Authorization: token ${PAT}`,
          "repos/acme/widgets/issues",
          "-f",
          "title=x",
          "-f",
          `token=${PAT}`,
        ],
        exitCode: 1,
        signal: "SIGTERM",
        requests: summary({
          method: "POST",
          path: "/repos/acme/widgets/issues",
          status: 304,
          cost: 0,
          resource: "core",
        }),
      });
      expect(row.operation).toBe("gh.api.repos");
      expect(row.endpoint).toBe("repos/acme/widgets/issues");
      expect(row.method).toBe("POST");
      expect(row.ok).toBe(false);
      expect(row.signal).toBe("SIGTERM");
      expect(row.statusLine).toBe("HTTP/1.1 304 Not Modified");
      expect(row.graphqlCost).toBeUndefined();
      expect(JSON.stringify(row)).not.toContain(PAT);
      expect(row.args).toContain("Authorization: [REDACTED]");
      expect(row.args).toContain("token=[REDACTED]");
      expect(row.stdoutBytes).toBe(0);
    });
  });

  describe("when the broker made the call itself (no gh argv)", () => {
    it("describes the request as gh api would", () => {
      const graphql = buildAoTraceRow({
        component: "ao-broker.lifecycle",
        finishedAt: FINISHED,
        durationMs: 40,
        sessionId: "ta-1",
        requests: summary({
          method: "POST",
          path: "/graphql",
          status: 200,
          cost: 1,
          resource: "graphql",
          headers: graphqlHeaders,
        }),
      });
      expect(graphql).toMatchObject({
        operation: "gh.api.graphql",
        endpoint: "graphql",
        method: "POST",
        ok: true,
        args: [],
        graphqlCost: 1,
      });
      const rest = buildAoTraceRow({
        component: "ao-broker.lifecycle",
        finishedAt: FINISHED,
        durationMs: 40,
        requests: summary({
          method: "GET",
          path: "/repos/a/b/pulls?state=open",
          status: 403,
          resource: "core",
        }),
      });
      expect(rest).toMatchObject({
        operation: "gh.api.repos",
        endpoint: "repos/a/b/pulls?state=open",
        method: "GET",
        ok: false,
        httpStatus: 403,
      });
    });
  });
});

describe("serializeAoTraceRow", () => {
  it("writes one line and shortens huge arguments so the line fits in PIPE_BUF", () => {
    const query = `query=${"x".repeat(10_000)}`;
    const row = buildAoTraceRow({
      component: "c",
      finishedAt: FINISHED,
      durationMs: 1,
      args: ["api", "graphql", "-f", query],
      exitCode: 0,
      requests: EMPTY_REQUEST_SUMMARY,
    });
    const line = serializeAoTraceRow(row);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.indexOf("\n")).toBe(line.length - 1);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4096);
    const parsed = JSON.parse(line) as { args: string[] };
    expect(parsed.args[3]).toMatch(/^query=x{194}…\[\+9806 chars\]$/);
  });
});
