/**
 * Measures what the upstream queue adds to one request: the same GET against a local upstream,
 * sent directly with UpstreamClient and through UpstreamQueue (same broker, and submitted by a
 * broker that runs no workers so the job runs on another), sequentially and 20 at a time.
 * Not a test (timing targets never are); docs/upstream.md quotes its output.
 *
 *   npx tsx test/integration/broker/upstream/measure-queue-latency.ts [requests]
 */
import { UpstreamClient, UpstreamQueue } from "../../../../broker/upstream/index.js";
import { startTestRedis } from "../../../support/redis.js";
import { FakeUpstream } from "./fake-upstream.js";
import { get } from "./queue-harness.js";

const N = Number(process.argv[2] ?? 400);
const redis = await startTestRedis();
const fake = await FakeUpstream.start();
fake.route("GET", "/repos/acme/widgets/pulls/1", { body: { number: 1, title: "x".repeat(2_000) } });
const client = new UpstreamClient({ baseUrl: fake.url, token: "ghp_measure" });
const prefix = redis.prefix();
// GitHub's per-endpoint pacing would (rightly) hold thousands of identical GETs a minute.
const policy = { restPointsPerMinute: 1_000_000, maxStartsPerSecond: 100_000 };
const local = await UpstreamQueue.create({ redis: redis.url, prefix, client, policy });
const submitOnly = await UpstreamQueue.create({ redis: redis.url, prefix, workers: false, policy });

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const fmt = (values: number[]) =>
  `p50 ${pct(values, 50).toFixed(2)} ms, p90 ${pct(values, 90).toFixed(2)} ms, p99 ${pct(values, 99).toFixed(2)} ms`;

async function timed(run: () => Promise<unknown>, n: number, parallel: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < n) {
        const t = performance.now();
        await run();
        times.push(performance.now() - t);
      }
    }),
  );
  return times;
}

const direct = () => client.send({ method: "GET", path: "/repos/acme/widgets/pulls/1" });
const viaLocal = () => local.submit(get("/repos/acme/widgets/pulls/1"));
const viaOther = () => submitOnly.submit(get("/repos/acme/widgets/pulls/1"));

await timed(direct, 200, 1); // warm up connections and JIT
await timed(viaLocal, 200, 1);
for (const parallel of [1, 20]) {
  const d = await timed(direct, N, parallel);
  const l = await timed(viaLocal, N, parallel);
  const o = await timed(viaOther, N, parallel);
  console.log(`\n${N} requests, ${parallel} at a time`);
  console.log(`  direct (UpstreamClient)             ${fmt(d)}`);
  console.log(`  queue, job runs on this broker      ${fmt(l)}`);
  console.log(`  queue, job runs on another broker   ${fmt(o)}`);
  console.log(
    `  added at p50: ${(pct(l, 50) - pct(d, 50)).toFixed(2)} ms (local), ${(pct(o, 50) - pct(d, 50)).toFixed(2)} ms (cross-broker)`,
  );
}
await submitOnly.close();
await local.close();
await client.close();
await fake.close();
await redis.stop();
