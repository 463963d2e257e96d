import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isGitWrapperText, resolveRealGit } from "../../../agents-shim/real-git.js";

const base = mkdtempSync(join(tmpdir(), "aob-real-git-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function exe(dir: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "git");
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

describe("resolveRealGit", () => {
  it("recognises AO's git wrapper and the shim's helper by their second line, not a binary", () => {
    expect(isGitWrapperText("#!/usr/bin/env bash\n# ao git wrapper — x\n")).toBe(true);
    expect(isGitWrapperText("#!/bin/sh\n# ao-broker-shim: git (…)\n")).toBe(true);
    expect(isGitWrapperText('#!/bin/sh\nexec /usr/bin/git "$@"\n')).toBe(false);
    expect(isGitWrapperText("\u007fELF\u0002\u0001")).toBe(false);
  });

  it("skips the shim's directories, ~/.ao/bin and wrapper scripts anywhere on PATH", () => {
    const shimDir = join(base, "home", ".ao", "bin");
    exe(shimDir, "#!/bin/sh\necho shim-dir\n");
    const elsewhere = exe(join(base, "wrapped"), "#!/usr/bin/env bash\n# ao git wrapper\n");
    const real = exe(join(base, "real"), "#!/bin/sh\necho real\n");
    const found = resolveRealGit({
      pathValue: [shimDir, join(base, "wrapped"), join(base, "real")].join(":"),
      skipDirs: [shimDir],
    });
    expect(found).toBe(real);
    expect(found).not.toBe(elsewhere);
  });
});
