import { describe, expect, it } from "vitest";
import * as lifecycle from "../../../lifecycle/index.js";
import { createManualClock } from "../../../lifecycle/index.js";
import { T0 } from "./support/facts.js";
import { createFakeGitHub } from "./support/fake-github.js";

describe("lifecycle public face", () => {
  it("exports the service, the webhook handler, the stores, the ports adapter and the vocabularies", () => {
    for (const name of [
      "createLifecycleService",
      "createWebhookHandler",
      "createMemoryWatchStore",
      "createRedisWatchStore",
      "createRedisDeliveryDedupe",
      "createMemoryDeliveryDedupe",
      "createDirectPorts",
      "createManualClock",
      "systemClock",
      "formatLifecycleStatus",
      "buildEnrichmentQuery",
      "buildDetectionQuery",
      "toEnrichment",
      "resolveLifecycleConfig",
      "validateWatch",
    ]) {
      expect(typeof (lifecycle as Record<string, unknown>)[name], name).not.toBe("undefined");
    }
    expect(lifecycle.SESSION_STATUSES).toContain("ci_failed");
    expect(lifecycle.LIFECYCLE_EVENT_TYPES).toContain("approved-and-green");
    expect(lifecycle.HANDLED_WEBHOOK_EVENTS).toHaveLength(10);
    expect(Object.keys(lifecycle.LifecycleErrors)).toEqual([
      "AO_ERR_LIFECYCLE_INVALID_WATCH",
      "AO_ERR_LIFECYCLE_UNKNOWN_SESSION",
      "AO_ERR_LIFECYCLE_CLOSED",
    ]);
  });

  it("formats a status for people: one line per session and the last cycle", async () => {
    const clock = createManualClock(T0);
    const gh = createFakeGitHub(clock.now);
    gh.addPr({ repo: "acme/widgets", number: 7, headRef: "feat/w" });
    const service = lifecycle.createLifecycleService({
      ports: gh.ports,
      store: lifecycle.createMemoryWatchStore(),
      clock,
    });
    await service.watch({ id: "ao-1", repo: "acme/widgets", branch: "feat/w", pr: 7 });
    await service.watch({ id: "ao-2", repo: "acme/widgets", branch: "feat/none" });
    await service.runCycle();
    const text = lifecycle.formatLifecycleStatus(service.status());
    expect(text).toMatch(/^SESSION\s+STATUS\s+PR\s+CI\s+REVIEW\n/);
    expect(text).toMatch(/ao-1\s+mergeable\s+acme\/widgets#7\s+passing\s+none/);
    expect(text).toMatch(/ao-2\s+working\s+acme\/widgets \(feat\/none\)/);
    expect(text).toContain("2 sessions, 1 PRs in 1 repositories; loop stopped");
    expect(text).toMatch(/last cycle: \d+ ms, 1 guards \(0 not modified\), 2 GraphQL queries, 2 points/);
  });
});
