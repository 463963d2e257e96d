/**
 * When the budget is spent the broker queues gh's request instead of failing it, and gh shows
 * nothing while it waits; the shim says on gh's stderr why and for how long, and gh then finishes
 * with its normal output. A simulator with a 10-point GraphQL budget in 3-second windows makes the
 * wait real and short.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  agentEnv,
  home,
  installTestShim,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";

let work: Scratch;
let sim: RunningSimulator;
let broker: ShimBroker;
let gh: string;

beforeAll(async () => {
  work = scratch("aob-shim-wait-");
  gh = installTestShim(join(work.dir, "bin")).shimPath;
  sim = await startSimulator({ limits: { graphql: 10 }, windowSeconds: 3 });
  broker = await startShimBroker(join(work.dir, "broker"), {
    upstream: sim,
    config: { budget: { reserve: { lifecycle: 0, interactive: 0 } } },
  });
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await sim?.close();
  work?.cleanup();
});

describe("gh through the shim when the GraphQL budget is spent", () => {
  it("waits in the broker's queue, says so on stderr, then prints gh's answer", async () => {
    const env = agentEnv({
      bin: join(work.dir, "bin"),
      socket: broker.socketPath,
      home: home(work.dir, "agent"),
      session: "waiter",
      extra: { GH_REPO: "acme/widgets", AO_BROKER_SHIM_NOTICE_AFTER: "1" },
    });
    expect((await run(gh, ["auth", "token"], { env })).code).toBe(0);
    // Start at the beginning of a window, then spend all ten points through another session.
    const reset = sim.stats().resources.graphql.reset * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, reset - Date.now() + 50)));
    const client = await connectBroker({ socketPath: broker.socketPath });
    await client.openSession({ id: "spender", repo: "acme/widgets" });
    for (let i = 0; i < 10; i++) {
      await client.graphql({
        sessionId: "spender",
        query: `{ viewer { login s${i}: login } }`,
        deadlineMs: 3000,
      });
    }
    await client.close();
    expect(sim.stats().resources.graphql.remaining).toBe(0);

    const result = await run(gh, ["pr", "view", "1", "--json", "number,title"], { env, timeoutMs: 20_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"number":1,"title":"Add widget frobnicator"}\n');
    expect(result.ms).toBeGreaterThan(1000);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ao-broker: GitHub's graphql budget is nearly spent \(0 of 10 GraphQL points left; .* until it refills at \d\d:\d\d:\d\d UTC \(in about \d+s\)\. gh goes on by itself then; Ctrl-C stops it\.$/,
    );
  });
});
