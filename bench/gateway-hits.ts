/**
 * `npm run bench:gateway`: the gateway's cache-hit path, side by side with the simulator answering
 * the same request directly, in one run (issue 3's targets: hit p50 ≤ 2 ms and p99 ≤ 10 ms at
 * 1,000 req/s; ≥ 5,000 hit req/s on 2 cores). Also tracing on vs off (issue 7: ≤ 10 % at p50).
 *
 * Three processes, as deployed: the simulator (`ao-broker sim`), the broker (`ao-broker start`,
 * private redis-server), and this load generator (undici, keep-alive). Each measurement runs
 * against the broker and against the simulator in alternating rounds; medians of rounds are
 * reported with their ratio. Tracing is measured on two more brokers (traced, untraced) in paired
 * rounds (pairedRound). Usage:
 *   npm run bench:gateway [-- --rounds 3 --tracing-rounds 10 --seconds 5 --json FILE]
 * --compare-cli OTHER/dist/cli.js adds a traced broker of another build to the tracing rounds.
 * BENCH_NODE_ARGS adds node flags to the brokers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** Starts `node ...nodeArgs` and resolves once its output matches `ready`. */
async function startProcess(
  nodeArgs: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, nodeArgs, {
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

/** Open loop: `rate` requests per second for `seconds`, latency of each (unsorted). */
async function openLoopOn(
  dispatcher: Agent,
  target: Target,
  rate: number,
  seconds: number,
): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(one(dispatcher, target).then((ms) => void latencies.push(ms)));
  }
  await Promise.all(pending);
  return latencies;
}

