/**
 * `ao-broker shim install` / `uninstall` on real directories: idempotent writes, updates of an
 * older shim, AO's wrapper kept and chained (gh then runs through it), foreign files refused
 * unless --force, the PATH report, and the CLI's own output.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installShim, uninstallShim } from "../../../agents-shim/index.js";
import { isAoError } from "../../../common/index.js";
import { runCli } from "../../support/cli-process.js";
import {
  BASE_PATH,
  fakeGh,
  HELPER,
  installTestShim,
  run,
  type Scratch,
  scratch,
  script,
  TEMPLATES,
} from "./harness.js";

const AO_WRAPPER = `#!/usr/bin/env bash
# ao gh wrapper — auto-updates session metadata on PR operations

ao_bin_dir="$(cd "$(dirname "$0")" && pwd)"
real_gh="\${GH_PATH:-gh}"
echo "ao-wrapper ran with GH_PATH=$GH_PATH" >&2
exec "$real_gh" "$@"
`;

let work: Scratch;
let n = 0;
const freshDir = () => {
  const dir = join(work.dir, `bin-${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

beforeAll(() => {
  work = scratch("aob-shim-install-");
});
afterAll(() => work?.cleanup());

describe("installShim", () => {
  describe("when DIR has no gh", () => {
    it("writes an executable shim and git helper, and says the directory is not on PATH", () => {
      const dir = freshDir();
      const report = installTestShim(dir);
      expect(report).toMatchObject({ action: "installed", onPath: false, chainedAoWrapper: undefined });
      expect(statSync(report.shimPath).mode & 0o777).toBe(0o755);
      expect(statSync(report.gitHelperPath).mode & 0o777).toBe(0o755);
      const text = readFileSync(report.shimPath, "utf8");
      expect(text).toContain("# ao-broker-shim: gh");
      expect(text).not.toMatch(/@AOB_[A-Z_]+@/);
      expect(text).toContain(`_aob_helper='${HELPER}'`);
    });

    it("is idempotent", () => {
      const dir = freshDir();
      installTestShim(dir);
      const before = statSync(join(dir, "gh")).mtimeMs;
      expect(installTestShim(dir).action).toBe("unchanged");
      expect(statSync(join(dir, "gh")).mtimeMs).toBe(before);
    });

    it("replaces an older version of itself", () => {
      const dir = freshDir();
      writeFileSync(join(dir, "gh"), "#!/bin/sh\n# ao-broker-shim: gh\n# version: 0.0.1\nexit 1\n", {
        mode: 0o755,
      });
      expect(installTestShim(dir)).toMatchObject({ action: "updated", previousVersion: "0.0.1" });
      expect(readFileSync(join(dir, "gh"), "utf8")).toContain("# version: 0.1.0");
    });
  });

  describe("when DIR/gh is AO's wrapper", () => {
    it("keeps it as gh.ao-wrapper and runs gh through it, pointed at the real gh", async () => {
      const dir = freshDir();
      writeFileSync(join(dir, "gh"), AO_WRAPPER, { mode: 0o755 });
      const report = installTestShim(dir);
      expect(report.chainedAoWrapper).toBe(join(dir, "gh.ao-wrapper"));
      expect(readFileSync(join(dir, "gh.ao-wrapper"), "utf8")).toBe(AO_WRAPPER);
      const fake = fakeGh(work.dir);
      const result = await run(report.shimPath, ["--version"], {
        env: { PATH: `${dir}:${BASE_PATH}`, AO_BROKER_GH: fake },
      });
      expect(result.stderr).toContain(`ao-wrapper ran with GH_PATH=${fake}`);
      expect(JSON.parse(result.stdout).argv).toEqual(["--version"]);
      // Installing again keeps the chain.
      expect(installTestShim(dir)).toMatchObject({
        action: "unchanged",
        chainedAoWrapper: join(dir, "gh.ao-wrapper"),
      });
    });

    it("puts it back on uninstall", () => {
      const dir = freshDir();
      writeFileSync(join(dir, "gh"), AO_WRAPPER, { mode: 0o755 });
      installTestShim(dir);
      expect(uninstallShim({ dir })).toMatchObject({ removed: true, restoredAoWrapper: join(dir, "gh") });
      expect(readFileSync(join(dir, "gh"), "utf8")).toBe(AO_WRAPPER);
      expect(existsSync(join(dir, ".ao-broker-shim"))).toBe(false);
    });
  });

  describe("when DIR/gh belongs to someone else", () => {
    it("refuses to replace it", () => {
      const dir = freshDir();
      writeFileSync(join(dir, "gh"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
      let error: unknown;
      try {
        installTestShim(dir);
      } catch (e) {
        error = e;
      }
      expect(isAoError(error, "AO_ERR_SHIM_FOREIGN_GH")).toBe(true);
      expect(readFileSync(join(dir, "gh"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    });

    it("moves it aside with force", () => {
      const dir = freshDir();
      writeFileSync(join(dir, "gh"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
      const report = installShim({
        dir,
        force: true,
        helperPath: HELPER,
        templateDir: TEMPLATES,
        env: { PATH: BASE_PATH },
      });
      expect(report.backup).toBe(join(dir, "gh.before-ao-broker"));
      expect(readFileSync(join(dir, "gh.before-ao-broker"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    });
  });

  describe("the PATH report", () => {
    it("finds DIR on PATH, the real gh after it, and a gh that would shadow it", () => {
      const dir = freshDir();
      const before = freshDir();
      script(join(before, "gh"), "#!/bin/sh\n");
      const onPath = installShim({
        dir,
        helperPath: HELPER,
        templateDir: TEMPLATES,
        env: { PATH: `${dir}:${BASE_PATH}` },
      });
      expect(onPath).toMatchObject({ onPath: true, shadowedBy: undefined });
      expect(onPath.realGh).toMatch(/\/gh$/);
      expect(onPath.realGh).not.toBe(join(dir, "gh"));
      const shadowed = installShim({
        dir,
        helperPath: HELPER,
        templateDir: TEMPLATES,
        env: { PATH: `${before}:${dir}:${BASE_PATH}` },
      });
      expect(shadowed.shadowedBy).toBe(join(before, "gh"));
    });
  });

  it("refuses to uninstall what is not its shim", () => {
    expect(() => uninstallShim({ dir: freshDir() })).toThrow(/not ao-broker's shim/);
  });
});

describe("ao-broker shim install (CLI)", () => {
  it("prints what it did and how to put DIR on PATH", async () => {
    const dir = freshDir();
    const result = await runCli(["shim", "install", "--dir", dir], { PATH: BASE_PATH });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`installed: ${dir}/gh (version 0.1.0)`);
    expect(result.stdout).toContain(`export PATH="${dir}:$PATH"`);
    const again = await runCli(["shim", "install", "--dir", dir, "--json"], { PATH: `${dir}:${BASE_PATH}` });
    expect(JSON.parse(again.stdout)).toMatchObject({ action: "unchanged", onPath: true, fallback: "fail" });
  });

  it("refuses a foreign gh with the error code, and an unknown fallback", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "gh"), "#!/bin/sh\n", { mode: 0o755 });
    const foreign = await runCli(["shim", "install", "--dir", dir]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain("AO_ERR_SHIM_FOREIGN_GH");
    const bad = await runCli(["shim", "install", "--dir", freshDir(), "--fallback", "maybe"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--fallback must be "fail" or "direct"');
  });

  it("bakes --fallback direct into the shim", async () => {
    const dir = freshDir();
    await runCli(["shim", "install", "--dir", dir, "--fallback", "direct"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    expect(readFileSync(join(dir, "gh"), "utf8")).toContain("_aob_fallback=${AO_BROKER_FALLBACK:-'direct'}");
  });
});
