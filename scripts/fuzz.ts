/**
 * `npm run fuzz`: the full fuzz run (issue 9) — at least 100,000 generated inputs at a real broker
 * process: the gateway (raw HTTP framing, headers, bodies, REST paths, GraphQL documents and
 * variables, webhook deliveries with good, bad and missing signatures), the IPC socket (frames,
 * JSON-RPC shapes, huge lines) and the config loader. The generators, the broker set-up and the
 * judging live in test/integration/fuzz/ (the test suite runs a seeded subset of the same).
 *
 * Usage: npm run fuzz [-- --inputs 100000 --seed 1 --concurrency 48 --json FILE]
 * Exits 1 when any input was answered unclearly, hung, crashed the broker, or memory or file
 * descriptors did not come back down. Needs dist/ (npm run build) and a redis-server binary.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HEAP_CAP_MB, startFuzzBroker } from "../test/integration/fuzz/fuzz-broker.js";
import { type FuzzReport, runFuzz } from "../test/integration/fuzz/fuzz-run.js";

const { values } = parseArgs({
  options: {
    inputs: { type: "string", default: "100000" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "48" },
    json: { type: "string" },
  },
});

const total = Number(values.inputs);
const seed = Number(values.seed);
if (!Number.isInteger(total) || total < 10 || !Number.isInteger(seed)) {
  process.stderr.write(
    "usage: npm run fuzz -- [--inputs N>=10] [--seed INT] [--concurrency N] [--json FILE]\n",
  );
  process.exit(2);
}

// The mix: gateway inputs dominate (five families inside), then IPC connections, then configs.
const http = Math.round(total * 0.64);
const ipc = Math.round(total * 0.2);
const config = total - http - ipc;

const fuzz = await startFuzzBroker();
let report: FuzzReport;
try {
  const started = Date.now();
  report = await runFuzz(fuzz.target, {
    seed,
    http,
    ipc,
    config,
    concurrency: Number(values.concurrency),
    onProgress: (done, all) => {
      if (done % 5_000 !== 0) return;
      const rate = Math.round(done / ((Date.now() - started) / 1000));
      process.stderr.write(`  ${done}/${all} inputs (${rate}/s)\n`);
    },
  });
  const health = await fetch(`http://${fuzz.target.host}/_aob/health`).then(
    (r) => r.status,
    () => 0,
  );
  const read = await fetch(`http://${fuzz.target.host}/repos/acme/widgets/pulls/1`, {
    headers: { authorization: `token ${fuzz.target.token}` },
  }).then(
    (r) => r.status,
    () => 0,
  );
  const rssGrowth = report.rssMb.end - report.rssMb.afterWarmup;
  const fdGrowth = report.fds.end - report.fds.afterWarmup;
  const ok =
    report.failureCount === 0 &&
    report.brokerAlive &&
    health === 200 &&
    read === 200 &&
    rssGrowth < 128 &&
    fdGrowth < 20;

  const lines = [
    `fuzz run: seed ${seed}, ${report.inputs.total} inputs (gateway ${http}, IPC ${ipc}, config ${config}) in ${(report.durationMs / 1000).toFixed(1)} s (${report.inputsPerSecond}/s)`,
    `failures: ${report.failureCount}; broker alive: ${report.brokerAlive}; afterwards /_aob/health ${health}, a read ${read}`,
    `broker RSS (heap capped at ${HEAP_CAP_MB} MB): start ${report.rssMb.start} MB, after warm-up ${report.rssMb.afterWarmup} MB, peak ${report.rssMb.peak} MB, end ${report.rssMb.end} MB; by tenths ${report.rssCurve.join(", ")}`,
    `broker fds: after warm-up ${report.fds.afterWarmup}, end ${report.fds.end}; upstream 5xx passed through: ${report.upstream5xx}`,
    "outcomes:",
    ...Object.entries(report.outcomes)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([group, counts]) =>
          `  ${group.padEnd(18)} ${Object.entries(counts)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ")}`,
      ),
    ...report.failures
      .slice(0, 20)
      .map((f) => `FAIL #${f.index} ${f.surface}/${f.kind}: ${f.problem}\n  input ${f.input}`),
    ok ? "PASS" : "FAIL",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ ...report, health, read }, null, 2));
  process.exitCode = ok ? 0 : 1;
} finally {
  await fuzz.close();
}
