/**
 * Token safety (issue 9): a real daemon (`node dist/cli.js start`, LOG_LEVEL=debug, OTLP export to
 * a test receiver, AO trace rows to a file, a webhook secret) holding a distinctive PAT is driven
 * through every edge — IPC calls, gateway reads/writes/errors, upstream failures, webhooks,
 * /metrics, the CLI's status/sessions/budget, the agents' shim with a fake gh that prints its
 * environment and with real gh — and then EVERYTHING the run produced is searched for the PAT and
 * the webhook secret (raw, base64 and base64url): the daemon's stdout/stderr, every file in its
 * state directory (the embedded Redis' append-only file and log included), the trace file, every
 * Redis key and value (SCAN + DUMP), every OTLP request body, every answer and error body.
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokerClient, connectBroker } from "../../../client/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  agentEnv,
  fakeGh,
  home,
  installTestShim,
  REAL_GH,
  run,
} from "../../integration/agents-shim/harness.js";
import { runCli } from "../../support/cli-process.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp-receiver.js";
import { CliBroker, freePort } from "./cli-broker.js";

const PAT = `ghp_${randomBytes(27).toString("base64url").slice(0, 36)}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(18).toString("hex")}`;
const SECRETS = [PAT, WEBHOOK_SECRET];

/** Every form a secret could take on its way out. */
function forms(secret: string): string[] {
  return [
    secret,
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    Buffer.from(`x-access-token:${secret}`).toString("base64"),
  ];
}

/** Where each collected text came from, for a useful failure message. */
const corpus: { where: string; text: string }[] = [];
const collect = (where: string, text: string | Buffer) =>
  corpus.push({ where, text: typeof text === "string" ? text : text.toString("latin1") });

let dir: string;
let sim: RunningSimulator;
let receiver: OtlpReceiver;
let broker: CliBroker;
let ipc: BrokerClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-secrets-"));
  receiver = await startOtlpReceiver();
  sim = await startSimulator({ port: 0, token: PAT });
  broker = new CliBroker({
    dir,
    upstreamUrl: sim.url,
    port: await freePort(),
    token: PAT,
    env: {
      LOG_LEVEL: "debug",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      AO_GH_TRACE_FILE: join(dir, "trace.jsonl"),
      AO_BROKER_WEBHOOK_SECRET: WEBHOOK_SECRET,
    },
  });
  await broker.start();
  ipc = await connectBroker({ socketPath: broker.socketPath });
}, 60_000);

