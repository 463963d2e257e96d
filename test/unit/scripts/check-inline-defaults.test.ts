import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve("scripts/check-inline-defaults.mjs");
const roots: string[] = [];

function repoWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "inline-defaults-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(cwd: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT], { cwd, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-inline-defaults", () => {
  it("passes on this repository", () => {
    const run = check(process.cwd());
    expect(run.output).toMatch(/^inline defaults ok/);
    expect(run.status).toBe(0);
  });

  it("fails on `?? n`, `|| n` and numeric default parameters in broker/ and lifecycle/, naming each", () => {
    const root = repoWith({
      "broker/gateway/server.ts": [
        "export function a(o: { t?: number }) {",
        "  return Date.now() + (o.t ?? 10_000);",
        "}",
        "export class S {",
        "  async close(graceMs = 30_000): Promise<void> {}",
        "}",
        "export const b = (n: number) => n || 5;",
        "export function c(",
        "  url: string,",
        "  timeoutMs = 60_000,",
        ") {}",
      ].join("\n"),
      "lifecycle/webhooks.ts": "export const m = (o: { x?: number }) => o.x ?? 25 * 1024 * 1024;\n",
    });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.output).toContain("broker/gateway/server.ts:2:");
    expect(run.output).toContain("broker/gateway/server.ts:5:");
    expect(run.output).toContain("broker/gateway/server.ts:7:");
    expect(run.output).toContain("broker/gateway/server.ts:10:");
    expect(run.output).not.toContain("broker/gateway/server.ts:9:");
    expect(run.output).toContain("lifecycle/webhooks.ts:1:");
  });

  it("lets schemas hold defaults and does not flag 0, 1, comments or other folders", () => {
    const root = repoWith({
      "broker/gateway/gateway-settings.ts": "export const d = (o: { t?: number }) => o.t ?? 10_000;\n",
      "broker/config/config-schema.ts": "export const d = (o: { t?: number }) => o.t ?? 10_000;\n",
      "lifecycle/config.ts": "export const d = (o: { t?: number }) => o.t ?? 10_000;\n",
      "broker/counts.ts": [
        "export const total = (m: Map<string, number>, k: string) => (m.get(k) ?? 0) + 1;",
        "export const weight = (w?: number) => w ?? 1;",
        "// a comment may say timeoutMs ?? 30_000",
        "/** @defaultValue 30_000, i.e. o.t ?? 30_000 */",
      ].join("\n"),
      "bench/run.ts": "export const d = (o: { t?: number }) => o.t ?? 10_000;\n",
    });
    const run = check(root);
    expect(run.output).toMatch(/^inline defaults ok/);
    expect(run.status).toBe(0);
  });
});
