/**
 * What the broker's tokens, sockets and gateway let through (issue 9, docs/SECURITY.md): session
 * and invocation tokens expire and die with their session, read-only tokens cannot write, the IPC
 * socket is the owner's alone and the gateway binds loopback by default, and the gateway is not an
 * open proxy — absolute URIs to other hosts, CONNECT, Host-header tricks, userinfo, dot segments
 * and encoded slashes are refused before anything is sent anywhere. A small "victim" HTTP server
 * counts any request that leaks through; raw requests go over a TCP socket, byte for byte.
 */
import { statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../broker/config/load-config.js";
import { type BrokerClient, connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: BrokerClient;
let victim: Server;
let victimHits = 0;
let victimPort = 0;
let token: string;
let port: number;

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({ redisUrl: redis.url, prefix: redis.prefix(), upstreamUrl: sim.url });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
  token = (await broker.openSession("sec")).token;
  port = Number(new URL(broker.broker.gatewayUrl).port);
  victim = createServer((_req, res) => {
    victimHits++;
    res.end("victim");
  });
  await new Promise<void>((resolve) => victim.listen(0, "127.0.0.1", resolve));
  victimPort = (victim.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
  await new Promise<void>((resolve) => victim?.close(() => resolve()));
});

/** Sends raw bytes to the gateway and returns the status line and the whole answer. */
function raw(request: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no answer to ${request.split("\r\n")[0]}`));
    });
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("end", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on("error", reject);
    socket.write(request);
  });
}

const get = (target: string, headers: Record<string, string> = {}) =>
  raw(
    `GET ${target} HTTP/1.1\r\n${Object.entries({
      host: `127.0.0.1:${port}`,
      authorization: `token ${token}`,
      connection: "close",
      ...headers,
    })
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n")}\r\n\r\n`,
  );

async function status(
  path: string,
  bearer: string,
  init: { method?: string; body?: unknown } = {},
): Promise<number> {
  const res = await fetch(`${broker.broker.gatewayUrl}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `token ${bearer}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("broker tokens", () => {
  it("expire: an invocation token issued for one second stops working after it", async () => {
    const issued = await ipc.issueToken({ sessionId: "sec", argv: ["pr", "view", "1"], ttlSeconds: 1 });
    expect(await status("/repos/acme/widgets/pulls/1", issued.token)).toBe(200);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(await status("/repos/acme/widgets/pulls/1", issued.token)).toBe(401);
  });

  it("are revoked with their session, invocation tokens included, at once", async () => {
    const session = await broker.openSession("short-lived");
    const invocation = await ipc.issueToken({ sessionId: "short-lived", argv: ["pr", "list"] });
    expect(await status("/repos/acme/widgets/pulls/2", session.token)).toBe(200);
    expect(await status("/repos/acme/widgets/pulls/2", invocation.token)).toBe(200);
    await ipc.closeSession("short-lived");
    expect(await status("/repos/acme/widgets/pulls/2", session.token)).toBe(401);
    expect(await status("/repos/acme/widgets/pulls/2", invocation.token)).toBe(401);
  });

  it("read-only: cannot write through the gateway (REST or GraphQL) nor over IPC, and nothing reaches GitHub", async () => {
    const readOnly = await broker.openSession("watcher", { readOnly: true });
    const narrowed = await ipc.issueToken({ sessionId: "sec", readOnly: true });
    const before = sim.world.repo("acme/widgets")?.issues.get(10)?.comments.length;
    const posts = () =>
      sim.stats().requests.byOperation["POST /repos/{owner}/{repo}/issues/{issue_number}/comments"] ?? 0;
    const sent = posts();
    for (const t of [readOnly.token, narrowed.token]) {
      expect(
        await status("/repos/acme/widgets/issues/10/comments", t, { method: "POST", body: { body: "no" } }),
      ).toBe(403);
      expect(
        await status("/graphql", t, {
          method: "POST",
          body: {
            query: 'mutation { addComment(input: {subjectId: "x", body: "no"}) { clientMutationId } }',
          },
        }),
      ).toBe(403);
      expect(await status("/repos/acme/widgets/pulls/1", t)).toBe(200);
    }
    await expect(
      ipc.rest({
        sessionId: "watcher",
        method: "POST",
        path: "/repos/acme/widgets/issues/10/comments",
        body: "{}",
      }),
    ).rejects.toThrow();
    expect(posts()).toBe(sent);
    expect(sim.world.repo("acme/widgets")?.issues.get(10)?.comments.length).toBe(before);
  });
});

describe("the broker's sockets", () => {
  it("keeps the IPC socket to its owner (0600) in a private directory, and the gateway on loopback by default", () => {
    const socket = statSync(broker.broker.socketPath);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(dirname(broker.broker.socketPath)).mode & 0o077).toBe(0);
    expect(new URL(broker.broker.gatewayUrl).hostname).toBe("127.0.0.1");
    expect(loadConfig({ env: { GITHUB_TOKEN: "ghp_x" } }).config.listen).toMatch(/^127\.0\.0\.1:/);
  });

  it("keeps the embedded Redis' socket to its owner", async () => {
    const socket = statSync(redis.server.socketPath);
    expect(socket.mode & 0o077).toBe(0);
  });
});

describe("the gateway is not an open proxy", () => {
  it.each([
    {
      name: "an absolute URI for another host",
      target: () => `http://127.0.0.1:${victimPort}/x`,
      status: 403,
    },
    {
      name: "an https absolute URI for another host",
      target: () => `https://127.0.0.1:${victimPort}/x`,
      status: 403,
    },
    {
      name: "the API host with userinfo",
      target: () => "http://user:pass@api.github.localhost/repos/acme/widgets",
      status: 403,
    },
    {
      name: "the API host as userinfo of another",
      target: () => `http://api.github.localhost@127.0.0.1:${victimPort}/x`,
      status: 403,
    },
    {
      name: "the API host with another port",
      target: () => "http://api.github.localhost:8080/repos/acme/widgets",
      status: 403,
    },
    { name: "a non-HTTP scheme", target: () => "file:///etc/passwd", status: 403 },
    { name: "dot segments", target: () => "/repos/acme/widgets/../../../etc/passwd", status: 400 },
    { name: "encoded dot segments", target: () => "/repos/%2e%2e/%2E%2E/etc/passwd", status: 400 },
    {
      name: "encoded slashes hiding dot segments",
      target: () => "/repos/acme/widgets%2f..%2f..%2fuser",
      status: 400,
    },
    { name: "an undecodable escape", target: () => "/repos/acme/%zz/pulls", status: 400 },
    { name: "a backslash", target: () => "/repos\\acme/widgets", status: 400 },
    { name: "a request target that is not a path", target: () => "*", status: 400 },
    { name: "the broker's own namespace", target: () => "/_sim/stats", status: 404 },
    {
      name: "a request target over 8 KiB",
      target: () => `/repos/acme/widgets?q=${"x".repeat(9_000)}`,
      status: 414,
    },
  ])("refuses $name before sending anything", async ({ target, status: expected }) => {
    const hits = victimHits;
    const total = sim.stats().requests.total;
    const answer = await get(target());
    expect(answer.status).toBe(expected);
    expect(answer.text).toMatch(/"message"/);
    expect(victimHits).toBe(hits);
    expect(sim.stats().requests.total).toBe(total);
  });

  it.each(["TRACE", "PROPFIND", "MKCALENDAR"])(
    "refuses the %s method with 405 before sending anything",
    async (method) => {
      const total = sim.stats().requests.total;
      const answer = await raw(
        `${method} /repos/acme/widgets HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: token ${token}\r\nconnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(405);
      expect(sim.stats().requests.total).toBe(total);
    },
  );

  it("refuses CONNECT tunnels", async () => {
    const hits = victimHits;
    const answer = await raw(
      `CONNECT 127.0.0.1:${victimPort} HTTP/1.1\r\nhost: 127.0.0.1:${victimPort}\r\n\r\n`,
    );
    expect(answer.status).toBe(403);
    expect(victimHits).toBe(hits);
  });

  it("never lets the Host header or a protocol-relative path choose the upstream", async () => {
    const hits = victimHits;
    const viaHost = await get("/repos/acme/widgets", { host: `127.0.0.1:${victimPort}` });
    expect(viaHost.status).toBe(200);
    expect(viaHost.text).toContain('"full_name":"acme/widgets"');
    const relative = await get(`//127.0.0.1:${victimPort}/x`);
    expect(relative.status).toBe(404);
    expect(relative.text).not.toContain("victim");
    expect(victimHits).toBe(hits);
  });

  it("serves the API host it is configured for, in proxy form", async () => {
    const answer = await get("http://api.github.localhost/repos/acme/widgets");
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"full_name":"acme/widgets"');
  });
});
