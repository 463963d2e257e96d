/**
 * `npm run bench:gateway`: the gateway's cache-hit path, side by side with the simulator answering
 * the same request directly, in one run (issue 3's targets: hit p50 ≤ 2 ms and p99 ≤ 10 ms at
 * 1,000 req/s; ≥ 5,000 hit req/s on 2 cores). Also tracing on vs off (issue 7: ≤ 10 % at p50).
 *
 * Three processes, as deployed: the simulator (`ao-broker sim`), the broker (`ao-broker start`,
 * private redis-server), and this load generator (undici, keep-alive). Each measurement runs
 * against the broker and against the simulator in alternating rounds; medians of rounds are
 * reported with their ratio. Usage: npm run bench:gateway [-- --rounds 3 --seconds 5 --json FILE]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";

const CLI = join(import.meta.dirname, "..", "dist", "cli.js");
const PATH = "/repos/acme/widgets/pulls/1";

interface Target {
  readonly name: string;
  readonly url: string;
  readonly token: string;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

async function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  raw = false,
): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, raw ? args : [CLI, ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before ready:\n${output}`)));
  });
  return { child, output };
}

async function one(dispatcher: Agent, target: Target): Promise<number> {
  const started = performance.now();
  const res = await request(`${target.url}${PATH}`, {
    dispatcher,
    headers: { authorization: `token ${target.token}` },
  });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${target.name}: HTTP ${res.statusCode}`);
  return performance.now() - started;
}

/** Open loop: `rate` requests per second for `seconds`, latency of each. */
async function openLoop(target: Target, rate: number, seconds: number): Promise<number[]> {
  const dispatcher = new Agent({ connections: 64, pipelining: 1 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = rate * seconds;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(one(dispatcher, target).then((ms) => void latencies.push(ms)));
  }
  await Promise.all(pending);
  await dispatcher.close();
  return latencies.sort((a, b) => a - b);
}

/** Closed loop: `concurrency` clients back to back for `seconds`; requests per second. */
async function closedLoop(target: Target, concurrency: number, seconds: number): Promise<number> {
  const dispatcher = new Agent({ connections: concurrency, pipelining: 1 });
  let done = 0;
  const stop = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stop) {
        await one(dispatcher, target);
        done++;
      }
    }),
  );
  await dispatcher.close();
  return done / seconds;
}

