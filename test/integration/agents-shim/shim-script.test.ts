/**
 * The installed shell shim, run for real (sh, awk, curl, the helper) with a fake gh that reports
 * what it was given: arguments, stdin, exit codes and signals pass through; gh gets the broker's
 * routing and a per-invocation token the broker can parse, never the PAT; repositories and links
 * on github.com are rewritten and nothing else is; exit reports reach the gateway; the real gh is
 * found without loops; the broker-down policies; the git helper. The session token comes from a
 * pre-seeded cache file and the "gateway" is a small recording HTTP server, so no broker is needed.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseInvocationSuffix } from "../../../broker/index.js";
import {
  BASE_PATH,
  type Completed,
  checkout,
  fakeGh,
  installTestShim,
  run,
  type Scratch,
  scratch,
  script,
} from "./harness.js";

const PAT = "ghp_theUsersPersonalAccessToken0001";
const SESSION_TOKEN = `aob_s_${"A".repeat(43)}`;

let work: Scratch;
let bin: string;
let gh: string;
let fake: string;
let state: string;
let socketPath: string;
let socketServer: NetServer;
let gateway: Server;
let gatewayUrl: string;
let finishStatus = 204;
const finishes: { authorization: string; body: unknown }[] = [];

interface Dump {
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly input?: string;
  readonly cwd: string;
}

const cacheFile = (key = "ao-s1") => join(state, "sessions", key);

function seedCache(key = "ao-s1"): void {
  mkdirSync(join(state, "sessions"), { recursive: true, mode: 0o700 });
  writeFileSync(
    cacheFile(key),
    `token=${SESSION_TOKEN}\ngateway=${gatewayUrl}\nsocket=${socketPath}\nsession=s1\nrepo=acme/widgets\n`,
    { mode: 0o600 },
  );
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${bin}:${BASE_PATH}`,
    HOME: work.dir,
    AO_BROKER_GH: fake,
    AO_BROKER_SOCKET: socketPath,
    AO_BROKER_SHIM_STATE: state,
    AO_SESSION_ID: "s1",
    AO_BROKER_SHIM_NOTICE_AFTER: "0",
    ...extra,
  };
}

function dumpOf(result: Completed): Dump {
  const line = result.stdout.split("\n").find((l) => l.startsWith("{"));
  if (!line) throw new Error(`gh printed no dump; stderr: ${result.stderr}`);
  return JSON.parse(line) as Dump;
}

const tokenOf = (r: Completed) => dumpOf(r).env.GH_TOKEN ?? "";
/** The exit reports sent with these invocations' tokens (reports of other tests may arrive late). */
const finishesFor = (...tokens: string[]) =>
  finishes.filter((f) => tokens.some((t) => f.authorization === `token ${t}`));

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  work = scratch("aob-shim-script-");
  bin = join(work.dir, "bin");
  gh = installTestShim(bin).shimPath;
  fake = fakeGh(work.dir);
  state = join(work.dir, "state");
  socketPath = join(work.dir, "broker.sock");
  socketServer = createNetServer((s) => s.destroy());
  await new Promise<void>((resolve) => socketServer.listen(socketPath, resolve));
  gateway = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      if (req.url === "/_aob/invocation/finish" && req.method === "POST")
        finishes.push({ authorization: req.headers.authorization ?? "", body: JSON.parse(body || "null") });
      res.writeHead(finishStatus);
      res.end();
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => gateway?.close(r));
  await new Promise((r) => socketServer?.close(r));
  work?.cleanup();
});

beforeEach(() => {
  finishStatus = 204;
  finishes.length = 0;
  seedCache();
});

