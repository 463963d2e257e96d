import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve("scripts/check-boundaries.mjs");
const roots: string[] = [];

/** A throwaway repository laid out like this one, with the given files. */
function repoWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "boundaries-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-boundaries", () => {
  it("passes on this repository and reports no file circle", () => {
    const output = execFileSync(process.execPath, [SCRIPT], { encoding: "utf8" });
    expect(output).toMatch(/^boundaries ok, no file circles among \d+ files/);
  });

  it("fails on a circle between two files of one folder, type-only imports included", () => {
    const root = repoWith({
      "broker/a.ts": 'import type { B } from "./b.js";\nexport interface A { b?: B }\n',
      "broker/b.ts": 'import type { A } from "./a.js";\nexport interface B { a?: A }\n',
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("file import circle (2 files)");
    expect(output).toContain("broker/a.ts -> broker/b.ts");
    expect(output).toContain("broker/b.ts -> broker/a.ts");
  });

  it("fails on a longer circle through an index.ts and a directory import", () => {
    const root = repoWith({
      "lifecycle/index.ts": 'export { run } from "./run.js";\n',
      "lifecycle/run.ts": 'import { step } from "./steps";\nexport const run = () => step();\n',
      "lifecycle/steps/index.ts": 'import { run } from "../index.js";\nexport const step = () => run;\n',
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("file import circle (3 files)");
  });

  it("accepts imports that only go one way", () => {
    const root = repoWith({
      "broker/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
      "broker/b.ts": "export const b = 1;\n",
    });
    expect(check(root).status).toBe(0);
  });

  it.each([
    // Spelled in pieces so this file does not cite them itself.
    { name: "the style note", text: `// see ${"STYLE"}.md §16\n` },
    { name: "the design brief", text: `<!-- ${"DESIGN"}.md, "The simulator" -->\n` },
    { name: "the shared folder", text: `See ${".."}/shared/${"reference"}/notes.txt.\n` },
  ])("fails when a file cites $name, which is outside the repository", ({ text }) => {
    const root = repoWith({ "docs/page.md": `# Page\n\n${text}` });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain("docs/page.md:3: cites a file outside the repository");
  });

  it.each([
    { name: "the simulator", target: "github-sim" },
    { name: "the benchmark", target: "bench" },
  ])("fails when broker/ imports $name, even through its index", ({ target }) => {
    const root = repoWith({
      [`${target}/index.ts`]: "export const x = 1;\n",
      "broker/start.ts": `import { x } from "../${target}/index.js";\nexport const y = x;\n`,
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain(
      `broker/start.ts: imports "../${target}/index.js"; broker/ must not depend on ${target}/`,
    );
  });
});
