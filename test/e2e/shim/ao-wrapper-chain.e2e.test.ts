/**
 * Issue 14, item 1: AO writes `~/.ao/bin/git` beside `~/.ao/bin/gh`, and its git wrapper removes
 * only `~/.ao/bin` from PATH before looking git up again. With the shim's git helper first on gh's
 * PATH that used to be an endless chain of processes. Here AO-style wrappers (test/support/
 * ao-wrappers.ts) are written after the shim as AO writes them, the shim chains AO's gh wrapper
 * again, and real gh runs `pr create`, `pr checkout` and `pr merge` through the whole chain
 * (shim → AO's gh wrapper → gh → git helper → AO's git wrapper → git) against the broker on the
 * simulator, under a process-count watchdog. git's own traffic goes to "github.com" over ssh, which
 * a fake ssh serves from a local bare repository, so every command can finish.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installShim } from "../../../agents-shim/index.js";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  BASE_PATH,
  HELPER,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  script,
  startShimBroker,
  TEMPLATES,
} from "../../integration/agents-shim/harness.js";
import { aoAgentPath, aoSetupWrappers } from "../../support/ao-wrappers.js";
import { runCli } from "../../support/cli-process.js";
import { type ProcessWatchdog, startProcessWatchdog } from "../../support/process-watchdog.js";

const PROCESS_LIMIT = 60;

let work: Scratch;
let sim: RunningSimulator;
let broker: ShimBroker;
let watchdog: ProcessWatchdog;
let homeDir: string;
let aoBin: string;
let remoteRoot: string;
let fakeSsh: string;
let dataDir: string;

const gitEnv = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

function plainGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    env: { PATH: BASE_PATH, HOME: homeDir, ...gitEnv },
    encoding: "utf8",
  });
}

/** An agent's clone of acme/widgets whose origin is git@github.com:acme/widgets.git. */
function agentClone(name: string, branch: string): string {
  const dir = join(work.dir, `clone-${name}`);
  plainGit(work.dir, "clone", "-q", join(remoteRoot, "acme", "widgets.git"), dir);
  plainGit(dir, "remote", "set-url", "origin", "git@github.com:acme/widgets.git");
  if (branch !== "main") plainGit(dir, "checkout", "-q", branch);
  return dir;
}

function agentEnvFor(session: string): Record<string, string> {
  writeFileSync(join(dataDir, session), `status=working\n`);
  return {
    PATH: aoAgentPath(aoBin, BASE_PATH),
    HOME: homeDir,
    TMPDIR: join(homeDir, "tmp"),
    GH_CONFIG_DIR: join(homeDir, "gh"),
    GH_PATH: "/usr/local/bin/gh",
    AO_SESSION_ID: session,
    AO_SESSION: session,
    AO_DATA_DIR: dataDir,
    AO_BROKER_SOCKET: broker.socketPath,
    AO_BROKER_SHIM_STATE: join(homeDir, "shim-state"),
    GIT_SSH_COMMAND: fakeSsh,
    GIT_TERMINAL_PROMPT: "0",
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_PROMPT_DISABLED: "1",
    GH_PAGER: "cat",
    LANG: "C.UTF-8",
    ...gitEnv,
    ...watchdog.env,
  };
}

const metadata = (session: string) => readFileSync(join(dataDir, session), "utf8");

