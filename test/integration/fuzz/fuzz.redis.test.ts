/**
 * The fast, seeded subset of the fuzz run (issue 9; the full ≥ 100,000-input run is
 * `npm run fuzz`, figures in docs/BENCHMARKS.md): a few thousand generated inputs at a real
 * broker process — raw HTTP framing, headers, bodies, REST paths, GraphQL documents and variables,
 * webhook deliveries, IPC frames and JSON-RPC shapes, config files. No crash, no hang, no answer
 * without its error shape, no unbounded memory, and the broker still serves afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzBroker, startFuzzBroker } from "./fuzz-broker.js";
import { type FuzzReport, runFuzz } from "./fuzz-run.js";

let fuzz: FuzzBroker;

beforeAll(async () => {
  fuzz = await startFuzzBroker();
}, 60_000);

afterAll(async () => {
  await fuzz?.close();
});

describe("the broker under fuzzed input", () => {
  it("answers every input clearly, never crashes or hangs, and keeps its memory", async () => {
    const report: FuzzReport = await runFuzz(fuzz.target, {
      seed: 20261129,
      http: 1_300,
      ipc: 400,
      config: 400,
    });
    process.stdout.write(
      `fuzz: ${report.inputs.total} inputs in ${report.durationMs} ms; RSS ${report.rssMb.afterWarmup} → ${report.rssMb.end} MB (peak ${report.rssMb.peak}); fds ${report.fds.afterWarmup} → ${report.fds.end}\n${JSON.stringify(report.outcomes)}\n`,
    );
    expect(report.failures).toEqual([]);
    expect(report.brokerAlive).toBe(true);
    // Bounded: the broker ran with its heap capped (HEAP_CAP_MB) and did not run out of it;
    // memory and descriptors stay near where they were once warm.
    expect(report.rssMb.end - report.rssMb.afterWarmup).toBeLessThan(96);
    expect(report.fds.end - report.fds.afterWarmup).toBeLessThan(20);
    // Still serving.
    const health = await fetch(`http://${fuzz.target.host}/_aob/health`);
    expect(health.status).toBe(200);
    const read = await fetch(`http://${fuzz.target.host}/repos/acme/widgets/pulls/1`, {
      headers: { authorization: `token ${fuzz.target.token}` },
    });
    expect(read.status).toBe(200);
  }, 240_000);
});
