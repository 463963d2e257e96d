/**
 * Issue 14, item 3: AO writes its wrappers over `~/.ao/bin/gh` whenever `.ao-version` is absent
 * (a fresh machine, where the docs had the shim installed first) or names another version (an AO
 * upgrade). Either way agents' gh must stay brokered — the shim guard (what `ao-broker run` runs
 * while AO runs) puts the shim back in front of AO's new wrapper — or `ao-broker doctor` and
 * `ao-broker status` must say plainly that it is not, and fail.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardShim, inspectShimHealth, installShim, type ShimGuard } from "../../../agents-shim/index.js";
import { aoAgentPath, aoSetupWrappers } from "../../support/ao-wrappers.js";
import { runCli } from "../../support/cli-process.js";
import {
  BASE_PATH,
  HELPER,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
  TEMPLATES,
} from "./harness.js";

let work: Scratch;
let broker: ShimBroker;
const guards: ShimGuard[] = [];

beforeAll(async () => {
  work = scratch("aob-survive-");
  broker = await startShimBroker(join(work.dir, "broker"));
}, 60_000);

afterAll(async () => {
  for (const guard of guards) guard.close();
  await broker?.close();
  work?.cleanup();
});

function machine(name: string) {
  const home = join(work.dir, name);
  const aoBin = join(home, ".ao", "bin");
  const options = { dir: aoBin, helperPath: HELPER, templateDir: TEMPLATES, env: { PATH: BASE_PATH }, home };
  return { home, aoBin, options, install: () => installShim(options) };
}

async function until(condition: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return condition();
}

/** An agent's `gh pr view` through the whole chain; the broker must know its session afterwards. */
async function agentGh(m: ReturnType<typeof machine>, session: string) {
  const result = await run(
    join(m.aoBin, "gh"),
    ["pr", "view", "1", "-R", "acme/widgets", "--json", "title"],
    {
      env: {
        PATH: aoAgentPath(m.aoBin, BASE_PATH),
        HOME: m.home,
        GH_CONFIG_DIR: join(m.home, "gh"),
        GH_PATH: "/usr/local/bin/gh",
        AO_SESSION_ID: session,
        AO_BROKER_SOCKET: broker.socketPath,
        AO_BROKER_SHIM_STATE: join(m.home, "shim-state"),
        GH_NO_UPDATE_NOTIFIER: "1",
        GH_PROMPT_DISABLED: "1",
      },
    },
  );
  return { result };
}

async function sessionIds(): Promise<string[]> {
  const listed = await runCli(["sessions", "--json", "--socket", broker.socketPath]);
  return (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
}

describe("AO writes its wrappers after `shim install`", { timeout: 90_000 }, () => {
  it("fresh machine, nothing guarding: doctor and status say agents' gh is not brokered, and fail", async () => {
    const m = machine("fresh-unguarded");
    m.install();
    expect(aoSetupWrappers(m.aoBin)).toBe(true);
    const health = inspectShimHealth({ dir: m.aoBin, env: { PATH: BASE_PATH } });
    expect(health).toMatchObject({ ok: false, installed: true, gh: "ao-wrapper", aoWrapperVersion: "0.6.0" });
    expect(health.problems[0]).toContain("AO wrote its wrappers after the shim was installed");

    const doctor = await runCli(["doctor", "--dir", m.aoBin, "--socket", broker.socketPath], {
      HOME: m.home,
    });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /^FAIL {2}agents' gh: .*gh is AO's wrapper again \(AO wrapper version 0\.6\.0\)/m,
    );
    expect(doctor.stdout).toMatch(/^ok {4}broker .* answers/m);

    const status = await runCli(["status", "--socket", broker.socketPath], { HOME: m.home });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain("shim      FAIL  agents' gh:");

    // The documented repair: install again; AO's wrapper is chained and AO will not write again.
    expect(m.install().chainedAoWrapper).toBe(join(m.aoBin, "gh.ao-wrapper"));
    expect(aoSetupWrappers(m.aoBin)).toBe(false);
    const fixed = await runCli(["doctor", "--dir", m.aoBin, "--socket", broker.socketPath], { HOME: m.home });
    expect(fixed.stdout).toMatch(/^ok {4}agents' gh: .* is ao-broker's shim 0\.1\.0, AO's wrapper chained/m);
    expect(fixed.stdout).not.toContain("FAIL  agents' gh");
  });

  it("fresh machine, guarded: the shim is back in front of AO's wrapper and agents' gh is brokered", async () => {
    const m = machine("fresh-guarded");
    m.install();
    const guard = guardShim({ ...m.options, intervalMs: 200 });
    guards.push(guard);
    expect(aoSetupWrappers(m.aoBin)).toBe(true);
    expect(await until(() => inspectShimHealth({ dir: m.aoBin }).ok)).toBe(true);
    expect(guard.rechains()).toBe(1);
    expect(readFileSync(join(m.aoBin, "gh.ao-wrapper"), "utf8")).toContain("wrapper version 0.6.0");
    const { result } = await agentGh(m, "agent-fresh");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ title: "Add widget frobnicator" });
    expect(await sessionIds()).toContain("agent-fresh");
  });

  it("AO upgrade (another wrapper version), guarded: the new wrapper is chained, agents stay brokered", async () => {
    const m = machine("upgrade-guarded");
    expect(aoSetupWrappers(m.aoBin, "0.6.0")).toBe(true);
    m.install();
    const guard = guardShim({ ...m.options, intervalMs: 200 });
    guards.push(guard);
    expect(aoSetupWrappers(m.aoBin, "0.7.0")).toBe(true);
    expect(await until(() => inspectShimHealth({ dir: m.aoBin }).ok)).toBe(true);
    expect(readFileSync(join(m.aoBin, "gh.ao-wrapper"), "utf8")).toContain("wrapper version 0.7.0");
    const { result } = await agentGh(m, "agent-upgraded");
    expect(result.code).toBe(0);
    expect(await sessionIds()).toContain("agent-upgraded");
  });

  it("AO upgrade, nothing guarding: doctor names the new AO wrapper version and fails", async () => {
    const m = machine("upgrade-unguarded");
    aoSetupWrappers(m.aoBin, "0.6.0");
    m.install();
    expect(inspectShimHealth({ dir: m.aoBin }).ok).toBe(true);
    expect(aoSetupWrappers(m.aoBin, "0.7.0")).toBe(true);
    const doctor = await runCli(["doctor", "--dir", m.aoBin, "--socket", broker.socketPath, "--json"], {
      HOME: m.home,
    });
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout) as { ok: boolean; shim: { problems: string[] } };
    expect(report.ok).toBe(false);
    expect(report.shim.problems.join("\n")).toContain("AO wrapper version 0.7.0");
  });
});
