/**
 * Redaction everywhere the broker keeps records (issue 17, item 6): agents type secrets into gh
 * arguments — a PAT-shaped canary as `gh secret set --body`, a shapeless canary as `-b`, a PAT in an
 * `-H Authorization:` header — through the shim and real gh 2.23 against the simulator, and then
 * every place the broker keeps records is searched for either canary (raw, base64, base64url):
 * every Redis key and value (SCAN + DUMP of all types: invocation records, recent commands, the
 * call stream p:calls, BullMQ jobs), the CLI's outputs (`sessions --json`, `status`, `trace report`),
 * the daemon's debug-level log and every file of its state directory (the Redis append-only file).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { agentEnv, home, installTestShim, REAL_GH, run } from "../../integration/agents-shim/harness.js";
import { runCli } from "../../support/cli-process.js";
import { CliBroker, freePort } from "./cli-broker.js";

const PAT_CANARY = `ghp_${randomBytes(27).toString("base64url").replace(/[-_]/g, "x").slice(0, 36)}`;
const PLAIN_CANARY = `canary-${randomBytes(12).toString("hex")}`;
const CANARIES = [PAT_CANARY, PLAIN_CANARY];

function forms(secret: string): string[] {
  return [secret, Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("base64url")];
}

function walk(path: string, out: string[] = []): string[] {
  for (const entry of readdirSync(path)) {
    const full = join(path, entry);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (stat?.isDirectory()) walk(full, out);
    else if (stat?.isFile()) out.push(full);
  }
  return out;
}

const corpus: { where: string; text: string }[] = [];
const collect = (where: string, text: string | Buffer) =>
  corpus.push({ where, text: typeof text === "string" ? text : text.toString("latin1") });

let dir: string;
let sim: RunningSimulator;
let broker: CliBroker;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-canary-"));
  sim = await startSimulator({ port: 0 });
  broker = new CliBroker({
    dir,
    upstreamUrl: sim.url,
    port: await freePort(),
    token: sim.token,
    env: { LOG_LEVEL: "debug" },
  });
  await broker.start();
}, 60_000);

afterAll(async () => {
  await broker?.stopWithRedis();
  await sim?.close();
  if (!process.env.KEEP_CANARY_DIR) rmSync(dir, { recursive: true, force: true });
});

describe("a canary secret typed into gh arguments", () => {
  it("appears in no Redis key or value, no CLI output and no log", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    installTestShim(bin);
    const env = {
      ...agentEnv({
        bin,
        socket: broker.socketPath,
        home: home(dir, "agent"),
        session: "canary-agent",
        extra: { GH_REPO: "acme/widgets", AO_BROKER_SHIM_NOTICE_AFTER: "0" },
      }),
      AO_BROKER_GH: REAL_GH,
    };
    const commands: string[][] = [
      ["pr", "view", "1"],
      ["secret", "set", "DEPLOY_TOKEN", "--body", PAT_CANARY],
      ["secret", "set", "DEPLOY_KEY", "-b", PLAIN_CANARY],
      ["secret", "set", "DEPLOY_KEY2", `--body=${PLAIN_CANARY}`],
      ["api", "repos/acme/widgets/pulls/1", "-H", `Authorization: token ${PAT_CANARY}`],
      // Not here: a header the agent asks to SEND (`-H X-Note: <secret>`) is request content; it
      // rides in the queued job's data until the job is done (docs/SECURITY.md, "What Redis holds").
      ["pr", "list", "--search", PAT_CANARY],
    ];
    for (const args of commands) {
      const out = await run(join(bin, "gh"), args, { env });
      if (args[0] === "pr" && args[1] === "view") expect(out.code).toBe(0);
    }
    // Let the statistics flush (100 ms) and the exit reports arrive.
    await new Promise((r) => setTimeout(r, 1500));

    const cliEnv = { AO_BROKER_SOCKET: broker.socketPath, GITHUB_TOKEN: undefined, GH_TOKEN: undefined };
    let sessionsJson = "";
    for (const args of [["sessions", "--json"], ["sessions"], ["status", "--json"], ["trace", "report"]]) {
      const out = await runCli([...args, "--socket", broker.socketPath], cliEnv);
      collect(`ao-broker ${args.join(" ")}`, `${out.stdout}\n${out.stderr}`);
      if (args[0] === "sessions" && args[1] === "--json") sessionsJson = out.stdout;
    }

    const redis = broker.redis();
    let keys = 0;
    let cursor = "0";
    const recorded: string[] = [];
    do {
      const [next, batch] = await redis.scan(cursor, "COUNT", 500);
      cursor = next;
      for (const key of batch) {
        keys++;
        if (/:invocation:|:recent$|:calls$/.test(key)) recorded.push(key);
        const dumped = await redis.dumpBuffer(key);
        collect(`redis ${key}`, Buffer.concat([Buffer.from(key), dumped ?? Buffer.alloc(0)]));
      }
    } while (cursor !== "0");
    redis.disconnect();

    await broker.stop();
    collect("broker stdout+stderr", broker.output());
    for (const file of walk(broker.stateDir)) collect(`file ${file}`, readFileSync(file));

    // Not vacuous: the secret commands were recorded (redacted), and there was plenty to search.
    expect(keys).toBeGreaterThan(10);
    expect(recorded.some((k) => k.includes(":invocation:"))).toBe(true);
    expect(recorded.some((k) => k.endsWith(":calls"))).toBe(true);
    expect(sessionsJson).toContain("canary-agent");
    expect(sessionsJson).toContain("[REDACTED]");
    expect(broker.output()).toMatch(/"level":20/);

    const leaks = corpus.flatMap(({ where, text }) =>
      CANARIES.flatMap((secret) =>
        forms(secret)
          .filter((form) => text.includes(form))
          .map((form) => `${where}: ${form === secret ? secret : "encoded"}`),
      ),
    );
    expect(leaks).toEqual([]);
  }, 120_000);
});
