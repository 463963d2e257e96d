/**
 * Inside an agent's worktree, whose remotes point at github.com: gh through the shim finds the
 * repository (no GH_REPO, no -R) and its API traffic goes to the broker, while the git traffic gh
 * itself starts (fetch for `gh pr checkout`, pull after `gh pr merge --delete-branch`) still goes to
 * github.com — over https through the agent's own proxy settings, and over ssh for ssh remotes. A
 * recording proxy stands in for github.com: it notes where git connects and refuses.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  agentEnv,
  type Completed,
  checkout,
  directEnv,
  home,
  installTestShim,
  REAL_GH,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  script,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";

let work: Scratch;
let broker: ShimBroker;
let simA: RunningSimulator;
let simB: RunningSimulator;
let bin: string;
let gh: string;
let proxy: Server;
let proxyUrl: string;
const connects: string[] = [];

const envFor = (session: string, extra: Record<string, string> = {}) =>
  agentEnv({
    bin,
    socket: broker.socketPath,
    home: home(work.dir, session),
    session,
    extra: { GIT_TERMINAL_PROMPT: "0", https_proxy: proxyUrl, HTTPS_PROXY: proxyUrl, ...extra },
  });

beforeAll(async () => {
  work = scratch("aob-shim-git-");
  bin = join(work.dir, "bin");
  gh = installTestShim(bin).shimPath;
  // One frozen instant for both worlds: writes stamp created_at from the clock, and the two paths
  // must print the same bytes even when they straddle a second.
  const instant = Date.now();
  const clock = { now: () => instant };
  [simA, simB] = await Promise.all([startSimulator({ clock }), startSimulator({ clock })]);
  broker = await startShimBroker(join(work.dir, "broker"), { upstream: simA });
  proxy = createServer((socket) => {
    socket.once("data", (chunk: Buffer) => {
      connects.push(chunk.toString("latin1").split("\r\n")[0] ?? "");
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => proxy?.close(r));
  await broker?.close();
  await Promise.all([simA?.close(), simB?.close()]);
  work?.cleanup();
});

beforeEach(() => {
  connects.length = 0;
});

describe("gh through the shim in a github.com checkout", () => {
  it("creates a PR for a pushed branch exactly as gh straight to the simulator does", async () => {
    for (const sim of [simA, simB])
      sim.inject({ type: "push", branch: "feature/new-thing", message: "Add the new thing" });
    const args = ["pr", "create", "--title", "T", "--body", "B", "--head", "feature/new-thing"];
    const viaShim = await run(gh, args, {
      env: envFor("creator"),
      cwd: checkout(work.dir, "feature/new-thing"),
    });
    const direct = await run(REAL_GH, args, {
      env: directEnv(simB, home(work.dir, "direct"), {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "url.https://github.localhost/.insteadOf",
        GIT_CONFIG_VALUE_0: "https://github.com/",
      }),
      cwd: checkout(work.dir, "feature/new-thing"),
    });
    expect(viaShim).toMatchObject({ code: direct.code, stdout: direct.stdout, stderr: direct.stderr });
    expect(viaShim.stdout).toBe("http://github.localhost/acme/widgets/pull/13\n");
    expect(simA.world.repo("acme/widgets")?.pulls.get(13)?.headRef).toBe("feature/new-thing");
  });

  it("fetches from github.com for gh pr checkout, not from the broker's host", async () => {
    const repo = checkout(work.dir, "main");
    const result = await run(gh, ["pr", "checkout", "1"], { env: envFor("checker"), cwd: repo });
    expect(result.code).not.toBe(0);
    expect(connects).toEqual(["CONNECT github.com:443 HTTP/1.1"]);
    expect(result.stderr).not.toContain("github.localhost");
  });

  let merged: Completed | undefined;
  it("merges through the broker, then pulls from github.com after --delete-branch", async () => {
    const repo = checkout(work.dir, "docs/readme-typo");
    merged = await run(gh, ["pr", "merge", "2", "--squash", "--delete-branch"], {
      env: envFor("merger"),
      cwd: repo,
    });
    expect(simA.world.repo("acme/widgets")?.pulls.get(2)?.merged).toBe(true);
    expect(connects.length).toBeGreaterThanOrEqual(1);
    expect(connects.every((line) => line === "CONNECT github.com:443 HTTP/1.1")).toBe(true);
    expect(merged.stderr).toContain("unable to access 'https://github.com/acme/widgets.git/'");
  });

  it("deletes the merged branch (its name has a slash) on GitHub through the broker", () => {
    expect(merged?.stderr).not.toContain("failed to delete remote branch");
    expect(simA.world.repo("acme/widgets")?.branches.has("docs/readme-typo")).toBe(false);
  });

  it("uses ssh to github.com for an ssh remote", async () => {
    const repo = checkout(work.dir, "main", { origin: "git@github.com:acme/widgets.git" });
    const log = join(work.dir, "ssh-args");
    writeFileSync(log, "");
    const ssh = script(join(work.dir, "fake-ssh"), `#!/bin/sh\necho "$*" >> '${log}'\nexit 255\n`);
    const result = await run(gh, ["pr", "checkout", "1"], {
      env: envFor("sshuser", { GIT_SSH_COMMAND: ssh }),
      cwd: repo,
    });
    expect(result.code).not.toBe(0);
    expect(readFileSync(log, "utf8")).toMatch(/^.*git@github\.com .*git-upload-pack 'acme\/widgets\.git'/m);
    expect(connects).toEqual([]);
  });
});