/** A do-nothing OTLP/HTTP endpoint, so "tracing on" exports for real without a collector. */
async function sinkCollector(): Promise<{ url: string; close: () => Promise<void>; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    received: () => received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "5" },
      rate: { type: "string", default: "1000" },
      concurrency: { type: "string", default: "32" },
      json: { type: "string" },
    },
  });
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const concurrency = Number(values.concurrency);
  const dir = mkdtempSync(join(tmpdir(), "aob-bench-gw-"));
  const children: ChildProcess[] = [];
  const redis = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  const collector = await sinkCollector();
  try {
    const sim = await startProcess(
      ["--import", "tsx", join(import.meta.dirname, "gateway-sim-server.ts")],
      {},
      /listening on (http:\/\/\S+)/,
      true,
    );
    children.push(sim.child);
    const simUrl = /listening on (http:\/\/\S+)/.exec(sim.output)?.[1] ?? "";

    const startBrokerProcess = async (name: string, otel: boolean) => {
      const socket = join(dir, `${name}.sock`);
      const env: Record<string, string> = {
        GITHUB_TOKEN: "ghp_simulated",
        REDIS_URL: redis.url,
        AO_BROKER_STATE_DIR: join(dir, name),
      };
      if (otel) {
        env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
        env.OTEL_TRACES_SAMPLER = "always_on";
      }
      const broker = await startProcess(
        [
          "start",
          "--upstream",
          simUrl,
          "--listen",
          "127.0.0.1:0",
          "--socket",
          socket,
          "--config",
          join(dir, "config.json"),
        ],
        env,
        /open a session/,
      );
      children.push(broker.child);
      const url = /gateway\s+(\S+)/.exec(broker.output)?.[1] ?? "";
      const client = await connectBroker({ socketPath: socket });
      const { token } = await client.openSession({ id: `bench-${name}`, repo: "acme/widgets" });
      await client.close();
      return { target: { name, url, token } satisfies Target, child: broker.child };
    };
    // One hour of freshness: every broker request below is a cache hit (the first one fills it).
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ cache: { restFreshMs: 3_600_000 }, redis: { prefix: "bench" } }),
    );
    const plain = await startBrokerProcess("broker", false);
    const direct: Target = { name: "simulator", url: simUrl, token: "ghp_simulated" };

    for (const t of [plain.target, direct]) for (let i = 0; i < 200; i++) await one(new Agent(), t);

    const results: Record<string, { p50: number[]; p99: number[]; throughput: number[] }> = {
      broker: { p50: [], p99: [], throughput: [] },
      simulator: { p50: [], p99: [], throughput: [] },
      brokerTracing: { p50: [], p99: [], throughput: [] },
    };
    for (let round = 0; round < rounds; round++) {
      for (const t of [plain.target, direct]) {
        const lat = await openLoop(t, rate, seconds);
        results[t.name === "broker" ? "broker" : "simulator"]?.p50.push(percentile(lat, 50));
        results[t.name === "broker" ? "broker" : "simulator"]?.p99.push(percentile(lat, 99));
        results[t.name === "broker" ? "broker" : "simulator"]?.throughput.push(
          await closedLoop(t, concurrency, seconds),
        );
        process.stderr.write(`round ${round + 1}/${rounds} ${t.name} done\n`);
      }
    }
    plain.child.kill("SIGTERM");
    const traced = await startBrokerProcess("brokerTracing", true);
    for (let i = 0; i < 200; i++) await one(new Agent(), traced.target);
    const untraced = await startBrokerProcess("brokerUntraced", false);
    for (let i = 0; i < 200; i++) await one(new Agent(), untraced.target);
    const tracingOff: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const on = await openLoop(traced.target, rate, seconds);
      results.brokerTracing?.p50.push(percentile(on, 50));
      results.brokerTracing?.p99.push(percentile(on, 99));
      const off = await openLoop(untraced.target, rate, seconds);
      tracingOff.push(percentile(off, 50));
      process.stderr.write(`round ${round + 1}/${rounds} tracing on/off done\n`);
    }

    const summary = {
      command: `npm run bench:gateway -- --rounds ${rounds} --seconds ${seconds} --rate ${rate} --concurrency ${concurrency}`,
      rateReqPerSec: rate,
      hit: {
        brokerP50Ms: median(results.broker?.p50 ?? []),
        brokerP99Ms: median(results.broker?.p99 ?? []),
        brokerThroughput: median(results.broker?.throughput ?? []),
      },
      direct: {
        simulatorP50Ms: median(results.simulator?.p50 ?? []),
        simulatorP99Ms: median(results.simulator?.p99 ?? []),
        simulatorThroughput: median(results.simulator?.throughput ?? []),
      },
      tracing: {
        onP50Ms: median(results.brokerTracing?.p50 ?? []),
        offP50Ms: median(tracingOff),
        exportsReceived: collector.received(),
      },
      rounds: results,
    };
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const lines = [
      `gateway cache hits at ${rate} req/s (median of ${rounds} rounds of ${seconds}s):`,
      `  broker hit   p50 ${summary.hit.brokerP50Ms.toFixed(2)} ms  p99 ${summary.hit.brokerP99Ms.toFixed(2)} ms  max ${Math.round(summary.hit.brokerThroughput)} req/s`,
      `  simulator    p50 ${summary.direct.simulatorP50Ms.toFixed(2)} ms  p99 ${summary.direct.simulatorP99Ms.toFixed(2)} ms  max ${Math.round(summary.direct.simulatorThroughput)} req/s`,
      `  ratio broker/simulator: p50 ${ratio(summary.hit.brokerP50Ms, summary.direct.simulatorP50Ms)}  p99 ${ratio(summary.hit.brokerP99Ms, summary.direct.simulatorP99Ms)}  throughput ${ratio(summary.hit.brokerThroughput, summary.direct.simulatorThroughput)}`,
      `  tracing on (exporting) p50 ${summary.tracing.onP50Ms.toFixed(2)} ms vs off ${summary.tracing.offP50Ms.toFixed(2)} ms: ${((summary.tracing.onP50Ms / summary.tracing.offP50Ms - 1) * 100).toFixed(1)} % added`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 2));
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await collector.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