describe("the shim script", () => {
  describe("when it runs gh", () => {
    it("passes arguments through unchanged: quotes, newlines, tabs, empty and non-ASCII ones", async () => {
      const args = [
        "pr",
        "create",
        "--title",
        `a "b" 'c' $HOME \\n`,
        "--body",
        "line 1\nline\t2 ✓ é",
        "",
        "-",
      ];
      const dump = dumpOf(await run(gh, args, { env: env() }));
      expect(dump.argv).toEqual(args);
    });

    it("routes gh through the broker with a per-invocation token, and leaves no PAT anywhere", async () => {
      const result = await run(gh, ["pr", "view", "1", "--json", "title"], {
        env: env({
          GH_TOKEN: PAT,
          GITHUB_TOKEN: PAT,
          GH_ENTERPRISE_TOKEN: PAT,
          GITHUB_ENTERPRISE_TOKEN: PAT,
        }),
        cwd: work.dir,
      });
      expect(result.code).toBe(0);
      const dump = dumpOf(result);
      expect(JSON.stringify(dump)).not.toContain(PAT);
      expect(dump.env).toMatchObject({
        GH_HOST: "github.localhost",
        HTTP_PROXY: gatewayUrl,
        NO_PROXY: "",
        no_proxy: "",
      });
      expect(dump.env.GITHUB_TOKEN).toBeUndefined();
      expect(dump.env.GH_ENTERPRISE_TOKEN).toBeUndefined();
      const [base, suffix] = dump.env.GH_TOKEN?.split(".") ?? [];
      expect(base).toBe(SESSION_TOKEN);
      const invocation = parseInvocationSuffix(suffix ?? "");
      expect(invocation).toMatchObject({ argv: ["pr", "view", "1", "--json", "title"], cwd: work.dir });
      expect(invocation?.id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    });

    it("gives every invocation its own id", async () => {
      const [a, b] = await Promise.all([
        run(gh, ["pr", "list"], { env: env() }),
        run(gh, ["pr", "list"], { env: env() }),
      ]);
      const id = (r: Completed) => parseInvocationSuffix(dumpOf(r).env.GH_TOKEN?.split(".")[1] ?? "")?.id;
      expect(id(a)).toBeTruthy();
      expect(id(a)).not.toBe(id(b));
    });

    it("keeps the token within the broker's bounds for huge arguments", async () => {
      const body = "x".repeat(100_000);
      const dump = dumpOf(await run(gh, ["issue", "comment", "10", "--body", body], { env: env() }));
      expect(dump.argv[4]).toBe(body);
      const suffix = dump.env.GH_TOKEN?.split(".")[1] ?? "";
      expect(suffix.length).toBeLessThan(16_384);
      expect(parseInvocationSuffix(suffix)?.argv[4]).toMatch(/^x{200}\.\.\.$/);
    });

    it("hands stdin to gh (gh api --input -, --body-file -)", async () => {
      const input = '{"query":"{ viewer { login } }"}\nsecond line\n';
      const dump = dumpOf(
        await run(gh, ["api", "graphql", "--input", "-"], { env: env({ FAKE_STDIN: "1" }), input }),
      );
      expect(dump.input).toBe(input);
    });

    it.each([0, 1, 2, 4, 8])("returns gh's exit code %i", async (code) => {
      const result = await run(gh, ["pr", "checks", "1"], { env: env({ FAKE_EXIT: String(code) }) });
      expect(result.code).toBe(code);
      expect(result.signal).toBeNull();
    });
  });

  describe("when AO hands the agent a broker token itself", () => {
    it.each([
      {
        name: "AO_BROKER_TOKEN and AO_BROKER_GATEWAY",
        extra: { AO_BROKER_TOKEN: SESSION_TOKEN, AO_BROKER_GATEWAY: "http://127.0.0.1:9" },
      },
      {
        name: "session.open's environment (GH_TOKEN=aob_s_…, HTTP_PROXY)",
        extra: { GH_TOKEN: SESSION_TOKEN, HTTP_PROXY: "http://127.0.0.1:9" },
      },
      {
        name: "a token already derived by an outer shim",
        extra: {
          GH_TOKEN: `${SESSION_TOKEN}.eyJpIjoib3V0ZXJvdXRlciIsImEiOltdfQ`,
          HTTP_PROXY: "http://127.0.0.1:9",
        },
      },
    ])("uses it without registering: $name", async ({ extra }) => {
      const result = await run(gh, ["pr", "list"], {
        env: env({ AO_SESSION_ID: "", AO_BROKER_SOCKET: join(work.dir, "no-broker.sock"), ...extra }),
      });
      expect(result.code).toBe(0);
      const dump = dumpOf(result);
      expect(dump.env.HTTP_PROXY).toBe("http://127.0.0.1:9");
      const [base, suffix] = dump.env.GH_TOKEN?.split(".") ?? [];
      expect(base).toBe(SESSION_TOKEN);
      expect(parseInvocationSuffix(suffix ?? "")?.argv).toEqual(["pr", "list"]);
    });

    it("hands gh's own login commands (git's credential helper) the agent's environment, not the broker's", async () => {
      const outer = dumpOf(
        await run(gh, ["pr", "checkout", "1"], { env: env({ HTTP_PROXY: "http://corp:3128" }) }),
      );
      const inner = dumpOf(await run(gh, ["auth", "git-credential", "get"], { env: { ...outer.env } }));
      expect(inner.argv).toEqual(["auth", "git-credential", "get"]);
      expect(inner.env.GH_TOKEN).toBeUndefined();
      expect(inner.env.GH_HOST).toBeUndefined();
      expect(inner.env.HTTP_PROXY).toBe("http://corp:3128");
      expect(inner.env.GIT_CONFIG_COUNT).toBeUndefined();
    });

    it("keeps the agent's original settings when gh runs gh (an alias or extension)", async () => {
      const outer = dumpOf(
        await run(gh, ["pr", "checkout", "1"], { env: env({ HTTP_PROXY: "http://corp:3128" }) }),
      );
      const inner = dumpOf(await run(gh, ["repo", "sync"], { env: { ...outer.env } }));
      expect(inner.env).toMatchObject({
        GIT_CONFIG_COUNT: "3",
        AOB_GIT_CONFIG_COUNT: "0",
        AOB_ORIG_HTTP_PROXY: "http://corp:3128",
        AOB_SHIM_DEPTH: "2",
      });
      expect(parseInvocationSuffix(inner.env.GH_TOKEN?.split(".")[1] ?? "")?.argv).toEqual(["repo", "sync"]);
    });
  });

  describe("when arguments name a repository or a link on github.com", () => {
    it.each([
      {
        name: "a PR URL",
        args: ["pr", "view", "https://github.com/acme/widgets/pull/5"],
        want: ["pr", "view", "https://github.localhost/acme/widgets/pull/5"],
      },
      {
        name: "an issue URL with www",
        args: ["issue", "view", "https://www.github.com/acme/widgets/issues/10"],
        want: ["issue", "view", "https://github.localhost/acme/widgets/issues/10"],
      },
      {
        name: "-R host/owner/name",
        args: ["pr", "list", "-R", "github.com/acme/widgets"],
        want: ["pr", "list", "-R", "github.localhost/acme/widgets"],
      },
      {
        name: "--repo=URL.git",
        args: ["pr", "list", "--repo=https://github.com/acme/widgets.git"],
        want: ["pr", "list", "--repo=github.localhost/acme/widgets"],
      },
      {
        name: "-Rhost/owner/name",
        args: ["pr", "list", "-Rgithub.com/a/b"],
        want: ["pr", "list", "-Rgithub.localhost/a/b"],
      },
      {
        name: "an absolute API URL for gh api",
        args: ["api", "https://api.github.com/repos/acme/widgets"],
        want: ["api", "http://api.github.localhost/repos/acme/widgets"],
      },
      {
        name: "-R owner/name (gh resolves it on GH_HOST)",
        args: ["pr", "list", "-R", "acme/widgets"],
        want: ["pr", "list", "-R", "acme/widgets"],
      },
      {
        name: "a link in --body",
        args: ["pr", "comment", "1", "--body", "https://github.com/acme/widgets/pull/2"],
        want: ["pr", "comment", "1", "--body", "https://github.com/acme/widgets/pull/2"],
      },
      {
        name: "a link in -t and -f fields",
        args: ["api", "x", "-f", "body=https://github.com/a/b", "-t", "https://github.com/a/b"],
        want: ["api", "x", "-f", "body=https://github.com/a/b", "-t", "https://github.com/a/b"],
      },
    ])("rewrites only what gh parses as a repository or link: $name", async ({ args, want }) => {
      expect(dumpOf(await run(gh, args, { env: env() })).argv).toEqual(want);
    });

    it.each([
      { repo: "https://github.com/acme/widgets.git", want: "github.localhost/acme/widgets" },
      { repo: "github.com/acme/widgets", want: "github.localhost/acme/widgets" },
      { repo: "acme/widgets", want: "acme/widgets" },
    ])("points GH_REPO=$repo at the gateway's host", async ({ repo, want }) => {
      expect(dumpOf(await run(gh, ["pr", "list"], { env: env({ GH_REPO: repo }) })).env.GH_REPO).toBe(want);
    });
  });

  describe("when the shim answers for gh", () => {
    it("prints the session's broker token for gh auth token, never a PAT", async () => {
      const result = await run(gh, ["auth", "token"], { env: env({ GH_TOKEN: PAT }) });
      expect(result).toMatchObject({ code: 0, stdout: `${SESSION_TOKEN}\n` });
    });

    it("refuses to show gh's stored oauth_token", async () => {
      const result = await run(gh, ["config", "get", "-h", "github.com", "oauth_token"], { env: env() });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("held by ao-broker");
    });

    it("runs gh --version without any session, and without the PAT", async () => {
      const result = await run(gh, ["--version"], {
        env: env({ AO_BROKER_SOCKET: join(work.dir, "nothing.sock"), GH_TOKEN: PAT, GITHUB_TOKEN: PAT }),
      });
      expect(result.code).toBe(0);
      const dump = dumpOf(result);
      expect(dump.argv).toEqual(["--version"]);
      expect(JSON.stringify(dump)).not.toContain(PAT);
    });

    it("describes itself instead of running gh under AO_BROKER_SHIM_DRY_RUN", async () => {
      const result = await run(gh, ["pr", "view", "https://github.com/acme/widgets/pull/1"], {
        env: env({ AO_BROKER_SHIM_DRY_RUN: "1" }),
      });
      expect(result.stdout).toContain(`gh=${fake}\n`);
      expect(result.stdout).toContain("arg=https://github.localhost/acme/widgets/pull/1\n");
      expect(result.stdout).toContain(`HTTP_PROXY=${gatewayUrl}\n`);
      expect(result.stdout).not.toContain(SESSION_TOKEN);
    });
  });

  describe("when gh ends", () => {
    it("reports a failure to the gateway at once, authenticated by the invocation's token", async () => {
      const result = await run(gh, ["pr", "checks", "1"], { env: env({ FAKE_EXIT: "1" }) });
      const token = tokenOf(result);
      await waitFor(() => finishesFor(token).length === 1);
      const body = finishesFor(token)[0]?.body as { exitCode: number; durationMs: number } | undefined;
      expect(body?.exitCode).toBe(1);
      expect(body?.durationMs).toBeGreaterThanOrEqual(0);
    });

    it("spools successes and sends them together once the spool is 10 s old", async () => {
      seedCache("ao-s3");
      const own = env({ AO_SESSION_ID: "s3" });
      const tokens = [tokenOf(await run(gh, ["pr", "view", "1"], { env: own }))];
      tokens.push(tokenOf(await run(gh, ["pr", "view", "2"], { env: own })));
      await new Promise((r) => setTimeout(r, 300));
      expect(finishesFor(...tokens)).toHaveLength(0);
      expect(
        readFileSync(join(state, "spool", "ao-s3"), "utf8")
          .trim()
          .split("\n"),
      ).toHaveLength(2);
      writeFileSync(join(state, "spool", "ao-s3.t"), "0\n");
      tokens.push(tokenOf(await run(gh, ["pr", "view", "3"], { env: own })));
      await waitFor(() => finishesFor(...tokens).length === 3);
      expect(finishesFor(...tokens).map((f) => (f.body as { exitCode: number }).exitCode)).toEqual([0, 0, 0]);
      expect(existsSync(join(state, "spool", "ao-s3"))).toBe(false);
    });

    it("hands curl the tokens on stdin, never in its argv (which `ps` shows every user)", async () => {
      const spy = join(work.dir, "curl-spy");
      mkdirSync(spy, { recursive: true });
      const seen = join(work.dir, "curl-seen");
      script(
        join(spy, "curl"),
        `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}.argv'\ncat /proc/$$/cmdline | tr '\\0' ' ' > '${seen}.cmdline'\ntee '${seen}.stdin' | exec /usr/bin/curl "$@"\n`,
      );
      const result = await run(gh, ["pr", "checks", "7"], {
        env: env({ FAKE_EXIT: "1", PATH: `${bin}:${spy}:${BASE_PATH}` }),
      });
      const token = tokenOf(result);
      await waitFor(() => finishesFor(token).length === 1);
      expect(finishesFor(token)[0]?.body).toMatchObject({ exitCode: 1 });
      const argv = readFileSync(`${seen}.argv`, "utf8");
      expect(argv).toBe("--config\n-\n");
      expect(readFileSync(`${seen}.cmdline`, "utf8")).not.toContain("aob_");
      expect(readFileSync(`${seen}.stdin`, "utf8")).toContain(`header = "Authorization: token ${token}"`);
    });

    it("forgets a cached session the gateway no longer accepts", async () => {
      finishStatus = 401;
      await run(gh, ["pr", "checks", "1"], { env: env({ FAKE_EXIT: "1" }) });
      await waitFor(() => !existsSync(cacheFile()));
    });
  });

  describe("when the broker cannot be reached and nothing is cached", () => {
    const down = (extra: Record<string, string> = {}) =>
      env({
        AO_SESSION_ID: "s2",
        AO_BROKER_SOCKET: join(work.dir, "no-broker.sock"),
        GH_TOKEN: PAT,
        ...extra,
      });

    it("stops with a message that says how to go on (the default)", async () => {
      const result = await run(gh, ["pr", "view", "1"], { env: down() });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("gh was not run");
      expect(result.stderr).toContain("AO_BROKER_FALLBACK=direct");
    });

    it("runs gh as it is with AO_BROKER_FALLBACK=direct, and says so once", async () => {
      const first = await run(gh, ["pr", "view", "1"], { env: down({ AO_BROKER_FALLBACK: "direct" }) });
      expect(first.code).toBe(0);
      expect(first.stderr).toContain("gh talks to GitHub directly");
      expect(dumpOf(first).env.GH_HOST).toBeUndefined();
      expect(dumpOf(first).env.GH_TOKEN).toBe(PAT);
      const second = await run(gh, ["pr", "view", "1"], { env: down({ AO_BROKER_FALLBACK: "direct" }) });
      expect(second.code).toBe(0);
      expect(second.stderr).toBe("");
    });

    it("still never prints a token for gh auth token", async () => {
      const result = await run(gh, ["auth", "token"], { env: down({ AO_BROKER_FALLBACK: "direct" }) });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
    });
  });

  describe("when signals arrive", () => {
    it("passes SIGTERM sent to the shim alone on to gh, and dies of it", async () => {
      const signalFile = join(work.dir, "term-1");
      const result = await run(gh, ["run", "watch", "1001"], {
        env: env({ FAKE_SLEEP: "20", FAKE_SIGNAL_FILE: signalFile }),
        onSpawn: (child) => setTimeout(() => child.kill("SIGTERM"), 800),
      });
      expect(result.signal).toBe("SIGTERM");
      expect(result.ms).toBeLessThan(5000);
      expect(readFileSync(signalFile, "utf8")).toBe("TERM");
      const token = tokenOf(result);
      await waitFor(() => finishesFor(token).length === 1);
      expect(finishesFor(token)[0]?.body).toMatchObject({ exitCode: 143, signal: "TERM" });
    });

    it("ends gh on Ctrl-C (SIGINT to the process group) and dies of SIGINT", async () => {
      // Like Go programs, this gh keeps SIGINT ignored when it starts with it ignored (sh starts
      // asynchronous commands so); the shim then stops it with TERM.
      const signalFile = join(work.dir, "term-2");
      const goLike = script(
        join(work.dir, "go-like-gh"),
        `#!/bin/sh\necho '{"argv":[],"env":{"GH_TOKEN":"'"$GH_TOKEN"'"}}'\ntrap 'kill $s; echo TERM > "$FAKE_SIGNAL_FILE"; exit 143' TERM\nsleep 20 & s=$!\nwait $s\n`,
      );
      const result = await run(gh, ["pr", "checks", "3", "--watch"], {
        env: env({ AO_BROKER_GH: goLike, FAKE_SIGNAL_FILE: signalFile }),
        detached: true,
        onSpawn: (child) => setTimeout(() => process.kill(-(child.pid as number), "SIGINT"), 800),
      });
      expect(result.signal).toBe("SIGINT");
      expect(result.ms).toBeLessThan(5000);
      expect(existsSync(signalFile)).toBe(true);
      const token = tokenOf(result);
      await waitFor(() => finishesFor(token).length === 1);
      expect(finishesFor(token)[0]?.body).toMatchObject({ exitCode: 130, signal: "INT" });
    });
  });

  describe("finding the real gh", () => {
    it("takes the first gh after its own directory, however often and however linked that is on PATH", async () => {
      const linked = join(work.dir, "linked-bin");
      if (!existsSync(linked)) symlinkSync(bin, linked);
      const later = join(work.dir, "later");
      mkdirSync(later, { recursive: true });
      if (!existsSync(join(later, "gh"))) symlinkSync(fake, join(later, "gh"));
      const result = await run(gh, ["pr", "list"], {
        env: { ...env(), AO_BROKER_GH: "", PATH: `${bin}:${linked}:${bin}:${later}:${BASE_PATH}` },
      });
      expect(result.code).toBe(0);
      expect(dumpOf(result).argv).toEqual(["pr", "list"]);
    });

    it("stops a loop instead of running itself forever", async () => {
      const result = await run(gh, ["pr", "list"], { env: env({ AO_BROKER_GH: gh }) });
      expect(result.code).toBe(127);
      expect(result.stderr).toContain("loop");
    });

    it("says so when there is no gh after it", async () => {
      const result = await run(gh, ["pr", "list"], { env: { ...env(), AO_BROKER_GH: "", PATH: bin } });
      expect(result.code).toBe(127);
      expect(result.stderr).toContain("no real gh on PATH");
    });
  });

  describe("the git helper on gh's PATH", () => {
    it("shows gh github.com remotes as github.localhost, and sends git's own traffic to github.com", async () => {
      const repo = checkout(work.dir, "feature", {
        origin: "acme/widgets",
        fork: "git@github.com:me/widgets.git",
      });
      const dump = dumpOf(
        await run(gh, ["pr", "checkout", "1"], {
          env: env({ NO_PROXY: "corp.example", HTTP_PROXY: "http://corp:3128" }),
          cwd: repo,
        }),
      );
      expect(dump.env.PATH?.split(":")[0]).toBe(join(bin, ".ao-broker-shim"));
      const helperEnv = { ...dump.env };
      const listed = await run("git", ["remote", "-v"], { env: helperEnv, cwd: repo });
      expect(listed.stdout).toContain("origin\thttps://github.localhost/acme/widgets.git (fetch)");
      expect(listed.stdout).toContain("fork\thttps://github.localhost/me/widgets.git (fetch)");

      const fakeGitDir = join(work.dir, "fake-git");
      mkdirSync(fakeGitDir, { recursive: true });
      script(
        join(fakeGitDir, "git"),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not templates
        '#!/bin/sh\nprintf \'%s\\n\' "$*" "count=${GIT_CONFIG_COUNT-unset}" "proxy=${HTTP_PROXY-unset}" "noproxy=${NO_PROXY-unset}"\n',
      );
      // The helper runs the git recorded at install; AO_BROKER_REAL_GIT names another one.
      const withFake = { ...helperEnv, AO_BROKER_REAL_GIT: join(fakeGitDir, "git") };
      const fetched = await run(
        "git",
        ["-C", repo, "fetch", "https://github.localhost/acme/widgets.git", "refs/pull/1/head"],
        {
          env: withFake,
        },
      );
      expect(fetched.stdout.split("\n")).toEqual([
        `-C ${repo} fetch https://github.com/acme/widgets.git refs/pull/1/head`,
        "count=unset",
        "proxy=http://corp:3128",
        "noproxy=corp.example",
        "",
      ]);
      const remote = await run("git", ["remote", "-v"], { env: withFake });
      expect(remote.stdout).toContain("count=3");
    });
  });
});
