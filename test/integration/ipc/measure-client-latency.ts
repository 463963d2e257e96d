/**
 * Measures what the IPC client costs a caller such as the gh shim (not a test; run by hand):
 *
 *   npx tsx test/integration/ipc/measure-client-latency.ts
 *
 * 1. warm: connect + hello + one call + close, inside one process (median and p95 of many runs);
 * 2. one call on an open connection (the AO/CLI steady state);
 * 3. cold: fresh `node` processes load a bundled client (esbuild, packages external, the way a
 *    shim entry would be built), connect, say hello, make one call and close; each child reports
 *    the time to import the client, the time for the calls, and its CPU time for both (CPU time
 *    is the figure that stays honest on a loaded machine). A child importing only pino shows how
 *    much of the import is common/'s logger, which the client reaches through common/index.ts.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { IpcServer } from "../../../broker/ipc/index.js";
import { connectBroker } from "../../../client/index.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms (n=${samples.length})`;
}

const dir = mkdtempSync("/tmp/aob-measure-");
const socketPath = join(dir, "broker.sock");
const server = new IpcServer({
  socketPath,
  brokerInfo: { version: "measure", pid: process.pid, gatewayUrl: "http://127.0.0.1:0", socket: socketPath },
  handlers: { stats: () => ({ requests: 1 }) },
});
await server.start();
// Inside the repository so the bundle's external imports (pino) resolve from node_modules.
const work = join(ROOT, "node_modules/.cache/aob-measure");
mkdirSync(work, { recursive: true });
try {
  const warm: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const started = performance.now();
    const client = await connectBroker({ socketPath });
    await client.stats();
    await client.close();
    if (i >= 20) warm.push(performance.now() - started);
  }
  const client = await connectBroker({ socketPath });
  const steady: number[] = [];
  for (let i = 0; i < 2000; i += 1) {
    const started = performance.now();
    await client.stats();
    if (i >= 100) steady.push(performance.now() - started);
  }
  await client.close();

  const lib = join(work, "client-lib.mjs");
  await build({
    stdin: { contents: 'export { connectBroker } from "./client/index.ts";', resolveDir: ROOT, loader: "ts" },
    outfile: lib,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    target: "node20",
    logLevel: "warning",
  });
  const runner = (body: string) => `const t0 = performance.now(); const c0 = process.cpuUsage();
${body}
const cpu = process.cpuUsage(c0);
console.log(JSON.stringify({ importMs: t1 - t0, callMs: performance.now() - t1, cpuMs: (cpu.user + cpu.system) / 1000 }));\n`;
  const clientRunner = join(work, "client-run.mjs");
  writeFileSync(
    clientRunner,
    runner(`const { connectBroker } = await import(${JSON.stringify(lib)});
const t1 = performance.now();
const c = await connectBroker({ socketPath: ${JSON.stringify(socketPath)} });
await c.stats();
await c.close();`),
  );
  const pinoRunner = join(work, "pino-run.mjs");
  writeFileSync(pinoRunner, runner(`await import("pino");\nconst t1 = performance.now();`));

  type Sample = { importMs: number; callMs: number; cpuMs: number };
  const child = async (script: string): Promise<Sample> =>
    JSON.parse((await run(process.execPath, [script], { cwd: ROOT })).stdout) as Sample;
  const clientSamples: Sample[] = [];
  const pinoSamples: Sample[] = [];
  for (let i = 0; i < 30; i += 1) {
    clientSamples.push(await child(clientRunner));
    pinoSamples.push(await child(pinoRunner));
  }
  console.log(`warm connect+hello+call+close:   ${summary(warm)}`);
  console.log(`one call on an open connection:  ${summary(steady)}`);
  console.log(`cold: import the client bundle:  ${summary(clientSamples.map((s) => s.importMs))}`);
  console.log(`cold: connect+hello+call+close:  ${summary(clientSamples.map((s) => s.callMs))}`);
  console.log(`cold: CPU time, import + calls:  ${summary(clientSamples.map((s) => s.cpuMs))}`);
  console.log(`cold: import pino alone:         ${summary(pinoSamples.map((s) => s.importMs))}`);
  console.log(`cold: CPU time, pino alone:      ${summary(pinoSamples.map((s) => s.cpuMs))}`);
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
