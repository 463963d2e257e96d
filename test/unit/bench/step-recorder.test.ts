import { describe, expect, it } from "vitest";
import type { CostEstimator } from "../../../bench/cost-estimator.js";
import { brokerScaledWait, type RequestObservation, StepRecorder } from "../../../bench/step-recorder.js";

const costs = { graphqlPoints: () => 7 } as unknown as CostEstimator;
const obs = (over: Partial<RequestObservation>): RequestObservation => ({
  operation: "PullRequestByNumber",
  latencyRealMs: 15,
  ok: true,
  rateLimit: null,
  facts: [],
  receivedAt: 0,
  ...over,
});

async function recorder(scaledWait?: (label: string | undefined) => boolean) {
  const r = new StepRecorder({
    scale: 10,
    simLatencyRealMs: 5,
    truth: undefined,
    costs,
    ...(scaledWait ? { scaledWait } : {}),
  });
  r.measuring = true;
  return r;
}

describe("StepRecorder", () => {
  it("ignores what happens outside the measured window", async () => {
    const r = await recorder();
    r.measuring = false;
    await r.recordRequest(obs({}));
    r.recordCommand("pr view");
    r.recordPollCycle(30);
    expect(r.summary().agentRequests).toBe(0);
    expect(r.summary().pollCycleSeconds.p50).toBeNull();
  });

  describe("added wait", () => {
    it("reports processing time as measured (latency minus the simulator's latency)", async () => {
      const r = await recorder();
      await r.recordRequest(obs({ latencyRealMs: 15 }));
      expect(r.summary().addedWaitMs.p50).toBe(10);
    });

    it("scales a broker answer that did not come from its cache in full, when the broker does not say what it waited", async () => {
      const r = await recorder(brokerScaledWait);
      await r.recordRequest(obs({ latencyRealMs: 15, cacheLabel: "BATCHED" }));
      await r.recordRequest(obs({ latencyRealMs: 15, cacheLabel: "HIT" }));
      expect(r.summary().addedWaitMs.p99).toBe(100);
      expect(r.summary().addedWaitMs.p50).toBe(10);
    });

    it("scales exactly the designed wait the broker reports, and nothing else", async () => {
      const r = await recorder(brokerScaledWait);
      await r.recordRequest(obs({ latencyRealMs: 15, cacheLabel: "BATCHED", designedWaitMs: 4 }));
      expect(r.summary().addedWaitMs.p50).toBe(4 * 10 + 6);
    });
  });

  it("counts rate-limit refusals as errors and their documented cost as demand", async () => {
    const r = await recorder();
    await r.recordRequest(obs({ ok: false, rateLimit: "primary", graphql: { query: "q", variables: {} } }));
    await r.recordRequest(obs({ ok: false, rateLimit: "primary" }));
    await r.recordRequest(obs({ ok: false, rateLimit: "secondary" }));
    await r.recordRequest(obs({ ok: false }));
    r.recordOrchestratorRefusal({ query: "q", variables: {} });
    const s = r.summary();
    expect(s.agentRateLimitErrors).toBe(3);
    expect(s.agentOtherErrors).toBe(1);
    expect(s.refusedGraphqlPoints).toBe(14);
    expect(s.refusedRestRequests).toBe(1);
  });

  it("computes the cache mix over labelled answers", async () => {
    const r = await recorder();
    for (const label of ["HIT", "HIT", "BATCHED", "COALESCED"])
      await r.recordRequest(obs({ cacheLabel: label }));
    expect(r.summary().cache).toMatchObject({
      labelled: 4,
      hitRatio: 0.5,
      coalescedRatio: 0.25,
      batchedRatio: 0.25,
    });
  });
});
