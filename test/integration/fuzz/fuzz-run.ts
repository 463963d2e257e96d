/**
 * Drives the fuzz inputs at a running broker and judges every answer:
 *  - gateway (raw bytes over TCP): an HTTP answer within the timeout, never a 5xx of the broker's
 *    own (5xx that GitHub — the simulator — sent are passed through and counted apart); a 4xx
 *    carries GitHub's JSON error shape, except the parser's bare 400 for unparseable framing;
 *    closing without an answer is accepted only for inputs that break off mid-request;
 *  - IPC (lines over the Unix socket): every request id answered with a JSON-RPC 2.0 result or
 *    error, unless the server closed the connection after saying why (an error with id null);
 *  - config (loadConfig, in process): loads, or throws an AoError — never anything else.
 * Also samples the broker's RSS and open file descriptors (/proc) to show memory and sockets
 * stay bounded. A seed and an input count reproduce a run exactly.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../broker/config/load-config.js";
import { isAoError } from "../../../common/index.js";
import { type ConfigCase, configCase } from "./config-inputs.js";
import { type HttpCase, type HttpContext, httpCase } from "./http-inputs.js";
import { type IpcCase, type IpcContext, ipcCase } from "./ipc-inputs.js";
import { Rng } from "./rng.js";

export interface FuzzTarget extends HttpContext, IpcContext {
  readonly port: number;
  readonly socketPath: string;
  /** The broker process, for RSS and fd counts (undefined: not measured). */
  readonly pid?: number | undefined;
  /** False once the broker process exited. */
  readonly alive: () => boolean;
}

export interface FuzzOptions {
  readonly seed: number;
  readonly http: number;
  readonly ipc: number;
  readonly config: number;
  /** @defaultValue 32 */
  readonly concurrency?: number;
  /** Per input. @defaultValue 15000 */
  readonly timeoutMs?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface FuzzFailure {
  readonly surface: "gateway" | "ipc" | "config";
  readonly index: number;
  readonly kind: string;
  readonly problem: string;
  /** The first bytes of the input. */
  readonly input: string;
}

export interface FuzzReport {
  readonly seed: number;
  readonly inputs: {
    readonly gateway: number;
    readonly ipc: number;
    readonly config: number;
    readonly total: number;
  };
  /** gateway kind → status (or "closed") → count; ipc/config outcome → count. */
  readonly outcomes: Record<string, Record<string, number>>;
  readonly upstream5xx: number;
  readonly failures: FuzzFailure[];
  readonly failureCount: number;
  readonly durationMs: number;
  readonly inputsPerSecond: number;
  readonly rssMb: {
    readonly start: number;
    readonly afterWarmup: number;
    readonly peak: number;
    readonly end: number;
  };
  /** RSS (MB) after each tenth of the inputs. */
  readonly rssCurve: number[];
  readonly fds: { readonly afterWarmup: number; readonly end: number };
  readonly brokerAlive: boolean;
}

function procRssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Math.round(Number(kb) / 102.4) / 10 : 0;
  } catch {
    return 0;
  }
}

function procFds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

const preview = (bytes: Buffer) => JSON.stringify(bytes.subarray(0, 160).toString("latin1"));

interface HttpVerdict {
  readonly outcome: string;
  readonly problem?: string;
  readonly upstream5xx?: boolean;
}