beforeAll(async () => {
  work = scratch("aob-ao-chain-");
  watchdog = startProcessWatchdog({ limit: PROCESS_LIMIT });
  homeDir = join(work.dir, "home");
  aoBin = join(homeDir, ".ao", "bin");
  dataDir = join(homeDir, ".ao", "data");
  mkdirSync(join(homeDir, "tmp"), { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  // "github.com" for git: a bare repository with the simulator's branches, served by a fake ssh.
  remoteRoot = join(work.dir, "remote");
  const bare = join(remoteRoot, "acme", "widgets.git");
  mkdirSync(bare, { recursive: true });
  plainGit(bare, "init", "-q", "--bare", "-b", "main");
  const seed = join(work.dir, "seed");
  mkdirSync(seed);
  plainGit(seed, "init", "-q", "-b", "main");
  writeFileSync(join(seed, "README.md"), "widgets\n");
  plainGit(seed, "add", "README.md");
  plainGit(seed, "commit", "-q", "-m", "init");
  for (const branch of ["feature/frobnicator", "docs/readme-typo", "feature/new-thing"]) {
    plainGit(seed, "checkout", "-q", "-b", branch, "main");
    writeFileSync(join(seed, `${branch.replace("/", "-")}.txt`), `${branch}\n`);
    plainGit(seed, "add", ".");
    plainGit(seed, "commit", "-q", "-m", branch);
  }
  plainGit(seed, "push", "-q", bare, "--all");
  fakeSsh = script(
    join(work.dir, "fake-ssh"),
    `#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -o | -p) shift 2 ;; -*) shift ;; *) break ;; esac; done
[ "$1" = git@github.com ] || { echo "fake ssh: unexpected host $1" >&2; exit 255; }
cd '${remoteRoot}' && exec sh -c "$2"
`,
  );

  sim = await startSimulator();
  broker = await startShimBroker(join(work.dir, "broker"), { upstream: sim });
  const install = () =>
    installShim({
      dir: aoBin,
      helperPath: HELPER,
      templateDir: TEMPLATES,
      env: { PATH: BASE_PATH },
      home: homeDir,
    });
  // The order the docs used to give on a fresh machine: the shim first, then AO's first session
  // writes its wrappers (no .ao-version yet) over ~/.ao/bin/gh; installing again chains them.
  install();
  expect(aoSetupWrappers(aoBin)).toBe(true);
  expect(readFileSync(join(aoBin, "gh"), "utf8")).toContain("# ao gh wrapper");
  const again = install();
  expect(again.chainedAoWrapper).toBe(join(aoBin, "gh.ao-wrapper"));
  expect(again.realGit).toBe(execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim());
  expect(aoSetupWrappers(aoBin)).toBe(false);
}, 60_000);

afterAll(async () => {
  watchdog?.stop();
  await broker?.close();
  await sim?.close();
  work?.cleanup();
});

describe("gh through the shim and AO's wrappers, written after the shim", { timeout: 120_000 }, () => {
  it("gh pr create finishes, goes through the broker, and AO's gh wrapper records the PR", async () => {
    sim.inject({ type: "push", branch: "feature/new-thing", message: "Add the new thing" });
    const before = sim.stats().requests.total;
    const clone = agentClone("creator", "feature/new-thing");
    const result = await run(
      join(aoBin, "gh"),
      ["pr", "create", "--title", "T", "--body", "B", "--head", "feature/new-thing"],
      { env: agentEnvFor("creator"), cwd: clone, timeoutMs: 60_000 },
    );
    expect(result.stderr).not.toContain("loop");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\/acme\/widgets\/pull\/13\n$/);
    expect(sim.world.repo("acme/widgets")?.pulls.get(13)?.headRef).toBe("feature/new-thing");
    expect(sim.stats().requests.total).toBeGreaterThan(before);
    // Named by AO_SESSION_ID, the session still records its worktree.
    const listed = await runCli(["sessions", "--json", "--socket", broker.socketPath]);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; worktree: string | null }[] })
      .sessions;
    expect(sessions.find((s) => s.id === "creator")?.worktree).toBe(clone);
    expect(metadata("creator")).toMatch(/^pr=https?:\/\/github\.(localhost|com)\/acme\/widgets\/pull\/13$/m);
    expect(watchdog.tripped()).toBe(false);
  });

  it("gh pr checkout finishes: fetch over ssh from github.com, branch recorded by AO's git wrapper", async () => {
    const repo = agentClone("checker", "main");
    const result = await run(join(aoBin, "gh"), ["pr", "checkout", "1"], {
      env: agentEnvFor("checker"),
      cwd: repo,
      timeoutMs: 60_000,
    });
    expect(result.stderr).not.toContain("loop");
    expect(result.code).toBe(0);
    expect(plainGit(repo, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("feature/frobnicator");
    expect(plainGit(repo, "config", "branch.feature/frobnicator.remote").trim()).toBe("origin");
    expect(metadata("checker")).toContain("branch=feature/frobnicator");
    expect(watchdog.tripped()).toBe(false);
  });

  it("gh pr merge --delete-branch finishes: merged on the simulator, back on main locally", async () => {
    const repo = agentClone("merger", "docs/readme-typo");
    const result = await run(join(aoBin, "gh"), ["pr", "merge", "2", "--squash", "--delete-branch"], {
      env: agentEnvFor("merger"),
      cwd: repo,
      timeoutMs: 60_000,
    });
    expect(result.stderr).not.toContain("loop");
    expect(result.code).toBe(0);
    expect(sim.world.repo("acme/widgets")?.pulls.get(2)?.merged).toBe(true);
    expect(sim.world.repo("acme/widgets")?.branches.has("docs/readme-typo")).toBe(false);
    expect(plainGit(repo, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("main");
    // AO's wrapper records only `gh pr create`: nothing about the merge lands in the metadata.
    expect(metadata("merger")).toBe("status=working\n");
  });

  it("kept the process count bounded over all of it", () => {
    expect(watchdog.tripped()).toBe(false);
    expect(watchdog.peak()).toBeGreaterThan(0);
    expect(watchdog.peak()).toBeLessThan(PROCESS_LIMIT);
  });

  it("a wrapper that puts the helper back on PATH ends at once, with a message and exit 126", async () => {
    // Another wrapper after AO's on PATH that puts the helper's directory back first: AO's git
    // wrapper finds it, it finds the helper, the helper AO's wrapper... The depth guard ends it.
    const helperDir = join(aoBin, ".ao-broker-shim");
    const loopDir = join(work.dir, "looping-bin");
    mkdirSync(loopDir, { recursive: true });
    script(join(loopDir, "git"), `#!/bin/sh\nPATH='${helperDir}':$PATH exec git "$@"\n`);
    const env = { ...agentEnvFor("looper"), PATH: `${helperDir}:${aoBin}:${loopDir}:${BASE_PATH}` };
    const result = await run(join(helperDir, "git"), ["status"], { env, cwd: work.dir, timeoutMs: 20_000 });
    expect(result.code).toBe(126);
    expect(result.stderr).toContain("git helper called itself 6 times in a row");
    expect(watchdog.tripped()).toBe(false);
    // Nothing of the loop lingers (other tagged processes — earlier commands' background exit
    // reports — are not the loop's).
    const loopAlive = () =>
      watchdog.alive().filter((pid) => {
        try {
          return /ao-broker-shim\/git|looping-bin|\.ao\/bin\/git/.test(
            readFileSync(`/proc/${pid}/cmdline`, "utf8"),
          );
        } catch {
          return false;
        }
      });
    const until = Date.now() + 10_000;
    while (loopAlive().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(loopAlive()).toEqual([]);
  });
});
