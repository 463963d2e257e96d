/**
 * One request model for every edge (issue 15): the same call made over HTTP (the gateway) and over
 * IPC (`rest`, `graphql`) reaches the pipeline as the same GhRequest — the same headers kept and
 * dropped, the same priority, stale choice and classification — and a write on a read-only
 * session is refused on both edges with the same code and message, before the pipeline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GraphQLAnalyzer } from "../../../broker/cache/graphql-analyzer.js";
import { GatewayServer } from "../../../broker/gateway/gateway-server.js";
import { createRedisClient } from "../../../broker/index.js";
import { IpcServer } from "../../../broker/ipc/index.js";
import { createIpcHandlers } from "../../../broker/ipc/ipc-handlers.js";
import { classifyRequest, type FreshnessPolicy } from "../../../broker/pipeline/classify.js";
import type { GhRequest, GhResponse } from "../../../broker/pipeline/types.js";
import { PubSubHub } from "../../../broker/redis/pubsub-hub.js";
import { CallerResolver } from "../../../broker/sessions/caller-resolver.js";
import { SessionStats } from "../../../broker/sessions/session-stats.js";
import { SessionStore } from "../../../broker/sessions/session-store.js";
import { type BrokerClient, connectBroker } from "../../../client/index.js";
import { isAoError, silentLogger } from "../../../common/index.js";
import { loadGitHubSchema } from "../../../github/index.js";
import { rawRequest } from "../../support/gateway-harness.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

let testRedis: TestRedis;
let redis: Redis;
let subscriber: Redis;
let pubsub: PubSubHub;
let resolver: CallerResolver;
let gateway: GatewayServer;
let ipc: IpcServer;
let client: BrokerClient;
let dir: string;
let writerToken: string;
let readerToken: string;
const seen: GhRequest[] = [];

const pipeline = async (request: GhRequest): Promise<GhResponse> => {
  seen.push(request);
  return {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: Buffer.from("{}"),
    cache: "MISS",
    cost: 1,
    resource: request.classification.resource,
  };
};

beforeAll(async () => {
  testRedis = await startTestRedis();
  const prefix = testRedis.prefix();
  redis = createRedisClient(testRedis.url);
  subscriber = createRedisClient(testRedis.url);
  pubsub = new PubSubHub(subscriber);
  const store = new SessionStore({
    redis,
    prefix,
    sessionTokenTtlSeconds: 3600,
    invocationTokenTtlSeconds: 600,
  });
  const stats = new SessionStats({ redis, prefix });
  resolver = new CallerResolver({ store, pubsub });
  await resolver.start();
  writerToken = (await store.open({ id: "writer", repo: "o/r" })).token;
  readerToken = (await store.open({ id: "reader", repo: "o/r", readOnly: true })).token;
  const analyzer = new GraphQLAnalyzer({ schema: loadGitHubSchema() });
  const policy: FreshnessPolicy = {
    restFreshMs: 10_000,
    graphqlFreshMs: { checks: 10_000, pullRequest: 15_000, issue: 30_000, other: 15_000 },
  };
  const classify = (input: Parameters<typeof classifyRequest>[0]) => classifyRequest(input, analyzer, policy);
  gateway = new GatewayServer({
    host: "127.0.0.1",
    port: 0,
    publicHost: "api.github.localhost",
    blobHosts: [],
    maxBodyBytes: 1024 * 1024,
    defaultDeadlineMs: 30_000,
    allowRemoteMetrics: false,
    upstreamBase: "https://api.github.com",
    pipeline,
    authenticate: async (token) => resolver.resolve(token),
    classify,
    sessionView: () => undefined,
    logger: silentLogger(),
  });
  await gateway.start();
  dir = mkdtempSync(join(tmpdir(), "aob-request-model-"));
  const socketPath = join(dir, "broker.sock");
  ipc = new IpcServer({
    socketPath,
    brokerInfo: { version: "test", pid: process.pid, gatewayUrl: gateway.url, socket: socketPath },
    handlers: createIpcHandlers({
      store,
      stats,
      pipeline,
      classify,
      budgetReport: async () => ({ resources: [], sessions: [] }) as never,
      brokerStatus: async () => ({}),
      statsReport: async () => ({}),
      shutdown: () => undefined,
      gatewayUrl: () => gateway.url,
      socketPath,
      defaultDeadlineMs: 30_000,
    }),
    logger: silentLogger(),
  });
  await ipc.start();
  client = await connectBroker({ socketPath, clientName: "request-model-test", clientVersion: "1.0.0" });
});

afterAll(async () => {
  await client?.close();
  await ipc?.close();
  await gateway?.close(1000);
  await resolver?.close();
  await pubsub?.close();
  redis?.disconnect();
  subscriber?.disconnect();
  await testRedis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What must be equal between the two edges: everything but the ids and clocks. */
