/**
 * Every REST answer the simulator gives is validated against GitHub's official OpenAPI
 * description (@octokit/openapi, dereferenced), for a standing world and for one with CI in
 * motion (queued and in-progress jobs have different null fields).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../github-sim/index.js";
import { rest } from "./support.js";

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

let spec: OpenApi;
let ajv: Ajv;
let sim: RunningSimulator;

beforeAll(async () => {
  const file = require.resolve("@octokit/openapi/generated/api.github.com.deref.json");
  spec = JSON.parse(readFileSync(file, "utf8")) as OpenApi;
  ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateFormats: true }));
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const R = "/repos/{owner}/{repo}";
const r = "/repos/acme/widgets";

interface Case {
  readonly name: string;
  readonly template: string;
  readonly path: string;
  readonly method?: "get" | "post" | "put";
  readonly body?: string;
  readonly status?: number;
}

const STANDING: readonly Case[] = [
  { name: "rate limit", template: "/rate_limit", path: "/rate_limit" },
  { name: "authenticated user", template: "/user", path: "/user" },
  { name: "a user", template: "/users/{username}", path: "/users/hubot" },
  { name: "issue search", template: "/search/issues", path: "/search/issues?q=repo:acme/widgets+is:open" },
  { name: "repository", template: R, path: r },
  { name: "pull list", template: `${R}/pulls`, path: `${r}/pulls?state=all` },
  { name: "pull", template: `${R}/pulls/{pull_number}`, path: `${r}/pulls/1` },
  { name: "draft pull", template: `${R}/pulls/{pull_number}`, path: `${r}/pulls/3` },
  { name: "unknown pull", template: `${R}/pulls/{pull_number}`, path: `${r}/pulls/99`, status: 404 },
  { name: "review comments", template: `${R}/pulls/{pull_number}/comments`, path: `${r}/pulls/1/comments` },
  { name: "reviews", template: `${R}/pulls/{pull_number}/reviews`, path: `${r}/pulls/1/reviews` },
  { name: "pull files", template: `${R}/pulls/{pull_number}/files`, path: `${r}/pulls/1/files` },
  {
    name: "check runs for a ref",
    template: `${R}/commits/{ref}/check-runs`,
    path: `${r}/commits/main/check-runs`,
  },
  {
    name: "check suites for a ref",
    template: `${R}/commits/{ref}/check-suites`,
    path: `${r}/commits/feature%2Ffrobnicator/check-suites`,
  },
  {
    name: "combined status",
    template: `${R}/commits/{ref}/status`,
    path: `${r}/commits/feature%2Ffrobnicator/status`,
  },
  {
    name: "statuses",
    template: `${R}/commits/{ref}/statuses`,
    path: `${r}/commits/feature%2Ffrobnicator/statuses`,
  },
  { name: "check run", template: `${R}/check-runs/{check_run_id}`, path: `${r}/check-runs/2002` },
  { name: "other app's check run", template: `${R}/check-runs/{check_run_id}`, path: `${r}/check-runs/2008` },
  {
    name: "annotations",
    template: `${R}/check-runs/{check_run_id}/annotations`,
    path: `${r}/check-runs/2002/annotations`,
  },
  { name: "workflow runs", template: `${R}/actions/runs`, path: `${r}/actions/runs?per_page=20` },
  {
    name: "workflow run",
    template: `${R}/actions/runs/{run_id}`,
    path: `${r}/actions/runs/1001?exclude_pull_requests=true`,
  },
  { name: "run jobs", template: `${R}/actions/runs/{run_id}/jobs`, path: `${r}/actions/runs/1001/jobs` },
  {
    name: "run artifacts",
    template: `${R}/actions/runs/{run_id}/artifacts`,
    path: `${r}/actions/runs/1001/artifacts?per_page=100`,
  },
  { name: "job", template: `${R}/actions/jobs/{job_id}`, path: `${r}/actions/jobs/2001` },
  {
    name: "workflows",
    template: `${R}/actions/workflows`,
    path: `${r}/actions/workflows?per_page=100&page=1`,
  },
  { name: "workflow", template: `${R}/actions/workflows/{workflow_id}`, path: `${r}/actions/workflows/42` },
  {
    name: "workflow's runs",
    template: `${R}/actions/workflows/{workflow_id}/runs`,
    path: `${r}/actions/workflows/ci.yml/runs`,
  },
  { name: "issue list", template: `${R}/issues`, path: `${r}/issues?state=all` },
  { name: "issue", template: `${R}/issues/{issue_number}`, path: `${r}/issues/10` },
  { name: "a PR through the issues API", template: `${R}/issues/{issue_number}`, path: `${r}/issues/1` },
  {
    name: "issue comments",
    template: `${R}/issues/{issue_number}/comments`,
    path: `${r}/issues/10/comments`,
  },
  {
    name: "new issue comment",
    template: `${R}/issues/{issue_number}/comments`,
    path: `${r}/issues/11/comments`,
    method: "post",
    body: JSON.stringify({ body: "hello" }),
    status: 201,
  },
];

const MOVING: readonly Case[] = [
  { name: "runs with queued and running jobs", template: `${R}/actions/runs`, path: `${r}/actions/runs` },
  {
    name: "jobs in motion",
    template: `${R}/actions/runs/{run_id}/jobs`,
    path: `${r}/actions/runs/1004/jobs`,
  },
  {
    name: "queued check runs",
    template: `${R}/commits/{ref}/check-runs`,
    path: `${r}/commits/docs%2Freadme-typo/check-runs?filter=all`,
  },
  { name: "a merged pull", template: `${R}/pulls/{pull_number}`, path: `${r}/pulls/2` },
  { name: "a closed issue", template: `${R}/issues/{issue_number}`, path: `${r}/issues/12` },
];

/**
 * OpenAPI 3.0's `nullable` as JSON Schema: ajv accepts `nullable` only next to `type`, and a
 * nullable enum must list null itself. GitHub sends null in both places (start_side, conclusion).
 */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "enum" || k === "example" || k === "examples" ? v : jsonSchema(v);
  if (out.nullable === true) {
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.type === undefined) {
      delete out.nullable;
      return { anyOf: [out, { type: "null" }] };
    }
  }
  return out;
}

async function validate(c: Case): Promise<void> {
  const status = c.status ?? 200;
  const reply = await rest(sim, c.path, {
    method: (c.method ?? "get").toUpperCase(),
    ...(c.body ? { body: c.body } : {}),
  });
  expect(reply.status).toBe(status);
  const schema =
    spec.paths[c.template]?.[c.method ?? "get"]?.responses[String(status)]?.content?.["application/json"]
      ?.schema;
  expect(schema, `no schema for ${c.template} ${status}`).toBeDefined();
  const check = ajv.compile(jsonSchema(schema) as object);
  const valid = check(reply.json);
  expect(
    valid ? [] : check.errors?.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`),
  ).toEqual([]);
}

describe("REST answers against GitHub's OpenAPI description", () => {
  describe("when the world stands still", () => {
    it.each(STANDING)("validates $name", validate);
  });

  describe("when CI is moving and PRs and issues have closed", () => {
    beforeAll(async () => {
      sim.reset();
      sim.inject({
        type: "ci",
        pr: 2,
        ci: {
          runId: 1004,
          jobs: [
            { name: "slow", startAfterS: 100, durationS: 10 },
            { name: "running", startAfterS: 0, durationS: 100 },
          ],
        },
      });
      await sim.advance(1);
      sim.inject({ type: "merge", pr: 2, method: "SQUASH" });
      sim.inject({ type: "close", number: 12 });
    });

    it.each(MOVING)("validates $name", validate);
  });
});