async function openLoop(target: Target, rate: number, seconds: number): Promise<number[]> {
  const dispatcher = new Agent({ connections: 64, pipelining: 1 });
  const latencies = await openLoopOn(dispatcher, target, rate, seconds);
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

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

interface RoundResult {
  readonly p50: number;
  readonly p99: number;
  readonly cpuUsPerRequest: number;
}

/**
 * One paired round: `seconds` of open-loop load on each broker process, in rotating blocks of
 * BLOCK_MS (forwards, then backwards), so all see the same machine (noisy neighbours, CPU
 * frequency) at nearly the same time. Returns each one's latency percentiles and CPU per request.
 */
const BLOCK_MS = 250;
async function pairedRound(
  brokers: readonly { target: Target; pid: number | undefined }[],
  rate: number,
  seconds: number,
): Promise<RoundResult[]> {
  const sides = brokers.map((p) => ({
    ...p,
    dispatcher: new Agent({ connections: 64, pipelining: 1 }),
    latencies: [] as number[],
    cpu: 0,
  }));
  for (let block = 0; block < (seconds * 1000) / BLOCK_MS; block++) {
    for (const side of block % 2 === 0 ? sides : [...sides].reverse()) {
      const cpuBefore = cpuSeconds(side.pid);
      side.latencies.push(...(await openLoopOn(side.dispatcher, side.target, rate, BLOCK_MS / 1000)));
      side.cpu += cpuSeconds(side.pid) - cpuBefore;
    }
  }
  const results = sides.map((side): RoundResult => {
    const sorted = side.latencies.sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuUsPerRequest: (side.cpu * 1e6) / sorted.length,
    };
  });
  await Promise.all(sides.map((side) => side.dispatcher.close()));
  return results;
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
      "tracing-rounds": { type: "string", default: "10" },
      seconds: { type: "string", default: "5" },
      rate: { type: "string", default: "1000" },
      concurrency: { type: "string", default: "32" },
      json: { type: "string" },
      "compare-cli": { type: "string" },
    },
  });
  const rounds = Number(values.rounds);
  const tracingRounds = Number(values["tracing-rounds"]);
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
    );
    children.push(sim.child);
    const simUrl = /listening on (http:\/\/\S+)/.exec(sim.output)?.[1] ?? "";

    const startBrokerProcess = async (name: string, otel: boolean, cli = CLI) => {
      const socket = join(dir, `${name}.sock`);
      const env: Record<string, string> = {
        GITHUB_TOKEN: "ghp_simulated",
        REDIS_URL: redis.url,
        AO_BROKER_STATE_DIR: join(dir, name),
      };
      if (otel) {
        env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
        env.OTEL_TRACES_SAMPLER = process.env.BENCH_SAMPLER ?? "always_on";
      }
      const broker = await startProcess(
        [
          ...(process.env.BENCH_NODE_ARGS?.split(" ") ?? []),
          cli,
          "start",
          "--upstream",
          simUrl,
          "--listen",
          "127.0.0.1:0",
          "--socket",
          socket,
          "--config",
          configFile(name),
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
    // A Redis prefix per broker: brokers sharing one would elect one lifecycle leader and share
    // background work, and the comparison would measure that instead of tracing.
    const configFile = (name: string) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(
        file,
        JSON.stringify({ cache: { restFreshMs: 3_600_000 }, redis: { prefix: `bench-${name}` } }),
      );
      return file;
    };
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
    const untraced = await startBrokerProcess("brokerUntraced", false);
    // Another build, traced, in the same rounds: "is the new figure better, or is it a quieter day?"
    const baseline = values["compare-cli"]
      ? await startBrokerProcess("brokerTracingBaseline", true, values["compare-cli"])
      : undefined;
    // Warm all the way they are measured, so the JIT has settled before the first paired round.
    for (const b of [traced, untraced, ...(baseline ? [baseline] : [])]) {
      await one(new Agent(), b.target);
      await openLoop(b.target, rate, seconds);
    }
    // Paired rounds (pairedRound), so drift cancels out: the figure is the median of per-round
    // ratios, beside the median p50s and each broker's CPU per request.
    const tracing = {
      on: [] as number[],
      off: [] as number[],
      ratio: [] as number[],
      onCpu: [] as number[],
      offCpu: [] as number[],
      baselineRatio: [] as number[],
    };
    for (let round = 0; round < tracingRounds; round++) {
      const [on, off, base] = (await pairedRound(
        [traced, untraced, ...(baseline ? [baseline] : [])].map((b) => ({
          target: b.target,
          pid: b.child.pid,
        })),
        rate,
        seconds,
      )) as [RoundResult, RoundResult, RoundResult | undefined];
      if (base) tracing.baselineRatio.push(base.p50 / off.p50);
      results.brokerTracing?.p50.push(on.p50);
      results.brokerTracing?.p99.push(on.p99);
      tracing.on.push(on.p50);
      tracing.off.push(off.p50);
      tracing.ratio.push(on.p50 / off.p50);
      tracing.onCpu.push(on.cpuUsPerRequest);
      tracing.offCpu.push(off.cpuUsPerRequest);
      process.stderr.write(`tracing round ${round + 1}/${tracingRounds} done\n`);
    }

    const summary = {
      command: `npm run bench:gateway -- --rounds ${rounds} --tracing-rounds ${tracingRounds} --seconds ${seconds} --rate ${rate} --concurrency ${concurrency}`,
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
        rounds: tracingRounds,
        onP50Ms: median(tracing.on),
        offP50Ms: median(tracing.off),
        addedP50Percent: Math.round((median(tracing.ratio) - 1) * 1000) / 10,
        addedP50PercentByRound: tracing.ratio.map((r) => Math.round((r - 1) * 1000) / 10),
        onCpuUsPerRequest: Math.round(median(tracing.onCpu)),
        offCpuUsPerRequest: Math.round(median(tracing.offCpu)),
        exportsReceived: collector.received(),
        ...(baseline
          ? {
              compareCli: values["compare-cli"],
              compareAddedP50Percent: Math.round((median(tracing.baselineRatio) - 1) * 1000) / 10,
            }
          : {}),
      },
      rounds: results,
    };
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const lines = [
      `gateway cache hits at ${rate} req/s (median of ${rounds} rounds of ${seconds}s):`,
      `  broker hit   p50 ${summary.hit.brokerP50Ms.toFixed(2)} ms  p99 ${summary.hit.brokerP99Ms.toFixed(2)} ms  max ${Math.round(summary.hit.brokerThroughput)} req/s`,
      `  simulator    p50 ${summary.direct.simulatorP50Ms.toFixed(2)} ms  p99 ${summary.direct.simulatorP99Ms.toFixed(2)} ms  max ${Math.round(summary.direct.simulatorThroughput)} req/s`,
      `  ratio broker/simulator: p50 ${ratio(summary.hit.brokerP50Ms, summary.direct.simulatorP50Ms)}  p99 ${ratio(summary.hit.brokerP99Ms, summary.direct.simulatorP99Ms)}  throughput ${ratio(summary.hit.brokerThroughput, summary.direct.simulatorThroughput)}`,
      `tracing on (sampled, exporting) vs off, ${tracingRounds} paired rounds of ${seconds}s at ${rate} req/s:`,
      `  p50 ${summary.tracing.onP50Ms.toFixed(3)} ms vs ${summary.tracing.offP50Ms.toFixed(3)} ms: median of per-round ratios ${summary.tracing.addedP50Percent} % added`,
      `  per round: ${summary.tracing.addedP50PercentByRound.map((p) => `${p > 0 ? "+" : ""}${p} %`).join(", ")}`,
      `  broker CPU ${summary.tracing.onCpuUsPerRequest} µs vs ${summary.tracing.offCpuUsPerRequest} µs per request`,
    ];
    if (baseline)
      lines.push(
        `  ${values["compare-cli"]}, traced, same rounds: ${summary.tracing.compareAddedP50Percent} % added`,
      );
    process.stdout.write(`${lines.join("\n")}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 2));
  } finally {
    // Brokers stop before their Redis and collector do, so they shut down cleanly (and write
    // their CPU profiles under BENCH_NODE_ARGS).
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    await collector.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