function comparable(request: GhRequest) {
  return {
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: request.body?.toString("utf8"),
    graphql: request.graphql,
    caller: request.caller.sessionId,
    classification: request.classification,
    priority: request.priority,
    allowStale: request.allowStale,
    deadlineMs: request.deadlineAt - request.receivedAt,
  };
}

/** Headers as a client would send them: mixed case, broker control headers, hop-by-hop, forwarded. */
const SENT_HEADERS = {
  Accept: "application/vnd.github+json",
  "X-GitHub-Api-Version": "2022-11-28",
  "If-None-Match": '"abc"',
  "X-AO-Broker-Priority": "background",
  "X-AO-Broker-Allow-Stale": "1",
  "X-Forwarded-For": "10.0.0.1",
  "X-Forwarded-Host": "evil.example",
  Cookie: "a=b",
  "Accept-Encoding": "gzip",
};

describe("one request model for the gateway and IPC", () => {
  it("builds the same REST read from both edges: headers kept and dropped alike", async () => {
    seen.length = 0;
    const http = await rawRequest(gateway.port, {
      path: "/repos/o/r/pulls?state=open",
      headers: { ...SENT_HEADERS, authorization: `token ${writerToken}`, host: "api.github.localhost" },
    });
    expect(http.status).toBe(200);
    const overIpc = await client.rest({
      sessionId: "writer",
      method: "GET",
      path: "/repos/o/r/pulls?state=open",
      headers: { ...SENT_HEADERS, Authorization: "token not-forwarded", Host: "elsewhere" },
    });
    expect(overIpc.status).toBe(200);
    expect(seen).toHaveLength(2);
    const [fromHttp, fromIpc] = seen.map((r) => comparable(r as GhRequest));
    expect(fromIpc).toEqual(fromHttp);
    expect(fromHttp?.headers).toEqual({
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      "if-none-match": '"abc"',
    });
    expect(fromHttp?.priority).toBe("background");
    expect(fromHttp?.allowStale).toBe(true);
  });

  it("builds the same GraphQL query from both edges", async () => {
    seen.length = 0;
    const query =
      'query($n: Int!) { repository(owner: "o", name: "r") { pullRequest(number: $n) { title } } }';
    const http = await rawRequest(gateway.port, {
      method: "POST",
      path: "/graphql",
      headers: { authorization: `bearer ${writerToken}`, "content-type": "application/json" },
      body: JSON.stringify({ query, variables: { n: 1 } }),
    });
    expect(http.status).toBe(200);
    await client.graphql({ sessionId: "writer", query, variables: { n: 1 } });
    expect(seen).toHaveLength(2);
    const [fromHttp, fromIpc] = seen.map((r) => comparable(r as GhRequest));
    expect({ ...fromIpc, body: undefined }).toEqual({ ...fromHttp, body: undefined });
    expect(fromHttp?.classification.kind).toBe("graphql-query");
    expect(fromHttp?.headers["content-type"]).toBe("application/json");
  });

  it("refuses a write on a read-only session on both edges with the same code and message, before the pipeline", async () => {
    seen.length = 0;
    const http = await rawRequest(gateway.port, {
      method: "POST",
      path: "/repos/o/r/issues",
      headers: { authorization: `token ${readerToken}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "t" }),
    });
    expect(http.status).toBe(403);
    const httpMessage = http.json<{ message: string }>().message;
    const refused = await client
      .rest({ sessionId: "reader", method: "POST", path: "/repos/o/r/issues", body: '{"title":"t"}' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isAoError(refused) && refused.code).toBe("AO_ERR_READ_ONLY");
    expect(isAoError(refused) && refused.message).toBe(httpMessage);
    expect(httpMessage).toBe("This ao-broker session is read-only: writes are refused");
    const mutation = await client
      .graphql({
        sessionId: "reader",
        query: 'mutation { addStar(input: { starrableId: "x" }) { clientMutationId } }',
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isAoError(mutation) && mutation.code).toBe("AO_ERR_READ_ONLY");
    expect(seen).toHaveLength(0);
  });
});
