/**
 * The simulator's own API under /_sim/ (not GitHub's; no auth, no rate limits, no latency):
 *   GET  /_sim/stats                 the accounting (SimStats)
 *   POST /_sim/reset                 world back to the scenario's start, counters and windows zeroed
 *   GET  /_sim/scenario              the scenario in force
 *   POST /_sim/scenario              load a scenario (JSON body), then reset
 *   POST /_sim/events                apply one event or an array of events now
 *   POST /_sim/advance               {"ms": N}: move the scenario clock forward
 *   GET  /_sim/changes?since=MS      world changes after MS (scenario clock, epoch ms)
 *   GET  /_sim/changes?afterVersion=V  world changes with a version above V (exact resumption)
 *   GET  /_sim/faults                the fault plan in force and its per-rule counters
 *   POST /_sim/faults                install a fault plan ({rules, seed?}; docs/simulator.md)
 *   DELETE /_sim/faults              remove it
 *   GET  /_sim/blobs/...             log downloads that GitHub's log endpoints redirect to
 * Bad JSON or a body that fails validation gets a 400 naming the problem; nothing crashes.
 */
import { applyEvent, type EventResult } from "../core/apply-event.js";
import { parseFaultPlan } from "../core/fault-rules.js";
import { jobLogText, runLogArchive } from "../core/run-logs.js";
import { parseScenario, parseSimEvent } from "../core/scenario-schema.js";
import { isWorldError } from "../core/world-error.js";
import type { SimState } from "../sim-state.js";
import { type FaultPlanInjector, faultPlanFor } from "./layers/fault-plan.js";
import { jsonResponse } from "./respond.js";
import type { SimRequest, SimResponse } from "./types.js";

function bad(message: string): SimResponse {
  return jsonResponse(400, { message });
}

function readJson(request: SimRequest): { ok: true; value: unknown } | { ok: false; response: SimResponse } {
  if (request.body.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(request.body.toString("utf8")) };
  } catch {
    return { ok: false, response: bad("Problems parsing JSON") };
  }
}

function applyEvents(state: SimState, input: unknown): SimResponse {
  const list = Array.isArray(input) ? input : [input];
  const parsed = [];
  for (const [i, raw] of list.entries()) {
    const result = parseSimEvent(raw);
    if (!result.ok) return bad(`invalid event${list.length > 1 ? ` #${i}` : ""}:\n${result.message}`);
    parsed.push(result.value);
  }
  state.tick();
  const results: EventResult[] = [];
  for (const event of parsed) {
    try {
      results.push(
        applyEvent({ world: state.world, engine: state.engine, defaultRepo: state.defaultRepo }, event),
      );
    } catch (error) {
      if (!isWorldError(error)) throw error;
      const status = error.kind === "NOT_FOUND" ? 404 : 422;
      return jsonResponse(status, { message: error.message, applied: results });
    }
  }
  return jsonResponse(200, Array.isArray(input) ? results : results[0]);
}

function blob(state: SimState, path: string): SimResponse {
  const m = /^\/_sim\/blobs\/(run-logs|job-logs)\/([^/]+)\/([^/]+)\/(\d+)$/.exec(path);
  const repo = m ? state.world.repo(`${m[2]}/${m[3]}`) : undefined;
  if (!m || !repo) return jsonResponse(404, { message: "Not Found" });
  const id = Number(m[4]);
  if (m[1] === "run-logs") {
    const run = repo.runs.get(id);
    if (!run) return jsonResponse(404, { message: "Not Found" });
    return { status: 200, headers: { "content-type": "application/zip" }, body: runLogArchive(repo, run) };
  }
  const job = repo.checkRuns.get(id);
  if (!job) return jsonResponse(404, { message: "Not Found" });
  return { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: jobLogText(job) };
}

function faultReport(state: SimState): { installed: boolean; rules: unknown[] } {
  const plan = state.faults as Partial<FaultPlanInjector> | undefined;
  return { installed: state.faults !== undefined, rules: plan?.report?.() ?? [] };
}

export function handleAdmin(state: SimState, request: SimRequest): SimResponse {
  const { method, path } = request;
  if (path.startsWith("/_sim/blobs/") && method === "GET") {
    state.tick();
    return blob(state, path);
  }
  const route = `${method} ${path.replace(/\/+$/, "")}`;
  switch (route) {
    case "GET /_sim/stats":
      state.tick();
      return jsonResponse(200, state.statsSnapshot());
    case "POST /_sim/reset":
      state.reset();
      return jsonResponse(200, state.statsSnapshot());
    case "GET /_sim/scenario":
      return jsonResponse(200, state.scenario);
    case "POST /_sim/scenario": {
      const body = readJson(request);
      if (!body.ok) return body.response;
      const parsed = parseScenario(body.value);
      if (!parsed.ok) return bad(`invalid scenario:\n${parsed.message}`);
      try {
        state.load(parsed.value);
      } catch (error) {
        if (!isWorldError(error)) throw error;
        return bad(`invalid scenario: ${error.message}`);
      }
      return jsonResponse(200, {
        loaded: parsed.value.name ?? "scenario",
        world: state.statsSnapshot().world,
      });
    }
    case "POST /_sim/events": {
      const body = readJson(request);
      return body.ok ? applyEvents(state, body.value) : body.response;
    }
    case "POST /_sim/advance": {
      const body = readJson(request);
      if (!body.ok) return body.response;
      const ms = (body.value as { ms?: unknown }).ms;
      if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
        return bad('expected {"ms": <non-negative number>}');
      const report = state.advance(ms);
      return jsonResponse(200, { now: state.now(), applied: report.applied, failed: report.failed });
    }
    case "GET /_sim/changes": {
      state.tick();
      const afterVersion = request.query.get("afterVersion");
      if (afterVersion !== null) {
        const v = Number(afterVersion);
        if (!Number.isInteger(v)) return bad("afterVersion must be an integer");
        const changes = state.world.changesAfterVersion(v);
        return jsonResponse(200, { now: state.now(), version: state.world.version, changes });
      }
      const since = Number(request.query.get("since") ?? "-Infinity");
      if (Number.isNaN(since)) return bad("since must be a number (epoch ms)");
      return jsonResponse(200, {
        now: state.now(),
        version: state.world.version,
        changes: state.world.changes(since),
      });
    }
    case "GET /_sim/faults":
      return jsonResponse(200, faultReport(state));
    case "POST /_sim/faults": {
      const body = readJson(request);
      if (!body.ok) return body.response;
      const parsed = parseFaultPlan(body.value);
      if (!parsed.ok) return bad(`invalid fault plan:\n${parsed.message}`);
      state.faults = faultPlanFor(state, parsed.value);
      return jsonResponse(200, faultReport(state));
    }
    case "DELETE /_sim/faults":
      state.faults = undefined;
      return jsonResponse(200, faultReport(state));
    default:
      return jsonResponse(404, { message: `unknown simulator endpoint ${route}` });
  }
}
