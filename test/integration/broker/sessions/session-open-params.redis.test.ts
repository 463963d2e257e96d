/**
 * Issue 17, item 4: `session.open` honours ttlSeconds (expiresAt set, the token stops working),
 * readOnly and weight on open and re-open; a re-open that would widen a read-only session is
 * refused with a clear error, and a read-only re-open never returns a token that writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker } from "../../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;
let ipc: BrokerClient;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gatewayCall(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${broker.broker.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const comment = (token: string, text: string) =>
  gatewayCall(token, "POST", "/repos/acme/widgets/issues/1/comments", { body: text });

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    token: sim.token,
  });
  ipc = await connectBroker({ socketPath: broker.broker.socketPath });
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

describe("session.open parameters", () => {
  it("ttlSeconds sets expiresAt, and the session and its token end then", async () => {
    const before = Date.now();
    const opened = await ipc.openSession({ id: "short-lived", repo: "acme/widgets", ttlSeconds: 2 });
    expect(opened.session.expiresAt).not.toBeNull();
    const expiresAt = Date.parse(opened.session.expiresAt as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 2000);
    expect((await gatewayCall(opened.token, "GET", "/repos/acme/widgets")).status).toBe(200);
    await sleep(expiresAt - Date.now() + 2500);
    expect((await gatewayCall(opened.token, "GET", "/repos/acme/widgets")).status).toBe(401);
    const { sessions } = await ipc.listSessions();
    expect(sessions.map((s) => s.id)).not.toContain("short-lived");
  }, 30_000);

  it("a session opened without ttlSeconds has expiresAt null; a re-open with ttlSeconds sets it", async () => {
    const first = await ipc.openSession({ id: "renewed", repo: "acme/widgets" });
    expect(first.session.expiresAt).toBeNull();
    const again = await ipc.openSession({ id: "renewed", repo: "acme/widgets", ttlSeconds: 3600 });
    expect(Date.parse(again.session.expiresAt as string)).toBeGreaterThan(Date.now() + 3500_000);
    const listed = (await ipc.listSessions()).sessions.find((s) => s.id === "renewed");
    expect(listed?.expiresAt).toBe(again.session.expiresAt);
  });

  it("re-opening a writable session with readOnly: true returns a token that cannot write", async () => {
    const writable = await ipc.openSession({ id: "narrowed", repo: "acme/widgets" });
    expect((await comment(writable.token, "writable")).status).toBe(201);
    const narrowed = await ipc.openSession({ id: "narrowed", repo: "acme/widgets", readOnly: true });
    expect(narrowed.session.readOnly).toBe(true);
    expect(narrowed.env.GH_TOKEN).toBe(narrowed.token);
    const refused = await comment(narrowed.token, "must not land");
    expect(refused.status).toBe(403);
    expect((await gatewayCall(narrowed.token, "GET", "/repos/acme/widgets")).status).toBe(200);
    // The session itself stays writable for the token that was writable.
    expect((await comment(writable.token, "still writable")).status).toBe(201);
    // Over IPC too.
    await expect(
      ipc.rest({ sessionId: "narrowed", method: "GET", path: "/repos/acme/widgets" }),
    ).resolves.toMatchObject({ status: 200 });
  });

  it("refuses to make a read-only session writable by re-opening it", async () => {
    const readOnly = await ipc.openSession({ id: "locked", repo: "acme/widgets", readOnly: true });
    const error = await ipc
      .openSession({ id: "locked", repo: "acme/widgets", readOnly: false })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("AO_ERR_SESSION_CONFLICT");
    expect((error as Error).message).toContain("read-only");
    // Re-opening without asking to widen keeps it read-only.
    const again = await ipc.openSession({ id: "locked", repo: "acme/widgets" });
    expect(again.session.readOnly).toBe(true);
    expect((await comment(again.token, "nope")).status).toBe(403);
    expect((await comment(readOnly.token, "nope")).status).toBe(403);
    const rest = await ipc
      .rest({
        sessionId: "locked",
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        body: '{"body":"x"}',
      })
      .catch((e: unknown) => e);
    expect((rest as { code?: string }).code).toBe("AO_ERR_READ_ONLY");
  });

  it("a re-open with a new weight applies it", async () => {
    await ipc.openSession({ id: "weighted", repo: "acme/widgets", weight: 1 });
    const again = await ipc.openSession({ id: "weighted", repo: "acme/widgets", weight: 5 });
    expect(again.session.weight).toBe(5);
    expect((await ipc.listSessions()).sessions.find((s) => s.id === "weighted")?.weight).toBe(5);
    // A re-open that names no weight keeps it.
    const kept = await ipc.openSession({ id: "weighted", repo: "acme/widgets" });
    expect(kept.session.weight).toBe(5);
  });
});