afterAll(async () => {
  await ipc?.close();
  await broker?.stopWithRedis();
  await sim?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function gateway(
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const res = await fetch(`${broker.gatewayUrl}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token ? { authorization: `token ${init.token}` } : {}),
      "content-type": "application/json",
      ...init.headers,
    },
    ...(init.body === undefined
      ? {}
      : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
  });
  const text = await res.text();
  collect(
    `gateway ${init.method ?? "GET"} ${path} → ${res.status}`,
    `${JSON.stringify([...res.headers])}\n${text}`,
  );
  return new Response(text, { status: res.status, headers: res.headers });
}

async function ipcCall(name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    collect(`ipc ${name}`, JSON.stringify(await run()));
  } catch (error) {
    collect(`ipc ${name} (error)`, `${String(error)} ${JSON.stringify(error)}`);
  }
}

function walk(path: string, out: string[] = []): string[] {
  for (const entry of readdirSync(path)) {
    const full = join(path, entry);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) walk(full, out);
    else if (stat.isFile()) out.push(full);
  }
  return out;
}

describe("the PAT under a debug-level, fully traced run", () => {
  it("appears in no log, trace, metric, error, status, Redis value, file, child environment or gh output", async () => {
    // IPC: sessions, tokens, API calls (good and bad), reports.
    const opened = await ipc.openSession({ id: "secret-agent", repo: "acme/widgets" });
    collect("ipc session.open", JSON.stringify(opened));
    const token = opened.token;
    await ipcCall("session.open read-only", () =>
      ipc.openSession({ id: "secret-ro", repo: "acme/widgets", readOnly: true }),
    );
    await ipcCall("token.issue", () =>
      ipc.issueToken({ sessionId: "secret-agent", argv: ["pr", "view", "1"] }),
    );
    await ipcCall("rest GET", () =>
      ipc.rest({ sessionId: "secret-agent", method: "GET", path: "/repos/acme/widgets/pulls/1" }),
    );
    await ipcCall("rest 404", () =>
      ipc.rest({ sessionId: "secret-agent", method: "GET", path: "/repos/acme/nothing" }),
    );
    await ipcCall("rest POST", () =>
      ipc.rest({
        sessionId: "secret-agent",
        method: "POST",
        path: "/repos/acme/widgets/issues/10/comments",
        body: '{"body":"hi"}',
      }),
    );
    await ipcCall("graphql", () => ipc.graphql({ sessionId: "secret-agent", query: "{ viewer { login } }" }));
    await ipcCall("graphql bad", () => ipc.graphql({ sessionId: "secret-agent", query: "{ nope" }));
    await ipcCall("unknown session", () => ipc.rest({ sessionId: "nobody", method: "GET", path: "/user" }));
    await ipcCall("bad params", () => ipc.callUnchecked("rest", { sessionId: 42 }));
    await ipcCall("budget", () => ipc.budget());
    await ipcCall("status", () => ipc.status());
    await ipcCall("stats", () => ipc.stats());
    await ipcCall("sessions", () => ipc.listSessions());
    await ipcCall("trace.report", () => ipc.callUnchecked("trace.report", {}));

    // Gateway: reads, writes, refusals, upstream failures (a 502 burst, a reset), webhooks, metrics.
    await gateway("/repos/acme/widgets/pulls/1", { token });
    await gateway("/graphql", { method: "POST", token, body: { query: "{ viewer { login } }" } });
    await gateway("/repos/acme/widgets/issues/11/comments", {
      method: "POST",
      token,
      body: { body: "hello" },
    });
    await gateway("/user", { token: "aob_s_not-a-real-token" });
    await gateway("/user", { token: PAT }); // the PAT itself is not a broker token
    await gateway("/graphql", { method: "POST", token, body: "{not json" });
    sim.setFaults({
      rules: [
        { match: { pathPrefix: "/repos/acme/widgets/issues/12" }, action: { type: "status", status: 502 } },
        { match: { pathPrefix: "/repos/acme/widgets/pulls/3" }, action: { type: "reset" } },
      ],
    });
    await gateway("/repos/acme/widgets/issues/12", { token });
    await gateway("/repos/acme/widgets/pulls/3", { token });
    await gateway("/repos/acme/widgets/issues/12/comments", { method: "POST", token, body: { body: "x" } });
    sim.setFaults(undefined);
    const hook = JSON.stringify({ action: "opened", number: 1, repository: { full_name: "acme/widgets" } });
    const signature = `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(hook).digest("hex")}`;
    const signed = await gateway("/webhooks/github", {
      method: "POST",
      body: hook,
      headers: {
        "x-github-event": "pull_request",
        "x-github-delivery": "d-1",
        "x-hub-signature-256": signature,
      },
    });
    expect(signed.status).toBeLessThan(300);
    const forged = await gateway("/webhooks/github", {
      method: "POST",
      body: hook,
      headers: {
        "x-github-event": "pull_request",
        "x-github-delivery": "d-2",
        "x-hub-signature-256": "sha256=00",
      },
    });
    expect(forged.status).toBe(401);
    await gateway("/metrics");

    // The CLI's reports.
    const cliEnv = { AO_BROKER_SOCKET: broker.socketPath, GITHUB_TOKEN: undefined, GH_TOKEN: undefined };
    for (const args of [["status", "--json"], ["sessions", "--json"], ["budget", "--json"], ["status"]]) {
      const out = await runCli([...args, "--socket", broker.socketPath], cliEnv);
      expect(out.code).toBe(0);
      collect(`ao-broker ${args.join(" ")}`, `${out.stdout}\n${out.stderr}`);
    }

    // The agents' shim: gh's environment (a fake gh prints it), gh auth token/status, real gh.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    installTestShim(bin);
    const fake = fakeGh(dir);
    const agent = agentEnv({
      bin,
      socket: broker.socketPath,
      home: home(dir, "agent"),
      session: "secret-agent",
    });
    for (const [label, env, args] of [
      ["fake gh pr view", { ...agent, AO_BROKER_GH: fake }, ["pr", "view", "1"]],
      ["gh auth token", { ...agent, AO_BROKER_GH: fake }, ["auth", "token"]],
      ["gh auth status", { ...agent, AO_BROKER_GH: REAL_GH }, ["auth", "status"]],
      ["real gh api", { ...agent, AO_BROKER_GH: REAL_GH }, ["api", "repos/acme/widgets/pulls/1"]],
    ] as const) {
      const out = await run(join(bin, "gh"), [...args], { env: { ...env } });
      collect(`shim: ${label} (exit ${out.code})`, `${out.stdout}\n${out.stderr}`);
      if (label === "real gh api") expect(out.code).toBe(0);
      if (label === "gh auth token") expect(out.stdout.trim()).toMatch(/^aob_s_/);
    }

    // Redis: every key and value, while the broker still runs.
    const redis = broker.redis();
    let keys = 0;
    let cursor = "0";
    do {
      const [next, batch] = await redis.scan(cursor, "COUNT", 500);
      cursor = next;
      for (const key of batch) {
        keys++;
        const dumped = await redis.dumpBuffer(key);
        collect(`redis ${key}`, Buffer.concat([Buffer.from(key), dumped ?? Buffer.alloc(0)]));
      }
    } while (cursor !== "0");
    redis.disconnect();

    // Telemetry: spans and metrics reached the receiver; a graceful stop flushes the rest.
    await receiver.waitForSpans((spans) => spans.length > 10, 15_000);
    await broker.stop();
    collect("broker stdout+stderr", broker.output());
    const files = [...walk(broker.stateDir), join(dir, "trace.jsonl")];
    for (const file of files) collect(`file ${file}`, readFileSync(file));
    for (const [i, body] of receiver.rawBodies().entries()) collect(`otlp body ${i}`, body);

    // The scan is not vacuous: the PAT was used, and there was plenty to search.
    expect(sim.stats().requests.total).toBeGreaterThan(5);
    expect(sim.stats().requests.unauthorized).toBe(0);
    expect(keys).toBeGreaterThan(10);
    expect(broker.output()).toMatch(/"level":20/);
    expect(files.some((f) => f.endsWith(".aof") || f.includes("appendonly"))).toBe(true);
    expect(receiver.rawBodies().length).toBeGreaterThan(0);

    const leaks = corpus.flatMap(({ where, text }) =>
      SECRETS.flatMap((secret) =>
        forms(secret)
          .filter((form) => text.includes(form))
          .map(() => where),
      ),
    );
    expect(leaks).toEqual([]);
  }, 120_000);
});
