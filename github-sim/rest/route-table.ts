/**
 * Every REST route the simulator answers (the endpoints in gh 2.23's captures and those AO's
 * lifecycle polls), matched by method and path segments. A route's template (`GET
 * /repos/{owner}/{repo}/pulls/{pull_number}`) names it in stats and secondary-limit windows.
 */
import type { RestRoute } from "./rest-types.js";
import {
  getJob,
  getRun,
  getWorkflow,
  jobLogs,
  listRunArtifacts,
  listRunJobs,
  listRuns,
  listWorkflowRuns,
  listWorkflows,
  runLogs,
} from "./routes-actions.js";
import {
  combinedStatusForRef,
  getCheckRun,
  listAnnotations,
  listCheckRunsForRef,
  listCheckSuitesForRef,
  listStatusesForRef,
} from "./routes-checks.js";
import { createIssueComment, getIssue, listIssueComments, listIssues } from "./routes-issues.js";
import {
  apiRoot,
  deleteRef,
  getAuthenticatedUser,
  getRepository,
  getUser,
  rateLimit,
  searchIssuesRoute,
} from "./routes-misc.js";
import {
  getPull,
  listPullFiles,
  listPulls,
  listReviewComments,
  listReviews,
  mergePull,
} from "./routes-pulls.js";

const R = "/repos/{owner}/{repo}";

export const REST_ROUTES: readonly RestRoute[] = [
  { method: "GET", pattern: "/", handler: apiRoot },
  { method: "GET", pattern: "/rate_limit", handler: rateLimit, free: true },
  { method: "GET", pattern: "/user", handler: getAuthenticatedUser },
  { method: "GET", pattern: "/users/{username}", handler: getUser },
  { method: "GET", pattern: "/search/issues", handler: searchIssuesRoute, resource: "search" },
  { method: "GET", pattern: R, handler: getRepository },
  { method: "GET", pattern: `${R}/pulls`, handler: listPulls },
  { method: "GET", pattern: `${R}/pulls/{pull_number}`, handler: getPull },
  { method: "GET", pattern: `${R}/pulls/{pull_number}/comments`, handler: listReviewComments },
  { method: "GET", pattern: `${R}/pulls/{pull_number}/reviews`, handler: listReviews },
  { method: "GET", pattern: `${R}/pulls/{pull_number}/files`, handler: listPullFiles },
  { method: "PUT", pattern: `${R}/pulls/{pull_number}/merge`, handler: mergePull },
  { method: "GET", pattern: `${R}/commits/{ref}/check-runs`, handler: listCheckRunsForRef },
  { method: "GET", pattern: `${R}/commits/{ref}/check-suites`, handler: listCheckSuitesForRef },
  { method: "GET", pattern: `${R}/commits/{ref}/status`, handler: combinedStatusForRef },
  { method: "GET", pattern: `${R}/commits/{ref}/statuses`, handler: listStatusesForRef },
  { method: "GET", pattern: `${R}/check-runs/{check_run_id}`, handler: getCheckRun },
  { method: "GET", pattern: `${R}/check-runs/{check_run_id}/annotations`, handler: listAnnotations },
  { method: "GET", pattern: `${R}/actions/runs`, handler: listRuns },
  { method: "GET", pattern: `${R}/actions/runs/{run_id}`, handler: getRun },
  { method: "GET", pattern: `${R}/actions/runs/{run_id}/jobs`, handler: listRunJobs },
  { method: "GET", pattern: `${R}/actions/runs/{run_id}/logs`, handler: runLogs },
  { method: "GET", pattern: `${R}/actions/runs/{run_id}/artifacts`, handler: listRunArtifacts },
  { method: "GET", pattern: `${R}/actions/jobs/{job_id}`, handler: getJob },
  { method: "GET", pattern: `${R}/actions/jobs/{job_id}/logs`, handler: jobLogs },
  { method: "GET", pattern: `${R}/actions/workflows`, handler: listWorkflows },
  { method: "GET", pattern: `${R}/actions/workflows/{workflow_id}`, handler: getWorkflow },
  { method: "GET", pattern: `${R}/actions/workflows/{workflow_id}/runs`, handler: listWorkflowRuns },
  { method: "DELETE", pattern: `${R}/git/refs/{ref+}`, handler: deleteRef },
  { method: "GET", pattern: `${R}/issues`, handler: listIssues },
  { method: "GET", pattern: `${R}/issues/{issue_number}`, handler: getIssue },
  { method: "GET", pattern: `${R}/issues/{issue_number}/comments`, handler: listIssueComments },
  {
    method: "POST",
    pattern: `${R}/issues/{issue_number}/comments`,
    handler: createIssueComment,
    createsContent: true,
  },
];

interface Compiled {
  readonly route: RestRoute;
  readonly template: string;
  readonly segments: readonly { literal?: string; param?: string; rest?: boolean }[];
}

const COMPILED: readonly Compiled[] = REST_ROUTES.map((route) => ({
  route,
  template: `${route.method} ${route.pattern}`,
  // "/" (the API root) has no segments at all.
  segments: (route.pattern === "/" ? "" : route.pattern)
    .split("/")
    .slice(1)
    .map((s) => {
      const m = /^\{(\w+)(\+?)\}$/.exec(s);
      return m ? { param: m[1] as string, rest: m[2] === "+" } : { literal: s };
    }),
}));

export interface RestMatch {
  readonly route: RestRoute;
  readonly template: string;
  readonly params: Readonly<Record<string, string>>;
  readonly createsContent: boolean;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function matchRestRoute(method: string, path: string): RestMatch | undefined {
  const parts = path.replace(/\/+$/, "").split("/").slice(1);
  const verb = method === "HEAD" ? "GET" : method;
  for (const c of COMPILED) {
    if (c.route.method !== verb) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < c.segments.length && ok; i++) {
      const seg = c.segments[i] as Compiled["segments"][number];
      const part = parts[i];
      if (part === undefined || part === "") ok = false;
      else if (seg.literal !== undefined) ok = seg.literal === part;
      else if (seg.rest) {
        const value = decode(parts.slice(i).join("/"));
        if (value === undefined) ok = false;
        else params[seg.param as string] = value;
        i = parts.length;
        break;
      } else {
        const value = decode(part);
        if (value === undefined) ok = false;
        else params[seg.param as string] = value;
      }
    }
    const consumed = c.segments.some((s) => s.rest) ? ok : ok && parts.length === c.segments.length;
    if (consumed)
      return {
        route: c.route,
        template: c.template,
        params,
        createsContent: c.route.createsContent ?? false,
      };
  }
  return undefined;
}
