/**
 * Issue 17, item 8: /metrics answers a loopback peer only when its Host is a loopback name or the
 * listen host — a rebinding name resolving to 127.0.0.1 (Host: evil.example) is refused.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../../github-sim/index.js";
import { type BrokerUnderTest, startBrokerUnderTest } from "../../../support/broker-harness.js";
import { startTestRedis, type TestRedis } from "../../../support/redis.js";

let redis: TestRedis;
let sim: RunningSimulator;
let broker: BrokerUnderTest;

function metricsWithHost(host: string): Promise<{ status: number; body: string }> {
  const url = new URL(broker.broker.gatewayUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: "/metrics", method: "GET", headers: { host } },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  redis = await startTestRedis();
  sim = await startSimulator({ port: 0 });
  broker = await startBrokerUnderTest({
    redisUrl: redis.url,
    prefix: redis.prefix(),
    upstreamUrl: sim.url,
    token: sim.token,
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  await redis?.stop();
});

describe("/metrics Host check", () => {
  it("answers loopback Host names and refuses any other name", async () => {
    const port = new URL(broker.broker.gatewayUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost"])
      expect((await metricsWithHost(host)).status, host).toBe(200);
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`]) {
      const answer = await metricsWithHost(host);
      expect(answer.status, host).toBe(421);
      expect(answer.body).not.toContain("# TYPE");
    }
  });
});
