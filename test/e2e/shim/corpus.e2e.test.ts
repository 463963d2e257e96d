/**
 * The drop-in promise: for commands of the gh 2.23 traffic corpus (test/fixtures/gh-2.23-traffic),
 * real gh through the shim → broker → simulator prints exactly what real gh straight to a
 * simulator prints (stdout, stderr, exit code), on the same world. Two fresh simulators with the
 * default world, one behind the broker and one for the direct path, so writes change each world
 * the same way: reads run concurrently, writes run in the same order on both paths. The agent's
 * side knows nothing of the broker: only AO_SESSION_ID and the shim first on PATH.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import {
  agentEnv,
  type Completed,
  checkout,
  directEnv,
  home,
  installTestShim,
  pooled,
  REAL_GH,
  run,
  type Scratch,
  type ShimBroker,
  scratch,
  startShimBroker,
} from "../../integration/agents-shim/harness.js";

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  /** `repo`: GH_REPO names the repository; `checkout`: run inside a git checkout; `tty`: under a pty. */
  readonly where?: "repo" | "checkout" | "tty";
  /** The direct path's arguments, where the shim's differ only by host (github.com → github.localhost). */
  readonly directArgs?: readonly string[];
  readonly input?: string;
}

const ALL_PR_FIELDS =
  "number,title,state,body,author,headRefName,baseRefName,url,isDraft,mergeable,mergeStateStatus,reviewDecision,statusCheckRollup,labels,assignees,reviews,latestReviews,reviewRequests,comments,files,commits,additions,deletions,changedFiles,createdAt,updatedAt,mergedAt,closedAt,headRefOid,milestone,projectCards";

const READS: readonly Case[] = [
  { name: "pr view", args: ["pr", "view", "1"] },
  { name: "pr view --comments", args: ["pr", "view", "1", "--comments"] },
  {
    name: "pr view --json basic",
    args: ["pr", "view", "1", "--json", "number,title,state,url,headRefName,baseRefName,isDraft,author"],
  },
  { name: "pr view --json statusCheckRollup", args: ["pr", "view", "1", "--json", "statusCheckRollup"] },
  { name: "pr view --json every field", args: ["pr", "view", "2", "--json", ALL_PR_FIELDS] },
  { name: "pr view --jq", args: ["pr", "view", "1", "--json", "title,labels", "--jq", ".labels[].name"] },
  {
    name: "pr view --template",
    args: ["pr", "view", "1", "--json", "number,title", "--template", "{{.number}}: {{.title}}\n"],
  },
  { name: "pr view of a missing PR (exit 1)", args: ["pr", "view", "999"] },
  {
    name: "pr view of a github.com URL",
    args: ["pr", "view", "https://github.com/acme/widgets/pull/2", "--json", "number,title"],
    directArgs: ["pr", "view", "https://github.localhost/acme/widgets/pull/2", "--json", "number,title"],
  },
  {
    name: "pr list -R github.com/owner/name",
    args: ["pr", "list", "-R", "github.com/acme/widgets"],
    directArgs: ["pr", "list", "-R", "github.localhost/acme/widgets"],
  },
  { name: "pr checks failing (exit 1)", args: ["pr", "checks", "1"] },
  { name: "pr checks passing", args: ["pr", "checks", "2"] },
  { name: "pr checks pending", args: ["pr", "checks", "3"] },
  { name: "pr list", args: ["pr", "list"] },
  { name: "pr list --json", args: ["pr", "list", "--json", "number,title,headRefName,state,url"] },
  { name: "pr list --state all --limit 50", args: ["pr", "list", "--state", "all", "--limit", "50"] },
  {
    name: "pr list --search",
    args: ["pr", "list", "--search", "is:open author:@me", "--json", "number,title"],
  },
  { name: "pr diff", args: ["pr", "diff", "1"] },
  { name: "pr view in a checkout (current branch)", args: ["pr", "view"], where: "checkout" },
  { name: "pr status in a checkout", args: ["pr", "status"], where: "checkout" },
  { name: "pr checks in a checkout", args: ["pr", "checks"], where: "checkout" },
  { name: "issue view", args: ["issue", "view", "10"] },
  { name: "issue view --comments", args: ["issue", "view", "10", "--comments"] },
  {
    name: "issue view --json",
    args: ["issue", "view", "10", "--json", "number,title,body,state,labels,comments"],
  },
  { name: "issue list", args: ["issue", "list"] },
  { name: "issue list --json", args: ["issue", "list", "--json", "number,title,labels"] },
  { name: "run list", args: ["run", "list"] },
  { name: "run view", args: ["run", "view", "1001"] },
  { name: "run view --log-failed", args: ["run", "view", "1001", "--log-failed"] },
  { name: "run view --job", args: ["run", "view", "--job", "2002"] },
  { name: "api REST", args: ["api", "repos/acme/widgets/pulls/1"] },
  { name: "api --paginate", args: ["api", "--paginate", "repos/acme/widgets/pulls"] },
  { name: "api graphql", args: ["api", "graphql", "-f", "query=query { viewer { login } }"] },
  {
    name: "api graphql with variables",
    args: [
      "api",
      "graphql",
      "-F",
      "owner=acme",
      "-F",
      "name=widgets",
      "-f",
      "query=query($owner:String!,$name:String!){repository(owner:$owner,name:$name){pullRequests(first:10,states:OPEN){nodes{number title}}}}",
    ],
  },
  {
    name: "api graphql --input - (stdin)",
    args: ["api", "graphql", "--input", "-"],
    input: '{"query":"{ viewer { login name } }"}',
  },
  { name: "pr view (tty)", args: ["pr", "view", "1"], where: "tty" },
  { name: "pr list (tty)", args: ["pr", "list"], where: "tty" },
  { name: "pr checks (tty)", args: ["pr", "checks", "1"], where: "tty" },
  { name: "issue list (tty)", args: ["issue", "list"], where: "tty" },
  { name: "run list (tty)", args: ["run", "list"], where: "tty" },
];

