/**
 * `npm run soak`: many agent sessions against one broker for a long time (issue 9: 500 active
 * sessions for 30 minutes), watching for what only time shows — memory that creeps, sockets that
 * are never closed, Redis keys that are never deleted.
 *
 * Three parts, as deployed: the broker (`node dist/cli.js start`, its own process, measured), a
 * private redis-server, and this process (the simulator with N generated PRs and a budget the run
 * cannot spend, plus the agents). Each agent, like one of AO's sessions, runs gh-like commands
 * with think time between them (view a PR in GraphQL, read its checks, list reviews, now and then
 * comment), each command under its own derived invocation token as the shim makes them and
 * reported finished as the shim does; some sessions are watched by the lifecycle poller; a few
 * sessions close and new ones open every minute (AO's churn).
 *
 * Every sample: broker RSS and open file descriptors (sockets among them, from /proc), Redis keys
 * by pattern and used memory, requests answered and failed, latency p50/p95. The summary compares
 * the first and the last third of the run. Exits 1 when RSS or descriptors keep climbing.
 *
 * Usage: npm run soak [-- --sessions 500 --minutes 30 --sample-seconds 30 --json FILE]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { Agent, request } from "undici";
import { startEmbeddedRedis } from "../broker/index.js";
import { connectBroker } from "../client/index.js";
import { startSimulator } from "../github-sim/index.js";

const CLI = join(import.meta.dirname, "..", "dist", "cli.js");
const PRS = 100;

interface Sample {
  readonly minute: number;
  readonly rssMb: number;
  readonly fds: number;
  readonly sockets: number;
  readonly redisKeys: Record<string, number>;
  readonly redisUsedMb: number;
  readonly requests: number;
  readonly failures: number;
  readonly p50: number;
  readonly p95: number;
  readonly sessions: number;
}

function proc(pid: number): { rssMb: number; fds: number; sockets: number } {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    const fds = readdirSync(`/proc/${pid}/fd`);
    let sockets = 0;
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++;
      } catch {
        // closed meanwhile
      }
    }
    return { rssMb: Math.round(kb / 102.4) / 10, fds: fds.length, sockets };
  } catch {
    return { rssMb: 0, fds: 0, sockets: 0 };
  }
}

/** Key families: the prefix's own keys by their second segment, BullMQ's and the budget's by tag. */
function family(key: string): string {
  if (key.startsWith("{aob:up}"))
    return `{aob:up}:${key.split(":")[2] ?? ""}`.replace(/:[0-9a-f-]{36}$/, ":<job>");
  if (key.startsWith("{aob:budget}")) return "{aob:budget}";
  const parts = key.split(":");
  return parts.length > 1 ? `${parts[0]}:${parts[1]}` : key;
}