function sendHttp(port: number, c: HttpCase, timeoutMs: number): Promise<HttpVerdict> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (verdict: HttpVerdict) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(verdict);
    };
    const judge = (closed: boolean): HttpVerdict => {
      const text = Buffer.concat(chunks).toString("latin1");
      // Skip interim 1xx answers (100 Continue).
      const responses = text.split(/(?=HTTP\/1\.[01] \d{3})/).filter((r) => /^HTTP\/1\.[01] \d{3}/.test(r));
      const final = responses.find((r) => !/^HTTP\/1\.[01] 1\d\d/.test(r));
      if (!final) {
        if (closed && c.mayClose) return { outcome: "closed" };
        return {
          outcome: closed ? "closed" : "hang",
          problem: closed ? "closed without an answer" : "no answer (hang)",
        };
      }
      const status = Number(final.slice(9, 12));
      const [head = "", body = ""] = final.split("\r\n\r\n");
      const fromGitHub = /\r\nx-github-request-id:/i.test(head);
      if (status >= 500 && fromGitHub) return { outcome: String(status), upstream5xx: true };
      // A valid request paced past its (short) deadline is told so: documented, not a failure.
      if (status === 504 && /deadline passed before the request could be sent/.test(body))
        return { outcome: "504-deadline" };
      if (status >= 500)
        return { outcome: String(status), problem: `the broker answered ${status}: ${body.slice(0, 200)}` };
      if (status >= 400 && !fromGitHub) {
        // Node's parser answers broken framing (400) and unknown expectations (417) bare.
        const bare = (status === 400 || status === 417) && !/\r\ncontent-type:/i.test(head);
        if (
          !bare &&
          c.kind !== "webhook" &&
          !/"message"/.test(body) &&
          !/^HEAD /.test(c.bytes.toString("latin1"))
        )
          return {
            outcome: String(status),
            problem: `a ${status} without GitHub's error shape: ${body.slice(0, 200)}`,
          };
      }
      return { outcome: String(status) };
    };
    const timer = setTimeout(() => finish(judge(false)), timeoutMs);
    let settle: NodeJS.Timeout | undefined;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // A final answer's head is in: take what follows of its body for a moment, then judge
      // (a keep-alive answer leaves the connection open).
      if (
        !settle &&
        /HTTP\/1\.[01] [2-5]\d\d[\s\S]*?\r\n\r\n/.test(Buffer.concat(chunks).toString("latin1"))
      ) {
        settle = setTimeout(() => finish(judge(false)), 300);
      }
    });
    socket.on("close", () => {
      clearTimeout(settle);
      finish(judge(true));
    });
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      socket.write(c.bytes);
      // Only a case that breaks off mid-request closes its side (HTTP servers drop the request of
      // a client that half-closes, as real clients never do).
      if (c.mayClose) socket.end();
    });
  });
}

interface IpcVerdict {
  readonly outcome: string;
  readonly problem?: string;
}

function sendIpc(path: string, c: IpcCase, timeoutMs: number): Promise<IpcVerdict> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const answered = new Set<string>();
    let fatal = false;
    let bad: string | undefined;
    let pending = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const missing = c.ids.filter((id) => !answered.has(String(id)));
      if (bad) resolve({ outcome: "bad-answer", problem: bad });
      else if (missing.length === 0) resolve({ outcome: fatal ? "answered+closed" : "answered" });
      else if (closed && fatal) resolve({ outcome: "closed-after-error" });
      else
        resolve({
          outcome: closed ? "closed" : "hang",
          problem: `${missing.length} call(s) unanswered (${closed ? "closed" : "hang"})`,
        });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      let nl = pending.indexOf("\n");
      while (nl !== -1) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
        let message: {
          jsonrpc?: unknown;
          id?: unknown;
          result?: unknown;
          error?: { code?: unknown; message?: unknown };
        };
        try {
          message = JSON.parse(line);
        } catch {
          bad = `unparseable answer ${line.slice(0, 120)}`;
          continue;
        }
        if (message.jsonrpc !== "2.0") bad = `not JSON-RPC 2.0: ${line.slice(0, 120)}`;
        if ("error" in message) {
          if (typeof message.error?.code !== "number" || typeof message.error?.message !== "string")
            bad = `malformed error ${line.slice(0, 120)}`;
          if (message.id === null) fatal = true;
        }
        if (message.id !== undefined && message.id !== null) answered.add(String(message.id));
      }
      if (c.ids.every((id) => answered.has(String(id)))) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      for (const line of c.lines) socket.write(Buffer.concat([line, Buffer.from("\n")]));
    });
  });
}

