import { createServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UpstreamClient, UpstreamErrors } from "../../../../broker/upstream/index.js";
import { isAoError } from "../../../../common/index.js";
import { FakeUpstream } from "./fake-upstream.js";

const PAT = "ghp_TESTSECRETabcdefghijklmnopqrstuvwxyz0123";
let fake: FakeUpstream;
let client: UpstreamClient;

beforeEach(async () => {
  fake = await FakeUpstream.start();
  client = new UpstreamClient({ baseUrl: fake.url, token: PAT, timeoutMs: 2_000 });
});
afterEach(async () => {
  await client.close();
  await fake.close();
});

describe("UpstreamClient", () => {
  describe("when GitHub answers", () => {
    it("returns status, headers and the body bytes exactly", async () => {
      const body = Buffer.from('{"number":1,  "title":"Fix \\u00e9 bug"}\n');
      fake.route("GET", "/repos/acme/widgets/pulls/1", {
        status: 200,
        headers: {
          "content-type": "application/json; charset=utf-8",
          etag: 'W/"abc"',
          "x-ratelimit-remaining": "4999",
        },
        body,
      });
      const res = await client.send({ method: "GET", path: "/repos/acme/widgets/pulls/1" });
      expect(res.status).toBe(200);
      expect(res.body.equals(body)).toBe(true);
      expect(res.headers).toMatchObject({ etag: 'W/"abc"', "x-ratelimit-remaining": "4999" });
      expect(res.headers["content-length"]).toBeUndefined();
      expect(res.headers.connection).toBeUndefined();
      expect(res.upstreamMs).toBeGreaterThanOrEqual(0);
    });

    it.each([
      { name: "a 304 with no body", status: 304, body: undefined },
      { name: "a 404 in GitHub's error shape", status: 404, body: '{"message":"Not Found"}' },
      {
        name: "a 422 with validation errors",
        status: 422,
        body: '{"message":"Validation Failed","errors":[]}',
      },
      { name: "a 502 with an HTML body", status: 502, body: "<html>bad gateway</html>" },
      { name: "a 403 rate-limit answer", status: 403, body: '{"message":"API rate limit exceeded"}' },
    ])("returns $name instead of throwing", async ({ status, body }) => {
      fake.route("GET", "/x", { status, ...(body === undefined ? {} : { body }) });
      const res = await client.send({ method: "GET", path: "/x" });
      expect(res.status).toBe(status);
      expect(res.body.toString()).toBe(body ?? "");
    });

    it("decodes a gzip body and drops content-encoding", async () => {
      fake.route("GET", "/gz", { body: { ok: true }, gzip: true });
      const res = await client.send({ method: "GET", path: "/gz" });
      expect(JSON.parse(res.body.toString())).toEqual({ ok: true });
      expect(res.headers["content-encoding"]).toBeUndefined();
    });

    it("returns a redirect instead of following it", async () => {
      fake.route("GET", "/repos/a/b/actions/runs/1/logs", {
        status: 302,
        headers: { location: "https://blob.example/logs.zip" },
      });
      const res = await client.send({ method: "GET", path: "/repos/a/b/actions/runs/1/logs" });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe("https://blob.example/logs.zip");
      expect(fake.hits).toHaveLength(1);
    });
  });

  describe("what it sends", () => {
    it("sends the PAT, never the caller's credentials, and the caller's own headers", async () => {
      fake.route("GET", "/user", { body: {} });
      await client.send({
        method: "GET",
        path: "/user",
        headers: {
          authorization: "token session-token",
          accept: "application/vnd.github.v3.raw",
          "user-agent": "GitHub CLI 2.23.0",
          "x-ao-broker-cost": "1",
          connection: "close",
        },
      });
      const [hit] = fake.hits;
      expect(hit!.headers.authorization).toBe(`token ${PAT}`);
      expect(hit!.headers.accept).toBe("application/vnd.github.v3.raw");
      expect(hit!.headers["user-agent"]).toBe("GitHub CLI 2.23.0");
      expect(hit!.headers["x-ao-broker-cost"]).toBeUndefined();
    });

    it("keeps the path and query verbatim, colons and braces included", async () => {
      fake.route("GET", "/search/issues", { body: {} });
      const path = "/search/issues?q=repo:acme/widgets+is:pr+{x}&per_page=1";
      await client.send({ method: "GET", path });
      expect(fake.hits[0]!.path).toBe(path);
    });

    it("sends the body bytes of a write unchanged", async () => {
      fake.route("POST", "/graphql", { body: { data: {} } });
      const body = Buffer.from('{"query":"mutation{x}","variables":{ "a" :1}}');
      await client.send({
        method: "POST",
        path: "/graphql",
        body,
        headers: { "content-type": "application/json" },
      });
      expect(fake.hits[0]!.body.equals(body)).toBe(true);
      expect(fake.hits[0]!.headers["content-type"]).toBe("application/json");
    });

    it("reuses keep-alive connections instead of opening one per request", async () => {
      fake.route("GET", "/a", { body: {} });
      for (let i = 0; i < 10; i++) await client.send({ method: "GET", path: "/a" });
      // undici may open a second socket while the first is being released; never one per request.
      expect(fake.connections).toBeLessThanOrEqual(2);
    });

    it("sends no Authorization header when it has no token", async () => {
      const anonymous = new UpstreamClient({ baseUrl: fake.url });
      fake.route("GET", "/meta", { body: {} });
      await anonymous.send({ method: "GET", path: "/meta" });
      await anonymous.close();
      expect(fake.hits[0]!.headers.authorization).toBeUndefined();
    });
  });

  describe("when the exchange fails", () => {
    const leaksNothing = (err: unknown) => {
      const text = `${(err as Error).message} ${JSON.stringify(err)} ${String((err as Error).stack)}`;
      expect(text).not.toContain(PAT);
    };

    it("reports a timeout as AO_ERR_UPSTREAM_TIMEOUT, sent unknown", async () => {
      fake.route("POST", "/slow", { hang: true });
      const err = await client
        .send({ method: "POST", path: "/slow", timeoutMs: 200 })
        .catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_TIMEOUT)).toBe(true);
      expect((err as { data: { sent: unknown } }).data.sent).toBe("unknown");
      expect(fake.count("POST", "/slow")).toBe(1);
      leaksNothing(err);
    });

    it("reports a reset connection as AO_ERR_UPSTREAM_CONNECTION, sent unknown", async () => {
      fake.route("POST", "/reset", { reset: true });
      const err = await client.send({ method: "POST", path: "/reset" }).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_CONNECTION)).toBe(true);
      expect((err as { data: { sent: unknown } }).data.sent).toBe("unknown");
      leaksNothing(err);
    });

    it("reports a refused connection as AO_ERR_UPSTREAM_UNREACHABLE, never sent", async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
      const port = (closed.address() as { port: number }).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const nowhere = new UpstreamClient({ baseUrl: `http://127.0.0.1:${port}`, token: PAT });
      const err = await nowhere.send({ method: "GET", path: "/x" }).catch((e: unknown) => e);
      await nowhere.close();
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_UNREACHABLE)).toBe(true);
      expect((err as { data: { sent: unknown } }).data.sent).toBe(false);
      leaksNothing(err);
    });

    it("refuses a malformed request before sending anything", async () => {
      const err = await client.send({ method: "get x", path: "nope" }).catch((e: unknown) => e);
      expect(isAoError(err, UpstreamErrors.AO_ERR_UPSTREAM_BAD_REQUEST)).toBe(true);
      expect(fake.hits).toHaveLength(0);
    });
  });
});
