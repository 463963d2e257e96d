/**
 * `ao-broker sim` as users run it (dist/cli.js, rebuilt by the global setup): prints its URL and
 * the gh environment, applies its flags, stops cleanly on SIGTERM with exit 0, and refuses bad
 * flags with a clear message and a non-zero exit.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const CLI = join(import.meta.dirname, "..", "..", "..", "dist", "cli.js");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe("ao-broker sim", () => {
  it("serves until SIGTERM, prints its URL and the gh environment, applies flags and exits 0", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "sim", "--port", "0", "--graphql-limit", "5", "--window-s", "10", "--prs", "2"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 15_000);
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (m?.[1] && stdout.includes("Ctrl-C")) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    expect(stdout).toContain(
      `export GH_HOST=github.localhost HTTP_PROXY=${url} GH_TOKEN=ghp_simulated GH_REPO=github.localhost/acme/widgets`,
    );
    const stats = (await (await fetch(`${url}/_sim/stats`)).json()) as {
      resources: { graphql: { limit: number; reset: number } };
      now: number;
    };
    expect(stats.resources.graphql.limit).toBe(5);
    expect(stats.resources.graphql.reset - stats.now / 1000).toBeLessThanOrEqual(11);
    const pulls = (await (
      await fetch(`${url}/repos/acme/widgets/pulls?per_page=100`, {
        headers: { authorization: "token ghp_simulated" },
      })
    ).json()) as unknown[];
    expect(pulls).toHaveLength(5);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toContain("github-sim stopped");
  });

  it.each([
    { name: "a non-numeric port", args: ["--port", "abc"], message: "argument 'abc' is invalid" },
    { name: "a zero window", args: ["--window-s", "0"], message: "expected a number > 0" },
    {
      name: "a missing scenario file",
      args: ["--scenario", "/nonexistent/scenario.json"],
      message: "AO_ERR_SIM_SCENARIO_UNREADABLE",
    },
  ])("refuses $name with a clear error and a non-zero exit", async ({ args, message }) => {
    const result = await run(["sim", ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