function runConfig(dir: string, c: ConfigCase, index: number): { outcome: string; problem?: string } {
  const file = join(dir, `config-${index % 64}.json`);
  writeFileSync(file, c.file);
  const started = Date.now();
  try {
    loadConfig({ file, env: c.env });
    return Date.now() - started > 1_000
      ? { outcome: "slow", problem: "loadConfig took over 1 s" }
      : { outcome: "loaded" };
  } catch (error) {
    if (isAoError(error)) return { outcome: error.code };
    return { outcome: "threw", problem: `loadConfig threw a non-AoError: ${String(error).slice(0, 200)}` };
  }
}

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const total = options.http + options.ipc + options.config;
  const outcomes: Record<string, Record<string, number>> = {};
  const count = (group: string, outcome: string) => {
    const g = outcomes[group] ?? {};
    outcomes[group] = g;
    g[outcome] = (g[outcome] ?? 0) + 1;
  };
  const failures: FuzzFailure[] = [];
  let failureCount = 0;
  const fail = (f: FuzzFailure) => {
    failureCount++;
    if (failures.length < 50) failures.push(f);
  };
  let upstream5xx = 0;
  const rssStart = procRssMb(target.pid);
  let rssWarm = rssStart;
  let fdsWarm = procFds(target.pid);
  let peak = rssStart;
  const rssCurve: number[] = [];
  const sampler = setInterval(() => {
    peak = Math.max(peak, procRssMb(target.pid));
  }, 250);
  sampler.unref();

  // One schedule for the whole run: input i is drawn from its own generator seeded with (seed, i),
  // so any single input can be regenerated without replaying the others.
  const surfaces: ("gateway" | "ipc" | "config")[] = [];
  for (let i = 0; i < options.http; i++) surfaces.push("gateway");
  for (let i = 0; i < options.ipc; i++) surfaces.push("ipc");
  for (let i = 0; i < options.config; i++) surfaces.push("config");
  const order = new Rng(options.seed);
  for (let i = surfaces.length - 1; i > 0; i--) {
    const j = Math.floor(order.next() * (i + 1));
    [surfaces[i], surfaces[j]] = [surfaces[j] as never, surfaces[i] as never];
  }
  const configDir = mkdtempSync(join(tmpdir(), "aob-fuzz-config-"));
  let next = 0;
  let done = 0;
  const warmup = Math.max(1, Math.floor(total * 0.05));
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= surfaces.length) return;
      const rng = new Rng((options.seed * 1_000_003 + index) >>> 0);
      const surface = surfaces[index] as "gateway" | "ipc" | "config";
      if (surface === "gateway") {
        const c = httpCase(rng, target);
        const verdict = await sendHttp(target.port, c, timeoutMs);
        count(`gateway:${c.kind}`, verdict.outcome);
        if (verdict.upstream5xx) upstream5xx++;
        if (verdict.problem)
          fail({ surface, index, kind: c.kind, problem: verdict.problem, input: preview(c.bytes) });
      } else if (surface === "ipc") {
        const c = ipcCase(rng, target);
        const verdict = await sendIpc(target.socketPath, c, timeoutMs);
        count("ipc", verdict.outcome);
        if (verdict.problem)
          fail({
            surface,
            index,
            kind: "ipc",
            problem: verdict.problem,
            input: preview(Buffer.concat(c.lines.map((l) => l.subarray(0, 80)))),
          });
      } else {
        const c = configCase(rng);
        const verdict = runConfig(configDir, c, index);
        count("config", verdict.outcome);
        if (verdict.problem)
          fail({ surface, index, kind: "config", problem: verdict.problem, input: preview(c.file) });
        // loadConfig is synchronous: let the sockets breathe.
        if (index % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      done++;
      if (done === warmup) {
        rssWarm = procRssMb(target.pid);
        fdsWarm = procFds(target.pid);
      }
      if (done % 500 === 0) options.onProgress?.(done, total);
      if (done % Math.max(1, Math.floor(total / 10)) === 0) rssCurve.push(procRssMb(target.pid));
      if (!target.alive()) {
        fail({ surface, index, kind: "crash", problem: "the broker process exited", input: "" });
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 32 }, worker));
  clearInterval(sampler);
  rmSync(configDir, { recursive: true, force: true });
  // Let in-flight work and idle sockets settle before the last measurement.
  await new Promise((r) => setTimeout(r, 2_000));
  const durationMs = Date.now() - started;
  return {
    seed: options.seed,
    inputs: { gateway: options.http, ipc: options.ipc, config: options.config, total },
    outcomes,
    upstream5xx,
    failures,
    failureCount,
    durationMs,
    inputsPerSecond: Math.round((total / durationMs) * 1000),
    rssMb: { start: rssStart, afterWarmup: rssWarm, peak, end: procRssMb(target.pid) },
    rssCurve,
    fds: { afterWarmup: fdsWarm, end: procFds(target.pid) },
    brokerAlive: target.alive(),
  };
}
