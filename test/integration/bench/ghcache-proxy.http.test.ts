/** The proxy arm's ghcache-style server in front of the real simulator: exact upstream counts. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GhcacheProxy } from "../../../bench/arms/ghcache-proxy.js";
import { HttpTransport } from "../../../bench/http-transport.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";

describe("GhcacheProxy", () => {
  let sim: RunningSimulator;
  let proxy: GhcacheProxy;
  let url: string;
  const transport = new HttpTransport({ connections: 64 });
  const get = (path: string, extra: Record<string, string> = {}) =>
    transport.send({
      url: `${url}${path}`,
      method: "GET",
      headers: { authorization: `token ${sim.token}`, ...extra },
    });

  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    proxy = new GhcacheProxy({ upstream: sim.url, transport });
    url = await proxy.start();
  });

  afterAll(async () => {
    await proxy.close();
    await sim.close();
    await transport.close();
  });

  it("revalidates a repeated GET: the second costs GitHub nothing (304) and the client still gets the 200", async () => {
    const before = sim.stats();
    const first = await get("/repos/acme/widgets/pulls/1");
    const second = await get("/repos/acme/widgets/pulls/1");
    const after = sim.stats();
    expect(first.headers["x-cache-mode"]).toBe("MISS");
    expect(second.headers["x-cache-mode"]).toBe("REVALIDATED");
    expect(second.status).toBe(200);
    expect(second.body.equals(first.body)).toBe(true);
    expect(after.requests.total - before.requests.total).toBe(2);
    expect(after.requests.notModified - before.requests.notModified).toBe(1);
    expect(after.restCharged - before.restCharged).toBe(1);
  });

  it("coalesces identical GETs in flight into one upstream call", async () => {
    const before = sim.stats();
    const answers = await Promise.all(Array.from({ length: 20 }, () => get("/repos/acme/widgets/issues/10")));
    const after = sim.stats();
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.headers["x-cache-mode"] === "COALESCED").length).toBeGreaterThan(0);
    expect(after.requests.total - before.requests.total).toBeLessThan(20);
  });

  it("passes GraphQL through untouched (no GraphQL cache in a ghproxy)", async () => {
    const body = JSON.stringify({ query: "query { viewer { login } }" });
    const post = () =>
      transport.send({
        url: `${url}/graphql`,
        method: "POST",
        headers: { authorization: `token ${sim.token}`, "content-type": "application/json" },
        body,
      });
    const before = sim.stats();
    const a = await post();
    await post();
    expect(a.headers["x-cache-mode"]).toBe("BYPASS");
    expect(sim.stats().graphqlPoints - before.graphqlPoints).toBe(2);
  });

  it("hands AO's own conditional request its 304", async () => {
    const first = await get("/repos/acme/widgets/pulls?state=open&per_page=1");
    const etag = first.headers.etag ?? "";
    const again = await get("/repos/acme/widgets/pulls?state=open&per_page=1", { "if-none-match": etag });
    expect(again.status).toBe(304);
  });
});
