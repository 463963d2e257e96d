/**
 * The broker the fuzzers attack: the real daemon as a child process (`node dist/cli.js start`,
 * so a crash is a process exit and its memory is its own), on a private redis-server, in front of
 * a simulator in this process with limits no fuzz run can spend, its heap capped at HEAP_CAP_MB
 * so that unbounded memory shows as a crash. A session and a read-only session are opened for
 * the inputs that need valid tokens.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { CliBroker, freePort } from "../../e2e/reliability/cli-broker.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";
import type { FuzzTarget } from "./fuzz-run.js";

export interface FuzzBroker {
  readonly target: FuzzTarget;
  readonly broker: CliBroker;
  readonly sim: RunningSimulator;
  close(): Promise<void>;
}

const MAX_LINE_BYTES = 1024 * 1024;
/** The broker's V8 old-space cap during a fuzz run, MB. */
export const HEAP_CAP_MB = 128;

export async function startFuzzBroker(): Promise<FuzzBroker> {
  const dir = mkdtempSync(join(tmpdir(), "aob-fuzz-"));
  const redis: TestRedis = await startTestRedis();
  const sim = await startSimulator({
    port: 0,
    limits: { core: 10_000_000, graphql: 10_000_000, search: 10_000_000 },
    secondary: {
      concurrent: 1_000,
      restPointsPerMinute: 1e9,
      graphqlPointsPerMinute: 1e9,
      contentCreationPerMinute: 1e9,
      contentCreationPerHour: 1e9,
    },
  });
  const webhookSecret = `fuzz-${randomBytes(8).toString("hex")}`;
  const broker = new CliBroker({
    dir,
    upstreamUrl: sim.url,
    port: await freePort(),
    redisUrl: redis.url,
    // The heap is capped: a leak would end the broker with an out-of-memory crash, which the
    // fuzzer reports, instead of hiding behind a machine's spare memory.
    env: {
      LOG_LEVEL: "error",
      AO_BROKER_WEBHOOK_SECRET: webhookSecret,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}`,
    },
    // Short deadlines: a valid input that queues behind the broker's pacing of GitHub's secondary
    // limits (810 REST points a minute per endpoint) is answered 504 within a second and a half.
    config: { gateway: { defaultDeadlineMs: 1_500, maxBodyBytes: 1024 * 1024 } },
  });
  await broker.start();
  let exited = false;
  const pid = broker.pid;
  const client = await connectBroker({ socketPath: broker.socketPath });
  const token = (await client.openSession({ id: "fuzz-main", repo: "acme/widgets" })).token;
  const readOnlyToken = (await client.openSession({ id: "fuzz-ro", repo: "acme/widgets", readOnly: true }))
    .token;
  await client.close();
  const alive = () => {
    if (exited || !pid) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      exited = true;
      return false;
    }
  };
  return {
    broker,
    sim,
    target: {
      port: Number(new URL(broker.gatewayUrl).port),
      socketPath: broker.socketPath,
      pid,
      alive,
      token,
      readOnlyToken,
      webhookSecret,
      host: new URL(broker.gatewayUrl).host,
      sessionId: "fuzz-main",
      maxLineBytes: MAX_LINE_BYTES,
    },
    close: async () => {
      await broker.stop();
      await sim.close();
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
