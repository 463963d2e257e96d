/**
 * Counts the Redis round trips of one REST cache miss and one cache hit through the gateway, for
 * the hop tables (broker/README.md, docs/architecture.md). A private redis-server, the simulator and
 * an in-process broker (lifecycle off, so no poller traffic); `redis-cli MONITOR` on the private
 * server records every command; each request gets its own window, and an idle window of the same
 * length shows the background (BullMQ's blocking waits, timers) to subtract. V8's precise coverage,
 * reset before each window, lists the repository files whose code ran in it (the files crossed).
 *   npx tsx scripts/count-redis-trips.ts
 */
import { spawn } from "node:child_process";
import { Session } from "node:inspector/promises";
import { startSimulator } from "../github-sim/index.js";
import { startBrokerUnderTest } from "../test/support/broker-harness.js";
import { startTestRedis } from "../test/support/redis.js";

const WINDOW_MS = 400;
const ROOT = new URL("..", import.meta.url).href;

const inspector = new Session();
inspector.connect();
await inspector.post("Profiler.enable");
await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
/** Repository files (not tests, not dependencies) any of whose functions ran since the last call. */
async function filesRun(): Promise<string[]> {
  const { result } = await inspector.post("Profiler.takePreciseCoverage");
  return result
    .filter((script) => script.url.startsWith(ROOT) && !/\/(node_modules|test|scripts)\//.test(script.url))
    .filter((script) => script.functions.some((f) => f.ranges.some((r) => r.count > 0)))
    .map((script) => script.url.slice(ROOT.length))
    .sort();
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const redis = await startTestRedis();
const sim = await startSimulator({ port: 0 });
const broker = await startBrokerUnderTest({
  redisUrl: redis.url,
  prefix: redis.prefix(),
  upstreamUrl: sim.url,
  config: { lifecycle: { enabled: false } },
});
const lines: string[] = [];
const socket = redis.url.replace(/^unix:\/\//, "").replace(/^redis\+unix:\/\//, "");
const monitor = spawn("redis-cli", ["-s", socket, "monitor"]);
monitor.stdout.setEncoding("utf8");
let buffer = "";
monitor.stdout.on("data", (chunk: string) => {
  buffer += chunk;
  const parts = buffer.split("\n");
  buffer = parts.pop() ?? "";
  lines.push(...parts.filter((l) => l.trim() !== "" && l !== "OK"));
});
/**
 * Sent by a client (a round trip, except inside MULTI/EXEC or a pipeline) or run by a Lua script
 * (no round trip of its own: MONITOR shows the script's client as "lua").
 */
function report(label: string, window: readonly string[]): void {
  const parsed = window.map((l) => {
    const m = /^[\d.]+ \[\d+ ([^\]]+)\] (.*)$/.exec(l);
    return { lua: m?.[1] === "lua", text: (m?.[2] ?? l).slice(0, 100) };
  });
  const sent = parsed.filter((c) => !c.lua);
  console.log(`\n## ${label}: ${sent.length} commands sent, ${parsed.length - sent.length} run inside Lua`);
  for (const c of parsed) console.log(`  ${c.lua ? "    lua> " : ""}${c.text}`);
}

try {
  const { token } = await broker.openSession("count-1");
  await sleep(1_000);
  const get = async (label: string) => {
    const start = lines.length;
    await filesRun();
    const response = await fetch(`${broker.broker.gatewayUrl}/repos/acme/widgets/pulls/1`, {
      headers: { authorization: `token ${token}` },
    });
    await response.arrayBuffer();
    await sleep(WINDOW_MS);
    const files = await filesRun();
    report(`${label}: ${response.headers.get("x-ao-broker-cache")}`, lines.slice(start));
    const folders = new Set(files.map((f) => f.split("/").slice(0, -1).join("/")));
    console.log(`  files run: ${files.length} in ${folders.size} folders: ${files.join(" ")}`);
  };
  const idle = async () => {
    const start = lines.length;
    await filesRun();
    await sleep(WINDOW_MS);
    const files = await filesRun();
    console.log(`\n  files run while idle: ${files.length}: ${files.join(" ")}`);
    report(`idle window (${WINDOW_MS} ms)`, lines.slice(start));
  };
  await idle();
  await get("first GET (REST miss)");
  await get("second GET (REST hit)");
  await idle();
} finally {
  monitor.kill();
  await broker.close();
  await sim.close();
  await redis.stop();
}
