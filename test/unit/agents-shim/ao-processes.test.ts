import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findAoProcesses, looksLikeAo } from "../../../agents-shim/ao-processes.js";

const dir = mkdtempSync(join(tmpdir(), "aob-ao-proc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("AO orchestrator processes", () => {
  it("recognises `ao start|status|dashboard` and @composio/ao, not ao-broker or other tools", () => {
    expect(looksLikeAo(["node", "/usr/lib/node_modules/@composio/ao/dist/index.js", "start"])).toBe(true);
    expect(looksLikeAo(["node", "/home/u/.npm/bin/ao", "start"])).toBe(true);
    expect(looksLikeAo(["ao", "status"])).toBe(true);
    expect(looksLikeAo(["node", "dist/cli.js", "run", "--", "ao", "start"])).toBe(true);
    expect(looksLikeAo(["node", "/x/ao-broker/dist/cli.js", "start"])).toBe(false);
    expect(looksLikeAo(["tao", "start"])).toBe(false);
    expect(looksLikeAo(["ao", "--version"])).toBe(false);
  });

  it("finds a running one and tells whether it runs under `ao-broker run`", async () => {
    const ao = join(dir, "ao");
    writeFileSync(ao, "#!/bin/sh\nsleep 30\n");
    chmodSync(ao, 0o755);
    const plain = spawn("sh", [ao, "start"], { stdio: "ignore", detached: true });
    const brokered = spawn("sh", [ao, "status"], {
      stdio: "ignore",
      detached: true,
      env: { ...process.env, AO_BROKER_RUN_SESSION: "ao-orchestrator" },
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const found = findAoProcesses() ?? [];
      const byPid = new Map(found.map((p) => [p.pid, p]));
      expect(byPid.get(plain.pid ?? -1)?.runSession).toBeUndefined();
      expect(byPid.has(plain.pid ?? -1)).toBe(true);
      expect(byPid.get(brokered.pid ?? -1)?.runSession).toBe("ao-orchestrator");
    } finally {
      // Their process groups: the shell and its sleep.
      for (const child of [plain, brokered]) if (child.pid) process.kill(-child.pid, "SIGKILL");
    }
  });
});