async function redisKeys(redis: Redis): Promise<{ keys: Record<string, number>; usedMb: number }> {
  const keys: Record<string, number> = {};
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "COUNT", 2000);
    cursor = next;
    for (const key of batch) {
      const f = /^\{aob:up\}:(reads|writes):[0-9a-f-]{36}/.test(key) ? "{aob:up}:<lane>:<job>" : family(key);
      keys[f] = (keys[f] ?? 0) + 1;
    }
  } while (cursor !== "0");
  const used = Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? 0);
  return { keys, usedMb: Math.round(used / 104857.6) / 10 };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "500" },
      minutes: { type: "string", default: "30" },
      "sample-seconds": { type: "string", default: "30" },
      "think-seconds": { type: "string", default: "20" },
      json: { type: "string" },
    },
  });
  const sessions = Number(values.sessions);
  const minutes = Number(values.minutes);
  const sampleMs = Number(values["sample-seconds"]) * 1000;
  const thinkMs = Number(values["think-seconds"]) * 1000;
  const dir = mkdtempSync(join(tmpdir(), "aob-soak-"));
  const redisServer = await startEmbeddedRedis({ dir: join(dir, "redis"), detached: false, persist: false });
  const redis = new Redis({ path: redisServer.socketPath });
  const sim = await startSimulator({
    port: 0,
    prs: PRS,
    limits: { core: 10_000_000, graphql: 10_000_000, search: 10_000_000 },
  });
  const socket = join(dir, "broker.sock");
  let broker: ChildProcess | undefined;
  try {
    broker = spawn(
      process.execPath,
      [
        CLI,
        "start",
        "--upstream",
        sim.url,
        "--listen",
        "127.0.0.1:0",
        "--socket",
        socket,
        "--redis",
        redisServer.url,
      ],
      {
        env: {
          ...process.env,
          GITHUB_TOKEN: sim.token,
          LOG_LEVEL: "warn",
          AO_BROKER_STATE_DIR: join(dir, "state"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    broker.stderr?.on("data", (c: Buffer) => {
      output = (output + c.toString()).slice(-20_000);
    });
    const gateway = await new Promise<string>((resolve, reject) => {
      let out = "";
      broker?.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /gateway\s+(http:\/\/\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      broker?.once("exit", (code) =>
        reject(new Error(`broker exited (${code}) before listening:\n${output}`)),
      );
    });
    const pid = broker.pid ?? 0;
    let brokerExited = false;
    broker.once("exit", () => {
      brokerExited = true;
    });
    const ipc = await connectBroker({ socketPath: socket, reconnect: true, timeoutMs: 60_000 });
    const dispatcher = new Agent({ connections: 128, keepAliveTimeout: 30_000 });

    let requests = 0;
    let failures = 0;
    let window: number[] = [];
    const failureKinds: Record<string, number> = {};
    const call = async (method: string, path: string, token: string, body?: unknown): Promise<unknown> => {
      const started = performance.now();
      try {
        const res = await request(`${gateway}${path}`, {
          dispatcher,
          method: method as "GET",
          headers: { authorization: `token ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.body.text();
        requests++;
        window.push(performance.now() - started);
        if (res.statusCode >= 400 || text.includes('"RATE_LIMITED"')) {
          failures++;
          const kind = `${res.statusCode} ${method} ${path.replace(/\d+/g, "N").split("?")[0]}`;
          failureKinds[kind] = (failureKinds[kind] ?? 0) + 1;
          return undefined;
        }
        return text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined;
      } catch (error) {
        requests++;
        failures++;
        const kind = `error ${(error as Error).message.slice(0, 60)}`;
        failureKinds[kind] = (failureKinds[kind] ?? 0) + 1;
        return undefined;
      }
    };

    const deadline = Date.now() + minutes * 60_000;
    let nextId = 0;
    let live = 0;
    const agent = async (): Promise<void> => {
      const id = `soak-${nextId++}`;
      const pr = 101 + (nextId % PRS);
      const opened = await ipc.openSession({ id, repo: "acme/widgets" });
      const headSha = sim.world.repo("acme/widgets")?.pulls.get(pr)?.headSha ?? "main";
      live++;
      if (nextId % 5 === 0) {
        const branch = sim.world.repo("acme/widgets")?.pulls.get(pr)?.headRef ?? `gen/pr-${pr}`;
        await ipc.watch({ sessionId: id, repo: "acme/widgets", branch, pr }).catch(() => undefined);
      }
      // Sessions live 1–20 minutes, then close (and a new one takes the slot): AO's churn.
      const endAt = Math.min(deadline, Date.now() + (60_000 + Math.random() * 19 * 60_000));
      await sleep(Math.random() * thinkMs);
      let command = 0;
      while (Date.now() < endAt) {
        const invocation = Buffer.from(
          JSON.stringify({
            i: `${id}-${command++}-${Math.random().toString(36).slice(2, 10)}`,
            a: ["pr", "view", String(pr)],
          }),
        ).toString("base64url");
        const token = `${opened.token}.${invocation}`;
        const started = Date.now();
        await call("POST", "/graphql", token, {
          query: `query { repository(owner: "acme", name: "widgets") { pullRequest(number: ${pr}) { title state isDraft headRefName reviewDecision commits(last: 1) { nodes { commit { statusCheckRollup { state } } } } } } }`,
        });
        const r = Math.random();
        if (r < 0.5) await call("GET", `/repos/acme/widgets/pulls/${pr}`, token);
        else if (r < 0.8) await call("GET", `/repos/acme/widgets/pulls/${pr}/reviews`, token);
        else if (r < 0.98) await call("GET", `/repos/acme/widgets/commits/${headSha}/check-runs`, token);
        else
          await call("POST", `/repos/acme/widgets/issues/${pr}/comments`, token, {
            body: `soak ${id} ${command}`,
          });
        await call("POST", "/_aob/invocation/finish", token, {
          exitCode: 0,
          durationMs: Date.now() - started,
        });
        await sleep(thinkMs / 2 + Math.random() * thinkMs);
      }
      await ipc.closeSession(id).catch(() => undefined);
      live--;
    };
    const slot = async (): Promise<void> => {
      while (Date.now() < deadline) await agent().catch(() => sleep(1_000));
    };

    const samples: Sample[] = [];
    const started = Date.now();
    const sample = async () => {
      const p = proc(pid);
      const r = await redisKeys(redis);
      const sorted = window.sort((a, b) => a - b);
      window = [];
      samples.push({
        minute: Math.round((Date.now() - started) / 6_000) / 10,
        rssMb: p.rssMb,
        fds: p.fds,
        sockets: p.sockets,
        redisKeys: r.keys,
        redisUsedMb: r.usedMb,
        requests,
        failures,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        sessions: live,
      });
      const s = samples.at(-1) as Sample;
      process.stderr.write(
        `  ${s.minute.toFixed(1)} min: RSS ${s.rssMb} MB, fds ${s.fds} (sockets ${s.sockets}), Redis keys ${Object.values(s.redisKeys).reduce((a, b) => a + b, 0)} (${s.redisUsedMb} MB), ${s.requests} requests (${s.failures} failed), p50 ${s.p50} ms p95 ${s.p95} ms, ${s.sessions} sessions\n`,
      );
    };
    const ramp = Array.from({ length: sessions }, async (_, i) => {
      await sleep((i * 10_000) / sessions); // open 500 sessions over the first 10 s
      await slot();
    });
    const sampler = (async () => {
      while (Date.now() < deadline && !brokerExited) {
        await sleep(sampleMs);
        await sample();
      }
    })();
    await Promise.all([...ramp, sampler]);
    await sleep(5_000);
    await sample();
    await ipc.close();
    await dispatcher.close();

    // Compare the first and last thirds of the run (after the ramp-up).
    const third = Math.max(1, Math.floor(samples.length / 3));
    const early = samples.slice(1, 1 + third);
    const late = samples.slice(-third);
    const avg = (list: Sample[], f: (s: Sample) => number) =>
      Math.round((list.reduce((a, s) => a + f(s), 0) / Math.max(1, list.length)) * 10) / 10;
    const summary = {
      sessions,
      minutes,
      requests,
      failures,
      failureKinds,
      brokerAlive: !brokerExited,
      rssMb: {
        early: avg(early, (s) => s.rssMb),
        late: avg(late, (s) => s.rssMb),
        max: Math.max(...samples.map((s) => s.rssMb)),
      },
      fds: { early: avg(early, (s) => s.fds), late: avg(late, (s) => s.fds) },
      sockets: { early: avg(early, (s) => s.sockets), late: avg(late, (s) => s.sockets) },
      redisUsedMb: { early: avg(early, (s) => s.redisUsedMb), late: avg(late, (s) => s.redisUsedMb) },
      redisKeysFirst: samples[1]?.redisKeys ?? {},
      redisKeysLast: samples.at(-1)?.redisKeys ?? {},
    };
    const ok =
      summary.brokerAlive &&
      summary.rssMb.late - summary.rssMb.early < 64 &&
      summary.fds.late - summary.fds.early < 32 &&
      summary.sockets.late - summary.sockets.early < 32;
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n${ok ? "PASS" : "FAIL"}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify({ summary, samples }, null, 2));
    process.exitCode = ok ? 0 : 1;
  } finally {
    broker?.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 2_000));
    broker?.kill("SIGKILL");
    redis.disconnect();
    await sim.close();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
