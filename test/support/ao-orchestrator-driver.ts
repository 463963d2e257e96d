/**
 * What AO's orchestrator process does with GitHub, run as a child of `ao-broker run` by
 * test/e2e/shim/ao-orchestrator-run.e2e.test.ts. Two parts:
 *
 * 1. AO's published code, unmodified: @composio/ao-plugin-scm-github 0.2.0 (with @composio/ao-core
 *    0.2.0) — PR detection for a session's branch, the enrichment reads of the PR (state, summary,
 *    CI checks and summary, mergeability) and the review reads (reviews, decision, pending threads,
 *    automated comments). It runs `gh` from PATH with the process environment.
 * 2. A model of the current AO's ETag guards (packages/plugins/scm-github/src/graphql-batch.ts),
 *    which 0.2.0 predates: through a gh resolved the way execGhObserved does (PATH without
 *    ~/.ao/bin), `gh api --method GET <path> -i` with `If-None-Match:` the ETag the previous answer
 *    gave, for the open-PR list, the head commit's check-runs and the PR's review comments; each guard
 *    asked twice, reading the status line and the headers of `-i` output.
 *
 * Prints one JSON object on stdout.
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import scmGithub from "@composio/ao-plugin-scm-github";

const run = promisify(execFile);

function execGhObservedPath(): string {
  const aoBin = join(homedir(), ".ao", "bin");
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (!dir || dir === aoBin) continue;
    try {
      accessSync(join(dir, "gh"), constants.X_OK);
      return join(dir, "gh");
    } catch {
      // next
    }
  }
  throw new Error("no gh outside ~/.ao/bin");
}

interface GuardAnswer {
  status: number | undefined;
  etag: string | undefined;
  requestId: string | undefined;
  rateLimitLimit: number | undefined;
  rateLimitRemaining: number | undefined;
}

function parseIncluded(output: string): GuardAnswer {
  const lines = output.replace(/\r/g, "").split("\n");
  const start = lines.findLastIndex((line) => line.startsWith("HTTP/"));
  const headers = new Map<string, string>();
  for (const line of start >= 0 ? lines.slice(start + 1) : []) {
    if (!line) break;
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const number = (name: string) => (headers.has(name) ? Number(headers.get(name)) : undefined);
  return {
    status: start >= 0 ? Number(lines[start]?.split(" ")[1]) : undefined,
    etag: headers.get("etag"),
    requestId: headers.get("x-github-request-id"),
    rateLimitLimit: number("x-ratelimit-limit"),
    rateLimitRemaining: number("x-ratelimit-remaining"),
  };
}

async function guard(gh: string, path: string, etag: string | undefined): Promise<GuardAnswer> {
  const args = ["api", "--method", "GET", path, "-i", ...(etag ? ["-H", `If-None-Match: ${etag}`] : [])];
  try {
    return parseIncluded((await run(gh, args, { maxBuffer: 10 * 1024 * 1024 })).stdout);
  } catch (error) {
    // gh exits 1 on a 304 and still prints the answer
    return parseIncluded(String((error as { stdout?: string }).stdout ?? ""));
  }
}

async function main() {
  const scm = scmGithub.create();
  const project = { name: "widgets", repo: "acme/widgets", path: "/tmp", defaultBranch: "main" };
  const session = { id: "agent-1", branch: "feature/frobnicator" };
  const results: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const call = async (name: string, fn: () => Promise<unknown>) => {
    try {
      results[name] = await fn();
    } catch (error) {
      const cause = (error as { cause?: Error }).cause;
      errors[name] = `${(error as Error).message}${cause ? `: ${cause.message}` : ""}`;
    }
  };
  // biome-ignore lint/suspicious/noExplicitAny: AO's plugin types are structural; the driver passes what AO passes
  const pr: any = await scm.detectPR(session as any, project as any);
  results.detectPR = pr;
  if (pr) {
    await call("getPRState", () => scm.getPRState(pr));
    await call("getPRSummary", async () => scm.getPRSummary?.(pr));
    await call("getCIChecks", () => scm.getCIChecks(pr));
    await call("getCISummary", () => scm.getCISummary(pr));
    await call("getMergeability", () => scm.getMergeability(pr));
    await call("getReviews", () => scm.getReviews(pr));
    await call("getReviewDecision", () => scm.getReviewDecision(pr));
    await call("getPendingComments", () => scm.getPendingComments(pr));
    await call("getAutomatedComments", () => scm.getAutomatedComments(pr));
  }

  const gh = execGhObservedPath();
  const headSha = String(
    JSON.parse((await run(gh, ["api", "repos/acme/widgets/pulls/1", "--jq", "{sha: .head.sha}"])).stdout).sha,
  );
  const guards: Record<string, GuardAnswer[]> = {};
  for (const [name, path] of [
    ["prList", "repos/acme/widgets/pulls?state=open&sort=updated&direction=desc&per_page=1"],
    ["checkRuns", `repos/acme/widgets/commits/${headSha}/check-runs?per_page=1`],
    ["reviewComments", "repos/acme/widgets/pulls/1/comments"],
  ] as const) {
    const first = await guard(gh, path, undefined);
    const second = await guard(gh, path, first.etag);
    guards[name] = [first, second];
  }
  process.stdout.write(`${JSON.stringify({ results, errors, guards, gh })}\n`);
}

main().catch((error) => {
  process.stderr.write(`driver failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
