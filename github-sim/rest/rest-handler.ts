/**
 * REST answers with GitHub's conventions around the route handlers:
 * - a read is computed first; if the client's If-None-Match matches the representation's strong
 *   ETag (a hash of the exact body, so it changes exactly when the representation does), or its
 *   If-Modified-Since is not older than Last-Modified, the answer is a 304 with no body that
 *   costs nothing (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate);
 * - otherwise one request is charged to its bucket; a spent bucket answers 403 "API rate limit
 *   exceeded for user ID N." with x-ratelimit-remaining 0 (what gh prints, capture rl_rest_run_list);
 * - a write is charged before it runs, so a refused write changes nothing;
 * - GET /rate_limit is free; unknown routes are charged and answer 404 like GitHub.
 */
import { createHash } from "node:crypto";
import { GITHUB_DOCS, primaryRateLimitMessage } from "../../github/index.js";
import type { PrimaryResource } from "../core/primary-limits.js";
import { isWorldError, WorldError } from "../core/world-error.js";
import { errorResponse, JSON_TYPE } from "../http/respond.js";
import type { SimRequest, SimResponse } from "../http/types.js";
import type { SimState } from "../sim-state.js";
import { linkHeader } from "./pagination.js";
import type { RestContext, RestResult, RestRoute } from "./rest-types.js";
import { REST_ROUTES } from "./route-table.js";

const STATUS_FOR: Record<WorldError["kind"], number> = {
  NOT_FOUND: 404,
  UNPROCESSABLE: 422,
  FORBIDDEN: 403,
  CONFLICT: 409,
  INVALID: 400,
};

const ROUTES_BY_TEMPLATE = new Map<string, RestRoute>(
  REST_ROUTES.map((r) => [`${r.method} ${r.pattern}`, r]),
);

function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

function etagOf(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("hex")}"`;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((raw) => {
    const tag = raw.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

function worldErrorResponse(error: WorldError): SimResponse {
  const status = STATUS_FOR[error.kind];
  return errorResponse(
    status,
    status === 404 && !/^No commit found/.test(error.message) ? "Not Found" : error.message,
  );
}

function makeContext(
  state: SimState,
  request: SimRequest,
  params: Readonly<Record<string, string>>,
): RestContext {
  return {
    state,
    request,
    params,
    shape: { world: state.world, api: request.apiBase, web: state.webBase },
    repo: () => {
      const repo = state.world.repo(`${params.owner ?? ""}/${params.repo ?? ""}`);
      if (!repo) throw new WorldError("NOT_FOUND", "Not Found");
      return repo;
    },
  };
}

export async function handleRest(state: SimState, request: SimRequest): Promise<SimResponse> {
  const info = request.classification?.rest;
  const route = info?.template ? ROUTES_BY_TEMPLATE.get(info.template) : undefined;
  const resource: PrimaryResource = route?.resource ?? "core";
  const charge = (): SimResponse | { snapshot: ReturnType<SimState["primary"]["snapshot"]> } => {
    const result = state.primary.charge(resource, 1, state.now());
    if (!result.ok) {
      return errorResponse(403, primaryRateLimitMessage(state.viewerId()), {
        documentationUrl: GITHUB_DOCS.primaryRateLimit,
        outcome: "rate_limited",
      });
    }
    state.stats.chargedRest();
    return { snapshot: result.snapshot };
  };
  const withResource = (
    response: SimResponse,
    snapshot?: ReturnType<SimState["primary"]["snapshot"]>,
  ): SimResponse => ({
    ...response,
    resource,
    ...(snapshot ? { rateLimit: snapshot } : {}),
  });

  if (!route || !info) {
    const charged = charge();
    if ("status" in charged) return withResource(charged);
    return withResource(errorResponse(404, "Not Found"), charged.snapshot);
  }
  const params = info.params;
  const repoNamed = params.owner !== undefined && params.repo !== undefined;
  if (repoNamed && !state.world.repo(`${params.owner}/${params.repo}`)) {
    const charged = route.free ? undefined : charge();
    if (charged && "status" in charged) return withResource(charged);
    return withResource(errorResponse(404, "Not Found"), charged?.snapshot);
  }
  const ctx = makeContext(state, request, params);
  const isRead = request.method === "GET" || request.method === "HEAD";

  if (!isRead) {
    const charged = charge();
    if ("status" in charged) return withResource(charged);
    try {
      return withResource(render(route.handler(ctx), request, false), charged.snapshot);
    } catch (error) {
      if (isWorldError(error)) return withResource(worldErrorResponse(error), charged.snapshot);
      throw error;
    }
  }

  let result: RestResult;
  try {
    result = route.handler(ctx);
  } catch (error) {
    if (!isWorldError(error)) throw error;
    const charged = route.free ? undefined : charge();
    if (charged && "status" in charged) return withResource(charged);
    return withResource(worldErrorResponse(error), charged?.snapshot);
  }
  const rendered = render(result, request, !route.free);
  if (rendered.status === 304) return withResource(rendered);
  if (route.free) return withResource(rendered);
  const charged = charge();
  if ("status" in charged) return withResource(charged);
  return withResource(rendered, charged.snapshot);
}

/** Turns a route result into the HTTP answer, including the conditional 304 when allowed. */
function render(result: RestResult, request: SimRequest, conditional: boolean): SimResponse {
  const head = request.method === "HEAD";
  if (result.type === "empty") return { status: result.status, headers: {} };
  if (result.type === "redirect") {
    return {
      status: 302,
      headers: { location: result.location, "content-type": "text/html;charset=utf-8" },
      body: "",
    };
  }
  const body = result.type === "json" ? JSON.stringify(result.body) : result.body;
  const status = result.type === "json" ? (result.status ?? 200) : 200;
  const headers: Record<string, string> = {
    "content-type": result.type === "json" ? JSON_TYPE : result.contentType,
    "cache-control": "private, max-age=60, s-maxage=60",
    vary: "Accept, Authorization, Cookie, X-GitHub-OTP",
  };
  if (status === 200) {
    const etag = etagOf(body);
    headers.etag = etag;
    if (result.lastModified !== undefined) headers["last-modified"] = httpDate(result.lastModified);
    if (conditional) {
      const inm = request.headers["if-none-match"];
      const ims = request.headers["if-modified-since"];
      const notModified = inm
        ? matchesEtag(inm, etag)
        : ims !== undefined &&
          result.lastModified !== undefined &&
          Math.floor(result.lastModified / 1000) * 1000 <= Date.parse(ims);
      if (notModified) return { status: 304, headers, outcome: "not_modified" };
    }
  }
  if (result.type === "json" && result.page) {
    const link = linkHeader(request.apiBase, request.path, request.query, result.page);
    if (link) headers.link = link;
  }
  return { status, headers, body: head ? "" : body, outcome: "ok" };
}