const WRITES: readonly Case[] = [
  { name: "pr comment", args: ["pr", "comment", "1", "--body", "Thanks, looking at it."] },
  {
    name: "issue comment --body-file - (stdin)",
    args: ["issue", "comment", "10", "--body-file", "-"],
    input: "From stdin.\n",
  },
  { name: "pr review --approve", args: ["pr", "review", "1", "--approve"] },
  { name: "pr edit --add-label", args: ["pr", "edit", "1", "--add-label", "bug"] },
  { name: "issue create", args: ["issue", "create", "--title", "T", "--body", "B"] },
  { name: "pr merge --squash", args: ["pr", "merge", "2", "--squash"] },
  {
    name: "api POST (REST write)",
    args: ["api", "-X", "POST", "repos/acme/widgets/issues/11/comments", "-f", "body=hi"],
  },
  { name: "issue view after the writes", args: ["issue", "view", "10", "--comments"] },
];

let work: Scratch;
let broker: ShimBroker;
let simA: RunningSimulator;
let simB: RunningSimulator;
let shimBin: string;
const results = new Map<string, { shim: Completed; direct: Completed }>();

function envs(where: Case["where"], n: number) {
  const shimHome = home(work.dir, `shim-${n}`);
  const directHome = home(work.dir, `direct-${n}`);
  const repo = where === "checkout" ? {} : { GH_REPO: "acme/widgets" };
  return {
    shim: agentEnv({
      bin: shimBin,
      socket: broker.socketPath,
      home: shimHome,
      session: "corpus",
      extra: repo,
    }),
    direct:
      where === "checkout"
        ? directEnv(simB, directHome, {
            GIT_CONFIG_COUNT: "1",
            GIT_CONFIG_KEY_0: "url.https://github.localhost/.insteadOf",
            GIT_CONFIG_VALUE_0: "https://github.com/",
          })
        : directEnv(simB, directHome, { GH_REPO: "github.localhost/acme/widgets" }),
  };
}

/**
 * gh's progress spinner (on a TTY) redraws a braille frame every 100 ms until the answer arrives,
 * so how many frames it prints depends on timing, not on the answer: any run of frames counts as one.
 */
function withOneSpinnerFrame(output: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the spinner's frames are escape sequences
  const frame = /(?:\r?\u001b\[K)*\r?\u001b\[36m[\u2800-\u28ff]\u001b\[0m/g;
  return output.replace(frame, "<spinner>").replace(/(?:<spinner>)+/g, "<spinner>");
}

async function both(c: Case, n: number): Promise<void> {
  const { shim, direct } = envs(c.where, n);
  const cwd = c.where === "checkout" ? checkout(work.dir, "feature/frobnicator") : work.dir;
  const tty = c.where === "tty";
  const [viaShim, straight] = await Promise.all([
    run(join(shimBin, "gh"), c.args, { env: shim, cwd, tty, input: c.input }),
    run(REAL_GH, c.directArgs ?? c.args, { env: direct, cwd, tty, input: c.input }),
  ]);
  results.set(c.name, { shim: viaShim, direct: straight });
}

beforeAll(async () => {
  work = scratch("aob-shim-corpus-");
  shimBin = join(work.dir, "bin");
  installTestShim(shimBin);
  // One frozen instant for both worlds: writes stamp created_at from the clock, and the two paths
  // must print the same bytes even when they straddle a second.
  const instant = Date.now();
  const clock = { now: () => instant };
  [simA, simB] = await Promise.all([startSimulator({ clock }), startSimulator({ clock })]);
  broker = await startShimBroker(join(work.dir, "broker"), { upstream: simA });
  await pooled(READS.map((c, i) => () => both(c, i)));
  for (const [i, c] of WRITES.entries()) await both(c, 100 + i);
}, 120_000);

afterAll(async () => {
  await broker?.close();
  await Promise.all([simA?.close(), simB?.close()]);
  work?.cleanup();
});

describe("gh through the shim", () => {
  it("covers at least 25 corpus commands, reads and writes", () => {
    expect(READS.length + WRITES.length).toBeGreaterThanOrEqual(25);
    expect(results.size).toBe(READS.length + WRITES.length);
  });

  describe.each([
    { kind: "read", cases: READS },
    { kind: "write", cases: WRITES },
  ])("for $kind commands", ({ cases }) => {
    it.each(cases.map((c) => ({ name: c.name })))(
      "$name: same stdout, stderr and exit code as gh straight to the simulator",
      ({ name }) => {
        const r = results.get(name);
        expect(r).toBeDefined();
        if (!r) return;
        expect(r.shim.stderr).toBe(r.direct.stderr);
        expect(withOneSpinnerFrame(r.shim.stdout)).toBe(withOneSpinnerFrame(r.direct.stdout));
        expect(r.shim.code).toBe(r.direct.code);
        expect(r.shim.signal).toBeNull();
      },
    );
  });

  it("changed the world behind the broker exactly as the direct path changed its own", () => {
    const a = simA.world.repo("acme/widgets");
    const b = simB.world.repo("acme/widgets");
    expect(a?.pulls.get(2)?.merged).toBe(true);
    expect(a?.issues.get(10)?.comments.map((c) => c.body)).toEqual(
      b?.issues.get(10)?.comments.map((c) => c.body),
    );
    expect([...(a?.issues.keys() ?? [])]).toEqual([...(b?.issues.keys() ?? [])]);
  });
});
